//! Naming: the names askuser gives new streams (an agent's, a fork), so every
//! surface names alike (a name's rule is [`StreamName`]'s).

use std::collections::HashSet;
use std::sync::Arc;

use askuser_core::{AgentOrigin, Input};
use askuser_store::{Log, Session, SessionError, StoreError, StreamName, StreamNameError};

/// The longest base of a new stream's name, in bytes (room is left for `-N`).
const MAX_BASE: usize = 64;

/// The first name of a new stream started from `origin` that is not among
/// `taken` (the log's streams): its place (the repository's name, else the working
/// directory's) and a counter, `billing-api-1`, `billing-api-2`…; `None` when the
/// origin has no usable place (then name it as before, `serve-TIME-PID`).
///
/// ```
/// use askuser_app::new_stream_name;
/// use askuser_core::AgentOrigin;
///
/// let origin = AgentOrigin { repository: Some("billing-api".into()), ..AgentOrigin::default() };
/// let taken = ["billing-api-1".to_owned(), "billing-api-3".to_owned()];
/// assert_eq!(new_stream_name(&origin, &taken).unwrap(), "billing-api-2");
/// assert_eq!(new_stream_name(&AgentOrigin::default(), &taken), None);
/// ```
pub fn new_stream_name(origin: &AgentOrigin, taken: &[String]) -> Option<StreamName> {
    let base = stream_base(origin)?;
    let taken: HashSet<&str> = taken.iter().map(String::as_str).collect();
    (1..=taken.len() + 1)
        .map(|n| format!("{base}-{n}"))
        .find(|name| !taken.contains(name.as_str()))
        .and_then(|name| StreamName::try_from(name).ok())
}

/// A stream's base name from an origin's place: cut to [`MAX_BASE`] bytes at a
/// character's end; `None` for no place, or one that is not a name.
fn stream_base(origin: &AgentOrigin) -> Option<String> {
    let place = origin.place()?.trim();
    let mut end = place.len().min(MAX_BASE);
    while !place.is_char_boundary(end) {
        end -= 1;
    }
    let base = place[..end].trim_end();
    StreamName::try_from(base).ok().map(|_| base.to_owned())
}

/// Creates a new stream for an agent from `origin`, named by
/// [`new_stream_name`], by recording the origin as its first input
/// ([`Input::Attach`], through [`Session::create`], at head 0): a name another
/// process took meanwhile is passed over for the next. `None` when the origin has
/// no usable place.
///
/// # Errors
/// The log's; an origin the engine refuses ([`StoreError::BadLease`] with why).
pub(crate) fn claim_new_stream(
    log: &Arc<dyn Log>,
    origin: &AgentOrigin,
) -> Result<Option<StreamName>, StoreError> {
    let attach = Input::Attach(origin.clone());
    for _ in 0..16 {
        let taken: Vec<String> = log.streams()?.into_iter().map(|info| info.name).collect();
        let Some(name) = new_stream_name(origin, &taken) else {
            return Ok(None);
        };
        match Session::create(Arc::clone(log), name.as_str(), &attach) {
            Ok(_) => return Ok(Some(name)),
            Err(SessionError::Store(StoreError::StreamExists(_))) => {}
            Err(SessionError::Store(other)) => return Err(other),
            Err(refused) => return Err(StoreError::BadLease(refused.to_string())),
        }
    }
    Ok(None)
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
    fn an_agent_stream_is_named_by_its_place_and_a_free_counter() {
        let log: Arc<dyn Log> = Arc::new(askuser_store::MemLog::new());
        let origin = AgentOrigin {
            directory: Some("/home/ana/src/billing-api".into()),
            ..AgentOrigin::default()
        };
        let first = claim_new_stream(&log, &origin).unwrap().unwrap();
        let second = claim_new_stream(&log, &origin).unwrap().unwrap();
        assert_eq!(
            (first.as_str(), second.as_str()),
            ("billing-api-1", "billing-api-2")
        );
        let state = askuser_store::replay::load(&*log, &second).unwrap().state;
        assert_eq!(state.agent(), Some(&origin));
        let wide = AgentOrigin {
            repository: Some("é".repeat(40)),
            ..AgentOrigin::default()
        };
        assert_eq!(
            new_stream_name(&wide, &[]).unwrap().as_str(),
            format!("{}-1", "é".repeat(32)).as_str()
        );
        assert_eq!(
            claim_new_stream(&log, &AgentOrigin::default()).unwrap(),
            None
        );
    }

    #[test]
    fn a_fork_of_a_long_name_is_refused_not_cut() {
        let long = StreamName::try_from("x".repeat(195)).unwrap();
        assert_eq!(
            fork_name(&long, 1, &[]),
            Err(StreamNameError::TooLong { len: 202, max: 200 })
        );
    }
}
