//! When another surface (the web inbox, a terminal, `askuser answer`) moved an
//! inquiry while the client's form was shown: what it did, in words for the
//! person (the next round's message) and, when it finished the inquiry, the
//! tool result it produced, saying in words for the model that it was answered
//! there. Never the engine's refusal text.

use std::fmt::Write as _;

use askuser_app::log::Caught;
use askuser_core::text::for_display_line;
use askuser_core::{Answer, Command, Ending, Happened, Surface, ValidForm};
use askuser_dialects::dialect::mcp::other_field;
use askuser_dialects::{Call, ToolResult};
use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::{Map, Value};

/// Where the other surfaces are, as the person and the model are told.
const WHERE: &str = "another window (the askuser web inbox or a terminal)";

/// Where a person ended a turn while this client's form was open: the surface
/// the log recorded (another MCP client's form there is another agent window),
/// or [`WHERE`] when the log does not say.
fn turn_ended_where(surface: Option<Surface>) -> String {
    match surface {
        Some(Surface::Web) => "in the askuser web inbox".to_owned(),
        Some(Surface::Terminal) => "in a terminal (askuser)".to_owned(),
        Some(Surface::Host) => "in another agent window".to_owned(),
        None => format!("in {WHERE}"),
    }
}

/// The longest answer shown in words, in characters.
const SHOWN_CHARS: usize = 200;

/// An inquiry another surface finished while the client's form was shown.
pub(crate) struct Elsewhere {
    /// The command that finished it there (`None`: the log no longer says how).
    pub(crate) ending: Option<Command>,
    /// Where a person ended the turn there, when that finished it and the log
    /// says where.
    pub(crate) turn_ended_in: Option<Surface>,
    /// What the person then sent from this client's form, which was not recorded.
    pub(crate) unsent: Unsent,
}

/// What the person sent from a form another surface overtook.
#[derive(Debug, Clone)]
pub(crate) enum Unsent {
    /// Answers, by field (blank fields left out).
    Answers(Map<String, Value>),
    /// A `decline`.
    Decline,
    /// A `cancel`.
    Dismissal,
    /// Nothing the person did (a round being recorded, the assistant's answer).
    Nothing,
}

/// One line per change another surface made (answers given, Back), for the
/// next round's message: the MCP server's style of the one narrator's data
/// ([`Happened`], made of each caught event on `form`).
pub(crate) fn news(form: &ValidForm, caught: &[Caught]) -> Vec<String> {
    caught
        .iter()
        .filter_map(|caught| Happened::of(&caught.event, &caught.commands, Some(form)))
        .filter_map(|happened| match happened {
            Happened::WentBack { to, .. } => Some(match to {
                Some(asked) => format!("went back to {}", quoted(&asked)),
                None => "went back to an earlier question".to_owned(),
            }),
            Happened::Answered {
                asked,
                value,
                note,
                ahead,
                ..
            } => {
                let mut line = format!("{} was answered: {}", quoted(&asked), words(&value));
                if let Some(note) = note.filter(|_| !ahead) {
                    let _ = write!(line, " (note: {})", shorten(&for_display_line(&note)));
                }
                Some(line)
            }
            _ => None,
        })
        .collect()
}

/// A question's text in quotes, on one line.
fn quoted(text: &str) -> String {
    format!("\u{201c}{}\u{201d}", for_display_line(text))
}

/// The answers of a review, one line each (`\n- Apply?: yes`); skipped
/// questions left out.
pub(crate) fn review_lines(form: &ValidForm, answers: &[Option<Answer>]) -> String {
    let mut lines = String::new();
    for (question, answer) in form.questions().iter().zip(answers) {
        if let Some(answer) = answer {
            let _ = write!(
                lines,
                "\n- {}: {}",
                for_display_line(&question.text),
                words(&answer.to_value(question))
            );
        }
    }
    lines
}

/// An answer in words: yes or no, a label or text, labels joined with `, `,
/// else compact JSON; at most [`SHOWN_CHARS`] characters.
fn words(value: &Value) -> String {
    let text = match value {
        Value::Bool(true) => "yes".to_owned(),
        Value::Bool(false) => "no".to_owned(),
        Value::Null => "(skipped)".to_owned(),
        Value::String(text) if text.is_empty() => "(empty)".to_owned(),
        Value::String(text) => for_display_line(text).into_owned(),
        Value::Array(items) if items.iter().all(Value::is_string) => items
            .iter()
            .filter_map(Value::as_str)
            .map(|s| for_display_line(s).into_owned())
            .collect::<Vec<_>>()
            .join(", "),
        other => other.to_string(),
    };
    shorten(&text)
}

