//! For log backends: the encoding of records, keys, and the envelope around every
//! value. A backend stores what these functions produce and reads it back with
//! them, so that every backend stores the same bytes (the PostgreSQL log stores a
//! sled log's values as they are) and reports damage the same way.
//!
//!
//! Keys are the stream name, a `0x00` separator (names may not contain NUL), and for
//! events and snapshots the sequence number as a big-endian `u64`, so a prefix scan of
//! a stream returns its records in order.
//!
//! Every value is an envelope:
//!
//! ```text
//! [format version: u8][crc32: u32, big-endian][payload]
//! ```
//!
//! The checksum covers the record's key, the version byte and the payload, so a
//! flipped bit, a torn write or a record under the wrong key is detected and reported
//! as [`StoreError::Corrupt`] naming the stream and sequence number.
//!
//! Stream records and snapshots hold `MessagePack` with named fields. Events: in
//! formats 1 and 2, one event per value (`{at, event}`, `MessagePack`); in format 3,
//! the events of one append together, a few kilobytes per value (a block, see
//! `block.rs`), under the key of the block's first event. Every format is
//! read; format 3 is written.

use askuser_core::{Event, State};
use serde::{Deserialize, Serialize};

use crate::error::{RecordKind, Result, StoreError};
use crate::types::{ForkPoint, Recorded, Seq, Snapshot, Timestamp};

/// The envelope's current format version: what this build writes. Version 3 stores
/// the events of an append together (blocks); version 2 stored one event per value,
/// with its verdict (replay applies it alone); version 1, the first format,
/// recorded inputs (replay decides them again). All three are read.
pub const FORMAT_VERSION: u8 = 3;
/// The first format version, still read.
pub const FIRST_FORMAT_VERSION: u8 = 1;
/// The first format whose events carry their verdicts.
const DECIDED_SINCE: u8 = 2;
/// The last format that stores one event per value.
const LAST_SINGLE_RECORD: u8 = 2;
/// The envelope's header: the version and the checksum.
pub const HEADER: usize = 5;

/// The longest stream name, in bytes.
pub const MAX_STREAM_NAME: usize = 200;

/// Checks a stream name against the one rule ([`StreamName`](crate::StreamName)):
/// what every backend does with a name it is handed as `&str` (by any caller,
/// another process included) before it reads or writes anything.
///
/// # Errors
///
/// [`StoreError::InvalidStreamName`], naming what is wrong.
pub fn check_name(name: &str) -> Result<()> {
    crate::StreamName::check(name).map_err(|reason| StoreError::InvalidStreamName {
        name: name.to_owned(),
        reason,
    })
}

/// The key prefix of a stream's events or snapshots: name ++ 0x00.
pub fn prefix(stream: &str) -> Vec<u8> {
    let mut key = Vec::with_capacity(stream.len() + 9);
    key.extend_from_slice(stream.as_bytes());
    key.push(0);
    key
}

/// The key of a stream's event or snapshot `seq`.
pub fn seq_key(stream: &str, seq: Seq) -> Vec<u8> {
    let mut key = prefix(stream);
    key.extend_from_slice(&seq.to_be_bytes());
    key
}

/// The sequence number at the end of an event or snapshot key.
pub fn key_seq(key: &[u8]) -> Option<Seq> {
    let tail: [u8; 8] = key.get(key.len().checked_sub(8)?..)?.try_into().ok()?;
    Some(Seq::from_be_bytes(tail))
}

/// The checksum of a record: its key, its version and its payload.
pub fn checksum(key: &[u8], version: u8, payload: &[u8]) -> u32 {
    let mut hasher = crc32fast::Hasher::new();
    hasher.update(key);
    hasher.update(&[version]);
    hasher.update(payload);
    hasher.finalize()
}

