//! What several commands share: where the log is, reading a call, deciding whether
//! a person can be asked, and turning the engine's last commands into what the
//! program prints and its exit status.

use std::fmt::Write as _;
use std::io::{IsTerminal, Write as _};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use askuser_app::Desk;
use askuser_app::files::{self, Links};
use askuser_app::location::{DbIntent, SharedSledLog, SledLog};
use askuser_app::log::{Clock, Log, StoreError, SystemClock};
use askuser_app::log::{PresenceGuard, StreamName};
use askuser_core::Problem;
use askuser_core::text::{for_display, for_display_line};
use askuser_core::{AgentOrigin, Command};
use askuser_dialects::{Call, DetectError, Dialect, Rejection, ToolResult};
use serde_json::Value;

use crate::error::CliError;

/// Exit status: a result was produced (answers, or a Reply's cancel marker).
pub(crate) const EXIT_RESULT: u8 = 0;
/// Exit status: askuser could not run (usage, files, the log).
pub(crate) const EXIT_ERROR: u8 = 1;
/// Exit status: the call (or the answers, or a checked file) was rejected.
pub(crate) const EXIT_REJECTED: u8 = 2;
/// Exit status: no person can be asked.
pub(crate) const EXIT_NO_PERSON: u8 = 3;
/// Exit status: the person ended the turn.
pub(crate) const EXIT_END_TURN: u8 = 4;
/// Exit status: the questions were written to a pending file.
pub(crate) const EXIT_PENDING: u8 = 5;
/// Exit status: a replay did not re-derive what was recorded.
pub(crate) const EXIT_MISMATCH: u8 = 6;

/// The log database: `--db` (or `$ASKUSER_DB`, which clap reads into it), else
/// the default. An empty path counts as not given.
pub(crate) fn db_path(db: Option<&Path>) -> Result<PathBuf, CliError> {
    match db {
        Some(path) if !path.as_os_str().is_empty() => Ok(path.to_owned()),
        _ => default_db(),
    }
}

/// The log database when `--db` is not given: `$ASKUSER_DB`, else
/// `$XDG_DATA_HOME/askuser/log.db`, else `$HOME/.local/share/askuser/log.db`.
pub(crate) fn default_db() -> Result<PathBuf, CliError> {
    let env = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    if let Some(path) = env("ASKUSER_DB") {
        return Ok(PathBuf::from(path));
    }
    let data = askuser_data_dir().ok_or_else(|| {
        CliError::Usage(
            "no place for the log: set --db PATH, ASKUSER_DB, XDG_DATA_HOME or HOME".into(),
        )
    })?;
    Ok(data.join("log.db"))
}

/// askuser's own directory of the person's data: `$XDG_DATA_HOME/askuser`,
/// else `$HOME/.local/share/askuser`; `None` when neither is set.
pub(crate) fn askuser_data_dir() -> Option<PathBuf> {
    askuser_app::secret::data_dir()
}

/// The ` --db PATH` a command printed as a hint needs to reach the log `db`: empty
/// when `db` is the default, else the path quoted for a shell and safe to show.
pub(crate) fn db_hint(db: &Path) -> String {
    if default_db().is_ok_and(|default| default == db) {
        return String::new();
    }
    format!(" --db {}", shell_word(db.as_os_str()))
}

/// `word` as one shell word a person can paste, safe to show on a terminal: as it
/// is when it needs no quoting, in single quotes when it is plain text, else in
/// `$'...'` with every byte outside printable ASCII written as `\xHH` (so a
/// control character, an invisible one or a byte that is not UTF-8 is both
/// visible and exact).
pub(crate) fn shell_word(word: &std::ffi::OsStr) -> String {
    let bytes = word.as_encoded_bytes();
    let plain = |b: &u8| b.is_ascii_alphanumeric() || b"_@%+=:,./-".contains(b);
    if !bytes.is_empty() && bytes.iter().all(plain) {
        return String::from_utf8_lossy(bytes).into_owned();
    }
    if let Some(text) = word.to_str() {
        let quoted = format!("'{}'", text.replace('\'', "'\\''"));
        if matches!(for_display_line(&quoted), std::borrow::Cow::Borrowed(_)) {
            return quoted;
        }
    }
    let mut out = String::from("$'");
    for &byte in bytes {
        match byte {
            b'\\' | b'\'' => {
                out.push('\\');
                out.push(char::from(byte));
            }
            b' '..=b'~' => out.push(char::from(byte)),
            _ => {
                // Writing to a String cannot fail.
                let _ = write!(out, "\\x{byte:02x}");
            }
        }
    }
    out.push('\'');
    for_display_line(&out).into_owned()
}

