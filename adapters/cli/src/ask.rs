//! `askuser ask`, `askuser resume` and `askuser answer`: a form in the terminal,
//! or written to a pending file and answered later.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use askuser_core::text::{for_display, for_display_line};
use askuser_core::{CancelReason, Command, Event, InquiryId, OnTimeout, Timeout};
use askuser_llm::Call;
use askuser_rpc::pending::{self, PENDING_FORMAT, PendingFile, PendingQuestion, PendingTarget};
use askuser_rpc::{Journal, Step};
use askuser_store::{Clock, SystemClock};
use askuser_terminal::{Engine, TerminalError, TerminalPrompter, run_with_engine};
use serde_json::Value;

use crate::args::parse;
use crate::common::{
    EXIT_NO_PERSON, EXIT_PENDING, EXIT_REJECTED, call_dialect, conclude, db_path, default_db,
    dialect, open_journal, parse_call, person_present, read_text, stream_option,
};
use crate::error::CliError;

/// `askuser ask [--dialect D] [--db PATH] [--stream NAME] [--inquiry ID] [--pending FILE] [FILE|-]`
pub fn ask(args: &[String]) -> Result<u8, CliError> {
    let parsed = parse(
        "ask",
        args,
        &["dialect", "db", "stream", "inquiry", "pending"],
        &[],
    )?;
    parsed.expect_positionals("ask", &["file"], 1)?;
    dialect(&parsed)?; // an unknown --dialect is reported before the call is read
    let file = match parsed.positionals.first() {
        Some(file) => file.as_str(),
        None if std::io::stdin().is_terminal() => {
            return Err(CliError::Usage(
                "`askuser ask` needs a call: give a FILE, or - to read one from standard input"
                    .into(),
            ));
        }
        None => "-",
    };
    let stream = stream_option(&parsed, "ask")?;
    let text = read_text(file)?;
    let dialect = call_dialect(&parsed, &text)?;
    let (arguments, call) = parse_call(dialect, &text);
    let call = match call {
        Ok(call) => call,
        Err(rejection) => {
            println!("{}", for_display(&rejection.tool_error_text()));
            return Ok(EXIT_REJECTED);
        }
    };
    // The pending file's place is proven writable before anything is recorded, so
    // no inquiry is left open that nothing could answer.
    let pending = parsed.option("pending").map(Path::new);
    let timeout = timeout_from_env()?;
    let target = pending.map(PendingTarget::prepare).transpose()?;
    let db = db_path(&parsed)?;
    let mut journal = open_journal(&db)?;
    let inquiry = match parsed.option("inquiry") {
        Some(inquiry) => inquiry.to_owned(),
        None => format!("call-{}", journal.head(&stream)? + 1),
    };
    let mut request = call.request(InquiryId::new(&inquiry));
    request.policy.interactive = pending.is_some() || person_present();
    request.policy.timeout = timeout;
    let first = match journal.request(&stream, &call, &arguments, request)? {
        Step::Recorded { commands, .. } => commands,
        Step::Refused(error) => {
            return Err(CliError::Other(format!(
                "{error} (stream \"{stream}\"; pass another --inquiry or --stream)"
            )));
        }
    };
    if let (Some(path), Some(target), Some(Command::Prompt(_))) = (pending, target, first.first()) {
        let file = PendingFile {
            format: PENDING_FORMAT.to_owned(),
            status: "pending".to_owned(),
            db: Some(absolute(&db).display().to_string()),
            stream: stream.clone(),
            inquiry,
            dialect: dialect.name().to_owned(),
            timestamp: SystemClock.now().to_string(),
            questions: call
                .form()
                .questions()
                .iter()
                .map(PendingQuestion::from_question)
                .collect(),
            result: None,
        };
        target.write(&file)?;
        print!("{}", for_display(&pending::instructions(path)));
        return Ok(EXIT_PENDING);
    }
    let code = walk(&mut journal, &stream, &inquiry, &call, first, timeout)?;
    eprintln!(
        "askuser: recorded as stream \"{stream}\" in {}",
        for_display_line(&db.display().to_string())
    );
    Ok(code)
}

