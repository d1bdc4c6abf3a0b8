//! No forms is not no answer: when nobody can answer at the client (it has no
//! forms, its form came back faster than a person reads, or it could not show
//! the questions), the call notes why in the log and waits for an answer from
//! any other surface on the log (the web inbox, `askuser answer`, `askuser
//! resume`), with progress notifications meanwhile, for as long as
//! [`Waiting::wait_for`](crate::Waiting::wait_for) allows. The pending file is
//! written first where `--pending-dir` is given. When time runs out, the call
//! ends as it did before it waited: the pending file's instructions, or the
//! "cannot show forms" failure.

use std::time::{Duration, Instant};

use askuser_app::watch::{Subscription, Watcher};
use askuser_core::{CancelReason, ClientNote, FormAction, Input, InquiryId};
use askuser_dialects::Call;
use rmcp::model::CallToolResult;
use rmcp::service::{RequestContext, RoleServer};

use crate::clients::Client;
use crate::config::WithoutElicitation;
use crate::pending::write_pending;
use crate::progress::Progress;
use crate::recorder::{Recorder, Taken};
use crate::server::{AskServer, error_result, finish, not_recorded, stopped_in};
use crate::tools::{came_back_empty, no_forms};

/// How often a log opened for each step is looked at while a call waits (a
/// log the server holds wakes the call itself).
const POLL: Duration = Duration::from_millis(250);

impl AskServer {
    /// Notes `note` on `inquiry` and waits for another surface to finish it:
    /// its result, or, when the wait runs out, the pending file's instructions
    /// or the failure for `note`.
    pub(crate) async fn wait_elsewhere(
        &self,
        recorder: &Recorder,
        call: &Call,
        inquiry: &InquiryId,
        note: ClientNote,
        client: &Client,
        request: &RequestContext<RoleServer>,
    ) -> CallToolResult {
        let pending = match &self.config.without_elicitation {
            WithoutElicitation::Pending { dir } => {
                let written = write_pending(&self.config, recorder.stream(), dir, call, inquiry);
                if written.is_error == Some(true) {
                    return written;
                }
                Some(written)
            }
            WithoutElicitation::Fail => None,
        };
        // A note refused means the inquiry finished meanwhile: its result below.
        self::note(recorder, inquiry, note.clone());
        let wait = self.config.waiting.wait_for(client);
        let message = waiting_message(wait);
        let mut progress = Progress::new(request);
        progress.tell(&message).await;
        let until = Instant::now() + wait;
        let mut beat = Instant::now() + self.heartbeat;
        // Taken before the first look, so an answer recorded after it wakes the call.
        let subscription = self.subscribe(recorder);
        let mut look = true;
        loop {
            if look {
                match recorder.ending(inquiry) {
                    Ok(Some(command)) => return finish(call, &command),
                    Ok(None) => {}
                    Err(error) => return not_recorded(call.tool_name(), &error),
                }
            }
            let now = Instant::now();
            if now >= until {
                break;
            }
            if now >= beat {
                progress.tell(&message).await;
                beat = now + self.heartbeat;
            }
            let pause = until.min(beat) - now;
            look = if let Some(subscription) = &subscription {
                tokio::select! {
                    _ = subscription.changed() => true,
                    () = tokio::time::sleep(pause) => false,
                    () = request.ct.cancelled() => {
                        return stopped_in(recorder, call, inquiry, &request.peer);
                    }
                }
            } else {
                tokio::select! {
                    () = tokio::time::sleep(POLL.min(pause)) => true,
                    () = request.ct.cancelled() => {
                        return stopped_in(recorder, call, inquiry, &request.peer);
                    }
                }
            };
        }
        // The file stays answerable; the inquiry stays open for it.
        if let Some(written) = pending {
            return written;
        }
        // The client may have a person another time: the questions stay open
        // in the inbox. A client without forms ends them as it always did.
        if note != ClientNote::NoForms {
            return error_result(nobody_answered(call.tool_name(), &note, wait));
        }
        let why = format!(
            "nobody answered from another window within {}",
            seconds(wait)
        );
        let cancel = Input::Cancel {
            inquiry: inquiry.clone(),
            reason: CancelReason::NoPromptBackend,
            message: Some(why),
        };
        let elsewhere = match recorder.take(&cancel, None, 0) {
            Ok(Taken::Moved(moved)) => moved.ending().cloned(),
            Ok(Taken::Recorded(_) | Taken::Refused(_)) => None,
            Err(error) => return not_recorded(call.tool_name(), &error),
        };
        match elsewhere {
            // Another window finished it first.
            Some(command) => finish(call, &command),
            None => error_result(nobody_answered(call.tool_name(), &note, wait)),
        }
    }
}

