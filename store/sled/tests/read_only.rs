//! Reading never changes a byte of the database, healthy or damaged; damage is
//! reported in words; salvage copies what can be read and says what was lost.

use askuser_store::backend::Backend as _;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use askuser_sled::SledLog;
use askuser_store::{Log, StoreError};
use askuser_testkit::build::answered;
use askuser_testkit::scripted_event;

/// Every file under `dir`, with its bytes.
fn contents(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut all = BTreeMap::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_dir() {
            all.extend(contents(&entry.path()));
        } else {
            all.insert(entry.path(), std::fs::read(entry.path()).unwrap());
        }
    }
    all
}

/// Streams "a" (90 events) and "b" (40), each event its own append (as a session
/// writes them), and "c" forked from "a" at 30 with 10 of its own.
fn build(path: &Path, reopen: bool) {
    let log = SledLog::open(path).unwrap();
    for seq in 1..=90 {
        log.append("a", seq - 1, &[scripted_event(seq)]).unwrap();
        if seq <= 40 {
            log.append("b", seq - 1, &[scripted_event(seq)]).unwrap();
        }
    }
    log.fork("a", 30, "c").unwrap();
    for seq in 31..=40 {
        log.append("c", seq - 1, &[scripted_event(seq)]).unwrap();
    }
    drop(log);
    if reopen {
        drop(SledLog::open(path).unwrap());
    }
}

/// What the read-only commands do: list, show/export/transcript every stream,
/// replay each. Returns how many events read back (each checked exactly).
fn read_everything(path: &Path) -> Result<u64, StoreError> {
    let log = SledLog::open_read_only(path)?;
    let mut read = 0;
    for info in log.streams()? {
        for recorded in log.read(&info.name, 1)?.flatten() {
            assert_eq!(recorded.event, scripted_event(recorded.seq));
            read += 1;
        }
        let _ = askuser_store::replay::load(&log, &info.name);
        let _ = askuser_store::transcript(&log, &info.name);
        let _ = askuser_store::export::json_lines(&log, &info.name, &mut std::io::sink());
    }
    Ok(read)
}

#[test]
fn reading_a_healthy_log_changes_no_byte() {
    for reopen in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("db");
        build(&path, reopen);
        let before = contents(&path);
        assert_eq!(read_everything(&path).unwrap(), 90 + 40 + 40);
        assert_eq!(contents(&path), before);
        let log = SledLog::open_read_only(&path).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(log.discarded(), None);
        assert_eq!(
            log.append("a", 90, &[scripted_event(91)])
                .unwrap_err()
                .to_string(),
            format!("the askuser log at {path:?} was opened read-only; nothing was written")
        );
    }
}

#[test]
fn a_read_only_open_of_a_log_in_use_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db");
    build(&path, false);
    let writer = SledLog::open(&path).unwrap();
    assert!(matches!(
        SledLog::open_read_only(&path),
        Err(StoreError::Locked)
    ));
    drop(writer);
}

/// A small seeded generator (xorshift64*), so that each run damages the same bytes.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) % n
    }

    /// Flips 1 to 3 random bits of `data`: how many, and the first byte changed.
    fn flip_bits(&mut self, data: &mut [u8]) -> (u64, u64) {
        let flips = 1 + self.below(3);
        let mut first = u64::MAX;
        for _ in 0..flips {
            let at = self.below(data.len() as u64);
            data[usize::try_from(at).unwrap()] ^= 1 << self.below(8);
            first = first.min(at);
        }
        (flips, first)
    }

    /// Cuts `data` at a random length, which it returns.
    fn tear(&mut self, data: &mut Vec<u8>) -> u64 {
        let at = self.below(data.len() as u64);
        data.truncate(usize::try_from(at).unwrap());
        at
    }
}

fn copy_dir(from: &Path, to: &Path) {
    askuser_testkit::copy_dir(from, to).unwrap();
}

/// The events, in the order they were appended, with the data file's length once
/// each append had returned (it was flushed by then).
fn build_tracked(path: &Path, reopen: bool) -> Vec<(String, u64, u64)> {
    let log = SledLog::open(path).unwrap();
    let mut appended = Vec::new();
    let mut append = |stream: &str, seq: u64| {
        log.append(stream, seq - 1, &[scripted_event(seq)]).unwrap();
        let size = std::fs::metadata(path.join("db")).unwrap().len();
        appended.push((stream.to_owned(), seq, size));
    };
    for seq in 1..=90 {
        append("a", seq);
        if seq <= 40 {
            append("b", seq);
        }
    }
    drop(log);
    if reopen {
        // sled writes a recovery snapshot: the records are behind it now.
        drop(SledLog::open(path).unwrap());
    }
    appended
}

