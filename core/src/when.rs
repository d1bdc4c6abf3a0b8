//! `when` predicates: ask a question only if earlier answers say so.
//!
//! In JSON a predicate is one of
//!
//! | shape | holds when |
//! |---|---|
//! | `{"question_id": "q", "equals": v}` | the answer to `q` is `v` (the seed's form) |
//! | `{"question_id": "q", "not_equals": v}` | the answer to `q` is not `v` |
//! | `{"question_id": "q", "one_of": [v, ...]}` | the answer to `q` is one of the values |
//! | `{"question_id": "q", "contains": v}` | the `multi_select` answer to `q` includes `v` |
//! | `{"all": [p, ...]}` / `{"any": [p, ...]}` | every / some nested predicate holds |
//! | `{"not": p}` | the nested predicate does not hold |
//!
//! A skipped question's answer is `null`, so `{"question_id": "q", "equals": null}`
//! holds exactly when `q` was skipped.

use serde::ser::SerializeMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::{FormError, FormErrorKind};
use crate::limits::MAX_WHEN_DEPTH;
use crate::pointer::At;

/// A predicate over earlier answers that gates a question.
#[derive(Debug, Clone, PartialEq)]
pub enum When {
    /// The answer to `question_id` equals the value.
    Equals {
        /// The earlier question whose answer is compared.
        question_id: String,
        /// The value it must equal.
        value: Value,
    },
    /// The answer to `question_id` differs from the value.
    NotEquals {
        /// The earlier question whose answer is compared.
        question_id: String,
        /// The value it must differ from.
        value: Value,
    },
    /// The answer to `question_id` equals one of the values.
    OneOf {
        /// The earlier question whose answer is compared.
        question_id: String,
        /// The values it may equal.
        values: Vec<Value>,
    },
    /// The `multi_select` answer to `question_id` includes the value.
    Contains {
        /// The earlier `multi_select` question.
        question_id: String,
        /// The option that must be among the picks.
        value: Value,
    },
    /// Every nested predicate holds.
    All(Vec<When>),
    /// At least one nested predicate holds.
    Any(Vec<When>),
    /// The nested predicate does not hold.
    Not(Box<When>),
}

impl When {
    /// `{"question_id": id, "equals": value}`.
    pub fn equals(question_id: impl Into<String>, value: impl Into<Value>) -> Self {
        When::Equals {
            question_id: question_id.into(),
            value: value.into(),
        }
    }

    /// `{"question_id": id, "not_equals": value}`.
    pub fn not_equals(question_id: impl Into<String>, value: impl Into<Value>) -> Self {
        When::NotEquals {
            question_id: question_id.into(),
            value: value.into(),
        }
    }

    /// `{"question_id": id, "one_of": values}`.
    pub fn one_of<V: Into<Value>>(
        question_id: impl Into<String>,
        values: impl IntoIterator<Item = V>,
    ) -> Self {
        When::OneOf {
            question_id: question_id.into(),
            values: values.into_iter().map(Into::into).collect(),
        }
    }

    /// `{"question_id": id, "contains": value}`.
    pub fn contains(question_id: impl Into<String>, value: impl Into<Value>) -> Self {
        When::Contains {
            question_id: question_id.into(),
            value: value.into(),
        }
    }

    /// The operator's key in JSON (`"equals"`, `"all"`, ...).
    pub fn operator(&self) -> &'static str {
        match self {
            When::Equals { .. } => "equals",
            When::NotEquals { .. } => "not_equals",
            When::OneOf { .. } => "one_of",
            When::Contains { .. } => "contains",
            When::All(_) => "all",
            When::Any(_) => "any",
            When::Not(_) => "not",
        }
    }

    /// The predicate as JSON.
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

