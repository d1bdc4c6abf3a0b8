//! The non-interactive two-pass workflow (the pi spec's print mode): the first pass
//! writes the pending questions to a file; the second reads the answers (from the
//! file, or a list given by position) and produces the tool result.
//!
//! The file is hostile (anyone may edit it between the passes): [`answer`]
//! compares it with the form its inquiry recorded in the log ([`compare`]) and
//! records nothing when it no longer shows it; the answers it records go to the
//! log in one append. Everything it reads of the inquiry (its form, its call,
//! how it ended and the result it sent) comes from the journal's state: a
//! stream is never replayed to answer a file.

mod compare;
mod near_miss;
mod seal;

pub use compare::{Mismatch, compare};
use near_miss::near_miss;
pub use seal::{Seal, key, key_file};
use std::collections::BTreeMap;
use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use askuser_core::{AnswerInput, Command, Ending, Event, Input, InquiryId, Question};
use askuser_core::{UiInput, ui_answer};
use askuser_dialects::Call;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use askuser_core::text::{Lines, for_display_line, forbidden_char};

use crate::error::{AppError, Result};
use crate::files::{Links, MAX_INPUT_BYTES, check_kind, read_regular_file};
use crate::journal::{Desk, Step};

/// The value of a pending file's `format` field.
pub const PENDING_FORMAT: &str = "askuser-pending/1";

/// A pending-questions file: where the inquiry is recorded, and every question of
/// its form with an `answer` to fill in (`null` until answered).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PendingFile {
    /// Always [`PENDING_FORMAT`].
    pub format: String,
    /// `pending`, or `answered` once the result was produced.
    pub status: String,
    /// The log database the inquiry is recorded in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub db: Option<String>,
    /// The log stream.
    pub stream: String,
    /// The inquiry's id.
    pub inquiry: String,
    /// The call's dialect.
    pub dialect: String,
    /// When the questions were written (RFC 3339, UTC).
    pub timestamp: String,
    /// Every question of the form, in order.
    pub questions: Vec<PendingQuestion>,
    /// What binds the file to its log, stream and inquiry
    /// ([`PendingFile::sealed`]); `None` until sealed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seal: Option<Seal>,
    /// Once answered: the tool result (or the tool error text).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
}

/// One question of a pending file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PendingQuestion {
    /// The question's id.
    pub id: String,
    /// The question.
    pub question: String,
    /// Context shown above it, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
    /// A short label for it (a tab or chip title), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub header: Option<String>,
    /// `boolean`, `select`, `multi_select`, `text` or `schema`.
    pub answer_type: String,
    /// The option labels of a select kind.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub options: Vec<String>,
    /// What each described option means, by label.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub option_descriptions: BTreeMap<String, String>,
    /// Whether free text is taken besides the options.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub allow_other: bool,
    /// The JSON Schema of a schema answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<Value>,
    /// The condition under which it is asked (an earlier answer); when it does not
    /// hold, the answer is ignored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub when: Option<Value>,
    /// The answer: `null` until filled in. A label, or for free text where the
    /// question takes it, any text; text close to a label (`Postgres` for
    /// `PostgreSQL`) is refused with "did you mean" unless written as
    /// `{"other": "Postgres"}`.
    #[serde(default)]
    pub answer: Value,
}

impl PendingQuestion {
    /// The pending entry for a form question.
    pub fn from_question(question: &Question) -> Self {
        Self {
            id: question.id.clone(),
            question: question.text.clone(),
            context: question.context.clone(),
            header: question.header.clone(),
            answer_type: question.answer_type.name().to_owned(),
            options: question.choices().iter().map(|c| c.label.clone()).collect(),
            option_descriptions: question
                .choices()
                .iter()
                .filter_map(|c| Some((c.label.clone(), c.description.clone()?)))
                .collect(),
            allow_other: question.allow_other,
            schema: question.schema.clone(),
            when: question
                .when
                .as_ref()
                .and_then(|w| serde_json::to_value(w).ok()),
            answer: Value::Null,
        }
    }
}

