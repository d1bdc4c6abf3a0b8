//! `askuser setup HOST`: askuser's MCP server entry merged into a host's own
//! configuration file (the table of hosts, where each keeps its file and what
//! it needs switched on, is `askuser_mcp::clients`). The entry runs this very
//! program (`std::env::current_exe`) as `askuser mcp --db ABSOLUTE_PATH`, with
//! the tool names the host needs. The rest of the file is kept (other servers,
//! settings, comments); a file that does not parse is refused and left as it
//! is; the new file replaces the old one atomically (a temporary file in the
//! same directory, renamed over it) with the old one's permissions. A second
//! run changes nothing, and says so. `--dry-run` prints the change as a diff
//! and writes nothing.
//!
//! With `--http ADDR` the entry connects to `askuser mcp --http ADDR` instead,
//! with the log's token (`askuser_app::secret`) in its `Authorization`
//! header, where the host's file takes headers: only the person's own file
//! (never a project's), made readable by them only, and the token is never
//! printed.

mod inbox;
mod merge;

use std::fmt::Write as _;
use std::fs;
use std::io::{Read as _, Write as _};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use askuser_app::files::{self, Links};
use askuser_app::is_postgres_url;
use askuser_core::text::for_display;
use askuser_mcp::clients::{
    Allow, AllowRule, Client, CommandForm, Format, Http, Root, Setting, SettingValue, Setup,
    UserFile,
};
use serde_json::{Value, json};

use crate::args::SetupArgs;
use crate::common::{EXIT_RESULT, db_path, print_out, shell_word};
use crate::error::CliError;
use merge::Change;

/// The largest configuration file `askuser setup` reads (`~/.claude.json`
/// grows with every project, but not this far).
const MAX_CONFIG_BYTES: u64 = 16 << 20;

/// `askuser setup HOST [--db PATH] [--scope user|project] [--dry-run]`.
pub(crate) fn setup(args: &SetupArgs) -> Result<u8, CliError> {
    if args.host == "inbox" || args.remove {
        return inbox::setup(args);
    }
    let (client, setup) = Client::by_key(&args.host)
        .and_then(|client| Some((client, client.setup?)))
        .ok_or_else(|| CliError::Usage(format!("unknown host \"{}\"", args.host)))?;
    let db_path = db_path(args.db.db.as_deref())?;
    let db = Location::of(db_path.clone())?;
    let exe = std::env::current_exe()?;
    let words = command_words(&setup, &exe, &db)?;
    let remote = (args.http)
        .map(|addr| Remote::of(&client, &setup, addr, &db_path, &args.scope))
        .transpose()?;
    let allow = !args.no_allow;
    let entry = match &remote {
        Some(remote) => http_entry(&setup, remote, allow),
        None => entry(&setup, &words, allow),
    };
    let (path, roots) = match args.scope.as_str() {
        "project" => {
            let dir = std::env::current_dir()?;
            (first_existing(&dir, setup.project), vec![dir])
        }
        _ => user_file(&setup.user)?,
    };
    let (target, old) = read_config(&path)?;
    confined(&path, &target, &roots, args.scope == "project")?;
    let merged = match setup.format {
        Format::Json => merge::json(old.as_deref(), false, setup.servers, &entry),
        Format::Jsonc => merge::json(old.as_deref(), true, setup.servers, &entry),
        Format::Toml => merge::toml(old.as_deref(), setup.servers, &entry),
    };
    let (new, change) = merged.map_err(|refusal| CliError::ConfigRefused {
        path: target.display().to_string(),
        refusal: refusal.to_string(),
    })?;
    let shown = target.display().to_string();
    let mut out = String::new();
    let was_open = remote
        .as_ref()
        .and_then(|_| mode_of(&target))
        .filter(|mode| mode & 0o077 != 0);
    if args.dry_run {
        // The token is never printed: the diff shows where it goes.
        let hide = |text: &str| match &remote {
            Some(remote) => text.replace(&remote.token, "<token>"),
            None => text.to_owned(),
        };
        let old = old.as_deref().map(hide);
        dry_run(
            &mut out,
            client.key,
            &shown,
            old.as_deref(),
            &hide(&new),
            change,
        );
    } else {
        if change != Change::Unchanged {
            let project = args.scope == "project";
            write_atomically(&target, &new, old.as_deref(), project, remote.is_some())?;
        }
        said(&mut out, client.key, &shown, old.is_some(), change);
    }
    let kept = merge::kept(&new, setup.format, setup.servers, &entry);
    match &remote {
        Some(remote) => {
            what_it_connects_to(
                &mut out,
                remote,
                &words,
                &shown,
                was_open.filter(|_| !args.dry_run),
            );
            kept_keys(&mut out, &shown, &kept);
            what_it_sets(&mut out, &setup, allow, &shown);
        }
        None => what_it_runs(&mut out, &setup, &words, &kept, &shown, allow),
    }
    if allow {
        allow_tools(&mut out, client.key, &setup, args)?;
    } else if !matches!(setup.allow, Allow::Nothing(_)) {
        let _ = writeln!(
            out,
            "askuser's tools are not allowed in {}'s permissions (--no-allow): it asks before each call, and a headless run cannot call them.",
            client.host
        );
    }
    if let Location::Url {
        had_password: true, ..
    } = db
    {
        let _ = writeln!(
            out,
            "The database's password is not written into {shown}: askuser reads it from PGPASSWORD in the host's environment, or from ~/.pgpass (mode 0600), as psql does."
        );
    }
    // Writing to a String cannot fail.
    let _ = writeln!(out, "Next: {}", setup.next);
    print_out(&for_display(&out))?;
    Ok(EXIT_RESULT)
}

