//! The crate's one error type.

use askuser_core::Refusal;

/// Why prompting in the terminal failed.
///
/// Esc and Ctrl+C are not errors: Esc opens the menu or returns from one, and
/// Ctrl+C is [`Action::EndTurn`](crate::Action::EndTurn).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TerminalError {
    /// There is no interactive terminal to prompt on (standard error is not a
    /// terminal, or it cannot be put in raw mode): no person can be asked. The CLI maps this to the engine's "no prompt backend" failure.
    #[error("no interactive terminal is available: no person can be asked")]
    NotATerminal,
    /// Reading from or writing to the terminal failed.
    #[error("terminal I/O failed: {0}")]
    Io(#[from] std::io::Error),
    /// The engine did not accept an event the prompt loop sent it (a bug in the
    /// caller's wiring, e.g. events for an inquiry the engine does not know).
    #[error("the engine did not accept the event: {0}")]
    Engine(#[from] Refusal),
    /// The engine's commands ran out before the inquiry finished (the commands
    /// passed to [`run_inquiry`](crate::run_inquiry) held no prompt or result).
    #[error("the engine gave no prompt or result to act on")]
    Stalled,
    /// A [`ScriptedPrompter`](crate::ScriptedPrompter) was asked a question after
    /// its script ran out.
    #[error("the script has no action left for question \"{question}\"")]
    ScriptExhausted {
        /// The id of the question that found the script empty.
        question: String,
    },
}
