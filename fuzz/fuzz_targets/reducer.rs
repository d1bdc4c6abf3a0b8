//! The reducer against arbitrary forms and arbitrary event sequences (judged with
//! the strategies' test helpers, as if handed in): it must never panic, a refused event must leave the state unchanged, a second run must give the
//! same commands, and replaying the decided events (applying only, as the log does)
//! must give the same commands again.

#![no_main]

use askuser_core::strategies::{Step, decide_event, reduce_event, session_events};
use askuser_core::{AnswerType, Choice, Command, Event, Form, Question, State, When};
use libfuzzer_sys::fuzz_target;
use serde_json::json;

/// Builds a form from bytes: 3 bytes a question (type and options, gate, default).
fn form_from(bytes: &[u8]) -> Form {
    let mut questions: Vec<Question> = Vec::new();
    for (index, chunk) in bytes.chunks(3).take(8).enumerate() {
        let [kind, gate, extra] = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let answer_type = AnswerType::ALL[usize::from(kind) % 5];
        let mut question = Question::new(
            format!("q{index}"),
            format!("Question {index}?"),
            answer_type,
        );
        if answer_type.has_options() {
            let count = 1 + usize::from(kind / 5) % 4;
            question.options = Some((0..count).map(|i| Choice::new(format!("o{i}"))).collect());
            question.allow_other = kind & 0x80 != 0;
        }
        if answer_type == AnswerType::Schema {
            question.schema = Some(json!({"type": "integer", "minimum": 0}));
        }
        if index > 0 && gate & 1 == 1 {
            let target = &questions[usize::from(gate >> 1) % index];
            let value = askuser_core::strategies::sample_answer(target, usize::from(extra));
            question.when = Some(match gate >> 5 {
                0 => When::not_equals(target.id.clone(), value),
                1 => When::Not(Box::new(When::equals(target.id.clone(), value))),
                _ => When::equals(target.id.clone(), value),
            });
        }
        questions.push(question);
    }
    Form::new(questions)
}

fn step(byte: u8) -> Step {
    match byte % 16 {
        0..=7 => Step::Answer(usize::from(byte >> 4)),
        8 | 9 => Step::AnswerInvalid(usize::from(byte >> 4)),
        10 => Step::AnswerWrongQuestion,
        11 | 12 => Step::Back,
        13 => Step::Reply,
        14 => Step::EndTurn,
        _ => match byte >> 6 {
            0 => Step::SystemCancel,
            1 => Step::UnknownInquiry,
            _ => Step::RequestAgain,
        },
    }
}

/// Each event's commands (or its refusal, in words), and the events decided.
fn run(events: &[Event]) -> (Vec<Result<Vec<Command>, String>>, Vec<Event>) {
    let mut state = State::new();
    let mut all = Vec::with_capacity(events.len());
    let mut recorded = Vec::new();
    for event in events {
        let before = state.clone();
        let decided = decide_event(&state, event).map(|decision| decision.event().clone());
        match reduce_event(&mut state, event) {
            Err(refusal) => {
                assert_eq!(before, state, "a refusal changed the state");
                assert!(decided.is_err());
                all.push(Err(refusal.to_string()));
            }
            Ok(commands) => {
                assert!(!commands.is_empty());
                recorded.push(decided.expect("an accepted input was decided"));
                all.push(Ok(commands));
            }
        }
    }
    (all, recorded)
}

/// Applies recorded events only (no deciding): the commands of each.
fn replay(recorded: &[Event]) -> Vec<Vec<Command>> {
    let mut state = State::new();
    recorded
        .iter()
        .map(|event| {
            let mut commands = Vec::new();
            state.apply(event, &mut commands);
            commands
        })
        .collect()
}

fn check(events: &[Event]) {
    let (first, recorded) = run(events);
    assert_eq!(first, run(events).0);
    let accepted: Vec<Vec<Command>> = first.into_iter().flatten().collect();
    assert_eq!(replay(&recorded), accepted);
}

fuzz_target!(|data: &[u8]| {
    if data.is_empty() {
        return;
    }
    // Raw bytes as JSON events (exercises deserialization and arbitrary forms).
    if let Ok(events) = serde_json::from_slice::<Vec<Event>>(data) {
        check(&events);
        return;
    }
    // Otherwise: a form built from the first bytes, steps from the rest.
    let split = usize::from(data[0] % 24) + 1;
    let (head, tail) = data[1..].split_at(split.min(data.len() - 1));
    if head.is_empty() {
        return;
    }
    let form = form_from(head);
    let steps: Vec<Step> = tail.iter().copied().map(step).collect();
    let events = session_events(&form, &steps);
    check(&events);
});
