//! This store's records in the part of sled's data file that sled's recovery no
//! longer reads: after a damaged or torn message, sled ignores (and, when it opens
//! the file in place, zeroes) every message written later, even intact ones. Each of
//! this store's records carries a CRC-32 of its key and payload, so it can be found
//! in the raw bytes and proved genuine without sled: [`find`] looks for the values
//! of event and stream records past the damage and checks each against the keys it
//! could have been stored under.
//!
//! sled writes every value as its length (sled's own varint) followed by its bytes.
//! A stream record, or a record of one event (formats 1 and 2), is a `MessagePack`
//! map, whose length can be read from the record itself; a block (format 3) is found by its version and
//! codec bytes, and its length is read from sled's varint just before it.

use std::collections::{BTreeMap, BTreeSet};

use askuser_store::RecordKind;
use askuser_store::Seq;
use askuser_store::block::BLOCK_VERSION;
use askuser_store::codec::{HEADER, StreamRecord, decode_event_value, open_record, seq_key};

/// The versions of a record holding one `MessagePack` map (the envelope's first
/// byte): an event of formats 1 and 2, a stream record of any format.
const MAP_VERSIONS: std::ops::RangeInclusive<u8> = 1..=BLOCK_VERSION;
/// How far past a stream's recovered head the search looks for its events.
const SEARCH: Seq = 1 << 16;
/// The longest block value believed (a block's body is at most a few times
/// [`askuser_store::block::BLOCK_TARGET`] before compression).
const MAX_BLOCK_VALUE: u64 = 1 << 20;

/// A value found intact past the damage: the events it holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FoundValue {
    /// The sequence number of its last event (its first is its key).
    pub last: Seq,
    /// The value's stored bytes.
    pub bytes: Vec<u8>,
}

/// What [`find`] found.
#[derive(Debug, Default)]
pub(crate) struct TailRecords {
    /// Event values, per stream, by the sequence number of their first event.
    pub events: BTreeMap<String, BTreeMap<Seq, FoundValue>>,
    /// Per stream, every head a genuine stream record in the tail commits (each
    /// the end of an append), in order.
    pub heads: BTreeMap<String, BTreeSet<Seq>>,
}

/// Looks in `data[from..]` for event and stream records of the streams in `heads`
/// (each with the head recovered without the tail). Only records whose CRC matches
/// a key they could have been stored under are kept.
pub(crate) fn find(data: &[u8], from: usize, heads: &BTreeMap<String, Seq>) -> TailRecords {
    let mut found = TailRecords::default();
    for at in from..data.len().saturating_sub(HEADER + 1) {
        let version = data[at];
        if MAP_VERSIONS.contains(&version) && (0x80..=0x8f).contains(&data[at + HEADER]) {
            // An envelope around a MessagePack map: a stream record, or one event.
            let Some(length) = value_length(&data[at + HEADER..]) else {
                continue;
            };
            let value = &data[at..at + HEADER + length];
            let suffix = Suffix::of(value);
            for (stream, &head) in heads {
                let key = stream.as_bytes();
                if let Ok(record) =
                    open_record::<StreamRecord>(RecordKind::Stream, stream, 0, key, value)
                {
                    found
                        .heads
                        .entry(stream.clone())
                        .or_default()
                        .insert(record.head);
                    continue;
                }
                found.add_event_value(data, at, stream, head, value, suffix.as_ref());
            }
        }
        if version == BLOCK_VERSION && data[at + HEADER] <= 1 {
            for value in block_candidates(data, at) {
                let suffix = Suffix::of(value);
                for (stream, &head) in heads {
                    found.add_event_value(data, at, stream, head, value, suffix.as_ref());
                }
            }
        }
    }
    found
}

