//! The inquiries that ended since a moment, by agent, as the desk hands them
//! out for the inbox's "Answered today": the agent whose inquiry ended last
//! first, the latest first in each, what each sent; read again only when a
//! stream moved.

use std::sync::Arc;

use askuser_app::{Desk, Ending};
use askuser_core::{AnswerInput, Input, InquiryId};
use askuser_store::{Log, ManualClock, MemLog, Timestamp};
use askuser_testkit::build::{agent, db_form, request};
use serde_json::json;

/// Asks the database question as `inquiry` in `stream` at `at` and answers it
/// `value` a second later.
fn asked_and_answered(
    desk: &mut Desk,
    clock: &ManualClock,
    stream: &str,
    inquiry: &str,
    at: u64,
    value: &str,
) {
    clock.set(Timestamp(at));
    desk.input(stream, &Input::Ask(request(inquiry, db_form())))
        .unwrap();
    clock.set(Timestamp(at + 1_000));
    let shown = desk
        .state(stream)
        .unwrap()
        .at(&InquiryId::new(inquiry))
        .unwrap();
    let outcome = desk
        .input(stream, &Input::from(AnswerInput::new(shown, json!(value))))
        .unwrap();
    assert!(outcome.refusal().is_none());
}

/// An inquiry that ended: its id, how, and how many answers it sent.
type Ended = (String, Ending, usize);

/// Each stream's inquiries that ended, as `(stream, [(inquiry, ending, answers)])`.
fn seen(desk: &mut Desk, since: u64) -> Vec<(String, Vec<Ended>)> {
    (desk.ended_since(Timestamp(since)).unwrap().into_iter())
        .map(|day| {
            let ended = (day.ended.iter())
                .map(|story| {
                    let ended = story.ended.as_ref().unwrap();
                    (story.inquiry.to_string(), ended.how, ended.answers().len())
                })
                .collect();
            (day.stream, ended)
        })
        .collect()
}

#[test]
fn what_ended_since_a_moment_comes_by_agent_the_latest_first() {
    let clock = ManualClock::new(Timestamp(1_000_000));
    let log: Arc<dyn Log> = Arc::new(MemLog::new().with_clock(clock.clone()));
    let mut desk = Desk::new(Arc::clone(&log));
    for stream in ["a", "b"] {
        desk.input(stream, &Input::Attach(agent("Claude Code")))
            .unwrap();
    }
    // Ended before the day: not listed.
    asked_and_answered(&mut desk, &clock, "a", "old", 1_000_000, "SQLite");
    let shown = desk.state("a").unwrap().at(&InquiryId::new("old")).unwrap();
    desk.input(
        "a",
        &Input::Reply {
            at: shown,
            message: None,
        },
    )
    .unwrap();
    asked_and_answered(&mut desk, &clock, "a", "a1", 2_000_000, "PostgreSQL");
    asked_and_answered(&mut desk, &clock, "b", "b1", 2_100_000, "SQLite");
    asked_and_answered(&mut desk, &clock, "a", "a2", 2_200_000, "SQLite");
    // Each inquiry of the database form is answered in one step (its second
    // question waits): still open, so not listed.
    let waiting = |desk: &mut Desk| seen(desk, 1_500_000);
    assert_eq!(waiting(&mut desk), Vec::new());
    // Ended: a Reply on each.
    for (stream, inquiry) in [("a", "a1"), ("b", "b1"), ("a", "a2")] {
        clock.advance(1_000);
        let shown = desk
            .state(stream)
            .unwrap()
            .at(&InquiryId::new(inquiry))
            .unwrap();
        desk.input(
            stream,
            &Input::Reply {
                at: shown,
                message: None,
            },
        )
        .unwrap();
    }
    let expected = vec![
        (
            "a".to_owned(),
            vec![
                ("a2".to_owned(), Ending::Replied, 1),
                ("a1".to_owned(), Ending::Replied, 1),
            ],
        ),
        ("b".to_owned(), vec![("b1".to_owned(), Ending::Replied, 1)]),
    ];
    assert_eq!(waiting(&mut desk), expected);
    // Asked again with nothing moved: the same, from what the desk kept.
    assert_eq!(waiting(&mut desk), expected);
    // Since a later moment: only what ended after it.
    assert_eq!(
        seen(&mut desk, 2_201_001 + 2_000),
        vec![("a".to_owned(), vec![("a2".to_owned(), Ending::Replied, 1)])]
    );
}
