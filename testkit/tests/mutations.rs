//! The conformance suite catches backends that get a record wrong: each
//! mutation below wraps the memory log with one mistake a backend could make,
//! and the suite must fail for each (while the memory log unmutated, behind the
//! same wrapper, passes it).

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use askuser_core::{Event, State};
use askuser_store::backend::{Backend, RecordIter};
use askuser_store::{
    Clock, Durability, Log, MemLog, Recorded, Repacked, Result, Seq, Snapshot, StreamInfo,
};
use askuser_testkit::suite;

/// One mistake a backend could make.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mutation {
    /// None: the memory log as it is.
    None,
    /// Every record read back marked undecided.
    Undecided,
    /// The second record of a scan dropped.
    DroppedRecord,
    /// The first two records of a scan swapped.
    Reordered,
    /// A range read without its last event (`from..to`, not `from..=to`).
    RangeEndExcluded,
    /// A read one event later than asked (`from + 1`).
    FromOffByOne,
    /// Stream names not checked: an append to a name the log must refuse is
    /// written under a name of the backend's own.
    NamesUnchecked,
    /// Records read back with their time lost (the epoch).
    TimeLost,
}

/// The memory log with `mutation`.
struct Mutated {
    inner: MemLog,
    mutation: Mutation,
}

impl Mutated {
    fn new(mutation: Mutation) -> Self {
        Self {
            inner: askuser_testkit::build::mem(),
            mutation,
        }
    }
}

impl Backend for Mutated {
    fn append_with(
        &self,
        stream: &str,
        expected: Seq,
        events: &[Event],
        durability: Durability,
    ) -> Result<Seq> {
        let valid = askuser_store::StreamName::try_from(stream).is_ok();
        if self.mutation == Mutation::NamesUnchecked && !valid {
            return self
                .inner
                .append_with("unchecked", expected, events, durability);
        }
        self.inner.append_with(stream, expected, events, durability)
    }

    fn durability(&self) -> Durability {
        self.inner.durability()
    }

    fn scan_own(&self, stream: &str, from: Seq, to: Seq) -> Result<RecordIter<'_>> {
        let (from, to) = match self.mutation {
            Mutation::RangeEndExcluded if to > from => (from, to - 1),
            Mutation::FromOffByOne if to > from => (from + 1, to),
            _ => (from, to),
        };
        let mut records: Vec<Result<Recorded>> = self.inner.scan_own(stream, from, to)?.collect();
        match self.mutation {
            Mutation::Undecided => {
                for record in records.iter_mut().flatten() {
                    record.decided = false;
                }
            }
            Mutation::DroppedRecord if records.len() > 1 => {
                drop(records.remove(1));
            }
            Mutation::Reordered if records.len() > 1 => records.swap(0, 1),
            Mutation::TimeLost => {
                for record in records.iter_mut().flatten() {
                    record.at = askuser_store::Timestamp(0);
                }
            }
            _ => {}
        }
        Ok(Box::new(records.into_iter()))
    }

    fn put_snapshot(&self, stream: &str, seq: Seq, state: &State) -> Result<()> {
        self.inner.put_snapshot(stream, seq, state)
    }

    fn get_snapshot(&self, stream: &str, seq: Seq) -> Result<Option<Snapshot>> {
        self.inner.get_snapshot(stream, seq)
    }

    fn snapshot_seqs(&self, stream: &str) -> Result<Vec<Seq>> {
        self.inner.snapshot_seqs(stream)
    }

    fn drop_through(&self, stream: &str, seq: Seq) -> Result<u64> {
        self.inner.drop_through(stream, seq)
    }

    fn clock(&self) -> &Arc<dyn Clock> {
        self.inner.clock()
    }

    fn repack(&self, stream: &str) -> Result<Repacked> {
        self.inner.repack(stream)
    }
}

impl Log for Mutated {
    fn stream(&self, stream: &str) -> Result<Option<StreamInfo>> {
        self.inner.stream(stream)
    }

