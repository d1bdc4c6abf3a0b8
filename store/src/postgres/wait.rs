//! [`PgLog::wait_for`]: waiting for a stream to grow, woken by `LISTEN`/`NOTIFY`.

use std::time::{Duration, Instant};

use postgres::fallible_iterator::FallibleIterator;

use super::pool::{Conn, database};
use super::{PgLog, from_sql, schema, sql};
use crate::error::Result;
use crate::types::Seq;

impl PgLog {
    /// Waits until the head of `stream` is past `after`, for at most `timeout`;
    /// returns the head then, or `None` if the time ran out first. A stream that
    /// does not exist yet counts as head 0 (its first append wakes the waiter).
    ///
    /// This is how a process waiting for an answer learns that another process, on
    /// this machine or another, recorded one: every append sends a `NOTIFY` on the
    /// log's channel (`askuser_` ++ the schema name) with the stream's name when it
    /// commits, and the waiter `LISTEN`s on a connection of its own, re-reading the
    /// head only when its stream is named. Nothing polls; a notification arrives
    /// within a network round trip of the commit. Typical use, with a
    /// [`Session`](crate::Session) on the same log:
    ///
    /// ```no_run
    /// # use std::{sync::Arc, time::Duration};
    /// # use askuser_store::{Log, PgLog, Session};
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let log = Arc::new(PgLog::connect("postgres://askuser@db.example/askuser")?);
    /// let mut session = Session::open(log.clone(), "chat-42")?;
    /// // ... the session recorded a request; wait for someone to answer it:
    /// while log.wait_for("chat-42", session.head(), Duration::from_secs(30))?.is_some() {
    ///     for caught in session.catch_up()? {
    ///         // caught.commands holds the `Respond` once the inquiry is answered.
    ///         # let _ = caught;
    ///     }
    ///     # break;
    /// }
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Errors
    ///
    /// A connection or database error.
    pub fn wait_for(&self, stream: &str, after: Seq, timeout: Duration) -> Result<Option<Seq>> {
        let deadline = Instant::now() + timeout;
        let channel = schema::channel(&self.schema);
        let mut conn = self.pool.get()?;
        conn.client
            .batch_execute(&format!("LISTEN \"{channel}\""))
            .map_err(database)?;
        let waited = wait(&mut conn, stream, after, deadline);
        let unlistened = conn
            .client
            .batch_execute(&format!("UNLISTEN \"{channel}\""))
            .map_err(database);
        // Notifications that arrived meanwhile are of no use to the next borrower.
        let _ = conn.client.notifications().iter().count();
        let head = waited?;
        unlistened?;
        Ok(head)
    }
}

/// Reads the head (after `LISTEN`, so no append can slip between the two) and
/// waits for notifications naming `stream` until it is past `after`.
fn wait(conn: &mut Conn, stream: &str, after: Seq, deadline: Instant) -> Result<Option<Seq>> {
    loop {
        let now = head(conn, stream)?;
        if now > after {
            return Ok(Some(now));
        }
        loop {
            let remaining = deadline.saturating_duration_since(Instant::now());
            if remaining.is_zero() {
                return Ok(None);
            }
            // Whether the next notification (if any before the deadline) names us.
            let next = conn
                .client
                .notifications()
                .timeout_iter(remaining)
                .next()
                .map(|note| note.map(|note| note.payload() == stream));
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
