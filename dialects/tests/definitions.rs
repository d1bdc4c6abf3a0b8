//! Tool definitions: snapshotted in the Anthropic, `OpenAI` and MCP shapes, valid as
//! JSON Schema, provider-friendly, and accepting the seed documents' calls.

use askuser_dialects::{Dialect, Provider, definition, definition::parameters};
use serde_json::{Value, json};

#[test]
fn definitions_in_every_provider_shape() {
    for dialect in Dialect::ALL {
        for provider in Provider::ALL {
            insta::assert_json_snapshot!(
                format!("{}_{}", provider.name(), dialect.name()),
                definition(dialect, provider)
            );
        }
    }
}

#[test]
fn the_three_shapes_carry_the_same_name_description_and_schema() {
    for dialect in Dialect::ALL {
        let anthropic = definition(dialect, Provider::Anthropic);
        let openai = definition(dialect, Provider::OpenAi);
        let mcp = definition(dialect, Provider::Mcp);
        assert_eq!(anthropic["name"], dialect.tool_name());
        assert_eq!(openai["type"], "function");
        assert_eq!(openai["function"]["name"], anthropic["name"]);
        assert_eq!(mcp["name"], anthropic["name"]);
        assert_eq!(openai["function"]["description"], anthropic["description"]);
        assert_eq!(mcp["description"], anthropic["description"]);
        assert_eq!(anthropic["input_schema"], parameters(dialect));
        let strict = openai["function"]["strict"] == true;
        if !strict {
            assert_eq!(openai["function"]["parameters"], parameters(dialect));
        }
        assert_eq!(mcp["inputSchema"], parameters(dialect));
    }
}

#[test]
fn parameter_schemas_are_valid_json_schema() {
    for dialect in Dialect::ALL {
        let schema = parameters(dialect);
        if let Err(error) = jsonschema::meta::validate(&schema) {
            panic!("{dialect}: {error}");
        }
        assert!(jsonschema::validator_for(&schema).is_ok(), "{dialect}");
        assert_eq!(
            schema["type"], "object",
            "{dialect}: providers want an object"
        );
    }
}

/// Every subschema of a schema, with its path.
fn subschemas<'a>(value: &'a Value, path: &str, out: &mut Vec<(String, &'a Value)>) {
    match value {
        Value::Object(map) => {
            out.push((path.to_owned(), value));
            for (key, child) in map {
                subschemas(child, &format!("{path}/{key}"), out);
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                subschemas(item, &format!("{path}/{i}"), out);
            }
        }
        _ => {}
    }
}

#[test]
fn schemas_avoid_what_providers_refuse() {
    for dialect in Dialect::ALL {
        let schema = parameters(dialect);
        let mut all = Vec::new();
        subschemas(&schema, "", &mut all);
        for (path, sub) in all {
            assert_ne!(sub.get("type"), Some(&json!("any")), "{dialect}{path}");
            for keyword in [
                "if",
                "then",
                "else",
                "dependentRequired",
                "dependentSchemas",
            ] {
                assert!(sub.get(keyword).is_none(), "{dialect}{path}: {keyword}");
            }
            if sub.get("type") == Some(&json!("array")) {
                assert!(
                    sub.get("items").is_some(),
                    "{dialect}{path}: array without items"
                );
            }
        }
    }
}

#[test]
fn descriptions_say_when_not_to_ask() {
    let text = askuser_dialects::definition::description(Dialect::Claude);
    assert_eq!(
        text.split("\n\n").nth(1),
        Some(
            "Use only when the conversation does not provide the information you need and the user can reasonably be expected to answer. When in doubt, answer the user's original question directly; do not call AskUserQuestion for clarification you can derive from context or for confirmation of obvious next steps. Never use AskUserQuestion to collect secrets (passwords, API keys, SSH passphrases): answers are returned to the model and stored in the conversation."
        )
    );
}

#[test]
fn seed_calls_match_their_schema_and_parse() {
    let calls = [
        (
            Dialect::Jp,
            json!({"question": "Apply with backup, apply without backup, or abort?",
                   "answer_type": "select", "options": ["backup", "overwrite", "abort"]}),
        ),
        (
            Dialect::Jp,
            json!({"question": "Proceed?", "answer_type": "boolean", "default": true}),
        ),
        (
            Dialect::JpForm,
            json!({"questions": [
                {"id": "apply", "text": "Apply the proposed migration?", "answer_type": "boolean"},
                {"id": "env", "text": "Which environment?", "answer_type": "select",
                 "options": ["staging", "production"], "when": {"question_id": "apply", "equals": true}},
                {"id": "note", "text": "Optional note for the migration log", "answer_type": "text",
                 "when": {"question_id": "apply", "equals": true}}]}),
        ),
        (
            Dialect::Claude,
            json!({"questions": [{"question": "Which auth method?", "header": "Auth",
                   "options": [{"label": "OAuth2", "description": "Delegated"}, {"label": "API keys"}],
                   "multiSelect": false}]}),
        ),
        (
            Dialect::Pi,
            json!({"questions": [
                {"question": "Which database should we use?", "header": "Database Selection",
                 "options": [{"label": "PostgreSQL (Recommended)", "description": "Battle-tested relational DB"},
                             {"label": "SQLite", "description": "Lightweight, file-based"},
                             {"label": "MongoDB", "description": "Document store"}]},
                {"question": "What should we name this service?", "header": "Service Setup"}],
                "metadata": {"source": "project-setup"}}),
        ),
    ];
    for (dialect, arguments) in calls {
        let validator = jsonschema::validator_for(&parameters(dialect)).unwrap();
        assert!(validator.is_valid(&arguments), "{dialect}: {arguments}");
        assert!(dialect.parse(&arguments).is_ok(), "{dialect}: {arguments}");
    }
}

#[test]
fn cross_field_rules_are_checked_at_run_time_not_in_the_schema() {
    // Schema-valid, but select without options: only the parser can tell.
    let arguments = json!({"question": "Which?", "answer_type": "select"});
    let validator = jsonschema::validator_for(&parameters(Dialect::Jp)).unwrap();
    assert!(validator.is_valid(&arguments));
    assert_eq!(
        Dialect::Jp.parse(&arguments).unwrap_err().paths(),
        ["/options"]
    );
}

#[test]
fn dialects_and_providers_round_trip_their_names() {
    for dialect in Dialect::ALL {
        assert_eq!(Dialect::from_name(dialect.name()), Some(dialect));
        assert_eq!(dialect.to_string(), dialect.name());
    }
    for provider in Provider::ALL {
        assert_eq!(Provider::from_name(provider.name()), Some(provider));
    }
    assert_eq!(Dialect::from_name("gpt"), None);
    assert_eq!(
        Dialect::ALL.map(Dialect::tool_name),
        [
            "ask_user",
            "ask_user",
            "AskUserQuestion",
            "ask_user",
            "question",
            "request_user_input",
            "ask_user",
            "elicitation"
        ]
    );
}
