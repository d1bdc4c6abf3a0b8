//! Checking on replay that the recorded elicitation rounds are the ones the
//! server's walk derives from the log.
//!
//! Each round the server sends is recorded as [`Event::Shown`] before it goes
//! out, and every answer a round brings back is recorded at once (the one the
//! engine asks as [`Event::Answered`], the others as [`Event::AnsweredAhead`]).
//! So the walk's position before a round (the question asked, the questions
//! settled, the answers held for later ones) is the engine's state at that point,
//! and the round is a function of it ([`crate::rounds::plan`]). A replay folds
//! the stream, derives each round again and compares it with the one recorded.

use std::fmt::Write as _;

use askuser_app::log::replay::{ReplayOptions, apply_recorded, latest_snapshot, replay_with};
use askuser_app::log::{Log, Seq, StoreError};
use askuser_core::{Command, Event, InquiryId, State};

use crate::rounds::plan;

/// One recorded round and the round a replay derives in its place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoundCheck {
    /// The sequence number of its [`Event::Shown`].
    pub seq: Seq,
    /// The inquiry it asked.
    pub inquiry: String,
    /// The question ids recorded as shown, in order.
    pub shown: Vec<String>,
    /// The question ids the walk derives from the events before it; empty when
    /// the inquiry was not waiting on the person there.
    pub derived: Vec<String>,
}

impl RoundCheck {
    /// Whether the round recorded is the round derived.
    pub fn matches(&self) -> bool {
        self.shown == self.derived
    }
}

/// Every elicitation round recorded in `stream`, each with the round derived
/// from the events before it (from the latest snapshot on, when the stream was
/// compacted).
///
/// # Errors
/// [`StoreError`] when the stream cannot be read or replayed.
pub fn check_rounds(log: &dyn Log, stream: &str) -> Result<Vec<RoundCheck>, StoreError> {
    let head = log
        .stream(stream)?
        .ok_or_else(|| StoreError::NoSuchStream(stream.to_owned()))?
        .head;
    let mut state = latest_snapshot(log, stream, head)?
        .map(|snapshot| snapshot.state)
        .unwrap_or_default();
    let mut checks = Vec::new();
    let mut out: Vec<Command> = Vec::new();
    replay_with(log, stream, ReplayOptions::latest(), &mut |recorded, _| {
        if let Event::Shown { inquiry, questions } = &recorded.event {
            checks.push(RoundCheck {
                seq: recorded.seq,
                inquiry: inquiry.to_string(),
                shown: questions.clone(),
                derived: derive(&state, inquiry),
            });
        }
        apply_recorded(&mut state, recorded, &mut out);
        out.clear();
    })?;
    Ok(checks)
}

/// The round the walk sends for `inquiry` in `state`: from the question asked,
/// every question not yet settled nor answered ahead whose `when` is known.
fn derive(state: &State, inquiry: &InquiryId) -> Vec<String> {
    let (Some(form), Some(slots), Some(Command::Prompt(prompt))) = (
        state.form(inquiry),
        state.answers(inquiry),
        state.pending(inquiry),
    ) else {
        return Vec::new();
    };
    let current = prompt.index;
    let settled: Vec<bool> = (0..form.len()).map(|i| i < current).collect();
    let held: Vec<bool> = (0..form.len())
        .map(|i| i > current && slots.get(i).is_some_and(Option::is_some))
        .collect();
    let answers: Vec<_> = (0..form.len())
        .map(|i| {
            slots
                .get(i)
                .and_then(|slot| slot.as_ref().map(|s| s.answer.clone()))
        })
        .collect();
    plan(form, current, &settled, &held, &answers)
        .into_iter()
        .map(|i| form.question(i).id.clone())
        .collect()
}

/// What [`check_rounds`] found, in a line for `askuser log replay` (empty when the
/// stream holds no rounds): how many rounds match, and each one that does not.
pub fn rounds_text(checks: &[RoundCheck]) -> String {
    if checks.is_empty() {
        return String::new();
    }
    let differ: Vec<&RoundCheck> = checks.iter().filter(|c| !c.matches()).collect();
    let count = checks.len();
    let plural = if count == 1 { "" } else { "s" };
    if differ.is_empty() {
        return format!(
            "rounds: the {count} elicitation round{plural} recorded are derived again from the events before each\n"
        );
    }
    let mut text = format!(
        "rounds: MISMATCH: {} of the {count} elicitation round{plural} recorded differ from the rounds derived\n",
        differ.len()
    );
    for check in differ {
        let _ = writeln!(
            text,
            "  #{} {}: shown [{}], derived [{}]",
            check.seq,
            check.inquiry,
            check.shown.join(", "),
            check.derived.join(", ")
        );
    }
    text
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use askuser_app::log::{Log, MemLog};
    use askuser_core::{Event, parse_form};
    use askuser_testkit::build::{answered, answered_ahead, requested, shown};
    use serde_json::json;

    use super::{check_rounds, rounds_text};

    /// A replay derives the rounds as the server sent them, and finds a round
    /// recorded with another grouping.
    #[test]
    fn replay_derives_the_rounds_and_finds_one_that_differs() {
        let form = parse_form(&json!({"questions": [
            {"id": "apply", "text": "Apply?", "answer_type": "boolean"},
            {"id": "env", "text": "Env?", "answer_type": "select", "options": ["a", "b"],
             "when": {"question_id": "apply", "equals": true}},
            {"id": "note", "text": "Note?", "answer_type": "text"}
        ]}))
        .unwrap();
        let id = "call-1";
        let session = |events: &[Event]| {
            let log: Arc<dyn Log> = Arc::new(MemLog::new());
            askuser_testkit::record(&*log, "s", 0, events).unwrap();
            log
        };
        let request = requested(id, form.form().clone());
        let ahead = answered_ahead(id, "note", json!("n"));
        let first = [
            request.clone(),
            shown(id, &["apply", "note"]),
            answered(id, "apply", json!(true)),
            ahead.clone(),
        ];
        let good = session(&[&first[..], &[shown(id, &["env"])]].concat());
        let checks = check_rounds(&*good, "s").unwrap();
        assert!(checks.iter().all(super::RoundCheck::matches), "{checks:?}");
        assert_eq!(
            rounds_text(&checks),
            "rounds: the 2 elicitation rounds recorded are derived again from the events before each\n"
        );
        // `note` was answered ahead: a round showing it again is not the walk's.
        let bad = session(&[&first[..], &[shown(id, &["env", "note"])]].concat());
        let checks = check_rounds(&*bad, "s").unwrap();
        assert_eq!(
            rounds_text(&checks),
            "rounds: MISMATCH: 1 of the 2 elicitation rounds recorded differ from the rounds derived\n  #5 call-1: shown [env, note], derived [env]\n"
        );
    }
}
