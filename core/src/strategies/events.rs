//! [`Event`] sequences for one inquiry, for tests of the engine's deciding and
//! applying themselves.

use std::sync::Arc;

use proptest::prelude::*;
use serde_json::{Value, json};

use crate::command::Command;
use crate::event::{
    AnsweredBy, CancelReason, Event, InquiryId, OnTimeout, Origin, Policy, Request, Surface,
    Timeout,
};
use crate::form::{Form, Question};
use crate::reducer::State;

use super::forms::{arb_form, invalid_answer, sample_answer};

/// Something a person, the assistant, or a confused adapter does next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Answer the question being asked with a valid value (seeded).
    Answer(usize),
    /// Answer it with an invalid value (seeded).
    AnswerInvalid(usize),
    /// Answer a question other than the one being asked.
    AnswerWrongQuestion,
    /// Go back.
    Back,
    /// Reply (cancel with the answers so far).
    Reply,
    /// End the turn.
    EndTurn,
    /// A system cancellation.
    SystemCancel,
    /// An event for an inquiry that was never requested.
    UnknownInquiry,
    /// Request the same inquiry again.
    RequestAgain,
    /// The inquiry's time to answer ran out (a timeout, with the time it was fired).
    TimedOut,
}

/// Arbitrary steps, mostly answers.
pub fn arb_steps(max: usize) -> impl Strategy<Value = Vec<Step>> {
    let step = prop_oneof![
        10 => any::<usize>().prop_map(Step::Answer),
        2 => any::<usize>().prop_map(Step::AnswerInvalid),
        1 => Just(Step::AnswerWrongQuestion),
        3 => Just(Step::Back),
        1 => Just(Step::Reply),
        1 => Just(Step::EndTurn),
        1 => Just(Step::SystemCancel),
        1 => Just(Step::UnknownInquiry),
        1 => Just(Step::RequestAgain),
        1 => Just(Step::TimedOut),
    ];
    prop::collection::vec(step, 0..=max)
}

/// Turns steps into concrete events for one inquiry of `form` (id `"inquiry"`, the
/// default [`Policy`] with a one-minute timeout that fills in defaults), running the
/// reducer to learn which question is being asked.
/// The first event is always the request.
pub fn session_events(form: &Form, steps: &[Step]) -> Vec<Event> {
    let inquiry = InquiryId::new("inquiry");
    let request = Event::Requested(Request {
        inquiry: inquiry.clone(),
        form: Arc::new(form.clone()),
        policy: Policy {
            timeout: Some(Timeout {
                after_ms: 60_000,
                on_timeout: OnTimeout::Defaults,
            }),
            ..Policy::default()
        },
        origin: Origin::default(),
        call: None,
    });
    let mut state = State::new();
    let _ = crate::reducer::reduce_event(&mut state, &request);
    let mut events = vec![request.clone()];
    for step in steps {
        let current = match state.pending(&inquiry) {
            Some(Command::Prompt(prompt)) => Some(prompt.question().clone()),
            _ => None,
        };
        let answered = |question: &Question, value: Value| Event::Answered {
            inquiry: inquiry.clone(),
            question: question.id.clone(),
            value,
            by: AnsweredBy::User,
            remember: false,
            note: None,
        };
        let event = match (step, &current) {
            (Step::Answer(seed), Some(q)) => answered(q, sample_answer(q, *seed)),
            (Step::AnswerInvalid(seed), Some(q)) => answered(q, invalid_answer(q, *seed)),
            (Step::Answer(_) | Step::AnswerInvalid(_) | Step::AnswerWrongQuestion, _) => {
                Event::Answered {
                    inquiry: inquiry.clone(),
                    question: "no-such-question".into(),
                    value: json!(true),
                    by: AnsweredBy::User,
                    remember: false,
                    note: None,
                }
            }
            (Step::Back, _) => Event::Back {
                inquiry: inquiry.clone(),
            },
            (Step::Reply, _) => Event::Cancelled {
                inquiry: inquiry.clone(),
                reason: CancelReason::UserReply,
                message: None,
            },
            (Step::EndTurn, _) => Event::TurnEnded {
                inquiry: inquiry.clone(),
                surface: Some(Surface::Web),
            },
            (Step::SystemCancel, _) => Event::Cancelled {
                inquiry: inquiry.clone(),
                reason: CancelReason::Unknown("host_shutdown".into()),
                message: None,
            },
            (Step::UnknownInquiry, _) => Event::Back {
                inquiry: InquiryId::new("never-requested"),
            },
            (Step::RequestAgain, _) => request.clone(),
            // Fired a second after each event before it (the reducer here
            // learns no recorded time, so any fired time is taken).
            (Step::TimedOut, _) => Event::TimedOut {
                inquiry: inquiry.clone(),
                message: None,
                fired_at_ms: Some(events.len() as u64 * 1_000),
            },
        };
        // A refused input changes nothing; it is kept, for the property under test.
        let _ = crate::reducer::reduce_event(&mut state, &event);
        events.push(event);
    }
    events
}

