//! A stream as a whole, read through the [`Desk`]: its latest events and its
//! forks (a history page), its transcript and its export, a fork to answer
//! again from, whether it exists, and a handle that waits for it to move. With
//! these, a surface holds no log of its own ([`Desk::log`] is left for the
//! program's own commands): when an inquiry's last event was recorded, and what
//! was recorded of one inquiry since a surface last showed it, are read here.

use std::sync::Arc;
use std::time::Duration;

use askuser_core::InquiryId;
use askuser_store::stories::{Entry, Story};
use askuser_store::{Log, Recorded, Seq, StreamInfo, StreamName, Timestamp};

use crate::error::Result;
use crate::journal::Desk;

/// A stream's latest events and the streams forked from it.
#[derive(Debug, Clone)]
pub struct History {
    /// The stream.
    pub info: StreamInfo,
    /// Its latest events (at most the number asked for), oldest first.
    pub events: Vec<Recorded>,
    /// The names of the streams forked from it, in order.
    pub forks: Vec<String>,
}

/// The inquiries of one stream (one agent's conversation) that ended in a
/// span of time, for the inbox's "Answered today".
#[derive(Debug, Clone)]
pub struct AgentDay {
    /// The stream.
    pub stream: String,
    /// Who asks on it and from where, as the latest process to attach
    /// recorded; `None` when none did.
    pub agent: Option<askuser_core::AgentOrigin>,
    /// The inquiries that ended, the latest to end first.
    pub ended: Vec<Story>,
}

/// Waits for a stream to move, from any thread, without the desk (which stays
/// with the surface's own thread): what [`Desk::head_waiter`] hands out.
#[derive(Clone)]
pub struct HeadWaiter {
    log: Arc<dyn Log>,
}

impl std::fmt::Debug for HeadWaiter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HeadWaiter").finish_non_exhaustive()
    }
}

impl HeadWaiter {
    /// Waits until `stream`'s head is past `seq` or `timeout` passed, woken by
    /// the log ([`Log::wait_past`]); the head then.
    ///
    /// # Errors
    /// When the log cannot be read.
    pub fn wait_past(&self, stream: &str, seq: Seq, timeout: Duration) -> Result<Seq> {
        Ok(self.log.wait_past(stream, seq, timeout)?)
    }

    /// As [`HeadWaiter::wait_past`], but not woken by what this process
    /// appends ([`Log::wait_for_others`]): for a watcher beside the desk that
    /// writes the stream. It may return sooner, with the head then.
    ///
    /// # Errors
    /// When the log cannot be read.
    pub fn wait_for_others(&self, stream: &str, seq: Seq, timeout: Duration) -> Result<Seq> {
        Ok(self.log.wait_for_others(stream, seq, timeout)?)
    }
}

/// How far back from a stream's head [`Desk::last_recorded_at`] looks.
const LAST_LOOK: u64 = 1024;

impl Desk {
    /// When the log recorded `stream`'s last event of `inquiry` (for a
    /// finished inquiry: the one that finished it), looked for among the
    /// stream's latest events (at most 1,024 back); `None` when it is not among
    /// them.
    ///
    /// # Errors
    /// When the log cannot be read.
    pub fn last_recorded_at(&self, stream: &str, inquiry: &InquiryId) -> Result<Option<Timestamp>> {
        let log = self.log();
        let Some(info) = log.stream(stream)? else {
            return Ok(None);
        };
        let floor = (info.floor + 1).max(info.head.saturating_sub(LAST_LOOK));
        let mut to = info.head;
        while to >= floor && to > 0 {
            let from = floor.max(to.saturating_sub(63));
            let mut found = None;
            for recorded in log.read_range(stream, from, to)? {
                let recorded = recorded?;
                if recorded.event.inquiry() == Some(inquiry) {
                    found = Some(recorded.at);
                }
            }
            if found.is_some() {
                return Ok(found);
            }
            to = from.saturating_sub(1);
        }
        Ok(None)
    }

    /// `stream`'s last event that belongs to an inquiry, among its last eight
    /// (after an inquiry's last event, processes may have recorded that they
    /// stopped waiting: a few such events at most); `None` when there is none.
    ///
    /// # Errors
    /// When the log cannot be read.
    pub fn last_inquiry_event(&self, stream: &str) -> Result<Option<Recorded>> {
        let log = self.log();
        let Some(info) = log.stream(stream)?.filter(|info| info.head > 0) else {
            return Ok(None);
        };
        let from = info.head.saturating_sub(7).max(info.floor + 1);
        let mut last = None;
        for recorded in log.read_range(stream, from, info.head)? {
            let recorded = recorded?;
            if recorded.event.inquiry().is_some() {
                last = Some(recorded);
            }
        }
        Ok(last)
    }