impl TailRecords {
    /// Keeps `value` (at `at` in `data`) if it is an intact event value of `stream`
    /// past its recovered `head`.
    fn add_event_value(
        &mut self,
        data: &[u8],
        at: usize,
        stream: &str,
        head: Seq,
        value: &[u8],
        suffix: Option<&Suffix>,
    ) {
        let Some((first, last)) =
            suffix.and_then(|suffix| event_seq(data, at, stream, head, value, suffix))
        else {
            return;
        };
        let found = FoundValue {
            last,
            bytes: value.to_vec(),
        };
        self.events
            .entry(stream.to_owned())
            .or_default()
            .insert(first, found);
    }
}

/// How many bytes the `MessagePack` value at the start of `bytes` takes.
fn value_length(bytes: &[u8]) -> Option<usize> {
    let mut cursor = std::io::Cursor::new(bytes);
    let mut decoder = rmp_serde::Deserializer::new(&mut cursor);
    <serde::de::IgnoredAny as serde::Deserialize>::deserialize(&mut decoder).ok()?;
    usize::try_from(cursor.position()).ok()
}

/// The values a block starting at `at` could be: for each way the bytes before it
/// read as sled's length varint (of 1 to 5 bytes), the value of that length.
fn block_candidates(data: &[u8], at: usize) -> impl Iterator<Item = &[u8]> {
    (1..=5).filter_map(move |size| {
        let start = at.checked_sub(size)?;
        let (length, used) = sled_varint(&data[start..at])?;
        if used != size || length > MAX_BLOCK_VALUE {
            return None;
        }
        let end = at.checked_add(usize::try_from(length).ok()?)?;
        (length > (HEADER + 1) as u64 && end <= data.len()).then(|| &data[at..end])
    })
}

/// Reads sled's varint (its `u64` serialization) at the start of `bytes`: the value
/// and how many bytes it took.
fn sled_varint(bytes: &[u8]) -> Option<(u64, usize)> {
    let first = *bytes.first()?;
    match first {
        0..=240 => Some((u64::from(first), 1)),
        241..=248 => {
            let low = u64::from(*bytes.get(1)?);
            Some((240 + 256 * (u64::from(first) - 241) + low, 2))
        }
        249 => {
            let high = u64::from(*bytes.get(1)?);
            let low = u64::from(*bytes.get(2)?);
            Some((2288 + 256 * high + low, 3))
        }
        _ => {
            let size = usize::from(first) - 247;
            let mut aligned = [0; 8];
            aligned[..size].copy_from_slice(bytes.get(1..=size)?);
            Some((u64::from_le_bytes(aligned), size + 1))
        }
    }
}

/// The size of sled's varint for `value`.
fn sled_varint_size(value: u64) -> usize {
    match value {
        0..=240 => 1,
        241..=2287 => 2,
        2288..=67_823 => 3,
        67_824..=0x00FF_FFFF => 4,
        _ => 5,
    }
}

/// The first and last sequence numbers of the events `value` (at `at` in `data`)
/// holds as an event value of `stream`, if it is one, past `head`, and every event
/// in it decodes. sled stores a fragment as its key (without the prefix it shares
/// with its page), the value's length, then the value: the byte just before the
/// length is the key's last byte, the low byte of the first sequence number. Each
/// number past the head with that low byte is tried (a consolidated page keeps its
/// keys elsewhere: its records are found only when the byte happens to match).
fn event_seq(
    data: &[u8],
    at: usize,
    stream: &str,
    head: Seq,
    value: &[u8],
    suffix: &Suffix,
) -> Option<(Seq, Seq)> {
    let length_size = sled_varint_size(value.len() as u64);
    let low = Seq::from(data[at.checked_sub(length_size + 1)?]);
    let first = ((head + 1) & !0xff) | low;
    (0..SEARCH / 256)
        .map(|i| first + i * 256)
        .filter(|seq| *seq > head)
        .find_map(|seq| {
            if suffix.crc_after(crc32fast::hash(&seq_key(stream, seq))) != suffix.stored {
                return None;
            }
            let events = decode_event_value(stream, seq, value);
            let all_read = !events.is_empty() && events.iter().all(Result::is_ok);
            all_read.then(|| (seq, seq + events.len() as u64 - 1))
        })
}

