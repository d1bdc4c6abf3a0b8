//! `askuser ask` and `askuser resume`: a form in the terminal, or written to a
//! pending file to answer later (`askuser answer`, in answer.rs).

use std::io::IsTerminal;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use askuser_app::log::{Clock, Recorded, Seq, SystemClock};
use askuser_app::pending::{self, PendingFile, PendingTarget};
use askuser_app::{Desk, Followed, HeadWaiter, Taken};
use askuser_core::text::{for_display, for_display_line};
use askuser_core::{
    CancelReason, Command, Ending, Event, Input, InquiryId, OnTimeout, State, Timeout,
};
use askuser_dialects::Call;
use askuser_terminal::{Elsewhere, Engine, TerminalError, TerminalPrompter, run_with_engine};

use crate::args::{AskArgs, ResumeArgs};
use crate::common::{
    EXIT_NO_PERSON, EXIT_PENDING, EXIT_REJECTED, agent_stream, as_a_persons_process, call_dialect,
    conclude, db_hint, db_path, hold_presence, note, open_journal, parse_call, person_present,
    print_out, read_text, shell_word, stream_option,
};
use crate::error::CliError;

/// `askuser ask [--dialect D] [--db PATH] [--stream NAME] [--inquiry ID] [--pending FILE] [FILE|-]`
pub(crate) fn ask(args: &AskArgs) -> Result<u8, CliError> {
    let file = match &args.file {
        Some(file) => file.as_path(),
        None if std::io::stdin().is_terminal() => {
            return Err(CliError::Usage(
                "`askuser ask` needs a call: give a FILE, or - to read one from standard input"
                    .into(),
            ));
        }
        None => Path::new("-"),
    };
    let stream = stream_option(args.stream.as_deref())?;
    let text = read_text(file)?;
    let dialect = call_dialect(args.dialect, &text)?;
    let (arguments, call) = parse_call(dialect, &text);
    let call = match call {
        Ok(call) => call,
        Err(rejection) => {
            print_out(&format!("{}\n", for_display(&rejection.tool_error_text())))?;
            return Ok(EXIT_REJECTED);
        }
    };
    // The pending file's place is proven writable before anything is recorded, so
    // no inquiry is left open that nothing could answer.
    let pending = args.pending.as_deref();
    let timeout = timeout_of(args);
    let target = pending.map(PendingTarget::prepare).transpose()?;
    let db = db_path(args.db.db.as_deref())?;
    if pending.is_none() {
        as_a_persons_process();
    }
    let mut journal = open_journal(&db)?;
    // Who asks, as a person knows it: `--agent`, else the host whose
    // environment this runs in (never the dialect, which names a format).
    let host = args.agent.clone().or_else(|| {
        askuser_app::origin::host_from_environment(|name| std::env::var(name).ok())
            .map(str::to_owned)
    });
    let label =
        (call.request(InquiryId::new("label")).policy.label).filter(|label| label != "Assistant");
    let origin = askuser_app::origin::here(host.as_deref(), label.as_deref());
    // A new stream is claimed at once, by recording where this process runs
    // as its first event: agents started side by side in one repository each
    // get their own (the log takes the name for one of them only). Its first
    // inquiry is still `call-1`.
    let (stream, claimed) = agent_stream(&journal, stream, "ask", &origin, true)?;
    let inquiry = match &args.inquiry {
        Some(inquiry) => inquiry.clone(),
        None if claimed => "call-1".to_owned(),
        None => format!("call-{}", journal.head(&stream)? + 1),
    };
    // Held while this process waits for a person, so the inbox sees it: taken
    // before the request, so the request stays the event its question's
    // deadline counts from.
    let presence = (pending.is_none() && person_present())
        .then(|| hold_presence(&mut journal, &stream, origin, claimed))
        .flatten();
    let mut request = call.request(InquiryId::new(&inquiry));
    request.policy.interactive = pending.is_some() || person_present();
    request.policy.timeout = timeout;
    let first = match journal.request(&stream, &call, &arguments, request)?.taken {
        Taken::Recorded { commands, .. } => commands,
        Taken::Refused(error) => {
            return Err(CliError::RequestRefused {
                refusal: Box::new(error),
                stream: for_display_line(&stream).into_owned(),
            });
        }
    };
    if let (Some(path), Some(target), Some(Command::Prompt(_))) = (pending, target, first.first()) {
        write_pending(path, target, &db, &stream, &InquiryId::new(&inquiry), &call)?;
        return Ok(EXIT_PENDING);
    }
    let code = walk(&mut journal, &stream, &inquiry, &call, first, timeout)?;
    drop(presence);
    note(&format!(
        "askuser: recorded as stream \"{}\" in {}",
        for_display_line(&stream),
        for_display_line(&db.to_string_lossy())
    ));
    if code == EXIT_NO_PERSON {
        note(&no_terminal_hint(args, &db));
    }
    Ok(code)
}