/// Up to `max_steps` events against your own `form` (see [`session_events`]): the
/// request first, then mostly valid answers to whatever is being asked, with Back,
/// invalid answers, Reply, End Turn and stray events mixed in. Most events after
/// the first few arrive once the inquiry has finished: to test a host, generate
/// [`Input`](crate::Input)s with a [`Scenario`](super::Scenario) instead.
///
/// ```
/// use askuser_core::strategies::{arb_events_for, reduce_event};
/// use askuser_core::{parse_form, Answer, Command, State};
/// use proptest::prelude::*;
/// use serde_json::json;
///
/// let form = parse_form(&json!({"questions": [
///     {"id": "apply", "text": "Apply the migration?", "answer_type": "boolean"},
///     {"id": "env", "text": "Which environment?", "answer_type": "select",
///      "options": ["staging", "production"], "when": {"question_id": "apply", "equals": true}},
/// ]})).unwrap();
///
/// proptest!(ProptestConfig::with_cases(64), |(events in arb_events_for(form.form().as_ref().clone(), 20))| {
///     let mut state = State::new();
///     for event in &events {
///         // The outcome never holds an answer for a question whose `when` is false.
///         for command in reduce_event(&mut state, event).unwrap_or_default() {
///             if let Command::Respond { outcome, .. } = command {
///                 let answers: Vec<Option<Answer>> =
///                     outcome.answers.iter().map(|s| s.as_ref().map(|s| s.answer.clone())).collect();
///                 for (index, answer) in answers.iter().enumerate() {
///                     prop_assert!(answer.is_none() || outcome.form.is_asked(index, &answers));
///                 }
///             }
///         }
///     }
/// });
/// ```
pub fn arb_events_for(form: Form, max_steps: usize) -> impl Strategy<Value = Vec<Event>> {
    arb_steps(max_steps).prop_map(move |steps| session_events(&form, &steps))
}

/// Judges `event` as if a host had handed it in, without changing the state: the
/// events to record, or the refusal. For tests of the engine's deciding and
/// applying themselves, driven by the event sequences here (a host decides an
/// [`Input`](crate::Input) with [`State::decide`]; no host hands in an event).
///
/// # Errors
/// The [`Refusal`](crate::Refusal) the engine gives the input the event stands
/// for.
pub fn decide_event<'a>(
    state: &State,
    event: &'a Event,
) -> Result<crate::Decision<'a>, crate::Refusal> {
    state.decide_event(event)
}

/// [`decide_event`], then applies what was decided: the commands, or the refusal
/// (the state unchanged then).
///
/// # Errors
/// As [`decide_event`].
pub fn reduce_event(state: &mut State, event: &Event) -> Result<Vec<Command>, crate::Refusal> {
    crate::reducer::reduce_event(state, event)
}

/// A valid form and up to 40 events against it (see [`session_events`]).
pub fn arb_session() -> impl Strategy<Value = (Form, Vec<Event>)> {
    (arb_form(), arb_steps(40)).prop_map(|(form, steps)| {
        let events = session_events(&form, &steps);
        (form, events)
    })
}
