//! Many processes on one log (issue 13): the program is run as separate processes
//! at once on one sled log (shared through its owner's socket) and on one
//! PostgreSQL database (the server of `ASKUSER_TEST_PG`, a fresh database per test).

mod common;

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdout, Command, Stdio};

use common::place::Place;
use common::{BIN, Run, Scratch, run_in};

const CALL: &str = r#"{"questions":[{"id":"ok","text":"Proceed?","answer_type":"boolean"}]}"#;

fn run(scratch: &Scratch, db: &str, args: &[&str]) -> Run {
    let mut all = args.to_vec();
    all.extend(["--db", db]);
    run_in(scratch.dir.path(), &all, "")
}

/// `askuser serve --stream s` on `db`, with its `ready` line read (it lists the
/// open inquiries `open`, a JSON list).
fn serve(scratch: &Scratch, db: &str, open: &str) -> (Child, BufReader<ChildStdout>) {
    let mut child = Command::new(BIN)
        .args(["serve", "--stream", "s", "--db", db])
        .current_dir(scratch.dir.path())
        .env("HOME", scratch.dir.path())
        .env("ASKUSER_MACHINE", "laptop")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut ready = String::new();
    out.read_line(&mut ready).unwrap();
    assert_eq!(
        ready,
        format!("{{\"type\":\"ready\",\"stream\":\"s\",\"protocol\":1,\"open\":{open}}}\n")
    );
    (child, out)
}

fn ask_line(inquiry: &str) -> String {
    format!(
        "{{\"type\":\"ask\",\"inquiry\":\"{inquiry}\",\"dialect\":\"jp-form\",\"arguments\":{CALL}}}\n"
    )
}

const PROMPT: &str = r#"{"type":"prompt","inquiry":"t1","question":{"id":"ok","text":"Proceed?","context":null,"header":null,"answer_type":"boolean","options":[],"allow_other":false,"schema":null},"progress":null,"prefill":null,"can_back":false,"label":"Assistant","step":0}"#;

fn eight_pending_asks_and_answers_at_once(place: &Place) {
    let scratch = Scratch::new();
    let db = place.db(&scratch);
    std::fs::write(scratch.path("call.json"), CALL).unwrap();
    let runs: Vec<(Run, Run)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..8)
            .map(|n| {
                let (scratch, db) = (&scratch, db.as_str());
                scope.spawn(move || {
                    let (pending, stream) = (format!("p{n}.json"), format!("s{n}"));
                    let asked = run(
                        scratch,
                        db,
                        &[
                            "ask",
                            "--dialect",
                            "jp-form",
                            "--pending",
                            &pending,
                            "--stream",
                            &stream,
                            "call.json",
                        ],
                    );
                    let answer = if n % 2 == 0 { "[true]" } else { "[false]" };
                    let answered = run(scratch, db, &["answer", &pending, "--answers", answer]);
                    (asked, answered)
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().unwrap()).collect()
    });
    for (n, (asked, answered)) in runs.iter().enumerate() {
        assert_eq!(asked.code, 5, "ask {n}: {}", asked.stderr);
        let expected = if n % 2 == 0 {
            "{\"ok\":true}\n"
        } else {
            "{\"ok\":false}\n"
        };
        assert_eq!(
            (answered.code, answered.stdout.as_str()),
            (0, expected),
            "answer {n}: {}",
            answered.stderr
        );
    }
    let listed = run(&scratch, &db, &["log", "list"]);
    let expected: String = (0..8)
        .map(|n| format!("s{n}  2 events, created just now; answered\n"))
        .collect::<Vec<_>>()
        .concat();
    assert_eq!(
        (listed.code, scratch.redact(&listed.stdout)),
        (0, expected),
        "{}",
        listed.stderr
    );
}

