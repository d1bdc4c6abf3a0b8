//! The engine behind the pages: what waits in every stream, and the person's
//! actions as inputs to the store's session driver (through the JSON-lines
//! adapter's [`Journal`], as `askuser answer` and the terminal use it). Blocking:
//! the handlers call it on tokio's blocking threads.

use askuser_app::{AppError, Journal, OpenInquiry, Showing, Step, StreamView};
use askuser_core::text::{answer_words, for_display_line};
use askuser_core::{
    AnswerInput, At, Command, Input, InquiryId, Outcome, OutcomeStatus, Prompt, Refusal, State,
};
use askuser_store::StreamName;

use crate::answer::{Fields, value_from};

use crate::history::{History, MAX_SHOWN};

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
    /// When the stream was created.
    pub(crate) since: askuser_store::Timestamp,
    /// How long it has waited, and the time left to answer.
    pub(crate) timing: Timing,
}

/// How long an inquiry has waited (since the last event of its stream: the
/// moment the question on show started waiting) and, when its policy has a
/// timeout, how long the person has left. The host that asked fires the
/// timeout; the page only shows the time, counted the same way.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Timing {
    /// Milliseconds since the question started waiting.
    pub(crate) waited_ms: u64,
    /// When it started waiting.
    pub(crate) started: askuser_store::Timestamp,
    /// Milliseconds left before the timeout, when there is one.
    pub(crate) left_ms: Option<u64>,
}

/// What a question's page shows.
#[derive(Debug, Clone)]
pub(crate) enum Page {
    /// The question being asked.
    Prompt(Box<Prompt>, Timing),
    /// Every answer, before they are sent, and what the review is (its step).
    Review(Box<Outcome>, At, Timing),
    /// The inquiry is over: what the model got, in words and JSON.
    Finished(String),
    /// No such inquiry in this stream.
    Missing,
}

/// What the person did on a page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Act {
    /// An answer to the question shown (read from the form's fields).
    Answer,
    /// Back to the previous answered question.
    Back,
    /// Reply to the assistant instead, with an optional message.
    Reply,
    /// End the turn (confirmed).
    EndTurn,
    /// Send the reviewed answers.
    Submit,
    /// From the review, change the answer to the question the form's `change`
    /// field names.
    Change,
}

/// Why the person's action was not recorded, in words for them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct NotTaken {
    /// What to show beside the inputs.
    pub(crate) message: String,
    /// The page was stale: another surface moved the inquiry on first, so the
    /// page now shows another question (or the review), and only what the
    /// person typed as text is put back.
    pub(crate) stale: bool,
}

impl NotTaken {
    fn invalid(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            stale: false,
        }
    }
}

/// The engine's side of the inbox.
pub(crate) struct Queue {
    journal: Journal,
}

/// How long `open` of the stream `view` has waited at `now` (since the stream's
/// head event, else now), and its time left to the engine's deadline.
fn timing(view: &StreamView, open: &OpenInquiry, now: u64) -> Timing {
    let since = view
        .last_activity()
        .map_or(now, askuser_store::Timestamp::millis);
    // One deadline for every surface (the terminal counts to the same one).
    let left_ms = (view.deadline(open)).and_then(|deadline| {
        let after_ms = open.timeout.as_ref()?.after_ms;
        Some(deadline.millis().saturating_sub(now).min(after_ms))
    });
    Timing {
        waited_ms: now.saturating_sub(since),
        started: askuser_store::Timestamp(since),
        left_ms,
    }
}

impl Queue {
    pub(crate) fn new(journal: Journal) -> Self {
        Self { journal }
    }

    /// How many stream replays the read side has made (one per stream at first
    /// sight): a page served never adds one.
    #[cfg(test)]
    pub(crate) fn replays(&self) -> u64 {
        self.journal.read().replays()
    }

    /// The log the queue reads.
    pub(crate) fn log(&self) -> &crate::SharedLog {
        self.journal.log()
    }