/// Wraps a `MessagePack` payload in the envelope, for the record stored under `key`.
///
/// # Errors
///
/// What is wrong with the name or value: a torn or damaged envelope, another key's checksum, a payload that does not decode or encode.
pub fn seal(key: &[u8], value: &impl Serialize) -> Result<Vec<u8>> {
    let mut out = vec![FORMAT_VERSION, 0, 0, 0, 0];
    rmp_serde::encode::write_named(&mut out, value)
        .map_err(|e| StoreError::Encode(e.to_string()))?;
    let crc = checksum(key, FORMAT_VERSION, &out[HEADER..]);
    out[1..HEADER].copy_from_slice(&crc.to_be_bytes());
    Ok(out)
}

/// Checks the envelope of the record under `key` and decodes its payload. On any
/// problem, returns the reason (the caller names the record).
///
/// # Errors
///
/// What is wrong with the name or value: a torn or damaged envelope, another key's checksum, a payload that does not decode or encode.
pub fn open<T: for<'de> Deserialize<'de>>(key: &[u8], bytes: &[u8]) -> Result<T, String> {
    open_versioned(key, bytes).map(|(value, _)| value)
}

/// [`open`], also giving the record's format version.
///
/// # Errors
///
/// What is wrong with the name or value: a torn or damaged envelope, another key's checksum, a payload that does not decode or encode.
pub fn open_versioned<T: for<'de> Deserialize<'de>>(
    key: &[u8],
    bytes: &[u8],
) -> Result<(T, u8), String> {
    let version = check_envelope(key, bytes)?;
    rmp_serde::from_slice(&bytes[HEADER..])
        .map(|value| (value, version))
        .map_err(|e| format!("the payload does not decode: {e}"))
}

/// Checks the envelope of the record under `key`: long enough, of a version this
/// build reads, and its checksum right. Returns the version.
///
/// # Errors
///
/// What is wrong with the name or value: a torn or damaged envelope, another key's checksum, a payload that does not decode or encode.
pub fn check_envelope(key: &[u8], bytes: &[u8]) -> Result<u8, String> {
    if bytes.len() < HEADER {
        return Err(format!(
            "the record is {} bytes long, shorter than its header (torn write?)",
            bytes.len()
        ));
    }
    let version = bytes[0];
    if !(FIRST_FORMAT_VERSION..=FORMAT_VERSION).contains(&version) {
        return Err(format!(
            "unknown record format version {version} (this build reads versions {FIRST_FORMAT_VERSION} to {FORMAT_VERSION}: was it written by a newer askuser?)"
        ));
    }
    let stored = u32::from_be_bytes([bytes[1], bytes[2], bytes[3], bytes[4]]);
    let payload = &bytes[HEADER..];
    let actual = checksum(key, version, payload);
    if stored != actual {
        return Err(format!(
            "checksum mismatch (stored {stored:#010x}, computed {actual:#010x})"
        ));
    }
    Ok(version)
}

/// Like [`open`], reporting a problem as [`StoreError::Corrupt`].
///
/// # Errors
///
/// What is wrong with the name or value: a torn or damaged envelope, another key's checksum, a payload that does not decode or encode.
pub fn open_record<T: for<'de> Deserialize<'de>>(
    kind: RecordKind,
    stream: &str,
    seq: Seq,
    key: &[u8],
    bytes: &[u8],
) -> Result<T> {
    open(key, bytes).map_err(|detail| StoreError::Corrupt {
        kind,
        stream: stream.to_owned(),
        seq,
        detail,
    })
}

/// Whether a stored event value is a record of one event (formats 1 and 2) rather
/// than a block (format 3, or a damaged value: the block reader names the problem).
pub fn is_single_record(bytes: &[u8]) -> bool {
    matches!(bytes.first(), Some(&version) if (FIRST_FORMAT_VERSION..=LAST_SINGLE_RECORD).contains(&version))
}

/// Decodes the single-event record (format 1 or 2) under `key`: event `seq` of
/// `stream`.
///
/// # Errors
///
/// What is wrong with the name or value: a torn or damaged envelope, another key's checksum, a payload that does not decode or encode.
pub fn open_event(stream: &str, seq: Seq, key: &[u8], bytes: &[u8]) -> Result<Recorded> {
    open_versioned::<EventRecord>(key, bytes)
        .map(|(record, version)| Recorded {
            seq,
            at: record.at,
            event: record.event,
            decided: version >= DECIDED_SINCE,
        })
        .map_err(|detail| corrupt_event(stream, seq, detail))
}

