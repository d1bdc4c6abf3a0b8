//! The pure text of a prompt: the header line, the lines shown above it, help
//! lines, the long-answer warning, and reading a typed answer.

use askuser_core::{AnswerType, Progress, Prompt, Question, ValidForm};
use serde_json::Value;

/// A typed answer longer than this many characters gets a soft warning (the person
/// may still send it).
pub const LONG_ANSWER_CHARS: usize = 2_000;

/// The longest schema shown above a schema question, in characters of compact JSON;
/// a longer one is cut and ends with `…`.
pub const SCHEMA_HINT_CHARS: usize = 300;

/// Help under a text input.
pub const TEXT_HELP: &str = "Enter sends · Esc returns to the menu";

/// Help under a JSON input.
pub const JSON_HELP: &str = "one JSON value, checked on Enter · Esc returns to the menu";

/// Help under the "Other" free-text input.
pub const OTHER_HELP: &str = "Enter sends · Esc returns to the options";

/// Help under a multi-select.
pub const MULTI_HELP: &str = "Space toggles · Enter sends · Esc for Back / Reply / End Turn";

/// The text of the input opened after "Answer" or "Other".
pub const INPUT_MESSAGE: &str = "Your answer:";

/// The text of the JSON input opened after "Answer" on a schema question.
pub const JSON_MESSAGE: &str = "Your answer (JSON):";

/// The question of the menu Esc opens on a multi-select.
pub const ESCAPE_MENU_MESSAGE: &str = "What now?";

/// The question asked after the long-answer warning.
pub const LONG_ANSWER_CONFIRM: &str = "Send it anyway?";

/// The line a prompt starts with: `[2/3] Assistant asks: Which environment?`.
///
/// `[N/M]` comes first when the form has more than one question, then the short
/// `header` (if any) followed by ` · `, then `<label> asks: ` when there is a
/// "who's asking" label, then the question.
///
/// ```
/// use askuser_core::Progress;
/// use askuser_terminal::render::header_line;
///
/// assert_eq!(
///     header_line(Some(Progress { n: 2, m: 3 }), Some("Assistant"), None, "Which environment?"),
///     "[2/3] Assistant asks: Which environment?"
/// );
/// assert_eq!(header_line(None, None, Some("Env"), "Which?"), "Env · Which?");
/// ```
pub fn header_line(
    progress: Option<Progress>,
    label: Option<&str>,
    header: Option<&str>,
    text: &str,
) -> String {
    let mut line = String::new();
    if let Some(progress) = progress.filter(|p| p.m > 1) {
        line.push_str(&progress.to_string());
        line.push(' ');
    }
    if let Some(header) = header.map(str::trim).filter(|h| !h.is_empty()) {
        line.push_str(header);
        line.push_str(" · ");
    }
    if let Some(label) = label.map(str::trim).filter(|l| !l.is_empty()) {
        line.push_str(label);
        line.push_str(" asks: ");
    }
    line.push_str(text);
    line
}

/// [`header_line`] for a prompt.
pub fn prompt_header(prompt: &Prompt) -> String {
    let question = prompt.question();
    header_line(
        prompt.progress,
        prompt.label.as_deref(),
        question.header.as_deref(),
        &question.text,
    )
}

/// The lines shown above the prompt: the question's `context` (each line as
/// written), then for a schema question the schema it expects, compact and cut to
/// [`SCHEMA_HINT_CHARS`].
pub fn preamble(question: &Question) -> Vec<String> {
    let mut lines: Vec<String> = question
        .context
        .as_deref()
        .map(|context| context.trim_end().lines().map(str::to_owned).collect())
        .unwrap_or_default();
    if question.answer_type == AnswerType::Schema
        && let Some(schema) = &question.schema
    {
        lines.push(format!(
            "Answer with JSON matching: {}",
            cut(&schema.to_string(), SCHEMA_HINT_CHARS)
        ));
    }
    lines
}

