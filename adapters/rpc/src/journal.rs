//! [`Journal`]: the engine with its record. Every event is checked against the
//! state, its output lines rendered and stored, and only then appended to the log;
//! the caller writes the lines after that, so whatever a host or a person has seen
//! is durable.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::path::Path;
use std::sync::Arc;

use askuser_core::{Command, EngineError, Event, State};
use askuser_llm::{Call, Dialect};
use askuser_store::{Log, MemLog, Seq, SledLog, StoreError};
use serde_json::Value;

use crate::error::{Result, RpcError};
use crate::output::command_line;
use crate::sidecar::{CallRecord, MemSidecar, Sidecar, SledSidecar};

/// What became of an event given to [`Journal::apply`].
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// The event was appended as `seq`; these are the commands it yielded and their
    /// protocol lines (one per command, in order).
    Recorded {
        /// The event's sequence number in its stream.
        seq: Seq,
        /// The engine's commands.
        commands: Vec<Command>,
        /// The protocol lines of the commands.
        outputs: Vec<Value>,
    },
    /// The engine refused the event (it does not fit the state); nothing was
    /// recorded.
    Refused(EngineError),
}

#[derive(Debug)]
struct Tracked {
    state: State,
    head: Seq,
}

/// The engine's state per stream, kept in step with an event log and a
/// [`Sidecar`].
///
/// ```
/// use askuser_llm::Dialect;
/// use askuser_rpc::{Journal, Step};
/// use askuser_core::{Event, InquiryId};
/// use serde_json::json;
///
/// let mut journal = Journal::memory();
/// let arguments = json!({"question": "Deploy now?", "answer_type": "boolean"});
/// let call = Dialect::Jp.parse(&arguments).unwrap();
/// let step = journal.request("s", &call, &arguments, call.request(InquiryId::new("c1"))).unwrap();
/// let Step::Recorded { seq, outputs, .. } = step else { panic!() };
/// assert_eq!((seq, outputs[0]["type"].as_str()), (1, Some("prompt")));
/// ```
pub struct Journal {
    log: Arc<dyn Log>,
    side: Arc<dyn Sidecar>,
    streams: HashMap<String, Tracked>,
    calls: CallCache,
}

impl std::fmt::Debug for Journal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Journal")
            .field("streams", &self.streams.keys().collect::<Vec<_>>())
            .field("side", &self.side)
            .finish_non_exhaustive()
    }
}

impl Journal {
    /// A journal over `log` and `side`.
    pub fn new(log: Arc<dyn Log>, side: Arc<dyn Sidecar>) -> Self {
        Self {
            log,
            side,
            streams: HashMap::new(),
            calls: CallCache::default(),
        }
    }

    /// A journal in memory (for tests and embedding).
    pub fn memory() -> Self {
        Self::new(Arc::new(MemLog::new()), Arc::new(MemSidecar::new()))
    }

    /// The durable journal in the sled database directory `path` (created if
    /// needed); appends are flushed before they return.
    ///
    /// # Errors
    /// [`RpcError::Locked`] when another process holds the database, or the store's
    /// error when it cannot be opened.
    pub fn open(path: &Path) -> Result<Self> {
        let log = match SledLog::open(path) {
            Ok(log) => log,
            Err(StoreError::Locked) => {
                return Err(RpcError::Locked {
                    path: path.to_owned(),
                });
            }
            Err(other) => return Err(other.into()),
        };
        let side = SledSidecar::open(log.db())?;
        Ok(Self::new(Arc::new(log), Arc::new(side)))
    }

    /// The event log.
    pub fn log(&self) -> &Arc<dyn Log> {
        &self.log
    }

    /// The sidecar.
    pub fn sidecar(&self) -> &Arc<dyn Sidecar> {
        &self.side
    }

    fn tracked(&mut self, stream: &str) -> Result<&mut Tracked> {
        match self.streams.entry(stream.to_owned()) {
            Entry::Occupied(entry) => Ok(entry.into_mut()),
            Entry::Vacant(entry) => {
                let tracked = match self.log.stream(stream)? {
                    Some(_) => {
                        let replayed = self.log.load(stream)?;
                        Tracked {
                            state: replayed.state,
                            head: replayed.seq,
                        }
                    }
                    None => Tracked {
                        state: State::new(),
                        head: 0,
                    },
                };
                Ok(entry.insert(tracked))
            }
        }
    }

    /// The engine state of `stream` (loaded from the log the first time).
    ///
    /// # Errors
    /// When the log cannot be read.
    pub fn state(&mut self, stream: &str) -> Result<&State> {
        Ok(&self.tracked(stream)?.state)
    }

    /// The head of `stream` as this journal last saw it.
    ///
    /// # Errors
    /// When the log cannot be read.
    pub fn head(&mut self, stream: &str) -> Result<Seq> {
        Ok(self.tracked(stream)?.head)
    }

