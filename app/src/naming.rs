//! Naming: the names askuser gives new streams (forks), so every surface names
//! alike (a name's rule is [`StreamName`]'s).

use std::collections::HashSet;

use askuser_store::{StreamName, StreamNameError};

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
    fn a_fork_of_a_long_name_is_refused_not_cut() {
        let long = StreamName::try_from("x".repeat(195)).unwrap();
        assert_eq!(
            fork_name(&long, 1, &[]),
            Err(StreamNameError::TooLong { len: 202, max: 200 })
        );
    }
}