fn cut(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut cut: String = text.chars().take(max.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

/// The soft warning for a long typed answer, or `None` when it is at most
/// [`LONG_ANSWER_CHARS`] characters long.
///
/// ```
/// use askuser_terminal::render::long_answer_warning;
///
/// assert_eq!(long_answer_warning("short"), None);
/// assert_eq!(
///     long_answer_warning(&"x".repeat(2_001)).as_deref(),
///     Some("This answer is 2001 characters long (more than 2000); the assistant may not need that much.")
/// );
/// ```
pub fn long_answer_warning(answer: &str) -> Option<String> {
    let chars = answer.chars().count();
    (chars > LONG_ANSWER_CHARS).then(|| {
        format!(
            "This answer is {chars} characters long (more than {LONG_ANSWER_CHARS}); the assistant may not need that much."
        )
    })
}

/// The value to prefill a typed input with: a string as it is, any other JSON value
/// (a schema answer) as compact JSON.
pub fn prefill_text(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

/// Reads what the person typed as an answer to question `index`: as JSON when
/// `json` is set (a schema question), else as a string; then checks it against the
/// question. The error is the message to show under the input.
///
/// ```
/// use askuser_core::parse_form;
/// use askuser_terminal::render::typed_answer;
/// use serde_json::json;
///
/// let form = parse_form(&json!({"questions": [{"id": "n", "text": "How many?",
///     "answer_type": "schema", "schema": {"type": "integer"}}]})).unwrap();
/// assert_eq!(typed_answer(&form, 0, true, " 3 "), Ok(json!(3)));
/// assert_eq!(
///     typed_answer(&form, 0, true, "three").unwrap_err(),
///     "not valid JSON: expected ident at line 1 column 2"
/// );
/// ```
///
/// # Errors
/// When the text is not JSON (for `json`), or the value does not fit the question.
pub fn typed_answer(
    form: &ValidForm,
    index: usize,
    json: bool,
    input: &str,
) -> Result<Value, String> {
    let value = if json {
        serde_json::from_str(input.trim()).map_err(|error| format!("not valid JSON: {error}"))?
    } else {
        Value::String(input.to_owned())
    };
    form.check(index, &value)
        .map_err(|error| error.to_string())?;
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use askuser_core::{Choice, parse_form};
    use serde_json::json;

    #[test]
    fn the_header_shows_progress_only_for_several_questions() {
        assert_eq!(
            header_line(
                Some(Progress { n: 1, m: 1 }),
                Some("Assistant"),
                None,
                "Ok?"
            ),
            "Assistant asks: Ok?"
        );
        assert_eq!(
            header_line(
                Some(Progress { n: 3, m: 3 }),
                Some("Assistant"),
                Some("Note"),
                "Why?"
            ),
            "[3/3] Note · Assistant asks: Why?"
        );
        assert_eq!(header_line(None, Some("  "), Some(""), "Ok?"), "Ok?");
    }

    #[test]
    fn the_prompt_header_reads_the_prompt() {
        let form = parse_form(&json!({"questions": [
            {"id": "a", "text": "Apply?", "answer_type": "boolean"},
            {"id": "b", "text": "Why?", "answer_type": "text"}]}))
        .unwrap();
        let prompt = Prompt {
            inquiry: "c".into(),
            form,
            index: 1,
            progress: Some(Progress { n: 2, m: 2 }),
            prefill: None,
            can_back: true,
            label: Some("Assistant".into()),
        };
        assert_eq!(prompt_header(&prompt), "[2/2] Assistant asks: Why?");
    }

    #[test]
    fn the_preamble_is_the_context_then_the_schema() {
        let mut q = Question::new("c", "Config?", AnswerType::Schema)
            .with_context("We found two configs.\nPick the fields.\n")
            .with_schema(json!({"type": "object", "required": ["replicas"]}));
        assert_eq!(
            preamble(&q),
            [
                "We found two configs.",
                "Pick the fields.",
                r#"Answer with JSON matching: {"type":"object","required":["replicas"]}"#
            ]
        );
        q.schema = Some(json!({"description": "x".repeat(400)}));
        let lines = preamble(&q);
        assert_eq!(
            lines[2].chars().count(),
            "Answer with JSON matching: ".len() + 300
        );
        assert!(lines[2].ends_with("xx…"));
        let plain =
            Question::new("s", "Which?", AnswerType::Select).with_options([Choice::new("a")]);
        assert!(preamble(&plain).is_empty());
    }

    #[test]
    fn long_answers_warn_past_two_thousand_characters() {
        assert_eq!(long_answer_warning(&"é".repeat(2_000)), None);
        assert_eq!(
            long_answer_warning(&"é".repeat(2_500)).as_deref(),
            Some(
                "This answer is 2500 characters long (more than 2000); the assistant may not need that much."
            )
        );
    }

    #[test]
    fn typed_answers_are_read_and_checked() {
        let form = parse_form(&json!({"questions": [
            {"id": "n", "text": "Note?", "answer_type": "text"},
            {"id": "c", "text": "Config?", "answer_type": "schema",
             "schema": {"type": "object", "properties": {"replicas": {"type": "integer", "minimum": 1}},
                        "required": ["replicas"]}}]}))
        .unwrap();
        assert_eq!(typed_answer(&form, 0, false, " hi "), Ok(json!(" hi ")));
        assert_eq!(
            typed_answer(&form, 1, true, r#"{"replicas": 2}"#),
            Ok(json!({"replicas": 2}))
        );
        assert_eq!(
            typed_answer(&form, 1, true, r#"{"replicas": 0}"#).unwrap_err(),
            "does not match the schema: at /replicas: 0 is less than the minimum of 1"
        );
        assert_eq!(
            typed_answer(&form, 1, true, "{").unwrap_err(),
            "not valid JSON: EOF while parsing an object at line 1 column 1"
        );
    }

    #[test]
    fn prefills_are_text_for_strings_and_json_otherwise() {
        assert_eq!(prefill_text(&json!("weekly run")), "weekly run");
        assert_eq!(prefill_text(&json!({"replicas": 2})), r#"{"replicas":2}"#);
    }
}
