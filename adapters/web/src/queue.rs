//! The engine behind the pages: what waits in every stream, and the person's
//! actions as inputs to the store's session driver (through the JSON-lines
//! adapter's [`Desk`], as `askuser answer` and the terminal use it). Blocking:
//! the handlers call it on tokio's blocking threads.

use askuser_app::log::{StreamName, Timestamp};
use askuser_app::{AppError, Desk, Standing, Taken, Unheard, UnheardOf};
use askuser_core::text::{answer_words, for_display_line};
use askuser_core::{
    AnswerInput, At, Command, Ending, Happened, Input, InquiryId, Outcome, Prompt, Refusal, State,
    Surface,
};

use crate::answer::{Fields, value_from};
use crate::elsewhere;

use crate::history::History;

/// One inquiry waiting for a person, for the inbox: the application layer's
/// data, which the pages only style.
pub(crate) type Waiting = askuser_app::Asking;

/// What a question's page shows.
#[derive(Debug, Clone)]
pub(crate) enum Page {
    /// The question being asked.
    Prompt(Box<Prompt>, Standing),
    /// Every answer, before they are sent, and what the review is (its step).
    Review(Box<Outcome>, At, Standing),
    /// The inquiry is over: what happened and what the model got, in words.
    Finished(Done),
    /// No such inquiry in this stream.
    Missing,
}

/// A finished inquiry, as its page tells it: what happened, in a sentence,
/// and the answers the assistant got, each a labelled line (never the
/// payload's JSON).
#[derive(Debug, Clone, Default)]
pub(crate) struct Done {
    /// What happened, and who got what.
    pub(crate) text: String,
    /// The answers sent: the question (Markdown), the answer in words (a
    /// schema's object field by field: see [`crate::answer::Answered`]), and
    /// the note beside it.
    pub(crate) answers: Vec<(String, crate::answer::Answered, Option<String>)>,
    /// When it finished (the time the log recorded the event that finished
    /// it), with the words that start the sentence saying so (`The assistant
    /// got them at`); `None` when the log's latest events no longer hold it.
    pub(crate) when: Option<(Timestamp, &'static str)>,
}

impl Done {
    /// A page with only `text` to say.
    fn words(text: &str) -> Self {
        Self {
            text: text.to_owned(),
            answers: Vec::new(),
            when: None,
        }
    }
}

/// What the web inbox knows of who ended a turn, for the words of its Done
/// page, beside the surface the log recorded: whether it was this tab.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct EndedHere {
    /// This inbox recorded the End Turn (it remembers the turns it ended
    /// since it started).
    pub(crate) by_this_inbox: bool,
    /// The page is the one the End Turn's own form led to (this tab).
    pub(crate) this_tab: bool,
    /// When this inbox started, in milliseconds since the Unix epoch.
    pub(crate) started_ms: u64,
}

impl EndedHere {
    /// Who ended a turn (the time to answer did not), in words: this tab, or
    /// where the log says (`surface`: another tab of the web inbox, the
    /// terminal, the agent's own window). A log written before it said where:
    /// another tab of this inbox, another surface after this inbox started, or
    /// before it started, that the log does not say where.
    fn words(self, at: Option<Timestamp>, surface: Option<Surface>) -> String {
        if let Some(surface) = surface {
            return if self.this_tab && surface == Surface::Web {
                "You ended the turn in this tab".to_owned()
            } else {
                format!(
                    "The turn was ended {}",
                    crate::elsewhere::turn_ended_where(Some(surface))
                )
            };
        }
        let words = match (self.by_this_inbox, self.this_tab) {
            (true, true) => "You ended the turn in this tab",
            (true, false) => "The turn was ended in another tab of this inbox",
            (false, _) if at.is_some_and(|at| at.millis() >= self.started_ms) => {
                "The turn was ended outside this inbox (the log does not say where)"
            }
            (false, _) => {
                "The turn was ended before this inbox started (the log does not say where)"
            }
        };
        words.to_owned()
    }
}

/// The answers `result` sent, as labelled lines: each question the person
/// (or a default) answered, its answer in the words every surface uses (a
/// schema's object field by field), and its note.
fn answer_lines(result: &Command) -> Vec<(String, crate::answer::Answered, Option<String>)> {
    let Command::Respond { outcome, .. } = result else {
        return Vec::new();
    };
    let answers = outcome.to_map();
    (outcome.form.questions().iter().enumerate())
        .filter_map(|(index, question)| {
            let answer = answers.get(&question.id)?;
            if answer.is_null() {
                return None;
            }
            let note = (outcome.answers.get(index))
                .and_then(Option::as_ref)
                .and_then(|slot| slot.note.clone());
            Some((
                question.text.clone(),
                crate::answer::Answered::of(answer, question.schema.as_ref()),
                note,
            ))
        })
        .collect()
}