impl AskServer {
    /// A subscription to `recorder`'s stream, from the log's one watcher in this
    /// process: when the server holds its log for its life (with
    /// [`Config::origin`](crate::Config::origin), as `askuser mcp` does), an
    /// append by any process wakes the waiting call. `None` for a log opened for
    /// each step (which must not be held while a person thinks): that one is
    /// looked at every [`POLL`].
    fn subscribe(&self, recorder: &Recorder) -> Option<Subscription> {
        self.config.origin.as_ref()?;
        let log = (self.config.open_log)().ok()?;
        let watcher = Watcher::of(&log).ok()?;
        Some(watcher.stream(recorder.stream()))
    }
}

/// Notes on `inquiry` what its client did; a note refused (the inquiry finished
/// meanwhile) or not recorded changes nothing of the call.
pub(crate) fn note(recorder: &Recorder, inquiry: &InquiryId, note: ClientNote) {
    let noted = Input::NoteClient {
        inquiry: inquiry.clone(),
        note,
    };
    let _ = recorder.take(&noted, None, 0);
}

/// What the tools' descriptions say of the wait.
pub(crate) fn wait_words(wait: Duration) -> String {
    format!(
        "When the person cannot answer in this client (it shows no forms, or nobody is at it), the call waits up to {} for them to answer in another window (the askuser web inbox or a terminal) before it ends.",
        seconds(wait)
    )
}

/// The progress message while a call waits: short, since hosts show it on
/// one line after their own words (Gemini CLI cuts it at the terminal's width).
fn waiting_message(wait: Duration) -> String {
    format!(
        "Waiting up to {} for your answer in askuser web (or askuser resume)",
        seconds(wait)
    )
}

/// `55 s`, `9 min 55 s` (`600 ms` under a second).
fn seconds(duration: Duration) -> String {
    let total = duration.as_secs();
    if total == 0 {
        return format!("{} ms", duration.as_millis());
    }
    match (total / 60, total % 60) {
        (0, s) => format!("{s} s"),
        (m, 0) => format!("{m} min"),
        (m, s) => format!("{m} min {s} s"),
    }
}

/// The tool error when nobody answered a call no person could answer at the
/// client, saying how long it waited and where the questions are (for a
/// client without forms that did not wait, the "cannot show forms" error).
pub(crate) fn nobody_answered(tool: &str, note: &ClientNote, wait: Duration) -> String {
    if *note == ClientNote::CannotShow && wait.is_zero() {
        return came_back_empty(tool);
    }
    let why = match note {
        ClientNote::NoPerson { action, after_ms } => {
            let done = match action {
                FormAction::Cancel => "dismissed",
                FormAction::Decline => "declined",
                FormAction::Accept => "accepted with every answer at its default",
            };
            format!(
                "nobody is at this client to answer its form (it was {done} {after_ms} ms after it went out, faster than anyone reads)"
            )
        }
        ClientNote::CannotShow => {
            "this client's form came back empty twice, so it may not be able to show these questions".to_owned()
        }
        ClientNote::NoForms if !wait.is_zero() => {
            return format!(
                "{tool}: this MCP client cannot show forms (it does not support elicitation), and nobody answered in another window (the askuser web inbox, `askuser web`, or a terminal, `askuser resume`) within {}, so the questions were closed. Do not retry this tool call in this turn; ask the user in plain words instead.",
                seconds(wait)
            );
        }
        ClientNote::NoForms | ClientNote::Late { .. } => return no_forms(tool),
    };
    format!(
        "{tool}: {why}, and nobody answered them in another window within {}. They stay open in the askuser web inbox (`askuser web`) and `askuser resume`; do not retry this tool call in this turn; continue without the answers, or end your turn.",
        seconds(wait)
    )
}
