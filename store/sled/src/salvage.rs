//! [`salvage`]: every record of a damaged sled log that can still be read, copied
//! into a new log, with a report of what was lost.

use crate::error::Storage as _;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::ops::RangeInclusive;
use std::path::Path;

use sled::{IVec, Tree};

use crate::sled_files::{DbIntent, DbPathState, Discarded, check_db_path};
use crate::sled_log::SledLog;
use askuser_store::Log;
use askuser_store::Seq;
use askuser_store::backend::Backend;
use askuser_store::codec::{
    StreamRecord, decode_event_value, encode_event_record, key_seq, open_record, seal, seq_key,
};
use askuser_store::{RecordKind, Result, StoreError};

/// What [`salvage`] copied and what it could not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SalvageReport {
    /// Each stream found (by its record or by its events), in name order.
    pub streams: Vec<StreamSalvage>,
    /// What sled's recovery threw away before anything could be read: the events
    /// written there are lost, and no stream record remembers them.
    pub discarded: Option<Discarded>,
    /// How many events were found intact past that damage (each proved by its CRC)
    /// and copied all the same.
    pub past_damage: u64,
    /// Parts of the database sled could not read at all, in words.
    pub unreadable: Vec<String>,
}

/// One stream in a [`SalvageReport`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamSalvage {
    /// The stream's name.
    pub name: String,
    /// Whether the stream's own record (head, fork point, floor) was damaged: the
    /// new log then treats it as a stream of its own, with no parent.
    pub record_lost: bool,
    /// The head the damaged log recorded (for a lost record: the last event found).
    pub head: Seq,
    /// The head in the new log: the last own event that could be read (a stream's
    /// lost tail is cut off so that it can be appended to again).
    pub new_head: Seq,
    /// How many of the stream's own events were copied.
    pub copied: u64,
    /// The stream's own events that could not be read, as ranges. Those before
    /// `new_head` stay gaps in the new log, where reading reports them as missing.
    pub lost: Vec<RangeInclusive<Seq>>,
}

impl SalvageReport {
    /// How many events could not be read, over all streams.
    pub fn lost_events(&self) -> u64 {
        self.streams
            .iter()
            .flat_map(|s| &s.lost)
            .map(|range| range.end() - range.start() + 1)
            .sum()
    }

    /// Whether nothing at all was lost: nothing was discarded but a write a
    /// crash cut off before it was acknowledged, nothing is unreadable, and no
    /// event is missing.
    pub fn is_complete(&self) -> bool {
        self.discarded.as_ref().is_none_or(|d| d.cut_by_crash)
            && self.unreadable.is_empty()
            && self.lost_events() == 0
    }
}

impl fmt::Display for SalvageReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(discarded) = &self.discarded {
            writeln!(f, "{discarded}")?;
            let past = if discarded.cut_by_crash {
                "in the cut-off write"
            } else {
                "past the damage"
            };
            writeln!(
                f,
                "{} found intact {past} and copied.",
                events(self.past_damage)
            )?;
        }
        for part in &self.unreadable {
            writeln!(f, "Unreadable: {part}.")?;
        }
        for stream in &self.streams {
            let name = askuser_core::text::for_display_line(&stream.name);
            write!(
                f,
                "Stream \"{name}\": {} copied, head {}",
                events(stream.copied),
                stream.new_head
            )?;
            if stream.new_head != stream.head {
                write!(f, " (was {})", stream.head)?;
            }
            if stream.lost.is_empty() {
                write!(f, "; nothing lost")?;
            } else {
                let ranges: Vec<String> = stream
                    .lost
                    .iter()
                    .map(|r| {
                        if r.start() == r.end() {
                            r.start().to_string()
                        } else {
                            format!("{}-{}", r.start(), r.end())
                        }
                    })
                    .collect();
                write!(f, "; lost events {}", ranges.join(", "))?;
            }
            if stream.record_lost {
                write!(f, "; its record was damaged, so its fork point is lost")?;
            }
            writeln!(f, ".")?;
        }
        if self.is_complete() && self.discarded.is_some() {
            writeln!(f, "Nothing is damaged, and nothing acknowledged was lost.")?;
        } else if self.is_complete() {
            writeln!(f, "Nothing was lost.")?;
        } else if self.discarded.is_some() && self.lost_events() == 0 {
            writeln!(
                f,
                "No event is known to be lost (any appended after the last stream record \
                 found intact past the damage cannot be known)."
            )?;
        } else if self.discarded.is_some() {
            writeln!(
                f,
                "{} lost (and any that were never found past the damage).",
                events(self.lost_events())
            )?;
        } else {
            writeln!(f, "{} lost in all.", events(self.lost_events()))?;
        }
        Ok(())
    }
}