    /// The tool call that asked `inquiry` in `stream` (or, for a fork, in the
    /// stream it branched from), if it was recorded.
    ///
    /// # Errors
    /// When the records cannot be read.
    pub fn call(&mut self, stream: &str, inquiry: &str) -> Result<Option<Arc<Call>>> {
        self.calls.get(&*self.log, &*self.side, stream, inquiry)
    }

    /// Records `call` (its `arguments` as the model wrote them) and applies its
    /// `Requested` event. A request that reuses an inquiry id known to the stream
    /// is refused without touching the record of the first.
    ///
    /// # Errors
    /// When the log or the records cannot be written.
    pub fn request(
        &mut self,
        stream: &str,
        call: &Call,
        arguments: &Value,
        request: askuser_core::Request,
    ) -> Result<Step> {
        let inquiry = request.inquiry.clone();
        let state = &self.tracked(stream)?.state;
        if state.finished(inquiry.as_str()).is_some() || state.form(inquiry.as_str()).is_some() {
            return Ok(Step::Refused(EngineError::DuplicateInquiry {
                inquiry: inquiry.to_string(),
            }));
        }
        let record = CallRecord {
            dialect: call.dialect().name().to_owned(),
            arguments: arguments.clone(),
        };
        self.side.put_call(stream, inquiry.as_str(), &record)?;
        self.calls.insert(stream, inquiry.as_str(), call.clone());
        self.apply(stream, &Event::Requested(request))
    }

    /// Applies `event` to `stream`: checks it against the state, renders the lines
    /// of its commands, stores them, appends the event (flushed, for a durable log),
    /// and only then updates the state. An event the engine refuses is not recorded.
    ///
    /// # Errors
    /// When the log or the records cannot be written; the state is then unchanged.
    pub fn apply(&mut self, stream: &str, event: &Event) -> Result<Step> {
        let tracked = self.tracked(stream)?;
        let mut next = tracked.state.clone();
        let head = tracked.head;
        let mut commands = Vec::new();
        next.apply(event, &mut commands);
        if let [Command::Error { error }] = commands.as_slice() {
            return Ok(Step::Refused(error.clone()));
        }
        let mut outputs = Vec::with_capacity(commands.len());
        for command in &commands {
            let call = match command_inquiry(command) {
                Some(inquiry) => self.call(stream, inquiry)?,
                None => None,
            };
            outputs.push(command_line(command, call.as_deref()));
        }
        let seq = head + 1;
        self.side.put_outputs(stream, seq, &outputs)?;
        if let Err(error) = self.log.append(stream, head, std::slice::from_ref(event)) {
            // Best effort: the outputs of an event that was not appended must not stay.
            let _ = self.side.remove_outputs(stream, seq);
            return Err(error.into());
        }
        let tracked = self.tracked(stream)?;
        tracked.state = next;
        tracked.head = seq;
        Ok(Step::Recorded {
            seq,
            commands,
            outputs,
        })
    }

    /// Forgets what this journal holds in memory about `stream`; the next use reads
    /// it from the log again.
    pub fn forget(&mut self, stream: &str) {
        self.streams.remove(stream);
    }
}

/// The inquiry a command is about.
pub(crate) fn command_inquiry(command: &Command) -> Option<&str> {
    match command {
        Command::Prompt(prompt) => Some(prompt.inquiry.as_str()),
        Command::AskAssistant { inquiry, .. }
        | Command::Respond { inquiry, .. }
        | Command::Fail { inquiry, .. }
        | Command::EndTurn { inquiry }
        | Command::Reject { inquiry, .. }
        | Command::InvalidAnswer { inquiry, .. } => Some(inquiry.as_str()),
        Command::Error { .. } => None,
    }
}

/// Parsed calls by stream and inquiry, read from the sidecar once.
#[derive(Debug, Default)]
pub(crate) struct CallCache {
    calls: HashMap<(String, String), Option<Arc<Call>>>,
}

impl CallCache {
    fn insert(&mut self, stream: &str, inquiry: &str, call: Call) {
        self.calls.insert(
            (stream.to_owned(), inquiry.to_owned()),
            Some(Arc::new(call)),
        );
    }

    /// The call of `inquiry` in `stream`, or in the streams it was forked from.
    pub(crate) fn get(
        &mut self,
        log: &dyn Log,
        side: &dyn Sidecar,
        stream: &str,
        inquiry: &str,
    ) -> Result<Option<Arc<Call>>> {
        let key = (stream.to_owned(), inquiry.to_owned());
        if let Some(found) = self.calls.get(&key) {
            return Ok(found.clone());
        }
        let mut name = stream.to_owned();
        let mut found = None;
        for _ in 0..1000 {
            if let Some(record) = side.call(&name, inquiry)? {
                found = Dialect::from_name(&record.dialect)
                    .and_then(|dialect| dialect.parse(&record.arguments).ok())
                    .map(Arc::new);
                break;
            }
            match log.stream(&name)?.and_then(|info| info.parent) {
                Some(parent) => name = parent.stream,
                None => break,
            }
        }
        self.calls.insert(key, found.clone());
        Ok(found)
    }
}