impl PendingFile {
    /// A new pending file for `call`'s questions, asked as `inquiry` in `stream` of
    /// the log at `db` (a `postgres://` URL as it is, a path made absolute; left out
    /// when it is not UTF-8, so `askuser answer` asks for `--db`), written at
    /// `timestamp`.
    pub fn for_call(
        db: Option<&Path>,
        stream: &str,
        inquiry: &InquiryId,
        call: &askuser_dialects::Call,
        timestamp: String,
    ) -> Self {
        let db = db
            .map(|db| {
                if crate::is_postgres_url(db) {
                    db.to_owned()
                } else {
                    fs::canonicalize(db)
                        .or_else(|_| std::path::absolute(db))
                        .unwrap_or_else(|_| db.to_owned())
                }
            })
            .and_then(|db| db.to_str().map(str::to_owned));
        Self {
            format: PENDING_FORMAT.to_owned(),
            status: "pending".to_owned(),
            db,
            stream: stream.to_owned(),
            inquiry: inquiry.as_str().to_owned(),
            dialect: call.dialect().name().to_owned(),
            timestamp,
            questions: call
                .form()
                .questions()
                .iter()
                .map(PendingQuestion::from_question)
                .collect(),
            seal: None,
            result: None,
        }
    }

    /// Reads and checks a pending file: a regular file (not a link, FIFO or device)
    /// of at most [`MAX_INPUT_BYTES`], JSON with no key
    /// given twice, of this shape and format, naming a valid stream and inquiry.
    ///
    /// # Errors
    /// [`AppError::PendingFile`] naming the problem.
    pub fn read(path: &Path) -> Result<Self> {
        let problem = |field: &str, message: String| AppError::PendingFile {
            path: path.to_owned(),
            field: field.to_owned(),
            message,
        };
        let text = read_regular_file(path, Links::Refuse).map_err(|m| problem("", m))?;
        Self::parse(&text).map_err(|(field, message)| problem(field, message))
    }

    /// Reads a pending file's text: the checks of [`PendingFile::read`] after the
    /// file was read. The error is the offending field (a JSON pointer, empty for the
    /// whole file) and what is wrong.
    ///
    /// # Errors
    /// As above.
    pub fn parse(text: &str) -> std::result::Result<Self, (&'static str, String)> {
        let not_pending = |e: serde_json::Error| {
            (
                "",
                format!(
                    "is not a pending-questions file ({e}); write it with `askuser ask --pending`"
                ),
            )
        };
        crate::json::from_str_unique(text).map_err(not_pending)?;
        let file: PendingFile = serde_json::from_str(text).map_err(not_pending)?;
        if file.format != PENDING_FORMAT {
            return Err((
                "/format",
                format!(
                    "is \"{}\"; this askuser reads \"{PENDING_FORMAT}\"",
                    for_display_line(&file.format)
                ),
            ));
        }
        askuser_store::StreamName::check(&file.stream).map_err(|m| ("/stream", m.to_string()))?;
        if file.inquiry.is_empty() {
            return Err((
                "/inquiry",
                "is empty; it names the inquiry the questions belong to".into(),
            ));
        }
        if let Some(found) = forbidden_char(&file.inquiry, Lines::One) {
            return Err((
                "/inquiry",
                format!("has {found}; an inquiry id is plain text"),
            ));
        }
        Ok(file)
    }

    /// Writes the file atomically (see [`PendingTarget`]).
    ///
    /// # Errors
    /// As [`PendingTarget::prepare`] and [`PendingTarget::write`].
    pub fn write(&self, path: &Path) -> Result<()> {
        PendingTarget::prepare(path)?.write(self)
    }

    /// Writes the file at `path`, which must not exist yet: filled under a
    /// temporary name, then linked into place only if nothing is there, so a
    /// reader never sees it empty or in part, and a file already there is never
    /// replaced.
    ///
    /// # Errors
    /// As [`PendingFile::write`], and [`AppError::PendingFile`] when a file is
    /// already at `path`.
    pub fn write_new(&self, path: &Path) -> Result<()> {
        PendingTarget::prepare(path)?.place(self, Place::New)
    }

    /// The answers filled in, by position.
    pub fn answers(&self) -> Vec<Value> {
        self.questions.iter().map(|q| q.answer.clone()).collect()
    }
}

/// Where a pending file is about to be written, its temporary file already created:
/// [`PendingTarget::prepare`] proves the file can be written before anything is
/// recorded (`ask --pending`), and [`PendingTarget::write`] fills the temporary file
/// and renames it over the path, so a reader sees the old file or the new one.
///
/// The temporary file is created exclusively (`O_EXCL`) under a random name in the
/// same directory, so a link planted in advance is never followed; a pending file
/// that is itself a symbolic link, or not a regular file, is refused.
#[derive(Debug)]
pub struct PendingTarget {
    path: PathBuf,
    temp: tempfile::NamedTempFile,
}

