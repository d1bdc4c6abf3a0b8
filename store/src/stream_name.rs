//! [`StreamName`]: a stream's name, checked once against the one rule, so
//! everything past the edge that parsed it can rely on it.

use std::borrow::Borrow;
use std::fmt;
use std::str::FromStr;

use askuser_core::text::{ForbiddenChar, Lines, forbidden_char};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::codec::{MAX_STREAM_NAME, check_name};
use crate::error::StoreError;

/// The rule in words, after what is wrong.
const RULE: &str = "a stream name is 1 to 200 bytes of plain text, such as \"session-1\"";

/// A stream's name that keeps the one rule: 1 to [`MAX_STREAM_NAME`] bytes of
/// one line of plain text, with no control, bidi-control or invisible character
/// ([`forbidden_char`] with [`Lines::One`]): a name is shown to people, in
/// terminals and on web pages. Every other character is allowed (spaces, `/`, a
/// leading `-`, any script). Made only by [`TryFrom`], [`FromStr`],
/// [`Deserialize`] or [`IntoStreamName`], each of which checks it.
///
/// It derefs and borrows as a `str`, so a map keyed by it is looked up by `&str`.
///
/// ```
/// use askuser_store::{StreamName, StreamNameError};
///
/// let name: StreamName = "session-1".parse().unwrap();
/// assert_eq!(name.as_str(), "session-1");
/// assert_eq!(StreamName::try_from(""), Err(StreamNameError::Empty));
/// assert_eq!(
///     StreamName::try_from("a\u{202e}b").unwrap_err().to_string(),
///     "has U+202E RIGHT-TO-LEFT OVERRIDE at character 2; a stream name is 1 to 200 bytes of plain text, such as \"session-1\""
/// );
/// ```
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct StreamName(String);

/// Why a string is not a stream's name. Its text reads after the name of the
/// field or option that held it (`--stream is empty; a stream name is …`) and
/// ends with the rule, so a person knows what to write instead.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
pub enum StreamNameError {
    /// The name is empty: give a name such as `session-1`.
    #[error("is empty; {RULE}")]
    Empty,
    /// The name is longer than [`MAX_STREAM_NAME`] bytes (UTF-8): shorten it.
    #[error("is {len} bytes long; {RULE}")]
    TooLong {
        /// Its length in bytes.
        len: usize,
        /// The longest a name may be, in bytes ([`MAX_STREAM_NAME`]).
        max: usize,
    },
    /// The name holds a control (a line break, a tab, an escape), bidi-control or
    /// invisible character: remove it.
    #[error("has {}; {RULE}", ForbiddenChar { ch: *ch, position: *at })]
    Forbidden {
        /// The character.
        ch: char,
        /// Its 1-based position, counted in characters.
        at: usize,
    },
}

impl StreamName {
    /// Checks `name` against the rule without taking it.
    ///
    /// # Errors
    /// What is wrong with it.
    pub fn check(name: &str) -> Result<(), StreamNameError> {
        if name.is_empty() {
            Err(StreamNameError::Empty)
        } else if name.len() > MAX_STREAM_NAME {
            Err(StreamNameError::TooLong {
                len: name.len(),
                max: MAX_STREAM_NAME,
            })
        } else if let Some(found) = forbidden_char(name, Lines::One) {
            Err(StreamNameError::Forbidden {
                ch: found.ch,
                at: found.position,
            })
        } else {
            Ok(())
        }
    }

    /// The name.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The name, as a `String`.
    pub fn into_string(self) -> String {
        self.0
    }
}

impl TryFrom<&str> for StreamName {
    type Error = StreamNameError;

    fn try_from(name: &str) -> Result<Self, Self::Error> {
        Self::check(name)?;
        Ok(Self(name.to_owned()))
    }
}

impl TryFrom<&String> for StreamName {
    type Error = StreamNameError;

    fn try_from(name: &String) -> Result<Self, Self::Error> {
        Self::try_from(name.as_str())
    }
}

impl TryFrom<String> for StreamName {
    type Error = StreamNameError;

    fn try_from(name: String) -> Result<Self, Self::Error> {
        Self::check(&name)?;
        Ok(Self(name))
    }
}

impl FromStr for StreamName {
    type Err = StreamNameError;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Self::try_from(name)
    }
}

/// What [`Session::open`](crate::Session::open) takes: a [`StreamName`] as it
/// is, or a string checked now (its error names the string).
pub trait IntoStreamName {
    /// The name, checked.
    ///
    /// # Errors
    /// [`StoreError::InvalidStreamName`] for a string that breaks the rule.
    fn into_stream_name(self) -> Result<StreamName, StoreError>;
}

impl IntoStreamName for StreamName {
    fn into_stream_name(self) -> Result<StreamName, StoreError> {
        Ok(self)
    }
}

impl IntoStreamName for &StreamName {
    fn into_stream_name(self) -> Result<StreamName, StoreError> {
        Ok(self.clone())
    }
}

impl IntoStreamName for &str {
    fn into_stream_name(self) -> Result<StreamName, StoreError> {
        check_name(self)?;
        Ok(StreamName(self.to_owned()))
    }
}

impl IntoStreamName for &String {
    fn into_stream_name(self) -> Result<StreamName, StoreError> {
        self.as_str().into_stream_name()
    }
}

impl IntoStreamName for String {
    fn into_stream_name(self) -> Result<StreamName, StoreError> {
        check_name(&self)?;
        Ok(StreamName(self))
    }
}

