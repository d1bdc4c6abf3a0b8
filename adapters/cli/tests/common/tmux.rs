//! The real binary in a real terminal: tmux on a private socket, driven with
//! `send-keys` and read with `capture-pane`, polling the screen (never sleeping a
//! fixed time). Every byte the program writes to the terminal is also recorded
//! (`pipe-pane`), to check what reached the terminal. Each server is killed when
//! its `Tmux` is dropped, even on failure.

use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use super::{BIN, Scratch, run_in};

/// How long to wait for a screen or for the program to finish.
pub const TIMEOUT: Duration = Duration::from_secs(20);

/// A tmux server on a private socket, running one program in a 100x30 pane.
pub struct Tmux {
    socket: String,
    raw: PathBuf,
}

impl Tmux {
    /// Starts `askuser <args>` in a fresh pane; its stdout goes to `out`, its exit
    /// status to `code` (both in `scratch`).
    pub fn start(name: &str, scratch: &Scratch, args: &[&str]) -> Self {
        Self::start_with(name, scratch, &[], args)
    }

    /// [`Tmux::start`] with environment variables set for the program.
    pub fn start_with(name: &str, scratch: &Scratch, env: &[(&str, &str)], args: &[&str]) -> Self {
        Self::start_sized(name, scratch, env, args, (100, 30))
    }

    /// [`Tmux::start_with`] in a pane of `(columns, rows)`.
    pub fn start_sized(
        name: &str,
        scratch: &Scratch,
        env: &[(&str, &str)],
        args: &[&str],
        (columns, rows): (u16, u16),
    ) -> Self {
        let tmux = Self::session(name, scratch, (columns, rows), &[]);
        let command = std::iter::once(BIN)
            .chain(args.iter().copied())
            .map(|arg| format!("'{arg}'"))
            .collect::<Vec<_>>()
            .join(" ");
        let vars = env
            .iter()
            .map(|(k, v)| format!("{k}='{v}' "))
            .collect::<Vec<_>>()
            .concat();
        let out = scratch.path("out");
        let code = scratch.path("code");
        // The program starts once the recording is on (the `go` file).
        // The variables an agent host sets: these tests are no host's.
        let hosts = askuser_app::origin::HOST_MARKERS
            .map(|(marker, _)| marker)
            .join(" ");
        let script = format!(
            "cd '{}' && unset {hosts}; while [ ! -e go ]; do sleep 0.02; done; HOME=. ASKUSER_MACHINE=laptop {vars}{command} > '{}'; echo $? > '{}.tmp' && mv '{}.tmp' '{}'; sleep 600",
            scratch.dir.path().display(),
            out.display(),
            code.display(),
            code.display(),
            code.display()
        );
        tmux.tmux(&["respawn-pane", "-k", &script]);
        tmux.tmux(&[
            "pipe-pane",
            "-O",
            &format!("cat > '{}'", tmux.raw.display()),
        ]);
        std::fs::write(scratch.path("go"), "").expect("the scratch directory is writable");
        tmux
    }

    /// Runs a shell `command` (say, an interactive `bash` with job control) in
    /// a fresh 100x30 pane, instead of askuser; nothing is recorded.
    pub fn shell(name: &str, scratch: &Scratch, command: &str) -> Self {
        Self::session(name, scratch, (100, 30), &[command])
    }

    /// A tmux server named after `name` with one session in a pane of
    /// `(columns, rows)`, running `command` (tmux's default shell if empty).
    fn session(
        name: &str,
        scratch: &Scratch,
        (columns, rows): (u16, u16),
        command: &[&str],
    ) -> Self {
        let tmux = Tmux {
            socket: format!("askuser-{name}-{}", std::process::id()),
            raw: scratch.path("terminal.raw"),
        };
        let (columns, rows) = (columns.to_string(), rows.to_string());
        let mut args = vec![
            "-f",
            "/dev/null",
            "new-session",
            "-d",
            "-x",
            &columns,
            "-y",
            &rows,
        ];
        args.extend(command);
        tmux.tmux(&args);
        tmux
    }

