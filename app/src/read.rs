//! The read side: what every stream stands at, kept current as the
//! [`Desk`](crate::Desk)'s sessions catch up, never by replaying a stream
//! per request. Per stream: its status (waiting, or how its last inquiry ended),
//! its head and when the head event was recorded; per inquiry: what an open one
//! shows (the question, the review, a question for the assistant), who asks and
//! the engine's deadline ([`question_deadline`]); how a finished one ended, with
//! the command that ended it and its tool call (to render the result in the
//! call's dialect).
//!
//! A stream is replayed once, the first time the read side is asked about it
//! ([`Desk::view`](crate::Desk::view)): that is how it learns how the
//! inquiries before this process ended. After that, every event a session of the
//! desk applies is handed to it with the commands it yielded.

use std::collections::{BTreeMap, HashMap};

use askuser_core::{Command, InquiryId, Origin, Progress, State, Timeout};
use askuser_store::{Seq, StreamName, Timestamp};

use crate::deadline::question_deadline;

pub use askuser_core::Ending;

/// Where a stream stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StreamStatus {
    /// `inquiries` (one or more) are open.
    Waiting {
        /// How many inquiries are open.
        inquiries: usize,
    },
    /// Nothing is open; how the last inquiry to end ended (`None`: none did).
    Finished(Option<Ending>),
}

impl StreamStatus {
    /// The status in words, as `askuser log list` prints it: `open: 1 inquiry
    /// waits for an answer`, `open: 2 inquiries wait for answers`, or the last
    /// ending ([`Ending::words`]: `answered`, …; `finished` when none).
    pub fn words(self) -> String {
        match self {
            StreamStatus::Waiting { inquiries: 1 } => {
                "open: 1 inquiry waits for an answer".to_owned()
            }
            StreamStatus::Waiting { inquiries } => {
                format!("open: {inquiries} inquiries wait for answers")
            }
            StreamStatus::Finished(ending) => ending.map_or("finished", Ending::words).to_owned(),
        }
    }
}

/// What an open inquiry shows now.
#[derive(Debug, Clone, PartialEq)]
pub enum Showing {
    /// A question for a person.
    Question {
        /// The question's id.
        id: String,
        /// Its text.
        text: String,
        /// `[N/M]` when the form has more than one question.
        progress: Option<Progress>,
    },
    /// The review of every answer, before they are sent.
    Review,
    /// A question for the assistant, not for a person.
    Assistant {
        /// The question's id.
        question: String,
    },
}

/// An open inquiry. Non-exhaustive: the read side learns more of an inquiry
/// over time (when it was first asked came later), and a field added is not a
/// breaking change.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct OpenInquiry {
    /// The inquiry.
    pub inquiry: InquiryId,
    /// Who asks, as its prompts name it (`None`: the assistant).
    pub label: Option<String>,
    /// The tool call's origin.
    pub origin: Option<Origin>,
    /// What it shows.
    pub showing: Showing,
    /// Its policy's timeout.
    pub timeout: Option<Timeout>,
    /// The engine's deadline for what it shows ([`State::deadline`]), when the
    /// engine knows it: the moment a timeout is taken from.
    pub deadline: Option<Timestamp>,
    /// When the agent first asked it: the time the log recorded its request,
    /// once read (`None`: not known, as for an inquiry a replay from a
    /// snapshot found open). What "waiting since" counts from, whatever steps
    /// it took since.
    pub requested: Option<Timestamp>,
    /// The sequence number of its request, when known (its time is read once).
    requested_seq: Option<Seq>,
}

