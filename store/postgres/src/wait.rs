//! Waiting for a stream to grow, woken by `LISTEN`/`NOTIFY`.

use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use postgres::fallible_iterator::FallibleIterator;

use super::pool::{Backends, Conn, Pooled, database};
use super::storage::stream_info;
use super::{PgLog, from_sql, schema, sql};
use askuser_store::Result;
use askuser_store::Seq;
use askuser_store::Version;

/// The longest single wait for a notification (the client adds it to the clock).
const LONGEST_WAIT: Duration = Duration::from_secs(3600);

/// What a waiter is recorded as waiting on (a row of the table `watchers`).
struct Watched<'a> {
    /// The stream; `None`: any change of the log.
    stream: Option<&'a str>,
    /// The log whose appends it does not wait for (its own, for
    /// [`Log::wait_for_others`](askuser_store::Log::wait_for_others));
    /// `None`: it waits for every append.
    except_log: Option<&'a str>,
}

impl PgLog {
    /// [`Log::wait_past`](askuser_store::Log::wait_past), woken by `LISTEN`/`NOTIFY`: the
    /// waiter records that it waits on `stream` ([`PgLog::listening`]), and
    /// an append to it then sends a `NOTIFY` on the log's channel (`askuser_`
    /// ++ the schema name) with the stream's name when it commits; the waiter
    /// `LISTEN`s on a connection of its own, re-reading the head only when
    /// its stream is named.
    ///
    /// With `others_only`, an append by one of this log's own connections
    /// does not end the wait
    /// ([`Log::wait_for_others`](askuser_store::Log::wait_for_others)):
    /// such an append sends no notification for this waiter (every connection
    /// of the log names it in the setting `askuser.log`), and one it gets
    /// anyway (an append sent another waiter's) is told apart by the server
    /// process PostgreSQL names as its sender.
    pub(super) fn wait_notified(
        &self,
        stream: &str,
        after: Seq,
        (timeout, others_only): (Duration, bool),
    ) -> Result<Seq> {
        // A timeout too long to add to the clock waits for ever.
        let deadline = Instant::now().checked_add(timeout);
        let own = others_only.then(|| self.pool.backends.clone());
        let watched = Watched {
            stream: Some(stream),
            except_log: others_only.then_some(self.pool.name.as_str()),
        };
        self.listening(&watched, |conn, known| {
            // Only a wait for others may go by what it heard: this process's own
            // appends notify a plain wait, and their notification may still be on
            // its way when the wait starts (the head is read instead).
            let known = known.filter(|_| others_only);
            wait(conn, (stream, after), deadline, own.as_ref(), known)
        })
    }

    /// Runs `waiting` on a connection that `LISTEN`s on the log's channel
    /// and is recorded as waiting on what `watched` says: the one the last
    /// wait on the same left so ([`Kept`]), else a pooled one, recorded now.
    /// A wait that fails stops both and gives the connection back.
    ///
    /// Appends notify only while someone waits on their stream: a
    /// transaction that notifies holds a lock on the whole cluster through
    /// its commit, so appends that all notified committed one at a time.
    /// The record and the `LISTEN` commit together, under an advisory lock
    /// every append holds (shared) from its start: an append either sees the
    /// record and notifies, or committed before the head is read.
    fn listening<T: Send>(
        &self,
        watched: &Watched<'_>,
        waiting: impl Fn(&mut Conn, Option<Known>) -> Result<(T, Option<Known>)> + Send,
    ) -> Result<T> {
        super::off_runtime(move || self.listening_here(watched, &waiting))
    }

    /// [`PgLog::listening`] on this thread.
    fn listening_here<T>(
        &self,
        watched: &Watched<'_>,
        waiting: &impl Fn(&mut Conn, Option<Known>) -> Result<(T, Option<Known>)>,
    ) -> Result<T> {
        let channel = schema::channel(&self.schema);
        // A kept connection the server dropped meanwhile (a restart, a cut
        // network) fails its first query: the wait is made again on a pooled
        // one, as a wait that took it from the pool would have.
        if let Some((conn, same, known)) = self.kept.take(watched) {
            let mut conn = self.pool.pooled(conn);
            // Listening already; recorded anew when it waited on something else.
            if same || listen(&mut conn, &channel, watched).is_ok() {
                let waited = self.wait_listening(conn, watched, &channel, (waiting, known));
                if waited.is_ok() {
                    return waited;
                }
            } else {
                // Still listening for what it waited on before: closed, not
                // given back (a failed record rolls back only its own LISTEN).
                drop(conn.keep());
            }
        }
        let mut conn = self.pool.get()?;
        listen(&mut conn, &channel, watched)?;
        self.wait_listening(conn, watched, &channel, (waiting, None))
    }