/// Where the host's askuser records.
enum Location {
    /// A sled directory, made absolute.
    Path(PathBuf),
    /// A PostgreSQL URL, as given but for its password.
    Url {
        /// The URL without a password.
        url: String,
        /// Whether one was taken out.
        had_password: bool,
    },
}

impl Location {
    /// `--db` (or `ASKUSER_DB`, or the default) as the entry will name it.
    fn of(db: PathBuf) -> Result<Self, CliError> {
        match db.to_str().filter(|_| is_postgres_url(&db)) {
            Some(url) => {
                let (url, had_password) = without_password(url);
                Ok(Self::Url { url, had_password })
            }
            None => Ok(Self::Path(std::path::absolute(db)?)),
        }
    }
}

/// `url` without a password, in its user information or its query, and
/// whether there was one.
fn without_password(url: &str) -> (String, bool) {
    let scheme_end = url.find("://").map_or(0, |at| at + 3);
    let (scheme, rest) = url.split_at(scheme_end);
    let authority_end = rest.find(['/', '?']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(authority_end);
    let mut had = false;
    let authority = match authority.rfind('@') {
        Some(at) => match authority[..at].find(':') {
            Some(colon) => {
                had = true;
                format!("{}{}", &authority[..colon], &authority[at..])
            }
            None => authority.to_owned(),
        },
        None => authority.to_owned(),
    };
    let tail = match tail.split_once('?') {
        Some((path, query)) => {
            let kept: Vec<&str> = query
                .split('&')
                .filter(|param| {
                    let password = param.split('=').next() == Some("password");
                    had |= password;
                    !password
                })
                .collect();
            if kept.is_empty() {
                path.to_owned()
            } else {
                format!("{path}?{}", kept.join("&"))
            }
        }
        None => tail.to_owned(),
    };
    (format!("{scheme}{authority}{tail}"), had)
}

/// The program and its arguments: this askuser, `mcp --db DB`, and the tool
/// prefix the host needs.
fn command_words(setup: &Setup, exe: &Path, db: &Location) -> Result<Vec<String>, CliError> {
    let text = |path: &Path| {
        path.to_str().map(str::to_owned).ok_or_else(|| {
            CliError::Usage(format!(
                "{} is not UTF-8, and a host's configuration holds text: use a path that is",
                shell_word(path.as_os_str())
            ))
        })
    };
    let db = match db {
        Location::Path(path) => text(path)?,
        Location::Url { url, .. } => url.clone(),
    };
    let mut words = vec![text(exe)?, "mcp".into(), "--db".into(), db];
    if let Some(prefix) = setup.tool_prefix {
        words.extend(["--tool-prefix".into(), prefix.to_owned()]);
    }
    if let Some(seconds) = setup.wait {
        words.extend(["--wait".into(), seconds.to_string()]);
    }
    Ok(words)
}

/// What an entry over HTTP connects to: `askuser mcp --http ADDR`, with the
/// token of the log kept beside it.
struct Remote {
    /// The host's shape of such an entry.
    shape: Http,
    /// Where `askuser mcp --http` listens.
    addr: SocketAddr,
    /// The file the token is kept in.
    token_file: PathBuf,
    /// The token.
    token: String,
}

impl Remote {
    /// For `askuser setup HOST --http ADDR`: refused for a host whose file
    /// takes no headers, for `--scope project` (others read a project's
    /// file), and for an address `askuser mcp --http` does not take. The
    /// token is read, or made, as `askuser mcp --http` would.
    fn of(
        client: &Client,
        setup: &Setup,
        addr: SocketAddr,
        db: &Path,
        scope: &str,
    ) -> Result<Self, CliError> {
        let key = client.key;
        let shape = setup.http.ok_or_else(|| {
            CliError::Usage(format!(
                "{} takes a remote server's token only from an environment variable, not from its configuration, so askuser setup {key} --http is not offered: run askuser setup {key} without --http (the host then starts askuser itself)",
                client.host
            ))
        })?;
        if scope == "project" {
            return Err(CliError::Usage(
                "--http writes the MCP token into the host's configuration, so only into your own (--scope user): a project's file can be read by others".into(),
            ));
        }
        if !addr.ip().is_loopback() {
            return Err(CliError::Usage(format!(
                "--http {addr} is not a loopback address; askuser mcp --http listens on one only (127.0.0.1:PORT or [::1]:PORT)"
            )));
        }
        if !is_postgres_url(db) {
            // The token is kept in the log's directory: the log is made first.
            drop(crate::common::open_journal(db)?);
        }
        let token_file = crate::mcp::token_file(db)?;
        let token = askuser_app::secret::kept_in(&token_file)?;
        Ok(Self {
            shape,
            addr,
            token_file,
            token,
        })
    }

    /// The URL `askuser mcp --http` serves at.
    fn url(&self) -> String {
        format!("http://{}/mcp", self.addr)
    }
}

/// askuser's server entry over HTTP in the host's shape: its URL and the
/// token's header, the host's settings, and no command.
fn http_entry(setup: &Setup, remote: &Remote, allow: bool) -> Vec<(String, Value)> {
    let mut entry = Vec::new();
    if let Some(kind) = remote.shape.kind {
        entry.push(("type".to_owned(), json!(kind)));
    }
    entry.push((remote.shape.url.to_owned(), json!(remote.url())));
    let header = json!({"Authorization": format!("Bearer {}", remote.token)});
    entry.push((remote.shape.headers.to_owned(), header));
    entry.push(("command".to_owned(), Value::Null));
    if setup.command == CommandForm::Split {
        entry.push(("args".to_owned(), Value::Null));
    }
    entry.extend(settings(setup, allow));
    entry
}

/// The keys the host's settings set beside the command or the URL (without
/// those that allow askuser's tools, unless `allow`).
fn settings(setup: &Setup, allow: bool) -> Vec<(String, Value)> {
    (setup.settings.iter())
        .filter(|setting| allow || !setting.allows)
        .map(|setting| {
            let value = match setting.value {
                SettingValue::Bool(b) => json!(b),
                SettingValue::Integer(i) => json!(i),
                SettingValue::Text(text) => json!(text),
            };
            (setting.key.to_owned(), value)
        })
        .collect()
}

/// askuser's server entry in the host's shape, key by key.
fn entry(setup: &Setup, words: &[String], allow: bool) -> Vec<(String, Value)> {
    let mut entry = Vec::new();
    if let Some(kind) = setup.kind {
        entry.push(("type".to_owned(), json!(kind)));
    }
    match setup.command {
        CommandForm::Split => {
            entry.push(("command".to_owned(), json!(words[0])));
            entry.push(("args".to_owned(), json!(words[1..])));
        }
        CommandForm::List => entry.push(("command".to_owned(), json!(words))),
    }
    if let Some(http) = setup.http {
        // An entry over HTTP written before is a command again.
        entry.push((http.url.to_owned(), Value::Null));
        entry.push((http.headers.to_owned(), Value::Null));
    }
    entry.extend(settings(setup, allow));
    entry
}

/// The host's own file for the person: in the directory its environment
/// variable names, else under the home (or the configuration) directory; and
/// the directories it must stay in (the home, and that variable's).
fn user_file(file: &UserFile) -> Result<(PathBuf, Vec<PathBuf>), CliError> {
    let env = |name: &str| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    let own_dir = file.dir_env.and_then(env);
    let home = file
        .home_env
        .and_then(env)
        .or_else(|| env("HOME"))
        .ok_or_else(|| {
            CliError::Usage("no home directory: set HOME, or use --scope project".into())
        })?;
    let config = || {
        env("XDG_CONFIG_HOME")
            .filter(|dir| dir.is_absolute())
            .unwrap_or_else(|| home.join(".config"))
    };
    let root = match file.root {
        Root::Home => home.clone(),
        Root::AppData if cfg!(target_os = "macos") => home.join("Library/Application Support"),
        Root::XdgConfig | Root::AppData => config(),
    };
    if let Some(dir) = own_dir {
        return Ok((first_existing(&dir, file.files), vec![home, dir]));
    }
    Ok((first_existing(&root.join(file.dir), file.files), vec![home]))
}

/// Refuses to write `path` where it leads out of `roots` (the project, or the
/// person's home and the host's own directory), through a symbolic link in it or in a directory on the way:
/// a hostile project's `.mcp.json` or `.vscode` linked to another user's file
/// would otherwise be rewritten, and made the writer's. `target` is where
/// [`read_config`] found the file to lead.
fn confined(path: &Path, target: &Path, roots: &[PathBuf], project: bool) -> Result<(), CliError> {
    let file_error = |error| CliError::File {
        path: path.to_owned(),
        error,
    };
    let lands = resolved(target).map_err(file_error)?;
    let roots: Vec<PathBuf> = roots
        .iter()
        .filter_map(|root| resolved(root).ok())
        .collect();
    if roots.iter().any(|root| lands.starts_with(root)) {
        return Ok(());
    }
    let root = roots.first().cloned().unwrap_or_default();
    let inside = if project { "the project" } else { "your home" };
    Err(CliError::ConfigRefused {
        path: path.display().to_string(),
        refusal: format!(
            "it leads through a symbolic link to {}, outside {inside} ({}); askuser setup writes only inside it: replace the link by a file of your own",
            lands.display(),
            root.display()
        ),
    })
}

/// `path` with every symbolic link resolved, for a file that need not exist
/// yet: its nearest existing directory resolved, the rest as written.
fn resolved(path: &Path) -> std::io::Result<PathBuf> {
    let mut rest = Vec::new();
    let mut at = path;
    loop {
        match fs::canonicalize(at) {
            Ok(real) => return Ok(rest.iter().rev().fold(real, |dir, name| dir.join(name))),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                let (Some(parent), Some(name)) = (at.parent(), at.file_name()) else {
                    return Err(error);
                };
                rest.push(name.to_owned());
                at = parent;
            }
            Err(error) => return Err(error),
        }
    }
}

