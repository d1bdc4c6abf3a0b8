//! Other processes on one log: the `askuser-store-sharedtest` helper.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

/// One helper process, its input and output piped.
pub struct Helper {
    child: Child,
    input: Option<ChildStdin>,
    output: BufReader<ChildStdout>,
}

impl Helper {
    /// Starts `askuser-store-sharedtest ARGS`.
    pub fn start(args: &[&str]) -> Self {
        Self::start_env(args, &[])
    }

    /// [`Helper::start`] with the variables `env` set.
    pub fn start_env(args: &[&str], env: &[(&str, &str)]) -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_askuser-store-sharedtest"))
            .args(args)
            .envs(env.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("the helper starts");
        let input = child.stdin.take();
        let output = BufReader::new(child.stdout.take().expect("piped"));
        Self {
            child,
            input,
            output,
        }
    }

    /// The next line it prints (empty when it has exited).
    pub fn line(&mut self) -> String {
        let mut line = String::new();
        self.output.read_line(&mut line).expect("read the helper");
        line.trim_end().to_owned()
    }

    /// For a `write` helper: the lines it prints up to and including `wrote N`
    /// (empty when it exited first), without its `acked K` lines.
    pub fn wrote(&mut self) -> Vec<String> {
        let mut lines = Vec::new();
        loop {
            let line = self.line();
            if line.is_empty() {
                return lines;
            }
            let done = line.starts_with("wrote ");
            if !line.starts_with("acked ") {
                lines.push(line);
            }
            if done {
                return lines;
            }
        }
    }

    /// Sends it a line.
    pub fn send(&mut self, line: &str) {
        let input = self.input.as_mut().expect("input open");
        writeln!(input, "{line}").expect("write the helper");
        input.flush().expect("flush");
    }

    /// Closes its input (an `own` helper then lets the log go and exits) and waits.
    pub fn finish(mut self) -> bool {
        drop(self.input.take());
        self.child.wait().expect("wait").success()
    }

    /// Its process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Stops it (SIGSTOP), as Ctrl-Z would.
    pub fn stop(&self) {
        let status = Command::new("kill")
            .args(["-STOP", &self.pid().to_string()])
            .status()
            .expect("kill runs");
        assert!(status.success());
    }

    /// Waits for it to end; how it ended.
    pub fn wait(mut self) -> std::process::ExitStatus {
        drop(self.input.take());
        self.child.wait().expect("wait")
    }

    /// Kills it (SIGKILL) and reaps it.
    pub fn kill(mut self) {
        drop(self.child.kill());
        drop(self.child.wait());
    }
}

impl Drop for Helper {
    fn drop(&mut self) {
        drop(self.child.kill());
        drop(self.child.wait());
    }
}

/// A process owning the sled log at `<dir>/db`, with a stopped clock at `T0`.
pub struct Owner {
    pub helper: Option<Helper>,
    pub path: PathBuf,
    _dir: tempfile::TempDir,
}

impl Owner {
    pub fn start() -> Self {
        Self::start_env(&[])
    }

    /// [`Owner::start`] with the variables `env` set for the owner
    /// (`ASKUSER_TEST_CONNECTION_IDLE_MS`).
    pub fn start_env(env: &[(&str, &str)]) -> Self {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let path = dir.path().join("db");
        let t0 = super::T0.millis().to_string();
        let mut helper = Helper::start_env(&["own", path_str(&path), &t0], env);
        assert_eq!(helper.line(), "owner");
        Self {
            helper: Some(helper),
            path,
            _dir: dir,
        }
    }
}

pub fn path_str(path: &Path) -> &str {
    path.to_str().expect("a UTF-8 temporary path")
}
