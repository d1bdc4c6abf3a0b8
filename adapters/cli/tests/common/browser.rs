//! A real browser for the web inbox's tests: Debian's `chromium`, headless,
//! driven by `chromedriver` over the W3C WebDriver protocol (plain HTTP with
//! JSON, spoken here over a `TcpStream`). Both processes are killed when the
//! [`Browser`] is dropped, even on failure. `scripts/test-env` installs them.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// One browser at a time: chromium and its driver under load on two cores drop
/// connections when several start at once.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// A headless chromium (JavaScript off unless started with
/// [`Browser::start_with_script`]), and its driver.
pub struct Browser {
    _turn: std::sync::MutexGuard<'static, ()>,
    driver: Child,
    port: u16,
    session: String,
    profile: tempfile::TempDir,
}

/// A free loopback port (bound, then released).
pub fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

impl Browser {
    /// Starts chromedriver and a chromium session with JavaScript off.
    pub fn start() -> Self {
        Self::launch(false)
    }

    /// Starts chromedriver and a chromium session with JavaScript on.
    pub fn start_with_script() -> Self {
        Self::launch(true)
    }

    fn launch(script: bool) -> Self {
        let turn = ONE_AT_A_TIME
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        for path in ["/usr/bin/chromium", "/usr/bin/chromedriver"] {
            assert!(
                std::path::Path::new(path).exists(),
                "{path} is missing: the web tests need Debian's chromium and chromium-driver (scripts/test-env installs them)"
            );
        }
        let port = free_port();
        let driver = Command::new("/usr/bin/chromedriver")
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver starts");
        let profile = tempfile::tempdir().unwrap();
        let mut browser = Browser {
            _turn: turn,
            driver,
            port,
            session: String::new(),
            profile,
        };
        let start = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "chromedriver did not listen"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        let args = [
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--window-size=900,900",
        ]
        .map(String::from)
        .into_iter()
        .chain((!script).then(|| "--blink-settings=scriptEnabled=false".to_owned()))
        .chain([format!(
            "--user-data-dir={}",
            browser.profile.path().display()
        )])
        .collect::<Vec<_>>();
        let created = browser.call(
            "POST",
            "/session",
            Some(json!({"capabilities": {"alwaysMatch": {
                "browserName": "chrome",
                "goog:chromeOptions": {"binary": "/usr/bin/chromium", "args": args}}}})),
        );
        created["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("a WebDriver session: {created}"))
            .clone_into(&mut browser.session);
        browser
    }

    /// One `WebDriver` command; its `value`.
    fn call(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        let body = body.map(|b| b.to_string()).unwrap_or_default();
        let request = format!(
            "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            self.port,
            body.len()
        );
        // chromedriver under load sometimes closes a fresh connection before it
        // reads the request: that request was never taken, so it is sent again.
        let mut attempts = 0;
        let stream = loop {
            attempts += 1;
            let sent = TcpStream::connect(("127.0.0.1", self.port)).and_then(|mut stream| {
                stream.set_read_timeout(Some(Duration::from_secs(60)))?;
                stream.write_all(request.as_bytes())?;
                Ok(stream)
            });
            match sent {
                Ok(stream) => break stream,
                Err(error) if attempts >= 5 => panic!("chromedriver: {error}"),
                Err(_) => std::thread::sleep(Duration::from_millis(100)),
            }
        };
        // chromedriver may keep the connection open: read the head, then exactly
        // the body its length names.
        let mut reader = std::io::BufReader::new(stream);
        let mut head = String::new();
        loop {
            let mut line = String::new();
            if std::io::BufRead::read_line(&mut reader, &mut line).unwrap() == 0 || line == "\r\n" {
                break;
            }
            head.push_str(&line);
        }
        let length = head.lines().find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.eq_ignore_ascii_case("content-length")
                .then(|| value.trim().parse::<usize>().ok())
                .flatten()
        });
        let body = if let Some(length) = length {
            let mut bytes = vec![0; length];
            reader.read_exact(&mut bytes).unwrap();
            String::from_utf8_lossy(&bytes).into_owned()
        } else {
            let mut rest = String::new();
            let _ = reader.read_to_string(&mut rest);
            let chunked = head
                .to_ascii_lowercase()
                .contains("transfer-encoding: chunked");
            if chunked { dechunk(&rest) } else { rest }
        };
        let value: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
        value["value"].clone()
    }

    fn session_call(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        self.call(method, &format!("/session/{}{path}", self.session), body)
    }

    /// Opens `url`.
    /// Opens a new tab of this browser (it shares the cookies) and returns its
    /// handle; the tab shown so far stays the one commands act on.
    pub fn new_tab(&self) -> String {
        let opened = self.session_call("POST", "/window/new", Some(json!({"type": "tab"})));
        opened["handle"].as_str().unwrap().to_owned()
    }

    /// The handle of the tab commands act on.
    pub fn tab(&self) -> String {
        let handle = self.session_call("GET", "/window", None);
        handle.as_str().unwrap().to_owned()
    }

    /// Makes the tab `handle` the one commands act on (as a person clicks on it).
    pub fn switch_to(&self, handle: &str) {
        self.session_call("POST", "/window", Some(json!({"handle": handle})));
    }

    pub fn go(&self, url: &str) {
        self.session_call("POST", "/url", Some(json!({ "url": url })));
    }

    /// The page's source.
    pub fn source(&self) -> String {
        self.session_call("GET", "/source", None)
            .as_str()
            .unwrap_or_default()
            .to_owned()
    }

    /// The page's title.
    pub fn title(&self) -> String {
        self.session_call("GET", "/title", None)
            .as_str()
            .unwrap_or_default()
            .to_owned()
    }

    /// Waits (up to 10 s) until the page's title is `title`; the title seen last.
    pub fn wait_title(&self, title: &str) -> String {
        self.wait_title_by(|seen| seen == title)
    }

    /// The page's title once `fits` it (waiting up to 10 s; the last seen
    /// when none fits).
    pub fn wait_title_by(&self, fits: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let seen = self.title();
            if fits(&seen) || start.elapsed() > Duration::from_secs(10) {
                return seen;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// The visible text of the page's body.
    pub fn text(&self) -> String {
        let body = self.find("body");
        self.session_call("GET", &format!("/element/{body}/text"), None)
            .as_str()
            .unwrap_or_default()
            .to_owned()
    }

    /// The element `css` selects (waiting for it up to 10 s).
    pub fn find(&self, css: &str) -> String {
        let start = Instant::now();
        loop {
            let found = self.session_call(
                "POST",
                "/element",
                Some(json!({"using": "css selector", "value": css})),
            );
            if let Some(id) = found
                .as_object()
                .and_then(|o| o.values().next())
                .and_then(Value::as_str)
            {
                return id.to_owned();
            }
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "no element {css:?} on the page:\n{}",
                self.text()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Clicks the element `css` selects.
    pub fn click(&self, css: &str) {
        let id = self.find(css);
        self.session_call("POST", &format!("/element/{id}/click"), Some(json!({})));
    }

    /// Types `text` into the element `css` selects.
    pub fn type_into(&self, css: &str, text: &str) {
        let id = self.find(css);
        self.session_call(
            "POST",
            &format!("/element/{id}/value"),
            Some(json!({ "text": text })),
        );
    }

    /// Empties the input or text area `css` selects.
    pub fn clear(&self, css: &str) {
        let id = self.find(css);
        self.session_call("POST", &format!("/element/{id}/clear"), Some(json!({})));
    }

    /// Runs `script` in the page as an async function (its last argument is the
    /// callback to call with the result); the result.
    pub fn run_async(&self, script: &str, args: &[Value]) -> Value {
        self.session_call(
            "POST",
            "/execute/async",
            Some(json!({ "script": script, "args": args })),
        )
    }

    /// The text of the element `css` selects (waiting for it up to 10 s).
    pub fn text_of(&self, css: &str) -> String {
        let id = self.find(css);
        let text = self.session_call("GET", &format!("/element/{id}/text"), None);
        text.as_str().unwrap_or_default().to_owned()
    }

    /// The value of the input or text area `css` selects (what the person sees
    /// typed in it).
    pub fn value_of(&self, css: &str) -> String {
        let id = self.find(css);
        let value = self.session_call("GET", &format!("/element/{id}/property/value"), None);
        value.as_str().unwrap_or_default().to_owned()
    }

    /// The text of the element `css` selects, once it is `expected` (waiting up
    /// to 10 s); the text last seen.
    pub fn wait_text(&self, css: &str, expected: &str) -> String {
        let start = Instant::now();
        loop {
            let id = self.find(css);
            let text = self.session_call("GET", &format!("/element/{id}/text"), None);
            let text = text.as_str().unwrap_or_default().to_owned();
            if text == expected || start.elapsed() > Duration::from_secs(10) {
                return text;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// What `script` (run in the page) returns as text, once it is `expected`
    /// (waiting up to 10 s); the text last seen.
    pub fn wait_script(&self, script: &str, expected: &str) -> String {
        let start = Instant::now();
        loop {
            let value = self.session_call(
                "POST",
                "/execute/sync",
                Some(json!({ "script": script, "args": [] })),
            );
            let text = value.as_str().unwrap_or_default().to_owned();
            if text == expected || start.elapsed() > Duration::from_secs(10) {
                return text;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Runs `script` in the page (a function body); what it returns.
    pub fn run(&self, script: &str) -> Value {
        self.session_call(
            "POST",
            "/execute/sync",
            Some(json!({ "script": script, "args": [] })),
        )
    }

    /// Runs the Chrome `DevTools` Protocol command `cmd` with `params` on the tab
    /// (chromedriver's `goog/cdp/execute`); its result.
    pub fn cdp(&self, cmd: &str, params: &Value) -> Value {
        self.session_call(
            "POST",
            "/goog/cdp/execute",
            Some(json!({ "cmd": cmd, "params": params })),
        )
    }

    /// Shows pages as a device `width` CSS px wide shows them (a phone, with
    /// touch, under 600 px), in the dark theme or the light one
    /// (`prefers-color-scheme`), from now on, on every page of the tab.
    pub fn emulate(&self, width: u32, dark: bool) {
        let phone = width < 600;
        let height = if phone { 844 } else { 900 };
        self.cdp(
            "Emulation.setDeviceMetricsOverride",
            &json!({"width": width, "height": height, "deviceScaleFactor": 1, "mobile": phone}),
        );
        self.cdp(
            "Emulation.setTouchEmulationEnabled",
            &json!({"enabled": phone, "maxTouchPoints": 5}),
        );
        let scheme = if dark { "dark" } else { "light" };
        self.cdp(
            "Emulation.setEmulatedMedia",
            &json!({"features": [{"name": "prefers-color-scheme", "value": scheme}]}),
        );
    }

    /// A PNG screenshot of the page.
    pub fn screenshot(&self) -> Vec<u8> {
        let encoded = self.session_call("GET", "/screenshot", None);
        base64_decode(encoded.as_str().unwrap_or_default())
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        if !self.session.is_empty() {
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                self.call("DELETE", &format!("/session/{}", self.session), None)
            }));
        }
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

fn dechunk(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some((size, after)) = rest.split_once("\r\n") {
        let size = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if size == 0 || after.len() < size {
            break;
        }
        out.push_str(&after[..size]);
        rest = after[size..].trim_start_matches("\r\n");
    }
    out
}

fn base64_decode(text: &str) -> Vec<u8> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    };
    let digits: Vec<u8> = text.bytes().filter_map(value).collect();
    digits
        .chunks(4)
        .flat_map(|chunk| {
            let n = chunk
                .iter()
                .enumerate()
                .fold(0u32, |acc, (i, d)| acc | (u32::from(*d) << (18 - 6 * i)));
            let bytes = n.to_be_bytes();
            bytes[1..chunk.len()].to_vec()
        })
        .collect()
}
