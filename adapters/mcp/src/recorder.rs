//! The MCP session's stream: every input goes through the store's session driver,
//! with the log opened for the step and let go after, so no process holds it while
//! a person thinks (`askuser answer` can record into it meanwhile).

use std::sync::{Arc, Mutex, PoisonError};

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

/// One stream of the log, shared by the session's tool calls.
#[derive(Clone)]
pub(crate) struct Recorder {
    open: OpenLog,
    stream: Arc<str>,
    /// One step at a time in this process (other processes are the log's concern).
    lock: Arc<Mutex<()>>,
}

impl Recorder {
    pub(crate) fn new(open: OpenLog, stream: &str) -> Self {
        Self {
            open,
            stream: stream.into(),
            lock: Arc::new(Mutex::new(())),
        }
    }

    /// The stream recorded into.
    pub(crate) fn stream(&self) -> &str {
        &self.stream
    }

    fn session(&self) -> Result<Session, StoreError> {
        Session::open((self.open)()?, self.stream.to_string())
    }

    /// Decides, records and applies `event`.
    pub(crate) fn handle(&self, event: &Event) -> Result<Recorded, StoreError> {
        let _guard = self.lock.lock().unwrap_or_else(PoisonError::into_inner);
        match self.session()?.handle(event) {
            Ok(handled) => Ok(Recorded::Commands(handled.commands)),
            Err(SessionError::Refused(refusal)) => Ok(Recorded::Refused(refusal)),
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
            Err(SessionError::Refused(refusal)) => Recorded::Refused(refusal),
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
