//! The protocol lines of what the application layer's [`Desk`] returns: the
//! outcome of an input, what a catch-up brought, what an open inquiry shows.
//! The lines are made after the input was decided, appended (flushed, for a
//! durable log) and applied, so whatever a host has seen is durable. Not a
//! wrapper: the server holds the desk, and these only render.

use std::collections::HashMap;

use askuser_app::{Desk, Followed, Outcome, Result, Taken};
use askuser_core::{Command, Event, Input, InquiryId, Refusal, State};
use askuser_dialects::Call;
use serde_json::Value;

use crate::output::command_line;

/// What became of an input, with its protocol lines.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Step {
    /// The input was decided and recorded; these are the protocol lines of the
    /// commands it yielded (one per command, in order).
    Recorded {
        /// The protocol lines of the commands.
        outputs: Vec<Value>,
    },
    /// The engine refused the input; nothing was recorded.
    Refused(Refusal),
}

/// What other surfaces recorded that the server has not passed on yet, by
/// stream: caught while an input was decided (another process appended first,
/// or a line that names no step was decided on what is current), passed on with
/// the next catch-up of the stream, as the protocol promises.
#[derive(Debug, Default)]
pub(crate) struct Held(HashMap<String, Vec<Followed>>);

impl Held {
    /// Whether anything of `stream` is held.
    pub(crate) fn has(&self, stream: &str) -> bool {
        self.0.get(stream).is_some_and(|held| !held.is_empty())
    }

    fn keep(&mut self, stream: &str, followed: Vec<Followed>) {
        if !followed.is_empty() {
            (self.0.entry(stream.to_owned()).or_default()).extend(followed);
        }
    }
}

/// Asks `call` (see [`Desk::request`]), with the lines it yields.
///
/// # Errors
/// When the log cannot be read or written.
pub(crate) fn request(
    desk: &mut Desk,
    held: &mut Held,
    stream: &str,
    (call, arguments): (&Call, &Value),
    request: askuser_core::Request,
) -> Result<Step> {
    let outcome = desk.request(stream, call, arguments, request)?;
    lines(desk, held, stream, outcome, Some(call))
}

/// Hands a host's `input` to the desk (see [`Desk::input`]), with the lines it
/// yields.
///
/// # Errors
/// When the log cannot be read or written; nothing was recorded then.
pub(crate) fn input(desk: &mut Desk, held: &mut Held, stream: &str, input: &Input) -> Result<Step> {
    decided(desk, held, stream, input, Asker::Elsewhere)
}

/// [`input`], for an inquiry this server asked: a result it yields is recorded
/// handed over in the same append (see [`Desk::input_handing_over`]).
///
/// # Errors
/// When the log cannot be read or written; nothing was recorded then.
pub(crate) fn asker_input(
    desk: &mut Desk,
    held: &mut Held,
    stream: &str,
    input: &Input,
) -> Result<Step> {
    decided(desk, held, stream, input, Asker::Here)
}

/// Who asked the inquiry an input acts on.
#[derive(Clone, Copy)]
enum Asker {
    /// This server: it hands the result over with the lines it returns.
    Here,
    /// Another process, or nobody yet.
    Elsewhere,
}

fn decided(
    desk: &mut Desk,
    held: &mut Held,
    stream: &str,
    input: &Input,
    asker: Asker,
) -> Result<Step> {
    let call = match input.inquiry() {
        Some(inquiry) => desk.call(stream, inquiry)?,
        None => None,
    };
    let outcome = match asker {
        Asker::Here => desk.input_handing_over(stream, input)?,
        Asker::Elsewhere => desk.input(stream, input)?,
    };
    lines(desk, held, stream, outcome, call.as_deref())
}

/// The step of `outcome`, with the protocol lines of its commands; what it
/// caught up on is held for the next catch-up.
fn lines(
    desk: &mut Desk,
    held: &mut Held,
    stream: &str,
    outcome: Outcome,
    call: Option<&Call>,
) -> Result<Step> {
    held.keep(stream, outcome.elsewhere);
    Ok(match outcome.taken {
        Taken::Recorded { commands, .. } => {
            let state = desk.state(stream)?;
            let outputs = (commands.iter())
                .map(|command| command_line(command, call, timeout_of(state, command)))
                .collect();
            Step::Recorded { outputs }
        }
        Taken::Refused(refusal) => Step::Refused(refusal),
    })
}

/// Applies what other surfaces recorded in `stream` (see [`Desk::catch_up`]),
/// and holds it for the next [`catch_up`]: what a line that names no step is
/// decided on.
///
/// # Errors
/// When the log cannot be read.
pub(crate) fn look(desk: &mut Desk, held: &mut Held, stream: &str) -> Result<()> {
    let followed = desk.catch_up(stream)?;
    held.keep(stream, followed);
    Ok(())
}

/// The protocol lines of what other processes recorded in `stream` since the
/// server last passed them on (an answer given in another window, say), in
/// order. A review wanted there while questions are still to answer yields no
/// command but moves the inquiry's step: when it is the last thing recorded for
/// its inquiry, the inquiry's current `prompt` follows, with the step an answer
/// to it names.
///
/// # Errors
/// When the log cannot be read.
pub(crate) fn catch_up(desk: &mut Desk, held: &mut Held, stream: &str) -> Result<Vec<Value>> {
    let mut followed = held.0.remove(stream).unwrap_or_default();
    followed.extend(desk.catch_up(stream)?);
    let mut lines = Vec::new();
    let mut reviewed: Vec<InquiryId> = Vec::new();
    for Followed { caught, call, .. } in followed {
        reviewed.retain(|inquiry| Some(inquiry) != caught.event.inquiry());
        if let Event::ReviewWanted { inquiry } = &caught.event
            && caught.commands.is_empty()
        {
            reviewed.push(inquiry.clone());
        }
        let state = desk.state(stream)?;
        lines.extend(
            caught
                .commands
                .iter()
                .map(|command| command_line(command, call.as_deref(), timeout_of(state, command))),
        );
    }
    for inquiry in reviewed {
        lines.extend(pending_line(desk, stream, &inquiry)?);
    }
    Ok(lines)
}

/// The line an open inquiry of `stream` is waiting on (its current `prompt`,
/// `review` or `ask_assistant`), rebuilt from the log: what a restarted server
/// sends again.
///
/// # Errors
/// When the log cannot be read.
pub(crate) fn pending_line(
    desk: &mut Desk,
    stream: &str,
    inquiry: &InquiryId,
) -> Result<Option<Value>> {
    let call = desk.call(stream, inquiry)?;
    let state = desk.state(stream)?;
    Ok(state
        .pending(inquiry)
        .map(|command| command_line(&command, call.as_deref(), timeout_of(state, &command))))
}

/// The policy timeout of a prompt's inquiry, for its line.
fn timeout_of(state: &State, command: &Command) -> Option<askuser_core::Timeout> {
    match command {
        Command::Prompt(prompt) => state.policy(&prompt.inquiry)?.timeout,
        _ => None,
    }
}