    /// Runs `waiting` on `conn`, which listens on `channel` recorded as waiting
    /// on what `watched` says, handing it what the connection `known` since the
    /// last wait on it ended (its notifications since then wait in its buffer),
    /// then keeps it so ([`Kept`]); a wait that fails stops both and gives the
    /// connection back (or closes it, if it cannot).
    fn wait_listening<T>(
        &self,
        mut conn: Pooled<'_>,
        watched: &Watched<'_>,
        channel: &str,
        (waiting, known): (
            &impl Fn(&mut Conn, Option<Known>) -> Result<(T, Option<Known>)>,
            Option<Known>,
        ),
    ) -> Result<T> {
        if known.is_none() {
            // What arrived since the last wait on this connection ended is
            // stale: the head is read after this.
            let _ = conn.client.notifications().iter().count();
        }
        match waiting(&mut conn, known) {
            Ok((done, known)) => {
                if let Some(mut displaced) = self.kept.keep(watched, conn.keep(), known)
                    && stop_listening(&mut displaced, channel).is_ok()
                {
                    self.pool.give_back(displaced);
                }
                Ok(done)
            }
            Err(error) => {
                if stop_listening(&mut conn, channel).is_err() {
                    drop(conn.keep());
                }
                Err(error)
            }
        }
    }
}

/// Starts `conn` listening on `channel`, recorded as waiting on what `watched`
/// says. One round trip: the advisory lock `watch` takes holds the stream's
/// appends back until the commit.
fn listen(conn: &mut Conn, channel: &str, watched: &Watched<'_>) -> Result<()> {
    let watching = conn.client.batch_execute(&format!(
        "BEGIN; LISTEN \"{channel}\"; SELECT watch({}, {}); COMMIT",
        literal(watched.stream),
        literal(watched.except_log)
    ));
    if let Err(error) = watching {
        let _ = conn.client.batch_execute("ROLLBACK");
        return Err(database(error));
    }
    Ok(())
}

/// Stops `conn` listening and waiting, and drops the notifications that
/// arrived meanwhile (they are of no use to the connection's next borrower).
fn stop_listening(conn: &mut Conn, channel: &str) -> Result<()> {
    let stopped = conn
        .client
        .batch_execute(&format!("UNLISTEN \"{channel}\"; {}", sql::UNWATCH))
        .map_err(database);
    let _ = conn.client.notifications().iter().count();
    stopped
}

/// The connection the last wait of a log left listening, still recorded as
/// waiting on what that wait watched, so that the next wait on the same
/// starts at once. A host waits in slices (`askuser serve`'s watcher every
/// 250 ms, to see whether it should stop): recording each slice again took the
/// stream's lock exclusively each time, and the appends of the stream queued
/// behind it and behind the append it waited for (32 agents on one
/// PostgreSQL log: lock waits of 20 to 90 ms, the run's p99). While it is
/// kept, an append to what it watched notifies as if a wait were on (the
/// waiter takes the notifications as stale); a wait on anything else, or
/// dropping the log, stops it (the next wait records its own on the same
/// connection).
#[derive(Default)]
pub(super) struct Kept(Mutex<Option<KeptConn>>);

/// A kept connection and what it is recorded as waiting on.
struct KeptConn {
    stream: Option<String>,
    except_log: Option<String>,
    conn: Conn,
    /// The stream's head as the last wait on it left it known.
    known: Option<Known>,
}

/// What a kept connection knows of the head of the stream it waits on: the
/// head it read last and when. Every notification since waits in its buffer,
/// so while none names the stream (and the read is recent), the head of others'
/// appends has not moved past it and the next wait needs no read to start.
#[derive(Clone, Copy)]
pub(super) struct Known {
    head: Seq,
    read_at: Instant,
}