/// Writes `text` to standard output and flushes it. A closed standard output is
/// an error that [`crate::error::CliError::is_broken_pipe`] recognises, and ends
/// the program quietly.
pub(crate) fn print_out(text: &str) -> Result<(), CliError> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(())
}

/// Writes a line to standard error for the person; a closed standard error is
/// ignored (never a panic).
pub(crate) fn note(text: &str) {
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "{text}");
}

/// Opens the log at `path` to read it, never changing a byte of it: a PostgreSQL
/// database; a sled log its last writer closed cleanly, in place, as a shared
/// log whose sled runs no background thread (sled's recovery and its reads have
/// nothing to change in it, see [`SledLog::closed_cleanly`]); a sled log another
/// askuser process owns, through that process; else a private copy of the sled
/// log (so sled's recovery never touches the original), saying on standard
/// error what a damaged log lost. A path that holds no askuser log is an error
/// (no log is created).
pub(crate) fn open_reading(path: &Path) -> Result<Arc<dyn Log>, CliError> {
    if askuser_app::is_postgres_url(path) {
        return Ok(askuser_app::open_log(path)?);
    }
    askuser_app::location::check_db_path(path, DbIntent::Existing)?;
    warn_if_open_to_others(path);
    if SledLog::closed_cleanly(path) {
        return Ok(Arc::new(SharedSledLog::open_for_reading(path)?));
    }
    match SledLog::open_read_only(path) {
        Ok(log) => {
            if let Some(discarded) = log.discarded() {
                note(&format!(
                    "askuser: {}",
                    for_display(discarded.to_string().trim_end())
                ));
            }
            Ok(Arc::new(log))
        }
        // Another process owns the log: read it through that process.
        Err(StoreError::Locked) => Ok(Arc::new(SharedSledLog::open(path)?)),
        Err(other) => Err(other.into()),
    }
}

/// Opens the journal at `path` (a sled directory, shared with every other askuser
/// process that opens it, its parent directory created; or a `postgres://` URL):
/// the one place the program opens its log.
pub(crate) fn open_journal(path: &Path) -> Result<askuser_app::Desk, CliError> {
    if askuser_app::is_postgres_url(path) {
        return Ok(askuser_app::Desk::open(path)?);
    }
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        private_dir_all(parent).map_err(|error| CliError::File {
            path: parent.to_owned(),
            error,
        })?;
    }
    warn_if_open_to_others(path);
    Ok(askuser_app::Desk::open(path)?)
}

/// Creates the directory `dir` and its missing parents, each of mode 0700 (the
/// log's own directory is made 0700 by the store): a directory askuser makes
/// for its log is its user's alone.
pub(crate) fn private_dir_all(dir: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir)
}

/// Says once per process and log, on standard error, that the sled log at
/// `path` can be read by other users of this machine (its directory, settings or
/// data file gives group or others access: a log made by an askuser before logs
/// were private, or loosened since), with the command that makes it private.
/// The log is used all the same. Nothing is said of a new path or a URL.
pub(crate) fn warn_if_open_to_others(path: &Path) {
    static WARNED: std::sync::Mutex<Vec<std::path::PathBuf>> = std::sync::Mutex::new(Vec::new());
    if askuser_app::is_postgres_url(path) || !askuser_app::location::open_to_others(path) {
        return;
    }
    let key = std::path::absolute(path).unwrap_or_else(|_| path.to_owned());
    let mut warned = WARNED
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if warned.contains(&key) {
        return;
    }
    warned.push(key);
    let word = shell_word(path.as_os_str());
    note(&format!(
        "askuser: warning: other users of this machine can read the log {word} (its directory \
         gives group or others access); make it yours alone with: chmod -R go-rwx {word}"
    ));
}

/// The dialect of a call: `given` (`--dialect`), else read from the call's shape
/// (said on standard error, unless it is a terminal: a person sees who asks). A call no dialect accepts is read in the one it looks
/// most like, else in `jp-form`, so its rejection names its problems.
pub(crate) fn call_dialect(given: Option<Dialect>, text: &str) -> Result<Dialect, CliError> {
    if let Some(dialect) = given {
        return Ok(dialect);
    }
    let Ok(arguments) = serde_json::from_str::<Value>(text) else {
        return Ok(Dialect::JpForm);
    };
    match Dialect::detect(&arguments) {
        // A person at a terminal is told who asks (the terminal's first line),
        // not how the call was read: that note is for programs and logs.
        Ok(found) if std::io::IsTerminal::is_terminal(&std::io::stderr()) => Ok(found),
        Ok(found) => {
            note(&format!(
                "askuser: an agent's question form, read as {} ({found}); --dialect picks another",
                found.described()
            ));
            Ok(found)
        }
        Err(DetectError::Ambiguous { candidates }) => {
            let names: Vec<&str> = candidates.iter().map(|d| d.name()).collect();
            Err(CliError::Usage(format!(
                "the call fits several dialects ({}): pass --dialect with one of them",
                names.join(", ")
            )))
        }
        Err(DetectError::NoMatch { closest }) => {
            let (found, tried) = fewest_problems(&arguments, closest);
            note(&format!(
                "askuser: no dialect accepts the call; read as a {found} call, the one with the fewest problems (tried {tried})"
            ));
            Ok(found)
        }
    }
}

