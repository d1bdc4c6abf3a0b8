//! The pure text of a prompt: the header line, the lines shown above it (the
//! context, the schema described in words), the hint lines, the summary left on
//! the screen once a prompt is done, and reading a typed answer. Every text that
//! comes from a model or a person passes [`for_display`] or [`for_display_line`].

use askuser_core::text::for_display_line;
use askuser_core::{AnswerType, Progress, Prompt, Question, UiInput, ValidForm};
use serde_json::Value;
use unicode_width::UnicodeWidthChar;

use crate::markdown::{self, Line};
use crate::schema_text;

/// A typed answer longer than this many characters gets a soft warning (the person
/// may still send it).
pub(crate) const LONG_ANSWER_CHARS: usize = 2_000;

/// The question asked after the long-answer warning.
pub(crate) const LONG_ANSWER_CONFIRM: &str = "Send it anyway? (y sends, n or Esc edits it)";

/// The title of the Reply message input.
pub(crate) const REPLY_TITLE: &str = "Reply to the assistant instead of answering";

/// The line under the Reply message when the question has an unsent answer.
pub(crate) const DRAFT_DROPPED: &str =
    "⚠ What you typed for this question is not sent; Esc goes back to it.";

/// The line after a timeout's when the person was typing: what follows is what
/// they typed, kept for them to copy.
pub(crate) const TYPED_NOT_SENT: &str = "What you were typing was not sent; here it is, to copy:";

/// The title of the End Turn confirmation.
pub(crate) const END_TURN_TITLE: &str =
    "End the turn? Your answers so far are lost and the assistant gets no reply.";

/// The title of the review.
pub(crate) const REVIEW_TITLE: &str = "Review your answers";

/// The error under a yes/no question without a default when Enter is pressed
/// before a choice.
pub(crate) const NO_DEFAULT: &str =
    "this question has no default: press y for Yes or n for No (or ↑↓ then Enter)";

/// What the line left after a timeout says.
pub(crate) const TIMED_OUT: &str = "no answer in time";

/// What happens when the time runs out, in words for the countdown line (the
/// core's one wording, [`askuser_core::text::on_timeout_words`]).
pub(crate) fn on_timeout(action: askuser_core::OnTimeout) -> &'static str {
    askuser_core::text::on_timeout_words(action)
}

/// The line left when Ctrl+C ends the turn.
pub(crate) const INTERRUPTED: &str =
    "✗ Ctrl+C: the turn was ended; nothing is sent to the assistant.";

/// The hint line under a prompt of this kind: which keys do what. `menu` names
/// what Esc opens (`Back / Reply / End Turn`).
pub(crate) fn hint(question: &Question, can_back: bool, remember: bool, digits: bool) -> String {
    let menu = menu_names(can_back);
    let options = question.choices().len().min(9);
    let other = if question.allow_other {
        " · 0 Other"
    } else {
        ""
    };
    let pick = if digits {
        format!("1-{options} pick{other} · ")
    } else {
        String::new()
    };
    let tick = if digits {
        format!("Space or 1-{options} tick{other} · Ctrl+A all · Ctrl+D none")
    } else {
        "Space ticks · Ctrl+A all · Ctrl+D none".to_owned()
    };
    match question.answer_type {
        AnswerType::Boolean if remember => format!(
            "[y Yes · n No · Y or N also remembers it for this turn · Alt+N note · Esc for {menu}]"
        ),
        AnswerType::Boolean => {
            format!("[y Yes · n No · ↑↓ and Enter · Alt+N note · Esc for {menu}]")
        }
        AnswerType::Select => {
            format!("[{pick}type to filter, Enter picks · Alt+N note · Esc for {menu}]")
        }
        AnswerType::MultiSelect => {
            format!("[{tick} · type to filter · Enter sends · Alt+N note · Esc for {menu}]")
        }
        AnswerType::Text => format!(
            "[Enter sends · Alt+Enter new line · Ctrl+U/W/A/E edit · Alt+N note · Esc for {menu}]"
        ),
        AnswerType::Schema => format!(
            "[Enter checks and sends · Alt+Enter new line · Ctrl+U/W/A/E edit · Alt+N note · Esc for {menu}]"
        ),
    }
}

