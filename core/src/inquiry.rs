//! One open inquiry: its form, policy, answers so far, and the walk forward from the
//! question being asked.

use std::collections::BTreeMap;
use std::num::NonZeroU64;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::answer::{Answer, Picks};

/// The mark of a recommended option, which a timeout picks when the question has
/// no default.
const RECOMMENDED: &str = "(Recommended)";
use crate::command::{Command, Outcome, OutcomeStatus, Progress, Prompt, Slot, failure_message};
use crate::event::{
    AnsweredBy, CancelReason, InquiryId, Origin, Persistence, Policy, Target, ToolCall,
};
use crate::finished::Ending;
use crate::form::AnswerType;
use crate::valid_form::ValidForm;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "OpenRecord")]
pub(crate) struct Open {
    pub(crate) form: ValidForm,
    pub(crate) policy: Policy,
    /// Shared by the inquiries of one origin (the engine never changes it).
    pub(crate) origin: Arc<Origin>,
    pub(crate) label: Option<Arc<str>>,
    /// One slot per question; `None` = skipped or not answered yet.
    pub(crate) answers: Vec<Option<Slot>>,
    /// The question being asked.
    pub(crate) cursor: usize,
    /// Who is being asked.
    pub(crate) awaiting: Target,
    /// The answers Back discarded, by question: each comes back as the prefill when
    /// its question is asked again. Empty until Back first keeps one (most
    /// inquiries never go back, and a replay allocates nothing for them), one
    /// slot per question from then on.
    pub(crate) discarded: Vec<Option<Answer>>,
    /// How many answers in a row to the current question were refused.
    pub(crate) refused: u32,
    /// The tool call the request recorded (the engine does not read it).
    pub(crate) call: Option<Arc<ToolCall>>,
    /// The surface reviews the answers before they are sent
    /// ([`Event::ReviewWanted`](crate::Event::ReviewWanted)): a complete form waits
    /// for [`Event::Submitted`](crate::Event::Submitted), the cursor past the end.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub(crate) review: bool,
    /// The notes Back discarded with their answers, by question: each comes back
    /// beside its prefill, so a note is never lost when its question is asked
    /// again. Empty when no note was discarded.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) discarded_notes: Vec<Option<String>>,
    /// How many times what this inquiry shows has moved (an answer taken or given
    /// ahead, Back, a review wanted): what an [`At`](crate::At) names, so an
    /// action on something shown before a move is told apart.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub(crate) step: u32,
    /// While the person changes one answer from the review
    /// ([`Event::ChangeWanted`](crate::Event::ChangeWanted)): the later
    /// questions they had answered when the review showed. Walking forward, each
    /// that still shows is given the answer Back kept for it again; emptied at
    /// the review, or by a Back (the person then walks by hand).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) give_again: Vec<usize>,
    /// When what it shows was put up: the time, in milliseconds since the Unix
    /// epoch, the log recorded the event that last moved its step (or its
    /// request), kept only when its policy has a timeout (the deadline counts
    /// from it). `None`: not known (applied with no recorded time, or read from
    /// a snapshot taken before the state kept it; a time of 0, the epoch itself,
    /// reads as not known). Non-zero, so that it adds 8 bytes to a table slot,
    /// not 16: four slots (a new table's first allocation) still fit the
    /// allocator's per-thread cache, and the reducer walk costs 0.4 % more
    /// instructions than before it, against 3.8 % with an `Option<u64>`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) shown_at: Option<NonZeroU64>,
}

#[allow(clippy::trivially_copy_pass_by_ref)] // serde's skip_serializing_if passes a reference
fn is_zero(step: &u32) -> bool {
    *step == 0
}

/// The serialized shape of [`Open`], checked before use so that a damaged snapshot
/// is an error rather than an out-of-range index later.
#[derive(Deserialize)]
struct OpenRecord {
    form: ValidForm,
    policy: Policy,
    origin: Arc<Origin>,
    label: Option<Arc<str>>,
    answers: Vec<Option<Slot>>,
    cursor: usize,
    awaiting: Target,
    #[serde(default)]
    discarded: Vec<Option<Answer>>,
    #[serde(default)]
    refused: u32,
    #[serde(default)]
    call: Option<Arc<ToolCall>>,
    #[serde(default)]
    review: bool,
    #[serde(default)]
    discarded_notes: Vec<Option<String>>,
    #[serde(default)]
    step: u32,
    #[serde(default)]
    give_again: Vec<usize>,
    #[serde(default)]
    shown_at: Option<u64>,
}

impl TryFrom<OpenRecord> for Open {
    type Error = String;

