//! The store's plain data types: sequence numbers, timestamps and the clock,
//! durability, recorded events, stream descriptions.

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use askuser_core::Event;
use serde::{Deserialize, Serialize};

/// A position in a stream. The first event of a stream is 1; a stream's *head* is the
/// sequence number of its last event, 0 for an empty stream.
pub type Seq = u64;

/// A moment, in milliseconds since the Unix epoch (UTC). Displayed as RFC 3339
/// (`2025-03-01T12:00:00.000Z`).
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct Timestamp(pub u64);

impl Timestamp {
    /// Milliseconds since the Unix epoch.
    pub fn millis(self) -> u64 {
        self.0
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let millis = self.0 % 1000;
        let secs = self.0 / 1000;
        let (hour, minute, second) = (secs / 3600 % 24, secs / 60 % 60, secs % 60);
        let (year, month, day) = civil_from_days(secs / 86_400);
        if year > 9999 {
            return write!(
                f,
                "{year:04}-{month:02}-{day:02}T{hour:02}:{minute:02}:{second:02}.{millis:03}Z"
            );
        }
        // Written digit by digit (a page shows thousands of times): the same
        // text `write!` gives, `YYYY-MM-DDTHH:MM:SS.mmmZ`.
        let mut text = *b"0000-00-00T00:00:00.000Z";
        let mut put = |at: usize, width: usize, mut value: u64| {
            for slot in text[at..at + width].iter_mut().rev() {
                *slot = b'0' + u8::try_from(value % 10).unwrap_or(0);
                value /= 10;
            }
        };
        put(0, 4, year);
        put(5, 2, month);
        put(8, 2, day);
        put(11, 2, hour);
        put(14, 2, minute);
        put(17, 2, second);
        put(20, 3, millis);
        f.write_str(std::str::from_utf8(&text).map_err(|_| fmt::Error)?)
    }
}

/// Days since 1970-01-01 to (year, month, day), proleptic Gregorian (H. Hinnant's
/// `civil_from_days`, for non-negative day counts).
fn civil_from_days(days: u64) -> (u64, u64, u64) {
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z % 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + u64::from(month <= 2);
    (year, month, day)
}

/// Where a log reads the time it stamps on events, streams and snapshots. The store
/// reads the system clock by default; tests inject a [`ManualClock`].
pub trait Clock: Send + Sync + fmt::Debug {
    /// The current time.
    fn now(&self) -> Timestamp;
}

/// The system clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Timestamp {
        let since = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default();
        Timestamp(u64::try_from(since.as_millis()).unwrap_or(u64::MAX))
    }
}

/// A clock that only moves when told to: for tests and reproducible output.
#[derive(Debug, Default)]
pub struct ManualClock(AtomicU64);

impl ManualClock {
    /// A clock showing `at`.
    pub fn new(at: Timestamp) -> Arc<Self> {
        Arc::new(Self(AtomicU64::new(at.0)))
    }

    /// Sets the time.
    pub fn set(&self, at: Timestamp) {
        self.0.store(at.0, Ordering::SeqCst);
    }

    /// Moves the time forward by `millis`.
    pub fn advance(&self, millis: u64) {
        self.0.fetch_add(millis, Ordering::SeqCst);
    }
}

impl Clock for ManualClock {
    fn now(&self) -> Timestamp {
        Timestamp(self.0.load(Ordering::SeqCst))
    }
}

