//! Calls in each host's real shapes, and the tool result rendered as the host
//! renders it. Every case names its source in the host's repository.

mod common;

use askuser_dialects::{DetectError, Dialect, ToolResult};
use common::{Step, parse, walk};
use serde_json::{Value, json};

/// Walks a call and gives the result as one snapshot-able value.
fn outcome(dialect: Dialect, arguments: &Value, steps: Vec<Step>) -> Value {
    match walk(&parse(dialect, arguments), steps) {
        Some(ToolResult::Success(value)) => json!({ "success": value }),
        Some(ToolResult::Text(text)) => json!({ "text": text }),
        Some(ToolResult::Error(text)) => json!({ "error": text }),
        None => json!("end turn"),
    }
}

fn answer(value: Value) -> Step {
    Step::Answer(value)
}

fn refusal(dialect: Dialect, arguments: &Value) -> String {
    dialect.parse(arguments).unwrap_err().tool_error_text()
}

#[test]
fn opencode_question_tool() {
    // anomalyco/opencode packages/opencode/src/question/index.ts (Question.Info) and
    // src/tool/question.ts (the output text; "Unanswered"; RejectedError).
    let call = json!({"questions": [
        {"question": "Which database?", "header": "Database",
         "options": [{"label": "PostgreSQL (Recommended)", "description": "Relational"},
                     {"label": "SQLite", "description": "File-based"}]},
        {"question": "Which features?", "header": "Features", "multiple": true,
         "options": [{"label": "Auth", "description": "Login"}, {"label": "API", "description": "REST"},
                     {"label": "Admin", "description": "Back office"}]},
        {"question": "Anything else?", "header": "Notes", "options": [], "custom": false}]});
    insta::assert_json_snapshot!(
        "opencode_answers",
        outcome(
            Dialect::OpenCode,
            &call,
            vec![
                answer(json!("SQLite")),
                answer(json!(["Auth", "Admin", "GraphQL"])),
                answer(json!("")),
            ]
        )
    );
    insta::assert_json_snapshot!(
        "opencode_dismissed",
        outcome(Dialect::OpenCode, &call, vec![Step::Reply])
    );
    // The header is required by Question.Info; options too.
    insta::assert_snapshot!(
        "opencode_refused",
        refusal(
            Dialect::OpenCode,
            &json!({"questions": [{"question": "Which?"}]})
        )
    );
}

#[test]
fn codex_request_user_input() {
    // openai/codex codex-rs/protocol/src/request_user_input.rs (args and response),
    // codex-rs/core/src/tools/handlers/request_user_input.rs (the refusal and the
    // cancellation), codex-rs/tui/src/bottom_pane/request_user_input/mod.rs
    // ("user_note: " before typed text).
    let call = json!({"questions": [
        {"id": "db_choice", "header": "Database", "question": "Which database should we use?",
         "options": [{"label": "Postgres (Recommended)", "description": "Battle-tested."},
                     {"label": "SQLite", "description": "Zero setup."}]},
        {"id": "deploy_target", "header": "Deploy", "question": "Where do we deploy?",
         "isOther": false, "isSecret": false,
         "options": [{"label": "Fly.io", "description": "Simple."}]}]});
    insta::assert_json_snapshot!(
        "codex_answers",
        outcome(
            Dialect::Codex,
            &call,
            vec![
                answer(json!("Postgres (Recommended)")),
                answer(json!("our own rack")),
            ]
        )
    );
    insta::assert_json_snapshot!(
        "codex_cancelled",
        outcome(Dialect::Codex, &call, vec![Step::Reply])
    );
    insta::assert_snapshot!(
        "codex_refused",
        refusal(
            Dialect::Codex,
            &json!({"questions": [
            {"id": "a", "header": "A", "question": "Which?"},
            {"header": "B", "question": "Which?", "options": [{"label": "x"}]}]})
        )
    );
}

