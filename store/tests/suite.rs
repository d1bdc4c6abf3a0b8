//! The shared test suite (`askuser_testkit::suite`) against `MemLog`; the
//! durable logs run it in their own crates (`askuser-sled`, `askuser-postgres`).

use askuser_testkit::build::mem;
use askuser_testkit::suite::changes::{a_change_anywhere_wakes_a_log_wide_waiter, one_event};

mod memory {
    askuser_testkit::log_suite!(let log = askuser_testkit::build::mem(); &log);
}

/// A waiter is woken by an append through the same log on another thread.
#[test]
fn a_change_anywhere_wakes_a_log_wide_waiter_in_memory() {
    let log = mem();
    a_change_anywhere_wakes_a_log_wide_waiter(&log, |stream| one_event(&log, stream));
}
