//! The attacks of issue 10 on pending files: a planted link for the temporary file,
//! a pending file that is a link, a FIFO or a device, a key given twice, and a file
//! too large to read. Each fails fast with a message that says why.

use std::fs;
use std::path::Path;

use askuser_app::pending::{PENDING_FORMAT, PendingFile, PendingTarget};
use serde_json::json;

fn sample() -> PendingFile {
    serde_json::from_value(json!({
        "format": PENDING_FORMAT,
        "status": "pending",
        "stream": "s",
        "inquiry": "call-1",
        "dialect": "jp-form",
        "timestamp": "2026-01-01T00:00:00.000Z",
        "questions": [{"id": "ok", "question": "Proceed?", "answer_type": "boolean", "answer": null}]
    }))
    .expect("a pending file")
}

fn read_error(path: &Path) -> String {
    PendingFile::read(path).unwrap_err().to_string()
}

#[cfg(unix)]
#[test]
fn a_planted_link_is_never_written_through() {
    let dir = tempfile::tempdir().unwrap();
    let victim = dir.path().join("victim");
    fs::write(&victim, "precious").unwrap();
    let path = dir.path().join("p.json");
    // The names the old code used, for this and the next process ids.
    let pid = std::process::id();
    for next in pid..pid + 64 {
        let planted = dir.path().join(format!(".p.json.tmp-{next}"));
        std::os::unix::fs::symlink(&victim, planted).unwrap();
    }
    sample().write(&path).unwrap();
    assert_eq!(fs::read_to_string(&victim).unwrap(), "precious");
    assert_eq!(PendingFile::read(&path).unwrap(), sample());
    // Only the pending file and the planted links remain: no temporary file is left.
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 2 + 64);
}

#[cfg(unix)]
#[test]
fn a_pending_file_that_is_a_link_is_refused_for_reading_and_writing() {
    let dir = tempfile::tempdir().unwrap();
    let victim = dir.path().join("victim.json");
    sample().write(&victim).unwrap();
    let link = dir.path().join("p.json");
    std::os::unix::fs::symlink(&victim, &link).unwrap();
    let expected = format!(
        "the pending file {}: is a symbolic link (to {}); askuser does not follow links here: give the path of the file itself",
        link.display(),
        victim.display()
    );
    assert_eq!(read_error(&link), expected);
    assert_eq!(sample().write(&link).unwrap_err().to_string(), expected);
    assert!(
        fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
}

#[cfg(unix)]
#[test]
fn a_fifo_or_a_device_fails_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("p.json");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    if made.is_ok_and(|s| s.success()) {
        assert_eq!(
            read_error(&fifo),
            format!(
                "the pending file {}: is a FIFO (named pipe), not a regular file; give a file, or - for standard input",
                fifo.display()
            )
        );
        assert_eq!(
            sample().write(&fifo).unwrap_err().to_string(),
            format!(
                "the pending file {}: is a FIFO (named pipe), not a regular file; give a file, or - for standard input",
                fifo.display()
            )
        );
    }
    assert_eq!(
        read_error(Path::new("/dev/zero")),
        "the pending file /dev/zero: is a character device, not a regular file; give a file, or - for standard input"
    );
}

#[test]
fn a_key_given_twice_or_a_file_too_large_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.json");
    let mut text = serde_json::to_string(&sample()).unwrap();
    text.insert_str(1, r#""status":"answered","#);
    fs::write(&path, &text).unwrap();
    assert_eq!(
        read_error(&path),
        format!(
            "the pending file {}: is not a pending-questions file (the key \"status\" appears twice in one object at line 1 column 58); write it with `askuser ask --pending`",
            path.display()
        )
    );
    fs::write(&path, vec![b' '; (1 << 20) + 1]).unwrap();
    assert_eq!(
        read_error(&path),
        format!(
            "the pending file {}: is larger than 1048576 bytes (1 MiB), the most askuser reads; give a smaller file",
            path.display()
        )
    );
}

#[test]
fn a_hostile_stream_or_inquiry_is_refused_by_field() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.json");
    let mut file = sample();
    file.stream = String::new();
    file.write(&path).unwrap();
    assert_eq!(
        read_error(&path),
        format!(
            "the pending file {}: /stream: is empty; a stream name is 1 to 200 bytes of plain text, such as \"session-1\"",
            path.display()
        )
    );
    let mut file = sample();
    file.inquiry = "c\u{1b}]52;c;eA==\u{7}".into();
    file.write(&path).unwrap();
    assert_eq!(
        read_error(&path),
        format!(
            "the pending file {}: /inquiry: has U+001B ESCAPE at character 2; an inquiry id is plain text",
            path.display()
        )
    );
}

#[test]
fn a_place_that_cannot_be_written_is_known_before_anything_is_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let blocker = dir.path().join("not-a-dir");
    fs::write(&blocker, "").unwrap();
    let path = blocker.join("p.json");
    let error = PendingTarget::prepare(&path).unwrap_err().to_string();
    assert!(
        error.starts_with(&format!(
            "the pending file {}: cannot be written: no new file can be made in {} (",
            path.display(),
            blocker.display()
        )),
        "{error}"
    );
    // A prepared target writes; dropping one unwritten leaves nothing behind.
    let ok = dir.path().join("p.json");
    drop(PendingTarget::prepare(&ok).unwrap());
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    PendingTarget::prepare(&ok)
        .unwrap()
        .write(&sample())
        .unwrap();
    assert_eq!(PendingFile::read(&ok).unwrap(), sample());
}

/// A new pending file (an MCP call's) appears whole or not at all: no reader
/// ever finds it empty between its creation and its content, and a file
/// already at its path is never replaced. Before, the path was reserved empty
/// first, and a person listing pending files then read "EOF while parsing".
#[cfg(unix)]
#[test]
fn a_new_pending_file_appears_whole_and_never_replaces_one_already_there() {
    use std::os::unix::fs::PermissionsExt as _;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("askuser-s-call-1.json");
    let reader = {
        let path = path.clone();
        std::thread::spawn(move || {
            let mut reads = 0;
            while reads < 2_000 {
                if let Ok(bytes) = fs::read(&path) {
                    assert!(!bytes.is_empty(), "read empty after {reads} reads");
                    reads += 1;
                }
            }
        })
    };
    sample().write_new(&path).unwrap();
    reader.join().unwrap();
    assert_eq!(PendingFile::read(&path).unwrap(), sample());
    let mode = fs::metadata(&path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    let again = sample().write_new(&path).unwrap_err().to_string();
    assert_eq!(
        again,
        format!(
            "the pending file {}: cannot be written: a file is already there (File exists (os error 17))",
            path.display()
        )
    );
    // Only the file: no temporary file is left.
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
}