    fn tmux(&self, args: &[&str]) -> String {
        let output = Command::new("tmux")
            .arg("-L")
            .arg(&self.socket)
            .args(args)
            .output()
            .expect("tmux runs (is it installed? .ci/run installs it)");
        assert!(
            output.status.success(),
            "tmux {args:?} failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8_lossy(&output.stdout).into_owned()
    }

    /// The screen, without trailing blank lines.
    pub fn screen(&self) -> String {
        let text = self.tmux(&["capture-pane", "-p"]);
        let lines: Vec<&str> = text.lines().map(str::trim_end).collect();
        let end = lines
            .iter()
            .rposition(|l| !l.is_empty())
            .map_or(0, |i| i + 1);
        lines[..end].join("\n")
    }

    /// Waits until a line of the screen holds `needle` and the screen stays the
    /// same for a moment (a frame fully drawn); returns the screen.
    pub fn wait_for(&self, needle: &str) -> String {
        self.wait_until(needle, |screen| {
            screen.lines().any(|line| line.contains(needle))
        })
    }

    /// Waits until `done` holds of the screen and it stays the same for a
    /// moment; returns the screen. `what` names it when the wait times out.
    pub fn wait_until(&self, what: &str, done: impl Fn(&str) -> bool) -> String {
        self.wait_within(TIMEOUT, what, done)
    }

    /// As [`Tmux::wait_until`], for up to `limit` (a program slower to draw than
    /// askuser, such as a real host).
    pub fn wait_within(&self, limit: Duration, what: &str, done: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        let mut last = String::new();
        loop {
            let screen = self.screen();
            if screen == last && done(&screen) {
                return screen;
            }
            assert!(
                start.elapsed() < limit,
                "timed out waiting for {what:?}; the screen:\n{screen}"
            );
            last = screen;
            std::thread::sleep(Duration::from_millis(60));
        }
    }

    /// Types keys (tmux key names such as `Enter`, `BSpace`, `Space`, `Escape`).
    pub fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys"];
        args.extend(keys);
        self.tmux(&args);
    }

    /// Types text literally.
    pub fn text(&self, text: &str) {
        self.tmux(&["send-keys", "-l", text]);
    }

    /// Pastes `text` as a terminal paste (bracketed, as a terminal does).
    pub fn paste(&self, text: &str) {
        self.tmux(&["set-buffer", "--", text]);
        self.tmux(&["paste-buffer", "-p"]);
    }

    /// Pastes `text` as a terminal without bracketed paste would: the keys
    /// alone, all at once.
    pub fn unbracketed_paste(&self, text: &str) {
        self.tmux(&["set-buffer", "--", text]);
        self.tmux(&["paste-buffer"]);
    }

    /// Resizes the window (and its pane) to `(columns, rows)`.
    pub fn resize(&self, (columns, rows): (u16, u16)) {
        self.tmux(&[
            "resize-window",
            "-x",
            &columns.to_string(),
            "-y",
            &rows.to_string(),
        ]);
    }

    /// The pane's title and the names of tmux's paste buffers (what OSC 2 and
    /// OSC 52 would change).
    pub fn title_and_buffers(&self) -> (String, String) {
        (
            self.tmux(&["display-message", "-p", "#{pane_title}"]),
            self.tmux(&["list-buffers", "-F", "#{buffer_name}: #{buffer_sample}"]),
        )
    }

    /// Every byte the program wrote to the terminal so far.
    pub fn raw_output(&self) -> Vec<u8> {
        std::fs::read(&self.raw).unwrap_or_default()
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["-L", &self.socket, "kill-server"])
            .output();
    }
}

/// Waits for the program to finish; returns its exit status and stdout.
pub fn finished(tmux: &Tmux, scratch: &Scratch) -> (i32, String) {
    let code: PathBuf = scratch.path("code");
    let start = Instant::now();
    while !code.exists() {
        assert!(
            start.elapsed() < TIMEOUT,
            "timed out waiting for the program to exit; the screen:\n{}",
            tmux.screen()
        );
        std::thread::sleep(Duration::from_millis(40));
    }
    let status = std::fs::read_to_string(code)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let out = std::fs::read_to_string(scratch.path("out")).unwrap();
    (status, out)
}

/// The events recorded in stream `s`, without their timestamps.
pub fn events(scratch: &Scratch) -> Vec<String> {
    let run = run_in(
        scratch.dir.path(),
        &["log", "show", "s", "--db", &scratch.db()],
        "",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    // The agent's working directory (the scratch one) is recorded where it runs.
    let dir = scratch.dir.path().display().to_string();
    run.stdout
        .lines()
        .skip(1)
        .map(|l| {
            let (seq, rest) = l.split_once(' ').unwrap();
            let (_, event) = rest.split_once("  ").unwrap();
            format!("{seq} {event}").replace(&dir, "<tmp>")
        })
        .collect()
}
