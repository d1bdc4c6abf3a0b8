//! The MCP sessions of streamable HTTP, kept few and short-lived: rmcp's
//! [`LocalSessionManager`] keeps every session (about 67 KiB each) until it has
//! been idle for five minutes, however many are opened, and its idle clock also
//! runs while a call waits on the person. [`Sessions`] wraps it: at most
//! [`Limits::most`] live at once (a new one closes the session idle the longest
//! first), and a session with no request under way for [`Limits::idle`] is
//! closed; one whose request is under way (a tool call waiting on the person)
//! is neither, however long the person takes. The stateless calls waiting for
//! their retry ([`Unanswered`]) count against the same cap.

use std::collections::HashMap;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use futures_core::Stream;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_server::session::local::{
    LocalSessionManager, LocalSessionManagerError,
};
use rmcp::transport::streamable_http_server::session::{
    ServerSseMessage, SessionId, SessionManager,
};

use crate::unanswered::Unanswered;

/// How many MCP sessions and stateless calls may be open at once, and how long
/// each may sit without its client.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HttpLimits {
    /// The most sessions and stateless calls waiting for their retry, together.
    pub most: usize,
    /// How long a session with no request under way lives on.
    pub idle: Duration,
    /// How long a stateless call (protocol 2026-07-28) waits for its agent to
    /// call again with the person's answer before it is ended, its question
    /// closed as one the agent never came back for.
    pub unanswered: Duration,
}

impl HttpLimits {
    /// 64 sessions and calls (about 4 MiB); a session closed after 2 minutes
    /// with no request, a call ended after 30 minutes without its agent.
    pub const DEFAULT: Self = Self {
        most: 64,
        idle: Duration::from_secs(120),
        unanswered: Duration::from_secs(30 * 60),
    };

    /// How often idle sessions and unanswered calls are looked for: a quarter
    /// of the shorter of [`Self::idle`] and [`Self::unanswered`].
    pub(crate) fn sweep(self) -> Duration {
        (self.idle.min(self.unanswered) / 4).max(Duration::from_millis(10))
    }
}

impl Default for HttpLimits {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// The limits, as this module calls them.
pub(crate) type Limits = HttpLimits;

/// Why a session could not be made or used.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SessionsError {
    /// Every session has a request under way (or the cap is taken by stateless
    /// calls waiting for their retry), so none is closed for a new one.
    #[error(
        "{most} MCP sessions and calls are open, each with a request under way or waiting for its agent; wait for one to end, or close a client, and connect again"
    )]
    Full {
        /// The cap.
        most: usize,
    },
    /// rmcp's session manager failed.
    #[error(transparent)]
    Local(#[from] LocalSessionManagerError),
}

/// When a session was last used, and how many of its requests are under way.
#[derive(Debug, Clone, Copy)]
struct Activity {
    last: Instant,
    busy: usize,
}

/// The live sessions, and how many are being made.
#[derive(Debug, Default)]
struct Table {
    sessions: HashMap<SessionId, Activity>,
    /// Sessions being made: counted against the cap before they exist.
    starting: usize,
}

type Shared = Arc<Mutex<Table>>;

fn lock(table: &Mutex<Table>) -> MutexGuard<'_, Table> {
    table.lock().unwrap_or_else(PoisonError::into_inner)
}

/// rmcp's local session manager, capped and with an idle expiry of its own.
pub(crate) struct Sessions {
    local: LocalSessionManager,
    limits: Limits,
    table: Shared,
    /// The stateless calls that share the cap.
    calls: Arc<Unanswered>,
}

impl Sessions {
    /// No session yet; `limits` for those to come.
    pub(crate) fn new(limits: Limits, calls: Arc<Unanswered>) -> Self {
        let mut local = LocalSessionManager::default();
        // Idleness is judged here, where a request under way is known.
        local.session_config.keep_alive = None;
        Self {
            local,
            limits,
            table: Shared::default(),
            calls,
        }
    }

    /// Tells the stateless calls how many sessions share their cap.
    fn count(&self, table: &Table) {
        self.calls
            .set_sessions(table.sessions.len() + table.starting);
    }

    /// Closes every session that has had no request under way for
    /// [`Limits::idle`].
    pub(crate) async fn expire(&self) {
        let now = Instant::now();
        let idle: Vec<SessionId> = {
            let mut table = lock(&self.table);
            let idle: Vec<SessionId> = (table.sessions.iter())
                .filter(|(_, a)| a.busy == 0 && now.duration_since(a.last) >= self.limits.idle)
                .map(|(id, _)| id.clone())
                .collect();
            for id in &idle {
                table.sessions.remove(id);
            }
            self.count(&table);
            idle
        };
        for id in idle {
            let _closed = self.local.close_session(&id).await;
        }
    }