    fn streams(&self) -> Result<Vec<StreamInfo>> {
        self.inner.streams()
    }

    fn fork(&self, parent: &str, at: Seq, name: &str) -> Result<StreamInfo> {
        self.inner.fork(parent, at, name)
    }

    fn flush(&self) -> Result<()> {
        self.inner.flush()
    }
}

/// The suite's cases that read what was written (those about waiting and
/// threads are left out: they test nothing these mutations change).
/// A suite case, by name.
type Case = (&'static str, fn(&Mutated));

fn cases() -> Vec<Case> {
    vec![
        (
            "appended_events_read_back_exactly",
            suite::appended_events_read_back_exactly,
        ),
        (
            "reads_start_anywhere_and_stop_at_the_head_of_the_moment",
            suite::reads_start_anywhere_and_stop_at_the_head_of_the_moment,
        ),
        (
            "ranges_read_exactly_their_bounds",
            suite::ranges_read_exactly_their_bounds,
        ),
        (
            "a_fork_shares_its_parents_prefix_and_then_goes_its_own_way",
            suite::a_fork_shares_its_parents_prefix_and_then_goes_its_own_way,
        ),
        (
            "replay_gives_the_reducers_state_and_commands",
            suite::replay_gives_the_reducers_state_and_commands,
        ),
        (
            "a_refused_answer_replays_the_same",
            suite::a_refused_answer_replays_the_same,
        ),
        (
            "records_read_back_marked_decided",
            suite::records_read_back_marked_decided,
        ),
        ("stream_names_are_checked", suite::stream_names_are_checked),
    ]
}

/// The cases `mutation` fails, each on a fresh log.
fn failed(mutation: Mutation) -> Vec<&'static str> {
    cases()
        .into_iter()
        .filter(|(_, case)| {
            let log = Mutated::new(mutation);
            catch_unwind(AssertUnwindSafe(|| case(&log))).is_err()
        })
        .map(|(name, _)| name)
        .collect()
}

#[test]
fn the_memory_log_behind_the_wrapper_passes() {
    assert_eq!(failed(Mutation::None), Vec::<&str>::new());
}

#[test]
fn the_suite_fails_for_each_mutation() {
    let caught: Vec<(Mutation, Vec<&str>)> = [
        Mutation::Undecided,
        Mutation::DroppedRecord,
        Mutation::Reordered,
        Mutation::RangeEndExcluded,
        Mutation::FromOffByOne,
        Mutation::NamesUnchecked,
        Mutation::TimeLost,
    ]
    .into_iter()
    .map(|mutation| (mutation, failed(mutation)))
    .collect();
    for (mutation, failed) in &caught {
        assert!(!failed.is_empty(), "{mutation:?} passes the suite");
    }
    // A record lost, moved or read past its bounds fails every case that
    // reads; records marked undecided only the cases made for them.
    let reading = [
        "appended_events_read_back_exactly",
        "reads_start_anywhere_and_stop_at_the_head_of_the_moment",
        "ranges_read_exactly_their_bounds",
        "a_fork_shares_its_parents_prefix_and_then_goes_its_own_way",
        "replay_gives_the_reducers_state_and_commands",
        "a_refused_answer_replays_the_same",
        "records_read_back_marked_decided",
    ];
    assert_eq!(
        caught,
        [
            (
                Mutation::Undecided,
                vec![
                    "a_refused_answer_replays_the_same",
                    "records_read_back_marked_decided"
                ]
            ),
            (Mutation::DroppedRecord, reading.to_vec()),
            (Mutation::Reordered, reading.to_vec()),
            (Mutation::RangeEndExcluded, reading.to_vec()),
            (Mutation::FromOffByOne, reading.to_vec()),
            (Mutation::NamesUnchecked, vec!["stream_names_are_checked"]),
            (
                Mutation::TimeLost,
                vec!["appended_events_read_back_exactly"]
            ),
        ]
    );
}