/// "1 event", "2 events".
fn events(count: u64) -> String {
    if count == 1 {
        "1 event".to_owned()
    } else {
        format!("{count} events")
    }
}

/// Copies every record of the sled log at `from` that can still be read (each
/// event, snapshot and stream record checked against its CRC) into a new log at
/// `to`, under the same stream names and sequence numbers, and reports what was
/// lost. `from` is never changed (it is read through
/// [`SledLog::open_read_only`]); `to` must be a new path or an empty directory.
///
/// A stream's head in the new log is its last readable own event; lost events
/// before it remain gaps (reading reports each as missing, a replay stops there).
/// A stream whose record is damaged is rebuilt from its events, without a parent.
///
/// # Errors
///
/// [`StoreError::DbPath`] for `from` or `to`; [`StoreError::Damaged`] when sled
/// cannot open `from` at all; [`StoreError::Locked`]; a storage error writing `to`.
pub fn salvage(from: &Path, to: &Path) -> Result<SalvageReport> {
    if check_db_path(to, DbIntent::Create)? == DbPathState::Log {
        return Err(StoreError::DbPath {
            path: to.to_path_buf(),
            problem: "it already holds a log; salvage into a new path or an empty directory"
                .to_owned(),
        });
    }
    let source = SledLog::open_read_only(from)?;
    let target = SledLog::open(to)?;
    let mut unreadable = Vec::new();
    let mut records = stream_records(&source.streams, &mut unreadable);
    let mut own = copy_events(&source, &target, &records, &mut unreadable)?;
    let past_damage = match source.discarded() {
        Some(discarded) => copy_from_tail(from, discarded, &target, &mut records, &mut own)?,
        None => 0,
    };
    copy_checked(
        &source.snapshots,
        &target.snapshots,
        "snapshots",
        &mut unreadable,
    )?;
    copy_other_trees(&source, &target, &mut unreadable)?;
    let mut names: BTreeSet<&String> = records.keys().collect();
    names.extend(own.keys());
    let empty = BTreeSet::new();
    let mut streams = Vec::new();
    for name in names {
        let seqs = own.get(name).unwrap_or(&empty);
        let record = records.get(name).cloned().flatten();
        streams.push(rebuild_stream(&target, name, record, seqs)?);
    }
    target.flush()?;
    Ok(SalvageReport {
        streams,
        discarded: source.discarded().cloned(),
        past_damage,
        unreadable,
    })
}

/// Copies the events found intact in the part of the data file sled's recovery
/// discarded, up to the head a stream record found there commits; returns how many.
///
/// When what was discarded is a write a crash cut off, nothing in it had been
/// acknowledged, and a batch the crash stopped midway may have left its stream
/// record without all of its events: only whole appends are copied then (see
/// [`whole_appends`]), and the rest is left out with the write, not lost.
fn copy_from_tail(
    from: &Path,
    discarded: &Discarded,
    target: &SledLog,
    records: &mut BTreeMap<String, Option<StreamRecord>>,
    own: &mut BTreeMap<String, BTreeSet<Seq>>,
) -> Result<u64> {
    let data = std::fs::read(from.join("db"))?;
    let heads: BTreeMap<String, Seq> = records
        .iter()
        .filter_map(|(name, record)| Some((name.clone(), record.as_ref()?.head)))
        .collect();
    let start = usize::try_from(discarded.first_byte).unwrap_or(usize::MAX);
    let found = crate::sled_tail::find(&data, start, &heads);
    let mut copied = 0;
    let mut batch = sled::Batch::default();
    for (name, committed) in &found.heads {
        let (Some(Some(record)), Some(values)) = (records.get_mut(name), found.events.get(name))
        else {
            continue;
        };
        let tail_head = if discarded.cut_by_crash {
            whole_appends(record.head, committed, values)
        } else {
            committed.last().copied().unwrap_or(record.head)
        };
        for (&first, value) in past_head(values, record.head, tail_head) {
            if value.last > tail_head {
                continue; // An append the stream record found never committed.
            }
            batch.insert(
                askuser_store::codec::seq_key(name, first),
                value.bytes.as_slice(),
            );
            own.entry(name.clone())
                .or_default()
                .extend(first..=value.last);
            copied += value.last - first + 1;
        }
        record.head = record.head.max(tail_head);
    }
    target.events.apply_batch(batch).storage()?;
    Ok(copied)
}