/// `askuser resume STREAM [--db PATH]`: asks the open inquiry of a stream (a fork,
/// say) in the terminal, from its current question.
pub fn resume(args: &[String]) -> Result<u8, CliError> {
    let parsed = parse("resume", args, &["db", "inquiry"], &[])?;
    parsed.expect_positionals("resume", &["stream"], 0)?;
    let stream = parsed.positionals[0].clone();
    let db = db_path(&parsed)?;
    let mut journal = open_journal(&db)?;
    journal.log().info(&stream)?;
    let state = journal.state(&stream)?;
    let inquiry = match parsed.option("inquiry") {
        Some(inquiry) => inquiry.to_owned(),
        None => state.open_inquiries().next().map(ToString::to_string).ok_or_else(|| {
            CliError::Other(format!(
                "stream \"{stream}\" has no open inquiry: every question was answered (see `askuser log show {stream}`)"
            ))
        })?,
    };
    let inquiry = InquiryId::new(inquiry);
    let Some(first) = state.pending(&inquiry) else {
        return Err(CliError::Other(format!(
            "inquiry \"{inquiry}\" of stream \"{stream}\" is not open"
        )));
    };
    let call = journal.call(&stream, &inquiry)?.ok_or_else(|| {
        CliError::Other(format!(
            "the call of inquiry \"{inquiry}\" was not recorded in {}; it cannot be resumed",
            db.display()
        ))
    })?;
    if !person_present() {
        println!(
            "no interactive terminal is available; run `askuser resume {stream}` in a terminal"
        );
        return Ok(EXIT_NO_PERSON);
    }
    // A resumed inquiry's time limit is not read back from its request here.
    walk(
        &mut journal,
        &stream,
        inquiry.as_str(),
        &call,
        vec![first],
        None,
    )
}

/// Runs an inquiry in the terminal from `first`, recording every event; prints the
/// result and returns the exit status.
fn walk(
    journal: &mut Journal,
    stream: &str,
    inquiry: &str,
    call: &Call,
    first: Vec<Command>,
    timeout: Option<Timeout>,
) -> Result<u8, CliError> {
    // Uppercase Y / N remember an answer only where the call's policy allows it.
    let remember =
        call.request(InquiryId::new(inquiry)).policy.persistence == askuser_core::Persistence::Turn;
    let mut recorder = Recorder {
        journal,
        stream,
        failure: None,
        last: Vec::new(),
    };
    let finished = run_with_engine(
        &mut TerminalPrompter::new()
            .with_remember(remember)
            .with_timeout(timeout),
        first.clone(),
        &mut recorder,
    );
    let Recorder { failure, last, .. } = recorder;
    if let Some(error) = failure {
        return Err(error.into());
    }
    let commands = match finished {
        Ok(_) if last.is_empty() => first,
        Ok(_) => last,
        Err(TerminalError::NotATerminal) => {
            let event = Event::Cancelled {
                inquiry: InquiryId::new(inquiry),
                reason: CancelReason::NoPromptBackend,
                message: None,
            };
            match journal.apply(stream, &event)? {
                Step::Recorded { commands, .. } => commands,
                Step::Refused(error) => return Err(CliError::Other(error.to_string())),
            }
        }
        Err(error) => return Err(CliError::Other(error.to_string())),
    };
    finish(&commands, call)
}

/// The environment variable that gives `ask` a time limit, in seconds.
const TIMEOUT_VARIABLE: &str = "ASKUSER_TIMEOUT";

/// The environment variable that says what happens when the time is up.
const ON_TIMEOUT_VARIABLE: &str = "ASKUSER_ON_TIMEOUT";

