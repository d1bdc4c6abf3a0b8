use super::*;
use crate::codec::decode_event_value;
use askuser_core::{AnsweredBy, CancelReason, OnTimeout, Persistence, Target, Timeout};
use askuser_testkit::{d30_form, scripted_event, scripted_events};
use serde_json::json;

fn read_all(stream: &str, blocks: &[(Vec<u8>, Vec<u8>)]) -> Vec<Recorded> {
    blocks
        .iter()
        .flat_map(|(key, value)| {
            let first = crate::codec::key_seq(key).unwrap();
            decode_event_value(stream, first, value)
        })
        .map(|r| r.unwrap())
        .collect()
}

/// Every kind of event, requests with and without a call and with policies and
/// origins other than the default.
fn every_kind() -> Vec<Event> {
    let inquiry = InquiryId::new("q");
    let request = |form: Arc<Form>, call: Option<ToolCall>, policy: Policy| {
        Event::Requested(Request {
            inquiry: inquiry.clone(),
            form,
            policy,
            origin: Origin {
                tool: "AskUserQuestion".to_owned(),
                turn: "t7".to_owned(),
                subagent: false,
                resumes: true,
            },
            call,
        })
    };
    let policy = Policy {
        target: Target::Assistant,
        interactive: false,
        exclusive: false,
        persistence: Persistence::Turn,
        static_answers: [("env".to_owned(), json!("staging"))].into(),
        label: None,
        timeout: Some(Timeout {
            after_ms: 60_000,
            on_timeout: OnTimeout::Defaults,
        }),
    };
    let call = ToolCall {
        dialect: "claude".to_owned(),
        arguments: json!({"questions": [{"question": "Apply?"}]}),
    };
    vec![
        request(d30_form(), None, Policy::default()),
        request(d30_form(), Some(call), policy),
        Event::Answered {
            inquiry: inquiry.clone(),
            question: "apply".to_owned(),
            value: json!(true),
            by: AnsweredBy::Cache,
            remember: true,
            note: Some("why not".to_owned()),
        },
        Event::AnswerRefused {
            inquiry: inquiry.clone(),
            question: "env".to_owned(),
            message: "not an option".to_owned(),
            reason: None,
        },
        Event::Back {
            inquiry: inquiry.clone(),
        },
        Event::Cancelled {
            inquiry: inquiry.clone(),
            reason: CancelReason::Unknown("a reason from the future".to_owned()),
            message: Some("stop".to_owned()),
        },
        Event::TurnEnded {
            inquiry: inquiry.clone(),
            surface: Some(askuser_core::Surface::Web),
        },
        Event::TimedOut {
            inquiry: inquiry.clone(),
            message: None,
            fired_at_ms: Some(1_767_225_600_000),
        },
        Event::Denied {
            inquiry: inquiry.clone(),
            reason: CancelReason::SubagentDenied,
            message: "no".to_owned(),
        },
        Event::Rejected {
            inquiry,
            tool: "ask_user".to_owned(),
            problems: Vec::new(),
        },
    ]
}

#[test]
fn every_kind_of_event_round_trips_with_its_sequence_and_time() {
    let events = every_kind();
    let blocks = encode_append("s", 41, Timestamp(1_700_000_000_000), &events).unwrap();
    assert_eq!(blocks.len(), 1);
    assert_eq!(blocks[0].0, seq_key("s", 41));
    let read = read_all("s", &blocks);
    let seqs: Vec<Seq> = read.iter().map(|r| r.seq).collect();
    assert_eq!(seqs, (41..51).collect::<Vec<_>>());
    assert!(
        read.iter()
            .all(|r| r.at.0 == 1_700_000_000_000 && r.decided)
    );
    let read: Vec<Event> = read.into_iter().map(|r| r.event).collect();
    assert_eq!(read, events);
}

#[test]
fn a_form_is_stored_once_per_block_and_shared_when_read() {
    // 25 requests of one form (under separate `Arc`s too): the block holds it once.
    let events: Vec<Event> = scripted_events(1, 100).collect();
    let blocks = encode_append("s", 1, Timestamp(5), &events).unwrap();
    assert_eq!(blocks.len(), 1);
    let one: Vec<Event> = scripted_events(1, 1).collect();
    let single = encode_append("s", 1, Timestamp(5), &one).unwrap();
    let form_bytes = rmp_serde::to_vec_named(&*d30_form()).unwrap().len();
    assert!(single[0].1.len() > form_bytes / 2, "{}", single[0].1.len());
    assert!(
        blocks[0].1.len() < 25 * form_bytes / 4,
        "{} bytes for 100 events",
        blocks[0].1.len()
    );
    let read = read_all("s", &blocks);
    let forms: Vec<&Arc<Form>> = read
        .iter()
        .filter_map(|r| match &r.event {
            Event::Requested(request) => Some(&request.form),
            _ => None,
        })
        .collect();
    assert_eq!(forms.len(), 25);
    assert!(forms.iter().all(|form| Arc::ptr_eq(form, forms[0])));
    let read: Vec<Event> = read.into_iter().map(|r| r.event).collect();
    assert_eq!(read, events);
}

