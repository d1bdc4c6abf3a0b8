//! Live updates: one watcher notices every change to the log (an append to any
//! stream, a fork or a compaction, by any process or machine sharing it) and
//! wakes every open page through server-sent events; a page then fetches itself
//! again. The events carry no question text, only a change counter.
//!
//! The watcher is a thread of its own blocked in
//! [`Log::wait_changed`](askuser_app::log::Log::wait_changed): the shared
//! sled log's owner and PostgreSQL's `NOTIFY` wake it at the change, so a page
//! hears of it at once and an idle inbox does no work (it asks again every
//! [`WAIT`]).

use std::convert::Infallible;
use std::time::Duration;

use axum::response::sse::{Event, KeepAlive, Sse};
use tokio::sync::watch;
use tokio_stream::{Stream, StreamExt, wrappers::WatchStream};

use crate::SharedLog;

/// The longest one wait for a change lasts before the watcher asks again (and
/// sees whether any page is still listening).
const WAIT: Duration = Duration::from_secs(30);

/// How long the watcher pauses after the log failed (an owner or database out
/// of reach) before it asks again.
const RETRY: Duration = Duration::from_secs(1);

/// How long starting the watcher waits for its first look at the log.
const FIRST_READ: Duration = Duration::from_secs(5);

/// Starts the watcher: the receiver's value counts the log's changes made after
/// this call, and `on_change` runs (on the watcher's thread) after each. The
/// watcher ends when every receiver is gone (at its next wake-up).
pub(crate) fn watch_log(
    log: SharedLog,
    mut on_change: impl FnMut() + Send + 'static,
) -> watch::Receiver<u64> {
    let (changes, receiver) = watch::channel(0_u64);
    // The first version is read on the watcher's thread (a blocking client, such
    // as PostgreSQL's, must not run on the server's runtime), and this call waits
    // for it, so that a change made once this returns is counted.
    let (read, first_read) = std::sync::mpsc::channel();
    let spawned = std::thread::Builder::new()
        .name("askuser-web-live".to_owned())
        .spawn(move || {
            let mut last = log.version().ok();
            let _ = read.send(());
            while !changes.is_closed() {
                // No version yet: `Version::default()` is none, answered at once.
                match log.wait_changed(last.unwrap_or_default(), WAIT) {
                    Ok(now) if last.is_none() => last = Some(now),
                    Ok(now) if Some(now) != last => {
                        last = Some(now);
                        changes.send_modify(|count| *count += 1);
                        on_change();
                    }
                    Ok(_) => {}
                    Err(_) => std::thread::sleep(RETRY),
                }
            }
        });
    if spawned.is_ok() {
        let _ = first_read.recv_timeout(FIRST_READ);
    }
    // A thread that cannot be started leaves the pages without live updates
    // (they still work when reloaded).
    drop(spawned);
    receiver
}

/// The server-sent events of one page: `change` after every change to the log,
/// and a comment every 15 s to keep proxies from closing the connection.
pub(crate) fn events(
    changes: watch::Receiver<u64>,
) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
    let stream = WatchStream::from_changes(changes)
        .map(|count| Ok(Event::default().event("change").data(count.to_string())));
    Sse::new(stream).keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::mpsc;

    use askuser_app::log::MemLog;
    use askuser_testkit::build::back;

    use super::*;

    /// An append to a stream no page looks at wakes the watcher: the counter
    /// moves to 1 and `on_change` runs, once per change.
    #[test]
    fn an_append_anywhere_counts_one_change() {
        let log: SharedLog = Arc::new(MemLog::new());
        log.append("a", 0, &[back("q1")]).unwrap();
        let (told, heard) = mpsc::channel();
        let mut changes = watch_log(Arc::clone(&log), move || {
            let _ = told.send(());
        });
        assert_eq!(*changes.borrow_and_update(), 0);
        log.append("b", 0, &[back("q2")]).unwrap();
        heard.recv_timeout(Duration::from_secs(60)).unwrap();
        assert_eq!(*changes.borrow_and_update(), 1);
        log.fork("a", 1, "c").unwrap();
        heard.recv_timeout(Duration::from_secs(60)).unwrap();
        assert_eq!(*changes.borrow_and_update(), 2);
        // Nothing else happened: no third change.
        assert_eq!(
            heard.recv_timeout(Duration::from_millis(200)),
            Err(mpsc::RecvTimeoutError::Timeout)
        );
    }
}
