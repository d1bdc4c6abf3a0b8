//! Commands: the engine's outputs, telling an adapter what to do next.

use std::sync::Arc;

use serde_json::{Map, Value};

use crate::answer::Answer;
use crate::error::{AnswerError, Problem};
use crate::event::{AnsweredBy, CancelReason, InquiryId};
use crate::form::Question;
use crate::input::At;
use crate::valid_form::ValidForm;

/// What an adapter must do next.
///
/// Serialized (to compare what a replay re-derives with what a host recorded,
/// across processes) as a JSON object tagged by `"type"`, stable across
/// versions: `prompt` (the [`Prompt`]'s fields beside the tag: `inquiry`,
/// `form`, `index`, `progress` (`{"n","m"}` or `null`), `prefill`,
/// `prefill_note`, `can_back`, `label`, `step`), `ask_assistant` (`inquiry`,
/// `question`, `schema`), `review` (`inquiry`, `outcome`, `step`), `respond`
/// (`inquiry`, `outcome`), `fail` (`inquiry`, `reason`, `message`),
/// `end_turn` (`inquiry`), `reject` (`inquiry`, `tool`, `problems`),
/// `invalid_answer` (`inquiry`, `question`, `message`, `reason`). An
/// [`Outcome`] is `{"form","answers","status","message"?}`; a form is as the
/// tool call's arguments read ([`Form`](crate::Form)). Reading one back checks
/// that a prompt's question and prefill fit its form.
///
/// ```
/// use askuser_core::{Command, InquiryId};
/// use serde_json::json;
///
/// let ended = Command::EndTurn { inquiry: InquiryId::new("c1") };
/// assert_eq!(serde_json::to_value(&ended).unwrap(), json!({"type": "end_turn", "inquiry": "c1"}));
/// assert_eq!(serde_json::from_value::<Command>(json!({"type": "end_turn", "inquiry": "c1"})).unwrap(), ended);
/// ```
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Command {
    /// Show a question to the person.
    Prompt(Prompt),
    /// Ask the assistant to answer a question (structured output against `schema`).
    AskAssistant {
        /// The inquiry.
        inquiry: InquiryId,
        /// The question's id.
        question: String,
        /// The JSON Schema the answer must satisfy.
        schema: Value,
    },
    /// Show the person every answer before it is sent (the surface asked for a
    /// review with [`Event::ReviewWanted`](crate::Event::ReviewWanted)): then
    /// `Submitted` sends them, Back changes the last one, a Reply or End Turn ends
    /// the form with them all recorded.
    Review {
        /// The inquiry.
        inquiry: InquiryId,
        /// Every answer, as it would be sent (status `completed`).
        outcome: Outcome,
        /// The inquiry's step: submit, go Back or Reply from this review with
        /// [`At::review`](crate::At::review)`(inquiry, step)`.
        step: u32,
    },
    /// Respond to the model with the outcome (answers, or a Reply's cancel marker).
    Respond {
        /// The inquiry.
        inquiry: InquiryId,
        /// What was answered.
        outcome: Outcome,
    },
    /// Respond to the model with a tool error: the inquiry could not be asked.
    Fail {
        /// The inquiry.
        inquiry: InquiryId,
        /// Why, as recorded.
        reason: CancelReason,
        /// The text for the model, telling it what (not) to do next.
        message: String,
    },
    /// End the turn: no tool result is sent.
    EndTurn {
        /// The inquiry.
        inquiry: InquiryId,
    },
    /// The submitted form is invalid: respond to the model with every problem.
    Reject {
        /// The inquiry.
        inquiry: InquiryId,
        /// The tool's name as the model knows it.
        tool: String,
        /// Every problem, each with the path of its field.
        problems: Vec<Problem>,
    },
    /// The answer did not fit; tell whoever answered. The same prompt follows.
    ///
    /// Each refused answer counts: after
    /// [`MAX_REFUSED_ANSWERS`](crate::limits::MAX_REFUSED_ANSWERS) in a row to one
    /// question the inquiry fails ([`Command::Fail`] with
    /// [`CancelReason::TooManyInvalidAnswers`]) instead of asking again.
    InvalidAnswer {
        /// The inquiry.
        inquiry: InquiryId,
        /// The question's id.
        question: String,
        /// Why, in words for a person (the text of `reason`).
        message: String,
        /// Why, typed: what a surface matches on to mark the field. `None` for an
        /// answer refused in a record written before reasons were recorded.
        reason: Option<AnswerError>,
    },
}

