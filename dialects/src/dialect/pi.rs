//! Dialect `pi` (the pi-coding-agent spec): `{"questions": [{question, header?,
//! options?, multiSelect?}], "metadata"?}`, answered as `{"answered": true,
//! "answers": [{"question", "answer", "selectedOption"?, "wasCustom"}]}`.

use askuser_core::{Answer, Outcome, Question};
use serde_json::{Map, Value, json};

use super::questions::{Parsed, Rules};
use askuser_core::Problem;

/// The tool's name.
pub const TOOL_NAME: &str = "ask_user";

const RULES: Rules = Rules {
    tool: TOOL_NAME,
    max_questions: None,
    option_count: None,
    unique_texts: false,
    metadata: true,
    preview: false,
};

pub(crate) fn parse(arguments: &Value) -> Result<Parsed, Vec<Problem>> {
    super::questions::parse(arguments, &RULES)
}

/// The pi result. A Reply cancels the whole call (pi's multi-question cancel is
/// atomic): `{"answered": false, "answers": [], "cancelled": true}`. After a
/// timeout: `"answered": false`, every question's entry (those the timeout filled
/// marked `"filledByTimeout": true`), `"timedOut": true` and a `"message"`. A
/// Reply's message is `"message"` beside `"cancelled"`; a note beside an answer is
/// its entry's `"note"`.
pub(crate) fn render(outcome: &Outcome, texts: &[String]) -> Value {
    if outcome.is_cancelled() {
        let mut result = json!({"answered": false, "answers": [], "cancelled": true});
        if let (Some(message), Value::Object(map)) =
            (super::notice::reply_message(outcome), &mut result)
        {
            map.insert("message".into(), Value::String(message.to_owned()));
        }
        return result;
    }
    let notice = super::notice::timeout(outcome, texts);
    let answers: Vec<Value> = outcome
        .form
        .questions()
        .iter()
        .enumerate()
        .map(|(index, question)| {
            let text = texts.get(index).unwrap_or(&question.text);
            let slot = outcome.answers.get(index).and_then(Option::as_ref);
            let mut entry = entry(text, question, slot.map(|s| &s.answer));
            if let Value::Object(map) = &mut entry {
                if let Some(note) = super::notice::note(outcome, index) {
                    map.insert("note".into(), Value::String(note.to_owned()));
                }
                if outcome.filled_by_timeout(index) {
                    map.insert("filledByTimeout".into(), Value::Bool(true));
                }
            }
            entry
        })
        .collect();
    match notice {
        Some(notice) => {
            json!({"answered": false, "answers": answers, "timedOut": true, "message": notice})
        }
        None => json!({"answered": true, "answers": answers}),
    }
}

/// One `{"question", "answer", "selectedOption"?, "wasCustom"}` entry.
fn entry(text: &str, question: &Question, answer: Option<&Answer>) -> Value {
    let mut entry = Map::new();
    entry.insert("question".into(), Value::String(text.to_owned()));
    let Some(answer) = answer else {
        entry.insert("answer".into(), Value::Null);
        entry.insert("wasCustom".into(), Value::Bool(false));
        return Value::Object(entry);
    };
    let value = answer.to_value(question);
    let (selected, custom) = match answer {
        Answer::Choice(_) => (Some(value.clone()), false),
        Answer::Choices(picks) => {
            let labels: Vec<&str> = picks
                .options
                .iter()
                .filter_map(|i| question.choices().get(i))
                .map(|c| c.label.as_str())
                .collect();
            let selected = (!labels.is_empty()).then(|| Value::String(labels.join(", ")));
            (selected, !picks.other.is_empty())
        }
        Answer::Bool(_) | Answer::Json(_) => (None, false),
        Answer::Other(_) | Answer::Text(_) => (None, true),
    };
    entry.insert("answer".into(), value);
    if let Some(selected) = selected {
        entry.insert("selectedOption".into(), selected);
    }
    entry.insert("wasCustom".into(), Value::Bool(custom));
    Value::Object(entry)
}