    /// Whether `stream` recorded a round of `inquiry` shown (an
    /// [`Event::Shown`](askuser_core::Event::Shown), as a surface that walks a
    /// form round by round records) after `seen`; `false` for a stream the log
    /// does not hold.
    ///
    /// # Errors
    /// When the log cannot be read.
    pub fn shown_since(&self, stream: &str, inquiry: &InquiryId, seen: Seq) -> Result<bool> {
        let log = self.log();
        let Some(info) = log.stream(stream)? else {
            return Ok(false);
        };
        for recorded in log.read_range(stream, seen + 1, info.head)? {
            if matches!(&recorded?.event, askuser_core::Event::Shown { inquiry: shown, .. } if shown == inquiry)
            {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// The events of `inquiry` that `stream` recorded after `seen` up to
    /// `head`, each with what applying it yielded, replayed from the stream's
    /// state at `seen` (apart from this desk's session, which is not moved):
    /// what other surfaces did to an inquiry since a surface showed it.
    ///
    /// # Errors
    /// When the log cannot be read.
    pub fn inquiry_events_between(
        &self,
        stream: &str,
        inquiry: &InquiryId,
        (seen, head): (Seq, Seq),
    ) -> Result<Vec<askuser_store::Caught>> {
        let log = &**self.log();
        let mut state = if seen == 0 {
            askuser_core::State::new()
        } else {
            askuser_store::replay::load_at(log, stream, seen)?.state
        };
        let mut caught = Vec::new();
        for recorded in log.read_range(stream, seen + 1, head)? {
            let recorded = recorded?;
            let mut commands = Vec::new();
            askuser_store::replay::apply_recorded(&mut state, &recorded, &mut commands);
            if recorded.event.inquiry() == Some(inquiry) {
                caught.push(askuser_store::Caught {
                    seq: recorded.seq,
                    event: recorded.event,
                    commands,
                });
            }
        }
        Ok(caught)
    }

    /// Whether the log has `stream`.
    ///
    /// # Errors
    /// When the log cannot be read.
    pub fn has_stream(&self, stream: &str) -> Result<bool> {
        Ok(self.log().stream(stream)?.is_some())
    }

    /// The latest `most` events of `stream` and its forks; `None` when there is
    /// no such stream.
    ///
    /// # Errors
    /// When the log cannot be read.
    pub fn history(&self, stream: &str, most: u64) -> Result<Option<History>> {
        let streams = self.log().streams()?;
        let Some(info) = streams.iter().find(|s| s.name == stream).cloned() else {
            return Ok(None);
        };
        let mut forks: Vec<String> = (streams.iter())
            .filter(|s| s.parent.as_ref().is_some_and(|p| p.stream == stream))
            .map(|s| s.name.clone())
            .collect();
        forks.sort();
        let from = (info.floor + 1).max(info.head.saturating_sub(most.saturating_sub(1)));
        let mut events = Vec::new();
        if most > 0 && info.head >= from {
            for recorded in self.log().read_range(stream, from, info.head)? {
                events.push(recorded?);
            }
        }
        Ok(Some(History {
            info,
            events,
            forks,
        }))
    }

    /// Every inquiry of `stream` with its steps and how it ended, and every
    /// agent coming and going, in order (the store's
    /// [`stories`](askuser_store::stories::stories)); `None` when there is no
    /// such stream.
    ///
    /// # Errors
    /// When the log cannot be read.
    pub fn stories(&self, stream: &str) -> Result<Option<Vec<Entry>>> {
        if !self.has_stream(stream)? {
            return Ok(None);
        }
        Ok(Some(askuser_store::stories::stories(
            &**self.log(),
            stream,
        )?))
    }

    /// Every inquiry that ended at or after `since` (the start of the
    /// person's day, say), by stream: the stream whose inquiry ended last
    /// first, and in each the latest to end first. Only the streams with
    /// activity since then are read, and each only when it moved since the
    /// last call (what it ended is kept, per stream, until then).
    ///
    /// # Errors
    /// When the log cannot be read.
    pub fn ended_since(&mut self, since: Timestamp) -> Result<Vec<AgentDay>> {
        let log = Arc::clone(self.log());
        let mut kept = std::mem::take(&mut self.days);
        let mut days = Vec::new();
        for info in log.streams()? {
            if self.head(&info.name)? < info.head {
                self.catch_up(&info.name)?;
            }
            let Some(view) = self.view(&info.name)? else {
                continue;
            };
            if view.last_activity().is_none_or(|at| at < since) {
                continue;
            }
            let name = info.name.clone();
            if let Some((head, start, day)) = kept.remove(&name)
                && head == info.head
                && start == since
            {
                self.days.insert(name, (head, start, day.clone()));
                days.push(day);
                continue;
            }
            let agent = view.agent().cloned();
            let Some(entries) = self.stories(&info.name)? else {
                continue;
            };
            let mut ended: Vec<Story> = (entries.into_iter())
                .filter_map(|entry| match entry {
                    Entry::Inquiry(story) => Some(*story),
                    Entry::Agent(..) => None,
                })
                .filter(|story| story.ended.as_ref().is_some_and(|e| e.moment.at >= since))
                .collect();
            ended.sort_by_key(|story| std::cmp::Reverse(ended_at(story)));
            let day = AgentDay {
                stream: info.name,
                agent,
                ended,
            };
            self.days.insert(name, (info.head, since, day.clone()));
            days.push(day);
        }
        days.retain(|day| !day.ended.is_empty());
        days.sort_by_key(|day| std::cmp::Reverse(day.ended.first().map(ended_at)));
        Ok(days)
    }

    /// The name a fork of `stream` after its event `at` takes now
    /// ([`fork_name`](crate::fork_name), among the streams the log has); `Err`
    /// with why in words when it cannot be named.
    ///
    /// # Errors
    /// When the log cannot be read.
    pub fn fork_name_for(
        &self,
        stream: &StreamName,
        at: Seq,
    ) -> Result<std::result::Result<StreamName, String>> {
        let taken: Vec<String> = self.log().streams()?.into_iter().map(|s| s.name).collect();
        Ok(
            crate::fork_name(stream, at, &taken)
                .map_err(|error| format!("the fork's name {error}")),
        )
    }

    /// Forks `stream` after its event `at` (nothing of `stream` changes), named
    /// `STREAM.fork-AT` as `askuser log fork` names it (with `-2`, `-3`… when
    /// taken): the new stream's name and its open inquiry, if any; `Err` with
    /// why in words when the fork cannot be made there.
    ///
    /// # Errors
    /// When the log cannot be read.
    pub fn fork_after(
        &mut self,
        stream: &StreamName,
        at: Seq,
    ) -> Result<std::result::Result<(StreamName, Option<InquiryId>), String>> {
        let log = Arc::clone(self.log());
        let name = match self.fork_name_for(stream, at)? {
            Ok(name) => name,
            Err(error) => return Ok(Err(error)),
        };
        if let Err(error) = log.fork(stream, at, &name) {
            return Ok(Err(error.to_string()));
        }
        self.catch_up(&name)?;
        let open = self.state(&name)?.open_inquiries().next().cloned();
        Ok(Ok((name, open)))
    }

    /// What was asked and answered in `stream`, in sentences
    /// (the store's transcript); `None` when there is no such stream.
    ///
    /// # Errors
    /// When the log cannot be read.
    pub fn transcript(&self, stream: &str) -> Result<Option<String>> {
        if !self.has_stream(stream)? {
            return Ok(None);
        }
        Ok(Some(askuser_store::transcript(&**self.log(), stream)?))
    }

    /// Every event `stream` keeps, as JSON lines
    /// ([`askuser_store::export::json_lines`]); `None` when there is no such
    /// stream.
    ///
    /// # Errors
    /// When the log cannot be read.
    pub fn export(&self, stream: &str) -> Result<Option<Vec<u8>>> {
        if !self.has_stream(stream)? {
            return Ok(None);
        }
        let mut out = Vec::new();
        askuser_store::export::json_lines(&**self.log(), stream, &mut out)?;
        Ok(Some(out))
    }

    /// The log's [`Watcher`](crate::watch::Watcher): what wakes a surface when
    /// a stream changes or an agent stops waiting.
    ///
    /// # Errors
    /// When its thread cannot be started.
    pub fn watcher(&self) -> Result<crate::watch::Watcher> {
        crate::watch::Watcher::of(self.log())
    }

    /// A handle that waits for a stream to move, for another thread.
    pub fn head_waiter(&self) -> HeadWaiter {
        HeadWaiter {
            log: Arc::clone(self.log()),
        }
    }
}

/// When `story` ended (its sequence number breaks a tie).
fn ended_at(story: &Story) -> (Timestamp, Seq) {
    story
        .ended
        .as_ref()
        .map_or((Timestamp(0), 0), |e| (e.moment.at, e.moment.seq))
}