/// The first line of an inquiry: who asks, and how many questions
/// (`Claude (repo: billing-api) asks you 2 questions`); `The assistant` when
/// the inquiry has no label. Safe for one line (not yet cut to a width).
pub(crate) fn who_asks(label: Option<&str>, questions: usize) -> String {
    let label = label.map(str::trim).filter(|l| !l.is_empty());
    let who = label.map_or(
        std::borrow::Cow::Borrowed("The assistant"),
        for_display_line,
    );
    match questions {
        1 => format!("{who} asks you a question"),
        n => format!("{who} asks you {n} questions"),
    }
}

/// `Back / Reply / End Turn`, without Back when it is not offered.
pub(crate) fn menu_names(can_back: bool) -> &'static str {
    if can_back {
        "Back / Reply / End Turn"
    } else {
        "Reply / End Turn"
    }
}

/// `text` cut to at most `width` columns (a cut line ends with `…`).
pub(crate) fn fit(text: &str, width: usize) -> String {
    let mut out = String::new();
    let mut used = 0;
    let total: usize = text.chars().map(|c| c.width().unwrap_or(0)).sum();
    if total <= width {
        return text.to_owned();
    }
    for c in text.chars() {
        let wide = c.width().unwrap_or(0);
        if used + wide + 1 > width {
            break;
        }
        out.push(c);
        used += wide;
    }
    out.push('…');
    out
}

/// `text` (one line, already safe to show) broken into rows of at most `width`
/// columns, between words where a row has a space to break at. A word longer
/// than a row (a link, a path, an identifier: no wide characters) is never split:
/// it gets a row of its own, whole, for the terminal to wrap, so it can still be
/// copied or followed. (Text with wide characters, written without spaces, is
/// broken at the width.)
pub(crate) fn wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut rows = Vec::new();
    let mut row: Vec<char> = Vec::new();
    let mut used = 0;
    for c in text.chars() {
        let wide = c.width().unwrap_or(0);
        if used + wide > width {
            let split = row
                .iter()
                .rposition(|&c| c == ' ')
                .filter(|&at| at > 0 && c != ' ');
            match split {
                Some(at) => {
                    let rest = row.split_off(at + 1);
                    rows.push(row.iter().collect::<String>().trim_end().to_owned());
                    row = rest;
                }
                None if c != ' ' && keeps_whole(row.iter().copied(), wide) => {
                    row.push(c);
                    used += wide;
                    continue;
                }
                None => rows.push(row.drain(..).collect()),
            }
            used = row.iter().map(|c| c.width().unwrap_or(0)).sum();
            if c == ' ' && row.is_empty() {
                continue;
            }
        }
        row.push(c);
        used += wide;
    }
    rows.push(row.into_iter().collect());
    rows
}

/// Whether a row holding one word (`word`, no space to break at), about to be
/// widened by a character `wide` columns wide, is a token kept whole: it has
/// no wide characters (a link, a path, code), so it is not text in a script
/// written without spaces.
pub(crate) fn keeps_whole(mut word: impl Iterator<Item = char>, wide: usize) -> bool {
    wide <= 1 && word.all(|c| c != ' ' && c.width().unwrap_or(0) <= 1)
}

/// `text` cut to at most `max` characters, saying how long it was when cut.
pub(crate) fn shorten(text: &str, max: usize) -> String {
    let count = text.chars().count();
    if count <= max {
        return text.to_owned();
    }
    let kept: String = text.chars().take(max).collect();
    format!("{kept}… ({count} characters)")
}

/// An answer as the summary and the review show it: its words
/// ([`askuser_core::text::answer_words`]), safe for one line.
pub(crate) fn answer_text(value: &Value) -> String {
    for_display_line(&askuser_core::text::answer_words(value)).into_owned()
}

/// The line a prompt starts with: `[2/3] Assistant asks: Which environment?`.
///
/// `[N/M]` comes first when the form has more than one question, then the short
/// `header` (if any) followed by ` · `, then `<label> asks: ` when there is a
/// "who's asking" label, then the question (Markdown, its marks removed); all
/// safe for one line.
pub(crate) fn header_line(
    progress: Option<Progress>,
    label: Option<&str>,
    header: Option<&str>,
    text: &str,
) -> String {
    header_styled(progress, label, header, text).text()
}

