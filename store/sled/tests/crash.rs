//! The crash test: a child process appends with `Durability::Flush` and reports each
//! acknowledged head; it is killed with SIGKILL at random moments; the database is
//! reopened and every acknowledged event must be there, in order, decoding to the
//! event that was appended, with no gaps.
//!
//! `ASKUSER_CRASH_ROUNDS` sets the number of rounds (default 20).

use askuser_store::backend::Backend as _;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use askuser_sled::SledLog;
use askuser_store::Log;
use askuser_testkit::scripted_event;

/// A small xorshift generator, seeded from the clock (the seed is printed).
struct Rng(u64);

impl Rng {
    fn below(&mut self, bound: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % bound
    }
}

/// Batches start at `s` and hold `1 + s % 3` events (as the child writes them), so a
/// surviving head must be a batch boundary.
fn is_batch_boundary(head: u64) -> bool {
    let mut at = 0;
    while at < head {
        at += 1 + (at + 1) % 3;
    }
    at == head
}

/// What a read-only open says of a log whose last write a crash cut off.
const CRASH_WORDS: &str = "The last write to this log was cut off by a crash; everything \
    acknowledged is there (the write that was cut off had not been acknowledged, and is left out).";

/// Whether the read-only open of the log at `path` says that a write was cut
/// off by the crash; it must not say anything else, nor leave out an event up
/// to `last_acknowledged`.
fn cut_off_by_the_crash(path: &std::path::Path, round: u32, last_acknowledged: u64) -> bool {
    use std::fmt::Write as _;
    let reader = SledLog::open_read_only(path).expect("read after the kill");
    let Some(discarded) = reader.discarded() else {
        return false;
    };
    assert!(
        discarded.cut_by_crash,
        "round {round}, last acknowledged {last_acknowledged}: {discarded:?}\n{}",
        evidence(path, discarded.cleared())
    );
    let mut words = CRASH_WORDS.to_owned();
    for (i, (stream, range)) in discarded.missing.iter().enumerate() {
        assert!(
            stream == "crash" && *range.start() > last_acknowledged,
            "round {round}: acknowledged events left out: {discarded:?}"
        );
        let lead = if i == 0 { " Left out with it:" } else { "," };
        let _ = if range.start() == range.end() {
            write!(words, "{lead} stream \"crash\" event {}", range.start())
        } else {
            write!(
                words,
                "{lead} stream \"crash\" events {}-{}",
                range.start(),
                range.end()
            )
        };
    }
    if !discarded.missing.is_empty() {
        words.push('.');
    }
    assert_eq!(discarded.to_string(), words, "round {round}");
    // Salvage says the same: nothing is damaged, nothing acknowledged is lost.
    let to = tempfile::tempdir().unwrap();
    let report = askuser_sled::salvage(path, &to.path().join("salvaged")).unwrap();
    assert!(report.is_complete(), "round {round}: {report}");
    true
}

/// What a failed classification leaves to read (the test's database is gone
/// once it fails, and a CI machine with it): for each stretch recovery cleared,
/// the first 20 bytes of its segment (the header) and the bytes from 32 before
/// the stretch to 256 into it, in hex.
fn evidence(path: &std::path::Path, cleared: &[(u64, u64)]) -> String {
    use std::fmt::Write as _;
    use std::os::unix::fs::FileExt as _;
    const SEGMENT: u64 = 512 * 1024;
    let Ok(file) = std::fs::File::open(path.join("db")) else {
        return "(the data file cannot be opened)".to_owned();
    };
    let hex = |from: u64, length: usize| {
        let mut bytes = vec![0; length];
        let read = file.read_at(&mut bytes, from).unwrap_or(0);
        bytes[..read].iter().fold(String::new(), |mut out, byte| {
            let _ = write!(out, "{byte:02x}");
            out
        })
    };
    let mut out = String::new();
    for &(start, end) in cleared {
        let segment = start - start % SEGMENT;
        let from = start.saturating_sub(32).max(segment);
        let length = usize::try_from((start + 256).min(end) - from).unwrap_or(0);
        let _ = writeln!(
            out,
            "stretch {start}..{end}: segment {segment} header {}; from {from}: {}",
            hex(segment, 20),
            hex(from, length)
        );
    }
    out
}