/// How long a head read stands, while no notification names its stream: a
/// wait for others reads the head again after this (at most once in this
/// long while nothing is heard), so a connection lost without a word from the
/// network is found out, and the head a wait returns is never older.
const KNOWN_FOR: Duration = Duration::from_secs(5);

impl Known {
    /// Whether this still stands for the head (see [`KNOWN_FOR`]).
    fn fresh(self) -> bool {
        self.read_at.elapsed() < KNOWN_FOR
    }
}

impl Kept {
    fn lock(&self) -> std::sync::MutexGuard<'_, Option<KeptConn>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The kept connection, if it is open; whether it is recorded as waiting
    /// on what `watched` says (else on something else, which it stops being as
    /// soon as it is recorded again), and if so what it knows of the head.
    fn take(&self, watched: &Watched<'_>) -> Option<(Conn, bool, Option<Known>)> {
        let kept = self.lock().take()?;
        let same = kept.stream.as_deref() == watched.stream
            && kept.except_log.as_deref() == watched.except_log;
        let known = kept.known.filter(|_| same);
        (!kept.conn.client.is_closed()).then_some((kept.conn, same, known))
    }

    /// Keeps `conn`, recorded as waiting on what `watched` says and knowing
    /// `known`; returns the connection it replaces, still listening.
    fn keep(&self, watched: &Watched<'_>, conn: Conn, known: Option<Known>) -> Option<Conn> {
        let kept = KeptConn {
            stream: watched.stream.map(str::to_owned),
            except_log: watched.except_log.map(str::to_owned),
            conn,
            known,
        };
        self.lock().replace(kept).map(|old| old.conn)
    }
}

impl Drop for Kept {
    fn drop(&mut self) {
        let kept = self
            .0
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some(mut kept) = kept {
            // Best effort: a connection that closes takes its `LISTEN` with it,
            // and its row in `watchers` is cleared when a log is next opened.
            let _ = super::off_runtime(move || {
                kept.conn
                    .client
                    .batch_execute(sql::UNWATCH)
                    .map_err(database)
            });
        }
    }
}

impl PgLog {
    /// [`Log::wait_changed`](askuser_store::Log::wait_changed), woken by `LISTEN`/`NOTIFY`:
    /// the waiter records that it waits on any change and `LISTEN`s on the
    /// log's channel on a connection of its own, and reads the version again
    /// at any notification (every append, fork or compaction sends one when
    /// it commits while such a waiter is recorded), and once more when the
    /// time runs out.
    pub(super) fn wait_any_notified(&self, since: Version, timeout: Duration) -> Result<Version> {
        let deadline = Instant::now().checked_add(timeout);
        let everything = Watched {
            stream: None,
            except_log: None,
        };
        self.listening(&everything, |conn, _| {
            Ok((wait_any(conn, since, deadline)?, None))
        })
    }
}

/// `text` as an SQL literal (an escape string, whatever the server's
/// `standard_conforming_strings`), or `NULL`. A NUL, which no text in
/// PostgreSQL holds (and so no stream's name), is written as U+FFFD.
fn literal(text: Option<&str>) -> String {
    text.map_or_else(
        || "NULL".to_owned(),
        |text| {
            let escaped = text
                .replace('\\', "\\\\")
                .replace('\'', "\\'")
                .replace('\0', "\u{fffd}");
            format!("E'{escaped}'")
        },
    )
}

/// Reads the version (after `LISTEN`, so no change can slip between the two) and
/// waits for any notification until it is no longer `since`.
fn wait_any(conn: &mut Conn, since: Version, deadline: Option<Instant>) -> Result<Version> {
    loop {
        let now = version(conn)?;
        let remaining = deadline.map_or(LONGEST_WAIT, |d| {
            d.saturating_duration_since(Instant::now())
        });
        if now != since || remaining.is_zero() {
            return Ok(now);
        }
        let next = conn
            .client
            .notifications()
            .timeout_iter(remaining.min(LONGEST_WAIT))
            .next()
            .map_err(database)?;
        if next.is_some() {
            // Those that came with it say nothing more: one read covers them.
            let _ = conn.client.notifications().iter().count();
        }
    }
}