impl PendingTarget {
    /// Checks the path and creates the temporary file beside it.
    ///
    /// # Errors
    /// [`AppError::PendingFile`] when the path is a link or not a regular file, or its
    /// directory takes no new file.
    pub fn prepare(path: &Path) -> Result<Self> {
        let problem = |message: String| AppError::PendingFile {
            path: path.to_owned(),
            field: String::new(),
            message,
        };
        if fs::symlink_metadata(path).is_ok() {
            check_kind(path, Links::Refuse).map_err(problem)?;
        }
        let name = path
            .file_name()
            .map_or_else(|| "pending".into(), |n| n.to_string_lossy().into_owned());
        let dir = match path.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir,
            _ => Path::new("."),
        };
        let temp = tempfile::Builder::new()
            .prefix(&format!(".{name}."))
            .suffix(".tmp")
            .tempfile_in(dir)
            .map_err(|e| {
                problem(format!(
                    "cannot be written: no new file can be made in {} ({e})",
                    dir.display()
                ))
            })?;
        Ok(Self {
            path: path.to_owned(),
            temp,
        })
    }

    /// Writes `file` (pretty-printed, or compact if that would pass the read cap)
    /// and renames it over the path.
    ///
    /// # Errors
    /// [`AppError::PendingFile`] when it would be too large to read back, or writing
    /// or renaming fails (the temporary file is then removed).
    pub fn write(self, file: &PendingFile) -> Result<()> {
        self.place(file, Place::Over)
    }

    /// Writes `file` into the temporary file and puts it at the path, `how`.
    fn place(mut self, file: &PendingFile, how: Place) -> Result<()> {
        let problem = |message: String| AppError::PendingFile {
            path: self.path.clone(),
            field: String::new(),
            message,
        };
        let mut bytes = serde_json::to_vec_pretty(file).map_err(std::io::Error::other)?;
        if bytes.len() >= MAX_INPUT_BYTES {
            bytes = serde_json::to_vec(file).map_err(std::io::Error::other)?;
        }
        bytes.push(b'\n');
        if bytes.len() > MAX_INPUT_BYTES {
            return Err(problem(format!(
                "would be {} bytes, more than askuser reads back ({MAX_INPUT_BYTES}); give shorter answers",
                bytes.len()
            )));
        }
        let written = self
            .temp
            .write_all(&bytes)
            .and_then(|()| self.temp.as_file().sync_all());
        written.map_err(|e| problem(format!("cannot be written ({e})")))?;
        let path = self.path.clone();
        match how {
            Place::Over => self
                .temp
                .persist(&path)
                .map_err(|e| problem(format!("cannot be replaced ({})", e.error)))?,
            Place::New => self.temp.persist_noclobber(&path).map_err(|e| {
                problem(format!(
                    "cannot be written: a file is already there ({})",
                    e.error
                ))
            })?,
        };
        Ok(())
    }
}

/// How [`PendingTarget::place`] puts the written file at its path.
#[derive(Debug, Clone, Copy)]
enum Place {
    /// Renamed over whatever is there.
    Over,
    /// Linked in only where nothing is.
    New,
}

/// Writes `bytes` to `path` through a temporary file created exclusively under a
/// random name in the same directory, then a rename, so a reader sees the old file
/// or the new one, never a part.
///
/// # Errors
/// When writing or renaming fails.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let mut temp = tempfile::NamedTempFile::new_in(dir)?;
    temp.write_all(bytes)?;
    temp.as_file().sync_all()?;
    temp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// The text printed after the first pass (the tool output the pi spec describes).
pub fn instructions(path: &Path) -> String {
    let path = path.display();
    format!(
        "Questions pending. User input required.\n\
         \n\
         To answer, run:\n  askuser answer {path} --answers '[...]'\n\
         (one answer per question, in order; null for a question that is skipped)\n\
         \n\
         Or fill in each \"answer\" in the file and run:\n  askuser answer {path}\n\
         \n\
         Questions saved to: {path}\n"
    )
}

/// Why answers from a pending file could not be used. Nothing was recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AnswerProblem {
    /// The question's position in the file (0-based).
    pub index: usize,
    /// The question's id.
    pub question: String,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for AnswerProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "answer {} (question \"{}\"): {}",
            self.index + 1,
            self.question,
            self.message
        )
    }
}

/// How many times [`answer`] decides again after another process appended first.
const RETRIES: usize = 16;