/// What a fork would make: the branch's name, and the first question of the
/// inquiry asked where it starts (if one was asked there).
pub(crate) type ForkPreview = (String, Option<String>);

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
    /// What the person typed went to the assistant all the same (a Reply's
    /// message, sent with the timeout that beat it): nothing to give back.
    pub(crate) sent: bool,
    /// The answer changed an earlier one whose note came back unchanged: the
    /// page asks whether the note still applies, and the answer sent again
    /// from it goes through with the note as it then stands.
    pub(crate) note_asked: bool,
}

impl NotTaken {
    fn invalid(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            stale: false,
            sent: false,
            note_asked: false,
        }
    }

    /// Whether `note`, written for the earlier answer, still applies to the
    /// new `value` ([`Prompt::note_to_confirm`]'s question, in words).
    fn note_question(prompt: &Prompt, value: &serde_json::Value, note: &str) -> Self {
        let was = prompt
            .prefill_value()
            .map_or_else(String::new, |value| answer_words(&value));
        Self {
            message: format!(
                "Your note \"{}\" was written for your earlier answer, {}. Does it still apply to your new answer, {}? Keep it and press Answer again, edit it, or clear it to send the answer without it.",
                for_display_line(note),
                for_display_line(&was),
                for_display_line(&answer_words(value))
            ),
            note_asked: true,
            ..Self::invalid("")
        }
    }
}

/// The person's answer to `prompt` as the page sent it in `fields`, with its
/// note: an answer the question cannot take is refused in words, and a note
/// brought back unchanged beside a changed answer is asked about once (the
/// page sent again carries `note_checked`).
fn answer_input(prompt: &Prompt, shown: At, fields: &Fields) -> Result<Input, NotTaken> {
    let value = value_from(prompt, fields).map_err(NotTaken::invalid)?;
    let note = fields.text("note");
    if let Some(earlier) = prompt.note_to_confirm(&value)
        && fields.get("note_checked").is_none()
        && note.as_deref().map(str::trim) == Some(earlier.trim())
    {
        return Err(NotTaken::note_question(prompt, &value, earlier));
    }
    Ok(Input::from(
        AnswerInput::new(shown, value).with_note(note).reviewed(),
    ))
}

/// The engine's side of the inbox.
pub(crate) struct Queue {
    journal: Desk,
}

impl Queue {
    pub(crate) fn new(journal: Desk) -> Self {
        Self { journal }
    }

    /// How many stream replays the read side has made (one per stream at first
    /// sight): a page served never adds one.
    #[cfg(test)]
    pub(crate) fn replays(&self) -> u64 {
        self.journal.read().replays()
    }

    /// Every inquiry that waits for a person, the newest stream first; `now` is
    /// the wall clock in milliseconds since the Unix epoch (the desk's
    /// [`Desk::waiting`]). One whose time to answer is up no longer waits once
    /// its timeout is recorded (below).
    pub(crate) fn waiting(&mut self, now: u64) -> Result<Vec<Waiting>, AppError> {
        let mut waiting = self.journal.waiting(now)?;
        let mut fired = Vec::new();
        for (n, item) in waiting.iter().enumerate() {
            // The time to answer is up: recorded, so that it stops waiting on
            // every surface (the agent, when it is there, gets its result). One
            // the engine does not time out (not due by its deadline: this clock
            // runs ahead of the log's) still waits.
            if item.timing.due()
                && self.time_out_if_due(&item.stream, &InquiryId::new(&item.inquiry), now, None)?
            {
                fired.push(n);
            }
        }
        for n in fired.into_iter().rev() {
            waiting.remove(n);
        }
        Ok(waiting)
    }

    /// The page of `inquiry` in `stream` at `now` (milliseconds since the Unix
    /// epoch).
    #[cfg(test)]
    pub(crate) fn page(&mut self, stream: &str, inquiry: &str, now: u64) -> Result<Page, AppError> {
        self.page_as(stream, inquiry, now, EndedHere::default())
    }

