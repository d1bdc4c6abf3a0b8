//! [`Journal`]: the unit of work over many streams of one log: the store's
//! sessions, one per stream, and the tool calls of their inquiries, keyed by
//! stream and inquiry. Every input goes the one road
//! ([`askuser_store::Session::handle`]): decided, appended (flushed, for a
//! durable log), applied; a surface shows what it yielded after that, so whatever
//! a host or a person has seen is durable.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::path::Path;
use std::sync::Arc;

use askuser_core::{Command, Event, Input, InquiryId, Refusal, State, ToolCall};
use askuser_dialects::{Call, Dialect};
use askuser_store::replay::{ReplayOptions, replay_with};
use askuser_store::{
    Caught, Durability, Handled, IntoStreamName, Log, MemLog, Seq, Session, SessionError,
    StoreError, StreamName,
};
use serde_json::Value;

use crate::error::{AppError, Result};
use crate::read::{Applied, ReadSide, StreamView};

/// What became of an input given to [`Journal::input`] (or [`Journal::request`]).
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// The input was decided and recorded, its last event as `seq`; these are the
    /// commands it yielded, in order.
    Recorded {
        /// The last event's sequence number in its stream.
        seq: Seq,
        /// The engine's commands.
        commands: Vec<Command>,
    },
    /// The engine refused the input; nothing was recorded.
    Refused(Refusal),
}

/// An event another process recorded, applied by [`Journal::follow`], with the
/// tool call of its inquiry (to render a result in the call's dialect).
#[derive(Debug, Clone, PartialEq)]
pub struct Followed {
    /// The event, its sequence number and what applying it yielded.
    pub caught: Caught,
    /// The parsed tool call of the event's inquiry, when its request recorded one.
    pub call: Option<Arc<Call>>,
}

/// The engine's sessions, one per stream of one log.
///
/// ```
/// use askuser_app::{Journal, Step};
/// use askuser_core::{AnswerInput, Command, InquiryId};
/// use askuser_dialects::Dialect;
/// use serde_json::json;
///
/// let mut journal = Journal::memory();
/// let arguments = json!({"question": "Deploy now?", "answer_type": "boolean"});
/// let call = Dialect::Jp.parse(&arguments).unwrap();
/// let step = journal.request("s", &call, &arguments, call.request(InquiryId::new("c1"))).unwrap();
/// let Step::Recorded { seq, commands } = step else { panic!() };
/// let Command::Prompt(prompt) = &commands[0] else { panic!() };
/// assert_eq!(seq, 1);
///
/// // The person answers what the prompt showed.
/// let yes = AnswerInput::new(prompt.at(), json!(true)).into();
/// let Step::Recorded { commands, .. } = journal.input("s", &yes).unwrap() else { panic!() };
/// assert!(matches!(commands[0], Command::Respond { .. }));
/// ```
///
/// A stream is named by `&str` in its methods: the name is checked once, when
/// its session is first opened ([`StoreError::InvalidStreamName`] otherwise), and
/// every map here is keyed by the checked [`StreamName`] (looked up by `&str`);
/// what is kept per inquiry is kept by (stream, inquiry).
pub struct Journal {
    log: Arc<dyn Log>,
    sessions: HashMap<StreamName, Session>,
    /// Parsed calls by stream, then inquiry (an id such as `call-1` recurs in
    /// every stream), so a result is not parsed again per line.
    calls: HashMap<StreamName, HashMap<InquiryId, Arc<Call>>>,
    /// Set by [`Journal::defer_flush`]: appends are buffered until [`Journal::flush`].
    deferred: bool,
    /// What a session caught up on while it recorded an input (another writer
    /// appended first), by stream: returned by the next catch-up, so a host
    /// still sends the lines of what another surface did.
    missed: HashMap<StreamName, Vec<Caught>>,
    /// The read side, fed what the sessions apply.
    read: ReadSide,
}

