//! Live updates: the log's [`Watcher`] notices every change to the log (an
//! append to any stream, a fork or a compaction, by any process or machine
//! sharing it) and every agent that starts or stops waiting (a lease that
//! lapses when an agent is killed changes nothing in the log: the watcher knows
//! when each lease is due and looks then), and wakes every open page through
//! server-sent events; a page then fetches itself again. The events carry no
//! question text, only a change counter.
//!
//! The live thread is blocked on the watcher's subscription: the shared sled
//! log's owner and PostgreSQL's `NOTIFY` wake the watcher at the change, and the
//! lease clock at the lapse, so a page hears of it at once and an idle inbox does
//! no work.

use std::convert::Infallible;
use std::time::Duration;

use askuser_app::AppError;
use askuser_app::watch::Watcher;
use axum::response::sse::{Event, KeepAlive, Sse};
use tokio::sync::watch;
use tokio_stream::{Stream, StreamExt, wrappers::WatchStream};

/// The longest one wait on the subscription lasts before the live thread sees
/// whether any page is still listening.
const WAIT: Duration = Duration::from_secs(30);

/// Starts the live thread: the receiver's value counts the changes to the log
/// (and to who waits on it) made after this call, and `on_change` runs (on the
/// live thread) after each. The thread ends when every receiver is gone (at
/// its next wake-up).
pub(crate) fn watch_log(
    watcher: Result<Watcher, AppError>,
    mut on_change: impl FnMut() + Send + 'static,
) -> watch::Receiver<u64> {
    let (changes, receiver) = watch::channel(0_u64);
    // Taken here (the watcher's first look at the log is made on its own thread:
    // a blocking client, such as PostgreSQL's, must not run on the server's
    // runtime), so that a change made once this returns is counted.
    let Ok(subscription) = watcher.map(|watcher| watcher.everything()) else {
        // No thread: the pages work without live updates (reloaded).
        return receiver;
    };
    let spawned = std::thread::Builder::new()
        .name("askuser-web-live".to_owned())
        .spawn(move || {
            while !changes.is_closed() {
                if subscription.wait(WAIT).is_some() {
                    changes.send_modify(|count| *count += 1);
                    on_change();
                }
            }
        });
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
    use crate::SharedLog;

    /// An append to a stream no page looks at wakes the watcher: the counter
    /// moves to 1 and `on_change` runs, once per change.
    #[test]
    fn an_append_anywhere_counts_one_change() {
        let log: SharedLog = Arc::new(MemLog::new());
        askuser_testkit::record(&*log, "a", 0, &[back("q1")]).unwrap();
        let (told, heard) = mpsc::channel();
        let mut changes = watch_log(Watcher::of(&log), move || {
            let _ = told.send(());
        });
        assert_eq!(*changes.borrow_and_update(), 0);
        askuser_testkit::record(&*log, "b", 0, &[back("q2")]).unwrap();
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

    /// A lease that lapses (its agent killed) changes nothing in the log, and
    /// still counts one change when it is due.
    #[test]
    fn a_lapsed_lease_counts_one_change() {
        let log: SharedLog = Arc::new(MemLog::new());
        askuser_testkit::record(&*log, "a", 0, &[back("q1")]).unwrap();
        let origin = askuser_core::AgentOrigin {
            host: Some("agent".to_owned()),
            ..askuser_core::AgentOrigin::default()
        };
        log.renew_lease("a", "laptop:1:1", &origin, Duration::from_millis(500))
            .unwrap();
        let (told, heard) = mpsc::channel();
        let mut changes = watch_log(Watcher::of(&log), move || {
            let _ = told.send(());
        });
        assert_eq!(*changes.borrow_and_update(), 0);
        heard.recv_timeout(Duration::from_secs(60)).unwrap();
        assert_eq!(*changes.borrow_and_update(), 1);
        let leases = log.leases().unwrap().unwrap();
        assert!(!leases.leases[0].live_at(leases.now));
    }
}
