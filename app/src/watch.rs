//! Subscriptions: what wakes a surface when the stream it shows changes, or when
//! the agent waiting on it stops.
//!
//! One [`Watcher`] per opened log in a process ([`Watcher::of`] hands out the
//! same one for every clone of the log's `Arc`): a thread blocked in
//! [`Log::wait_changed`], which the shared sled
//! log's owner and PostgreSQL's `NOTIFY` wake at an append, a fork or a
//! compaction by any process or machine; it lists the streams then, and wakes
//! the [`Subscription`]s of each stream that moved. While a subscription wants
//! presence, a second thread keeps the log's lease clock: it reads the leases
//! whenever the watcher's wait ends (a change, an owner gone, every [`WAIT`]),
//! [`SETTLE`] after, and when the earliest live lease is due to lapse (their
//! expiry times are known), and wakes the subscriptions of each stream whose
//! agent started or stopped waiting. Nothing here looks at the log on a
//! timer: a watcher idle on a log that announces its changes does no work but
//! ask again every [`WAIT`] (and, with presence, read the leases when one is due).
//!
//! A subscription is waited on by a thread ([`Subscription::wait`]) or a task
//! ([`Subscription::changed`]); what woke it is a [`Change`]. The pattern: take
//! the subscription first, then read what you show, then wait; a change made
//! after the subscription was taken always wakes it (a change before it may wake
//! it once more, which costs a look).
//!
//! ```
//! use std::sync::Arc;
//! use std::time::Duration;
//!
//! use askuser_app::watch::{Change, Watcher};
//! use askuser_store::{Log, MemLog};
//! use askuser_testkit::build::back;
//!
//! let log: Arc<dyn Log> = Arc::new(MemLog::new());
//! let watcher = Watcher::of(&log).unwrap();
//! let chat = watcher.stream("chat");
//! let other = watcher.stream("other");
//!
//! // Nothing happened yet: the wait runs out.
//! assert_eq!(chat.wait(Duration::from_millis(100)), None);
//!
//! // An append to "chat" (by this process or any other) wakes its subscribers,
//! // and only them.
//! askuser_testkit::record(&*log, "chat", 0, &[back("c1")]).unwrap();
//! let woken = chat.wait(Duration::from_secs(60)).unwrap();
//! assert_eq!(woken, Change { appended: true, presence: false });
//! assert_eq!(other.take(), None);
//!
//! // The same watcher for the same log: one thread per log, not per waiter.
//! assert!(Watcher::of(&log).unwrap().same_as(&watcher));
//! ```

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError, Weak};
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

use askuser_store::{Lease, Log, StreamInfo, Version};

use crate::error::Result;

/// The longest one wait for a change lasts before the watcher asks again (and
/// sees whether anyone still holds it). The watcher's thread holds the log only
/// during a wait, so once the last handle is dropped the log is let go within
/// this (the handle's drop waits for it): a process that ends right after,
/// such as `askuser mcp` when its host closes it, closes its log as it did
/// without a watcher.
pub const WAIT: Duration = Duration::from_secs(1);

/// How long the watcher pauses after the log failed (an owner changing, a
/// database out of reach) before it asks again.
const RETRY: Duration = Duration::from_secs(1);

/// How long starting a watcher waits for its first look at the log.
const FIRST_READ: Duration = Duration::from_secs(5);

/// How long after a lease is due to lapse the leases are read again (the log's
/// clock and this one tick apart by the read's own time).
const LAPSE_MARGIN: Duration = Duration::from_millis(20);

/// How long after a change the leases are read once more: an agent records
/// that it attached before it takes its lease.
pub const SETTLE: Duration = Duration::from_secs(1);

/// What woke a [`Subscription`] (both may have happened since it last woke).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Change {
    /// A stream it follows moved: an append, a fork creating it, a compaction.
    pub appended: bool,
    /// Whether an agent waits on a stream it follows changed: one started, or
    /// stopped (cleanly, or its lease lapsed when it was killed).
    pub presence: bool,
}

impl Change {
    fn merge(&mut self, other: Change) {
        self.appended |= other.appended;
        self.presence |= other.presence;
    }

    fn any(self) -> bool {
        self.appended || self.presence
    }
}

