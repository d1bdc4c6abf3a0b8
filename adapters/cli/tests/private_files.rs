//! Every file and directory askuser makes is its user's alone, whatever the
//! umask: a log's directory (and the parents askuser creates for it) 0700, every
//! file in it (settings, data, snapshots, seal), its blob directory and socket
//! 0600/0700, and every pending file 0600. A log that others can read is used,
//! and said so once, with the command that makes it private.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Child, Command};

use common::{Scratch, askuser_in, mcp};

/// Starts `askuser args...` in `dir` under `umask`, with pipes.
fn start(dir: &Path, umask: &str, args: &[&str]) -> Child {
    askuser_in(dir, Some(&format!("umask {umask}")), args)
        .spawn()
        .expect("the binary starts")
}

/// Runs `askuser args...` in `dir` under `umask` with `stdin`; its exit code
/// and standard error.
fn run(dir: &Path, umask: &str, args: &[&str], stdin: &str) -> (i32, String) {
    let mut child = start(dir, umask, args);
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8(output.stderr).unwrap(),
    )
}

/// Every entry under `dir`, as `MODE KIND PATH` (kind `d`, `f` or `s`), sorted,
/// with a snapshot's number written `N`.
fn modes(dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(at) = todo.pop() {
        for entry in std::fs::read_dir(&at).unwrap() {
            let entry = entry.unwrap();
            let meta = entry.metadata().unwrap();
            let kind = if meta.is_dir() {
                todo.push(entry.path());
                "d"
            } else if meta.is_file() {
                "f"
            } else {
                "s"
            };
            let name = entry
                .path()
                .strip_prefix(dir)
                .unwrap()
                .display()
                .to_string();
            let name = match name.split_once("snap.") {
                Some((before, _)) => format!("{before}snap.N"),
                None => name,
            };
            let mode = meta.permissions().mode() & 0o7777;
            found.push(format!("{mode:o} {kind} {name}"));
        }
    }
    found.sort();
    found
}

/// A sealed log at `new/log.db`, with the parent askuser created (sorted).
fn sealed_log() -> Vec<String> {
    let mut entries = [
        "700 d new",
        "700 d new/log.db",
        "700 d new/log.db/blobs",
        "600 f new/log.db/askuser.seal",
        "600 f new/log.db/conf",
        "600 f new/log.db/db",
        "600 f new/log.db/snap.N",
    ]
    .map(str::to_owned)
    .to_vec();
    entries.sort();
    entries
}

const CALL: &str = r#"{"questions":[{"id":"go","text":"Go?","answer_type":"boolean"}]}"#;

#[test]
fn ask_makes_the_log_and_the_pending_file_private_whatever_the_umask() {
    for umask in ["000", "022"] {
        let scratch = Scratch::new();
        let args = ["ask", "--db", "new/log.db", "--pending", "q.json", "-"];
        let (code, stderr) = run(scratch.dir.path(), umask, &args, CALL);
        assert_eq!(code, 5, "umask {umask}: {stderr}");
        let mut expected = sealed_log();
        expected.push("600 f q.json".to_owned());
        // The key the pending file is sealed with, beside the log.
        expected.push("600 f new/log.db/askuser.pending-key".to_owned());
        expected.sort();
        assert_eq!(modes(scratch.dir.path()), expected, "umask {umask}");
    }
}

#[test]
fn serve_makes_the_log_private_whatever_the_umask() {
    for umask in ["000", "022"] {
        let scratch = Scratch::new();
        let line =
            format!(r#"{{"type":"ask","inquiry":"i1","dialect":"jp-form","arguments":{CALL}}}"#);
        let args = ["serve", "--db", "new/log.db"];
        let (code, stderr) = run(scratch.dir.path(), umask, &args, &format!("{line}\n"));
        assert_eq!(code, 0, "umask {umask}: {stderr}");
        assert_eq!(modes(scratch.dir.path()), sealed_log(), "umask {umask}");
    }
}

#[test]
fn web_makes_the_log_and_its_socket_private_whatever_the_umask() {
    for umask in ["000", "022"] {
        let scratch = Scratch::new();
        let args = ["web", "--db", "new/log.db", "--listen", "127.0.0.1:0"];
        let mut child = start(scratch.dir.path(), umask, &args);
        let mut url = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut url)
            .unwrap();
        assert!(url.starts_with("http://127.0.0.1:"), "{url}");
        let running = modes(scratch.dir.path());
        child.kill().unwrap();
        child.wait().unwrap();
        assert_eq!(
            running,
            [
                "600 f new/log.db/askuser.owner",
                "600 f new/log.db/conf",
                "600 f new/log.db/db",
                "600 s new/log.db/askuser.sock",
                "700 d new",
                "700 d new/log.db",
                "700 d new/log.db/blobs",
            ],
            "umask {umask}"
        );
    }
}

