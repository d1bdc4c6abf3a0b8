//! Deciding: whether an input is accepted, and what the log records for it.
//!
//! Deciding is pure and borrows the state: it validates the form, checks an
//! answer against its question and schema, applies the request-time policy, and
//! checks who may answer. It never moves the state; [`State::apply`] does that, with
//! no validation in it.
//!
//! The public decision is [`State::decide`], which takes an
//! [`Input`](crate::Input) (`decide_input.rs`); it builds the event an input
//! stands for and judges it here, in [`State::decide_event`], which stays inside
//! the crate: no host hands the engine an event to record.

use std::borrow::Cow;

use serde_json::Value;

use crate::command::failure_message;
use crate::error::{Problem, Refusal};
use crate::event::{AnsweredBy, CancelReason, Event, InquiryId, Request, Target};
use crate::reducer::{Inquiry, State, digest};
use crate::valid_form::ValidForm;
use crate::validate::validate;

/// An accepted input: the events to record, appended together, and what deciding
/// prepared for applying them (a request's validated form, so it is not built
/// twice).
///
/// Record [`Decision::events`] in one append, then hand the decision to
/// [`State::apply_decision`]; a decision is for the state that made it.
#[derive(Debug, Clone)]
pub struct Decision<'a> {
    /// Never empty: the last event is the one the input stands for, or, when
    /// `handed_over`, the one before it.
    events: Cow<'a, [Event]>,
    form: Option<ValidForm>,
    /// Whether the last event records the result handed over
    /// ([`State::decide_handing_over`]), after the one the input stands for.
    handed_over: bool,
}

impl<'a> Decision<'a> {
    /// The event itself, accepted as it is (borrowed: nothing is copied).
    fn accept(input: &'a Event) -> Self {
        Self {
            events: Cow::Borrowed(std::slice::from_ref(input)),
            form: None,
            handed_over: false,
        }
    }

    /// A verdict on the input, or an event built from an [`Input`], recorded.
    fn verdict(event: Event) -> Self {
        Self {
            events: Cow::Owned(vec![event]),
            form: None,
            handed_over: false,
        }
    }

    /// The event the input stands for: the event it was read into, or the verdict
    /// on it ([`Event::Rejected`], [`Event::AnswerRefused`], [`Event::Denied`]).
    pub fn event(&self) -> &Event {
        // `events` is never empty (every constructor puts the main event last,
        // and only `handing_over` puts one after it).
        &self.events[self.events.len() - 1 - usize::from(self.handed_over)]
    }

    /// Whether it also records the result of the inquiry it finishes handed
    /// over ([`Event::Delivered`], last): see [`State::decide_handing_over`].
    pub fn hands_over(&self) -> bool {
        self.handed_over
    }

    /// Every event to record, in order, in one append: the main event, after the
    /// [`Event::ReviewWanted`] an answer implied, and before the
    /// [`Event::Delivered`] of a decision that hands the result over
    /// ([`Decision::hands_over`]).
    pub fn events(&self) -> &[Event] {
        &self.events
    }

    /// The events to record, and the validated form of an accepted request.
    pub(crate) fn into_parts(self) -> (Cow<'a, [Event]>, Option<ValidForm>) {
        (self.events, self.form)
    }

    /// Events built from an [`Input`](crate::Input), recorded in this order.
    pub(crate) fn recorded(events: Vec<Event>) -> Self {
        Self {
            events: Cow::Owned(events),
            form: None,
            handed_over: false,
        }
    }

    /// The same decision, owning its events.
    pub fn into_owned(self) -> Decision<'static> {
        Decision {
            events: Cow::Owned(self.events.into_owned()),
            form: self.form,
            handed_over: self.handed_over,
        }
    }

    /// The same decision, also recording `inquiry`'s result handed over, last.
    pub(crate) fn handing_over(mut self, inquiry: InquiryId) -> Self {
        self.events.to_mut().push(Event::Delivered { inquiry });
        self.handed_over = true;
        self
    }
}

