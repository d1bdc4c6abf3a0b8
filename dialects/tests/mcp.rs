//! The `mcp` dialect: an elicitation `requestedSchema` to a form and back, and the
//! client's response to the engine's inputs.

use askuser_core::{AnswerInput, At, Command, Input, InquiryId, State, parse_form, reduce};
use askuser_dialects::dialect::mcp::{Response, read_field, round_schema};
use askuser_dialects::{Dialect, ToolResult};
use serde_json::{Map, Value, json};

/// The specification's example fields, every kind (2025-11-25, "Elicitation").
fn arguments() -> Value {
    json!({
        "message": "Please provide your deployment details",
        "requestedSchema": {
            "type": "object",
            "properties": {
                "name": {"type": "string", "title": "Display name", "description": "Shown to others"},
                "email": {"type": "string", "format": "email", "title": "Email"},
                "replicas": {"type": "integer", "minimum": 1, "maximum": 9, "default": 2},
                "confirm": {"type": "boolean", "title": "Deploy now?", "default": false},
                "region": {"type": "string", "title": "Region",
                           "oneOf": [{"const": "eu", "title": "Europe"}, {"const": "us", "title": "us"}]},
                "size": {"type": "string", "enum": ["s", "m"], "enumNames": ["Small", "Medium"]},
                "tags": {"type": "array", "title": "Tags",
                         "items": {"anyOf": [{"const": "web", "title": "Web"}, {"const": "db", "title": "Database"}]},
                         "default": ["web"]}
            },
            "required": ["name", "email"]
        }
    })
}

fn walk(dialect: Dialect, arguments: &Value, answers: &[Value]) -> Vec<Command> {
    let call = dialect.parse(arguments).expect("a valid call");
    let mut state = State::new();
    let id = InquiryId::new("e1");
    let mut commands = reduce(&mut state, &Input::Ask(call.request(id))).unwrap();
    for value in answers {
        let Some(Command::Prompt(prompt)) = commands.first() else {
            break;
        };
        let answer = AnswerInput::new(prompt.at(), value.clone());
        commands = reduce(&mut state, &answer.into()).unwrap();
    }
    commands
}

#[test]
fn a_requested_schema_reads_as_a_form_of_every_kind() {
    let call = Dialect::Mcp.parse(&arguments()).unwrap();
    let kinds: Vec<String> = call
        .form()
        .questions()
        .iter()
        .map(|q| {
            format!(
                "{} {} {:?} {:?} {:?}",
                q.id,
                q.answer_type,
                q.text,
                q.context,
                q.options
                    .iter()
                    .flatten()
                    .map(|c| format!("{}={}", c.label, c.description.as_deref().unwrap_or("")))
                    .collect::<Vec<_>>()
            )
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "name text \"Display name\" Some(\"Please provide your deployment details\\n\\nShown to others\") []",
            "email schema \"Email\" None []",
            "replicas schema \"replicas\" None []",
            "confirm boolean \"Deploy now?\" None []",
            "region select \"Region\" None [\"eu=Europe\", \"us=\"]",
            "size select \"size\" None [\"s=Small\", \"m=Medium\"]",
            "tags multi_select \"Tags\" None [\"web=Web\", \"db=Database\"]",
        ]
    );
    assert_eq!(Dialect::detect(&arguments()), Ok(Dialect::Mcp));
}

#[test]
fn accepted_answers_come_back_as_the_elicit_result() {
    let answers = [
        json!("Ada"),
        json!("ada@example.org"),
        json!(3),
        json!(true),
        json!("eu"),
        json!("m"),
        json!(["db", "web"]),
    ];
    let commands = walk(Dialect::Mcp, &arguments(), &answers);
    let call = Dialect::Mcp.parse(&arguments()).unwrap();
    assert_eq!(
        call.tool_result(&commands[0]),
        Some(ToolResult::Success(json!({"action": "accept", "content": {
            "name": "Ada", "email": "ada@example.org", "replicas": 3, "confirm": true,
            "region": "eu", "size": "m", "tags": ["web", "db"]}})))
    );
}

#[test]
fn a_schema_answer_out_of_range_is_refused_and_a_reply_declines() {
    let commands = walk(
        Dialect::Mcp,
        &arguments(),
        &[json!("Ada"), json!("a@b.c"), json!(12)],
    );
    let Command::InvalidAnswer { message, .. } = &commands[0] else {
        panic!("{commands:?}")
    };
    assert_eq!(
        message,
        "does not match the schema: 12 is greater than the maximum of 9"
    );
    let call = Dialect::Mcp.parse(&arguments()).unwrap();
    let mut state = State::new();
    let id = InquiryId::new("e1");
    reduce(&mut state, &Input::Ask(call.request(id.clone()))).unwrap();
    let decline = Response::read(&json!({"action": "decline"})).unwrap();
    let at = state.at(&id).unwrap();
    let commands = reduce(&mut state, &decline.input(at).unwrap()).unwrap();
    assert_eq!(
        call.tool_result(&commands[0]),
        Some(ToolResult::Success(json!({"action": "decline"})))
    );
}

