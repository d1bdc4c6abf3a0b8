//! Logs closed cleanly: a writer settles what it wrote and seals the log when it
//! lets go, and a reader that finds the seal matching opens the log in place (no
//! copy), with no background thread in sled: sled's recovery has nothing to
//! change in it, its reads nothing to reshape, and not a byte changes. Anything
//! that could make sled's recovery change a byte breaks the seal.

mod common;

use askuser_store::backend::Backend as _;
use std::collections::BTreeMap;
use std::io::{Seek as _, SeekFrom, Write as _};
use std::path::{Path, PathBuf};

use askuser_core::Event;
use askuser_sled::{SharedSledLog, SledLog};
use askuser_store::Log;
use askuser_testkit::build::answered;
use askuser_testkit::scripted_events;
use common::events_of;
use common::processes::{Helper, path_str};

/// Every file under `dir`, with its bytes.
fn files(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(files(&path));
        } else {
            out.insert(path.clone(), std::fs::read(&path).unwrap());
        }
    }
    out
}

/// A log of `count` events in stream `s` (values big enough to go to blob files
/// too), written and closed by `SledLog::open`.
fn written(path: &Path, count: u64) -> Vec<Event> {
    let log = SledLog::open(path).unwrap();
    let events: Vec<Event> = scripted_events(1, count).collect();
    for (seq, chunk) in (0..).step_by(8).zip(events.chunks(8)) {
        log.append("s", seq, chunk).unwrap();
    }
    events
}

#[test]
fn a_log_closed_cleanly_is_sealed_and_read_in_place_without_a_byte_changed() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db");
    let events = written(&path, 400);
    assert!(SledLog::closed_cleanly(&path));
    assert!(path.join("askuser.seal").exists());
    // Read through the shared log, as `askuser log` commands do, three times,
    // each time open for longer than sled's background thread would wait before
    // moving pages: not a byte changed, and still sealed.
    let before = files(&path);
    for _ in 0..3 {
        let log = SharedSledLog::open_for_reading(&path).unwrap();
        assert!(log.is_owner());
        assert_eq!(events_of(&log, "s"), events);
        assert_eq!(log.streams().unwrap().len(), 1);
        std::thread::sleep(std::time::Duration::from_millis(1200));
        drop(log);
        assert!(SledLog::closed_cleanly(&path));
        assert!(files(&path) == before, "a byte changed");
    }
}

#[test]
fn a_log_open_for_writing_is_not_sealed_until_it_is_closed() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db");
    written(&path, 8);
    let log = SledLog::open(&path).unwrap();
    assert!(!SledLog::closed_cleanly(&path), "it is open");
    assert!(path.join("askuser.seal").exists(), "nothing written yet");
    log.append("s", 8, &scripted_events(9, 1).collect::<Vec<_>>())
        .unwrap();
    assert!(
        !path.join("askuser.seal").exists(),
        "removed before the write"
    );
    drop(log);
    assert!(SledLog::closed_cleanly(&path));
}

#[test]
fn a_log_whose_owner_was_killed_is_not_sealed() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db");
    written(&path, 8);
    let mut owner = Helper::start(&["own", path_str(&path)]);
    assert_eq!(owner.line(), "owner");
    let client = SharedSledLog::open(&path).unwrap();
    client
        .append("s", 8, &scripted_events(9, 4).collect::<Vec<_>>())
        .unwrap();
    drop(client);
    owner.kill();
    assert!(!SledLog::closed_cleanly(&path));
}

/// Flips one bit of the byte at `at` in `file`.
fn flip(file: &Path, at: SeekFrom) {
    let mut handle = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(file)
        .unwrap();
    let offset = handle.seek(at).unwrap();
    let mut byte = [0u8];
    std::io::Read::read_exact(&mut handle, &mut byte).unwrap();
    handle.seek(SeekFrom::Start(offset)).unwrap();
    handle.write_all(&[byte[0] ^ 0x10]).unwrap();
}

