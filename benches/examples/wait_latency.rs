//! How soon a process waiting on a stream of a shared sled log sees an append made
//! by another process: from just before the appender calls `append` to just after
//! the waiter's `wait_past` returns, read from the system clock in both processes
//! (one machine, one clock).
//!
//! ```sh
//! cargo run --release -p askuser-benches --example wait_latency            # both setups
//! cargo run --release -p askuser-benches --example wait_latency -- 500     # rounds
//! cargo run --release -p askuser-benches --features postgres --example wait_latency -- 300 "$ASKUSER_TEST_PG"
//! ```
//!
//! With a `postgres://` URL, two setups on PostgreSQL instead (a new schema per
//! run): the waiter in `Log::wait_past` on the stream, and in
//! `Log::wait_changed` on the log (what a watcher does), each woken by the
//! server's `NOTIFY` of an append committed by this process (with the
//! `postgres` feature, the schema is dropped after).
//!
//! Two setups: the appender owns the log and the waiter is its client; and all
//! three roles apart, the appender and the waiter both clients of a third process
//! that owns the log. Appends are flushed (`Durability::Flush`, the `askuser`
//! default), so each figure includes the owner's flush. The program runs itself as
//! the other processes (`--own DB`, `--wait DB`).

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use askuser_postgres::PgLog;
use askuser_sled::SharedSledLog;
use askuser_store::Log;
use askuser_testkit::scripted_event;

fn now_nanos() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("--own") => own(Path::new(&args[1])),
        Some("--wait") => wait(Path::new(&args[1])),
        Some("--wait-pg") => wait_pg(&args[1], &args[2], &args[3]),
        rounds => {
            let rounds = rounds.map_or(Ok(300), str::parse)?;
            if let Some(url) = args.get(1) {
                measure_pg(url, rounds, "past")?;
                return measure_pg(url, rounds, "changed");
            }
            measure(
                "the appender owns the log, the waiter is its client",
                rounds,
                false,
            )?;
            measure(
                "appender and waiter both clients of a third process",
                rounds,
                true,
            )
        }
    }
}

/// Holds the log until standard input closes.
fn own(db: &Path) -> Result<(), Box<dyn std::error::Error>> {
    let log = SharedSledLog::open(db)?;
    println!("{}", if log.is_owner() { "owner" } else { "client" });
    std::io::stdout().flush()?;
    let mut line = String::new();
    while std::io::stdin().read_line(&mut line)? > 0 {
        line.clear();
    }
    Ok(())
}

/// Waits on stream `s` over and over, printing each head it sees and when.
fn wait(db: &Path) -> Result<(), Box<dyn std::error::Error>> {
    let log = SharedSledLog::open(db)?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "ready")?;
    out.flush()?;
    let mut seen = 0;
    loop {
        let head = log.wait_past("s", seen, Duration::from_secs(30))?;
        if head == seen {
            return Ok(());
        }
        writeln!(out, "{head} {}", now_nanos())?;
        out.flush()?;
        seen = head;
    }
}

/// Waits on stream `s` of the PostgreSQL log `url` in `schema` over and over
/// (`how`: `past`, `Log::wait_past`; `changed`, `Log::wait_changed` and then
/// the stream's head), printing each head it sees and when.
fn wait_pg(url: &str, schema: &str, how: &str) -> Result<(), Box<dyn std::error::Error>> {
    let log = PgLog::connect_in(url, schema)?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "ready")?;
    out.flush()?;
    let mut seen = 0;
    let mut version = log.version()?;
    loop {
        let head = if how == "past" {
            log.wait_past("s", seen, Duration::from_secs(30))?
        } else {
            let now = log.wait_changed(version, Duration::from_secs(30))?;
            if now == version {
                return Ok(());
            }
            version = now;
            log.stream("s")?.map_or(0, |info| info.head)
        };
        if head == seen {
            return Ok(());
        }
        writeln!(out, "{head} {}", now_nanos())?;
        out.flush()?;
        seen = head;
    }
}