/// Writes the questions of `call` to the pending file at `path` (its place already
/// proven writable) and prints how to answer them.
fn write_pending(
    path: &Path,
    target: PendingTarget,
    db: &Path,
    stream: &str,
    inquiry: &InquiryId,
    call: &Call,
) -> Result<(), CliError> {
    let file = PendingFile::for_call(
        Some(db),
        stream,
        inquiry,
        call,
        SystemClock.now().to_string(),
    )
    .sealed(&pending::key(db)?);
    target.write(&file)?;
    if file.db.is_none() {
        note(&format!(
            "askuser: the log's path is not UTF-8, so the pending file cannot name it: answer with `askuser answer {}{}`",
            shell_word(path.as_os_str()),
            db_hint(db)
        ));
    }
    // The path is shown as a shell word, ready to paste.
    let shown = shell_word(path.as_os_str());
    print_out(&for_display(&pending::instructions(Path::new(&shown))))?;
    Ok(())
}

/// What the person reads on standard error when `ask` found no terminal: how to
/// answer through a pending file instead.
fn no_terminal_hint(args: &AskArgs, db: &Path) -> String {
    let dialect = args
        .dialect
        .map_or_else(String::new, |d| format!(" --dialect {d}"));
    let file = match &args.file {
        Some(file) if file.as_os_str() != "-" => shell_word(file.as_os_str()),
        _ => "FILE".to_owned(),
    };
    format!(
        "askuser: no terminal to ask in, so the model was told that no person can answer.\n\
         To answer without a terminal, write the questions to a file, then answer them:\n  \
         askuser ask --pending questions.json{dialect}{db} {file}\n  \
         askuser answer questions.json --answers '[...]'",
        db = db_hint(db)
    )
}

/// `askuser resume STREAM [--db PATH]`: asks the open inquiry of a stream (a fork,
/// say) in the terminal, from its current question.
pub(crate) fn resume(args: &ResumeArgs) -> Result<u8, CliError> {
    let stream = args.stream.as_str();
    let db = db_path(args.db.db.as_deref())?;
    as_a_persons_process();
    let mut journal = open_journal(&db)?;
    let shown = for_display_line(stream);
    let open = (journal.state(stream)?.open_inquiries().next()).map(ToString::to_string);
    let inquiry = match (&args.inquiry, open) {
        (Some(inquiry), _) => inquiry.clone(),
        (None, Some(inquiry)) => inquiry,
        (None, None) => {
            let last = journal.last_inquiry_event(stream).ok().flatten();
            let ended = how_it_ended(last.as_ref(), journal.state(stream)?);
            let show = format!(
                "askuser log show {}{}",
                shell_word(stream.as_ref()),
                db_hint(&db)
            );
            return Err(CliError::NothingToResume {
                stream: shown.into_owned(),
                ended,
                show,
            });
        }
    };
    let inquiry = InquiryId::new(inquiry);
    let Some(first) = journal.state(stream)?.pending(&inquiry) else {
        return Err(CliError::NotOpen {
            inquiry: for_display_line(inquiry.as_str()).into_owned(),
            stream: shown.into_owned(),
        });
    };
    let call = journal
        .call(stream, &inquiry)?
        .ok_or_else(|| CliError::CannotResume {
            inquiry: for_display_line(inquiry.as_str()).into_owned(),
            db: for_display_line(&db.display().to_string()).into_owned(),
        })?;
    if !person_present() {
        let command = format!(
            "askuser resume {}{}",
            shell_word(stream.as_ref()),
            db_hint(&db)
        );
        print_out(&format!(
            "no interactive terminal is available; run `{command}` in a terminal\n"
        ))?;
        return Ok(EXIT_NO_PERSON);
    }
    note(&answered_so_far(journal.state(stream)?, &inquiry, &shown));
    // The inquiry's time limit, as its request recorded it.
    let timeout = journal
        .state(stream)?
        .policy(&inquiry)
        .and_then(|policy| policy.timeout);
    walk(
        &mut journal,
        stream,
        inquiry.as_str(),
        &call,
        vec![first],
        timeout,
    )
}

