//! [`Backend`] and [`Log`] for [`PgLog`].

use std::sync::Arc;
use std::time::Duration;

use askuser_core::{AgentOrigin, Event, State};
use postgres::Row;
use postgres::Transaction;

use super::pool::database;
use super::scan::PgScan;
use super::{PgLog, from_sql, schema, sql, to_sql};
use askuser_store::backend::check_fork_point;
use askuser_store::backend::{Backend, RecordIter};
use askuser_store::block::{BlockReader, encode_append, rewrite_tail};
use askuser_store::codec::{
    STATE_FORMAT, SnapshotRef, check_name, key_seq, open_snapshot, seal, seq_key,
};
use askuser_store::presence::{LEASE_TTL, check_lease};
use askuser_store::{Clock, Durability, ForkPoint, Seq, Snapshot, StreamInfo, Timestamp};
use askuser_store::{Lease, Leases, Log, Version};
use askuser_store::{Result, StoreError};

/// A stream's row (`head, parent, parent_at, created_at, floor` from column
/// `first`) as a [`StreamInfo`].
pub(super) fn stream_info(name: String, row: &Row, first: usize) -> Result<StreamInfo> {
    let head: i64 = row.try_get(first).map_err(database)?;
    let parent: Option<String> = row.try_get(first + 1).map_err(database)?;
    let parent_at: Option<i64> = row.try_get(first + 2).map_err(database)?;
    let created_at: i64 = row.try_get(first + 3).map_err(database)?;
    let floor: i64 = row.try_get(first + 4).map_err(database)?;
    Ok(StreamInfo {
        name,
        head: from_sql(head),
        parent: parent.map(|stream| ForkPoint {
            stream,
            at: from_sql(parent_at.unwrap_or(0)),
        }),
        created_at: Timestamp(from_sql(created_at)),
        floor: from_sql(floor),
    })
}

/// A name no stream can have (PostgreSQL text cannot hold a NUL, and the store
/// refuses control characters in names): looked up, it is simply absent.
fn impossible(name: &str) -> bool {
    name.contains('\0')
}

/// Drops the events of `stream` up to `floor`, in `tx`: the rows starting up to it,
/// and for a block holding events on both sides, its events after the floor are
/// written again as rows of their own (as the sled log does). A straddling block
/// that cannot be read is left as it is. Gives the number of events dropped.
fn drop_rows(tx: &mut Transaction<'_>, stream: &str, floor: Seq) -> Result<u64> {
    let mut kept = -1_i64;
    let mut tail = Vec::new();
    if let Some(row) = tx
        .query_opt(sql::STRADDLING, &[&stream, &to_sql(floor)])
        .map_err(database)?
    {
        let first = from_sql(row.try_get(0).map_err(database)?);
        let record: &[u8] = row.try_get(2).map_err(database)?;
        let rewritten = BlockReader::open(&seq_key(stream, first), first, record)
            .ok()
            .and_then(|mut reader| {
                let last = reader.last();
                rewrite_tail(stream, &mut reader, floor + 1).map(|blocks| (blocks, last))
            });
        match rewritten {
            Some((blocks, last)) => tail = rows_of(blocks, last),
            None => kept = to_sql(first),
        }
    }
    let dropped: i64 = tx
        .query_one(sql::DROP_EVENTS, &[&stream, &to_sql(floor), &kept])
        .map_err(database)?
        .try_get(0)
        .map_err(database)?;
    for (first, last, record) in tail {
        tx.execute(sql::INSERT_ROW, &[&stream, &first, &last, &record])
            .map_err(database)?;
    }
    Ok(from_sql(dropped))
}

/// The rows of `blocks` (keys and values, as the block writer gives them), whose
/// last holds events up to `last`: first and last sequence numbers and value.
fn rows_of(blocks: Vec<(Vec<u8>, Vec<u8>)>, last: Seq) -> Vec<(i64, i64, Vec<u8>)> {
    let firsts: Vec<Seq> = blocks
        .iter()
        .map(|(key, _)| key_seq(key).unwrap_or(0))
        .collect();
    let lasts = firsts
        .iter()
        .skip(1)
        .map(|next| next - 1)
        .chain(std::iter::once(last));
    blocks
        .into_iter()
        .zip(firsts.iter().zip(lasts))
        .map(|((_, value), (&first, last))| (to_sql(first), to_sql(last), value))
        .collect()
}

