//! When another surface (the web inbox, `askuser answer`, another terminal) moved
//! an inquiry while the person was at a prompt: what it did, in words (the
//! terminal's style of the one narrator's data, [`Happened`]); what became of
//! the person's own action; and, when the inquiry ended there, what the
//! assistant got. Pure: the lines are built here and shown by the prompter.

use std::fmt::Write as _;

use crate::markdown;
use askuser_core::{Command, Ending, Happened, Outcome, Prompt, Surface};
use serde_json::Value;

use crate::action::Action;
use crate::render;

/// What another surface recorded for an inquiry while the person was at a prompt
/// (the host's log moved under the screen), from [`Engine::elsewhere`].
///
/// [`Engine::elsewhere`]: crate::Engine::elsewhere
#[derive(Debug, Clone, PartialEq)]
pub struct Elsewhere {
    /// What another surface did to the inquiry since the person's screen was
    /// last up to date, in order ([`Happened::of`] of each event recorded).
    pub happened: Vec<Happened>,
    /// What the inquiry waits on now (its [`Command::Prompt`] or
    /// [`Command::Review`]), or the command that ended it (`Respond`, `Fail`,
    /// `EndTurn`): the commands to carry on with.
    pub commands: Vec<Command>,
}

/// The longest answer or message these lines show, in characters.
const SHOWN_CHARS: usize = 200;

/// Puts the person's unsent answer in the field of the prompt shown next, when it
/// is the question they answered, or a typed question again (text or schema)
/// and the answer fits it. Whether it was carried.
pub(crate) fn carry(action: &Action, asked: &Prompt, next: &mut Prompt) -> bool {
    let (Action::Answer(value) | Action::Remember(value) | Action::AnswerWithNote { value, .. }) =
        action
    else {
        return false;
    };
    let typed = |prompt: &Prompt| {
        matches!(
            prompt.question().answer_type,
            askuser_core::AnswerType::Text | askuser_core::AnswerType::Schema
        )
    };
    let same = next.question().id == asked.question().id;
    if !(same || typed(asked) && typed(next)) {
        return false;
    }
    match next.form.check(next.index, value) {
        Ok(answer) => {
            next.prefill = Some(answer);
            true
        }
        Err(_) => false,
    }
}

/// The lines to show: one per change made elsewhere, then what became of the
/// person's `action` (only when it carried something they may want again: an
/// answer, a note, a Reply message), then, when `commands` end the inquiry, what
/// the assistant got.
pub(crate) fn lines(moved: &Elsewhere, action: Option<&Action>, carried: bool) -> Vec<String> {
    let mut lines: Vec<String> = moved.happened.iter().map(change).collect();
    lines.extend(action.and_then(|action| yours(action, carried)));
    for command in &moved.commands {
        lines.extend(ending(command));
    }
    lines
}

/// What another surface did, in words.
fn change(happened: &Happened) -> String {
    match happened {
        Happened::Answered {
            asked,
            value,
            note,
            ahead,
            ..
        } => {
            let what = if *ahead {
                "Answered ahead elsewhere"
            } else {
                "Answered elsewhere"
            };
            let mut line = format!(
                "↻ {what}: \"{}\" → {}",
                markdown::inline(asked),
                answer(value)
            );
            if let Some(note) = note.as_deref().filter(|_| !*ahead) {
                let _ = write!(line, " (note: {})", text(note));
            }
            line
        }
        Happened::WentBack { .. } => "↻ Went back elsewhere, to an earlier question.".to_owned(),
        Happened::Submitted { .. } => "↻ Submitted elsewhere.".to_owned(),
        Happened::Replied {
            message: Some(message),
            ..
        } => format!(
            "↻ Replied elsewhere instead of answering: {}",
            text(message)
        ),
        Happened::Replied { message: None, .. } => {
            "↻ Replied elsewhere instead of answering.".to_owned()
        }
        Happened::Cancelled { .. } => "↻ Cancelled elsewhere.".to_owned(),
        Happened::TurnEnded { surface, .. } => match surface {
            // Seen from a terminal, a terminal that ended it is another one.
            Some(Surface::Terminal) => "↻ The turn was ended in another terminal.".to_owned(),
            Some(surface) => format!("↻ The turn was ended {}.", surface.words()),
            None => "↻ The turn was ended elsewhere.".to_owned(),
        },
        Happened::TimedOut { .. } => "↻ Timed out elsewhere.".to_owned(),
    }
}

/// What became of the person's action, when it carried something to keep.
fn yours(action: &Action, carried: bool) -> Option<String> {
    let (value, note) = match action {
        Action::Answer(value) | Action::Remember(value) => (value, None),
        Action::AnswerWithNote { value, note } => (value, Some(note)),
        Action::Reply {
            message: Some(message),
        }
        | Action::TimedOut {
            message: Some(message),
        } => return Some(format!("✗ Your reply was not sent: {}", text(message))),
        _ => return None,
    };
    let mut line = if carried {
        "✗ Your answer was not sent; it is filled in below.".to_owned()
    } else {
        format!("✗ Your answer was not sent: {}", answer(value))
    };
    if let Some(note) = note {
        let _ = write!(line, " Your note: {}", text(note));
    }
    Some(line)
}

/// How the inquiry ended and what the assistant got, for a command that ends
/// it; nothing for a prompt or a review.
fn ending(command: &Command) -> Vec<String> {
    let head = match Ending::of(command) {
        Some(Ending::Answered) => "The assistant got the answers:",
        Some(Ending::Replied) => "The assistant got a reply instead, with the answers so far:",
        Some(Ending::TimedOut) => {
            "The assistant was told the time ran out, with the answers so far:"
        }
        Some(Ending::TurnEnded) => "The turn ended: the assistant gets no result.",
        Some(Ending::Failed) => {
            "The inquiry failed: the assistant got a tool error and no answers."
        }
        Some(Ending::Rejected) => "The call was rejected: the assistant got its problems.",
        None => return Vec::new(),
    };
    match command {
        Command::Respond { outcome, .. } => got(head, outcome),
        _ => vec![head.to_owned()],
    }
}

/// What the assistant got in a response: `head` (how it ended), then each
/// question with its answer.
fn got(head: &str, outcome: &Outcome) -> Vec<String> {
    let mut lines = vec![head.to_owned()];
    for (question, slot) in outcome.form.questions().iter().zip(outcome.answers.iter()) {
        let shown = match slot {
            Some(slot) => match &slot.note {
                Some(note) => format!(
                    "{} (note: {})",
                    answer(&slot.answer.to_value(question)),
                    text(note)
                ),
                None => answer(&slot.answer.to_value(question)),
            },
            None => "(not answered)".to_owned(),
        };
        lines.push(format!("  {} — {shown}", markdown::inline(&question.text)));
    }
    if let (true, Some(message)) = (outcome.is_cancelled(), &outcome.message) {
        lines.push(format!("  and the message: {}", text(message)));
    }
    lines
}

/// An answer for one line, shortened.
fn answer(value: &Value) -> String {
    render::shorten(&render::answer_text(value), SHOWN_CHARS)
}

/// A person's or a model's text for one line, shortened.
fn text(text: &str) -> String {
    answer(&Value::String(text.to_owned()))
}
