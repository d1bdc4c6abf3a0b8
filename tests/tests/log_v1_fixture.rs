//! The log written by askuser at commit 575e3ef (`tests/fixtures/log-v1/`, see its
//! README) still replays to exactly what was sent then: every recorded event
//! re-derives its recorded lines, the final lines re-derived are the tool results
//! `askuser serve` printed (`<stream>.out.jsonl`), and `log export` prints what it
//! printed then (`<stream>.export.jsonl`).
//!
//! The committed database is never opened in place (sled writes on open): each test
//! works on a copy in a temporary directory. The replay and export go through the
//! library calls `askuser log replay` and `askuser log export` make (this crate
//! cannot reach the binary, which Cargo builds only for `askuser-cli`'s own tests).

use std::path::{Path, PathBuf};

use askuser_rpc::{Desk, replay};
use serde_json::Value;

/// The streams of the fixture, with their number of events, and the types of the
/// lines `serve` printed that are not re-derivable from the log because they never
/// reached it: the `ready` line, calls the dialect rejected (`rejected`) and lines
/// answered with `error`.
const STREAMS: [(&str, usize, &[&str]); 5] = [
    ("jp-form", 11, &["ready"]),
    ("jp", 7, &["ready", "error"]),
    ("claude", 6, &["ready", "rejected"]),
    ("pi", 5, &["ready"]),
    ("claude-fork", 6, &["ready"]),
];

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/log-v1")
}