/// The one watcher of a log in this process (see the [module](self) docs).
/// Clones share it; its threads end once every clone and every subscription is
/// dropped (at the end of the wait they are in, at most [`WAIT`]).
#[derive(Clone)]
pub struct Watcher {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Watcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Watcher").finish_non_exhaustive()
    }
}

/// What the handles hold: dropping the last one tells the threads to end, and
/// waits for the watching thread to let go of the log (one [`WAIT`] at most).
struct Inner {
    shared: Arc<Shared>,
    /// The log, held by the handles only.
    log: Arc<dyn Log>,
    /// The thread blocked in [`Log::wait_changed`].
    watching: Mutex<Option<std::thread::JoinHandle<()>>>,
}

impl Drop for Inner {
    fn drop(&mut self) {
        lock(&self.shared.board).closed = true;
        self.shared.clock.notify_all();
        if let Some(thread) = lock(&self.watching).take()
            && thread.thread().id() != std::thread::current().id()
        {
            let _ = thread.join();
        }
    }
}

/// What the watcher's threads and its handles share.
struct Shared {
    /// The log, for the threads: held only while they use it.
    log: Weak<dyn Log>,
    board: Mutex<Board>,
    /// Wakes the lease clock: a change to re-read the leases after, a watcher
    /// closed.
    clock: Condvar,
}

#[derive(Default)]
struct Board {
    slots: Vec<Weak<Slot>>,
    /// Every handle is gone: the threads end.
    closed: bool,
    /// The lease clock runs.
    clock_running: bool,
    /// A change happened since the lease clock last read the leases.
    recheck: bool,
}

/// The watchers of this process, one per log.
static WATCHERS: Mutex<Vec<Weak<Inner>>> = Mutex::new(Vec::new());

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The address of the log an `Arc` holds, whatever its vtable.
fn address(log: &Arc<dyn Log>) -> *const () {
    Arc::as_ptr(log).cast::<()>()
}

impl Watcher {
    /// The watcher of `log` in this process: the one already started for this
    /// log (any clone of its `Arc`), else a new one, whose first look at the log
    /// this call waits for (up to 5 s), so that a change made once it returns
    /// wakes the subscriptions taken from it.
    ///
    /// # Errors
    /// [`AppError::Io`](crate::AppError::Io) when its thread cannot be started.
    pub fn of(log: &Arc<dyn Log>) -> Result<Watcher> {
        let mut watchers = lock(&WATCHERS);
        watchers.retain(|weak| weak.strong_count() > 0);
        let found = (watchers.iter())
            .filter_map(Weak::upgrade)
            .find(|inner| address(&inner.log) == address(log));
        if let Some(inner) = found {
            return Ok(Watcher { inner });
        }
        let shared = Arc::new(Shared {
            log: Arc::downgrade(log),
            board: Mutex::new(Board::default()),
            clock: Condvar::new(),
        });
        let (read, first_read) = std::sync::mpsc::channel();
        let watching = Arc::clone(&shared);
        let thread = std::thread::Builder::new()
            .name("askuser-watch".to_owned())
            .spawn(move || watch_changes(&watching, &read))?;
        let inner = Arc::new(Inner {
            shared,
            log: Arc::clone(log),
            watching: Mutex::new(Some(thread)),
        });
        watchers.push(Arc::downgrade(&inner));
        drop(watchers);
        let _ = first_read.recv_timeout(FIRST_READ);
        Ok(Watcher { inner })
    }

    /// Whether `other` is this same watcher.
    pub fn same_as(&self, other: &Watcher) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }

    /// The log watched.
    pub fn log(&self) -> &Arc<dyn Log> {
        &self.inner.log
    }

    /// A subscription to what is appended to `stream` (and its creation by a
    /// fork, and its compaction).
    pub fn stream(&self, stream: &str) -> Subscription {
        self.subscribe(Some(stream), false)
    }

    /// A subscription to what is appended to `stream` and to whether an agent
    /// waits on it (what a page or a terminal showing one stream follows).
    pub fn stream_and_presence(&self, stream: &str) -> Subscription {
        self.subscribe(Some(stream), true)
    }

    /// A subscription to every change of the log: any stream's, and whether an
    /// agent waits on any (what an inbox follows).
    pub fn everything(&self) -> Subscription {
        self.subscribe(None, true)
    }

    fn subscribe(&self, stream: Option<&str>, presence: bool) -> Subscription {
        let slot = Arc::new(Slot {
            stream: stream.map(str::to_owned),
            presence,
            pending: Mutex::new(Pending::default()),
            ready: Condvar::new(),
        });
        let shared = &self.inner.shared;
        let mut board = lock(&shared.board);
        board.slots.retain(|weak| weak.strong_count() > 0);
        board.slots.push(Arc::downgrade(&slot));
        if presence && !board.clock_running {
            let clocked = Arc::clone(shared);
            let started = std::thread::Builder::new()
                .name("askuser-leases".to_owned())
                .spawn(move || lease_clock(&clocked));
            // Without the thread, presence is told at the next change only.
            board.clock_running = started.is_ok();
        }
        drop(board);
        Subscription {
            slot,
            _watcher: self.clone(),
        }
    }
}

