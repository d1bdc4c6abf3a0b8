//! Issue 28, item 8: option labels that only look different (an invisible format
//! character inside, a line separator, a Cyrillic or fullwidth look-alike) are
//! refused by `askuser check` in every dialect, through the one check in the core,
//! and labels in any script pass.

mod common;

use common::Scratch;
use serde_json::{Value, json};

/// One select question with `labels`, as a call of `dialect`.
fn call(dialect: &str, labels: &[&str]) -> Value {
    let described: Vec<Value> = labels
        .iter()
        .map(|l| json!({"label": l, "description": "d"}))
        .collect();
    match dialect {
        "jp-form" => json!({"questions": [
            {"id": "go", "text": "Ship it?", "answer_type": "select", "options": labels}
        ]}),
        "claude" => json!({"questions": [
            {"question": "Ship it?", "header": "Ship", "multiSelect": false, "options": described}
        ]}),
        "codex" => json!({"questions": [
            {"id": "go", "header": "Ship", "question": "Ship it?", "options": described}
        ]}),
        "pi" => json!({"questions": [
            {"question": "Ship it?", "header": "Ship", "options": described}
        ]}),
        other => panic!("no call for {other}"),
    }
}

fn check(scratch: &Scratch, dialect: &str, labels: &[&str]) -> (i32, String) {
    let run = scratch.run(
        &["check", "--dialect", dialect, "-"],
        &call(dialect, labels).to_string(),
    );
    assert_eq!(run.stderr, "", "{dialect}");
    (run.code, run.stdout)
}

/// Each dialect: its tool's name (how a refusal begins) and where an option's
/// label is (its options here are objects but for jp-form's).
const DIALECTS: [(&str, &str, &str); 4] = [
    ("jp-form", "ask_user", ""),
    ("claude", "AskUserQuestion", "/label"),
    ("codex", "request_user_input", "/label"),
    ("pi", "ask_user", "/label"),
];

const LABEL_FIX: &str = "write the label as one line of plain text, without control, bidi-control or invisible characters; put any detail in `description`";
const LOOK_ALIKE_FIX: &str = "reword one of them so that a person can tell every option apart";

#[test]
fn every_dialect_refuses_labels_that_only_look_different() {
    let scratch = Scratch::new();
    // Each reads `Approve` on a terminal (four options: AskUserQuestion's most).
    let hidden = [
        "Approve",
        "Appr\u{1d173}ove",
        "Appro\u{1bca0}ve",
        "Approve\u{2028}",
    ];
    let alike = ["Approve", "\u{410}pprove", "SQLite", "ＳＱＬｉｔｅ"];
    for (dialect, tool, label) in DIALECTS {
        let at = |n: usize| format!("- /questions/0/options/{n}{label}");
        assert_eq!(
            check(&scratch, dialect, &hidden),
            (
                2,
                format!(
                    "{tool}: the call was not run. Fix these 3 problems and call the tool again:\n\
                     {}: has U+1D173 format character at character 5; {LABEL_FIX}\n\
                     {}: has U+1BCA0 format character at character 6; {LABEL_FIX}\n\
                     {}: has U+2028 LINE SEPARATOR at character 8; {LABEL_FIX}\n",
                    at(1),
                    at(2),
                    at(3)
                )
            ),
            "{dialect}"
        );
        assert_eq!(
            check(&scratch, dialect, &alike),
            (
                2,
                format!(
                    "{tool}: the call was not run. Fix these 2 problems and call the tool again:\n\
                     {}: option \"\u{410}pprove\" looks the same as option \"Approve\" (index 0): character 1 is U+0410 here but U+0041 there; {LOOK_ALIKE_FIX}\n\
                     {}: option \"ＳＱＬｉｔｅ\" looks the same as option \"SQLite\" (index 2): character 1 is U+FF33 here but U+0053 there; {LOOK_ALIKE_FIX}\n",
                    at(1),
                    at(3)
                )
            ),
            "{dialect}"
        );
    }
}

#[test]
fn labels_in_any_script_pass_in_every_dialect() {
    let scratch = Scratch::new();
    // A jp-form call names its question; the others' are numbered.
    let ok = |dialect: &str| {
        let id = if dialect == "jp-form" { "go" } else { "q1" };
        format!("ok: a valid {dialect} call of 1 question ({id})\n")
    };
    for labels in [
        ["日本語", "한국어", "العربية", "עברית"],
        ["Ελληνικά", "Русский", "café", "👍 Ångström"],
    ] {
        for (dialect, _, _) in DIALECTS {
            assert_eq!(
                check(&scratch, dialect, &labels),
                (0, ok(dialect)),
                "{dialect}"
            );
        }
    }
}

#[test]
fn a_pending_file_refuses_a_fullwidth_label_and_the_start_of_one_as_near_misses() {
    let scratch = Scratch::new();
    let call = json!({"questions": [
        {"id": "db", "text": "Which database?", "answer_type": "select",
         "options": ["SQLite", "PostgreSQL"], "allow_other": true},
        {"id": "channel", "text": "Which channel?", "answer_type": "select",
         "options": ["stable", "beta"]}
    ]});
    std::fs::write(scratch.path("call.json"), call.to_string()).unwrap();
    let pending = scratch.path("pending.json").display().to_string();
    let run = scratch.run_db(
        &["ask", "--stream", "s", "--pending", &pending, "call.json"],
        "",
    );
    assert_eq!(run.code, 5, "{}", run.stderr);
    let run = scratch.run_db(
        &[
            "answer",
            &pending,
            "--answers",
            r#"["ＳＱＬｉｔｅ", "bet"]"#,
        ],
        "",
    );
    assert_eq!(
        (run.code, run.stdout.as_str(), scratch.redact(&run.stderr)),
        (
            2,
            "",
            "askuser: answer 1 (question \"db\"): \"ＳＱＬｉｔｅ\" is not one of the options; did you mean \"SQLite\"? Write the label exactly, or {\"other\": \"ＳＱＬｉｔｅ\"} to give it as free text\n\
             askuser: answer 2 (question \"channel\"): \"bet\" is not one of the options; did you mean \"beta\"? The options: \"stable\", \"beta\"\n\
             Nothing was recorded. Fix the answers and run `askuser answer <tmp>/pending.json --db <tmp>/log.db` again.\n"
                .to_owned()
        )
    );
    // Written as the label, it is taken.
    let run = scratch.run_db(
        &["answer", &pending, "--answers", r#"["SQLite", "beta"]"#],
        "",
    );
    assert_eq!(
        (run.code, run.stderr.as_str()),
        (
            0,
            "askuser: recorded for inquiry \"call-1\" of stream \"s\":\n  Which database? — SQLite\n  Which channel? — beta\n"
        )
    );
}
