//! Blocks of the log (format 3) with checksums that pass, so that the block
//! reader past the envelope is what is fuzzed. A session's events (a form built
//! from bytes, steps from bytes, timestamps that may go backwards, the form
//! repeated so that a request refers to it) are written by the store's own
//! block writer and must read back exactly, event by event; then one block's
//! body (decompressed) is damaged by the bytes left (inserts, deletions, flips)
//! and sealed again, stored or LZ4-compressed, with a checksum that passes: the
//! reader gives every event of the block's range or a corruption naming it,
//! from the first event or from any one after it; never a panic.

#![no_main]

mod common;

use askuser_core::strategies::{Step, session_events};
use askuser_store::block::{BLOCK_MAX_EVENTS, BLOCK_VERSION, BlockReader, BlockWriter};
use askuser_store::codec::{HEADER, checksum, decode_event_value, seq_key};
use askuser_store::{StoreError, Timestamp};
use libfuzzer_sys::fuzz_target;

const STREAM: &str = "fuzz";

fn step(byte: u8) -> Step {
    match byte % 8 {
        0..=4 => Step::Answer(usize::from(byte >> 3)),
        5 => Step::AnswerInvalid(usize::from(byte >> 3)),
        6 => Step::Back,
        _ => Step::Reply,
    }
}

fn put_varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value & 0x7f) as u8 | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

fn get_varint(bytes: &[u8], pos: &mut usize) -> Option<u64> {
    let mut value = 0u64;
    for shift in (0..64).step_by(7) {
        let byte = *bytes.get(*pos)?;
        *pos += 1;
        value |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return Some(value);
        }
    }
    None
}

/// The body of a block the writer made (decompressed when it was compressed).
fn body_of(value: &[u8]) -> Vec<u8> {
    let payload = &value[HEADER..];
    match payload[0] {
        0 => payload[1..].to_vec(),
        1 => {
            let mut pos = 1;
            let len = get_varint(payload, &mut pos).expect("a length") as usize;
            lz4_flex::block::decompress(&payload[pos..], len).expect("the writer's LZ4")
        }
        other => panic!("the writer used codec {other}"),
    }
}

/// `body` sealed as the block keyed by `first`, stored or compressed, with a
/// checksum that passes.
fn sealed(first: u64, body: &[u8], compress: bool) -> Vec<u8> {
    let mut payload = Vec::new();
    if compress {
        payload.push(1);
        put_varint(&mut payload, body.len() as u64);
        payload.extend_from_slice(&lz4_flex::block::compress(body));
    } else {
        payload.push(0);
        payload.extend_from_slice(body);
    }
    let crc = checksum(&seq_key(STREAM, first), BLOCK_VERSION, &payload);
    let mut value = vec![BLOCK_VERSION];
    value.extend_from_slice(&crc.to_be_bytes());
    value.extend_from_slice(&payload);
    value
}

/// `body` damaged by `edits`, 3 bytes an edit: where (2 bytes) and what.
fn damaged(mut body: Vec<u8>, edits: &[u8]) -> Vec<u8> {
    for edit in edits.chunks_exact(3) {
        let at = usize::from(u16::from_be_bytes([edit[0], edit[1]])) % (body.len() + 1);
        match edit[2] {
            0..=0x3f => body.insert(at, edit[2] << 2),
            0x40..=0x5f if at < body.len() => {
                body.remove(at);
            }
            0x60..=0x6f => body.splice(at..at, [0xff; 9]).for_each(drop),
            flip if at < body.len() => body[at] ^= flip,
            _ => {}
        }
    }
    body
}

fn check_damaged(first: u64, value: &[u8], skip: u64) {
    let range = first..first + BLOCK_MAX_EVENTS;
    let read = decode_event_value(STREAM, first, value);
    assert!(!read.is_empty() && read.len() as u64 <= BLOCK_MAX_EVENTS);
    for (i, recorded) in read.iter().enumerate() {
        let expected = first + i as u64;
        match recorded {
            Ok(record) => assert_eq!(record.seq, expected),
            Err(StoreError::Corrupt { stream, seq, .. }) => {
                assert!(
                    stream == STREAM && *seq == expected,
                    "{stream} {seq} at {expected}"
                );
            }
            Err(other) => panic!("a damaged block must be reported as corrupt, not {other}"),
        }
    }
    if let Ok(mut reader) = BlockReader::open(&seq_key(STREAM, first), first, value) {
        reader.skip_to(first + skip);
        while let Some((seq, _)) = reader.next_event() {
            assert!(
                range.contains(&seq) && seq >= first + skip,
                "{seq} after skipping to {}",
                first + skip
            );
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let [length, steps, again, start, rest @ ..] = data else {
        return;
    };
    let (head, rest) = rest.split_at((3 * (1 + usize::from(*length) % 8)).min(rest.len()));
    let (steps_bytes, rest) = rest.split_at(usize::from(*steps % 64).min(rest.len()));
    if head.is_empty() {
        return;
    }
    let form = common::form_from(head);
    let steps: Vec<Step> = steps_bytes.iter().copied().map(step).collect();
    let mut events = session_events(&form, &steps);
    for _ in 0..*again % 4 {
        events.extend(session_events(&form, &steps));
    }
    let first = 1 + u64::from(*start);
    // Timestamps from the step bytes: forwards mostly, sometimes backwards.
    let times: Vec<u64> = (0..events.len())
        .map(|i| {
            let b = u64::from(steps_bytes.get(i).copied().unwrap_or(0));
            1_700_000_000_000 + (i as u64) * 1000 + b * 7919 - (b & 1) * 300_000
        })
        .collect();
    let mut writer = BlockWriter::new(STREAM, first);
    for (event, at) in events.iter().zip(&times) {
        writer
            .push(Timestamp(*at), event)
            .expect("an event encodes");
    }
    let blocks = writer.finish();
    let mut seq = first;
    for (key, value) in &blocks {
        assert_eq!(*key, seq_key(STREAM, seq));
        for recorded in decode_event_value(STREAM, seq, value) {
            let record = recorded.expect("a block the writer made reads");
            let index = (seq - first) as usize;
            assert_eq!(record.seq, seq);
            assert_eq!(record.at, Timestamp(times[index]));
            assert_eq!(record.event, events[index]);
            seq += 1;
        }
    }
    assert_eq!(seq - first, events.len() as u64, "events were lost");
    // One block damaged, sealed again with a checksum that passes.
    let Some((&choice, edits)) = rest.split_first() else {
        return;
    };
    let index = usize::from(choice >> 1) % blocks.len();
    let (key, value) = &blocks[index];
    let block_first = askuser_store::codec::key_seq(key).expect("a block key");
    let body = damaged(body_of(value), edits);
    let skip = u64::from(edits.first().copied().unwrap_or(0));
    check_damaged(
        block_first,
        &sealed(block_first, &body, choice & 1 == 1),
        skip,
    );
});