/// What one damaged copy gave back.
#[derive(Debug, Default)]
struct Trial {
    readable: BTreeSet<(String, u64)>,
    /// How many events the read-only open read.
    read: u64,
    /// Whether it said the last write was cut off by a crash.
    called_a_crash: bool,
    loss_stated: bool,
    refused: Option<String>,
}

impl Trial {
    /// " refused: why", when salvage refused the copy.
    fn refused_note(&self) -> String {
        self.refused
            .as_deref()
            .map(|r| format!(" refused: {r}"))
            .unwrap_or_default()
    }
}

fn salvage_trial(damaged: &Path, scratch: &Path) -> Trial {
    let before = contents(damaged);
    let mut trial = Trial::default();
    match read_everything(damaged) {
        Ok(read) => trial.read = read,
        Err(StoreError::Damaged { .. } | StoreError::Corrupt { .. } | StoreError::Storage(_)) => {}
        Err(other) => panic!("unexpected error: {other}"),
    }
    trial.called_a_crash = SledLog::open_read_only(damaged)
        .ok()
        .and_then(|log| log.discarded().map(|d| d.cut_by_crash))
        .unwrap_or(false);
    let to = scratch.join("salvaged");
    match askuser_sled::salvage(damaged, &to) {
        Ok(report) => {
            trial.loss_stated = !report.is_complete();
            let log = SledLog::open_read_only(&to).unwrap();
            for info in log.streams().unwrap() {
                for recorded in log.read(&info.name, 1).unwrap().flatten() {
                    assert_eq!(recorded.event, scripted_event(recorded.seq));
                    trial.readable.insert((info.name.clone(), recorded.seq));
                }
            }
        }
        Err(error @ StoreError::Damaged { .. }) => {
            trial.loss_stated = true;
            trial.refused = Some(error.to_string());
        }
        Err(other) => panic!("unexpected error: {other}"),
    }
    assert!(
        contents(damaged) == before,
        "reading changed the damaged log"
    );
    std::fs::remove_dir_all(&to).ok();
    trial
}

#[test]
fn flipped_bytes_and_torn_tails_lose_nothing_before_the_damage() {
    let dir = tempfile::tempdir().unwrap();
    let original = dir.path().join("original");
    let appended = build_tracked(&original, false);
    let complete = read_everything(&original).unwrap();
    let data = std::fs::read(original.join("db")).unwrap();
    let mut rng = Rng(0x5eed_0001);
    let mut figures = Vec::new();
    for case in 0..40_u64 {
        let copy = dir.path().join(format!("case-{case}"));
        copy_dir(&original, &copy);
        let mut damaged = data.clone();
        let (kind, point) = if case % 2 == 0 {
            let (flips, first) = rng.flip_bits(&mut damaged);
            (format!("{flips} flipped"), first)
        } else {
            ("torn".to_owned(), rng.tear(&mut damaged))
        };
        std::fs::write(copy.join("db"), &damaged).unwrap();
        let trial = salvage_trial(&copy, dir.path());
        let total = appended.len();
        let safe: Vec<_> = appended
            .iter()
            .filter(|(_, _, size)| *size <= point)
            .collect();
        let kept_safe = safe
            .iter()
            .filter(|(s, seq, _)| trial.readable.contains(&(s.clone(), *seq)))
            .count();
        figures.push(format!(
            "{kind} at {point}: {} of {total} readable ({} of {} before the damage){}",
            trial.readable.len(),
            kept_safe,
            safe.len(),
            trial.refused_note()
        ));
        assert_eq!(kept_safe, safe.len(), "{}", figures.last().unwrap());
        // Every event here was acknowledged: losing one is never a crash's doing.
        assert!(
            trial.read == complete || !trial.called_a_crash,
            "a loss called a crash: {}",
            figures.last().unwrap()
        );
        if trial.readable.len() < total {
            assert!(
                trial.loss_stated,
                "loss not stated: {}",
                figures.last().unwrap()
            );
        }
        std::fs::remove_dir_all(&copy).unwrap();
    }
    println!("{}", figures.join("\n"));
}

