//! Deciding an [`Input`]: what a host's or a person's action means, in one place.
//!
//! [`State::decide`] is the engine's one public decision. Every surface hands its
//! action here (through `askuser_store::Session`), so the
//! rules that used to sit in each surface are the engine's: an action names what
//! it was taken on ([`At`]) and is refused when that is no longer current; a text
//! answer's line breaks read the same from every surface; an answer is remembered
//! only where the inquiry's persistence allows it; a surface that reviews gets the
//! review the form calls for, recorded with the first answer.

use crate::decide::Decision;
use crate::error::Refusal;
use crate::event::{CancelReason, Event, Persistence};
use crate::input::{AnswerInput, At, Input, normalize_line_breaks, normalize_value};
use crate::reducer::State;

impl State {
    /// Decides an [`Input`] without changing the state: `Ok` with the events to
    /// record together (see [`Decision::events`]), or the [`Refusal`] that says why
    /// nothing is recorded.
    ///
    /// ```
    /// use askuser_core::{AnswerInput, Command, Input, InquiryId, Refusal, Request, State, parse_form};
    /// use serde_json::json;
    ///
    /// let form = parse_form(&json!({"questions": [
    ///     {"id": "apply", "text": "Apply?", "answer_type": "boolean"},
    ///     {"id": "env", "text": "Where?", "answer_type": "select", "options": ["staging", "production"]},
    /// ]})).unwrap();
    /// let mut state = State::new();
    /// let mut commands = Vec::new();
    /// let ask = Input::Ask(Request {
    ///     inquiry: InquiryId::new("call-1"), form: form.form().clone(),
    ///     policy: Default::default(), origin: Default::default(), call: None,
    /// });
    /// let decision = state.decide(&ask).unwrap();
    /// state.apply_decision(decision, &mut commands);
    /// let Some(Command::Prompt(first)) = commands.pop() else { panic!() };
    ///
    /// // The person answers what they were shown: `first.at()` names it.
    /// let yes = Input::from(AnswerInput::new(first.at(), json!(true)).reviewed());
    /// let decision = state.decide(&yes).unwrap();
    /// assert_eq!(decision.events().len(), 2); // the review the form calls for, then the answer
    /// state.apply_decision(decision, &mut commands);
    ///
    /// // A second tab still showing the first question answers it again: refused,
    /// // with what is current now.
    /// let stale = Input::from(AnswerInput::new(first.at(), json!(false)));
    /// let Err(Refusal::Stale { current, .. }) = state.decide(&stale) else { panic!() };
    /// assert_eq!(current.question.as_deref(), Some("env"));
    /// ```
    ///
    /// # Errors
    /// A [`Refusal`]: [`Refusal::Stale`] for an action on something shown at
    /// an earlier step and no longer shown; for an action naming what was never
    /// shown, the refusal that names the mistake ([`Refusal::UnknownQuestion`]:
    /// a question the form does not have, whatever the step;
    /// [`Refusal::NotInReview`]: a submit, a change or the review named while
    /// no review shows; [`Refusal::FutureStep`]: a step the inquiry has not
    /// reached; at the step it is at, [`Refusal::UnexpectedQuestion`] for
    /// another question and [`Refusal::InReview`] for a question while the
    /// review shows; [`Refusal::InquiryFinished`] for a finished inquiry);
    /// [`Refusal::NotYetDue`] for a timeout fired before the deadline
    /// (see [`Input::TimeOut`]), [`Refusal::BadOrigin`] for an origin that does
    /// not fit ([`Input::Attach`], [`Input::Detach`]); an unknown or finished
    /// inquiry, a reused inquiry id, an answer from someone the policy did not
    /// route it to, Back with nothing to go back to.
    pub fn decide(&self, input: &Input) -> Result<Decision<'static>, Refusal> {
        let event = match input {
            Input::Attach(origin) => Event::Attached {
                origin: origin.clone(),
            },
            Input::Detach(origin) => Event::Detached {
                origin: origin.clone(),
            },
            Input::Answer(answer) => return self.decide_answer_input(answer),
            Input::Ask(request) => Event::Requested(request.clone()),
            Input::RejectCall {
                inquiry,
                tool,
                problems,
            } => Event::Rejected {
                inquiry: inquiry.clone(),
                tool: tool.clone(),
                problems: problems.clone(),
            },
            Input::AnswerAhead {
                inquiry,
                question,
                value,
            } => Event::AnsweredAhead {
                inquiry: inquiry.clone(),
                question: question.clone(),
                value: normalize_value(value).unwrap_or_else(|| value.clone()),
            },
            Input::Show { inquiry, questions } => Event::Shown {
                inquiry: inquiry.clone(),
                questions: questions.clone(),
            },
            Input::NoteClient { inquiry, note } => Event::ClientNoted {
                inquiry: inquiry.clone(),
                note: note.clone(),
            },
            Input::Back(at) => {
                self.check_at(at)?;
                Event::Back {
                    inquiry: at.inquiry.clone(),
                }
            }
            Input::Reply { at, message } => {
                self.check_at(at)?;
                Event::Cancelled {
                    inquiry: at.inquiry.clone(),
                    reason: CancelReason::UserReply,
                    message: normalized_message(message.as_deref()),
                }
            }
            Input::Cancel {
                inquiry,
                reason,
                message,
            } => Event::Cancelled {
                inquiry: inquiry.clone(),
                reason: reason.clone(),
                message: normalized_message(message.as_deref()),
            },
            Input::EndTurn { inquiry, surface } => Event::TurnEnded {
                inquiry: inquiry.clone(),
                surface: *surface,
            },
            Input::TimeOut {
                inquiry,
                message,
                fired_at_ms,
            } => Event::TimedOut {
                inquiry: inquiry.clone(),
                message: normalized_message(message.as_deref()),
                fired_at_ms: Some(*fired_at_ms),
            },
            Input::WantReview { inquiry } => Event::ReviewWanted {
                inquiry: inquiry.clone(),
            },
            Input::Submit(at) => {
                self.check_at(at)?;
                Event::Submitted {
                    inquiry: at.inquiry.clone(),
                }
            }
            Input::Deliver { inquiry } => Event::Delivered {
                inquiry: inquiry.clone(),
            },
            Input::Change { at, question } => {
                self.check_at(at)?;
                Event::ChangeWanted {
                    inquiry: at.inquiry.clone(),
                    question: question.clone(),
                }
            }
        };
        self.decide_event(&event).map(Decision::into_owned)
    }

    /// [`State::decide`], for an input from the asker of its inquiry, who hands
    /// the result to the model as soon as it has it (`askuser serve` on the
    /// inquiries it asked): when applying the decision finishes the inquiry with
    /// a result owed to its asker ([`State::owed`]), the decision also records
    /// it handed over ([`Event::Delivered`], after the event the input stands
    /// for, [`Decision::hands_over`]), so that one append records both, where
    /// the input and then [`Input::Deliver`] would be two. Otherwise the same
    /// decision as [`State::decide`].
    ///
    /// ```
    /// use askuser_core::{AnswerInput, Command, Event, Input, InquiryId, Origin, Request, State, parse_form};
    /// use serde_json::json;
    ///
    /// let form = parse_form(&json!({"questions": [
    ///     {"id": "ok", "text": "Deploy now?", "answer_type": "boolean"}]})).unwrap();
    /// let id = InquiryId::new("call-1");
    /// // An agent that takes the result when it comes back (a `serve`'s asker).
    /// let origin = Origin { resumes: true, ..Origin::default() };
    /// let ask = Input::Ask(Request { inquiry: id.clone(), form: form.form().clone(),
    ///     policy: Default::default(), origin, call: None });
    /// let mut state = State::new();
    /// let mut commands = Vec::new();
    /// state.apply_decision(state.decide(&ask).unwrap(), &mut commands);
    /// let Some(Command::Prompt(prompt)) = commands.pop() else { panic!() };
    ///
    /// let yes = Input::from(AnswerInput::new(prompt.at(), json!(true)));
    /// let decision = state.decide_handing_over(&yes).unwrap();
    /// assert!(decision.hands_over());
    /// assert!(matches!(decision.events(),
    ///     [Event::Answered { .. }, Event::Delivered { .. }]));
    /// state.apply_decision(decision, &mut commands);
    /// assert_eq!(state.owed().count(), 0); // handed over with the answer
    /// ```
    ///
    /// # Errors
    /// As [`State::decide`].
    pub fn decide_handing_over(&self, input: &Input) -> Result<Decision<'static>, Refusal> {
        let decision = self.decide(input)?;
        Ok(match input.inquiry() {
            Some(inquiry) if self.finishes_owed(inquiry, decision.events()) => {
                decision.handing_over(inquiry.clone())
            }
            _ => decision,
        })
    }

    /// Whether `at` is what its inquiry shows now; if not, the refusal that
    /// names the mistake: an unknown or finished inquiry, a question its form
    /// does not have, a review it never wanted, a step it has not reached, or
    /// at its current step another question or the review; only an action on
    /// something shown at an earlier step is [`Refusal::Stale`].
    pub(crate) fn check_at(&self, at: &At) -> Result<(), Refusal> {
        let open = self.check_open(&at.inquiry)?;
        let current = open.at(&at.inquiry);
        if current.question == at.question && current.step == at.step {
            return Ok(());
        }
        Err(not_shown(open, at, current))
    }

    fn decide_answer_input(&self, answer: &AnswerInput) -> Result<Decision<'static>, Refusal> {
        let at = &answer.at;
        self.check_at(at)?;
        let open = self.check_open(&at.inquiry)?;
        let Some(question) = at.question.clone() else {
            return Err(Refusal::InReview {
                inquiry: at.inquiry.clone(),
                got: String::new(),
                step: at.step,
            });
        };
        let event = Event::Answered {
            inquiry: at.inquiry.clone(),
            question,
            value: normalize_value(&answer.value).unwrap_or_else(|| answer.value.clone()),
            by: answer.by,
            remember: answer.remember && open.policy.persistence == Persistence::Turn,
            note: normalized_message(answer.note.as_deref()),
        };
        let decision = self.decide_event(&event)?.into_owned();
        let accepted = matches!(decision.event(), Event::Answered { .. });
        if accepted && answer.reviews && !open.review && open.form.wants_review() {
            let (events, _) = decision.into_parts();
            let mut recorded = Vec::with_capacity(2);
            recorded.push(Event::ReviewWanted {
                inquiry: at.inquiry.clone(),
            });
            recorded.extend(events.into_owned());
            return Ok(Decision::recorded(recorded));
        }
        Ok(decision)
    }
}