/// The first of `names` in `dir` that exists, else the first.
fn first_existing(dir: &Path, names: &[&str]) -> PathBuf {
    let paths: Vec<PathBuf> = names.iter().map(|name| dir.join(name)).collect();
    paths
        .iter()
        .find(|path| path.exists())
        .or(paths.first())
        .cloned()
        .unwrap_or_else(|| dir.to_owned())
}

/// The file to write (the target of a symbolic link, so the link stays) and
/// its text; `None` when there is none yet.
fn read_config(path: &Path) -> Result<(PathBuf, Option<String>), CliError> {
    let file_error = |error| CliError::File {
        path: path.to_owned(),
        error,
    };
    let target = match fs::canonicalize(path) {
        Ok(target) => target,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            return Ok((path.to_owned(), None));
        }
        Err(error) => return Err(file_error(error)),
    };
    let unreadable = |reason: &str| CliError::Unreadable {
        name: path.display().to_string(),
        reason: reason.to_owned(),
    };
    // Looked at through the open handle, and read to the cap at most: a file
    // swapped for a FIFO or growing meanwhile changes nothing.
    let file = files::open_without_blocking(&target, Links::Follow).map_err(file_error)?;
    if !file.metadata().map_err(file_error)?.is_file() {
        return Err(unreadable(
            "not a regular file; askuser setup changed nothing",
        ));
    }
    let mut bytes = Vec::new();
    file.take(MAX_CONFIG_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(file_error)?;
    if bytes.len() as u64 > MAX_CONFIG_BYTES {
        return Err(unreadable(
            "larger than 16 MiB; askuser setup changed nothing",
        ));
    }
    let text = String::from_utf8(bytes)
        .map_err(|_| unreadable("not UTF-8 text; askuser setup changed nothing"))?;
    Ok((target, Some(text)))
}