/// A question to show, with everything needed to render it (serialized as a
/// [`Command::Prompt`] is, without its tag).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(try_from = "PromptRecord")]
pub struct Prompt {
    /// The inquiry.
    pub inquiry: InquiryId,
    /// The form the question belongs to.
    pub form: ValidForm,
    /// The question's index in the form.
    pub index: usize,
    /// `[N/M]` progress; `None` when the form has a single question.
    pub progress: Option<Progress>,
    /// The value to prefill: the earlier answer after Back, else the default.
    pub prefill: Option<Answer>,
    /// The note to prefill: the one written beside the earlier answer, after Back.
    pub prefill_note: Option<String>,
    /// Whether Back is offered (an earlier question was answered by the person).
    pub can_back: bool,
    /// The "who's asking" label.
    pub label: Option<Arc<str>>,
    /// The inquiry's step when this prompt was made (see [`At`]).
    pub step: u32,
}

impl Prompt {
    /// The question to show.
    pub fn question(&self) -> &Question {
        self.form.question(self.index)
    }

    /// What this prompt shows, to answer it (or go Back or Reply from it) with.
    pub fn at(&self) -> At {
        At::question(self.inquiry.clone(), self.question().id.clone(), self.step)
    }

    /// The prefill as JSON.
    pub fn prefill_value(&self) -> Option<Value> {
        self.prefill.as_ref().map(|a| a.to_value(self.question()))
    }

    /// The note written beside the earlier answer, when `value` answers this
    /// question asked again (Back, or a change from the review) with another
    /// answer than that one: a note about the old answer may not fit the new
    /// one, so every surface asks the person whether it still applies (keep
    /// it, edit it, or drop it) before sending it. `None` when there was no
    /// note, or the answer is the same.
    ///
    /// ```
    /// # use askuser_core::{Answer, Prompt};
    /// # fn check(mut prompt: Prompt) {
    /// prompt.prefill = Some(Answer::Text("stable".into()));
    /// prompt.prefill_note = Some("stable is fine, changelog merged".into());
    /// assert_eq!(prompt.note_to_confirm(&"beta".into()), Some("stable is fine, changelog merged"));
    /// assert_eq!(prompt.note_to_confirm(&"stable".into()), None);
    /// # }
    /// ```
    pub fn note_to_confirm(&self, value: &Value) -> Option<&str> {
        let note = self.prefill_note.as_deref()?;
        (self.prefill_value().as_ref() != Some(value)).then_some(note)
    }
}

/// The serialized shape of [`Prompt`], checked before use.
#[derive(serde::Deserialize)]
struct PromptRecord {
    inquiry: InquiryId,
    form: ValidForm,
    index: usize,
    progress: Option<Progress>,
    prefill: Option<Answer>,
    prefill_note: Option<String>,
    can_back: bool,
    label: Option<Arc<str>>,
    step: u32,
}

impl TryFrom<PromptRecord> for Prompt {
    type Error = String;

    fn try_from(record: PromptRecord) -> Result<Self, Self::Error> {
        let count = record.form.len();
        if record.index >= count {
            return Err(format!(
                "a prompt for question {} of a form of {count} questions",
                record.index
            ));
        }
        if let Some(prefill) = &record.prefill {
            let value = prefill.to_value(record.form.question(record.index));
            if record.form.convert(record.index, &value).is_none() {
                return Err("a prompt whose prefill does not fit its question".to_owned());
            }
        }
        Ok(Prompt {
            inquiry: record.inquiry,
            form: record.form,
            index: record.index,
            progress: record.progress,
            prefill: record.prefill,
            prefill_note: record.prefill_note,
            can_back: record.can_back,
            label: record.label,
            step: record.step,
        })
    }
}

impl Command {
    /// What a [`Command::Prompt`] or a [`Command::Review`] shows, to act on it
    /// with (an answer, Back, Reply, a submit); `None` for any other command.
    ///
    /// ```
    /// use askuser_core::{At, Command, InquiryId, Outcome, OutcomeStatus, parse_form};
    /// use serde_json::json;
    ///
    /// let form = parse_form(&json!({"questions": [
    ///     {"id": "ok", "text": "Deploy?", "answer_type": "boolean"}]})).unwrap();
    /// let review = Command::Review {
    ///     inquiry: InquiryId::new("c1"),
    ///     outcome: Outcome { form, answers: vec![None].into(), status: OutcomeStatus::Completed, message: None },
    ///     step: 2,
    /// };
    /// assert_eq!(review.at(), Some(At::review(InquiryId::new("c1"), 2)));
    /// ```
    pub fn at(&self) -> Option<At> {
        match self {
            Command::Prompt(prompt) => Some(prompt.at()),
            Command::Review { inquiry, step, .. } => Some(At::review(inquiry.clone(), *step)),
            _ => None,
        }
    }
}

