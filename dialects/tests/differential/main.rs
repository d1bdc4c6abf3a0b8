//! Differential tests: askuser's parser against the hosts' own validators, on
//! generated calls (`differential/generate.rs`, `differential/generate_mcp.rs`).
//! Each host's pinned current release, and an earlier one where it accepted other
//! calls or showed them otherwise (`docs/dialects.md`, "Versions"): Gemini CLI's
//! own `AskUserTool` (npm `@google/gemini-cli-core` 0.61.0, and 0.29.0 where a
//! question's `type` was optional), `OpenCode`'s zod schema (1.18.33's and
//! 1.1.16's, zod 4.1.8), Claude Code's `AskUserQuestion` input schema (2.1.332's,
//! transcribed from npm `@anthropic-ai/claude-code` 2.1.332's bundle, and
//! 2.0.77's, run with the zod 2.1.332 bundles, 4.6.2) and the MCP TypeScript SDK 1.32.2's
//! `ElicitRequestFormParamsSchema` run in node (`host-validators/validate.mjs`, one
//! process a dialect for all its calls); Codex's serde structs run here
//! (`differential/codex_host.rs`).
//!
//! For every call: when the host accepts it, askuser accepts it with the same
//! meaning (questions, headers, options, one pick or several, free text); when the
//! host refuses it, askuser refuses it. Every other outcome must be one of the
//! known disagreements (`differential/known.rs`), confirmed by the host agreeing
//! once the cause is removed.
//!
//! The node validators need `ASKUSER_TEST_HOSTS` (and, for `mcp`,
//! `ASKUSER_TEST_TS_SDK`), set by `scripts/test-env`, which the README's test
//! command sources; without them those tests say so loudly and pass.

mod codex_host;
mod generate;
mod generate_mcp;
mod known;
mod known_mcp;

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use askuser_core::AnswerType;
use askuser_dialects::{Call, Dialect};
use generate::{Host, Rng};
use known::{KNOWN, Known, MEANINGS};
use serde_json::{Value, json};

/// Calls generated per dialect.
const CALLS: usize = 2_000;

/// What a host does with a call.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// Shown to the person, with this meaning (see `validate.mjs`).
    Accept(Value),
    /// Refused, with the host's message.
    Refuse(String),
}

/// The directory of the installed node validators, or `None` (said loudly).
fn hosts_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("ASKUSER_TEST_HOSTS");
    if dir.is_none() {
        eprintln!(
            "\n*** SKIPPED: ASKUSER_TEST_HOSTS is not set, so the hosts' own validators \
                 cannot run. Source scripts/test-env first (the README's test command does). ***\n"
        );
    }
    dir.map(PathBuf::from)
}

/// The node harness's verdicts on `calls`, in one process run.
fn node_verdicts(dialect: &str, dir: &PathBuf, calls: &[Value]) -> Vec<Verdict> {
    if calls.is_empty() {
        return Vec::new();
    }
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/host-validators/validate.mjs"
    );
    let mut child = Command::new("node")
        .arg(script)
        .arg(dialect)
        .arg(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("node runs (install Node.js)");
    let mut input = String::new();
    for call in calls {
        input.push_str(&call.to_string());
        input.push('\n');
    }
    let mut stdin = child.stdin.take().expect("piped stdin");
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let output = child.wait_with_output().expect("the harness ends");
    writer
        .join()
        .expect("writer")
        .expect("the harness reads every call");
    assert!(output.status.success(), "validate.mjs {dialect} failed");
    let verdicts: Vec<Verdict> = String::from_utf8(output.stdout)
        .expect("UTF-8")
        .lines()
        .map(|line| {
            let value: Value = serde_json::from_str(line).expect("a JSON line");
            match (value.get("accept"), value.get("refuse")) {
                (Some(meaning), _) => Verdict::Accept(meaning.clone()),
                (None, Some(Value::String(why))) => Verdict::Refuse(why.clone()),
                _ => panic!("not a verdict: {line}"),
            }
        })
        .collect();
    assert_eq!(verdicts.len(), calls.len(), "one verdict a call");
    verdicts
}

/// What askuser makes of a call, in the harness's terms (`with_ids`: codex's ids).
fn askuser_meaning(call: &Call, with_ids: bool) -> Value {
    let questions: Vec<Value> = call
        .form()
        .questions()
        .iter()
        .enumerate()
        .map(|(i, q)| {
            let options = q.options.as_ref().map(|options| {
                options
                    .iter()
                    .map(|c| json!([c.label, c.description]))
                    .collect::<Vec<_>>()
            });
            let mut meaning = json!({
                "question": call.question_texts()[i], "header": q.header, "options": options,
                "multi": q.answer_type == AnswerType::MultiSelect, "other": q.allow_other,
            });
            if with_ids {
                meaning["id"] = json!(call.answer_keys()[i]);
            }
            meaning
        })
        .collect();
    json!({ "questions": questions })
}

