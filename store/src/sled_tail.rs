//! This store's records in the part of sled's data file that sled's recovery no
//! longer reads: after a damaged or torn message, sled ignores (and, when it opens
//! the file in place, zeroes) every message written later, even intact ones. Each of
//! this store's records carries a CRC-32 of its key and payload, so it can be found
//! in the raw bytes and proved genuine without sled: [`find`] looks for the values
//! of event and stream records past the damage and checks each against the keys it
//! could have been stored under.

use std::collections::BTreeMap;

use crate::codec::{StreamRecord, open_event, open_record, seq_key};
use crate::error::RecordKind;
use crate::types::Seq;

/// The record format versions this build reads (the envelope's first byte).
const VERSIONS: std::ops::RangeInclusive<u8> = 1..=2;
/// The envelope: version, then a big-endian CRC-32.
const HEADER: usize = 5;
/// How far past a stream's recovered head the search looks for its events.
const SEARCH: Seq = 1 << 16;

/// What [`find`] found.
#[derive(Debug, Default)]
pub(crate) struct TailRecords {
    /// Events, per stream: sequence number to the record's stored bytes.
    pub events: BTreeMap<String, BTreeMap<Seq, Vec<u8>>>,
    /// Per stream, the highest head a genuine stream record in the tail commits.
    pub heads: BTreeMap<String, Seq>,
}

/// Looks in `data[from..]` for event and stream records of the streams in `heads`
/// (each with the head recovered without the tail). Only records whose CRC matches
/// a key they could have been stored under are kept.
pub(crate) fn find(data: &[u8], from: usize, heads: &BTreeMap<String, Seq>) -> TailRecords {
    let mut found = TailRecords::default();
    for at in from..data.len().saturating_sub(HEADER + 1) {
        if !VERSIONS.contains(&data[at]) || !(0x80..=0x8f).contains(&data[at + HEADER]) {
            continue; // Not an envelope around a MessagePack map.
        }
        let Some(length) = value_length(&data[at + HEADER..]) else {
            continue;
        };
        let value = &data[at..at + HEADER + length];
        for (stream, &head) in heads {
            let key = stream.as_bytes();
            if let Ok(record) =
                open_record::<StreamRecord>(RecordKind::Stream, stream, 0, key, value)
            {
                let best = found.heads.entry(stream.clone()).or_insert(0);
                *best = (*best).max(record.head);
                continue;
            }
            if let Some(seq) = event_seq(data, at, stream, head, value) {
                found
                    .events
                    .entry(stream.clone())
                    .or_default()
                    .insert(seq, value.to_vec());
            }
        }
    }
    found
}

/// How many bytes the `MessagePack` value at the start of `bytes` takes.
fn value_length(bytes: &[u8]) -> Option<usize> {
    let mut cursor = std::io::Cursor::new(bytes);
    let mut decoder = rmp_serde::Deserializer::new(&mut cursor);
    <serde::de::IgnoredAny as serde::Deserialize>::deserialize(&mut decoder).ok()?;
    usize::try_from(cursor.position()).ok()
}

/// The sequence number under which `value` (at `at` in `data`) is an event of
/// `stream`, if any. sled stores a fragment as its key (without the prefix it shares
/// with its page), the value's length, then the value: the byte just before the
/// length is the key's last byte, the low byte of the sequence number. Each number
/// past the head with that low byte is tried (a consolidated page keeps its keys
/// elsewhere: its records are found only when the byte happens to match).
fn event_seq(data: &[u8], at: usize, stream: &str, head: Seq, value: &[u8]) -> Option<Seq> {
    let length_size = match value.len() {
        0..=240 => 1,
        241..=2287 => 2,
        2288..=67_823 => 3,
        _ => 4,
    };
    let low = Seq::from(data[at.checked_sub(length_size + 1)?]);
    let first = ((head + 1) & !0xff) | low;
    (0..SEARCH / 256)
        .map(|i| first + i * 256)
        .filter(|seq| *seq > head)
        .find(|&seq| open_event(stream, seq, &seq_key(stream, seq), value).is_ok())
}

/// The events each stream of `log` is missing past the damage at `first_byte` of
/// the data file `data_file`: from its recovered head to the head a stream record
/// found intact there commits. Empty when the streams or the file cannot be read.
pub(crate) fn missing(
    log: &crate::SledLog,
    data_file: &std::path::Path,
    first_byte: u64,
) -> Vec<(String, std::ops::RangeInclusive<Seq>)> {
    use crate::Log;
    let Ok(streams) = log.streams() else {
        return Vec::new();
    };
    let Ok(data) = std::fs::read(data_file) else {
        return Vec::new();
    };
    let heads: BTreeMap<String, Seq> = streams.into_iter().map(|s| (s.name, s.head)).collect();
    let found = find(
        &data,
        usize::try_from(first_byte).unwrap_or(usize::MAX),
        &heads,
    );
    found
        .heads
        .into_iter()
        .filter_map(|(name, tail_head)| {
            let head = *heads.get(&name)?;
            (tail_head > head).then(|| (name, head + 1..=tail_head))
        })
        .collect()
}