/// The checksum of a record's key and payload, for any key: a value's envelope
/// holds a CRC-32 of key, version byte and payload, and the payload is fixed
/// while the key is guessed (up to 256 keys per stream). CRC-32 is linear, so
/// the checksum of `key ++ rest` is a linear map of the key's own checksum,
/// xored with the checksum of `rest`: the map's 32 columns are worked out once
/// per value, and each guess costs the key's checksum and 32 xors at most.
struct Suffix {
    /// The checksum the value's envelope holds.
    stored: u32,
    /// The checksum of `rest` after an empty key.
    constant: u32,
    /// The map's column for each bit of the key's checksum.
    columns: [u32; 32],
}

impl Suffix {
    /// For a value with an envelope (version byte, CRC-32, payload), if it is long
    /// enough to have one.
    fn of(value: &[u8]) -> Option<Self> {
        let stored = u32::from_be_bytes(value.get(1..HEADER)?.try_into().ok()?);
        let mut rest = crc32fast::Hasher::new();
        rest.update(&value[..1]);
        rest.update(&value[HEADER..]);
        let after = |key_crc: u32| {
            let mut crc = crc32fast::Hasher::new_with_initial(key_crc);
            crc.combine(&rest);
            crc.finalize()
        };
        let constant = after(0);
        let columns = std::array::from_fn(|bit| after(1 << bit) ^ constant);
        Some(Self {
            stored,
            constant,
            columns,
        })
    }

    /// The checksum of `key ++ rest`, from the key's checksum.
    fn crc_after(&self, key_crc: u32) -> u32 {
        let mut crc = self.constant;
        let mut bits = key_crc;
        while bits != 0 {
            let bit = bits.trailing_zeros();
            crc ^= self.columns[bit as usize];
            bits &= bits - 1;
        }
        crc
    }
}

/// The events each stream of `log` is missing past the damage that sled's
/// recovery cleared from the data file `data_file` (`cleared`: its stretches,
/// see [`Discarded`](crate::Discarded)): from its recovered head to the head a
/// stream record found intact there commits. Only the cleared stretches are
/// read (what sled did not clear, it still reads). Empty when the streams or
/// the file cannot be read.
pub(crate) fn missing(
    log: &crate::SledLog,
    data_file: &std::path::Path,
    cleared: &[(u64, u64)],
) -> Vec<(String, std::ops::RangeInclusive<Seq>)> {
    use askuser_store::Log;
    use std::os::unix::fs::FileExt as _;
    let Ok(streams) = log.streams() else {
        return Vec::new();
    };
    let Ok(file) = std::fs::File::open(data_file) else {
        return Vec::new();
    };
    let heads: BTreeMap<String, Seq> = streams.into_iter().map(|s| (s.name, s.head)).collect();
    let mut tail_heads: BTreeMap<String, Seq> = BTreeMap::new();
    let file_length = file.metadata().map_or(0, |meta| meta.len());
    for (from, end, start) in windows(cleared, file_length) {
        let Ok(length) = usize::try_from(end.saturating_sub(from)) else {
            continue;
        };
        let mut data = vec![0; length];
        if file.read_exact_at(&mut data, from).is_err() {
            continue;
        }
        let lead = usize::try_from(start - from).unwrap_or(0);
        for (name, committed) in find(&data, lead, &heads).heads {
            let best = tail_heads.entry(name).or_insert(0);
            *best = (*best).max(committed.last().copied().unwrap_or(0));
        }
    }
    tail_heads
        .into_iter()
        .filter_map(|(name, tail_head)| {
            let head = *heads.get(&name)?;
            (tail_head > head).then(|| (name, head + 1..=tail_head))
        })
        .collect()
}

