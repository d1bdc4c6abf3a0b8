//! The web inbox facing a hostile network and hostile files, against the real
//! binary: `--notify` against a webhook that never answers keeps one sender
//! thread however many questions wait; `--insecure-http` warns on every start
//! who can read the token; a FIFO, a directory, a device or an oversized file
//! given as the certificate is refused at once, by name; `--token-file` keeps
//! the token across restarts, readable by the person only.

mod common;

use std::io::{BufRead, BufReader, Read};
use std::net::TcpListener;
use std::process::{Command, Stdio};
use std::sync::mpsc::channel;
use std::time::{Duration, Instant};

use common::browser::free_port;
use common::web::{Serve, Web, migration};
use common::{BIN, Scratch};

/// The threads of process `pid`, from `/proc/PID/task`, but sled's IO pool
/// (`sled-io-N`): sled starts 7 of them the first time it writes a buffer off
/// the writer's thread, whenever in a run that comes, and adds one only while
/// IO work waits (each gone after a second idle): sled's own bound.
fn threads(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/task"))
        .unwrap()
        .filter_map(|task| std::fs::read_to_string(task.unwrap().path().join("comm")).ok())
        .filter(|name| !name.starts_with("sled-io-"))
        .count()
}

/// A webhook that accepts every connection and never answers: each accepted
/// connection is held, and counted on the channel.
fn hanging_webhook() -> (u16, std::sync::mpsc::Receiver<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let (send, accepted) = channel();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming() {
            held.push(stream);
            if send.send(()).is_err() {
                return;
            }
        }
    });
    (port, accepted)
}

/// 200 questions start waiting while the webhook hangs: they queue for one
/// sender thread, so the inbox's threads stay as they were after the first.
#[test]
fn a_hanging_webhook_and_200_waiting_questions_keep_one_sender() {
    let scratch = Scratch::new();
    let db = scratch.db();
    let mut serve = Serve::start(&scratch, &db, "n");
    let (hook, accepted) = hanging_webhook();
    let notify = format!("http://127.0.0.1:{hook}/askuser");
    let web = Web::start_with(&scratch, &db, &["--notify", &notify], None);
    // The first question reaches the webhook: the notifier is running.
    let first = Instant::now();
    loop {
        serve.send(&migration(&format!("warm-{}", first.elapsed().as_millis())));
        serve.next_of("prompt");
        if accepted.recv_timeout(Duration::from_secs(1)).is_ok() {
            break;
        }
        assert!(first.elapsed() < Duration::from_secs(30), "never notified");
    }
    let before = threads(web.child.id());
    for n in 0..200 {
        serve.send(&migration(&format!("c{n}")));
        serve.next_of("prompt");
    }
    // The inbox has seen them all (it is told of a change at once).
    std::thread::sleep(Duration::from_secs(2));
    let after = threads(web.child.id());
    drop(web);
    assert!(
        after <= before + 2,
        "{before} threads before 200 questions, {after} after"
    );
}

/// `--insecure-http` says on every start, after the URL, who can read the
/// token, then how to stop the inbox.
#[test]
fn insecure_http_warns_on_every_start_who_can_read_the_token() {
    let scratch = Scratch::new();
    let port = free_port();
    for _ in 0..2 {
        let mut web = Command::new(BIN)
            .args(["web", "--db", &scratch.db(), "--insecure-http"])
            .args(["--listen", &format!("0.0.0.0:{port}")])
            .current_dir(scratch.dir.path())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let (send, lines) = channel();
        let stderr = web.stderr.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                let _ = send.send(line);
            }
        });
        // Up to the line that says how to stop it (or 10 s).
        let mut seen = Vec::new();
        while let Ok(line) = lines.recv_timeout(Duration::from_secs(10)) {
            let last = line.ends_with("Ctrl+C stops it");
            seen.push(line);
            if last {
                break;
            }
        }
        let _ = web.kill();
        let _ = web.wait();
        assert_eq!(
            seen,
            [
                format!("askuser: warning: --insecure-http serves the inbox as plain HTTP on 0.0.0.0:{port}: anyone on the network path between a browser and this host can read the token in the URL above and the cookie that carries it, and with them read and answer every question; serve HTTPS with --tls-cert and --tls-key instead"),
                "askuser: the web inbox is open at the URL above (keep it secret: it holds the token); Ctrl+C stops it".to_owned(),
            ]
        );
    }
}