#[test]
fn gemini_ask_user() {
    // google-gemini/gemini-cli docs/tools/ask-user.md (the three examples),
    // packages/core/src/tools/ask-user.ts (result JSON keyed by position; dismissal
    // text; validateToolParamValues), packages/cli/src/ui/components/AskUserDialog.tsx
    // (", " between picks; Yes/No for yesno).
    let call = json!({"questions": [
        {"header": "Database", "question": "Which database would you like to use?", "type": "choice",
         "options": [{"label": "PostgreSQL", "description": "Powerful, open source object-relational database system."},
                     {"label": "SQLite", "description": "C-library that implements a SQL database engine."}]},
        {"header": "Project Name", "question": "What is the name of your new project?", "type": "text",
         "placeholder": "for example, my-awesome-app"},
        {"header": "Deploy", "question": "Do you want to deploy the application now?", "type": "yesno"},
        {"header": "Features", "question": "Which features?\\nPick any.", "type": "choice", "multiSelect": true,
         "options": [{"label": "Auth", "description": "Login"}, {"label": "API", "description": "REST"}]}]});
    insta::assert_json_snapshot!(
        "gemini_answers",
        outcome(
            Dialect::Gemini,
            &call,
            vec![
                answer(json!("SQLite")),
                answer(json!("my-awesome-app")),
                answer(json!("Yes")),
                answer(json!(["Auth", "API"])),
            ]
        )
    );
    insta::assert_json_snapshot!(
        "gemini_dismissed",
        outcome(Dialect::Gemini, &call, vec![Step::Reply])
    );
    insta::assert_snapshot!(
        "gemini_refused",
        refusal(
            Dialect::Gemini,
            &json!({"questions": [
            {"header": "A", "question": "Which?", "type": "choice", "options": [{"label": "x", "description": ""}]},
            {"header": "B", "question": "Name?"},
            {"header": "C", "question": "Which?", "type": "choice",
             "options": [{"label": " ", "description": "d"}, {"label": "y"}]}]})
        )
    );
}

#[test]
fn gemini_ask_user_from_gemini_cli_0_29() {
    // Real calls of Gemini CLI core 0.29.0, where a question's `type` was optional
    // and defaulted to a choice: its own tests (npm @google/gemini-cli-core 0.29.0,
    // dist/src/tools/ask-user.test.js: "should return user answers after
    // confirmation", "should handle cancellation", "should return error if type is
    // omitted and options missing (defaults to choice)"). The result is the shape
    // 0.29.0 returns (`{"answers": {"0": ...}}`, the dismissal text), the same as
    // 0.61.0's; picks joined with ", " (its AskUserDialog's buildAnswerString).
    let proceed = json!({"questions": [
        {"question": "How should we proceed with this task?", "header": "Approach",
         "options": [
            {"label": "Quick fix (Recommended)",
             "description": "Apply the most direct solution to resolve the immediate issue."},
            {"label": "Comprehensive refactor",
             "description": "Restructure the affected code for better long-term maintainability."}],
         "multiSelect": false}]});
    let docs = json!({"questions": [
        {"question": "Which sections of the documentation should be updated?", "header": "Docs",
         "options": [
            {"label": "User Guide", "description": "Update the main user-facing documentation."},
            {"label": "API Reference", "description": "Update the detailed API documentation."}],
         "multiSelect": true}]});
    insta::assert_json_snapshot!(
        "gemini_0_29_answers",
        json!([
            outcome(
                Dialect::Gemini,
                &proceed,
                vec![answer(json!("Quick fix (Recommended)"))]
            ),
            outcome(
                Dialect::Gemini,
                &docs,
                vec![answer(json!(["API Reference", "User Guide"]))]
            ),
            outcome(Dialect::Gemini, &docs, vec![Step::Reply]),
        ])
    );
    insta::assert_snapshot!(
        "gemini_0_29_refused",
        refusal(
            Dialect::Gemini,
            &json!({"questions": [{"question": "Pick one?", "header": "Choice"}]})
        )
    );
}

#[test]
fn mcp_elicitation_from_a_2025_06_18_server() {
    // The 2025-06-18 specification's own example (server/elicitation, "Requesting
    // structured data"): no titles, a number field, `required` a subset; the
    // result is the `ElicitResult` that version's example shows. The 2025-06-18
    // SDK (npm @modelcontextprotocol/sdk 1.17.5) parses it as the current one does.
    let call = json!({"message": "Please provide your contact information",
        "requestedSchema": {"type": "object", "properties": {
            "name": {"type": "string", "description": "Your full name"},
            "email": {"type": "string", "format": "email", "description": "Your email address"},
            "age": {"type": "number", "minimum": 18, "description": "Your age"}},
        "required": ["name", "email"]}});
    insta::assert_json_snapshot!(
        "mcp_2025_06_18_answers",
        json!([
            outcome(
                Dialect::Mcp,
                &call,
                vec![
                    answer(json!("Monalisa Octocat")),
                    answer(json!("octocat@github.com")),
                    answer(json!(30)),
                ]
            ),
            outcome(Dialect::Mcp, &call, vec![Step::Reply]),
        ])
    );
}

