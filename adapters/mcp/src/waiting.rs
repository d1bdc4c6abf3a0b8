//! No forms is not no answer: when nobody can answer at the client (it has no
//! forms, its form came back faster than a person reads, or it could not show
//! the questions), the call notes why in the log and waits for an answer from
//! any other surface on the log (the web inbox, `askuser answer`, `askuser
//! resume`), with progress notifications meanwhile, for as long as
//! [`Waiting::wait_for`](crate::Waiting::wait_for) allows. The pending file is
//! written first where `--pending-dir` is given. Where to answer comes first in
//! the progress line: the link of the web inbox running on the log (never its
//! token, [`askuser_app::web_inbox`]); with no inbox and no pending file, that
//! none runs and how to answer, and the call then waits at most
//! [`WITHOUT_INBOX`] (unless an inbox starts meanwhile). When time runs out,
//! the call ends as it did before it waited: the pending file's instructions,
//! or the "cannot show forms" failure, with a line saying where the questions
//! are. A client that cancels the call or goes away while it waits only stops
//! its wait ([`ClientNote::StoppedWaiting`]): the person may be answering in
//! another window, so the questions stay open and their result is kept for the
//! same call made again.

use std::time::{Duration, Instant};

use askuser_app::watch::Subscription;
use askuser_core::text::for_display_line;
use askuser_core::{CancelReason, ClientNote, FormAction, Input, InquiryId};
use askuser_dialects::Call;
use rmcp::Peer;
use rmcp::model::CallToolResult;
use rmcp::service::{RequestContext, RoleServer};

use crate::clients::Client;
use crate::config::WithoutElicitation;
use crate::moved_on::Entered;
use crate::pending::write_pending;
use crate::progress::Progress;
use crate::recorder::{Recorder, Taken};
use crate::server::{AskServer, error_result, finish, not_recorded};
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
        let pending = match self.begin_wait(recorder, call, inquiry, &note, client) {
            Ok(pending) => pending,
            Err(failed) => return *failed,
        };
        // A client that stops calls silently tells it only by its next call.
        let entered = client.stops_silently.then(|| self.waiters.enter(inquiry));
        let full = self.config.waiting.wait_for(client);
        let mut wait = Wait::new(full, self.inbox_link(), pending.is_some());
        let mut progress = Progress::new(request);
        progress.tell(&wait.message()).await;
        let started = Instant::now();
        let mut beat = started + self.heartbeat;
        // Taken before the first look, so an answer recorded after it wakes the call.
        let subscription = self.subscribe(recorder);
        let mut look = true;
        loop {
            if look {
                match recorder.ending(inquiry) {
                    Ok(Some(command)) => {
                        // Its client may have stopped the call unseen.
                        if client.stops_silently {
                            recorder.leave_owed(inquiry);
                        }
                        return finish(call, &command);
                    }
                    Ok(None) => {}
                    Err(error) => return not_recorded(call.tool_name(), &error),
                }
            }
            let now = Instant::now();
            if now >= started + wait.how_long || now >= beat {
                // An inbox started meanwhile: the call waits for it as long as
                // for one that ran from the start.
                if wait.inbox.is_none() {
                    wait.found(self.inbox_link());
                }
            }
            let until = started + wait.how_long;
            if now >= until {
                break;
            }
            if now >= beat {
                progress.tell(&wait.message()).await;
                beat = now + self.heartbeat;
            }
            let pause = until.min(beat) - now;
            look = if let Some(subscription) = &subscription {
                tokio::select! {
                    _ = subscription.changed() => true,
                    () = tokio::time::sleep(pause) => false,
                    () = request.ct.cancelled() => {
                        return left_waiting(recorder, call, inquiry, &request.peer);
                    }
                    () = moved_on(entered.as_ref()) => return error_result(moved_on_words(call.tool_name())),
                }
            } else {
                tokio::select! {
                    () = tokio::time::sleep(POLL.min(pause)) => true,
                    () = request.ct.cancelled() => {
                        return left_waiting(recorder, call, inquiry, &request.peer);
                    }
                    () = moved_on(entered.as_ref()) => return error_result(moved_on_words(call.tool_name())),
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
            return error_result(nobody_answered(call.tool_name(), &note, &wait));
        }
        let why = format!(
            "nobody answered from another window within {}",
            seconds(wait.how_long)
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
            None => error_result(nobody_answered(call.tool_name(), &note, &wait)),
        }
    }
}