/// A damaged event.
pub fn corrupt_event(stream: &str, seq: Seq, detail: String) -> StoreError {
    StoreError::Corrupt {
        kind: RecordKind::Event,
        stream: stream.to_owned(),
        seq,
        detail,
    }
}

/// Decodes one stored event value: the bytes the `events` tree holds under the key
/// of event `seq` of `stream` (a record of one event, or a block of events from
/// `seq` on), giving each event or the problem with it. The log does this for
/// every event it reads; it is public for tools that inspect a database and for
/// fuzzing.
///
/// A value that cannot be opened at all (torn, of an unknown version, failing its
/// checksum) is one error at `seq`.
pub fn decode_event_value(stream: &str, seq: Seq, bytes: &[u8]) -> Vec<Result<Recorded>> {
    let key = seq_key(stream, seq);
    if is_single_record(bytes) {
        return vec![open_event(stream, seq, &key, bytes)];
    }
    match crate::block::BlockReader::open(&key, seq, bytes) {
        Ok(mut reader) => std::iter::from_fn(|| reader.next_event())
            .map(|(seq, event)| event.map_err(|detail| corrupt_event(stream, seq, detail)))
            .collect(),
        Err(detail) => vec![Err(corrupt_event(stream, seq, detail))],
    }
}

/// Decodes a stored value holding the one event `seq` of `stream` (as
/// [`encode_event_record`] writes it, or a record of an older format).
///
/// # Errors
/// [`StoreError::Corrupt`] naming the stream and sequence when the value is torn, of
/// an unknown version, fails its checksum, does not decode, or holds other than one
/// event. Never a panic.
pub fn decode_event_record(stream: &str, seq: Seq, bytes: &[u8]) -> Result<Recorded> {
    let mut events = decode_event_value(stream, seq, bytes);
    if events.len() != 1 {
        return Err(corrupt_event(
            stream,
            seq,
            format!("the value holds {} events, not one", events.len()),
        ));
    }
    events
        .pop()
        .unwrap_or_else(|| Err(corrupt_event(stream, seq, String::new())))
}

/// Encodes an event as today's format stores an append of that one event (a block
/// of one), which [`decode_event_record`] reads back.
///
/// # Errors
/// [`StoreError::Encode`] if the event cannot be encoded.
pub fn encode_event_record(
    stream: &str,
    seq: Seq,
    at: Timestamp,
    event: &Event,
) -> Result<Vec<u8>> {
    let mut blocks = crate::block::encode_append(stream, seq, at, std::slice::from_ref(event))?;
    Ok(blocks.pop().map(|(_, value)| value).unwrap_or_default())
}

/// An event as stored (owned, decoded).
#[derive(Deserialize)]
pub struct EventRecord {
    /// When it was appended.
    pub at: Timestamp,
    /// The event.
    pub event: Event,
}

/// A stream's metadata as stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StreamRecord {
    /// The stream's head.
    pub head: Seq,
    /// Where it branched from, for a fork.
    #[serde(default)]
    pub parent: Option<ForkPoint>,
    /// When it was created.
    pub created_at: Timestamp,
    /// The last event dropped by a compaction (0 for none).
    #[serde(default)]
    pub floor: Seq,
}

/// The version of the reducer state's serialized shape that a snapshot holds. A
/// snapshot of another version is not used (the log replays from an older snapshot
/// or from the start instead); version 1 (before finished inquiries kept what they
/// sent) still reads. Bump it when `askuser_core::State`'s serde shape changes.
pub const STATE_FORMAT: u32 = 2;

/// A snapshot as stored (borrowing, to encode).
#[derive(Serialize)]
pub struct SnapshotRef<'a> {
    /// [`STATE_FORMAT`].
    pub state_format: u32,
    /// The event the state is after.
    pub seq: Seq,
    /// When it was taken.
    pub taken_at: Timestamp,
    /// The state.
    pub state: &'a State,
}

