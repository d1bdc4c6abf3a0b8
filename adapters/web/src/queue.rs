//! The engine behind the pages: what waits in every stream, and the person's
//! actions as inputs to the store's session driver (through the JSON-lines
//! adapter's [`Journal`], as `askuser answer` and the terminal use it). Blocking:
//! the handlers call it on tokio's blocking threads.

use std::collections::HashSet;

use askuser_core::{CancelReason, Command, Event, InquiryId, Outcome, Prompt};
use askuser_rpc::{Journal, RpcError, Step};
use serde_json::Value;

/// One inquiry waiting for a person, for the inbox.
#[derive(Debug, Clone)]
pub(crate) struct Waiting {
    pub(crate) stream: String,
    pub(crate) inquiry: String,
    /// Who asks (the policy's label).
    pub(crate) label: String,
    /// The question being asked, or `None` while its review shows.
    pub(crate) question: Option<String>,
    /// `[N/M]` when the form has more than one question.
    pub(crate) progress: Option<String>,
    /// When the stream was created (RFC 3339).
    pub(crate) since: String,
}

/// What a question's page shows.
#[derive(Debug, Clone)]
pub(crate) enum Page {
    /// The question being asked.
    Prompt(Box<Prompt>),
    /// Every answer, before they are sent.
    Review(Box<Outcome>),
    /// The inquiry is over: what the model got, in words and JSON.
    Finished(String),
    /// No such inquiry in this stream.
    Missing,
}

/// What the person did on a page.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Act {
    /// An answer to the question being asked, and a note beside it.
    Answer(Value, Option<String>),
    /// Back to the previous answered question.
    Back,
    /// Reply to the assistant instead, with an optional message.
    Reply(Option<String>),
    /// End the turn (confirmed).
    EndTurn,
    /// Send the reviewed answers.
    Submit,
}

/// The engine's side of the inbox.
pub(crate) struct Queue {
    journal: Journal,
    /// Inquiries this server asked the engine to review before sending.
    reviewed: HashSet<(String, String)>,
}

impl Queue {
    pub(crate) fn new(journal: Journal) -> Self {
        Self {
            journal,
            reviewed: HashSet::new(),
        }
    }

    /// Every inquiry that waits for a person, the newest stream first.
    pub(crate) fn waiting(&mut self) -> Result<Vec<Waiting>, RpcError> {
        let mut streams = self.journal.log().streams()?;
        streams.sort_by(|a, b| b.created_at.cmp(&a.created_at).then(a.name.cmp(&b.name)));
        let mut waiting = Vec::new();
        for info in streams {
            self.journal.catch_up(&info.name)?;
            let state = self.journal.state(&info.name)?;
            let open: Vec<InquiryId> = state.open_inquiries().cloned().collect();
            for inquiry in open {
                let label =
                    |prompt: &Prompt| prompt.label.as_deref().unwrap_or("Assistant").to_owned();
                let (label, question, progress) = match state.pending(&inquiry) {
                    Some(Command::Prompt(prompt)) => (
                        label(&prompt),
                        Some(prompt.question().text.clone()),
                        prompt.progress.map(|p| format!("[{}/{}]", p.n, p.m)),
                    ),
                    Some(Command::Review { .. }) => ("Assistant".to_owned(), None, None),
                    _ => continue,
                };
                waiting.push(Waiting {
                    stream: info.name.clone(),
                    inquiry: inquiry.to_string(),
                    label,
                    question,
                    progress,
                    since: info.created_at.to_string(),
                });
            }
        }
        Ok(waiting)
    }

    /// The page of `inquiry` in `stream`.
    pub(crate) fn page(&mut self, stream: &str, inquiry: &str) -> Result<Page, RpcError> {
        if !self
            .journal
            .log()
            .streams()?
            .iter()
            .any(|s| s.name == stream)
        {
            return Ok(Page::Missing);
        }
        self.journal.catch_up(stream)?;
        let id = InquiryId::new(inquiry);
        let state = self.journal.state(stream)?;
        match state.pending(&id) {
            Some(Command::Prompt(prompt)) => Ok(Page::Prompt(Box::new(prompt))),
            Some(Command::Review { outcome, .. }) => Ok(Page::Review(Box::new(outcome))),
            Some(_) => Ok(Page::Finished(
                "This question is for the assistant, not for a person.".to_owned(),
            )),
            None if state.was_requested(&id) => Ok(Page::Finished(self.result(stream, &id)?)),
            None => Ok(Page::Missing),
        }
    }

    /// What the model got for a finished inquiry, in words.
    fn result(&mut self, stream: &str, id: &InquiryId) -> Result<String, RpcError> {
        let recorded =
            askuser_rpc::pending::recorded_outcome(&**self.journal.log(), stream, id.as_str())?;
        let Some(command) = recorded else {
            return Ok("This question is finished.".to_owned());
        };
        let call = self.journal.call(stream, id)?;
        Ok(match &command {
            Command::EndTurn { .. } => "The turn was ended; the assistant got no reply.".to_owned(),
            command => {
                let result = call
                    .as_deref()
                    .and_then(|call| call.tool_result(command))
                    .map(|result| match result {
                        askuser_llm::ToolResult::Success(value) => value.to_string(),
                        askuser_llm::ToolResult::Error(text)
                        | askuser_llm::ToolResult::Text(text) => text,
                    })
                    .unwrap_or_default();
                format!("Answered; the assistant got: {result}")
            }
        })
    }

    /// Hands the person's `act` on `inquiry` to the engine; `Err` with the
    /// engine's refusal (another surface answered first, say) in words.
    pub(crate) fn act(
        &mut self,
        stream: &str,
        inquiry: &str,
        act: Act,
    ) -> Result<Result<(), String>, RpcError> {
        self.journal.catch_up(stream)?;
        let id = InquiryId::new(inquiry);
        let event = match act {
            Act::Answer(value, note) => {
                let Some(Command::Prompt(prompt)) = self.journal.state(stream)?.pending(&id) else {
                    return Ok(Err(
                        "this question is no longer waiting for an answer".into()
                    ));
                };
                if self
                    .reviewed
                    .insert((stream.to_owned(), inquiry.to_owned()))
                {
                    let wanted = Event::ReviewWanted {
                        inquiry: id.clone(),
                    };
                    if let Step::Refused(refusal) = self.journal.apply(stream, &wanted)? {
                        return Ok(Err(refusal.to_string()));
                    }
                }
                Event::Answered {
                    inquiry: id,
                    question: prompt.question().id.clone(),
                    value,
                    by: askuser_core::AnsweredBy::User,
                    remember: false,
                    note,
                }
            }
            Act::Back => Event::Back { inquiry: id },
            Act::Reply(message) => Event::Cancelled {
                inquiry: id,
                reason: CancelReason::UserReply,
                message,
            },
            Act::EndTurn => Event::TurnEnded { inquiry: id },
            Act::Submit => Event::Submitted { inquiry: id },
        };
        match self.journal.apply(stream, &event)? {
            Step::Refused(refusal) => Ok(Err(refusal.to_string())),
            Step::Recorded { commands, .. } => Ok(match commands.first() {
                Some(Command::InvalidAnswer { message, .. }) => Err(message.clone()),
                _ => Ok(()),
            }),
        }
    }
}