fn the_log_is_read_while_serve_runs_and_serve_sees_an_answer_given_elsewhere(place: &Place) {
    let scratch = Scratch::new();
    let db = place.db(&scratch);
    let (mut server, mut out) = serve(&scratch, &db, "[]");
    let mut input = server.stdin.take().unwrap();
    input.write_all(ask_line("t1").as_bytes()).unwrap();
    input.flush().unwrap();
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    assert_eq!(line.trim_end(), PROMPT);
    // Other processes read the log while the server holds its session open.
    let listed = run(&scratch, &db, &["log", "list"]);
    assert_eq!(
        (listed.code, scratch.redact(&listed.stdout)),
        (
            0,
            "s  2 events, created just now; open: 1 inquiry waits for an answer\n".to_owned()
        ),
        "{}",
        listed.stderr
    );
    let shown = run(&scratch, &db, &["log", "show", "s"]);
    assert_eq!(
        (shown.code, scratch.redact(&shown.stdout)),
        (
            0,
            "stream \"s\": 2 events\n#1 <time>  attached machine=laptop, directory=<tmp>\n#2 <time>  requested t1 (1 question: ok)\n".to_owned()
        ),
        "{}",
        shown.stderr
    );
    // Another host answers the inquiry; the waiting server passes the result on
    // without its own host sending anything.
    let (mut other, mut other_out) = serve(&scratch, &db, "[\"t1\"]");
    let mut again = String::new();
    other_out.read_line(&mut again).unwrap();
    assert_eq!(
        again.trim_end(),
        PROMPT,
        "a server started later shows the open question"
    );
    let mut other_in = other.stdin.take().unwrap();
    other_in
        .write_all(b"{\"type\":\"answer\",\"inquiry\":\"t1\",\"question\":\"ok\",\"value\":true}\n")
        .unwrap();
    other_in.flush().unwrap();
    let mut answered = String::new();
    other_out.read_line(&mut answered).unwrap();
    let result =
        "{\"type\":\"result\",\"inquiry\":\"t1\",\"result\":{\"ok\":true},\"cancelled\":false}\n";
    assert_eq!(answered, result);
    line.clear();
    out.read_line(&mut line).unwrap();
    assert_eq!(line, result, "the first server saw the answer");
    drop(other_in);
    drop(input);
    assert!(other.wait().unwrap().success());
    assert!(server.wait().unwrap().success());
}

fn two_processes_racing_to_answer_one_question_one_wins(place: &Place) {
    let scratch = Scratch::new();
    let db = place.db(&scratch);
    std::fs::write(scratch.path("call.json"), CALL).unwrap();
    let asked = run(
        &scratch,
        &db,
        &[
            "ask",
            "--dialect",
            "jp-form",
            "--pending",
            "p.json",
            "--stream",
            "race",
            "call.json",
        ],
    );
    assert_eq!(asked.code, 5, "{}", asked.stderr);
    let [yes, no] = std::thread::scope(|scope| {
        let answers = ["[true]", "[false]"].map(|answer| {
            let (scratch, db) = (&scratch, db.as_str());
            scope.spawn(move || run(scratch, db, &["answer", "p.json", "--answers", answer]))
        });
        answers.map(|a| a.join().unwrap())
    });
    // One answer is recorded; both print the recorded result.
    assert_eq!(
        (yes.code, no.code),
        (0, 0),
        "{} / {}",
        yes.stderr,
        no.stderr
    );
    assert_eq!(yes.stdout, no.stdout);
    let shown = run(&scratch, &db, &["log", "show", "race"]);
    let (winner, words, won, lost) = if yes.stdout == "{\"ok\":true}\n" {
        ("true", "Yes", &yes, &no)
    } else {
        ("false", "No", &no, &yes)
    };
    // The winner shows what it recorded; the loser says in words that it lost:
    // that the inquiry was answered elsewhere when it read the file before the
    // winner rewrote it, or, when it started after (a slow machine), that the
    // file's questions were already answered, as for any answered file.
    assert_eq!(
        won.stderr,
        format!(
            "askuser: recorded for inquiry \"call-1\" of stream \"race\":\n  Proceed? — {words}\n"
        )
    );
    let lost_in_the_race = "askuser: inquiry \"call-1\" of stream \"race\" was already answered elsewhere (in the terminal, the browser or an earlier `askuser answer`), so the answers given here were not recorded; the result the assistant got follows\n";
    let started_after =
        "askuser: these questions were already answered; the recorded result follows\n";
    assert!(
        lost.stderr == lost_in_the_race || lost.stderr == started_after,
        "the loser said: {:?}",
        lost.stderr
    );
    assert_eq!(
        scratch.redact(&shown.stdout),
        format!(
            "stream \"race\": 2 events\n#1 <time>  requested call-1 (1 question: ok)\n#2 <time>  answered call-1: ok = {winner}\n"
        )
    );
}

#[test]
fn sled_eight_pending_asks_and_answers_at_once() {
    eight_pending_asks_and_answers_at_once(&Place::Sled);
}

#[test]
fn sled_the_log_is_read_while_serve_runs_and_serve_sees_an_answer_given_elsewhere() {
    the_log_is_read_while_serve_runs_and_serve_sees_an_answer_given_elsewhere(&Place::Sled);
}

#[test]
fn sled_two_processes_racing_to_answer_one_question_one_wins() {
    two_processes_racing_to_answer_one_question_one_wins(&Place::Sled);
}

#[test]
fn postgres_eight_pending_asks_and_answers_at_once() {
    eight_pending_asks_and_answers_at_once(&Place::postgres());
}

#[test]
fn postgres_the_log_is_read_while_serve_runs_and_serve_sees_an_answer_given_elsewhere() {
    the_log_is_read_while_serve_runs_and_serve_sees_an_answer_given_elsewhere(&Place::postgres());
}

#[test]
fn postgres_two_processes_racing_to_answer_one_question_one_wins() {
    two_processes_racing_to_answer_one_question_one_wins(&Place::postgres());
}
