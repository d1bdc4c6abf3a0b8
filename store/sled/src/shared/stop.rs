//! A person's process gives up the logs it owns before it stops (Ctrl-Z): see
//! [`hand_over_when_stopped`].

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, PoisonError, RwLock, RwLockReadGuard, Weak};
use std::time::{Duration, Instant};

use super::Owned;
use super::owner::Core;
use super::record::INTERACTIVE;
use crate::sled_files::lock_data_shared;

/// Where a [`SharedSledLog`](super::SharedSledLog) keeps the log while this
/// process owns it.
pub(super) type Slot = RwLock<Option<Arc<Owned>>>;

/// Whether this process is about to stop, or stopped: no log is taken meanwhile.
static PAUSED: Mutex<bool> = Mutex::new(false);
/// Notified when the process carries on after a stop.
static RESUMED: Condvar = Condvar::new();
/// Held (shared) while a thread takes a log; the stop waits for those under way.
static GATE: RwLock<()> = RwLock::new(());
/// The logs of this process, owned or not.
static SLOTS: Mutex<Vec<Weak<Slot>>> = Mutex::new(Vec::new());

/// How long a stop waits for the logs to close (operations under way to end,
/// sled to settle) before the process stops regardless.
const CLOSE_PATIENCE: Duration = Duration::from_secs(5);

/// Makes this process a person's (`askuser ask`, `resume`): it never holds a
/// [`SharedSledLog`](super::SharedSledLog) while it is stopped, and no other
/// process ever ends it.
///
/// On `SIGTSTP` (Ctrl-Z at the terminal, or an editor it runs that stops its
/// process group, as vim does) a thread of its own first lets go of every log
/// the process owns, as an idle owner does (its waits and other calls under way
/// are cut short and carried on later; its server stops, its socket and owner
/// record are removed, sled is closed and its lock released), then stops the
/// process (`SIGSTOP`). While it lets go and while it is stopped, no thread of
/// it takes a log again. When it is continued (`fg`), its calls reach whichever
/// process owns the log then, or take it again. Its owner record also says it
/// is a person's, so a client that finds it stopped by other means (`SIGSTOP`,
/// a debugger) or hung never ends it, and says to resume it instead.
///
/// Calling it again does nothing more.
///
/// # Errors
///
/// When the signal handler cannot be installed or its thread started.
pub fn hand_over_when_stopped() -> std::io::Result<()> {
    use std::sync::atomic::Ordering;
    let mut signals = signal_hook::iterator::Signals::new([signal_hook::consts::SIGTSTP])?;
    // Once per process: a second call keeps the first's thread.
    if INTERACTIVE.swap(true, Ordering::SeqCst) {
        return Ok(());
    }
    std::thread::Builder::new()
        .name("askuser-log-stop".to_owned())
        .spawn(move || {
            for _ in signals.forever() {
                stop_without_the_logs();
            }
        })?;
    Ok(())
}

/// Keeps `slot` among the logs let go of before a stop.
pub(super) fn register(slot: &Arc<Slot>) {
    let mut slots = SLOTS.lock().unwrap_or_else(PoisonError::into_inner);
    slots.retain(|slot| slot.strong_count() > 0);
    slots.push(Arc::downgrade(slot));
}

/// Held while a thread takes a log: waits first while the process is about to
/// stop or stopped; `true` if it waited.
pub(super) fn taking() -> (RwLockReadGuard<'static, ()>, bool) {
    let mut waited = false;
    loop {
        {
            let mut paused = PAUSED.lock().unwrap_or_else(PoisonError::into_inner);
            while *paused {
                waited = true;
                paused = RESUMED.wait(paused).unwrap_or_else(PoisonError::into_inner);
            }
        }
        let gate = GATE.read().unwrap_or_else(PoisonError::into_inner);
        if !*PAUSED.lock().unwrap_or_else(PoisonError::into_inner) {
            return (gate, waited);
        }
    }
}