impl State {
    /// Judges `input`, an event an [`Input`](crate::Input) stands for (or one a
    /// test of the engine or a first-format replay hands in), without changing
    /// the state: `Ok` with the event to record (the event itself, or a verdict
    /// that records what went wrong, such as an invalid call or an answer that
    /// does not fit), or the [`Refusal`] that says why nothing is recorded.
    ///
    /// Costs the same however many inquiries are open: nothing is cloned. Crate
    /// private: a host decides an [`Input`](crate::Input) ([`State::decide`]), so
    /// it never records an event of its own making (a verdict handed in is
    /// judged as the inquiry it names allows, since only the engine and its
    /// tests reach here).
    ///
    /// # Errors
    /// A [`Refusal`]: an unknown or finished inquiry, a reused inquiry id, an answer
    /// to a question not being asked or from someone the policy did not route it to,
    /// Back with nothing to go back to, a timeout fired before its deadline
    /// ([`Refusal::NotYetDue`]).
    pub(crate) fn decide_event<'a>(&self, input: &'a Event) -> Result<Decision<'a>, Refusal> {
        match input {
            Event::Requested(request) => self.decide_request(input, request),
            Event::Rejected { inquiry, .. } | Event::Denied { inquiry, .. } => {
                self.check_new(inquiry)?;
                Ok(Decision::accept(input))
            }
            Event::Answered {
                inquiry,
                question,
                value,
                by,
                ..
            } => self.decide_answer(input, inquiry, question, value, *by),
            Event::AnsweredAhead {
                inquiry,
                question,
                value,
            } => {
                self.decide_ahead(inquiry, question, value)?;
                Ok(Decision::accept(input))
            }
            Event::Shown { inquiry, questions } => {
                let open = self.check_open(inquiry)?;
                let unknown = questions.iter().find(|q| open.form.index_of(q).is_none());
                if let Some(question) = unknown.or(questions.first().filter(|_| open.reviewing())) {
                    return Err(Refusal::NotForThisQuestion {
                        inquiry: inquiry.clone(),
                        question: question.clone(),
                        why: "the form has no such question, or shows its review".to_owned(),
                    });
                }
                Ok(Decision::accept(input))
            }
            Event::Back { inquiry } => {
                let open = self.check_open(inquiry)?;
                if open.back_target().is_none() {
                    return Err(Refusal::NothingToGoBackTo {
                        inquiry: inquiry.clone(),
                    });
                }
                Ok(Decision::accept(input))
            }
            Event::Cancelled { inquiry, .. }
            | Event::TurnEnded { inquiry, .. }
            | Event::ReviewWanted { inquiry }
            | Event::ClientNoted { inquiry, .. }
            | Event::AnswerRefused { inquiry, .. } => {
                self.check_open(inquiry)?;
                Ok(Decision::accept(input))
            }
            Event::ChangeWanted { inquiry, question } => {
                let open = self.check_open(inquiry)?;
                if open.form.index_of(question).is_none() {
                    return Err(Refusal::UnknownQuestion {
                        inquiry: inquiry.clone(),
                        question: question.clone(),
                        current: open.at(inquiry),
                    });
                }
                if !open.reviewing() {
                    return Err(Refusal::NotInReview {
                        current: open.at(inquiry),
                    });
                }
                if open.person_answered(question).is_none() {
                    return Err(Refusal::NotTheirAnswer {
                        inquiry: inquiry.clone(),
                        question: question.clone(),
                    });
                }
                Ok(Decision::accept(input))
            }
            Event::Submitted { inquiry } => {
                let open = self.check_open(inquiry)?;
                if !open.reviewing() {
                    return Err(Refusal::NotInReview {
                        current: open.at(inquiry),
                    });
                }
                Ok(Decision::accept(input))
            }
            Event::TimedOut {
                inquiry,
                fired_at_ms,
                ..
            } => {
                self.decide_timeout(inquiry, *fired_at_ms)?;
                Ok(Decision::accept(input))
            }
            Event::Attached { origin } | Event::Detached { origin } => {
                origin.check()?;
                Ok(Decision::accept(input))
            }
            Event::Delivered { inquiry } => {
                self.check_owed(inquiry)?;
                Ok(Decision::accept(input))
            }
        }
    }

    /// Whether `inquiry` times out now: open, with a timeout, and (when both
    /// times are known) fired at or after the deadline the state learned from
    /// the recorded times; otherwise the firer's clock is all there is (see
    /// [`Input::TimeOut`](crate::Input::TimeOut)).
    fn decide_timeout(&self, inquiry: &InquiryId, fired_at_ms: Option<u64>) -> Result<(), Refusal> {
        let open = self.check_open(inquiry)?;
        if open.policy.timeout.is_none() {
            return Err(Refusal::NoTimeout {
                inquiry: inquiry.clone(),
            });
        }
        if let (Some(fired_at_ms), Some(due_at_ms)) = (fired_at_ms, open.due_at())
            && fired_at_ms < due_at_ms
        {
            return Err(Refusal::NotYetDue {
                inquiry: inquiry.clone(),
                due_at_ms,
                fired_at_ms,
            });
        }
        Ok(())
    }

    fn check_new(&self, inquiry: &InquiryId) -> Result<(), Refusal> {
        if self.inquiries.contains_key(inquiry) || self.used.contains(digest(inquiry.as_str())) {
            return Err(Refusal::DuplicateInquiry {
                inquiry: inquiry.clone(),
            });
        }
        Ok(())
    }

    /// Whether `inquiry` finished with a result still owed to its asker.
    fn check_owed(&self, inquiry: &InquiryId) -> Result<(), Refusal> {
        let why = match self.inquiries.get(inquiry) {
            Some(Inquiry::Finished(record)) if record.owed() => return Ok(()),
            Some(Inquiry::Finished(_)) => {
                "its result was handed over already, or its asker does not take one it missed"
            }
            Some(Inquiry::Open(_)) => "it is still open",
            None if self.used.contains(digest(inquiry.as_str())) => {
                "it finished too long ago to be remembered"
            }
            None => {
                return Err(Refusal::UnknownInquiry {
                    inquiry: inquiry.clone(),
                });
            }
        };
        Err(Refusal::NothingOwed {
            inquiry: inquiry.clone(),
            why: why.to_owned(),
        })
    }

    pub(crate) fn check_open(&self, inquiry: &InquiryId) -> Result<&crate::inquiry::Open, Refusal> {
        match self.inquiries.get(inquiry) {
            Some(Inquiry::Open(open)) => Ok(open),
            Some(Inquiry::Finished(record)) => Err(Refusal::InquiryFinished {
                inquiry: inquiry.clone(),
                ended: Some(record.how()),
            }),
            None if self.used.contains(digest(inquiry.as_str())) => Err(Refusal::InquiryFinished {
                inquiry: inquiry.clone(),
                ended: None,
            }),
            None => Err(Refusal::UnknownInquiry {
                inquiry: inquiry.clone(),
            }),
        }
    }

    fn decide_request<'a>(
        &self,
        input: &'a Event,
        request: &Request,
    ) -> Result<Decision<'a>, Refusal> {
        let inquiry = &request.inquiry;
        self.check_new(inquiry)?;
        let tool = &request.origin.tool;
        if request.origin.subagent {
            let reason = CancelReason::SubagentDenied;
            return Ok(Decision::verdict(Event::Denied {
                inquiry: inquiry.clone(),
                message: failure_message(&reason, tool, ""),
                reason,
            }));
        }
        let form = match validate(std::sync::Arc::clone(&request.form)) {
            Ok(form) => form,
            Err(errors) => {
                return Ok(Decision::verdict(Event::Rejected {
                    inquiry: inquiry.clone(),
                    tool: tool.clone(),
                    problems: errors.0.iter().map(Problem::from).collect(),
                }));
            }
        };
        // Every configured answer is checked now, so applying never checks one.
        for (question_id, configured) in &request.policy.static_answers {
            let Some(index) = form.index_of(question_id) else {
                continue;
            };
            if let Err(reason) = form.check(index, configured) {
                let detail = format!(
                    "for question \"{question_id}\" (policy.static_answers.{question_id} = {configured}) does not fit the question: {reason}"
                );
                let reason_code = CancelReason::InvalidStaticAnswer;
                return Ok(Decision::verdict(Event::Denied {
                    inquiry: inquiry.clone(),
                    message: failure_message(&reason_code, tool, &detail),
                    reason: reason_code,
                }));
            }
        }
        Ok(Decision {
            events: Cow::Borrowed(std::slice::from_ref(input)),
            form: Some(form),
            handed_over: false,
        })
    }

    fn decide_answer<'a>(
        &self,
        input: &'a Event,
        inquiry: &InquiryId,
        question: &str,
        value: &Value,
        by: AnsweredBy,
    ) -> Result<Decision<'a>, Refusal> {
        let open = self.check_open(inquiry)?;
        if open.reviewing() {
            return Err(Refusal::InReview {
                inquiry: inquiry.clone(),
                got: question.to_owned(),
                step: open.step,
            });
        }
        let current = &open.form.question(open.cursor).id;
        if current != question {
            return Err(Refusal::UnexpectedQuestion {
                inquiry: inquiry.clone(),
                expected: current.clone(),
                got: question.to_owned(),
                step: open.step,
            });
        }
        let routed_to = match open.awaiting {
            Target::User => AnsweredBy::User,
            Target::Assistant => AnsweredBy::Assistant,
        };
        if by != routed_to {
            return Err(Refusal::WrongAnswerer {
                inquiry: inquiry.clone(),
                question: question.to_owned(),
                by,
                expected: open.awaiting,
            });
        }
        match open.form.check(open.cursor, value) {
            Ok(_) => Ok(Decision::accept(input)),
            Err(reason) => Ok(Decision::verdict(Event::AnswerRefused {
                inquiry: inquiry.clone(),
                question: question.to_owned(),
                message: reason.to_string(),
                reason: Some(reason),
            })),
        }
    }
}

