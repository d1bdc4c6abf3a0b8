//! The MCP session's stream: every input goes through the store's session driver,
//! with the log opened for the step and let go after, so no process holds it while
//! a person thinks (`askuser answer` can record into it meanwhile).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use askuser_core::{Command, Event, InquiryId, Refusal, ToolCall};
use askuser_store::{Log, Session, SessionError, StoreError};

/// Opens the log for one step (a sled database is opened and closed again; an
/// in-memory log hands out the same one).
pub type OpenLog = Arc<dyn Fn() -> Result<Arc<dyn Log>, StoreError> + Send + Sync>;

/// What became of an input.
pub(crate) enum Recorded {
    /// Recorded; the commands it yielded.
    Commands(Vec<Command>),
    /// The engine refused it; nothing was recorded.
    Refused(Refusal),
}

/// How a recorder's stream is named: given, or numbered when it first records.
type Naming = Arc<dyn Fn() -> String + Send + Sync>;

/// One stream of the log, shared by the session's tool calls.
#[derive(Clone)]
pub(crate) struct Recorder {
    open: OpenLog,
    /// The stream's name, once known.
    stream: Arc<OnceLock<Arc<str>>>,
    naming: Naming,
    /// One step at a time in this process (other processes are the log's concern).
    lock: Arc<Mutex<()>>,
}

impl Recorder {
    /// A recorder into the stream `stream`.
    pub(crate) fn new(open: OpenLog, stream: &str) -> Self {
        let name: Arc<str> = stream.into();
        let named = Arc::new(OnceLock::new());
        let _ = named.set(Arc::clone(&name));
        Self {
            open,
            stream: named,
            naming: Arc::new(move || name.to_string()),
            lock: Arc::new(Mutex::new(())),
        }
    }

    /// A recorder into `<base>-<n>`, `n` taken from `counter` only when it first
    /// needs its stream: sessions that record nothing (a `tools/list`, a
    /// `server/discover`) leave no gap in the numbering.
    pub(crate) fn numbered(open: OpenLog, base: &str, counter: Arc<AtomicUsize>) -> Self {
        let base = base.to_owned();
        Self {
            open,
            stream: Arc::new(OnceLock::new()),
            naming: Arc::new(move || {
                format!("{base}-{}", counter.fetch_add(1, Ordering::SeqCst) + 1)
            }),
            lock: Arc::new(Mutex::new(())),
        }
    }

    /// The stream recorded into (named now if it was not yet).
    pub(crate) fn stream(&self) -> &str {
        self.stream.get_or_init(|| (self.naming)().into())
    }

    /// The stream's name if it has one already.
    pub(crate) fn named(&self) -> Option<&str> {
        self.stream.get().map(|name| &**name)
    }

    fn session(&self) -> Result<Session, StoreError> {
        Session::open((self.open)()?, self.stream().to_owned())
    }

    /// Decides, records and applies `event`.
    pub(crate) fn handle(&self, event: &Event) -> Result<Recorded, StoreError> {
        let _guard = self.lock.lock().unwrap_or_else(PoisonError::into_inner);
        match self.session()?.handle(event) {
            Ok(handled) => Ok(Recorded::Commands(handled.commands)),
            Err(SessionError::Refused(refusal) | SessionError::MovedElsewhere { refusal, .. }) => {
                Ok(Recorded::Refused(refusal))
            }
            Err(SessionError::Store(error)) => Err(error),
        }
    }

    /// Records a new request under a fresh inquiry id (`call-<seq>`, the sequence
    /// number it is recorded as): `make` builds the event for the id.
    pub(crate) fn request(
        &self,
        make: impl Fn(InquiryId) -> Event,
    ) -> Result<(InquiryId, Recorded), StoreError> {
        let _guard = self.lock.lock().unwrap_or_else(PoisonError::into_inner);
        let mut session = self.session()?;
        let inquiry = InquiryId::new(format!("call-{}", session.head() + 1));
        let recorded = match session.handle(&make(inquiry.clone())) {
            Ok(handled) => Recorded::Commands(handled.commands),
            Err(SessionError::Refused(refusal) | SessionError::MovedElsewhere { refusal, .. }) => {
                Recorded::Refused(refusal)
            }
            Err(SessionError::Store(error)) => return Err(error),
        };
        Ok((inquiry, recorded))
    }

    /// What the log says of an open inquiry: the command it waits on and the tool
    /// call it records; `None` when it is not open.
    pub(crate) fn open_inquiry(
        &self,
        inquiry: &InquiryId,
    ) -> Result<Option<(Command, Option<ToolCall>)>, StoreError> {
        let _guard = self.lock.lock().unwrap_or_else(PoisonError::into_inner);
        let session = self.session()?;
        let state = session.state();
        Ok(state
            .pending(inquiry)
            .map(|command| (command, state.call(inquiry).map(|c| (**c).clone()))))
    }
}