/// One stream, as the read side knows it.
#[derive(Debug, Clone, Default)]
pub struct StreamView {
    head: Seq,
    /// The last event that belongs to an inquiry (not a process attaching or
    /// detaching, which moves no question): when what shows was put up (what
    /// a deadline counts from where the engine knows no time, and a wait
    /// where its request's time is not known: [`OpenInquiry::requested`]).
    activity: Seq,
    /// When the `activity` event was recorded, when known: `(seq, at)`.
    head_at: Option<(Seq, Timestamp)>,
    open: Vec<OpenInquiry>,
    /// How many inquiries are open (those in `open`, and any waiting on nothing).
    open_count: usize,
    /// How the stream's last inquiry to finish ended. How each finished and what
    /// it sent is the engine's state's to keep ([`State::finished`],
    /// [`State::result`], for the last
    /// [`FINISHED_REMEMBERED`](askuser_core::FINISHED_REMEMBERED) of a stream):
    /// the read side keeps no second copy, so an inbox open all day does not grow
    /// with every question it showed.
    last_ending: Option<Ending>,
    /// Who asks on the stream and from where: the latest process to attach
    /// ([`State::agent`]).
    agent: Option<askuser_core::AgentOrigin>,
    /// The requests taken in since the open inquiries were last read from the
    /// state (their sequence numbers, and times when known), for
    /// [`OpenInquiry::requested`].
    asked: HashMap<InquiryId, (Seq, Option<Timestamp>)>,
}

impl StreamView {
    /// Who asks on the stream and from where, as the latest process to attach
    /// to it recorded ([`askuser_core::Event::Attached`]); `None` when none did.
    pub fn agent(&self) -> Option<&askuser_core::AgentOrigin> {
        self.agent.as_ref()
    }

    /// The last event the read side has taken in.
    pub fn head(&self) -> Seq {
        self.head
    }

    /// When the last event of an inquiry was recorded (the last activity, and
    /// when what the open inquiries show started waiting), once read. A process
    /// attaching to the stream or detaching from it later moves no question, so
    /// it moves neither this nor a question's deadline.
    pub fn last_activity(&self) -> Option<Timestamp> {
        self.head_at
            .filter(|(seq, _)| *seq == self.activity)
            .map(|(_, at)| at)
    }

    /// Where the stream stands.
    pub fn status(&self) -> StreamStatus {
        match self.open_count {
            0 => StreamStatus::Finished(self.last_ending),
            inquiries => StreamStatus::Waiting { inquiries },
        }
    }

    /// The open inquiries, in the engine's order.
    pub fn open(&self) -> &[OpenInquiry] {
        &self.open
    }

    /// When `open`'s question times out: the engine's deadline
    /// ([`OpenInquiry::deadline`]), the one a timeout is held to; where the
    /// engine knows no recorded time for it (a snapshot taken before it kept
    /// one), [`question_deadline`] from [`StreamView::last_activity`].
    pub fn deadline(&self, open: &OpenInquiry) -> Option<Timestamp> {
        if open.deadline.is_some() {
            return open.deadline;
        }
        Some(question_deadline(
            self.last_activity()?,
            open.timeout.as_ref()?,
        ))
    }
}

/// One inquiry waiting for a person (not for the assistant), for an inbox.
#[derive(Debug, Clone, PartialEq)]
pub struct Waiting<'a> {
    /// Its stream.
    pub stream: &'a str,
    /// The inquiry and what it shows.
    pub open: &'a OpenInquiry,
    /// Since when what it shows has waited (the stream's head event), when read.
    pub since: Option<Timestamp>,
    /// The engine's deadline ([`question_deadline`]), when it has a timeout.
    pub deadline: Option<Timestamp>,
}

/// Every stream's view (see the module's docs).
#[derive(Debug, Clone, Default)]
pub struct ReadSide {
    streams: BTreeMap<StreamName, StreamView>,
    /// How many streams it replayed (once each at first sight, again only when a
    /// session moved past it behind its back).
    replays: u64,
}

/// What a session applied, handed to [`ReadSide`]: the commands, and the last
/// event's sequence number.
pub(crate) struct Applied<'a> {
    pub(crate) seq: Seq,
    pub(crate) commands: &'a [Command],
    /// The event belongs to an inquiry (see [`StreamView::last_activity`]).
    pub(crate) inquiry: bool,
    /// The inquiry the event requested, when it is a request.
    pub(crate) requested: Option<&'a InquiryId>,
}