#[test]
fn claude_accepts_what_claude_code_shows() {
    // Calls real models sent to Claude Code and Claude Code showed (issue 11): a
    // 15-character header, a single option, `preview` next to `description`, unknown
    // top-level fields, markdown and line breaks, Arabic and Korean, several
    // "(Recommended)", options duplicating the automatic free text.
    let call = json!({"autoResolutionMs": 30000, "questions": [
        {"question": "**Plan:**\n1. unplug\n2. re-pair\n\nRe-pair the YubiKey now?", "header": "Re-pair YubiKey",
         "multiSelect": false,
         "options": [{"label": "Yes (Recommended)", "description": "Takes a minute", "preview": "```\nykman\n```"}]},
        {"question": "أي قاعدة بيانات؟ 어떤 데이터베이스?", "header": "قاعدة / 데이터", "multiSelect": true,
         "options": [{"label": "PostgreSQL (Recommended)"}, {"label": "SQLite (Recommended)"},
                     {"label": "All of the above"}, {"label": "Other"}]}]});
    insta::assert_json_snapshot!(
        "claude_edge_shapes",
        outcome(
            Dialect::Claude,
            &call,
            vec![
                answer(json!("Yes (Recommended)")),
                answer(json!(["All of the above", "Other", "MySQL"])),
            ]
        )
    );
}

#[test]
fn pi_accepts_unknown_fields_and_long_headers() {
    // The pi spec's shape, with the edge shapes of issue 11.
    let call = json!({"questions": [{"question": "Which?\nPick one.", "header": "A header of 27 characters.",
        "options": [{"label": "Only", "description": "d", "preview": "p"}], "extra": 1}], "autoResolutionMs": 5});
    insta::assert_json_snapshot!(
        "pi_edge_shapes",
        outcome(Dialect::Pi, &call, vec![answer(json!("Only"))])
    );
}

#[test]
fn the_dialect_is_read_from_the_call() {
    let cases = [
        (
            json!({"question": "Ok?", "answer_type": "boolean"}),
            Ok(Dialect::Jp),
        ),
        (
            json!({"questions": [{"id": "a", "text": "Ok?", "answer_type": "boolean"}]}),
            Ok(Dialect::JpForm),
        ),
        (
            json!({"questions": [{"question": "Which?", "header": "H", "multiSelect": false,
                "options": [{"label": "a"}, {"label": "b"}]}]}),
            Ok(Dialect::Claude),
        ),
        (
            json!({"questions": [{"question": "Name?"}], "metadata": {"source": "x"}}),
            Ok(Dialect::Pi),
        ),
        (
            json!({"questions": [{"question": "Name?"}]}),
            Ok(Dialect::Pi),
        ),
        (
            json!({"questions": [{"question": "Which?", "header": "H", "multiple": true,
                "options": [{"label": "a", "description": "d"}]}]}),
            Ok(Dialect::OpenCode),
        ),
        (
            json!({"questions": [{"id": "x", "question": "Which?", "header": "H",
                "options": [{"label": "a", "description": "d"}]}]}),
            Ok(Dialect::Codex),
        ),
        (
            json!({"questions": [{"question": "Deploy?", "header": "H", "type": "yesno"}]}),
            Ok(Dialect::Gemini),
        ),
        (
            json!({"questions": [{"question": "Which?", "header": "H",
                "options": [{"label": "a", "description": "d"}]}]}),
            Err(DetectError::Ambiguous {
                candidates: vec![Dialect::Claude, Dialect::OpenCode],
            }),
        ),
        // Gemini CLI 0.29.0's calls without `type`: read as gemini where they use
        // its own fields only, otherwise as the dialect they read the same in.
        (
            json!({"questions": [{"question": "Name?", "header": "H", "placeholder": "my-app",
                "options": [{"label": "a", "description": "d"}, {"label": "b", "description": "d"}]}]}),
            Ok(Dialect::Gemini),
        ),
        (
            json!({"questions": [{"question": "Which?", "header": "H", "multiSelect": true,
                "options": [{"label": "a", "description": "d"}, {"label": "b", "description": "d"}]}]}),
            Ok(Dialect::Claude),
        ),
        (
            json!({"questions": [{"question": "Deploy?", "header": "H", "type": "maybe"}]}),
            Err(DetectError::NoMatch {
                closest: Some(Dialect::Gemini),
            }),
        ),
        (json!(7), Err(DetectError::NoMatch { closest: None })),
    ];
    for (call, expected) in cases {
        assert_eq!(Dialect::detect(&call), expected, "{call}");
    }
    let claude = json!({"questions": [{"question": "Which?", "header": "H", "multiSelect": true,
        "options": [{"label": "a"}]}]});
    assert_eq!(Dialect::JpForm.suggest(&claude), Some(Dialect::Claude));
    assert_eq!(Dialect::Claude.suggest(&claude), None);
    assert_eq!(
        DetectError::Ambiguous {
            candidates: vec![Dialect::Claude, Dialect::OpenCode]
        }
        .to_string(),
        "the call fits several dialects (claude, opencode); name the one it was made in"
    );
}
