//! The pages, as HTML built on the server. Every text from a model or a person
//! goes through [`esc`]: neutralised as the terminal neutralises it (control,
//! bidi-control and invisible characters shown as visible escapes), then escaped
//! for HTML. Forms work without JavaScript; the pages load none.

use std::fmt::Write as _;

use askuser_core::text::for_display;
use askuser_core::{AnswerType, Outcome, Prompt};
use serde_json::Value;

use crate::queue::Waiting;

/// The stylesheet, served as `/style.css`.
pub(crate) const STYLE: &str = include_str!("style.css");

/// `text` safe in HTML text and attribute values.
pub(crate) fn esc(text: &str) -> String {
    let shown = for_display(text);
    let mut out = String::with_capacity(shown.len());
    for c in shown.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// `text` for a URL path segment: every byte but letters, digits, `-`, `_` and
/// `.` percent-encoded.
pub(crate) fn segment(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'-' | b'_' | b'.' => (b as char).to_string(),
            b => format!("%{b:02X}"),
        })
        .collect()
}

/// The path of an inquiry's page.
pub(crate) fn inquiry_path(stream: &str, inquiry: &str) -> String {
    format!("/q/{}/{}", segment(stream), segment(inquiry))
}

/// A whole page: `title` (already escaped) and `body`.
pub(crate) fn layout(title: &str, body: &str, refresh: bool) -> String {
    let refresh = if refresh {
        "<meta http-equiv=\"refresh\" content=\"5\">\n"
    } else {
        ""
    };
    format!(
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n{refresh}\
         <title>{title}</title>\n<link rel=\"stylesheet\" href=\"/style.css\">\n</head>\n\
         <body>\n<main>\n{body}</main>\n</body>\n</html>\n"
    )
}

/// The inbox: every inquiry that waits, grouped by stream. It reloads every five
/// seconds (no script needed), and its title counts what waits.
pub(crate) fn inbox(waiting: &[Waiting]) -> String {
    let mut body = String::from("<h1>Questions waiting for you</h1>\n");
    if waiting.is_empty() {
        body.push_str("<p role=\"status\">No agent is waiting for an answer.</p>\n");
    }
    let mut stream = None;
    for item in waiting {
        if stream != Some(&item.stream) {
            if stream.is_some() {
                body.push_str("</ul>\n</section>\n");
            }
            let _ = write!(
                body,
                "<section>\n<h2>Stream {} <small>since {}</small></h2>\n<ul>\n",
                esc(&item.stream),
                esc(&item.since)
            );
            stream = Some(&item.stream);
        }
        let what = match (&item.question, &item.progress) {
            (Some(question), Some(progress)) => format!("{} {}", esc(progress), esc(question)),
            (Some(question), None) => esc(question),
            (None, _) => "Review the answers before they are sent".to_owned(),
        };
        let _ = writeln!(
            body,
            "<li><a href=\"{}\">{}</a> <span class=\"who\">{} asks (call {})</span></li>",
            inquiry_path(&item.stream, &item.inquiry),
            what,
            esc(&item.label),
            esc(&item.inquiry)
        );
    }
    if stream.is_some() {
        body.push_str("</ul>\n</section>\n");
    }
    let title = match waiting.len() {
        0 => "askuser inbox".to_owned(),
        n => format!("({n}) askuser inbox"),
    };
    layout(&title, &body, true)
}

/// The hidden fields every form carries.
fn hidden(csrf: &str) -> String {
    format!(
        "<input type=\"hidden\" name=\"csrf\" value=\"{}\">\n",
        esc(csrf)
    )
}

/// A question's page: the question as a form, Back when offered, and links to
/// Reply and End Turn.
pub(crate) fn question(prompt: &Prompt, path: &str, csrf: &str, error: Option<&str>) -> String {
    let question = prompt.question();
    let who = prompt.label.as_deref().unwrap_or("Assistant");
    let progress = prompt
        .progress
        .map(|p| format!("[{}/{}] ", p.n, p.m))
        .unwrap_or_default();
    let mut body = format!(
        "<p class=\"who\">{} asks — <a href=\"/\">all questions</a></p>\n",
        esc(who)
    );
    if let Some(context) = &question.context {
        let _ = writeln!(body, "<pre class=\"context\">{}</pre>", esc(context));
    }
    let _ = write!(
        body,
        "<form method=\"post\" action=\"{path}\">\n{}<fieldset>\n<legend>{}{}</legend>\n",
        hidden(csrf),
        esc(&progress),
        esc(&question.text)
    );
    body.push_str(&answer_inputs(prompt));
    if let Some(error) = error {
        let _ = writeln!(body, "<p class=\"error\" role=\"alert\">{}</p>", esc(error));
    }
    body.push_str(
        "<label for=\"note\">A note for the assistant (optional)</label>\n\
         <input type=\"text\" id=\"note\" name=\"note\" maxlength=\"4096\">\n\
         </fieldset>\n<button type=\"submit\" name=\"action\" value=\"answer\">Answer</button>\n",
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
        false,
    )
}

