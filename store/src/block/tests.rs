use super::*;
use crate::codec::decode_event_value;
use crate::testing::scripted_events;

#[test]
fn placeholder() {
    let events: Vec<Event> = scripted_events(1, 10).collect();
    let blocks = encode_append("s", 1, Timestamp(5), &events).unwrap();
    assert_eq!(blocks.len(), 1);
    let read: Vec<Event> = decode_event_value("s", 1, &blocks[0].1)
        .into_iter()
        .map(|r| r.unwrap().event)
        .collect();
    assert_eq!(read, events);
}