/// The policy's time limit from `ASKUSER_TIMEOUT` (whole seconds) and
/// `ASKUSER_ON_TIMEOUT` (`cancel`, the default; `defaults`; `end_turn`).
fn timeout_from_env() -> Result<Option<Timeout>, CliError> {
    let on_timeout = std::env::var(ON_TIMEOUT_VARIABLE).ok();
    let Ok(seconds) = std::env::var(TIMEOUT_VARIABLE) else {
        return match on_timeout {
            Some(_) => Err(CliError::Usage(format!(
                "{ON_TIMEOUT_VARIABLE} is set but {TIMEOUT_VARIABLE} is not: give both, e.g. {TIMEOUT_VARIABLE}=60 {ON_TIMEOUT_VARIABLE}=defaults"
            ))),
            None => Ok(None),
        };
    };
    let after_ms = seconds
        .trim()
        .parse::<u64>()
        .ok()
        .filter(|s| *s > 0)
        .and_then(|s| s.checked_mul(1000))
        .ok_or_else(|| {
            CliError::Usage(format!(
                "{TIMEOUT_VARIABLE} is \"{}\": give a whole number of seconds of at least 1, e.g. {TIMEOUT_VARIABLE}=60",
                for_display_line(&seconds)
            ))
        })?;
    let on_timeout = match on_timeout.as_deref().map(str::trim) {
        None | Some("cancel") => OnTimeout::Cancel,
        Some("defaults") => OnTimeout::Defaults,
        Some("end_turn") => OnTimeout::EndTurn,
        Some(other) => {
            return Err(CliError::Usage(format!(
                "{ON_TIMEOUT_VARIABLE} is \"{}\": give cancel (send the answers so far), defaults (fill the rest with their defaults) or end_turn",
                for_display_line(other)
            )));
        }
    };
    Ok(Some(Timeout {
        after_ms,
        on_timeout,
    }))
}

/// The journal as the terminal's engine: records every event, and looks ahead
/// (for the review) on a copy of the stream's state.
struct Recorder<'a> {
    journal: &'a mut Journal,
    stream: &'a str,
    failure: Option<askuser_rpc::RpcError>,
    last: Vec<Command>,
}

impl Engine for Recorder<'_> {
    fn apply(&mut self, event: &Event) -> Result<Vec<Command>, askuser_core::Refusal> {
        match self.journal.apply(self.stream, event) {
            Ok(Step::Recorded { commands, .. }) => {
                self.last.clone_from(&commands);
                Ok(commands)
            }
            Ok(Step::Refused(refusal)) => Err(refusal),
            Err(error) => {
                self.failure = Some(error);
                Ok(Vec::new())
            }
        }
    }

    fn preview(&mut self, event: &Event) -> Option<Vec<Command>> {
        let mut state = self.journal.state(self.stream).ok()?.clone();
        askuser_core::reduce(&mut state, event).ok()
    }
}

/// Prints the outcome of the final command among `commands`.
fn finish(commands: &[Command], call: &Call) -> Result<u8, CliError> {
    let (text, code) = commands
        .iter()
        .find_map(|c| conclude(c, call))
        .ok_or_else(|| CliError::Other("the inquiry ended without a result".into()))?;
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(code)
}

fn absolute(path: &Path) -> std::path::PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_owned())
}