impl AskServer {
    /// Before a call waits: the pending file written (where `--pending-dir` is
    /// given: its result for the model, or the failure to write it) and the
    /// client's notes recorded; a call that takes over one its model moved on
    /// from (which did both) notes only that it may be stopped silently too.
    fn begin_wait(
        &self,
        recorder: &Recorder,
        call: &Call,
        inquiry: &InquiryId,
        note: &ClientNote,
        client: &Client,
    ) -> Result<Option<CallToolResult>, Box<CallToolResult>> {
        let silently = || {
            let host = client.host.to_owned();
            self::note(recorder, inquiry, ClientNote::StopsSilently { host });
        };
        if self.waiters.taken_over(inquiry) {
            // A call waits on it again, which may be stopped silently too.
            silently();
            return Ok(None);
        }
        let pending = match &self.config.without_elicitation {
            WithoutElicitation::Pending { dir } => {
                let written = write_pending(&self.config, recorder.stream(), dir, call, inquiry);
                if written.is_error == Some(true) {
                    return Err(Box::new(written));
                }
                Some(written)
            }
            WithoutElicitation::Fail => None,
        };
        // A note refused means the inquiry finished meanwhile: its result follows.
        self::note(recorder, inquiry, note.clone());
        if client.stops_silently {
            silently();
        }
        Ok(pending)
    }
}

/// A waiting call its client cancelled or went away from: noted, and the
/// questions stay open, since the person may be answering them in another
/// window; their result is kept for the same call made again. The result
/// nobody reads says so (or is the result, when another window finished the
/// inquiry first).
fn left_waiting(
    recorder: &Recorder,
    call: &Call,
    inquiry: &InquiryId,
    peer: &Peer<RoleServer>,
) -> CallToolResult {
    let disconnected = peer.is_transport_closed();
    note(
        recorder,
        inquiry,
        ClientNote::StoppedWaiting { disconnected },
    );
    if let Ok(Some(command)) = recorder.ending(inquiry) {
        recorder.leave_owed(inquiry);
        return finish(call, &command);
    }
    error_result(format!(
        "{}: the client stopped this call while it waited. Its questions stay open in the askuser web inbox; the answers are given to the same call made again.",
        call.tool_name()
    ))
}

/// Waits until the model moved on from the call `entered` (forever for a call
/// whose client tells when it stops one).
async fn moved_on(entered: Option<&Entered>) {
    match entered {
        Some(entered) => entered.stop.notified().await,
        None => std::future::pending().await,
    }
}

/// The result of a call its model moved on from: nothing reads it (the host
/// stopped the call), but it says what happened should a host ever show it.
fn moved_on_words(tool: &str) -> String {
    format!(
        "{tool}: a new call came while this one waited, so this one stopped waiting. Its questions stay open in the askuser web inbox; the answers are given to the same call made again."
    )
}

/// How long a call waits for another window without a web inbox on the log
/// (nor a pending file): long enough to start one (`askuser web`) or answer in
/// a terminal (`askuser resume`), never the minutes of silence a call waits
/// where an inbox shows the questions.
pub(crate) const WITHOUT_INBOX: Duration = Duration::from_secs(60);

/// How a call waits for another window, and where the person answers.
pub(crate) struct Wait {
    /// How long, from the start of the wait.
    pub(crate) how_long: Duration,
    /// The link of the web inbox running on the log, without its token.
    pub(crate) inbox: Option<String>,
    /// The wait when an inbox runs (`--wait`, or what the client allows).
    full: Duration,
}

