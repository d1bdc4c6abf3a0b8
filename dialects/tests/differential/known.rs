//! The known disagreements between askuser and the hosts' own validators, each
//! with its reason (mirrored in `docs/dialects.md`, "Checked against the hosts' own
//! validators"). A disagreement is explained only when a rule below applies to the
//! call *and* the call with that cause removed (`fix`) makes the host and askuser
//! agree: a second batch to the host checks it.

use std::fmt::Write as _;

use serde_json::{Map, Value};

use super::generate::Host;
use super::known_mcp;

/// One known, explained disagreement.
pub struct Known {
    /// A short name, for the report.
    pub name: &'static str,
    /// `true`: the host accepts and askuser refuses; `false`: the other way.
    pub host_accepts: bool,
    /// The hosts it is seen with.
    pub hosts: &'static [Host],
    /// Whether the call has the cause.
    pub applies: fn(&Value) -> bool,
    /// The call without the cause; `None` when the cause is the whole call.
    pub fix: Option<fn(&mut Value)>,
    /// Why askuser differs.
    pub reason: &'static str,
}

/// Every known disagreement.
pub const KNOWN: [Known; 21] = [
    Known {
        name: "null is absent",
        host_accepts: false,
        hosts: &[
            Host::Gemini,
            Host::GeminiEarlier,
            Host::OpenCode,
            Host::OpenCodeEarlier,
            Host::Codex,
            Host::Claude,
            Host::ClaudeEarlier,
            Host::Mcp,
            Host::McpEarlier,
        ],
        applies: |call| any_value(call, &mut Value::is_null),
        fix: Some(drop_nulls),
        reason: "askuser reads `null` for an optional field as absent (OpenAI strict schemas send it); the hosts' zod, ajv and serde refuse it",
    },
    Known {
        name: "blank text",
        host_accepts: true,
        hosts: ALL_QUESTION_HOSTS,
        applies: |call| any_text(call, &mut |s| s.trim().is_empty()),
        fix: Some(|call| {
            map_texts(call, &mut |s| {
                if s.trim().is_empty() {
                    "filled".clone_into(s);
                }
            });
        }),
        reason: "the core refuses an empty or blank question text, header, id or option label: nothing to show the person",
    },
    Known {
        name: "repeated label",
        host_accepts: true,
        hosts: &[
            Host::Gemini,
            Host::GeminiEarlier,
            Host::OpenCode,
            Host::OpenCodeEarlier,
            Host::Codex,
        ],
        applies: repeated_label,
        fix: Some(renumber_labels),
        reason: "the core refuses two options with the same label in a question: the answer names the option by its label",
    },
    Known {
        name: "label or header on several lines",
        host_accepts: true,
        hosts: ALL_QUESTION_HOSTS,
        applies: |call| {
            let broken = |s: &str| s.contains('\n') || s.contains("\\n");
            any_label(call, &mut |s| broken(s)) || any_header(call, &mut |s| broken(s))
        },
        fix: Some(|call| {
            let join = |s: &mut String| *s = s.replace("\\n", " ").replace('\n', " ");
            map_labels(call, &mut |s| join(s));
            map_headers(call, &mut |s| join(s));
        }),
        reason: "the core refuses an option label or a header with a line break (Gemini CLI turns a literal `\\n` into one): a label and a header are one line",
    },
    Known {
        name: "over the core's size limits",
        host_accepts: true,
        hosts: ALL_QUESTION_HOSTS,
        applies: |call| any_text(call, &mut |s| s.len() > 4 * 1024),
        fix: Some(|call| {
            map_texts(call, &mut |s| {
                if s.len() > 4 * 1024 {
                    s.truncate(200);
                }
            });
        }),
        reason: "the core refuses a question text, header or label over 4 KiB (and more than 64 questions or options): the hosts set no limit",
    },
    Known {
        name: "no questions",
        host_accepts: true,
        hosts: &[Host::OpenCode, Host::OpenCodeEarlier, Host::Codex],
        applies: |call| {
            call.get("questions")
                .and_then(Value::as_array)
                .is_some_and(Vec::is_empty)
        },
        fix: None,
        reason: "askuser refuses `questions: []`: there is nothing to ask (OpenCode and Codex would show an empty dialog)",
    },
    Known {
        name: "a single option",
        host_accepts: false,
        hosts: &[Host::Claude, Host::ClaudeEarlier],
        applies: |call| {
            any_question(call, |q| {
                q.get("options")
                    .and_then(Value::as_array)
                    .is_some_and(|o| o.len() == 1)
            })
        },
        fix: Some(|call| {
            for q in questions(call) {
                if let Some(Value::Array(options)) = q.get_mut("options")
                    && options.len() == 1
                {
                    options.push(serde_json::json!({"label": "Second", "description": "d"}));
                }
            }
        }),
        reason: "Claude Code 2.1.332 refuses a question with one option (`min(2)`); askuser shows it as a choice of one plus free text, as earlier Claude Code releases did for the real calls of issue 11",
    },
    Known {
        name: "options as plain strings",
        host_accepts: false,
        hosts: &[Host::Claude, Host::ClaudeEarlier],
        applies: |call| {
            any_question(call, |q| {
                q.get("options")
                    .and_then(Value::as_array)
                    .is_some_and(|o| o.iter().any(Value::is_string))
            })
        },
        fix: Some(|call| {
            for q in questions(call) {
                if let Some(Value::Array(options)) = q.get_mut("options") {
                    for option in options.iter_mut().filter(|o| o.is_string()) {
                        *option = serde_json::json!({"label": option.clone(), "description": ""});
                    }
                }
            }
        }),
        reason: "askuser takes an option given as its label alone (kept from earlier releases, and its published `claude` schema says so); Claude Code wants `{label, description}`",
    },
    Known {
        name: "an option without a description",
        host_accepts: false,
        hosts: &[Host::Claude, Host::ClaudeEarlier],
        applies: |call| {
            any_question(call, |q| {
                q.get("options").and_then(Value::as_array).is_some_and(|o| {
                    o.iter().any(|o| {
                        o.as_object()
                            .is_some_and(|o| o.get("description").is_none_or(Value::is_null))
                    })
                })
            })
        },
        fix: Some(|call| {
            for q in questions(call) {
                if let Some(Value::Array(options)) = q.get_mut("options") {
                    for option in options.iter_mut().filter_map(Value::as_object_mut) {
                        if option.get("description").is_none_or(Value::is_null) {
                            option.insert("description".into(), "".into());
                        }
                    }
                }
            }
        }),
        reason: "Claude Code 2.1.332's own variant of the schema (`Oe`, behind a feature gate) makes `description` optional, and real calls without it were shown (issue 11); the default schema requires it",
    },
    Known {
        name: "a question without a header",
        host_accepts: false,
        hosts: &[Host::Claude, Host::ClaudeEarlier],
        applies: |call| any_question(call, |q| q.get("header").is_none_or(Value::is_null)),
        fix: Some(|call| {
            for q in questions(call) {
                if q.get("header").is_none_or(Value::is_null) {
                    q.insert("header".into(), "Header".into());
                }
            }
        }),
        reason: "askuser's `claude` and `pi` share one question shape (the REQ-AUQ contract) in which `header` is optional; Claude Code requires it",
    },
    Known {
        name: "an unknown top-level field",
        host_accepts: false,
        hosts: &[Host::Claude],
        applies: |call| {
            call.as_object()
                .is_some_and(|m| m.keys().any(|k| !CLAUDE_TOP.contains(&k.as_str())))
        },
        fix: Some(|call| {
            if let Some(map) = call.as_object_mut() {
                map.retain(|k, _| CLAUDE_TOP.contains(&k.as_str()));
            }
        }),
        reason: "Claude Code 2.1.332's input is a strict object; askuser ignores unknown fields, as earlier Claude Code did with `autoResolutionMs` (issue 11's real calls)",
    },
    Known {
        name: "a question without a type",
        host_accepts: false,
        hosts: &[Host::Gemini],
        applies: |call| any_question(call, |q| q.get("type").is_none_or(Value::is_null)),
        fix: Some(|call| {
            for q in questions(call) {
                if q.get("type").is_none_or(Value::is_null) {
                    q.insert("type".into(), "choice".into());
                }
            }
        }),
        reason: "Gemini CLI 0.30.0 and later require `type`; askuser takes a question without it as a choice, as Gemini CLI 0.27.0 to 0.29.0 did (`q.type ?? QuestionType.CHOICE`)",
    },
    Known {
        name: "a header over 16 characters",
        host_accepts: false,
        hosts: &[Host::GeminiEarlier],
        applies: |call| any_header(call, &mut |s| s.chars().count() > 16),
        fix: Some(|call| map_headers(call, &mut |s| *s = s.chars().take(16).collect())),
        reason: "Gemini CLI 0.29.0's schema has `maxLength: 16` on `header`; 0.36.0 and later have no limit, and askuser accepts what any release accepted",
    },
    Known {
        name: "a header over 12 characters",
        host_accepts: false,
        hosts: &[Host::OpenCodeEarlier],
        applies: |call| any_header(call, &mut |s| s.encode_utf16().count() > 12),
        fix: Some(|call| {
            map_headers(call, &mut |s| {
                while s.encode_utf16().count() > 12 {
                    s.pop();
                }
            });
        }),
        reason: "OpenCode 1.1.16's `header` is `.max(12)` (1.1.34 made it 30, later releases no limit); askuser accepts what any release accepted",
    },
    Known {
        name: "a top-level field of later releases, or an unknown one",
        host_accepts: false,
        hosts: &[Host::ClaudeEarlier],
        applies: |call| {
            call.as_object()
                .is_some_and(|m| m.keys().any(|k| !CLAUDE_2_0_TOP.contains(&k.as_str())))
        },
        fix: Some(|call| {
            if let Some(map) = call.as_object_mut() {
                map.retain(|k, _| CLAUDE_2_0_TOP.contains(&k.as_str()));
            }
        }),
        reason: "Claude Code 2.0.77's input is a strict object of `questions` and `answers` only (later releases added `annotations` and `metadata`: 2.1.100 has both); askuser ignores unknown fields",
    },
    known_mcp::NO_FIELDS,
    known_mcp::DEFAULT,
    known_mcp::OPTION_TEXT,
    known_mcp::NO_MESSAGE,
    known_mcp::MULTI_SELECT,
    known_mcp::URL_MODE,
];