#[test]
fn a_large_append_is_cut_into_bounded_blocks_keyed_by_their_first_event() {
    let events: Vec<Event> = scripted_events(1, 3_000).collect();
    let blocks = encode_append("s", 1, Timestamp(5), &events).unwrap();
    assert!(blocks.len() > 3, "{}", blocks.len());
    let mut next = 1;
    for (key, value) in &blocks {
        assert_eq!(*key, seq_key("s", next));
        let reader = BlockReader::open(key, next, value.as_slice()).unwrap();
        let count = reader.last() + 1 - next;
        assert!(count <= BLOCK_MAX_EVENTS);
        next = reader.last() + 1;
    }
    assert_eq!(next, 3_001);
    let read: Vec<Event> = read_all("s", &blocks)
        .into_iter()
        .map(|r| r.event)
        .collect();
    assert_eq!(read, events);
    // An event larger than a block gets one of its own, between the others.
    let huge = Event::AnswerRefused {
        inquiry: InquiryId::new("q"),
        question: "note".to_owned(),
        message: "x".repeat(3 * BLOCK_TARGET),
        reason: None,
    };
    let events = vec![scripted_event(1), huge, scripted_event(2)];
    let blocks = encode_append("s", 1, Timestamp(5), &events).unwrap();
    assert_eq!(blocks.len(), 3);
    let read: Vec<Event> = read_all("s", &blocks)
        .into_iter()
        .map(|r| r.event)
        .collect();
    assert_eq!(read, events);
}

#[test]
fn a_reader_starts_anywhere_in_a_block_with_the_forms_defined_before() {
    let events: Vec<Event> = scripted_events(1, 40).collect();
    let blocks = encode_append("s", 1, Timestamp(5), &events).unwrap();
    let (key, value) = &blocks[0];
    for from in 1..=40 {
        let mut reader = BlockReader::open(key, 1, value.as_slice()).unwrap();
        reader.skip_to(from);
        assert_eq!(reader.next_seq(), from);
        let read: Vec<Event> = std::iter::from_fn(|| reader.next_event())
            .map(|(_, r)| r.unwrap().event)
            .collect();
        assert_eq!(
            read,
            events[usize::try_from(from - 1).unwrap()..],
            "from {from}"
        );
    }
}

#[test]
fn timestamps_may_differ_within_a_block_and_go_backwards() {
    let mut writer = BlockWriter::new("s", 1);
    let times = [50, 7, u64::MAX / 2, 0, 1_700_000_000_000];
    for (n, at) in (1..).zip(times) {
        writer.push(Timestamp(at), &scripted_event(n)).unwrap();
    }
    let blocks = writer.finish();
    let read: Vec<u64> = read_all("s", &blocks).iter().map(|r| r.at.0).collect();
    assert_eq!(read, times);
}

#[test]
fn every_damaged_byte_of_a_block_is_caught_and_never_panics() {
    let events: Vec<Event> = scripted_events(1, 12).collect();
    let blocks = encode_append("s", 9, Timestamp(5), &events).unwrap();
    let value = &blocks[0].1;
    for index in 0..value.len() {
        for flip in [0x01, 0x80] {
            let mut damaged = value.clone();
            damaged[index] ^= flip;
            let read = decode_event_value("s", 9, &damaged);
            assert!(
                read.iter().all(Result::is_err),
                "byte {index} ^ {flip:#x} was not caught"
            );
        }
        let torn = decode_event_value("s", 9, &value[..index]);
        assert!(torn.iter().all(Result::is_err), "cut at {index}");
    }
    // Under another key (another stream, another sequence number): caught.
    assert!(
        decode_event_value("s", 10, value)
            .iter()
            .all(Result::is_err)
    );
    assert!(decode_event_value("t", 9, value).iter().all(Result::is_err));
}