fn read_text(name: &str) -> String {
    let path = fixture().join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn read_lines(name: &str) -> Vec<Value> {
    read_text(name)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{name}: {e}: {line}")))
        .collect()
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// A copy of the fixture's database in a temporary directory, opened.
fn open_copy() -> (tempfile::TempDir, Desk) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    copy_dir(&fixture().join("db"), &db);
    let journal = Desk::open(&db).unwrap();
    (dir, journal)
}

/// A re-derived line as serve sent it then: a `prompt` line has ended with the
/// inquiry's `step` since (what an answer may name to say what it answers); the
/// first format's lines have none, and nothing else differs.
fn without_step(line: &Value) -> Value {
    let mut line = line.clone();
    if line_type(&line) == "prompt"
        && let Some(object) = line.as_object_mut()
    {
        assert!(
            object.remove("step").is_some(),
            "a prompt has a step: {line}"
        );
    }
    line
}

fn line_type(line: &Value) -> &str {
    line["type"].as_str().unwrap_or("")
}

/// The lines that end an inquiry and were recorded: `result`, `failed`,
/// `turn_ended` (a `rejected` call never reaches the log).
fn is_recorded_final(line: &Value) -> bool {
    matches!(line_type(line), "result" | "failed" | "turn_ended")
}

#[test]
fn every_stream_replays_to_exactly_the_lines_and_results_serve_sent() {
    let (_dir, journal) = open_copy();
    let log = journal.log();
    let names: Vec<String> = log.streams().unwrap().into_iter().map(|s| s.name).collect();
    assert_eq!(names, ["claude", "claude-fork", "jp", "jp-form", "pi"]);

    for (stream, events, not_recorded) in STREAMS {
        let report = replay(&**log, stream).unwrap();
        assert!(report.matches(), "{stream}:\n{}", report.to_text());
        assert_eq!(report.from_snapshot, None, "{stream}");
        assert_eq!(report.events.len(), events, "{stream}");
        assert!(
            report.events.iter().all(|e| e.matches() == Some(true)),
            "{stream}: every event has recorded lines, and they are re-derived"
        );
        assert_eq!(
            report.to_text().lines().last(),
            Some(
                format!(
                    "match: the {events} recorded events re-derive exactly the lines that were sent"
                )
                .as_str()
            ),
            "{stream}"
        );

        // A fork inherits its parent's events through `at`; their lines were sent
        // by the parent's session.
        let fork = log.stream(stream).unwrap().unwrap().parent;
        let at = fork.as_ref().map_or(0, |f| f.at);
        let sent = read_lines(&format!("{stream}.out.jsonl"));
        let (derivable, skipped): (Vec<&Value>, Vec<&Value>) = sent
            .iter()
            .partition(|line| !not_recorded.contains(&line_type(line)));
        let skipped: Vec<&str> = skipped.into_iter().map(line_type).collect();
        assert_eq!(skipped, not_recorded, "{stream}");
        let rederived: Vec<Value> = report
            .events
            .iter()
            .filter(|e| e.seq > at)
            .flat_map(|e| &e.outputs)
            .map(without_step)
            .collect();
        let derivable: Vec<Value> = derivable.into_iter().cloned().collect();
        assert_eq!(rederived, derivable, "{stream}: every line serve sent");

        let mut expected: Vec<&Value> = Vec::new();
        let parent_sent;
        if let Some(fork) = &fork {
            let inherited = report
                .events
                .iter()
                .filter(|e| e.seq <= at)
                .flat_map(|e| &e.outputs)
                .filter(|line| is_recorded_final(line))
                .count();
            parent_sent = read_lines(&format!("{}.out.jsonl", fork.stream));
            let parent_finals: Vec<&Value> = parent_sent
                .iter()
                .filter(|line| is_recorded_final(line))
                .collect();
            expected.extend(&parent_finals[..inherited]);
        }
        expected.extend(sent.iter().filter(|line| is_recorded_final(line)));
        assert_eq!(report.final_lines(), expected, "{stream}: the tool results");
    }
}

#[test]
fn the_fork_was_branched_before_the_reply_and_answered_otherwise() {
    let (_dir, journal) = open_copy();
    let log = journal.log();
    let fork = log.stream("claude-fork").unwrap().unwrap().parent.unwrap();
    assert_eq!((fork.stream.as_str(), fork.at), ("claude", 5));
    let finals = |stream: &str| -> Vec<Value> {
        let report = replay(&**log, stream).unwrap();
        report.final_lines().into_iter().cloned().collect()
    };
    let claude = finals("claude");
    let branch = finals("claude-fork");
    assert_eq!(claude[0], branch[0], "c2, before the fork point, is shared");
    assert_eq!(
        claude[1].to_string(),
        r#"{"type":"result","inquiry":"c3","result":{"cancelled":true,"answers":{"Which auth method should we use?":"API keys"}},"cancelled":true}"#
    );
    assert_eq!(
        branch[1].to_string(),
        r#"{"type":"result","inquiry":"c3","result":{"answers":{"Which auth method should we use?":"API keys","Which features should we enable?":"API"}},"cancelled":false}"#
    );
}

#[test]
fn export_prints_exactly_what_it_printed_then_with_each_call_read_back() {
    // No field differs from run to run: `at` is the time recorded in the log, not
    // the time of the export. The one addition: each first-format request now
    // carries the tool call its server kept beside it (read from the side tree), so
    // its result can be rendered from the log alone.
    let (_dir, journal) = open_copy();
    for (stream, events, _) in STREAMS {
        let mut out = Vec::new();
        let count = askuser_store::export::json_lines(&**journal.log(), stream, &mut out).unwrap();
        assert_eq!(count, u64::try_from(events).unwrap(), "{stream}");
        let mut lines = Vec::new();
        for line in String::from_utf8(out).unwrap().lines() {
            let mut value: serde_json::Value = serde_json::from_str(line).unwrap();
            if let Some(request) = value["event"].get_mut("requested") {
                let call = request
                    .as_object_mut()
                    .unwrap()
                    .remove("call")
                    .unwrap_or_else(|| panic!("{stream}: a request without its call: {line}"));
                assert!(
                    call["dialect"].is_string() && call["arguments"].is_object(),
                    "{call}"
                );
            }
            lines.push(value.to_string());
        }
        let expected: Vec<String> = read_text(&format!("{stream}.export.jsonl"))
            .lines()
            .map(|line| {
                serde_json::from_str::<serde_json::Value>(line)
                    .unwrap()
                    .to_string()
            })
            .collect();
        assert_eq!(lines, expected, "{stream}");
    }
}