impl From<StreamName> for String {
    fn from(name: StreamName) -> Self {
        name.0
    }
}

impl fmt::Display for StreamName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Debug for StreamName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.0, f)
    }
}

impl std::ops::Deref for StreamName {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for StreamName {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl Borrow<str> for StreamName {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl PartialEq<str> for StreamName {
    fn eq(&self, other: &str) -> bool {
        self.0 == other
    }
}

impl PartialEq<&str> for StreamName {
    fn eq(&self, other: &&str) -> bool {
        self.0 == *other
    }
}

impl Serialize for StreamName {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for StreamName {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = String::deserialize(deserializer)?;
        Self::try_from(name)
            .map_err(|error| serde::de::Error::custom(format_args!("the stream name {error}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn the_edges_of_the_rule() {
        assert_eq!(StreamName::check(""), Err(StreamNameError::Empty));
        assert_eq!(StreamName::check(&"x".repeat(200)), Ok(()));
        assert_eq!(
            StreamName::check(&"x".repeat(201)),
            Err(StreamNameError::TooLong { len: 201, max: 200 })
        );
        // Bytes, not characters: 100 two-byte letters fit, 101 do not.
        assert_eq!(StreamName::check(&"é".repeat(100)), Ok(()));
        assert_eq!(
            StreamName::check(&"é".repeat(101)),
            Err(StreamNameError::TooLong { len: 202, max: 200 })
        );
        for (name, ch, at) in [
            ("a\nb", '\n', 2),
            ("tab\there", '\t', 4),
            ("a\u{1b}[2J", '\u{1b}', 2),
            ("\u{7f}", '\u{7f}', 1),
            ("a\u{85}", '\u{85}', 2),
            ("a\u{202e}b", '\u{202e}', 2),
            ("a\u{2066}b", '\u{2066}', 2),
            ("a\u{200b}b", '\u{200b}', 2),
            ("שיחה\u{feff}", '\u{feff}', 5),
            // Since issue 28 the rule (core's `forbidden_char`) refuses Unicode's
            // line separator too, with every format and default-ignorable character.
            ("a\u{2028}b", '\u{2028}', 2),
            ("a\u{1d173}b", '\u{1d173}', 2),
        ] {
            assert_eq!(
                StreamName::check(name),
                Err(StreamNameError::Forbidden { ch, at }),
                "{name:?}"
            );
        }
        for name in [
            "session-1",
            "שיחה-1",
            "a b",
            "-leading",
            "a/b",
            "x.fork-3-2",
            "..",
        ] {
            assert_eq!(StreamName::check(name), Ok(()), "{name:?}");
        }
    }

    #[test]
    fn the_words_people_see() {
        assert_eq!(
            StreamNameError::Empty.to_string(),
            "is empty; a stream name is 1 to 200 bytes of plain text, such as \"session-1\""
        );
        assert_eq!(
            StreamName::try_from("x".repeat(201))
                .unwrap_err()
                .to_string(),
            "is 201 bytes long; a stream name is 1 to 200 bytes of plain text, such as \"session-1\""
        );
        assert_eq!(
            StreamName::try_from("a\u{1b}").unwrap_err().to_string(),
            "has U+001B ESCAPE at character 2; a stream name is 1 to 200 bytes of plain text, such as \"session-1\""
        );
    }

    #[test]
    fn serde_round_trips_a_name_and_refuses_a_bad_one() {
        let name = StreamName::try_from("שיחה-1").unwrap();
        let json = serde_json::to_string(&name).unwrap();
        assert_eq!(json, "\"שיחה-1\"");
        assert_eq!(serde_json::from_str::<StreamName>(&json).unwrap(), name);
        let error = serde_json::from_str::<StreamName>("\"a\\u202eb\"").unwrap_err();
        assert_eq!(
            error.to_string(),
            "the stream name has U+202E RIGHT-TO-LEFT OVERRIDE at character 2; a stream name is 1 to 200 bytes of plain text, such as \"session-1\""
        );
        assert!(serde_json::from_str::<StreamName>("\"\"").is_err());
        let packed = rmp_serde::to_vec(&"x".repeat(201)).unwrap();
        assert!(rmp_serde::from_slice::<StreamName>(&packed).is_err());
    }

    #[test]
    fn a_map_keyed_by_names_is_looked_up_by_str() {
        let mut map = std::collections::HashMap::new();
        map.insert(StreamName::try_from("s").unwrap(), 1);
        assert_eq!(map.get("s"), Some(&1));
    }

    /// The rule as the store and the application layer wrote it before there was
    /// one type (the same three refusals, in two places).
    fn old_rule(name: &str) -> bool {
        !name.is_empty() && name.len() <= 200 && forbidden_char(name, Lines::One).is_none()
    }

    proptest! {
        #[test]
        fn takes_exactly_what_the_old_rules_took(
            name in prop_oneof![
                ".{0,120}",
                "[a-z\\-./ ]{0,210}",
                "\\PC{195,205}",
                any::<String>(),
            ]
        ) {
            let parsed = StreamName::try_from(name.as_str());
            prop_assert_eq!(parsed.is_ok(), old_rule(&name));
            if let Ok(parsed) = parsed {
                prop_assert_eq!(parsed.as_str(), name.as_str());
                let json = serde_json::to_string(&parsed).unwrap();
                prop_assert_eq!(serde_json::from_str::<StreamName>(&json).unwrap(), parsed);
            }
        }
    }
}
