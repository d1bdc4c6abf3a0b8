//! A corpus of malformed tool calls across the dialects: each is rejected, never
//! with a panic, and every problem names the offending field by its path. The exact
//! tool error texts are snapshotted in `snapshots/malformed__tool_error_texts.snap`.

use std::fmt::Write as _;

use askuser_dialects::Dialect::{self, Claude, Jp, JpForm, Pi};
use serde_json::{Value, json};

struct Case {
    name: &'static str,
    dialect: Dialect,
    arguments: Value,
    paths: &'static [&'static str],
}

fn case(
    name: &'static str,
    dialect: Dialect,
    arguments: Value,
    paths: &'static [&'static str],
) -> Case {
    Case {
        name,
        dialect,
        arguments,
        paths,
    }
}

fn two_options() -> Value {
    json!([{"label": "a"}, {"label": "b"}])
}

#[allow(clippy::too_many_lines)] // a table
fn corpus() -> Vec<Case> {
    let ok = two_options();
    vec![
        // ---- jp ----
        case("jp: arguments not an object", Jp, json!("Proceed?"), &[""]),
        case("jp: question missing", Jp, json!({}), &["/question"]),
        case(
            "jp: question empty",
            Jp,
            json!({"question": ""}),
            &["/question"],
        ),
        case(
            "jp: question blank",
            Jp,
            json!({"question": "   "}),
            &["/question"],
        ),
        case(
            "jp: question not a string",
            Jp,
            json!({"question": 5}),
            &["/question"],
        ),
        case(
            "jp: newline in question",
            Jp,
            json!({"question": "Apply?\nIt is risky."}),
            &["/question"],
        ),
        case(
            "jp: select without options",
            Jp,
            json!({"question": "Which?", "answer_type": "select"}),
            &["/options"],
        ),
        case(
            "jp: select with empty options",
            Jp,
            json!({"question": "Which?", "answer_type": "select", "options": []}),
            &["/options"],
        ),
        case(
            "jp: options on text",
            Jp,
            json!({"question": "Name?", "options": ["a", "b"]}),
            &["/options"],
        ),
        case(
            "jp: options on boolean",
            Jp,
            json!({"question": "Ok?", "answer_type": "boolean", "options": ["yes", "no"]}),
            &["/options"],
        ),
        case(
            "jp: options not a list",
            Jp,
            json!({"question": "Which?", "answer_type": "select", "options": "a, b"}),
            &["/options"],
        ),
        case(
            "jp: option not a string",
            Jp,
            json!({"question": "Which?", "answer_type": "select", "options": ["a", 2]}),
            &["/options/1"],
        ),
        case(
            "jp: duplicate option",
            Jp,
            json!({"question": "Which?", "answer_type": "select", "options": ["a", "a"]}),
            &["/options/1"],
        ),
        case(
            "jp: empty option",
            Jp,
            json!({"question": "Which?", "answer_type": "select", "options": ["a", ""]}),
            &["/options/1"],
        ),
        case(
            "jp: string default on boolean",
            Jp,
            json!({"question": "Ok?", "answer_type": "boolean", "default": "yes"}),
            &["/default"],
        ),
        case(
            "jp: boolean default on text",
            Jp,
            json!({"question": "Name?", "default": true}),
            &["/default"],
        ),
        case(
            "jp: number default on select",
            Jp,
            json!({"question": "Which?", "answer_type": "select", "options": ["a"], "default": 1}),
            &["/default"],
        ),
        case(
            "jp: default not among options",
            Jp,
            json!({"question": "Which?", "answer_type": "select", "options": ["backup", "abort"], "default": "overwrite"}),
            &["/default"],
        ),
        case(
            "jp: multi_select is not a jp type",
            Jp,
            json!({"question": "Which?", "answer_type": "multi_select", "options": ["a"]}),
            &["/answer_type"],
        ),
        case(
            "jp: answer_type not a string",
            Jp,
            json!({"question": "Ok?", "answer_type": true}),
            &["/answer_type"],
        ),
        case(
            "jp: context not a string",
            Jp,
            json!({"question": "Ok?", "context": ["line"]}),
            &["/context"],
        ),
        case(
            "jp: unknown field",
            Jp,
            json!({"question": "Ok?", "timeout": 30}),
            &["/timeout"],
        ),
        case(
            "jp: jp-form arguments",
            Jp,
            json!({"questions": []}),
            &["/question", "/questions"],
        ),
        case(
            "jp: several problems at once",
            Jp,
            json!({"question": "Apply?\nNow?", "answer_type": "text", "options": ["a"], "default": false}),
            &["/question", "/options"],
        ),
        // ---- jp-form ----
        case("jp-form: arguments not an object", JpForm, json!([]), &[""]),
        case(
            "jp-form: questions missing",
            JpForm,
            json!({}),
            &["/questions"],
        ),
        case(
            "jp-form: questions not a list",
            JpForm,
            json!({"questions": {"id": "a"}}),
            &["/questions"],
        ),
        case(
            "jp-form: no questions",
            JpForm,
            json!({"questions": []}),
            &["/questions"],
        ),
        case(
            "jp-form: question not an object",
            JpForm,
            json!({"questions": ["Apply?"]}),
            &["/questions/0"],
        ),
        case(
            "jp-form: id missing",
            JpForm,
            json!({"questions": [{"text": "Ok?", "answer_type": "boolean"}]}),
            &["/questions/0/id"],
        ),
        case(
            "jp-form: text missing",
            JpForm,
            json!({"questions": [{"id": "ok", "answer_type": "boolean"}]}),
            &["/questions/0/text"],
        ),
        case(
            "jp-form: answer_type missing",
            JpForm,
            json!({"questions": [{"id": "ok", "text": "Ok?"}]}),
            &["/questions/0/answer_type"],
        ),
        case(
            "jp-form: unknown answer_type",
            JpForm,
            json!({"questions": [{"id": "ok", "text": "Ok?", "answer_type": "yes_no"}]}),
            &["/questions/0/answer_type"],
        ),
        case(
            "jp-form: duplicate ids",
            JpForm,
            json!({"questions": [{"id": "a", "text": "A?", "answer_type": "text"}, {"id": "a", "text": "B?", "answer_type": "text"}]}),
            &["/questions/1/id"],
        ),
        case(
            "jp-form: multi-line text",
            JpForm,
            json!({"questions": [{"id": "a", "text": "A?\nB?", "answer_type": "text"}]}),
            &["/questions/0/text"],
        ),
        case(
            "jp-form: select without options",
            JpForm,
            json!({"questions": [{"id": "a", "text": "A?", "answer_type": "select"}]}),
            &["/questions/0/options"],
        ),
        case(
            "jp-form: options on text",
            JpForm,
            json!({"questions": [{"id": "a", "text": "A?", "answer_type": "text", "options": ["x"]}]}),
            &["/questions/0/options"],
        ),
        case(
            "jp-form: schema type without schema",
            JpForm,
            json!({"questions": [{"id": "a", "text": "A?", "answer_type": "schema"}]}),
            &["/questions/0/schema"],
        ),
        case(
            "jp-form: schema on text",
            JpForm,
            json!({"questions": [{"id": "a", "text": "A?", "answer_type": "text", "schema": {"type": "string"}}]}),
            &["/questions/0/schema"],
        ),
        case(
            "jp-form: schema with a remote $ref",
            JpForm,
            json!({"questions": [{"id": "a", "text": "A?", "answer_type": "schema", "schema": {"$ref": "https://example.com/s.json"}}]}),
            &["/questions/0/schema/$ref"],
        ),
        case(
            "jp-form: when names a later question",
            JpForm,
            json!({"questions": [{"id": "a", "text": "A?", "answer_type": "text", "when": {"question_id": "b", "equals": "x"}}, {"id": "b", "text": "B?", "answer_type": "text"}]}),
            &["/questions/0/when/question_id"],
        ),
        case(
            "jp-form: when names no question",
            JpForm,
            json!({"questions": [{"id": "a", "text": "A?", "answer_type": "boolean"}, {"id": "b", "text": "B?", "answer_type": "text", "when": {"question_id": "c", "equals": true}}]}),
            &["/questions/1/when/question_id"],
        ),
        case(
            "jp-form: when without an operator",
            JpForm,
            json!({"questions": [{"id": "a", "text": "A?", "answer_type": "boolean"}, {"id": "b", "text": "B?", "answer_type": "text", "when": {"question_id": "a"}}]}),
            &["/questions/1/when"],
        ),
        case(
            "jp-form: default not among options",
            JpForm,
            json!({"questions": [{"id": "a", "text": "A?", "answer_type": "select", "options": ["x", "y"], "default": "z"}]}),
            &["/questions/0/default"],
        ),
        case(
            "jp-form: multi_select default not a list",
            JpForm,
            json!({"questions": [{"id": "a", "text": "A?", "answer_type": "multi_select", "options": ["x", "y"], "default": "x"}]}),
            &["/questions/0/default"],
        ),
        case(
            "jp-form: unknown top-level field",
            JpForm,
            json!({"questions": [{"id": "a", "text": "A?", "answer_type": "text"}], "title": "Setup"}),
            &["/title"],
        ),
        case(
            "jp-form: claude-style question",
            JpForm,
            json!({"questions": [{"id": "a", "question": "A?", "answer_type": "text"}]}),
            &["/questions/0/question", "/questions/0/text"],
        ),
        // ---- claude ----
        case(
            "claude: arguments not an object",
            Claude,
            json!(null),
            &[""],
        ),
        case(
            "claude: questions missing",
            Claude,
            json!({"question": "Which?"}),
            &["/questions"],
        ),
        case(
            "claude: questions not a list",
            Claude,
            json!({"questions": "Which?"}),
            &["/questions"],
        ),
        case(
            "claude: no questions",
            Claude,
            json!({"questions": []}),
            &["/questions"],
        ),
        case(
            "claude: five questions",
            Claude,
            json!({"questions": [
            {"question": "1?", "options": ok}, {"question": "2?", "options": ok},
            {"question": "3?", "options": ok}, {"question": "4?", "options": ok},
            {"question": "5?", "options": ok}]}),
            &["/questions"],
        ),
        case(
            "claude: question not an object",
            Claude,
            json!({"questions": ["Which?"]}),
            &["/questions/0"],
        ),
        case(
            "claude: question text missing",
            Claude,
            json!({"questions": [{"header": "DB", "options": ok}]}),
            &["/questions/0/question"],
        ),
        case(
            "claude: question text not a string",
            Claude,
            json!({"questions": [{"question": ["Which?"], "options": ok}]}),
            &["/questions/0/question"],
        ),
        case(
            "claude: question text empty",
            Claude,
            json!({"questions": [{"question": "", "options": ok}]}),
            &["/questions/0/question"],
        ),
        case(
            "claude: options missing",
            Claude,
            json!({"questions": [{"question": "Which?"}]}),
            &["/questions/0/options"],
        ),
        case(
            "claude: options not a list",
            Claude,
            json!({"questions": [{"question": "Which?", "options": {"label": "a"}}]}),
            &["/questions/0/options"],
        ),
        case(
            "claude: no options",
            Claude,
            json!({"questions": [{"question": "Which?", "options": []}]}),
            &["/questions/0/options"],
        ),
        case(
            "claude: five options",
            Claude,
            json!({"questions": [{"question": "Which?", "options": [{"label": "a"}, {"label": "b"}, {"label": "c"}, {"label": "d"}, {"label": "e"}]}]}),
            &["/questions/0/options"],
        ),
        case(
            "claude: header not a string",
            Claude,
            json!({"questions": [{"question": "Which?", "header": 7, "options": ok}]}),
            &["/questions/0/header"],
        ),
        case(
            "claude: repeated question",
            Claude,
            json!({"questions": [{"question": "Which?", "options": ok}, {"question": "Which?", "options": ok}]}),
            &["/questions/1/question"],
        ),
        case(
            "claude: repeated label",
            Claude,
            json!({"questions": [{"question": "Which?", "options": [{"label": "a"}, {"label": "a"}]}]}),
            &["/questions/0/options/1/label"],
        ),
        case(
            "claude: label missing",
            Claude,
            json!({"questions": [{"question": "Which?", "options": [{"description": "first"}, {"label": "b"}]}]}),
            &["/questions/0/options/0/label"],
        ),
        case(
            "claude: label empty",
            Claude,
            json!({"questions": [{"question": "Which?", "options": [{"label": " "}, {"label": "b"}]}]}),
            &["/questions/0/options/0/label"],
        ),
        case(
            "claude: option not an object",
            Claude,
            json!({"questions": [{"question": "Which?", "options": [{"label": "a"}, 2]}]}),
            &["/questions/0/options/1"],
        ),
        case(
            "claude: description not a string",
            Claude,
            json!({"questions": [{"question": "Which?", "options": [{"label": "a", "description": 1}, {"label": "b"}]}]}),
            &["/questions/0/options/0/description"],
        ),
        case(
            "claude: multiSelect not a boolean",
            Claude,
            json!({"questions": [{"question": "Which?", "options": ok, "multiSelect": "yes"}]}),
            &["/questions/0/multiSelect"],
        ),
        case(
            "claude: problems in two questions",
            Claude,
            json!({"questions": [
            {"question": "Which?", "header": 12, "options": ok},
            {"question": "Which?", "options": []}]}),
            &[
                "/questions/0/header",
                "/questions/1/question",
                "/questions/1/options",
            ],
        ),
        // ---- pi ----
        case("pi: arguments not an object", Pi, json!(42), &[""]),
        case(
            "pi: questions missing",
            Pi,
            json!({"metadata": {}}),
            &["/questions"],
        ),
        case(
            "pi: questions not a list",
            Pi,
            json!({"questions": {}}),
            &["/questions"],
        ),
        case(
            "pi: no questions",
            Pi,
            json!({"questions": []}),
            &["/questions"],
        ),
        case(
            "pi: question not an object",
            Pi,
            json!({"questions": [null]}),
            &["/questions/0"],
        ),
        case(
            "pi: question text missing",
            Pi,
            json!({"questions": [{"header": "Setup"}]}),
            &["/questions/0/question"],
        ),
        case(
            "pi: question text blank",
            Pi,
            json!({"questions": [{"question": "\n"}]}),
            &["/questions/0/question"],
        ),
        case(
            "pi: header not a string",
            Pi,
            json!({"questions": [{"question": "Name?", "header": false}]}),
            &["/questions/0/header"],
        ),
        case(
            "pi: options not a list",
            Pi,
            json!({"questions": [{"question": "Which?", "options": "a|b"}]}),
            &["/questions/0/options"],
        ),
        case(
            "pi: option label missing",
            Pi,
            json!({"questions": [{"question": "Which?", "options": [{"description": "x"}]}]}),
            &["/questions/0/options/0/label"],
        ),
        case(
            "pi: repeated label",
            Pi,
            json!({"questions": [{"question": "Which?", "options": [{"label": "SQLite"}, {"label": "SQLite"}]}]}),
            &["/questions/0/options/1/label"],
        ),
        case(
            "pi: label with a newline",
            Pi,
            json!({"questions": [{"question": "Which?", "options": [{"label": "a\nb"}]}]}),
            &["/questions/0/options/0/label"],
        ),
        case(
            "pi: multiSelect not a boolean",
            Pi,
            json!({"questions": [{"question": "Which?", "options": [{"label": "a"}], "multiSelect": 1}]}),
            &["/questions/0/multiSelect"],
        ),
        case(
            "pi: metadata not an object",
            Pi,
            json!({"questions": [{"question": "Name?"}], "metadata": "setup"}),
            &["/metadata"],
        ),
        case(
            "pi: too many questions",
            Pi,
            json!({"questions": (0..65).map(|i| json!({"question": format!("Q{i}?")})).collect::<Vec<_>>()}),
            &["/questions"],
        ),
    ]
}