impl Serialize for When {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        match self {
            When::Equals { question_id, value }
            | When::NotEquals { question_id, value }
            | When::Contains { question_id, value } => {
                map.serialize_entry("question_id", question_id)?;
                map.serialize_entry(self.operator(), value)?;
            }
            When::OneOf {
                question_id,
                values,
            } => {
                map.serialize_entry("question_id", question_id)?;
                map.serialize_entry("one_of", values)?;
            }
            When::All(all) | When::Any(all) => map.serialize_entry(self.operator(), all)?,
            When::Not(inner) => map.serialize_entry("not", inner)?,
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for When {
    /// Reads a predicate straight from the deserializer (no intermediate JSON value);
    /// malformed predicates are errors with the same wording as [`parse_form`]'s.
    ///
    /// [`parse_form`]: crate::parse_form
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(WhenVisitor)
    }
}

struct WhenVisitor;

/// The keys of one predicate object, as read.
#[derive(Default)]
struct WhenFields {
    question_id: Option<String>,
    /// The one operator and its operand; a second operator is an error.
    operator: Option<(&'static str, Operand)>,
}

enum Operand {
    Value(Value),
    Values(Vec<Value>),
    Nested(Vec<When>),
    Inner(Box<When>),
}

impl<'de> serde::de::Visitor<'de> for WhenVisitor {
    type Value = When;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a predicate such as {\"question_id\": \"apply\", \"equals\": true}")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<When, A::Error> {
        use serde::de::Error;
        let mut fields = WhenFields::default();
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            let (name, operand) = match key.as_ref() {
                "question_id" => {
                    fields.question_id = Some(map.next_value()?);
                    continue;
                }
                "equals" => ("equals", Operand::Value(map.next_value()?)),
                "not_equals" => ("not_equals", Operand::Value(map.next_value()?)),
                "contains" => ("contains", Operand::Value(map.next_value()?)),
                "one_of" => ("one_of", Operand::Values(map.next_value()?)),
                "all" => ("all", Operand::Nested(map.next_value()?)),
                "any" => ("any", Operand::Nested(map.next_value()?)),
                "not" => ("not", Operand::Inner(map.next_value()?)),
                other => {
                    return Err(A::Error::custom(FormErrorKind::WhenUnknownKey {
                        key: other.to_owned(),
                    }));
                }
            };
            if let Some((first, _)) = &fields.operator {
                return Err(A::Error::custom(FormErrorKind::WhenOperatorCount {
                    found: vec![(*first).to_owned(), name.to_owned()],
                }));
            }
            fields.operator = Some((name, operand));
        }
        let Some((name, operand)) = fields.operator else {
            return Err(A::Error::custom(FormErrorKind::WhenOperatorCount {
                found: vec![],
            }));
        };
        let empty = |operator: &str| {
            A::Error::custom(FormErrorKind::WhenEmptyGroup {
                operator: operator.to_owned(),
            })
        };
        match (operand, fields.question_id) {
            (Operand::Nested(items), None) if items.is_empty() => Err(empty(name)),
            (Operand::Nested(items), None) if name == "all" => Ok(When::All(items)),
            (Operand::Nested(items), None) => Ok(When::Any(items)),
            (Operand::Inner(inner), None) => Ok(When::Not(inner)),
            (Operand::Nested(_) | Operand::Inner(_), Some(_)) => Err(A::Error::custom(
                FormErrorKind::WhenCombinatorWithQuestion {
                    operator: name.to_owned(),
                },
            )),
            (_, None) => Err(A::Error::custom(FormErrorKind::WhenMissingQuestionId {
                operator: name.to_owned(),
            })),
            (Operand::Values(values), Some(_)) if values.is_empty() => Err(empty(name)),
            (Operand::Values(values), Some(question_id)) => Ok(When::OneOf {
                question_id,
                values,
            }),
            (Operand::Value(value), Some(question_id)) => Ok(match name {
                "equals" => When::Equals { question_id, value },
                "not_equals" => When::NotEquals { question_id, value },
                _ => When::Contains { question_id, value },
            }),
        }
    }
}

const COMPARISONS: [&str; 4] = ["equals", "not_equals", "one_of", "contains"];
const COMBINATORS: [&str; 3] = ["all", "any", "not"];

/// Reads a `when` predicate from JSON, pushing every problem onto `errors` with its
/// JSON pointer (under `at`). Returns `None` where nothing usable was found.
pub(crate) fn parse_when(
    value: &Value,
    at: &At<'_>,
    depth: usize,
    errors: &mut Vec<FormError>,
) -> Option<When> {
    let push = |errors: &mut Vec<FormError>, at: &At<'_>, kind| {
        errors.push(FormError::new(at.pointer(), kind));
    };
    // `depth` counts from 0 at the top predicate: level `depth + 1`.
    if depth >= MAX_WHEN_DEPTH {
        push(
            errors,
            at,
            FormErrorKind::WhenTooDeep {
                max: MAX_WHEN_DEPTH,
            },
        );
        return None;
    }
    let Value::Object(map) = value else {
        push(errors, at, FormErrorKind::WhenNotAnObject);
        return None;
    };
    let is_operator = |key: &str| COMPARISONS.contains(&key) || COMBINATORS.contains(&key);
    let mut operators = map
        .keys()
        .map(String::as_str)
        .filter(|key| is_operator(key));
    let (Some(operator), None) = (operators.next(), operators.next()) else {
        report_keys(map, at, errors);
        let found = map.keys().filter(|key| is_operator(key)).cloned().collect();
        push(errors, at, FormErrorKind::WhenOperatorCount { found });
        return None;
    };
    if report_keys(map, at, errors) {
        return None;
    }
    let operand = &map[operator];
    if COMBINATORS.contains(&operator) {
        parse_combinator(map, operator, operand, at, depth, errors)
    } else {
        parse_comparison(map, operator, operand, at, errors)
    }
}

