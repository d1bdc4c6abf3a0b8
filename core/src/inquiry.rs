//! One open inquiry: its form, policy, answers so far, and the walk forward from the
//! question being asked.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::answer::Answer;
use crate::command::{Command, Outcome, OutcomeStatus, Progress, Prompt, Slot, failure_message};
use crate::event::{AnsweredBy, CancelReason, InquiryId, Origin, Persistence, Policy, Target};
use crate::reducer::Finished;
use crate::valid_form::ValidForm;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "OpenRecord")]
pub(crate) struct Open {
    pub(crate) form: ValidForm,
    pub(crate) policy: Policy,
    pub(crate) origin: Origin,
    pub(crate) label: Option<Arc<str>>,
    /// One slot per question; `None` = skipped or not answered yet.
    pub(crate) answers: Vec<Option<Slot>>,
    /// The question being asked.
    pub(crate) cursor: usize,
    /// Who is being asked.
    pub(crate) awaiting: Target,
    /// After Back: the earlier answer, prefilled.
    pub(crate) prefill: Option<Answer>,
}

/// The serialized shape of [`Open`], checked before use so that a damaged snapshot
/// is an error rather than an out-of-range index later.
#[derive(Deserialize)]
struct OpenRecord {
    form: ValidForm,
    policy: Policy,
    origin: Origin,
    label: Option<Arc<str>>,
    answers: Vec<Option<Slot>>,
    cursor: usize,
    awaiting: Target,
    prefill: Option<Answer>,
}

impl TryFrom<OpenRecord> for Open {
    type Error = String;

    fn try_from(record: OpenRecord) -> Result<Self, Self::Error> {
        let count = record.form.len();
        if record.answers.len() != count || record.cursor >= count {
            return Err(format!(
                "inconsistent inquiry state: {} answer slots and cursor {} for a form of {count} questions",
                record.answers.len(),
                record.cursor
            ));
        }
        for (index, slot) in record.answers.iter().enumerate() {
            if let Some(slot) = slot {
                let value = slot.answer.to_value(record.form.question(index));
                if record.form.check(index, &value).is_err() {
                    return Err(format!(
                        "inconsistent inquiry state: the answer to question {index} does not fit it"
                    ));
                }
            }
        }
        Ok(Open {
            form: record.form,
            policy: record.policy,
            origin: record.origin,
            label: record.label,
            answers: record.answers,
            cursor: record.cursor,
            awaiting: record.awaiting,
            prefill: record.prefill,
        })
    }
}

impl Open {
    /// Walks forward from the cursor: skips gated questions, applies configured and
    /// remembered answers, and stops at the first question someone must answer.
    /// Returns how the inquiry finished, if it did.
    pub(crate) fn advance(
        &mut self,
        id: &InquiryId,
        remembered: &BTreeMap<String, BTreeMap<String, Value>>,
        out: &mut Vec<Command>,
    ) -> Option<Finished> {
        loop {
            let index = self.cursor;
            if index >= self.form.len() {
                out.push(self.respond(id, OutcomeStatus::Completed));
                return Some(Finished::Completed);
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
            let question_id = &self.form.question(index).id;
            if let Some(configured) = self.policy.static_answers.get(question_id) {
                match self.form.check(index, configured) {
                    Ok(answer) => {
                        self.answers[index] = Some(Slot {
                            answer,
                            by: AnsweredBy::Config,
                        });
                        self.cursor += 1;
                        continue;
                    }
                    Err(reason) => {
                        let detail = format!(
                            "for question \"{question_id}\" (policy.static_answers.{question_id} = {configured}) does not fit the question: {reason}"
                        );
                        return Some(self.fail(
                            id,
                            CancelReason::InvalidStaticAnswer,
                            &detail,
                            out,
                        ));
                    }
                }
            }
            if self.policy.persistence == Persistence::Turn {
                let cached = remembered
                    .get(&self.origin.tool)
                    .and_then(|answers| answers.get(question_id))
                    .and_then(|value| self.form.check(index, value).ok());
                if let Some(answer) = cached {
                    self.answers[index] = Some(Slot {
                        answer,
                        by: AnsweredBy::Cache,
                    });
                    self.cursor += 1;
                    continue;
                }
            }
            let policy = &self.policy;
            return match (policy.target, policy.interactive, policy.exclusive) {
                (Target::User, true, _) => {
                    self.awaiting = Target::User;
                    out.push(Command::Prompt(self.prompt(id)));
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

    /// The response to the model, moving the answers out.
    pub(crate) fn respond(&mut self, id: &InquiryId, status: OutcomeStatus) -> Command {
        Command::Respond {
            inquiry: id.clone(),
            outcome: Outcome {
                form: self.form.clone(),
                answers: std::mem::take(&mut self.answers),
                status,
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
    ) -> Finished {
        out.push(Command::Fail {
            inquiry: id.clone(),
            message: failure_message(&reason, &self.origin.tool, detail),
            reason,
        });
        Finished::Failed
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
                .prefill
                .clone()
                .or_else(|| self.form.default_answer(index).cloned()),
            can_back: self.answers[..index].iter().any(|slot| {
                matches!(
                    slot,
                    Some(Slot {
                        by: AnsweredBy::User,
                        ..
                    })
                )
            }),
            label: self.label.clone(),
        }
    }

    fn ask_assistant(&self, id: &InquiryId) -> Command {
        Command::AskAssistant {
            inquiry: id.clone(),
            question: self.form.question(self.cursor).id.clone(),
            schema: self.form.answer_schema(self.cursor),
        }
    }

    /// The command this inquiry is waiting on.
    pub(crate) fn current(&self, id: &InquiryId) -> Command {
        match self.awaiting {
            Target::User => Command::Prompt(self.prompt(id)),
            Target::Assistant => self.ask_assistant(id),
        }
    }
}
