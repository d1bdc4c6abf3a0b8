//! "Did you mean": an answer close to one of a question's labels.

use askuser_core::Question;
use askuser_core::text::for_display_line;
use serde_json::Value;
use unicode_normalization::UnicodeNormalization as _;

/// "did you mean" for free text that is close to one of the question's labels
/// (the same once case, width and compatibility forms are folded, such as
/// fullwidth `ＳＱＬｉｔｅ` for `SQLite`; the start of a label, such as `bet` for
/// `beta`; a typo): such text is taken as free text only when written as
/// `{"other": "…"}`. Text and labels are quoted as [`for_display_line`] shows them.
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
        let close = closest(text, &labels)?;
        let (text, close) = (for_display_line(text), for_display_line(close));
        Some(if question.allow_other {
            format!(
                "\"{text}\" is not one of the options; did you mean \"{close}\"? Write the label exactly, or {{\"other\": \"{text}\"}} to give it as free text"
            )
        } else {
            let options: Vec<String> = labels
                .iter()
                .map(|l| format!("\"{}\"", for_display_line(l)))
                .collect();
            format!(
                "\"{text}\" is not one of the options; did you mean \"{close}\"? The options: {}",
                options.join(", ")
            )
        })
    })
}

/// The label `text` is closest to, if it looks like a slip for one: first a
/// label that is the same once folded ([`fold`]), then one the text is the
/// start of, then any other [`close_to`] it.
fn closest<'a>(text: &str, labels: &[&'a str]) -> Option<&'a str> {
    let text = fold(text);
    if text.is_empty() {
        return None;
    }
    let folded: Vec<String> = labels.iter().map(|label| fold(label)).collect();
    let pick = |found: Option<usize>| found.map(|i| labels[i]);
    pick(folded.iter().position(|label| *label == text))
        .or_else(|| pick(folded.iter().position(|label| label.starts_with(&text))))
        .or_else(|| pick(folded.iter().position(|label| close_to(&text, label))))
}

/// `text` as compared with a label: NFKC (fullwidth and halfwidth forms,
/// ligatures and other compatibility characters to their plain letters), then
/// lower case.
fn fold(text: &str) -> String {
    text.nfkc().collect::<String>().to_lowercase()
}

/// Whether folded `text` looks like a slip for folded `label`: one the start of
/// the other (4 characters or more), or at most 2 edits apart (both 4
/// characters or more).
fn close_to(a: &str, b: &str) -> bool {
    let (short, long) = if a.chars().count() <= b.chars().count() {
        (a, b)
    } else {
        (b, a)
    };
    short.chars().count() >= 4 && (long.starts_with(short) || edit_distance(a, b) <= 2)
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn question(allow_other: bool) -> Question {
        serde_json::from_value(json!({
            "id": "db", "text": "Which?", "answer_type": "select",
            "options": ["SQLite", "beta", "PostgreSQL"], "allow_other": allow_other
        }))
        .expect("a question")
    }

    #[test]
    fn fullwidth_case_and_compatibility_forms_are_near_misses() {
        assert_eq!(
            near_miss(&question(true), &json!("ＳＱＬｉｔｅ")).as_deref(),
            Some(
                "\"ＳＱＬｉｔｅ\" is not one of the options; did you mean \"SQLite\"? Write the label exactly, or {\"other\": \"ＳＱＬｉｔｅ\"} to give it as free text"
            )
        );
        assert_eq!(
            near_miss(&question(false), &json!(["beta", "ｓｑｌｉｔｅ"])).as_deref(),
            Some(
                "\"ｓｑｌｉｔｅ\" is not one of the options; did you mean \"SQLite\"? The options: \"SQLite\", \"beta\", \"PostgreSQL\""
            )
        );
    }

    #[test]
    fn the_start_of_a_label_is_a_near_miss() {
        assert_eq!(
            near_miss(&question(true), &json!("bet")).as_deref(),
            Some(
                "\"bet\" is not one of the options; did you mean \"beta\"? Write the label exactly, or {\"other\": \"bet\"} to give it as free text"
            )
        );
        assert_eq!(
            near_miss(&question(false), &json!("Post")).as_deref(),
            Some(
                "\"Post\" is not one of the options; did you mean \"PostgreSQL\"? The options: \"SQLite\", \"beta\", \"PostgreSQL\""
            )
        );
    }

    #[test]
    fn hidden_characters_in_a_near_miss_are_shown() {
        assert_eq!(
            near_miss(&question(true), &json!("bet\u{200b}a")).as_deref(),
            Some(
                "\"bet\\u{200b}a\" is not one of the options; did you mean \"beta\"? Write the label exactly, or {\"other\": \"bet\\u{200b}a\"} to give it as free text"
            )
        );
    }

    #[test]
    fn labels_and_other_text_are_not_near_misses() {
        for given in [
            json!("SQLite"),
            json!(["beta", "PostgreSQL"]),
            json!("MongoDB"),
            json!(""),
            json!(" "),
        ] {
            assert_eq!(near_miss(&question(true), &given), None, "{given}");
        }
    }
}