/// When an append is acknowledged, relative to the data reaching the disk.
///
/// What sled 0.34's flush does on Linux: it `pwrite`s the buffered log to the data
/// file and then calls `sync_file_range(WAIT_BEFORE | WRITE | WAIT_AFTER)` on the
/// written range. So once a [`Durability::Flush`] append returns:
///
/// - the event **survives the process dying** in any way (panic, `SIGKILL`, the OOM
///   killer): it is in the kernel's page cache and on its way to the device. The
///   crash test of this crate checks exactly this, with `SIGKILL`.
/// - it is **not promised to survive an operating-system crash or power loss**:
///   `sync_file_range` is not `fsync`. It does not commit the file's metadata (the
///   size of a data file that grew, the filesystem journal) and does not ask the
///   device to empty its volatile write cache. On a filesystem and device that write
///   in place and honour ordering it usually does survive, but nothing guarantees it.
///
/// With [`Durability::Buffered`] an acknowledged append is in sled's in-process
/// buffers; sled writes them out by itself every 500 ms, on [`Log::flush`], and when
/// the log is dropped. A process that dies before that loses those appends, and only
/// whole appends: sled recovers its log up to the first write that did not complete,
/// and an append becomes visible only when its stream's head, written after its
/// events, is recovered; so what survives is a prefix of the appends in the order
/// they were made.
///
/// A [`Durability::Flush`] append also writes out whatever other threads had
/// buffered. Flushing costs a disk round trip: batch events into one append where
/// the protocol allows it.
///
/// The in-memory log ignores durability: nothing it holds survives the process.
///
/// [`Log::flush`]: crate::Log::flush
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum Durability {
    /// The append returns after sled's flush (see above for what that promises).
    #[default]
    Flush,
    /// The append returns once it is in sled's buffers; call
    /// [`Log::flush`](crate::Log::flush) to write them out.
    Buffered,
}

/// One event of a stream, with its position and the time it was appended.
#[derive(Debug, Clone, PartialEq)]
pub struct Recorded {
    /// The event's sequence number in the stream read (for a fork's inherited
    /// events, the same number as in the parent).
    pub seq: Seq,
    /// When it was appended.
    pub at: Timestamp,
    /// The event.
    pub event: Event,
    /// Whether the event carries its verdict (today's format): replay applies it
    /// alone. An event of the first format is decided again as it is replayed.
    pub decided: bool,
}

/// Where a fork branched off: its first `at` events are its parent's.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ForkPoint {
    /// The parent stream.
    pub stream: String,
    /// The last event taken from the parent (0: none).
    pub at: Seq,
}

/// What a log knows about one stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamInfo {
    /// The stream's name.
    pub name: String,
    /// The sequence number of its last event (0: empty).
    pub head: Seq,
    /// The stream it was forked from, if any.
    pub parent: Option<ForkPoint>,
    /// When it was created (by its first append, or by the fork).
    pub created_at: Timestamp,
    /// Events up to this sequence number were dropped by compaction (0: none); the
    /// stream's state there is kept as a snapshot.
    pub floor: Seq,
}

impl StreamInfo {
    /// The first sequence number stored in this stream itself; those before it are
    /// read from the parent (or were dropped, up to [`StreamInfo::floor`]).
    pub fn own_start(&self) -> Seq {
        let inherited = self.parent.as_ref().map_or(0, |p| p.at);
        inherited.max(self.floor) + 1
    }
}

/// A saved reducer state: the state after the stream's event `seq`.
#[derive(Debug, Clone, PartialEq)]
pub struct Snapshot {
    /// The last event the state includes.
    pub seq: Seq,
    /// When the snapshot was taken.
    pub taken_at: Timestamp,
    /// The state.
    pub state: askuser_core::State,
    /// The shape the state was stored in ([`STATE_FORMAT`](crate::STATE_FORMAT)
    /// for a snapshot taken by this askuser; an older format still reads, but
    /// holds less: see [`replay::latest_snapshot`](crate::replay::latest_snapshot)).
    pub state_format: u32,
}

/// What a repack did (see [`compact::repack`](crate::compact::repack)).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Repacked {
    /// The events rewritten.
    pub events: u64,
    /// The values they were stored in before.
    pub values_before: u64,
    /// The values (blocks) they are stored in now.
    pub values_after: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_display_as_rfc3339() {
        assert_eq!(Timestamp(0).to_string(), "1970-01-01T00:00:00.000Z");
        assert_eq!(
            Timestamp(1_709_294_400_123).to_string(),
            "2024-03-01T12:00:00.123Z"
        );
        assert_eq!(
            Timestamp(951_782_400_000).to_string(),
            "2000-02-29T00:00:00.000Z"
        );
    }
    proptest::proptest! {
        /// Written digit by digit, a time reads as `write!` writes it.
        #[test]
        fn the_fast_display_is_the_formatted_one(millis in 0_u64..253_402_300_800_000) {
            let at = Timestamp(millis);
            let secs = millis / 1000;
            let (year, month, day) = civil_from_days(secs / 86_400);
            let expected = format!(
                "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
                secs / 3600 % 24, secs / 60 % 60, secs % 60, millis % 1000
            );
            proptest::prop_assert_eq!(at.to_string(), expected);
        }
    }
}