/// What askuser makes of an elicitation, in the harness's `mcp` terms: each field's
/// name, question, kind, options, context and default.
fn mcp_meaning(call: &Call) -> Value {
    let questions: Vec<Value> = call
        .form()
        .questions()
        .iter()
        .map(|q| {
            let kind = match q.answer_type {
                AnswerType::Boolean => "boolean",
                AnswerType::Text => "text",
                AnswerType::Select => "select",
                AnswerType::MultiSelect => "multi",
                AnswerType::Schema => "schema",
            };
            let options = q.options.as_ref().map(|options| {
                options
                    .iter()
                    .map(|c| json!([c.label, c.description]))
                    .collect::<Vec<_>>()
            });
            json!({"id": q.id, "question": q.text, "kind": kind, "options": options,
                   "context": q.context, "default": q.default})
        })
        .collect();
    json!({ "questions": questions })
}

/// askuser's verdict on a call, in the same terms as the host's.
fn askuser_verdict(dialect: Dialect, call: &Value) -> Verdict {
    match dialect.parse(call) {
        Ok(parsed) if dialect == Dialect::Mcp => Verdict::Accept(mcp_meaning(&parsed)),
        Ok(parsed) => Verdict::Accept(askuser_meaning(&parsed, dialect == Dialect::Codex)),
        Err(rejection) => Verdict::Refuse(rejection.tool_error_text()),
    }
}

/// Whether two verdicts agree: both refuse, or both accept with the same meaning.
fn agree(host: &Verdict, askuser: &Verdict) -> bool {
    match (host, askuser) {
        (Verdict::Accept(a), Verdict::Accept(b)) => a == b,
        (Verdict::Refuse(_), Verdict::Refuse(_)) => true,
        _ => false,
    }
}

/// The tally of one dialect's run.
#[derive(Debug, Default)]
struct Report {
    both_accept: usize,
    /// Calls both accept, shown otherwise by the host for a known reason
    /// ([`MEANINGS`]: an earlier release).
    both_accept_known_meaning: usize,
    both_refuse: usize,
    explained: BTreeMap<String, usize>,
    unexplained: Vec<String>,
}

/// Compares askuser with `host_verdicts` on `calls`: agreements are tallied, and
/// each disagreement is explained by a known rule, confirmed on the fixed call.
fn compare(
    host: Host,
    dialect: Dialect,
    calls: &[Value],
    verdicts: &[Verdict],
    run_host: &dyn Fn(&[Value]) -> Vec<Verdict>,
) -> Report {
    let mut report = Report::default();
    let mut pending = Vec::new();
    for (call, verdict) in calls.iter().zip(verdicts) {
        let ours = askuser_verdict(dialect, call);
        if agree(verdict, &ours) {
            match ours {
                Verdict::Accept(_) => report.both_accept += 1,
                Verdict::Refuse(_) => report.both_refuse += 1,
            }
        } else {
            pending.push((call, verdict, ours));
        }
    }
    let mut fixed = Vec::new();
    for (call, verdict, ours) in &pending {
        let rules = known_rules(host, call, verdict, ours);
        let Some(first) = rules.first() else {
            report.unexplained.push(format!(
                "{call}\n  host:    {verdict:?}\n  askuser: {ours:?}"
            ));
            continue;
        };
        *report
            .explained
            .entry(format!("{} ({})", first.name, first.reason))
            .or_default() += 1;
        if matches!((verdict, ours), (Verdict::Accept(_), Verdict::Accept(_))) {
            report.both_accept_known_meaning += 1;
        }
        let mut call = (*call).clone();
        let mut confirmable = true;
        for rule in &rules {
            match rule.fix {
                Some(fix) => fix(&mut call),
                None => confirmable = false,
            }
        }
        if confirmable {
            fixed.push((call, first.name));
        }
    }
    let calls: Vec<Value> = fixed.iter().map(|(c, _)| c.clone()).collect();
    for ((call, rule), verdict) in fixed.iter().zip(run_host(&calls)) {
        let ours = askuser_verdict(dialect, call);
        if !agree(&verdict, &ours) {
            report.unexplained.push(format!(
                "{call} (fixed for \"{rule}\")\n  host:    {verdict:?}\n  askuser: {ours:?}"
            ));
        }
    }
    report
}

