//! The pages that ask: a question as an HTML form (by its answer type,
//! prefilled), the review, Reply and End Turn. They work without JavaScript;
//! the first input of a question is focused, and the shortcuts the script
//! offers (1-9 pick an option, Ctrl+Enter answers) are shown beside their
//! controls.

use askuser_core::{Answer, AnswerType, At, InquiryId, Outcome, Prompt};
use maud::{Markup, html};
use serde_json::Value;

use crate::answer::Fields;
use crate::markdown::{self, Flow};
use crate::pages::{
    self, Asker, Shape, hidden, keys, layout, links, presence_badge, shown, timing,
};
use crate::schema_form;
use askuser_app::{Liveness, Standing};

/// The hidden fields that say what a page shows (its question, or the review,
/// and the inquiry's step), so the engine can tell an action on a stale page
/// from one on the current question.
fn at_fields(at: &At) -> Markup {
    html! {
        input type="hidden" name="at_step" value=(at.step);
        @if let Some(question) = &at.question {
            input type="hidden" name="at_question" value=(shown(question));
        }
    }
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

/// Who asks an open inquiry and where it stands, at `now`: what heads its
/// question and review pages.
#[derive(Clone, Copy)]
pub(crate) struct Heading<'a> {
    /// Who asks.
    pub(crate) asker: &'a Asker,
    /// How long it has waited, and whether its agent still waits.
    pub(crate) standing: &'a Standing,
    /// The wall clock, in milliseconds since the Unix epoch.
    pub(crate) now: u64,
}

/// The header of an inquiry's pages: the way back to the inbox, the page's
/// heading (which names who asks), whether its agent stopped, and how long
/// the question has waited.
fn asker(heading: &str, standing: &Standing, now: u64) -> Markup {
    html! {
        (links("Inbox", &[("/", "← All questions")]))
        h1.who { (heading) }
        (presence_line(standing.liveness))
        p.meta { (timing(&standing.timing, now)) (pages::at_zero(&standing.timing)) }
    }
}

