//! When another surface (the web inbox, a terminal, `askuser answer`) moved an
//! inquiry while the client's form was shown: what it did, in words for the
//! person (the next round's message) and, when it finished the inquiry, the
//! tool result it produced, saying in words for the model that it was answered
//! there. Never the engine's refusal text.

use std::fmt::Write as _;

use askuser_core::text::for_display_line;
use askuser_core::{Answer, Command, Event, OutcomeStatus, ValidForm};
use askuser_llm::dialect::mcp::other_field;
use askuser_llm::{Call, ToolResult};
use askuser_store::Caught;
use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::{Map, Value};

/// Where the other surfaces are, as the person and the model are told.
const WHERE: &str = "another window (the askuser web inbox or a terminal)";

/// The longest answer shown in words, in characters.
const SHOWN_CHARS: usize = 200;

/// An inquiry another surface finished while the client's form was shown.
pub(crate) struct Elsewhere {
    /// The command that finished it there (`None`: the log no longer says how).
    pub(crate) ending: Option<Command>,
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
/// next round's message.
pub(crate) fn news(form: &ValidForm, caught: &[Caught]) -> Vec<String> {
    caught
        .iter()
        .filter_map(|caught| match &caught.event {
            Event::Back { .. } => {
                let asked = caught.commands.iter().find_map(|command| match command {
                    Command::Prompt(prompt) => Some(quoted(&prompt.question().text)),
                    _ => None,
                });
                Some(match asked {
                    Some(asked) => format!("went back to {asked}"),
                    None => "went back to an earlier question".to_owned(),
                })
            }
            Event::Answered {
                question,
                value,
                note,
                ..
            } => {
                let mut line = answered(form, question, value);
                if let Some(note) = note {
                    let _ = write!(line, " (note: {})", shorten(&for_display_line(note)));
                }
                Some(line)
            }
            Event::AnsweredAhead {
                question, value, ..
            } => Some(answered(form, question, value)),
            _ => None,
        })
        .collect()
}

/// `"Which environment?" was answered: staging`.
fn answered(form: &ValidForm, question: &str, value: &Value) -> String {
    let asked = form.index_of(question).map(|index| form.question(index));
    let text = asked.map_or(question, |q| q.text.as_str());
    format!("{} was answered: {}", quoted(text), words(value))
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
    let head = match ending {
        Command::Respond { outcome, .. } => match outcome.status {
            OutcomeStatus::Completed => format!(
                "The user answered these questions in {WHERE} while this client's form was open; their answers are the result:"
            ),
            OutcomeStatus::Cancelled => format!(
                "The user chose to reply instead of answering, in {WHERE}, while this client's form was open; the result holds the answers given so far:"
            ),
            OutcomeStatus::TimedOut { .. } => "The time to answer these questions ran out while this client's form was open; the result holds what was answered:".to_owned(),
        },
        Command::EndTurn { .. } => {
            return error(format!(
                "{tool}: the user ended the turn in {WHERE} while this client's form was open. Do not retry this tool call in this turn; continue without the answers, or end your turn.{after}"
            ));
        }
        _ => format!("While this client's form was open, these questions were ended in {WHERE}."),
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
