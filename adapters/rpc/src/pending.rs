//! The non-interactive two-pass workflow (the pi spec's print mode): the first pass
//! writes the pending questions to a file; the second reads the answers (from the
//! file, or a list given by position) and produces the tool result.

use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use askuser_core::{Command, Event, InquiryId, Question};
use askuser_llm::{UiInput, ui_answer};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::{Result, RpcError};
use crate::journal::{Journal, Step};

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
    /// `boolean`, `select`, `multi_select`, `text` or `schema`.
    pub answer_type: String,
    /// The option labels of a select kind.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub options: Vec<String>,
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
    /// The answer: `null` until filled in.
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
            answer_type: question.answer_type.name().to_owned(),
            options: question.choices().iter().map(|c| c.label.clone()).collect(),
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
    /// Reads and checks a pending file.
    ///
    /// # Errors
    /// [`RpcError::PendingFile`] naming the problem when the file cannot be read, is
    /// not JSON of this shape, or is of another format.
    pub fn read(path: &Path) -> Result<Self> {
        let problem = |field: &str, message: String| RpcError::PendingFile {
            path: path.to_owned(),
            field: field.to_owned(),
            message,
        };
        let text =
            fs::read_to_string(path).map_err(|e| problem("", format!("cannot be read ({e})")))?;
        let file: PendingFile = serde_json::from_str(&text).map_err(|e| {
            problem(
                "",
                format!(
                    "is not a pending-questions file ({e}); write it with `askuser ask --pending`"
                ),
            )
        })?;
        if file.format != PENDING_FORMAT {
            return Err(problem(
                "/format",
                format!(
                    "is \"{}\"; this askuser reads \"{PENDING_FORMAT}\"",
                    file.format
                ),
            ));
        }
        Ok(file)
    }

    /// Writes the file atomically: to a temporary file beside it, then renamed
    /// over it.
    ///
    /// # Errors
    /// When the file cannot be written.
    pub fn write(&self, path: &Path) -> Result<()> {
        let mut bytes = serde_json::to_vec_pretty(self).map_err(std::io::Error::other)?;
        bytes.push(b'\n');
        write_atomic(path, &bytes)?;
        Ok(())
    }

    /// The answers filled in, by position.
    pub fn answers(&self) -> Vec<Value> {
        self.questions.iter().map(|q| q.answer.clone()).collect()
    }
}

/// Writes `bytes` to `path` through a temporary file in the same directory and a
/// rename, so a reader sees the old file or the new one, never a part.
///
/// # Errors
/// When writing or renaming fails.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let name = path
        .file_name()
        .map_or_else(|| "pending".into(), |n| n.to_string_lossy().into_owned());
    let temp: PathBuf = path.with_file_name(format!(".{name}.tmp-{}", std::process::id()));
    let written = (|| {
        let mut file = fs::File::create(&temp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        fs::rename(&temp, path)
    })();
    if written.is_err() {
        let _ = fs::remove_file(&temp);
    }
    written
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

/// Answers the open inquiry of a pending file with `answers` (one per question, by
/// position), as if a person had given them in order: each is checked by the
/// engine, on a copy of the state. Only when the whole walk succeeds are the events
/// recorded; the commands of the last one (a result, usually) are returned.
///
/// # Errors
/// [`RpcError::Inquiry`] when the stream does not hold the inquiry open (already
/// answered, or another database); the log's errors.
pub fn answer(
    journal: &mut Journal,
    file: &PendingFile,
    answers: &[Value],
) -> Result<std::result::Result<Vec<Command>, AnswerProblem>> {
    let inquiry = file.inquiry.as_str();
    let id = InquiryId::new(inquiry);
    let stream = file.stream.as_str();
    let state = journal.state(stream)?;
    if state.was_requested(&id) && state.form(&id).is_none() {
        return Err(RpcError::Inquiry(format!(
            "the questions of inquiry \"{inquiry}\" (stream \"{stream}\") were already answered; see `askuser log show {stream}`"
        )));
    }
    if state.form(&id).is_none() {
        return Err(RpcError::Inquiry(format!(
            "stream \"{stream}\" holds no inquiry \"{inquiry}\": is this the database the pending file was written with? (pass --db)"
        )));
    }
    let mut trial = state.clone();
    let mut events = Vec::new();
    let mut pending = trial.pending(&id);
    while let Some(Command::Prompt(prompt)) = pending {
        let index = prompt.index;
        let question = prompt.question();
        let problem = |message: String| AnswerProblem {
            index,
            question: question.id.clone(),
            message,
        };
        let given = answers.get(index).cloned().unwrap_or(Value::Null);
        if given.is_null() {
            return Ok(Err(problem(format!(
                "has no answer; fill in an answer to \"{}\"",
                question.text
            ))));
        }
        let value = ui_answer(question, UiInput::Json(given.clone())).unwrap_or(given);
        let event = Event::Answered {
            inquiry: InquiryId::new(inquiry),
            question: question.id.clone(),
            value,
            by: askuser_core::AnsweredBy::User,
            remember: false,
            note: None,
        };
        let commands = askuser_core::reduce(&mut trial, &event)
            .map_err(|refusal| RpcError::Inquiry(refusal.to_string()))?;
        if let Some(Command::InvalidAnswer { message, .. }) = commands.first() {
            return Ok(Err(problem(message.clone())));
        }
        events.push(event);
        pending = trial.pending(&id);
    }
    let mut last = Vec::new();
    for event in &events {
        match journal.apply(stream, event)? {
            Step::Recorded { commands, .. } => last = commands,
            Step::Refused(error) => return Err(RpcError::Inquiry(error.to_string())),
        }
    }
    Ok(Ok(last))
}