/// One subscriber's mailbox.
struct Slot {
    /// The stream followed; `None`: every stream.
    stream: Option<String>,
    /// Whether presence changes wake it.
    presence: bool,
    pending: Mutex<Pending>,
    ready: Condvar,
}

#[derive(Default)]
struct Pending {
    change: Change,
    waker: Option<Waker>,
}

impl Slot {
    fn follows(&self, stream: &str) -> bool {
        self.stream.as_deref().is_none_or(|mine| mine == stream)
    }

    fn tell(&self, change: Change) {
        let mut pending = lock(&self.pending);
        pending.change.merge(change);
        let waker = pending.waker.take();
        drop(pending);
        self.ready.notify_all();
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}

/// A surface's interest in a stream (or in every stream) of a watched log: woken
/// by the log's [`Watcher`] when what it follows changes. Dropping it ends the
/// interest.
pub struct Subscription {
    slot: Arc<Slot>,
    _watcher: Watcher,
}

impl std::fmt::Debug for Subscription {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Subscription")
            .field("stream", &self.slot.stream)
            .field("presence", &self.slot.presence)
            .finish_non_exhaustive()
    }
}

impl Subscription {
    /// What changed since it last woke, if anything, without waiting.
    pub fn take(&self) -> Option<Change> {
        let mut pending = lock(&self.slot.pending);
        let change = std::mem::take(&mut pending.change);
        change.any().then_some(change)
    }

    /// Blocks until what it follows changes (what changed), or `timeout` passes
    /// (`None`).
    pub fn wait(&self, timeout: Duration) -> Option<Change> {
        let deadline = Instant::now().checked_add(timeout);
        let mut pending = lock(&self.slot.pending);
        loop {
            if pending.change.any() {
                return Some(std::mem::take(&mut pending.change));
            }
            let left = deadline.map_or(Duration::MAX, |d| {
                d.saturating_duration_since(Instant::now())
            });
            if left.is_zero() {
                return None;
            }
            pending = (self.slot.ready.wait_timeout(pending, left))
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }

    /// Waits, without blocking a thread, until what it follows changes: what
    /// changed. (Put it beside a timer with `select!` for a timeout.)
    pub fn changed(&self) -> Changed<'_> {
        Changed { slot: &self.slot }
    }
}

/// The future of [`Subscription::changed`].
#[derive(Debug)]
#[must_use = "a future does nothing unless awaited"]
pub struct Changed<'a> {
    slot: &'a Slot,
}

impl std::fmt::Debug for Slot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Slot")
            .field("stream", &self.stream)
            .finish_non_exhaustive()
    }
}

impl Future for Changed<'_> {
    type Output = Change;

    fn poll(self: Pin<&mut Self>, context: &mut Context<'_>) -> Poll<Change> {
        let mut pending = lock(&self.slot.pending);
        if pending.change.any() {
            return Poll::Ready(std::mem::take(&mut pending.change));
        }
        pending.waker = Some(context.waker().clone());
        Poll::Pending
    }
}

impl Shared {
    fn closed(&self) -> bool {
        lock(&self.board).closed
    }

    /// Has the lease clock read the leases again now (and once more
    /// [`SETTLE`] after).
    fn recheck(&self) {
        let mut board = lock(&self.board);
        if board.clock_running {
            board.recheck = true;
            drop(board);
            self.clock.notify_all();
        }
    }