/// Whether anyone waits for the answer, in the inbox badge's words, said when
/// nobody does (the agent stopped, or the stream is a fork); otherwise an empty
/// hidden line, which the script replaces when the agent stops while the page
/// is open.
fn presence_line(presence: Liveness) -> Markup {
    match presence {
        Liveness::Stopped { .. } | Liveness::Fork => {
            html! { p #presence.presence { (presence_badge(presence)) } }
        }
        Liveness::Waiting | Liveness::Unknown => html! { p #presence.presence hidden {} },
    }
}

/// The buttons of a form: the main one with its shortcut, then the others.
fn actions(main: &Markup, others: &Markup) -> Markup {
    html! {
        div.actions {
            (main)
            (keys(&["Ctrl", "Enter"]))
            (others)
        }
    }
}

/// The links beside a question or the review: Reply and End Turn.
fn side_links(path: &str) -> Markup {
    let reply = format!("{path}/reply");
    let end = format!("{path}/end");
    links(
        "Instead of answering",
        &[
            (&reply, "Reply to the assistant instead"),
            (&end, "End the turn"),
        ],
    )
}

/// A question's page: the question as a form, Back when offered, and links to
/// Reply and End Turn.
pub(crate) fn question(
    prompt: &Prompt,
    heading: Heading<'_>,
    path: &str,
    csrf: &str,
    refusal: Refusal<'_>,
) -> String {
    let question = prompt.question();
    let Heading {
        asker: asker_of,
        standing,
        now,
    } = heading;
    let name = asker_of.name();
    let progress = prompt.progress.map(|p| format!("[{}/{}]", p.n, p.m));
    let note = match refusal.typed {
        Some(typed) => typed.get("note").unwrap_or_default(),
        None => prompt.prefill_note.as_deref().unwrap_or_default(),
    };
    let body = html! {
            (asker(&format!("{name} asks"), standing, now))
            @if let Some(context) = &question.context {
                div.context { (markdown::render(context, Flow::Block)) }
            }
            form method="post" action=(path) {
                (hidden(csrf))
                (at_fields(&prompt.at()))
                fieldset {
                    legend {
                        @if let Some(header) = &question.header { span.header { (shown(header)) } }
                        @if let Some(progress) = &progress { span.progress { (progress) } " " }
                        (markdown::render(&question.text, Flow::Inline))
                    }
                    (answer_inputs(prompt, refusal))
                    @if let Some(error) = top_error(prompt, refusal.error) {
                        p.error role="alert" { (shown(&error)) }
                    }
                    div.field {
                        label for="note" { "A note for the assistant (optional)" }
                        input #note type="text" name="note" maxlength="4096" value=(shown(note));
                        @if refusal.typed.is_some_and(|typed| typed.get("note_checked").is_some()) {
                            input type="hidden" name="note_checked" value="1";
                        }
                    }
                }
                (actions(
                    &html! { button.primary type="submit" name="action" value="answer" { "Answer" } },
                    &html! {
                        @if prompt.can_back {
                            button type="submit" name="action" value="back" formnovalidate { "Back" }
                        }
                    },
    ))
            }
            (pages::unsent(&unplaced(prompt, refusal.typed)))
            (side_links(path))
        };
    let text = markdown::plain(&question.text);
    let title = asker_of.title(&match &progress {
        Some(progress) => format!("{progress} {text}"),
        None => text,
    });
    layout(
        &title,
        &body,
        &Shape::Inquiry(format!("prompt {}", prompt.index)),
    )
}

/// The part of a refusal's reason shown below a question's inputs: all of it,
/// but for a schema answered field by field, where each part that names a
/// field is shown beside that field (once), and only the rest is shown here.
fn top_error(prompt: &Prompt, error: Option<&str>) -> Option<String> {
    let error = error?;
    let question = prompt.question();
    match question.schema.as_ref().and_then(schema_form::flat_fields) {
        Some(fields) if question.answer_type == AnswerType::Schema => {
            schema_form::unplaced_error(&fields, error)
        }
        _ => Some(error.to_owned()),
    }
}

/// What the person typed that this question's inputs cannot take back (an
/// "Other" text where the question allows none, an answer's text where it is
/// a choice, a Reply's message): shown apart, to copy.
fn unplaced(prompt: &Prompt, typed: Option<&Fields>) -> Vec<(String, String)> {
    let Some(typed) = typed else {
        return Vec::new();
    };
    let question = prompt.question();
    let takes = |name: &str| match name {
        "note" => true,
        "other" => question.allow_other,
        "answer" => {
            question.answer_type == AnswerType::Text
                || (question.answer_type == AnswerType::Schema
                    && question
                        .schema
                        .as_ref()
                        .and_then(schema_form::flat_fields)
                        .is_none())
        }
        _ => false,
    };
    (typed_text(typed).0.into_iter())
        .filter(|(name, _)| !takes(name))
        .collect()
}

/// The inputs of a question, by its answer type, prefilled with what the person
/// sent (after a refusal), or else the earlier answer or the default; the first
/// is focused.
fn answer_inputs(prompt: &Prompt, refusal: Refusal<'_>) -> Markup {
    let question = prompt.question();
    let typed = refusal.typed;
    let prefill = match typed {
        Some(typed) => crate::answer::value_from(prompt, typed).ok(),
        None => prompt.prefill_value(),
    };
    match question.answer_type {
        AnswerType::Boolean => {
            let yes = prefill == Some(Value::Bool(true));
            let no = prefill == Some(Value::Bool(false));
            html! {
                div.options {
                    (choice(&Choice { multi: false, value: "true", n: 0, checked: yes }, &html! { "Yes" }))
                    (choice(&Choice { multi: false, value: "false", n: 1, checked: no }, &html! { "No" }))
                }
            }
        }
        AnswerType::Select | AnswerType::MultiSelect => choices(prompt, typed),
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
            html! {
                div.field {
                    label for="answer" { (hint) }
                    textarea #answer name="answer" rows="4" autofocus { (shown(&text)) }
                }
            }
        }
    }
}

/// One radio button or check box.
struct Choice<'a> {
    /// A check box (a multi-select's), else a radio button.
    multi: bool,
    /// What it sends.
    value: &'a str,
    /// Its place: `c{n}` is its id, and the first is focused.
    n: usize,
    /// Whether it is ticked.
    checked: bool,
}