/// The parts of the data file [`missing`] reads, `(from, end, first cleared
/// byte)`: each cleared stretch from [`LEAD`] bytes before it (a value's length
/// and the last byte of its key lie just before it) to [`MAX_BLOCK_VALUE`] bytes
/// after it (a value's own last bytes may have been zeros, not counted as
/// cleared), overlapping ones joined.
fn windows(cleared: &[(u64, u64)], file_length: u64) -> Vec<(u64, u64, u64)> {
    let mut windows: Vec<(u64, u64, u64)> = Vec::new();
    for &(start, end) in cleared {
        let from = start.saturating_sub(LEAD);
        let end = end.saturating_add(MAX_BLOCK_VALUE).min(file_length);
        match windows.last_mut() {
            Some((_, last_end, _)) if from <= *last_end => *last_end = (*last_end).max(end),
            _ => windows.push((from, end, start)),
        }
    }
    windows
}

/// How far before a cleared stretch [`missing`] reads (a value's length varint
/// and the key byte before it); it reads up to [`MAX_BLOCK_VALUE`] past it.
const LEAD: u64 = 16;

/// Whether what sled's recovery discarded from the data file `data_file`
/// (`cleared`: its stretches, see [`Discarded`](crate::Discarded)) is only a
/// write a crash cut off, so that nothing that was written whole is lost.
///
/// sled's recovery stops at the first message of its unstable tail that it
/// cannot take: one that fails its checksum, one that was never written (zeros:
/// space reserved for a message that a crash kept from being filled), or the
/// manifest of a batch (one append: its events and its stream record) whose
/// messages do not all follow. It then zeroes the rest of that segment, and
/// every later segment whole. A crash leaves only the last two behind: the
/// messages it discarded are each intact (their checksums pass), or zeros, or
/// the one message whose write the kill stopped at a page's end (see
/// [`torn_by_a_kill`]). A flipped bit, a cut elsewhere or a message written
/// over leaves a message that fails.
///
/// So this walks sled's messages through the stretch where recovery stopped
/// (the first one not starting in a segment's header: whole later segments are
/// zeroed after any crash, and a stretch may start a few bytes late where the
/// bytes it begins with were zeros already) to the end of its segment: true
/// when each is intact or never written. A segment zeroed whole must have an
/// intact header (one that fails its CRC makes recovery drop a segment of live
/// data); when only whole segments were zeroed (recovery stopped at a
/// segment's end), the first one's messages must be intact or never written,
/// or no record committing events found in them (`nothing_found`). A log appended with
/// [`Durability::Flush`](askuser_store::Durability::Flush) acknowledges an
/// append only once everything before it is on disk, so such a tail holds
/// nothing that was acknowledged.
pub(crate) fn cut_by_crash(
    dir: &std::path::Path,
    cleared: &[(u64, u64)],
    nothing_found: bool,
) -> bool {
    use std::os::unix::fs::FileExt as _;
    let conf = crate::sled_files::read_capped(&dir.join("conf"), 4096).unwrap_or_default();
    let segment = crate::sled_log::segment_size(&conf);
    let Ok(file) = std::fs::File::open(dir.join("db")) else {
        return false;
    };
    // A stretch that starts inside a segment's header is that segment zeroed
    // whole, whose first bytes happened to be zeros already.
    let in_header = |start: u64| start % segment < SEGMENT_HEAD as u64;
    let segment_start = |start: u64| start - start % segment;
    // A segment zeroed whole after a crash has an intact header (or none).
    let headers_intact =
        cleared
            .iter()
            .filter(|&&(start, _)| in_header(start))
            .all(|&(start, _)| {
                let mut header = [0; SEGMENT_HEAD];
                file.read_exact_at(&mut header, segment_start(start))
                    .is_ok()
                    && segment_header_intact(&header)
            });
    if !headers_intact {
        return false;
    }
    let file_length = file.metadata().map_or(0, |meta| meta.len());
    match cleared.iter().find(|&&(start, _)| !in_header(start)) {
        // Where recovery stopped inside a segment: a message starts there, or
        // up to three bytes before (its checksum's first bytes were zeros).
        Some(&(start, _)) => {
            let earliest =
                (segment_start(start) + SEGMENT_HEAD as u64).max(start.saturating_sub(3));
            let from = (earliest..start)
                .find(|&from| message_header_at(&file, from, segment))
                .unwrap_or(start);
            messages_intact_or_unwritten(&file, from, segment, file_length)
        }
        // Only whole segments: recovery stopped at a segment's end. Their
        // messages are the cut-off write's (intact, never written) unless
        // damaged; or nothing committing events was found in them.
        None => {
            nothing_found
                || cleared.first().is_some_and(|&(start, _)| {
                    let first = segment_start(start) + SEGMENT_HEAD as u64;
                    messages_intact_or_unwritten(&file, first, segment, file_length)
                })
        }
    }
}

