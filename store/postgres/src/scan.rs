//! Reading a stream's own events. Each row holds a block of events (or, written
//! before blocks, one event): the rows overlapping the range are read in order, and
//! each is decoded with its own first sequence number (its checksum covers it),
//! keeping the events within the range. A short range is one query on a pooled
//! connection. A long one is fetched ahead by a helper thread: it holds a connection
//! of its own, fetches the range through a portal (one statement, so one consistent
//! snapshot) about 1 MiB of rows at a time and hands the rows over a bounded
//! channel; the caller's thread checks and decodes each row as it comes to it and
//! folds its events. (Decoding on the helper, which built the events on one core
//! for the caller to apply and free on the other, was slower: see the sled log's
//! scan and benches/README.md.)
//! No connection is held by the caller, so a reader may append while it iterates;
//! dropping the iterator stops the helper at its next fetch.

use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};

use postgres::Row;

use super::pool::{Pool, database};
use super::{PgLog, from_sql, sql, to_sql};
use askuser_store::Result;
use askuser_store::block::BlockReader;
use askuser_store::codec::{corrupt_event, is_single_record, open_event, seq_key};
use askuser_store::{Recorded, Seq};

/// Ranges up to this many events are read in one query, without a helper thread.
const SHORT: u64 = 2048;
/// Bytes of rows the helper fetches per round trip, about.
const FETCH_BYTES: usize = 1 << 20;
/// Rows fetched per round trip: at first (a row holds up to 256 events or 16 KiB),
/// and at most (rows of one event, written before blocks, are small).
const FETCH_ROWS: (i32, i32) = (64, 1024);
/// Fetches the helper may run ahead of the caller (each about [`FETCH_BYTES`]).
const AHEAD: usize = 2;

/// What the helper hands over: the rows of one fetch, or what stopped it.
type Fetched = Result<Vec<Row>>;

/// The events of one stream in `from..=to`, in order.
pub(super) enum PgScan {
    /// A short range, fetched whole.
    Short(VecDeque<Result<Recorded>>),
    /// A long range, fetched by the helper thread, decoded a row at a time.
    Ahead {
        fetched: Receiver<Fetched>,
        /// The rows of the fetch being read, not yet decoded.
        rows: std::vec::IntoIter<Row>,
        /// The events of the row being read.
        events: std::vec::IntoIter<Result<Recorded>>,
        stream: String,
        from: Seq,
        to: Seq,
    },
}

impl PgScan {
    pub(super) fn new(log: &PgLog, stream: &str, from: Seq, to: Seq) -> Result<Self> {
        if to < from {
            return Ok(Self::Short(VecDeque::new()));
        }
        if to - from < SHORT {
            let rows = log.with_conn(|conn| {
                let statement = conn.prepared(sql::SCAN_ALL)?;
                conn.client
                    .query(&statement, &[&stream, &to_sql(from), &to_sql(to)])
                    .map_err(database)
            })?;
            let mut events = Vec::new();
            for row in &rows {
                decode(stream, row, from, to, &mut events);
            }
            return Ok(Self::Short(events.into()));
        }
        let (sender, fetched) = sync_channel(AHEAD);
        let pool = Arc::clone(&log.pool);
        let owned = stream.to_owned();
        std::thread::Builder::new()
            .name("askuser-pg-read".to_owned())
            .spawn(move || {
                if let Err(error) = read_ahead(&pool, &owned, from, to, &sender) {
                    let _ = sender.send(Err(error));
                }
            })?;
        Ok(Self::Ahead {
            fetched,
            rows: Vec::new().into_iter(),
            events: Vec::new().into_iter(),
            stream: stream.to_owned(),
            from,
            to,
        })
    }
}

/// The helper thread: fetches the rows of `from..=to` of `stream` and sends
/// them a fetch at a time until done or the receiver is gone.
fn read_ahead(
    pool: &Pool,
    stream: &str,
    from: Seq,
    to: Seq,
    sender: &SyncSender<Fetched>,
) -> Result<()> {
    let mut conn = pool.get()?;
    let statement = conn.prepared(sql::SCAN_ALL)?;
    let mut tx = conn.client.transaction().map_err(database)?;
    let portal = tx
        .bind(&statement, &[&stream, &to_sql(from), &to_sql(to)])
        .map_err(database)?;
    let mut fetch = FETCH_ROWS.0;
    loop {
        let rows = tx.query_portal(&portal, fetch).map_err(database)?;
        if rows.is_empty() {
            break;
        }
        let bytes: usize = rows.iter().map(Row::raw_size_bytes).sum::<usize>();
        let per_row = bytes / rows.len();
        fetch = i32::try_from(FETCH_BYTES / per_row.max(1))
            .unwrap_or(i32::MAX)
            .clamp(FETCH_ROWS.0, FETCH_ROWS.1);
        if sender.send(Ok(rows)).is_err() {
            break;
        }
    }
    tx.commit().map_err(database)
}

/// Checks and decodes the events of `row` (`seq, last_seq, record`) within
/// `from..=to` into `out`. A value that cannot be opened is reported for each
/// event of the row in the range, naming the row's range.
fn decode(stream: &str, row: &Row, from: Seq, to: Seq, out: &mut Vec<Result<Recorded>>) {
    let columns = (|| {
        let first: i64 = row.try_get(0)?;
        let last: i64 = row.try_get(1)?;
        let record: &[u8] = row.try_get(2)?;
        Ok((from_sql(first), from_sql(last), record))
    })();
    let (first, last, record) = match columns {
        Ok(columns) => columns,
        Err(error) => return out.push(Err(database(error))),
    };
    let key = seq_key(stream, first);
    if is_single_record(record) {
        if (from..=to).contains(&first) {
            out.push(open_event(stream, first, &key, record));
        }
        return;
    }
    match BlockReader::open(&key, first, record) {
        Ok(mut reader) => {
            reader.skip_to(from);
            while let Some((seq, event)) = reader.next_event() {
                if seq > to {
                    break;
                }
                out.push(event.map_err(|detail| corrupt_event(stream, seq, detail)));
            }
        }
        Err(detail) => {
            let last = last.max(first);
            let detail = if first == last {
                detail
            } else {
                format!("the value holding events {first} to {last} is damaged: {detail}")
            };
            for seq in first.max(from)..=last.min(to) {
                out.push(Err(corrupt_event(stream, seq, detail.clone())));
            }
        }
    }
}

impl Iterator for PgScan {
    type Item = Result<Recorded>;

    fn next(&mut self) -> Option<Self::Item> {
        match self {
            Self::Short(records) => records.pop_front(),
            Self::Ahead {
                fetched,
                rows,
                events,
                stream,
                from,
                to,
            } => loop {
                if let Some(event) = events.next() {
                    return Some(event);
                }
                match rows.next() {
                    Some(row) => {
                        let mut decoded = Vec::new();
                        decode(stream, &row, *from, *to, &mut decoded);
                        *events = decoded.into_iter();
                    }
                    // The helper ended: done, or it sent what stopped it.
                    None => match fetched.recv().ok()? {
                        Ok(next) => *rows = next.into_iter(),
                        Err(error) => return Some(Err(error)),
                    },
                }
            },
        }
    }
}
