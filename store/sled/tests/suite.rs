//! The shared test suite (`askuser_testkit::suite`) against `SledLog` in a
//! temporary directory, and against a `SharedSledLog` client of a log another
//! process owns.
#![cfg(unix)]

mod common;

use askuser_testkit::suite::changes::{a_change_anywhere_wakes_a_log_wide_waiter, one_event};
use common::processes::{Helper, path_str};

mod sled {
    askuser_testkit::log_suite!(let (log, _dir) = crate::common::sled(); &log);
}

/// Through the socket of another process that owns the sled log.
mod remote {
    askuser_testkit::log_suite!(let (log, _owner) = crate::common::remote(); &log);
}

mod changes {
    use super::*;

    #[test]
    fn sled() {
        let (log, _dir) = common::sled();
        a_change_anywhere_wakes_a_log_wide_waiter(&log, |stream| one_event(&log, stream));
    }

    /// The waiter is a client of the owner process; the append is made by a third
    /// process.
    #[test]
    fn remote() {
        let (log, owner) = common::remote();
        a_change_anywhere_wakes_a_log_wide_waiter(&log, |stream| {
            let mut writer = Helper::start(&["write", path_str(&owner.path), stream, "w", "1"]);
            assert_eq!(writer.wrote(), vec!["from 0", "wrote 1"]);
            assert!(writer.finish());
        });
    }
}