fn shorten(text: &str) -> String {
    if text.chars().count() <= SHOWN_CHARS {
        return text.to_owned();
    }
    let mut short: String = text.chars().take(SHOWN_CHARS).collect();
    short.push('\u{2026}');
    short
}

/// The tool result when another surface finished the inquiry first: the result
/// it produced, in the call's dialect (its `structuredContent` unchanged), with
/// text saying in words that it was answered there, and what the person sent
/// here afterwards.
pub(crate) fn result(call: &Call, elsewhere: &Elsewhere) -> CallToolResult {
    let tool = call.tool_name();
    let unsent = unsent(call.form(), &elsewhere.unsent);
    // After a sentence, and after a result on a line of its own.
    let (after, below) = match &unsent {
        Some(unsent) => (format!(" {unsent}"), format!("\n{unsent}")),
        None => (String::new(), String::new()),
    };
    let Some(ending) = &elsewhere.ending else {
        return error(format!(
            "{tool}: these questions were finished in {WHERE} while this client's form was open. Do not retry this tool call in this turn.{after}"
        ));
    };
    let head = match Ending::of(ending) {
        Some(Ending::Answered) => format!(
            "The user answered these questions in {WHERE} while this client's form was open; their answers are the result:"
        ),
        Some(Ending::Replied) => format!(
            "The user chose to reply instead of answering, in {WHERE}, while this client's form was open; the result holds the answers given so far:"
        ),
        Some(Ending::TimedOut) => "The time to answer these questions ran out while this client's form was open; the result holds what was answered:".to_owned(),
        Some(Ending::TurnEnded) => {
            return error(format!(
                "{tool}: the user ended the turn {} while this client's form was open. Do not retry this tool call in this turn; continue without the answers, or end your turn.{after}",
                turn_ended_where(elsewhere.turn_ended_in)
            ));
        }
        Some(Ending::Failed | Ending::Rejected) | None => {
            format!("While this client's form was open, these questions were ended in {WHERE}.")
        }
    };
    match call.tool_result(ending) {
        Some(ToolResult::Success(value)) => {
            let text = format!("{head}\n{value}{below}");
            let mut result = CallToolResult::structured(value);
            result.content = vec![ContentBlock::text(text)];
            result
        }
        Some(ToolResult::Text(text)) => {
            CallToolResult::success(vec![ContentBlock::text(format!("{head}\n{text}{below}"))])
        }
        Some(ToolResult::Error(text)) => error(format!("{head} {text}{after}")),
        None => error(format!(
            "{head} Do not retry this tool call in this turn.{after}"
        )),
    }
}

fn error(text: String) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(text)])
}

/// The sentence on what the person sent here afterwards, if anything.
fn unsent(form: &ValidForm, unsent: &Unsent) -> Option<String> {
    match unsent {
        Unsent::Answers(fields) if !fields.is_empty() => {
            let by_question: Map<String, Value> = fields
                .iter()
                .map(|(name, value)| (question_of(form, name), value.clone()))
                .collect();
            Some(format!(
                "What the user then sent from this client's form came too late and was not recorded: {}.",
                Value::Object(by_question)
            ))
        }
        Unsent::Decline => {
            Some("The user then declined this client's form; that was not recorded.".to_owned())
        }
        Unsent::Dismissal => {
            Some("The user then dismissed this client's form; that was not recorded.".to_owned())
        }
        Unsent::Answers(_) | Unsent::Nothing => None,
    }
}