impl<'a> Applied<'a> {
    /// What catching up on `caught` applied.
    pub(crate) fn caught(caught: &'a askuser_store::Caught) -> Self {
        Self {
            seq: caught.seq,
            commands: &caught.commands,
            inquiry: caught.event.inquiry().is_some(),
            requested: match &caught.event {
                askuser_core::Event::Requested(request) => Some(&request.inquiry),
                _ => None,
            },
        }
    }
}

impl ReadSide {
    /// The view of `stream`, when the read side has seen it.
    pub fn stream(&self, stream: &str) -> Option<&StreamView> {
        self.streams.get(stream)
    }

    /// How many replays of a stream the read side has made: one per stream at
    /// first sight (and one more when a session of the desk was moved past it
    /// without handing it what it applied). Serving a page never adds one.
    pub fn replays(&self) -> u64 {
        self.replays
    }

    /// Every stream seen, by name.
    pub fn streams(&self) -> impl Iterator<Item = (&str, &StreamView)> {
        self.streams
            .iter()
            .map(|(name, view)| (name.as_str(), view))
    }

    /// Every inquiry waiting for a person, by stream name, then in the engine's
    /// order.
    pub fn waiting(&self) -> Vec<Waiting<'_>> {
        let mut waiting = Vec::new();
        for (stream, view) in &self.streams {
            for open in &view.open {
                if matches!(open.showing, Showing::Assistant { .. }) {
                    continue;
                }
                waiting.push(Waiting {
                    stream: stream.as_str(),
                    open,
                    since: view.last_activity(),
                    deadline: view.deadline(open),
                });
            }
        }
        waiting
    }

    /// Forgets `stream` (the next view replays it once more).
    pub(crate) fn forget(&mut self, stream: &str) {
        self.streams.remove(stream);
    }

    /// Takes in what a session of `stream` applied, in order, and `state`, the
    /// session's state after the last of them. Whatever the view already holds
    /// (by sequence number) is passed over.
    pub(crate) fn apply(&mut self, stream: &str, applied: &[Applied<'_>], state: &State) {
        let Some(view) = self.streams.get_mut(stream) else {
            return;
        };
        let mut moved = false;
        for applied in applied {
            if applied.seq <= view.head {
                continue;
            }
            view.take(applied.commands);
            view.head = applied.seq;
            if applied.inquiry {
                view.activity = applied.seq;
            }
            if let Some(inquiry) = applied.requested {
                view.asked.insert(inquiry.clone(), (applied.seq, None));
            }
            moved = true;
        }
        if moved {
            // An inquiry that opened with no request caught (this desk's own
            // session asked it) was asked by the last event applied.
            let head = view.head;
            view.open_from(state, Some(head));
        }
    }

    /// Starts the view of `stream` (its replay is handed to
    /// [`ReadSide::replayed`]).
    pub(crate) fn start(&mut self, stream: StreamName) {
        self.replays += 1;
        self.streams.insert(stream, StreamView::default());
    }

    /// One event of `stream`'s first-sight replay.
    pub(crate) fn replayed(
        &mut self,
        stream: &str,
        recorded: &askuser_store::Recorded,
        commands: &[Command],
    ) {
        if let Some(view) = self.streams.get_mut(stream) {
            view.take(commands);
            view.head = recorded.seq;
            if recorded.event.inquiry().is_some() {
                view.activity = recorded.seq;
                view.head_at = Some((recorded.seq, recorded.at));
            }
            if let askuser_core::Event::Requested(request) = &recorded.event {
                (view.asked).insert(request.inquiry.clone(), (recorded.seq, Some(recorded.at)));
            }
        }
    }

    /// Ends `stream`'s first-sight replay at `head`, with the state there.
    pub(crate) fn replay_done(&mut self, stream: &str, head: Seq, state: &State) {
        if let Some(view) = self.streams.get_mut(stream) {
            view.head = head;
            // A replay from a snapshot saw no inquiry event: the head stands in.
            if view.activity == 0 {
                view.activity = head;
            }
            view.open_from(state, None);
        }
    }

    /// Whether the time of `stream`'s last inquiry event must be read (its
    /// sequence number).
    pub(crate) fn needs_time(&self, stream: &str) -> Option<Seq> {
        let view = self.streams.get(stream)?;
        (view.activity > 0 && view.last_activity().is_none()).then_some(view.activity)
    }

    /// The time event `seq` of `stream` was recorded.
    pub(crate) fn set_time(&mut self, stream: &str, seq: Seq, at: Timestamp) {
        if let Some(view) = self.streams.get_mut(stream) {
            view.head_at = Some((seq, at));
        }
    }

    /// The requests of `stream`'s open inquiries whose time must be read
    /// (their sequence numbers).
    pub(crate) fn requests_untimed(&self, stream: &str) -> Vec<Seq> {
        let Some(view) = self.streams.get(stream) else {
            return Vec::new();
        };
        (view.open.iter())
            .filter(|open| open.requested.is_none())
            .filter_map(|open| open.requested_seq)
            .collect()
    }

    /// The time the request recorded as event `seq` of `stream` was recorded.
    pub(crate) fn set_request_time(&mut self, stream: &str, seq: Seq, at: Timestamp) {
        if let Some(view) = self.streams.get_mut(stream) {
            for open in &mut view.open {
                if open.requested_seq == Some(seq) {
                    open.requested = Some(at);
                }
            }
        }
    }
}