#[test]
fn responses_read_into_inputs() {
    let at = At::question(InquiryId::new("e1"), "name", 0);
    assert_eq!(
        Response::read(&json!({"action": "accept", "content": {"a": 1}})),
        Ok(Response::Accept(Map::from_iter([(
            "a".to_owned(),
            json!(1)
        )])))
    );
    assert_eq!(
        Response::read(&json!({"action": "decline"}))
            .unwrap()
            .input(at.clone()),
        Some(Input::Reply {
            at: at.clone(),
            message: None
        })
    );
    assert_eq!(
        Response::read(&json!({"action": "cancel"}))
            .unwrap()
            .input(at.clone()),
        Some(Input::EndTurn {
            inquiry: at.inquiry.clone(),
            surface: Some(askuser_core::Surface::Host)
        })
    );
    assert_eq!(
        Response::read(&json!({"action": "maybe"})),
        Err("/action: must be \"accept\", \"decline\" or \"cancel\"".to_owned())
    );
    assert_eq!(
        Response::read(&json!({"action": "accept", "content": [1]})),
        Err("/content: must be an object, not a list".to_owned())
    );
}

#[test]
fn refused_schemas_name_the_field() {
    let rejection = Dialect::Mcp
        .parse(
            &json!({"message": "x", "requestedSchema": {"type": "object", "properties": {
            "nested": {"type": "object"},
            "tags": {"type": "array", "items": {"type": "string"}}}}}),
        )
        .unwrap_err();
    assert_eq!(
        rejection.tool_error_text(),
        "\
elicitation: the call was not run. Fix these 2 problems and call the tool again:
- /requestedSchema/properties/nested/type: must be \"string\", \"number\", \"integer\", \"boolean\" or \"array\"
- /requestedSchema/properties/tags/items: a multi-select field's items need \"anyOf\" of {\"const\", \"title\"} or \"enum\""
    );
}

/// A form of every kind, as a round: select with free text (a claude question),
/// multi-select, a flat schema, a JSON schema field re-asked with its refusal.
#[test]
fn a_round_is_one_flat_requested_schema() {
    let form = parse_form(&json!({"questions": [
        {"id": "db", "text": "Which database?", "answer_type": "select", "allow_other": true,
         "options": [{"label": "Postgres", "description": "shared"}, "SQLite"]},
        {"id": "tags", "text": "Which tags?", "answer_type": "multi_select",
         "options": ["web", "db"], "default": ["web"]},
        {"id": "port", "text": "Which port?", "answer_type": "schema",
         "schema": {"type": "integer", "minimum": 1024}, "default": 8080},
        {"id": "limits", "text": "Limits?", "context": "Per tenant.", "answer_type": "schema",
         "schema": {"type": "object", "properties": {"cpu": {"type": "number"}}, "required": ["cpu"]},
         "default": {"cpu": 1}}
    ]}))
    .unwrap();
    let schema = round_schema(&form, &[0, 1, 2, 3], |i| {
        (i == 3).then_some("\"cpu\" is a required property")
    });
    assert_eq!(
        schema,
        json!({
            "type": "object",
            "properties": {
                "db": {"type": "string", "title": "Which database?",
                       "oneOf": [{"const": "Postgres", "title": "Postgres: shared"},
                                 {"const": "SQLite", "title": "SQLite"}]},
                "db.other": {"type": "string", "title": "Or your own answer to: Which database?"},
                "tags": {"type": "array", "title": "Which tags?",
                         "items": {"anyOf": [{"const": "web", "title": "web"}, {"const": "db", "title": "db"}]},
                         "default": ["web"]},
                "port": {"type": "integer", "minimum": 1024, "title": "Which port?", "default": 8080},
                "limits": {"type": "string", "title": "Limits?", "default": "{\"cpu\":1}",
                           "description": "Per tenant.\n\nType a JSON value matching this schema: {\"type\":\"object\",\"properties\":{\"cpu\":{\"type\":\"number\"}},\"required\":[\"cpu\"]}\n\nYour last answer was not accepted: \"cpu\" is a required property"}
            },
            "required": ["tags", "port", "limits"]
        })
    );
    let content = |value: Value| value.as_object().unwrap().clone();
    let accepted = content(
        json!({"db": "SQLite", "db.other": "  ", "tags": ["db"], "port": 9000,
                                  "limits": "{\"cpu\": 2}"}),
    );
    let read: Vec<Result<Value, String>> =
        (0..4).map(|i| read_field(&form, i, &accepted)).collect();
    assert_eq!(
        read,
        [
            Ok(json!("SQLite")),
            Ok(json!(["db"])),
            Ok(json!(9000)),
            Ok(json!({"cpu": 2}))
        ]
    );
    let typed = content(json!({"db.other": "DynamoDB", "tags": [], "limits": "{cpu"}));
    let read: Vec<Result<Value, String>> = (0..4).map(|i| read_field(&form, i, &typed)).collect();
    assert_eq!(
        read,
        [
            Ok(json!("DynamoDB")),
            Ok(json!([])),
            Err("no answer was given; fill in this field".to_owned()),
            Err("the answer is not valid JSON (key must be a string at line 1 column 2); type a JSON value such as {\"key\": 1}".to_owned()),
        ]
    );
}

/// A client draws the form, maybe in a terminal: what could act on it is escaped.
#[test]
fn hostile_text_in_a_round_is_shown_as_escapes() {
    let form = parse_form(&json!({"questions": [
        {"id": "cfg", "text": "Config?", "answer_type": "schema",
         "schema": {"type": "object", "description": "safe\u{200f}txt.exe"}}]}))
    .unwrap();
    let schema = round_schema(&form, &[0], |_| Some("bad \u{1b}[31mred"));
    assert_eq!(
        schema["properties"]["cfg"]["description"],
        "Type a JSON value matching this schema: {\"type\":\"object\",\"description\":\"safe\\u{200f}txt.exe\"}\n\nYour last answer was not accepted: bad \\u{1b}[31mred"
    );
}
