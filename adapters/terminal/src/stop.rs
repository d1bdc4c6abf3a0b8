//! Ctrl-Z at a prompt: the terminal is in raw mode, so the key reaches askuser
//! instead of stopping it; askuser gives the terminal back and stops itself as
//! the key would have, then takes the terminal again when it is continued.

/// How long to wait for the stop after asking for it: a process that owns a
/// shared log first lets go of it (which may take a few seconds), and a
/// process whose stop is refused (`SIGTSTP` ignored, or an orphaned process
/// group) must not wait for ever.
#[cfg(unix)]
const STOP_PATIENCE: std::time::Duration = std::time::Duration::from_secs(8);

/// Stops this process's group as Ctrl-Z does outside raw mode (`SIGTSTP` to
/// every process of the group, so a shell script that runs askuser stops with
/// it and the person's shell sees the job stopped, and a handler such as a
/// shared log's hand-over runs first) and returns once this process has been
/// continued (`fg`), or after a few seconds where nothing stops it.
#[cfg(unix)]
pub(crate) fn until_continued() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::time::{Duration, Instant};

    use rustix::process::{Signal, kill_current_process_group};
    use signal_hook::consts::SIGCONT;

    let continued = Arc::new(AtomicBool::new(false));
    let Ok(id) = signal_hook::flag::register(SIGCONT, Arc::clone(&continued)) else {
        return;
    };
    if kill_current_process_group(Signal::TSTP).is_ok() {
        let asked = Instant::now();
        while !continued.load(Ordering::SeqCst) && asked.elapsed() < STOP_PATIENCE {
            std::thread::sleep(Duration::from_millis(10));
        }
    }
    signal_hook::low_level::unregister(id);
}

/// Where processes are not stopped by a signal, Ctrl-Z does nothing.
#[cfg(not(unix))]
pub(crate) fn until_continued() {}
