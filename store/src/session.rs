//! [`Session`]: the one road from a host's input to the engine's outputs.

use std::sync::Arc;
use std::time::Duration;

use askuser_core::{Command, Decision, Event, Input, Refusal, State};

use crate::error::StoreError;
use crate::log::Log;
use crate::replay::{apply_recorded, load};
use crate::stream_name::{IntoStreamName, StreamName};
use crate::types::{Durability, Seq};

/// How many times a [`Session`] decides again after losing a race to another
/// writer before it gives up with the conflict.
const RETRIES: usize = 16;

/// One stream of a [`Log`] driven through the engine: the road every host takes
/// (the JSON-lines server, the terminal, the MCP server, a program embedding
/// askuser).
///
/// A session holds the engine's [`State`] for its stream and the head it has
/// applied. It has two writers, and they are the only way a host writes to a
/// log: [`Session::handle`] takes one [`Input`], [`Session::handle_batch`] a
/// batch of them recorded in one append. Each input goes, in this order:
///
/// 1. **decided** against the state ([`State::decide`]: pure, the state only
///    borrowed, so the cost does not grow with the number of open inquiries). A
///    host misusing the engine gets the [`Refusal`] back, and nothing is recorded;
/// 2. **appended**: the events the engine decided (what the input stands for, or
///    the verdict that records what a model or a person got wrong) at the head it
///    expects, with the session's [durability](Session::set_durability). If another process
///    appended first, the session reads what it missed, applies it, and decides
///    again: the first writer wins, and the others are told the new truth (an
///    answer to an inquiry someone else already finished is refused);
/// 3. **applied** ([`State::apply_decision`]: infallible, no validation), and the
///    commands returned. Whatever a host shows after `handle` returns is
///    already in the log. An event of an inquiry with a timeout is applied at
///    the time the log recorded it ([`State::apply_decision_at`]), from which
///    the engine counts the question's deadline, as a replay and
///    [`Session::catch_up`] apply every event.
///
/// After a restart, [`Session::open`] replays the stream (from its latest snapshot)
/// and the host carries on; [`Session::catch_up`] and [`Session::wait`] (readers)
/// apply events other processes appended, which is how a waiting host sees an
/// answer recorded elsewhere. [`Session::create`] opens a stream that must be new,
/// recording its first input.
///
/// ```
/// use std::sync::Arc;
/// use askuser_core::{AnswerInput, At, Command, Input, InquiryId, Request, parse_form};
/// use askuser_store::{MemLog, Session, SessionError};
/// use serde_json::json;
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let log = Arc::new(MemLog::new());
/// let mut session = Session::open(log.clone(), "chat-42")?;
/// let form = parse_form(&json!({"questions": [
///     {"id": "ok", "text": "Deploy now?", "answer_type": "boolean"}]}))?;
/// let id = InquiryId::new("call-1");
/// let handled = session.handle(&Input::Ask(Request {
///     inquiry: id.clone(), form: form.form().clone(), policy: Default::default(),
///     origin: Default::default(), call: None,
/// }))?;
/// assert!(matches!(handled.commands[..], [Command::Prompt(_)]));
///
/// // A host answering a question the form does not have is refused, unrecorded,
/// // with what the inquiry shows now.
/// let nope = At::question(id.clone(), "nope", 0);
/// let wrong = session.handle(&AnswerInput::new(nope, json!(true)).into());
/// let Err(SessionError::Refused(refusal)) = wrong else { panic!("refused") };
/// assert_eq!(refusal.code(), "unknown_question");
/// assert_eq!(refusal.current(), Some(At::question(id.clone(), "ok", 0)));
/// assert_eq!(session.head(), 1);
/// # Ok(())
/// # }
/// ```
pub struct Session {
    log: Arc<dyn Log>,
    stream: StreamName,
    state: State,
    head: Seq,
    durability: Durability,
    /// Whether inputs are handed in by their inquiry's asker, who hands the
    /// results over at once (see [`Session::set_hands_over`]).
    hands_over: bool,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("stream", &self.stream)
            .field("head", &self.head)
            .finish_non_exhaustive()
    }
}

/// What [`Session::handle`] or [`Session::handle_batch`] did with accepted input.
#[derive(Debug, Clone, PartialEq)]
pub struct Handled {
    /// The sequence number the last decided event was recorded as.
    pub seq: Seq,
    /// The engine's commands, in order: what the host must do next.
    pub commands: Vec<Command>,
    /// What the session caught up on before it could record the input (another
    /// writer appended first), in order: a host shows what those events yielded
    /// too, as [`Session::catch_up`] would have returned them.
    pub caught: Vec<Caught>,
}