/// The dialect in which `arguments` have the fewest problems (a dialect whose own
/// top-level field is missing altogether is not the call's; on a tie, the shape's
/// closest, then the first in [`Dialect::ALL`]), and every dialect tried with its
/// count (`claude: 1 problem, gemini: 3 problems, ...`), best first.
fn fewest_problems(arguments: &Value, closest: Option<Dialect>) -> (Dialect, String) {
    let mut counts: Vec<(usize, bool, bool, usize, Dialect)> = Dialect::ALL
        .iter()
        .enumerate()
        .map(|(order, &dialect)| {
            let errors = dialect
                .parse(arguments)
                .err()
                .map(|r| r.errors)
                .unwrap_or_default();
            let foreign = errors
                .iter()
                .any(|e| e.path.matches('/').count() == 1 && e.message.starts_with("is missing"));
            (
                errors.len(),
                foreign,
                Some(dialect) != closest,
                order,
                dialect,
            )
        })
        .collect();
    counts.sort_unstable_by_key(|(problems, foreign, not_closest, order, _)| {
        (*foreign, *problems, *not_closest, *order)
    });
    let tried: Vec<String> = counts
        .iter()
        .map(|(problems, _, _, _, dialect)| {
            let s = if *problems == 1 { "" } else { "s" };
            format!("{dialect}: {problems} problem{s}")
        })
        .collect();
    (counts[0].4, tried.join(", "))
}

/// Reads a regular file's text, or standard input's for `-`, at most as much as a
/// protocol line (1 MiB): `/dev/zero`, a FIFO or a directory is refused at once.
pub(crate) fn read_text(file: &Path) -> Result<String, CliError> {
    let (name, text) = if file.as_os_str() == "-" {
        (
            "standard input".into(),
            files::read_bounded(std::io::stdin().lock()),
        )
    } else {
        (
            file.to_string_lossy(),
            files::read_regular_file(file, Links::Follow),
        )
    };
    text.map_err(|reason| CliError::Unreadable {
        name: for_display_line(&name).into_owned(),
        reason,
    })
}

/// The stream named by `--stream`, checked before anything is opened or recorded;
/// `None` for a new one (see [`agent_stream`]).
pub(crate) fn stream_option(stream: Option<&str>) -> Result<Option<StreamName>, CliError> {
    stream
        .map(|name| {
            StreamName::try_from(name)
                .map_err(|problem| CliError::Usage(format!("--stream {problem}")))
        })
        .transpose()
}

/// The stream an agent from `origin` waits on: `stream` as `--stream` named it,
/// else a new one named after the origin's place (`billing-api-1`, the first
/// free counter), else `<kind>-<time>-<pid>`. With `claim`, a new stream is
/// created at once by recording the origin as its first event (so two agents
/// starting together never share it): the second value says so.
pub(crate) fn agent_stream(
    desk: &Desk,
    stream: Option<StreamName>,
    kind: &str,
    origin: &AgentOrigin,
    claim: bool,
) -> Result<(StreamName, bool), CliError> {
    if let Some(stream) = stream {
        return Ok((stream, false));
    }
    let named = if claim {
        desk.claim_stream(origin)?.map(|name| (name, true))
    } else {
        desk.free_stream_name(origin)?.map(|name| (name, false))
    };
    match named {
        Some(named) => Ok(named),
        None => StreamName::try_from(new_stream_name(kind))
            .map(|name| (name, false))
            .map_err(|problem| CliError::Usage(format!("a new stream's name {problem}"))),
    }
}

/// This process's presence on `stream` while it waits there: the origin
/// recorded (unless `attached`: the stream was created with it) and the lease
/// held until the guard is dropped ([`Desk::hold_presence`]). Best effort: a
/// log that cannot keep it leaves a note and the process goes on.
pub(crate) fn hold_presence(
    desk: &mut Desk,
    stream: &StreamName,
    origin: AgentOrigin,
    attached: bool,
) -> Option<PresenceGuard> {
    desk.hold_presence(stream, origin, attached)
        .map_err(|error| {
            note(&format!(
                "askuser: the inbox will not see that this process waits ({})",
                for_display_line(&error.to_string())
            ));
        })
        .ok()
}

