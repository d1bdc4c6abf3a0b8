//! What MCP calls cost while they wait for an answer from another window: N
//! `askuser mcp --wait 600 --stream agent-K --pending-dir DIR` processes on one
//! sled log (one MCP
//! session each, as a host starts one server per session), each with one
//! `ask_user` call from a
//! client without forms, so each call waits; then the CPU all of them use
//! together (the log's owner among them) over 20 s, read from the
//! scheduler's count of every thread (`/proc/<pid>/task/<tid>/schedstat`), as
//! a share of one core.
//!
//! ```sh
//! cargo build --release -p askuser-cli
//! cargo run --release -p askuser-benches --example mcp_waiting               # 50 100 200 400
//! cargo run --release -p askuser-benches --example mcp_waiting -- 400        # one count
//! ASKUSER_BIN=/path/to/askuser cargo run --release -p askuser-benches --example mcp_waiting
//! ```
//!
//! Each process's stdout goes to /dev/null once the call is sent (a waiting
//! call writes nothing); its stdin stays open, which keeps its session.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use askuser_core::Event;
use askuser_sled::SharedSledLog;
use askuser_store::Log;

/// How long the CPU is measured.
const MEASURE: Duration = Duration::from_secs(20);

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let counts: Vec<usize> = match std::env::args().skip(1).map(|n| n.parse()).collect() {
        Ok(counts) if !Vec::is_empty(&counts) => counts,
        Ok(_) => vec![50, 100, 200, 400],
        Err(error) => return Err(format!("a count of calls: {error}").into()),
    };
    let bin = std::env::var_os("ASKUSER_BIN").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/release/askuser"),
        PathBuf::from,
    );
    println!(
        "calls waiting | CPU over {} s (share of one core)",
        MEASURE.as_secs()
    );
    for count in counts {
        let share = measure(&bin, count)?;
        println!("{count} | {:.1} %", share * 100.0);
    }
    Ok(())
}

/// Starts `count` servers, each with a waiting call, and measures them.
fn measure(bin: &Path, count: usize) -> Result<f64, Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let db = dir.path().join("db");
    std::fs::create_dir(dir.path().join("pending"))?;
    let mut servers = Vec::with_capacity(count);
    for n in 0..count {
        servers.push(start(bin, &db, dir.path(), n)?);
    }
    wait_until_waiting(&db, count)?;
    // Let the start-up settle (the last servers' first lease renewals).
    std::thread::sleep(Duration::from_secs(3));
    let pids: Vec<u32> = servers.iter().map(Child::id).collect();
    let before = cpu_nanos(&pids)?;
    let started = Instant::now();
    std::thread::sleep(MEASURE);
    let after = cpu_nanos(&pids)?;
    let seconds = started.elapsed().as_secs_f64();
    for mut server in servers {
        let _ = server.kill();
        let _ = server.wait();
    }
    #[allow(clippy::cast_precision_loss)] // far below 2^52 ns (52 days)
    let used = (after - before) as f64 / 1e9;
    Ok(used / seconds)
}

/// `askuser mcp --wait 600` on `db`, with one `ask_user` call sent by a client
/// that shows no forms. With a pending directory, so that the call waits its
/// whole 600 s: without one (nor a web inbox running on the log) a call waits
/// at most a minute, and the calls started first would stop waiting inside
/// the measured window.
fn start(bin: &Path, db: &Path, home: &Path, n: usize) -> std::io::Result<Child> {
    let mut child = Command::new(bin)
        .args([
            "mcp",
            "--wait",
            "600",
            "--stream",
            &format!("agent-{n}"),
            "--pending-dir",
        ])
        .arg(home.join("pending"))
        .arg("--db")
        .arg(db)
        .current_dir(home)
        .env("HOME", home)
        .env("ASKUSER_MACHINE", "bench")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()?;
    let input = child.stdin.as_mut().expect("piped");
    for line in [
        serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "bench", "version": "1"}}}),
        serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "ask_user", "arguments": {"questions": [
                {"id": "go", "text": format!("Deploy {n}?"), "answer_type": "boolean"}]}}}),
    ] {
        writeln!(input, "{line}")?;
    }
    input.flush()?;
    Ok(child)
}

/// Waits until `count` calls noted that their client shows no forms (they
/// wait from then on).
fn wait_until_waiting(db: &Path, count: usize) -> Result<(), Box<dyn std::error::Error>> {
    let started = Instant::now();
    loop {
        let waiting = match noted(db) {
            Ok(waiting) => waiting,
            Err(error) => {
                eprintln!("the log cannot be read yet: {error}");
                0
            }
        };
        if waiting >= count {
            return Ok(());
        }
        if started.elapsed() > Duration::from_secs(600) {
            return Err(format!("only {waiting} of {count} calls wait after 10 min").into());
        }
        std::thread::sleep(Duration::from_millis(500));
    }
}

/// How many client notes the log at `db` holds (one per waiting call).
fn noted(db: &Path) -> Result<usize, Box<dyn std::error::Error>> {
    let log = SharedSledLog::open(db)?;
    let mut noted = 0;
    for info in log.streams()? {
        for recorded in log.read(&info.name, 1)? {
            if matches!(recorded?.event, Event::ClientNoted { .. }) {
                noted += 1;
            }
        }
    }
    Ok(noted)
}

/// The CPU time `pids` used so far, in nanoseconds: the sum over their threads
/// of the scheduler's own count (`/proc/PID/task/TID/schedstat`, its first
/// field). Not `utime` and `stime` of `/proc/PID/stat`: those are charged a
/// whole clock tick (10 ms) to whichever thread runs when the tick fires, so
/// hundreds of processes each waking for a few microseconds at a time were
/// measured at anywhere from 2.6 to 12 % of a core for the same build. A
/// thread that ended is not counted; the servers start none while they wait.
fn cpu_nanos(pids: &[u32]) -> std::io::Result<u64> {
    let mut total = 0;
    for pid in pids {
        for task in std::fs::read_dir(format!("/proc/{pid}/task"))? {
            let schedstat = std::fs::read_to_string(task?.path().join("schedstat"))?;
            let ran = schedstat.split_whitespace().next();
            total += ran.and_then(|ns| ns.parse::<u64>().ok()).unwrap_or(0);
        }
    }
    Ok(total)
}