/// Replaces `path` by `text`: written to a new file in the same directory
/// (created with the old file's permissions, else 0600 for the person's own
/// file and 0644 for a project's; without those of group and others when
/// `private`), flushed, then renamed over it, unless the
/// file changed since it was read.
fn write_atomically(
    path: &Path,
    text: &str,
    old: Option<&str>,
    project: bool,
    private: bool,
) -> Result<(), CliError> {
    let file_error = |error| CliError::File {
        path: path.to_owned(),
        error,
    };
    let dir = path.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(dir).map_err(file_error)?;
    let mode = mode_of(path).unwrap_or(if project { 0o644 } else { 0o600 });
    // A file that holds a token is the person's alone.
    let mode = if private { mode & !0o077 } else { mode };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let prefix = format!(".{name}.askuser-");
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".tmp");
    #[cfg(unix)]
    builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(mode));
    // Removed again when dropped, unless it replaced the file.
    let mut temp = builder.tempfile_in(dir).map_err(file_error)?;
    temp.write_all(text.as_bytes())
        .and_then(|()| temp.as_file().sync_all())
        .and_then(|()| set_mode(temp.path(), mode, old.is_some()))
        .map_err(file_error)?;
    not_another_users(path, temp.as_file())?;
    let now = match fs::read(path) {
        Ok(bytes) => Some(bytes),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => None,
        Err(error) => Some(error.to_string().into_bytes()),
    };
    if now.as_deref() != old.map(str::as_bytes) {
        return Err(CliError::ConfigChanged {
            path: path.display().to_string(),
        });
    }
    temp.persist(path).map_err(|e| file_error(e.error))?;
    Ok(())
}