/// Why `at` is not what `open` shows (`current`): see [`State::check_at`].
fn not_shown(open: &crate::inquiry::Open, at: &At, current: At) -> Refusal {
    let inquiry = at.inquiry.clone();
    match &at.question {
        Some(question) if open.form.index_of(question).is_none() => {
            return Refusal::UnknownQuestion {
                inquiry,
                question: question.clone(),
                current,
            };
        }
        // No review was ever wanted: none was shown, at any step.
        None if !open.review => return Refusal::NotInReview { current },
        _ => {}
    }
    match at.step.cmp(&current.step) {
        std::cmp::Ordering::Less => Refusal::Stale {
            shown: at.clone(),
            current,
        },
        std::cmp::Ordering::Greater => Refusal::FutureStep {
            shown: at.clone(),
            current,
        },
        std::cmp::Ordering::Equal => match (&at.question, &current.question) {
            (Some(got), Some(expected)) => Refusal::UnexpectedQuestion {
                inquiry,
                expected: expected.clone(),
                got: got.clone(),
                step: current.step,
            },
            (Some(got), None) => Refusal::InReview {
                inquiry,
                got: got.clone(),
                step: current.step,
            },
            (None, _) => Refusal::NotInReview { current },
        },
    }
}

/// A person's free text as recorded: line breaks as `\n`; blank is none.
fn normalized_message(text: Option<&str>) -> Option<String> {
    let text = text?;
    if text.trim().is_empty() {
        return None;
    }
    Some(normalize_line_breaks(text).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::command::Command;
    use crate::event::{AnsweredBy, InquiryId, Request};
    use crate::parse::parse_form;
    use serde_json::{Value, json};

    fn asked(form: &Value) -> (State, Command) {
        let form = parse_form(form).unwrap();
        let mut state = State::new();
        let ask = Input::Ask(Request {
            inquiry: InquiryId::new("R1"),
            form: form.form().clone(),
            policy: crate::event::Policy::default(),
            origin: crate::event::Origin::default(),
            call: None,
        });
        let decision = state.decide(&ask).unwrap();
        let mut out = Vec::new();
        state.apply_decision(decision, &mut out);
        (state, out.pop().unwrap())
    }

    fn apply(state: &mut State, input: &Input) -> Vec<Command> {
        let decision = state.decide(input).unwrap();
        let mut out = Vec::new();
        state.apply_decision(decision, &mut out);
        out
    }

    fn three() -> Value {
        json!({"questions": [
            {"id": "apply", "text": "Apply?", "answer_type": "boolean"},
            {"id": "env", "text": "Where?", "answer_type": "select", "options": ["staging", "production"]},
            {"id": "note", "text": "Anything else?", "answer_type": "text"},
        ]})
    }

    #[test]
    fn a_stale_answer_back_and_submit_are_refused_with_what_is_current() {
        let (mut state, Command::Prompt(first)) = asked(&three()) else {
            panic!("a prompt")
        };
        let id = first.inquiry.clone();
        apply(
            &mut state,
            &AnswerInput::new(first.at(), json!(true)).into(),
        );
        let refused = state.decide(&AnswerInput::new(first.at(), json!(false)).into());
        assert_eq!(
            refused.unwrap_err().to_string(),
            "inquiry \"R1\" moved on since question \"apply\" (step 0) was shown: it now shows question \"env\" (step 1)"
        );
        assert!(matches!(
            state.decide(&Input::Back(first.at())),
            Err(Refusal::Stale { .. })
        ));
        let current = state.at(&id).unwrap();
        apply(&mut state, &Input::Back(current));
        // Back to the first question: a new step, so the old page is still stale.
        let again = state.at(&id).unwrap();
        assert_eq!(again, At::question(id.clone(), "apply", 2));
        assert!(
            state
                .decide(&AnswerInput::new(first.at(), json!(false)).into())
                .is_err()
        );
        // No review was ever wanted: a submit names what was never shown.
        assert!(matches!(
            state.decide(&Input::Submit(At::review(id, 2))),
            Err(Refusal::NotInReview { .. })
        ));
    }

    /// A form whose second question shows only when the first is true.
    fn gated() -> Value {
        json!({"questions": [
            {"id": "deploy", "text": "Deploy?", "answer_type": "boolean"},
            {"id": "env", "text": "Where?", "answer_type": "select", "options": ["staging", "production"],
             "when": {"question_id": "deploy", "equals": true}},
            {"id": "note", "text": "Anything else?", "answer_type": "text"},
        ]})
    }

    /// Answers every question of `form` in turn with `answers` (each reviewed,
    /// the first with a note); the review's step.
    fn reviewed(form: &Value, answers: &[Value]) -> (State, InquiryId, u32) {
        let (mut state, Command::Prompt(first)) = asked(form) else {
            panic!("a prompt")
        };
        let id = first.inquiry.clone();
        let mut out = Vec::new();
        for (k, value) in answers.iter().enumerate() {
            let at = state.at(&id).unwrap();
            let answer = AnswerInput::new(at, value.clone()).reviewed();
            let answer = if k == 2 {
                answer.with_note(Some("see the runbook".into()))
            } else {
                answer
            };
            out = apply(&mut state, &answer.into());
        }
        let [Command::Review { step, .. }] = &out[..] else {
            panic!("a review: {out:?}")
        };
        (state, id, *step)
    }

    fn change(state: &mut State, id: &InquiryId, step: u32, question: &str) -> Vec<Command> {
        let input = Input::Change {
            at: At::review(id.clone(), step),
            question: question.to_owned(),
        };
        let decision = state.decide(&input).unwrap();
        assert_eq!(
            decision.events().len(),
            1,
            "one event: {:?}",
            decision.events()
        );
        let mut out = Vec::new();
        state.apply_decision(decision, &mut out);
        out
    }

    #[test]
    fn changing_the_first_answer_from_the_review_takes_one_step_and_keeps_the_later_ones() {
        let (mut state, id, step) =
            reviewed(&three(), &[json!(true), json!("staging"), json!("x")]);
        let out = change(&mut state, &id, step, "apply");
        let [Command::Prompt(prompt)] = &out[..] else {
            panic!("the first question again: {out:?}")
        };
        assert_eq!(
            (prompt.index, prompt.prefill.clone()),
            (0, Some(crate::answer::Answer::Bool(true)))
        );
        let out = apply(
            &mut state,
            &AnswerInput::new(prompt.at(), json!(false))
                .reviewed()
                .into(),
        );
        let [Command::Review { outcome, .. }] = &out[..] else {
            panic!("straight back to the review: {out:?}")
        };
        assert_eq!(outcome.get("apply"), Some(json!(false)));
        assert_eq!(outcome.get("env"), Some(json!("staging")));
        assert_eq!(outcome.get("note"), Some(json!("x")));
        let note = outcome.answers[2].as_ref().unwrap();
        assert_eq!(
            (note.by, note.note.as_deref()),
            (AnsweredBy::User, Some("see the runbook"))
        );
    }

    #[test]
    fn a_change_asks_a_question_that_shows_only_now_and_drops_one_that_no_longer_shows() {
        let (mut state, id, step) = reviewed(&gated(), &[json!(false), json!("x")]);
        // deploy = false hid "Where?"; changing it to true shows it: it is asked,
        // then the note is given again.
        let out = change(&mut state, &id, step, "deploy");
        let [Command::Prompt(prompt)] = &out[..] else {
            panic!("{out:?}")
        };
        let out = apply(
            &mut state,
            &AnswerInput::new(prompt.at(), json!(true)).reviewed().into(),
        );
        let [Command::Prompt(env)] = &out[..] else {
            panic!("the question that shows now: {out:?}")
        };
        assert_eq!((env.index, env.prefill.clone()), (1, None));
        let out = apply(
            &mut state,
            &AnswerInput::new(env.at(), json!("production"))
                .reviewed()
                .into(),
        );
        let [Command::Review { outcome, step, .. }] = &out[..] else {
            panic!("{out:?}")
        };
        assert_eq!(outcome.get("note"), Some(json!("x")));
        // Back to false: "Where?" no longer shows, so its answer is not sent.
        let step = *step;
        let out = change(&mut state, &id, step, "deploy");
        let [Command::Prompt(prompt)] = &out[..] else {
            panic!("{out:?}")
        };
        let out = apply(
            &mut state,
            &AnswerInput::new(prompt.at(), json!(false))
                .reviewed()
                .into(),
        );
        let [Command::Review { outcome, .. }] = &out[..] else {
            panic!("{out:?}")
        };
        assert!(outcome.answers[1].is_none(), "{outcome:?}");
        assert_eq!(outcome.get("note"), Some(json!("x")));
    }

    #[test]
    fn a_change_is_refused_off_the_review_for_an_unanswered_question_and_from_a_stale_review() {
        let (mut state, id, step) = reviewed(&gated(), &[json!(false), json!("x")]);
        let refuse = |state: &State, step: u32, question: &str| {
            let input = Input::Change {
                at: At::review(id.clone(), step),
                question: question.to_owned(),
            };
            state.decide(&input).unwrap_err().to_string()
        };
        assert_eq!(
            refuse(&state, step, "env"),
            "question \"env\" of inquiry \"R1\" has no answer the person gave, so there is none to change"
        );
        assert_eq!(
            refuse(&state, step, "nope"),
            "inquiry \"R1\" has no question \"nope\": its form never asks it; act on what it shows now, the review (step 3)"
        );
        assert_eq!(
            refuse(&state, step + 7, "deploy"),
            "inquiry \"R1\" never showed the review (step 10): it is at step 3; act on what it shows now, the review (step 3)"
        );
        assert_eq!(
            refuse(&state, step - 1, "deploy"),
            "inquiry \"R1\" moved on since the review (step 2) was shown: it now shows the review (step 3)"
        );
        change(&mut state, &id, step, "deploy");
        let at = state.at(&id).unwrap();
        let input = Input::Change {
            at,
            question: "deploy".into(),
        };
        assert_eq!(
            state.decide(&input).unwrap_err().to_string(),
            "inquiry \"R1\" shows no review to submit or change an answer from: it shows question \"deploy\" (step 5); answer that (a review shows once every question is answered, on a surface that asked for one)"
        );
        // A Back during the change ends it: nothing is given again by itself.
        let (mut state, id, step) =
            reviewed(&three(), &[json!(true), json!("staging"), json!("x")]);
        change(&mut state, &id, step, "env");
        let at = state.at(&id).unwrap();
        apply(&mut state, &Input::Back(at));
        let at = state.at(&id).unwrap();
        let out = apply(
            &mut state,
            &AnswerInput::new(at, json!(true)).reviewed().into(),
        );
        let [Command::Prompt(env)] = &out[..] else {
            panic!("{out:?}")
        };
        assert_eq!(
            (env.index, env.prefill.clone()),
            (1, Some(crate::answer::Answer::Choice(0)))
        );
    }

    #[test]
    fn a_reviewing_surface_records_the_review_with_its_first_answer_and_line_breaks_read_as_newlines()
     {
        let (mut state, Command::Prompt(first)) = asked(&three()) else {
            panic!("a prompt")
        };
        let id = first.inquiry.clone();
        let decision = state
            .decide(&AnswerInput::new(first.at(), json!(true)).reviewed().into())
            .unwrap();
        assert!(matches!(
            decision.events(),
            [Event::ReviewWanted { .. }, Event::Answered { .. }]
        ));
        let mut out = Vec::new();
        state.apply_decision(decision, &mut out);
        let env = state.at(&id).unwrap();
        let decision = state
            .decide(&AnswerInput::new(env, json!("staging")).reviewed().into())
            .unwrap();
        assert_eq!(decision.events().len(), 1, "the review is recorded once");
        state.apply_decision(decision, &mut out);
        let note = state.at(&id).unwrap();
        let out = apply(
            &mut state,
            &AnswerInput::new(note, json!("a\r\nb"))
                .with_note(Some("why\r\nnot".into()))
                .reviewed()
                .into(),
        );
        let [Command::Review { outcome, step, .. }] = &out[..] else {
            panic!("a review: {out:?}")
        };
        assert_eq!(outcome.get("note"), Some(json!("a\nb")));
        assert_eq!(
            outcome.answers[2].as_ref().unwrap().note.as_deref(),
            Some("why\nnot")
        );
        let out = apply(&mut state, &Input::Submit(At::review(id, *step)));
        assert!(matches!(&out[..], [Command::Respond { .. }]));
    }

    /// A wrong-type answer is recorded with its typed reason, which the command
    /// carries, live and replayed from the recorded event read back.
    #[test]
    fn an_invalid_answer_carries_its_typed_reason() {
        let (mut state, Command::Prompt(first)) = asked(&three()) else {
            panic!("a prompt")
        };
        let decision = state
            .decide(&AnswerInput::new(first.at(), json!("yes")).into())
            .unwrap();
        let recorded: Event =
            serde_json::from_value(serde_json::to_value(decision.event()).unwrap()).unwrap();
        let mut replayed = state.clone();
        let mut out = Vec::new();
        state.apply_decision(decision, &mut out);
        let [
            Command::InvalidAnswer {
                message, reason, ..
            },
            Command::Prompt(_),
        ] = &out[..]
        else {
            panic!("an invalid answer and the prompt again: {out:?}")
        };
        let expected = crate::error::AnswerError::ExpectedBool {
            found: "a string".into(),
        };
        assert_eq!(reason.as_ref(), Some(&expected));
        assert_eq!(message, &expected.to_string());
        let mut again = Vec::new();
        replayed.apply(&recorded, &mut again);
        assert_eq!(again, out);
    }

    #[test]
    fn a_one_question_text_form_is_sent_without_a_review() {
        let (state, Command::Prompt(first)) =
            asked(&json!({"questions": [{"id": "t", "text": "Say", "answer_type": "text"}]}))
        else {
            panic!("a prompt")
        };
        let decision = state
            .decide(&AnswerInput::new(first.at(), json!("hi")).reviewed().into())
            .unwrap();
        assert_eq!(decision.events().len(), 1);
    }

    #[test]
    fn a_note_comes_back_with_its_answer_after_back() {
        let (mut state, Command::Prompt(first)) = asked(&three()) else {
            panic!("a prompt")
        };
        let id = first.inquiry.clone();
        apply(
            &mut state,
            &AnswerInput::new(first.at(), json!(true))
                .with_note(Some("only after 6pm".into()))
                .into(),
        );
        let back = Input::Back(state.at(&id).unwrap());
        let out = apply(&mut state, &back);
        let [Command::Prompt(again)] = &out[..] else {
            panic!("a prompt")
        };
        assert_eq!(again.prefill_value(), Some(json!(true)));
        assert_eq!(again.prefill_note.as_deref(), Some("only after 6pm"));
    }
}
