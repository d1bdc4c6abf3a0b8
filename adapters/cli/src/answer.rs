//! `askuser answer`: the second pass of the pending-file workflow, answering the
//! questions `askuser ask --pending` wrote to a file.

use std::path::{Path, PathBuf};

use askuser_app::Journal;
use askuser_app::pending::{self, AnswerProblem, Mismatch, NotRecorded, PendingFile};
use askuser_core::text::{self, for_display, for_display_line};
use askuser_core::{Command, Event, Finished, InquiryId, Question};
use askuser_dialects::Call;
use serde_json::Value;

use crate::args::AnswerArgs;
use crate::common::{
    EXIT_REJECTED, conclude, db_hint, db_path, default_db, note, open_journal, print_out,
    shell_word,
};
use crate::error::CliError;

/// The most characters of a question or an answer the printed lines show.
const SHOWN_CHARS: usize = 200;

/// `askuser answer FILE [--answers JSON] [--db PATH]`
///
/// The file is compared with the questions its inquiry recorded in the log, and
/// refused (nothing recorded, exit 2) if it no longer shows them. The answers are
/// recorded together, and each question is printed beside its answer on standard
/// error. Whenever a result exists it is printed: after recording the answers even
/// if the pending file cannot be rewritten (a warning on stderr says so), and
/// again, read from the log, for questions that were already answered, here or
/// elsewhere (the terminal, the browser).
pub(crate) fn answer(args: &AnswerArgs) -> Result<u8, CliError> {
    let path = args.file.as_path();
    let mut file = PendingFile::read(path)?;
    let answers = match args.answers.as_deref() {
        Some(text) => {
            let answers = given_answers(text, file.questions.len())?;
            for (question, answer) in file.questions.iter_mut().zip(&answers) {
                question.answer = answer.clone();
            }
            answers
        }
        None => file.answers(),
    };
    let db = pending_db(args.db.as_deref(), &file)?;
    let mut journal = open_journal(&db)?;
    let call = pending_call(&mut journal, &file, path, &db)?;
    if file.status == "answered" && !is_finished(&mut journal, &file)? {
        return Err(no_result(&file, path, &db));
    }
    let commands = match pending::answer(&mut journal, &file, &answers)? {
        Ok(recorded) => {
            note(&answered_lines(&file, &recorded.answers));
            recorded.commands
        }
        Err(NotRecorded::Problems(problems)) => {
            rewrite(path, &file);
            note(&problems_text(&problems, path, args.db.as_deref()));
            return Ok(EXIT_REJECTED);
        }
        Err(NotRecorded::Mismatch { mismatch, open }) => {
            note(&mismatch_text(&file, &mismatch, open, path, &db));
            return Ok(EXIT_REJECTED);
        }
        Err(NotRecorded::PartlyAnswered(given)) => {
            note(&partly_text(&file, &given, &db));
            return Ok(EXIT_REJECTED);
        }
        Err(NotRecorded::Finished) => {
            let command = recorded_result(&mut journal, &file, path, &db)?;
            if file.status == "answered" {
                note("askuser: these questions were already answered; the recorded result follows");
            } else {
                let finished = journal
                    .state(&file.stream)?
                    .finished(&InquiryId::new(&file.inquiry));
                let ends_turn = matches!(command, Command::EndTurn { .. });
                note(&elsewhere_text(&file, finished, ends_turn));
            }
            vec![command]
        }
    };
    let (text, code) = commands
        .iter()
        .find_map(|c| conclude(c, &call))
        .ok_or(CliError::AnswersDidNotFinish)?;
    if file.status != "answered" {
        "answered".clone_into(&mut file.status);
        file.result = Some(
            serde_json::from_str::<Value>(text.trim_end())
                .unwrap_or_else(|_| Value::String(text.trim_end().to_owned())),
        );
        rewrite(path, &file);
    }
    print_out(&text)?;
    Ok(code)
}

/// `inquiry "call-1" of stream "s"`, safe on a terminal.
fn inquiry_words(file: &PendingFile) -> String {
    format!(
        "inquiry \"{}\" of stream \"{}\"",
        for_display_line(&file.inquiry),
        for_display_line(&file.stream)
    )
}

