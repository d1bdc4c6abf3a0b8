//! `askuser mcp`: the MCP server on stdin/stdout (see the askuser-mcp crate).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use askuser_app::Desk;
use askuser_core::text::for_display_line;

use askuser_mcp::{AskServer, Config, ToolNames, Waiting, WithoutElicitation};

use crate::args::McpArgs;
use crate::common::{
    EXIT_RESULT, agent_stream, askuser_data_dir, db_path, open_journal, private_dir_all,
    stream_option,
};
use crate::error::CliError;

/// `askuser mcp`: without `--pending-dir`, a client that cannot show forms gets the
/// "cannot show forms" error; with `--http 127.0.0.1:PORT`, streamable HTTP
/// on that loopback address instead of stdio; with `--policy JSON`, every call is
/// recorded with that policy (one targeting the assistant is answered through
/// the client's sampling); with `--tool-prefix PREFIX`, the tools are served as
/// `PREFIX_ask_user` and `PREFIX_AskUserQuestion`.
pub(crate) fn mcp(args: &McpArgs) -> Result<u8, CliError> {
    let policy = args
        .policy
        .as_deref()
        .map(askuser_mcp::policy_with)
        .transpose()?;
    let tool_names = match &args.tool_prefix {
        Some(prefix) => ToolNames::prefixed(prefix)?,
        None => ToolNames::plain(),
    };
    // Checked before anything is opened.
    let stream = stream_option(args.stream.as_deref())?;
    if let Some(dir) = &args.pending_dir {
        pending_dir_ready(dir)?;
    }
    let db = db_path(args.db.db.as_deref())?;
    // Over HTTP, with the token its requests must carry.
    let http = (args.http)
        .map(|addr| token_file(&db).map(|file| (addr, file)))
        .transpose()?;
    // One log for the server's life, shared with every other askuser process.
    let desk = open_journal(&db)?;
    let log = Arc::clone(desk.log());
    // The last handle on the log is dropped here, after the server's runtime
    // has ended: a PostgreSQL client dropped inside a runtime panics.
    let _outlives_the_runtime = Arc::clone(&log);
    // The client's name comes with its first call, when `--agent` does not say.
    let origin = askuser_app::origin::here(args.agent.as_deref(), None);
    // A default name is claimed in the log before it is used (its first event
    // records where this server runs): servers started side by side in one
    // repository each get their own stream. On stdio it is claimed at the
    // first call, once the client has said where its project is (its roots);
    // the name worked out now is taken only where no place is known, on sled
    // and on PostgreSQL alike.
    let claim = args.stream.is_none() && http.is_none();
    let (stream, claimed) = agent_stream(&desk, stream, "mcp", &origin, !claim)?;
    drop(desk);
    let without_elicitation = match &args.pending_dir {
        Some(dir) => WithoutElicitation::Pending { dir: dir.clone() },
        None => WithoutElicitation::Fail,
    };
    let config = Config {
        open_desk: Arc::new(move || Ok(Desk::new(Arc::clone(&log)))),
        db: Some(db),
        stream,
        without_elicitation,
        policy,
        origin: Some(origin),
        waiting: Waiting {
            wait: args.wait.map(Duration::from_secs),
            no_person_below: Duration::from_millis(args.no_person_below),
            client_timeout: client_timeout(),
            // Over HTTP the server is not the host's child, and serves many.
            headless: if http.is_none() { headless() } else { None },
        },
        tool_names,
        claimed,
        claim,
    };
    let served = match http {
        Some((addr, token_file)) => {
            let token = askuser_app::secret::kept_in(&token_file)?;
            askuser_mcp::serve_http(config, addr, &token, |bound| {
                let shown = for_display_line(&token_file.to_string_lossy()).into_owned();
                crate::common::note(&format!(
                    "askuser: MCP over streamable HTTP at http://{bound}/mcp"
                ));
                crate::common::note(&format!(
                    "askuser: every request must carry `Authorization: Bearer TOKEN`, TOKEN being the contents of {shown} (readable by you only)"
                ));
            })
        }
        None => askuser_mcp::serve_stdio(AskServer::new(config)),
    };
    served?;
    Ok(EXIT_RESULT)
}

