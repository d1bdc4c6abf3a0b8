//! The attacks of issue 10 on validation, each with the exact message a model reads:
//! escape sequences and disguising characters in a form, sizes counted after
//! unescaping, a `when` one level too deep, a property named `$ref`, unchecked
//! formats, and a duplicate pick reported as an unknown one.
#![allow(clippy::needless_pass_by_value)] // the helpers take `json!` literals

use askuser_core::limits::{MAX_SCHEMA_BYTES, MAX_WHEN_DEPTH};
use askuser_core::parse_form;
use serde_json::{Value, json};

/// The errors of a call, as "path: message" lines.
fn errors(arguments: Value) -> Vec<String> {
    match parse_form(&arguments) {
        Ok(_) => vec![],
        Err(errors) => errors.0.iter().map(ToString::to_string).collect(),
    }
}

fn one(question: Value) -> Vec<String> {
    errors(json!({ "questions": [question] }))
}

const ONE_LINE: &str =
    "write it as one line of plain text, without control, bidi-control or invisible characters";
const FREE: &str = "remove it: of the control characters only newline and tab may appear here, and no bidi override, embedding or isolate";

#[test]
fn terminal_escapes_in_one_line_fields_are_refused_by_name_and_position() {
    let question = json!({
        "id": "env\u{1b}[8m",
        "text": "Deploy?\u{1b}]2;pwned\u{7}",
        "header": "\u{9b}2J",
        "answer_type": "select",
        "options": ["yes", "y\u{202e}se", "n\u{200b}o"]
    });
    assert_eq!(
        one(question),
        [
            "/questions/0/id: has U+001B ESCAPE at character 4; use a short plain id such as \"env\"".to_owned(),
            "/questions/0/text: has U+001B ESCAPE at character 8; write the question as plain text, without control, bidi-control or invisible characters".to_owned(),
            format!("/questions/0/header: has U+009B CONTROL SEQUENCE INTRODUCER at character 1; {ONE_LINE}"),
            "/questions/0/options/1: has U+202E RIGHT-TO-LEFT OVERRIDE at character 2; write the label as one line of plain text, without control, bidi-control or invisible characters; put any detail in `description`".to_owned(),
            "/questions/0/options/2: has U+200B ZERO WIDTH SPACE at character 2; write the label as one line of plain text, without control, bidi-control or invisible characters; put any detail in `description`".to_owned(),
        ]
    );
}

#[test]
fn control_characters_in_multi_line_fields_and_schemas_are_refused() {
    let select = json!({
        "id": "a", "text": "Which?", "answer_type": "select",
        "context": "Plan:\n\t1. wipe\u{1b}]52;c;cm0gLXJmIC8=\u{7}",
        "options": [{"label": "x", "description": "hidden: \u{1b}[8mrm -rf /"}]
    });
    let text = json!({
        "id": "b", "text": "Name?", "answer_type": "text", "default": "\u{0}nul"
    });
    let schema = json!({
        "id": "c", "text": "Config?", "answer_type": "schema",
        "schema": {"type": "string", "pattern": "^a\u{1b}[2J$", "title": "t"}
    });
    let titled = json!({
        "id": "d", "text": "Config?", "answer_type": "schema",
        "schema": {"properties": {"k": {"description": "ok\n", "title": "\u{85}"}}}
    });
    assert_eq!(
        errors(json!({ "questions": [select, text, schema, titled] })),
        [
            format!("/questions/0/context: has U+001B ESCAPE at character 15; {FREE}"),
            format!("/questions/0/options/0/description: has U+001B ESCAPE at character 9; {FREE}"),
            format!("/questions/1/default: has U+0000 NUL at character 1; {FREE}"),
            format!("/questions/2/schema/pattern: has U+001B ESCAPE at character 3; {FREE}"),
            format!(
                "/questions/3/schema/properties/k/title: has U+0085 control character at character 1; {FREE}"
            ),
        ]
    );
}