#[test]
fn damage_behind_a_recovery_snapshot_is_reported_and_the_rest_salvaged() {
    let dir = tempfile::tempdir().unwrap();
    let original = dir.path().join("original");
    let appended = build_tracked(&original, true);
    let data = std::fs::read(original.join("db")).unwrap();
    let mut rng = Rng(0x5eed_0002);
    let mut figures = Vec::new();
    for case in 0..30_u64 {
        let copy = dir.path().join(format!("case-{case}"));
        copy_dir(&original, &copy);
        let mut damaged = data.clone();
        let what = if case == 0 {
            damaged.truncate(data.len() - 10);
            "10 bytes cut off the end".to_owned()
        } else if case % 2 == 0 {
            let (flips, _) = rng.flip_bits(&mut damaged);
            format!("{flips} flipped")
        } else {
            format!("torn at {}", rng.tear(&mut damaged))
        };
        std::fs::write(copy.join("db"), &damaged).unwrap();
        let trial = salvage_trial(&copy, dir.path());
        figures.push(format!(
            "{what}: {} of {} readable{}",
            trial.readable.len(),
            appended.len(),
            trial.refused_note()
        ));
        if trial.readable.len() < appended.len() {
            assert!(
                trial.loss_stated,
                "loss not stated: {}",
                figures.last().unwrap()
            );
        }
        std::fs::remove_dir_all(&copy).unwrap();
    }
    println!("{}", figures.join("\n"));
}

const MARKER: &str = "FLIP-ME-0123456789abcdef";

/// The text of the error for a record whose page sled cannot read, with the byte
/// offset replaced by `N`.
fn page_error_text(error: &StoreError) -> String {
    let text = error.to_string();
    let digits: String = text
        .split("at byte ")
        .nth(1)
        .map(|rest| rest.chars().take_while(char::is_ascii_digit).collect())
        .unwrap_or_default();
    text.replacen(&format!("at byte {digits} "), "at byte N ", 1)
}

#[test]
fn a_page_sled_cannot_read_is_named_in_words() {
    let dir = tempfile::tempdir().unwrap();
    let original = dir.path().join("original");
    // No background flush thread, so that the file's layout is the same every run.
    let quiet = || sled::Config::new().path(&original).flush_every_ms(None);
    {
        let log = SledLog::from_config(&quiet())
            .unwrap()
            .with_durability(askuser_store::Durability::Buffered);
        for seq in 1..=2000_u64 {
            let event = if seq == 1000 {
                answered("i249", "note", serde_json::json!(MARKER))
            } else {
                scripted_event(seq)
            };
            log.append("s", seq - 1, &[event]).unwrap();
        }
        log.flush().unwrap();
    }
    // Behind a recovery snapshot, sled checks each page as it reads it.
    drop(SledLog::from_config(&quiet()).unwrap());
    drop(SledLog::from_config(&quiet()).unwrap());
    let data = std::fs::read(original.join("db")).unwrap();
    let offsets: Vec<usize> = data
        .windows(MARKER.len())
        .enumerate()
        .filter(|(_, w)| *w == MARKER.as_bytes())
        .map(|(i, _)| i)
        .collect();
    // Depending on where sled put the page, the flip is read when the record is (and
    // named) or when sled opens the file (sled refuses it: the read-only open then
    // recovers without the snapshot, and states the loss).
    for (trial, offset) in offsets.into_iter().enumerate() {
        let copy = dir.path().join(format!("trial-{trial}"));
        copy_dir(&original, &copy);
        let mut damaged = data.clone();
        damaged[offset + 4] ^= 0x01;
        std::fs::write(copy.join("db"), &damaged).unwrap();
        let before = contents(&copy);
        let log = SledLog::open_read_only(&copy).unwrap();
        let errors: Vec<StoreError> = log.read("s", 1).unwrap().filter_map(Result::err).collect();
        let read = log.read("s", 1).unwrap().flatten().count();
        let stated = log.discarded().is_some();
        drop(log);
        assert_eq!(contents(&copy), before);
        println!(
            "flip at byte {offset}: {} of 2000 events unreadable, {read} read",
            errors.len()
        );
        for error in &errors {
            let StoreError::Corrupt { seq, .. } = error else {
                panic!("{error}");
            };
            assert_eq!(
                page_error_text(error),
                format!(
                    "corrupt event in stream \"s\" at sequence {seq}: the storage engine could not \
                     read it: the data file `db` is damaged: the record at byte N fails its checksum"
                )
            );
        }
        if !errors.is_empty() {
            // Salvage copies every event that read back, and names the rest.
            let to = dir.path().join(format!("salvaged-{trial}"));
            let report = askuser_sled::salvage(&copy, &to).unwrap();
            assert_eq!(report.lost_events(), errors.len() as u64);
            let salvaged = SledLog::open_read_only(&to).unwrap();
            assert_eq!(salvaged.read("s", 1).unwrap().flatten().count(), read);
        }
        // Whatever did not read back is either named or stated as discarded.
        assert!(read == 2000 || !errors.is_empty() || stated);
    }
}
