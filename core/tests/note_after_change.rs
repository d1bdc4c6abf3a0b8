//! A note written beside an answer, when that answer is changed: the prompt
//! asked again says the note is to be confirmed for another answer, and not for
//! the same one (`Prompt::note_to_confirm`, the rule every surface asks by).

use askuser_core::strategies::reduce_event;
use askuser_core::{AnsweredBy, Command, Event, InquiryId, Prompt, Request, State, parse_form};
use serde_json::{Value, json};

fn answered(id: &InquiryId, question: &str, value: Value, note: Option<&str>) -> Event {
    Event::Answered {
        inquiry: id.clone(),
        question: question.to_owned(),
        value,
        by: AnsweredBy::User,
        remember: false,
        note: note.map(str::to_owned),
    }
}

fn prompt(commands: &[Command]) -> &Prompt {
    match commands.last() {
        Some(Command::Prompt(prompt)) => prompt,
        other => panic!("no prompt: {other:?}"),
    }
}

#[test]
fn a_changed_answer_asks_whether_its_note_still_applies() {
    let id = InquiryId::from("c1");
    let form = parse_form(&json!({"questions": [
        {"id": "channel", "text": "Channel?", "answer_type": "select", "options": ["stable", "beta"]},
        {"id": "go", "text": "Go?", "answer_type": "boolean"}
    ]}))
    .unwrap();
    let mut state = State::default();
    let request = Event::Requested(Request {
        inquiry: id.clone(),
        form: form.form().clone(),
        policy: askuser_core::Policy::default(),
        origin: askuser_core::Origin::default(),
        call: None,
    });
    let first = reduce_event(&mut state, &request).unwrap();
    assert_eq!(prompt(&first).note_to_confirm(&json!("beta")), None);
    let note = "stable is fine, changelog merged";
    let channel = answered(&id, "channel", json!("stable"), Some(note));
    reduce_event(&mut state, &channel).unwrap();
    let back = reduce_event(
        &mut state,
        &Event::Back {
            inquiry: id.clone(),
        },
    )
    .unwrap();
    let again = prompt(&back);
    assert_eq!(
        (
            again.note_to_confirm(&json!("beta")),
            again.note_to_confirm(&json!("stable"))
        ),
        (Some(note), None)
    );
}