/// What an open inquiry's view keeps from one reading of the state to the
/// next: its label, and its request's sequence number and time.
type Kept = (Option<String>, Option<Seq>, Option<Timestamp>);

impl StreamView {
    /// Takes in one applied event (when known) and its commands.
    fn take(&mut self, commands: &[Command]) {
        if let Some(ending) = commands.iter().rev().find_map(Ending::of) {
            self.last_ending = Some(ending);
        }
    }

    /// The open inquiries, from the session's `state`; one not open before
    /// whose request was not taken in was asked by event `fresh` (when known).
    fn open_from(&mut self, state: &State, fresh: Option<Seq>) {
        if self.agent.as_ref() != state.agent() {
            self.agent = state.agent().cloned();
        }
        // A review carries no label: the one its prompts carried stays; nor
        // does a step move when it was asked.
        let before: HashMap<InquiryId, Kept> = (self.open.drain(..))
            .map(|open| {
                let kept = (open.label, open.requested_seq, open.requested);
                (open.inquiry, kept)
            })
            .collect();
        let mut asked = std::mem::take(&mut self.asked);
        self.open_count = 0;
        for inquiry in state.open_inquiries() {
            self.open_count += 1;
            let pending = state.pending(inquiry);
            let policy = state.policy(inquiry);
            let kept = before.get(inquiry);
            let (requested_seq, requested) = match (asked.remove(inquiry), kept) {
                (Some((seq, at)), _) => (Some(seq), at),
                (None, Some((_, seq, at))) => (*seq, *at),
                (None, None) => (fresh, None),
            };
            let label = match &pending {
                Some(Command::Prompt(prompt)) => prompt.label.as_deref().map(str::to_owned),
                _ => kept.and_then(|(label, ..)| label.clone()),
            }
            .or_else(|| policy.and_then(|policy| policy.label.clone()));
            let showing = match pending {
                Some(Command::Prompt(prompt)) => Showing::Question {
                    id: prompt.question().id.clone(),
                    text: prompt.question().text.clone(),
                    progress: prompt.progress,
                },
                Some(Command::Review { .. }) => Showing::Review,
                Some(Command::AskAssistant { question, .. }) => Showing::Assistant { question },
                _ => continue,
            };
            self.open.push(OpenInquiry {
                inquiry: inquiry.clone(),
                label,
                origin: state.origin(inquiry).cloned(),
                showing,
                timeout: policy.and_then(|policy| policy.timeout),
                deadline: state.deadline(inquiry).map(Timestamp),
                requested,
                requested_seq,
            });
        }
    }
}