/// Each change that could make sled's recovery act breaks the seal: a flipped
/// bit in the data file's tail or in a segment header, a cut data file, a changed
/// snapshot or settings file, a blob file gone or added.
#[test]
fn damage_where_recovery_looks_breaks_the_seal() {
    type Damage = fn(&Path);
    let damages: [(&str, Damage); 6] = [
        ("a bit in the tail", |p| {
            flip(&p.join("db"), SeekFrom::End(-100));
        }),
        ("a bit in the first header", |p| {
            flip(&p.join("db"), SeekFrom::Start(3));
        }),
        ("the data file cut", |p| {
            let file = std::fs::OpenOptions::new()
                .write(true)
                .open(p.join("db"))
                .unwrap();
            let length = file.metadata().unwrap().len();
            file.set_len(length - 1).unwrap();
        }),
        ("a bit in the snapshot", |p| {
            let snapshot = std::fs::read_dir(p)
                .unwrap()
                .map(|e| e.unwrap().path())
                .find(|e| {
                    e.file_name()
                        .unwrap()
                        .to_string_lossy()
                        .starts_with("snap.")
                })
                .unwrap();
            flip(&snapshot, SeekFrom::Start(0));
        }),
        ("a bit in the settings", |p| {
            flip(&p.join("conf"), SeekFrom::Start(0));
        }),
        ("a blob file added", |p| {
            std::fs::write(p.join("blobs").join("999999"), b"x").unwrap();
        }),
    ];
    for (what, damage) in damages {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("db");
        written(&path, 40);
        assert!(SledLog::closed_cleanly(&path), "{what}");
        damage(&path);
        assert!(
            !SledLog::closed_cleanly(&path),
            "{what} left the seal matching"
        );
    }
}

/// A log compacted (its old events dropped, leaving sled's segments part empty,
/// which sled's background thread would rewrite) and repacked before it was
/// closed reads in place without a byte changed too.
#[test]
fn a_compacted_and_repacked_log_reads_in_place_without_a_byte_changed() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db");
    {
        let log = SledLog::open(&path).unwrap();
        for seq in 0..2_000 {
            log.append("s", seq, &scripted_events(seq + 1, 1).collect::<Vec<_>>())
                .unwrap();
        }
        askuser_store::compact::compact(&log, "s", true).unwrap();
        for seq in 2_000..2_300 {
            log.append("s", seq, &scripted_events(seq + 1, 1).collect::<Vec<_>>())
                .unwrap();
        }
        askuser_store::compact::repack(&log, "s").unwrap();
    }
    assert!(SledLog::closed_cleanly(&path));
    let before = files(&path);
    let log = SharedSledLog::open_for_reading(&path).unwrap();
    let head = log.stream("s").unwrap().unwrap().head;
    assert_eq!(head, 2_300);
    assert_eq!(log.read("s", 2_001).unwrap().count(), 300);
    std::thread::sleep(std::time::Duration::from_millis(1200));
    drop(log);
    assert!(files(&path) == before, "a byte changed");
    assert!(SledLog::closed_cleanly(&path));
}

/// A bigger log of big answers (80 MB), in blocks of 1 MB in ten streams: sled
/// leaves pages, stored in blob files, for the next traversal to split and
/// rewrite, and without the writer's settling, the first read changed bytes. It
/// reads in place without a byte changed from the first read.
#[test]
fn a_big_log_written_a_few_events_at_a_time_reads_in_place_without_a_byte_changed() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db");
    let streams = ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"];
    {
        let log = SledLog::open(&path)
            .unwrap()
            .with_durability(askuser_store::Durability::Buffered);
        for seq in 0..8 {
            for (n, stream) in (0_u64..).zip(streams) {
                let batch: Vec<Event> = (0..32)
                    .map(|k| big_answer(seq * 320 + n * 32 + k))
                    .collect();
                log.append(stream, seq * 32, &batch).unwrap();
            }
        }
    }
    assert!(SledLog::closed_cleanly(&path));
    let before = files(&path);
    let log = SharedSledLog::open_for_reading(&path).unwrap();
    for stream in streams {
        assert_eq!(log.read(stream, 1).unwrap().count(), 256);
    }
    drop(log);
    assert!(files(&path) == before, "a byte changed");
    assert!(SledLog::closed_cleanly(&path));
}

/// An answer of 32,000 characters that do not compress.
fn big_answer(n: u64) -> Event {
    let mut x = n.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let text: String = (0..32_000)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            char::from(b'#' + u8::try_from(x % 56).unwrap())
        })
        .collect();
    answered(&format!("q{n}"), "note", serde_json::Value::String(text))
}