/// `askuser resume STREAM --inquiry ID [--db PATH]`, to paste.
fn resume_command(file: &PendingFile, db: &Path) -> String {
    format!(
        "askuser resume {} --inquiry {}{}",
        shell_word(file.stream.as_ref()),
        shell_word(file.inquiry.as_ref()),
        db_hint(db)
    )
}

/// `  Question? — answer`, one line, safe on a terminal and clipped.
fn question_line(question: &Question, answer: &str) -> String {
    format!(
        "  {} — {}",
        clip(&for_display_line(&question.text)),
        clip(&for_display_line(answer))
    )
}

/// `text`, or its first [`SHOWN_CHARS`] characters and how many there are.
fn clip(text: &str) -> String {
    match text.char_indices().nth(SHOWN_CHARS) {
        Some((end, _)) => format!("{}… ({} characters)", &text[..end], text.chars().count()),
        None => text.to_owned(),
    }
}

/// What was recorded: each question beside its answer, for standard error.
fn answered_lines(file: &PendingFile, answers: &[(Question, Option<Value>)]) -> String {
    let mut lines = format!("askuser: recorded for {}:", inquiry_words(file));
    for (question, value) in answers {
        let answer = value.as_ref().map_or_else(
            || "not asked (its condition did not hold)".to_owned(),
            text::answer_words,
        );
        lines.push('\n');
        lines.push_str(&question_line(question, &answer));
    }
    lines
}

/// Every answer that does not fit its question, and how to go on.
fn problems_text(problems: &[AnswerProblem], path: &Path, db: Option<&Path>) -> String {
    let db = db.map_or_else(String::new, |db| {
        format!(" --db {}", shell_word(db.as_os_str()))
    });
    let listed: Vec<String> = problems
        .iter()
        .map(|problem| format!("askuser: {}", for_display(&problem.to_string())))
        .collect();
    let fix = if problems.len() == 1 {
        "Fix the answer"
    } else {
        "Fix the answers"
    };
    format!(
        "{}\nNothing was recorded. {fix} and run `askuser answer {}{db}` again.",
        listed.join("\n"),
        shell_word(path.as_os_str())
    )
}

/// A file that no longer shows the questions its inquiry recorded: what differs,
/// and how to go on.
fn mismatch_text(
    file: &PendingFile,
    mismatch: &Mismatch,
    open: bool,
    path: &Path,
    db: &Path,
) -> String {
    let next = if open {
        format!(
            "Write the pending file again with `askuser ask --pending`, or answer in the terminal with `{}`.",
            resume_command(file, db)
        )
    } else {
        format!(
            "The inquiry is finished; see `askuser log show {}{}`.",
            shell_word(file.stream.as_ref()),
            db_hint(db)
        )
    };
    format!(
        "askuser: {} no longer matches the questions it was written for ({} in the log): {}.\nNothing was recorded. {next}",
        for_display_line(&path.display().to_string()),
        inquiry_words(file),
        for_display(&mismatch.to_string())
    )
}

/// An inquiry another surface began answering first: what it answered, and how
/// to go on.
fn partly_text(file: &PendingFile, given: &[(Question, Value)], db: &Path) -> String {
    let mut lines = format!(
        "askuser: {} was partly answered elsewhere first (in the terminal or the browser):",
        inquiry_words(file)
    );
    for (question, value) in given {
        lines.push('\n');
        lines.push_str(&question_line(question, &text::answer_words(value)));
    }
    format!(
        "{lines}\nNothing was recorded. Finish it where it was begun, or in the terminal with `{}`.",
        resume_command(file, db)
    )
}

/// An inquiry another surface (or an earlier `askuser answer`) finished first:
/// how it ended, for standard error before its result.
fn elsewhere_text(file: &PendingFile, finished: Option<Finished>, ends_turn: bool) -> String {
    let how = match finished {
        Some(Finished::Completed) | None => "already answered elsewhere",
        Some(Finished::Cancelled) => "already finished elsewhere: the person chose Reply",
        Some(Finished::TurnEnded) => "already finished elsewhere: the person ended the turn",
        Some(Finished::TimedOut) => "already finished elsewhere: it timed out",
        Some(Finished::Failed) => "already finished elsewhere: it failed",
    };
    let got = if ends_turn {
        "the assistant got no result"
    } else {
        "the result the assistant got follows"
    };
    format!(
        "askuser: {} was {how} (in the terminal, the browser or an earlier `askuser answer`), so the answers given here were not recorded; {got}",
        inquiry_words(file)
    )
}