impl Wait {
    /// The wait of a call allowed `full`, with the link of the inbox running
    /// now, if any; without one (nor a `pending` file), at most
    /// [`WITHOUT_INBOX`].
    pub(crate) fn new(full: Duration, inbox: Option<String>, pending: bool) -> Self {
        let how_long = if inbox.is_some() || pending {
            full
        } else {
            full.min(WITHOUT_INBOX)
        };
        Self {
            how_long,
            inbox,
            full,
        }
    }

    /// An inbox found running during the wait (`None`: still none): the call
    /// waits `full` from its start.
    fn found(&mut self, inbox: Option<String>) {
        if inbox.is_some() {
            self.inbox = inbox;
            self.how_long = self.full;
        }
    }

    /// The progress message: short, since hosts show it on one line after
    /// their own words (Gemini CLI cuts it at the terminal's width), so where to
    /// answer comes first.
    pub(crate) fn message(&self) -> String {
        let wait = seconds(self.how_long);
        match &self.inbox {
            Some(link) => format!("Answer at {link} (waiting up to {wait})"),
            None => format!(
                "No inbox runs: answer with askuser web or askuser resume (waiting up to {wait})"
            ),
        }
    }

    /// The line the final words end with: where the questions are.
    fn where_line(&self) -> String {
        match &self.inbox {
            Some(link) => format!("The askuser web inbox: {link}"),
            None => "No askuser web inbox runs: start one with askuser web, or keep one running with askuser setup inbox.".to_owned(),
        }
    }
}

impl AskServer {
    /// The link of the web inbox running on the log now, if any (see
    /// [`askuser_app::web_inbox`]).
    fn inbox_link(&self) -> Option<String> {
        (self.config.open_desk)().ok()?.running_inbox()
    }

    /// A subscription to `recorder`'s stream, from the log's one watcher in this
    /// process: when the server holds its log for its life (with
    /// [`Config::origin`](crate::Config::origin), as `askuser mcp` does), an
    /// append by any process wakes the waiting call. `None` for a log opened for
    /// each step (which must not be held while a person thinks): that one is
    /// looked at every [`POLL`].
    fn subscribe(&self, recorder: &Recorder) -> Option<Subscription> {
        self.config.origin.as_ref()?;
        let watcher = (self.config.open_desk)().ok()?.watcher().ok()?;
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
/// client without forms that did not wait, the "cannot show forms" error),
/// with a line of its own saying where they are answered.
pub(crate) fn nobody_answered(tool: &str, note: &ClientNote, wait: &Wait) -> String {
    let waited = wait.how_long;
    if *note == ClientNote::CannotShow && waited.is_zero() {
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
        ClientNote::Headless { mode } => format!(
            "nobody is at this client to answer its form (it runs headless: {})",
            for_display_line(mode)
        ),
        ClientNote::NoForms if !waited.is_zero() => {
            return format!(
                "{tool}: this MCP client cannot show forms (it does not support elicitation), and nobody answered in another window (the askuser web inbox, `askuser web`, or a terminal, `askuser resume`) within {}, so the questions were closed. Do not retry this tool call in this turn; ask the user in plain words instead.\n{}",
                seconds(waited),
                wait.where_line()
            );
        }
        ClientNote::NoForms
        | ClientNote::Late { .. }
        | ClientNote::StopsSilently { .. }
        | ClientNote::MovedOn { .. }
        | ClientNote::StoppedWaiting { .. } => return no_forms(tool),
    };
    format!(
        "{tool}: {why}, and nobody answered them in another window within {}. They stay open in the askuser web inbox (`askuser web`) and `askuser resume`; do not retry this tool call in this turn; continue without the answers, or end your turn.\n{}",
        seconds(waited),
        wait.where_line()
    )
}