/// How a stream with no open inquiry ended, in words: from its last event and how
/// the state says that event's inquiry finished.
fn how_it_ended(last: Option<&Recorded>, state: &State) -> String {
    let Some((last, Some(inquiry))) = last.map(|last| (last, last.event.inquiry())) else {
        return "it records no inquiry that can be read".to_owned();
    };
    let how = match (&last.event, state.finished(inquiry)) {
        (Event::Rejected { .. }, _) | (_, Some(Ending::Rejected)) => {
            "the call was rejected (the model got its problems)"
        }
        (Event::Denied { .. }, _) => "the policy refused the call (the model got a tool error)",
        (_, Some(Ending::Answered)) => "every question was answered",
        (_, Some(Ending::Replied)) => "the person chose Reply",
        (_, Some(Ending::TurnEnded)) => "the person ended the turn",
        (_, Some(Ending::TimedOut)) => "the person did not answer in time (it timed out)",
        (
            Event::Cancelled {
                reason: CancelReason::NoPromptBackend,
                ..
            },
            Some(Ending::Failed),
        ) => "no person could be asked (the model was told so)",
        (Event::Requested(request), Some(Ending::Failed)) if !request.policy.interactive => {
            "no person could be asked (the model was told so)"
        }
        (_, Some(Ending::Failed)) => "it failed (the model got a tool error)",
        (_, None) => "it is not open",
    };
    // Where a person ended the turn, when the log says.
    let there = match (state.outcome(inquiry)).map(|f| (f.how(), f.turn_ended_in())) {
        Some((_, Some(surface))) => format!(" {}", surface.words()),
        Some((Ending::TurnEnded, None)) => " (End Turn)".to_owned(),
        _ => String::new(),
    };
    format!(
        "its last inquiry \"{}\" ended: {how}{there}",
        for_display_line(inquiry.as_str())
    )
}

/// Runs an inquiry in the terminal from `first`, recording every event; prints the
/// result and returns the exit status.
fn walk(
    journal: &mut Desk,
    stream: &str,
    inquiry: &str,
    call: &Call,
    first: Vec<Command>,
    timeout: Option<Timeout>,
) -> Result<u8, CliError> {
    // Uppercase Y / N remember an answer only where the call's policy allows it.
    let remember =
        call.request(InquiryId::new(inquiry)).policy.persistence == askuser_core::Persistence::Turn;
    let seen = journal.head(stream)?;
    // Waited on only while the person may be at a prompt.
    let asks = (first.iter()).any(|c| matches!(c, Command::Prompt(_) | Command::Review { .. }));
    let waiter = asks
        .then(|| Waiter::start(journal.head_waiter(), stream, seen))
        .flatten();
    let mut recorder = Recorder {
        journal,
        stream,
        failure: None,
        last: Vec::new(),
        seen,
        waiter: waiter.as_ref().map(|waiter| Arc::clone(&waiter.head)),
        told: Vec::new(),
    };
    let finished = run_with_engine(
        &mut TerminalPrompter::new()
            .with_remember(remember)
            .with_timeout(timeout),
        first.clone(),
        &mut recorder,
    );
    drop(waiter);
    let Recorder { failure, last, .. } = recorder;
    if let Some(error) = failure {
        return Err(error.into());
    }
    let commands = match finished {
        Ok(_) if last.is_empty() => first,
        Ok(_) => last,
        Err(TerminalError::NotATerminal) => {
            let cancel = Input::Cancel {
                inquiry: InquiryId::new(inquiry),
                reason: CancelReason::NoPromptBackend,
                message: None,
            };
            let outcome = journal.input(stream, &cancel)?;
            match (outcome.taken, outcome.ended) {
                (Taken::Recorded { commands, .. }, _) => commands,
                // Another surface finished it first: its result is the result.
                (Taken::Refused(_), Some(ended)) => vec![ended],
                (Taken::Refused(refusal), None) => {
                    return Err(CliError::Refused(Box::new(refusal)));
                }
            }
        }
        Err(error) => return Err(error.into()),
    };
    finish(&commands, call)
}