impl PgLog {
    /// Runs `work` in a transaction on a pooled connection, committed with
    /// `durability`.
    fn transaction<T: Send>(
        &self,
        durability: Durability,
        work: impl FnOnce(&mut Transaction<'_>) -> Result<T> + Send,
    ) -> Result<T> {
        self.with_conn(|conn| {
            let mut tx = conn.client.transaction().map_err(database)?;
            if durability == Durability::Buffered {
                tx.batch_execute(sql::BUFFERED).map_err(database)?;
            }
            let value = work(&mut tx)?;
            tx.commit().map_err(database)?;
            Ok(value)
        })
    }

    fn current_head(&self, stream: &str) -> Result<Seq> {
        Ok(self.stream(stream)?.map_or(0, |info| info.head))
    }

    /// The database's clock now.
    fn database_now(&self) -> Result<Timestamp> {
        let row = self.with_conn(|conn| {
            conn.client
                .query_one(
                    "SELECT (extract(epoch from clock_timestamp()) * 1000)::bigint",
                    &[],
                )
                .map_err(database)
        })?;
        Ok(Timestamp(from_sql(row.try_get(0).map_err(database)?)))
    }

    /// The latest leases (at most 4,096), of `stream` only when given, with
    /// the database's time.
    fn leases_where(&self, stream: Option<&str>) -> Result<Option<Leases>> {
        let rows = self.with_conn(|conn| {
            if let Some(stream) = stream {
                let statement = conn.prepared(sql::LEASES_ON)?;
                conn.client.query(&statement, &[&stream]).map_err(database)
            } else {
                let statement = conn.prepared(sql::LEASES)?;
                conn.client.query(&statement, &[]).map_err(database)
            }
        })?;
        let mut leases = Leases::default();
        for row in &rows {
            let now: i64 = row.try_get(0).map_err(database)?;
            leases.now = Timestamp(from_sql(now));
            let origin: String = row.try_get(3).map_err(database)?;
            let ended_at: Option<i64> = row.try_get(6).map_err(database)?;
            leases.leases.push(Lease {
                stream: row.try_get(1).map_err(database)?,
                holder: row.try_get(2).map_err(database)?,
                // A row another build wrote, unreadable here: an unknown origin.
                origin: serde_json::from_str(&origin).unwrap_or_default(),
                renewed_at: Timestamp(from_sql(row.try_get(4).map_err(database)?)),
                ttl_ms: from_sql(row.try_get(5).map_err(database)?),
                ended_at: ended_at.map(|at| Timestamp(from_sql(at))),
            });
        }
        if rows.is_empty() {
            leases.now = self.database_now()?;
        }
        leases
            .leases
            .sort_by(|a, b| (&a.stream, &a.holder).cmp(&(&b.stream, &b.holder)));
        Ok(Some(leases))
    }
}

impl Backend for PgLog {
    fn append_with(
        &self,
        stream: &str,
        expected: Seq,
        events: &[Event],
        durability: Durability,
    ) -> Result<Seq> {
        check_name(stream)?;
        if events.is_empty() {
            let actual = self.current_head(stream)?;
            askuser_store::backend::expect_head(stream, expected, actual)?;
            return Ok(actual);
        }
        let at = self.clock.now();
        let new_head = expected + events.len() as u64;
        let (firsts, records): (Vec<i64>, Vec<Vec<u8>>) =
            encode_append(stream, expected + 1, at, events)?
                .into_iter()
                .map(|(key, value)| (to_sql(key_seq(&key).unwrap_or(0)), value))
                .unzip();
        let row = self.with_conn(|conn| {
            let statement = conn.prepared(sql::APPEND)?;
            conn.client
                .query_one(
                    &statement,
                    &[
                        &stream,
                        &to_sql(expected),
                        &to_sql(new_head),
                        &firsts,
                        &records,
                        &to_sql(at.millis()),
                        &(durability == Durability::Flush),
                    ],
                )
                .map_err(database)
        })?;
        let appended: bool = row.try_get(0).map_err(database)?;
        let head = from_sql(row.try_get(1).map_err(database)?);
        if appended {
            Ok(head)
        } else {
            Err(StoreError::Conflict {
                stream: stream.to_owned(),
                expected,
                actual: head,
            })
        }
    }

    fn durability(&self) -> Durability {
        self.durability
    }

