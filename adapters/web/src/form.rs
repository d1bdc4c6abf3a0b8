//! The pages that ask: a question as an HTML form (by its answer type,
//! prefilled), the review, Reply and End Turn. They work without JavaScript.

use std::fmt::Write as _;

use askuser_core::{AnswerType, At, InquiryId, Outcome, Prompt};
use serde_json::Value;

use crate::answer::Fields;
use crate::pages::{Shape, esc, hidden, layout, timing};
use crate::queue::Timing;
use crate::schema_form;

/// The hidden fields that say what a page shows (its question, or the review,
/// and the inquiry's step), so the engine can tell an action on a stale page
/// from one on the current question.
fn at_fields(at: &At) -> String {
    let mut out = format!(
        "<input type=\"hidden\" name=\"at_step\" value=\"{}\">\n",
        at.step
    );
    if let Some(question) = &at.question {
        let _ = writeln!(
            out,
            "<input type=\"hidden\" name=\"at_question\" value=\"{}\">",
            esc(question)
        );
    }
    out
}

/// What a posted form says it was shown on (see [`at_fields`]); `None` when it
/// does not say (a page from before this server, or a hand-made post).
pub(crate) fn read_at(inquiry: &str, fields: &Fields) -> Option<At> {
    let step = fields.get("at_step")?.parse::<u32>().ok()?;
    Some(At {
        inquiry: InquiryId::new(inquiry),
        question: fields.get("at_question").map(str::to_owned),
        step,
    })
}

/// What the person typed as text (a note, an "Other" answer, a text answer, a
/// Reply's message), without their picks: put back on a page that now shows
/// another question, where an option number or a Yes would mean something else.
pub(crate) fn typed_text(fields: &Fields) -> Fields {
    let answer_is_text = |value: &str| {
        value.parse::<usize>().is_err() && !matches!(value, "true" | "false" | "other")
    };
    Fields(
        (fields.0.iter())
            .filter(|(name, value)| match name.as_str() {
                "note" | "other" | "message" => true,
                "answer" => answer_is_text(value),
                _ => false,
            })
            .cloned()
            .collect(),
    )
}

/// Why a question's page is shown again: the engine's (or the form's) reason,
/// and what the person sent, put back into the inputs.
#[derive(Default, Clone, Copy)]
pub(crate) struct Refusal<'a> {
    /// The reason, shown beside the inputs.
    pub(crate) error: Option<&'a str>,
    /// The fields as sent.
    pub(crate) typed: Option<&'a Fields>,
}

/// A question's page: the question as a form, Back when offered, and links to
/// Reply and End Turn.
pub(crate) fn question(
    prompt: &Prompt,
    time: &Timing,
    path: &str,
    csrf: &str,
    refusal: Refusal<'_>,
) -> String {
    let question = prompt.question();
    let who = prompt.label.as_deref().unwrap_or("Assistant");
    let progress = prompt
        .progress
        .map(|p| format!("[{}/{}] ", p.n, p.m))
        .unwrap_or_default();
    let mut body = format!(
        "<h1 class=\"who\">{} asks</h1>\n<p class=\"who\">{} · <a href=\"/\">all questions</a></p>\n",
        esc(who),
        timing(time)
    );
    if let Some(context) = &question.context {
        let _ = writeln!(body, "<pre class=\"context\">{}</pre>", esc(context));
    }
    let _ = write!(
        body,
        "<form method=\"post\" action=\"{path}\">\n{}{}<fieldset>\n<legend>{}{}</legend>\n",
        hidden(csrf),
        at_fields(&prompt.at()),
        esc(&progress),
        esc(&question.text)
    );
    body.push_str(&answer_inputs(prompt, refusal));
    if let Some(error) = refusal.error {
        let _ = writeln!(body, "<p class=\"error\" role=\"alert\">{}</p>", esc(error));
    }
    let note = match refusal.typed {
        Some(typed) => typed.get("note").unwrap_or_default(),
        None => prompt.prefill_note.as_deref().unwrap_or_default(),
    };
    let _ = write!(
        body,
        "<label for=\"note\">A note for the assistant (optional)</label>\n\
         <input type=\"text\" id=\"note\" name=\"note\" maxlength=\"4096\" value=\"{}\">\n\
         </fieldset>\n<button type=\"submit\" name=\"action\" value=\"answer\">Answer</button>\n",
        esc(note)
    );
    if prompt.can_back {
        body.push_str(
            "<button type=\"submit\" name=\"action\" value=\"back\" formnovalidate>Back</button>\n",
        );
    }
    let _ = write!(
        body,
        "</form>\n<p><a href=\"{path}/reply\">Reply to the assistant instead</a> · \
         <a href=\"{path}/end\">End the turn</a></p>\n"
    );
    layout(
        &format!("{}{}", esc(&progress), esc(&question.text)),
        &body,
        &Shape::Inquiry(format!("prompt {}", prompt.index)),
    )
}

