//! Who waits, and for how long, as data made once for every surface: the
//! inquiries waiting for a person with their timing ([`Asking`], [`Timing`]),
//! whether the agent that asked still waits for the answer ([`Liveness`]: a
//! process holds the stream's lease, or its lease lapsed because it was killed
//! or it stopped), and whether anybody waited when an inquiry finished
//! ([`Unheard`]). The words for presence are here too, once
//! ([`Liveness::words`]): the inbox's badge and a question's own page say the
//! same thing. A surface only styles them.

use std::collections::{BTreeMap, BTreeSet};

use askuser_core::{AgentOrigin, ClientNote, Event, InquiryId, Progress};
use askuser_store::presence::presence_of;
use askuser_store::{Lease, Leases, Log, Presence, StreamInfo, Timestamp};

use crate::error::Result;
use crate::journal::Desk;
use crate::read::{OpenInquiry, Showing, StreamView};

/// Whether anyone waits on a stream for the answers given there.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Liveness {
    /// A process waits on it now (it holds the stream's lease).
    Waiting,
    /// The agent that waited stopped: killed (its lease lapsed) or stopped
    /// cleanly, this long ago in milliseconds by the log's clock (`None`: it is
    /// not known when).
    Stopped {
        /// How long ago.
        ago_ms: Option<u64>,
    },
    /// A fork: no process listens on it.
    Fork,
    /// Nothing is known (a log that keeps no presence, or a stream no agent
    /// ever said it waited on).
    #[default]
    Unknown,
}

impl Liveness {
    /// In words, the one wording every surface shows: `waiting now`, `the agent
    /// stopped 3 min ago`, `a fork: nobody waits`; `None` when nothing is known.
    ///
    /// ```
    /// use askuser_app::Liveness;
    ///
    /// let stopped = Liveness::Stopped { ago_ms: Some(180_000) };
    /// assert_eq!(stopped.words().as_deref(), Some("the agent stopped 3 min ago"));
    /// assert_eq!(Liveness::Unknown.words(), None);
    /// ```
    pub fn words(self) -> Option<String> {
        match self {
            Liveness::Waiting => Some("waiting now".to_owned()),
            Liveness::Stopped { ago_ms: Some(ago) } => {
                Some(format!("the agent stopped {}", ago_words(ago)))
            }
            Liveness::Stopped { ago_ms: None } => Some("the agent stopped".to_owned()),
            Liveness::Fork => Some("a fork: nobody waits".to_owned()),
            Liveness::Unknown => None,
        }
    }

    /// Whether nobody waits (the agent stopped, or a fork).
    pub fn nobody(self) -> bool {
        matches!(self, Liveness::Stopped { .. } | Liveness::Fork)
    }

    /// Whether anyone waits on the stream `info`, from the log's `leases`
    /// (`None`: it keeps none); `known` says the stream recorded an agent, so a
    /// stream without any lease is one whose agent stopped rather than unknown.
    fn of(info: &StreamInfo, leases: Option<&Leases>, known: bool) -> Self {
        match presence_of(info, false, leases) {
            Presence::Waiting(_) => Liveness::Waiting,
            Presence::Gone { since: Some(since) } => Liveness::Stopped {
                ago_ms: Some(leases.map_or(0, |l| l.now.millis().saturating_sub(since.millis()))),
            },
            Presence::Gone { since: None } if known => Liveness::Stopped { ago_ms: None },
            Presence::Fork => Liveness::Fork,
            Presence::Gone { .. } | Presence::Unknown => Liveness::Unknown,
        }
    }
}

/// How long ago, in words: `less than a minute ago`, `3 min ago`, `2 h ago`,
/// `4 days ago`.
///
/// ```
/// assert_eq!(askuser_app::ago_words(3_600_000), "1 h ago");
/// ```
pub fn ago_words(ms: u64) -> String {
    let seconds = ms / 1000;
    match seconds {
        0..60 => "less than a minute ago".to_owned(),
        60..3600 => format!("{} min ago", seconds / 60),
        3600..172_800 => format!("{} h ago", seconds / 3600),
        _ => format!("{} days ago", seconds / 86_400),
    }
}

/// How long an inquiry has waited (since the agent first asked it: the time
/// its request was recorded, whatever steps it took since) and, when its
/// policy has a timeout, how long the person has left, to the engine's deadline
/// (the one every surface counts to).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Timing {
    /// Milliseconds since the agent first asked (its request was recorded).
    pub waited_ms: u64,
    /// When the agent first asked.
    pub started: Timestamp,
    /// Milliseconds left before the timeout, when there is one (`Some(0)`:
    /// the time to answer is up).
    pub left_ms: Option<u64>,
    /// What the timeout does when the time is up, when there is one.
    pub on_timeout: Option<askuser_core::OnTimeout>,
}