    fn scan_own(&self, stream: &str, from: Seq, to: Seq) -> Result<RecordIter<'_>> {
        Ok(Box::new(PgScan::new(self, stream, from, to)?))
    }

    fn put_snapshot(&self, stream: &str, seq: Seq, state: &State) -> Result<()> {
        let record = seal(
            &seq_key(stream, seq),
            &SnapshotRef {
                state_format: STATE_FORMAT,
                seq,
                taken_at: self.clock.now(),
                state,
            },
        )?;
        self.transaction(self.durability, |tx| {
            tx.execute(sql::PUT_SNAPSHOT, &[&stream, &to_sql(seq), &record])
                .map_err(database)?;
            Ok(())
        })
    }

    fn get_snapshot(&self, stream: &str, seq: Seq) -> Result<Option<Snapshot>> {
        if impossible(stream) {
            return Ok(None);
        }
        let row = self.with_conn(|conn| {
            let statement = conn.prepared(sql::GET_SNAPSHOT)?;
            conn.client
                .query_opt(&statement, &[&stream, &to_sql(seq)])
                .map_err(database)
        })?;
        let Some(row) = row else {
            return Ok(None);
        };
        let bytes: Vec<u8> = row.try_get(0).map_err(database)?;
        let key = seq_key(stream, seq);
        open_snapshot(stream, seq, &key, &bytes)
    }

    fn snapshot_seqs(&self, stream: &str) -> Result<Vec<Seq>> {
        if impossible(stream) {
            return Ok(Vec::new());
        }
        let rows = self.with_conn(|conn| {
            let statement = conn.prepared(sql::SNAPSHOT_SEQS)?;
            conn.client.query(&statement, &[&stream]).map_err(database)
        })?;
        rows.iter()
            .map(|row| row.try_get::<_, i64>(0).map(from_sql).map_err(database))
            .collect()
    }

    fn drop_through(&self, stream: &str, seq: Seq) -> Result<u64> {
        self.transaction(self.durability, |tx| {
            if tx
                .query_opt(sql::LOCK_STREAM, &[&stream])
                .map_err(database)?
                .is_none()
            {
                return Err(StoreError::NoSuchStream(stream.to_owned()));
            }
            if let Some(fork) = tx
                .query_opt(sql::DEPENDENT_FORK, &[&stream, &to_sql(seq)])
                .map_err(database)?
            {
                return Err(StoreError::ForkDependsOnEvents {
                    stream: stream.to_owned(),
                    upto: seq,
                    fork: fork.try_get(0).map_err(database)?,
                    at: from_sql(fork.try_get(1).map_err(database)?),
                });
            }
            tx.execute(sql::SET_FLOOR, &[&stream, &to_sql(seq)])
                .map_err(database)?;
            let dropped = drop_rows(tx, stream, seq)?;
            tx.execute(sql::DROP_SNAPSHOTS, &[&stream, &to_sql(seq)])
                .map_err(database)?;
            tx.execute(sql::NOTIFY, &[&schema::channel(&self.schema), &stream])
                .map_err(database)?;
            Ok(dropped)
        })
    }

    fn clock(&self) -> &Arc<dyn Clock> {
        &self.clock
    }
}

