//! `askuser ask`, `askuser resume` and `askuser answer`: a form in the terminal,
//! or written to a pending file and answered later.

use std::io::{IsTerminal, Write};
use std::path::Path;

use askuser_core::{CancelReason, Command, Event, InquiryId};
use askuser_llm::Call;
use askuser_rpc::pending::{self, PENDING_FORMAT, PendingFile, PendingQuestion};
use askuser_rpc::{Journal, Step};
use askuser_store::{Clock, SystemClock};
use askuser_terminal::{InquirePrompter, TerminalError, run_inquiry};
use serde_json::Value;

use crate::args::parse;
use crate::common::{
    EXIT_NO_PERSON, EXIT_PENDING, EXIT_REJECTED, call_dialect, conclude, db_path, default_db,
    dialect, new_stream_name, open_journal, parse_call, person_present, read_text,
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
    let text = read_text(file)?;
    let dialect = call_dialect(&parsed, &text)?;
    let (arguments, call) = parse_call(dialect, &text);
    let call = match call {
        Ok(call) => call,
        Err(rejection) => {
            println!("{}", rejection.tool_error_text());
            return Ok(EXIT_REJECTED);
        }
    };
    let db = db_path(&parsed)?;
    let mut journal = open_journal(&db)?;
    let stream = parsed
        .option("stream")
        .map_or_else(|| new_stream_name("ask"), str::to_owned);
    let inquiry = match parsed.option("inquiry") {
        Some(inquiry) => inquiry.to_owned(),
        None => format!("call-{}", journal.head(&stream)? + 1),
    };
    let pending = parsed.option("pending").map(Path::new);
    let mut request = call.request(InquiryId::new(&inquiry));
    request.policy.interactive = pending.is_some() || person_present();
    let first = match journal.request(&stream, &call, &arguments, request)? {
        Step::Recorded { commands, .. } => commands,
        Step::Refused(error) => {
            return Err(CliError::Other(format!(
                "{error} (stream \"{stream}\"; pass another --inquiry or --stream)"
            )));
        }
    };
    if let (Some(path), Some(Command::Prompt(_))) = (pending, first.first()) {
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
        file.write(path)?;
        print!("{}", pending::instructions(path));
        return Ok(EXIT_PENDING);
    }
    let code = walk(&mut journal, &stream, &inquiry, &call, first)?;
    eprintln!(
        "askuser: recorded as stream \"{stream}\" in {}",
        db.display()
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
    walk(&mut journal, &stream, inquiry.as_str(), &call, vec![first])
}

/// Runs an inquiry in the terminal from `first`, recording every event; prints the
/// result and returns the exit status.
fn walk(
    journal: &mut Journal,
    stream: &str,
    inquiry: &str,
    call: &Call,
    first: Vec<Command>,
) -> Result<u8, CliError> {
    let mut failure = None;
    let mut last = Vec::new();
    let finished = run_inquiry(
        &mut InquirePrompter::new(),
        first.clone(),
        |event| match journal.apply(stream, event) {
            Ok(Step::Recorded { commands, .. }) => {
                last.clone_from(&commands);
                Ok(commands)
            }
            Ok(Step::Refused(refusal)) => Err(refusal),
            Err(error) => {
                failure = Some(error);
                Ok(Vec::new())
            }
        },
    );
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
pub fn answer(args: &[String]) -> Result<u8, CliError> {
    let parsed = parse("answer", args, &["answers", "db"], &[])?;
    parsed.expect_positionals("answer", &["file"], 0)?;
    let path = Path::new(&parsed.positionals[0]);
    let mut file = PendingFile::read(path)?;
    if file.status == "answered" {
        return Err(CliError::Other(format!(
            "{} was already answered; its result: {}",
            path.display(),
            file.result
                .as_ref()
                .map_or_else(String::new, ToString::to_string)
        )));
    }
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
    let db = match (parsed.option("db"), &file.db) {
        (Some(db), _) => db.into(),
        (None, Some(db)) => db.into(),
        (None, None) => default_db()?,
    };
    let mut journal = open_journal(&db)?;
    let call = journal
        .call(&file.stream, &InquiryId::new(&file.inquiry))?
        .ok_or_else(|| {
            CliError::Other(format!(
                "the call of inquiry \"{}\" is not recorded in {}; pass the --db it was asked with",
                file.inquiry,
                db.display()
            ))
        })?;
    let commands = match pending::answer(&mut journal, &file, &answers)? {
        Ok(commands) => commands,
        Err(problem) => {
            file.write(path)?;
            eprintln!(
                "askuser: {problem}\nNothing was recorded. Fix the answer and run `askuser answer {}` again.",
                path.display()
            );
            return Ok(EXIT_REJECTED);
        }
    };
    let (text, code) = commands
        .iter()
        .find_map(|c| conclude(c, &call))
        .ok_or_else(|| CliError::Other("the answers did not finish the inquiry".into()))?;
    "answered".clone_into(&mut file.status);
    file.result = Some(
        serde_json::from_str::<Value>(text.trim_end())
            .unwrap_or_else(|_| Value::String(text.trim_end().to_owned())),
    );
    file.write(path)?;
    print!("{text}");
    Ok(code)
}

fn given_answers(text: &str, count: usize) -> Result<Vec<Value>, CliError> {
    let usage = |detail: String| {
        CliError::Usage(format!(
            "--answers {detail}: give a JSON list with one answer per question, in order (null for one that is skipped), e.g. '[true, \"staging\", null]'"
        ))
    };
    match serde_json::from_str::<Value>(text) {
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
