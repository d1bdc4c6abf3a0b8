//! The log's record decoder against arbitrary bytes: a record either decodes or is a
//! corruption error naming its stream and sequence; never a panic. A valid record with
//! any one byte changed is always caught (the checksum covers key and payload). The
//! bytes are also sealed as the payload of a block (format 3) with a checksum that
//! passes, so that the block reader (varints, LZ4, forms, events) meets them too:
//! every event it gives is in the block's range, and every problem names one.

#![no_main]

use askuser_core::{Event, InquiryId};
use askuser_store::codec::{decode_event_record, decode_event_value, encode_event_record};
use askuser_store::{StoreError, Timestamp};
use libfuzzer_sys::fuzz_target;

/// `payload` in a format-3 envelope whose checksum is right for event 42 of "fuzz".
fn sealed_block(payload: &[u8]) -> Vec<u8> {
    let mut key = b"fuzz\0".to_vec();
    key.extend_from_slice(&42_u64.to_be_bytes());
    let mut crc = crc32fast::Hasher::new();
    crc.update(&key);
    crc.update(&[3]);
    crc.update(payload);
    let mut value = vec![3];
    value.extend_from_slice(&crc.finalize().to_be_bytes());
    value.extend_from_slice(payload);
    value
}

fuzz_target!(|data: &[u8]| {
    for recorded in decode_event_value("fuzz", 42, &sealed_block(data)) {
        match recorded {
            Ok(record) => assert!((42..42 + 256).contains(&record.seq)),
            Err(StoreError::Corrupt { stream, seq, .. }) => {
                assert!(stream == "fuzz" && (42..42 + 256).contains(&seq));
            }
            Err(other) => panic!("a damaged block must be reported as corrupt, not {other}"),
        }
    }
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
