//! Comparing a pending file with the form its inquiry recorded: everything the
//! file shows a person (ids, question texts, context, headers, answer types,
//! options, their descriptions, free text, schemas, conditions) must still be what
//! the log asks, or the file's answers would go to questions the person never read.

use std::collections::BTreeSet;

use askuser_core::Question;
use askuser_core::text::{for_display_line, looks_alike};
use serde_json::Value;

use super::{PendingFile, PendingQuestion};

/// How many differences [`Mismatch`]'s text names; the rest are counted.
const SHOWN_DIFFERENCES: usize = 3;

/// The most characters of one text or JSON value a difference quotes.
const QUOTED_CHARS: usize = 80;

/// How a pending file differs from the form recorded for its inquiry: each
/// difference in words, in question order. Its text names the first
/// three and counts the rest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mismatch {
    /// Every difference, e.g. `question "deploy" reads "Do you like this
    /// colour?" in the file but "Deploy to PRODUCTION now?" in the log`.
    pub differences: Vec<String>,
}

impl std::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let shown = self.differences.len().min(SHOWN_DIFFERENCES);
        f.write_str(&self.differences[..shown].join("; "))?;
        match self.differences.len() - shown {
            0 => Ok(()),
            1 => f.write_str("; and 1 more difference"),
            more => write!(f, "; and {more} more differences"),
        }
    }
}

/// How `file`'s questions differ from `recorded`, the form its inquiry recorded
/// in the log; `None` when they show the same (the answers may differ).
pub fn compare(file: &PendingFile, recorded: &[Question]) -> Option<Mismatch> {
    let mut differences = Vec::new();
    if file.questions.len() != recorded.len() {
        differences.push(format!(
            "the file has {} but the log {}",
            questions(file.questions.len()),
            recorded.len()
        ));
    }
    for (index, (found, question)) in file.questions.iter().zip(recorded).enumerate() {
        let expected = PendingQuestion::from_question(question);
        if found.id != expected.id {
            let (file, log, note) = quotes(&found.id, &expected.id);
            differences.push(format!(
                "question {} is {file} in the file but {log} in the log{note}",
                index + 1
            ));
        }
        differ(&mut differences, found, &expected);
    }
    (!differences.is_empty()).then_some(Mismatch { differences })
}

/// Adds how `found` (the file's) differs from `expected` (the log's) besides its
/// id, naming the question by the log's id.
fn differ(out: &mut Vec<String>, found: &PendingQuestion, expected: &PendingQuestion) {
    let id = quote(&expected.id);
    let mut text = |what: String, (file, log, note): (String, String, String)| {
        out.push(format!(
            "{what} {file} in the file but {log} in the log{note}"
        ));
    };
    if found.question != expected.question {
        let shown = quotes(&found.question, &expected.question);
        text(format!("question {id} reads"), shown);
    }
    if found.context != expected.context {
        let shown = optionals(found.context.as_deref(), expected.context.as_deref());
        text(format!("the context of question {id} is"), shown);
    }
    if found.header != expected.header {
        let shown = optionals(found.header.as_deref(), expected.header.as_deref());
        text(format!("the header of question {id} is"), shown);
    }
    if found.answer_type != expected.answer_type {
        let shown = quotes(&found.answer_type, &expected.answer_type);
        text(format!("the answer type of question {id} is"), shown);
    }
    if found.options != expected.options {
        let (file, log) = (labels(&found.options), labels(&expected.options));
        let mut note = String::new();
        let same_length = found.options.len() == expected.options.len();
        let mut pairs = found.options.iter().zip(&expected.options).enumerate();
        if let Some((n, (a, b))) = pairs.find(|(_, (a, b))| a != b)
            && same_length
            && (file == log || looks_alike(a, b))
        {
            // Labels that read the same but are not: say where.
            note = format!(" (option {}: {})", n + 1, where_differs(a, b));
        }
        text(
            format!("the options of question {id} are"),
            (file, log, note),
        );
    }
    if found.option_descriptions != expected.option_descriptions {
        let described: BTreeSet<&String> = found
            .option_descriptions
            .keys()
            .chain(expected.option_descriptions.keys())
            .collect();
        for label in described {
            let file = found.option_descriptions.get(label).map(String::as_str);
            let log = expected.option_descriptions.get(label).map(String::as_str);
            if file != log {
                let what = format!(
                    "the description of option {} of question {id} is",
                    quote(label)
                );
                text(what, optionals(file, log));
            }
        }
    }
    if found.allow_other != expected.allow_other {
        let takes = |yes: bool| if yes { "takes" } else { "does not take" };
        out.push(format!(
            "question {id} {} free text besides its options in the file but {} it in the log",
            takes(found.allow_other),
            takes(expected.allow_other)
        ));
    }
    differ_json(out, &id, found, expected);
}

