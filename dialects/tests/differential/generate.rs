//! Generated calls for the differential tests: a real shape of each host's ask tool
//! (as in `tests/hosts.rs`), then zero to three mutations of the kinds models make:
//! a field left out, an extra or another host's field, `null`, a number or boolean
//! as a string, an over-long header, too many or too few questions or options,
//! options as strings or as partial objects, blank or repeated texts, line breaks.
//! Seeded: the same seed gives the same calls.

use serde_json::{Map, Value, json};

/// A small seeded generator (splitmix64): no dependency, the same calls every run.
pub struct Rng(u64);

impl Rng {
    /// A generator starting from `seed`.
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n` > 0).
    pub fn below(&mut self, n: usize) -> usize {
        usize::try_from(self.next() % n as u64).expect("below n")
    }

    /// True `percent` times in a hundred.
    pub fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    /// One of `items`.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// The host whose tool the calls are made to: its pinned current release, or an
/// earlier one (`docs/dialects.md`, "Versions").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Host {
    /// Gemini CLI's `ask_user` (core 0.61.0).
    Gemini,
    /// Gemini CLI core 0.29.0's `ask_user`, where a question's `type` was optional.
    GeminiEarlier,
    /// `OpenCode`'s `question` (1.18.33's schema).
    OpenCode,
    /// `OpenCode` 1.1.16's `question`, with a header of at most 12 characters.
    OpenCodeEarlier,
    /// Codex's `request_user_input`.
    Codex,
    /// Claude Code's `AskUserQuestion` (2.1.332).
    Claude,
    /// Claude Code 2.0.77's `AskUserQuestion`.
    ClaudeEarlier,
    /// An MCP elicitation (`generate_mcp.rs`: its calls are not question lists), as
    /// the MCP TypeScript SDK 1.32.2 reads it (specification 2025-11-25).
    Mcp,
    /// An MCP elicitation as the MCP TypeScript SDK 1.17.5 reads it (specification
    /// 2025-06-18).
    McpEarlier,
}

impl Host {
    /// The host whose calls' shape this host's calls take: an earlier release's are
    /// its current release's.
    pub fn shape(self) -> Host {
        match self {
            Host::GeminiEarlier => Host::Gemini,
            Host::OpenCodeEarlier => Host::OpenCode,
            Host::ClaudeEarlier => Host::Claude,
            Host::McpEarlier => Host::Mcp,
            other => other,
        }
    }

    /// The fields of one of the host's questions.
    fn question_fields(self) -> &'static [&'static str] {
        match self {
            Host::Gemini => &[
                "question",
                "header",
                "type",
                "options",
                "multiSelect",
                "placeholder",
            ],
            Host::OpenCode => &["question", "header", "options", "multiple", "custom"],
            Host::Codex => &["id", "header", "question", "options", "isOther", "isSecret"],
            Host::Claude => &["question", "header", "options", "multiSelect"],
            Host::Mcp => &[],
            Host::GeminiEarlier
            | Host::OpenCodeEarlier
            | Host::ClaudeEarlier
            | Host::McpEarlier => self.shape().question_fields(),
        }
    }
}

const QUESTIONS: [&str; 8] = [
    "Which database should we use?",
    "Where do we deploy?",
    "Plan:\n1. migrate the schema\n2. run the tests\n\nProceed with this plan?",
    "¿Qué idioma prefieres para la interfaz?",
    "Which features should the first release include?",
    "Should the migration keep a backup?",
    "What should the service be called?",
    "Line one\\nline two?",
];
const HEADERS: [&str; 6] = [
    "Database",
    "Deploy",
    "Re-pair YubiKey",
    "Auth method",
    "Plan",
    "Name",
];
const LABELS: [&str; 9] = [
    "PostgreSQL (Recommended)",
    "SQLite",
    "MySQL",
    "Fly.io",
    "Other",
    "All of the above",
    "Auth",
    "API",
    "Admin",
];
const DESCRIPTIONS: [&str; 5] = [
    "Relational, battle-tested.",
    "Zero setup.",
    "",
    "  padded  ",
    "First line\\nsecond line",
];

/// `count` options with distinct labels.
fn options(rng: &mut Rng, count: usize) -> Vec<Value> {
    let start = rng.below(LABELS.len());
    (0..count)
        .map(|i| {
            let label = LABELS[(start + i) % LABELS.len()];
            let label = if i >= LABELS.len() {
                format!("{label} {i}")
            } else {
                label.to_owned()
            };
            json!({"label": label, "description": rng.pick(&DESCRIPTIONS)})
        })
        .collect()
}

/// One question in the host's real shape.
fn question(host: Host, rng: &mut Rng, index: usize) -> Value {
    let mut q = Map::new();
    q.insert("question".into(), json!(rng.pick(&QUESTIONS)));
    q.insert("header".into(), json!(rng.pick(&HEADERS)));
    match host {
        Host::Gemini => {
            let kind = *rng.pick(&["choice", "choice", "text", "yesno"]);
            // Gemini CLI 0.27.0 to 0.29.0 took a choice without its `type`.
            if kind != "choice" || !rng.chance(15) {
                q.insert("type".into(), json!(kind));
            }
            if kind == "choice" || rng.chance(20) {
                let count = 2 + rng.below(3);
                q.insert("options".into(), Value::Array(options(rng, count)));
            }
            if rng.chance(40) {
                q.insert("multiSelect".into(), json!(rng.chance(50)));
            }
            if rng.chance(20) {
                q.insert("placeholder".into(), json!("e.g. postgres"));
            }
        }
        Host::OpenCode => {
            let count = *rng.pick(&[0, 2, 2, 3, 4]);
            q.insert("options".into(), Value::Array(options(rng, count)));
            if rng.chance(40) {
                q.insert("multiple".into(), json!(rng.chance(50)));
            }
        }
        Host::Claude => {
            let count = *rng.pick(&[1, 2, 2, 3, 4]);
            q.insert("options".into(), Value::Array(options(rng, count)));
            if rng.chance(60) {
                q.insert("multiSelect".into(), json!(rng.chance(50)));
            }
            if rng.chance(15)
                && let Some(option) = q["options"].get_mut(0).and_then(Value::as_object_mut)
            {
                option.insert("preview".into(), json!("```sql\nselect 1\n```"));
            }
        }
        Host::Mcp => unreachable!("MCP calls are generated by generate_mcp.rs"),
        Host::GeminiEarlier | Host::OpenCodeEarlier | Host::ClaudeEarlier | Host::McpEarlier => {
            unreachable!("an earlier release's calls are generated in its current release's shape")
        }
        Host::Codex => {
            q.insert("id".into(), json!(format!("choice_{index}")));
            let count = 1 + rng.below(3);
            q.insert("options".into(), Value::Array(options(rng, count)));
            for flag in ["isOther", "isSecret"] {
                if rng.chance(20) {
                    q.insert(flag.into(), json!(rng.chance(50)));
                }
            }
        }
    }
    Value::Object(q)
}

/// A call in the host's real shape, then zero to three mutations.
pub fn call(host: Host, rng: &mut Rng) -> Value {
    let host = host.shape();
    if host == Host::Mcp {
        return super::generate_mcp::call(rng);
    }
    let count = 1 + rng.below(3);
    let questions: Vec<Value> = (0..count).map(|i| question(host, rng, i)).collect();
    let mut call = json!({ "questions": questions });
    for _ in 0..rng.below(4) {
        mutate(host, rng, &mut call);
    }
    call
}

/// One of the calls' questions, as an object, if there is one.
fn some_question<'a>(rng: &mut Rng, call: &'a mut Value) -> Option<&'a mut Map<String, Value>> {
    let questions = call.get_mut("questions")?.as_array_mut()?;
    if questions.is_empty() {
        return None;
    }
    let at = rng.below(questions.len());
    questions[at].as_object_mut()
}

/// One of a question's options, as an object, if there is one.
fn some_option<'a>(
    rng: &mut Rng,
    question: &'a mut Map<String, Value>,
) -> Option<&'a mut Map<String, Value>> {
    let options = question.get_mut("options")?.as_array_mut()?;
    if options.is_empty() {
        return None;
    }
    let at = rng.below(options.len());
    options[at].as_object_mut()
}

/// A value of another type standing for `value`: numbers and booleans as strings,
/// strings as numbers, lists as strings.
fn retyped(rng: &mut Rng, value: &Value) -> Value {
    match value {
        Value::Bool(b) => json!(b.to_string()),
        Value::String(s) if rng.chance(50) => json!(s.len()),
        Value::String(_) => json!(true),
        Value::Array(items) => json!(format!("{} options", items.len())),
        Value::Number(n) => json!(n.to_string()),
        _ => json!(1),
    }
}

/// Applies one mutation, chosen at random, to `call`.
fn mutate(host: Host, rng: &mut Rng, call: &mut Value) {
    let fields = host.question_fields();
    match rng.below(17) {
        0 | 1 => field_mutation(rng, call, fields),
        2 => option_mutation(rng, call),
        3 => count_mutation(host, rng, call),
        4..=7 => options_mutation(rng, call),
        8 => text_mutation(rng, call),
        9 => {
            if let Some(q) = some_question(rng, call) {
                let other = *rng.pick(&[
                    "multiSelect",
                    "multiple",
                    "type",
                    "custom",
                    "isOther",
                    "id",
                    "allow_other",
                ]);
                let value = rng
                    .pick(&[json!(true), json!("choice"), json!("text"), json!(false)])
                    .clone();
                q.insert(other.into(), value);
            }
        }
        10 => {
            if let Some(map) = call.as_object_mut() {
                map.insert(
                    rng.pick(&["metadata", "title", "extra", "autoResolutionMs"])
                        .to_string(),
                    json!({"source": "plan"}),
                );
            }
        }
        11 => {
            if host == Host::Gemini
                && let Some(q) = some_question(rng, call)
            {
                let kind = rng.pick(&["choice", "text", "yesno", "Choice", "multiple_choice", ""]);
                q.insert("type".into(), json!(kind));
            }
        }
        12 => {
            if let Some(questions) = call.get_mut("questions").and_then(Value::as_array_mut) {
                let at = rng.below(questions.len().max(1)).min(questions.len());
                questions.insert(at, json!(rng.pick(&QUESTIONS)));
            }
        }
        13 => {
            if let Some(q) = some_question(rng, call) {
                q.insert("options".into(), json!("PostgreSQL, SQLite"));
            }
        }
        14 => {
            *call = rng
                .pick(&[
                    json!("Which database?"),
                    json!({"questions": "Which?"}),
                    json!({}),
                ])
                .clone();
        }
        _ => {}
    }
}

/// Too many or too few options, options as plain strings, or an over-long header.
fn options_mutation(rng: &mut Rng, call: &mut Value) {
    match rng.below(4) {
        0 => {
            if let Some(q) = some_question(rng, call) {
                let many = 5 + rng.below(3);
                q.insert("options".into(), Value::Array(options(rng, many)));
            }
        }
        1 => {
            if let Some(q) = some_question(rng, call) {
                let few = rng.below(2);
                q.insert("options".into(), Value::Array(options(rng, few)));
            }
        }
        2 => {
            if let Some(q) = some_question(rng, call) {
                let labels: Vec<Value> = LABELS[..2 + rng.below(3)]
                    .iter()
                    .map(|l| json!(l))
                    .collect();
                q.insert("options".into(), Value::Array(labels));
            }
        }
        _ => {
            if let Some(q) = some_question(rng, call) {
                let header = "A header far longer than any tool description asks for";
                q.insert("header".into(), json!(header));
            }
        }
    }
}

/// Drops, nulls or retypes one question field.
fn field_mutation(rng: &mut Rng, call: &mut Value, fields: &[&str]) {
    let field = *rng.pick(fields);
    let how = rng.below(3);
    let Some(q) = some_question(rng, call) else {
        return;
    };
    match how {
        0 => {
            q.remove(field);
        }
        1 => {
            q.insert(field.into(), Value::Null);
        }
        _ => {
            let value = q.get(field).cloned().unwrap_or(json!(false));
            let value = retyped(rng, &value);
            q.insert(field.into(), value);
        }
    }
}

/// Drops, nulls or retypes one option field, or adds one.
fn option_mutation(rng: &mut Rng, call: &mut Value) {
    let field = *rng.pick(&["label", "description"]);
    let how = rng.below(4);
    let Some(q) = some_question(rng, call) else {
        return;
    };
    let Some(option) = some_option(rng, q) else {
        return;
    };
    match how {
        0 => {
            option.remove(field);
        }
        1 => {
            option.insert(field.into(), Value::Null);
        }
        2 => {
            let value = option.get(field).cloned().unwrap_or(Value::Null);
            option.insert(field.into(), retyped(rng, &value));
        }
        _ => {
            option.insert("preview".into(), json!("```sql\nselect 1\n```"));
        }
    }
}

/// Too many questions (up to 7) or none.
fn count_mutation(host: Host, rng: &mut Rng, call: &mut Value) {
    let Some(map) = call.as_object_mut() else {
        return;
    };
    if rng.chance(25) {
        map.insert("questions".into(), json!([]));
        return;
    }
    let more = 5 + rng.below(3);
    let questions: Vec<Value> = (0..more).map(|i| question(host, rng, i)).collect();
    map.insert("questions".into(), Value::Array(questions));
}

/// A blank, repeated or multi-line text.
fn text_mutation(rng: &mut Rng, call: &mut Value) {
    let how = rng.below(7);
    let Some(q) = some_question(rng, call) else {
        return;
    };
    match how {
        0 => {
            let field = *rng.pick(&["question", "header", "id"]);
            if q.contains_key(field) {
                q.insert(field.into(), json!(rng.pick(&["", "   "])));
            }
        }
        1 => {
            if let Some(option) = some_option(rng, q) {
                option.insert("label".into(), json!(rng.pick(&["", " "])));
            }
        }
        2 => {
            if let Some(options) = q.get_mut("options").and_then(Value::as_array_mut)
                && options.len() >= 2
            {
                options[1] = options[0].clone();
            }
        }
        3 => {
            if let Some(option) = some_option(rng, q) {
                option.insert(
                    "label".into(),
                    json!(rng.pick(&["Yes\\nreally", "Two\nlines"])),
                );
            }
        }
        4 => {
            q.insert(
                "header".into(),
                json!(rng.pick(&["Two\nlines", "Two\\nlines"])),
            );
        }
        5 => {
            q.insert(
                "question".into(),
                json!(format!("{}?", "Why ".repeat(1100))),
            );
        }
        _ => {
            q.insert(
                "question".into(),
                json!("Context first.\n\nThen the question?"),
            );
        }
    }
}
