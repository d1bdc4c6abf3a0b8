//! Naming: the one rule for a stream's name, and the names askuser gives new
//! streams (forks), so every surface names alike.

use std::collections::HashSet;

/// Checks a log stream's name as the log will (1 to
/// [`MAX_STREAM_NAME`](askuser_store::MAX_STREAM_NAME) bytes, no control character),
/// and refuses bidi-control and invisible characters too: a name is shown to people.
///
/// # Errors
/// What is wrong, in words that follow the name of the field or option (`"stream"
/// is empty; ...`).
pub fn check_stream_name(name: &str) -> Result<(), String> {
    const WHAT: &str = "a stream name is 1 to 200 bytes of plain text, such as \"session-1\"";
    let max = askuser_store::MAX_STREAM_NAME;
    if name.is_empty() {
        return Err(format!("is empty; {WHAT}"));
    }
    if name.len() > max {
        return Err(format!("is {} bytes long; {WHAT}", name.len()));
    }
    if let Some(found) = askuser_core::text::forbidden_char(name, askuser_core::text::Lines::One) {
        return Err(format!("has {found}; {WHAT}"));
    }
    Ok(())
}

/// The name of a fork of `stream` after its event `at`: `STREAM.fork-AT`, or with
/// `-2`, `-3`… when one of the `taken` names (the log's streams) already is it.
///
/// ```
/// use askuser_app::fork_name;
///
/// let taken = ["s".to_owned(), "s.fork-3".to_owned()];
/// assert_eq!(fork_name("s", 2, &taken), "s.fork-2");
/// assert_eq!(fork_name("s", 3, &taken), "s.fork-3-2");
/// ```
pub fn fork_name(stream: &str, at: u64, taken: &[String]) -> String {
    let taken: HashSet<&str> = taken.iter().map(String::as_str).collect();
    let base = format!("{stream}.fork-{at}");
    // `taken` is finite, so one of its length + 1 names is free.
    std::iter::once(base.clone())
        .chain((2..=taken.len() + 1).map(|n| format!("{base}-{n}")))
        .find(|name| !taken.contains(name.as_str()))
        .unwrap_or(base)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stream_name_is_plain_text_of_1_to_200_bytes() {
        assert_eq!(check_stream_name("שיחה-1"), Ok(()));
        assert_eq!(
            check_stream_name(""),
            Err(
                "is empty; a stream name is 1 to 200 bytes of plain text, such as \"session-1\""
                    .into()
            )
        );
        assert!(check_stream_name(&"x".repeat(201)).is_err());
        assert!(check_stream_name("a\u{202e}b").is_err());
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