/// The inputs of a question, by its answer type, prefilled with what the person
/// sent (after a refusal), or else the earlier answer or the default.
fn answer_inputs(prompt: &Prompt, refusal: Refusal<'_>) -> String {
    let question = prompt.question();
    let typed = refusal.typed;
    let prefill = match typed {
        Some(typed) => crate::answer::value_from(prompt, typed).ok(),
        None => prompt.prefill_value(),
    };
    match question.answer_type {
        AnswerType::Boolean => {
            let mut out = String::new();
            let yes = prefill == Some(Value::Bool(true));
            let no = prefill == Some(Value::Bool(false));
            choice(&mut out, "radio", "true", "Yes", yes, 0);
            choice(&mut out, "radio", "false", "No", no, 1);
            out
        }
        AnswerType::Select | AnswerType::MultiSelect => choices(prompt, prefill.as_ref(), typed),
        AnswerType::Schema
            if let Some(inputs) = question.schema.as_ref().and_then(schema_form::flat_fields) =>
        {
            // After a refusal the inputs show what was sent, not the prefill.
            let prefill = prefill.filter(|_| typed.is_none());
            schema_form::render(&inputs, prefill.as_ref(), typed, refusal.error)
        }
        AnswerType::Text | AnswerType::Schema => {
            let text = match typed.and_then(|t| t.get("answer")) {
                Some(sent) => sent.to_owned(),
                None => match &prefill {
                    Some(Value::String(text)) => text.clone(),
                    Some(other) => other.to_string(),
                    None => String::new(),
                },
            };
            let hint = if question.answer_type == AnswerType::Schema {
                "Your answer (JSON; plain text for a text schema)"
            } else {
                "Your answer"
            };
            format!(
                "<label for=\"answer\">{hint}</label>\n\
                 <textarea id=\"answer\" name=\"answer\" rows=\"4\">{}</textarea>\n",
                esc(&text)
            )
        }
    }
}

/// One radio button or check box (`kind`) and its label (already escaped).
fn choice(out: &mut String, kind: &str, value: &str, label: &str, checked: bool, n: usize) {
    let checked = if checked { " checked" } else { "" };
    let _ = writeln!(
        out,
        "<div><input type=\"{kind}\" id=\"c{n}\" name=\"{}\" value=\"{}\"{checked}>\
         <label for=\"c{n}\">{label}</label></div>",
        if kind == "checkbox" { "pick" } else { "answer" },
        esc(value)
    );
}

/// The options of a select or multi-select, with their descriptions, and the
/// "Other" text field when the question allows one.
fn choices(prompt: &Prompt, prefill: Option<&Value>, typed: Option<&Fields>) -> String {
    let question = prompt.question();
    let multi = question.answer_type == AnswerType::MultiSelect;
    let picked = |label: &str| match prefill {
        Some(Value::String(text)) => text == label,
        Some(Value::Array(items)) => items.iter().any(|i| i.as_str() == Some(label)),
        _ => false,
    };
    let mut out = String::new();
    for (n, option) in question.choices().iter().enumerate() {
        let mut label = esc(&option.label);
        if let Some(description) = &option.description {
            let _ = write!(
                label,
                " <span class=\"description\">— {}</span>",
                esc(description)
            );
        }
        let kind = if multi { "checkbox" } else { "radio" };
        choice(
            &mut out,
            kind,
            &n.to_string(),
            &label,
            picked(&option.label),
            n,
        );
    }
    if question.allow_other {
        let other = typed.and_then(|t| t.get("other")).unwrap_or_default();
        if !multi {
            let chosen = typed.and_then(|t| t.get("answer")) == Some("other");
            choice(
                &mut out,
                "radio",
                "other",
                "Other (type below)",
                chosen,
                999,
            );
        }
        let _ = writeln!(
            out,
            "<label for=\"other\">Your own answer</label>\n\
             <input type=\"text\" id=\"other\" name=\"other\" maxlength=\"4096\" value=\"{}\">",
            esc(other)
        );
    }
    out
}