/// The policy's time limit from `--timeout` (whole seconds; or `ASKUSER_TIMEOUT`) and
/// `--on-timeout` (`cancel`, the default; `defaults`; `end_turn`; or
/// `ASKUSER_ON_TIMEOUT`).
fn timeout_of(args: &AskArgs) -> Option<Timeout> {
    let seconds = args.timeout?;
    let on_timeout = match args.on_timeout.as_str() {
        "defaults" => OnTimeout::Defaults,
        "end_turn" => OnTimeout::EndTurn,
        _ => OnTimeout::Cancel,
    };
    Some(Timeout {
        after_ms: seconds.saturating_mul(1000),
        on_timeout,
    })
}

/// What a resumed inquiry was answered so far, in lines for standard error.
fn answered_so_far(state: &askuser_core::State, inquiry: &InquiryId, stream: &str) -> String {
    let mut text = format!("askuser: resuming inquiry \"{inquiry}\" of stream \"{stream}\"");
    let (Some(form), Some(slots)) = (state.form(inquiry), state.answers(inquiry)) else {
        return text;
    };
    let given: Vec<String> = form
        .questions()
        .iter()
        .zip(slots)
        .filter_map(|(question, slot)| {
            let value = slot.as_ref()?.answer.to_value(question);
            let shown = askuser_core::text::answer_words(&value);
            Some(format!(
                "  {} — {}",
                for_display_line(&question.text),
                for_display_line(&shown)
            ))
        })
        .collect();
    if given.is_empty() {
        text.push_str("; nothing is answered yet");
    } else {
        text.push_str("; answered so far:\n");
        text.push_str(&given.join("\n"));
    }
    text
}

/// The desk as the terminal's engine: hands it every input and renders what
/// comes back, and learns from it what other processes (the web inbox,
/// `askuser answer`, another terminal) recorded on the same log.
struct Recorder<'a> {
    journal: &'a mut Desk,
    stream: &'a str,
    failure: Option<askuser_app::AppError>,
    last: Vec<Command>,
    /// The last event of the stream the person's screen reflects: this walk's
    /// own last event, or the head when it last caught up.
    seen: Seq,
    /// The stream's head as the [`Waiter`] last saw it (`None`: no waiter).
    waiter: Option<Arc<AtomicU64>>,
    /// What the desk caught up on while it refused an input (another surface
    /// moved the inquiry first), for the next [`Engine::elsewhere`].
    told: Vec<Followed>,
}

/// How long the [`Waiter`] waits on the log at a time before it looks whether
/// the walk is over (an append wakes it at once).
const WAIT_SLICE: Duration = Duration::from_millis(250);

