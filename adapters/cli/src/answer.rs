//! `askuser answer`: the second pass of the pending-file workflow, answering the
//! questions `askuser ask --pending` wrote to a file.

use std::path::{Path, PathBuf};

use askuser_core::text::{for_display, for_display_line};
use askuser_core::{Command, Event, InquiryId};
use askuser_llm::Call;
use askuser_rpc::Journal;
use askuser_rpc::pending::{self, PendingFile};
use serde_json::Value;

use crate::args::AnswerArgs;
use crate::common::{
    EXIT_REJECTED, conclude, db_path, default_db, note, open_journal, print_out, shell_word,
};
use crate::error::CliError;

/// `askuser answer FILE [--answers JSON] [--db PATH]`
///
/// Whenever a result exists it is printed: after recording the answers even if the
/// pending file cannot be rewritten (a warning on stderr says so), and again, read
/// from the log, for questions that were already answered.
pub fn answer(args: &AnswerArgs) -> Result<u8, CliError> {
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
    let call = pending_call(&mut journal, &file, &db)?;
    let commands = if is_finished(&mut journal, &file)? || file.status == "answered" {
        already_answered(&mut journal, &file, path, &db)?
    } else {
        match pending::answer(&mut journal, &file, &answers) {
            Ok(Ok(commands)) => commands,
            Ok(Err(problems)) => {
                rewrite(path, &file);
                let db = args.db.as_ref().map_or_else(String::new, |db| {
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
                note(&format!(
                    "{}\nNothing was recorded. {fix} and run `askuser answer {}{db}` again.",
                    listed.join("\n"),
                    shell_word(path.as_os_str())
                ));
                return Ok(EXIT_REJECTED);
            }
            // Another process answered first (the log took its answer, not this
            // one): the result it recorded is the result.
            Err(_) if is_finished(&mut journal, &file)? => {
                already_answered(&mut journal, &file, path, &db)?
            }
            Err(error) => return Err(error.into()),
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
    print_out(&text)?;
    Ok(code)
}

/// Whether the pending file's inquiry is finished in the log (by this file, or by
/// another process that answered first).
fn is_finished(journal: &mut Journal, file: &PendingFile) -> Result<bool, CliError> {
    Ok(journal
        .state(&file.stream)?
        .finished(&InquiryId::new(&file.inquiry))
        .is_some())
}

/// The result recorded for a pending file whose questions were already answered,
/// said so on standard error.
fn already_answered(
    journal: &mut Journal,
    file: &PendingFile,
    path: &Path,
    db: &Path,
) -> Result<Vec<Command>, CliError> {
    let recorded = pending::recorded_outcome(&**journal.log(), &file.stream, &file.inquiry)?;
    let Some(command) = recorded else {
        return Err(CliError::Other(format!(
            "{} says its questions were answered, but the log {} holds no result for inquiry \"{}\"; pass the --db it was asked with",
            path.display(),
            db.display(),
            for_display_line(&file.inquiry)
        )));
    };
    note("askuser: these questions were already answered; the recorded result follows");
    Ok(vec![command])
}

/// The call of a pending file's inquiry: from the journal while it is open, else
/// from its request recorded in the log (to print a finished inquiry's result).
fn pending_call(
    journal: &mut Journal,
    file: &PendingFile,
    db: &Path,
) -> Result<std::sync::Arc<Call>, CliError> {
    let inquiry = InquiryId::new(&file.inquiry);
    if let Some(call) = journal.call(&file.stream, &inquiry)? {
        return Ok(call);
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
            askuser_llm::Dialect::from_name(&call.dialect)?
                .parse(&call.arguments)
                .ok()
        })
        .map(std::sync::Arc::new)
        .ok_or_else(|| {
            CliError::Other(format!(
                "the call of inquiry \"{}\" is not recorded in {}; pass the --db it was asked with",
                for_display_line(&file.inquiry),
                for_display_line(&db.to_string_lossy())
            ))
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
    let is_log = askuser_store::is_postgres_url(&db)
        || matches!(
            askuser_store::check_db_path(&db, askuser_store::DbIntent::Existing),
            Ok(askuser_store::DbPathState::Log)
        );
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