/// `[N/M]`: question `n` (1-based position in the form) of `m`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Progress {
    /// The question's 1-based position in the form.
    pub n: usize,
    /// How many questions the form has.
    pub m: usize,
}

impl std::fmt::Display for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "[{}/{}]", self.n, self.m)
    }
}

/// An answer with who gave it.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Slot {
    /// The answer.
    pub answer: Answer,
    /// Who gave it.
    pub by: AnsweredBy,
    /// A note the person wrote beside the answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// How an inquiry ended with a response to the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OutcomeStatus {
    /// Every asked question was answered.
    Completed,
    /// The person chose Reply; the answers are those collected so far.
    Cancelled,
    /// The person did not answer within the policy's timeout: the answers given so
    /// far, plus those the timeout filled (answered by [`AnsweredBy::Timeout`]).
    TimedOut {
        /// The time limit that passed, in milliseconds.
        after_ms: u64,
    },
}

/// The answers of a finished inquiry, in form order.
///
/// Serialized (in a [`State`](crate::State)'s snapshot, see
/// [`FinishedInquiry`](crate::FinishedInquiry)) with its form; reading one back
/// checks that every answer fits its question.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(try_from = "OutcomeRecord")]
pub struct Outcome {
    /// The form.
    pub form: ValidForm,
    /// One slot per question: `None` for a skipped (or, on Reply, unanswered)
    /// question. Shared, not copied, between the command that sends them and the
    /// state's record of the finished inquiry ([`crate::State::outcome`]).
    pub answers: Arc<[Option<Slot>]>,
    /// Completed, cancelled by a Reply, or timed out.
    pub status: OutcomeStatus,
    /// With a Reply: the message the person typed for the model, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// The serialized shape of [`Outcome`], checked before use.
#[derive(serde::Deserialize)]
struct OutcomeRecord {
    form: ValidForm,
    answers: Vec<Option<Slot>>,
    status: OutcomeStatus,
    #[serde(default)]
    message: Option<String>,
}

impl TryFrom<OutcomeRecord> for Outcome {
    type Error = String;

    fn try_from(record: OutcomeRecord) -> Result<Self, Self::Error> {
        let count = record.form.len();
        if record.answers.len() != count {
            return Err(format!(
                "inconsistent outcome: {} answer slots for a form of {count} questions",
                record.answers.len()
            ));
        }
        check_answers(&record.form, &record.answers)?;
        Ok(Outcome {
            form: record.form,
            answers: record.answers.into(),
            status: record.status,
            message: record.message,
        })
    }
}

/// Whether every answer in `answers` (one slot per question of `form`, or fewer)
/// fits its question, as a snapshot read back must.
pub(crate) fn check_answers(form: &ValidForm, answers: &[Option<Slot>]) -> Result<(), String> {
    for (index, slot) in answers.iter().enumerate() {
        if let Some(slot) = slot {
            let fits = index < form.len() && {
                let value = slot.answer.to_value(form.question(index));
                form.convert(index, &value).is_some()
            };
            if !fits {
                return Err(format!(
                    "inconsistent inquiry state: the answer to question {index} does not fit it"
                ));
            }
        }
    }
    Ok(())
}

impl Outcome {
    /// Whether the person cancelled with a Reply.
    pub fn is_cancelled(&self) -> bool {
        self.status == OutcomeStatus::Cancelled
    }

    /// The time limit that passed, when the person did not answer in time.
    pub fn timed_out_after_ms(&self) -> Option<u64> {
        match self.status {
            OutcomeStatus::TimedOut { after_ms } => Some(after_ms),
            OutcomeStatus::Completed | OutcomeStatus::Cancelled => None,
        }
    }

    /// Whether the answer to question `index` was filled by the timeout.
    pub fn filled_by_timeout(&self, index: usize) -> bool {
        matches!(
            self.answers.get(index),
            Some(Some(Slot {
                by: AnsweredBy::Timeout,
                ..
            }))
        )
    }