/// Adds how the JSON a question shows (its schema and its condition) differs.
fn differ_json(
    out: &mut Vec<String>,
    id: &str,
    found: &PendingQuestion,
    expected: &PendingQuestion,
) {
    let fields = [
        ("the schema", &found.schema, &expected.schema),
        ("the condition (\"when\")", &found.when, &expected.when),
    ];
    for (what, file, log) in fields {
        if file != log {
            out.push(format!(
                "{what} of question {id} is {} in the file but {} in the log",
                json(file.as_ref()),
                json(log.as_ref())
            ));
        }
    }
}

/// `"text"`, safe on a terminal, at most [`QUOTED_CHARS`] characters of it.
fn quote(text: &str) -> String {
    let shown = for_display_line(text);
    match shown.char_indices().nth(QUOTED_CHARS) {
        Some((end, _)) => format!("\"{}…\"", &shown[..end]),
        None => format!("\"{shown}\""),
    }
}

/// [`quote`] of the file's text and of the log's; when the two read the same
/// (look-alike or hidden characters, a difference past the quoted part), the
/// third is where they differ, ` (character 1 is U+0410 in the file but
/// U+0041 in the log)`, to follow the sentence; otherwise empty.
fn quotes(file: &str, log: &str) -> (String, String, String) {
    let (shown_file, shown_log) = (quote(file), quote(log));
    let note = if shown_file == shown_log || looks_alike(file, log) {
        format!(" ({})", where_differs(file, log))
    } else {
        String::new()
    };
    (shown_file, shown_log, note)
}

/// [`quotes`] of texts that may be absent (`none`).
fn optionals(file: Option<&str>, log: Option<&str>) -> (String, String, String) {
    match (file, log) {
        (Some(file), Some(log)) => quotes(file, log),
        _ => (optional(file), optional(log), String::new()),
    }
}

/// Where two different texts first differ, for a person who cannot see it:
/// `character 1 is U+0410 in the file but U+0041 in the log`.
fn where_differs(file: &str, log: &str) -> String {
    match askuser_core::text::first_differing_char(file, log) {
        Some((at, a, b)) => format!(
            "character {at} is U+{:04X} in the file but U+{:04X} in the log",
            u32::from(a),
            u32::from(b)
        ),
        None => format!(
            "{} characters in the file but {} in the log",
            file.chars().count(),
            log.chars().count()
        ),
    }
}

/// [`quote`], or `none` for what is not there.
fn optional(text: Option<&str>) -> String {
    text.map_or_else(|| "none".to_owned(), quote)
}

/// Option labels, each quoted, or `none`.
fn labels(labels: &[String]) -> String {
    if labels.is_empty() {
        return "none".to_owned();
    }
    let quoted: Vec<String> = labels.iter().map(|label| quote(label)).collect();
    quoted.join(", ")
}

/// Compact JSON, safe on a terminal and at most [`QUOTED_CHARS`] characters, or
/// `none`.
fn json(value: Option<&Value>) -> String {
    let Some(value) = value else {
        return "none".to_owned();
    };
    let text = value.to_string();
    let shown = for_display_line(&text);
    match shown.char_indices().nth(QUOTED_CHARS) {
        Some((end, _)) => format!("{}…", &shown[..end]),
        None => shown.into_owned(),
    }
}

/// `1 question`, `2 questions`.
fn questions(count: usize) -> String {
    if count == 1 {
        "1 question".to_owned()
    } else {
        format!("{count} questions")
    }
}
