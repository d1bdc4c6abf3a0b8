//! Waiting for a stream to grow, woken by `LISTEN`/`NOTIFY`.

use std::time::{Duration, Instant};

use postgres::fallible_iterator::FallibleIterator;

use super::pool::{Backends, Conn, database};
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
    ) -> Result<Option<Seq>> {
        // A timeout too long to add to the clock waits for ever.
        let deadline = Instant::now().checked_add(timeout);
        let own = others_only.then(|| self.pool.backends.clone());
        let watched = Watched {
            stream: Some(stream),
            except_log: others_only.then_some(self.pool.name.as_str()),
        };
        self.listening(&watched, |conn| {
            wait(conn, (stream, after), deadline, own.as_ref())
        })
    }

    /// Runs `waiting` on a connection that `LISTEN`s on the log's channel
    /// and is recorded as waiting on what `watched` says; then stops both and
    /// drops the notifications that arrived meanwhile (they are of no use to
    /// the connection's next borrower).
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
        waiting: impl FnOnce(&mut Conn) -> Result<T> + Send,
    ) -> Result<T> {
        super::off_runtime(|| self.listening_here(watched, waiting))
    }

    /// [`PgLog::listening`] on this thread.
    fn listening_here<T>(
        &self,
        watched: &Watched<'_>,
        waiting: impl FnOnce(&mut Conn) -> Result<T>,
    ) -> Result<T> {
        let channel = schema::channel(&self.schema);
        let mut conn = self.pool.get()?;
        // One round trip: the advisory lock `watch` takes holds the stream's
        // appends back until the commit.
        let watching = conn.client.batch_execute(&format!(
            "BEGIN; LISTEN \"{channel}\"; SELECT watch({}, {}); COMMIT",
            literal(watched.stream),
            literal(watched.except_log)
        ));
        if let Err(error) = watching {
            let _ = conn.client.batch_execute("ROLLBACK");
            return Err(database(error));
        }
        let waited = waiting(&mut conn);
        let unlistened = conn
            .client
            .batch_execute(&format!("UNLISTEN \"{channel}\"; {}", sql::UNWATCH))
            .map_err(database);
        let _ = conn.client.notifications().iter().count();
        let done = waited?;
        unlistened?;
        Ok(done)
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
        self.listening(&everything, |conn| wait_any(conn, since, deadline))
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

/// Reads the head (after `LISTEN`, so no append can slip between the two) and
/// waits for notifications naming `stream` until it is past `after`.
fn wait(
    conn: &mut Conn,
    (stream, after): (&str, Seq),
    deadline: Option<Instant>,
    own: Option<&Backends>,
) -> Result<Option<Seq>> {
    loop {
        let now = head(conn, stream)?;
        if now > after {
            return Ok(Some(now));
        }
        loop {
            let remaining = deadline.map_or(LONGEST_WAIT, |d| {
                d.saturating_duration_since(Instant::now())
            });
            if remaining.is_zero() {
                return Ok(None);
            }
            let remaining = remaining.min(LONGEST_WAIT);
            // Whether the next notification (if any before the deadline) names us.
            let next = conn
                .client
                .notifications()
                .timeout_iter(remaining)
                .next()
                .map(|note| {
                    note.map(|note| {
                        note.payload() == stream
                            && !own.is_some_and(|own| own.contains(note.process_id()))
                    })
                });
            match next {
                Ok(Some(true)) => break,
                Ok(Some(false)) => {}
                Ok(None) => {
                    // Timed out: one last look, in case of a notification lost to a
                    // dropped connection.
                    let now = head(conn, stream)?;
                    return Ok((now > after).then_some(now));
                }
                Err(error) => return Err(database(error)),
            }
        }
    }
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
