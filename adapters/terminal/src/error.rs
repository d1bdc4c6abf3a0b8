//! The crate's one error type.

use askuser_core::Refusal;
use inquire::InquireError;

/// Why prompting in the terminal failed.
///
/// Cancelling (Esc) and interrupting (Ctrl+C) are not errors: Esc opens a menu or
/// returns to one, and Ctrl+C is [`Action::EndTurn`](crate::Action::EndTurn).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TerminalError {
    /// There is no interactive terminal to prompt on (input is not a TTY): no person
    /// can be asked. The CLI maps this to the engine's "no prompt backend" failure.
    #[error("no interactive terminal is available: no person can be asked")]
    NotATerminal,
    /// Reading from or writing to the terminal failed.
    #[error("terminal I/O failed: {0}")]
    Io(#[from] std::io::Error),
    /// The prompt library failed for another reason (a bad prompt configuration or
    /// a failing callback); the text is its message.
    #[error("the prompt failed: {0}")]
    Prompt(String),
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

/// What an inquire call ended with, once errors are sorted out.
pub(crate) enum Outcome<T> {
    /// The person submitted a value.
    Done(T),
    /// The person pressed Esc.
    Escaped,
    /// The person pressed Ctrl+C.
    Interrupted,
}

/// Sorts an inquire result into a value, Esc, Ctrl+C or a [`TerminalError`].
pub(crate) fn sort<T>(result: Result<T, InquireError>) -> Result<Outcome<T>, TerminalError> {
    match result {
        Ok(value) => Ok(Outcome::Done(value)),
        Err(InquireError::OperationCanceled) => Ok(Outcome::Escaped),
        Err(InquireError::OperationInterrupted) => Ok(Outcome::Interrupted),
        Err(InquireError::NotTTY) => Err(TerminalError::NotATerminal),
        Err(InquireError::IO(error)) => Err(TerminalError::Io(error)),
        Err(InquireError::InvalidConfiguration(message)) => Err(TerminalError::Prompt(message)),
        Err(InquireError::Custom(error)) => Err(TerminalError::Prompt(error.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn esc_and_ctrl_c_are_outcomes_not_errors() {
        assert!(matches!(
            sort::<()>(Err(InquireError::OperationCanceled)),
            Ok(Outcome::Escaped)
        ));
        assert!(matches!(
            sort::<()>(Err(InquireError::OperationInterrupted)),
            Ok(Outcome::Interrupted)
        ));
        assert!(matches!(sort(Ok(3)), Ok(Outcome::Done(3))));
    }

    #[test]
    fn prompt_failures_become_typed_errors() {
        let not_a_tty = sort::<()>(Err(InquireError::NotTTY)).err();
        assert_eq!(
            not_a_tty.map(|e| e.to_string()).as_deref(),
            Some("no interactive terminal is available: no person can be asked")
        );
        let config = sort::<()>(Err(InquireError::InvalidConfiguration("no options".into())))
            .err()
            .map(|e| e.to_string());
        assert_eq!(config.as_deref(), Some("the prompt failed: no options"));
        let io = sort::<()>(Err(InquireError::IO(std::io::Error::other("gone"))))
            .err()
            .map(|e| e.to_string());
        assert_eq!(io.as_deref(), Some("terminal I/O failed: gone"));
    }
}