/// The top-level fields of Claude Code's `AskUserQuestion` input.
const CLAUDE_TOP: [&str; 4] = ["questions", "answers", "annotations", "metadata"];

/// The top-level fields of Claude Code 2.0.77's `AskUserQuestion` input.
const CLAUDE_2_0_TOP: [&str; 2] = ["questions", "answers"];

/// The hosts whose calls are question lists, every release.
const ALL_QUESTION_HOSTS: &[Host] = &[
    Host::Gemini,
    Host::GeminiEarlier,
    Host::OpenCode,
    Host::OpenCodeEarlier,
    Host::Codex,
    Host::Claude,
    Host::ClaudeEarlier,
];

/// The known differences in meaning: calls that the host and askuser both accept
/// but show differently, because askuser follows the current release where an
/// earlier one showed the call otherwise. `host_accepts` is true for each (both
/// accept); explained, like [`KNOWN`], only when the fixed call agrees.
pub const MEANINGS: [Known; 4] = [
    Known {
        name: "a literal \\n kept as written",
        host_accepts: true,
        hosts: &[Host::GeminiEarlier],
        applies: |call| {
            let mut found = false;
            map_gemini_texts(&mut call.clone(), &mut |s| found |= s.contains("\\n"));
            found
        },
        fix: Some(|call| {
            map_gemini_texts(call, &mut |s| {
                *s = s.replace("\\r\\n", " ").replace("\\n", " ");
            });
        }),
        reason: "Gemini CLI 0.29.0 shows a literal `\\n` as written; 0.45.0 and later turn it into a line break, as askuser does",
    },
    Known {
        name: "a description with spaces around it",
        host_accepts: true,
        hosts: &[Host::GeminiEarlier],
        applies: |call| {
            let mut found = false;
            map_descriptions(&mut call.clone(), &mut |s| found |= s.trim() != s);
            found
        },
        fix: Some(|call| map_descriptions(call, &mut |s| *s = s.trim().to_owned())),
        reason: "Gemini CLI 0.29.0 shows an option's description untrimmed; 0.45.0 and later trim it (a blank one is none), as askuser does",
    },
    Known {
        name: "a yes/no question with free text",
        host_accepts: true,
        hosts: &[Host::GeminiEarlier],
        applies: |call| {
            any_question(call, |q| {
                q.get("type").and_then(Value::as_str) == Some("yesno")
            })
        },
        fix: Some(|call| {
            for q in questions(call) {
                if q.get("type").and_then(Value::as_str) == Some("yesno") {
                    q.insert("type".into(), "choice".into());
                    q.remove("multiSelect");
                    q.insert(
                        "options".into(),
                        serde_json::json!([{"label": "Yes", "description": ""},
                                           {"label": "No", "description": ""}]),
                    );
                }
            }
        }),
        reason: "Gemini CLI 0.29.0's dialog offers no free text beside Yes and No; 0.61.0 adds it (its schema says \"optional 'Other' feedback\" since 0.40.0), as askuser does: it cannot tell which release calls (both send `type: \"yesno\"`), and free text only adds a way to answer",
    },
    known_mcp::TITLED_SELECT,
];