    /// [`Queue::page`], with what this inbox knows of who ended a turn
    /// (`here`), for a finished inquiry's words.
    pub(crate) fn page_as(
        &mut self,
        stream: &str,
        inquiry: &str,
        now: u64,
        here: EndedHere,
    ) -> Result<Page, AppError> {
        if !self.journal.has_stream(stream)? {
            return Ok(Page::Missing);
        }
        self.journal.catch_up(stream)?;
        let id = InquiryId::new(inquiry);
        self.time_out_if_due(stream, &id, now, None)?;
        let state = self.journal.state(stream)?;
        match state.pending(&id) {
            Some(Command::Prompt(prompt)) => Ok(Page::Prompt(
                Box::new(prompt),
                self.journal.standing(stream, &id, now)?,
            )),
            Some(Command::Review { outcome, step, .. }) => Ok(Page::Review(
                Box::new(outcome),
                At::review(id.clone(), step),
                self.journal.standing(stream, &id, now)?,
            )),
            Some(_) => Ok(Page::Finished(Done::words(
                "This question is for the assistant, not for a person.",
            ))),
            None if state.was_requested(&id) => Ok(Page::Finished(self.result(stream, &id, here)?)),
            None => Ok(Page::Missing),
        }
    }

    /// Who asks `inquiry` of `stream`, for its pages' titles and headings:
    /// its prompts' label (`Assistant` when none, or once it finished) and the
    /// stream's agent, as the read side keeps them.
    pub(crate) fn asker(
        &mut self,
        stream: &str,
        inquiry: &str,
    ) -> Result<crate::pages::Asker, AppError> {
        let Some(view) = self.journal.view(stream)? else {
            return Ok(crate::pages::Asker {
                label: "Assistant".to_owned(),
                origin: None,
            });
        };
        let label = (view.open().iter())
            .find(|open| open.inquiry.as_str() == inquiry)
            .and_then(|open| open.label.clone());
        Ok(crate::pages::Asker {
            label: label.unwrap_or_else(|| "Assistant".to_owned()),
            origin: view.agent().cloned(),
        })
    }

    /// The history of `stream`: what it is, its forks, and its inquiries and
    /// agents in order ([`Desk::stories`]); `None` when there is no such
    /// stream.
    pub(crate) fn history(
        &mut self,
        stream: &str,
    ) -> Result<Option<(History, Vec<askuser_app::Entry>)>, AppError> {
        let Some(history) = self.journal.history(stream, 0)? else {
            return Ok(None);
        };
        let entries = self.journal.stories(stream)?.unwrap_or_default();
        Ok(Some((history, entries)))
    }

    /// The history of `stream` as its page tells it: [`Queue::history`], with
    /// which of its inquiries nobody may have heard ([`Desk::unheard_by_inquiry`]).
    pub(crate) fn history_told(
        &mut self,
        stream: &str,
    ) -> Result<Option<(History, Vec<askuser_app::Entry>, UnheardOf)>, AppError> {
        let Some((history, entries)) = self.history(stream)? else {
            return Ok(None);
        };
        let unheard = self.journal.unheard_by_inquiry(stream)?;
        Ok(Some((history, entries, unheard)))
    }

    /// What forking `stream` after its event `at` would make: the branch's
    /// name and the first question of the inquiry asked at `at`, if one was;
    /// `Err` with why in words when no fork can be made there; `None` when
    /// there is no such stream.
    pub(crate) fn fork_preview(
        &mut self,
        stream: &StreamName,
        at: u64,
    ) -> Result<Option<Result<ForkPreview, String>>, AppError> {
        let Some((history, entries)) = self.history(stream)? else {
            return Ok(None);
        };
        if at <= history.info.floor || at > history.info.head {
            return Ok(Some(Err(format!(
                "there is no event #{at} to answer again from in this stream; go back to its history and choose again"
            ))));
        }
        let question = entries.iter().find_map(|entry| match entry {
            askuser_app::Entry::Inquiry(story) if story.asked.seq == at => {
                story.questions.first().cloned()
            }
            _ => None,
        });
        Ok(Some(
            self.journal
                .fork_name_for(stream, at)?
                .map(|name| (name.to_string(), question)),
        ))
    }

    /// Every inquiry that ended since `since` (the start of the person's day),
    /// by agent ([`Desk::ended_since`]).
    pub(crate) fn ended_since(
        &mut self,
        since: askuser_app::log::Timestamp,
    ) -> Result<Vec<askuser_app::AgentDay>, AppError> {
        self.journal.ended_since(since)
    }