/// The log's version, on `conn`.
fn version(conn: &mut Conn) -> Result<Version> {
    let statement = conn.prepared(sql::STREAMS)?;
    let rows = conn.client.query(&statement, &[]).map_err(database)?;
    let streams = rows
        .iter()
        .map(|row| stream_info(row.try_get(0).map_err(database)?, row, 1))
        .collect::<Result<Vec<_>>>()?;
    Ok(Version::of(&streams))
}

/// Waits for notifications naming `stream` until its head is past `after` or
/// the deadline passes; the head then (as last read), and what the connection
/// knows of it for the next wait.
///
/// The head is read first (after `LISTEN`, so no append can slip between the
/// two), unless `known` stands for it: a wait for others on a connection kept
/// listening since its last read, with no notification naming the stream
/// since and the read recent ([`Known::fresh`]). At the deadline it is read
/// once more (in case of a notification still on its way, or lost to a
/// connection dropped without a word), unless it was read since the deadline
/// passed, or, for a wait for others, that read still stands.
fn wait(
    conn: &mut Conn,
    (stream, after): (&str, Seq),
    deadline: Option<Instant>,
    own: Option<&Backends>,
    known: Option<Known>,
) -> Result<(Seq, Option<Known>)> {
    let names_stream = |note: &postgres::Notification| {
        note.payload() == stream && !own.is_some_and(|own| own.contains(note.process_id()))
    };
    let mut known = match known {
        // What arrived since the last wait ended (all of it looked at and
        // dropped): any naming the stream moved it.
        Some(known) if !heard_of(conn, names_stream)? && known.fresh() => known,
        _ => read(conn, stream)?,
    };
    loop {
        if known.head > after {
            return Ok((known.head, Some(known)));
        }
        let remaining = deadline.map_or(LONGEST_WAIT, |d| {
            d.saturating_duration_since(Instant::now())
        });
        // Whether the next notification (if any before the deadline) names us.
        let next = if remaining.is_zero() {
            None
        } else {
            conn.client
                .notifications()
                .timeout_iter(remaining.min(LONGEST_WAIT))
                .next()
                .map_err(database)?
        };
        match next {
            Some(note) if names_stream(&note) => {
                // Those that came with it say nothing more: one read covers them.
                let _ = conn.client.notifications().iter().count();
                known = read(conn, stream)?;
            }
            Some(_) => {}
            None => {
                // The deadline: one last look (a plain wait's, in case of a
                // notification still on its way or lost to a dropped
                // connection), unless a read made since the deadline, or for a
                // wait for others a recent one, stands.
                let read_since = deadline.is_some_and(|deadline| known.read_at >= deadline);
                if !read_since && (own.is_none() || !known.fresh()) {
                    known = read(conn, stream)?;
                }
                return Ok((known.head, Some(known)));
            }
        }
    }
}

/// Whether a notification that arrived meanwhile (read without waiting, and
/// dropped) says what `names_stream` asks.
fn heard_of(
    conn: &mut Conn,
    names_stream: impl Fn(&postgres::Notification) -> bool,
) -> Result<bool> {
    let mut heard = false;
    let mut waiting = conn.client.notifications();
    let mut notes = waiting.iter();
    while let Some(note) = notes.next().map_err(database)? {
        heard |= names_stream(&note);
    }
    Ok(heard)
}

/// The head of `stream`, read now.
fn read(conn: &mut Conn, stream: &str) -> Result<Known> {
    Ok(Known {
        head: head(conn, stream)?,
        read_at: Instant::now(),
    })
}

fn head(conn: &mut Conn, stream: &str) -> Result<Seq> {
    if stream.contains('\0') {
        return Ok(0);
    }
    let statement = conn.prepared(sql::STREAM)?;
    let row = conn
        .client
        .query_opt(&statement, &[&stream])
        .map_err(database)?;
    match row {
        Some(row) => Ok(from_sql(row.try_get(0).map_err(database)?)),
        None => Ok(0),
    }
}

#[cfg(test)]
mod tests {
    use super::literal;

    #[test]
    fn a_name_is_written_as_an_escape_string_whatever_it_holds() {
        assert_eq!(literal(None), "NULL");
        assert_eq!(literal(Some("s")), "E's'");
        assert_eq!(literal(Some(r"it's a \ name")), r"E'it\'s a \\ name'");
        assert_eq!(literal(Some("a\0b")), "E'a\u{fffd}b'");
    }
}
