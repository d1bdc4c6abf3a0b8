//! [`Desk`]: the one application object per log, and the only unit of work: the
//! store's sessions, one per stream (never handed out), and the tool calls of
//! their inquiries, keyed by stream and inquiry. Every input goes the one road
//! ([`askuser_store::Session::handle`]): decided, appended (flushed, for a
//! durable log), applied; what came of it is an [`Outcome`] (taken or refused,
//! what changed elsewhere first, what the inquiry shows now, how it ended), and a
//! surface renders that after it returns, so whatever a host or a person has seen
//! is durable.

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
use crate::inbox::LeaseMemory;
use crate::read::{Applied, Ending, ReadSide, StreamView};
use askuser_core::Happened;

/// Whether an input given to the [`Desk`] was taken.
#[derive(Debug, Clone, PartialEq)]
pub enum Taken {
    /// The input was decided and recorded, its last event as `seq`; these are the
    /// commands it yielded, in order.
    Recorded {
        /// The last event's sequence number in its stream.
        seq: Seq,
        /// The engine's commands.
        commands: Vec<Command>,
    },
    /// Not taken: the engine refused the input (its words say what to do);
    /// nothing was recorded.
    Refused(Refusal),
}

/// The batch lane's answer (what [`Desk::inputs`] returns).
pub(crate) type Step = Taken;

/// What came of an input handed to [`Desk::input`] or a request to
/// [`Desk::request`]: everything a surface renders, made once here.
///
/// ```
/// use askuser_app::{Desk, Ending, Taken};
/// use askuser_core::{AnswerInput, Command, InquiryId};
/// use askuser_dialects::Dialect;
/// use serde_json::json;
///
/// let mut desk = Desk::memory();
/// let arguments = json!({"question": "Deploy now?", "answer_type": "boolean"});
/// let call = Dialect::Jp.parse(&arguments).unwrap();
/// let asked = desk.request("s", &call, &arguments, call.request(InquiryId::new("c1"))).unwrap();
/// let Some(Command::Prompt(prompt)) = &asked.showing else { panic!() };
///
/// let answered = desk.input("s", &AnswerInput::new(prompt.at(), json!(true)).into()).unwrap();
/// assert!(matches!(answered.taken, Taken::Recorded { seq: 2, .. }));
/// assert_eq!((answered.ending(), answered.showing), (Some(Ending::Answered), None));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// What other processes recorded in the stream since this desk last told
    /// its surface (applied before the input was decided: the input is decided
    /// on what is current), in order, each with its inquiry's call and what it
    /// means in words' stead ([`Followed::happened`]).
    pub elsewhere: Vec<Followed>,
    /// Whether the input was taken.
    pub taken: Taken,
    /// What the input's inquiry shows now (its [`Command::Prompt`], its
    /// [`Command::Review`], or its [`Command::AskAssistant`]); `None` when it is
    /// not open.
    pub showing: Option<Command>,
    /// The command that ended the inquiry ([`Command::Respond`],
    /// [`Command::Fail`], [`Command::EndTurn`], [`Command::Reject`]), when it has
    /// ended, here or elsewhere, and the state still keeps how.
    pub ended: Option<Command>,
}

impl Outcome {
    /// The commands the input yielded (none when it was refused).
    pub fn commands(&self) -> &[Command] {
        match &self.taken {
            Taken::Recorded { commands, .. } => commands,
            Taken::Refused(_) => &[],
        }
    }

    /// The engine's refusal, when the input was not taken.
    pub fn refusal(&self) -> Option<&Refusal> {
        match &self.taken {
            Taken::Refused(refusal) => Some(refusal),
            Taken::Recorded { .. } => None,
        }
    }

    /// How the inquiry ended, when it has ([`Outcome::ended`]).
    pub fn ending(&self) -> Option<Ending> {
        self.ended.as_ref().and_then(Ending::of)
    }
}

/// An event another process recorded, applied by [`Desk::catch_up`], with the
/// tool call of its inquiry (to render a result in the call's dialect) and what
/// it means to a person ([`Happened`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Followed {
    /// The event, its sequence number and what applying it yielded.
    pub caught: Caught,
    /// The parsed tool call of the event's inquiry, when its request recorded one.
    pub call: Option<Arc<Call>>,
    /// What another surface did, as data every surface styles
    /// (`None` for an event that tells a person nothing by itself).
    pub happened: Option<Happened>,
}