/// A thread waiting on the stream's log while the person is at a prompt
/// ([`Log::wait_past`]: the sled log's owner wakes it as an append lands,
/// whichever process makes it; PostgreSQL notifies it), keeping the head it
/// last saw, so the terminal learns of a change without a key pressed and
/// without reading the stream to look. Stopped (and joined, so the log it
/// holds closes with the journal) when dropped.
struct Waiter {
    head: Arc<AtomicU64>,
    stopped: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Waiter {
    /// Starts waiting on `stream` of `log` past `head`; `None` when no thread
    /// can be started (the terminal then learns of changes when the person
    /// acts, as it checks then).
    fn start(log: HeadWaiter, stream: &str, head: Seq) -> Option<Self> {
        let seen = Arc::new(AtomicU64::new(head));
        let stopped = Arc::new(AtomicBool::new(false));
        let stream = stream.to_owned();
        let (shared, stop) = (Arc::clone(&seen), Arc::clone(&stopped));
        let thread = std::thread::Builder::new()
            .name("askuser-ask-wait".to_owned())
            .spawn(move || {
                let mut head = head;
                while !stop.load(Ordering::SeqCst) {
                    match log.wait_past(&stream, head, WAIT_SLICE) {
                        Ok(now) if now > head => {
                            head = now;
                            shared.store(now, Ordering::SeqCst);
                        }
                        Ok(_) => {}
                        // The log is out of reach for now: look again later.
                        Err(_) => std::thread::sleep(WAIT_SLICE),
                    }
                }
            })
            .ok()?;
        Some(Self {
            head: seen,
            stopped,
            thread: Some(thread),
        })
    }
}

impl Drop for Waiter {
    fn drop(&mut self) {
        self.stopped.store(true, Ordering::SeqCst);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Engine for Recorder<'_> {
    fn handle(&mut self, input: &Input) -> Result<Vec<Command>, askuser_core::Refusal> {
        match self.journal.input(self.stream, input) {
            Ok(outcome) => match outcome.taken {
                Taken::Recorded { seq, commands } => {
                    // What the screen reflects now: this input, after whatever
                    // was recorded before it.
                    self.seen = seq;
                    self.told.clear();
                    self.last.clone_from(&commands);
                    Ok(commands)
                }
                Taken::Refused(refusal) => {
                    self.told.extend(outcome.elsewhere);
                    Err(refusal)
                }
            },
            Err(error) => {
                self.failure = Some(error);
                Ok(Vec::new())
            }
        }
    }

    fn elsewhere(&mut self, inquiry: &InquiryId) -> Option<Elsewhere> {
        match self.moved(inquiry) {
            Ok(moved) => moved,
            Err(error) => {
                self.failure = Some(error);
                None
            }
        }
    }

    /// Whether the [`Waiter`] saw the head pass what the screen reflects.
    fn woken(&mut self) -> bool {
        (self.waiter.as_ref()).is_some_and(|head| head.load(Ordering::SeqCst) > self.seen)
    }

    /// From the deadline every surface shows ([`Desk::deadline`], the
    /// engine's), by the log's clock; a log that cannot be read here leaves the
    /// prompter to count from the prompt.
    fn time_left(&mut self, inquiry: &InquiryId) -> Option<Duration> {
        let deadline = self.journal.deadline(self.stream, inquiry).ok()??;
        let left = deadline
            .millis()
            .saturating_sub(self.journal.now().millis());
        Some(Duration::from_millis(left))
    }

    /// The log's clock: the one the deadline counts by.
    fn now_ms(&mut self) -> u64 {
        self.journal.now().millis()
    }
}

impl Recorder<'_> {
    /// Catches up with the log ([`Desk::catch_up`], after what a refused input
    /// caught up on): what other processes recorded for `inquiry` since
    /// [`Recorder::seen`], and what it waits on now or how it ended.
    fn moved(&mut self, inquiry: &InquiryId) -> Result<Option<Elsewhere>, askuser_app::AppError> {
        let mut followed = std::mem::take(&mut self.told);
        followed.extend(self.journal.catch_up(self.stream)?);
        let seen = self.seen;
        self.seen = self.seen.max(self.journal.head(self.stream)?);
        let followed: Vec<Followed> = (followed.into_iter())
            .filter(|f| f.caught.seq > seen && f.caught.event.inquiry() == Some(inquiry))
            .collect();
        if followed.is_empty() {
            return Ok(None);
        }
        let state = self.journal.state(self.stream)?;
        let commands = match state.pending(inquiry) {
            Some(command) => vec![command],
            // How it ended: from what the catch-up applied, else as the state
            // keeps it.
            None => (followed.iter())
                .flat_map(|followed| &followed.caught.commands)
                .rfind(|command| askuser_core::Ending::of_inquiry(command, inquiry).is_some())
                .cloned()
                .or_else(|| state.result(inquiry))
                .into_iter()
                .collect(),
        };
        self.last.clone_from(&commands);
        let happened = (followed.into_iter())
            .filter_map(|followed| followed.happened)
            .collect();
        Ok(Some(Elsewhere { happened, commands }))
    }
}

/// Prints the outcome of the final command among `commands`.
fn finish(commands: &[Command], call: &Call) -> Result<u8, CliError> {
    let (text, code) = commands
        .iter()
        .find_map(|c| conclude(c, call))
        .ok_or(CliError::NoResult)?;
    print_out(&text)?;
    Ok(code)
}
