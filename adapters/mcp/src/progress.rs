//! Progress notifications while a person answers. A client that sent a progress
//! token with its `tools/call` gets `notifications/progress` at each round and
//! a heartbeat while a form is open, so a client that resets its request
//! timeout on progress (the TypeScript SDK's `resetTimeoutOnProgress`) keeps
//! waiting for the person however many rounds they take. Each notification's
//! `progress` is one more than the last (the spec asks it to increase); its
//! message is the round's ("Question 2 of 5").

use std::time::Duration;

use rmcp::Peer;
use rmcp::model::{ProgressNotificationParam, ProgressToken};
use rmcp::service::{RequestContext, RoleServer};

/// How often a heartbeat goes out while a form is open: well inside the 60 s
/// default request timeout of the TypeScript and Python SDKs.
pub(crate) const HEARTBEAT: Duration = Duration::from_secs(10);

/// The progress of one tool call.
pub(crate) struct Progress<'a> {
    peer: &'a Peer<RoleServer>,
    token: Option<ProgressToken>,
    sent: u32,
}

impl<'a> Progress<'a> {
    /// For the call of `request`: silent unless the client sent a token.
    pub(crate) fn new(request: &'a RequestContext<RoleServer>) -> Self {
        Self {
            peer: &request.peer,
            token: request.meta.get_progress_token(),
            sent: 0,
        }
    }

    /// Sends the next notification with `message` (a lost one is not an error:
    /// the form goes on).
    pub(crate) async fn tell(&mut self, message: &str) {
        let Some(token) = &self.token else {
            return;
        };
        self.sent += 1;
        let param = ProgressNotificationParam::new(token.clone(), f64::from(self.sent))
            .with_message(message);
        let _ = self.peer.notify_progress(param).await;
    }
}