/// The one application object per log: its streams' sessions and calls, the
/// read side, and the only way in (a surface holds one, hands it `Input`s, and
/// renders the [`Outcome`]s and catch-ups it returns).
///
/// ```
/// use askuser_app::{Desk, Taken};
/// use askuser_core::{AnswerInput, Command, InquiryId};
/// use askuser_dialects::Dialect;
/// use serde_json::json;
///
/// let mut desk = Desk::memory();
/// let arguments = json!({"question": "Deploy now?", "answer_type": "boolean"});
/// let call = Dialect::Jp.parse(&arguments).unwrap();
/// let asked = desk.request("s", &call, &arguments, call.request(InquiryId::new("c1"))).unwrap();
/// let Taken::Recorded { seq, commands } = &asked.taken else { panic!() };
/// let Command::Prompt(prompt) = &commands[0] else { panic!() };
/// assert_eq!(*seq, 1);
///
/// // The person answers what the prompt showed.
/// let yes = AnswerInput::new(prompt.at(), json!(true)).into();
/// let answered = desk.input("s", &yes).unwrap();
/// assert!(matches!(answered.commands()[0], Command::Respond { .. }));
/// ```
///
/// A stream is named by `&str` in its methods: the name is checked once, when
/// its session is first opened ([`StoreError::InvalidStreamName`] otherwise), and
/// every map here is keyed by the checked [`StreamName`] (looked up by `&str`);
/// what is kept per inquiry is kept by (stream, inquiry).
pub struct Desk {
    log: Arc<dyn Log>,
    sessions: HashMap<StreamName, Session>,
    /// Parsed calls by stream, then inquiry (an id such as `call-1` recurs in
    /// every stream), so a result is not parsed again per line.
    calls: HashMap<StreamName, HashMap<InquiryId, Arc<Call>>>,
    /// Set by [`Desk::defer_flush`]: appends are buffered until [`Desk::flush`].
    deferred: bool,
    /// Whether something was recorded since [`Desk::defer_flush`]: a group that
    /// recorded nothing (a catch-up only) costs the log no flush.
    unflushed: bool,
    /// What a session caught up on that no surface was told of yet (a batch's
    /// session caught up while it recorded), by stream: returned by the next
    /// catch-up or outcome, so a host still sends the lines of what another
    /// surface did.
    missed: HashMap<StreamName, Vec<Caught>>,
    /// The read side, fed what the sessions apply.
    read: ReadSide,
    /// Every lease seen, for who still waits ([`crate::Liveness`]).
    leases: LeaseMemory,
    /// The last [`Desk::ended_since`] of each stream, with the head and the
    /// start it was read at: read again only when either moved.
    pub(crate) days: HashMap<String, (Seq, askuser_store::Timestamp, crate::AgentDay)>,
}