/// The values found whose first event is past `head` and at most `tail_head`;
/// none when `tail_head` is not past `head` (nothing was found whole past it: a
/// stream record committing an append whose events were not all found, say).
fn past_head(
    values: &BTreeMap<Seq, crate::sled_tail::FoundValue>,
    head: Seq,
    tail_head: Seq,
) -> impl Iterator<Item = (&Seq, &crate::sled_tail::FoundValue)> {
    from_to(head + 1, tail_head).flat_map(|range| values.range(range))
}

/// `from..=to` when it holds a number: a map's or a set's `range` panics on
/// one whose start is past its end, which a stream with nothing past its head
/// (or nothing of its own) asks for.
fn from_to(from: Seq, to: Seq) -> impl DoubleEndedIterator<Item = std::ops::RangeInclusive<Seq>> {
    (from <= to).then_some(from..=to).into_iter()
}

/// The head up to which a stream's appends past `head` were found whole: the
/// last head a stream record in the tail commits (`committed`) such that every
/// event from `head + 1` to it lies in a value found (`values`, by the sequence
/// number of their first event), with no gap. `head` itself when there is none.
fn whole_appends(
    head: Seq,
    committed: &BTreeSet<Seq>,
    values: &BTreeMap<Seq, crate::sled_tail::FoundValue>,
) -> Seq {
    let (mut next, mut whole) = (head + 1, head);
    for (&first, value) in values.range(head + 1..) {
        if first != next {
            break;
        }
        next = value.last + 1;
        if committed.contains(&value.last) {
            whole = value.last;
        }
    }
    whole
}

/// Every stream record: `None` for one that fails its checksum.
fn stream_records(
    tree: &Tree,
    unreadable: &mut Vec<String>,
) -> BTreeMap<String, Option<StreamRecord>> {
    let mut records = BTreeMap::new();
    scan_tolerant(tree, "streams", unreadable, |key, bytes| {
        let name = String::from_utf8_lossy(&key).into_owned();
        let record = open_record(RecordKind::Stream, &name, 0, &key, &bytes).ok();
        records.insert(name, record);
    });
    records
}

/// The first sequence number a stream stores itself.
fn own_start(record: &StreamRecord) -> Seq {
    record.parent.as_ref().map_or(0, |p| p.at).max(record.floor) + 1
}

