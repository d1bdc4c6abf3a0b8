//! Picking a call's dialect from its shape, for hosts that do not say which tool
//! the call was made to.
//!
//! The rule: the dialects whose parser accepts the call are the candidates; among
//! them, those whose own fields (below) appear most in the call win; `pi` gives way
//! to `claude` (pi's shape is claude's without limits: a call within claude's limits
//! is read as claude unless it carries pi's `metadata`); `gemini` gives way to the
//! others when no question says its `type` (only Gemini CLI 0.27.0 to 0.29.0 sent
//! such calls, which read as claude's or opencode's too; named, `gemini` takes
//! them: see `docs/dialects.md`, "Versions"). One winner is the dialect;
//! several are [`DetectError::Ambiguous`]. A call that uses one dialect's own fields
//! most but is refused by it is [`DetectError::NoMatch`] naming that dialect, not a
//! weaker match elsewhere.

use serde_json::Value;

use super::Dialect;

/// Why no single dialect was picked for a call.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DetectError {
    /// Several dialects accept the call and nothing in it tells them apart.
    #[error("the call fits several dialects ({}); name the one it was made in", list(.candidates))]
    Ambiguous {
        /// The dialects that accept the call, in [`Dialect::ALL`] order.
        candidates: Vec<Dialect>,
    },
    /// No dialect accepts the call.
    #[error("no dialect accepts the call{}", .closest.map(|d| format!("; it looks most like a {d} call")).unwrap_or_default())]
    NoMatch {
        /// The dialect whose own fields the call uses most, if it uses any.
        closest: Option<Dialect>,
    },
}

fn list(dialects: &[Dialect]) -> String {
    dialects
        .iter()
        .map(|d| d.name())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The fields that mark a dialect: at the top level, in a question, in an option.
fn marks(
    dialect: Dialect,
) -> (
    &'static [&'static str],
    &'static [&'static str],
    &'static [&'static str],
) {
    match dialect {
        Dialect::Jp => (
            &["question", "answer_type", "context", "options", "default"],
            &[],
            &[],
        ),
        Dialect::JpForm => (
            &[],
            &[
                "id",
                "text",
                "answer_type",
                "allow_other",
                "schema",
                "default",
                "when",
            ],
            &[],
        ),
        Dialect::Claude => (&[], &["multiSelect"], &["preview"]),
        Dialect::Pi => (&["metadata"], &["multiSelect"], &[]),
        Dialect::OpenCode => (&[], &["multiple", "custom"], &[]),
        Dialect::Codex => (&[], &["id", "isOther", "isSecret"], &[]),
        Dialect::Gemini => (&[], &["type", "placeholder", "multiSelect"], &[]),
        Dialect::Mcp => (&["requestedSchema", "message"], &[], &[]),
    }
}

/// How many of the dialect's own fields the call uses.
fn score(dialect: Dialect, arguments: &Value) -> usize {
    let (top, question, option) = marks(dialect);
    let Value::Object(map) = arguments else {
        return 0;
    };
    let questions: Vec<&serde_json::Map<String, Value>> = map
        .get("questions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_object)
        .collect();
    let options: Vec<&serde_json::Map<String, Value>> = questions
        .iter()
        .filter_map(|q| q.get("options").and_then(Value::as_array))
        .flatten()
        .filter_map(Value::as_object)
        .collect();
    let in_top = top.iter().filter(|k| map.contains_key(**k)).count();
    let in_questions = question
        .iter()
        .filter(|k| questions.iter().any(|q| q.contains_key(**k)))
        .count();
    let in_options = option
        .iter()
        .filter(|k| options.iter().any(|o| o.contains_key(**k)))
        .count();
    in_top + in_questions + in_options
}

/// Whether a question of the call has a `type` (Gemini CLI's own field).
fn says_type(arguments: &Value) -> bool {
    arguments
        .get("questions")
        .and_then(Value::as_array)
        .is_some_and(|qs| qs.iter().any(|q| q.get("type").is_some()))
}

/// See [`Dialect::detect`].
pub(super) fn detect(arguments: &Value) -> Result<Dialect, DetectError> {
    let scored: Vec<(Dialect, usize)> = Dialect::ALL
        .into_iter()
        .map(|d| (d, score(d, arguments)))
        .collect();
    let accepted: Vec<(Dialect, usize)> = scored
        .iter()
        .copied()
        .filter(|(d, _)| d.parse(arguments).is_ok())
        .collect();
    let closest = scored
        .iter()
        .filter(|(_, s)| *s > 0)
        .max_by_key(|(_, s)| *s)
        .map(|(d, s)| (*d, *s));
    let best = accepted.iter().map(|(_, s)| *s).max();
    // None accepts it, or it was plainly made in a dialect that refuses it.
    match (best, closest) {
        (None, _) => {
            return Err(DetectError::NoMatch {
                closest: closest.map(|(d, _)| d),
            });
        }
        (Some(best), Some((dialect, top))) if best < top => {
            return Err(DetectError::NoMatch {
                closest: Some(dialect),
            });
        }
        _ => {}
    }
    let best = best.unwrap_or_default();
    let mut candidates: Vec<Dialect> = accepted
        .into_iter()
        .filter(|(_, s)| *s == best)
        .map(|(d, _)| d)
        .collect();
    if candidates.contains(&Dialect::Claude) {
        candidates.retain(|d| *d != Dialect::Pi);
    }
    if candidates.len() > 1 && !says_type(arguments) {
        candidates.retain(|d| *d != Dialect::Gemini);
    }
    match candidates.as_slice() {
        [one] => Ok(*one),
        _ => Err(DetectError::Ambiguous { candidates }),
    }
}