#[test]
fn bidi_overrides_embeddings_and_isolates_are_refused_in_free_text_too() {
    let question = json!({
        "id": "a", "text": "Which?", "answer_type": "select",
        "context": "ok \u{202e}gnp.exe",
        "options": [{"label": "x", "description": "d \u{2066}isolated\u{2069}"}],
        "default": "x"
    });
    let text = json!({"id": "b", "text": "Name?", "answer_type": "text", "default": "\u{202b}r"});
    assert_eq!(
        errors(json!({ "questions": [question, text] })),
        [
            format!(
                "/questions/0/context: has U+202E RIGHT-TO-LEFT OVERRIDE at character 4; {FREE}"
            ),
            format!(
                "/questions/0/options/0/description: has U+2066 LEFT-TO-RIGHT ISOLATE at character 3; {FREE}"
            ),
            format!(
                "/questions/1/default: has U+202B RIGHT-TO-LEFT EMBEDDING at character 1; {FREE}"
            ),
        ]
    );
}

#[test]
fn right_to_left_text_and_joiners_in_free_text_stay_welcome() {
    let question = json!({
        "id": "lang",
        "text": "באיזו שפה? أي لغة؟",
        "context": "فارسی: می\u{200c}خواهم\n\tעברית",
        "header": "שפה",
        "answer_type": "select",
        "options": ["עברית", {"label": "العربية", "description": "👨\u{200d}👩\u{200d}👧"}]
    });
    assert_eq!(one(question), Vec::<String>::new());
}

#[test]
fn sizes_are_counted_as_encoded_not_after_unescaping() {
    // 65,336 U+0001 in a schema description: 65 KB of characters, 392 KB as JSON.
    let schema_question = |count: usize| {
        json!({
            "id": "c", "text": "Config?", "answer_type": "schema",
            "schema": {"type": "string", "description": "\u{1}".repeat(count)}
        })
    };
    assert_eq!(
        one(schema_question(65_336)),
        ["(the form): the form is 392126 bytes; the limit is 262144: shorten its texts or schemas"]
    );
    // 11,000 of them: 66 KB as JSON, over the schema's own limit.
    let question = schema_question(11_000);
    let encoded = serde_json::to_string(&question["schema"]).unwrap().len();
    assert_eq!(encoded, 66_034);
    assert_eq!(
        one(question),
        [format!(
            "/questions/0/schema: is {encoded} bytes; the limit is {MAX_SCHEMA_BYTES}: simplify the schema"
        )]
    );
    // Quotes are two bytes each as JSON: 3,000 of them pass as characters, not as bytes.
    let quoted = json!({
        "id": "t", "text": "Name?", "answer_type": "text", "context": "\"".repeat(3_000)
    });
    assert_eq!(
        one(quoted),
        ["/questions/0/context: is 6000 bytes long; the limit is 4096: shorten it"]
    );
}

fn nested_when(levels: usize) -> Value {
    let mut when = json!({"question_id": "a", "equals": true});
    for _ in 1..levels {
        when = json!({ "not": when });
    }
    when
}

#[test]
fn a_when_of_17_levels_is_refused_and_16_pass() {
    let form = |levels| {
        json!({"questions": [
            {"id": "a", "text": "A?", "answer_type": "boolean"},
            {"id": "b", "text": "B?", "answer_type": "boolean", "when": nested_when(levels)}
        ]})
    };
    assert_eq!(errors(form(MAX_WHEN_DEPTH)), Vec::<String>::new());
    assert_eq!(
        errors(form(MAX_WHEN_DEPTH + 1)),
        [format!(
            "/questions/1/when{}: predicates nest deeper than 16 levels; flatten them",
            "/not".repeat(16)
        )]
    );
    // A form built in code, not parsed, is held to the same limit.
    let mut built: askuser_core::Form =
        serde_json::from_value(form(MAX_WHEN_DEPTH)).expect("a form");
    built.questions[1].when = serde_json::from_value(nested_when(MAX_WHEN_DEPTH + 1)).ok();
    let refused = askuser_core::validate(built).unwrap_err().to_string();
    assert_eq!(
        refused,
        "/questions/1/when: predicates nest deeper than 16 levels; flatten them"
    );
}

#[test]
fn a_property_named_ref_does_not_skip_the_reference_check() {
    let question = json!({
        "id": "c", "text": "Config?", "answer_type": "schema",
        "schema": {"type": "object", "properties": {"$ref": {"$ref": "https://evil.example/s.json"}}}
    });
    assert_eq!(
        one(question),
        [
            "/questions/0/schema/properties/$ref/$ref: \"https://evil.example/s.json\" points outside this schema; only local references such as \"#/$defs/name\" are allowed: inline the definition"
        ]
    );
}