/// The head of a stored snapshot, decoded first to check its state format.
#[derive(Deserialize)]
pub struct SnapshotHead {
    /// The state format of the snapshot.
    pub state_format: u32,
}

/// A snapshot as stored (owned, decoded).
#[derive(Deserialize)]
pub struct SnapshotRecord {
    /// The state format of the snapshot.
    pub state_format: u32,
    /// The event the state is after.
    pub seq: Seq,
    /// When it was taken.
    pub taken_at: Timestamp,
    /// The state.
    pub state: State,
}

/// Decodes the snapshot of `stream` at `seq` stored under `key`: `None` when it
/// was taken in another state format (the replay then starts from an older one or
/// the start). Its head is decoded first, so that a state of another format is
/// never decoded.
///
/// # Errors
///
/// What is wrong with the name or value: a torn or damaged envelope, another key's checksum, a payload that does not decode or encode.
pub fn open_snapshot(stream: &str, seq: Seq, key: &[u8], bytes: &[u8]) -> Result<Option<Snapshot>> {
    let head: SnapshotHead = open_record(RecordKind::Snapshot, stream, seq, key, bytes)?;
    if !(1..=STATE_FORMAT).contains(&head.state_format) {
        return Ok(None);
    }
    let record: SnapshotRecord = open_record(RecordKind::Snapshot, stream, seq, key, bytes)?;
    Ok(Some(record.into()))
}

impl From<SnapshotRecord> for Snapshot {
    fn from(record: SnapshotRecord) -> Self {
        Snapshot {
            seq: record.seq,
            taken_at: record.taken_at,
            state: record.state,
            state_format: record.state_format,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_sort_by_stream_then_sequence() {
        let a1 = seq_key("a", 1);
        let a256 = seq_key("a", 256);
        let ab1 = seq_key("ab", 1);
        assert!(a1 < a256 && a256 < ab1);
        assert!(a256.starts_with(&prefix("a")) && !ab1.starts_with(&prefix("a")));
        assert_eq!(key_seq(&a256), Some(256));
    }

    #[test]
    fn the_envelope_detects_flipped_bits_and_foreign_keys() {
        let record = StreamRecord {
            head: 7,
            parent: None,
            created_at: Timestamp(5),
            floor: 0,
        };
        let key = b"s".as_slice();
        let sealed = seal(key, &record).unwrap();
        assert_eq!(open::<StreamRecord>(key, &sealed).unwrap(), record);
        for byte in 0..sealed.len() {
            let mut flipped = sealed.clone();
            flipped[byte] ^= 0x10;
            assert!(open::<StreamRecord>(key, &flipped).is_err(), "byte {byte}");
        }
        assert!(open::<StreamRecord>(b"t", &sealed).is_err());
        assert!(open::<StreamRecord>(key, &sealed[..3]).is_err());
        assert!(open::<StreamRecord>(key, &sealed[..sealed.len() - 1]).is_err());
    }
}

#[cfg(test)]
mod record_tests {
    use super::*;
    use askuser_testkit::build::back;

    #[test]
    fn an_event_record_round_trips_and_every_flipped_byte_is_caught() {
        let event = back("call-1");
        let at = Timestamp(1_700_000_000_000);
        let bytes = encode_event_record("s", 7, at, &event).unwrap();
        let read = decode_event_record("s", 7, &bytes).unwrap();
        assert_eq!((read.seq, read.at, read.event), (7, at, event));
        for index in 0..bytes.len() {
            let mut damaged = bytes.clone();
            damaged[index] ^= 0x20;
            assert!(
                decode_event_record("s", 7, &damaged).is_err(),
                "byte {index}"
            );
        }
        // The checksum covers the key: a record read under another sequence is caught.
        assert!(matches!(
            decode_event_record("s", 8, &bytes),
            Err(StoreError::Corrupt { seq: 8, .. })
        ));
    }
}