/// Runs `askuser web --tls-cert CERT --tls-key KEY`, which must end within 10 s
/// (a FIFO once hung it for good): its exit code and standard error.
fn start_with(scratch: &Scratch, cert: &str, key: &str) -> (Option<i32>, String) {
    let mut web = Command::new(BIN)
        .args(["web", "--db", &scratch.db(), "--tls-cert", cert])
        .args(["--tls-key", key])
        .current_dir(scratch.dir.path())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    let status = loop {
        if let Some(status) = web.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > Duration::from_secs(10) {
            let _ = web.kill();
            let _ = web.wait();
            panic!("askuser web --tls-cert {cert} still runs after 10 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let mut stderr = String::new();
    web.stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    (status.code(), stderr)
}

/// A FIFO, a directory, a device or a file over 1 MiB given as the certificate
/// is refused before anything is read from it, naming the file and what to give.
#[test]
fn a_certificate_that_is_not_a_small_regular_file_is_refused_at_once() {
    let scratch = Scratch::new();
    let path = |name: &str| scratch.dir.path().join(name).display().to_string();
    let fifo = path("cert.fifo");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let key = path("key.pem");
    std::fs::write(&key, "").unwrap();
    assert_eq!(
        start_with(&scratch, &fifo, &key),
        (
            Some(1),
            format!(
                "askuser: TLS: {fifo} is a FIFO (named pipe), not a regular file; give --tls-cert the path of a PEM file\n"
            )
        )
    );
    let dir = scratch.dir.path().display().to_string();
    assert_eq!(
        start_with(&scratch, &dir, &key),
        (
            Some(1),
            format!(
                "askuser: TLS: {dir} is a directory, not a regular file; give --tls-cert the path of a PEM file\n"
            )
        )
    );
    assert_eq!(
        start_with(&scratch, "/dev/zero", &key),
        (
            Some(1),
            "askuser: TLS: /dev/zero is a character device, not a regular file; give --tls-cert the path of a PEM file\n".to_owned()
        )
    );
    let large = path("large.pem");
    std::fs::write(&large, vec![b'-'; 2 << 20]).unwrap();
    assert_eq!(
        start_with(&scratch, &large, &key),
        (
            Some(1),
            format!(
                "askuser: TLS: {large} is larger than 1 MiB (2097152 bytes), more than a PEM certificate chain or key; give --tls-cert the PEM file itself\n"
            )
        )
    );
}

/// `askuser web` on a port another program holds says so, and how to pick
/// another.
#[test]
fn a_busy_port_is_named_with_how_to_choose_another() {
    let scratch = Scratch::new();
    let taken = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port();
    let listen = format!("127.0.0.1:{port}");
    let run = scratch.run_db(&["web", "--listen", &listen], "");
    assert_eq!(
        (run.code, run.stdout.as_str(), run.stderr.as_str()),
        (
            1,
            "",
            format!(
                "askuser: cannot listen on {listen}: another program (perhaps another `askuser web`) already listens on port {port}; pass --listen with another port (--listen 127.0.0.1:0 takes any free one)\n"
            )
            .as_str()
        )
    );
}

/// With `--token-file` (as the service `askuser setup inbox` writes runs it),
/// the token is made once, kept readable by the person only (in a directory
/// made theirs), and the inbox started again takes the same token, so a
/// browser's cookie outlives a restart.
#[test]
fn the_token_file_keeps_the_link_across_restarts() {
    use std::os::unix::fs::PermissionsExt as _;
    let scratch = Scratch::new();
    let db = scratch.db();
    let file = scratch.path("data/web-token");
    let token_file = file.display().to_string();
    let first = Web::start_with(&scratch, &db, &["--token-file", &token_file], None);
    let url = first.url.clone();
    drop(first);
    let kept = std::fs::read_to_string(&file).unwrap();
    assert_eq!(
        url.split_once("?token=").map(|(_, t)| format!("{t}\n")),
        Some(kept)
    );
    let mode =
        |path: &std::path::Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
    assert_eq!((mode(&file), mode(&scratch.path("data"))), (0o600, 0o700));
    let again = Web::start_with(&scratch, &db, &["--token-file", &token_file], None);
    // Another free port, the same token.
    assert_eq!(again.token(), url.split_once("?token=").unwrap().1);
}