/// Refuses to replace a file another user owns (setup run as root in someone
/// else's project would make their file root's): `ours` is the new file, made
/// by this process, so its owner is who runs setup.
fn not_another_users(path: &Path, ours: &fs::File) -> Result<(), CliError> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt as _;
        let owner = |meta: std::io::Result<fs::Metadata>| meta.ok().map(|m| m.uid());
        let (Some(me), Some(theirs)) = (owner(ours.metadata()), owner(fs::metadata(path))) else {
            return Ok(());
        };
        if me != theirs {
            return Err(CliError::ConfigRefused {
                path: path.display().to_string(),
                refusal: format!(
                    "it belongs to user {theirs}, not to you (user {me}); askuser setup does not rewrite another user's file: run it as that user"
                ),
            });
        }
    }
    #[cfg(not(unix))]
    let _ = (path, ours);
    Ok(())
}

/// The permission bits of the file at `path`, if it exists.
fn mode_of(path: &Path) -> Option<u32> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        fs::metadata(path)
            .ok()
            .map(|m| m.permissions().mode() & 0o7777)
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        None
    }
}

/// Gives `path` exactly the old file's permission bits (the process's umask
/// applies to a new file only).
fn set_mode(path: &Path, mode: u32, replacing: bool) -> std::io::Result<()> {
    #[cfg(unix)]
    if replacing {
        use std::os::unix::fs::PermissionsExt as _;
        fs::set_permissions(path, fs::Permissions::from_mode(mode))?;
    }
    let _ = (path, mode, replacing);
    Ok(())
}