impl Timing {
    /// How long `open` of the stream `view` has waited at `now` (since its
    /// request was recorded; where that is not known, since the stream's last
    /// inquiry event, else now), and its time left to the engine's deadline.
    fn of(view: &StreamView, open: &OpenInquiry, now: u64) -> Self {
        let since = (open.requested)
            .or_else(|| view.last_activity())
            .map_or(now, Timestamp::millis);
        let left_ms = (view.deadline(open)).and_then(|deadline| {
            let after_ms = open.timeout.as_ref()?.after_ms;
            Some(deadline.millis().saturating_sub(now).min(after_ms))
        });
        Timing {
            waited_ms: now.saturating_sub(since),
            started: Timestamp(since),
            left_ms,
            on_timeout: open.timeout.as_ref().map(|timeout| timeout.on_timeout),
        }
    }

    /// Whether the time to answer is up.
    pub fn due(&self) -> bool {
        self.left_ms == Some(0)
    }
}

/// One inquiry waiting for a person, as an inbox lists it.
#[derive(Debug, Clone, PartialEq)]
pub struct Asking {
    /// Its stream.
    pub stream: String,
    /// The inquiry.
    pub inquiry: String,
    /// Who asks (the policy's label; `Assistant` when it has none).
    pub label: String,
    /// The question being asked, or `None` while its review shows.
    pub question: Option<String>,
    /// Where the question stands in its form, when the form has more than one.
    pub progress: Option<Progress>,
    /// When the stream was created.
    pub since: Timestamp,
    /// How long it has waited, and the time left to answer.
    pub timing: Timing,
    /// Who asks and from where: the origin a live lease holds, else the one the
    /// stream recorded last; `None` when neither says.
    pub origin: Option<AgentOrigin>,
    /// Whether its agent still waits for the answer.
    pub liveness: Liveness,
}

/// Where an open inquiry stands, for its own page: how long it has waited, and
/// whether its agent still waits for the answer.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Standing {
    /// How long it has waited, and the time left.
    pub timing: Timing,
    /// Whether its agent still waits (as the inbox says it).
    pub liveness: Liveness,
}

/// Nobody waited for a finished inquiry's result, or nobody may have.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unheard {
    /// A fork nobody attached to.
    Fork,
    /// The agent stopped this many milliseconds ago, before the inquiry finished.
    Stopped(u64),
    /// The agent moved on to a new call this many milliseconds into the
    /// inquiry's wait ([`ClientNote::MovedOn`]), before it finished: nothing
    /// waited for its result, which is kept for the same call made again.
    MovedOn(u64),
    /// The client stopped the inquiry's call while it waited for another
    /// window ([`ClientNote::StoppedWaiting`]: it cancelled the call, or
    /// `disconnected`), before the inquiry finished: nothing waited for its
    /// result, which is kept for the same call made again.
    StoppedWaiting {
        /// Whether the client went away rather than cancelled the call.
        disconnected: bool,
    },
    /// The inquiry's call came from a host that does not tell when its person
    /// stops a call ([`ClientNote::StopsSilently`]), and its result was not yet
    /// taken by the same call made again: it went to the call the host was
    /// waiting on, which may have been stopped there; it is kept meanwhile.
    Unsure {
        /// The host, by its name (`Gemini CLI`).
        host: String,
    },
}

impl Unheard {
    /// Whether anyone waits, as [`Liveness`] (for its words): `None` when the
    /// agent may still wait ([`Unheard::Unsure`]).
    pub fn liveness(&self) -> Option<Liveness> {
        match self {
            Unheard::Fork => Some(Liveness::Fork),
            Unheard::Stopped(ago) => Some(Liveness::Stopped { ago_ms: Some(*ago) }),
            Unheard::MovedOn(_) | Unheard::StoppedWaiting { .. } => {
                Some(Liveness::Stopped { ago_ms: None })
            }
            Unheard::Unsure { .. } => None,
        }
    }
}

/// Every lease a desk has seen, by stream and holder: a sled log's owner keeps
/// leases in memory, so when the agent that owned the log is killed, the new
/// owner knows none of them; the desk still knows when the agent was last seen,
/// and so since when it is gone.
#[derive(Debug, Default)]
pub(crate) struct LeaseMemory {
    seen: BTreeMap<(String, String), Lease>,
}

/// The most leases a desk remembers (the oldest gone are forgotten first).
const SEEN_LEASES: usize = 4096;

/// How many of a stream's latest events are looked through for the one that
/// finished an inquiry and the client's notes on it (a call's notes come
/// before its answers; a longer form's notes may be out of reach, and its
/// words are then those of a call somebody waited for).
const NOTE_SCAN: u64 = 256;