#[test]
fn acknowledged_appends_survive_sigkill() {
    let rounds: u32 = std::env::var("ASKUSER_CRASH_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(20);
    let seed = std::env::var("ASKUSER_CRASH_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            SystemTime::now().duration_since(UNIX_EPOCH).map_or(1, |d| {
                u64::from(d.subsec_nanos()) ^ d.as_secs().rotate_left(32)
            }) | 1
        });
    println!("crash test: {rounds} rounds, seed {seed} (ASKUSER_CRASH_SEED to repeat)");
    let mut rng = Rng(seed);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("crash.db");
    let started = Instant::now();
    let mut acknowledged_total = 0;
    let mut last_acknowledged = 0;
    let mut cut_off = 0;
    for round in 0..rounds {
        let mut child = Command::new(env!("CARGO_BIN_EXE_askuser-store-crashtest"))
            .arg(&path)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start the crash test child");
        let stdout = child.stdout.take().unwrap();
        let reader = std::thread::spawn(move || {
            BufReader::new(stdout)
                .lines()
                .map_while(Result::ok)
                .map(|line| line.parse::<u64>().expect("a head"))
                .collect::<Vec<u64>>()
        });
        // Most rounds let the child get going; some kill it while it opens the database.
        let delay = if rng.below(5) == 0 {
            rng.below(30)
        } else {
            40 + rng.below(260)
        };
        std::thread::sleep(Duration::from_millis(delay));
        child.kill().expect("SIGKILL the child");
        let status = child.wait().unwrap();
        let acknowledged = reader.join().unwrap();
        let mut stderr = String::new();
        std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
        assert!(
            stderr.is_empty(),
            "round {round}: the child reported an error: {stderr}"
        );
        assert!(
            acknowledged.windows(2).all(|w| w[0] < w[1]),
            "round {round}: heads out of order"
        );
        if let Some(&last) = acknowledged.last() {
            last_acknowledged = last;
        }
        acknowledged_total += acknowledged.len();

        // Read without changing a byte first: what a crash cut off is said to be
        // a crash's, never damage, and holds nothing that was acknowledged. (Until
        // an append is acknowledged the log may not exist yet: a kill while the
        // child opens it leaves nothing a read-only command would open.)
        if last_acknowledged > 0 && cut_off_by_the_crash(&path, round, last_acknowledged) {
            cut_off += 1;
        }
        let log = SledLog::open(&path).expect("reopen after the kill");
        let head = log.stream("crash").unwrap().map_or(0, |s| s.head);
        assert!(
            head >= last_acknowledged,
            "round {round} ({status}): the head is {head} but {last_acknowledged} was acknowledged"
        );
        assert!(
            is_batch_boundary(head),
            "round {round}: head {head} splits a batch"
        );
        if head == 0 {
            continue; // killed before its first append
        }
        let mut expected_seq = 1;
        for recorded in log.read("crash", 1).unwrap() {
            let recorded = recorded.unwrap_or_else(|e| panic!("round {round}: {e}"));
            assert_eq!(recorded.seq, expected_seq, "round {round}: a gap");
            assert_eq!(
                recorded.event,
                scripted_event(recorded.seq),
                "round {round}: event {} differs",
                recorded.seq
            );
            expected_seq += 1;
        }
        assert_eq!(expected_seq - 1, head, "round {round}: events missing");
        // The log replays to the script's state.
        let replayed = askuser_store::replay::load(&log, "crash").unwrap();
        assert_eq!(replayed.seq, head);
        last_acknowledged = head;
    }
    println!(
        "crash test: {acknowledged_total} acknowledged appends, final head {last_acknowledged}, \
         {cut_off} rounds with a write cut off, {:.1?}",
        started.elapsed()
    );
    assert!(
        acknowledged_total > 0,
        "the child never acknowledged an append"
    );
}

/// A log of 60 appends, closed; the data file's bytes.
fn closed_log(path: &std::path::Path) -> Vec<u8> {
    // No background flush thread, so that the file's layout is the same every run.
    let config = sled::Config::new().path(path).flush_every_ms(None);
    let log = SledLog::from_config(&config).unwrap();
    for seq in 1..=60 {
        log.append("s", seq - 1, &[scripted_event(seq)]).unwrap();
    }
    drop(log);
    std::fs::read(path.join("db")).unwrap()
}

#[test]
fn a_cut_or_a_flip_in_the_last_write_is_damage_not_a_crash() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db");
    let data = closed_log(&path);
    let last = data.iter().rposition(|&byte| byte != 0).unwrap();
    // A byte of the last message flipped; the file cut inside that message.
    let flipped = {
        let mut data = data.clone();
        data[last - 2] ^= 0x10;
        data
    };
    let cut = data[..last - 2].to_vec();
    // The segment's header flipped: recovery drops the segment whole.
    let header = {
        let mut data = data.clone();
        data[2] ^= 0x10;
        data
    };
    for damaged in [flipped, cut, header] {
        std::fs::write(path.join("db"), &damaged).unwrap();
        let log = SledLog::open_read_only(&path).unwrap();
        let discarded = log.discarded().expect("the damage is reported").clone();
        assert!(!discarded.cut_by_crash, "{discarded:?}");
        assert!(
            discarded.to_string().starts_with(&format!(
                "The data file `db` is damaged or torn at byte {}: sled's recovery does not \
                 read the {} bytes written after it, so the events appended last are missing \
                 (each stream reads up to the head it had then); `askuser log salvage` copies \
                 those still intact into a new log.",
                discarded.first_byte, discarded.bytes
            )),
            "{discarded}"
        );
    }
}
