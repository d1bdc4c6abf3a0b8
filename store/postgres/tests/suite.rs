//! The shared test suite (`askuser_testkit::suite`) against `PgLog` on the
//! server of `ASKUSER_TEST_PG`, each case in a fresh schema, and over TCP and TLS
//! (`sslmode=verify-full`, `ASKUSER_TEST_PG_TLS`).

mod common;

use common::{pg, pg_tls};

mod postgres {
    askuser_testkit::log_suite!(let log = super::pg(); &*log);
}

mod postgres_tls {
    askuser_testkit::log_suite!(let log = super::pg_tls(); &*log);
}

/// A waiter on one connection pool is woken by an append through another on the
/// same schema.
#[test]
fn a_change_anywhere_wakes_a_log_wide_waiter() {
    use askuser_testkit::suite::changes::{a_change_anywhere_wakes_a_log_wide_waiter, one_event};
    let log = pg();
    let other = askuser_postgres::PgLog::connect_in(&log.url, log.schema())
        .unwrap_or_else(|error| panic!("{error}"));
    a_change_anywhere_wakes_a_log_wide_waiter(&*log, |stream| one_event(&other, stream));
}
