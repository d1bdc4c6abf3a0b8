//! `askuser answer`: the second pass of the pending-file workflow, answering the
//! questions `askuser ask --pending` wrote to a file.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use askuser_app::AppError;
use askuser_app::pending::{
    self, AnswerProblem, Finished, Mismatch, NotRecorded, PendingFile, Recorded,
};
use askuser_core::text::{self, for_display, for_display_line};
use askuser_core::{Command, Ending, Question};
use askuser_dialects::Call;
use serde_json::Value;

use crate::args::AnswerArgs;
use crate::common::{
    EXIT_REJECTED, conclude, db_hint, db_path, note, open_journal, print_out, shell_word,
};
use crate::error::CliError;

/// The most characters of a question or an answer the printed lines show.
const SHOWN_CHARS: usize = 200;

/// `askuser answer FILE [--answers JSON] [--db PATH]`
///
/// The file must carry the seal `askuser ask --pending` wrote for its log,
/// stream and inquiry (an edit of any of them is refused, naming it). It is
/// compared with the questions its inquiry recorded in the log, and
/// refused (nothing recorded, exit 2) if it no longer shows them. The answers are
/// recorded together, and each question is printed beside its answer on standard
/// error. Whenever a result exists it is printed: after recording the answers even
/// if the pending file cannot be rewritten (a warning on stderr says so), and
/// again, as the log's state keeps it, for questions that were already answered,
/// here or elsewhere (the terminal, the browser).
///
/// One trip: the file and the answers are read, the log opened, the answers
/// handed to the application layer ([`pending::answer`]) once, and what came
/// back told in words ([`told`]) and printed.
pub(crate) fn answer(args: &AnswerArgs) -> Result<u8, CliError> {
    let path = args.file.as_path();
    let mut file = PendingFile::read(path)?;
    let answers = given_answers(args.answers.as_deref(), &mut file)?;
    let db = pending_db(args.db.as_deref(), &file)?;
    let mut journal = open_journal(&db)?;
    file.check_seal(path, &pending::key(&db)?)?;
    let hints = Hints::new(&file, path, &db, args.db.as_deref());
    let answered = pending::answer(&mut journal, &file, &answers);
    let told = told(&file, answered, &hints)?;
    if told.rewrite {
        rewrite(path, &file);
    }
    note(&told.words);
    let Some((commands, call)) = told.result else {
        return Ok(EXIT_REJECTED);
    };
    let call = call.ok_or_else(|| hints.call_not_recorded())?;
    let (text, code) = (commands.iter())
        .find_map(|command| conclude(command, &call))
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

/// What [`pending::answer`] came to, in words for standard error, with the
/// result to print (its command and the call to render it with), if any.
struct Told {
    /// The lines for standard error.
    words: String,
    /// The result, when there is one: refused answers have none (exit 2).
    result: Option<(Vec<Command>, Option<Arc<Call>>)>,
    /// Whether the file is written again first (with the answers given, to fix).
    rewrite: bool,
}

/// What the application layer's answer came to, in words.
fn told(
    file: &PendingFile,
    answered: Result<Result<Recorded, NotRecorded>, AppError>,
    hints: &Hints,
) -> Result<Told, CliError> {
    let refused = |words: String| Told {
        words,
        result: None,
        rewrite: false,
    };
    Ok(match answered {
        Err(AppError::NoSuchInquiry { .. }) => return Err(hints.not_in_log()),
        Err(error) => return Err(error.into()),
        Ok(Ok(recorded)) => Told {
            words: answered_lines(&recorded.answers, hints),
            result: Some((recorded.commands, recorded.call)),
            rewrite: false,
        },
        Ok(Err(NotRecorded::Problems(problems))) => Told {
            rewrite: true,
            ..refused(problems_text(&problems, hints))
        },
        Ok(Err(NotRecorded::Mismatch { mismatch, open })) => {
            refused(mismatch_text(&mismatch, open, hints))
        }
        Ok(Err(NotRecorded::PartlyAnswered(given))) => refused(partly_text(&given, hints)),
        Ok(Err(NotRecorded::NoResult)) => return Err(hints.no_result()),
        Ok(Err(NotRecorded::Finished(finished))) => Told {
            words: elsewhere_text(file, &finished, hints),
            result: Some((vec![finished.result], finished.call)),
            rewrite: false,
        },
    })
}

/// The words of a pending file and its log, made once, safe on a terminal and
/// ready to paste: what every message of `askuser answer` names.
struct Hints {
    /// `inquiry "call-1" of stream "s"`.
    inquiry: String,
    /// The inquiry's id alone.
    id: String,
    /// The pending file, as a path.
    file: String,
    /// The pending file, as a path safe on a terminal.
    shown_file: String,
    /// The log, as a path or URL.
    db: String,
    /// `askuser answer FILE [--db PATH]`, as the person ran it.
    again: String,
    /// `askuser resume STREAM --inquiry ID [--db PATH]`.
    resume: String,
    /// `askuser log show STREAM [--db PATH]`.
    show: String,
}

impl Hints {
    fn new(file: &PendingFile, path: &Path, db: &Path, given_db: Option<&Path>) -> Self {
        let hint = db_hint(db);
        let stream = shell_word(file.stream.as_ref());
        let given_db = given_db.map_or_else(String::new, |db| {
            format!(" --db {}", shell_word(db.as_os_str()))
        });
        Self {
            inquiry: format!(
                "inquiry \"{}\" of stream \"{}\"",
                for_display_line(&file.inquiry),
                for_display_line(&file.stream)
            ),
            id: for_display_line(&file.inquiry).into_owned(),
            file: path.display().to_string(),
            shown_file: for_display_line(&path.display().to_string()).into_owned(),
            db: db.display().to_string(),
            again: format!("askuser answer {}{given_db}", shell_word(path.as_os_str())),
            resume: format!(
                "askuser resume {stream} --inquiry {}{hint}",
                shell_word(file.inquiry.as_ref())
            ),
            show: format!("askuser log show {stream}{hint}"),
        }
    }

    /// A file whose inquiry the log does not hold.
    fn not_in_log(&self) -> CliError {
        CliError::NotInLog {
            file: self.file.clone(),
            inquiry: self.inquiry.clone(),
            db: self.db.clone(),
        }
    }

    /// A file that says it was answered, for a log that holds no result.
    fn no_result(&self) -> CliError {
        CliError::AnsweredWithoutResult {
            file: self.file.clone(),
            db: self.db.clone(),
            inquiry: self.id.clone(),
        }
    }

    /// An inquiry whose request recorded no call to render its result with.
    fn call_not_recorded(&self) -> CliError {
        CliError::CallNotRecorded {
            inquiry: self.id.clone(),
            db: for_display_line(&self.db).into_owned(),
        }
    }
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
fn answered_lines(answers: &[(Question, Option<Value>)], hints: &Hints) -> String {
    let mut lines = format!("askuser: recorded for {}:", hints.inquiry);
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
fn problems_text(problems: &[AnswerProblem], hints: &Hints) -> String {
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
        "{}\nNothing was recorded. {fix} and run `{}` again.",
        listed.join("\n"),
        hints.again
    )
}

/// A file that no longer shows the questions its inquiry recorded: what differs,
/// and how to go on.
fn mismatch_text(mismatch: &Mismatch, open: bool, hints: &Hints) -> String {
    let next = if open {
        format!(
            "Write the pending file again with `askuser ask --pending`, or answer in the terminal with `{}`.",
            hints.resume
        )
    } else {
        format!("The inquiry is finished; see `{}`.", hints.show)
    };
    format!(
        "askuser: {} no longer matches the questions it was written for ({} in the log): {}.\nNothing was recorded. {next}",
        hints.shown_file,
        hints.inquiry,
        for_display(&mismatch.to_string())
    )
}

/// An inquiry another surface began answering first: what it answered, and how
/// to go on.
fn partly_text(given: &[(Question, Value)], hints: &Hints) -> String {
    let mut lines = format!(
        "askuser: {} was partly answered elsewhere first (in the terminal or the browser):",
        hints.inquiry
    );
    for (question, value) in given {
        lines.push('\n');
        lines.push_str(&question_line(question, &text::answer_words(value)));
    }
    format!(
        "{lines}\nNothing was recorded. Finish it where it was begun, or in the terminal with `{}`.",
        hints.resume
    )
}

/// An inquiry another surface (or an earlier `askuser answer`) finished first:
/// how it ended, for standard error before its result. A file that says it was
/// answered is told so.
fn elsewhere_text(file: &PendingFile, finished: &Finished, hints: &Hints) -> String {
    if file.status == "answered" {
        return "askuser: these questions were already answered; the recorded result follows"
            .to_owned();
    }
    let ending = finished.ending;
    if let Some(surface) = finished.turn_ended_in {
        return format!(
            "askuser: {} was already finished: the person ended the turn {}, so the answers given here were not recorded; the assistant got no result",
            hints.inquiry,
            surface.words()
        );
    }
    let how = match ending {
        Ending::Answered | Ending::Rejected => "already answered elsewhere",
        Ending::Replied => "already finished elsewhere: the person chose Reply",
        Ending::TurnEnded => "already finished elsewhere: the person ended the turn",
        Ending::TimedOut => "already finished elsewhere: it timed out",
        Ending::Failed => "already finished elsewhere: it failed",
    };
    let got = if ending.sends_nothing() {
        "the assistant got no result"
    } else {
        "the result the assistant got follows"
    };
    format!(
        "askuser: {} was {how} (in the terminal, the browser or an earlier `askuser answer`), so the answers given here were not recorded; {got}",
        hints.inquiry
    )
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
    let given = db.filter(|db| !db.as_os_str().is_empty());
    if let (None, Some(named)) = (given, &file.db) {
        let named = PathBuf::from(named);
        let is_log = askuser_app::is_postgres_url(&named)
            || matches!(
                askuser_app::location::check_db_path(
                    &named,
                    askuser_app::location::DbIntent::Existing
                ),
                Ok(askuser_app::location::DbPathState::Log)
            );
        if !is_log {
            return Err(CliError::NotALog {
                db: for_display_line(&named.display().to_string()).into_owned(),
            });
        }
        return Ok(named);
    }
    db_path(given)
}

/// The answers to record, by position: the `--answers` list (written into the
/// file's questions, so a rewritten file shows them), else the file's own.
fn given_answers(text: Option<&str>, file: &mut PendingFile) -> Result<Vec<Value>, CliError> {
    let Some(text) = text else {
        return Ok(file.answers());
    };
    let count = file.questions.len();
    let usage = |detail: String| {
        CliError::Usage(format!(
            "--answers {detail}: give a JSON list with one answer per question, in order (null for one that is skipped), e.g. '[true, \"staging\", null]'"
        ))
    };
    match askuser_app::from_str_unique(text) {
        Ok(Value::Array(answers)) if answers.len() <= count => {
            for (question, answer) in file.questions.iter_mut().zip(&answers) {
                question.answer = answer.clone();
            }
            Ok(answers)
        }
        Ok(Value::Array(answers)) => Err(usage(format!(
            "has {} answers for {count} question{}",
            answers.len(),
            if count == 1 { "" } else { "s" }
        ))),
        Ok(_) => Err(usage("is not a list".into())),
        Err(error) => Err(usage(format!("is not JSON ({error})"))),
    }
}