/// Why [`Session::handle`] or [`Session::handle_batch`] did not record an input.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    /// The engine refused the input (the host misused it); nothing was recorded.
    /// Show the refusal; do not retry the same input.
    #[error(transparent)]
    Refused(#[from] Refusal),
    /// Another writer moved the stream first (another surface answered, went
    /// Back, finished the inquiry): the session applied what it caught up on,
    /// and on that the engine refused the input. Nothing of the input was
    /// recorded. Show the person what changed (`caught`: the other writer's
    /// events with the commands each yielded, its result among them when it
    /// finished the inquiry) and what is current; do not retry the same input.
    #[error("{refusal} (another writer recorded {} event(s) first)", caught.len())]
    MovedElsewhere {
        /// Why the input no longer fits.
        refusal: Refusal,
        /// What the session caught up on, in order (boxed: an error stays small).
        caught: Box<[Caught]>,
    },
    /// The log failed; nothing was recorded and the session is as it was. Retry, or
    /// reopen the session.
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl SessionError {
    /// The engine's refusal, when the engine refused the input (with or without
    /// catching up first).
    pub fn refusal(&self) -> Option<&Refusal> {
        match self {
            SessionError::Refused(refusal) | SessionError::MovedElsewhere { refusal, .. } => {
                Some(refusal)
            }
            SessionError::Store(_) => None,
        }
    }
}

/// An event another process recorded, applied by [`Session::catch_up`].
#[derive(Debug, Clone, PartialEq)]
pub struct Caught {
    /// Its sequence number.
    pub seq: Seq,
    /// The event.
    pub event: Event,
    /// What applying it yielded.
    pub commands: Vec<Command>,
}

impl Session {
    /// Opens `stream` of `log`: replays it (from its latest snapshot) if it exists;
    /// a stream that does not exist yet is created by the first input recorded.
    ///
    /// # Errors
    ///
    /// [`StoreError::InvalidStreamName`] for a name that breaks the rule of
    /// [`StreamName`] (a [`StreamName`] is taken as it is); a replay error (a
    /// damaged or compacted stream).
    pub fn open(log: Arc<dyn Log>, stream: impl IntoStreamName) -> Result<Self, StoreError> {
        let stream = stream.into_stream_name()?;
        let (state, head) = if log.stream(&stream)?.is_some() {
            let replayed = load(&*log, &stream)?;
            (replayed.state, replayed.seq)
        } else {
            (State::new(), 0)
        };
        let durability = log.durability();
        Ok(Self {
            log,
            stream,
            state,
            head,
            durability,
            hands_over: false,
        })
    }

    /// Opens `stream`, which must not exist yet, by recording `first` as its first
    /// input, decided on the empty state: a stream another process created first
    /// (before or while this one records) is [`StoreError::StreamExists`], and
    /// nothing of `first` is recorded then. What claims a new name for a stream
    /// uses it (an agent's first [`Input::Attach`](askuser_core::Input::Attach)),
    /// so that two processes claiming one name never share the stream.
    ///
    /// # Errors
    ///
    /// [`SessionError::Store`] with [`StoreError::StreamExists`], with
    /// [`StoreError::InvalidStreamName`], or when the log fails;
    /// [`SessionError::Refused`] when the engine refuses `first`.
    pub fn create(
        log: Arc<dyn Log>,
        stream: impl IntoStreamName,
        first: &Input,
    ) -> Result<(Self, Handled), SessionError> {
        let stream = stream.into_stream_name()?;
        if log.stream(&stream)?.is_some() {
            return Err(StoreError::StreamExists(stream.to_string()).into());
        }
        let durability = log.durability();
        let mut session = Self {
            log,
            stream,
            state: State::new(),
            head: 0,
            durability,
            hands_over: false,
        };
        let decision = session.state.decide(first)?;
        let seq = match (session.log).append_with(&session.stream, 0, decision.events(), durability)
        {
            Err(StoreError::Conflict { .. }) => {
                return Err(StoreError::StreamExists(session.stream.to_string()).into());
            }
            appended => appended?,
        };
        let at = session.recorded_at(seq, decision.events());
        let mut commands = Vec::with_capacity(1);
        Decided::apply(decision, &mut session.state, at, &mut commands);
        session.head = seq;
        Ok((
            session,
            Handled {
                seq,
                commands,
                caught: Vec::new(),
            },
        ))
    }

    /// Sets the durability this session appends with (at open: the log's own,
    /// [`Backend::durability`](crate::backend::Backend::durability)), and returns
    /// the session. A host that groups inputs
    /// sets [`Durability::Buffered`], hands them in, calls [`Log::flush`] once
    /// before it shows what any of them yielded (a group commit: whatever was
    /// shown is still durable), and sets the log's own again.
    pub fn set_durability(&mut self, durability: Durability) -> &mut Self {
        self.durability = durability;
        self
    }

    /// The durability this session appends with (see [`Session::set_durability`]).
    pub fn durability(&self) -> Durability {
        self.durability
    }

    /// Sets whether the inputs handed in next come from their inquiry's asker,
    /// which gives the model each result as soon as it has it (`askuser serve`
    /// on the inquiries it asked), and returns the session. While set, an input
    /// that finishes its inquiry with a result owed to its asker also records
    /// it handed over ([`Event::Delivered`](askuser_core::Event::Delivered)) in
    /// the same append ([`State::decide_handing_over`](askuser_core::State::decide_handing_over)): one write where the
    /// input and then [`Input::Deliver`] would be two. Off at open.
    pub fn set_hands_over(&mut self, hands_over: bool) -> &mut Self {
        self.hands_over = hands_over;
        self
    }

    /// Decides a host's or a person's action ([`Input`]: what it means is the
    /// engine's to say), records the events it stands for in one append, applies
    /// them and returns the commands (see the type's docs for the order and what
    /// each step guarantees).
    ///
    /// An action on something the inquiry no longer shows (another surface moved
    /// it first) is refused with [`Refusal::Stale`], which carries what is current,
    /// after this session caught up with the log; when it caught up on something,
    /// the error is [`SessionError::MovedElsewhere`] with what it caught up on, so
    /// the surface that lost the race can say what the other one did:
    ///
    /// ```
    /// use std::sync::Arc;
    /// use askuser_core::{AnswerInput, Command, Input, InquiryId, Refusal, Request, parse_form};
    /// use askuser_store::{MemLog, Session, SessionError};
    /// use serde_json::json;
    ///
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let log = Arc::new(MemLog::new());
    /// let mut terminal = Session::open(log.clone(), "chat-42")?;
    /// let form = parse_form(&json!({"questions": [
    ///     {"id": "ok", "text": "Deploy now?", "answer_type": "boolean"}]}))?;
    /// let asked = terminal.handle(&Input::Ask(Request {
    ///     inquiry: InquiryId::new("call-1"), form: form.form().clone(),
    ///     policy: Default::default(), origin: Default::default(), call: None,
    /// }))?;
    /// let Command::Prompt(prompt) = &asked.commands[0] else { unreachable!() };
    ///
    /// // The browser, another session on the same log, answers first.
    /// let mut browser = Session::open(log.clone(), "chat-42")?;
    /// browser.handle(&AnswerInput::new(prompt.at(), json!(false)).into())?;
    ///
    /// // The terminal's answer is not recorded; it learns what the browser did.
    /// let late = terminal.handle(&AnswerInput::new(prompt.at(), json!(true)).into());
    /// let Err(SessionError::MovedElsewhere { refusal, caught }) = late else { panic!() };
    /// assert!(matches!(refusal, Refusal::InquiryFinished { .. }));
    /// let Command::Respond { outcome, .. } = &caught[0].commands[0] else { panic!() };
    /// assert_eq!(outcome.to_json(), json!({"ok": false}));
    /// assert_eq!(terminal.head(), 2);
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Errors
    ///
    /// [`SessionError::Refused`] when the engine refuses the input;
    /// [`SessionError::MovedElsewhere`] when it refuses it after catching up on
    /// what another writer recorded first; [`SessionError::Store`] when the log
    /// fails (nothing was applied).
    pub fn handle(&mut self, input: &Input) -> Result<Handled, SessionError> {
        if self.hands_over {
            self.run(|state| state.decide_handing_over(input))
        } else {
            self.run(|state| state.decide(input))
        }
    }

    /// The batch lane: decides `inputs` in order (each on the state the ones before
    /// it leave), records every event they stand for in **one** append, applies
    /// them, and returns the commands of all of them, in order. All or nothing: if
    /// the engine refuses any input, nothing is recorded and the error says why
    /// (after this session caught up with the log, as [`Session::handle`]
    /// does); if another process appends first, the whole batch is decided again
    /// on what it recorded. A host answering a whole form at once (a pending
    /// file's answers) uses it, so that a crash or a rival writer never leaves
    /// half of it. An empty batch records nothing.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use askuser_core::{AnswerInput, At, Command, Input, InquiryId, Request, parse_form};
    /// use askuser_store::{Log, MemLog, Session};
    /// use serde_json::json;
    ///
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let log = Arc::new(MemLog::new());
    /// let mut session = Session::open(log.clone(), "chat-42")?;
    /// let form = parse_form(&json!({"questions": [
    ///     {"id": "ok", "text": "Deploy now?", "answer_type": "boolean"},
    ///     {"id": "why", "text": "Why?", "answer_type": "text"}]}))?;
    /// let id = InquiryId::new("call-1");
    /// session.handle(&Input::Ask(Request {
    ///     inquiry: id.clone(), form: form.form().clone(),
    ///     policy: Default::default(), origin: Default::default(), call: None,
    /// }))?;
    /// let handled = session.handle_batch(&[
    ///     AnswerInput::new(At::question(id.clone(), "ok", 0), json!(true)).into(),
    ///     AnswerInput::new(At::question(id.clone(), "why", 1), json!("tests pass")).into(),
    /// ])?;
    /// assert_eq!(handled.seq, 3); // two answers, one append
    /// let Some(Command::Respond { outcome, .. }) = handled.commands.last() else { panic!() };
    /// assert_eq!(outcome.to_json(), json!({"ok": true, "why": "tests pass"}));
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Errors
    ///
    /// As [`Session::handle`]; nothing of the batch is recorded then.
    pub fn handle_batch(&mut self, inputs: &[Input]) -> Result<Handled, SessionError> {
        self.run(|state| Batch::decide(state, inputs))
    }

    /// Decides with `decide`, appends what it decided at the expected head, and
    /// applies it; on a lost race, catches up and decides again. Nothing to record
    /// (an empty batch) is applied without an append.
    fn run<D: Decided>(
        &mut self,
        decide: impl Fn(&State) -> Result<D, Refusal>,
    ) -> Result<Handled, SessionError> {
        let durability = self.durability;
        // What this call caught up on, returned with a refusal it led to.
        let mut caught = Vec::new();
        for _ in 0..RETRIES {
            let decided = match decide(&self.state) {
                Ok(decided) => decided,
                // Refused on what this session knows: another process may have
                // changed the stream (asked this inquiry, finished it). Decide on the
                // latest before saying no.
                Err(refusal) => {
                    let more = self.catch_up()?;
                    if more.is_empty() {
                        if caught.is_empty() {
                            return Err(refusal.into());
                        }
                        return Err(SessionError::MovedElsewhere {
                            refusal,
                            caught: caught.into_boxed_slice(),
                        });
                    }
                    caught.extend(more);
                    continue;
                }
            };
            let appended = match decided.events() {
                [] => Ok(self.head),
                events => (self.log).append_with(&self.stream, self.head, events, durability),
            };
            match appended {
                Ok(seq) => {
                    let at = self.recorded_at(seq, decided.events());
                    let mut commands = Vec::with_capacity(1);
                    decided.apply(&mut self.state, at, &mut commands);
                    self.head = seq;
                    return Ok(Handled {
                        seq,
                        commands,
                        caught,
                    });
                }
                Err(StoreError::Conflict { .. }) => {
                    caught.extend(self.catch_up()?);
                }
                Err(other) => return Err(other.into()),
            }
        }
        Err(StoreError::Conflict {
            stream: self.stream.to_string(),
            expected: self.head,
            actual: self.log.info(&self.stream)?.head,
        }
        .into())
    }
    /// When the log recorded the append that ended at `seq`, if applying
    /// `events` keeps it ([`State::keeps_time_of`]: they belong to an inquiry with
    /// a timeout, which counts its deadline from it). The log stamps an append
    /// with its own clock and does not return the time, so it is read back, for
    /// these appends only; if that read fails, the log's clock now stands in (a
    /// replay will count from the recorded time).
    fn recorded_at(&self, seq: Seq, events: &[Event]) -> Option<u64> {
        if !events.iter().any(|event| self.state.keeps_time_of(event)) {
            return None;
        }
        let recorded = (self.log.read_range(&self.stream, seq, seq).ok())
            .and_then(|mut records| records.next())
            .and_then(Result::ok)
            .map(|recorded| recorded.at);
        Some(recorded.unwrap_or_else(|| self.log.clock().now()).millis())
    }

    /// Applies the events other processes appended to the stream since this
    /// session's head, returning them with the commands they yielded (an answer
    /// recorded elsewhere shows up here as its `Respond`).
    ///
    /// # Errors
    ///
    /// A storage error, or [`StoreError::Corrupt`] for a damaged record.
    pub fn catch_up(&mut self) -> Result<Vec<Caught>, StoreError> {
        let Some(info) = self.log.stream(&self.stream)? else {
            return Ok(Vec::new());
        };
        if info.head <= self.head {
            return Ok(Vec::new());
        }
        let mut caught = Vec::new();
        for recorded in self
            .log
            .read_range(&self.stream, self.head + 1, info.head)?
        {
            let recorded = recorded?;
            let mut commands = Vec::new();
            apply_recorded(&mut self.state, &recorded, &mut commands);
            self.head = recorded.seq;
            caught.push(Caught {
                seq: recorded.seq,
                event: recorded.event,
                commands,
            });
        }
        Ok(caught)
    }

    /// Waits until another process appends to the stream past this session's
    /// head, or `timeout` passes, then catches up ([`Session::catch_up`]): a host
    /// waiting on an inquiry gets the answer recorded elsewhere. Empty when the
    /// time ran out.
    ///
    /// # Errors
    ///
    /// As [`Log::wait_past`] and [`Session::catch_up`].
    pub fn wait(&mut self, timeout: Duration) -> Result<Vec<Caught>, StoreError> {
        let head = self.log.wait_past(&self.stream, self.head, timeout)?;
        if head > self.head {
            self.catch_up()
        } else {
            Ok(Vec::new())
        }
    }

    /// The engine's state at [`Session::head`].
    pub fn state(&self) -> &State {
        &self.state
    }

    /// The last event this session has applied (0 for a new stream).
    pub fn head(&self) -> Seq {
        self.head
    }

    /// The stream's name.
    pub fn stream(&self) -> &StreamName {
        &self.stream
    }

    /// The log.
    pub fn log(&self) -> &Arc<dyn Log> {
        &self.log
    }
}

/// What deciding gave [`Session::run`]: the events to record, and how to apply
/// them once they are recorded.
trait Decided {
    /// The events to append.
    fn events(&self) -> &[Event];
    /// Applies what was recorded (at `at`, when the state keeps that time: see
    /// [`Session::recorded_at`]), pushing the commands it yields.
    fn apply(self, state: &mut State, at: Option<u64>, out: &mut Vec<Command>);
}

impl Decided for Decision<'_> {
    fn events(&self) -> &[Event] {
        Decision::events(self)
    }

    fn apply(self, state: &mut State, at: Option<u64>, out: &mut Vec<Command>) {
        match at {
            Some(at) => state.apply_decision_at(self, at, out),
            None => state.apply_decision(self, out),
        }
    }
}

/// Inputs decided in order on a copy of the state ([`Session::handle_batch`]):
/// the state they leave, the events to record and the commands they yield.
struct Batch {
    state: State,
    events: Vec<Event>,
    commands: Vec<Command>,
}

impl Batch {
    fn decide(state: &State, inputs: &[Input]) -> Result<Self, Refusal> {
        let mut batch = Batch {
            state: state.clone(),
            events: Vec::with_capacity(inputs.len()),
            commands: Vec::new(),
        };
        for input in inputs {
            let decision = batch.state.decide(input)?;
            batch.events.extend(decision.events().iter().cloned());
            batch.state.apply_decision(decision, &mut batch.commands);
        }
        Ok(batch)
    }
}

impl Decided for Batch {
    fn events(&self) -> &[Event] {
        &self.events
    }

    fn apply(self, state: &mut State, at: Option<u64>, out: &mut Vec<Command>) {
        if let Some(at) = at {
            // The copy learned no time: the recorded events are applied again at
            // the time of their append, as a replay will apply them.
            for event in &self.events {
                state.apply_at(event, at, out);
            }
        } else {
            *state = self.state;
            out.extend(self.commands);
        }
    }
}