    fn try_from(record: OpenRecord) -> Result<Self, Self::Error> {
        let count = record.form.len();
        let discarded_fits = (record.discarded.is_empty() || record.discarded.len() == count)
            && (record.discarded_notes.is_empty() || record.discarded_notes.len() == count)
            && record.give_again.iter().all(|&index| index < count);
        // The cursor is past the last question only while a review is showing.
        let cursor_fits = record.cursor < count || (record.review && record.cursor == count);
        if record.answers.len() != count || !cursor_fits || !discarded_fits {
            return Err(format!(
                "inconsistent inquiry state: {} answer slots and cursor {} for a form of {count} questions",
                record.answers.len(),
                record.cursor
            ));
        }
        crate::command::check_answers(&record.form, &record.answers)?;
        Ok(Open {
            form: record.form,
            policy: record.policy,
            origin: record.origin,
            label: record.label,
            answers: record.answers,
            cursor: record.cursor,
            awaiting: record.awaiting,
            discarded: record.discarded,
            refused: record.refused,
            call: record.call,
            review: record.review,
            discarded_notes: record.discarded_notes,
            step: record.step,
            give_again: record.give_again,
            shown_at: record.shown_at.and_then(NonZeroU64::new),
        })
    }
}

impl Open {
    /// A new inquiry at its first question (call [`Open::advance`] next).
    pub(crate) fn new(
        form: ValidForm,
        policy: Policy,
        label: Option<Arc<str>>,
        origin: Arc<Origin>,
        call: Option<Arc<ToolCall>>,
    ) -> Self {
        let count = form.len();
        Open {
            call,
            form,
            policy,
            origin,
            label,
            // Built from an iterator of known length (one allocation each, no clones).
            answers: (0..count).map(|_| None).collect(),
            cursor: 0,
            awaiting: Target::User,
            discarded: Vec::new(),
            refused: 0,
            review: false,
            discarded_notes: Vec::new(),
            step: 0,
            give_again: Vec::new(),
            shown_at: None,
        }
    }

    /// What it shows moved, by an event the log recorded at `at` (milliseconds
    /// since the Unix epoch; `None`: not known). Kept only under a timeout, the
    /// one use of it, so an inquiry without one costs a test of its policy.
    #[inline]
    pub(crate) fn moved_at(&mut self, at: Option<u64>) {
        if self.policy.timeout.is_some() {
            self.shown_at = at.and_then(NonZeroU64::new);
        }
    }

    /// Its deadline, in milliseconds since the Unix epoch: the policy's
    /// `after_ms` after what it shows was put up; `None` without a timeout or a
    /// known time.
    pub(crate) fn due_at(&self) -> Option<u64> {
        let timeout = self.policy.timeout?;
        Some(self.shown_at?.get().saturating_add(timeout.after_ms))
    }

    /// Whether every question is answered and the review is showing: the
    /// inquiry waits for `Submitted`, Back, a Reply, End Turn or the timeout.
    pub(crate) fn reviewing(&self) -> bool {
        self.review && self.cursor >= self.form.len()
    }

    /// The review of the answers so far (they stay held until sent).
    pub(crate) fn review_command(&self, id: &InquiryId) -> Command {
        Command::Review {
            inquiry: id.clone(),
            outcome: Outcome {
                form: self.form.clone(),
                answers: self.answers.as_slice().into(),
                status: OutcomeStatus::Completed,
                message: None,
            },
            step: self.step,
        }
    }

    /// Takes an answer to the current question and moves past it.
    pub(crate) fn accept(&mut self, slot: Slot) {
        self.answers[self.cursor] = Some(slot);
        self.take_discarded(self.cursor);
        if let Some(note) = self.discarded_notes.get_mut(self.cursor) {
            *note = None;
        }
        self.refused = 0;
        self.cursor += 1;
        self.step = self.step.wrapping_add(1);
    }

    /// Takes the answer Back kept for question `index`, if any.
    fn take_discarded(&mut self, index: usize) -> Option<Answer> {
        self.discarded.get_mut(index)?.take()
    }

    /// The index of the last question the person answered before the current one.
    pub(crate) fn back_target(&self) -> Option<usize> {
        self.answers[..self.cursor].iter().rposition(|slot| {
            matches!(
                slot,
                Some(Slot {
                    by: AnsweredBy::User,
                    ..
                })
            )
        })
    }

    /// The index of `question` when the person answered it (not the
    /// configuration or a remembered answer).
    pub(crate) fn person_answered(&self, question: &str) -> Option<usize> {
        let index = self.form.index_of(question)?;
        self.answers[index]
            .as_ref()
            .is_some_and(|slot| slot.by == AnsweredBy::User)
            .then_some(index)
    }

