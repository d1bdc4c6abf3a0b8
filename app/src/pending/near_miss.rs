//! "Did you mean": an answer close to one of a question's labels.

use askuser_core::Question;
use serde_json::Value;

/// "did you mean" for free text that is close to one of the question's labels
/// (another case, a typo, a prefix): such text is taken as free text only when
/// written as `{"other": "…"}`.
pub(super) fn near_miss(question: &Question, given: &Value) -> Option<String> {
    if !matches!(
        question.answer_type,
        askuser_core::AnswerType::Select | askuser_core::AnswerType::MultiSelect
    ) {
        return None;
    }
    let texts: Vec<&str> = match given {
        Value::String(text) => vec![text.as_str()],
        Value::Array(items) => items.iter().filter_map(Value::as_str).collect(),
        _ => return None,
    };
    let labels: Vec<&str> = question
        .choices()
        .iter()
        .map(|c| c.label.as_str())
        .collect();
    texts.into_iter().find_map(|text| {
        let text = text.trim();
        if labels.contains(&text) {
            return None;
        }
        let close = labels.iter().find(|label| close_to(text, label))?;
        Some(if question.allow_other {
            format!(
                "\"{text}\" is not one of the options; did you mean \"{close}\"? Write the label exactly, or {{\"other\": \"{text}\"}} to give it as free text"
            )
        } else {
            let options: Vec<String> = labels.iter().map(|l| format!("\"{l}\"")).collect();
            format!(
                "\"{text}\" is not one of the options; did you mean \"{close}\"? The options: {}",
                options.join(", ")
            )
        })
    })
}

/// Whether `text` looks like a slip for `label`: the same but for case, one a
/// prefix of the other (4 characters or more), or at most 2 edits apart (both 4
/// characters or more).
fn close_to(text: &str, label: &str) -> bool {
    let (a, b) = (text.to_lowercase(), label.to_lowercase());
    let (short, long) = if a.chars().count() <= b.chars().count() {
        (&a, &b)
    } else {
        (&b, &a)
    };
    let short_len = short.chars().count();
    a == b
        || (short_len >= 4 && long.starts_with(short.as_str()))
        || (short_len >= 4 && edit_distance(&a, &b) <= 2)
}

/// The Levenshtein distance between two short texts (in characters).
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (above + 1)
                .min(row[j] + 1)
                .min(diagonal + usize::from(ca != *cb));
            diagonal = above;
        }
    }
    row[b.len()]
}