/// A block whose checksum is right but whose body is not what a writer makes (a
/// bug, or a hand-made value): each event it cannot read is named, never a panic.
fn sealed(first: Seq, body: &[u8]) -> Vec<u8> {
    let key = seq_key("s", first);
    let mut value = vec![BLOCK_VERSION, 0, 0, 0, 0, CODEC_NONE];
    value.extend_from_slice(body);
    let crc = checksum(&key, BLOCK_VERSION, &value[HEADER..]);
    value[1..HEADER].copy_from_slice(&crc.to_be_bytes());
    value
}

#[test]
fn a_malformed_body_is_reported_event_by_event() {
    // Two events claimed; the first is fine, the second refers to a missing form.
    let mut body = Vec::new();
    put_varint(&mut body, 2);
    put_varint(&mut body, 5);
    let back = rmp_serde::to_vec_named(&Event::Back {
        inquiry: InquiryId::new("q"),
    })
    .unwrap();
    body.push(0); // at delta
    body.push(KIND_EVENT);
    put_varint(&mut body, back.len() as u64);
    body.extend_from_slice(&back);
    body.push(0);
    body.push(KIND_FORM_REF);
    put_varint(&mut body, 3);
    put_varint(&mut body, 0);
    let read = decode_event_value("s", 1, &sealed(1, &body));
    assert_eq!(read.len(), 2);
    assert!(read[0].is_ok());
    let Err(StoreError::Corrupt { seq: 2, detail, .. }) = &read[1] else {
        panic!("{read:?}");
    };
    assert_eq!(detail, "a request refers to a form the block does not hold");
    // A count of zero, or more events than a block holds: refused as a whole.
    for count in [0, BLOCK_MAX_EVENTS + 1, u64::MAX] {
        let mut body = Vec::new();
        put_varint(&mut body, count);
        put_varint(&mut body, 5);
        let read = decode_event_value("s", 1, &sealed(1, &body));
        assert_eq!(read.len(), 1);
        assert!(read[0].is_err());
    }
    // More events claimed than the body holds: the missing ones are named.
    let mut body = Vec::new();
    put_varint(&mut body, 3);
    put_varint(&mut body, 5);
    let read = decode_event_value("s", 1, &sealed(1, &body));
    let seqs: Vec<Seq> = read
        .iter()
        .map(|r| match r {
            Err(StoreError::Corrupt { seq, .. }) => *seq,
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(seqs, [1, 2, 3]);
}

#[test]
fn varints_and_zigzag_round_trip() {
    for value in [0, 1, 127, 128, 300, u64::from(u32::MAX), u64::MAX] {
        let mut out = Vec::new();
        put_varint(&mut out, value);
        let mut pos = 0;
        assert_eq!(get_varint(&out, &mut pos), Some(value));
        assert_eq!(pos, out.len());
    }
    for delta in [0, 1, -1, i64::MAX, i64::MIN] {
        assert_eq!(unzigzag(zigzag(delta)), delta);
    }
    assert_eq!(get_varint(&[0x80; 11], &mut 0), None);
}

/// A block's events read through `next_event` and through `visit_next`.
fn both_ways(first: Seq, value: &[u8]) -> [Vec<(Seq, Result<Recorded, String>)>; 2] {
    let key = crate::codec::seq_key("s", first);
    let mut returned = BlockReader::open(&key, first, value).unwrap();
    let mut visited = BlockReader::open(&key, first, value).unwrap();
    [
        std::iter::from_fn(|| returned.next_event()).collect(),
        std::iter::from_fn(|| visited.visit_next(|seq, event| (seq, event.cloned()))).collect(),
    ]
}

#[test]
fn a_visit_hands_over_what_next_event_returns_damage_included() {
    let events = every_kind();
    let blocks = encode_append("s", 1, Timestamp(7), &events).unwrap();
    for (key, value) in &blocks {
        let first = crate::codec::key_seq(key).unwrap();
        let [returned, visited] = both_ways(first, value);
        assert_eq!(returned.len(), events.len());
        assert_eq!(visited, returned);
    }
    // A body whose second event refers to a form it does not hold, and one
    // that claims more events than it holds.
    let mut body = Vec::new();
    put_varint(&mut body, 3);
    put_varint(&mut body, 5);
    body.push(0);
    body.push(KIND_FORM_REF);
    put_varint(&mut body, 3);
    put_varint(&mut body, 0);
    let [returned, visited] = both_ways(1, &sealed(1, &body));
    assert_eq!(returned.len(), 3);
    assert!(returned.iter().all(|(_, event)| event.is_err()));
    assert_eq!(visited, returned);
}