/// What was done.
fn said(out: &mut String, host: &str, path: &str, existed: bool, change: Change) {
    let _ = match change {
        Change::Unchanged => writeln!(
            out,
            "askuser setup {host}: {path} already has askuser's entry as it would be written; nothing was changed."
        ),
        Change::Added if !existed => writeln!(
            out,
            "askuser setup {host}: wrote {path} with askuser's entry."
        ),
        Change::Added => writeln!(
            out,
            "askuser setup {host}: added askuser's entry to {path}."
        ),
        Change::Updated => writeln!(
            out,
            "askuser setup {host}: updated askuser's entry in {path}."
        ),
    };
}

/// What would be done, and the change as a unified diff.
fn dry_run(out: &mut String, host: &str, path: &str, old: Option<&str>, new: &str, change: Change) {
    if change == Change::Unchanged {
        let _ = writeln!(
            out,
            "askuser setup {host} --dry-run: {path} already has askuser's entry as it would be written; nothing would change."
        );
        return;
    }
    let what = match (old, change) {
        (None, _) => "would write the new file",
        (Some(_), Change::Added) => "would add askuser's entry to",
        _ => "would update askuser's entry in",
    };
    let _ = writeln!(
        out,
        "askuser setup {host} --dry-run: {what} {path} (nothing was written):"
    );
    let old = old.unwrap_or("");
    let diff = similar::TextDiff::from_lines(old, new);
    let _ = write!(
        out,
        "{}",
        diff.unified_diff()
            .context_radius(3)
            .header(path, &format!("{path} (new)"))
    );
}

/// The keys of askuser's entry that the file keeps beside askuser's own
/// (`env`, `cwd`, …): the host runs askuser with them too, so the person sees
/// each one.
fn kept_keys(out: &mut String, path: &str, kept: &[(String, String)]) {
    if kept.is_empty() {
        return;
    }
    for (key, value) in kept {
        let _ = writeln!(out, "  with {key} = {value} (kept from the file)");
    }
    let _ = writeln!(
        out,
        "If you did not write those, remove them from askuser's entry in {path}."
    );
}

/// Where an entry over HTTP connects, where its token is, and the server to
/// start: `words` (the stdio entry's command) serving HTTP at its address.
/// `was_open`: the file's mode before, when group or others could read it.
fn what_it_connects_to(
    out: &mut String,
    remote: &Remote,
    words: &[String],
    path: &str,
    was_open: Option<u32>,
) {
    let _ = writeln!(
        out,
        "The host connects to {} with the header Authorization: Bearer TOKEN, TOKEN being the contents of {}; {path} holds it, and is readable by you only.",
        remote.url(),
        remote.token_file.display()
    );
    if let Some(mode) = was_open {
        let _ = writeln!(
            out,
            "{path} was readable by others (mode {mode:04o}); it is now 0600."
        );
    }
    let mut command: Vec<String> = (words.iter())
        .map(|w| shell_word(std::ffi::OsStr::new(w)))
        .collect();
    command.splice(2..2, ["--http".to_owned(), remote.addr.to_string()]);
    let _ = writeln!(
        out,
        "Start the server first, and keep it running: {}",
        command.join(" ")
    );
}