/// The text of the question a form field answers (its own field, or its
/// "own answer" field); the field's name when it answers none.
fn question_of(form: &ValidForm, field: &str) -> String {
    form.questions()
        .iter()
        .find(|q| q.id == field || other_field(q).is_some_and(|other| other == field))
        .map_or_else(|| field.to_owned(), |q| q.text.clone())
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use askuser_app::log::{Log, MemLog, Session};
    use askuser_core::{AnswerInput, Input};
    use askuser_dialects::{Call, Dialect};
    use serde_json::{Value, json};

    use crate::recorder::Recorder;
    use crate::server::done_result;
    use crate::walk::{Done, Next, Walk};

    /// A walk of `arguments` (`ask_user`) on a memory log, its first round
    /// shown, and another session on the same log.
    fn started(arguments: &Value) -> (Call, Recorder, Walk, Session) {
        let call = Dialect::JpForm.parse(arguments).unwrap();
        let log: Arc<dyn Log> = Arc::new(MemLog::new());
        let shared = Arc::clone(&log);
        let recorder = Recorder::new(
            Arc::new(move || Ok(askuser_app::Desk::new(Arc::clone(&shared)))),
            "s",
        );
        let (inquiry, Ok(step)) = recorder
            .request(|id| Input::Ask(call.recorded_request(id, arguments)))
            .unwrap()
        else {
            panic!("refused")
        };
        let form = call.form().clone();
        let Ok(mut walk) = Walk::start(form, inquiry, step.commands, step.at, step.head) else {
            panic!("finished at once")
        };
        let Ok(Next::Ask(_)) = walk.next_round(&recorder) else {
            panic!("no round")
        };
        let other = Session::open(log, "s").unwrap();
        (call, recorder, walk, other)
    }

    fn two_questions() -> Value {
        json!({"questions": [
            {"id": "apply", "text": "Apply?", "answer_type": "boolean"},
            {"id": "note", "text": "Note?", "answer_type": "text"}]})
    }

    /// A decline sent after another window answered the first question is still
    /// the person's Reply, recorded on what is current: the cancel marker holds
    /// the other window's answer.
    #[test]
    fn a_decline_after_another_window_answered_is_a_reply_on_what_is_current() {
        let (call, recorder, mut walk, mut other) = started(&two_questions());
        let at = other.state().at(walk.inquiry()).unwrap();
        other
            .handle(&AnswerInput::new(at, json!(true)).into())
            .unwrap();
        let done = walk.reply(&recorder).unwrap();
        let result = done_result(&call, &done);
        assert_eq!(
            result.structured_content,
            Some(json!({"cancelled": true, "answered": {"apply": true}}))
        );
    }

    /// A dismissal sent after another window ended the turn: the tool error says
    /// where the turn ended, and that the dismissal here was not recorded.
    #[test]
    fn a_dismissal_after_another_window_ended_the_turn_says_where() {
        let (call, recorder, mut walk, mut other) = started(&two_questions());
        other
            .handle(&Input::EndTurn {
                inquiry: walk.inquiry().clone(),
                surface: Some(askuser_core::Surface::Web),
            })
            .unwrap();
        let done = walk.end_turn(&recorder).unwrap();
        assert!(matches!(done, Done::Elsewhere(_)));
        let result = done_result(&call, &done);
        assert_eq!(result.is_error, Some(true));
        assert_eq!(
            serde_json::to_value(&result.content).unwrap(),
            json!([{"type": "text", "text": "ask_user: the user ended the turn in the askuser web inbox while this client's form was open. Do not retry this tool call in this turn; continue without the answers, or end your turn. The user then dismissed this client's form; that was not recorded."}])
        );
    }

    /// Back in another window: the next round asks that question again, says
    /// so, and offers the answer taken back as its default.
    #[test]
    fn back_in_another_window_asks_again_with_the_answer_taken_back() {
        let (_, recorder, mut walk, mut other) = started(&two_questions());
        let inquiry = walk.inquiry().clone();
        let at = other.state().at(&inquiry).unwrap();
        other
            .handle(&AnswerInput::new(at, json!(false)).into())
            .unwrap();
        let at = other.state().at(&inquiry).unwrap();
        other.handle(&Input::Back(at)).unwrap();
        let round = walk.round();
        let content = json!({"apply": true, "note": ""});
        let Value::Object(content) = content else {
            unreachable!()
        };
        assert!(walk.accept(&recorder, &round, &content).unwrap().is_none());
        let Ok(Next::Ask(next)) = walk.next_round(&recorder) else {
            panic!("no round")
        };
        assert_eq!(
            next.message,
            "Questions 1\u{2013}2 of 2\nYour last form was not sent: meanwhile, in another window (the askuser web inbox or a terminal),\n- \u{201c}Apply?\u{201d} was answered: no\n- went back to \u{201c}Apply?\u{201d}\nWhat you had answered is filled in below; check it and send."
        );
        // What the person typed here wins over the answer taken back.
        assert_eq!(next.schema["properties"]["apply"]["default"], json!(true));
    }
}