/// Where `askuser mcp --http` keeps the token its requests must carry: beside
/// the log, in a sled log's directory (`askuser.mcp-token`); for a PostgreSQL
/// log, in the person's own data directory (`askuser/mcp-token` under
/// `$XDG_DATA_HOME`, else `~/.local/share`), made 0700 if missing.
pub(crate) fn token_file(db: &Path) -> Result<PathBuf, CliError> {
    if !askuser_app::is_postgres_url(db) {
        return Ok(db.join("askuser.mcp-token"));
    }
    let data = askuser_data_dir().ok_or_else(|| {
        CliError::Usage(
            "no place for the MCP token of a PostgreSQL log: set XDG_DATA_HOME or HOME".into(),
        )
    })?;
    private_dir_all(&data)?;
    Ok(data.join("mcp-token"))
}

/// Makes `--pending-dir` ready before the server serves: made (readable by
/// you only) when missing, so that no call fails for want of it; something
/// there that is not a directory is refused, saying so.
fn pending_dir_ready(dir: &Path) -> Result<(), CliError> {
    let shown = for_display_line(&dir.to_string_lossy()).into_owned();
    match std::fs::metadata(dir) {
        Ok(found) if found.is_dir() => Ok(()),
        Ok(_) => Err(CliError::Usage(format!(
            "--pending-dir {shown}: this is not a directory; give the directory the pending files are written to"
        ))),
        Err(missing) if missing.kind() == std::io::ErrorKind::NotFound => {
            private_dir_all(dir).map_err(|error| {
                CliError::Usage(format!(
                    "--pending-dir {shown}: it does not exist and cannot be made ({error}); make it, or give a directory you can write to"
                ))
            })
        }
        Err(error) => Err(CliError::Usage(format!(
            "--pending-dir {shown}: it cannot be looked at ({error}); give a directory you can write to"
        ))),
    }
}

/// The host's own headless mode, from what it tells the servers it starts:
/// Claude Code's `CLAUDE_CODE_ENTRYPOINT`, and the arguments of this process's
/// parent (Codex runs its servers itself; `codex exec` is headless).
fn headless() -> Option<askuser_mcp::Headless> {
    let entrypoint = std::env::var("CLAUDE_CODE_ENTRYPOINT").ok();
    askuser_mcp::Headless::detect(entrypoint.as_deref(), &parent_args())
}

/// The arguments of this process's parent, from `/proc` (read with a cap);
/// empty where that is not known.
fn parent_args() -> Vec<String> {
    /// The most of the parent's command line read.
    const MOST: u64 = 64 * 1024;
    let path = format!("/proc/{}/cmdline", std::os::unix::process::parent_id());
    let mut bytes = Vec::new();
    let read = std::fs::File::open(path).and_then(|file| {
        std::io::Read::read_to_end(&mut std::io::Read::take(file, MOST), &mut bytes)
    });
    if read.is_err() {
        return Vec::new();
    }
    // Each argument ends with a NUL.
    if bytes.last() == Some(&0) {
        bytes.pop();
    }
    if bytes.is_empty() {
        return Vec::new();
    }
    (bytes.split(|byte| *byte == 0))
        .map(|arg| String::from_utf8_lossy(arg).into_owned())
        .collect()
}

/// The client's tool-call timeout when the environment it started this server
/// in says it: Claude Code passes its own `MCP_TOOL_TIMEOUT` (milliseconds) to
/// the servers it starts. Anything but a whole number is ignored.
fn client_timeout() -> Option<Duration> {
    let millis = std::env::var("MCP_TOOL_TIMEOUT").ok()?;
    millis.trim().parse().ok().map(Duration::from_millis)
}