impl State {
    /// Whether an answer given ahead can be kept: the inquiry waits on the person
    /// at an earlier question, the question's `when` holds for the answers
    /// recorded, and the answer fits.
    fn decide_ahead(
        &self,
        inquiry: &InquiryId,
        question: &str,
        value: &Value,
    ) -> Result<(), Refusal> {
        let open = self.check_open(inquiry)?;
        let refuse = |why: String| Refusal::NotForThisQuestion {
            inquiry: inquiry.clone(),
            question: question.to_owned(),
            why,
        };
        if open.reviewing() || open.awaiting != Target::User {
            return Err(refuse(
                "the inquiry is not waiting on the person".to_owned(),
            ));
        }
        let Some(index) = open.form.index_of(question) else {
            return Err(refuse("the form has no such question".to_owned()));
        };
        if index <= open.cursor {
            return Err(refuse(
                "it is not after the question being asked; answer that one".to_owned(),
            ));
        }
        let answers = &open.answers;
        let asked = open.form.is_asked_with(index, &|k| {
            answers.get(k)?.as_ref().map(|slot| &slot.answer)
        });
        if !asked {
            return Err(refuse(
                "its `when` does not hold for the answers recorded".to_owned(),
            ));
        }
        open.form
            .check(index, value)
            .map(|_| ())
            .map_err(|reason| refuse(format!("the answer does not fit: {reason}")))
    }
}