/// The answers of a pending file, recorded in the log (all in one append).
#[derive(Debug, Clone, PartialEq)]
pub struct Recorded {
    /// The commands the last answer yielded: the inquiry's result, usually.
    pub commands: Vec<Command>,
    /// The call the inquiry was asked with, parsed in its dialect: what its
    /// result is rendered with (`None`: its request recorded no call).
    pub call: Option<Arc<Call>>,
    /// Each question of the form, in order, with the answer recorded for it
    /// (`None` for a question that was not asked: its `when` did not hold).
    pub answers: Vec<(Question, Option<Value>)>,
}

/// Why the answers of a pending file were not recorded. Nothing was recorded.
#[derive(Debug, Clone, PartialEq)]
pub enum NotRecorded {
    /// Answers that do not fit their questions, in question order: the walk's
    /// first, then each later answer that does not fit its question (or is missing
    /// for a question that is always asked), so one run tells everything to fix.
    Problems(Vec<AnswerProblem>),
    /// The file no longer shows the questions its inquiry recorded in the log (it
    /// was edited after `askuser ask --pending` wrote it, or names another
    /// inquiry).
    Mismatch {
        /// What differs.
        mismatch: Mismatch,
        /// Whether the inquiry is still open (else it is finished).
        open: bool,
    },
    /// Another surface (the terminal, the browser) answered some of the inquiry's
    /// questions first: each, with its answer, in form order.
    PartlyAnswered(Vec<(Question, Value)>),
    /// The inquiry is finished: answered elsewhere first, or by this file before.
    Finished(Finished),
    /// The file says its questions were answered, or its inquiry is finished,
    /// but the state holds no result for it (the inquiry is still open, or
    /// finished so long ago that the state no longer keeps it).
    NoResult,
}

/// A pending file's finished inquiry, as the state keeps it: how it ended and
/// the result it sent, to show again.
#[derive(Debug, Clone, PartialEq)]
pub struct Finished {
    /// How it ended.
    pub ending: Ending,
    /// The result command it ended with ([`Command::Respond`],
    /// [`Command::Fail`] or [`Command::EndTurn`]).
    pub result: Command,
    /// The call it was asked with, parsed in its dialect (`None`: its request
    /// recorded no call).
    pub call: Option<Arc<Call>>,
    /// Where a person ended the turn, when that ended it and the log says
    /// where.
    pub turn_ended_in: Option<askuser_core::Surface>,
}

/// Answers the open inquiry of a pending file with `answers` (one per question, by
/// position), as if a person had given them in order, and records them together.
///
/// First the file is compared with the form its inquiry recorded in the log:
/// every question's id, text, context, header, answer type, options, option
/// descriptions, free text, schema and condition must be as the log has them, or
/// nothing is recorded ([`NotRecorded::Mismatch`]). An inquiry that another
/// surface finished or partly answered first is left as it is. Then each answer
/// is decided by the engine on a copy of the state, and only when the whole walk
/// succeeds are the events appended, in one atomic append at the head that copy
/// started from: a crash or a rival writer never leaves half a walk. If another
/// process appended first, the walk is decided again on what it recorded. A review
/// another surface asked for before answering anything is sent with the answers.
///
/// A file whose `status` says `answered` records nothing: its inquiry's result
/// is given again ([`NotRecorded::Finished`]), or [`NotRecorded::NoResult`].
///
/// # Errors
/// [`AppError::NoSuchInquiry`] when the stream does not hold the inquiry (another
/// database, or an edited `stream` or `inquiry`); [`AppError::KeptChanging`] when
/// other processes kept writing; the log's errors.
pub fn answer(
    journal: &mut Desk,
    file: &PendingFile,
    answers: &[Value],
) -> Result<std::result::Result<Recorded, NotRecorded>> {
    let stream = file.stream.as_str();
    for _ in 0..RETRIES {
        let refused = match attempt(journal, file, answers)? {
            Attempt::Recorded(recorded) => return Ok(Ok(recorded)),
            Attempt::Moved => {
                journal.catch_up_events(stream)?;
                continue;
            }
            Attempt::Refused(refused) => Ok(refused),
            Attempt::Unknown => Err(AppError::NoSuchInquiry {
                stream: for_display_line(stream).into_owned(),
                inquiry: for_display_line(&file.inquiry).into_owned(),
            }),
        };
        // Refused on what this journal knows: another process may have changed
        // the stream since (asked, answered or finished the inquiry). Decide on
        // the latest before saying no.
        if journal.catch_up_events(stream)?.is_empty() {
            return refused.map(Err);
        }
    }
    Err(AppError::KeptChanging {
        stream: for_display_line(stream).into_owned(),
        tries: RETRIES,
    })
}