/// Applies `f` to every text Gemini CLI unescapes: question, header, placeholder,
/// option label and description.
fn map_gemini_texts(call: &mut Value, f: &mut impl FnMut(&mut String)) {
    for q in questions(call) {
        for field in ["question", "header", "placeholder"] {
            if let Some(Value::String(s)) = q.get_mut(field) {
                f(s);
            }
        }
    }
    map_labels(call, f);
    map_descriptions(call, f);
}

/// Applies `f` to every option's description.
fn map_descriptions(call: &mut Value, f: &mut impl FnMut(&mut String)) {
    for q in questions(call) {
        let Some(Value::Array(options)) = q.get_mut("options") else {
            continue;
        };
        for option in options.iter_mut().filter_map(Value::as_object_mut) {
            if let Some(Value::String(s)) = option.get_mut("description") {
                f(s);
            }
        }
    }
}

/// Whether any question object of the call satisfies `test`.
fn any_question(call: &Value, test: impl Fn(&Map<String, Value>) -> bool) -> bool {
    call.get("questions")
        .and_then(Value::as_array)
        .is_some_and(|qs| qs.iter().filter_map(Value::as_object).any(test))
}

/// Whether any value in `value` (at any depth) satisfies `test`.
fn any_value(value: &Value, test: &mut impl FnMut(&Value) -> bool) -> bool {
    test(value)
        || match value {
            Value::Array(items) => items.iter().any(|v| any_value(v, test)),
            Value::Object(map) => map.values().any(|v| any_value(v, test)),
            _ => false,
        }
}

