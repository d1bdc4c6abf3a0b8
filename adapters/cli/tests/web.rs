//! The web inbox with a real browser (headless chromium, JavaScript off, driven
//! over `WebDriver`; see `common/browser.rs`) against the real binaries: an agent
//! asks through `askuser serve`, the person answers in the browser, and `serve`
//! prints the exact result. Also: Reply with a message, End Turn, a race with
//! `askuser answer`, hostile text shown as text, and the guard (wrong `Host`, a
//! cross-site POST, no token) over plain HTTP. Every test of what a person does
//! runs twice: on a sled log and on a fresh PostgreSQL database.

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

use common::browser::{Browser, free_port};
use common::place::Place;
use common::{BIN, Scratch};
use serde_json::{Value, json};

/// `askuser serve` with its stdin open, its stdout lines arriving on a channel.
struct Serve {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

impl Serve {
    fn start(scratch: &Scratch, db: &str, stream: &str) -> Self {
        let mut child = Command::new(BIN)
            .args(["serve", "--db", db, "--stream", stream])
            .current_dir(scratch.dir.path())
            .env("HOME", scratch.dir.path())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (send, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        let serve = Serve {
            child,
            stdin,
            lines,
        };
        serve.next_of("ready");
        serve
    }

    fn send(&mut self, line: &Value) {
        writeln!(self.stdin, "{line}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// The next line of type `kind` (others skipped), as text.
    fn next_of(&self, kind: &str) -> String {
        loop {
            let line = self
                .lines
                .recv_timeout(Duration::from_secs(20))
                .unwrap_or_else(|_| panic!("serve printed no {kind} line"));
            let value: Value = serde_json::from_str(&line).unwrap();
            if value["type"] == kind {
                return line;
            }
        }
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `askuser web` on a free port; its URL (with the token) and its process.
struct Web {
    child: Child,
    url: String,
    port: u16,
}

impl Web {
    fn start(scratch: &Scratch, db: &str) -> Self {
        let port = free_port();
        let mut child = Command::new(BIN)
            .args(["web", "--db", db, "--listen", &format!("127.0.0.1:{port}")])
            .current_dir(scratch.dir.path())
            .env("HOME", scratch.dir.path())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut url = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut url)
            .unwrap();
        Web {
            child,
            url: url.trim().to_owned(),
            port,
        }
    }

    fn token(&self) -> &str {
        self.url.split("token=").nth(1).unwrap()
    }

    /// A raw HTTP request; the status code and the body.
    fn raw(&self, request: &str) -> (u16, String) {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        stream.write_all(request.as_bytes()).unwrap();
        let mut response = String::new();
        stream.read_to_string(&mut response).unwrap();
        let status = response[9..12].parse().unwrap();
        let body = response
            .split_once("\r\n\r\n")
            .map(|(_, b)| b.to_owned())
            .unwrap_or_default();
        (status, body)
    }
}

impl Drop for Web {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn migration(inquiry: &str) -> Value {
    json!({"type": "ask", "inquiry": inquiry, "arguments": {"questions": [
        {"id": "apply", "text": "Apply the proposed migration?", "answer_type": "boolean"},
        {"id": "env", "text": "Which environment?", "answer_type": "select",
         "options": [{"label": "staging", "description": "safe to try"}, "production"],
         "when": {"question_id": "apply", "equals": true}},
        {"id": "note", "text": "Optional note for the migration log", "answer_type": "text"}]}})
}

/// Saves a screenshot for docs/web.md when `ASKUSER_SCREENSHOTS` is set (so a
/// test run leaves the work tree as it was).
fn keep_screenshot(browser: &Browser, name: &str) {
    if std::env::var_os("ASKUSER_SCREENSHOTS").is_none() {
        return;
    }
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/web");
    if std::fs::create_dir_all(&dir).is_ok() {
        let _ = std::fs::write(dir.join(name), browser.screenshot());
    }
}

/// `text` with what depends on the clock masked: a number of seconds or
/// minutes becomes `N`, an RFC 3339 time `TIME`.
fn masked(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        let is_time = chars.len() >= i + 24
            && chars[i..i + 4].iter().all(char::is_ascii_digit)
            && chars[i + 4] == '-'
            && chars[i + 10] == 'T'
            && chars[i + 23] == 'Z';
        if is_time {
            out.push_str("TIME");
            i += 24;
            continue;
        }
        if chars[i].is_ascii_digit() && (i == 0 || !chars[i - 1].is_ascii_alphanumeric()) {
            let end = (i..chars.len())
                .find(|&j| !chars[j].is_ascii_digit())
                .unwrap_or(chars.len());
            let rest: String = chars[end..].iter().take(4).collect();
            if rest.starts_with(" s") || rest.starts_with(" min") {
                out.push('N');
                i = end;
                continue;
            }
        }
        out.push(chars[i]);
        i += 1;
    }
    out
}

fn a_person_answers_a_branching_form_in_the_browser_with_back_a_note_and_the_review(place: &Place) {
    let scratch = Scratch::new();
    let db = place.db(&scratch);
    let mut serve = Serve::start(&scratch, &db, "agent-1");
    serve.send(&migration("c1"));
    serve.next_of("prompt");
    let web = Web::start(&scratch, &db);
    let browser = Browser::start();
    browser.go(&web.url);
    assert_eq!(browser.wait_title("(1) askuser inbox"), "(1) askuser inbox");
    assert_eq!(
        browser.text(),
        "Questions waiting for you\nStream agent-1 since ".to_owned()
            + &browser.text()["Questions waiting for you\nStream agent-1 since ".len()..]
    );
    keep_screenshot(&browser, "inbox.png");
    browser.click("a[href='/q/agent-1/c1']");
    assert_eq!(
        browser.wait_title("[1/3] Apply the proposed migration?"),
        "[1/3] Apply the proposed migration?"
    );
    browser.click("#c0");
    browser.click("button[value=answer]");
    assert_eq!(
        browser.wait_title("[2/3] Which environment?"),
        "[2/3] Which environment?"
    );
    keep_screenshot(&browser, "question.png");
    browser.click("#c1");
    browser.type_into("#note", "after the backup");
    browser.click("button[value=answer]");
    assert_eq!(
        browser.wait_title("[3/3] Optional note for the migration log"),
        "[3/3] Optional note for the migration log"
    );
    // Back: the environment comes back with its answer.
    browser.click("button[value=back]");
    assert_eq!(
        browser.wait_title("[2/3] Which environment?"),
        "[2/3] Which environment?"
    );
    assert!(browser.source().contains("value=\"1\" checked"));
    browser.click("#c0");
    browser.click("button[value=answer]");
    assert_eq!(
        browser.wait_title("[3/3] Optional note for the migration log"),
        "[3/3] Optional note for the migration log"
    );
    browser.type_into("#answer", "weekly run");
    browser.click("button[value=answer]");
    assert_eq!(
        browser.wait_title("Review your answers"),
        "Review your answers"
    );
    assert_eq!(
        masked(&browser.text()),
        "waiting for N s · all questions\nReview your answers\nApply the proposed migration?\nYes\nWhich environment?\nstaging\nOptional note for the migration log\nweekly run\nSend these answers Back (change the last answer)\nReply to the assistant instead · End the turn"
    );
    keep_screenshot(&browser, "review.png");
    browser.click("button[value=submit]");
    assert_eq!(
        serve.next_of("result"),
        r#"{"type":"result","inquiry":"c1","result":{"apply":true,"env":"staging","note":"weekly run"},"cancelled":false}"#
    );
    assert_eq!(browser.wait_title("Done"), "Done");
    assert_eq!(
        browser.text(),
        "Done\nAnswered; the assistant got: {\"apply\":true,\"env\":\"staging\",\"note\":\"weekly run\"}\nAll questions"
    );
    browser.go(&format!("http://127.0.0.1:{}/", web.port));
    assert_eq!(browser.wait_title("askuser inbox"), "askuser inbox");
}

/// Waits until the page's title is `title`, and fails if it never is.
fn at(browser: &Browser, title: &str) {
    assert_eq!(browser.wait_title(title), title);
}

fn a_typed_answer_gets_a_generated_form_and_the_engines_error_beside_its_field(place: &Place) {
    let scratch = Scratch::new();
    let db = place.db(&scratch);
    let mut serve = Serve::start(&scratch, &db, "s");
    serve.send(
        &json!({"type": "ask", "inquiry": "t1", "arguments": {"questions": [
        {"id": "deploy", "text": "How should it deploy?", "answer_type": "schema",
         "schema": {"type": "object", "required": ["replicas", "region"], "properties": {
            "replicas": {"type": "integer", "minimum": 1, "title": "Replicas"},
            "region": {"enum": ["eu-west", "us-east"], "description": "where it runs"},
            "canary": {"type": "boolean"},
            "owner": {"type": "string"}}}},
        {"id": "raw", "text": "Any extra settings?", "answer_type": "schema",
         "schema": {"type": "array", "items": {"type": "string"}}}]}}),
    );
    serve.next_of("prompt");
    let web = Web::start(&scratch, &db);
    let browser = Browser::start();
    browser.go(&web.url);
    browser.go(&format!("http://127.0.0.1:{}/q/s/t1", web.port));
    at(&browser, "[1/2] How should it deploy?");
    assert_eq!(
        masked(&browser.text()),
        "Assistant asks\nwaiting for N s · all questions\n[1/2] How should it deploy?\nReplicas (required)\nregion (required)\nwhere it runs\n(no answer)\neu-west\nus-east\ncanary\n(no answer)\nYes\nNo\nowner\nA note for the assistant (optional)\nAnswer\nReply to the assistant instead · End the turn"
    );
    // A number that is not one, and a required choice left blank: the engine
    // says why beside each field, and what was typed stays.
    browser.type_into("#f0", "three");
    browser.type_into("#f3", "ops team");
    browser.type_into("#note", "first try");
    browser.click("button[value=answer]");
    at(&browser, "[1/2] How should it deploy?");
    // The title stays; the error is what tells the new page has come.
    assert_eq!(
        browser.wait_text("#f0-error", "\"three\" is not of type \"integer\""),
        "\"three\" is not of type \"integer\""
    );
    assert_eq!(browser.text_of("#f1-error"), "required: give an answer");
    keep_screenshot(&browser, "typed.png");
    let source = browser.source();
    assert!(source.contains("value=\"three\" inputmode=\"numeric\" aria-describedby=\"f0-error\" aria-invalid=\"true\""), "{source}");
    assert!(source.contains("value=\"ops team\""), "{source}");
    assert!(source.contains("value=\"first try\""), "{source}");
    browser.clear("#f0");
    browser.type_into("#f0", "3");
    browser.click("#f1 option[value='1']");
    browser.click("#f2 option[value=true]");
    browser.click("button[value=answer]");
    at(&browser, "[2/2] Any extra settings?");
    // A schema that is not a flat object is answered as JSON, checked by the engine.
    browser.type_into("#answer", "[1]");
    browser.click("button[value=answer]");
    assert_eq!(
        browser.wait_text(
            ".error",
            "does not match the schema: at /0: 1 is not of type \"string\""
        ),
        "does not match the schema: at /0: 1 is not of type \"string\""
    );
    assert_eq!(browser.text_of("#answer"), "[1]");
    browser.clear("#answer");
    browser.type_into("#answer", "[\"fast\"]");
    browser.click("button[value=answer]");
    at(&browser, "Review your answers");
    // Back from the review: the generated form comes back filled in.
    browser.click("button[value=back]");
    at(&browser, "[2/2] Any extra settings?");
    browser.click("button[value=back]");
    at(&browser, "[1/2] How should it deploy?");
    let source = browser.source();
    assert!(source.contains("name=\"f0\" value=\"3\""), "{source}");
    assert!(
        source.contains("<option value=\"1\" selected=\"\">us-east</option>"),
        "{source}"
    );
    browser.click("button[value=answer]");
    at(&browser, "[2/2] Any extra settings?");
    browser.click("button[value=answer]");
    at(&browser, "Review your answers");
    browser.click("button[value=submit]");
    assert_eq!(
        serve.next_of("result"),
        r#"{"type":"result","inquiry":"t1","result":{"deploy":{"replicas":3,"region":"us-east","canary":true,"owner":"ops team"},"raw":["fast"]},"cancelled":false}"#
    );
}

fn reply_end_turn_and_a_race_with_askuser_answer(place: &Place) {
    let scratch = Scratch::new();
    let db = place.db(&scratch);
    let mut serve = Serve::start(&scratch, &db, "s");
    serve.send(&migration("c1"));
    serve.send(&migration("c2"));
    serve.send(&json!({"type": "ask", "inquiry": "c3", "dialect": "jp",
        "arguments": {"question": "Deploy now?", "answer_type": "boolean"}}));
    let web = Web::start(&scratch, &db);
    let browser = Browser::start();
    browser.go(&web.url);
    assert_eq!(browser.wait_title("(3) askuser inbox"), "(3) askuser inbox");

    browser.click("a[href='/q/s/c1']");
    assert_eq!(
        browser.wait_title("[1/3] Apply the proposed migration?"),
        "[1/3] Apply the proposed migration?"
    );
    browser.click("#c0");
    browser.click("button[value=answer]");
    assert_eq!(
        browser.wait_title("[2/3] Which environment?"),
        "[2/3] Which environment?"
    );
    browser.click("a[href='/q/s/c1/reply']");
    assert_eq!(
        browser.wait_title("Reply to the assistant"),
        "Reply to the assistant"
    );
    browser.type_into("#message", "use staging first");
    browser.click("button[value=reply]");
    assert_eq!(
        serve.next_of("result"),
        r#"{"type":"result","inquiry":"c1","result":{"cancelled":true,"answered":{"apply":true},"message":"use staging first"},"cancelled":true}"#
    );

    browser.go(&format!("http://127.0.0.1:{}/q/s/c2/end", web.port));
    assert_eq!(browser.wait_title("End the turn?"), "End the turn?");
    browser.click("button[value=end_turn]");
    assert_eq!(
        serve.next_of("turn_ended"),
        r#"{"type":"turn_ended","inquiry":"c2"}"#
    );

    // The page is open; meanwhile the terminal's `serve` host answers first.
    browser.go(&format!("http://127.0.0.1:{}/q/s/c3", web.port));
    assert_eq!(browser.wait_title("Deploy now?"), "Deploy now?");
    serve.send(&json!({"type": "answer", "inquiry": "c3", "question": "answer", "value": "no"}));
    let first = serve.next_of("result");
    assert_eq!(
        first,
        r#"{"type":"result","inquiry":"c3","result":{"answer_type":"boolean","answer":false},"cancelled":false}"#
    );
    browser.click("#c0");
    browser.click("button[value=answer]");
    assert_eq!(browser.wait_title("Done"), "Done");
    assert_eq!(
        browser.text(),
        "Done\nthis question is no longer waiting for an answer. Answered; the assistant got: {\"answer_type\":\"boolean\",\"answer\":false}\nAll questions"
    );
}

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
        masked(&browser.text()),
        "Assistant asks\nwaiting for N s · all questions\nctx <script>alert(1)</script><img src=x onerror=alert(2)>\\u{200f}\nPick <script>alert(1)</script><img src=x onerror=alert(2)>\na\"><b>bold</b> — d <script>alert(1)</script><img src=x onerror=alert(2)>\nb\nA note for the assistant (optional)\nAnswer\nReply to the assistant instead · End the turn"
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
    assert_eq!(browser.wait_title("Settings"), "Settings");
    let source = browser.source();
    assert!(!source.contains("<script>"), "{source}");
    assert!(!source.contains("<img"), "{source}");
    assert!(!source.contains('\u{200f}'), "{source}");
    assert_eq!(
        masked(&browser.text()),
        "Assistant asks\nwaiting for N s · all questions\nSettings\nk<script>alert(1)</script><img src=x onerror=alert(2)>\nt<script>alert(1)</script><img src=x onerror=alert(2)>\\u{200f}\nd<script>alert(1)</script><img src=x onerror=alert(2)>\ne\n(no answer)\nv<script>alert(1)</script><img src=x onerror=alert(2)>\n1\nA note for the assistant (optional)\nAnswer\nReply to the assistant instead · End the turn"
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
    let send_form = |origin: &str, csrf: &str| {
        let body = format!("csrf={csrf}&action=answer&answer=true");
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
        r#"{"type":"prompt","inquiry":"c1","question":{"id":"env","text":"Which environment?","context":null,"header":null,"answer_type":"select","options":[{"label":"staging","description":"safe to try"},{"label":"production","description":null}],"allow_other":false,"schema":null},"progress":{"n":2,"m":3},"prefill":null,"can_back":true,"label":"Assistant"}"#
    );
}

fn with_script_the_inbox_is_live_and_a_page_is_told_when_another_surface_answers(place: &Place) {
    let scratch = Scratch::new();
    let db = place.db(&scratch);
    let mut serve = Serve::start(&scratch, &db, "live");
    let web = Web::start(&scratch, &db);
    let browser = Browser::start_with_script();
    browser.go(&web.url);
    assert_eq!(browser.wait_title("askuser inbox"), "askuser inbox");
    // An agent asks while the inbox is open: it shows without a reload, and the
    // live region says so.
    serve.send(&json!({"type": "ask", "inquiry": "t1", "dialect": "jp",
        "arguments": {"question": "Deploy now?", "answer_type": "boolean"},
        "policy": {"timeout": {"after_ms": 600_000, "on_timeout": "cancel"}}}));
    assert_eq!(browser.wait_title("(1) askuser inbox"), "(1) askuser inbox");
    assert_eq!(
        browser.wait_script(
            "return document.getElementById('live').textContent",
            "A question is waiting."
        ),
        "A question is waiting."
    );
    let row = browser.text_of("li");
    assert_eq!(
        masked(&row),
        "Deploy now? Assistant asks (call t1) · waiting for N s · N min left"
    );
    browser.click("a[href='/q/live/t1']");
    assert_eq!(browser.wait_title("Deploy now?"), "Deploy now?");
    // The countdown runs each second (from 10 min: 9 min … left).
    assert_eq!(browser.wait_text(".countdown", "9 min left"), "9 min left");
    // The agent's host answers first: the open page is told, not changed.
    serve.send(&json!({"type": "answer", "inquiry": "t1", "question": "answer", "value": true}));
    serve.next_of("result");
    assert_eq!(
        browser.wait_text(
            "#changed",
            "This question was answered or changed elsewhere. Show it now"
        ),
        "This question was answered or changed elsewhere. Show it now"
    );
    browser.click("#changed a");
    assert_eq!(browser.wait_title("Done"), "Done");
}

fn the_history_shows_every_step_and_a_fork_answers_again_from_a_question(place: &Place) {
    let scratch = Scratch::new();
    let db = place.db(&scratch);
    let mut serve = Serve::start(&scratch, &db, "h");
    serve.send(&migration("c1"));
    serve.next_of("prompt");
    let web = Web::start(&scratch, &db);
    let browser = Browser::start();
    browser.go(&web.url);
    let base = format!("http://127.0.0.1:{}", web.port);
    browser.go(&format!("{base}/q/h/c1"));
    browser.click("#c0");
    browser.click("button[value=answer]");
    assert_eq!(
        browser.wait_title("[2/3] Which environment?"),
        "[2/3] Which environment?"
    );
    browser.click("button[value=back]");
    assert_eq!(
        browser.wait_title("[1/3] Apply the proposed migration?"),
        "[1/3] Apply the proposed migration?"
    );
    browser.click("#c0");
    browser.click("button[value=answer]");
    assert_eq!(
        browser.wait_title("[2/3] Which environment?"),
        "[2/3] Which environment?"
    );
    browser.click("#c1");
    browser.click("button[value=answer]");
    assert_eq!(
        browser.wait_title("[3/3] Optional note for the migration log"),
        "[3/3] Optional note for the migration log"
    );
    browser.go(&format!("{base}/q/h/c1/reply"));
    browser.type_into("#message", "wait, production needs a ticket");
    browser.click("button[value=reply]");
    serve.next_of("result");
    browser.go(&format!("{base}/s/h"));
    assert_eq!(browser.wait_title("History of h"), "History of h");
    assert_eq!(
        masked(&browser.text()),
        "all questions\nStream h\n7 events since TIME · transcript · export (JSON lines)\n\
         TIME Assistant asked 3 questions (call c1), first “Apply the proposed migration?” Answer again from here\n\
         TIME A review before sending was asked for\n\
         TIME Answered “Apply the proposed migration?”: Yes Answer again from here\n\
         TIME Went back to the previous question\n\
         TIME Answered “Apply the proposed migration?”: Yes Answer again from here\n\
         TIME Answered “Which environment?”: production Answer again from here\n\
         TIME Replied to the assistant instead: wait, production needs a ticket"
    );
    browser.click("a[href='/s/h/transcript']");
    assert_eq!(
        browser.text(),
        "Asked \"Apply the proposed migration?\"; the answer was yes.\nAsked \"Which environment?\"; the answer was production.\nThe user chose to reply instead of answering \"Optional note for the migration log\".\nThe user replied: wait, production needs a ticket"
    );
    browser.go(&format!("{base}/s/h"));
    // Answer again from the environment question: a fork, the original kept.
    browser.click("li:nth-child(6) button");
    assert_eq!(
        browser.wait_title("[2/3] Which environment?"),
        "[2/3] Which environment?"
    );
    browser.click("#c0");
    browser.click("button[value=answer]");
    assert_eq!(
        browser.wait_title("[3/3] Optional note for the migration log"),
        "[3/3] Optional note for the migration log"
    );
    browser.type_into("#answer", "staging first");
    browser.click("button[value=answer]");
    assert_eq!(
        browser.wait_title("Review your answers"),
        "Review your answers"
    );
    browser.click("button[value=submit]");
    assert_eq!(browser.wait_title("Done"), "Done");
    assert_eq!(
        browser.text(),
        "Done\nAnswered; the assistant got: {\"apply\":true,\"env\":\"staging\",\"note\":\"staging first\"}\nAll questions"
    );
    browser.go(&format!("{base}/s/h.fork-5"));
    assert_eq!(
        masked(&browser.text()).lines().take(4).collect::<Vec<_>>(),
        [
            "all questions",
            "Stream h.fork-5",
            "8 events since TIME · transcript · export (JSON lines)",
            "Forked from h after its event #5."
        ]
    );
}

/// The axe-core violations of the page on show (of any impact: the issue asks
/// for no serious or critical one, and the pages have none at all), as
/// `rule: help (elements)` lines.
fn axe_violations(browser: &Browser) -> Vec<String> {
    let path = std::env::var("ASKUSER_TEST_AXE").expect(
        "ASKUSER_TEST_AXE is not set: run the tests with scripts/test (it installs axe-core from npm)",
    );
    let axe = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    // The script body is axe itself, then its run: no eval, no injected
    // <script> (the page's CSP forbids both).
    let script = format!(
        "{axe}\n;var done = arguments[arguments.length - 1];\
         axe.run(document, {{resultTypes: ['violations']}}).then(function (r) {{\
           done(r.violations.map(function (v) {{ return v.id + ': ' + v.help + ' (' + v.nodes.map(function (n) {{ return n.target.join(' '); }}).join(', ') + ')'; }}));\
         }}, function (e) {{ done(['axe failed: ' + e]); }});"
    );
    let found = browser.run_async(&script, &[]);
    serde_json::from_value(found.clone()).unwrap_or_else(|_| panic!("axe: {found}"))
}

#[test]
fn axe_core_finds_no_violation_on_any_page() {
    let scratch = Scratch::new();
    let mut serve = Serve::start(&scratch, &scratch.db(), "a11y");
    serve.send(
        &json!({"type": "ask", "inquiry": "c1", "arguments": {"questions": [
        {"id": "env", "text": "Which environment?", "context": "We are about to deploy.",
         "answer_type": "select", "allow_other": true,
         "options": [{"label": "staging", "description": "safe to try"}, "production"]},
        {"id": "checks", "text": "Which checks?", "answer_type": "multi_select",
         "options": ["lint", "test"]},
        {"id": "note", "text": "Anything else?", "answer_type": "text"}]},
        "policy": {"timeout": {"after_ms": 600_000, "on_timeout": "cancel"}}}),
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
    let web = Web::start(&scratch, &scratch.db());
    let browser = Browser::start_with_script();
    browser.go(&web.url);
    let base = format!("http://127.0.0.1:{}", web.port);
    let mut report = Vec::new();
    let mut check = |page: &str| {
        for violation in axe_violations(&browser) {
            report.push(format!("{page}: {violation}"));
        }
    };
    assert_eq!(browser.wait_title("(2) askuser inbox"), "(2) askuser inbox");
    check("inbox");
    browser.go(&format!("{base}/q/a11y/c2"));
    assert_eq!(
        browser.wait_title("How should it deploy?"),
        "How should it deploy?"
    );
    check("generated form");
    browser.type_into("#f0", "many");
    browser.click("button[value=answer]");
    browser.wait_text("#f0-error", "\"many\" is not of type \"integer\"");
    check("generated form with an error");
    browser.go(&format!("{base}/q/a11y/c1"));
    assert_eq!(
        browser.wait_title("[1/3] Which environment?"),
        "[1/3] Which environment?"
    );
    check("select");
    browser.click("#c0");
    browser.click("button[value=answer]");
    assert_eq!(
        browser.wait_title("[2/3] Which checks?"),
        "[2/3] Which checks?"
    );
    check("multi-select");
    browser.click("#c1");
    browser.click("button[value=answer]");
    assert_eq!(
        browser.wait_title("[3/3] Anything else?"),
        "[3/3] Anything else?"
    );
    check("text");
    browser.type_into("#answer", "no");
    browser.click("button[value=answer]");
    assert_eq!(
        browser.wait_title("Review your answers"),
        "Review your answers"
    );
    check("review");
    browser.go(&format!("{base}/q/a11y/c1/reply"));
    check("reply");
    browser.go(&format!("{base}/q/a11y/c1/end"));
    check("end turn");
    browser.go(&format!("{base}/s/a11y"));
    check("history");
    browser.go(&format!("{base}/q/a11y/c1"));
    browser.click("button[value=submit]");
    assert_eq!(browser.wait_title("Done"), "Done");
    check("done");
    assert_eq!(report, Vec::<String>::new());
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
fn a_person_answers_a_branching_form_in_the_browser_with_back_a_note_and_the_review_on_sled() {
    a_person_answers_a_branching_form_in_the_browser_with_back_a_note_and_the_review(&Place::Sled);
}

#[test]
fn a_person_answers_a_branching_form_in_the_browser_with_back_a_note_and_the_review_on_postgres() {
    a_person_answers_a_branching_form_in_the_browser_with_back_a_note_and_the_review(
        &Place::postgres(),
    );
}

#[test]
fn a_typed_answer_gets_a_generated_form_and_the_engines_error_beside_its_field_on_sled() {
    a_typed_answer_gets_a_generated_form_and_the_engines_error_beside_its_field(&Place::Sled);
}

#[test]
fn a_typed_answer_gets_a_generated_form_and_the_engines_error_beside_its_field_on_postgres() {
    a_typed_answer_gets_a_generated_form_and_the_engines_error_beside_its_field(&Place::postgres());
}

#[test]
fn reply_end_turn_and_a_race_with_askuser_answer_on_sled() {
    reply_end_turn_and_a_race_with_askuser_answer(&Place::Sled);
}

#[test]
fn reply_end_turn_and_a_race_with_askuser_answer_on_postgres() {
    reply_end_turn_and_a_race_with_askuser_answer(&Place::postgres());
}

#[test]
fn hostile_text_from_the_model_is_shown_as_text_on_sled() {
    hostile_text_from_the_model_is_shown_as_text(&Place::Sled);
}

#[test]
fn hostile_text_from_the_model_is_shown_as_text_on_postgres() {
    hostile_text_from_the_model_is_shown_as_text(&Place::postgres());
}

#[test]
fn with_script_the_inbox_is_live_and_a_page_is_told_when_another_surface_answers_on_sled() {
    with_script_the_inbox_is_live_and_a_page_is_told_when_another_surface_answers(&Place::Sled);
}

#[test]
fn with_script_the_inbox_is_live_and_a_page_is_told_when_another_surface_answers_on_postgres() {
    with_script_the_inbox_is_live_and_a_page_is_told_when_another_surface_answers(
        &Place::postgres(),
    );
}

#[test]
fn the_history_shows_every_step_and_a_fork_answers_again_from_a_question_on_sled() {
    the_history_shows_every_step_and_a_fork_answers_again_from_a_question(&Place::Sled);
}

#[test]
fn the_history_shows_every_step_and_a_fork_answers_again_from_a_question_on_postgres() {
    the_history_shows_every_step_and_a_fork_answers_again_from_a_question(&Place::postgres());
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