/// What one attempt of [`answer`] came to.
enum Attempt {
    /// The answers were recorded.
    Recorded(Recorded),
    /// Refused on the journal's state.
    Refused(NotRecorded),
    /// The journal's state holds no such inquiry.
    Unknown,
    /// Another process appended first; nothing was recorded.
    Moved,
}

/// Decides the answers on a copy of the journal's state of the file's stream and
/// appends them at the head that copy started from.
fn attempt(journal: &mut Desk, file: &PendingFile, answers: &[Value]) -> Result<Attempt> {
    let id = InquiryId::new(&file.inquiry);
    let stream = file.stream.as_str();
    let state = journal.state(stream)?;
    let Some(form) = state.form(&id).cloned() else {
        if !state.was_requested(&id) {
            return Ok(Attempt::Unknown);
        }
        return finished(journal, file, &id).map(Attempt::Refused);
    };
    if file.status == "answered" {
        return Ok(Attempt::Refused(NotRecorded::NoResult));
    }
    if let Some(mismatch) = compare(file, form.questions()) {
        let open = true;
        return Ok(Attempt::Refused(NotRecorded::Mismatch { mismatch, open }));
    }
    let given = answered_so_far(state, &id, &form);
    if !given.is_empty() {
        return Ok(Attempt::Refused(NotRecorded::PartlyAnswered(given)));
    }
    let walked = match walk(state.clone(), &id, &form, answers)? {
        Ok(walked) => walked,
        Err(problems) => return Ok(Attempt::Refused(NotRecorded::Problems(problems))),
    };
    if !walked.inputs.is_empty() {
        // Decided again by the session on its own state, and recorded in one
        // append; refused when another process moved the inquiry first.
        match journal.inputs(stream, &walked.inputs)? {
            Step::Recorded { .. } => {}
            Step::Refused(_) => return Ok(Attempt::Moved),
        }
    }
    Ok(Attempt::Recorded(Recorded {
        commands: walked.last_commands,
        call: journal.call(stream, &id)?,
        answers: recorded_answers(&form, &walked.events),
    }))
}

/// Why a pending file's finished inquiry records nothing: the file no longer
/// matches the form it was asked with, or the inquiry is finished (with the
/// result the state keeps for it).
fn finished(journal: &mut Desk, file: &PendingFile, id: &InquiryId) -> Result<NotRecorded> {
    let call = journal.call(&file.stream, id)?;
    if let Some(mismatch) = call
        .as_ref()
        .and_then(|call| compare(file, call.form().questions()))
    {
        return Ok(NotRecorded::Mismatch {
            mismatch,
            open: false,
        });
    }
    let state = journal.state(&file.stream)?;
    let Some((result, ending)) = state
        .result(id)
        .and_then(|result| Some((result.clone(), Ending::of(&result)?)))
    else {
        return Ok(NotRecorded::NoResult);
    };
    let turn_ended_in = (state.outcome(id)).and_then(askuser_core::FinishedInquiry::turn_ended_in);
    Ok(NotRecorded::Finished(Finished {
        ending,
        result,
        call,
        turn_ended_in,
    }))
}

/// The answers an open inquiry holds already (given in another surface), with
/// their questions, in form order.
fn answered_so_far(
    state: &askuser_core::State,
    id: &InquiryId,
    form: &askuser_core::ValidForm,
) -> Vec<(Question, Value)> {
    let Some(slots) = state.answers(id) else {
        return Vec::new();
    };
    form.questions()
        .iter()
        .zip(slots)
        .filter_map(|(question, slot)| {
            let value = slot.as_ref()?.answer.to_value(question);
            Some((question.clone(), value))
        })
        .collect()
}

/// What walking a pending file's answers through the form decided.
struct Walked {
    /// The inputs, in order: an answer for each question asked, and the Submit
    /// of a review another surface asked for.
    inputs: Vec<Input>,
    /// The events they stand for, decided on the copy of the state.
    events: Vec<Event>,
    /// What the last input yielded: the inquiry's result.
    last_commands: Vec<Command>,
}