    /// The answer to question `id` as JSON; `None` if there is no such question,
    /// `Some(Value::Null)` if it was skipped or not answered.
    pub fn get(&self, id: &str) -> Option<Value> {
        let index = self.form.index_of(id)?;
        Some(self.value_at(index))
    }

    fn value_at(&self, index: usize) -> Value {
        self.answers
            .get(index)
            .and_then(Option::as_ref)
            .map_or(Value::Null, |slot| {
                slot.answer.to_value(self.form.question(index))
            })
    }

    /// Every question id mapped to its answer or `null`, in form order:
    /// `{"apply": true, "env": "production", "note": null}`.
    pub fn to_map(&self) -> Map<String, Value> {
        self.form
            .questions()
            .iter()
            .enumerate()
            .map(|(i, q)| (q.id.clone(), self.value_at(i)))
            .collect()
    }

    /// Only the answered questions, in form order (a Reply's `answered` map).
    pub fn answered_map(&self) -> Map<String, Value> {
        self.map_where(|slot| slot.is_some())
    }

    fn map_where(&self, keep: impl Fn(Option<&Slot>) -> bool) -> Map<String, Value> {
        self.form
            .questions()
            .iter()
            .enumerate()
            .filter(|(i, _)| keep(self.answers.get(*i).and_then(Option::as_ref)))
            .map(|(i, q)| (q.id.clone(), self.value_at(i)))
            .collect()
    }

    /// The `jp-form` result: the full map when completed,
    /// `{"cancelled": true, "answered": {...}}` after a Reply (with the Reply's
    /// `message` when the person typed one), and after a timeout
    /// `{"timed_out": true, "answered": {...by someone...}, "filled_by_timeout":
    /// {...}}` (a host adds the words for the model).
    pub fn to_json(&self) -> Value {
        match self.status {
            OutcomeStatus::Completed => Value::Object(self.to_map()),
            OutcomeStatus::Cancelled => {
                let mut map = Map::new();
                map.insert("cancelled".into(), Value::Bool(true));
                map.insert("answered".into(), Value::Object(self.answered_map()));
                let typed = self.message.as_ref().filter(|m| !m.trim().is_empty());
                if let Some(message) = typed {
                    map.insert("message".into(), Value::String(message.clone()));
                }
                Value::Object(map)
            }
            OutcomeStatus::TimedOut { .. } => {
                let mut map = Map::new();
                map.insert("timed_out".into(), Value::Bool(true));
                let answered =
                    self.map_where(|slot| slot.is_some_and(|s| s.by != AnsweredBy::Timeout));
                let filled =
                    self.map_where(|slot| slot.is_some_and(|s| s.by == AnsweredBy::Timeout));
                map.insert("answered".into(), Value::Object(answered));
                map.insert("filled_by_timeout".into(), Value::Object(filled));
                Value::Object(map)
            }
        }
    }
}

/// The model-facing messages of the policy failures.
pub(crate) fn failure_message(reason: &CancelReason, tool: &str, detail: &str) -> String {
    match reason {
        CancelReason::NoPromptBackend => format!(
            "{tool} cannot run because no interactive terminal is available. Do not retry this tool call in this turn; continue without user input or explain what information is missing."
        ),
        CancelReason::AssistantRoutingDenied => format!(
            "{tool} requires a human answer and cannot be routed to the assistant. Do not retry this tool call in this turn."
        ),
        CancelReason::InvalidStaticAnswer => format!(
            "{tool}: the configured answer {detail}. Update the configuration; do not retry."
        ),
        CancelReason::SubagentDenied => format!(
            "{tool} is not available to sub-agents: only the parent conversation can ask the user questions. Do not retry; continue without user input or return what you need to the parent."
        ),
        CancelReason::BackendError => format!(
            "{tool}: the assistant backend failed to answer. Do not retry this tool call in this turn."
        ),
        CancelReason::UserReply => {
            format!("{tool}: the user cancelled the question to reply instead.")
        }
        CancelReason::TooManyInvalidAnswers => format!(
            "{tool}: the question was answered {detail} times in a row with answers that did not fit, so it was given up. Do not retry this tool call in this turn; continue without the answer or ask in plain words."
        ),
        CancelReason::Unknown(name) => {
            format!("{tool} was cancelled ({name}). Do not retry this tool call in this turn.")
        }
    }
}