impl LeaseMemory {
    /// The log's leases, with those seen before and since lost (an owner that
    /// changed) kept as they were last seen; `None` when the log keeps none. A
    /// failure to read them only leaves presence unknown.
    pub(crate) fn leases(&mut self, log: &dyn Log) -> Option<Leases> {
        let mut leases = log.leases().ok().flatten()?;
        for lease in &leases.leases {
            self.seen
                .insert((lease.stream.clone(), lease.holder.clone()), lease.clone());
        }
        let now = leases.now;
        if self.seen.len() > SEEN_LEASES {
            let mut gone: Vec<((String, String), Timestamp)> = (self.seen.iter())
                .filter_map(|(key, lease)| Some((key.clone(), lease.gone_since(now)?)))
                .collect();
            gone.sort_by_key(|(_, since)| *since);
            for (key, _) in gone.into_iter().take(self.seen.len() - SEEN_LEASES) {
                self.seen.remove(&key);
            }
        }
        let current: BTreeSet<(&str, &str)> = (leases.leases.iter())
            .map(|lease| (lease.stream.as_str(), lease.holder.as_str()))
            .collect();
        let lost: Vec<Lease> = (self.seen.values())
            .filter(|lease| !current.contains(&(lease.stream.as_str(), lease.holder.as_str())))
            .cloned()
            .collect();
        leases.leases.extend(lost);
        Some(leases)
    }
}

impl Desk {
    /// Every inquiry that waits for a person, the newest stream first, then in
    /// the engine's order; `now` is the wall clock in milliseconds since the
    /// Unix epoch. A stream is read only when it moved (one listing gives every
    /// head); what is shown comes from the read side. An inquiry whose time to
    /// answer is up is listed with [`Timing::due`]: the surface that shows it
    /// decides whether to fire its timeout.
    ///
    /// # Errors
    /// When the log cannot be read.
    pub fn waiting(&mut self, now: u64) -> Result<Vec<Asking>> {
        let log = std::sync::Arc::clone(self.log());
        let mut streams = log.streams()?;
        streams.sort_by(|a, b| b.created_at.cmp(&a.created_at).then(a.name.cmp(&b.name)));
        let leases = self.lease_memory().leases(&*log);
        let mut waiting = Vec::new();
        for info in streams {
            if self.head(&info.name)? < info.head {
                self.catch_up(&info.name)?;
            }
            let live = leases.as_ref().and_then(|leases| {
                (leases.leases.iter())
                    .filter(|lease| lease.stream == info.name && lease.live_at(leases.now))
                    .max_by_key(|lease| lease.renewed_at)
                    .map(|lease| lease.origin.clone())
            });
            let Some(view) = self.view(&info.name)? else {
                continue;
            };
            let agent = view.agent().cloned();
            let liveness = Liveness::of(&info, leases.as_ref(), agent.is_some());
            let origin = live.or(agent);
            for open in view.open() {
                let (question, progress) = match &open.showing {
                    Showing::Question { text, progress, .. } => (Some(text.clone()), *progress),
                    Showing::Review => (None, None),
                    Showing::Assistant { .. } => continue,
                };
                waiting.push(Asking {
                    stream: info.name.clone(),
                    inquiry: open.inquiry.to_string(),
                    label: open.label.clone().unwrap_or_else(|| "Assistant".to_owned()),
                    question,
                    progress,
                    since: info.created_at,
                    timing: Timing::of(view, open, now),
                    origin: origin.clone(),
                    liveness,
                });
            }
        }
        Ok(waiting)
    }

    /// Where `inquiry` of `stream` stands at `now`: how long it has waited, its
    /// time left, and whether its agent still waits (read from the read side,
    /// brought level with the stream's session).
    ///
    /// # Errors
    /// When the log cannot be read.
    pub fn standing(&mut self, stream: &str, inquiry: &InquiryId, now: u64) -> Result<Standing> {
        let log = std::sync::Arc::clone(self.log());
        let info = log.stream(stream)?;
        let leases = self.lease_memory().leases(&*log);
        let Some(view) = self.view(stream)? else {
            return Ok(Standing::default());
        };
        let liveness = info.map_or(Liveness::Unknown, |info| {
            Liveness::of(&info, leases.as_ref(), view.agent().is_some())
        });
        let timing = match view.open().iter().find(|open| open.inquiry == *inquiry) {
            Some(open) => Timing::of(view, open, now),
            None => Timing::default(),
        };
        Ok(Standing { timing, liveness })
    }

