//! The floor under a one-event append on PostgreSQL: the round trip of a prepared
//! `SELECT 1` through the blocking `postgres` client that `PgLog` uses (which
//! runs `tokio-postgres` on a private runtime, so each query hops threads),
//! against the server of `ASKUSER_TEST_PG`.
//!
//! `cargo run --release -p askuser-benches --features postgres --example pg_roundtrip`

use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let url = std::env::var("ASKUSER_TEST_PG").map_err(|_| "set ASKUSER_TEST_PG")?;
    let mut client = postgres::Client::connect(&url, postgres::NoTls)?;
    let statement = client.prepare("SELECT 1")?;
    for _ in 0..2_000 {
        client.query_one(&statement, &[])?;
    }
    let rounds = 20_000_u32;
    let started = Instant::now();
    for _ in 0..rounds {
        client.query_one(&statement, &[])?;
    }
    println!(
        "prepared SELECT 1 through the postgres client: {:.1?} a round trip ({rounds} rounds)",
        started.elapsed() / rounds
    );
    Ok(())
}
