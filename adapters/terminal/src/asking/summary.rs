//! The line a prompt leaves on the screen once it is done: what was answered, or
//! what the person did instead.

use serde_json::Value;

use super::{Asking, Done};
use crate::action::Action;
use crate::render;

impl Asking<'_> {
    /// The line left on the screen once the prompt is done.
    pub(super) fn summary(&self, done: &Done) -> String {
        let header = &self.header;
        match done {
            Done::Act(Action::Answer(value)) => answered_line(header, value, None),
            Done::Act(Action::Remember(value)) => {
                format!("> {header} {} (remembered for this turn)", shortened(value))
            }
            Done::Act(Action::Back) => format!("> {header} ← Back"),
            Done::Act(Action::Reply { message: None }) => {
                format!("> {header} ↩ Reply to the assistant, with the answers given (no message)")
            }
            Done::Act(Action::Reply {
                message: Some(message),
            }) => format!(
                "> {header} ↩ Reply to the assistant, with the answers given: {}",
                shortened(&Value::String(message.clone()))
            ),
            Done::Act(Action::EndTurn) => {
                format!("✗ {header}: the turn was ended; nothing is sent to the assistant.")
            }
            // What the person chose; the engine may yet find it stale.
            Done::Submit => format!("> {header}: Submit"),
            Done::TimedOut(None) | Done::Act(Action::TimedOut { message: None }) => {
                format!("⏱ {header}: {}", render::TIMED_OUT)
            }
            Done::TimedOut(Some(message))
            | Done::Act(Action::TimedOut {
                message: Some(message),
            }) => format!(
                "⏱ {header}: {}; your reply is sent with it: {}",
                render::TIMED_OUT,
                shortened(&Value::String(message.clone()))
            ),
            Done::Act(Action::AnswerWithNote { value, note }) => {
                answered_line(header, value, Some(note))
            }
            Done::Change(index) => format!("> {header}: change answer {}", index + 1),
            // Not left on the screen: what changed elsewhere is said instead.
            Done::Moved(_) => format!("↻ {header}"),
        }
    }
}

/// The line an answer leaves (`> [2/3] Assistant asks: Which environment?
/// staging`), with its note when it has one: also for an answer kept while an
/// earlier one changed, which is not asked again.
pub(crate) fn answered_line(header: &str, value: &Value, note: Option<&str>) -> String {
    match note {
        None => format!("> {header} {}", shortened(value)),
        Some(note) => format!(
            "> {header} {} (note: {})",
            shortened(value),
            shortened(&Value::String(note.to_owned()))
        ),
    }
}

/// The longest answer a summary line shows, in characters.
const SUMMARY_CHARS: usize = 200;

fn shortened(value: &Value) -> String {
    render::shorten(&render::answer_text(value), SUMMARY_CHARS)
}
