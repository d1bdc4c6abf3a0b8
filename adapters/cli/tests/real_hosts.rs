//! askuser's MCP server (`askuser mcp`) driven end to end through real hosts,
//! installed from npm at pinned versions by `scripts/test-env`
//! (adapters/cli/tests/real-hosts/): Claude Code 2.1.332, Codex 0.171.0 and
//! Gemini CLI 0.61.0, each run against a scripted model on loopback
//! (`common/model.rs`), interactive in tmux with a person typing into the
//! host's own form, or headless. Each test asserts the form as the host shows it,
//! exactly what reached the model as the tool's result, and the log.
//!
//! Without `ASKUSER_TEST_CLAUDE`, `ASKUSER_TEST_CODEX` and `ASKUSER_TEST_GEMINI`
//! they fail and say so.

mod common;

use common::browser::Browser;
use common::web::{Web, at, clock_masked};

use std::process::Command;
use std::time::{Duration, Instant};

use common::hosts;
use common::model::{FINAL_TEXT, Model, Seen};
use common::tmux::{Tmux, events};
use common::{Scratch, run_in};
use serde_json::{Value, json};

/// How long a host may take to start, show a form or reach the model (a busy
/// machine starts a host in seconds; this is a bound, not a measure).
const LIMIT: Duration = Duration::from_secs(90);

/// RFD D30's migration form: `env` is asked only when `apply` is yes, so it
/// comes in a round after `apply` and `note`.
fn migration() -> Value {
    json!({"questions": [
        {"id": "apply", "text": "Apply the proposed migration?", "answer_type": "boolean"},
        {"id": "env", "text": "Which environment?", "answer_type": "select",
         "options": ["staging", "production"], "when": {"question_id": "apply", "equals": true}},
        {"id": "note", "text": "Anything the migration should know?", "answer_type": "text"}
    ]})
}

/// Waits (up to [`LIMIT`]) until a line of the screen holds `needle` and the
/// screen stays the same for a moment; returns the screen.
fn wait_for(tmux: &Tmux, needle: &str) -> String {
    tmux.wait_within(LIMIT, needle, |screen| {
        screen.lines().any(|l| l.contains(needle))
    })
}

/// The screen from the first line holding `from` to its end: the host's form.
fn from(screen: &str, from: &str) -> String {
    let lines: Vec<&str> = screen.lines().collect();
    let start = lines
        .iter()
        .position(|l| l.contains(from))
        .unwrap_or_else(|| panic!("no line holds {from:?}; the screen:\n{screen}"));
    lines[start..].join("\n")
}