/// One radio button or check box in its label (the whole line is the target),
/// with the key that picks it when it is one of the first nine.
fn choice(choice: &Choice<'_>, label: &Markup) -> Markup {
    let id = format!("c{}", choice.n);
    let (kind, name) = if choice.multi {
        ("checkbox", "pick")
    } else {
        ("radio", "answer")
    };
    html! {
        label.option for=(id) {
            input #(id) type=(kind) name=(name) value=(choice.value)
                checked[choice.checked] autofocus[choice.n == 0];
            span.choice { (label) }
            @if choice.n < 9 { (keys(&[&(choice.n + 1).to_string()])) }
        }
    }
}

/// What a select or multi-select shows picked and typed: after a refusal, what
/// the person sent (the picks kept, even when the answer was refused, so the
/// way the refusal names works); else the engine's prefill (the earlier answer
/// or the default), its own-answer text and a multi-select's typed extras
/// included.
struct Picked {
    /// The options ticked, by index.
    options: Vec<usize>,
    /// "Your own answer" is picked (a single choice).
    other_chosen: bool,
    /// The own-answer texts: one for a single choice, one per typed extra of a
    /// multi-select (at least one field is always shown).
    other: Vec<String>,
}

impl Picked {
    fn of(prompt: &Prompt, typed: Option<&Fields>) -> Self {
        let question = prompt.question();
        if let Some(typed) = typed {
            let name = if question.answer_type == AnswerType::MultiSelect {
                "pick"
            } else {
                "answer"
            };
            return Self {
                options: typed.all(name).filter_map(|v| v.parse().ok()).collect(),
                other_chosen: typed.get("answer") == Some("other"),
                other: typed.all("other").map(str::to_owned).collect(),
            };
        }
        match &prompt.prefill {
            Some(Answer::Choice(n)) => Self {
                options: vec![usize::from(*n)],
                other_chosen: false,
                other: Vec::new(),
            },
            Some(Answer::Other(text)) => Self {
                options: Vec::new(),
                other_chosen: true,
                other: vec![text.clone()],
            },
            Some(Answer::Choices(picks)) => Self {
                options: (0..question.choices().len())
                    .filter(|&n| picks.options.contains(n))
                    .collect(),
                other_chosen: false,
                other: picks.other.clone(),
            },
            _ => Self {
                options: Vec::new(),
                other_chosen: false,
                other: Vec::new(),
            },
        }
    }
}

/// The options of a select or multi-select, with their descriptions, and the
/// "Other" text field when the question allows one (a multi-select's typed
/// extras each in its own field, so re-answering keeps them all).
fn choices(prompt: &Prompt, typed: Option<&Fields>) -> Markup {
    let question = prompt.question();
    let multi = question.answer_type == AnswerType::MultiSelect;
    let picked = Picked::of(prompt, typed);
    let mut others = picked.other.clone();
    if others.is_empty() {
        others.push(String::new());
    }
    html! {
            div.options {
                @for (n, option) in question.choices().iter().enumerate() {
                    @let value = n.to_string();
                    (choice(
                        &Choice { multi, value: &value, n, checked: picked.options.contains(&n) },
                        &html! {
                            (shown(&option.label))
                            @if let Some(description) = &option.description {
                                span.description { (markdown::render(description, Flow::InlineNoLinks)) }
                            }
                        },
    ))
                }
                @if question.allow_other && !multi {
                    (choice(
                        &Choice { multi: false, value: "other", n: 999, checked: picked.other_chosen },
                        &html! { "Your own answer (typed below)" },
    ))
                }
            }
            @if question.allow_other {
                @for (n, text) in others.iter().enumerate() {
                    @let id = if n == 0 { "other".to_owned() } else { format!("other-{}", n + 1) };
                    div.field {
                        label for=(id) {
                            "Your own answer"
                            @if n > 0 { " " (n + 1) }
                        }
                        input #(id) type="text" name="other" maxlength="4096" value=(shown(text));
                    }
                }
            }
        }
}