/// Lets go of every log this process owns, stops it, and when it is
/// continued, lets its threads take logs again.
fn stop_without_the_logs() {
    *PAUSED.lock().unwrap_or_else(PoisonError::into_inner) = true;
    // No take-over is under way past this point.
    drop(GATE.write().unwrap_or_else(PoisonError::into_inner));
    let slots: Vec<Arc<Slot>> = SLOTS
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .iter()
        .filter_map(Weak::upgrade)
        .collect();
    let owned: Vec<Arc<Owned>> = slots
        .iter()
        .filter_map(|slot| slot.write().unwrap_or_else(PoisonError::into_inner).take())
        .collect();
    drop(slots);
    // Waits under way in this process return, and carry on later.
    for owned in &owned {
        owned.core.stop();
    }
    let cores: Vec<Weak<Core>> = owned.iter().map(|o| Arc::downgrade(&o.core)).collect();
    let paths: Vec<PathBuf> = owned.iter().map(|o| o.path.clone()).collect();
    let started = Instant::now();
    // The log is closed here, by this thread, once the calls under way let go of
    // it: a thread that let go last would close it (sled sealed, its lock
    // released) only after its last reference had gone, perhaps after the
    // process stopped, with the log still held.
    while owned.iter().any(|o| Arc::strong_count(o) > 1) && started.elapsed() < CLOSE_PATIENCE {
        std::thread::sleep(Duration::from_millis(5));
    }
    drop(owned);
    while cores.iter().any(|core| core.strong_count() > 0) && started.elapsed() < CLOSE_PATIENCE {
        std::thread::sleep(Duration::from_millis(5));
    }
    for path in &paths {
        until_closed(path, started);
    }
    // Raised on this thread, not sent to the process: a signal sent to the
    // process is taken by another of its threads, and this one ran on meanwhile
    // (tens of microseconds) and let the others take the log again before the
    // stop reached them, so a thread stopped holding it (`tmux_stop` failed
    // 1 run in 12 with both cores busy). Raised here, this thread is the one that
    // stops, before `raise` returns. Cannot fail: a thread may always signal itself.
    let _stopped = signal_hook::low_level::raise(signal_hook::consts::SIGSTOP);
    *PAUSED.lock().unwrap_or_else(PoisonError::into_inner) = false;
    RESUMED.notify_all();
}

/// Waits until sled has closed the data file of the database in `dir`, or the
/// stop's patience (counted from `started`) runs out: sled's threads may hold
/// the file, and with it the lock other processes wait for, a moment after its
/// last handle is dropped, and a process stopped then would keep the log held
/// while stopped. A reader of the log in this process holds the file shared,
/// which does not stand in the way.
fn until_closed(dir: &Path, started: Instant) {
    let Ok(data) = File::open(dir.join("db")) else {
        return;
    };
    // Taken or not, the lock is let go as `data` is closed.
    let _free = lock_data_shared(&data, started + CLOSE_PATIENCE);
}

#[cfg(test)]
mod tests {
    use std::fs::File;
    use std::time::{Duration, Instant};

    use super::until_closed;

    /// The data file held exclusively (as sled's threads hold it a moment after
    /// its last handle is dropped) until `held_for` has passed, on another
    /// thread; joined by the caller.
    fn held(dir: &std::path::Path, held_for: Duration) -> std::thread::JoinHandle<()> {
        let data = File::create(dir.join("db")).unwrap();
        fs2::FileExt::try_lock_exclusive(&data).unwrap();
        std::thread::spawn(move || {
            std::thread::sleep(held_for);
            drop(data);
        })
    }

    #[test]
    fn a_stop_waits_until_the_data_file_is_let_go() {
        let dir = tempfile::tempdir().unwrap();
        let holder = held(dir.path(), Duration::from_millis(150));
        let started = Instant::now();
        until_closed(dir.path(), started);
        assert!(
            started.elapsed() >= Duration::from_millis(150),
            "returned while the file was held: {:?}",
            started.elapsed()
        );
        holder.join().unwrap();
        // Free now, and free again after the look: the look let go of its lock.
        let data = File::open(dir.path().join("db")).unwrap();
        assert!(fs2::FileExt::try_lock_exclusive(&data).is_ok());
    }

    #[test]
    fn a_database_never_opened_is_not_waited_for() {
        let dir = tempfile::tempdir().unwrap();
        let started = Instant::now();
        until_closed(dir.path(), started);
        assert!(started.elapsed() < Duration::from_secs(1));
    }
}
