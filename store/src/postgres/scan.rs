//! Reading a stream's own events a chunk at a time: each chunk is one query on a
//! pooled connection, so no connection is held while the caller works through the
//! events (a reader may append while it iterates).

use std::collections::VecDeque;

use super::{PgLog, to_sql};
use crate::codec::decode_event_record;
use crate::error::Result;
use crate::types::{Recorded, Seq};

/// Events fetched per query.
const CHUNK: i64 = 8192;

/// The events of one stream in `next..=to`, in order.
pub(super) struct PgScan<'a> {
    log: &'a PgLog,
    stream: String,
    next: Seq,
    to: Seq,
    buffer: VecDeque<(Seq, Vec<u8>)>,
    failed: bool,
}

impl<'a> PgScan<'a> {
    pub fn new(log: &'a PgLog, stream: &str, from: Seq, to: Seq) -> Self {
        Self {
            log,
            stream: stream.to_owned(),
            next: from,
            to,
            buffer: VecDeque::new(),
            failed: false,
        }
    }

    fn fill(&mut self) -> Result<()> {
        let rows = self.log.with_conn(|conn| {
            let statement = conn.prepared(super::sql::SCAN)?;
            conn.client
                .query(
                    &statement,
                    &[&self.stream, &to_sql(self.next), &to_sql(self.to), &CHUNK],
                )
                .map_err(super::pool::database)
        })?;
        for row in rows {
            let seq: i64 = row.try_get(0).map_err(super::pool::database)?;
            let record: Vec<u8> = row.try_get(1).map_err(super::pool::database)?;
            self.buffer
                .push_back((Seq::try_from(seq).unwrap_or(0), record));
        }
        self.next = match self.buffer.back() {
            Some((seq, _)) => seq + 1,
            None => self.to + 1,
        };
        Ok(())
    }
}

impl Iterator for PgScan<'_> {
    type Item = Result<Recorded>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        if self.buffer.is_empty()
            && self.next <= self.to
            && let Err(error) = self.fill()
        {
            self.failed = true;
            return Some(Err(error));
        }
        let (seq, record) = self.buffer.pop_front()?;
        Some(decode_event_record(&self.stream, seq, &record))
    }
}