    /// Of each stream in `days`, the inquiries whose agent may not have got
    /// their answers ([`Desk::unheard_by_inquiry`]: one read of each stream).
    pub(crate) fn unheard_of(
        &mut self,
        days: &[askuser_app::AgentDay],
    ) -> Result<crate::today::UnheardBy, AppError> {
        days.iter()
            .map(|day| {
                Ok((
                    day.stream.clone(),
                    self.journal.unheard_by_inquiry(&day.stream)?,
                ))
            })
            .collect()
    }

    /// Forks `stream` after its event `at` ([`Desk::fork_after`]): the new
    /// stream's name and its open inquiry, if any.
    pub(crate) fn fork(
        &mut self,
        stream: &StreamName,
        at: u64,
    ) -> Result<Result<(StreamName, Option<String>), String>, AppError> {
        Ok(self
            .journal
            .fork_after(stream, at)?
            .map(|(name, open)| (name, open.map(|id| id.to_string()))))
    }

    /// What was asked and answered in `stream`, in sentences; `None` when there
    /// is no such stream.
    pub(crate) fn transcript(&self, stream: &str) -> Result<Option<String>, AppError> {
        self.journal.transcript(stream)
    }

    /// Every event `stream` keeps, as JSON lines; `None` when there is no such
    /// stream.
    pub(crate) fn export(&self, stream: &str) -> Result<Option<Vec<u8>>, AppError> {
        self.journal.export(stream)
    }

    /// The log's watcher (what keeps the pages live).
    pub(crate) fn watcher(&self) -> Result<askuser_app::watch::Watcher, AppError> {
        self.journal.watcher()
    }

    /// What the model got for a finished inquiry, in words: from what the engine's
    /// state keeps of it (`State::result`, the last inquiries of the stream to
    /// finish), never a replay.
    fn result(&mut self, stream: &str, id: &InquiryId, here: EndedHere) -> Result<Done, AppError> {
        self.journal.view(stream)?;
        let state = self.journal.state(stream)?;
        let Some((result, call)) = (state.outcome(id)).and_then(|record| {
            let call = record.call().and_then(askuser_app::parse_recorded);
            Some((record.command(id)?, call))
        }) else {
            return Ok(Done::words("This question is finished."));
        };
        let got = call
            .as_ref()
            .and_then(|call| call.tool_result(&result))
            .map(|result| match result {
                askuser_dialects::ToolResult::Success(value) => value.to_string(),
                askuser_dialects::ToolResult::Error(text)
                | askuser_dialects::ToolResult::Text(text) => text,
            })
            .unwrap_or_default();
        // Kept for the agent: a restarted `serve` or the same MCP call made
        // again is given it (`State::owed`).
        let kept = (state.outcome(id)).is_some_and(askuser_core::FinishedInquiry::owed);
        let by_timeout =
            (state.outcome(id)).and_then(askuser_core::FinishedInquiry::turn_ended_by_timeout);
        let ended_in = (state.outcome(id)).and_then(askuser_core::FinishedInquiry::turn_ended_in);
        let nobody = self.journal.unheard(stream, id)?;
        let words_nobody = nobody.clone();
        let at = self.journal.last_recorded_at(stream, id)?;
        let ended_by = here.words(at, ended_in);
        let words = DoneWords {
            nobody,
            kept,
            by_timeout,
            ended_by,
        };
        Ok(Done {
            text: done_words(&result, &got, words),
            answers: answer_lines(&result),
            when: at.map(|at| (at, when_words(&result, words_nobody.as_ref()))),
        })
    }