/// Walks the form on `trial` (a copy of the state), answering each question the
/// engine asks with its answer from `answers`; returns the inputs that do it (with
/// the events they were decided into), or every problem.
///
/// # Errors
/// [`AppError::AnswerNotTaken`] when the engine refuses an answer outright (never
/// for a question it is asking the person); [`AppError::NotSent`] when it refuses
/// to send the answers from a review another surface asked for.
fn walk(
    mut trial: askuser_core::State,
    id: &InquiryId,
    form: &askuser_core::ValidForm,
    answers: &[Value],
) -> Result<std::result::Result<Walked, Vec<AnswerProblem>>> {
    let mut walked = Walked {
        inputs: Vec::new(),
        events: Vec::new(),
        last_commands: Vec::new(),
    };
    while let Some(Command::Prompt(prompt)) = trial.pending(id) {
        let index = prompt.index;
        let question = prompt.question();
        let given = answers.get(index).cloned().unwrap_or(Value::Null);
        let value = match file_answer(question, given) {
            Ok(value) => value,
            Err(message) => return Ok(Err(later_problems(form, answers, index, message))),
        };
        let input = Input::from(AnswerInput::new(prompt.at(), value));
        let decision = trial
            .decide(&input)
            .map_err(|refusal| AppError::AnswerNotTaken {
                number: index + 1,
                question: for_display_line(&question.id).into_owned(),
                refusal: Box::new(refusal),
            })?;
        if let Event::AnswerRefused { message, .. } = decision.event() {
            return Ok(Err(later_problems(form, answers, index, message.clone())));
        }
        walked.events.extend(decision.events().iter().cloned());
        walked.inputs.push(input);
        walked.last_commands.clear();
        trial.apply_decision(decision, &mut walked.last_commands);
    }
    if let Some(at) = trial.at(id).filter(|at| at.question.is_none()) {
        // Another surface asked for a review before sending (the web inbox does,
        // just before its first answer) and answered nothing: the file's answers,
        // printed beside their questions, are the person's to send.
        let input = Input::Submit(at);
        let decision =
            (trial.decide(&input)).map_err(|refusal| AppError::NotSent(Box::new(refusal)))?;
        walked.events.extend(decision.events().iter().cloned());
        walked.inputs.push(input);
        walked.last_commands.clear();
        trial.apply_decision(decision, &mut walked.last_commands);
    }
    Ok(Ok(walked))
}

/// Each question of `form` with the answer `events` record for it.
fn recorded_answers(
    form: &askuser_core::ValidForm,
    events: &[Event],
) -> Vec<(Question, Option<Value>)> {
    form.questions()
        .iter()
        .map(|question| {
            let value = events.iter().find_map(|event| match event {
                Event::Answered {
                    question: id,
                    value,
                    ..
                } if *id == question.id => Some(value.clone()),
                _ => None,
            });
            (question.clone(), value)
        })
        .collect()
}

/// The value a pending file's answer gives `question`, or why it gives none.
fn file_answer(question: &Question, given: Value) -> std::result::Result<Value, String> {
    match given {
        Value::Null => Err(format!(
            "has no answer; fill in an answer to \"{}\"",
            question.text
        )),
        Value::Object(object) if object.len() == 1 && object.contains_key("other") => {
            match object.get("other") {
                Some(Value::String(text)) => Ok(Value::String(text.clone())),
                _ => Err("{\"other\": …} takes the free text as a string".to_owned()),
            }
        }
        given => {
            if let Some(message) = near_miss(question, &given) {
                return Err(message);
            }
            Ok(ui_answer(question, UiInput::Json(given.clone())).unwrap_or(given))
        }
    }
}

/// The problem at `first` (the walk stopped there), then each later answer that
/// does not fit its question, checked alone: a later question may not be asked
/// (its `when`), so a missing answer is only reported where it is always asked.
fn later_problems(
    form: &askuser_core::ValidForm,
    answers: &[Value],
    first: usize,
    message: String,
) -> Vec<AnswerProblem> {
    let problem = |index: usize, message: String| AnswerProblem {
        index,
        question: form.question(index).id.clone(),
        message,
    };
    let mut problems = vec![problem(first, message)];
    for index in first + 1..form.len() {
        let question = form.question(index);
        let given = answers.get(index).cloned().unwrap_or(Value::Null);
        if given.is_null() && question.when.is_some() {
            continue;
        }
        let checked = file_answer(question, given)
            .and_then(|value| form.check(index, &value).map_err(|e| e.to_string()));
        if let Err(message) = checked {
            problems.push(problem(index, message));
        }
    }
    problems
}
