//! `askuser setup inbox`: the web inbox as the person's own service, so an
//! inbox is there whenever an agent waits. Where a systemd user instance
//! answers (`systemctl --user`), a unit (`askuser-inbox.service`, in the
//! person's `systemd/user` configuration directory) runs this very program as
//! `askuser web --listen 127.0.0.1:8765 --token-file FILE --db ABSOLUTE_PATH`
//! (the token kept, so the link outlives a restart), enabled and
//! started at once and at each login. Where none answers (a container, a
//! machine without systemd), nothing is written: setup says what to run
//! instead. `--remove` stops, disables and removes it; `--dry-run` prints the
//! unit and the commands, and writes and runs nothing.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use askuser_core::text::for_display;

use super::{Location, read_config, write_atomically};
use crate::args::SetupArgs;
use crate::common::{EXIT_RESULT, db_path, print_out, shell_word};
use crate::error::CliError;

/// The unit's name.
const UNIT: &str = "askuser-inbox.service";

/// The address the inbox listens on: `askuser web`'s own default, loopback.
const LISTEN: &str = "127.0.0.1:8765";

/// What undoes it, said after each run.
const UNDO: &str = "To undo it: askuser setup inbox --remove";

/// `askuser setup inbox [--db PATH] [--dry-run] [--remove]`.
/// (`--remove` with a host is refused here.)
pub(super) fn setup(args: &SetupArgs) -> Result<u8, CliError> {
    if args.host != "inbox" {
        return Err(CliError::Usage(format!(
            "--remove is for askuser setup inbox; to take askuser out of {}, remove askuser's entry from its configuration",
            args.host
        )));
    }
    if args.http.is_some() || args.scope != "user" || args.no_allow {
        return Err(CliError::Usage(
            "askuser setup inbox takes only --db, --dry-run and --remove: it writes your own systemd unit, for no host".into(),
        ));
    }
    let path = unit_path()?;
    let shown = path.display().to_string();
    let mut out = String::new();
    if args.remove {
        remove(&mut out, &path, &shown, args.dry_run)?;
    } else {
        let db = Location::of(db_path(args.db.db.as_deref())?)?;
        let token_file = token_file()?;
        let words = web_words(&std::env::current_exe()?, &db, &token_file)?;
        let token = token_file.display().to_string();
        install(&mut out, &path, &shown, &words, &token, args.dry_run)?;
        if let Location::Url {
            had_password: true, ..
        } = db
        {
            let _ = writeln!(
                out,
                "The database's password is not written into {shown}: askuser reads it from ~/.pgpass (mode 0600), as psql does."
            );
        }
    }
    print_out(&for_display(&out))?;
    Ok(EXIT_RESULT)
}

/// Writes the unit and starts it, or says what to run where no systemd user
/// instance answers (and writes nothing).
fn install(
    out: &mut String,
    path: &Path,
    shown: &str,
    words: &[String],
    token_file: &str,
    dry_run: bool,
) -> Result<(), CliError> {
    let unit = unit_text(words);
    let command: Vec<String> = (words.iter())
        .map(|w| shell_word(std::ffi::OsStr::new(w)))
        .collect();
    let command = command.join(" ");
    if dry_run {
        let _ = write!(
            out,
            "askuser setup inbox --dry-run: would write {shown} (nothing was written):\n{unit}"
        );
        let _ = writeln!(out, "It runs: {command}");
        let _ = writeln!(
            out,
            "Then setup would run systemctl --user daemon-reload and systemctl --user enable --now {UNIT}; where no systemd user instance answers, it writes nothing and says to run the inbox yourself."
        );
        return Ok(());
    }
    if let Err(why) = systemctl(&["show-environment"]) {
        let _ = writeln!(
            out,
            "askuser setup inbox: no systemd user instance answers here ({why}), so nothing was written."
        );
        let _ = writeln!(
            out,
            "Run the inbox yourself and keep it running (a terminal or tmux window of its own, or your session's autostart): {command}"
        );
        tell_links(out, token_file);
        return Ok(());
    }
    let (_, old) = read_config(path)?;
    let changed = old.as_deref() != Some(unit.as_str());
    if changed {
        write_atomically(path, &unit, old.as_deref(), false, false)?;
        run(&["daemon-reload"])?;
    }
    run(&["enable", "--now", UNIT])?;
    if changed && old.is_some() {
        // The unit changed: the running inbox is the old one.
        run(&["restart", UNIT])?;
    }
    let done = match (changed, old.is_some()) {
        (false, _) => format!("{shown} is already as it would be written; it was left as it is"),
        (true, false) => format!("wrote {shown}"),
        (true, true) => format!("updated {shown}, and restarted the inbox"),
    };
    let _ = writeln!(out, "askuser setup inbox: {done}.");
    let _ = writeln!(out, "It runs: {command}");
    let _ = writeln!(
        out,
        "systemctl --user enable --now {UNIT}: the inbox runs now, and from each login on."
    );
    tell_links(out, token_file);
    let _ = writeln!(out, "{UNDO}");
    Ok(())
}