/// Whether sled's messages in `file` from `start` (a message's first byte) to
/// the end of its segment are each intact, never written, or stale (see
/// [`only_intact_or_unwritten`]); the segment's header names its generation.
fn messages_intact_or_unwritten(
    file: &std::fs::File,
    start: u64,
    segment: u64,
    file_length: u64,
) -> bool {
    use std::os::unix::fs::FileExt as _;
    let segment_start = start - start % segment;
    let mut header = [0; SEGMENT_HEAD];
    if file.read_exact_at(&mut header, segment_start).is_err() || !segment_header_intact(&header) {
        return false;
    }
    let generation = segment_generation(&header, segment);
    let segment_end = segment_start + segment;
    let Ok(size) = usize::try_from(file_length.min(segment_end).saturating_sub(start)) else {
        return false;
    };
    if size > MAX_SEGMENT {
        return false;
    }
    let mut data = vec![0; size];
    file.read_exact_at(&mut data, start).is_ok()
        && only_intact_or_unwritten(&data, start, generation)
}

/// Whether a message of its segment's generation starts at `at` in `file`.
fn message_header_at(file: &std::fs::File, at: u64, segment: u64) -> bool {
    use std::os::unix::fs::FileExt as _;
    let (mut header, mut bytes) = ([0; SEGMENT_HEAD], [0; 32]);
    file.read_exact_at(&mut header, at - at % segment).is_ok()
        && file.read_at(&mut bytes, at).is_ok()
        && of_generation(&bytes, segment_generation(&header, segment))
}

/// The generation of a segment (its first LSN over the segment size), which
/// every message written in it carries as its segment number: bytes left from
/// an earlier use of the segment carry an older one.
fn segment_generation(header: &[u8; SEGMENT_HEAD], segment: u64) -> u64 {
    let mut lsn = [0; 8];
    lsn.copy_from_slice(&header[4..12]);
    (u64::from_le_bytes(lsn) ^ 0x7FFF_FFFF_FFFF_FFFF) / segment.max(1)
}

/// The length of sled's segment header: a CRC-32 (little-endian, inverted) of
/// the 16 bytes after it, the segment's first LSN and the highest stable one.
const SEGMENT_HEAD: usize = 20;

/// Whether a segment's header was never written (zeros) or passes its CRC.
fn segment_header_intact(header: &[u8; SEGMENT_HEAD]) -> bool {
    let stored = u32::from_le_bytes([header[0], header[1], header[2], header[3]]);
    header.iter().all(|&byte| byte == 0) || stored ^ u32::MAX == crc32fast::hash(&header[4..])
}

/// The largest segment [`cut_by_crash`] reads (sled's default is 512 KiB).
const MAX_SEGMENT: usize = 8 << 20;

/// Whether the messages in `data` (from where sled's recovery stopped to the
/// end of its segment; it starts at byte `base` of the data file) are what a
/// crash leaves: intact messages of `generation`, up to the first place where
/// none starts (zeros, or the bytes a reused segment keeps from an earlier
/// generation: a buffer sled reserved and never wrote, or the end of what this
/// generation wrote) or the message a kill tore (see [`torn_by_a_kill`]). Past
/// that place nothing was acknowledged, since a flush makes a prefix of the
/// log stable; so the walk stops there. It fails at a message of this
/// generation that fails its checksum or is cut short otherwise: damage.
fn only_intact_or_unwritten(data: &[u8], base: u64, generation: u64) -> bool {
    let mut at = 0;
    while at < data.len() {
        match sled_message(&data[at..], generation) {
            Some(length) => at += length,
            None => {
                return !of_generation(&data[at..], generation)
                    || torn_by_a_kill(data, base, at, generation);
            }
        }
    }
    true
}