    /// Wakes every subscription that follows one of `streams` (and wants
    /// `change`'s kind).
    fn tell(&self, streams: &BTreeSet<String>, change: Change) {
        let mut board = lock(&self.board);
        board.slots.retain(|weak| weak.strong_count() > 0);
        let slots: Vec<Arc<Slot>> = board.slots.iter().filter_map(Weak::upgrade).collect();
        drop(board);
        for slot in slots {
            let wanted = Change {
                appended: change.appended,
                presence: change.presence && slot.presence,
            };
            if wanted.any() && streams.iter().any(|stream| slot.follows(stream)) {
                slot.tell(wanted);
            }
        }
    }
}

/// The watcher's thread: blocked in [`Log::wait_changed`], it lists the streams
/// at each change and tells the subscriptions of those that moved.
fn watch_changes(shared: &Shared, first_read: &std::sync::mpsc::Sender<()>) {
    let mut streams = loop {
        let Some(log) = shared.log.upgrade() else {
            return;
        };
        match log.streams() {
            Ok(streams) => break by_name(streams),
            Err(_) if shared.closed() => return,
            Err(_) => std::thread::sleep(RETRY),
        }
    };
    let _ = first_read.send(());
    let mut version = Version::of(&streams.values().cloned().collect::<Vec<_>>());
    while !shared.closed() {
        let Some(log) = shared.log.upgrade() else {
            return;
        };
        let waited = log.wait_changed(version, WAIT);
        // Whatever ended the wait (a change, an owner that went away, the time
        // running out), the lease clock reads the leases again.
        shared.recheck();
        let woken = match waited {
            Ok(now) if now == version => continue,
            Ok(now) => now,
            Err(_) => {
                std::thread::sleep(RETRY);
                continue;
            }
        };
        let Ok(now) = log.streams() else {
            std::thread::sleep(RETRY);
            continue;
        };
        let now = by_name(now);
        let moved: BTreeSet<String> = (streams.iter())
            .filter(|(name, info)| now.get(*name) != Some(*info))
            .chain(now.iter().filter(|(name, _)| !streams.contains_key(*name)))
            .map(|(name, _)| name.clone())
            .collect();
        let listed = Version::of(&now.values().cloned().collect::<Vec<_>>());
        // A listing that shows nothing new (a change undone, a hash's
        // collision) waits on what the log said, so it never spins.
        version = if moved.is_empty() { woken } else { listed };
        streams = now;
        if !moved.is_empty() {
            shared.tell(
                &moved,
                Change {
                    appended: true,
                    presence: false,
                },
            );
        }
    }
}

fn by_name(streams: Vec<StreamInfo>) -> HashMap<String, StreamInfo> {
    streams
        .into_iter()
        .map(|info| (info.name.clone(), info))
        .collect()
}

/// Who holds a live lease on each stream.
type Live = BTreeMap<String, BTreeSet<String>>;