/// The inputs of a question, by its answer type, prefilled.
fn answer_inputs(prompt: &Prompt) -> String {
    let question = prompt.question();
    let prefill = prompt.prefill_value();
    let mut out = String::new();
    let choice =
        |out: &mut String, kind: &str, value: &str, label: &str, checked: bool, n: usize| {
            let checked = if checked { " checked" } else { "" };
            let _ = writeln!(
                out,
                "<div><input type=\"{kind}\" id=\"c{n}\" name=\"{}\" value=\"{}\"{checked}>\
             <label for=\"c{n}\">{label}</label></div>",
                if kind == "checkbox" { "pick" } else { "answer" },
                esc(value)
            );
        };
    match question.answer_type {
        AnswerType::Boolean => {
            let yes = prefill == Some(Value::Bool(true));
            let no = prefill == Some(Value::Bool(false));
            choice(&mut out, "radio", "true", "Yes", yes, 0);
            choice(&mut out, "radio", "false", "No", no, 1);
        }
        AnswerType::Select | AnswerType::MultiSelect => {
            let multi = question.answer_type == AnswerType::MultiSelect;
            let picked = |label: &str| match &prefill {
                Some(Value::String(text)) => text == label,
                Some(Value::Array(items)) => items.iter().any(|i| i.as_str() == Some(label)),
                _ => false,
            };
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
                if !multi {
                    choice(&mut out, "radio", "other", "Other (type below)", false, 999);
                }
                out.push_str(
                    "<label for=\"other\">Your own answer</label>\n\
                     <input type=\"text\" id=\"other\" name=\"other\" maxlength=\"4096\">\n",
                );
            }
        }
        AnswerType::Text | AnswerType::Schema => {
            let text = match &prefill {
                Some(Value::String(text)) => text.clone(),
                Some(other) => other.to_string(),
                None => String::new(),
            };
            let hint = if question.answer_type == AnswerType::Schema {
                "Your answer (JSON; plain text for a text schema)"
            } else {
                "Your answer"
            };
            let _ = writeln!(
                out,
                "<label for=\"answer\">{hint}</label>\n\
                 <textarea id=\"answer\" name=\"answer\" rows=\"4\">{}</textarea>",
                esc(&text)
            );
        }
    }
    out
}

/// The review: every answer, then Send, Back (changes the last answer) and the
/// links to Reply and End Turn.
pub(crate) fn review(outcome: &Outcome, path: &str, csrf: &str, error: Option<&str>) -> String {
    let answers = outcome.to_map();
    let mut body = String::from(
        "<p class=\"who\"><a href=\"/\">all questions</a></p>\n<h1>Review your answers</h1>\n<dl>\n",
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
        let _ = writeln!(
            body,
            "<dt>{}</dt><dd>{}{note}</dd>",
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
        "<form method=\"post\" action=\"{path}\">\n{}\
         <button type=\"submit\" name=\"action\" value=\"submit\">Send these answers</button>\n\
         <button type=\"submit\" name=\"action\" value=\"back\">Back (change the last answer)</button>\n\
         </form>\n<p><a href=\"{path}/reply\">Reply to the assistant instead</a> · \
         <a href=\"{path}/end\">End the turn</a></p>\n",
        hidden(csrf)
    );
    layout("Review your answers", &body, false)
}

/// The Reply page: an optional message, sent with the answers given so far.
pub(crate) fn reply(path: &str, csrf: &str) -> String {
    let body = format!(
        "<h1>Reply to the assistant instead</h1>\n<form method=\"post\" action=\"{path}\">\n{}\
         <label for=\"message\">Your message (optional; the answers given so far go with it)</label>\n\
         <textarea id=\"message\" name=\"message\" rows=\"4\" maxlength=\"4096\"></textarea>\n\
         <button type=\"submit\" name=\"action\" value=\"reply\">Send the reply</button>\n\
         </form>\n<p><a href=\"{path}\">Back to the question</a></p>\n",
        hidden(csrf)
    );
    layout("Reply to the assistant", &body, false)
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
    layout("End the turn?", &body, false)
}

/// A finished inquiry's page.
pub(crate) fn finished(text: &str) -> String {
    let body = format!(
        "<h1>Done</h1>\n<p role=\"status\">{}</p>\n<p><a href=\"/\">All questions</a></p>\n",
        esc(text)
    );
    layout("Done", &body, false)
}

/// A page that says why a request was refused.
pub(crate) fn refused(title: &str, text: &str) -> String {
    let body = format!(
        "<h1>{}</h1>\n<p role=\"alert\">{}</p>\n",
        esc(title),
        esc(text)
    );
    layout(&esc(title), &body, false)
}
