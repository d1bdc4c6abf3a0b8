//! The shared test suite: every case runs against `MemLog`, `SledLog`, a
//! `SharedSledLog` client of a log another process owns, and with the feature
//! `postgres` against `PgLog` on the server of `ASKUSER_TEST_PG`, and
//! `postgres_tls` against the same server over TLS (`ASKUSER_TEST_PG_TLS`).

mod common;
#[path = "suite/concurrency.rs"]
mod concurrency;
#[path = "suite/replay.rs"]
mod replay;
#[path = "suite/writes.rs"]
mod writes;

use std::collections::BTreeSet;

use askuser_core::{CancelReason, Command, Event, State};
use askuser_store::replay::ReplayOptions;
use askuser_store::testing::scripted_events;
use askuser_store::{Durability, ForkPoint, Log, RecordKind, StoreError, Timestamp};
use common::*;
use serde_json::{Value, json};

use concurrency::*;
use replay::*;
use writes::*;

macro_rules! suite {
    ($($case:ident),* $(,)?) => {
        mod memory {
            $( #[test] fn $case() { super::$case(&super::mem()); } )*
        }
        mod sled {
            $( #[test] fn $case() { let (log, _dir) = super::sled(); super::$case(&log); } )*
        }
        /// Through the socket of another process that owns the sled log.
        mod remote {
            $( #[test] fn $case() { let (log, _owner) = super::remote(); super::$case(&log); } )*
        }
        /// Against the PostgreSQL server of `ASKUSER_TEST_PG`, each in a fresh schema.
        #[cfg(feature = "postgres")]
        mod postgres {
            $( #[test] fn $case() { let log = super::pg(); super::$case(&*log); } )*
        }
        /// The same over TCP and TLS (`sslmode=verify-full`, `ASKUSER_TEST_PG_TLS`).
        #[cfg(feature = "postgres")]
        mod postgres_tls {
            $( #[test] fn $case() { let log = super::pg_tls(); super::$case(&*log); } )*
        }
    };
}

suite!(
    appended_events_read_back_exactly,
    a_stale_expected_head_is_a_conflict_and_writes_nothing,
    reads_start_anywhere_and_stop_at_the_head_of_the_moment,
    streams_are_listed_with_head_parent_and_creation_time,
    a_fork_shares_its_parents_prefix_and_then_goes_its_own_way,
    forks_are_checked,
    a_session_branches_at_an_earlier_question,
    replay_gives_the_reducers_state_and_commands,
    load_uses_the_latest_snapshot_and_equals_a_full_replay,
    a_fork_replays_from_its_parents_snapshot,
    compaction_drops_covered_events_only_when_no_fork_needs_them,
    the_transcript_tells_what_was_asked_and_answered,
    export_writes_one_json_line_per_event,
    stream_names_are_checked,
    a_reader_may_append_while_it_iterates,
    many_threads_appending_lose_nothing_and_duplicate_nothing,
    buffered_appends_are_visible_at_once_and_flush_on_demand,
    works_as_a_trait_object,
    a_waiter_returns_when_the_head_passes_or_its_time_is_up,
    a_repack_keeps_every_event_and_stores_small_appends_as_blocks,
);

fn all<L: Log>(log: &L, stream: &str) -> Vec<(u64, Timestamp, Event)> {
    log.read(stream, 1)
        .unwrap()
        .map(|r| {
            let r = r.unwrap();
            (r.seq, r.at, r.event)
        })
        .collect()
}

fn events<L: Log>(log: &L, stream: &str) -> Vec<Event> {
    all(log, stream).into_iter().map(|(_, _, e)| e).collect()
}