#[test]
fn every_malformed_call_is_rejected_naming_its_fields() {
    let corpus = corpus();
    assert!(corpus.len() >= 60, "the corpus has {} calls", corpus.len());
    let mut texts = String::new();
    for case in &corpus {
        let Err(rejection) = case.dialect.parse(&case.arguments) else {
            panic!("{}: accepted", case.name)
        };
        assert_eq!(rejection.paths(), case.paths, "{}", case.name);
        assert_eq!(rejection.tool, case.dialect.tool_name(), "{}", case.name);
        let _ = write!(
            texts,
            "## {}\n{}\n\n",
            case.name,
            rejection.tool_error_text()
        );
    }
    insta::assert_snapshot!("tool_error_texts", texts);
}

#[test]
fn unknown_fields_are_ignored_for_claude_and_pi() {
    let claude = json!({"questions": [{"question": "Which?", "header": "DB", "options": [
        {"label": "a", "preview": "…"}, {"label": "b"}], "multiSelect": false, "id": "x"}],
        "answers": {}, "metadata": {"source": "x"}});
    assert!(Claude.parse(&claude).is_ok());
    let pi = json!({"questions": [{"question": "Name?", "placeholder": "svc"}],
        "metadata": {"source": "x"}, "timeoutMs": 5});
    assert!(Pi.parse(&pi).is_ok());
}

#[test]
fn unknown_fields_are_reported_for_jp_and_jp_form() {
    let jp = Jp.parse(&json!({"question": "Ok?", "answer_type": "boolean", "exclusive": true}));
    assert_eq!(
        jp.unwrap_err().tool_error_text(),
        "ask_user: the call was not run. Fix this problem and call the tool again:\n\
         - /exclusive: unknown field `exclusive`; remove it (known fields: question, context, answer_type, options, default)"
    );
    let form = JpForm.parse(&json!({"questions": [
        {"id": "a", "text": "A?", "answer_type": "text", "placeholder": "x"}]}));
    assert_eq!(
        form.unwrap_err().tool_error_text(),
        "ask_user: the call was not run. Fix this problem and call the tool again:\n\
         - /questions/0/placeholder: unknown field `placeholder`; remove it (known fields: id, text, context, header, answer_type, options, allow_other, schema, default, when)"
    );
}