    /// Every inquiry that waits for a person, the newest stream first; `now` is
    /// the wall clock in milliseconds since the Unix epoch. Read from the
    /// journal's read side: a stream is read only when it moved.
    pub(crate) fn waiting(&mut self, now: u64) -> Result<Vec<Waiting>, AppError> {
        let mut streams = self.journal.log().streams()?;
        streams.sort_by(|a, b| b.created_at.cmp(&a.created_at).then(a.name.cmp(&b.name)));
        let mut waiting = Vec::new();
        for info in streams {
            // One listing gives every head: a stream is read only when it moved.
            if self.journal.head(&info.name)? < info.head {
                self.journal.follow(&info.name)?;
            }
            let Some(view) = self.journal.refresh(&info.name)? else {
                continue;
            };
            for open in view.open() {
                let (question, progress) = match &open.showing {
                    Showing::Question { text, progress, .. } => (
                        Some(text.clone()),
                        progress.map(|p| format!("[{}/{}]", p.n, p.m)),
                    ),
                    Showing::Review => (None, None),
                    Showing::Assistant { .. } => continue,
                };
                waiting.push(Waiting {
                    stream: info.name.clone(),
                    inquiry: open.inquiry.to_string(),
                    label: open.label.clone().unwrap_or_else(|| "Assistant".to_owned()),
                    question,
                    progress,
                    since: info.created_at,
                    timing: timing(view, open, now),
                });
            }
        }
        Ok(waiting)
    }

    /// How long `inquiry` of `stream` has waited at `now`, and its time left (from
    /// the read side, brought level with the stream's session).
    fn timing(&mut self, stream: &str, inquiry: &str, now: u64) -> Result<Timing, AppError> {
        let id = InquiryId::new(inquiry);
        let Some(view) = self.journal.refresh(stream)? else {
            return Ok(Timing::default());
        };
        Ok(match view.open().iter().find(|open| open.inquiry == id) {
            Some(open) => timing(view, open, now),
            None => Timing::default(),
        })
    }

    /// The page of `inquiry` in `stream` at `now` (milliseconds since the Unix
    /// epoch).
    pub(crate) fn page(&mut self, stream: &str, inquiry: &str, now: u64) -> Result<Page, AppError> {
        if self.journal.log().stream(stream)?.is_none() {
            return Ok(Page::Missing);
        }
        self.journal.follow(stream)?;
        let id = InquiryId::new(inquiry);
        self.time_out_if_due(stream, &id, now)?;
        let state = self.journal.state(stream)?;
        match state.pending(&id) {
            Some(Command::Prompt(prompt)) => Ok(Page::Prompt(
                Box::new(prompt),
                self.timing(stream, inquiry, now)?,
            )),
            Some(Command::Review { outcome, step, .. }) => Ok(Page::Review(
                Box::new(outcome),
                At::review(id.clone(), step),
                self.timing(stream, inquiry, now)?,
            )),
            Some(_) => Ok(Page::Finished(
                "This question is for the assistant, not for a person.".to_owned(),
            )),
            None if state.was_requested(&id) => Ok(Page::Finished(self.result(stream, &id)?)),
            None => Ok(Page::Missing),
        }
    }

    /// The history of `stream`: its latest events and its forks; `None` when
    /// there is no such stream.
    pub(crate) fn history(&mut self, stream: &str) -> Result<Option<History>, AppError> {
        let streams = self.journal.log().streams()?;
        let Some(info) = streams.iter().find(|s| s.name == stream).cloned() else {
            return Ok(None);
        };
        let mut forks: Vec<String> = (streams.iter())
            .filter(|s| s.parent.as_ref().is_some_and(|p| p.stream == stream))
            .map(|s| s.name.clone())
            .collect();
        forks.sort();
        let from = (info.floor + 1).max(info.head.saturating_sub(MAX_SHOWN - 1));
        let mut events = Vec::new();
        if info.head >= from {
            for recorded in self.journal.log().read_range(stream, from, info.head)? {
                events.push(recorded?);
            }
        }
        Ok(Some(History {
            info,
            events,
            forks,
        }))
    }

    /// Forks `stream` after its event `at` (the store's fork: nothing of `stream`
    /// changes), named `STREAM.fork-AT` as `askuser log fork` names it (with `-2`,
    /// `-3`… when taken); the new stream's name and its open inquiry, if any.
    pub(crate) fn fork(
        &mut self,
        stream: &StreamName,
        at: u64,
    ) -> Result<Result<(StreamName, Option<String>), String>, AppError> {
        let log = std::sync::Arc::clone(self.journal.log());
        let taken: Vec<String> = log.streams()?.into_iter().map(|s| s.name).collect();
        let name = match askuser_app::fork_name(stream, at, &taken) {
            Ok(name) => name,
            Err(error) => return Ok(Err(format!("the fork's name {error}"))),
        };
        if let Err(error) = log.fork(stream, at, &name) {
            return Ok(Err(error.to_string()));
        }
        self.journal.follow(&name)?;
        let open = self.journal.state(&name)?.open_inquiries().next().cloned();
        Ok(Ok((name, open.map(|id| id.to_string()))))
    }