    /// At the engine's deadline (the one every surface counts to), the time to
    /// answer `id` is up: the timeout is recorded, as the waiting host would
    /// record it (the first to record it wins), so that the page stops taking
    /// answers and says what the agent was sent, even with no host to fire it.
    /// Whether it was recorded now. `message`: a Reply's message the person
    /// sent as the time ran out, kept for the model where the timeout replies.
    fn time_out_if_due(
        &mut self,
        stream: &str,
        id: &InquiryId,
        now: u64,
        message: Option<String>,
    ) -> Result<bool, AppError> {
        let due = self.journal.view(stream)?.is_some_and(|view| {
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
        // Any surface showing the question may fire it; the engine takes the
        // first one at or after its deadline (`Input::TimeOut`).
        let input = Input::TimeOut {
            inquiry: id.clone(),
            message,
            fired_at_ms: now,
        };
        Ok(self.journal.input(stream, &input)?.refusal().is_none())
    }

    /// What `inquiry` of `stream` shows now, after catching up with the log;
    /// `None` when it does not wait for a person.
    pub(crate) fn current_at(
        &mut self,
        stream: &str,
        inquiry: &str,
    ) -> Result<Option<At>, AppError> {
        if !self.journal.has_stream(stream)? {
            return Ok(None);
        }
        self.journal.catch_up(stream)?;
        Ok(self.journal.state(stream)?.at(&InquiryId::new(inquiry)))
    }

    /// What moved `shown`'s inquiry on since a page showed it, in words
    /// ([`elsewhere::moved`], or [`elsewhere::ended`] when it ended); `None` when
    /// it still shows that. Read after [`Queue::page`] caught the stream up.
    pub(crate) fn moved_words(
        &mut self,
        stream: &str,
        shown: &At,
    ) -> Result<Option<String>, AppError> {
        if !self.journal.has_stream(stream)? {
            return Ok(None);
        }
        let state = self.journal.state(stream)?;
        Ok(match state.at(&shown.inquiry) {
            Some(current) if current == *shown => None,
            Some(current) => {
                let (happened, asks) = moved_on(state, shown, &current);
                let review = shown.question.is_none();
                Some(elsewhere::moved(happened.as_ref(), review, asks.as_deref()))
            }
            None if state.was_requested(&shown.inquiry) => {
                Some(elsewhere::ended(state.outcome(&shown.inquiry)))
            }
            None => None,
        })
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
        self.journal.catch_up(stream)?;
        let id = InquiryId::new(inquiry);
        // A Reply's message goes with the timeout that beats it, where the
        // timeout sends a reply (it ends the turn otherwise, and the page
        // gives the message back to copy).
        let message = fields.text("message").filter(|_| act == Act::Reply);
        if self.time_out_if_due(stream, &id, now, message.clone())? {
            let sent = message.is_some()
                && (self.journal.state(stream)?.outcome(&id))
                    .and_then(|record| record.command(&id))
                    .is_some_and(|command| {
                        matches!(command, Command::Respond { outcome, .. } if outcome.message.is_some())
                    });
            return Ok(Err(if sent {
                NotTaken {
                    message: TIME_RAN_OUT_MESSAGE_SENT.to_owned(),
                    stale: false,
                    sent: true,
                    note_asked: false,
                }
            } else {
                NotTaken::invalid(TIME_RAN_OUT)
            }));
        }
        let state = self.journal.state(stream)?;
        let Some(current) = state.at(&id) else {
            let finished = match (act, state.result(&id)) {
                (Act::EndTurn, Some(Command::EndTurn { .. })) => turn_already_ended(
                    (state.outcome(&id)).and_then(askuser_core::FinishedInquiry::turn_ended_in),
                ),
                _ => FINISHED_ELSEWHERE.to_owned(),
            };
            return Ok(Err(NotTaken::invalid(finished)));
        };
        let typed =
            (crate::form::typed_text(fields).0.iter()).any(|(_, text)| !text.trim().is_empty());
        let needs_at = act != Act::EndTurn;
        let shown = match at {
            Some(at) if at.inquiry == id => at,
            _ if !needs_at => current.clone(),
            _ => {
                return Ok(Err(NotTaken {
                    message: "This page was out of date; here is the question as it stands. Nothing you sent was recorded.".into(),
                    stale: true,
                    sent: false,
                    note_asked: false,
                }));
            }
        };
        if needs_at && shown != current {
            return Ok(Err(NotTaken {
                message: stale_words(state, &shown, &current, typed),
                stale: true,
                sent: false,
                note_asked: false,
            }));
        }
        let input = match act {
            Act::Answer => {
                let Some(Command::Prompt(prompt)) = state.pending(&id) else {
                    return Ok(Err(NotTaken::invalid(
                        "this question is no longer waiting for an answer",
                    )));
                };
                match answer_input(&prompt, shown, fields) {
                    Ok(input) => input,
                    Err(not_taken) => return Ok(Err(not_taken)),
                }
            }
            Act::Back => Input::Back(shown),
            Act::Reply => Input::Reply {
                at: shown,
                message: fields.text("message"),
            },
            Act::EndTurn => Input::EndTurn {
                inquiry: id,
                surface: Some(Surface::Web),
            },
            Act::Submit => Input::Submit(shown),
            Act::Change => Input::Change {
                at: shown,
                question: fields.get("change").unwrap_or_default().to_owned(),
            },
        };
        // The desk's road: what it records reaches the read side too.
        match self.journal.input(stream, &input)?.taken {
            Taken::Recorded { commands, .. } => Ok(match commands.first() {
                Some(Command::InvalidAnswer { message, .. }) => {
                    Err(NotTaken::invalid(message.clone()))
                }
                _ => Ok(()),
            }),
            Taken::Refused(refusal) => Ok(Err(match refusal {
                Refusal::Stale { shown, current, .. } => NotTaken {
                    message: stale_words(self.journal.state(stream)?, &shown, &current, typed),
                    stale: true,
                    sent: false,
                    note_asked: false,
                },
                Refusal::InquiryFinished { .. } => NotTaken::invalid(FINISHED_ELSEWHERE),
                refusal => NotTaken::invalid(refusal.to_string()),
            })),
        }
    }
}

/// The start of the sentence that says when an inquiry finished, by what the
/// assistant got (`nobody`: nobody waited for it).
fn when_words(result: &Command, nobody: Option<&Unheard>) -> &'static str {
    let ending = Ending::of(result);
    match (nobody, ending) {
        (_, Some(ending)) if ending.sends_nothing() => "The turn ended at",
        (Some(_), _) | (_, None) => "It finished at",
        (None, Some(Ending::Failed | Ending::Rejected)) => "The assistant got the error at",
        (None, _) if answer_lines(result).is_empty() => "The assistant got it at",
        (None, _) => "The assistant got them at",
    }
}

/// What a finished inquiry's page says beside its result: whether anybody
/// waited for it (`nobody`: a fork, or an agent that had stopped), whether the
/// result is `kept` for its agent (owed: given to it when it comes back), the
/// time to answer that ended the turn (`by_timeout`: its length), and who
/// ended it otherwise (`ended_by`, [`EndedHere::words`]).
#[derive(Clone)]
struct DoneWords {
    nobody: Option<Unheard>,
    kept: bool,
    by_timeout: Option<u64>,
    ended_by: String,
}

/// What a finished inquiry's page says happened, from its result command (the
/// answers it sent follow as lines: see [`answer_lines`]), the tool error's
/// text when it failed (`error_text`), and what else is known of it
/// ([`DoneWords`]).
///
/// A turn the time to answer ended says so, not that the person ended it.
fn done_words(result: &Command, error_text: &str, words: DoneWords) -> String {
    let DoneWords {
        nobody,
        kept,
        by_timeout,
        ended_by,
    } = words;
    let Some(ending) = Ending::of(result) else {
        return "This question is finished.".to_owned();
    };
    let what = ending_words(ending, result, by_timeout, ended_by);
    let ended = ending.sends_nothing();
    let error = matches!(ending, Ending::Failed | Ending::Rejected);
    // The answers themselves follow the sentence, a line each.
    let these = if answer_lines(result).is_empty() {
        "no answers."
    } else {
        "these answers:"
    };
    // A turn ended or a failure sends the same whether or not the call was
    // still waited on.
    let nobody = nobody.filter(|n| !(matches!(n, Unheard::Unsure { .. }) && (ended || error)));
    match (nobody, ended) {
        (None, true) => format!("{what}; the assistant got no reply."),
        (None, false) if error => format!("{what}; the assistant got the error: {error_text}"),
        (None, false) => format!("{what}; the assistant got {these}"),
        (Some(Unheard::Fork), true) => {
            format!("{what}. This is a fork: nobody waits on it, so nothing was sent.")
        }
        (Some(Unheard::Fork), false) => format!(
            "{what} in a fork. Nobody waits on a fork, so no agent got this; the fork's history keeps {these}"
        ),
        (Some(Unheard::Unsure { host }), _) => {
            let host = for_display_line(&host);
            let answers = if these == "no answers." {
                ""
            } else {
                " The answers sent:"
            };
            format!(
                "{what}; sent to the call {host} was waiting on. {host} does not tell askuser when its person stops a call (Esc): if this one was stopped, {} kept, and the assistant is given {} when it asks the same again.{answers}",
                kept_what(these),
                if answers.is_empty() { "it" } else { "them" },
            )
        }
        (Some(Unheard::MovedOn(after_ms)), _) => format!(
            "{what}. The agent had stopped waiting: it moved on to a new call {} into this one; {} kept and given to it when it makes the same call again.",
            crate::pages::duration_words(after_ms),
            kept_what(these),
        ),
        (Some(Unheard::StoppedWaiting { disconnected }), _) => format!(
            "{what}. The agent had stopped waiting: its host {} the call; {} kept and given to it when it makes the same call again.",
            if disconnected {
                "went away during"
            } else {
                "cancelled"
            },
            kept_what(these),
        ),
        (Some(stopped @ Unheard::Stopped(_)), true) => {
            format!("{what}. {}; nothing will be sent.", sentence(&stopped))
        }
        (Some(stopped @ Unheard::Stopped(_)), false) if kept => format!(
            "{what}. {}; {} kept and given to it when it comes back on this stream (askuser serve started again, or the same tool call made again).",
            sentence(&stopped),
            kept_what(these),
        ),
        (Some(stopped @ Unheard::Stopped(_)), false) => format!(
            "{what}. {} and does not come back for answers it missed; nothing will be sent. The stream's history keeps {these}",
            sentence(&stopped)
        ),
    }
}

/// How an inquiry ended, as a Done page's sentence begins: from its `ending`,
/// its `result` command, the time to answer that ended the turn (`by_timeout`)
/// and who ended it otherwise (`ended_by`).
fn ending_words(
    ending: Ending,
    result: &Command,
    by_timeout: Option<u64>,
    ended_by: String,
) -> String {
    let outcome = match result {
        Command::Respond { outcome, .. } => Some(outcome),
        _ => None,
    };
    match ending {
        Ending::TurnEnded => match by_timeout {
            Some(after_ms) => format!(
                "The time to answer ({}) ran out and ended the turn",
                crate::pages::duration_words(after_ms)
            ),
            None => ended_by,
        },
        Ending::Answered => "Answered".to_owned(),
        Ending::Replied => match outcome.and_then(|outcome| outcome.message.as_ref()) {
            Some(message) => format!(
                "You replied instead, with the message “{}”",
                crate::elsewhere::message_words(message)
            ),
            None => "You replied instead, without a message".to_owned(),
        },
        Ending::TimedOut => {
            let after = crate::pages::duration_words(
                outcome.and_then(Outcome::timed_out_after_ms).unwrap_or(0),
            );
            match outcome.and_then(|outcome| outcome.message.as_ref()) {
                Some(message) => format!(
                    "The time to answer ({after}) ran out, with your message “{}”",
                    crate::elsewhere::message_words(message)
                ),
                None => format!("The time to answer ({after}) ran out"),
            }
        }
        Ending::Failed | Ending::Rejected => "This question ended without answers".to_owned(),
    }
}

/// What is kept for an agent that did not get it: its result, or the answers
/// (`these`: how the answers are introduced, "no answers." when there are none).
fn kept_what(these: &str) -> &'static str {
    if these == "no answers." {
        "the result is"
    } else {
        "your answers are"
    }
}

