//! The real binary in a real terminal: tmux on a private socket, driven with
//! `send-keys` and read with `capture-pane`, polling the screen (never sleeping a
//! fixed time). Each test kills its tmux server when it ends, even on failure.

mod common;

use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use common::{Scratch, example, run_in};

/// How long to wait for a screen or for the program to finish.
const TIMEOUT: Duration = Duration::from_secs(20);

/// A tmux server on a private socket, running one program in a 100x30 pane.
struct Tmux {
    socket: String,
}

impl Tmux {
    /// Starts `askuser <args>` in a fresh pane; its stdout goes to `out`, its exit
    /// status to `code` (both in `scratch`).
    fn start(name: &str, scratch: &Scratch, args: &[&str]) -> Self {
        let tmux = Tmux {
            socket: format!("askuser-{name}-{}", std::process::id()),
        };
        tmux.tmux(&[
            "-f",
            "/dev/null",
            "new-session",
            "-d",
            "-x",
            "100",
            "-y",
            "30",
        ]);
        let command = std::iter::once(common::BIN)
            .chain(args.iter().copied())
            .map(|arg| format!("'{arg}'"))
            .collect::<Vec<_>>()
            .join(" ");
        let out = scratch.path("out");
        let code = scratch.path("code");
        let script = format!(
            "cd '{}' && HOME=. {command} > '{}'; echo $? > '{}.tmp' && mv '{}.tmp' '{}'; sleep 600",
            scratch.dir.path().display(),
            out.display(),
            code.display(),
            code.display(),
            code.display()
        );
        tmux.tmux(&["respawn-pane", "-k", &script]);
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
    fn screen(&self) -> String {
        let text = self.tmux(&["capture-pane", "-p"]);
        let lines: Vec<&str> = text.lines().map(str::trim_end).collect();
        let end = lines
            .iter()
            .rposition(|l| !l.is_empty())
            .map_or(0, |i| i + 1);
        lines[..end].join("\n")
    }

    /// Waits until the screen's last lines hold `needle` (on one line).
    fn wait_for(&self, needle: &str) -> String {
        let start = Instant::now();
        loop {
            let screen = self.screen();
            if screen.lines().any(|l| l.contains(needle)) {
                return screen;
            }
            assert!(
                start.elapsed() < TIMEOUT,
                "timed out waiting for {needle:?}; the screen:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(40));
        }
    }

    /// Types keys (tmux key names such as `Enter`, `BSpace`, `Space`, `Down`).
    fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys"];
        args.extend(keys);
        self.tmux(&args);
    }

    /// Types text literally.
    fn text(&self, text: &str) {
        self.tmux(&["send-keys", "-l", text]);
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
fn finished(tmux: &Tmux, scratch: &Scratch) -> (i32, String) {
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
fn events(scratch: &Scratch) -> Vec<String> {
    let run = run_in(
        scratch.dir.path(),
        &["log", "show", "s", "--db", &scratch.db()],
        "",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    run.stdout
        .lines()
        .skip(1)
        .map(|l| {
            let (seq, rest) = l.split_once(' ').unwrap();
            let (_, event) = rest.split_once("  ").unwrap();
            format!("{seq} {event}")
        })
        .collect()
}

#[test]
fn every_answer_type_with_other_and_a_schema_answer_rejected_then_accepted() {
    let scratch = Scratch::new();
    let db = scratch.db();
    let form = example("release.json");
    let tmux = Tmux::start(
        "types",
        &scratch,
        &["ask", "--db", &db, "--stream", "s", &form],
    );
    tmux.wait_for("? [1/5] Assistant asks: Ship release 2.4 today?");
    tmux.keys(&["y", "Enter"]);
    tmux.wait_for("? [2/5] Assistant asks: Which channel?");
    tmux.keys(&["o", "Enter"]);
    tmux.wait_for("? Your answer:");
    tmux.text("qa");
    tmux.keys(&["Enter"]);
    tmux.wait_for("? [3/5] Assistant asks: Which checks must pass first?");
    tmux.keys(&["Space", "Down", "Down", "Space", "Enter"]);
    tmux.wait_for("? [4/5] Assistant asks: One line for the release notes");
    tmux.keys(&["a", "Enter"]);
    tmux.wait_for("? Your answer:");
    tmux.text("ship it");
    tmux.keys(&["Enter"]);
    tmux.wait_for("? [5/5] Assistant asks: Rollout settings?");
    tmux.keys(&["a", "Enter"]);
    tmux.wait_for("? Your answer (JSON): {\"percent\":10}");
    tmux.keys(&["-N", "20", "BSpace"]);
    tmux.text("{\"percent\": 0}");
    tmux.keys(&["Enter"]);
    let rejected = tmux.wait_for("# ");
    insta::assert_snapshot!("schema_answer_rejected_screen", rejected);
    tmux.keys(&["-N", "20", "BSpace"]);
    tmux.text("{\"percent\": 5}");
    tmux.keys(&["Enter"]);
    let (code, out) = finished(&tmux, &scratch);
    assert_eq!(
        (code, out.as_str()),
        (
            0,
            "{\"ship\":true,\"channel\":\"qa\",\"checks\":[\"lint\",\"smoke tests\"],\"notes\":\"ship it\",\"rollout\":{\"percent\":5}}\n"
        )
    );
    insta::assert_snapshot!("every_answer_type_screen", scratch.redact(&tmux.screen()));
    assert_eq!(
        events(&scratch),
        [
            "#1 requested call-1 (5 questions: ship, channel, checks, notes, rollout)",
            "#2 answered call-1: ship = true",
            "#3 answered call-1: channel = \"qa\"",
            "#4 answered call-1: checks = [\"lint\",\"smoke tests\"]",
            "#5 answered call-1: notes = \"ship it\"",
            "#6 answered call-1: rollout = {\"percent\":5}",
        ]
    );
}

#[test]
fn back_re_gates_the_questions_after_it() {
    let scratch = Scratch::new();
    let db = scratch.db();
    let form = example("migration.json");
    let tmux = Tmux::start(
        "back",
        &scratch,
        &["ask", "--db", &db, "--stream", "s", &form],
    );
    tmux.wait_for("? [1/3] Assistant asks: Apply the proposed migration?");
    tmux.keys(&["y", "Enter"]);
    tmux.wait_for("? [2/3] Assistant asks: Which environment?");
    tmux.keys(&["b", "Enter"]);
    tmux.wait_for("? [1/3] Assistant asks: Apply the proposed migration?");
    tmux.keys(&["n", "Enter"]);
    let (code, out) = finished(&tmux, &scratch);
    assert_eq!(
        (code, out.as_str()),
        (0, "{\"apply\":false,\"env\":null,\"note\":null}\n")
    );
    assert_eq!(
        events(&scratch),
        [
            "#1 requested call-1 (3 questions: apply, env, note)",
            "#2 answered call-1: apply = true",
            "#3 back call-1",
            "#4 answered call-1: apply = false",
        ]
    );
}

#[test]
fn reply_returns_the_answers_so_far() {
    let scratch = Scratch::new();
    let db = scratch.db();
    let form = example("migration.json");
    let tmux = Tmux::start(
        "reply",
        &scratch,
        &["ask", "--db", &db, "--stream", "s", &form],
    );
    tmux.wait_for("? [1/3] Assistant asks: Apply the proposed migration?");
    tmux.keys(&["y", "Enter"]);
    tmux.wait_for("? [2/3] Assistant asks: Which environment?");
    tmux.keys(&["2", "Enter"]);
    tmux.wait_for("? [3/3] Assistant asks: Optional note for the migration log");
    tmux.keys(&["r", "Enter"]);
    let (code, out) = finished(&tmux, &scratch);
    assert_eq!(
        (code, out.as_str()),
        (
            0,
            "{\"cancelled\":true,\"answered\":{\"apply\":true,\"env\":\"production\"}}\n"
        )
    );
}

#[test]
fn end_turn_prints_nothing_and_exits_4() {
    let scratch = Scratch::new();
    let db = scratch.db();
    let form = example("claude.json");
    let tmux = Tmux::start(
        "endturn",
        &scratch,
        &[
            "ask",
            "--dialect",
            "claude",
            "--db",
            &db,
            "--stream",
            "s",
            &form,
        ],
    );
    tmux.wait_for("Which auth method should we use?");
    tmux.keys(&["s", "Enter"]);
    let (code, out) = finished(&tmux, &scratch);
    assert_eq!((code, out.as_str()), (4, ""));
    assert_eq!(
        events(&scratch),
        [
            "#1 requested call-1 (2 questions: q1, q2)",
            "#2 turn ended call-1",
        ]
    );
}

#[test]
fn a_fork_is_resumed_in_the_terminal_from_its_open_question() {
    let scratch = Scratch::new();
    let db = scratch.db();
    let migration = std::fs::read_to_string(example("migration.json")).unwrap();
    let input = format!(
        "{{\"type\":\"ask\",\"inquiry\":\"m1\",\"arguments\":{}}}\n\
         {{\"type\":\"answer\",\"inquiry\":\"m1\",\"question\":\"apply\",\"value\":true}}\n\
         {{\"type\":\"answer\",\"inquiry\":\"m1\",\"question\":\"env\",\"value\":\"staging\"}}\n",
        migration.replace('\n', "")
    );
    let serve = run_in(
        scratch.dir.path(),
        &["serve", "--stream", "first", "--db", &db],
        &input,
    );
    assert_eq!(serve.code, 0);
    let fork = run_in(
        scratch.dir.path(),
        &[
            "log", "fork", "first", "--at", "2", "--into", "s", "--db", &db,
        ],
        "",
    );
    assert_eq!(fork.code, 0, "{}", fork.stderr);

    let tmux = Tmux::start("resume", &scratch, &["resume", "s", "--db", &db]);
    tmux.wait_for("? [2/3] Assistant asks: Which environment?");
    tmux.keys(&["2", "Enter"]);
    tmux.wait_for("? [3/3] Assistant asks: Optional note for the migration log");
    tmux.keys(&["a", "Enter"]);
    tmux.wait_for("? Your answer:");
    tmux.text("in production this time");
    tmux.keys(&["Enter"]);
    let (code, out) = finished(&tmux, &scratch);
    assert_eq!(
        (code, out.as_str()),
        (
            0,
            "{\"apply\":true,\"env\":\"production\",\"note\":\"in production this time\"}\n"
        )
    );
    assert_eq!(
        events(&scratch),
        [
            "#1 requested m1 (3 questions: apply, env, note)",
            "#2 answered m1: apply = true",
            "#3 answered m1: env = \"production\"",
            "#4 answered m1: note = \"in production this time\"",
        ]
    );
    let replay = run_in(scratch.dir.path(), &["log", "replay", "s", "--db", &db], "");
    assert_eq!(
        (replay.code, replay.stdout.lines().last()),
        (
            0,
            Some(
                "replayed: the 4 events re-derive their lines from the log alone (this log records events, not the lines sent)"
            )
        )
    );
}