/// The size of a page of the operating system's file cache: a write that a
/// kill interrupts (SIGKILL during `pwrite`) has written a prefix of its bytes
/// that ends where such a page does.
const PAGE: u64 = 4096;

/// Whether the message of `generation` at `data[at..]` (`data` starts at byte
/// `base` of the data file), which fails its checksum, is one whose write a
/// kill tore: it runs past the end of a page of the file, and from that page on
/// its bytes are not this write's. They are zeros (never written; or the end of
/// the file, which a torn write extends only to the page where it stopped) or
/// the bytes of an earlier generation of a reused segment (an intact message of
/// an older generation starts among them). A flipped bit or a message written
/// over leaves neither.
fn torn_by_a_kill(data: &[u8], base: u64, at: usize, generation: u64) -> bool {
    let Some(end) = MessageHeader::of(&data[at..])
        .filter(|header| header.number == generation)
        .and_then(|header| at.checked_add(header.end))
    else {
        return false;
    };
    let Ok(to_page_end) = usize::try_from(PAGE - (base + at as u64) % PAGE) else {
        return false;
    };
    let page_end = at + to_page_end;
    // The message runs past the page, and the file reaches the page's end (a
    // file cut anywhere else is damage).
    if page_end >= end || page_end > data.len() {
        return false;
    }
    let torn = page_end..end.min(data.len());
    data[torn.clone()].iter().all(|&byte| byte == 0)
        || torn.into_iter().any(|from| {
            MessageHeader::of(&data[from..])
                .is_some_and(|header| header.number < generation && header.intact(&data[from..]))
        })
}

/// The largest kind of message sled 0.34 writes.
const MAX_KIND: u8 = 12;

/// The header of a sled message, whatever its checksum.
#[derive(Debug, Clone, Copy)]
struct MessageHeader {
    /// Its segment number: the generation it was written in.
    number: u64,
    /// Where its body starts (the header's length).
    body: usize,
    /// Where it ends (header and body).
    end: usize,
}

impl MessageHeader {
    /// The header of the message at the start of `bytes`: a CRC-32
    /// (little-endian), a kind, then its body's length, its segment number and
    /// its page id, each sled's varint; `None` when no message of a known kind
    /// starts there (kind 0 is sled's "corrupted").
    fn of(bytes: &[u8]) -> Option<Self> {
        let kind = *bytes.get(4)?;
        if !(1..=MAX_KIND).contains(&kind) {
            return None;
        }
        let mut at = MESSAGE_HEAD;
        let (length, used) = sled_varint(bytes.get(at..)?)?;
        at += used;
        let (number, used) = sled_varint(bytes.get(at..)?)?;
        at += used;
        at += sled_varint(bytes.get(at..)?)?.1;
        let end = at.checked_add(usize::try_from(length).ok()?)?;
        Some(Self {
            number,
            body: at,
            end,
        })
    }

    /// Whether the message this header starts in `bytes` passes its checksum:
    /// a CRC-32 of the body, then of the header after the CRC, inverted.
    fn intact(self, bytes: &[u8]) -> bool {
        let (Some(stored), Some(body)) = (bytes.get(..4), bytes.get(self.body..self.end)) else {
            return false;
        };
        let stored = u32::from_le_bytes([stored[0], stored[1], stored[2], stored[3]]);
        let mut crc = crc32fast::Hasher::new();
        crc.update(body);
        crc.update(&bytes[4..self.body]);
        crc.finalize() ^ u32::MAX == stored
    }
}

/// Whether a message of `generation` (a known kind and this segment number,
/// whatever its checksum) starts at the start of `bytes`.
fn of_generation(bytes: &[u8], generation: u64) -> bool {
    MessageHeader::of(bytes).is_some_and(|header| header.number == generation)
}

