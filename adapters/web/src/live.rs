//! Live updates: one watcher notices every change to the log (an append to any
//! stream, by any process or machine sharing it) and wakes every open page
//! through server-sent events; a page then fetches itself again. The events
//! carry no question text, only a change counter.

use std::convert::Infallible;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::Arc;
use std::time::Duration;

use askuser_store::{Log, StoreError};
use axum::response::sse::{Event, KeepAlive, Sse};
use tokio::sync::watch;
use tokio_stream::{Stream, StreamExt, wrappers::WatchStream};

use crate::SharedLog;

/// How often the watcher looks at the log's streams.
const POLL: Duration = Duration::from_millis(200);

/// Starts the watcher on the current runtime: the receiver's value counts the
/// log's changes, and `on_change` runs (on a blocking thread) after each.
pub(crate) fn watch_log(
    log: SharedLog,
    mut on_change: impl FnMut() + Send + 'static,
) -> watch::Receiver<u64> {
    let (changes, receiver) = watch::channel(0_u64);
    tokio::spawn(async move {
        let mut interval = tokio::time::interval(POLL);
        interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut last = None;
        loop {
            interval.tick().await;
            let log = Arc::clone(&log);
            let Ok(Ok(print)) = tokio::task::spawn_blocking(move || fingerprint(&*log)).await
            else {
                continue;
            };
            if last.is_some_and(|last| last != print) {
                changes.send_modify(|count| *count += 1);
                on_change = match tokio::task::spawn_blocking(move || {
                    on_change();
                    on_change
                })
                .await
                {
                    Ok(on_change) => on_change,
                    Err(_) => return,
                };
            }
            last = Some(print);
        }
    });
    receiver
}

/// A hash of every stream's name and head, independent of their order.
fn fingerprint(log: &dyn Log) -> Result<u64, StoreError> {
    Ok(log.streams()?.iter().fold(0_u64, |sum, info| {
        let mut hasher = DefaultHasher::new();
        info.name.hash(&mut hasher);
        info.head.hash(&mut hasher);
        sum.wrapping_add(hasher.finish())
    }))
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