/// The command the entry runs, and what it switches on.
fn what_it_runs(
    out: &mut String,
    setup: &Setup,
    words: &[String],
    kept: &[(String, String)],
    path: &str,
    allow: bool,
) {
    let command: Vec<String> = words
        .iter()
        .map(|w| shell_word(std::ffi::OsStr::new(w)))
        .collect();
    let _ = writeln!(out, "The host runs: {}", command.join(" "));
    kept_keys(out, path, kept);
    what_it_sets(out, setup, allow, path);
}

/// What the entry switches on beside the command or the URL, and how to undo
/// what allows askuser's tools.
fn what_it_sets(out: &mut String, setup: &Setup, allow: bool, path: &str) {
    for Setting {
        key,
        value,
        why,
        allows,
    } in setup.settings
    {
        if *allows && !allow {
            continue;
        }
        let set = setup.format.assignment(key, *value);
        let _ = writeln!(out, "It sets {}: {why}.", set.trim_matches('`'));
        if *allows {
            let _ = writeln!(
                out,
                "To undo that, remove {key} from askuser's entry in {path} (askuser setup --no-allow leaves it out)."
            );
        }
    }
    if let Some(prefix) = setup.tool_prefix {
        let _ = writeln!(
            out,
            "The tools are served as {prefix}_ask_user and {prefix}_AskUserQuestion, so the host's own tools do not shadow them (the model sees {}).",
            setup.model_sees.trim_matches('`')
        );
    }
    if let Some(seconds) = setup.wait {
        let _ = writeln!(
            out,
            "A call nobody can answer in the host (no person at it, as in a headless run) waits up to {seconds} s for an answer from another window (askuser web), inside the host's raised timeout."
        );
    }
}

/// Allows askuser's tools in the host's permissions where they are a rule in
/// another file of the same scope (Claude Code's `permissions.allow`), or says
/// what the host does where nothing is written.
fn allow_tools(
    out: &mut String,
    host: &str,
    setup: &Setup,
    args: &SetupArgs,
) -> Result<(), CliError> {
    let rule = match setup.allow {
        Allow::InEntry => return Ok(()),
        Allow::Nothing(words) => {
            let _ = writeln!(out, "Nothing is written to allow askuser's tools: {words}.");
            return Ok(());
        }
        Allow::Rule(rule) => rule,
    };
    let (path, roots) = match args.scope.as_str() {
        "project" => {
            let dir = std::env::current_dir()?;
            (first_existing(&dir, rule.project), vec![dir])
        }
        _ => user_file(&rule.user)?,
    };
    let (target, old) = read_config(&path)?;
    let project = args.scope == "project";
    confined(&path, &target, &roots, project)?;
    let (new, added) =
        merge::json_rule(old.as_deref(), false, rule.list, rule.rule).map_err(|refusal| {
            CliError::ConfigRefused {
                path: target.display().to_string(),
                refusal: refusal.to_string(),
            }
        })?;
    let shown = target.display().to_string();
    let list = rule.list.join(".");
    let AllowRule {
        rule: name, why, ..
    } = rule;
    if args.dry_run {
        if added {
            let _ = writeln!(
                out,
                "askuser setup {host} --dry-run: would add \"{name}\" to {list} in {shown} (nothing was written):"
            );
            let diff = similar::TextDiff::from_lines(old.as_deref().unwrap_or(""), &new);
            let _ = write!(
                out,
                "{}",
                diff.unified_diff()
                    .context_radius(3)
                    .header(&shown, &format!("{shown} (new)"))
            );
        }
    } else if added {
        write_atomically(&target, &new, old.as_deref(), project, false)?;
    }
    let done = match (added, args.dry_run) {
        (false, _) => "already allows",
        (true, false) => "now allows",
        (true, true) => "would allow",
    };
    let _ = writeln!(
        out,
        "{shown} {done} askuser's tools (\"{name}\" in {list}): {why}. To undo that, take \"{name}\" out of {list} in {shown} (askuser setup --no-allow leaves it out)."
    );
    Ok(())
}
