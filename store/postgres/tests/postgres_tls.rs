//! TLS to PostgreSQL against the project's private server (`scripts/postgres.sh`
//! starts it with TLS on, its certificate made for `localhost` by its own CA):
//! each `sslmode` as libpq reads it, the connection really encrypted (the
//! server's `pg_stat_ssl` says so), and a certificate that does not fit refused
//! with an error naming the host. The shared `Log` suite runs over TLS too
//! (`tests/suite.rs`, `postgres_tls`).

mod common;

use askuser_postgres::PgLog;
use common::*;

/// `ASKUSER_TEST_PG_TLS` with its host, `sslmode` and `sslrootcert` replaced,
/// and an `application_name` to find the connection by.
fn url(host: &str, mode: &str, root: Option<&str>, name: &str) -> String {
    let tls = pg_tls_url();
    let (base, query) = tls.split_once('?').expect("the TLS URL has a query");
    let ca = query
        .split('&')
        .find_map(|p| p.strip_prefix("sslrootcert="))
        .expect("the TLS URL names its CA");
    let base = base.replacen("@localhost:", &format!("@{host}:"), 1);
    let root = match root {
        Some("ca") => format!("&sslrootcert={ca}"),
        Some(other) => format!("&sslrootcert={other}"),
        None => String::new(),
    };
    format!("{base}?sslmode={mode}{root}&application_name={name}")
}

/// Whether the server sees the connection named `name` as encrypted.
fn encrypted(name: &str) -> bool {
    let mut client = postgres::Client::connect(&pg_url(), postgres::NoTls).expect("connect");
    let row = client
        .query_one(
            "SELECT bool_and(s.ssl) FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid) \
             WHERE a.application_name = $1",
            &[&name],
        )
        .expect("pg_stat_ssl");
    row.get::<_, Option<bool>>(0)
        .unwrap_or_else(|| panic!("no connection named {name}"))
}

fn name(tag: &str) -> String {
    format!("tls_{tag}_{}", std::process::id())
}

#[test]
fn each_sslmode_connects_as_libpq_would_and_encrypts_when_asked() {
    for (host, mode, root, tls) in [
        ("localhost", "verify-full", Some("ca"), true),
        ("127.0.0.1", "verify-ca", Some("ca"), true),
        ("127.0.0.1", "require", None, true),
        ("127.0.0.1", "prefer", None, true),
        ("127.0.0.1", "disable", None, false),
    ] {
        let name = name(&mode.replace('-', "_"));
        let log = PgLog::connect_in(&url(host, mode, root, &name), &fresh_schema())
            .unwrap_or_else(|error| panic!("{mode}: {error}"));
        assert_eq!(encrypted(&name), tls, "{mode}");
        let mut client = postgres::Client::connect(&pg_url(), postgres::NoTls).unwrap();
        client
            .batch_execute(&format!("DROP SCHEMA \"{}\" CASCADE", log.schema()))
            .unwrap();
    }
}

#[test]
fn a_certificate_that_does_not_fit_is_refused_naming_the_host() {
    // The certificate names localhost, not 127.0.0.1.
    let wrong_name = url("127.0.0.1", "verify-full", Some("ca"), "x");
    let error = PgLog::connect(&wrong_name).unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "cannot connect to the PostgreSQL server at {wrong_name}: the certificate of 127.0.0.1 was refused (error performing TLS handshake: invalid peer certificate: certificate not valid for name \"127.0.0.1\"; certificate is only valid for DnsName(\"localhost\")): it must be signed by a root in sslrootcert (the system's when it is not given) and name the host as the URL writes it; give sslrootcert=FILE with the CA that signed it, or connect by the name the certificate holds. Check that the server is running and that the URL names the right host (or socket directory), port, user, password and database"
        )
    );
    // The system's roots do not hold the test server's own CA.
    let unknown = url("localhost", "verify-full", Some("system"), "x");
    let error = PgLog::connect(&unknown).unwrap_err().to_string();
    assert_eq!(
        error,
        format!(
            "cannot connect to the PostgreSQL server at {unknown}: the certificate of localhost was refused (error performing TLS handshake: invalid peer certificate: UnknownIssuer): it must be signed by a root in sslrootcert (the system's when it is not given) and name the host as the URL writes it; give sslrootcert=FILE with the CA that signed it, or connect by the name the certificate holds. Check that the server is running and that the URL names the right host (or socket directory), port, user, password and database"
        )
    );
    // A root file that is not there is named before any connection.
    let missing = url("localhost", "verify-full", Some("%2Fno%2Fsuch.pem"), "x");
    assert_eq!(
        PgLog::connect(&missing).unwrap_err().to_string(),
        format!(
            "cannot open the log at {missing}: sslrootcert=/no/such.pem cannot be read (No such file or directory (os error 2))"
        )
    );
}
