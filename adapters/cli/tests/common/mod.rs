//! Helpers for driving the real `askuser` binary.

#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_askuser");

/// A file of the repository's `examples/`.
pub fn example(name: &str) -> String {
    format!("{}/../../examples/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// What a run of the binary gave.
#[derive(Debug)]
pub struct Run {
    /// The exit status.
    pub code: i32,
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
}

/// A scratch directory with a log database in it.
pub struct Scratch {
    pub dir: tempfile::TempDir,
}

impl Scratch {
    pub fn new() -> Self {
        Self {
            dir: tempfile::tempdir().expect("a temporary directory"),
        }
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    pub fn db(&self) -> String {
        self.path("log.db").display().to_string()
    }

    /// Runs `askuser args...` with `stdin`, in the scratch directory, with no
    /// terminal and a private HOME.
    pub fn run(&self, args: &[&str], stdin: &str) -> Run {
        run_in(self.dir.path(), args, stdin)
    }

    /// Runs `askuser <command> args... --db <db>`.
    pub fn run_db(&self, args: &[&str], stdin: &str) -> Run {
        let db = self.db();
        let mut all: Vec<&str> = args.to_vec();
        all.extend(["--db", db.as_str()]);
        self.run(&all, stdin)
    }

    /// The scratch directory's own name (random): the place a process started
    /// in it records as where its agent runs.
    pub fn dir_name(&self) -> String {
        let name = self
            .dir
            .path()
            .file_name()
            .expect("a temporary directory has a name");
        name.to_string_lossy().into_owned()
    }

    /// Replaces the scratch path by `<tmp>` and every timestamp by `<time>`.
    pub fn redact(&self, text: &str) -> String {
        redact_times(&text.replace(&self.dir.path().display().to_string(), "<tmp>"))
    }
}

/// `askuser args...` to run in `dir` (its home too, with no `ASKUSER_DB` or
/// `XDG_DATA_HOME`), every stream piped; after the shell command `limit`
/// (`umask 000`, `ulimit -n 256`) when one is given.
pub fn askuser_in(dir: &Path, limit: Option<&str>, args: &[&str]) -> Command {
    let mut command = match limit {
        Some(limit) => {
            let mut shell = Command::new("sh");
            shell
                .arg("-c")
                .arg(format!("{limit} && exec \"$0\" \"$@\""))
                .arg(BIN);
            shell
        }
        None => Command::new(BIN),
    };
    // The variables an agent host sets: these tests are no host's.
    for (marker, _) in askuser_app::origin::HOST_MARKERS {
        command.env_remove(marker);
    }
    command
        .args(args)
        .current_dir(dir)
        .env_remove("ASKUSER_DB")
        .env("HOME", dir)
        .env("ASKUSER_MACHINE", "laptop")
        .env_remove("XDG_DATA_HOME")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command
}

pub fn run_in(dir: &Path, args: &[&str], stdin: &str) -> Run {
    let mut child = askuser_in(dir, None, args)
        .spawn()
        .expect("the binary starts");
    let mut input = child.stdin.take().expect("stdin is piped");
    let stdin = stdin.to_owned();
    let writer = std::thread::spawn(move || {
        // The program may stop reading early; a broken pipe is not the test's concern.
        let _ = input.write_all(stdin.as_bytes());
    });
    let output = child.wait_with_output().expect("the binary runs");
    writer.join().expect("the writer finishes");
    Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8(output.stdout).expect("stdout is UTF-8"),
        stderr: String::from_utf8(output.stderr).expect("stderr is UTF-8"),
    }
}

/// Replaces every RFC 3339 timestamp (`2026-01-02T03:04:05.678Z`) by `<time>`.
pub fn redact_times(text: &str) -> String {
    const SHAPE: &[u8] = b"dddd-dd-ddTdd:dd:dd.dddZ";
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < bytes.len() {
        let fits = bytes.len() - i >= SHAPE.len()
            && SHAPE.iter().zip(&bytes[i..]).all(|(s, b)| match s {
                b'd' => b.is_ascii_digit(),
                other => other == b,
            });
        if fits {
            out.push_str("<time>");
            i += SHAPE.len();
        } else {
            let ch = text[i..].chars().next().expect("a char");
            out.push(ch);
            i += ch.len_utf8();
        }
    }
    out
}

/// tmux helpers (only the tmux tests use them).
pub mod browser;
pub mod hosts;
pub mod mcp;
pub mod model;
pub mod place;
pub mod tmux;
pub mod web;
