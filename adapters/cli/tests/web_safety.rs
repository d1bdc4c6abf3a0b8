//! What keeps the web inbox safe, with a real browser and raw requests against
//! the real binaries: hostile text from the model shown as text (sled and
//! PostgreSQL), a wrong `Host`, a cross-site POST and a missing token refused,
//! axe-core finding no violation, HTTPS with a certificate made by openssl, an
//! address other machines reach refused without TLS, `--notify` posting to a
//! webhook with retries, and the person answered while others hold every
//! connection they can.

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

use common::browser::{Browser, free_port};
use common::place::Place;
use common::web::{Serve, Web, at, axe_violations, masked, migration, page_text};
use common::{BIN, Scratch};
use serde_json::json;

fn hostile_text_from_the_model_is_shown_as_text(place: &Place) {
    let scratch = Scratch::new();
    let db = place.db(&scratch);
    let mut serve = Serve::start(&scratch, &db, "s");
    let xss = "<script>alert(1)</script><img src=x onerror=alert(2)>";
    serve.send(
        &json!({"type": "ask", "inquiry": "x", "arguments": {"questions": [
        {"id": "q", "text": format!("Pick {xss}"), "context": format!("ctx {xss}\u{200f}"),
         "answer_type": "select",
         "options": [{"label": "a\"><b>bold</b>", "description": format!("d {xss}")}, "b"]}]}}),
    );
    serve.next_of("prompt");
    let web = Web::start(&scratch, &db);
    let browser = Browser::start();
    browser.go(&web.url);
    browser.go(&format!("http://127.0.0.1:{}/q/s/x", web.port));
    let source = browser.source();
    assert!(!source.contains("<script>"), "{source}");
    assert!(!source.contains("<img"), "{source}");
    assert!(!source.contains("<b>bold"), "{source}");
    assert!(!source.contains('\u{200f}'), "{source}");
    assert_eq!(
        page_text(&browser, &scratch),
        "← All questions\nAssistant in <scratch> on laptop asks\nwaiting N s\nctx <script>alert(1)</script><img src=x onerror=alert(2)>\\u{200f}\nPick <script>alert(1)</script><img src=x onerror=alert(2)>\na\"><b>bold</b>\nd <script>alert(1)</script><img src=x onerror=alert(2)>\nb\nA note for the assistant (optional)\nAnswer\nReply to the assistant instead\nEnd the turn"
    );
    // A generated form's titles, descriptions, keys and listed values too.
    serve.send(&json!({"type": "ask", "inquiry": "y", "arguments": {"questions": [
        {"id": "q", "text": "Settings", "answer_type": "schema", "schema": {
            "type": "object", "properties": {
                format!("k{xss}"): {"type": "string"},
                "t": {"type": "string", "title": format!("t{xss}\u{200f}"), "description": format!("d{xss}")},
                "e": {"enum": [format!("v{xss}"), 1]}}}}]}}));
    serve.next_of("prompt");
    browser.go(&format!("http://127.0.0.1:{}/q/s/y", web.port));
    at(&browser, "Settings");
    let source = browser.source();
    assert!(!source.contains("<script>"), "{source}");
    assert!(!source.contains("<img"), "{source}");
    assert!(!source.contains('\u{200f}'), "{source}");
    assert_eq!(
        page_text(&browser, &scratch),
        "← All questions\nAssistant in <scratch> on laptop asks\nwaiting N s\nSettings\nk<script>alert(1)</script><img src=x onerror=alert(2)>\nt<script>alert(1)</script><img src=x onerror=alert(2)>\\u{200f}\nd<script>alert(1)</script><img src=x onerror=alert(2)>\ne\n(no answer)\nv<script>alert(1)</script><img src=x onerror=alert(2)>\n1\nA note for the assistant (optional)\nAnswer\nReply to the assistant instead\nEnd the turn"
    );
}

