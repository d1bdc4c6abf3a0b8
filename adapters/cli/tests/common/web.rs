//! The web inbox's test helpers: `askuser serve` with its stdin open, `askuser
//! web` on a free port, a branching form, screenshots for docs/web.md, and
//! masking the times a page shows.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

use serde_json::{Value, json};

use super::browser::{Browser, free_port};
use super::{BIN, Scratch, askuser_in};

/// `askuser serve` with its stdin open, its stdout lines arriving on a channel.
pub struct Serve {
    pub child: Child,
    pub stdin: ChildStdin,
    pub lines: Receiver<String>,
    /// Its first line, `{"type":"ready","stream":...}`.
    pub ready: String,
}

impl Serve {
    pub fn start(scratch: &Scratch, db: &str, stream: &str) -> Self {
        Self::start_in(
            scratch.dir.path(),
            scratch.dir.path(),
            &["serve", "--db", db, "--stream", stream],
        )
    }

    /// `askuser ARGS` (a `serve`) in the directory `dir`, with `home` its home.
    pub fn start_in(dir: &std::path::Path, home: &std::path::Path, args: &[&str]) -> Self {
        let mut child = Command::new(BIN)
            .args(args)
            .current_dir(dir)
            .env("HOME", home)
            .env("ASKUSER_MACHINE", "laptop")
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
        let mut serve = Serve {
            child,
            stdin,
            lines,
            ready: String::new(),
        };
        serve.ready = serve.next_of("ready");
        serve
    }

    pub fn send(&mut self, line: &Value) {
        writeln!(self.stdin, "{line}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// The next line of type `kind` (others skipped), as text.
    pub fn next_of(&self, kind: &str) -> String {
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
pub struct Web {
    pub child: Child,
    pub url: String,
    pub port: u16,
}

impl Web {
    pub fn start(scratch: &Scratch, db: &str) -> Self {
        Self::start_with(scratch, db, &[], None)
    }

    /// [`Web::start`] with the variables `env` set (`TZ`, say).
    pub fn start_env(scratch: &Scratch, db: &str, env: &[(&str, &str)]) -> Self {
        Self::launch(scratch, db, &[], None, env)
    }

    /// [`Web::start`] with more arguments (`--notify URL`, say), after the
    /// shell command `limit` (`ulimit -n 256`) when one is given.
    pub fn start_with(scratch: &Scratch, db: &str, args: &[&str], limit: Option<&str>) -> Self {
        Self::launch(scratch, db, args, limit, &[])
    }

    fn launch(
        scratch: &Scratch,
        db: &str,
        args: &[&str],
        limit: Option<&str>,
        env: &[(&str, &str)],
    ) -> Self {
        let port = free_port();
        let listen = format!("127.0.0.1:{port}");
        let mut child = askuser_in(
            scratch.dir.path(),
            limit,
            &["web", "--db", db, "--listen", &listen],
        )
        .args(args)
        .envs(env.iter().copied())
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

    pub fn token(&self) -> &str {
        self.url.split("token=").nth(1).unwrap()
    }

    /// A raw HTTP request; the status code and the body.
    pub fn raw(&self, request: &str) -> (u16, String) {
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

pub fn migration(inquiry: &str) -> Value {
    json!({"type": "ask", "inquiry": inquiry, "arguments": {"questions": [
        {"id": "apply", "text": "Apply the proposed migration?", "answer_type": "boolean"},
        {"id": "env", "text": "Which environment?", "answer_type": "select",
         "options": [{"label": "staging", "description": "safe to try"}, "production"],
         "when": {"question_id": "apply", "equals": true}},
        {"id": "note", "text": "Optional note for the migration log", "answer_type": "text"}]}})
}

/// Saves a screenshot for docs/web.md when `ASKUSER_SCREENSHOTS` is set (so a
/// test run leaves the work tree as it was).
pub fn keep_screenshot(browser: &Browser, name: &str) {
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
pub fn masked(text: &str) -> String {
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

/// Waits until the page shows `title`: its whole title, or, on an inquiry's
/// pages (whose titles end with who asks: `Done — Claude Code in shop on
/// laptop`), what comes before ` — ` (the tests that tell agents apart
/// assert whole titles); fails if it never does.
pub fn at(browser: &Browser, title: &str) {
    let shows = |seen: &str| {
        seen == title || (seen.strip_prefix(title)).is_some_and(|rest| rest.starts_with(" — "))
    };
    let seen = browser.wait_title_by(shows);
    assert!(shows(&seen), "the page's title is {seen:?}, not {title:?}");
}

/// The axe-core violations of the page on show (of any impact: the issue asks
/// for no serious or critical one, and the pages have none at all), as
/// `rule: help (elements)` lines.
pub fn axe_violations(browser: &Browser) -> Vec<String> {
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

/// What is wrong with the page on show as a person sees it at 1280 px (light
/// and dark) and on a 390 px phone: every axe-core violation, and a page wider
/// than the screen (sideways scrolling), as `page (where): what` lines. The
/// browser is left at 1280 px, light.
pub fn page_problems(browser: &Browser, page: &str) -> Vec<String> {
    let mut found = Vec::new();
    for (width, dark) in [(1280, false), (1280, true), (390, false), (390, true)] {
        browser.emulate(width, dark);
        let theme = if dark { "dark" } else { "light" };
        for violation in axe_violations(browser) {
            found.push(format!("{page} ({width} px, {theme}): {violation}"));
        }
        let scroll = browser.run("return document.documentElement.scrollWidth");
        if scroll.as_u64() > Some(u64::from(width)) {
            found.push(format!("{page} ({width} px): {scroll} px wide"));
        }
    }
    browser.emulate(1280, false);
    found
}

/// `text` with a clock time (`10:42`: when the assistant got the answers, on
/// Done) as `HH:MM`, and the scratch directory's name (`dir`: the place an
/// agent started there is named after) as `<scratch>`.
pub fn clock_masked(text: &str, dir: &str) -> String {
    let chars: Vec<char> = text.replace(dir, "<scratch>").chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        let digit = |j: usize| chars.get(j).is_some_and(char::is_ascii_digit);
        let clock = digit(i)
            && digit(i + 1)
            && chars.get(i + 2) == Some(&':')
            && digit(i + 3)
            && digit(i + 4)
            && chars.get(i + 5) != Some(&':')
            && (i == 0 || !chars[i - 1].is_ascii_alphanumeric());
        if clock {
            out.push_str("HH:MM");
            i += 5;
        } else {
            out.push(chars[i]);
            i += 1;
        }
    }
    out
}

/// The page's text as the tests compare an inquiry's page: [`masked`], then
/// [`clock_masked`] (the scratch directory `scratch` as `<scratch>`).
pub fn page_text(browser: &Browser, scratch: &Scratch) -> String {
    clock_masked(&masked(&browser.text()), &scratch.dir_name())
}

/// A Done page's text: [`clock_masked`] only (its lengths of time stay).
pub fn done_text(browser: &Browser, scratch: &Scratch) -> String {
    clock_masked(&browser.text(), &scratch.dir_name())
}