/// Reports every key that is neither `question_id` nor an operator; whether there was one.
fn report_keys(
    map: &serde_json::Map<String, Value>,
    at: &At<'_>,
    errors: &mut Vec<FormError>,
) -> bool {
    let mut found = false;
    for key in map.keys() {
        if key != "question_id"
            && !COMPARISONS.contains(&key.as_str())
            && !COMBINATORS.contains(&key.as_str())
        {
            found = true;
            errors.push(FormError::new(
                at.key(key).pointer(),
                FormErrorKind::WhenUnknownKey { key: key.clone() },
            ));
        }
    }
    found
}

/// `all`, `any` or `not`.
fn parse_combinator(
    map: &serde_json::Map<String, Value>,
    operator: &str,
    operand: &Value,
    at: &At<'_>,
    depth: usize,
    errors: &mut Vec<FormError>,
) -> Option<When> {
    let operand_at = at.key(operator);
    if map.contains_key("question_id") {
        errors.push(FormError::new(
            at.key("question_id").pointer(),
            FormErrorKind::WhenCombinatorWithQuestion {
                operator: operator.to_owned(),
            },
        ));
    }
    if operator == "not" {
        return parse_when(operand, &operand_at, depth + 1, errors)
            .map(|inner| When::Not(Box::new(inner)));
    }
    let Value::Array(items) = operand else {
        errors.push(FormError::new(
            operand_at.pointer(),
            FormErrorKind::WhenGroupNotAList {
                operator: operator.to_owned(),
            },
        ));
        return None;
    };
    if items.is_empty() {
        errors.push(FormError::new(
            operand_at.pointer(),
            FormErrorKind::WhenEmptyGroup {
                operator: operator.to_owned(),
            },
        ));
        return None;
    }
    let before = errors.len();
    let nested: Vec<When> = items
        .iter()
        .enumerate()
        .filter_map(|(i, item)| parse_when(item, &operand_at.index(i), depth + 1, errors))
        .collect();
    if errors.len() > before {
        return None;
    }
    Some(if operator == "all" {
        When::All(nested)
    } else {
        When::Any(nested)
    })
}