/// Copies each event that passes its checksum and is not past its stream's head;
/// returns the sequence numbers copied, per stream.
fn copy_events(
    source: &SledLog,
    target: &SledLog,
    records: &BTreeMap<String, Option<StreamRecord>>,
    unreadable: &mut Vec<String>,
) -> Result<BTreeMap<String, BTreeSet<Seq>>> {
    let mut own: BTreeMap<String, BTreeSet<Seq>> = BTreeMap::new();
    let mut batch = sled::Batch::default();
    let mut pending = 0;
    let mut failed = None;
    let mut failed_encode = None;
    scan_tolerant(&source.events, "events", unreadable, |key, bytes| {
        let (Some(split), Some(seq)) = (key.iter().position(|b| *b == 0), key_seq(&key)) else {
            return;
        };
        let name = String::from_utf8_lossy(&key[..split]).into_owned();
        if let Some(Some(record)) = records.get(&name)
            && seq > record.head
        {
            return; // An append that never committed.
        }
        let events = decode_event_value(&name, seq, &bytes);
        if events.iter().all(Result::is_ok) {
            let seqs = events.iter().flatten().map(|recorded| recorded.seq);
            own.entry(name).or_default().extend(seqs);
            batch.insert(key, bytes);
        } else {
            // A block with a damaged event: its readable events each get a value
            // of their own (a record of one event stays as it was).
            for recorded in events.into_iter().flatten() {
                match encode_event_record(&name, recorded.seq, recorded.at, &recorded.event) {
                    Ok(value) => batch.insert(seq_key(&name, recorded.seq), value),
                    Err(error) => {
                        failed_encode.get_or_insert(error);
                        continue;
                    }
                }
                own.entry(name.clone()).or_default().insert(recorded.seq);
            }
        }
        pending += 1;
        if pending == 4096 {
            if let Err(error) = target.events.apply_batch(std::mem::take(&mut batch)) {
                failed.get_or_insert(error);
            }
            pending = 0;
        }
    });
    if let Some(error) = failed {
        return Err(crate::error::storage(error));
    }
    if let Some(error) = failed_encode {
        return Err(error);
    }
    target.events.apply_batch(batch).storage()?;
    Ok(own)
}

/// Copies the records of a tree that pass their checksum.
fn copy_checked(from: &Tree, to: &Tree, what: &str, unreadable: &mut Vec<String>) -> Result<()> {
    let mut batch = sled::Batch::default();
    scan_tolerant(from, what, unreadable, |key, bytes| {
        let passes =
            open_record::<serde::de::IgnoredAny>(RecordKind::Snapshot, "", 0, &key, &bytes);
        if passes.is_ok() {
            batch.insert(key, bytes);
        }
    });
    to.apply_batch(batch).storage()?;
    Ok(())
}

/// Copies the trees other than the log's own (the first format's side records).
fn copy_other_trees(
    source: &SledLog,
    target: &SledLog,
    unreadable: &mut Vec<String>,
) -> Result<()> {
    for name in source.db.tree_names() {
        if [&b"events"[..], b"streams", b"snapshots", b"__sled__default"].contains(&&*name) {
            continue;
        }
        let from = source.db.open_tree(&name).storage()?;
        let to = target.db.open_tree(&name).storage()?;
        let label = String::from_utf8_lossy(&name).into_owned();
        let mut batch = sled::Batch::default();
        scan_tolerant(&from, &label, unreadable, |key, bytes| {
            batch.insert(key, bytes);
        });
        to.apply_batch(batch).storage()?;
    }
    Ok(())
}

/// Writes a stream's record in the new log, its head cut back to its last
/// readable own event, and says what was lost.
fn rebuild_stream(
    target: &SledLog,
    name: &str,
    record: Option<StreamRecord>,
    seqs: &BTreeSet<Seq>,
) -> Result<StreamSalvage> {
    let record_lost = record.is_none();
    let mut record = record.unwrap_or_else(|| StreamRecord {
        head: seqs.last().copied().unwrap_or(0),
        parent: None,
        created_at: target.clock().now(),
        floor: 0,
    });
    let start = own_start(&record);
    let head = record.head;
    let new_head = own_seqs(seqs, start, head)
        .next_back()
        .copied()
        .unwrap_or(start - 1);
    let mut lost = Vec::new();
    let mut next = start;
    for &seq in own_seqs(seqs, start, head).chain(std::iter::once(&(head + 1))) {
        if seq > next {
            lost.push(next..=seq - 1);
        }
        next = seq + 1;
    }
    record.head = new_head;
    target
        .streams
        .insert(name.as_bytes(), seal(name.as_bytes(), &record)?)
        .storage()?;
    Ok(StreamSalvage {
        name: name.to_owned(),
        record_lost,
        head,
        new_head,
        copied: u64::try_from(own_seqs(seqs, start, head).count()).unwrap_or(u64::MAX),
        lost,
    })
}

/// The sequence numbers of `seqs` from `start` to `head`; none when the stream
/// holds no event of its own (a fork not appended to since, a stream whose
/// events were all dropped: `start` is past `head`).
fn own_seqs(seqs: &BTreeSet<Seq>, start: Seq, head: Seq) -> impl DoubleEndedIterator<Item = &Seq> {
    from_to(start, head).flat_map(|range| seqs.range(range))
}

