//! The log's record decoder against arbitrary bytes: a record either decodes or is a
//! corruption error naming its stream and sequence; never a panic. A valid record with
//! any one byte changed is always caught (the checksum covers key and payload).

#![no_main]

use askuser_core::{Event, InquiryId};
use askuser_store::{StoreError, Timestamp, decode_event_record, encode_event_record};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    match decode_event_record("fuzz", 42, data) {
        Ok(record) => assert_eq!(record.seq, 42),
        Err(StoreError::Corrupt { stream, seq, .. }) => {
            assert_eq!((stream.as_str(), seq), ("fuzz", 42))
        }
        Err(other) => panic!("a damaged record must be reported as corrupt, not {other}"),
    }
    if let [position, flip, ..] = data
        && *flip != 0
    {
        let event = Event::Back {
            inquiry: InquiryId::new("call-1"),
        };
        let mut bytes = encode_event_record("fuzz", 42, Timestamp(1), &event).expect("encodes");
        let index = usize::from(*position) % bytes.len();
        bytes[index] ^= flip;
        assert!(
            decode_event_record("fuzz", 42, &bytes).is_err(),
            "byte {index} ^ {flip:#x} was not caught"
        );
    }
});