#[test]
fn formats_are_checked() {
    let question = json!({
        "id": "mail", "text": "Your address?", "answer_type": "schema",
        "schema": {"type": "string", "format": "email"},
        "default": "not an address"
    });
    assert_eq!(
        one(question),
        [
            "/questions/0/default: is not a valid answer to this question (does not match the schema: \"not an address\" is not a \"email\"): fix it or remove `default`"
        ]
    );
}

#[test]
fn a_pick_repeated_with_spaces_is_a_duplicate() {
    let form = parse_form(&json!({"questions": [{
        "id": "f", "text": "Which?", "answer_type": "multi_select", "options": ["a", "b"]
    }]}))
    .expect("a valid form");
    assert_eq!(
        form.check(0, &json!(["a", " a "])).unwrap_err().to_string(),
        "\"a\" is picked twice; pick each option at most once"
    );
    assert_eq!(
        form.check(0, &json!([" b "])).unwrap_err().to_string(),
        "\" b \" is not one of the options: \"a\", \"b\""
    );
}

const LABEL: &str = "write the label as one line of plain text, without control, bidi-control or invisible characters; put any detail in `description`";

#[test]
fn every_format_ignorable_and_separator_character_is_refused_in_one_line_fields_and_scripts_stay_welcome()
 {
    // Issue 28: characters outside the old list of invisible characters let
    // several options read `Approve` on a terminal. Now Unicode's own properties
    // decide: every format character (Cf), line and paragraph separator (Zl, Zp)
    // and default-ignorable code point.
    let question = json!({
        "id": "go\u{e0001}",
        "text": "Approve\u{180e}?",
        "header": "Release\u{2029}",
        "answer_type": "select",
        "options": [
            "Approve",
            "Appr\u{1d173}ove",
            "Appro\u{1bca0}ve",
            "Approve\u{2028}",
            "Ap\u{3164}prove",
            "Approv\u{fe0f}e",
            "A\u{fff9}pprove"
        ]
    });
    assert_eq!(
        one(question),
        [
            "/questions/0/id: has U+E0001 format character at character 3; use a short plain id such as \"env\"".to_owned(),
            "/questions/0/text: has U+180E format character at character 8; write the question as plain text, without control, bidi-control or invisible characters".to_owned(),
            format!("/questions/0/header: has U+2029 PARAGRAPH SEPARATOR at character 8; {ONE_LINE}"),
            format!("/questions/0/options/1: has U+1D173 format character at character 5; {LABEL}"),
            format!("/questions/0/options/2: has U+1BCA0 format character at character 6; {LABEL}"),
            format!("/questions/0/options/3: has U+2028 LINE SEPARATOR at character 8; {LABEL}"),
            format!("/questions/0/options/4: has U+3164 invisible character at character 3; {LABEL}"),
            format!("/questions/0/options/5: has U+FE0F invisible character at character 7; {LABEL}"),
            format!("/questions/0/options/6: has U+FFF9 format character at character 2; {LABEL}"),
        ]
    );
    // What scripts, accents and emoji need stays welcome: joiners, marks,
    // variation selectors and emoji tags in free text, any script in labels.
    let question = json!({
        "id": "言語",
        "text": "Which language? どの言語? 어느 언어?",
        "header": "Langue préférée",
        "context": "Emoji: 👨\u{200d}👩\u{200d}👧 ❤\u{fe0f} 🏴\u{e0067}\u{e0062}\u{e0073}\u{e0063}\u{e0074}\u{e007f}\n\
                    ไทย\u{200b}ภาษา, فارسی: می\u{200c}خواهم, \u{200f}עברית\u{200e}, Zeilen\u{ad}umbruch",
        "answer_type": "select",
        "options": [
            "日本語", "中文", "한국어", "हिन्दी", "ไทย", "العربية", "עברית", "Ελληνικά", "Русский",
            "café", "Cafe", "naïve", "Ångström", "👍 Yes", "👎 No",
            {"label": "Español", "description": "👩\u{200d}💻 con ñ"}
        ]
    });
    assert_eq!(one(question), Vec::<String>::new());
}