/// The known rules that explain a disagreement on `call`, the one that names it
/// first: where one side refuses, the [`KNOWN`] rules of that direction; where both
/// accept with different meanings, the [`MEANINGS`]. Empty when none names it.
/// Every other known rule that applies follows, so that the fixed call is free of
/// every known cause (a call may have one that each side refuses for).
fn known_rules(host: Host, call: &Value, verdict: &Verdict, ours: &Verdict) -> Vec<&'static Known> {
    let host_accepts = matches!(verdict, Verdict::Accept(_));
    let both_accept = host_accepts && matches!(ours, Verdict::Accept(_));
    let applies = |k: &&Known| k.hosts.contains(&host) && (k.applies)(call);
    let (naming, others): (Vec<&Known>, Vec<&Known>) = KNOWN
        .iter()
        .filter(applies)
        .partition(|k| !both_accept && k.host_accepts == host_accepts);
    let meanings = MEANINGS.iter().filter(applies);
    let mut rules: Vec<&Known> = if both_accept {
        meanings.collect()
    } else {
        naming.into_iter().chain(meanings).collect()
    };
    if !rules.is_empty() {
        rules.extend(others);
    }
    rules
}

/// Generates the calls, runs both sides, prints the figures and asserts that
/// every disagreement is a known one.
fn differential(host: Host, dialect: Dialect, run_host: &dyn Fn(&[Value]) -> Vec<Verdict>) {
    let mut rng = Rng::new(0x0A5C_0023 ^ dialect.name().len() as u64);
    let calls: Vec<Value> = (0..CALLS).map(|_| generate::call(host, &mut rng)).collect();
    let verdicts = run_host(&calls);
    let report = compare(host, dialect, &calls, &verdicts, run_host);
    eprintln!(
        "{dialect} ({host:?}): {CALLS} calls; both accept with the same meaning: {}, \
         with a known difference in meaning: {}, both refuse: {}, \
         known disagreements: {:#?}, unexplained: {}",
        report.both_accept,
        report.both_accept_known_meaning,
        report.both_refuse,
        report.explained,
        report.unexplained.len()
    );
    assert!(
        report.both_accept + report.both_accept_known_meaning >= CALLS / 5
            && report.both_accept >= CALLS / 20
            && report.both_refuse >= CALLS / 10,
        "the generator covers both sides: {report:?}"
    );
    assert_eq!(
        report.unexplained,
        Vec::<String>::new(),
        "{dialect}: disagreements with the host that no known rule explains"
    );
}

#[test]
fn gemini_agrees_with_gemini_cli_ask_user_tool() {
    let Some(dir) = hosts_dir() else { return };
    differential(Host::Gemini, Dialect::Gemini, &|calls| {
        node_verdicts("gemini", &dir, calls)
    });
}

#[test]
fn gemini_agrees_with_gemini_cli_0_29_ask_user_tool() {
    let Some(dir) = hosts_dir() else { return };
    differential(Host::GeminiEarlier, Dialect::Gemini, &|calls| {
        node_verdicts("gemini-0.29", &dir, calls)
    });
}

#[test]
fn opencode_agrees_with_opencode_question_schema() {
    let Some(dir) = hosts_dir() else { return };
    differential(Host::OpenCode, Dialect::OpenCode, &|calls| {
        node_verdicts("opencode", &dir, calls)
    });
}

#[test]
fn opencode_agrees_with_opencode_1_1_question_schema() {
    let Some(dir) = hosts_dir() else { return };
    differential(Host::OpenCodeEarlier, Dialect::OpenCode, &|calls| {
        node_verdicts("opencode-1.1", &dir, calls)
    });
}

#[test]
fn codex_agrees_with_codex_request_user_input_structs() {
    differential(Host::Codex, Dialect::Codex, &|calls| {
        calls.iter().map(codex_host::validate).collect()
    });
}

#[test]
fn claude_agrees_with_claude_code_ask_user_question_schema() {
    let Some(dir) = hosts_dir() else { return };
    differential(Host::Claude, Dialect::Claude, &|calls| {
        node_verdicts("claude", &dir, calls)
    });
}

#[test]
fn claude_agrees_with_claude_code_2_0_ask_user_question_schema() {
    let Some(dir) = hosts_dir() else { return };
    differential(Host::ClaudeEarlier, Dialect::Claude, &|calls| {
        node_verdicts("claude-2.0", &dir, calls)
    });
}

#[test]
fn mcp_agrees_with_the_mcp_typescript_sdk_1_17_elicitation_schema() {
    let Some(dir) = hosts_dir() else { return };
    differential(Host::McpEarlier, Dialect::Mcp, &|calls| {
        node_verdicts("mcp-1.17", &dir, calls)
    });
}

#[test]
fn mcp_agrees_with_the_mcp_typescript_sdk_elicitation_schema() {
    let Some(dir) = std::env::var_os("ASKUSER_TEST_TS_SDK").map(PathBuf::from) else {
        eprintln!(
            "\n*** SKIPPED: ASKUSER_TEST_TS_SDK is not set, so the MCP TypeScript SDK's \
                 elicitation schema cannot run. Source scripts/test-env first. ***\n"
        );
        return;
    };
    differential(Host::Mcp, Dialect::Mcp, &|calls| {
        node_verdicts("mcp", &dir, calls)
    });
}