/// That the agent stopped, as a sentence's start: the application layer's one
/// wording ([`askuser_app::Liveness::words`]), capitalised.
fn sentence(unheard: &Unheard) -> String {
    let words = unheard
        .liveness()
        .and_then(askuser_app::Liveness::words)
        .unwrap_or_default();
    let mut chars = words.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_uppercase().chain(chars).collect()
    })
}

/// What a page says when the time to answer ran out as the person acted.
const TIME_RAN_OUT: &str =
    "The time to answer ran out before this arrived; nothing you sent was recorded";

/// What a page says when the time to answer ran out as a Reply arrived, and
/// the timeout took its message.
const TIME_RAN_OUT_MESSAGE_SENT: &str =
    "The time to answer ran out as this arrived; your message went to the assistant with it";

/// What End Turn on a question whose turn was already ended says: where it
/// was ended (`surface`), when the log says.
fn turn_already_ended(surface: Option<Surface>) -> String {
    let there = match surface {
        Some(Surface::Web) => "in the web inbox (this tab or another)",
        Some(surface) => surface.words(),
        None => "(here, in another tab or in the terminal)",
    };
    format!("The turn was already ended {there}; nothing more was sent")
}

/// What a page says when its inquiry finished while it was open (another surface
/// finished it, or this page was sent twice: the log cannot tell which).
const FINISHED_ELSEWHERE: &str = "This question was already finished (here, in another tab or in the terminal) before this arrived; nothing you sent now was recorded";