/// The review: every answer, each the person gave with its Change button (back
/// to that question in one step, the later answers kept), then Send and the
/// links to Reply and End Turn.
pub(crate) fn review(
    outcome: &Outcome,
    at: &At,
    heading: Heading<'_>,
    path: &str,
    csrf: &str,
    refusal: Refusal<'_>,
) -> String {
    let error = refusal.error;
    let typed = refusal
        .typed
        .map(|typed| typed_text(typed).0)
        .unwrap_or_default();
    let answers = outcome.to_map();
    let Heading {
        asker: asker_of,
        standing,
        now,
    } = heading;
    let body = html! {
        (asker(&format!("Review your answers for {}", asker_of.name()), standing, now))
        form method="post" action=(path) {
            (hidden(csrf))
            (at_fields(at))
            dl.answers {
                @for (index, question) in outcome.form.questions().iter().enumerate() {
                    @let answer = answers.get(&question.id).unwrap_or(&Value::Null);
                    @let slot = outcome.answers.get(index).and_then(Option::as_ref);
                    @let note = slot.and_then(|slot| slot.note.as_deref());
                    // An answer the person gave can be changed in one step (the
                    // engine keeps the later answers where their question still shows).
                    @let by_person = slot.is_some_and(|slot| slot.by == askuser_core::AnsweredBy::User);
                    dt { (markdown::render(&question.text, Flow::Inline)) }
                    dd {
                        span {
                            @match answer {
                                Value::Null => span.unasked { "(not asked)" },
                                answer => (pages::answered(&crate::answer::Answered::of(answer, question.schema.as_ref()))),
                            }
                            @if let Some(note) = note {
                                " " span.note { "(note: " (shown(note)) ")" }
                            }
                        }
                        @if by_person {
                            button.change type="submit" name="change" value=(shown(&question.id))
                                aria-label=(shown(&format!("Change the answer to “{}”", markdown::plain(&question.text)))) {
                                "Change"
                            }
                        }
                    }
                }
            }
            @if let Some(error) = error {
                p.error role="alert" { (shown(error)) }
            }
            (actions(
                &html! { button.primary type="submit" name="action" value="submit" { "Send these answers" } },
                &html! {},
            ))
        }
        (pages::unsent(&typed))
        (side_links(path))
    };
    layout(
        &asker_of.title("Review your answers"),
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
pub(crate) fn reply(
    asker_of: &Asker,
    path: &str,
    csrf: &str,
    at: &At,
    refusal: Refusal<'_>,
) -> String {
    let message = refusal
        .typed
        .and_then(|typed| typed.get("message"))
        .unwrap_or_default();
    let body = html! {
            h1 { "Reply to " (asker_of.name()) " instead" }
            @if let Some(error) = refusal.error {
                p.error role="alert" { (shown(error)) }
            }
            form method="post" action=(path) {
                (hidden(csrf))
                (at_fields(at))
                div.field {
                    label for="message" { "Your message (optional; the answers given so far go with it)" }
                    textarea #message name="message" rows="4" maxlength="4096" autofocus { (shown(message)) }
                }
                (actions(
                    &html! { button.primary type="submit" name="action" value="reply" { "Send the reply" } },
                    &html! {},
    ))
            }
            (links("Next", &[(path, "Back to the question")]))
        };
    layout(
        &asker_of.title("Reply to the assistant"),
        &body,
        &Shape::Other,
    )
}

/// The End Turn confirmation.
pub(crate) fn end_turn(asker_of: &Asker, path: &str, csrf: &str) -> String {
    let body = html! {
        h1 { "End the turn of " (asker_of.name()) "?" }
        p { "Your answers so far are not sent, and the assistant gets no reply." }
        form method="post" action=(path) {
            (hidden(csrf))
            div.actions {
                button.danger type="submit" name="action" value="end_turn" { "Yes, end the turn" }
            }
        }
        (links("Next", &[(path, "No, back to the question")]))
    };
    layout(&asker_of.title("End the turn?"), &body, &Shape::Other)
}