impl std::fmt::Debug for Desk {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Desk")
            .field("streams", &self.sessions.keys().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

/// How many of a stream's last events [`Desk::deadline`] looks through for
/// the last one of an inquiry.
const DEADLINE_SCAN: u64 = 16;

impl Desk {
    /// A desk over `log`.
    pub fn new(log: Arc<dyn Log>) -> Self {
        Self {
            log,
            sessions: HashMap::new(),
            calls: HashMap::new(),
            deferred: false,
            unflushed: false,
            missed: HashMap::new(),
            read: ReadSide::default(),
            leases: LeaseMemory::default(),
            days: HashMap::new(),
        }
    }

    /// A desk in memory (for tests and embedding).
    pub fn memory() -> Self {
        Self::new(Arc::new(MemLog::new()))
    }

    /// The durable desk at `location`: a sled database directory (created if
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

    /// The leases this desk has seen (see [`LeaseMemory`]).
    pub(crate) fn lease_memory(&mut self) -> &mut LeaseMemory {
        &mut self.leases
    }

    /// The log's clock now: the clock it stamps records with, from which the
    /// engine counts a question's deadline
    /// ([`State::deadline`](askuser_core::State::deadline)). A surface with no
    /// clock of its own to count by fires a timeout at this time
    /// ([`Input::TimeOut`](askuser_core::Input::TimeOut)).
    pub fn now(&self) -> askuser_store::Timestamp {
        askuser_store::backend::Backend::clock(&*self.log).now()
    }

    /// The session of `stream`, opened (replayed) the first time. Never handed
    /// out: every write and catch-up of a stream goes through the desk.
    ///
    /// # Errors
    /// When the stream's name is invalid or the log cannot be read.
    fn session(&mut self, stream: &str) -> Result<&mut Session> {
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
    /// catch-up goes through [`Desk::session`] first), else checked now.
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

    /// The head of `stream` as this desk last saw it.
    ///
    /// # Errors
    /// When the log cannot be read.
    pub fn head(&mut self, stream: &str) -> Result<Seq> {
        Ok(self.session(stream)?.head())
    }

    /// Whether a [`Desk::catch_up`] of `stream` to `head` would find nothing:
    /// this desk applied it through `head` (its own appends included) and holds
    /// nothing caught from it that its surface was not told. Reads nothing from
    /// the log, so a watcher woken by the desk's own append costs no read.
    #[must_use]
    pub fn has_caught_up(&self, stream: &str, head: Seq) -> bool {
        self.sessions
            .get(stream)
            .is_some_and(|session| session.head() >= head)
            && self.missed.get(stream).is_none_or(Vec::is_empty)
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

    /// Asks: records `call` (with the `arguments` the model wrote, so its result
    /// can be rendered from the log alone) as `request`, handed to the engine as
    /// [`Input::Ask`] like every other input. What came of it, with what other
    /// processes recorded in the stream first.
    ///
    /// # Errors
    /// When the log cannot be read or written; nothing was recorded then.
    pub fn request(
        &mut self,
        stream: &str,
        call: &Call,
        arguments: &Value,
        mut request: askuser_core::Request,
    ) -> Result<Outcome> {
        request.call = Some(ToolCall {
            dialect: call.dialect().name().to_owned(),
            arguments: arguments.clone(),
        });
        let inquiry = request.inquiry.clone();
        let durability = self.durability();
        let handled = (self.session(stream)?)
            .set_durability(durability)
            .handle(&Input::Ask(request));
        let taken = self.recorded(stream, handled)?;
        if matches!(taken, Taken::Recorded { .. }) {
            self.remember_call(stream, inquiry.clone(), Arc::new(call.clone()));
        }
        self.outcome(stream, Some(&inquiry), taken)
    }

    /// Until the next [`Desk::flush`], records inputs without waiting for the log
    /// to flush each (a group commit): the caller handles a group of inputs, calls
    /// [`Desk::flush`], and only then shows the lines they yielded.
    pub fn defer_flush(&mut self) {
        self.deferred = true;
    }

    /// Flushes what was recorded since [`Desk::defer_flush`] (nothing to do
    /// when nothing was), and records with the log's own durability again.
    ///
    /// # Errors
    /// When the log cannot be flushed: the inputs since `defer_flush` may not be
    /// durable, and their lines must not be shown as recorded.
    pub fn flush(&mut self) -> Result<()> {
        self.deferred = false;
        if std::mem::take(&mut self.unflushed) {
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

    /// [`Desk::catch_up`], the events alone (for the pending-file workflow).
    ///
    /// # Errors
    /// When the log cannot be read.
    pub(crate) fn catch_up_events(&mut self, stream: &str) -> Result<Vec<Caught>> {
        Ok(self
            .catch_up(stream)?
            .into_iter()
            .map(|followed| followed.caught)
            .collect())
    }

    /// The durability of the next append: buffered after [`Desk::defer_flush`],
    /// else the log's own.
    fn durability(&self) -> Durability {
        if self.deferred {
            Durability::Buffered
        } else {
            self.log.durability()
        }
    }

    /// Acts: hands a host's or a person's `input` to `stream`'s session: decided
    /// (what it means is the engine's to say; an action on something no longer
    /// shown is refused as [`Refusal::Stale`](askuser_core::Refusal::Stale)),
    /// recorded, applied. What came of it: taken or not (with the refusal), what
    /// other processes recorded in the stream first (the session catches up
    /// before it refuses, and when another process appended first), what the
    /// inquiry shows now and how it ended.
    ///
    /// # Errors
    /// When the log cannot be read or written; nothing was recorded then.
    pub fn input(&mut self, stream: &str, input: &Input) -> Result<Outcome> {
        self.act(stream, input, false)
    }

    /// [`Desk::input`], from the asker of the input's inquiry, which gives the
    /// model the result with what comes back (`askuser serve` on the inquiries
    /// it asked): an input that finishes the inquiry with a result owed also
    /// records it handed over, in the same append
    /// ([`State::decide_handing_over`](askuser_core::State::decide_handing_over)),
    /// where [`Desk::input`] then [`Desk::handed_over`] would append twice.
    ///
    /// # Errors
    /// When the log cannot be read or written; nothing was recorded then.
    pub fn input_handing_over(&mut self, stream: &str, input: &Input) -> Result<Outcome> {
        self.act(stream, input, true)
    }

    /// Decides, records and applies `input` (see [`Desk::input`]).
    fn act(&mut self, stream: &str, input: &Input, hands_over: bool) -> Result<Outcome> {
        let durability = self.durability();
        let handled = self
            .session(stream)?
            .set_durability(durability)
            .set_hands_over(hands_over)
            .handle(input);
        let taken = self.recorded(stream, handled)?;
        self.outcome(stream, input.inquiry(), taken)
    }

    /// Records that the result of `stream`'s finished `inquiry` was handed to
    /// the model ([`Input::Deliver`]), when it is still owed: so an agent that
    /// comes back later is not given it again. Whether it was recorded now (not
    /// when another surface handed it over first, or it is not owed). Recorded
    /// as every input is (made durable before it returns, or by
    /// [`Desk::flush`] after [`Desk::defer_flush`]): a host may stop the agent
    /// as soon as it has the result. What the session caught up on meanwhile
    /// is returned by the next outcome or catch-up.
    ///
    /// # Errors
    /// When the log cannot be read or written; nothing was recorded then.
    pub fn handed_over(&mut self, stream: &str, inquiry: &InquiryId) -> Result<bool> {
        let owed =
            (self.state(stream)?.outcome(inquiry)).is_some_and(askuser_core::FinishedInquiry::owed);
        if !owed {
            return Ok(false);
        }
        let deliver = Input::Deliver {
            inquiry: inquiry.clone(),
        };
        let durability = self.durability();
        let handled = (self.session(stream)?)
            .set_durability(durability)
            .handle(&deliver);
        Ok(matches!(
            self.recorded(stream, handled)?,
            Taken::Recorded { .. }
        ))
    }

    /// The outcome of `taken` for `inquiry` of `stream` (`None`: an input of
    /// no inquiry, as attaching): with what the session caught up on that no
    /// surface was told of yet, and where the inquiry stands now.
    fn outcome(
        &mut self,
        stream: &str,
        inquiry: Option<&InquiryId>,
        taken: Taken,
    ) -> Result<Outcome> {
        let caught = self.missed.remove(stream).unwrap_or_default();
        let elsewhere = self.followed(stream, caught)?;
        let state = self.state(stream)?;
        let Some(inquiry) = inquiry else {
            return Ok(Outcome {
                elsewhere,
                taken,
                showing: None,
                ended: None,
            });
        };
        let showing = state.pending(inquiry);
        let ended = match showing {
            Some(_) => None,
            None => (taken_commands(&taken).iter())
                .chain(
                    elsewhere
                        .iter()
                        .flat_map(|followed| &followed.caught.commands),
                )
                .rfind(|command| askuser_core::Ending::of_inquiry(command, inquiry).is_some())
                .cloned()
                .or_else(|| state.result(inquiry)),
        };
        Ok(Outcome {
            elsewhere,
            taken,
            showing,
            ended,
        })
    }

    /// The step a session's answer makes.
    fn recorded(
        &mut self,
        stream: &str,
        handled: std::result::Result<Handled, SessionError>,
    ) -> Result<Taken> {
        let mut handled = match handled {
            Ok(handled) => handled,
            Err(SessionError::Refused(refusal)) => return Ok(Taken::Refused(refusal)),
            Err(SessionError::MovedElsewhere { refusal, caught }) => {
                self.feed(stream, &caught);
                self.missed(stream, caught.into_vec());
                return Ok(Taken::Refused(refusal));
            }
            Err(SessionError::Store(error)) => return Err(error.into()),
        };
        self.unflushed |= self.deferred;
        if self.read.stream(stream).is_some()
            && let Some(session) = self.sessions.get(stream)
        {
            let mut applied: Vec<Applied<'_>> =
                handled.caught.iter().map(Applied::caught).collect();
            applied.push(Applied {
                seq: handled.seq,
                commands: &handled.commands,
                inquiry: true,
                requested: None,
            });
            self.read.apply(stream, &applied, session.state());
        }
        self.missed(stream, std::mem::take(&mut handled.caught));
        if let Some(Command::Respond { inquiry, .. } | Command::Fail { inquiry, .. }) =
            handled.commands.last()
        {
            self.forget_call(stream, inquiry);
        }
        Ok(Taken::Recorded {
            seq: handled.seq,
            commands: handled.commands,
        })
    }

    /// The one catch-up: applies what other processes recorded in `stream`
    /// since this desk last told its surface (an answer given in another window,
    /// say), feeds the read side, and returns those events, in order, each with
    /// what applying it yielded, its inquiry's tool call (looked up before a
    /// finished inquiry's call is let go) and what it means to a person.
    ///
    /// # Errors
    /// When the log cannot be read.
    pub fn catch_up(&mut self, stream: &str) -> Result<Vec<Followed>> {
        let mut caught = self.missed.remove(stream).unwrap_or_default();
        let more = self.session(stream)?.catch_up()?;
        self.feed(stream, &more);
        caught.extend(more);
        self.followed(stream, caught)
    }

    /// `caught` (already applied and fed to the read side) with the calls of
    /// their inquiries and what each means; a finished inquiry's call is let go.
    fn followed(&mut self, stream: &str, caught: Vec<Caught>) -> Result<Vec<Followed>> {
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
            let state = self.state(stream)?;
            // The form the event's question is in: the open inquiry's, else its
            // call's (else the result's, when the event finished it).
            let form = (caught.event.inquiry())
                .and_then(|inquiry| state.form(inquiry))
                .or_else(|| call.as_deref().map(Call::form));
            let happened = Happened::of(&caught.event, &caught.commands, form);
            followed.push(Followed {
                caught,
                call,
                happened,
            });
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
    /// the time the stream's head event (as this desk last saw it) was
    /// recorded. `None` when the inquiry has no timeout or the stream no event.
    ///
    /// ```
    /// use askuser_core::{InquiryId, OnTimeout, Timeout};
    /// use askuser_dialects::Dialect;
    /// use askuser_app::Desk;
    /// use serde_json::json;
    ///
    /// let mut desk = Desk::memory();
    /// let arguments = json!({"question": "Deploy now?", "answer_type": "boolean"});
    /// let call = Dialect::Jp.parse(&arguments).unwrap();
    /// let mut request = call.request(InquiryId::new("c1"));
    /// request.policy.timeout = Some(Timeout { after_ms: 60_000, on_timeout: OnTimeout::Cancel });
    /// desk.request("s", &call, &arguments, request).unwrap();
    /// let recorded = desk.log().read_range("s", 1, 1).unwrap().next().unwrap().unwrap();
    /// let deadline = desk.deadline("s", &InquiryId::new("c1")).unwrap().unwrap();
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

    /// Forgets what this desk holds in memory about `stream`; the next use reads
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
    /// stand at, as of what this desk's sessions have applied.
    pub fn read(&self) -> &ReadSide {
        &self.read
    }

    /// The read side's view of `stream`, brought level with this desk's session
    /// of it (which [`Desk::catch_up`] brings level with the log): the first time,
    /// by one replay of the stream (how its earlier inquiries ended), after that by
    /// what the session applies, never by a replay per call; the time of its head
    /// event is read once per head. `None` when the log has no such stream.
    ///
    /// # Errors
    /// When the log cannot be read.
    pub fn view(&mut self, stream: &str) -> Result<Option<&StreamView>> {
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
        // When each open inquiry was first asked, read once.
        for seq in self.read.requests_untimed(stream) {
            if let Some(recorded) = self.log.read_range(stream, seq, seq)?.next() {
                self.read.set_request_time(stream, seq, recorded?.at);
            }
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

/// The commands of `taken` (none when refused).
fn taken_commands(taken: &Taken) -> &[Command] {
    match taken {
        Taken::Recorded { commands, .. } => commands,
        Taken::Refused(_) => &[],
    }
}

/// A recorded tool call parsed again in its dialect.
pub fn parse_recorded(call: &ToolCall) -> Option<Call> {
    Dialect::from_name(&call.dialect)?
        .parse(&call.arguments)
        .ok()
}
