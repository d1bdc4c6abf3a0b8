//! A crash is not damage: `askuser serve` is killed (SIGKILL) at random moments
//! while a host asks and answers as fast as it can; the next read-only command
//! says, in exact words, that the last write was cut off by a crash and that
//! everything acknowledged is there, never that the log is damaged and needs
//! salvaging (`askuser log salvage` says nothing is damaged and exits 0); and
//! every inquiry whose result was sent reads back finished.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use common::{BIN, Scratch};

/// What a read-only command says of a log whose last write a crash cut off.
const CRASH_WORDS: &str = "askuser: The last write to this log was cut off by a crash; \
    everything acknowledged is there (the write that was cut off had not been acknowledged, \
    and is left out).";

/// Runs `serve` on the log of `scratch`, asking and answering inquiries
/// `r{round}-1`, `r{round}-2`... on stream `crash` until it is killed after
/// `millis` after its first line; the inquiries whose result it sent.
fn serve_until_killed(scratch: &Scratch, round: u64, millis: u64) -> u64 {
    let db = scratch.db();
    let mut child = Command::new(BIN)
        .args(["serve", "--db", &db, "--stream", "crash"])
        .env_remove("ASKUSER_DB")
        .env("HOME", scratch.dir.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("serve starts");
    let mut input = child.stdin.take().unwrap();
    std::thread::spawn(move || {
        for n in 1.. {
            let inquiry = format!("r{round}-{n}");
            let lines = format!(
                "{{\"type\":\"ask\",\"inquiry\":\"{inquiry}\",\"dialect\":\"jp-form\",\"arguments\":\
                 {{\"questions\":[{{\"id\":\"go\",\"text\":\"Go?\",\"answer_type\":\"boolean\"}}]}}}}\n\
                 {{\"type\":\"answer\",\"inquiry\":\"{inquiry}\",\"question\":\"go\",\"value\":true}}\n"
            );
            if input.write_all(lines.as_bytes()).is_err() {
                break;
            }
        }
    });
    let output = child.stdout.take().unwrap();
    let (started, has_started) = std::sync::mpsc::channel();
    let this_round = format!(r#""inquiry":"r{round}-"#);
    let results = std::thread::spawn(move || {
        BufReader::new(output)
            .lines()
            .map_while(Result::ok)
            .inspect(|_| {
                let _ = started.send(());
            })
            // A result owed from an earlier round (finished while no serve
            // was there to send it) is sent again first: not this round's.
            .filter(|line| line.starts_with(r#"{"type":"result""#) && line.contains(&this_round))
            .count() as u64
    });
    // The kill's time counts from serve's first line, so a slow start on a
    // busy machine still leaves it time to answer.
    let _ = has_started.recv_timeout(Duration::from_secs(20));
    std::thread::sleep(Duration::from_millis(millis));
    child.kill().expect("SIGKILL serve");
    child.wait().unwrap();
    results.join().unwrap()
}

#[test]
fn a_killed_writer_leaves_a_log_that_says_it_was_cut_off_not_damaged() {
    let rounds: u64 = std::env::var("ASKUSER_CRASH_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        // Six rounds (about 17 s each) in the README's test command, whose
        // whole run has to fit CI's 30 minutes; more with ASKUSER_CRASH_ROUNDS.
        .unwrap_or(6);
    let mut seed = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(1, |d| u64::from(d.subsec_nanos()))
        | 1;
    println!("crash words: {rounds} rounds, seed {seed}");
    let scratch = Scratch::new();
    let (mut acknowledged, mut cut_off) = (0, 0);
    for round in 0..rounds {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let results = serve_until_killed(&scratch, round, 150 + seed % 600);
        acknowledged += results;
        // A kill before `serve` made the log leaves nothing to read.
        if acknowledged == 0 && !std::path::Path::new(&scratch.db()).join("db").exists() {
            continue;
        }
        let listed = scratch.run_db(&["log", "list"], "");
        assert_eq!(listed.code, 0, "round {round}: {}", listed.stderr);
        let said = listed.stderr.trim_end();
        if !said.is_empty() {
            cut_off += 1;
            // What the cut-off write held (one inquiry's request or answer) may be named.
            let (words, left_out) = said.split_once(" Left out with it: ").unwrap_or((said, ""));
            assert_eq!(words, CRASH_WORDS, "round {round}");
            assert!(
                left_out.is_empty() || left_out.starts_with("stream \"crash\" event"),
                "round {round}: {said}"
            );
            // Salvage says the same, that nothing is damaged, and exits 0.
            let to = scratch
                .path(&format!("salvaged-{round}"))
                .display()
                .to_string();
            let salvaged = scratch.run(&["log", "salvage", &scratch.db(), &to], "");
            let lines: Vec<&str> = salvaged.stdout.lines().collect();
            assert_eq!(
                (salvaged.code, lines.first().copied(), lines.last().copied()),
                (
                    0,
                    Some(said.strip_prefix("askuser: ").unwrap_or(said)),
                    Some("Nothing is damaged, and nothing acknowledged was lost.")
                ),
                "round {round}: {}{}",
                salvaged.stdout,
                salvaged.stderr
            );
        }
        // Every inquiry whose result was sent reads back finished.
        let shown = scratch.run_db(&["log", "show", "crash"], "");
        for n in 1..=results {
            let answered = format!("answered r{round}-{n}: go = true");
            assert!(
                shown.stdout.contains(&answered),
                "round {round}: r{round}-{n} was acknowledged and is missing"
            );
        }
    }
    println!("crash words: {acknowledged} acknowledged inquiries, {cut_off} rounds cut off");
    assert!(acknowledged > 0, "serve never answered");
}