/// After this many failed reads in a row, a scan gives the rest of a tree up.
const MAX_FAILURES: u32 = 4096;

/// Visits every entry of `tree` that sled can read. When sled cannot read a page,
/// the scan restarts just past the last key it read (the next sequence number of
/// the same stream), and after [`MAX_FAILURES`] in a row gives the rest up; each
/// gap is described in `unreadable`.
fn scan_tolerant(
    tree: &Tree,
    what: &str,
    unreadable: &mut Vec<String>,
    mut visit: impl FnMut(IVec, IVec),
) {
    // Where a (re)started scan begins: after a failure, one past the last key read.
    let mut base: Vec<u8> = Vec::new();
    let mut failures = 0;
    let mut first_failure: Option<String> = None;
    'restart: loop {
        for entry in tree.range(base.clone()..) {
            match entry {
                Ok((key, bytes)) => {
                    failures = 0;
                    base = key.to_vec();
                    visit(key, bytes);
                }
                Err(error) => {
                    failures += 1;
                    first_failure.get_or_insert_with(|| crate::error::sled_words(&error));
                    if failures >= MAX_FAILURES || !increment(&mut base) {
                        unreadable.push(format!(
                            "the {what} tree from key {:?} on ({})",
                            String::from_utf8_lossy(&base),
                            first_failure.take().unwrap_or_default()
                        ));
                        return;
                    }
                    continue 'restart;
                }
            }
        }
        if let Some(failure) = first_failure {
            unreadable.push(format!("some records of the {what} tree ({failure})"));
        }
        return;
    }
}

/// The key one past `key` as a big-endian number of the same length (for an
/// event key: the next sequence number). `false` when there is none.
fn increment(key: &mut [u8]) -> bool {
    for byte in key.iter_mut().rev() {
        if *byte == u8::MAX {
            *byte = 0;
        } else {
            *byte += 1;
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sled_tail::FoundValue;

    /// Values found past head 10, by first event: each holding `first..=last`.
    fn found(ranges: &[(Seq, Seq)]) -> BTreeMap<Seq, FoundValue> {
        ranges
            .iter()
            .map(|&(first, last)| {
                let value = FoundValue {
                    last,
                    bytes: Vec::new(),
                };
                (first, value)
            })
            .collect()
    }

    #[test]
    fn a_cut_off_write_is_copied_up_to_its_last_append_found_whole() {
        let committed: BTreeSet<Seq> = [11, 13, 14].into();
        // Every append found: up to the last committed head.
        assert_eq!(
            whole_appends(10, &committed, &found(&[(11, 11), (12, 13), (14, 14)])),
            14
        );
        // The crash kept event 12's value from the file: 13 and 14 wait on it.
        assert_eq!(
            whole_appends(10, &committed, &found(&[(11, 11), (13, 13), (14, 14)])),
            11
        );
        // An append of two blocks, its second not found: its first is left out too.
        assert_eq!(
            whole_appends(10, &[11, 14].into(), &found(&[(11, 11), (12, 13)])),
            11
        );
        // A value past every committed head never committed.
        assert_eq!(
            whole_appends(10, &committed, &found(&[(11, 11), (12, 13), (14, 15)])),
            13
        );
        assert_eq!(whole_appends(10, &committed, &found(&[])), 10);
        assert_eq!(whole_appends(10, &committed, &found(&[(12, 13)])), 10);
    }

    #[test]
    fn nothing_is_copied_when_nothing_past_the_head_was_found_whole() {
        let committed: BTreeSet<Seq> = [11, 13].into();
        let values = found(&[(12, 13)]);
        // CI's `askuser log salvage` of a killed writer's log panicked here
        // (a range from 11 to 10).
        let whole = whole_appends(10, &committed, &values);
        assert_eq!(past_head(&values, 10, whole).count(), 0);
        // A stream record committing less than the head copies nothing either.
        assert_eq!(past_head(&values, 10, 9).count(), 0);
        let firsts: Vec<Seq> = past_head(&values, 10, 13)
            .map(|(first, _)| *first)
            .collect();
        assert_eq!(firsts, [12]);
    }
}