impl Log for PgLog {
    /// A row of table `presence`, its times on the database's clock, lasting
    /// at most [`LEASE_TTL`] whatever `ttl` asks; a new one only where this
    /// process's bound admits it (the rule of [`askuser_store::presence::admit_new_lease`]).
    fn renew_lease(
        &self,
        stream: &str,
        holder: &str,
        origin: &AgentOrigin,
        ttl: Duration,
    ) -> Result<bool> {
        check_name(stream)?;
        check_lease(holder, origin)?;
        let origin =
            serde_json::to_string(origin).map_err(|e| StoreError::Encode(e.to_string()))?;
        let ttl = ttl.min(LEASE_TTL);
        let now = self.clock.now();
        let until = Timestamp(
            now.0
                .saturating_add(u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX)),
        );
        let ttl = i64::try_from(ttl.as_millis()).unwrap_or(i64::MAX);
        let live = || {
            let row = self.with_conn(|conn| {
                let count = conn.prepared(sql::LIVE_LEASES)?;
                conn.client.query_one(&count, &[]).map_err(database)
            })?;
            let live: i64 = row.try_get(0).map_err(database)?;
            Ok(usize::try_from(live).unwrap_or(usize::MAX))
        };
        let renew = || {
            self.with_conn(|conn| {
                let renew = conn.prepared(sql::RENEW_LEASE)?;
                conn.client
                    .execute(&renew, &[&stream, &holder, &origin, &ttl])
                    .map_err(database)?;
                let prune = conn.prepared(sql::PRUNE_LEASES)?;
                conn.client.execute(&prune, &[]).map_err(database)
            })
            .map(drop)
        };
        self.held
            .renew((stream, holder), (now, until), live, renew)?;
        Ok(true)
    }

    fn end_lease(&self, stream: &str, holder: &str) -> Result<()> {
        if impossible(stream) || holder.contains('\0') {
            return Ok(());
        }
        self.held.end(stream, holder);
        self.with_conn(|conn| {
            let end = conn.prepared(sql::END_LEASE)?;
            conn.client
                .execute(&end, &[&stream, &holder])
                .map_err(database)
        })?;
        Ok(())
    }

    fn leases(&self) -> Result<Option<Leases>> {
        self.leases_where(None)
    }

    /// As [`Log::leases_on`]: the rows of that stream alone.
    fn leases_on(&self, stream: &str) -> Result<Option<Leases>> {
        if impossible(stream) {
            return Ok(Some(Leases {
                now: self.database_now()?,
                leases: Vec::new(),
            }));
        }
        self.leases_where(Some(stream))
    }

    fn stream(&self, stream: &str) -> Result<Option<StreamInfo>> {
        if impossible(stream) {
            return Ok(None);
        }
        let row = self.with_conn(|conn| {
            let statement = conn.prepared(sql::STREAM)?;
            conn.client
                .query_opt(&statement, &[&stream])
                .map_err(database)
        })?;
        row.map(|row| stream_info(stream.to_owned(), &row, 0))
            .transpose()
    }

    fn streams(&self) -> Result<Vec<StreamInfo>> {
        let rows = self.with_conn(|conn| {
            let statement = conn.prepared(sql::STREAMS)?;
            conn.client.query(&statement, &[]).map_err(database)
        })?;
        rows.iter()
            .map(|row| stream_info(row.try_get(0).map_err(database)?, row, 1))
            .collect()
    }

    fn fork(&self, parent: &str, at: Seq, name: &str) -> Result<StreamInfo> {
        check_name(name)?;
        let created_at = self.clock.now();
        self.transaction(self.durability, |tx| {
            if tx
                .query_opt(sql::EXISTS, &[&name])
                .map_err(database)?
                .is_some()
            {
                return Err(StoreError::StreamExists(name.to_owned()));
            }
            let source = if impossible(parent) {
                None
            } else {
                tx.query_opt(sql::LOCK_PARENT, &[&parent])
                    .map_err(database)?
            };
            let Some(source) = source else {
                return Err(StoreError::NoSuchStream(parent.to_owned()));
            };
            let head = from_sql(source.try_get(0).map_err(database)?);
            let floor = from_sql(source.try_get(1).map_err(database)?);
            check_fork_point(parent, at, head, floor)?;
            let created = tx
                .execute(
                    sql::CREATE_FORK,
                    &[&name, &to_sql(at), &parent, &to_sql(created_at.millis())],
                )
                .map_err(database)?;
            if created == 0 {
                return Err(StoreError::StreamExists(name.to_owned()));
            }
            tx.execute(sql::NOTIFY, &[&schema::channel(&self.schema), &name])
                .map_err(database)?;
            Ok(StreamInfo {
                name: name.to_owned(),
                head: at,
                parent: Some(ForkPoint {
                    stream: parent.to_owned(),
                    at,
                }),
                created_at,
                floor: 0,
            })
        })
    }

    fn flush(&self) -> Result<()> {
        self.with_conn(|conn| conn.client.batch_execute(sql::FLUSH).map_err(database))
    }

    fn wait_past(&self, stream: &str, seq: Seq, timeout: Duration) -> Result<Seq> {
        self.wait_notified(stream, seq, (timeout, false))
    }

    /// As [`Log::wait_for_others`]: a notification sent by one of this log's
    /// own connections (PostgreSQL names the server process that sent it)
    /// does not end the wait.
    fn wait_for_others(&self, stream: &str, seq: Seq, timeout: Duration) -> Result<Seq> {
        self.wait_notified(stream, seq, (timeout, true))
    }

    fn wait_changed(&self, since: Version, timeout: Duration) -> Result<Version> {
        self.wait_any_notified(since, timeout)
    }
}
