//! The words every dialect gives the model when the person did not answer in time
//! (and, later, what the person wrote beside their answers).

use std::fmt::Write as _;

use askuser_core::{Answer, Outcome};

use super::questions::answer_strings;

/// For a timed-out outcome: a plain statement that the person did not answer in
/// time, which answers the timeout filled (with their values) and which questions
/// are left without an answer, and the Reply the person was writing when the
/// time ran out, if any. `None` for any other outcome.
///
/// `texts` are the question texts as the model wrote them.
pub(crate) fn timeout(outcome: &Outcome, texts: &[String]) -> Option<String> {
    let after_ms = outcome.timed_out_after_ms()?;
    let questions = outcome.form.questions();
    let what = if questions.len() == 1 {
        "the question"
    } else {
        "the questions"
    };
    let mut notice = format!(
        "The user did not answer in time: {what} timed out after {}.",
        askuser_core::text::duration_words(after_ms)
    );
    let answers: Vec<Option<Answer>> = outcome
        .answers
        .iter()
        .map(|slot| slot.as_ref().map(|s| s.answer.clone()))
        .collect();
    let mut filled = Vec::new();
    let mut unanswered = Vec::new();
    for (index, question) in questions.iter().enumerate() {
        let text = texts.get(index).unwrap_or(&question.text);
        let slot = outcome.answers.get(index).and_then(Option::as_ref);
        if outcome.filled_by_timeout(index) {
            let value = answer_strings(question, slot).join(", ");
            filled.push(format!("\"{text}\" = \"{value}\""));
        } else if slot.is_none() && outcome.form.is_asked(index, &answers) {
            unanswered.push(format!("\"{text}\""));
        }
    }
    if filled.is_empty() {
        notice.push_str(" No answer was filled in for the user.");
    } else {
        let _ = write!(
            notice,
            " These answers were filled in by the timeout, not chosen by the user: {}.",
            filled.join(", ")
        );
    }
    if !unanswered.is_empty() {
        let _ = write!(notice, " Not answered: {}.", unanswered.join(", "));
    }
    if let Some(reply) = outcome.message.as_deref().filter(|m| !m.trim().is_empty()) {
        let _ = write!(
            notice,
            " When the time ran out the user was writing this reply to you: {reply}"
        );
    }
    Some(notice)
}

/// The note the person wrote beside the answer to question `index`, if any
/// (blank notes count as none).
pub(crate) fn note(outcome: &Outcome, index: usize) -> Option<&str> {
    let note = outcome.answers.get(index)?.as_ref()?.note.as_deref()?;
    (!note.trim().is_empty()).then_some(note)
}

/// The message the person typed with a Reply, if any (blank counts as none).
pub(crate) fn reply_message(outcome: &Outcome) -> Option<&str> {
    let message = outcome.message.as_deref()?;
    (outcome.is_cancelled() && !message.trim().is_empty()).then_some(message)
}

/// A dialect's cancel text with the Reply's message after it, for the hosts whose
/// cancel is plain text: `<marker>. The user replied instead: <message>`.
pub(crate) fn with_reply(marker: &str, outcome: &Outcome) -> String {
    match reply_message(outcome) {
        Some(message) => {
            let stop = if marker.ends_with(['.', '!', '?']) {
                ""
            } else {
                "."
            };
            format!("{marker}{stop} The user replied instead: {message}")
        }
        None => marker.to_owned(),
    }
}