/// Runs `askuser args...` (an MCP server) in `dir` under `umask` for one
/// `ask_user` call of [`CALL`], and its exit once the client hangs up.
fn call_mcp(dir: &Path, umask: &str, args: &[&str]) {
    let mut child = start(dir, umask, args);
    let mut input = child.stdin.take().unwrap();
    let mut output = BufReader::new(child.stdout.take().unwrap());
    let arguments: serde_json::Value = serde_json::from_str(CALL).unwrap();
    let call = serde_json::json!({"name": "ask_user", "arguments": arguments});
    mcp::hello_and_call(&mut input, ("t", "1"), &call);
    mcp::response_to_call(&mut output, |_| {});
    drop(input);
    assert!(child.wait().unwrap().success());
}

#[test]
fn mcp_makes_the_log_and_its_pending_files_private_whatever_the_umask() {
    for umask in ["000", "022"] {
        let scratch = Scratch::new();
        std::fs::create_dir(scratch.path("pending")).unwrap();
        std::fs::set_permissions(
            scratch.path("pending"),
            std::fs::Permissions::from_mode(0o700),
        )
        .unwrap();
        // No wait for another window: the pending file is the call's answer at once.
        let args = [
            "mcp",
            "--db",
            "new/log.db",
            "--pending-dir",
            "pending",
            "--wait",
            "0",
        ];
        call_mcp(scratch.dir.path(), umask, &args);
        let found = modes(scratch.dir.path());
        let mut expected = sealed_log();
        expected.push("700 d pending".to_owned());
        expected.push("600 f new/log.db/askuser.pending-key".to_owned());
        let pending = found
            .iter()
            .find(|entry| entry.contains("pending/askuser-"))
            .cloned()
            .expect("a pending file");
        // The stream is named after the working directory (`.tmpXXXX-1`).
        assert!(
            pending.starts_with("600 f pending/askuser-_tmp")
                && pending.ends_with("-1-call-1.json"),
            "{pending}"
        );
        expected.push(pending);
        expected.sort();
        assert_eq!(found, expected, "umask {umask}");
    }
}

/// A pending directory that is missing is made when the server starts (private
/// whatever the umask, as the files in it), so that no call fails for want of
/// it; a file where it should be is refused at the start, saying so.
#[test]
fn mcp_makes_a_missing_pending_directory_and_refuses_a_file_in_its_place() {
    for umask in ["000", "022"] {
        let scratch = Scratch::new();
        let args = [
            "mcp",
            "--db",
            "new/log.db",
            "--pending-dir",
            "made/pending",
            "--wait",
            "0",
        ];
        call_mcp(scratch.dir.path(), umask, &args);
        let made: Vec<String> = (modes(scratch.dir.path()).into_iter())
            .filter(|entry| entry.contains(" made"))
            .map(|entry| match entry.find("askuser-") {
                Some(at) => format!("{}askuser-…", &entry[..at]),
                None => entry,
            })
            .collect();
        assert_eq!(
            made,
            [
                "600 f made/pending/askuser-…",
                "700 d made",
                "700 d made/pending"
            ],
            "umask {umask}"
        );
    }
    let scratch = Scratch::new();
    std::fs::write(scratch.path("taken"), "").unwrap();
    let args = ["mcp", "--db", "new/log.db", "--pending-dir", "taken"];
    let (code, stderr) = run(scratch.dir.path(), "022", &args, "");
    assert_eq!(
        (code, &stderr[..]),
        (
            1,
            "askuser: --pending-dir taken: this is not a directory; give the directory the pending files are written to\n"
        )
    );
}

#[test]
fn a_log_others_can_read_is_used_and_said_so_once_with_the_chmod() {
    let scratch = Scratch::new();
    let db = scratch.path("shared log.db");
    let db = db.to_str().unwrap();
    let args = ["ask", "--db", db, "--pending", "q.json", "-"];
    let (code, stderr) = run(scratch.dir.path(), "022", &args, CALL);
    assert_eq!(code, 5, "{stderr}");
    assert!(!stderr.contains("warning"), "{stderr}");
    std::fs::set_permissions(db, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::set_permissions(
        scratch.path("shared log.db/db"),
        std::fs::Permissions::from_mode(0o644),
    )
    .unwrap();
    let warning = format!(
        "askuser: warning: other users of this machine can read the log '{db}' (its directory \
         gives group or others access); make it yours alone with: chmod -R go-rwx '{db}'\n"
    );
    // A command that records (and opens the log more than once) and one that reads.
    let args = ["ask", "--db", db, "--pending", "q2.json", "-"];
    let (code, stderr) = run(scratch.dir.path(), "022", &args, CALL);
    assert_eq!(code, 5, "{stderr}");
    assert_eq!(stderr.matches(&warning).count(), 1, "{stderr}");
    let (code, stderr) = run(scratch.dir.path(), "022", &["log", "list", "--db", db], "");
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stderr, warning);
    // The log is used as it is: its modes are the person's to change.
    let meta = std::fs::metadata(db).unwrap();
    assert_eq!(meta.permissions().mode() & 0o777, 0o755);
    // After the chmod it prints, nothing is said.
    let chmod = Command::new("chmod")
        .args(["-R", "go-rwx", db])
        .status()
        .unwrap();
    assert!(chmod.success());
    let (code, stderr) = run(scratch.dir.path(), "022", &["log", "list", "--db", db], "");
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stderr, "");
}