impl std::fmt::Debug for Journal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Journal")
            .field("streams", &self.sessions.keys().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

/// How many of a stream's last events [`Journal::deadline`] looks through for
/// the last one of an inquiry.
const DEADLINE_SCAN: u64 = 16;

impl Journal {
    /// A journal over `log`.
    pub fn new(log: Arc<dyn Log>) -> Self {
        Self {
            log,
            sessions: HashMap::new(),
            calls: HashMap::new(),
            deferred: false,
            missed: HashMap::new(),
            read: ReadSide::default(),
        }
    }

    /// A journal in memory (for tests and embedding).
    pub fn memory() -> Self {
        Self::new(Arc::new(MemLog::new()))
    }

    /// The durable journal at `location`: a sled database directory (created if
    /// needed, and shared with every other process that opens it), or a
    /// `postgres://` URL ([`open_log`](crate::open_log)); appends are flushed before
    /// they return.
    ///
    /// # Errors
    /// The store's error when the log cannot be opened.
    pub fn open(location: &Path) -> Result<Self> {
        match crate::open_log(location) {
            Ok(log) => Ok(Self::new(log)),
            Err(StoreError::Locked) => Err(AppError::Locked {
                path: location.to_owned(),
            }),
            Err(other) => Err(other.into()),
        }
    }

    /// The event log.
    pub fn log(&self) -> &Arc<dyn Log> {
        &self.log
    }

    /// The log's clock now: the clock it stamps records with, from which the
    /// engine counts a question's deadline
    /// ([`State::deadline`](askuser_core::State::deadline)). A surface with no
    /// clock of its own to count by fires a timeout at this time
    /// ([`Input::TimeOut`](askuser_core::Input::TimeOut)).
    pub fn now(&self) -> askuser_store::Timestamp {
        askuser_store::backend::Backend::clock(&*self.log).now()
    }

    /// The session of `stream`, opened (replayed) the first time.
    ///
    /// # Errors
    /// When the stream's name is invalid or the log cannot be read.
    pub fn session(&mut self, stream: &str) -> Result<&mut Session> {
        let name = match self.sessions.get_key_value(stream) {
            Some((name, _)) => name.clone(),
            None => stream.into_stream_name()?,
        };
        match self.sessions.entry(name) {
            Entry::Occupied(entry) => Ok(entry.into_mut()),
            Entry::Vacant(entry) => {
                let session = Session::open(Arc::clone(&self.log), entry.key())?;
                Ok(entry.insert(session))
            }
        }
    }

    /// The checked name of `stream`: its open session's (every input and
    /// catch-up goes through [`Journal::session`] first), else checked now.
    fn name(&self, stream: &str) -> Option<StreamName> {
        (self
            .sessions
            .get(stream)
            .map(|session| session.stream().clone()))
        .or_else(|| StreamName::try_from(stream).ok())
    }

    /// The engine state of `stream` (loaded from the log the first time).
    ///
    /// # Errors
    /// When the log cannot be read.
    pub fn state(&mut self, stream: &str) -> Result<&State> {
        Ok(self.session(stream)?.state())
    }

    /// Applies what other processes recorded in `stream` since this journal last
    /// looked, and keeps those events for the next [`Journal::follow`]: a host
    /// that acts on what an inquiry shows now (a line that names no step) reads
    /// it from [`Journal::state`] after this, as deciding would see it.
    ///
    /// # Errors
    /// When the log cannot be read.
    pub fn look(&mut self, stream: &str) -> Result<()> {
        let caught = self.session(stream)?.catch_up()?;
        self.feed(stream, &caught);
        self.missed(stream, caught);
        Ok(())
    }

    /// The head of `stream` as this journal last saw it.
    ///
    /// # Errors
    /// When the log cannot be read.
    pub fn head(&mut self, stream: &str) -> Result<Seq> {
        Ok(self.session(stream)?.head())
    }

    /// The parsed tool call of an inquiry of `stream`, from the call its request
    /// recorded (kept by the state while the inquiry is open and among the last
    /// to finish; read from the log only for one that finished long ago).
    ///
    /// # Errors
    /// When the log cannot be read.
    pub fn call(&mut self, stream: &str, inquiry: &InquiryId) -> Result<Option<Arc<Call>>> {
        if let Some(call) = self.calls.get(stream).and_then(|calls| calls.get(inquiry)) {
            return Ok(Some(Arc::clone(call)));
        }
        let state = self.state(stream)?;
        // An open inquiry's call, or a finished one's the state still keeps;
        // only an inquiry that finished long ago is looked for in the log.
        let mut recorded = (state.call(inquiry).cloned()).or_else(|| {
            (state.outcome(inquiry))
                .and_then(|finished| finished.call())
                .map(|call| Arc::new(call.clone()))
        });
        if recorded.is_none() {
            recorded = self.recorded_call(stream, inquiry)?;
        }
        let parsed = recorded.as_deref().and_then(parse_recorded).map(Arc::new);
        if let Some(call) = &parsed {
            self.remember_call(stream, inquiry.clone(), Arc::clone(call));
        }
        Ok(parsed)
    }

    /// Keeps `caught` for the next catch-up of `stream`.
    fn missed(&mut self, stream: &str, caught: Vec<Caught>) {
        if !caught.is_empty()
            && let Some(name) = self.name(stream)
        {
            (self.missed.entry(name).or_default()).extend(caught);
        }
    }

    /// Keeps `call`, parsed, for `inquiry` of `stream` (an open stream: a call
    /// is remembered after its stream's state was read).
    fn remember_call(&mut self, stream: &str, inquiry: InquiryId, call: Arc<Call>) {
        if let Some(name) = self.name(stream) {
            (self.calls.entry(name).or_default()).insert(inquiry, call);
        }
    }

    fn forget_call(&mut self, stream: &str, inquiry: &InquiryId) {
        if let Some(calls) = self.calls.get_mut(stream) {
            calls.remove(inquiry);
            if calls.is_empty() {
                self.calls.remove(stream);
            }
        }
    }

    /// The call of a finished inquiry, read from its request in the log (the state
    /// keeps the calls of open inquiries only).
    fn recorded_call(
        &mut self,
        stream: &str,
        inquiry: &InquiryId,
    ) -> Result<Option<Arc<ToolCall>>> {
        let log = Arc::clone(self.log());
        if log.stream(stream)?.is_none() {
            return Ok(None);
        }
        for recorded in log.read(stream, 1)? {
            if let Event::Requested(request) = recorded?.event
                && request.inquiry == *inquiry
            {
                return Ok(request.call.map(Arc::new));
            }
        }
        Ok(None)
    }

    /// Records `call` (with the `arguments` the model wrote, so its result can be
    /// rendered from the log alone) and applies its request.
    ///
    /// # Errors
    /// When the log cannot be written.
    pub fn request(
        &mut self,
        stream: &str,
        call: &Call,
        arguments: &Value,
        mut request: askuser_core::Request,
    ) -> Result<Step> {
        request.call = Some(ToolCall {
            dialect: call.dialect().name().to_owned(),
            arguments: arguments.clone(),
        });
        let inquiry = request.inquiry.clone();
        let step = self.input(stream, &Input::Ask(request))?;
        if matches!(step, Step::Recorded { .. }) {
            self.remember_call(stream, inquiry, Arc::new(call.clone()));
        }
        Ok(step)
    }

    /// Until the next [`Journal::flush`], records inputs without waiting for the log
    /// to flush each (a group commit): the caller handles a group of inputs, calls
    /// [`Journal::flush`], and only then shows the lines they yielded.
    pub fn defer_flush(&mut self) {
        self.deferred = true;
    }

    /// Flushes what was recorded since [`Journal::defer_flush`] (nothing to do
    /// otherwise), and records with the log's own durability again.
    ///
    /// # Errors
    /// When the log cannot be flushed: the inputs since `defer_flush` may not be
    /// durable, and their lines must not be shown as recorded.
    pub fn flush(&mut self) -> Result<()> {
        if std::mem::take(&mut self.deferred) {
            self.log.flush()?;
        }
        Ok(())
    }

    /// Decides `inputs` in order and records what they stand for as one atomic
    /// append (the store's batch lane, [`Session::handle_batch`]): all of them or,
    /// when the engine refuses one (another process moved the inquiry first, say),
    /// none, with the refusal.
    ///
    /// # Errors
    /// When the log cannot be read or written; nothing was recorded then.
    pub(crate) fn inputs(&mut self, stream: &str, inputs: &[Input]) -> Result<Step> {
        let durability = self.durability();
        let handled = self
            .session(stream)?
            .set_durability(durability)
            .handle_batch(inputs);
        self.recorded(stream, handled)
    }

    /// Applies what other processes recorded in `stream` since this journal last
    /// looked, and returns those events with the commands each yielded (without
    /// their calls: see [`Journal::follow`]).
    ///
    /// # Errors
    /// When the log cannot be read.
    pub(crate) fn catch_up_events(&mut self, stream: &str) -> Result<Vec<Caught>> {
        let mut caught = self.missed.remove(stream).unwrap_or_default();
        caught.extend(self.session(stream)?.catch_up()?);
        self.feed(stream, &caught);
        for caught in &caught {
            if let Some(Command::Respond { inquiry, .. } | Command::Fail { inquiry, .. }) =
                caught.commands.last()
            {
                self.forget_call(stream, inquiry);
            }
        }
        Ok(caught)
    }

    /// The durability of the next append: buffered after [`Journal::defer_flush`],
    /// else the log's own.
    fn durability(&self) -> Durability {
        if self.deferred {
            Durability::Buffered
        } else {
            self.log.durability()
        }
    }

    /// Hands a host's or a person's `input` to `stream`'s session: decided (what
    /// it means is the engine's to say; an action on something no longer shown
    /// is refused as [`Refusal::Stale`](askuser_core::Refusal::Stale)), recorded,
    /// applied; returns the commands, or the refusal.
    ///
    /// # Errors
    /// When the log cannot be read or written; nothing was recorded then.
    pub fn input(&mut self, stream: &str, input: &Input) -> Result<Step> {
        let durability = self.durability();
        let handled = self
            .session(stream)?
            .set_durability(durability)
            .handle(input);
        self.recorded(stream, handled)
    }

    /// The step a session's answer makes.
    fn recorded(
        &mut self,
        stream: &str,
        handled: std::result::Result<Handled, SessionError>,
    ) -> Result<Step> {
        let mut handled = match handled {
            Ok(handled) => handled,
            Err(SessionError::Refused(refusal)) => return Ok(Step::Refused(refusal)),
            Err(SessionError::MovedElsewhere { refusal, caught }) => {
                self.feed(stream, &caught);
                self.missed(stream, caught.into_vec());
                return Ok(Step::Refused(refusal));
            }
            Err(SessionError::Store(error)) => return Err(error.into()),
        };
        if self.read.stream(stream).is_some()
            && let Some(session) = self.sessions.get(stream)
        {
            let mut applied: Vec<Applied<'_>> =
                handled.caught.iter().map(Applied::caught).collect();
            applied.push(Applied {
                seq: handled.seq,
                commands: &handled.commands,
                inquiry: true,
            });
            self.read.apply(stream, &applied, session.state());
        }
        self.missed(stream, std::mem::take(&mut handled.caught));
        if let Some(Command::Respond { inquiry, .. } | Command::Fail { inquiry, .. }) =
            handled.commands.last()
        {
            self.forget_call(stream, inquiry);
        }
        Ok(Step::Recorded {
            seq: handled.seq,
            commands: handled.commands,
        })
    }

    /// Applies what other processes recorded in `stream` since this journal last
    /// looked (an answer given in another window, say), and returns those events,
    /// in order, each with what applying it yielded and its inquiry's tool call
    /// (looked up before a finished inquiry's call is let go).
    ///
    /// # Errors
    /// When the log cannot be read.
    pub fn follow(&mut self, stream: &str) -> Result<Vec<Followed>> {
        let mut caught = self.missed.remove(stream).unwrap_or_default();
        caught.extend(self.session(stream)?.catch_up()?);
        self.feed(stream, &caught);
        let mut followed = Vec::with_capacity(caught.len());
        for caught in caught {
            let call = match caught.event.inquiry() {
                Some(inquiry) => self.call(stream, inquiry)?,
                None => None,
            };
            if let Some(Command::Respond { inquiry, .. } | Command::Fail { inquiry, .. }) =
                caught.commands.last()
            {
                self.forget_call(stream, inquiry);
            }
            followed.push(Followed { caught, call });
        }
        Ok(followed)
    }

    /// What an open inquiry of `stream` is waiting on now (its current prompt,
    /// review or request to the assistant), rebuilt from the state: what a
    /// restarted surface shows again.
    ///
    /// # Errors
    /// When the log cannot be read.
    pub fn pending(&mut self, stream: &str, inquiry: &InquiryId) -> Result<Option<Command>> {
        Ok(self.state(stream)?.pending(inquiry))
    }

    /// When the question `inquiry` of `stream` waits on times out, by its policy's
    /// timeout: the engine's deadline ([`State::deadline`]), the one a timeout is
    /// held to. Where the engine knows no recorded time for it (a snapshot taken
    /// before it kept one), [`question_deadline`](crate::question_deadline) from
    /// the time the stream's head event (as this journal last saw it) was
    /// recorded. `None` when the inquiry has no timeout or the stream no event.
    ///
    /// ```
    /// use askuser_core::{InquiryId, OnTimeout, Timeout};
    /// use askuser_dialects::Dialect;
    /// use askuser_app::Journal;
    /// use serde_json::json;
    ///
    /// let mut journal = Journal::memory();
    /// let arguments = json!({"question": "Deploy now?", "answer_type": "boolean"});
    /// let call = Dialect::Jp.parse(&arguments).unwrap();
    /// let mut request = call.request(InquiryId::new("c1"));
    /// request.policy.timeout = Some(Timeout { after_ms: 60_000, on_timeout: OnTimeout::Cancel });
    /// journal.request("s", &call, &arguments, request).unwrap();
    /// let recorded = journal.log().read_range("s", 1, 1).unwrap().next().unwrap().unwrap();
    /// let deadline = journal.deadline("s", &InquiryId::new("c1")).unwrap().unwrap();
    /// assert_eq!(deadline.millis(), recorded.at.millis() + 60_000);
    /// ```
    ///
    /// # Errors
    /// When the log cannot be read.
    pub fn deadline(
        &mut self,
        stream: &str,
        inquiry: &InquiryId,
    ) -> Result<Option<askuser_store::Timestamp>> {
        let state = self.state(stream)?;
        if let Some(due) = state.deadline(inquiry) {
            return Ok(Some(askuser_store::Timestamp(due)));
        }
        let Some(timeout) = state.policy(inquiry).and_then(|policy| policy.timeout) else {
            return Ok(None);
        };
        let head = self.head(stream)?;
        if head == 0 {
            return Ok(None);
        }
        // The question waits since the stream's last event of an inquiry: a
        // process attaching or detaching later moves no question (looked for
        // among the last few events; past them, the head's time stands in).
        let from = head.saturating_sub(DEADLINE_SCAN - 1).max(1);
        let mut last = None;
        let mut inquiry = None;
        for recorded in self.log.read_range(stream, from, head)? {
            let recorded = recorded?;
            if recorded.event.inquiry().is_some() {
                inquiry = Some(recorded.at);
            }
            last = Some(recorded.at);
        }
        Ok(inquiry
            .or(last)
            .map(|since| crate::question_deadline(since, &timeout)))
    }

    /// Forgets what this journal holds in memory about `stream`; the next use reads
    /// it from the log again.
    pub fn forget(&mut self, stream: &str) {
        self.sessions.remove(stream);
        self.read.forget(stream);
    }

    /// Hands what a session of `stream` caught up on to the read side.
    fn feed(&mut self, stream: &str, caught: &[Caught]) {
        if caught.is_empty() || self.read.stream(stream).is_none() {
            return;
        }
        if let Some(session) = self.sessions.get(stream) {
            let applied: Vec<Applied<'_>> = caught.iter().map(Applied::caught).collect();
            self.read.apply(stream, &applied, session.state());
        }
    }

    /// The read side ([`ReadSide`]) as it stands: what the streams it has seen
    /// stand at, as of what this journal's sessions have applied.
    pub fn read(&self) -> &ReadSide {
        &self.read
    }

    /// The read side's view of `stream`, brought level with this journal's session
    /// of it (which [`Journal::follow`] brings level with the log): the first time,
    /// by one replay of the stream (how its earlier inquiries ended), after that by
    /// what the session applies, never by a replay per call; the time of its head
    /// event is read once per head. `None` when the log has no such stream.
    ///
    /// # Errors
    /// When the log cannot be read.
    pub fn refresh(&mut self, stream: &str) -> Result<Option<&StreamView>> {
        let session_head = self.sessions.get(stream).map(Session::head);
        let read_head = self.read.stream(stream).map(StreamView::head);
        let behind = match (session_head, read_head) {
            (_, None) => true,
            (Some(session), Some(read)) => read < session,
            (None, Some(_)) => false,
        };
        if behind && !self.first_sight(stream, session_head)? {
            return Ok(None);
        }
        if let Some(seq) = self.read.needs_time(stream)
            && let Some(recorded) = self.log.read_range(stream, seq, seq)?.next()
        {
            self.read.set_time(stream, seq, recorded?.at);
        }
        Ok(self.read.stream(stream))
    }

    /// The read side's one replay of `stream` (up to `to`, else its head), from
    /// its first event kept; `false` when the log has no such stream.
    fn first_sight(&mut self, stream: &str, to: Option<Seq>) -> Result<bool> {
        self.read.forget(stream);
        // A name that breaks the rule names no stream of the log.
        let Some(name) = self.name(stream) else {
            return Ok(false);
        };
        if self.log.stream(stream)?.is_none() {
            return Ok(false);
        }
        // From the first event, to learn how every inquiry kept in the log ended;
        // from the latest snapshot when compaction dropped the first events.
        let mut from_start = true;
        loop {
            let mut options = if from_start {
                ReplayOptions::from_start()
            } else {
                ReplayOptions::latest()
            };
            options.to = to;
            self.read.start(name.clone());
            let read = &mut self.read;
            let replayed = replay_with(&*self.log, stream, options, &mut |recorded, commands| {
                read.replayed(stream, recorded, commands);
            });
            match replayed {
                Ok(replayed) => {
                    self.read.replay_done(stream, replayed.seq, &replayed.state);
                    return Ok(true);
                }
                Err(StoreError::Compacted { .. }) if from_start => from_start = false,
                Err(error) => {
                    self.read.forget(stream);
                    return Err(error.into());
                }
            }
        }
    }
}

/// A recorded tool call parsed again in its dialect.
pub fn parse_recorded(call: &ToolCall) -> Option<Call> {
    Dialect::from_name(&call.dialect)?
        .parse(&call.arguments)
        .ok()
}