/// [`header_line`] with the question's styles (bold, emphasis, code).
pub(crate) fn header_styled(
    progress: Option<Progress>,
    label: Option<&str>,
    header: Option<&str>,
    text: &str,
) -> Line {
    let mut line = String::new();
    if let Some(progress) = progress.filter(|p| p.m > 1) {
        line.push_str(&progress.to_string());
        line.push(' ');
    }
    if let Some(header) = header.map(str::trim).filter(|h| !h.is_empty()) {
        line.push_str(&for_display_line(header));
        line.push_str(" · ");
    }
    if let Some(label) = label.map(str::trim).filter(|l| !l.is_empty()) {
        line.push_str(&for_display_line(label));
        line.push_str(" asks: ");
    }
    let mut styled = Line::plain(line);
    styled.spans.extend(markdown::inline_line(text).spans);
    styled
}

/// [`header_styled`] for a prompt.
pub(crate) fn prompt_header_styled(prompt: &Prompt) -> Line {
    let question = prompt.question();
    header_styled(
        prompt.progress,
        prompt.label.as_deref(),
        question.header.as_deref(),
        &question.text,
    )
}

/// The rows shown above the prompt, at most `width` columns wide: the
/// question's `context` (Markdown, see [`markdown`]), then for a schema
/// question the answer it expects, in words (see [`schema_text`]).
pub(crate) fn preamble(question: &Question, width: usize) -> Vec<Line> {
    let mut lines = question
        .context
        .as_deref()
        .map(|context| markdown::lines(context, width))
        .unwrap_or_default();
    if question.answer_type == AnswerType::Schema
        && let Some(schema) = &question.schema
    {
        let described = schema_text::describe(schema);
        lines.extend(
            described
                .iter()
                .flat_map(|line| wrap(line, width))
                .map(Line::plain),
        );
    }
    lines
}

/// The soft warning for a long typed answer, or `None` when it is at most
/// [`LONG_ANSWER_CHARS`] characters long.
pub(crate) fn long_answer_warning(answer: &str) -> Option<String> {
    let chars = answer.chars().count();
    (chars > LONG_ANSWER_CHARS).then(|| {
        format!(
            "This answer is {chars} characters long (more than {LONG_ANSWER_CHARS}); the assistant may not need that much."
        )
    })
}

/// The text to prefill a typed input with: a string as it is, any other JSON
/// value (a schema answer) as JSON, pretty-printed when it does not fit one line
/// of 60 columns.
pub(crate) fn prefill_text(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => {
            let compact = other.to_string();
            if compact.chars().count() <= 60 {
                compact
            } else {
                serde_json::to_string_pretty(other).unwrap_or(compact)
            }
        }
    }
}

