//! Naming: the one rule for a stream's name, and the names askuser gives new
//! streams (forks), so every surface names alike.

use std::collections::HashSet;

use askuser_store::{StreamName, StreamNameError};

/// Parses a stream's name as the log will take it: the one rule of
/// [`StreamName`] (1 to [`MAX_STREAM_NAME`](askuser_store::MAX_STREAM_NAME)
/// bytes of one line, no control, bidi-control or invisible character: a name is
/// shown to people).
///
/// # Errors
/// What is wrong, in words that follow the name of the field or option (`"stream"
/// is empty; ...`).
pub fn check_stream_name(name: &str) -> Result<StreamName, StreamNameError> {
    StreamName::try_from(name)
}

/// The name of a fork of `stream` after its event `at`: `STREAM.fork-AT`, or with
/// `-2`, `-3`… when one of the `taken` names (the log's streams) already is it.
///
/// ```
/// use askuser_app::fork_name;
/// use askuser_store::StreamName;
///
/// let s = StreamName::try_from("s").unwrap();
/// let taken = ["s".to_owned(), "s.fork-3".to_owned()];
/// assert_eq!(fork_name(&s, 2, &taken).unwrap(), "s.fork-2");
/// assert_eq!(fork_name(&s, 3, &taken).unwrap(), "s.fork-3-2");
/// ```
///
/// # Errors
/// [`StreamNameError::TooLong`] when `stream` is too long to take the suffix.
pub fn fork_name(
    stream: &StreamName,
    at: u64,
    taken: &[String],
) -> Result<StreamName, StreamNameError> {
    let taken: HashSet<&str> = taken.iter().map(String::as_str).collect();
    let base = format!("{stream}.fork-{at}");
    // `taken` is finite, so one of its length + 1 names is free.
    let free = std::iter::once(base.clone())
        .chain((2..=taken.len() + 1).map(|n| format!("{base}-{n}")))
        .find(|name| !taken.contains(name.as_str()))
        .unwrap_or(base);
    StreamName::try_from(free)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stream_name_is_plain_text_of_1_to_200_bytes() {
        assert_eq!(check_stream_name("שיחה-1").unwrap(), "שיחה-1");
        assert_eq!(
            check_stream_name("").unwrap_err().to_string(),
            "is empty; a stream name is 1 to 200 bytes of plain text, such as \"session-1\""
        );
        assert!(check_stream_name(&"x".repeat(201)).is_err());
        assert!(check_stream_name("a\u{202e}b").is_err());
    }

    #[test]
    fn a_fork_of_a_long_name_is_refused_not_cut() {
        let long = StreamName::try_from("x".repeat(195)).unwrap();
        assert_eq!(
            fork_name(&long, 1, &[]),
            Err(StreamNameError::TooLong { len: 202, max: 200 })
        );
    }

    #[test]
    fn the_store_takes_exactly_the_names_this_rule_takes() {
        let log: std::sync::Arc<dyn askuser_store::Log> =
            std::sync::Arc::new(askuser_store::MemLog::new());
        let too_long = "é".repeat(101);
        for name in [
            "session-1",
            "שיחה-1",
            "a b",
            "",
            "a\nb",
            "a\u{1b}[2J",
            "a\u{202e}b",
            "a\u{200b}b",
            "a\u{2028}b",
            "tab\there",
            &too_long,
            "x.fork-3-2",
        ] {
            let store = askuser_store::Session::open(std::sync::Arc::clone(&log), name);
            assert_eq!(
                check_stream_name(name).is_ok(),
                store.is_ok(),
                "{name:?}: {:?}",
                store.err()
            );
        }
    }
}