    /// What the model got for a finished inquiry, in words: from what the engine's
    /// state keeps of it (`State::result`, the last inquiries of the stream to
    /// finish), never a replay.
    fn result(&mut self, stream: &str, id: &InquiryId) -> Result<String, AppError> {
        self.journal.refresh(stream)?;
        let state = self.journal.state(stream)?;
        let Some((result, call)) = (state.outcome(id)).and_then(|record| {
            let call = record.call().and_then(askuser_app::parse_recorded);
            Some((record.command(id)?, call))
        }) else {
            return Ok("This question is finished.".to_owned());
        };
        let got = call
            .as_ref()
            .and_then(|call| call.tool_result(&result))
            .map(|result| match result {
                askuser_llm::ToolResult::Success(value) => value.to_string(),
                askuser_llm::ToolResult::Error(text) | askuser_llm::ToolResult::Text(text) => text,
            })
            .unwrap_or_default();
        Ok(done_words(&result, &got))
    }

    /// At the engine's deadline (the one every surface counts to), the time to
    /// answer `id` is up: the timeout is recorded, as the waiting host would
    /// record it (the first to record it wins), so that the page stops taking
    /// answers and says what the agent was sent, even with no host to fire it.
    /// Whether it was recorded now.
    fn time_out_if_due(
        &mut self,
        stream: &str,
        id: &InquiryId,
        now: u64,
    ) -> Result<bool, AppError> {
        let due = self.journal.refresh(stream)?.is_some_and(|view| {
            view.open().iter().any(|open| {
                open.inquiry == *id
                    && view
                        .deadline(open)
                        .is_some_and(|deadline| deadline.millis() <= now)
            })
        });
        if !due {
            return Ok(false);
        }
        let input = Input::TimeOut {
            inquiry: id.clone(),
            message: None,
        };
        Ok(matches!(
            self.journal.input(stream, &input)?,
            Step::Recorded { .. }
        ))
    }

    /// What `inquiry` of `stream` shows now, after catching up with the log;
    /// `None` when it does not wait for a person.
    pub(crate) fn current_at(
        &mut self,
        stream: &str,
        inquiry: &str,
    ) -> Result<Option<At>, AppError> {
        if self.journal.log().stream(stream)?.is_none() {
            return Ok(None);
        }
        self.journal.follow(stream)?;
        Ok(self.journal.state(stream)?.at(&InquiryId::new(inquiry)))
    }

    /// Hands the person's `act` on `inquiry`, taken on what `at` names, to the
    /// engine (through the stream's session); `Err` with why it was not taken,
    /// in words (another surface answered first, say).
    pub(crate) fn act(
        &mut self,
        stream: &str,
        inquiry: &str,
        at: Option<At>,
        act: Act,
        fields: &Fields,
        now: u64,
    ) -> Result<Result<(), NotTaken>, AppError> {
        self.journal.follow(stream)?;
        let id = InquiryId::new(inquiry);
        if self.time_out_if_due(stream, &id, now)? {
            return Ok(Err(NotTaken::invalid(TIME_RAN_OUT)));
        }
        let state = self.journal.state(stream)?;
        let Some(current) = state.at(&id) else {
            let finished = match (act, state.result(&id)) {
                (Act::EndTurn, Some(Command::EndTurn { .. })) => TURN_ALREADY_ENDED,
                _ => FINISHED_ELSEWHERE,
            };
            return Ok(Err(NotTaken::invalid(finished)));
        };
        let needs_at = act != Act::EndTurn;
        let shown = match at {
            Some(at) if at.inquiry == id => at,
            _ if !needs_at => current.clone(),
            _ => {
                return Ok(Err(NotTaken {
                    message: "This page was out of date; here is the question as it stands. Nothing you sent was recorded.".into(),
                    stale: true,
                }));
            }
        };
        if needs_at && shown != current {
            return Ok(Err(NotTaken {
                message: stale_words(state, &shown, &current),
                stale: true,
            }));
        }
        let input = match act {
            Act::Answer => {
                let Some(Command::Prompt(prompt)) = state.pending(&id) else {
                    return Ok(Err(NotTaken::invalid(
                        "this question is no longer waiting for an answer",
                    )));
                };
                match value_from(&prompt, fields) {
                    Ok(value) => Input::from(
                        AnswerInput::new(shown, value)
                            .with_note(fields.text("note"))
                            .reviewed(),
                    ),
                    Err(message) => return Ok(Err(NotTaken::invalid(message))),
                }
            }
            Act::Back => Input::Back(shown),
            Act::Reply => Input::Reply {
                at: shown,
                message: fields.text("message"),
            },
            Act::EndTurn => Input::EndTurn { inquiry: id },
            Act::Submit => Input::Submit(shown),
            Act::Change => Input::Change {
                at: shown,
                question: fields.get("change").unwrap_or_default().to_owned(),
            },
        };
        // The journal's road: what it records reaches the read side too.
        match self.journal.input(stream, &input)? {
            Step::Recorded { commands, .. } => Ok(match commands.first() {
                Some(Command::InvalidAnswer { message, .. }) => {
                    Err(NotTaken::invalid(message.clone()))
                }
                _ => Ok(()),
            }),
            Step::Refused(refusal) => Ok(Err(match refusal {
                Refusal::Stale { shown, current, .. } => NotTaken {
                    message: stale_words(self.journal.state(stream)?, &shown, &current),
                    stale: true,
                },
                Refusal::InquiryFinished { .. } => NotTaken::invalid(FINISHED_ELSEWHERE),
                refusal => NotTaken::invalid(refusal.to_string()),
            })),
        }
    }
}