/// A sled message's checksum and kind.
const MESSAGE_HEAD: usize = 5;

/// The length of the sled message at the start of `bytes` if it is intact and
/// of `generation` (see [`MessageHeader`]).
fn sled_message(bytes: &[u8], generation: u64) -> Option<usize> {
    let header = MessageHeader::of(bytes)?;
    (header.number == generation && header.intact(bytes)).then_some(header.end)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SEGMENT: u64 = 512 * 1024;

    /// An intact sled message of generation `generation` with `body`, its
    /// checksum's first byte a zero when `zero_first` (the page id is varied
    /// until it is).
    fn message(generation: u8, body: &[u8], zero_first: bool) -> Vec<u8> {
        (1..=240u8)
            .map(|page| {
                let mut rest = vec![8, u8::try_from(body.len()).unwrap(), generation, page];
                rest.extend_from_slice(body);
                let mut crc = crc32fast::Hasher::new();
                crc.update(body);
                crc.update(&rest[..4]);
                let mut bytes = (crc.finalize() ^ u32::MAX).to_le_bytes().to_vec();
                bytes.extend(rest);
                bytes
            })
            .find(|bytes| !zero_first || bytes[0] == 0)
            .unwrap()
    }

    /// The header of the second segment, generation 1, that passes its CRC and
    /// whose first byte is a zero.
    fn header_starting_with_zero() -> [u8; SEGMENT_HEAD] {
        (0..=u64::MAX)
            .map(|stable| {
                let mut header = [0; SEGMENT_HEAD];
                header[4..12].copy_from_slice(&(SEGMENT ^ 0x7FFF_FFFF_FFFF_FFFF).to_le_bytes());
                header[12..20].copy_from_slice(&(stable ^ 0x7FFF_FFFF_FFFF_FFFF).to_le_bytes());
                let crc = crc32fast::hash(&header[4..]) ^ u32::MAX;
                header[..4].copy_from_slice(&crc.to_le_bytes());
                header
            })
            .find(|header| header[0] == 0)
            .unwrap()
    }

    /// A data file of two segments, the second written from `second` on.
    fn log_with(second: &[u8]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let mut db = vec![7; usize::try_from(SEGMENT).unwrap()];
        db.extend_from_slice(second);
        db.resize(usize::try_from(2 * SEGMENT).unwrap(), 0);
        std::fs::write(dir.path().join("db"), db).unwrap();
        dir
    }

    #[test]
    fn a_segment_zeroed_whole_whose_header_began_with_a_zero_is_a_crash_or_damage_by_its_messages()
    {
        let mut second = header_starting_with_zero().to_vec();
        second.extend(message(1, b"an event of the cut-off write", false));
        let crash = log_with(&second);
        // The stretch starts one byte late: the header's first byte was a zero.
        let cleared = [(SEGMENT + 1, 2 * SEGMENT)];
        assert!(cut_by_crash(crash.path(), &cleared, false));
        second[SEGMENT_HEAD + 9] ^= 1;
        let damaged = log_with(&second);
        assert!(!cut_by_crash(damaged.path(), &cleared, false));
    }

    #[test]
    fn a_stretch_starting_inside_a_checksum_that_began_with_a_zero_is_walked_from_the_message() {
        let mut second = header_starting_with_zero().to_vec();
        second.extend(message(1, b"written whole", false));
        let stopped_at = SEGMENT + u64::try_from(second.len()).unwrap();
        second.extend(message(1, b"the cut-off write", true));
        let crash = log_with(&second);
        let cleared = [(stopped_at + 1, 2 * SEGMENT)];
        assert!(cut_by_crash(crash.path(), &cleared, false));
        let at = second.len() - 2;
        second[at] ^= 1;
        let damaged = log_with(&second);
        assert!(!cut_by_crash(damaged.path(), &cleared, false));
    }

    /// A reused segment: past what this generation wrote lie the bytes of an
    /// earlier one (the end of a message, then whole messages of generation
    /// 0), which a crash's recovery clears as it clears the cut-off write.
    #[test]
    fn the_stale_bytes_of_a_reused_segment_after_a_cut_off_write_are_a_crash() {
        let mut second = header_starting_with_zero().to_vec();
        let stopped_at = SEGMENT + u64::try_from(second.len()).unwrap();
        second.extend(message(1, b"the cut-off write", false));
        let stale = [
            message(0, b"an old page", false),
            message(0, b"another", false),
        ]
        .concat();
        second.extend(&stale[7..]);
        let crash = log_with(&second);
        let cleared = [(stopped_at, 2 * SEGMENT)];
        assert!(cut_by_crash(crash.path(), &cleared, false));
        // A message after the stale bytes (written after a reserved buffer
        // that never was), even damaged, is past what a flush made stable.
        let mut after_a_gap = second.clone();
        let mut late = message(1, b"written after a gap", false);
        late[12] ^= 1;
        after_a_gap.extend(late);
        let crash = log_with(&after_a_gap);
        assert!(cut_by_crash(crash.path(), &cleared, false));
        // The cut-off write itself damaged: its header is this generation's.
        second[SEGMENT_HEAD + 9] ^= 1;
        let damaged = log_with(&second);
        assert!(!cut_by_crash(damaged.path(), &cleared, false));
    }

    /// The second segment with a message of generation 1 that runs 100 bytes
    /// past the segment's first page (the rest of the segment zeros), and
    /// where the message starts.
    fn across_a_page() -> (Vec<u8>, u64) {
        let mut second = header_starting_with_zero().to_vec();
        let body = [0x5A; 200];
        let starts = usize::try_from(PAGE).unwrap() + 100 - message(1, &body, false).len();
        second.resize(starts, 0);
        second.extend(message(1, &body, false));
        (second, SEGMENT + u64::try_from(starts).unwrap())
    }

    /// SIGKILL stops a `pwrite` at the end of a page of the file: the message
    /// it was writing keeps its first part, and from that page on holds what
    /// was there before (zeros, the end of the file, or an earlier generation's
    /// bytes). A flipped bit, or a file cut elsewhere, is still damage.
    #[test]
    fn a_message_a_kill_tore_at_the_end_of_a_page_is_a_crash() {
        let page_end = usize::try_from(PAGE).unwrap();
        let (written, stopped_at) = across_a_page();
        let cleared = [(stopped_at, 2 * SEGMENT)];
        let mut torn = written.clone();
        torn[page_end..].fill(0);
        assert!(cut_by_crash(log_with(&torn).path(), &cleared, false));
        // The file ends where the write stopped.
        let dir = log_with(&torn);
        let file = std::fs::OpenOptions::new()
            .write(true)
            .open(dir.path().join("db"))
            .unwrap();
        file.set_len(SEGMENT + PAGE).unwrap();
        assert!(cut_by_crash(dir.path(), &cleared, false));
        // The file cut elsewhere: inside the page, or past its end.
        for cut in [SEGMENT + PAGE - 30, SEGMENT + PAGE + 30] {
            let dir = log_with(&written);
            let file = std::fs::OpenOptions::new()
                .write(true)
                .open(dir.path().join("db"))
                .unwrap();
            file.set_len(cut).unwrap();
            assert!(!cut_by_crash(dir.path(), &cleared, false), "{cut}");
        }
        // A reused segment: generation 0's messages lie past the page's end.
        let mut over_stale = written.clone();
        let stale = [
            message(0, b"an old page", false),
            message(0, b"another", false),
        ]
        .concat();
        over_stale.truncate(page_end);
        over_stale.extend(&stale[7..]);
        assert!(cut_by_crash(log_with(&over_stale).path(), &cleared, false));
        // A bit flipped before the page's end, or after it, the rest intact.
        for flip in [page_end - 50, page_end + 50] {
            let mut flipped = written.clone();
            flipped[flip] ^= 0x10;
            assert!(
                !cut_by_crash(log_with(&flipped).path(), &cleared, false),
                "{flip}"
            );
        }
    }
}