/// Reads what the person typed as an answer to question `index`, then checks it
/// against the question. A text question takes the text as it is; a schema
/// question's text is read by the engine's one rule for every surface
/// ([`ValidForm::ui_answer`]: JSON the schema accepts, else the text itself
/// where the schema takes a string, so `my-branch` needs no quotes). The error
/// is the message to show under the input.
///
/// # Errors
/// When the text is not JSON (and not a string the schema takes), or the value
/// does not fit the question.
pub(crate) fn typed_answer(form: &ValidForm, index: usize, input: &str) -> Result<Value, String> {
    let question = form.question(index);
    if question.answer_type == AnswerType::Schema {
        return (form.ui_answer(index, UiInput::Text(input.to_owned()))).map_err(|e| e.to_string());
    }
    let value = Value::String(input.to_owned());
    form.check(index, &value).map_err(|e| e.to_string())?;
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
        assert_eq!(
            header_line(None, Some("A\u{1b}]0;x\u{7}"), None, "Ok\u{202e}?"),
            "A\\u{1b}]0;x\\u{7} asks: Ok\\u{202e}?"
        );
    }

    #[test]
    fn the_first_line_says_who_asks_in_words() {
        assert_eq!(
            who_asks(Some("Claude (repo: billing-api)"), 2),
            "Claude (repo: billing-api) asks you 2 questions"
        );
        assert_eq!(who_asks(None, 1), "The assistant asks you a question");
        assert_eq!(
            who_asks(Some("  "), 3),
            "The assistant asks you 3 questions"
        );
        assert_eq!(
            who_asks(Some("A\u{1b}]0;x\u{7}\u{202e}"), 1),
            "A\\u{1b}]0;x\\u{7}\\u{202e} asks you a question"
        );
        assert_eq!(
            fit(&who_asks(Some("Claude (repo: billing-api)"), 2), 39),
            "Claude (repo: billing-api) asks you 2 …"
        );
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
            prefill_note: None,
            can_back: true,
            label: Some("Assistant".into()),
            step: 1,
        };
        assert_eq!(
            prompt_header_styled(&prompt).text(),
            "[2/2] Assistant asks: Why?"
        );
    }

    #[test]
    fn the_preamble_is_the_context_then_the_schema_in_words() {
        let q = Question::new("c", "Config?", AnswerType::Schema)
            .with_context("We found two configs.\nPick \u{1b}[2Jthe fields.\n")
            .with_schema(json!({"type": "object", "required": ["replicas"],
                "properties": {"replicas": {"type": "integer", "minimum": 1}}}));
        let shown: Vec<String> = preamble(&q, 60).iter().map(Line::text).collect();
        assert_eq!(
            shown,
            [
                "We found two configs.",
                "Pick \\u{1b}[2Jthe fields.",
                "Answer with a JSON object:",
                "  replicas: integer, at least 1 (required)",
            ]
        );
        let plain =
            Question::new("s", "Which?", AnswerType::Select).with_options([Choice::new("a")]);
        assert!(preamble(&plain, 60).is_empty());
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
                        "required": ["replicas"]}},
            {"id": "b", "text": "Branch?", "answer_type": "schema",
             "schema": {"type": "string", "pattern": "^[a-z-]+$"}}]}))
        .unwrap();
        assert_eq!(typed_answer(&form, 0, " hi "), Ok(json!(" hi ")));
        assert_eq!(
            typed_answer(&form, 1, "{\"replicas\": 2}"),
            Ok(json!({"replicas": 2}))
        );
        assert_eq!(
            typed_answer(&form, 1, "{\"replicas\": 0}").unwrap_err(),
            "does not match the schema: at /replicas: 0 is less than the minimum of 1"
        );
        assert_eq!(
            typed_answer(&form, 1, "{").unwrap_err(),
            "the answer is not valid JSON (EOF while parsing an object at line 1 column 1); type a JSON value such as {\"key\": 1}"
        );
        assert_eq!(typed_answer(&form, 2, "my-branch"), Ok(json!("my-branch")));
        assert_eq!(
            typed_answer(&form, 2, "\"my-branch\""),
            Ok(json!("my-branch"))
        );
        assert_eq!(
            typed_answer(&form, 2, "My Branch").unwrap_err(),
            "does not match the schema: \"My Branch\" does not match \"^[a-z-]+$\""
        );
    }

    #[test]
    fn answers_and_prefills_as_text() {
        assert_eq!(prefill_text(&json!("weekly run")), "weekly run");
        assert_eq!(prefill_text(&json!({"replicas": 2})), "{\"replicas\":2}");
        assert_eq!(answer_text(&json!(true)), "Yes");
        assert_eq!(answer_text(&json!(["a", "b"])), "a, b");
        assert_eq!(answer_text(&json!("one\ntwo")), "one ⏎ two");
        assert_eq!(answer_text(&json!({"p": 1})), "{\"p\":1}");
        assert_eq!(fit("abcdef", 4), "abc…");
        assert_eq!(fit("abc", 3), "abc");
        // A token longer than a row is kept whole on its own row; text in wide
        // characters written without spaces is broken at the width.
        assert_eq!(wrap("abcdef", 4), ["abcdef"]);
        assert_eq!(wrap("回答してください", 6), ["回答し", "てくだ", "さい"]);
        assert_eq!(
            wrap("choose another dialect", 10),
            ["choose", "another", "dialect"]
        );
        assert_eq!(wrap("a verylongword", 6), ["a", "verylongword"]);
        assert_eq!(
            wrap("see https://example.com/a/long/path/to/a/page then go", 12),
            [
                "see",
                "https://example.com/a/long/path/to/a/page",
                "then go"
            ]
        );
        assert_eq!(shorten("abcdef", 3), "abc… (6 characters)");
        assert_eq!(shorten("abc", 3), "abc");
    }
}
