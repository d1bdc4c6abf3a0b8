use super::*;
use proptest::prelude::*;

fn answered_alone(bytes: &[u8]) -> Option<Event> {
    answered(bytes, &mut None)
}

fn serde(bytes: &[u8]) -> Option<Event> {
    rmp_serde::from_slice(bytes).ok()
}

fn encode(event: &Event) -> Vec<u8> {
    rmp_serde::to_vec_named(event).unwrap()
}

fn json(float: bool) -> impl Strategy<Value = Value> {
    let exact = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<u64>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        ".{0,40}".prop_map(Value::String),
    ];
    let leaf = if float {
        prop_oneof![exact, any::<f64>().prop_map(Value::from)].boxed()
    } else {
        exact.boxed()
    };
    leaf.prop_recursive(4, 32, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((".{0,10}", inner), 0..6)
                .prop_map(|pairs| Value::Object(pairs.into_iter().collect())),
        ]
    })
}

fn answer(float: bool) -> impl Strategy<Value = Event> {
    let by = prop_oneof![
        Just(AnsweredBy::User),
        Just(AnsweredBy::Assistant),
        Just(AnsweredBy::Config),
        Just(AnsweredBy::Cache),
        Just(AnsweredBy::Timeout),
    ];
    (
        ".{0,30}",
        ".{0,30}",
        json(float),
        by,
        any::<bool>(),
        proptest::option::of(".{0,60}"),
    )
        .prop_map(
            |(inquiry, question, value, by, remember, note)| Event::Answered {
                inquiry: InquiryId::new(inquiry),
                question,
                value,
                by,
                remember,
                note,
            },
        )
}

proptest! {
    /// Every answer without floats is read by the fast path, as `rmp_serde` reads it.
    #[test]
    fn fast_and_serde_agree(event in answer(false)) {
        let bytes = encode(&event);
        prop_assert_eq!(answered_alone(&bytes), Some(event));
    }

    /// With floats anywhere, the fast path either agrees or leaves it to `rmp_serde`.
    #[test]
    fn floats_are_left_to_serde_or_agree(event in answer(true)) {
        let bytes = encode(&event);
        if let Some(fast) = answered_alone(&bytes) {
            prop_assert_eq!(Some(fast), serde(&bytes));
        }
    }

    /// On any bytes, whatever the fast path reads, `rmp_serde` reads the same.
    #[test]
    fn on_any_bytes_the_fast_path_never_reads_what_serde_would_not(
        event in answer(false),
        flips in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..4),
    ) {
        let mut bytes = encode(&event);
        for (at, byte) in flips {
            let at = at.index(bytes.len());
            bytes[at] = byte;
        }
        if let Some(fast) = answered_alone(&bytes) {
            prop_assert_eq!(Some(fast), serde(&bytes));
        }
    }
}

#[test]
fn other_events_and_odd_shapes_are_left_to_serde() {
    let back = encode(&Event::Back {
        inquiry: InquiryId::new("q"),
    });
    assert_eq!(answered_alone(&back), None);
    assert_eq!(answered_alone(&[]), None);
    // A field given twice: rmp_serde refuses it, the fast path does not read it.
    let mut twice = vec![0x81, 0xa8];
    twice.extend_from_slice(b"answered");
    twice.push(0x84);
    for (key, value) in [("inquiry", "a"), ("question", "q"), ("question", "r")] {
        twice.push(0xa0 | u8::try_from(key.len()).unwrap());
        twice.extend_from_slice(key.as_bytes());
        twice.push(0xa0 | u8::try_from(value.len()).unwrap());
        twice.extend_from_slice(value.as_bytes());
    }
    twice.extend_from_slice(&[0xa5, b'v', b'a', b'l', b'u', b'e', 0xc3]);
    assert_eq!(answered_alone(&twice), None);
    assert!(serde(&twice).is_none());
}