/// The lease clock's thread: reads the leases, tells the subscriptions of every
/// stream whose live holders changed, and sleeps until the earliest live lease
/// is due to lapse, a change (read again at once and [`SETTLE`] after), or the
/// watcher's end.
fn lease_clock(shared: &Shared) {
    let mut live: Option<Live> = None;
    let mut settle: Option<Instant> = None;
    // The live leases last read. A sled log's new owner (its old one killed:
    // the agent's own process, say) knows none of them: a lease gone from the
    // table is kept as if renewed when it was first missed (the latest it can
    // have been), so it lapses no sooner than it does for any reader.
    let mut known: BTreeMap<(String, String), Lease> = BTreeMap::new();
    let mut missed: BTreeSet<(String, String)> = BTreeSet::new();
    loop {
        let leases = shared.log.upgrade().map(|log| log.leases());
        let next = match leases.unwrap_or(Ok(None)) {
            Ok(Some(leases)) => {
                let now = leases.now;
                let read: BTreeMap<(String, String), Lease> = (leases.leases.into_iter())
                    .map(|lease| ((lease.stream.clone(), lease.holder.clone()), lease))
                    .collect();
                for (key, lease) in &mut known {
                    if !read.contains_key(key) && missed.insert(key.clone()) {
                        lease.renewed_at = lease.renewed_at.max(now);
                    }
                }
                known.retain(|key, lease| !read.contains_key(key) && lease.live_at(now));
                missed.retain(|key| known.contains_key(key));
                known.extend(read.into_iter().filter(|(_, lease)| lease.live_at(now)));
                let mut now_live = Live::new();
                let mut due: Option<u64> = None;
                for lease in known.values() {
                    (now_live.entry(lease.stream.clone()).or_default())
                        .insert(lease.holder.clone());
                    let left = lease.expires_at().millis() - now.millis();
                    due = Some(due.map_or(left, |due| due.min(left)));
                }
                if let Some(before) = &live {
                    let changed: BTreeSet<String> = (before.keys().chain(now_live.keys()))
                        .filter(|stream| before.get(*stream) != now_live.get(*stream))
                        .cloned()
                        .collect();
                    if !changed.is_empty() {
                        shared.tell(
                            &changed,
                            Change {
                                appended: false,
                                presence: true,
                            },
                        );
                    }
                }
                live = Some(now_live);
                due.map(|ms| Instant::now() + Duration::from_millis(ms) + LAPSE_MARGIN)
            }
            // The log keeps no presence: only a change wakes the clock.
            Ok(None) => None,
            Err(_) => Some(Instant::now() + RETRY),
        };
        let wake = [next, settle].into_iter().flatten().min();
        let mut board = lock(&shared.board);
        loop {
            if board.closed {
                board.clock_running = false;
                return;
            }
            if board.recheck {
                board.recheck = false;
                settle = Some(Instant::now() + SETTLE);
                break;
            }
            let left = wake.map(|at| at.saturating_duration_since(Instant::now()));
            if left.is_some_and(|left| left.is_zero()) {
                if wake == settle {
                    settle = None;
                }
                break;
            }
            board = match left {
                Some(left) => {
                    (shared.clock.wait_timeout(board, left))
                        .unwrap_or_else(PoisonError::into_inner)
                        .0
                }
                None => (shared.clock.wait(board)).unwrap_or_else(PoisonError::into_inner),
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use askuser_core::AgentOrigin;
    use askuser_store::MemLog;
    use askuser_testkit::build::back;

    use super::*;

    fn origin() -> AgentOrigin {
        AgentOrigin {
            host: Some("test".to_owned()),
            ..AgentOrigin::default()
        }
    }

    /// A lease that lapses wakes the subscriptions that want presence, at its
    /// expiry, with no append; those that follow appends only stay asleep.
    #[test]
    fn a_lapsed_lease_wakes_who_follows_presence() {
        let log: Arc<dyn Log> = Arc::new(MemLog::new());
        askuser_testkit::record(&*log, "chat", 0, &[back("c1")]).unwrap();
        log.renew_lease("chat", "h:1:1", &origin(), Duration::from_millis(300))
            .unwrap();
        let watcher = Watcher::of(&log).unwrap();
        let page = watcher.stream_and_presence("chat");
        let inbox = watcher.everything();
        let appends = watcher.stream("chat");
        let started = Instant::now();
        let change = page.wait(Duration::from_secs(60)).unwrap();
        assert_eq!(
            change,
            Change {
                appended: false,
                presence: true
            }
        );
        assert!(started.elapsed() >= Duration::from_millis(250));
        assert_eq!(inbox.wait(Duration::from_secs(60)), Some(change));
        assert_eq!(appends.take(), None);
    }

    /// A task waits without a thread of its own: an append from another thread
    /// wakes its future.
    #[test]
    fn a_future_is_woken_by_an_append() {
        let log: Arc<dyn Log> = Arc::new(MemLog::new());
        let subscription = Watcher::of(&log).unwrap().stream("chat");
        let appender = {
            let log = Arc::clone(&log);
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(50));
                askuser_testkit::record(&*log, "chat", 0, &[back("c1")]).unwrap();
            })
        };
        let change = block_on(subscription.changed());
        appender.join().unwrap();
        assert!(change.appended);
    }

    /// A minimal executor: polls `future` on this thread, parked between wakes.
    fn block_on<F: Future>(future: F) -> F::Output {
        struct Unpark(std::thread::Thread);
        impl std::task::Wake for Unpark {
            fn wake(self: Arc<Self>) {
                self.0.unpark();
            }
        }
        let waker = Waker::from(Arc::new(Unpark(std::thread::current())));
        let mut context = Context::from_waker(&waker);
        let mut future = std::pin::pin!(future);
        loop {
            if let Poll::Ready(output) = future.as_mut().poll(&mut context) {
                return output;
            }
            std::thread::park();
        }
    }
}