fn drop_nulls(value: &mut Value) {
    match value {
        Value::Array(items) => items.iter_mut().for_each(drop_nulls),
        Value::Object(map) => {
            map.retain(|_, v| !v.is_null());
            map.values_mut().for_each(drop_nulls);
        }
        _ => {}
    }
}

/// The questions of a call that are objects.
fn questions(call: &mut Value) -> impl Iterator<Item = &mut Map<String, Value>> {
    call.get_mut("questions")
        .and_then(Value::as_array_mut)
        .into_iter()
        .flatten()
        .filter_map(Value::as_object_mut)
}

/// Applies `f` to every question text, header, id and option label.
fn map_texts(call: &mut Value, f: &mut impl FnMut(&mut String)) {
    for q in questions(call) {
        for field in ["question", "header", "id"] {
            if let Some(Value::String(s)) = q.get_mut(field) {
                f(s);
            }
        }
    }
    map_labels(call, f);
}

/// Applies `f` to every option label (an object's `label`, or a plain string).
fn map_labels(call: &mut Value, f: &mut impl FnMut(&mut String)) {
    for q in questions(call) {
        let Some(Value::Array(options)) = q.get_mut("options") else {
            continue;
        };
        for option in options {
            match option {
                Value::String(s) => f(s),
                Value::Object(o) => {
                    if let Some(Value::String(s)) = o.get_mut("label") {
                        f(s);
                    }
                }
                _ => {}
            }
        }
    }
}

/// Applies `f` to every question's header.
fn map_headers(call: &mut Value, f: &mut impl FnMut(&mut String)) {
    for q in questions(call) {
        if let Some(Value::String(s)) = q.get_mut("header") {
            f(s);
        }
    }
}

fn any_header(call: &Value, test: &mut impl FnMut(&str) -> bool) -> bool {
    let mut found = false;
    map_headers(&mut call.clone(), &mut |s| found |= test(s));
    found
}

fn any_text(call: &Value, test: &mut impl FnMut(&str) -> bool) -> bool {
    let mut found = false;
    map_texts(&mut call.clone(), &mut |s| found |= test(s));
    found
}

fn any_label(call: &Value, test: &mut impl FnMut(&str) -> bool) -> bool {
    let mut found = false;
    map_labels(&mut call.clone(), &mut |s| found |= test(s));
    found
}

/// Whether a question repeats an option label.
fn repeated_label(call: &Value) -> bool {
    let mut call = call.clone();
    questions(&mut call).any(|q| {
        let mut seen = Vec::new();
        let mut one = json_question(q);
        let mut repeated = false;
        map_labels(&mut one, &mut |s| {
            repeated |= seen.contains(s);
            seen.push(s.clone());
        });
        repeated
    })
}

fn json_question(q: &Map<String, Value>) -> Value {
    serde_json::json!({ "questions": [q] })
}

/// Makes every option label of a question distinct, by numbering repeats.
fn renumber_labels(call: &mut Value) {
    for q in questions(call) {
        let mut one = json_question(q);
        let mut seen: Vec<String> = Vec::new();
        map_labels(&mut one, &mut |s| {
            if seen.contains(s) {
                let _ = write!(s, " ({})", seen.len() + 1);
            }
            seen.push(s.clone());
        });
        if let Some(options) = one["questions"][0].get("options") {
            q.insert("options".into(), options.clone());
        }
    }
}