/// What a finished inquiry's page says happened, from its result command and
/// what the model got for it (`got`: the tool result's text).
fn done_words(result: &Command, got: &str) -> String {
    match result {
        Command::EndTurn { .. } => "You ended the turn; the assistant got no reply.".to_owned(),
        Command::Respond { outcome, .. } => match &outcome.status {
            OutcomeStatus::Completed => format!("Answered; the assistant got: {got}"),
            OutcomeStatus::Cancelled => match &outcome.message {
                Some(message) => format!(
                    "You replied instead, with the message “{}”; the assistant got: {got}",
                    for_display_line(message)
                ),
                None => format!("You replied instead, without a message; the assistant got: {got}"),
            },
            OutcomeStatus::TimedOut { after_ms } => format!(
                "The time to answer ({}) ran out; the assistant got: {got}",
                crate::pages::duration_words(*after_ms)
            ),
        },
        Command::Fail { .. } | Command::Reject { .. } => {
            format!("This question ended without answers; the assistant got the error: {got}")
        }
        _ => "This question is finished.".to_owned(),
    }
}

/// What a page says when the time to answer ran out as the person acted.
const TIME_RAN_OUT: &str =
    "The time to answer ran out before this arrived; nothing you sent was recorded";

/// What End Turn on a question whose turn was already ended says.
const TURN_ALREADY_ENDED: &str =
    "The turn was already ended (here, in another tab or in the terminal); nothing more was sent";

/// What a page says when its inquiry finished while it was open (another surface
/// finished it, or this page was sent twice: the log cannot tell which).
const FINISHED_ELSEWHERE: &str = "This question was already finished (here, in another tab or in the terminal) before this arrived; nothing you sent now was recorded";

/// What changed while a page was open, in words: what happened to what it
/// showed, what shows now, and that nothing was recorded.
fn stale_words(state: &State, shown: &At, current: &At) -> String {
    let form = state.form(&shown.inquiry);
    // One line each: a multi-line answer reads with spaces for its breaks.
    let line = |text: &str| {
        for_display_line(&text.split_whitespace().collect::<Vec<_>>().join(" ")).into_owned()
    };
    let text_of = |id: &str| {
        form.and_then(|form| {
            form.index_of(id)
                .map(|index| form.question(index).text.clone())
        })
    };
    let answer_of = |id: &str| {
        let form = form?;
        let index = form.index_of(id)?;
        let slot = state.answers(&shown.inquiry)?.get(index)?.as_ref()?;
        Some(answer_words(&slot.answer.to_value(form.question(index))))
    };
    let what = match &shown.question {
        Some(id) => match (text_of(id), answer_of(id)) {
            (Some(text), Some(answer)) => format!(
                "While this page was open, “{}” was answered elsewhere (in another tab or the terminal): {}.",
                line(&text),
                line(&answer)
            ),
            _ => "While this page was open, the form moved on elsewhere (in another tab or the terminal).".to_owned(),
        },
        None => "While this page was open, the answers under review changed elsewhere (in another tab or the terminal).".to_owned(),
    };
    let now = match current.question.as_deref().and_then(text_of) {
        Some(text) => format!(" It now asks “{}”.", line(&text)),
        None => " Every question is answered: review the answers below.".to_owned(),
    };
    let kept = if shown.question.is_some() {
        " Nothing you sent was recorded; what you typed is kept."
    } else {
        " Nothing you sent was recorded."
    };
    format!("{what}{now}{kept}")
}