    /// Goes back to `question`, which the person answered, in one step (as
    /// many Backs as it takes), and starts a change: once it is answered again,
    /// [`Open::advance`] gives the later answers the person had given again,
    /// where their question still shows. Whether the inquiry moved.
    pub(crate) fn change(&mut self, question: &str) -> bool {
        let Some(index) = self.person_answered(question) else {
            return false;
        };
        let later: Vec<usize> = (index + 1..self.answers.len())
            .filter(|&k| {
                self.answers[k]
                    .as_ref()
                    .is_some_and(|slot| slot.by == AnsweredBy::User)
            })
            .collect();
        while self.cursor > index {
            if !self.back() {
                break;
            }
        }
        self.give_again = later;
        true
    }

    /// Goes back to the last question the person answered: its answer and every
    /// later one are kept as prefills. Whether there was one to go back to.
    /// A change under way ([`Open::change`]) ends: the person walks by hand.
    pub(crate) fn back(&mut self) -> bool {
        let Some(target) = self.back_target() else {
            return false;
        };
        self.give_again.clear();
        let count = self.answers.len();
        for index in target..count {
            if let Some(slot) = self.answers[index].take() {
                if self.discarded.len() != count {
                    self.discarded = (0..count).map(|_| None).collect();
                }
                self.discarded[index] = Some(slot.answer);
                if let Some(note) = slot.note {
                    if self.discarded_notes.len() != count {
                        self.discarded_notes = vec![None; count];
                    }
                    self.discarded_notes[index] = Some(note);
                }
            }
        }
        self.cursor = target;
        self.awaiting = Target::User;
        self.refused = 0;
        self.step = self.step.wrapping_add(1);
        true
    }

    /// Walks forward from the cursor: skips gated questions, applies configured and
    /// remembered answers, and stops at the first question someone must answer.
    /// Returns how the inquiry finished, if it did. When `quiet` (a state
    /// replayed for itself alone), the prompt it stops at is not built: only a
    /// result is pushed to `out`, which the finished record takes back out.
    pub(crate) fn advance(
        &mut self,
        id: &InquiryId,
        remembered: &BTreeMap<String, BTreeMap<String, Value>>,
        quiet: bool,
        out: &mut Vec<Command>,
    ) -> Option<Ending> {
        loop {
            let index = self.cursor;
            if index >= self.form.len() {
                self.give_again.clear();
                if self.review {
                    self.awaiting = Target::User;
                    out.push(self.review_command(id));
                    return None;
                }
                out.push(self.respond(id, OutcomeStatus::Completed, None));
                return Some(Ending::Answered);
            }
            let answers = &self.answers;
            let asked = self.form.is_asked_with(index, &|k| {
                answers.get(k)?.as_ref().map(|slot| &slot.answer)
            });
            if !asked {
                self.answers[index] = None;
                self.cursor += 1;
                continue;
            }
            if let Some(slot) = self.automatic_answer(index, remembered) {
                self.accept(slot);
                continue;
            }
            if let Some(slot) = self.kept_answer(index) {
                self.accept(slot);
                continue;
            }
            let policy = &self.policy;
            return match (policy.target, policy.interactive, policy.exclusive) {
                (Target::User, true, _) => {
                    self.awaiting = Target::User;
                    if !quiet {
                        out.push(Command::Prompt(self.prompt(id)));
                    }
                    None
                }
                (Target::User, false, true) => {
                    Some(self.fail(id, CancelReason::NoPromptBackend, "", out))
                }
                (Target::Assistant, _, true) => {
                    Some(self.fail(id, CancelReason::AssistantRoutingDenied, "", out))
                }
                (_, _, false) => {
                    self.awaiting = Target::Assistant;
                    out.push(self.ask_assistant(id));
                    None
                }
            };
        }
    }

    /// During a change from the review, the answer (and note) the person gave
    /// question `index` before it, which Back kept: given again, as theirs
    /// (only to a question they had answered when the review showed).
    fn kept_answer(&mut self, index: usize) -> Option<Slot> {
        if !self.give_again.contains(&index) {
            return None;
        }
        let answer = self.take_discarded(index)?;
        let note = self.discarded_notes.get_mut(index).and_then(Option::take);
        Some(Slot {
            answer,
            by: AnsweredBy::User,
            note,
        })
    }

    /// A configured or remembered answer to question `index`, if it has one.
    fn automatic_answer(
        &self,
        index: usize,
        remembered: &BTreeMap<String, BTreeMap<String, Value>>,
    ) -> Option<Slot> {
        let question = self.form.question(index);
        let slot = |answer, by| Slot {
            answer,
            by,
            note: None,
        };
        // Configured answers were checked when the request was decided.
        let configured = self
            .policy
            .static_answers
            .get(&question.id)
            .and_then(|value| self.form.convert(index, value));
        if let Some(answer) = configured {
            return Some(slot(answer, AnsweredBy::Config));
        }
        // A remembered answer fits by shape; a schema question's is not reused
        // (applying never consults a schema).
        if self.policy.persistence != Persistence::Turn
            || question.answer_type == AnswerType::Schema
        {
            return None;
        }
        remembered
            .get(&self.origin.tool)
            .and_then(|answers| answers.get(&question.id))
            .and_then(|value| self.form.convert(index, value))
            .map(|answer| slot(answer, AnsweredBy::Cache))
    }