/// `askuser answer FILE [--answers JSON] [--db PATH]`
///
/// Whenever a result exists it is printed: after recording the answers even if the
/// pending file cannot be rewritten (a warning on stderr says so), and again, read
/// from the log, for questions that were already answered.
pub fn answer(args: &[String]) -> Result<u8, CliError> {
    let parsed = parse("answer", args, &["answers", "db"], &[])?;
    parsed.expect_positionals("answer", &["file"], 0)?;
    let path = Path::new(&parsed.positionals[0]);
    let mut file = PendingFile::read(path)?;
    let answers = match parsed.option("answers") {
        Some(text) => {
            let answers = given_answers(text, file.questions.len())?;
            for (question, answer) in file.questions.iter_mut().zip(&answers) {
                question.answer = answer.clone();
            }
            answers
        }
        None => file.answers(),
    };
    let db = pending_db(&parsed, &file)?;
    let mut journal = open_journal(&db)?;
    let call = journal
        .call(&file.stream, &InquiryId::new(&file.inquiry))?
        .ok_or_else(|| {
            CliError::Other(format!(
                "the call of inquiry \"{}\" is not recorded in {}; pass the --db it was asked with",
                for_display_line(&file.inquiry),
                for_display_line(&db.display().to_string())
            ))
        })?;
    let finished = journal
        .state(&file.stream)?
        .finished(&InquiryId::new(&file.inquiry))
        .is_some();
    let commands = if finished || file.status == "answered" {
        let recorded = pending::recorded_outcome(&**journal.log(), &file.stream, &file.inquiry)?;
        let Some(command) = recorded else {
            return Err(CliError::Other(format!(
                "{} says its questions were answered, but the log {} holds no result for inquiry \"{}\"; pass the --db it was asked with",
                path.display(),
                db.display(),
                for_display_line(&file.inquiry)
            )));
        };
        eprintln!("askuser: these questions were already answered; the recorded result follows");
        vec![command]
    } else {
        match pending::answer(&mut journal, &file, &answers)? {
            Ok(commands) => commands,
            Err(problem) => {
                rewrite(path, &file);
                eprintln!(
                    "askuser: {}\nNothing was recorded. Fix the answer and run `askuser answer {}` again.",
                    for_display(&problem.to_string()),
                    path.display()
                );
                return Ok(EXIT_REJECTED);
            }
        }
    };
    let (text, code) = commands
        .iter()
        .find_map(|c| conclude(c, &call))
        .ok_or_else(|| CliError::Other("the answers did not finish the inquiry".into()))?;
    if file.status != "answered" {
        "answered".clone_into(&mut file.status);
        file.result = Some(
            serde_json::from_str::<Value>(text.trim_end())
                .unwrap_or_else(|_| Value::String(text.trim_end().to_owned())),
        );
        rewrite(path, &file);
    }
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(code)
}

/// Rewrites the pending file; a failure is a warning, never a lost result.
fn rewrite(path: &Path, file: &PendingFile) {
    if let Err(error) = file.write(path) {
        eprintln!(
            "askuser: warning: {}; the result is printed below all the same",
            for_display(&error.to_string())
        );
    }
}

/// The log of a pending file: `--db`, else the file's `db` (which must be an
/// existing askuser log: a file's word never makes askuser create one), else the
/// default.
fn pending_db(parsed: &crate::args::Parsed, file: &PendingFile) -> Result<PathBuf, CliError> {
    if parsed.option("db").is_some() {
        return db_path(parsed);
    }
    let Some(db) = &file.db else {
        return default_db();
    };
    let db = PathBuf::from(db);
    let is_log = db.is_dir() && db.join("conf").is_file() && db.join("db").is_file();
    if !is_log {
        return Err(CliError::Other(format!(
            "the pending file names the log {}, which is not an askuser log; askuser creates no log for a pending file: pass --db with the log the questions were asked with",
            for_display_line(&db.display().to_string())
        )));
    }
    Ok(db)
}

fn given_answers(text: &str, count: usize) -> Result<Vec<Value>, CliError> {
    let usage = |detail: String| {
        CliError::Usage(format!(
            "--answers {detail}: give a JSON list with one answer per question, in order (null for one that is skipped), e.g. '[true, \"staging\", null]'"
        ))
    };
    match askuser_rpc::from_str_unique(text) {
        Ok(Value::Array(answers)) if answers.len() <= count => Ok(answers),
        Ok(Value::Array(answers)) => Err(usage(format!(
            "has {} answers for {count} question{}",
            answers.len(),
            if count == 1 { "" } else { "s" }
        ))),
        Ok(_) => Err(usage("is not a list".into())),
        Err(error) => Err(usage(format!("is not JSON ({error})"))),
    }
}