const LOOK_ALIKE: &str = "reword one of them so that a person can tell every option apart";

#[test]
fn labels_that_look_the_same_are_refused_naming_both() {
    let question = json!({
        "id": "a", "text": "Ship it?", "answer_type": "select",
        "options": [
            "Approve",
            "\u{410}pprove",
            "SQLite",
            {"label": "ＳＱＬｉｔｅ", "description": "fullwidth"},
            "Reject",
        ]
    });
    let multi = json!({
        "id": "b", "text": "Which?", "answer_type": "multi_select",
        "options": ["file", "ﬁle", "l0g", "lOg", "version 1", "version l"]
    });
    assert_eq!(
        errors(json!({ "questions": [question, multi] })),
        [
            format!(
                "/questions/0/options/1: option \"\u{410}pprove\" looks the same as option \"Approve\" (index 0): character 1 is U+0410 here but U+0041 there; {LOOK_ALIKE}"
            ),
            format!(
                "/questions/0/options/3/label: option \"ＳＱＬｉｔｅ\" looks the same as option \"SQLite\" (index 2): character 1 is U+FF33 here but U+0053 there; {LOOK_ALIKE}"
            ),
            format!(
                "/questions/1/options/1: option \"ﬁle\" looks the same as option \"file\" (index 0): character 1 is U+FB01 here but U+0066 there; {LOOK_ALIKE}"
            ),
            format!(
                "/questions/1/options/3: option \"lOg\" looks the same as option \"l0g\" (index 2): character 2 is U+004F here but U+0030 there; {LOOK_ALIKE}"
            ),
            format!(
                "/questions/1/options/5: option \"version l\" looks the same as option \"version 1\" (index 4): character 9 is U+006C here but U+0031 there; {LOOK_ALIKE}"
            ),
        ]
    );
    // The same labels in different questions are no problem: each question's
    // options are read together.
    let apart = json!({"questions": [
        {"id": "a", "text": "A?", "answer_type": "select", "options": ["Approve", "Reject"]},
        {"id": "b", "text": "B?", "answer_type": "select", "options": ["\u{410}pprove", "Reject"]}
    ]});
    assert_eq!(errors(apart), Vec::<String>::new());
}

#[test]
fn separators_and_invisible_format_characters_in_free_text_are_refused() {
    let question = json!({
        "id": "a", "text": "Which?", "answer_type": "select",
        "context": "Plan:\u{2028}wipe",
        "options": [{"label": "x", "description": "fine\u{1d173} print"}],
    });
    let text = json!({"id": "b", "text": "Name?", "answer_type": "text", "default": "\u{3164}"});
    assert_eq!(
        errors(json!({ "questions": [question, text] })),
        [
            "/questions/0/context: has U+2028 LINE SEPARATOR at character 6; write a newline (\\n) instead; a terminal shows this separator as nothing",
            "/questions/0/options/0/description: has U+1D173 format character at character 5; remove it: it draws nothing, so the text could pass for another (the invisible characters allowed here are joiners, bidi marks, variation selectors, the zero-width space, the word joiner, the soft hyphen and emoji tags)",
            "/questions/1/default: has U+3164 invisible character at character 1; remove it: it draws nothing, so the text could pass for another (the invisible characters allowed here are joiners, bidi marks, variation selectors, the zero-width space, the word joiner, the soft hyphen and emoji tags)",
        ]
    );
}

#[test]
fn a_schema_title_or_description_longer_than_any_text_is_refused_where_it_is() {
    // A model's Markdown in a schema is shown like a question's context, and has
    // the same limit: 10,000 `>` would be 10 KB of nesting.
    let question = json!({"id": "s", "text": "Settings", "answer_type": "schema", "schema": {
        "type": "object", "title": "ok", "properties": {
            "a": {"type": "string", "description": ">".repeat(10_000)},
            "b": {"type": "array", "items": {"title": "- ".repeat(2_049)}},
            "description": {"type": "string", "description": "a field named description"}}}});
    assert_eq!(
        one(question),
        [
            "/questions/0/schema/properties/a/description: is 10000 bytes long; the limit is 4096: shorten it",
            "/questions/0/schema/properties/b/items/title: is 4098 bytes long; the limit is 4096: shorten it",
        ]
    );
}