    /// What a timeout fills question `index` with: its default, else the first
    /// option whose label contains `"(Recommended)"`.
    fn timeout_answer(&self, index: usize) -> Option<Answer> {
        if let Some(default) = self.form.default_answer(index) {
            return Some(default.clone());
        }
        let question = self.form.question(index);
        let recommended = question
            .choices()
            .iter()
            .position(|choice| choice.label.contains(RECOMMENDED))?;
        match question.answer_type {
            AnswerType::Select => u8::try_from(recommended).ok().map(Answer::Choice),
            AnswerType::MultiSelect => {
                let mut picks = Picks::default();
                picks.options.insert(recommended);
                Some(Answer::Choices(picks))
            }
            AnswerType::Boolean | AnswerType::Text | AnswerType::Schema => None,
        }
    }

    /// On a timeout with [`OnTimeout::Defaults`](crate::OnTimeout::Defaults): walks
    /// from the question being asked to the end, re-checking each gate in order,
    /// and fills every question that applies with its configured, remembered or
    /// timeout answer; a question with none stays unanswered.
    pub(crate) fn fill_on_timeout(
        &mut self,
        remembered: &BTreeMap<String, BTreeMap<String, Value>>,
    ) {
        for index in self.cursor..self.form.len() {
            let answers = &self.answers;
            let asked = self.form.is_asked_with(index, &|k| {
                answers.get(k)?.as_ref().map(|slot| &slot.answer)
            });
            self.answers[index] = if asked {
                self.automatic_answer(index, remembered).or_else(|| {
                    self.timeout_answer(index).map(|answer| Slot {
                        answer,
                        by: AnsweredBy::Timeout,
                        note: None,
                    })
                })
            } else {
                None
            };
        }
    }

    /// The response to the model, moving the answers out.
    pub(crate) fn respond(
        &mut self,
        id: &InquiryId,
        status: OutcomeStatus,
        message: Option<&str>,
    ) -> Command {
        Command::Respond {
            inquiry: id.clone(),
            outcome: Outcome {
                form: self.form.clone(),
                answers: std::mem::take(&mut self.answers).into(),
                status,
                message: message.map(str::to_owned),
            },
        }
    }

    /// Pushes the tool error for `reason`; the inquiry is then finished.
    pub(crate) fn fail(
        &self,
        id: &InquiryId,
        reason: CancelReason,
        detail: &str,
        out: &mut Vec<Command>,
    ) -> Ending {
        out.push(Command::Fail {
            inquiry: id.clone(),
            message: failure_message(&reason, &self.origin.tool, detail),
            reason,
        });
        Ending::Failed
    }

    pub(crate) fn prompt(&self, id: &InquiryId) -> Prompt {
        let index = self.cursor;
        let count = self.form.len();
        Prompt {
            inquiry: id.clone(),
            form: self.form.clone(),
            index,
            progress: (count > 1).then_some(Progress {
                n: index + 1,
                m: count,
            }),
            prefill: self
                .discarded
                .get(index)
                .cloned()
                .flatten()
                .or_else(|| self.form.default_answer(index).cloned()),
            prefill_note: self.discarded_notes.get(index).cloned().flatten(),
            can_back: self.back_target().is_some(),
            label: self.label.clone(),
            step: self.step,
        }
    }

    fn ask_assistant(&self, id: &InquiryId) -> Command {
        Command::AskAssistant {
            inquiry: id.clone(),
            question: self.form.question(self.cursor).id.clone(),
            schema: self.form.answer_schema(self.cursor),
        }
    }

    /// What this inquiry shows now: its question, or its review.
    pub(crate) fn at(&self, id: &InquiryId) -> crate::input::At {
        if self.reviewing() {
            return crate::input::At::review(id.clone(), self.step);
        }
        crate::input::At::question(
            id.clone(),
            self.form.question(self.cursor).id.clone(),
            self.step,
        )
    }

    /// The command this inquiry is waiting on.
    pub(crate) fn current(&self, id: &InquiryId) -> Command {
        if self.reviewing() {
            return self.review_command(id);
        }
        match self.awaiting {
            Target::User => Command::Prompt(self.prompt(id)),
            Target::Assistant => self.ask_assistant(id),
        }
    }
}
