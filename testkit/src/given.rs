//! Given/when/then over the engine: events already recorded, one input, and what
//! came of it. [`Given::when`] runs the input through a [`Session`] on a fresh
//! `MemLog` holding the given events (so deciding, recording and applying are the
//! ones every host uses); [`Given::state`] is the core's [`State`] after the given
//! events alone.
//!
//! ```
//! use askuser_core::{AnswerInput, At, CancelReason, InquiryId, Refusal};
//! use askuser_testkit::build::{cancelled, db_form, requested};
//! use askuser_testkit::Given;
//! use serde_json::json;
//!
//! // A question of a cancelled inquiry is refused, and nothing is recorded.
//! let shown = At::question(InquiryId::new("i1"), "db", 0);
//! Given::events([requested("i1", db_form()), cancelled("i1", CancelReason::UserReply)])
//!     .when(AnswerInput::new(shown, json!("SQLite")))
//!     .then_refused(|refusal| matches!(refusal, Refusal::InquiryFinished { .. }));
//! ```

use std::sync::Arc;

use askuser_core::{Command, Event, Input, Refusal, State};
use askuser_store::{Handled, Log, Session, SessionError};

/// The stream every given/when/then runs on.
const STREAM: &str = "given";

/// Events already recorded, in order (each must be one the engine accepts).
#[derive(Debug, Clone, Default)]
pub struct Given {
    events: Vec<Event>,
}

impl Given {
    /// The events recorded before the input.
    pub fn events(events: impl IntoIterator<Item = Event>) -> Self {
        Self {
            events: events.into_iter().collect(),
        }
    }

    /// The core's state after the given events (applied, not decided).
    pub fn state(&self) -> State {
        let mut state = State::new();
        let mut commands = Vec::new();
        for event in &self.events {
            state.apply(event, &mut commands);
        }
        state
    }

    /// A session on a fresh in-memory log holding the given events, recorded as
    /// they are (as a log read back holds them) and replayed when it opens.
    ///
    /// # Panics
    ///
    /// If the in-memory log fails.
    pub fn session(&self) -> Session {
        let log: Arc<dyn Log> = Arc::new(crate::build::mem());
        if !self.events.is_empty() {
            log.append(STREAM, 0, &self.events)
                .expect("the given events are recorded");
        }
        Session::open(log, STREAM).expect("a fresh log opens")
    }

    /// Hands `input` to a session holding the given events.
    ///
    /// # Panics
    ///
    /// If the in-memory log fails.
    pub fn when(&self, input: impl Into<Input>) -> When {
        let mut session = self.session();
        let before = session.head();
        let result = session.handle(&input.into());
        let recorded = session
            .log()
            .read(STREAM, before + 1)
            .expect("the stream reads")
            .map(|recorded| recorded.expect("a recorded event").event)
            .collect();
        When {
            result,
            recorded,
            session,
        }
    }
}

/// What came of the input: the session's answer, the events it recorded, and the
/// session itself (for a further step).
#[derive(Debug)]
pub struct When {
    /// What [`Session::handle`] returned.
    pub result: Result<Handled, SessionError>,
    /// The events recorded for the input (none when it was refused).
    pub recorded: Vec<Event>,
    /// The session after the input.
    pub session: Session,
}

impl When {
    /// Checks the commands the input yielded with `check`; returns them.
    ///
    /// # Panics
    ///
    /// If the input was refused, or `check` returns false.
    pub fn then_commands(self, check: impl FnOnce(&[Command]) -> bool) -> Vec<Command> {
        let handled = match self.result {
            Ok(handled) => handled,
            Err(error) => panic!("the input was refused: {error}"),
        };
        assert!(
            check(&handled.commands),
            "unexpected commands: {:#?}",
            handled.commands
        );
        handled.commands
    }

    /// Checks that the input recorded exactly `expected`.
    ///
    /// # Panics
    ///
    /// If it recorded other events.
    #[must_use]
    pub fn then_recorded(self, expected: &[Event]) -> Self {
        assert_eq!(self.recorded, expected, "the events recorded");
        self
    }

    /// Checks that the engine refused the input, recorded nothing, and that
    /// `check` accepts its refusal; returns the refusal.
    ///
    /// # Panics
    ///
    /// If the input was accepted, failed otherwise, or `check` returns false.
    pub fn then_refused(self, check: impl FnOnce(&Refusal) -> bool) -> Refusal {
        let refusal = match self.result {
            Err(SessionError::Refused(refusal)) => refusal,
            other => panic!("expected a refusal, got {other:?}"),
        };
        assert!(
            self.recorded.is_empty(),
            "a refused input recorded {:?}",
            self.recorded
        );
        assert!(check(&refusal), "unexpected refusal: {refusal:?}");
        refusal
    }
}
