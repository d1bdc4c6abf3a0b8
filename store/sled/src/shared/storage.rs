//! The backend primitives of [`SharedSledLog`]: snapshots, compaction, and a
//! stream's own records read from the owner a chunk at a time.

use std::borrow::Cow;
use std::collections::VecDeque;
use std::sync::Arc;

use askuser_core::{Event, State};

use super::SharedSledLog;
use super::client::{CallError, REQUEST_TIMEOUT, Watch};
use super::idle::OwnedScan;
use super::owner::Chunk;
use super::wire::{Request, Response, is_flush};
use askuser_store::backend::{Backend, RecordIter, visit_each};
use askuser_store::codec::check_name;
use askuser_store::{Clock, Durability, Recorded, Seq, Snapshot};
use askuser_store::{Result, StoreError};

impl Backend for SharedSledLog {
    fn append_with(
        &self,
        stream: &str,
        expected: Seq,
        events: &[Event],
        durability: Durability,
    ) -> Result<Seq> {
        check_name(stream)?;
        let request = Request::Append {
            stream: stream.into(),
            expected,
            events: Cow::Borrowed(events),
            flush: is_flush(durability),
        };
        let mut recoveries = 0;
        loop {
            if let Some(owned) = self.owned() {
                let _busy = owned.core.busy();
                return (owned.core).append(
                    stream,
                    expected,
                    events,
                    (durability, std::process::id()),
                );
            }
            match self.client.call(&request, REQUEST_TIMEOUT, Watch::Closely) {
                Ok(Response::Head(head)) => return Ok(head),
                Ok(Response::Error(error)) => return Err(error.into()),
                Ok(other) => {
                    return Err(StoreError::BadMessage(format!(
                        "an append was answered with {}",
                        other.kind()
                    )));
                }
                Err(CallError::Store(error)) => return Err(error),
                Err(CallError::Lost {
                    sent,
                    generation,
                    detail,
                }) => {
                    self.recover_after_loss(&mut recoveries, generation, detail)?;
                    if sent && let Some(head) = self.settle_lost_append(stream, expected, events)? {
                        return Ok(head);
                    }
                }
            }
        }
    }

    fn durability(&self) -> Durability {
        self.durability
    }

    fn scan_own(&self, stream: &str, from: Seq, to: Seq) -> Result<RecordIter<'_>> {
        if let Some(owned) = self.owned() {
            return Ok(Box::new(OwnedScan::new(owned, stream, from, to)));
        }
        Ok(Box::new(RemoteScan {
            log: self,
            stream: stream.to_owned(),
            next: from,
            to,
            buffer: VecDeque::new(),
            done: false,
        }))
    }

    fn visit_own(
        &self,
        stream: &str,
        from: Seq,
        to: Seq,
        visit: &mut dyn FnMut(Result<&Recorded>) -> Result<()>,
    ) -> Result<()> {
        if let Some(owned) = self.owned() {
            // As an `OwnedScan`: the log stays open, and this process its owner,
            // until the visit ends.
            let _busy = owned.core.busy();
            return owned.core.sled.visit_own(stream, from, to, visit);
        }
        visit_each(self.scan_own(stream, from, to)?, visit)
    }

    fn put_snapshot(&self, stream: &str, seq: Seq, state: &State) -> Result<()> {
        let request = Request::PutSnapshot {
            stream: stream.into(),
            seq,
            state: Cow::Borrowed(state),
        };
        self.run(
            &request,
            REQUEST_TIMEOUT,
            |core| core.sled.put_snapshot(stream, seq, state),
            |r| matches!(r, Response::Done).then_some(()),
        )
    }

    fn get_snapshot(&self, stream: &str, seq: Seq) -> Result<Option<Snapshot>> {
        let request = Request::GetSnapshot {
            stream: stream.into(),
            seq,
        };
        self.run(
            &request,
            REQUEST_TIMEOUT,
            |core| core.sled.get_snapshot(stream, seq),
            |r| match r {
                Response::Snapshot(snapshot) => Some(snapshot.map(|snapshot| (*snapshot).into())),
                _ => None,
            },
        )
    }

    fn snapshot_seqs(&self, stream: &str) -> Result<Vec<Seq>> {
        let request = Request::SnapshotSeqs {
            stream: stream.into(),
        };
        self.run(
            &request,
            REQUEST_TIMEOUT,
            |core| core.sled.snapshot_seqs(stream),
            |r| match r {
                Response::Seqs(seqs) => Some(seqs),
                _ => None,
            },
        )
    }

    fn drop_through(&self, stream: &str, seq: Seq) -> Result<u64> {
        let request = Request::DropThrough {
            stream: stream.into(),
            seq,
        };
        self.run(
            &request,
            REQUEST_TIMEOUT,
            |core| core.drop_through(stream, seq),
            |r| match r {
                Response::Count(count) => Some(count),
                _ => None,
            },
        )
    }

    fn clock(&self) -> &Arc<dyn Clock> {
        &self.clock
    }

    fn repack(&self, stream: &str) -> Result<askuser_store::Repacked> {
        let request = Request::Repack {
            stream: stream.into(),
        };
        self.run(
            &request,
            REQUEST_TIMEOUT,
            |core| core.sled.repack(stream),
            |r| match r {
                Response::Repacked {
                    events,
                    values_before,
                    values_after,
                } => Some(askuser_store::Repacked {
                    events,
                    values_before,
                    values_after,
                }),
                _ => None,
            },
        )
    }

    fn legacy_outputs(&self, stream: &str, seq: Seq) -> Result<Option<Vec<serde_json::Value>>> {
        let request = Request::LegacyOutputs {
            stream: stream.into(),
            seq,
        };
        self.run(
            &request,
            REQUEST_TIMEOUT,
            |core| core.sled.legacy_outputs(stream, seq),
            |r| match r {
                Response::Outputs(outputs) => Some(outputs),
                _ => None,
            },
        )
    }
}

/// A stream's own records read from the owner a chunk at a time.
struct RemoteScan<'a> {
    log: &'a SharedSledLog,
    stream: String,
    next: Seq,
    to: Seq,
    buffer: VecDeque<Result<Recorded>>,
    done: bool,
}

impl RemoteScan<'_> {
    fn fetch(&mut self) -> Result<()> {
        let (stream, from, to) = (self.stream.as_str(), self.next, self.to);
        let request = Request::Scan {
            stream: stream.into(),
            from,
            to,
        };
        let chunk = self.log.run(
            &request,
            REQUEST_TIMEOUT,
            |core| core.scan(stream, from, to),
            |r| match r {
                Response::Records { items, next, end } => Some(Chunk { items, next, end }),
                _ => None,
            },
        )?;
        if !chunk.end && chunk.next <= self.next {
            return Err(StoreError::BadMessage(format!(
                "a read of stream \"{}\" did not move past {}",
                self.stream, self.next
            )));
        }
        self.buffer.extend(
            chunk
                .items
                .into_iter()
                .map(|item| item.map(Recorded::from).map_err(StoreError::from)),
        );
        self.next = chunk.next;
        self.done = chunk.end;
        Ok(())
    }
}

impl Iterator for RemoteScan<'_> {
    type Item = Result<Recorded>;

    fn next(&mut self) -> Option<Self::Item> {
        while self.buffer.is_empty() {
            if self.done || self.next > self.to {
                return None;
            }
            if let Err(error) = self.fetch() {
                self.done = true;
                return Some(Err(error));
            }
        }
        self.buffer.pop_front()
    }
}
