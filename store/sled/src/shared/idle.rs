//! An owner that, when it has been idle (no client connected and nothing under
//! way, see
//! [`SharedSledLog::with_owner_idle`](super::SharedSledLog::with_owner_idle)),
//! repacks the streams it appended to a few events at a time, then, idle again,
//! lets the log go; and the scans that count as under way while they last.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, PoisonError, RwLock, Weak};
use std::time::Duration;

use super::Owned;
use askuser_store::Result;
use askuser_store::backend::RecordIter;
use askuser_store::{Recorded, Seq};

/// How often an owner looks at whether it is idle, at most.
const LOOK: Duration = Duration::from_millis(250);

/// `idle` in milliseconds, as [`SharedSledLog`](super::SharedSledLog) keeps it.
pub(super) fn millis(idle: Duration) -> u64 {
    u64::try_from(idle.as_millis()).unwrap_or(u64::MAX)
}

/// Starts a thread that lets `owned` go from `slot` once it has been idle for
/// `idle_after` milliseconds (read each time, 0: never). The thread ends when
/// `owned` is no longer the slot's (let go, or the log dropped).
pub(super) fn watch(
    slot: &Arc<RwLock<Option<Arc<Owned>>>>,
    owned: &Arc<Owned>,
    idle_after: &Arc<AtomicU64>,
) {
    let slot = Arc::downgrade(slot);
    let owned = Arc::downgrade(owned);
    let idle_after = Arc::clone(idle_after);
    // A thread that cannot start leaves the owner owning until it is dropped.
    drop(
        std::thread::Builder::new()
            .name("askuser-log-idle".to_owned())
            .spawn(move || {
                loop {
                    let after = Duration::from_millis(idle_after.load(Ordering::SeqCst));
                    std::thread::sleep(if after.is_zero() {
                        LOOK
                    } else {
                        (after / 4).min(LOOK)
                    });
                    match let_go_if_idle(&slot, &owned, after) {
                        Watch::Owning => {}
                        Watch::Ended => return,
                    }
                }
            }),
    );
}

enum Watch {
    Owning,
    Ended,
}

/// Whether `owned` is still the slot's, letting it go first if it has been
/// idle for `after` (not zero).
fn let_go_if_idle(
    slot: &Weak<RwLock<Option<Arc<Owned>>>>,
    owned: &Weak<Owned>,
    after: Duration,
) -> Watch {
    let (Some(slot), Some(owned)) = (slot.upgrade(), owned.upgrade()) else {
        return Watch::Ended;
    };
    let idle = |owned: &Owned| {
        !after.is_zero()
            && owned
                .server
                .as_ref()
                .is_none_or(|server| server.clients() == 0)
            && owned.core.idle_for().is_some_and(|idle| idle >= after)
    };
    if !idle(&owned) {
        return Watch::Owning;
    }
    // Idle: first the streams appended a few events at a time are repacked
    // (which counts as work, so the owner lets go only after another idle time).
    if owned.core.has_to_repack() {
        owned.core.repack_appended();
        return Watch::Owning;
    }
    let mut held = slot.write().unwrap_or_else(PoisonError::into_inner);
    let ours = held.as_ref().is_some_and(|o| Arc::ptr_eq(o, &owned));
    if !ours {
        return Watch::Ended;
    }
    // Looked at again under the lock: no call of this process starts meanwhile.
    if !idle(&owned) {
        return Watch::Owning;
    }
    // The server stops (its socket is taken away) and sled closes, releasing
    // its lock (once no scan holds it), before this process's calls see that it
    // no longer owns the log: they wait on the slot meanwhile.
    drop(owned);
    drop(held.take());
    drop(held);
    Watch::Ended
}

/// A scan of the log this process owns: it holds the log (and counts as under
/// way) until it is dropped.
pub(super) struct OwnedScan {
    scan: RecordIter<'static>,
    owned: Arc<Owned>,
}

impl OwnedScan {
    pub(super) fn new(owned: Arc<Owned>, stream: &str, from: Seq, to: Seq) -> Self {
        owned.core.start_operation();
        let scan = owned.core.sled.scan_detached(stream, from, to);
        Self { scan, owned }
    }
}

impl Iterator for OwnedScan {
    type Item = Result<Recorded>;

    fn next(&mut self) -> Option<Self::Item> {
        self.scan.next()
    }
}

impl Drop for OwnedScan {
    fn drop(&mut self) {
        self.owned.core.end_operation();
    }
}