    /// Whether nobody waited when `inquiry` of `stream` finished: a fork nobody
    /// attached to; an agent whose presence ended (its lease lapsed or ended)
    /// before the inquiry's last event was recorded, with how long ago it
    /// stopped; an agent that moved on to a new call while this one waited, or
    /// whose client stopped the call while it waited; or,
    /// for a host that stops calls silently, a result nobody has taken again
    /// yet ([`Unheard::Unsure`]). `None` when an agent waited then, or nothing
    /// is known.
    ///
    /// # Errors
    /// When the log cannot be read.
    pub fn unheard(&mut self, stream: &str, inquiry: &InquiryId) -> Result<Option<Unheard>> {
        Ok(self.unheard_by_inquiry(stream)?.get(inquiry).cloned())
    }

    /// [`Desk::unheard`] for every inquiry of `stream` at once, with one read
    /// of the stream's latest events: a history page's words for each of its
    /// inquiries.
    ///
    /// # Errors
    /// When the log cannot be read.
    pub fn unheard_by_inquiry(&mut self, stream: &str) -> Result<UnheardOf> {
        let log = std::sync::Arc::clone(self.log());
        let Some(info) = log.stream(stream)? else {
            return Ok(UnheardOf::default());
        };
        let Some(leases) = self.lease_memory().leases(&*log) else {
            return Ok(UnheardOf::default());
        };
        let since = match presence_of(&info, false, Some(&leases)) {
            Presence::Fork => {
                return Ok(UnheardOf {
                    fork: true,
                    ..UnheardOf::default()
                });
            }
            Presence::Gone { since: Some(since) } => Some(since),
            _ => None,
        };
        // Each inquiry's last event and the client's last note on whether a
        // call waited (a call that took over one its model moved on from
        // waits again), among the stream's latest events.
        let from = (info.floor + 1).max(info.head.saturating_sub(NOTE_SCAN));
        let mut seen: BTreeMap<InquiryId, (Timestamp, Option<Unheard>)> = BTreeMap::new();
        if info.head >= from {
            for recorded in log.read_range(stream, from, info.head)? {
                let recorded = recorded?;
                let Some(inquiry) = recorded.event.inquiry() else {
                    continue;
                };
                let note = match recorded.event {
                    Event::ClientNoted { ref note, .. } => unheard_by_note(note),
                    _ => None,
                };
                let entry = seen.entry(inquiry.clone()).or_insert((recorded.at, None));
                entry.0 = recorded.at;
                if note.is_some() {
                    entry.1 = note;
                }
            }
        }
        let state = self.state(stream)?;
        let unheard = seen
            .into_iter()
            .filter_map(|(inquiry, (finished_at, note))| {
                let words = match since {
                    Some(since) if finished_at >= since => Some(Unheard::Stopped(
                        leases.now.millis().saturating_sub(since.millis()),
                    )),
                    // A result the same call made again took reached the model.
                    _ => note.filter(|_| {
                        (state.outcome(&inquiry)).is_some_and(askuser_core::FinishedInquiry::owed)
                    }),
                };
                words.map(|words| (inquiry, words))
            })
            .collect();
        Ok(UnheardOf {
            fork: false,
            inquiries: unheard,
        })
    }
}

/// Which inquiries of a stream nobody may have heard, and why
/// ([`Desk::unheard_by_inquiry`]).
#[derive(Debug, Clone, Default)]
pub struct UnheardOf {
    /// A fork nobody attached to: nobody heard any of it.
    fork: bool,
    /// The inquiries nobody may have heard, by id.
    inquiries: BTreeMap<InquiryId, Unheard>,
}

impl UnheardOf {
    /// Why nobody may have heard how `inquiry` ended; `None` when an agent
    /// waited for it, or nothing is known.
    #[must_use]
    pub fn get(&self, inquiry: &InquiryId) -> Option<&Unheard> {
        static FORK: Unheard = Unheard::Fork;
        if self.fork {
            return Some(&FORK);
        }
        self.inquiries.get(inquiry)
    }
}

/// What a client's note says of whether its call was still waited on.
fn unheard_by_note(note: &ClientNote) -> Option<Unheard> {
    match note {
        ClientNote::MovedOn { after_ms } => Some(Unheard::MovedOn(*after_ms)),
        ClientNote::StopsSilently { host } => Some(Unheard::Unsure { host: host.clone() }),
        ClientNote::StoppedWaiting { disconnected } => Some(Unheard::StoppedWaiting {
            disconnected: *disconnected,
        }),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_ago_read_as_words() {
        let words: Vec<String> = [0, 59_999, 60_000, 3_599_999, 3_600_000, 172_800_000]
            .map(ago_words)
            .into();
        assert_eq!(
            words,
            [
                "less than a minute ago",
                "less than a minute ago",
                "1 min ago",
                "59 min ago",
                "1 h ago",
                "2 days ago"
            ]
        );
    }
}