/// The PostgreSQL setups: this process appends, a waiter process (`how`) is
/// woken by the server's `NOTIFY`.
fn measure_pg(url: &str, rounds: u64, how: &str) -> Result<(), Box<dyn std::error::Error>> {
    let schema = format!("wait_latency_{}_{how}", std::process::id());
    let log = PgLog::connect_in(url, &schema)?;
    let mut child = Command::new(std::env::current_exe()?)
        .args(["--wait-pg", url, &schema, how])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()?;
    let mut output = BufReader::new(child.stdout.take().ok_or("no stdout")?);
    assert_eq!(line(&mut output)?, "ready");
    let latencies = rounds_of(&log, &mut output, rounds)?;
    drop(child.kill());
    drop(child.wait());
    #[cfg(feature = "postgres")]
    postgres::Client::connect(url, postgres::NoTls)?
        .batch_execute(&format!("DROP SCHEMA \"{schema}\" CASCADE"))?;
    let setup = match how {
        "past" => "PostgreSQL, a waiter in wait_past (another process)",
        _ => "PostgreSQL, a waiter in wait_changed (another process)",
    };
    report(setup, rounds, latencies);
    Ok(())
}

/// Appends `rounds` events to `s`, each after the waiter printed the last: how
/// long each took from just before the append to the waiter's wake.
fn rounds_of(
    log: &dyn Log,
    output: &mut impl BufRead,
    rounds: u64,
) -> Result<Vec<Duration>, Box<dyn std::error::Error>> {
    let mut latencies = Vec::new();
    for seq in 1..=rounds {
        // Let the waiter block in its wait before the append.
        std::thread::sleep(Duration::from_millis(3));
        let before = now_nanos();
        askuser_testkit::record(log, "s", seq - 1, &[scripted_event(seq)])?;
        let seen = line(output)?;
        let (head, at) = seen.split_once(' ').ok_or("a bad line from the waiter")?;
        assert_eq!(head.parse::<u64>()?, seq);
        latencies.push(Duration::from_nanos(u64::try_from(
            at.parse::<u128>()? - before,
        )?));
    }
    Ok(latencies)
}

fn report(setup: &str, rounds: u64, mut latencies: Vec<Duration>) {
    latencies.sort_unstable();
    let at = |percent: usize| latencies[(latencies.len() - 1) * percent / 100];
    println!(
        "{setup}: {rounds} appends; append-to-wake median {:.2?}, p90 {:.2?}, p99 {:.2?}, max {:.2?}",
        at(50),
        at(90),
        at(99),
        at(100)
    );
}

fn spawn(
    role: &str,
    db: &Path,
) -> Result<(Child, ChildStdin, BufReader<std::process::ChildStdout>), Box<dyn std::error::Error>> {
    let mut child = Command::new(std::env::current_exe()?)
        .arg(role)
        .arg(db)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()?;
    let input = child.stdin.take().ok_or("no stdin")?;
    let output = BufReader::new(child.stdout.take().ok_or("no stdout")?);
    Ok((child, input, output))
}

fn line(reader: &mut impl BufRead) -> Result<String, Box<dyn std::error::Error>> {
    let mut line = String::new();
    reader.read_line(&mut line)?;
    Ok(line.trim_end().to_owned())
}

fn measure(setup: &str, rounds: u64, third_owner: bool) -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let db = dir.path().join("db");
    let owner = if third_owner {
        let (child, input, mut output) = spawn("--own", &db)?;
        assert_eq!(line(&mut output)?, "owner");
        Some((child, input))
    } else {
        None
    };
    let log = SharedSledLog::open(&db)?;
    assert_eq!(log.is_owner(), !third_owner);
    let (mut waiter, waiter_input, mut waiter_output) = spawn("--wait", &db)?;
    assert_eq!(line(&mut waiter_output)?, "ready");
    let latencies = rounds_of(&log, &mut waiter_output, rounds)?;
    drop(waiter_input);
    drop(waiter.kill());
    drop(waiter.wait());
    if let Some((mut child, input)) = owner {
        drop(input);
        drop(child.wait());
    }
    report(setup, rounds, latencies);
    Ok(())
}