/// A call's arguments from text: the parsed call, or the rejection to send back
/// (text that is not JSON is rejected like any other malformed call). When another
/// dialect plainly fits a rejected call, standard error says which.
pub(crate) fn parse_call(dialect: Dialect, text: &str) -> (Value, Result<Call, Rejection>) {
    match askuser_app::from_str_unique(text) {
        Ok(arguments) => {
            let call = dialect.parse(&arguments);
            if let (Err(_), Some(other)) = (&call, dialect.suggest(&arguments)) {
                note(&format!(
                    "askuser: this looks like a {other} call: pass --dialect {other}"
                ));
            }
            (arguments, call)
        }
        Err(error) => (
            Value::Null,
            Err(Rejection {
                tool: dialect.tool_name(),
                errors: vec![Problem::new(
                    "",
                    format!("are not JSON ({error}); send the arguments as a JSON object"),
                )],
            }),
        ),
    }
}

/// Whether a person can be asked here: standard error (where prompts are drawn)
/// is a terminal, and keys can be read (standard input is a terminal, or
/// `/dev/tty` opens).
/// Makes this process a person's, when a person is at the terminal: it lets
/// go of a sled log it owns before it stops (Ctrl-Z, here or in the editor it
/// opened), and is never ended by another process that needs the log (see
/// [`askuser_app::location::hand_over_when_stopped`]).
pub(crate) fn as_a_persons_process() {
    if person_present()
        && let Err(error) = askuser_app::location::hand_over_when_stopped()
    {
        note(&format!(
            "askuser: warning: Ctrl-Z cannot hand the log over to other processes ({}); do not stop this one while they need the log",
            for_display(&error.to_string())
        ));
    }
}

pub(crate) fn person_present() -> bool {
    std::io::stderr().is_terminal()
        && (std::io::stdin().is_terminal() || std::fs::File::open("/dev/tty").is_ok())
}

/// A new stream's name: `<kind>-<UTC time>-<process id>`, e.g.
/// `ask-20260417T101500.123Z-4242`.
pub(crate) fn new_stream_name(kind: &str) -> String {
    let now: String = SystemClock
        .now()
        .to_string()
        .chars()
        .filter(|c| *c != '-' && *c != ':')
        .collect();
    format!("{kind}-{now}-{}", std::process::id())
}

/// What to print on standard output, and the exit status, for the final command of
/// an inquiry; `None` if `command` is not final.
pub(crate) fn conclude(command: &Command, call: &Call) -> Option<(String, u8)> {
    let code = match command {
        Command::Respond { .. } => EXIT_RESULT,
        Command::Fail { .. } => EXIT_NO_PERSON,
        Command::Reject { .. } => EXIT_REJECTED,
        Command::EndTurn { .. } => return Some((String::new(), EXIT_END_TURN)),
        _ => return None,
    };
    match call.tool_result(command)? {
        ToolResult::Success(value) => Some((format!("{}\n", json_for_display(&value)), code)),
        ToolResult::Text(text) | ToolResult::Error(text) => {
            Some((format!("{}\n", for_display(&text)), code))
        }
    }
}

/// `value` as compact JSON that is safe on a terminal and still the same JSON: every
/// control, bidi-control or invisible character (which can only stand inside a
/// string) is written as a `\uXXXX` escape.
pub(crate) fn json_for_display(value: &Value) -> String {
    let text = value.to_string();
    let shown = for_display_line(&text);
    if matches!(shown, std::borrow::Cow::Borrowed(_)) {
        return text;
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if for_display_line(c.encode_utf8(&mut [0; 4])).len() == c.len_utf8() {
            out.push(c);
        } else {
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                // Writing to a String cannot fail.
                let _ = write!(out, "\\u{unit:04x}");
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use std::ffi::OsStr;

    use super::shell_word;

    #[test]
    fn shell_words_paste_exactly_and_show_nothing_raw() {
        let cases: [(&str, &str); 6] = [
            ("/tmp/log.db", "/tmp/log.db"),
            ("", "''"),
            ("my log.db", "'my log.db'"),
            ("it's", r"'it'\''s'"),
            ("café $HOME", "'café $HOME'"),
            ("a\u{1b}[2J\nb's\\", r"$'a\x1b[2J\x0ab\'s\\'"),
        ];
        for (word, quoted) in cases {
            assert_eq!(shell_word(OsStr::new(word)), quoted, "{word:?}");
        }
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStrExt;
            assert_eq!(
                shell_word(OsStr::from_bytes(b"log-\xff.db")),
                r"$'log-\xff.db'"
            );
        }
    }
}