/// `equals`, `not_equals`, `one_of` or `contains`, with its `question_id`.
fn parse_comparison(
    map: &serde_json::Map<String, Value>,
    operator: &str,
    operand: &Value,
    at: &At<'_>,
    errors: &mut Vec<FormError>,
) -> Option<When> {
    let question_id = match map.get("question_id") {
        Some(Value::String(id)) => id.clone(),
        Some(_) => {
            errors.push(FormError::new(
                at.key("question_id").pointer(),
                FormErrorKind::WrongType {
                    expected: "a string (the id of an earlier question)",
                },
            ));
            return None;
        }
        None => {
            errors.push(FormError::new(
                at.key("question_id").pointer(),
                FormErrorKind::WhenMissingQuestionId {
                    operator: operator.to_owned(),
                },
            ));
            return None;
        }
    };
    let value = operand.clone();
    Some(match operator {
        "equals" => When::Equals { question_id, value },
        "not_equals" => When::NotEquals { question_id, value },
        "contains" => When::Contains { question_id, value },
        _ => {
            let operand_at = at.key(operator);
            let Value::Array(values) = value else {
                errors.push(FormError::new(
                    operand_at.pointer(),
                    FormErrorKind::WhenOneOfNotAList,
                ));
                return None;
            };
            if values.is_empty() {
                errors.push(FormError::new(
                    operand_at.pointer(),
                    FormErrorKind::WhenEmptyGroup {
                        operator: "one_of".to_owned(),
                    },
                ));
                return None;
            }
            When::OneOf {
                question_id,
                values,
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_shape_round_trips_through_json() {
        let shapes = [
            json!({"question_id": "apply", "equals": true}),
            json!({"question_id": "env", "not_equals": "production"}),
            json!({"question_id": "env", "one_of": ["staging", "production"]}),
            json!({"question_id": "features", "contains": "auth"}),
            json!({"all": [{"question_id": "a", "equals": 1}, {"not": {"question_id": "b", "equals": 2}}]}),
            json!({"any": [{"question_id": "a", "equals": 1}]}),
        ];
        for shape in shapes {
            let when: When = serde_json::from_value(shape.clone()).unwrap();
            assert_eq!(when.to_json(), shape);
        }
    }

    #[test]
    fn deserializing_reports_malformed_predicates_in_the_form_errors_words() {
        let cases = [
            (
                json!({"question_id": "a"}),
                "a predicate needs exactly one operator (equals, not_equals, one_of, contains, all, any or not); found none",
            ),
            (
                json!({"question_id": "a", "equals": 1, "not_equals": 2}),
                "a predicate needs exactly one operator (equals, not_equals, one_of, contains, all, any or not); found equals, not_equals",
            ),
            (
                json!({"equals": 1}),
                "`equals` needs `question_id`: the id of an earlier question",
            ),
            (json!({"any": []}), "`any` is empty; give at least one"),
            (
                json!({"question_id": "a", "not": {"question_id": "a", "equals": 1}}),
                "`not` takes nested predicates: remove question_id here and put it in each nested predicate",
            ),
            (
                json!({"question_id": "a", "equal": 1}),
                "unknown key `equal` in a predicate; use question_id with one of equals, not_equals, one_of, contains, or one of all, any, not",
            ),
        ];
        for (value, message) in cases {
            let error = serde_json::from_value::<When>(value).unwrap_err();
            assert_eq!(error.to_string(), message);
        }
    }

    #[test]
    fn malformed_predicates_name_the_field() {
        let mut errors = Vec::new();
        let question = At::question(1);
        let parsed = parse_when(
            &json!({"question_id": "a", "equals": 1, "one_of": [1]}),
            &question.key("when"),
            0,
            &mut errors,
        );
        assert_eq!(parsed, None);
        assert_eq!(
            errors.iter().map(ToString::to_string).collect::<Vec<_>>(),
            [
                "/questions/1/when: a predicate needs exactly one operator (equals, not_equals, one_of, contains, all, any or not); found equals, one_of"
            ]
        );
    }

    #[test]
    fn nesting_beyond_the_limit_is_an_error_not_a_stack_overflow() {
        let mut value = json!({"question_id": "a", "equals": true});
        for _ in 0..120 {
            value = json!({ "not": value });
        }
        let mut errors = Vec::new();
        assert_eq!(parse_when(&value, &At::Root.key("w"), 0, &mut errors), None);
        assert_eq!(errors.len(), 1);
        assert_eq!(
            errors[0].kind,
            FormErrorKind::WhenTooDeep {
                max: MAX_WHEN_DEPTH
            }
        );
    }
}