/// Whether the pending file's inquiry is finished in the log (by this file, or by
/// another process that answered first).
fn is_finished(journal: &mut Journal, file: &PendingFile) -> Result<bool, CliError> {
    Ok(journal
        .state(&file.stream)?
        .finished(&InquiryId::new(&file.inquiry))
        .is_some())
}

/// A file that says it was answered, for a log that holds no result.
fn no_result(file: &PendingFile, path: &Path, db: &Path) -> CliError {
    CliError::AnsweredWithoutResult {
        file: path.display().to_string(),
        db: db.display().to_string(),
        inquiry: for_display_line(&file.inquiry).into_owned(),
    }
}

/// The final command recorded for a pending file's finished inquiry.
fn recorded_result(
    journal: &mut Journal,
    file: &PendingFile,
    path: &Path,
    db: &Path,
) -> Result<Command, CliError> {
    pending::recorded_outcome(&**journal.log(), &file.stream, &file.inquiry)?
        .ok_or_else(|| no_result(file, path, db))
}

/// The call of a pending file's inquiry: from the journal while it is open, else
/// from its request recorded in the log (to print a finished inquiry's result).
fn pending_call(
    journal: &mut Journal,
    file: &PendingFile,
    path: &Path,
    db: &Path,
) -> Result<std::sync::Arc<Call>, CliError> {
    let inquiry = InquiryId::new(&file.inquiry);
    if let Some(call) = journal.call(&file.stream, &inquiry)? {
        return Ok(call);
    }
    if !journal.state(&file.stream)?.was_requested(&inquiry) {
        return Err(CliError::NotInLog {
            file: path.display().to_string(),
            inquiry: inquiry_words(file),
            db: db.display().to_string(),
        });
    }
    let log = std::sync::Arc::clone(journal.log());
    let events = log
        .info(&file.stream)
        .and_then(|info| log.read(&file.stream, info.floor + 1));
    let recorded = events.ok().and_then(|mut events| {
        events.find_map(|recorded| match recorded.ok()?.event {
            Event::Requested(request) if request.inquiry == inquiry => request.call,
            _ => None,
        })
    });
    recorded
        .and_then(|call| {
            askuser_dialects::Dialect::from_name(&call.dialect)?
                .parse(&call.arguments)
                .ok()
        })
        .map(std::sync::Arc::new)
        .ok_or_else(|| CliError::CallNotRecorded {
            inquiry: for_display_line(&file.inquiry).into_owned(),
            db: for_display_line(&db.to_string_lossy()).into_owned(),
        })
}

/// Rewrites the pending file; a failure is a warning, never a lost result.
fn rewrite(path: &Path, file: &PendingFile) {
    if let Err(error) = file.write(path) {
        note(&format!(
            "askuser: warning: {}; the result is printed below all the same",
            for_display(&error.to_string())
        ));
    }
}

/// The log of a pending file: `--db`, else the file's `db` (which must be an
/// existing askuser log: a file's word never makes askuser create one), else the
/// default.
fn pending_db(db: Option<&Path>, file: &PendingFile) -> Result<PathBuf, CliError> {
    if db.is_some_and(|db| !db.as_os_str().is_empty()) {
        return db_path(db);
    }
    let Some(db) = &file.db else {
        return default_db();
    };
    let db = PathBuf::from(db);
    let is_log = askuser_app::is_postgres_url(&db)
        || matches!(
            askuser_app::location::check_db_path(&db, askuser_app::location::DbIntent::Existing),
            Ok(askuser_app::location::DbPathState::Log)
        );
    if !is_log {
        return Err(CliError::NotALog {
            db: for_display_line(&db.display().to_string()).into_owned(),
        });
    }
    Ok(db)
}

fn given_answers(text: &str, count: usize) -> Result<Vec<Value>, CliError> {
    let usage = |detail: String| {
        CliError::Usage(format!(
            "--answers {detail}: give a JSON list with one answer per question, in order (null for one that is skipped), e.g. '[true, \"staging\", null]'"
        ))
    };
    match askuser_app::from_str_unique(text) {
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
