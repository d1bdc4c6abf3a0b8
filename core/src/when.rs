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
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        let mut errors = Vec::new();
        match parse_when(&value, "", 0, &mut errors) {
            Some(when) if errors.is_empty() => Ok(when),
            _ => Err(serde::de::Error::custom(errors.first().map_or_else(
                || "invalid `when` predicate".to_owned(),
                ToString::to_string,
            ))),
        }
    }
}

const COMPARISONS: [&str; 4] = ["equals", "not_equals", "one_of", "contains"];
const COMBINATORS: [&str; 3] = ["all", "any", "not"];

/// Reads a `when` predicate from JSON, pushing every problem onto `errors` with its
/// JSON-pointer path (prefixed by `path`). Returns `None` where nothing usable was found.
pub(crate) fn parse_when(
    value: &Value,
    path: &str,
    depth: usize,
    errors: &mut Vec<FormError>,
) -> Option<When> {
    let error = |kind| FormError::new(path.to_owned(), kind);
    if depth > MAX_WHEN_DEPTH {
        errors.push(error(FormErrorKind::WhenTooDeep {
            max: MAX_WHEN_DEPTH,
        }));
        return None;
    }
    let Value::Object(map) = value else {
        errors.push(error(FormErrorKind::WhenNotAnObject));
        return None;
    };
    let operators: Vec<&str> = map
        .keys()
        .map(String::as_str)
        .filter(|key| COMPARISONS.contains(key) || COMBINATORS.contains(key))
        .collect();
    let unknown: Vec<&str> = map
        .keys()
        .map(String::as_str)
        .filter(|key| *key != "question_id" && !operators.contains(key))
        .collect();
    for key in &unknown {
        errors.push(FormError::new(
            format!("{path}/{}", crate::error::escape_pointer(key)),
            FormErrorKind::WhenUnknownKey {
                key: (*key).to_owned(),
            },
        ));
    }
    let [operator] = operators[..] else {
        errors.push(error(FormErrorKind::WhenOperatorCount {
            found: operators.iter().map(|key| (*key).to_owned()).collect(),
        }));
        return None;
    };
    let operand = &map[operator];
    if COMBINATORS.contains(&operator) {
        parse_combinator(map, operator, operand, path, depth, errors)
    } else if unknown.is_empty() {
        parse_comparison(map, operator, operand, path, errors)
    } else {
        None
    }
}

/// `all`, `any` or `not`.
fn parse_combinator(
    map: &serde_json::Map<String, Value>,
    operator: &str,
    operand: &Value,
    path: &str,
    depth: usize,
    errors: &mut Vec<FormError>,
) -> Option<When> {
    let operand_path = format!("{path}/{operator}");
    if map.contains_key("question_id") {
        errors.push(FormError::new(
            format!("{path}/question_id"),
            FormErrorKind::WhenCombinatorWithQuestion {
                operator: operator.to_owned(),
            },
        ));
    }
    if operator == "not" {
        return parse_when(operand, &operand_path, depth + 1, errors)
            .map(|inner| When::Not(Box::new(inner)));
    }
    let Value::Array(items) = operand else {
        errors.push(FormError::new(
            operand_path,
            FormErrorKind::WhenGroupNotAList {
                operator: operator.to_owned(),
            },
        ));
        return None;
    };
    if items.is_empty() {
        errors.push(FormError::new(
            operand_path,
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
        .filter_map(|(i, item)| parse_when(item, &format!("{operand_path}/{i}"), depth + 1, errors))
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
    path: &str,
    errors: &mut Vec<FormError>,
) -> Option<When> {
    let question_id = match map.get("question_id") {
        Some(Value::String(id)) => id.clone(),
        Some(_) => {
            errors.push(FormError::new(
                format!("{path}/question_id"),
                FormErrorKind::WrongType {
                    expected: "a string (the id of an earlier question)",
                },
            ));
            return None;
        }
        None => {
            errors.push(FormError::new(
                format!("{path}/question_id"),
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
            let operand_path = format!("{path}/{operator}");
            let Value::Array(values) = value else {
                errors.push(FormError::new(
                    operand_path,
                    FormErrorKind::WhenOneOfNotAList,
                ));
                return None;
            };
            if values.is_empty() {
                errors.push(FormError::new(
                    operand_path,
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
    fn malformed_predicates_name_the_field() {
        let mut errors = Vec::new();
        let parsed = parse_when(
            &json!({"question_id": "a", "equals": 1, "one_of": [1]}),
            "/questions/1/when",
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
        assert_eq!(parse_when(&value, "/w", 0, &mut errors), None);
        assert_eq!(errors.len(), 1);
        assert_eq!(
            errors[0].kind,
            FormErrorKind::WhenTooDeep {
                max: MAX_WHEN_DEPTH
            }
        );
    }
}
