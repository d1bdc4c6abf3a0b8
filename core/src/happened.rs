//! What another surface did, as data: the one narrator. The application
//! layer's desk makes a [`Happened`] of every event another process recorded
//! (what its catch-up returns, and what an outcome says changed elsewhere);
//! each surface only styles it: the terminal in its lines (`↻ Answered
//! elsewhere: …`), the MCP server in the next round's message.

use serde_json::Value;

use crate::{At, CancelReason, Command, Event, InquiryId, State, Surface, ValidForm};

/// What another surface did to an inquiry, with the facts a surface shows.
#[derive(Debug, Clone, PartialEq)]
pub enum Happened {
    /// A question was answered there.
    Answered {
        /// The inquiry.
        inquiry: InquiryId,
        /// The question's id.
        question: String,
        /// The question's text (its id when the form is no longer known).
        asked: String,
        /// The answer, as the model gets it.
        value: Value,
        /// The person's note on it.
        note: Option<String>,
        /// Answered ahead: before the form reached that question.
        ahead: bool,
    },
    /// Someone went back there, to an earlier question.
    WentBack {
        /// The inquiry.
        inquiry: InquiryId,
        /// The text of the question shown now, when the event shows one.
        to: Option<String>,
    },
    /// The answers were submitted there.
    Submitted {
        /// The inquiry.
        inquiry: InquiryId,
    },
    /// The person replied there instead of answering.
    Replied {
        /// The inquiry.
        inquiry: InquiryId,
        /// The message, when one was written.
        message: Option<String>,
    },
    /// The inquiry was cancelled there for another reason (no one to ask, a
    /// client that cannot show forms).
    Cancelled {
        /// The inquiry.
        inquiry: InquiryId,
    },
    /// The turn was ended there.
    TurnEnded {
        /// The inquiry.
        inquiry: InquiryId,
        /// Where, when the log says ([`Surface::words`]).
        surface: Option<Surface>,
    },
    /// The time to answer ran out there.
    TimedOut {
        /// The inquiry.
        inquiry: InquiryId,
    },
}

impl Happened {
    /// What `event` (applied, yielding `commands`, on an inquiry whose form is
    /// `form` when known) means to a person; `None` for an event that shows
    /// nothing by itself (a review wanted, a form shown, a process attaching).
    ///
    /// ```
    /// use askuser_core::{AnsweredBy, Event, Happened, InquiryId};
    /// use serde_json::json;
    ///
    /// let event = Event::Answered {
    ///     inquiry: InquiryId::new("c1"),
    ///     question: "apply".into(),
    ///     value: json!(true),
    ///     by: AnsweredBy::User,
    ///     remember: false,
    ///     note: None,
    /// };
    /// let Some(Happened::Answered { asked, ahead, .. }) = Happened::of(&event, &[], None) else {
    ///     panic!()
    /// };
    /// assert_eq!((asked.as_str(), ahead), ("apply", false));
    /// ```
    pub fn of(event: &Event, commands: &[Command], form: Option<&ValidForm>) -> Option<Self> {
        let form = form.or_else(|| {
            commands.iter().find_map(|command| match command {
                Command::Respond { outcome, .. } => Some(&outcome.form),
                _ => None,
            })
        });
        let asked = |question: &str| -> String {
            (form.and_then(|form| Some(form.question(form.index_of(question)?))))
                .map_or_else(|| question.to_owned(), |q| q.text.clone())
        };
        Some(match event {
            Event::Answered {
                inquiry,
                question,
                value,
                note,
                ..
            } => Happened::Answered {
                inquiry: inquiry.clone(),
                question: question.clone(),
                asked: asked(question),
                value: value.clone(),
                note: note.clone(),
                ahead: false,
            },
            Event::AnsweredAhead {
                inquiry,
                question,
                value,
                ..
            } => Happened::Answered {
                inquiry: inquiry.clone(),
                question: question.clone(),
                asked: asked(question),
                value: value.clone(),
                note: None,
                ahead: true,
            },
            Event::Back { inquiry, .. } => Happened::WentBack {
                inquiry: inquiry.clone(),
                to: commands.iter().find_map(|command| match command {
                    Command::Prompt(prompt) => Some(prompt.question().text.clone()),
                    _ => None,
                }),
            },
            Event::Submitted { inquiry, .. } => Happened::Submitted {
                inquiry: inquiry.clone(),
            },
            Event::Cancelled {
                inquiry,
                reason: CancelReason::UserReply,
                message,
            } => Happened::Replied {
                inquiry: inquiry.clone(),
                message: message.clone(),
            },
            Event::Cancelled { inquiry, .. } => Happened::Cancelled {
                inquiry: inquiry.clone(),
            },
            Event::TurnEnded { inquiry, surface } => Happened::TurnEnded {
                inquiry: inquiry.clone(),
                surface: *surface,
            },
            Event::TimedOut { inquiry, .. } => Happened::TimedOut {
                inquiry: inquiry.clone(),
            },
            _ => return None,
        })
    }

    /// What moved an inquiry on from `shown` (what a page or a terminal showed
    /// of it) to `current` (what it shows now), told from `state`: the question
    /// shown was answered (with the answer it holds now), or else someone went
    /// back, from the question or the review shown, to `current`'s question
    /// (`to: None` when `current` is the review). `None` when nothing moved, or
    /// the inquiry is not open.
    ///
    /// ```
    /// use askuser_core::{At, Happened, InquiryId, State};
    ///
    /// let shown = At::question(InquiryId::new("c1"), "apply", 1);
    /// assert_eq!(Happened::since_shown(&State::default(), &shown, &shown), None);
    /// ```
    pub fn since_shown(state: &State, shown: &At, current: &At) -> Option<Self> {
        if shown == current || shown.inquiry != current.inquiry {
            return None;
        }
        let inquiry = &shown.inquiry;
        let form = state.form(inquiry)?;
        let text = |id: &str| Some(form.question(form.index_of(id)?).text.clone());
        let answered = shown.question.as_deref().and_then(|id| {
            let index = form.index_of(id)?;
            let slot = state.answers(inquiry)?.get(index)?.as_ref()?;
            Some(Happened::Answered {
                inquiry: inquiry.clone(),
                question: id.to_owned(),
                asked: form.question(index).text.clone(),
                value: slot.answer.to_value(form.question(index)),
                note: slot.note.clone(),
                ahead: false,
            })
        });
        answered.or_else(|| {
            Some(Happened::WentBack {
                inquiry: inquiry.clone(),
                to: current.question.as_deref().and_then(text),
            })
        })
    }

    /// The inquiry it happened to.
    pub fn inquiry(&self) -> &InquiryId {
        match self {
            Happened::Answered { inquiry, .. }
            | Happened::WentBack { inquiry, .. }
            | Happened::Submitted { inquiry }
            | Happened::Replied { inquiry, .. }
            | Happened::Cancelled { inquiry }
            | Happened::TurnEnded { inquiry, .. }
            | Happened::TimedOut { inquiry } => inquiry,
        }
    }
}
