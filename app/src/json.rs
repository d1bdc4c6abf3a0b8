//! JSON read strictly: an object that names a key twice is refused.
//!
//! `serde_json`'s `Value` silently keeps the last of two equal keys, so
//! `{"type":"ask","type":"answer"}` reads as an answer while a log or a reviewer
//! reading the line may see an ask. Every line from a host and every pending file is
//! read through [`from_str_unique`], which builds the same `Value` but refuses a
//! repeated key, naming it.

use std::fmt;

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

/// The longest key quoted in an error message, in characters.
const QUOTED_KEY_CHARS: usize = 64;

/// Parses `text` as one JSON value, refusing an object that has a key twice.
///
/// # Errors
/// Not JSON, trailing characters, nesting deeper than `serde_json`'s limit (128), or a
/// repeated key: `the key "type" appears twice in one object at line 1 column 28`
/// (a data error, [`serde_json::error::Category::Data`]).
pub fn from_str_unique(text: &str) -> Result<Value, serde_json::Error> {
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let value = UniqueValue.deserialize(&mut deserializer)?;
    deserializer.end()?;
    Ok(value)
}

/// A seed that reads any JSON value, refusing repeated keys at every level.
#[derive(Clone, Copy)]
struct UniqueValue;

impl<'de> DeserializeSeed<'de> for UniqueValue {
    type Value = Value;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for UniqueValue {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(64));
        while let Some(item) = seq.next_element_seed(UniqueValue)? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Value, A::Error> {
        let mut map = Map::new();
        while let Some(key) = access.next_key::<String>()? {
            if map.contains_key(&key) {
                return Err(de::Error::custom(format_args!(
                    "the key \"{}\" appears twice in one object",
                    quoted_key(&key)
                )));
            }
            let value = access.next_value_seed(UniqueValue)?;
            map.insert(key, value);
        }
        Ok(Value::Object(map))
    }
}

/// A key for a message: its first [`QUOTED_KEY_CHARS`] characters, with control,
/// bidi-control and invisible characters made visible.
fn quoted_key(key: &str) -> String {
    let mut shown: String = key.chars().take(QUOTED_KEY_CHARS).collect();
    if shown.len() < key.len() {
        shown.push('…');
    }
    askuser_core::text::for_display_line(&shown).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_repeated_key_is_refused_at_any_depth() {
        let cases = [
            (
                r#"{"type":"ask","type":"answer"}"#,
                "the key \"type\" appears twice in one object at line 1 column 20",
            ),
            (
                r#"{"a":[{"b":1,"c":{"d":1,"d":2}}]}"#,
                "the key \"d\" appears twice in one object at line 1 column 27",
            ),
            (
                "{\"\\u001b]2;x\":1,\"\\u001b]2;x\":2}",
                "the key \"\\u{1b}]2;x\" appears twice in one object at line 1 column 28",
            ),
        ];
        for (text, message) in cases {
            let error = from_str_unique(text).unwrap_err();
            assert_eq!(error.to_string(), message, "{text}");
            assert_eq!(error.classify(), serde_json::error::Category::Data);
        }
    }

    #[test]
    fn everything_else_reads_as_serde_json_reads_it() {
        let texts = [
            r#"{"a":1,"b":[true,null,-2,1.5e300,"x"],"c":{"a":{}}}"#,
            "18446744073709551615",
            r#""\u00e9\n""#,
            "[]",
        ];
        for text in texts {
            let expected: Value = serde_json::from_str(text).unwrap();
            assert_eq!(from_str_unique(text).unwrap(), expected, "{text}");
        }
        assert_eq!(
            from_str_unique(r#"{"z":1,"a":2}"#).unwrap(),
            json!({"z": 1, "a": 2})
        );
        assert_eq!(
            from_str_unique("{} x").unwrap_err().to_string(),
            "trailing characters at line 1 column 4"
        );
        let deep = "[".repeat(200);
        assert_eq!(
            from_str_unique(&deep).unwrap_err().to_string(),
            "recursion limit exceeded at line 1 column 128"
        );
    }
}