/// Stops, disables and removes the unit (only removes it where no systemd user
/// instance answers).
fn remove(out: &mut String, path: &Path, shown: &str, dry_run: bool) -> Result<(), CliError> {
    let exists = path.symlink_metadata().is_ok();
    if !exists {
        let _ = writeln!(
            out,
            "askuser setup inbox --remove: there is no {shown}; nothing was changed."
        );
        return Ok(());
    }
    if dry_run {
        let _ = writeln!(
            out,
            "askuser setup inbox --remove --dry-run: would run systemctl --user disable --now {UNIT}, remove {shown} and run systemctl --user daemon-reload (nothing was changed)."
        );
        return Ok(());
    }
    let systemd = systemctl(&["show-environment"]).is_ok();
    if systemd {
        run(&["disable", "--now", UNIT])?;
    }
    std::fs::remove_file(path).map_err(|error| CliError::File {
        path: path.to_owned(),
        error,
    })?;
    if systemd {
        run(&["daemon-reload"])?;
        let _ = writeln!(
            out,
            "askuser setup inbox --remove: stopped and disabled {UNIT}, and removed {shown}."
        );
    } else {
        let _ = writeln!(
            out,
            "askuser setup inbox --remove: removed {shown} (no systemd user instance answers here, so nothing was stopped)."
        );
    }
    let _ = writeln!(
        out,
        "A waiting askuser call now shows no inbox's link unless you run askuser web yourself."
    );
    Ok(())
}

/// The inbox's link, without its token.
fn link() -> String {
    format!("http://{LISTEN}/")
}

/// The inbox's two links in words: where the secret one is, and the one a
/// waiting call shows.
fn tell_links(out: &mut String, token_file: &str) {
    let _ = writeln!(out, "{}", secret_link(token_file));
    let _ = writeln!(
        out,
        "While it runs, a waiting askuser call shows its link, {}, never its token.",
        link()
    );
}

/// Where the secret link is (the token itself is never printed).
fn secret_link(token_file: &str) -> String {
    format!(
        "Its secret link is {}?token= followed by the contents of {token_file} (readable by you only): open it once in your browser, which keeps it across restarts.",
        link()
    )
}

/// The file the inbox keeps its token in: `web-token` in askuser's own data
/// directory.
fn token_file() -> Result<PathBuf, CliError> {
    crate::common::askuser_data_dir()
        .map(|dir| dir.join("web-token"))
        .ok_or_else(|| CliError::Usage("no home directory: set HOME".into()))
}

/// The unit's file: `$XDG_CONFIG_HOME/systemd/user/askuser-inbox.service`, else
/// under `~/.config`.
fn unit_path() -> Result<PathBuf, CliError> {
    let env = |name: &str| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    let config = match env("XDG_CONFIG_HOME").filter(|dir| dir.is_absolute()) {
        Some(dir) => dir,
        None => env("HOME")
            .ok_or_else(|| CliError::Usage("no home directory: set HOME".into()))?
            .join(".config"),
    };
    Ok(config.join("systemd/user").join(UNIT))
}

/// The program and its arguments: this askuser, `web --listen ADDR
/// --token-file FILE --db DB`.
fn web_words(exe: &Path, db: &Location, token_file: &Path) -> Result<Vec<String>, CliError> {
    let text = |path: &Path| {
        path.to_str().map(str::to_owned).ok_or_else(|| {
            CliError::Usage(format!(
                "{} is not UTF-8, and a systemd unit holds text: use a path that is",
                shell_word(path.as_os_str())
            ))
        })
    };
    let db = match db {
        Location::Path(path) => text(path)?,
        Location::Url { url, .. } => url.clone(),
    };
    Ok(vec![
        text(exe)?,
        "web".into(),
        "--listen".into(),
        LISTEN.into(),
        "--token-file".into(),
        text(token_file)?,
        "--db".into(),
        db,
    ])
}

/// The unit's text, running `words`.
fn unit_text(words: &[String]) -> String {
    let exec: Vec<String> = words.iter().map(|w| unit_word(w)).collect();
    format!(
        "# askuser's web inbox, written by askuser setup inbox (askuser setup inbox --remove takes it away).
[Unit]
Description=askuser web inbox: answer an agent's questions in a browser

[Service]
ExecStart={}
Restart=on-failure

[Install]
WantedBy=default.target
",
        exec.join(" ")
    )
}

/// `word` as one word of a unit's `ExecStart=`: `%` and `$` doubled (systemd
/// expands them), in double quotes (with `\` and `"` escaped) when it holds a
/// space, a quote or a backslash.
fn unit_word(word: &str) -> String {
    let word = word.replace('%', "%%").replace('$', "$$");
    if word.contains([' ', '\t', '"', '\'', '\\']) || word.is_empty() {
        format!("\"{}\"", word.replace('\\', "\\\\").replace('"', "\\\""))
    } else {
        word
    }
}

/// Runs `systemctl --user ARGS`, its failure in words.
fn systemctl(args: &[&str]) -> Result<(), String> {
    let output = Command::new("systemctl")
        .arg("--user")
        .args(args)
        .output()
        .map_err(|error| match error.kind() {
            std::io::ErrorKind::NotFound => "systemctl is not installed".to_owned(),
            _ => format!("systemctl cannot run: {error}"),
        })?;
    if output.status.success() {
        return Ok(());
    }
    let said = String::from_utf8_lossy(&output.stderr);
    let said = said.lines().next().unwrap_or("").trim();
    Err(if said.is_empty() {
        format!("systemctl --user {} failed", args.join(" "))
    } else {
        format!("systemctl --user {}: {said}", args.join(" "))
    })
}

/// [`systemctl`], its failure an error saying what to do.
fn run(args: &[&str]) -> Result<(), CliError> {
    systemctl(args).map_err(|why| CliError::Service {
        command: format!("systemctl --user {}", args.join(" ")),
        why,
    })
}
