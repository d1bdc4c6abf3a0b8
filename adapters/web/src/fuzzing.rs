//! The fuzz targets' door (built only with `--cfg fuzzing`, as `cargo fuzz`
//! builds): a posted form's fields read into an answer, and the Markdown
//! renderer, exactly as the handlers call them.

use askuser_core::{At, Prompt};
use serde_json::Value;

use crate::answer::{Fields, value_from};
use crate::form::{read_at, typed_text};
use crate::markdown::{Flow, plain, render};

/// What a question's page makes of a posted form's `fields` (the pairs
/// `axum::Form` reads from the body): what it says it was shown on, the
/// answer (or the words the person is shown), and the text put back on a page
/// that shows another question.
#[must_use]
pub fn form_answer(
    prompt: &Prompt,
    inquiry: &str,
    fields: Vec<(String, String)>,
) -> (Option<At>, Result<Value, String>, Vec<(String, String)>) {
    let fields = Fields(fields);
    let at = read_at(inquiry, &fields);
    let value = value_from(prompt, &fields);
    (at, value, typed_text(&fields).0)
}

/// `text` rendered in each flow (block, inline, inline without links), and as
/// plain words.
#[must_use]
pub fn markdown(text: &str) -> [String; 4] {
    [
        render(text, Flow::Block).into_string(),
        render(text, Flow::Inline).into_string(),
        render(text, Flow::InlineNoLinks).into_string(),
        plain(text),
    ]
}