#[test]
fn a_wrong_host_a_cross_site_post_and_a_missing_token_are_refused() {
    let scratch = Scratch::new();
    let mut serve = Serve::start(&scratch, &scratch.db(), "s");
    serve.send(&migration("c1"));
    serve.next_of("prompt");
    let web = Web::start(&scratch, &scratch.db());
    let port = web.port;
    let cookie = format!("askuser_token={}", web.token());
    let get = |host: &str, cookie: &str| {
        web.raw(&format!(
            "GET / HTTP/1.1\r\nHost: {host}\r\nCookie: {cookie}\r\nConnection: close\r\n\r\n"
        ))
        .0
    };
    assert_eq!(get(&format!("127.0.0.1:{port}"), &cookie), 200);
    assert_eq!(get(&format!("localhost:{port}"), &cookie), 200);
    assert_eq!(get(&format!("rebound.example:{port}"), &cookie), 421);
    assert_eq!(
        get(&format!("127.0.0.1:{port}"), "askuser_token=guess"),
        401
    );
    let page = web.raw(&format!(
        "GET /q/s/c1 HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nCookie: {cookie}\r\nConnection: close\r\n\r\n"
    ));
    let csrf = page.1.split("name=\"csrf\" value=\"").nth(1).unwrap()[..32].to_owned();
    // The page says what it shows (the question and the inquiry's step).
    assert!(page.1.contains("<input type=\"hidden\" name=\"at_step\" value=\"0\"><input type=\"hidden\" name=\"at_question\" value=\"apply\">"));
    let send_form = |origin: &str, csrf: &str| {
        let body = format!("csrf={csrf}&at_step=0&at_question=apply&action=answer&answer=true");
        web.raw(&format!(
            "POST /q/s/c1 HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nCookie: {cookie}\r\nOrigin: {origin}\r\n\
             Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        ))
        .0
    };
    assert_eq!(send_form("http://evil.example", &csrf), 403);
    assert_eq!(
        send_form(&format!("http://127.0.0.1:{port}"), "0".repeat(32).as_str()),
        403
    );
    assert_eq!(send_form(&format!("http://127.0.0.1:{port}"), &csrf), 303);
    assert_eq!(
        serve.next_of("prompt"),
        r#"{"type":"prompt","inquiry":"c1","question":{"id":"env","text":"Which environment?","context":null,"header":null,"answer_type":"select","options":[{"label":"staging","description":"safe to try"},{"label":"production","description":null}],"allow_other":false,"schema":null},"progress":{"n":2,"m":3},"prefill":null,"can_back":true,"label":"Assistant","step":2}"#
    );
}

/// The controls of the page on show that a finger cannot hit: every link,
/// button, input, list and label whose target (a control inside its label: the
/// label) is under 44x44 CSS px, as `tag#id "text" WxH` lines. A link inside the
/// model's own text (its context, a description, the question) runs with its
/// sentence, as WCAG 2.5.8 allows.
fn small_targets(browser: &Browser) -> Vec<String> {
    let found = browser.run(
        "var small = [];\
         document.querySelectorAll('a, button, input, select, textarea, label').forEach(function (el) {\
           if (el.type === 'hidden' || el.closest('.context, .description, legend, dt')) return;\
           var target = el.closest('label') || el;\
           var r = target.getBoundingClientRect();\
           if (r.width === 0 && r.height === 0) return;\
           if (r.width < 44 || r.height < 44) small.push(el.tagName.toLowerCase() + (el.id ? '#' + el.id : '')\
             + ' \"' + (el.textContent || el.value || '').trim().slice(0, 30) + '\" '\
             + Math.round(r.width) + 'x' + Math.round(r.height));\
         });\
         return small;",
    );
    serde_json::from_value(found.clone()).unwrap_or_else(|_| panic!("targets: {found}"))
}

/// Two inquiries of a stream `a11y`: c1 a select with context, a multi-select
/// and a text question (10 min to answer); c2 a generated form.
fn ask_every_kind(serve: &mut Serve) {
    serve.send(
        &json!({"type": "ask", "inquiry": "c1", "arguments": {"questions": [
        {"id": "env", "text": "Which **environment**?",
         "context": "We are about to deploy `billing-api`:\n\n- run the migration\n- restart\n\n```json\n{\"replicas\": 3}\n```\n\nSee [the runbook](https://example.com/runbook).",
         "answer_type": "select", "allow_other": true,
         "options": [{"label": "staging", "description": "safe to try"}, "production"]},
        {"id": "checks", "text": "Which checks?", "answer_type": "multi_select",
         "options": ["lint", "test"]},
        {"id": "note", "text": "Anything else?", "answer_type": "text"}]},
        "policy": {"label": "Claude (repo: billing-api)",
                   "timeout": {"after_ms": 600_000, "on_timeout": "cancel"}}}),
    );
    serve.next_of("prompt");
    serve.send(
        &json!({"type": "ask", "inquiry": "c2", "arguments": {"questions": [
        {"id": "deploy", "text": "How should it deploy?", "answer_type": "schema",
         "schema": {"type": "object", "required": ["replicas"], "properties": {
            "replicas": {"type": "integer", "description": "how many copies"},
            "region": {"enum": ["eu-west", "us-east"]},
            "canary": {"type": "boolean"}}}}]}}),
    );
    serve.next_of("prompt");
}

/// Every page, with the script on: axe-core finds no violation in the light
/// theme nor in the dark one (at 1280 px), and every target is at least 44x44
/// CSS px on a 390 px phone.
#[test]
fn axe_core_finds_no_violation_on_any_page_in_either_theme_and_every_target_is_44_px() {
    let scratch = Scratch::new();
    let mut serve = Serve::start(&scratch, &scratch.db(), "a11y");
    ask_every_kind(&mut serve);
    let web = Web::start(&scratch, &scratch.db());
    let browser = Browser::start_with_script();
    browser.go(&web.url);
    let base = format!("http://127.0.0.1:{}", web.port);
    let mut report = Vec::new();
    let mut check = |page: &str| {
        for (width, dark, theme) in [(1280, false, "light"), (1280, true, "dark")] {
            browser.emulate(width, dark);
            for violation in axe_violations(&browser) {
                report.push(format!("{page} ({theme}): {violation}"));
            }
        }
        browser.emulate(390, false);
        for small in small_targets(&browser) {
            report.push(format!("{page} (390 px): {small}"));
        }
        browser.emulate(1280, false);
    };
    assert_eq!(browser.wait_title("(2) askuser inbox"), "(2) askuser inbox");
    check("inbox");
    browser.go(&format!("{base}/q/a11y/c2"));
    at(&browser, "How should it deploy?");
    check("generated form");
    browser.type_into("#f0", "many");
    browser.click("button[value=answer]");
    browser.wait_text("#f0-error", "\"many\" is not of type \"integer\"");
    check("generated form with an error");
    browser.go(&format!("{base}/q/a11y/c1"));
    at(&browser, "[1/3] Which environment?");
    check("select");
    browser.click("#c0");
    browser.click("button[value=answer]");
    at(&browser, "[2/3] Which checks?");
    check("multi-select");
    browser.click("#c1");
    browser.click("button[value=answer]");
    at(&browser, "[3/3] Anything else?");
    check("text");
    browser.type_into("#answer", "no");
    browser.click("button[value=answer]");
    at(&browser, "Review your answers");
    check("review");
    browser.go(&format!("{base}/q/a11y/c1/reply"));
    check("reply");
    browser.go(&format!("{base}/q/a11y/c1/end"));
    check("end turn");
    browser.go(&format!("{base}/s/a11y"));
    check("history");
    browser.go(&format!("{base}/q/a11y/c9"));
    check("no such question");
    browser.go(&format!("{base}/q/a11y/c1"));
    browser.click("button[value=submit]");
    at(&browser, "Done");
    check("done");
    assert_eq!(report, Vec::<String>::new());
}

/// Lighthouse's accessibility score of `url` (0 to 100, from a pinned npm
/// `lighthouse` run against headless Debian chromium with the inbox's cookie),
/// and the audits that failed.
fn lighthouse(url: &str, token: &str) -> (f64, Vec<String>) {
    let cli = std::env::var("ASKUSER_TEST_LIGHTHOUSE").expect(
        "ASKUSER_TEST_LIGHTHOUSE is not set: run the tests with scripts/test (it installs lighthouse from npm)",
    );
    let headers = json!({"Cookie": format!("askuser_token={token}")}).to_string();
    let out = Command::new("node")
        .arg(&cli)
        .arg(url)
        .args([
            "--only-categories=accessibility",
            "--output=json",
            "--output-path=stdout",
            "--quiet",
            "--chrome-flags=--headless=new --no-sandbox --disable-gpu",
            "--blocked-url-patterns=*/events",
        ])
        .arg(format!("--extra-headers={headers}"))
        .env("CHROME_PATH", "/usr/bin/chromium")
        .output()
        .expect("node runs lighthouse");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|_| {
        panic!(
            "lighthouse gave no report: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    let score = report["categories"]["accessibility"]["score"]
        .as_f64()
        .unwrap_or_else(|| panic!("no accessibility score: {}", report["runtimeError"]));
    let failed = (report["audits"].as_object().into_iter().flatten())
        .filter(|(_, audit)| audit["score"].as_f64() == Some(0.0))
        .map(|(id, audit)| format!("{id}: {}", audit["title"]))
        .collect();
    (score * 100.0, failed)
}

/// Every kind of page a person lands on (the inbox, a question, the review, the
/// Reply and End Turn pages, a conversation's history, Done, the inbox with
/// "Answered today" and the page that asks before answering again) scores at
/// least 95 for accessibility.
#[test]
fn lighthouse_scores_every_kind_of_page_at_least_95_for_accessibility() {
    let scratch = Scratch::new();
    let mut serve = Serve::start(&scratch, &scratch.db(), "a11y");
    ask_every_kind(&mut serve);
    serve.send(&migration("c3"));
    serve.next_of("prompt");
    let web = Web::start(&scratch, &scratch.db());
    let base = format!("http://127.0.0.1:{}", web.port);
    {
        // c3 to its review, answered in the browser.
        let browser = Browser::start();
        browser.go(&web.url);
        browser.go(&format!("{base}/q/a11y/c3"));
        browser.click("#c1");
        browser.click("button[value=answer]");
        at(&browser, "[3/3] Optional note for the migration log");
        browser.click("button[value=answer]");
        at(&browser, "Review your answers");
    }
    let mut low = Vec::new();
    let token = web.token();
    // Three at a time: each is a browser of its own, mostly waiting.
    let mut score = |paths: &[&str]| {
        std::thread::scope(|scope| {
            let runs: Vec<_> = (paths.iter())
                .map(|path| {
                    let url = format!("{base}{path}");
                    (path, scope.spawn(move || lighthouse(&url, token)))
                })
                .collect();
            for (path, run) in runs {
                let (score, failed) = run.join().unwrap();
                if score < 95.0 {
                    low.push(format!("{path}: {score} ({failed:?})"));
                }
            }
        });
    };
    score(&["/", "/q/a11y/c1", "/q/a11y/c3"]);
    score(&["/q/a11y/c1/reply", "/q/a11y/c1/end", "/s/a11y"]);
    {
        // c3's review sent: its page is Done.
        let browser = Browser::start();
        browser.go(&web.url);
        browser.go(&format!("{base}/q/a11y/c3"));
        at(&browser, "Review your answers");
        browser.click("button[value=submit]");
        at(&browser, "Done");
    }
    // Done, the inbox with "Answered today" under what waits, and the page
    // that asks before answering again from c1's request (event 1).
    score(&["/q/a11y/c3", "/", "/s/a11y/fork?at=1"]);
    assert_eq!(low, Vec::<String>::new());
}

/// A self-signed certificate for `localhost` and 127.0.0.1 (openssl), as
/// (cert, key) paths.
fn self_signed(scratch: &Scratch) -> (String, String) {
    let dir = scratch.dir.path();
    let (cert, key) = (dir.join("cert.pem"), dir.join("key.pem"));
    let made = Command::new("openssl")
        .args([
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:prime256v1",
        ])
        .args(["-nodes", "-days", "2", "-subj", "/CN=localhost"])
        .args(["-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"])
        .arg("-keyout")
        .arg(&key)
        .arg("-out")
        .arg(&cert)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(made.success(), "openssl made no certificate");
    (cert.display().to_string(), key.display().to_string())
}

/// `curl` over TLS with `ca` trusted: the status line, `Set-Cookie` and the body.
fn curl(ca: &str, url: &str, cookie: Option<&str>) -> (String, String, String) {
    let mut command = Command::new("curl");
    command.args(["-sS", "-i", "--max-time", "10", "--cacert", ca]);
    if let Some(cookie) = cookie {
        command.args(["-H", &format!("Cookie: {cookie}")]);
    }
    let out = command.arg(url).output().unwrap();
    assert!(
        out.status.success(),
        "curl: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head.lines().next().unwrap_or_default().trim().to_owned();
    let cookie = head
        .lines()
        .find_map(|l| l.strip_prefix("set-cookie: "))
        .unwrap_or_default()
        .trim()
        .to_owned();
    (status, cookie, body.to_owned())
}

#[test]
fn with_a_certificate_the_inbox_is_served_over_https_with_a_secure_cookie() {
    let scratch = Scratch::new();
    let mut serve = Serve::start(&scratch, &scratch.db(), "tls");
    serve.send(&migration("c1"));
    serve.next_of("prompt");
    let (cert, key) = self_signed(&scratch);
    let port = free_port();
    let mut child = Command::new(BIN)
        .args([
            "web",
            "--db",
            &scratch.db(),
            "--listen",
            &format!("127.0.0.1:{port}"),
        ])
        .args([
            "--tls-cert",
            &cert,
            "--tls-key",
            &key,
            "--allow-host",
            "localhost",
        ])
        .current_dir(scratch.dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut url = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut url)
        .unwrap();
    let url = url.trim().to_owned();
    let token = url.split("token=").nth(1).unwrap().to_owned();
    assert_eq!(url, format!("https://localhost:{port}/?token={token}"));
    let (status, cookie, _) = curl(&cert, &url, None);
    assert_eq!(status, "HTTP/1.1 303 See Other");
    assert_eq!(
        cookie,
        format!("askuser_token={token}; HttpOnly; SameSite=Strict; Path=/; Secure")
    );
    let (status, _, body) = curl(
        &cert,
        &format!("https://localhost:{port}/"),
        Some(&format!("askuser_token={token}")),
    );
    assert_eq!(status, "HTTP/1.1 200 OK");
    assert!(body.contains("<title>(1) askuser inbox</title>"), "{body}");
    let _ = child.kill();
    let _ = child.wait();
}

#[test]
fn an_address_other_machines_reach_needs_tls_or_insecure_http_and_bad_files_are_named() {
    let scratch = Scratch::new();
    let run = |args: &[&str]| {
        let out = Command::new(BIN)
            .args(["web", "--db", &scratch.db()])
            .args(args)
            .current_dir(scratch.dir.path())
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    assert_eq!(
        run(&["--listen", "0.0.0.0:0"]),
        (Some(1), "askuser: cannot listen on 0.0.0.0:0: only a loopback address is served without TLS; give --tls-cert and --tls-key (recommended), or pass --insecure-http to serve plain HTTP to other machines (anyone on the network path can read the questions and the token)\n".to_owned())
    );
    let missing = scratch.dir.path().join("none.pem").display().to_string();
    assert_eq!(
        run(&["--tls-cert", &missing, "--tls-key", &missing]),
        (
            Some(1),
            format!(
                "askuser: TLS: {missing} cannot be read (No such file or directory (os error 2))\n"
            )
        )
    );
    assert_eq!(
        run(&["--allow-host", "evil.example/x"]),
        (Some(1), "askuser: cannot listen on 127.0.0.1:8765: --allow-host \"evil.example/x\": give a host name (letters, digits, dots, hyphens), an IPv4 address or a [bracketed] IPv6 address, with an optional :PORT\n".to_owned())
    );
}

#[test]
fn hostile_text_from_the_model_is_shown_as_text_on_sled() {
    hostile_text_from_the_model_is_shown_as_text(&Place::Sled);
}

#[test]
fn hostile_text_from_the_model_is_shown_as_text_on_postgres() {
    hostile_text_from_the_model_is_shown_as_text(&Place::postgres());
}

/// A webhook on a free port: answers its first request 500 and the others
/// 200, and hands over each request's body.
fn webhook() -> (u16, Receiver<String>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let (send, bodies) = channel();
    std::thread::spawn(move || {
        for (n, stream) in listener.incoming().enumerate() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut length = 0;
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                if let Some(value) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    length = value.trim().parse().unwrap_or(0);
                }
            }
            let mut body = vec![0; length];
            let _ = reader.read_exact(&mut body);
            let status = if n == 0 {
                "500 Internal Server Error"
            } else {
                "200 OK"
            };
            let _ = write!(
                stream,
                "HTTP/1.1 {status}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
            );
            if send
                .send(String::from_utf8_lossy(&body).into_owned())
                .is_err()
            {
                return;
            }
        }
    });
    (port, bodies)
}

#[test]
fn notify_posts_each_question_that_starts_waiting_and_retries_a_failure() {
    let scratch = Scratch::new();
    let db = scratch.db();
    let mut serve = Serve::start(&scratch, &db, "n");
    let (hook, bodies) = webhook();
    let port = free_port();
    let mut web = Command::new(BIN)
        .args(["web", "--db", &db, "--listen", &format!("127.0.0.1:{port}")])
        .args(["--notify", &format!("http://127.0.0.1:{hook}/askuser")])
        .current_dir(scratch.dir.path())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(500));
    serve.send(&migration("c1"));
    let first = "{\"stream\":\"n\",\"inquiry\":\"c1\",\"label\":\"Assistant\",\"question\":\"Apply the proposed migration?\",\"link\":\"http://127.0.0.1:PORT/q/n/c1\"}"
        .replace("PORT", &port.to_string());
    // Refused once (500), sent again a second later.
    for _ in 0..2 {
        assert_eq!(bodies.recv_timeout(Duration::from_secs(10)).unwrap(), first);
    }
    // The next question of the form is told of too (no: the environment's
    // `when` skips it).
    serve.send(&json!({"type": "answer", "inquiry": "c1", "question": "apply", "value": false}));
    assert_eq!(
        bodies.recv_timeout(Duration::from_secs(10)).unwrap(),
        "{\"stream\":\"n\",\"inquiry\":\"c1\",\"label\":\"Assistant\",\"question\":\"Optional note for the migration log\",\"link\":\"http://127.0.0.1:PORT/q/n/c1\"}"
            .replace("PORT", &port.to_string())
    );
    let _ = web.kill();
    let _ = web.wait();
}

/// Whether the server closed `stream` (a read finds its end, or an error).
fn closed(stream: &TcpStream) -> bool {
    let mut byte = [0u8];
    stream.set_nonblocking(true).unwrap();
    let closed = match stream.peek(&mut byte) {
        Ok(0) => true,
        Ok(_) => false,
        Err(error) => error.kind() != std::io::ErrorKind::WouldBlock,
    };
    stream.set_nonblocking(false).unwrap();
    closed
}

/// An attacker on the person's own loopback address: keeps `silent`
/// connections open that send nothing and `trickling` ones that send a header
/// line every half second, opening a new one each time the server closes one,
/// until `stop`; counts the closed ones in `closed_count`. Gives back the
/// connections open when stopped.
fn hold_connections(
    port: u16,
    silent: usize,
    trickling: usize,
    stop: &Arc<AtomicBool>,
    closed_count: &Arc<AtomicUsize>,
) -> std::thread::JoinHandle<Vec<TcpStream>> {
    let (stop, closed_count) = (Arc::clone(stop), Arc::clone(closed_count));
    std::thread::spawn(move || {
        let address = std::net::SocketAddr::from(([127, 0, 0, 1], port));
        let open = || TcpStream::connect_timeout(&address, Duration::from_secs(2)).ok();
        let mut held: Vec<Option<TcpStream>> = (0..silent + trickling).map(|_| open()).collect();
        for stream in held.iter_mut().skip(silent).flatten() {
            let _ = stream.write_all(b"GET / HTTP/1.1\r\n");
        }
        let mut round = 0;
        while !stop.load(Ordering::Relaxed) {
            std::thread::sleep(Duration::from_millis(500));
            round += 1;
            for (n, slot) in held.iter_mut().enumerate() {
                let gone = slot.as_ref().is_none_or(|stream| {
                    closed(stream)
                        || (n >= silent && write!(&*stream, "X-Trickle-{round}: 1\r\n").is_err())
                });
                if gone {
                    closed_count.fetch_add(1, Ordering::Relaxed);
                    *slot = open();
                    if n >= silent
                        && let Some(stream) = slot
                    {
                        let _ = stream.write_all(b"GET / HTTP/1.1\r\n");
                    }
                }
            }
        }
        held.into_iter().flatten().collect()
    })
}

#[test]
fn the_person_is_answered_while_others_hold_every_connection_they_can() {
    let scratch = Scratch::new();
    let mut serve = Serve::start(&scratch, &scratch.db(), "s");
    serve.send(&migration("c1"));
    serve.next_of("prompt");
    // 256 descriptors: before the connections were bounded, 300 idle ones
    // took them all and every request of the person's hung.
    let web = Web::start_with(&scratch, &scratch.db(), &[], Some("ulimit -n 256"));
    let (port, url) = (web.port, web.url.clone());
    let stop = Arc::new(AtomicBool::new(false));
    let closed_count = Arc::new(AtomicUsize::new(0));
    let attacker = hold_connections(port, 300, 20, &stop, &closed_count);
    std::thread::sleep(Duration::from_secs(2));
    let browser = Browser::start();
    browser.go(&url);
    assert_eq!(browser.wait_title("(1) askuser inbox"), "(1) askuser inbox");
    browser.go(&format!("http://127.0.0.1:{port}/q/s/c1"));
    at(&browser, "[1/3] Apply the proposed migration?");
    browser.click("#c0");
    browser.click("button[value=answer]");
    at(&browser, "[2/3] Which environment?");
    stop.store(true, Ordering::Relaxed);
    let held = attacker.join().unwrap();
    // The server closed connections all along (each newer one closes the
    // oldest of its address's unproven ones), and closes the ones still held
    // once their head is 5 s late.
    assert!(closed_count.load(Ordering::Relaxed) >= 300 - 32);
    for mut stream in held {
        stream
            .set_read_timeout(Some(Duration::from_secs(20)))
            .unwrap();
        let mut rest = Vec::new();
        match stream.read_to_end(&mut rest) {
            Ok(_) => assert_eq!(String::from_utf8_lossy(&rest), ""),
            Err(error) => assert_eq!(error.kind(), std::io::ErrorKind::ConnectionReset),
        }
    }
}

#[test]
fn a_post_without_the_cookie_is_refused_on_its_head_whatever_its_body() {
    let scratch = Scratch::new();
    let mut serve = Serve::start(&scratch, &scratch.db(), "s");
    serve.send(&migration("c1"));
    serve.next_of("prompt");
    let web = Web::start(&scratch, &scratch.db());
    let port = web.port;
    let cookie = format!("askuser_token={}", web.token());
    // The status line and the security headers of the answer to a POST.
    let posted = |host: &str, more: &str, kind: &str, body: &str| {
        let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
        let request = format!(
            "POST /q/s/c1 HTTP/1.1\r\nHost: {host}\r\n{more}Content-Type: {kind}\r\n\
             Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        );
        // The server answers on the head and may close before the body is all
        // sent: a write cut short is no failure.
        let _ = stream.write_all(request.as_bytes());
        let mut answer = String::new();
        let _ = stream.read_to_string(&mut answer);
        let head = answer.split("\r\n\r\n").next().unwrap_or_default();
        (head.lines())
            .filter(|line| {
                line.starts_with("HTTP/")
                    || line.starts_with("content-type:")
                    || line.starts_with("content-security-policy:")
                    || line.starts_with("x-content-type-options:")
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    let ours = format!("127.0.0.1:{port}");
    let json = "{\"answer\": true}";
    let large = format!("note={}", "x".repeat(70 * 1024));
    let headers = "content-type: text/html; charset=utf-8\n\
                   content-security-policy: default-src 'none'; style-src 'self'; script-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'\n\
                   x-content-type-options: nosniff";
    let form = "application/x-www-form-urlencoded";
    for (kind, body) in [("application/json", json), (form, large.as_str())] {
        assert_eq!(
            posted(&ours, "", kind, body),
            format!("HTTP/1.1 401 Unauthorized\n{headers}"),
            "{kind}"
        );
        assert_eq!(
            posted(
                "rebound.example",
                &format!("Cookie: {cookie}\r\n"),
                kind,
                body
            ),
            format!("HTTP/1.1 421 Misdirected Request\n{headers}"),
            "{kind}"
        );
        let cross_site = format!("Cookie: {cookie}\r\nOrigin: http://evil.example\r\n");
        assert_eq!(
            posted(&ours, &cross_site, kind, body),
            format!("HTTP/1.1 403 Forbidden\n{headers}"),
            "{kind}"
        );
    }
}

#[test]
fn markdown_nested_thousands_deep_is_shown_flat_past_sixteen_levels() {
    let scratch = Scratch::new();
    let mut serve = Serve::start(&scratch, &scratch.db(), "s");
    // 4,000 quotes and 2,000 list levels: each within the 4 KiB of a text,
    // each once enough to overflow the renderer's stack.
    serve.send(
        &json!({"type": "ask", "inquiry": "deep", "arguments": {"questions": [
        {"id": "q", "text": "Settings", "context": format!("{}x", "- ".repeat(2_000)),
         "answer_type": "schema", "schema": {"type": "object", "properties": {
            "name": {"type": "string", "description": format!("{} deep", ">".repeat(4_000))}}}}]}}),
    );
    serve.next_of("prompt");
    let web = Web::start(&scratch, &scratch.db());
    let browser = Browser::start();
    browser.go(&web.url);
    browser.go(&format!("http://127.0.0.1:{}/q/s/deep", web.port));
    at(&browser, "Settings");
    assert_eq!(
        page_text(&browser, &scratch),
        "← All questions\nAssistant in <scratch> on laptop asks\nwaiting N s\nx\n(Nested more than 16 levels deep: the deeper levels are shown flat.)\nSettings\nname\ndeep (Nested more than 16 levels deep: the deeper levels are shown flat.)\nA note for the assistant (optional)\nAnswer\nReply to the assistant instead\nEnd the turn"
    );
    // The inbox lists it, and the server still answers.
    browser.go(&web.url);
    assert_eq!(
        masked(&browser.text()).replace(&scratch.dir_name(), "<scratch>"),
        "Questions waiting for you\nAssistant\nwaiting now\n<scratch> · laptop\nstream s · started N s ago · history\nSettings\nwaiting N s · call deep"
    );
}