/// The review: every answer, each the person gave with its Change button (back
/// to that question in one step, the later answers kept), then Send and the
/// links to Reply and End Turn.
pub(crate) fn review(
    outcome: &Outcome,
    at: &At,
    time: &Timing,
    path: &str,
    csrf: &str,
    error: Option<&str>,
) -> String {
    let answers = outcome.to_map();
    let mut body = format!(
        "<p class=\"who\">{} · <a href=\"/\">all questions</a></p>\n<h1>Review your answers</h1>\n\
         <form method=\"post\" action=\"{path}\">\n{}{}<dl>\n",
        timing(time),
        hidden(csrf),
        at_fields(at)
    );
    for (index, question) in outcome.form.questions().iter().enumerate() {
        let answer = answers.get(&question.id).unwrap_or(&Value::Null);
        let shown = match answer {
            Value::Null => "(not asked)".to_owned(),
            answer => askuser_core::text::answer_words(answer),
        };
        let note = outcome
            .answers
            .get(index)
            .and_then(Option::as_ref)
            .and_then(|slot| slot.note.as_deref())
            .map(|note| format!(" <span class=\"note\">(note: {})</span>", esc(note)))
            .unwrap_or_default();
        // An answer the person gave can be changed in one step (the engine keeps
        // the later answers where their question still shows).
        let by_person = outcome
            .answers
            .get(index)
            .and_then(Option::as_ref)
            .is_some_and(|slot| slot.by == askuser_core::AnsweredBy::User);
        let change = if by_person {
            format!(
                " <button type=\"submit\" name=\"change\" value=\"{}\" class=\"change\" aria-label=\"Change the answer to “{}”\">Change</button>",
                esc(&question.id),
                esc(&question.text)
            )
        } else {
            String::new()
        };
        let _ = writeln!(
            body,
            "<dt>{}</dt><dd>{}{note}{change}</dd>",
            esc(&question.text),
            esc(&shown)
        );
    }
    body.push_str("</dl>\n");
    if let Some(error) = error {
        let _ = writeln!(body, "<p class=\"error\" role=\"alert\">{}</p>", esc(error));
    }
    let _ = write!(
        body,
        "<button type=\"submit\" name=\"action\" value=\"submit\">Send these answers</button>\n\
         </form>\n<p><a href=\"{path}/reply\">Reply to the assistant instead</a> · \
         <a href=\"{path}/end\">End the turn</a></p>\n"
    );
    layout(
        "Review your answers",
        &body,
        &Shape::Inquiry("review".into()),
    )
}

/// The Reply page: an optional message, sent with the answers given so far,
/// from what `at` names (the question or review the inquiry showed when the
/// page was made).
///
/// After a refusal (the inquiry moved on elsewhere), the page says why and keeps
/// the message the person typed.
pub(crate) fn reply(path: &str, csrf: &str, at: &At, refusal: Refusal<'_>) -> String {
    let error = refusal
        .error
        .map(|error| format!("<p class=\"error\" role=\"alert\">{}</p>\n", esc(error)))
        .unwrap_or_default();
    let message = refusal
        .typed
        .and_then(|typed| typed.get("message"))
        .unwrap_or_default();
    let body = format!(
        "<h1>Reply to the assistant instead</h1>\n{error}<form method=\"post\" action=\"{path}\">\n{}{}\
         <label for=\"message\">Your message (optional; the answers given so far go with it)</label>\n\
         <textarea id=\"message\" name=\"message\" rows=\"4\" maxlength=\"4096\">{}</textarea>\n\
         <button type=\"submit\" name=\"action\" value=\"reply\">Send the reply</button>\n\
         </form>\n<p><a href=\"{path}\">Back to the question</a></p>\n",
        hidden(csrf),
        at_fields(at),
        esc(message)
    );
    layout("Reply to the assistant", &body, &Shape::Other)
}

/// The End Turn confirmation.
pub(crate) fn end_turn(path: &str, csrf: &str) -> String {
    let body = format!(
        "<h1>End the turn?</h1>\n<p>Your answers so far are not sent, and the assistant gets no reply.</p>\n\
         <form method=\"post\" action=\"{path}\">\n{}\
         <button type=\"submit\" name=\"action\" value=\"end_turn\">Yes, end the turn</button>\n\
         </form>\n<p><a href=\"{path}\">No, back to the question</a></p>\n",
        hidden(csrf)
    );
    layout("End the turn?", &body, &Shape::Other)
}