    /// Counts a new session against the cap: the session idle the longest to
    /// close when the cap is reached, or [`SessionsError::Full`] when every
    /// session has a request under way.
    fn make_room(&self) -> Result<Option<SessionId>, SessionsError> {
        let mut table = lock(&self.table);
        let open = table.sessions.len() + table.starting + self.calls.len();
        let oldest = if open < self.limits.most {
            None
        } else {
            let oldest = (table.sessions.iter())
                .filter(|(_, a)| a.busy == 0)
                .min_by_key(|(_, a)| a.last)
                .map(|(id, _)| id.clone())
                .ok_or(SessionsError::Full {
                    most: self.limits.most,
                })?;
            table.sessions.remove(&oldest);
            Some(oldest)
        };
        table.starting += 1;
        self.count(&table);
        Ok(oldest)
    }

    /// Notes that `id` was used now.
    fn touch(&self, id: &SessionId) {
        if let Some(activity) = lock(&self.table).sessions.get_mut(id) {
            activity.last = Instant::now();
        }
    }

    /// Notes a request of `id` under way until the guard is dropped.
    fn busy(&self, id: &SessionId) -> Busy {
        if let Some(activity) = lock(&self.table).sessions.get_mut(id) {
            activity.busy += 1;
            activity.last = Instant::now();
        }
        Busy {
            id: id.clone(),
            table: Arc::clone(&self.table),
        }
    }
}

/// A session being made, counted against the cap until dropped.
struct Starting(Shared, Arc<Unanswered>);

impl Drop for Starting {
    fn drop(&mut self) {
        let mut table = lock(&self.0);
        table.starting = table.starting.saturating_sub(1);
        self.1.set_sessions(table.sessions.len() + table.starting);
    }
}

/// A request under way; its session is used until it ends.
struct Busy {
    id: SessionId,
    table: Shared,
}

impl Drop for Busy {
    fn drop(&mut self) {
        if let Some(activity) = lock(&self.table).sessions.get_mut(&self.id) {
            activity.busy = activity.busy.saturating_sub(1);
            activity.last = Instant::now();
        }
    }
}

/// A response stream that keeps its session busy while it is open.
struct Guarded {
    inner: Pin<Box<dyn Stream<Item = ServerSseMessage> + Send + Sync>>,
    _busy: Busy,
}

impl Stream for Guarded {
    type Item = ServerSseMessage;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.inner.as_mut().poll_next(cx)
    }
}

impl SessionManager for Sessions {
    type Error = SessionsError;
    type Transport = <LocalSessionManager as SessionManager>::Transport;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        let oldest = self.make_room()?;
        // Counted as starting until it is in the table (or failed, or this
        // request went away).
        let _starting = Starting(Arc::clone(&self.table), Arc::clone(&self.calls));
        if let Some(oldest) = oldest {
            let _closed = self.local.close_session(&oldest).await;
        }
        let (id, transport) = self.local.create_session().await?;
        let activity = Activity {
            last: Instant::now(),
            busy: 0,
        };
        let mut table = lock(&self.table);
        table.sessions.insert(id.clone(), activity);
        self.count(&table);
        Ok((id, transport))
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, Self::Error> {
        let _busy = self.busy(id);
        Ok(self.local.initialize_session(id, message).await?)
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Self::Error> {
        Ok(self.local.has_session(id).await?)
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        {
            let mut table = lock(&self.table);
            table.sessions.remove(id);
            self.count(&table);
        }
        Ok(self.local.close_session(id).await?)
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        let busy = self.busy(id);
        let inner = self.local.create_stream(id, message).await?;
        Ok(Guarded {
            inner: Box::pin(inner),
            _busy: busy,
        })
    }

    async fn accept_message(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<(), Self::Error> {
        self.touch(id);
        Ok(self.local.accept_message(id, message).await?)
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        // A client listening for what the server sends unasked is not a
        // request under way: the session may still be closed when idle.
        self.touch(id);
        Ok(self.local.create_standalone_stream(id).await?)
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        let busy = self.busy(id);
        let inner = self.local.resume(id, last_event_id).await?;
        Ok(Guarded {
            inner: Box::pin(inner),
            _busy: busy,
        })
    }
}