/// The events recorded in `stream`, without their timestamps, the scratch
/// directory as `<tmp>` (as [`events`] for stream `s`).
fn events_in(scratch: &Scratch, stream: &str) -> Vec<String> {
    let run = run_in(
        scratch.dir.path(),
        &["log", "show", stream, "--db", &scratch.db()],
        "",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let dir = scratch.dir.path().display().to_string();
    run.stdout
        .lines()
        .skip(1)
        .map(|l| {
            let (seq, rest) = l.split_once(' ').expect("a numbered event");
            let (_, event) = rest.split_once("  ").expect("a timed event");
            format!("{seq} {event}").replace(&dir, "<tmp>")
        })
        .collect()
}

/// The stream's transcript (`askuser log transcript s`).
fn transcript(scratch: &Scratch) -> String {
    let run = run_in(
        scratch.dir.path(),
        &["log", "transcript", "s", "--db", &scratch.db()],
        "",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    run.stdout
}

/// Claude Code started in tmux, asked to ask.
///
/// Claude Code can send its first turn before askuser's MCP server is connected
/// (measured: two hosts starting at once on a 2-core machine, 1 run in 3); that
/// turn offers the model only the host's own tools, the scripted model says so
/// and the turn ends. The prompt is then typed again, as a person would, until
/// the model has called askuser's tool (at most three times).
fn in_claude(name: &str, scratch: &Scratch, host: &hosts::Host, model: &Model) -> Tmux {
    const PROMPT: &str = "Please ask me.";
    let tmux = start(name, scratch, host, "shift+tab to cycle", PROMPT);
    for tries in 1..=3 {
        tmux.wait_within(LIMIT, "the model to call askuser's tool", |_| {
            model.called() || model.not_offered() >= tries
        });
        if model.called() {
            break;
        }
        tmux.text(PROMPT);
        tmux.keys(&["Enter"]);
    }
    tmux
}

/// Codex started in tmux, asked to ask.
fn in_codex(name: &str, scratch: &Scratch, host: &hosts::Host) -> Tmux {
    start(name, scratch, host, "? for shortcuts", "Please ask me.")
}

/// Gemini CLI started in tmux, asked to ask.
fn in_gemini(name: &str, scratch: &Scratch, host: &hosts::Host) -> Tmux {
    start(name, scratch, host, "Type your message", "Please ask me.")
}

/// Starts `host` interactive in a tmux pane of 100x30 and types `prompt` once it
/// is ready (`ready` on its screen).
fn start(name: &str, scratch: &Scratch, host: &hosts::Host, ready: &str, prompt: &str) -> Tmux {
    let tmux = Tmux::shell(name, scratch, &host.shell());
    wait_for(&tmux, ready);
    tmux.text(prompt);
    wait_for(&tmux, prompt);
    tmux.keys(&["Enter"]);
    tmux
}

/// Presses Enter on Claude Code's focused form button until the form moves on,
/// then waits for `then`. Claude Code draws the focus on a button before its key
/// handler has it: an Enter that comes in between is dropped and the form stays
/// as it was, so Enter is pressed again, only while the form on the screen is
/// still the one it was pressed on.
fn submit(tmux: &Tmux, then: &str) -> String {
    let form = |screen: &str| {
        screen
            .lines()
            .skip_while(|l| !l.contains(CLAUDE_FORM))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let start = Instant::now();
    let before = form(&tmux.screen());
    loop {
        tmux.keys(&["Enter"]);
        let pressed = Instant::now();
        while pressed.elapsed() < Duration::from_secs(3) {
            if form(&tmux.screen()) != before {
                return wait_for(tmux, then);
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        assert!(
            start.elapsed() < LIMIT,
            "timed out waiting for the form to take Enter; the form:\n{before}"
        );
    }
}

/// A person reads a form before they decline or dismiss it: askuser takes a
/// round cancelled or declined faster than a person can read it (500 ms by
/// default, issue 30 item 3) for "no person at this client", so the test's
/// person is never that fast. This is the person's pace, not a wait for the
/// program: nothing is assumed to have happened after it.
fn read_the_form() {
    std::thread::sleep(Duration::from_millis(1200));
}

/// Types `keys` and waits until the screen shows `then`.
fn step(tmux: &Tmux, keys: &[&str], then: &str) -> String {
    tmux.keys(keys);
    wait_for(tmux, then)
}

// ---- Claude Code 2.1.332 (protocol 2026-07-28: each round an input_required result)

/// The form Claude Code shows, from its header down.
const CLAUDE_FORM: &str = "MCP server “askuser” requests your input";

/// Claude Code's form for the migration's first round, as it first shows.
const CLAUDE_FIRST_ROUND: &str = "  MCP server “askuser” requests your input

  Questions 1–2 of 3

  ❯ * Apply the proposed migration?: ☐

      Anything the migration should know?: not set

    Accept    Decline

  Esc to cancel · ↑/↓ to navigate · Backspace to unset · Space to toggle";

#[test]
fn claude_code_asks_a_branching_form_in_rounds() {
    let scratch = Scratch::new();
    let model = Model::start("ask_user", migration());
    let host = hosts::claude(&scratch, &model, &[]);
    let tmux = in_claude("claude-rounds", &scratch, &host, &model);

    let screen = wait_for(&tmux, "Accept    Decline");
    assert_eq!(from(&screen, CLAUDE_FORM), CLAUDE_FIRST_ROUND);
    step(&tmux, &["Space"], "☒");
    step(&tmux, &["Down"], "❯   Anything the migration should know?");
    tmux.text("tonight");
    step(&tmux, &[], "Anything the migration should know?: tonight");
    step(&tmux, &["Down"], "❯ Accept");
    let screen = submit(&tmux, "Question 3 of 3");
    assert_eq!(
        from(&screen, CLAUDE_FORM),
        "  MCP server “askuser” requests your input

  Question 3 of 3

  ❯ * Which environment?: ▸ not set

    Accept    Decline

  Esc to cancel · ↑/↓ to navigate · Backspace to unset · → to expand"
    );
    step(&tmux, &["Right"], "◯ production");
    step(&tmux, &["Down"], "❯ ◯ production");
    step(&tmux, &["Space"], "Which environment?: ▸ production");
    step(&tmux, &["Down"], "❯ Accept");
    submit(&tmux, FINAL_TEXT);

    let seen = model.wait_for_result(LIMIT, || tmux.screen());
    assert_eq!(
        seen,
        Seen {
            text: r#"{"apply":true,"env":"production","note":"tonight"}"#.into(),
            error: false
        }
    );
    wait_for(&tmux, FINAL_TEXT);
    assert_eq!(
        events(&scratch),
        [
            "#1 requested call-1 (3 questions: apply, env, note)",
            "#2 attached host=Claude Code 2.1.332, machine=laptop, directory=<tmp>/project",
            "#3 shown call-1: apply, note",
            "#4 answered call-1: apply = true",
            "#5 answered ahead call-1: note = \"tonight\"",
            "#6 shown call-1: env",
            "#7 answered call-1: env = \"production\"",
            "#8 answered call-1: note = \"tonight\"",
            "#9 delivered call-1",
        ]
    );
    assert_eq!(
        transcript(&scratch),
        "Claude Code 2.1.332 · project · laptop started waiting.

Asked \"Apply the proposed migration?\"; the answer was Yes.
Asked \"Which environment?\"; the answer was production.
Asked \"Anything the migration should know?\"; the answer was tonight.
"
    );
}

#[test]
fn claude_code_decline_replies_with_the_answers_of_earlier_rounds() {
    let scratch = Scratch::new();
    let model = Model::start("ask_user", migration());
    let host = hosts::claude(&scratch, &model, &[]);
    let tmux = in_claude("claude-decline", &scratch, &host, &model);

    wait_for(&tmux, "Accept    Decline");
    step(&tmux, &["Space"], "☒");
    step(&tmux, &["Down"], "❯   Anything the migration should know?");
    tmux.text("tonight");
    step(&tmux, &[], "Anything the migration should know?: tonight");
    step(&tmux, &["Down"], "❯ Accept");
    submit(&tmux, "Question 3 of 3");
    read_the_form();
    step(&tmux, &["Down"], "❯ Accept");
    let screen = step(&tmux, &["Right"], "❯ Decline");
    assert_eq!(
        from(&screen, CLAUDE_FORM),
        "  MCP server “askuser” requests your input

  Question 3 of 3

    * Which environment?: not set

    Accept  ❯ Decline

  Esc to cancel · ↑/↓ to navigate"
    );
    submit(&tmux, FINAL_TEXT);

    let seen = model.wait_for_result(LIMIT, || tmux.screen());
    assert_eq!(
        seen,
        Seen {
            text: r#"{"cancelled":true,"answered":{"apply":true,"note":"tonight"}}"#.into(),
            error: false
        }
    );
    wait_for(&tmux, FINAL_TEXT);
    assert_eq!(
        events(&scratch),
        [
            "#1 requested call-1 (3 questions: apply, env, note)",
            "#2 attached host=Claude Code 2.1.332, machine=laptop, directory=<tmp>/project",
            "#3 shown call-1: apply, note",
            "#4 answered call-1: apply = true",
            "#5 answered ahead call-1: note = \"tonight\"",
            "#6 shown call-1: env",
            "#7 reply call-1",
            "#8 delivered call-1",
        ]
    );
}

/// The directory for askuser's pending files (`--pending-dir`), made.
fn pending_dir(scratch: &Scratch) -> String {
    let dir = scratch.path("pending");
    std::fs::create_dir_all(&dir).expect("a pending directory");
    dir.display().to_string()
}

/// The pending file askuser wrote in `dir`, if any. askuser reserves the name
/// with an empty file before it renames the written one over it, so an empty
/// file is not written yet.
fn pending_file(dir: &str) -> Option<String> {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| std::fs::metadata(p).is_ok_and(|m| m.len() > 0))
        .find(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| p.display().to_string())
}

/// Waits for askuser's pending file in `dir` (`gone` says why there will be
/// none, when it knows) and answers it with `askuser answer FILE --answers
/// ANSWERS`, as a person at another surface would.
fn answer_pending(scratch: &Scratch, dir: &str, answers: &str, gone: impl Fn() -> Option<String>) {
    let start = Instant::now();
    let file = loop {
        if let Some(file) = pending_file(dir) {
            break file;
        }
        if let Some(why) = gone() {
            panic!("no pending file in {dir}: {why}");
        }
        assert!(start.elapsed() < LIMIT, "no pending file in {dir}");
        std::thread::sleep(Duration::from_millis(100));
    };
    let run = run_in(
        scratch.dir.path(),
        &["answer", &file, "--answers", answers, "--db", &scratch.db()],
        "",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
}

/// `askuser mcp --http 127.0.0.1:0` for `scratch`'s log, running until dropped;
/// its URL, and the token its requests must carry (kept in the log's
/// directory).
struct HttpServer(std::process::Child);

impl HttpServer {
    fn start(scratch: &Scratch) -> (Self, String, String) {
        let db = scratch.db();
        let args = ["mcp", "--db", &db, "--stream", "s", "--http", "127.0.0.1:0"];
        let mut child = common::askuser_in(scratch.dir.path(), None, &args)
            .spawn()
            .expect("askuser mcp starts");
        let stderr = child.stderr.take().expect("stderr is piped");
        let mut line = String::new();
        std::io::BufRead::read_line(&mut std::io::BufReader::new(stderr), &mut line)
            .expect("askuser mcp says where it listens");
        let url = line
            .trim()
            .strip_prefix("askuser: MCP over streamable HTTP at ")
            .unwrap_or_else(|| panic!("askuser mcp said {line:?}"))
            .to_owned();
        let file = std::path::Path::new(&db).join("askuser.mcp-token");
        let token = std::fs::read_to_string(file).expect("the token beside the log");
        (Self(child), url, token.trim().to_owned())
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn claude_code_asks_a_branching_form_in_rounds_over_http() {
    let scratch = Scratch::new();
    let (_server, url, token) = HttpServer::start(&scratch);
    let model = Model::start("ask_user", migration());
    let host = hosts::claude_http(&scratch, &model, &url, &token);
    let tmux = in_claude("claude-http", &scratch, &host, &model);

    wait_for(&tmux, "Accept    Decline");
    step(&tmux, &["Space"], "☒");
    step(&tmux, &["Down"], "❯   Anything the migration should know?");
    tmux.text("tonight");
    step(&tmux, &[], "Anything the migration should know?: tonight");
    step(&tmux, &["Down"], "❯ Accept");
    submit(&tmux, "Question 3 of 3");
    step(&tmux, &["Right"], "◯ production");
    step(&tmux, &["Down"], "❯ ◯ production");
    step(&tmux, &["Space"], "Which environment?: ▸ production");
    step(&tmux, &["Down"], "❯ Accept");
    submit(&tmux, FINAL_TEXT);

    let seen = model.wait_for_result(LIMIT, || tmux.screen());
    assert_eq!(
        seen,
        Seen {
            text: r#"{"apply":true,"env":"production","note":"tonight"}"#.into(),
            error: false
        }
    );
    // Over HTTP each MCP session is its own stream, numbered. Each round ends
    // the HTTP request (an input_required result); the server keeps the call's
    // presence between its rounds, while the person is at the form, and lets it
    // go once the call has its result (#9).
    assert_eq!(
        events_in(&scratch, "s-1"),
        [
            "#1 requested call-1 (3 questions: apply, env, note)",
            "#2 attached host=Claude Code 2.1.332, machine=laptop, directory=<tmp>",
            "#3 shown call-1: apply, note",
            "#4 answered call-1: apply = true",
            "#5 answered ahead call-1: note = \"tonight\"",
            "#6 shown call-1: env",
            "#7 answered call-1: env = \"production\"",
            "#8 answered call-1: note = \"tonight\"",
            "#9 delivered call-1",
            "#10 detached host=Claude Code 2.1.332, machine=laptop, directory=<tmp>",
        ]
    );
}

#[test]
fn claude_code_esc_ends_the_turn() {
    let scratch = Scratch::new();
    let model = Model::start("ask_user", migration());
    let host = hosts::claude(&scratch, &model, &[]);
    let tmux = in_claude("claude-esc", &scratch, &host, &model);

    wait_for(&tmux, "Accept    Decline");
    read_the_form();
    tmux.keys(&["Escape"]);

    let seen = model.wait_for_result(LIMIT, || tmux.screen());
    assert_eq!(
        seen,
        Seen {
            text: "ask_user: the user dismissed the questions. Do not retry this tool call in this turn; continue without the answers, or end your turn.".into(),
            error: true
        }
    );
    wait_for(&tmux, FINAL_TEXT);
    assert_eq!(
        events(&scratch),
        [
            "#1 requested call-1 (3 questions: apply, env, note)",
            "#2 attached host=Claude Code 2.1.332, machine=laptop, directory=<tmp>/project",
            "#3 shown call-1: apply, note",
            "#4 turn ended call-1 in the agent's own window",
            "#5 delivered call-1",
        ]
    );
}

#[test]
fn claude_code_asks_askuserquestion_with_a_multi_select() {
    let scratch = Scratch::new();
    let model = Model::start(
        "AskUserQuestion",
        json!({"questions": [
            {"question": "Which regions get the release?", "header": "Regions", "multiSelect": true,
             "options": [{"label": "eu", "description": "Europe"},
                         {"label": "us", "description": "North America"},
                         {"label": "asia", "description": "Asia"}]},
            {"question": "Which channel?", "header": "Channel", "multiSelect": false,
             "options": [{"label": "beta", "description": "Early adopters"},
                         {"label": "stable", "description": "Everyone"}]}
        ]}),
    );
    let host = hosts::claude(&scratch, &model, &[]);
    let tmux = in_claude("claude-auq", &scratch, &host, &model);

    let screen = wait_for(&tmux, "Accept    Decline");
    // Each choice with descriptions, and its free-text alternative ("Other").
    assert_eq!(
        from(&screen, CLAUDE_FORM),
        "  MCP server “askuser” requests your input

  Questions 1–2 of 2

  ❯   Which regions get the release?: ▸ not set

      Or your own answer to: Which regions get the re…: not set

      Which channel?: not set

      Or your own answer to: Which channel?: not set

    Accept    Decline

  Esc to cancel · ↑/↓ to navigate · Backspace to unset · → to expand"
    );
    step(&tmux, &["Right"], "❯ ☐ eu: Europe");
    step(&tmux, &["Space"], "❯ ☒ eu: Europe");
    step(&tmux, &["Down"], "❯ ☐ us: North America");
    step(&tmux, &["Down"], "❯ ☐ asia: Asia");
    step(&tmux, &["Space"], "❯ ☒ asia: Asia");
    step(
        &tmux,
        &["Left"],
        "Which regions get the release?: ▸ eu: Europe, asia: Asia",
    );
    step(&tmux, &["Down"], "❯   Or your own answer to: Which regions");
    step(&tmux, &["Down"], "❯   Which channel?: ▸ not set");
    step(&tmux, &["Right"], "❯ ◯ beta: Early adopters");
    step(&tmux, &["Down"], "❯ ◯ stable: Everyone");
    step(&tmux, &["Space"], "Which channel?: ▸ stable: Everyone");
    step(
        &tmux,
        &["Down"],
        "❯   Or your own answer to: Which channel?",
    );
    step(&tmux, &["Down"], "❯ Accept");
    submit(&tmux, FINAL_TEXT);

    let seen = model.wait_for_result(LIMIT, || tmux.screen());
    assert_eq!(
        seen,
        Seen {
            text: r#"{"answers":{"Which regions get the release?":"eu, asia","Which channel?":"stable"}}"#.into(),
            error: false
        }
    );
}

/// Runs a headless host (`command`) while a person answers the waiting question
/// from its pending file in `pending`; returns the host's standard output.
fn headless_answered_elsewhere(
    scratch: &Scratch,
    pending: &str,
    mut command: Command,
    answers: &str,
) -> String {
    let child = std::sync::Mutex::new(command.spawn().expect("the host starts"));
    answer_pending(scratch, pending, answers, || {
        let mut child = child.lock().expect("the host");
        let status = child.try_wait().expect("the host's status")?;
        let mut out = String::new();
        if let Some(stdout) = child.stdout.as_mut() {
            std::io::Read::read_to_string(stdout, &mut out).expect("its output");
        }
        Some(format!("the host ended ({status}) first, saying: {out}"))
    });
    let output = child
        .into_inner()
        .expect("the host")
        .wait_with_output()
        .expect("the host runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("UTF-8")
}

#[test]
fn claude_code_headless_waits_for_an_answer_from_another_surface() {
    let scratch = Scratch::new();
    let model = Model::start("ask_user", migration());
    let pending = pending_dir(&scratch);
    let host = hosts::claude(&scratch, &model, &["--pending-dir", &pending]);
    let out = headless_answered_elsewhere(
        &scratch,
        &pending,
        host.command(&["-p", "Please ask me."]),
        r#"[true, "production", "tonight"]"#,
    );
    assert_eq!(out, format!("{FINAL_TEXT}\n"));
    assert_eq!(
        model.seen(),
        [Seen {
            text: r#"{"apply":true,"env":"production","note":"tonight"}"#.into(),
            error: false
        }]
    );
    // Not the person's dismissal: `claude -p` says nobody is at it, so no
    // form was sent at all.
    assert_eq!(
        without_millis(&events(&scratch)),
        [
            "#1 requested call-1 (3 questions: apply, env, note)",
            "#2 attached host=Claude Code 2.1.332, machine=laptop, directory=<tmp>/project",
            "#3 client noted call-1: no person (claude -p)",
            "#4 answered call-1: apply = true",
            "#5 answered call-1: env = \"production\"",
            "#6 answered call-1: note = \"tonight\"",
            "#7 delivered call-1",
        ]
    );
}

/// Events with the milliseconds a client took written as `N`.
fn without_millis(events: &[String]) -> Vec<String> {
    events
        .iter()
        .map(|event| match event.split_once(" after ") {
            Some((head, tail)) if event.contains("no person") => {
                let rest = tail.trim_start_matches(|c: char| c.is_ascii_digit());
                format!("{head} after N{rest}")
            }
            _ => event.clone(),
        })
        .collect()
}

// ---- Codex 0.171.0 (protocol 2025-06-18: elicitation/create)

/// Codex's tool output: the result after a `Wall time` line, the time redacted.
fn codex_output(seen: &Seen) -> String {
    let (time, rest) = seen
        .text
        .split_once(" seconds\n")
        .unwrap_or_else(|| panic!("no wall time in {:?}", seen.text));
    assert!(time.starts_with("Wall time: "), "{:?}", seen.text);
    format!("Wall time: <s> seconds\n{rest}")
}

/// A form of the three kinds Codex's form shows (yes/no, text, one choice).
fn deploy() -> Value {
    json!({"questions": [
        {"id": "proceed", "text": "Deploy the release now?", "answer_type": "boolean"},
        {"id": "reason", "text": "Why this release?", "answer_type": "text"},
        {"id": "channel", "text": "Which channel?", "answer_type": "select",
         "options": ["beta", "stable"]}
    ]})
}

#[test]
fn codex_asks_yes_no_text_and_a_choice_in_its_form() {
    let scratch = Scratch::new();
    let model = Model::start("ask_user", deploy());
    let host = hosts::codex(&scratch, &model, &[]);
    let tmux = in_codex("codex-form", &scratch, &host);

    // askuser names the fields so that Codex, which lists them by name, shows
    // them in question order, then a last choice to send them (Codex's form
    // has no Decline button: Reply and End Turn are there).
    let screen = wait_for(&tmux, "Field 1/4");
    assert_eq!(
        from(&screen, "Field 1/4"),
        "  Field 1/4
  Questions 1–3 of 3

  Deploy the release now?
  › 1. True
    2. False
  enter to submit answer | ←/→ to navigate fields | esc to cancel"
    );
    let screen = step(&tmux, &["Enter"], "Field 2/4");
    assert_eq!(
        from(&screen, "Field 2/4"),
        "  Field 2/4
  Questions 1–3 of 3

  Why this release?
  Enter needs text here; Ctrl+N moves on without it.

  › Type your answer (optional)

  enter to submit answer | ^p / ^n change field | esc to cancel"
    );
    tmux.text("the security fix");
    step(&tmux, &[], "the security fix");
    let screen = step(&tmux, &["Enter"], "Field 3/4");
    assert_eq!(
        from(&screen, "Field 3/4"),
        "  Field 3/4
  Questions 1–3 of 3

  Which channel?
  › 1. beta
    2. stable
  enter to submit answer | ←/→ to navigate fields | esc to cancel"
    );
    step(&tmux, &["Down"], "› 2. stable");
    let screen = step(&tmux, &["Enter"], "Field 4/4");
    assert_eq!(
        from(&screen, "Field 4/4"),
        "  Field 4/4
  Questions 1–3 of 3

  Send these answers, or instead:
  › 1. Send the answers above
    2. Reply to the assistant instead (the answers above are not sent)
    3. End the turn (the assistant gets no answers)
  enter to submit all | ←/→ to navigate fields | esc to cancel"
    );
    tmux.keys(&["Enter"]);

    let seen = model.wait_for_result(LIMIT, || tmux.screen());
    assert_eq!(
        codex_output(&seen),
        "Wall time: <s> seconds\nOutput:\n{\"proceed\":true,\"reason\":\"the security fix\",\"channel\":\"stable\"}"
    );
    wait_for(&tmux, FINAL_TEXT);
    assert_eq!(
        events(&scratch),
        [
            "#1 requested call-1 (3 questions: proceed, reason, channel)",
            "#2 attached host=Codex 0.171.0, machine=laptop, directory=<tmp>/project",
            "#3 shown call-1: proceed, reason, channel",
            "#4 answered call-1: proceed = true",
            "#5 answered call-1: reason = \"the security fix\"",
            "#6 answered call-1: channel = \"stable\"",
            "#7 delivered call-1",
        ]
    );
}

/// Codex's form has no Decline button: the last field of each round offers
/// Reply and End Turn. A free-text field left empty is moved past with Ctrl+N
/// (Enter there needs text, and the field says so); then Reply, whose message
/// one more small form asks for: the model gets the Reply's cancel marker with
/// the message.
#[test]
fn codex_replies_with_a_message_from_its_own_form_past_an_empty_text_field() {
    let scratch = Scratch::new();
    let model = Model::start("ask_user", deploy());
    let host = hosts::codex(&scratch, &model, &[]);
    let tmux = in_codex("codex-reply", &scratch, &host);

    wait_for(&tmux, "Field 1/4");
    read_the_form();
    step(&tmux, &["Enter"], "Field 2/4");
    step(&tmux, &["C-n"], "Field 3/4");
    step(&tmux, &["Down"], "› 2. stable");
    step(&tmux, &["Enter"], "Field 4/4");
    let screen = step(&tmux, &["Down"], "› 2. Reply");
    assert_eq!(
        from(&screen, "Field 4/4"),
        "  Field 4/4
  Questions 1–3 of 3

  Send these answers, or instead:
    1. Send the answers above
  › 2. Reply to the assistant instead (the answers above are not sent)
    3. End the turn (the assistant gets no answers)
  enter to submit all | ←/→ to navigate fields | esc to cancel"
    );
    // One more form asks what the Reply says.
    step(&tmux, &["Enter"], "Your reply to the assistant");
    tmux.text("use the staging copy");
    step(&tmux, &[], "› use the staging copy");
    let screen = step(&tmux, &["Enter"], "Field 2/2");
    assert_eq!(
        from(&screen, "Field 2/2"),
        "  Field 2/2
  Reply to the assistant: what should it read? (Esc sends the Reply without a message.)

  Send the Reply, or instead:
  › 1. Send the Reply
    2. End the turn (the assistant gets no answers)
  enter to submit all | ←/→ to navigate fields | esc to cancel"
    );
    tmux.keys(&["Enter"]);

    let seen = model.wait_for_result(LIMIT, || tmux.screen());
    assert_eq!(
        codex_output(&seen),
        "Wall time: <s> seconds\nOutput:\n{\"cancelled\":true,\"answered\":{},\"message\":\"use the staging copy\"}"
    );
    wait_for(&tmux, FINAL_TEXT);
    assert_eq!(
        events(&scratch),
        [
            "#1 requested call-1 (3 questions: proceed, reason, channel)",
            "#2 attached host=Codex 0.171.0, machine=laptop, directory=<tmp>/project",
            "#3 shown call-1: proceed, reason, channel",
            "#4 reply call-1: use the staging copy",
            "#5 delivered call-1",
        ]
    );
}

/// End Turn from Codex's own form, in the first round's last field: the
/// model gets the dismissal's tool error, and the log says the turn was ended
/// in the agent's own window.
#[test]
fn codex_ends_the_turn_from_its_own_form() {
    let scratch = Scratch::new();
    let model = Model::start("ask_user", migration());
    let host = hosts::codex(&scratch, &model, &[]);
    let tmux = in_codex("codex-end-turn", &scratch, &host);

    wait_for(&tmux, "Field 1/3");
    read_the_form();
    step(&tmux, &["Enter"], "Field 2/3");
    step(&tmux, &["C-n"], "Field 3/3");
    step(&tmux, &["Down"], "› 2. Reply");
    let screen = step(&tmux, &["Down"], "› 3. End the turn");
    assert_eq!(
        from(&screen, "Field 3/3"),
        "  Field 3/3
  Questions 1–2 of 3

  Send these answers, or instead:
    1. Send the answers above
    2. Reply to the assistant instead (the answers above are not sent)
  › 3. End the turn (the assistant gets no answers)
  enter to submit all | ←/→ to navigate fields | esc to cancel"
    );
    tmux.keys(&["Enter"]);

    let seen = model.wait_for_result(LIMIT, || tmux.screen());
    assert_eq!(
        codex_output(&seen),
        "Wall time: <s> seconds\nOutput:\nask_user: the user dismissed the questions. Do not retry this tool call in this turn; continue without the answers, or end your turn."
    );
    assert_eq!(
        events(&scratch),
        [
            "#1 requested call-1 (3 questions: apply, env, note)",
            "#2 attached host=Codex 0.171.0, machine=laptop, directory=<tmp>/project",
            "#3 shown call-1: apply, note",
            "#4 turn ended call-1 in the agent's own window",
            "#5 delivered call-1",
        ]
    );
}

#[test]
fn codex_asks_a_branching_form_in_rounds() {
    let scratch = Scratch::new();
    let model = Model::start("ask_user", migration());
    let host = hosts::codex(&scratch, &model, &[]);
    let tmux = in_codex("codex-rounds", &scratch, &host);

    let screen = wait_for(&tmux, "Field 1/3");
    assert_eq!(
        from(&screen, "Field 1/3"),
        "  Field 1/3
  Questions 1–2 of 3

  Apply the proposed migration?
  › 1. True
    2. False
  enter to submit answer | ←/→ to navigate fields | esc to cancel"
    );
    step(&tmux, &["Enter"], "Field 2/3");
    tmux.text("tonight");
    step(&tmux, &[], "tonight");
    step(&tmux, &["Enter"], "Field 3/3");
    let screen = step(&tmux, &["Enter"], "Question 3 of 3");
    assert_eq!(
        from(&screen, "Field 1/2"),
        "  Field 1/2
  Question 3 of 3

  Which environment?
  › 1. staging
    2. production
  enter to submit answer | ←/→ to navigate fields | esc to cancel"
    );
    step(&tmux, &["Down"], "› 2. production");
    step(&tmux, &["Enter"], "Field 2/2");
    tmux.keys(&["Enter"]);

    let seen = model.wait_for_result(LIMIT, || tmux.screen());
    assert_eq!(
        codex_output(&seen),
        "Wall time: <s> seconds\nOutput:\n{\"apply\":true,\"env\":\"production\",\"note\":\"tonight\"}"
    );
    wait_for(&tmux, FINAL_TEXT);
    assert_eq!(
        events(&scratch),
        [
            "#1 requested call-1 (3 questions: apply, env, note)",
            "#2 attached host=Codex 0.171.0, machine=laptop, directory=<tmp>/project",
            "#3 shown call-1: apply, note",
            "#4 answered call-1: apply = true",
            "#5 answered ahead call-1: note = \"tonight\"",
            "#6 shown call-1: env",
            "#7 answered call-1: env = \"production\"",
            "#8 answered call-1: note = \"tonight\"",
            "#9 delivered call-1",
        ]
    );
}

/// A multi-select and a number, which Codex's form cannot show as such (a form
/// holding either becomes a bare "Yes, provide the requested info" prompt whose
/// Yes sends nothing): askuser asks the multi-select as one yes/no field per
/// option and the number as text, and the model gets the answers exactly.
#[test]
fn codex_asks_a_multi_select_and_a_number_as_fields_it_can_show() {
    let scratch = Scratch::new();
    let model = Model::start(
        "ask_user",
        json!({"questions": [
            {"id": "regions", "text": "Which regions?", "answer_type": "multi_select",
             "options": ["eu", "us", "asia"]},
            {"id": "replicas", "text": "How many replicas?", "answer_type": "schema",
             "schema": {"type": "integer", "minimum": 1, "maximum": 9}}
        ]}),
    );
    let host = hosts::codex(&scratch, &model, &[]);
    let tmux = in_codex("codex-multi", &scratch, &host);

    // Each field as Codex shows it, one at a time, in question order: a yes/no
    // per option, then the number as text. eu and asia yes, us no.
    let screen = wait_for(&tmux, "Field 1/5");
    assert_eq!(
        from(&screen, "Field 1/5"),
        "  Field 1/5
  Questions 1–2 of 2

  Which regions? — eu
    1. True
  › 2. False
  enter to submit answer | ←/→ to navigate fields | esc to cancel"
    );
    step(&tmux, &["Up"], "› 1. True");
    let screen = step(&tmux, &["Enter"], "Field 2/5");
    assert_eq!(
        from(&screen, "Field 2/5"),
        "  Field 2/5
  Questions 1–2 of 2

  Which regions? — us
    1. True
  › 2. False
  enter to submit answer | ←/→ to navigate fields | esc to cancel"
    );
    let screen = step(&tmux, &["Enter"], "Field 3/5");
    assert_eq!(
        from(&screen, "Field 3/5"),
        "  Field 3/5
  Questions 1–2 of 2

  Which regions? — asia
    1. True
  › 2. False
  enter to submit answer | ←/→ to navigate fields | esc to cancel"
    );
    step(&tmux, &["Up"], "› 1. True");
    let screen = step(&tmux, &["Enter"], "Field 4/5");
    assert_eq!(
        from(&screen, "Field 4/5"),
        "  Field 4/5
  Questions 1–2 of 2

  How many replicas?
  Type a whole number from 1 to 9.
  Enter needs text here; Ctrl+N moves on without it.

  › Type your answer (optional)

  enter to submit answer | ^p / ^n change field | esc to cancel"
    );
    tmux.text("3");
    step(&tmux, &[], "› 3");
    step(&tmux, &["Enter"], "Field 5/5");
    tmux.keys(&["Enter"]);

    let seen = model.wait_for_result(LIMIT, || tmux.screen());
    assert_eq!(
        codex_output(&seen),
        "Wall time: <s> seconds\nOutput:\n{\"regions\":[\"eu\",\"asia\"],\"replicas\":3}"
    );
    wait_for(&tmux, FINAL_TEXT);
    assert_eq!(
        events(&scratch),
        [
            "#1 requested call-1 (2 questions: regions, replicas)",
            "#2 attached host=Codex 0.171.0, machine=laptop, directory=<tmp>/project",
            "#3 shown call-1: regions, replicas",
            "#4 answered call-1: regions = [\"eu\",\"asia\"]",
            "#5 answered call-1: replicas = 3",
            "#6 delivered call-1",
        ]
    );
}

#[test]
fn codex_exec_waits_for_an_answer_from_another_surface() {
    let scratch = Scratch::new();
    let model = Model::start("ask_user", deploy());
    let pending = pending_dir(&scratch);
    let host = hosts::codex(&scratch, &model, &["--pending-dir", &pending]);
    let out = headless_answered_elsewhere(
        &scratch,
        &pending,
        host.command(&["exec", "--skip-git-repo-check", "Please ask me."]),
        r#"[true, "the security fix", "stable"]"#,
    );
    assert_eq!(out, format!("{FINAL_TEXT}\n"));
    assert_eq!(
        codex_output(&model.seen()[0]),
        "Wall time: <s> seconds\nOutput:\n{\"proceed\":true,\"reason\":\"the security fix\",\"channel\":\"stable\"}"
    );
    // Not the person's Reply: nobody was at the client.
    assert_eq!(
        without_millis(&events(&scratch)),
        [
            "#1 requested call-1 (3 questions: proceed, reason, channel)",
            "#2 attached host=Codex 0.171.0, machine=laptop, directory=<tmp>/project",
            "#3 client noted call-1: no person (codex exec)",
            "#4 answered call-1: proceed = true",
            "#5 answered call-1: reason = \"the security fix\"",
            "#6 answered call-1: channel = \"stable\"",
            "#7 delivered call-1",
        ]
    );
}

// ---- Gemini CLI 0.61.0 (protocol 2025-06-18, no elicitation: only `roots`)

/// Set up by `askuser setup gemini-cli` alone, with the web inbox running (as
/// `askuser setup inbox` keeps it): the waiting call's line on Gemini CLI's
/// screen gives the inbox's link, and the answer given there reaches the model
/// in the same turn.
#[test]
fn gemini_cli_set_up_by_askuser_setup_waits_with_the_inbox_s_link_and_is_answered_there() {
    let scratch = Scratch::new();
    // setup serves the tools behind the prefix `askuser`.
    let model = Model::start("askuser_ask_user", migration());
    let host = hosts::gemini_set_up(&scratch, &model);
    let web = Web::start(&scratch, &scratch.db());
    let tmux = in_gemini("gemini-wait", &scratch, &host);
    let link = format!(
        "Answer at http://127.0.0.1:{}/ (waiting up to 9 min 55 s)",
        web.port
    );
    let screen = wait_for(&tmux, &link);
    assert!(
        screen
            .lines()
            .any(|line| line.trim_matches(['│', ' ']) == link),
        "{screen}"
    );
    answer_migration_in(&web, "project-1", || None);

    let seen = model.wait_for_result(LIMIT, || tmux.screen());
    // Gemini CLI wraps an MCP tool's result for the model.
    assert_eq!(
        seen,
        Seen {
            text: GEMINI_SEES_THE_MIGRATION.into(),
            error: false
        }
    );
    wait_for(&tmux, FINAL_TEXT);
    assert_eq!(
        events_set_up(&scratch, "project-1"),
        [
            "#1 attached host=Gemini CLI 0.61.0, machine=<machine>, directory=<tmp>/project",
            "#2 requested call-1 (3 questions: apply, env, note)",
            "#3 attached host=Gemini CLI 0.61.0, machine=<machine>, directory=<tmp>/project",
            "#4 client noted call-1: no forms",
            "#5 client noted call-1: stops silently (Gemini CLI sends no cancel)",
            "#6 review wanted call-1",
            "#7 answered call-1: apply = true",
            "#8 answered call-1: env = \"production\"",
            "#9 answered call-1: note = \"tonight\"",
            "#10 submitted call-1",
        ]
    );
}

/// What Gemini CLI's model gets for [`migration`] answered yes, production,
/// "tonight": Gemini CLI wraps an MCP tool's result.
const GEMINI_SEES_THE_MIGRATION: &str = "<untrusted_context>\n{\"apply\":true,\"env\":\"production\",\"note\":\"tonight\"}\n</untrusted_context>";

/// The Done page of [`migration`] answered in the inbox for a Gemini CLI call
/// that may have been stopped unseen (its clock masked).
const GEMINI_UNSURE_DONE: &str = "Done for Gemini CLI 0.61.0 in project on laptop\nAnswered; sent to the call Gemini CLI was waiting on. Gemini CLI does not tell askuser when its person stops a call (Esc): if this one was stopped, your answers are kept, and the assistant is given them when it asks the same again. The answers sent:\nApply the proposed migration?\nYes\nWhich environment?\nproduction\nAnything the migration should know?\ntonight\nIt finished at HH:MM UTC.\nAll questions";

/// Gemini CLI asked to ask [`migration`] in tmux pane `name`; once its call
/// waits, the person reads the waiting line and presses Esc, which Gemini CLI
/// does not tell askuser.
fn gemini_stopped_by_esc(name: &str, scratch: &Scratch) -> (Model, Tmux) {
    let model = Model::start("ask_user", migration());
    let host = hosts::gemini(scratch, &model, &[]);
    let tmux = in_gemini(name, scratch, &host);
    tmux.wait_within(LIMIT, "the call to wait", |screen| {
        screen.contains("No inbox runs: answer with askuser web")
    });
    read_the_form();
    tmux.keys(&["Escape"]);
    wait_for(&tmux, "Request cancelled.");
    (model, tmux)
}

/// The person asks Gemini CLI's model to ask again.
fn ask_again(tmux: &Tmux) {
    tmux.text("Please ask me again.");
    wait_for(tmux, "Please ask me again.");
    tmux.keys(&["Enter"]);
}

/// Gemini CLI's Esc stops its waiting call without telling askuser. An answer
/// given in the inbox afterwards goes to that call, which nobody reads: the
/// Done page says what it cannot know and that the answers are kept, and the
/// same call made again (the person asks the model to ask again) is answered
/// with them at once.
#[test]
fn gemini_cli_s_esc_keeps_an_answer_given_later_for_the_same_call_made_again() {
    let scratch = Scratch::new();
    let (model, tmux) = gemini_stopped_by_esc("gemini-esc", &scratch);
    let done = answer_migration_in_the_inbox(&scratch, "s", || None);
    assert_eq!(done, GEMINI_UNSURE_DONE);
    assert!(model.seen().is_empty(), "{:?}", model.seen());
    ask_again(&tmux);
    let seen = model.wait_for_result(LIMIT, || tmux.screen());
    assert_eq!(
        seen,
        Seen {
            text: GEMINI_SEES_THE_MIGRATION.into(),
            error: false
        }
    );
    wait_for(&tmux, FINAL_TEXT);
    assert_eq!(
        events(&scratch),
        [
            "#1 requested call-1 (3 questions: apply, env, note)",
            "#2 attached host=Gemini CLI 0.61.0, machine=laptop, directory=<tmp>/project",
            "#3 client noted call-1: no forms",
            "#4 client noted call-1: stops silently (Gemini CLI sends no cancel)",
            "#5 review wanted call-1",
            "#6 answered call-1: apply = true",
            "#7 answered call-1: env = \"production\"",
            "#8 answered call-1: note = \"tonight\"",
            "#9 submitted call-1",
            "#10 delivered call-1",
        ]
    );
}

/// After Gemini CLI's Esc, the person asks the model to ask again before
/// answering: the new call says the model moved on from the first, takes its
/// open questions over (the inbox never shows them twice), and gets the answer
/// given in the inbox; the left call stops waiting.
#[test]
fn gemini_cli_asking_again_after_esc_takes_the_open_questions_over() {
    let scratch = Scratch::new();
    let (model, tmux) = gemini_stopped_by_esc("gemini-again", &scratch);
    ask_again(&tmux);
    tmux.wait_within(LIMIT, "the call to be made again", |_| {
        events(&scratch).len() >= 6
    });
    // The call that took the questions over may be stopped unseen too.
    let done = answer_migration_in_the_inbox(&scratch, "s", || None);
    assert_eq!(done, GEMINI_UNSURE_DONE);
    let seen = model.wait_for_result(LIMIT, || tmux.screen());
    assert_eq!(
        seen,
        Seen {
            text: GEMINI_SEES_THE_MIGRATION.into(),
            error: false
        }
    );
    wait_for(&tmux, FINAL_TEXT);
    let moved = |line: String| match line.split_once(" ms in)") {
        Some((head, _)) if line.contains("moved on") => {
            format!(
                "{}N ms in)",
                head.trim_end_matches(|c: char| c.is_ascii_digit())
            )
        }
        _ => line,
    };
    assert_eq!(
        events(&scratch).into_iter().map(moved).collect::<Vec<_>>(),
        [
            "#1 requested call-1 (3 questions: apply, env, note)",
            "#2 attached host=Gemini CLI 0.61.0, machine=laptop, directory=<tmp>/project",
            "#3 client noted call-1: no forms",
            "#4 client noted call-1: stops silently (Gemini CLI sends no cancel)",
            "#5 client noted call-1: moved on (a new call N ms in)",
            "#6 client noted call-1: stops silently (Gemini CLI sends no cancel)",
            "#7 review wanted call-1",
            "#8 answered call-1: apply = true",
            "#9 answered call-1: env = \"production\"",
            "#10 answered call-1: note = \"tonight\"",
            "#11 submitted call-1",
        ]
    );
}

/// A person answers [`migration`] (yes, production, "tonight") in the web
/// inbox (`askuser web` on the scratch log), once the waiting call of `stream`
/// has asked it (`gone` says why it never will, when it knows): the Done
/// page's text, its clock masked.
fn answer_migration_in_the_inbox(
    scratch: &Scratch,
    stream: &str,
    gone: impl Fn() -> Option<String>,
) -> String {
    let web = Web::start(scratch, &scratch.db());
    answer_migration_in(&web, stream, gone)
}

/// [`answer_migration_in_the_inbox`], in the inbox `web` already running.
fn answer_migration_in(web: &Web, stream: &str, gone: impl Fn() -> Option<String>) -> String {
    let browser = Browser::start();
    browser.go(&web.url);
    let link = format!("/q/{stream}/call-1");
    // The question shows in the inbox as any other, once the call asks it.
    let start = Instant::now();
    while !browser.source().contains(&format!("href=\"{link}\"")) {
        assert!(
            start.elapsed() < LIMIT,
            "not in the inbox: {}",
            browser.text()
        );
        if let Some(why) = gone() {
            panic!("never in the inbox: {why}");
        }
        std::thread::sleep(Duration::from_millis(200));
        browser.go(&web.url);
    }
    browser.click(&format!("a[href='{link}']"));
    at(&browser, "[1/3] Apply the proposed migration?");
    browser.click("#c0");
    browser.click("button[value=answer]");
    at(&browser, "[2/3] Which environment?");
    browser.click("#c1");
    browser.click("button[value=answer]");
    at(&browser, "[3/3] Anything the migration should know?");
    browser.type_into("#answer", "tonight");
    browser.click("button[value=answer]");
    at(&browser, "Review your answers");
    browser.click("button[value=submit]");
    at(&browser, "Done");
    clock_masked(&browser.text(), "<none>")
}

// ---- Set up by `askuser setup HOST` alone, as a newcomer would

/// Runs a headless host (`command`) while a person answers [`migration`] in the
/// web inbox; returns the host's standard output.
fn headless_answered_in_the_inbox(scratch: &Scratch, stream: &str, mut command: Command) -> String {
    let child = std::sync::Mutex::new(command.spawn().expect("the host starts"));
    answer_migration_in_the_inbox(scratch, stream, || {
        let mut child = child.lock().expect("the host");
        let status = child.try_wait().expect("the host's status")?;
        let mut out = String::new();
        if let Some(stdout) = child.stdout.as_mut() {
            std::io::Read::read_to_string(stdout, &mut out).expect("its output");
        }
        Some(format!("the host ended ({status}) first, saying: {out}"))
    });
    let output = (child.into_inner().expect("the host"))
        .wait_with_output()
        .expect("the host runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("UTF-8")
}

/// The events of `stream`, with the machine's name (the host passes askuser
/// no `ASKUSER_MACHINE` of the test's) as `<machine>`.
fn events_set_up(scratch: &Scratch, stream: &str) -> Vec<String> {
    events_in(scratch, stream)
        .into_iter()
        .map(|event| match event.split_once("machine=") {
            Some((head, tail)) => {
                let rest = tail.split_once(',').map_or("", |(_, rest)| rest);
                format!("{head}machine=<machine>,{rest}")
            }
            None => event,
        })
        .collect()
}

#[test]
fn claude_code_headless_set_up_by_askuser_setup_calls_ask_user_and_is_answered_in_the_inbox() {
    let scratch = Scratch::new();
    let model = Model::start("ask_user", migration());
    let host = hosts::claude_set_up(&scratch, &model);
    let out = headless_answered_in_the_inbox(
        &scratch,
        "project-1",
        host.command(&["-p", "Please ask me."]),
    );
    assert_eq!(out, format!("{FINAL_TEXT}\n"));
    assert_eq!(
        model.seen(),
        [Seen {
            text: r#"{"apply":true,"env":"production","note":"tonight"}"#.into(),
            error: false
        }]
    );
    assert_eq!(
        without_millis(&events_set_up(&scratch, "project-1")),
        [
            "#1 attached host=Claude Code 2.1.332, machine=<machine>, directory=<tmp>/project",
            "#2 requested call-1 (3 questions: apply, env, note)",
            "#3 attached host=Claude Code 2.1.332, machine=<machine>, directory=<tmp>/project",
            "#4 client noted call-1: no person (claude -p)",
            "#5 review wanted call-1",
            "#6 answered call-1: apply = true",
            "#7 answered call-1: env = \"production\"",
            "#8 answered call-1: note = \"tonight\"",
            "#9 submitted call-1",
            "#10 delivered call-1",
        ]
    );
}

#[test]
fn codex_exec_set_up_by_askuser_setup_calls_ask_user_and_is_answered_in_the_inbox() {
    let scratch = Scratch::new();
    let model = Model::start("ask_user", migration());
    let host = hosts::codex_set_up(&scratch, &model);
    let out = headless_answered_in_the_inbox(
        &scratch,
        "project-1",
        host.command(&["exec", "--skip-git-repo-check", "Please ask me."]),
    );
    assert_eq!(out, format!("{FINAL_TEXT}\n"));
    assert_eq!(
        codex_output(&model.seen()[0]),
        "Wall time: <s> seconds\nOutput:\n{\"apply\":true,\"env\":\"production\",\"note\":\"tonight\"}"
    );
    assert_eq!(
        without_millis(&events_set_up(&scratch, "project-1")),
        [
            "#1 attached host=Codex 0.171.0, machine=<machine>, directory=<tmp>/project",
            "#2 requested call-1 (3 questions: apply, env, note)",
            "#3 attached host=Codex 0.171.0, machine=<machine>, directory=<tmp>/project",
            "#4 client noted call-1: no person (codex exec)",
            "#5 review wanted call-1",
            "#6 answered call-1: apply = true",
            "#7 answered call-1: env = \"production\"",
            "#8 answered call-1: note = \"tonight\"",
            "#9 submitted call-1",
            "#10 delivered call-1",
        ]
    );
}

#[test]
fn claude_code_headless_gives_the_model_the_pending_file_s_words() {
    let scratch = Scratch::new();
    let model = Model::start("ask_user", migration());
    let pending = pending_dir(&scratch);
    // Nothing waits for another window: the pending file is the result.
    let host = hosts::claude(
        &scratch,
        &model,
        &["--pending-dir", &pending, "--wait", "0"],
    );
    let output = host
        .command(&["-p", "Please ask me."])
        .output()
        .expect("the host runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        format!("{FINAL_TEXT}\n")
    );
    let file = pending_file(&pending).expect("the pending file");
    let words = format!(
        "Questions pending. User input required.\n\nTo answer, run:\n  askuser answer {file} --answers '[...]'\n(one answer per question, in order; null for a question that is skipped)\n\nOr fill in each \"answer\" in the file and run:\n  askuser answer {file}\n\nQuestions saved to: {file}\n"
    );
    let structured = json!({"status": "pending", "file": file, "instructions": words});
    assert_eq!(
        model.seen(),
        [Seen {
            text: structured.to_string(),
            error: false
        }]
    );
}

#[test]
fn claude_code_set_up_by_askuser_setup_shows_the_form_without_asking_to_proceed_and_takes_a_quick_esc_as_the_person_s()
 {
    let scratch = Scratch::new();
    let model = Model::start("ask_user", migration());
    let host = hosts::claude_set_up(&scratch, &model);
    let tmux = in_claude("claude-set-up", &scratch, &host, &model);

    // No "Do you want to proceed?" before askuser's form: the form itself.
    let screen = wait_for(&tmux, "Accept    Decline");
    assert!(!screen.contains("Do you want to proceed"), "{screen}");
    assert_eq!(from(&screen, CLAUDE_FORM), CLAUDE_FIRST_ROUND);
    // Round 1 answered at a person's pace; Esc the moment round 2 shows
    // (well under the 500 ms below which a dismissal from nobody's hand is
    // "no person"): the person's own dismissal, and the turn ends.
    read_the_form();
    step(&tmux, &["Space"], "☒");
    step(&tmux, &["Down"], "❯   Anything the migration should know?");
    step(&tmux, &["Down"], "❯ Accept");
    submit(&tmux, "Question 3 of 3");
    tmux.keys(&["Escape"]);
    let seen = model.wait_for_result(LIMIT, || tmux.screen());
    assert_eq!(
        seen,
        Seen {
            text: "ask_user: the user dismissed the questions. Do not retry this tool call in this turn; continue without the answers, or end your turn.".into(),
            error: true
        }
    );
    assert_eq!(
        events_set_up(&scratch, "project-1"),
        [
            "#1 attached host=Claude Code 2.1.332, machine=<machine>, directory=<tmp>/project",
            "#2 requested call-1 (3 questions: apply, env, note)",
            "#3 attached host=Claude Code 2.1.332, machine=<machine>, directory=<tmp>/project",
            "#4 shown call-1: apply, note",
            "#5 answered call-1: apply = true",
            "#6 answered ahead call-1: note = \"\"",
            "#7 shown call-1: env",
            "#8 turn ended call-1 in the agent's own window",
            "#9 delivered call-1",
        ]
    );
}

#[test]
fn codex_set_up_by_askuser_setup_shows_the_form_without_asking_to_allow_the_tool() {
    let scratch = Scratch::new();
    let model = Model::start("ask_user", deploy());
    let host = hosts::codex_set_up(&scratch, &model);
    let tmux = in_codex("codex-set-up", &scratch, &host);

    // No "Allow the askuser MCP server to run tool?" first: the form itself.
    let screen = wait_for(&tmux, "Field 1/4");
    assert!(!screen.contains("Allow the askuser MCP server"), "{screen}");
    assert_eq!(
        from(&screen, "Field 1/4"),
        "  Field 1/4
  Questions 1–3 of 3

  Deploy the release now?
  › 1. True
    2. False
  enter to submit answer | ←/→ to navigate fields | esc to cancel"
    );
    read_the_form();
    tmux.keys(&["Escape"]);
    let seen = model.wait_for_result(LIMIT, || tmux.screen());
    assert_eq!(
        codex_output(&seen),
        "Wall time: <s> seconds\nOutput:\nask_user: the user dismissed the questions. Do not retry this tool call in this turn; continue without the answers, or end your turn."
    );
    assert_eq!(
        events_set_up(&scratch, "project-1"),
        [
            "#1 attached host=Codex 0.171.0, machine=<machine>, directory=<tmp>/project",
            "#2 requested call-1 (3 questions: proceed, reason, channel)",
            "#3 attached host=Codex 0.171.0, machine=<machine>, directory=<tmp>/project",
            "#4 shown call-1: proceed, reason, channel",
            "#5 turn ended call-1 in the agent's own window",
            "#6 delivered call-1",
        ]
    );
}

// ---- OpenCode 1.18.33 (no elicitation; tools named `<server>_<tool>`)

/// `opencode` set up by `askuser setup opencode` alone, run headless from
/// another directory with the project given (`opencode run --dir PROJECT`):
/// askuser names the stream after the project, not the directory it was
/// started in, and the answer given in the web inbox reaches the model in the
/// same run.
#[test]
fn opencode_set_up_by_askuser_setup_names_the_stream_after_the_project_and_is_answered_in_the_inbox()
 {
    let scratch = Scratch::new();
    let model = Model::start("ask_user", migration()).naming("askuser_ask_user");
    let host = hosts::opencode_set_up(&scratch, &model);
    let elsewhere = scratch.path("elsewhere");
    std::fs::create_dir_all(&elsewhere).expect("a directory");
    let project = host.dir.display().to_string();
    let mut command = host.command(&["run", "--dir", &project, "Please ask me."]);
    command.current_dir(&elsewhere).env("PWD", &elsewhere);
    let out = headless_answered_in_the_inbox(&scratch, "project-1", command);
    assert_eq!(out, format!("{FINAL_TEXT}\n"));
    assert_eq!(
        model.seen(),
        [Seen {
            text: r#"{"apply":true,"env":"production","note":"tonight"}"#.into(),
            error: false
        }]
    );
    // OpenCode stops its servers as it exits: the server's clean stop is
    // recorded when it comes before the log is read.
    let mut recorded = events_set_up(&scratch, "project-1");
    if recorded.len() == 11 {
        assert_eq!(
            recorded.pop().as_deref(),
            Some("#11 detached host=OpenCode 1.18.33, machine=<machine>, directory=<tmp>/project")
        );
    }
    assert_eq!(
        recorded,
        [
            "#1 attached host=OpenCode 1.18.33, machine=<machine>, directory=<tmp>/project",
            "#2 requested call-1 (3 questions: apply, env, note)",
            "#3 attached host=OpenCode 1.18.33, machine=<machine>, directory=<tmp>/project",
            "#4 client noted call-1: no forms",
            "#5 review wanted call-1",
            "#6 answered call-1: apply = true",
            "#7 answered call-1: env = \"production\"",
            "#8 answered call-1: note = \"tonight\"",
            "#9 submitted call-1",
            "#10 delivered call-1",
        ]
    );
}