/// What changed while a page was open, in words (`typed`: the person typed
/// some text there): what another surface did to what it showed (the engine's [`Happened::since_shown`], worded by
/// [`elsewhere::stale`]), what shows now, and that nothing was recorded.
fn stale_words(state: &State, shown: &At, current: &At, typed: bool) -> String {
    let (happened, asks) = moved_on(state, shown, current);
    elsewhere::stale(
        happened.as_ref(),
        shown.question.is_none(),
        asks.as_deref(),
        typed,
    )
}

/// What moved an inquiry on from `shown` to `current` ([`Happened::since_shown`]),
/// and the question it asks now (`None`: the review).
fn moved_on(state: &State, shown: &At, current: &At) -> (Option<Happened>, Option<String>) {
    let happened = Happened::since_shown(state, shown, current);
    let asks = match state.pending(&current.inquiry) {
        Some(Command::Prompt(prompt)) => Some(prompt.question().text.clone()),
        _ => None,
    };
    (happened, asks)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use askuser_app::log::{Log, ManualClock, MemLog, Session, Timestamp};
    use askuser_core::{AgentOrigin, Input, Request, parse_form};
    use serde_json::json;

    use super::*;

    fn origin() -> AgentOrigin {
        askuser_testkit::build::agent("Claude Code")
    }

    /// A stream `s` whose agent attached and asked one yes/no question.
    fn asked(log: &Arc<dyn Log>) {
        let mut session = Session::open(Arc::clone(log), "s").unwrap();
        session.handle(&Input::Attach(origin())).unwrap();
        let form = parse_form(&json!({"questions": [
            {"id": "ok", "text": "Deploy now?", "answer_type": "boolean"}]}))
        .unwrap();
        session
            .handle(&Input::Ask(Request {
                inquiry: InquiryId::new("c1"),
                form: form.form().clone(),
                policy: askuser_core::Policy::default(),
                // As `askuser serve` asks: its result is kept for it.
                origin: askuser_core::Origin {
                    resumes: true,
                    ..askuser_core::Origin::default()
                },
                call: None,
            }))
            .unwrap();
    }

    fn answer(queue: &mut Queue, stream: &str) -> String {
        let at = queue.current_at(stream, "c1").unwrap();
        let fields = Fields(vec![("answer".to_owned(), "true".to_owned())]);
        // A one-question form is sent with its answer: no review.
        queue
            .act(stream, "c1", at, Act::Answer, &fields, 0)
            .unwrap()
            .unwrap();
        match queue.page(stream, "c1", 0).unwrap() {
            Page::Finished(done) => done.text,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn the_inbox_says_who_waits_and_answering_a_gone_agent_or_a_fork_says_so() {
        let clock = ManualClock::new(Timestamp(1_000_000));
        let log: Arc<dyn Log> = Arc::new(MemLog::new().with_clock(clock.clone()));
        asked(&log);
        log.fork("s", 2, "s.fork-2").unwrap();
        let ttl = std::time::Duration::from_secs(6);
        log.renew_lease("s", "laptop:1:1", &origin(), ttl).unwrap();
        let mut queue = Queue::new(Desk::new(Arc::clone(&log)));
        let seen = |queue: &mut Queue| -> Vec<(String, Option<String>, Option<String>)> {
            (queue.waiting(0).unwrap().into_iter())
                .map(|w| (w.stream, w.origin.map(|o| o.line()), w.liveness.words()))
                .collect()
        };
        let line = Some("Claude Code · billing-api · laptop".to_owned());
        assert_eq!(
            seen(&mut queue),
            [
                ("s".to_owned(), line.clone(), Some("waiting now".to_owned())),
                (
                    "s.fork-2".to_owned(),
                    line.clone(),
                    Some("a fork: nobody waits".to_owned())
                ),
            ]
        );
        clock.advance(6_000 + 180_000);
        assert_eq!(
            seen(&mut queue)[0],
            (
                "s".to_owned(),
                line,
                Some("the agent stopped 3 min ago".to_owned())
            )
        );
        assert_eq!(
            answer(&mut queue, "s"),
            "Answered. The agent stopped 3 min ago; your answers are kept and given to it when it comes back on this stream (askuser serve started again, or the same tool call made again)."
        );
        assert_eq!(
            answer(&mut queue, "s.fork-2"),
            "Answered in a fork. Nobody waits on a fork, so no agent got this; the fork's history keeps these answers:"
        );
    }
}
