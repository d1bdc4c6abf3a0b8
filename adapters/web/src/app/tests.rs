//! The handlers in process: the router over a [`MemLog`], called with
//! `oneshot`, each answer checked whole (status, headers, body), and the log
//! read back after each action. The browser suites (`adapters/cli/tests/web*.rs`)
//! keep what only a browser shows.

use std::sync::{Arc, Mutex};

use askuser_app::log::{Log, ManualClock, MemLog, Session, Timestamp};
use askuser_core::{AnswerInput, At, Event, Input, InquiryId, Request, ToolCall, parse_form};
use askuser_testkit::build;
use axum::body::Body;
use axum::http::{self, StatusCode};
use http_body_util::BodyExt as _;
use serde_json::{Value, json};
use tower::ServiceExt as _;

use super::{App, router};
use crate::queue::Queue;

/// The cookie's secret.
const TOKEN: &str = "0123456789abcdef0123456789abcdef";
/// The form token.
const CSRF: &str = "fedcba9876543210fedcba9876543210";
/// The address the server answers at.
const HOST: &str = "127.0.0.1:8080";
/// When every record is stamped: 2100-01-01, after any test's wall clock, so
/// every page says "waiting for 0 s".
const STAMP: Timestamp = Timestamp(4_102_444_800_000);

/// What an answer carries, as a test compares it.
#[derive(Debug, PartialEq, Eq)]
struct Answer {
    status: StatusCode,
    /// Every header, in the order sent.
    headers: Vec<(String, String)>,
    body: String,
}

/// A memory log whose clock stays at [`STAMP`], and the app over it.
fn served() -> (Arc<MemLog>, App) {
    served_at(STAMP)
}

/// A memory log whose clock stays at `stamp`, and the app over it.
fn served_at(stamp: Timestamp) -> (Arc<MemLog>, App) {
    let log = Arc::new(MemLog::new().with_clock(ManualClock::new(stamp)));
    let shared: crate::SharedLog = log.clone();
    let app = App {
        queue: Arc::new(Mutex::new(Queue::new(askuser_app::Desk::new(shared)))),
        token: TOKEN.into(),
        csrf: CSRF.into(),
        hosts: Arc::new(crate::guard::allowed_hosts(
            std::net::Ipv4Addr::LOCALHOST.into(),
            8080,
        )),
        secure: false,
        changes: None,
        ended: Arc::default(),
    };
    (log, app)
}

/// The two questions the tests ask, as a `jp-form` call.
fn arguments() -> Value {
    json!({"questions": [
        {"id": "apply", "text": "Apply the migration?", "answer_type": "boolean"},
        {"id": "env", "text": "Which environment?", "answer_type": "select",
         "options": ["staging", "production"]}
    ]})
}

/// Another process ends the turn of `chat`'s `call-1`, in `surface` (`None`:
/// as in a log written before the event said where).
fn end_turn_elsewhere(log: &Arc<MemLog>, surface: Option<askuser_core::Surface>) {
    let mut other = Session::open(log.clone(), "chat").expect("the stream opens");
    other
        .handle(&Input::EndTurn {
            inquiry: InquiryId::new("call-1"),
            surface,
        })
        .expect("the turn ends");
}

/// Asks [`arguments`] as inquiry `call-1` of stream `chat`, as a host does.
fn ask(log: &Arc<MemLog>) {
    ask_with(log, askuser_core::Policy::default());
}

/// A policy whose question is due 1 ms after it shows (on a log whose clock
/// says 1970, long past), cancelled then.
fn due_at_once() -> askuser_core::Policy {
    askuser_core::Policy {
        timeout: Some(askuser_core::Timeout {
            after_ms: 1,
            on_timeout: askuser_core::OnTimeout::Cancel,
        }),
        ..askuser_core::Policy::default()
    }
}

/// Asks the migration form in stream `chat` as call `call-1`, with `policy`.
fn ask_with(log: &Arc<MemLog>, policy: askuser_core::Policy) {
    let arguments = arguments();
    let form = parse_form(&arguments).expect("the form is valid");
    let mut session = Session::open(log.clone(), "chat").expect("the stream opens");
    session
        .handle(&Input::Ask(Request {
            inquiry: InquiryId::new("call-1"),
            form: form.form().clone(),
            policy,
            origin: askuser_core::Origin::default(),
            call: Some(ToolCall {
                dialect: "jp-form".into(),
                arguments,
            }),
        }))
        .expect("the inquiry is recorded");
}

/// Every event of stream `chat`.
fn events(log: &MemLog) -> Vec<Event> {
    let head = log.stream("chat").unwrap().unwrap().head;
    (log.read_range("chat", 1, head).unwrap())
        .map(|recorded| recorded.unwrap().event)
        .collect()
}

/// A GET of `uri` from the server's own page, with the cookie.
fn get(uri: &str) -> http::request::Builder {
    http::Request::get(uri)
        .header(http::header::HOST, HOST)
        .header(http::header::COOKIE, format!("askuser_token={TOKEN}"))
}

/// A form POST of `fields` to `uri` from the server's own page, with the cookie.
fn post(uri: &str, fields: &[(&str, &str)]) -> http::Request<Body> {
    post_from(uri, Some("http://127.0.0.1:8080"), fields)
}

/// A form POST of `fields` to `uri` with `origin`, with the cookie.
fn post_from(uri: &str, origin: Option<&str>, fields: &[(&str, &str)]) -> http::Request<Body> {
    let body: Vec<String> = (fields.iter())
        .map(|(name, value)| {
            format!(
                "{}={}",
                crate::pages::segment(name),
                crate::pages::segment(value)
            )
        })
        .collect();
    let mut request = http::Request::post(uri)
        .header(http::header::HOST, HOST)
        .header(http::header::COOKIE, format!("askuser_token={TOKEN}"))
        .header(
            http::header::CONTENT_TYPE,
            "application/x-www-form-urlencoded",
        );
    if let Some(origin) = origin {
        request = request.header(http::header::ORIGIN, origin);
    }
    request.body(Body::from(body.join("&"))).unwrap()
}

/// What the router answers to `request`.
async fn send(app: &App, request: http::Request<Body>) -> Answer {
    let response = router(app.clone()).oneshot(request).await.unwrap();
    let status = response.status();
    let headers = (response.headers().iter())
        .map(|(name, value)| (name.to_string(), value.to_str().unwrap().to_owned()))
        .collect();
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    Answer {
        status,
        headers,
        body: String::from_utf8(bytes.to_vec()).unwrap(),
    }
}

/// The Content-Security-Policy every answer carries.
const CSP: &str = "default-src 'none'; style-src 'self'; script-src 'self'; connect-src 'self'; \
                   form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/// The headers of every answer: `content_type`, the security headers, `more`,
/// and the length of a body of `len` bytes.
fn headers(content_type: &str, more: &[(&str, &str)], len: usize) -> Vec<(String, String)> {
    let len = len.to_string();
    let security = [
        ("content-type", content_type),
        ("content-security-policy", CSP),
        ("x-content-type-options", "nosniff"),
        ("referrer-policy", "same-origin"),
        ("x-frame-options", "DENY"),
        ("cache-control", "no-store"),
    ];
    (security.iter().chain(more))
        .chain([&("content-length", len.as_str())])
        .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
        .collect()
}

/// An HTML page with `status` and `body`.
fn html(status: StatusCode, body: String) -> Answer {
    Answer {
        status,
        headers: headers("text/html; charset=utf-8", &[], body.len()),
        body,
    }
}

/// A redirect to `location`, with `more` headers.
fn see_other(location: &str, more: &[(&str, &str)]) -> Answer {
    let mut extra = vec![("location", location)];
    extra.extend(more);
    Answer {
        status: StatusCode::SEE_OTHER,
        headers: headers("text/html; charset=utf-8", &extra, 0),
        body: String::new(),
    }
}

/// A whole page: `head` before its title, `title`, the `<main>` tag that opens
/// it and what `main` holds.
fn document(head: &str, title: &str, main: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <meta name=\"color-scheme\" content=\"light dark\">{head}\
         <title>{title}</title><link rel=\"stylesheet\" href=\"/style.css\">\
         <script src=\"/app.js\" defer></script></head><body>{main}{body}</main>\
         <div class=\"live\" id=\"live\" role=\"status\" aria-live=\"polite\"></div>\
         </body></html>"
    )
}

/// `answer` is an HTML page with `status` and the headers of every page; its
/// body, one tag a line, is the snapshot `name`.
#[track_caller]
fn assert_page(answer: &Answer, status: StatusCode, name: &str) {
    assert_eq!(
        (answer.status, &answer.headers),
        (
            status,
            &headers("text/html; charset=utf-8", &[], answer.body.len())
        )
    );
    insta::assert_snapshot!(name, answer.body.replace("><", ">\n<"));
}

/// The page of a refused request.
fn refusal(status: StatusCode, title: &str, text: &str) -> Answer {
    html(
        status,
        document(
            "",
            title,
            "<main>",
            &format!("<h1>{title}</h1><p role=\"alert\">{text}</p>"),
        ),
    )
}

/// The page without the cookie.
fn no_cookie() -> Answer {
    refusal(
        StatusCode::UNAUTHORIZED,
        "Open the link askuser web printed",
        "This inbox needs its secret link (it ends with ?token=…); open it once in this browser.",
    )
}

/// A GET of `uri` with the cookie.
async fn open(app: &App, uri: &str) -> Answer {
    send(app, get(uri).body(Body::empty()).unwrap()).await
}

/// The `Requested` event [`ask`] records.
fn requested(log: &MemLog) -> Event {
    events(log).swap_remove(0)
}

#[tokio::test]
async fn a_request_without_the_cookie_is_refused() {
    let (log, app) = served();
    ask(&log);
    let bare = |method: &str, uri: &str| {
        http::Request::builder()
            .method(method)
            .uri(uri)
            .header(http::header::HOST, HOST)
    };
    for uri in ["/", "/q/chat/call-1", "/s/chat", "/style.css"] {
        let request = bare("GET", uri).body(Body::empty()).unwrap();
        assert_eq!(send(&app, request).await, no_cookie(), "{uri}");
    }
    // A cookie with another secret is no cookie.
    let wrong = bare("GET", "/")
        .header(
            http::header::COOKIE,
            "askuser_token=0123456789abcdef0123456789abcdee",
        )
        .body(Body::empty())
        .unwrap();
    assert_eq!(send(&app, wrong).await, no_cookie());
    let mut answer = post(
        "/q/chat/call-1",
        &[
            ("csrf", CSRF),
            ("at_step", "0"),
            ("at_question", "apply"),
            ("answer", "true"),
            ("action", "answer"),
        ],
    );
    answer.headers_mut().remove(http::header::COOKIE);
    assert_eq!(send(&app, answer).await, no_cookie());
    assert_eq!(events(&log), [requested(&log)]);
}

#[tokio::test]
async fn a_request_for_another_host_is_refused() {
    let (log, app) = served();
    ask(&log);
    let wrong_address = refusal(
        StatusCode::MISDIRECTED_REQUEST,
        "Wrong address",
        "This server answers only at the address askuser web printed.",
    );
    for host in [Some("evil.example:8080"), Some("127.0.0.1:8081"), None] {
        let mut request = get("/q/chat/call-1").body(Body::empty()).unwrap();
        match host {
            Some(host) => request.headers_mut().insert(
                http::header::HOST,
                http::HeaderValue::from_str(host).unwrap(),
            ),
            None => request.headers_mut().remove(http::header::HOST),
        };
        assert_eq!(send(&app, request).await, wrong_address, "{host:?}");
    }
    let mut answer = post(
        "/q/chat/call-1",
        &[
            ("csrf", CSRF),
            ("at_step", "0"),
            ("at_question", "apply"),
            ("answer", "true"),
            ("action", "answer"),
        ],
    );
    answer.headers_mut().insert(
        http::header::HOST,
        http::HeaderValue::from_static("evil.example:8080"),
    );
    assert_eq!(send(&app, answer).await, wrong_address);
    // The token link too: a rebinding page cannot collect the cookie.
    let link = http::Request::get(format!("/?token={TOKEN}"))
        .header(http::header::HOST, "evil.example:8080")
        .body(Body::empty())
        .unwrap();
    assert_eq!(
        send(&app, link).await,
        refusal(
            StatusCode::UNAUTHORIZED,
            "Wrong link",
            "This link's token is not this server's."
        )
    );
    assert_eq!(events(&log), [requested(&log)]);
}

#[tokio::test]
async fn a_path_whose_stream_name_breaks_the_rule_is_not_found() {
    let (log, app) = served();
    ask(&log);
    let too_long = "s".repeat(201);
    for stream in ["a%E2%80%AEb", "a%1B%5B2J", "a%0Ab", too_long.as_str()] {
        for uri in [
            format!("/q/{stream}/call-1"),
            format!("/q/{stream}/call-1/reply"),
            format!("/s/{stream}"),
            format!("/s/{stream}/transcript"),
            format!("/s/{stream}/export"),
            format!("/s/{stream}/fork?at=1"),
        ] {
            assert_eq!(
                open(&app, &uri).await.status,
                StatusCode::NOT_FOUND,
                "{uri}"
            );
        }
        let answer = [("csrf", CSRF), ("action", "answer"), ("answer", "true")];
        let posted = send(&app, post(&format!("/q/{stream}/call-1"), &answer)).await;
        assert_eq!(posted.status, StatusCode::NOT_FOUND, "{stream}");
        let fork = [("csrf", CSRF), ("at", "1")];
        let forked = send(&app, post(&format!("/s/{stream}/fork"), &fork)).await;
        assert_eq!(
            forked,
            refusal(
                StatusCode::NOT_FOUND,
                "No such stream",
                "The log has no stream of that name."
            ),
            "{stream}"
        );
    }
    // The page names the stream as a person can read it, escapes shown.
    let page = open(&app, "/q/a%1B%5B2J/call-1").await;
    assert!(
        page.body
            .contains("No question of that name waits in stream a\\u{1b}[2J."),
        "{}",
        page.body
    );
    assert_eq!(log.streams().unwrap().len(), 1, "nothing was forked");
    assert_eq!(events(&log), [requested(&log)]);
}

#[tokio::test]
async fn a_post_from_another_site_is_refused_and_nothing_recorded() {
    let (log, app) = served();
    ask(&log);
    let fields = [
        ("csrf", CSRF),
        ("at_step", "0"),
        ("at_question", "apply"),
        ("answer", "true"),
        ("action", "answer"),
    ];
    for origin in [
        "http://evil.example",
        "null",
        "https://127.0.0.1:8080",
        "http://127.0.0.1:8081",
    ] {
        let request = post_from("/q/chat/call-1", Some(origin), &fields);
        assert_eq!(
            send(&app, request).await,
            refusal(
                StatusCode::FORBIDDEN,
                "Refused",
                "A form from another site cannot answer here."
            ),
            "{origin}"
        );
    }
    assert_eq!(events(&log), [requested(&log)]);
}

#[tokio::test]
async fn a_post_without_the_form_token_is_refused_and_nothing_recorded() {
    let (log, app) = served();
    ask(&log);
    let out_of_date = refusal(
        StatusCode::FORBIDDEN,
        "Refused",
        "The form is out of date or not this server's; reload the page.",
    );
    for csrf in [None, Some(""), Some("fedcba9876543210fedcba987654321f")] {
        let mut fields = vec![
            ("at_step", "0"),
            ("at_question", "apply"),
            ("answer", "true"),
            ("action", "answer"),
        ];
        fields.extend(csrf.map(|csrf| ("csrf", csrf)));
        // Without an `Origin` (an old browser, a plain HTTP client) as with one.
        for origin in [Some("http://127.0.0.1:8080"), None] {
            let request = post_from("/q/chat/call-1", origin, &fields);
            assert_eq!(
                send(&app, request).await,
                out_of_date,
                "{csrf:?} {origin:?}"
            );
        }
    }
    assert_eq!(events(&log), [requested(&log)]);
}

#[tokio::test]
async fn the_token_link_sets_the_cookie_and_goes_to_the_inbox() {
    let (_log, app) = served();
    let link = |token: &str| {
        http::Request::get(format!("/?token={token}"))
            .header(http::header::HOST, HOST)
            .body(Body::empty())
            .unwrap()
    };
    assert_eq!(
        send(&app, link(TOKEN)).await,
        see_other(
            "/",
            &[(
                "set-cookie",
                "askuser_token=0123456789abcdef0123456789abcdef; HttpOnly; SameSite=Strict; Path=/"
            )]
        )
    );
    assert_eq!(
        send(&app, link("0123456789abcdef")).await,
        refusal(
            StatusCode::UNAUTHORIZED,
            "Wrong link",
            "This link's token is not this server's."
        )
    );
}

/// The questions an inbox page lists, by their page's path, and its lines
/// about the other pages (`<p class="pages">`), as text.
fn listed(page: &str) -> (Vec<String>, Vec<String>) {
    let questions = (page.split("<a class=\"question\" href=\"").skip(1))
        .filter_map(|rest| rest.split('"').next().map(str::to_owned))
        .collect();
    let pages = (page.split("<p class=\"pages\">").skip(1))
        .filter_map(|rest| rest.split("</p>").next())
        .map(|line| {
            let mut text = String::new();
            let mut tag = false;
            for c in line.chars() {
                match c {
                    '<' => tag = true,
                    '>' => tag = false,
                    c if !tag => text.push(c),
                    _ => {}
                }
            }
            text
        })
        .collect();
    (questions, pages)
}

/// At 120 open questions the inbox lists 50 a page, the newest stream first,
/// with how many more wait and the link to them; a page past the last shows
/// the last; the title counts them all.
#[tokio::test]
async fn the_inbox_lists_fifty_questions_a_page_with_how_many_more_wait() {
    let clock = ManualClock::new(STAMP);
    let log = Arc::new(MemLog::new().with_clock(clock.clone()));
    let (_, mut app) = served();
    let shared: crate::SharedLog = log.clone();
    app.queue = Arc::new(Mutex::new(Queue::new(askuser_app::Desk::new(shared))));
    let form = parse_form(&arguments()).expect("the form is valid");
    for n in 0..120 {
        let events = [build::requested("call-1", form.form().clone())];
        askuser_testkit::record(&*log, &format!("s{n:03}"), 0, &events).unwrap();
        clock.advance(1000);
    }
    let path = |n: usize| format!("/q/s{n:03}/call-1");
    let newest = |from: usize, count: usize| -> Vec<String> {
        (0..count).map(|k| path(119 - from - k)).collect()
    };
    let first = open(&app, "/").await;
    assert_eq!(first.status, StatusCode::OK);
    assert!(first.body.contains("<title>(120) askuser inbox</title>"));
    assert_eq!(
        listed(&first.body),
        (
            newest(0, 50),
            vec!["70 more waiting · older questions".to_owned()]
        )
    );
    assert!(
        first
            .body
            .contains("<a href=\"/?page=2\">older questions</a>")
    );
    let second = open(&app, "/?page=2").await;
    assert_eq!(
        listed(&second.body),
        (
            newest(50, 50),
            vec![
                "Questions 51–100 of 120 · newer questions".to_owned(),
                "20 more waiting · older questions".to_owned()
            ]
        )
    );
    assert!(second.body.contains("<a href=\"/\">newer questions</a>"));
    let last = (
        newest(100, 20),
        vec!["Questions 101–120 of 120 · newer questions".to_owned()],
    );
    assert_eq!(listed(&open(&app, "/?page=3").await.body), last);
    assert_eq!(listed(&open(&app, "/?page=9").await.body), last);
    assert_eq!(
        listed(&open(&app, "/?page=x").await.body),
        listed(&first.body)
    );
}

#[tokio::test]
async fn the_inbox_lists_every_inquiry_that_waits() {
    let (log, app) = served();
    assert_page(&open(&app, "/").await, StatusCode::OK, "inbox_empty");
    ask(&log);
    assert_page(&open(&app, "/").await, StatusCode::OK, "inbox_one");
}

#[tokio::test]
async fn a_question_page_is_a_form_that_says_what_it_shows() {
    let (log, app) = served();
    ask(&log);
    assert_page(
        &open(&app, "/q/chat/call-1").await,
        StatusCode::OK,
        "question_boolean",
    );
    assert_page(
        &open(&app, "/q/chat/call-2").await,
        StatusCode::NOT_FOUND,
        "question_missing",
    );
}

#[tokio::test]
async fn an_answer_to_the_question_shown_is_recorded() {
    let (log, app) = served();
    ask(&log);
    let answer = post(
        "/q/chat/call-1",
        &[
            ("csrf", CSRF),
            ("at_step", "0"),
            ("at_question", "apply"),
            ("answer", "true"),
            ("note", "  careful  "),
            ("action", "answer"),
        ],
    );
    assert_eq!(send(&app, answer).await, see_other("/q/chat/call-1", &[]));
    assert_eq!(
        events(&log),
        [
            requested(&log),
            build::review_wanted("call-1"),
            build::answered_with_note("call-1", "apply", json!(true), "careful"),
        ]
    );
    assert_page(
        &open(&app, "/q/chat/call-1").await,
        StatusCode::OK,
        "question_select",
    );
}

#[tokio::test]
async fn an_answer_on_a_stale_page_is_refused_with_the_question_now_asked() {
    let (log, app) = served();
    ask(&log);
    // The terminal answers first, on another session of the same log.
    let mut terminal = Session::open(log.clone(), "chat").unwrap();
    let shown = At::question(InquiryId::new("call-1"), "apply", 0);
    terminal
        .handle(&AnswerInput::new(shown, json!(true)).into())
        .unwrap();
    let recorded = events(&log);
    // The browser's page still shows the first question.
    let late = post(
        "/q/chat/call-1",
        &[
            ("csrf", CSRF),
            ("at_step", "0"),
            ("at_question", "apply"),
            ("answer", "false"),
            ("note", "typed <here>"),
            ("action", "answer"),
        ],
    );
    assert_page(
        &send(&app, late).await,
        StatusCode::CONFLICT,
        "question_select_stale",
    );
    assert_eq!(events(&log), recorded);
    assert_eq!(recorded.len(), 2);
}

/// Answers both questions from the browser: Yes with a note, then production.
async fn answer_both(app: &App) {
    let first = post(
        "/q/chat/call-1",
        &[
            ("csrf", CSRF),
            ("at_step", "0"),
            ("at_question", "apply"),
            ("answer", "true"),
            ("note", "careful"),
            ("action", "answer"),
        ],
    );
    assert_eq!(send(app, first).await, see_other("/q/chat/call-1", &[]));
    let second = post(
        "/q/chat/call-1",
        &[
            ("csrf", CSRF),
            ("at_step", "2"),
            ("at_question", "env"),
            ("answer", "1"),
            ("action", "answer"),
        ],
    );
    assert_eq!(send(app, second).await, see_other("/q/chat/call-1", &[]));
}

#[tokio::test]
async fn the_review_shows_every_answer_and_submit_sends_them() {
    let (log, app) = served();
    ask(&log);
    answer_both(&app).await;
    assert_page(
        &open(&app, "/q/chat/call-1").await,
        StatusCode::OK,
        "review",
    );
    let submit = || {
        post(
            "/q/chat/call-1",
            &[("csrf", CSRF), ("at_step", "3"), ("action", "submit")],
        )
    };
    assert_eq!(send(&app, submit()).await, see_other("/q/chat/call-1", &[]));
    let recorded = events(&log);
    assert_eq!(recorded.last(), Some(&build::submitted("call-1")));
    assert_page(&open(&app, "/q/chat/call-1").await, StatusCode::OK, "done");
    // Sent twice (a second tab, a reload): the page says it is over.
    assert_page(
        &send(&app, submit()).await,
        StatusCode::CONFLICT,
        "done_twice",
    );
    assert_eq!(events(&log), recorded);
    let inbox = open(&app, "/").await;
    assert!(
        inbox
            .body
            .contains("<p class=\"empty\">No agent is waiting for an answer.</p>")
    );
}

#[tokio::test]
async fn every_answer_carries_the_security_headers() {
    let (log, app) = served();
    ask(&log);
    let html = "text/html; charset=utf-8";
    let pages = [
        ("/", StatusCode::OK, html, None),
        ("/q/chat/call-1", StatusCode::OK, html, None),
        ("/q/chat/call-1/reply", StatusCode::OK, html, None),
        ("/q/chat/call-1/end", StatusCode::OK, html, None),
        ("/q/chat/call-2", StatusCode::NOT_FOUND, html, None),
        ("/q/elsewhere/call-1", StatusCode::NOT_FOUND, html, None),
        ("/s/chat", StatusCode::OK, html, None),
        ("/s/elsewhere", StatusCode::NOT_FOUND, html, None),
        (
            "/s/chat/transcript",
            StatusCode::OK,
            "text/plain; charset=utf-8",
            None,
        ),
        (
            "/s/chat/export",
            StatusCode::OK,
            "application/x-ndjson; charset=utf-8",
            Some(("content-disposition", "attachment; filename=\"chat.jsonl\"")),
        ),
        (
            "/style.css",
            StatusCode::OK,
            "text/css; charset=utf-8",
            None,
        ),
        (
            "/app.js",
            StatusCode::OK,
            "text/javascript; charset=utf-8",
            None,
        ),
    ];
    for (uri, status, content_type, more) in pages {
        let answer = open(&app, uri).await;
        let more: Vec<_> = more.into_iter().collect();
        assert_eq!(
            (answer.status, answer.headers),
            (status, headers(content_type, &more, answer.body.len())),
            "{uri}"
        );
    }
    // What the router answers itself carries them too.
    let unknown = open(&app, "/no/such/page").await;
    assert_eq!(
        (unknown.status, unknown.headers),
        (
            StatusCode::NOT_FOUND,
            headers(html, &[], unknown.body.len())
        )
    );
    assert!(
        unknown
            .body
            .contains("This inbox has no page at this address.")
    );
    assert_eq!(open(&app, "/style.css").await.body, crate::pages::STYLE);
    assert_eq!(open(&app, "/app.js").await.body, crate::pages::SCRIPT);
    assert_eq!(
        open(&app, "/s/chat/transcript").await.body,
        "Still waiting for an answer to \"Apply the migration?\".\n"
    );
}

#[tokio::test]
async fn back_from_the_review_then_an_answer_without_a_choice_is_refused_with_the_note_kept() {
    let (log, app) = served();
    ask(&log);
    answer_both(&app).await;
    let back = post(
        "/q/chat/call-1",
        &[("csrf", CSRF), ("at_step", "3"), ("action", "back")],
    );
    assert_eq!(send(&app, back).await, see_other("/q/chat/call-1", &[]));
    assert_eq!(events(&log).last(), Some(&build::back("call-1")));
    assert_page(
        &open(&app, "/q/chat/call-1").await,
        StatusCode::OK,
        "question_select_after_back",
    );
    let recorded = events(&log);
    let unpicked = post(
        "/q/chat/call-1",
        &[
            ("csrf", CSRF),
            ("at_step", "4"),
            ("at_question", "env"),
            ("note", "later"),
            ("action", "answer"),
        ],
    );
    assert_page(
        &send(&app, unpicked).await,
        StatusCode::CONFLICT,
        "question_select_unpicked",
    );
    assert_eq!(events(&log), recorded);
}

/// How the first inquiry of the inbox's "Answered today" ended, in its words
/// (after its clock time).
fn today_of(body: &str) -> &str {
    words_after_time(body, "<section class=\"today\"", "</time> · ")
}

/// The words of a history page's (first) inquiry ending, from its body, after
/// when it ended.
fn history_ended_of(body: &str) -> &str {
    words_after_time(body, "<p class=\"ended\">", "</time>: ")
}

/// The words of the paragraph found after `start` in `body`, from past its
/// time's end (`after_time`) to the paragraph's end.
fn words_after_time<'a>(body: &'a str, start: &str, after_time: &str) -> &'a str {
    let rest = &body[body.find(start).expect(start)..];
    let rest = &rest[rest.find(after_time).expect("a time") + after_time.len()..];
    &rest[..rest.find("</p>").expect("its end")]
}

/// What an answered `call-1` of `chat` is said to have given the agent: the
/// Done page's words (`done`), and the briefer words of the inbox's "Answered
/// today" and of the stream's history (`brief`).
async fn assert_told(app: &App, done: &str, brief: &str) {
    assert_eq!(outcome_of(&open(app, "/q/chat/call-1").await.body), done);
    assert_eq!(today_of(&open(app, "/").await.body), brief);
    assert_eq!(history_ended_of(&open(app, "/s/chat").await.body), brief);
}

/// The words of a Done page's outcome, from its body.
fn outcome_of(body: &str) -> &str {
    let start = body
        .find("<p class=\"outcome\" role=\"status\">")
        .expect("an outcome");
    let rest = &body[start + "<p class=\"outcome\" role=\"status\">".len()..];
    &rest[..rest.find("</p>").expect("its end")]
}

/// End Turn in this inbox: the tab whose form ended it is told "in this
/// tab", and any other page of the inquiry "in another tab of this inbox";
/// the log records no surface, so that is what this inbox remembers.
#[tokio::test]
async fn the_turn_ended_here_says_which_tab_ended_it() {
    let (log, app) = served();
    ask(&log);
    let ended = send(
        &app,
        post("/q/chat/call-1", &[("csrf", CSRF), ("action", "end_turn")]),
    )
    .await;
    assert_eq!(ended.status, StatusCode::SEE_OTHER);
    let to = (ended.headers.iter())
        .find(|(name, _)| name == "location")
        .map(|(_, to)| to.as_str());
    assert_eq!(to, Some("/q/chat/call-1?ended=here"));
    let here = open(&app, "/q/chat/call-1?ended=here").await;
    assert_eq!(
        outcome_of(&here.body),
        "You ended the turn in this tab; the assistant got no reply."
    );
    let other = open(&app, "/q/chat/call-1").await;
    assert_eq!(
        outcome_of(&other.body),
        "The turn was ended in another tab of the web inbox; the assistant got no reply."
    );
    // A turn this inbox did not end is never "this tab", whatever the link
    // says: the page names the surface the log recorded.
    let (log, app) = served();
    ask(&log);
    end_turn_elsewhere(&log, Some(askuser_core::Surface::Terminal));
    for path in ["/q/chat/call-1?ended=here", "/q/chat/call-1"] {
        assert_eq!(
            outcome_of(&open(&app, path).await.body),
            "The turn was ended in the terminal; the assistant got no reply."
        );
    }
    // A log written before the end of a turn said where.
    let (log, app) = served();
    ask(&log);
    end_turn_elsewhere(&log, None);
    assert_eq!(
        outcome_of(&open(&app, "/q/chat/call-1?ended=here").await.body),
        "The turn was ended outside this inbox (the log does not say where); the assistant got no reply."
    );
    app.ended.lock().unwrap().started_ms = u64::MAX;
    assert_eq!(
        outcome_of(&open(&app, "/q/chat/call-1").await.body),
        "The turn was ended before this inbox started (the log does not say where); the assistant got no reply."
    );
}

#[tokio::test]
async fn a_finished_question_is_served_from_the_read_side_without_a_replay() {
    let (log, app) = served();
    ask(&log);
    // The inbox sees the stream: its one replay.
    assert!(open(&app, "/").await.body.contains("Apply the migration?"));
    assert_eq!(app.queue.lock().unwrap().replays(), 1);
    // Another process (the terminal) ends the turn.
    end_turn_elsewhere(&log, None);
    for _ in 0..3 {
        let page = open(&app, "/q/chat/call-1").await;
        assert!(
            page.body
                .contains("<p class=\"outcome\" role=\"status\">The turn was ended outside this inbox (the log does not say where); the assistant got no reply.</p>"),
            "{}",
            page.body
        );
    }
    let inbox = open(&app, "/").await;
    assert!(inbox.body.contains("No agent is waiting for an answer."));
    // Caught up on what the terminal recorded: never replayed again.
    assert_eq!(app.queue.lock().unwrap().replays(), 1);
}

#[tokio::test]
async fn a_post_is_refused_on_its_head_before_its_body_is_read() {
    let (log, app) = served();
    ask(&log);
    let large = format!("csrf={CSRF}&note={}", "x".repeat(70 * 1024));
    let bodies = [
        ("application/json", "{\"answer\": true}".to_owned()),
        ("application/x-www-form-urlencoded", large.clone()),
        ("text/plain", large),
    ];
    let wrong_address = refusal(
        StatusCode::MISDIRECTED_REQUEST,
        "Wrong address",
        "This server answers only at the address askuser web printed.",
    );
    let from_elsewhere = refusal(
        StatusCode::FORBIDDEN,
        "Refused",
        "A form from another site cannot answer here.",
    );
    let request = |uri: &str, kind: &str, body: &str| {
        http::Request::post(uri)
            .header(http::header::HOST, HOST)
            .header(http::header::CONTENT_TYPE, kind)
            .body(Body::from(body.to_owned()))
            .unwrap()
    };
    let cookie = http::HeaderValue::from_str(&format!("askuser_token={TOKEN}")).unwrap();
    for uri in ["/q/chat/call-1", "/s/chat/fork", "/no/such/page"] {
        for (kind, body) in &bodies {
            let bare = request(uri, kind, body);
            assert_eq!(send(&app, bare).await, no_cookie(), "{uri} {kind}");
            let mut rebound = request(uri, kind, body);
            (rebound.headers_mut()).insert(http::header::COOKIE, cookie.clone());
            (rebound.headers_mut()).insert(
                http::header::HOST,
                http::HeaderValue::from_static("evil.example:8080"),
            );
            assert_eq!(send(&app, rebound).await, wrong_address, "{uri} {kind}");
            let mut cross_site = request(uri, kind, body);
            (cross_site.headers_mut()).insert(http::header::COOKIE, cookie.clone());
            (cross_site.headers_mut()).insert(
                http::header::ORIGIN,
                http::HeaderValue::from_static("http://evil.example"),
            );
            assert_eq!(send(&app, cross_site).await, from_elsewhere, "{uri} {kind}");
        }
    }
    assert_eq!(events(&log), [requested(&log)]);
}

#[tokio::test]
async fn each_form_takes_the_body_it_needs_and_no_more() {
    let (log, app) = served();
    ask(&log);
    // A note as long as the page lets one be typed (4,096 characters of 4
    // bytes), next to a 64 KiB answer, percent-encoded: read whole (and
    // refused in words, as a yes-or-no question's answer), not cut off.
    let note = "\u{1F600}".repeat(4096);
    let answer = "y".repeat(64 * 1024 - 2);
    let fields = [
        ("csrf", CSRF),
        ("at_step", "0"),
        ("at_question", "apply"),
        ("answer", answer.as_str()),
        ("note", note.as_str()),
        ("action", "answer"),
    ];
    let read = send(&app, post("/q/chat/call-1", &fields)).await;
    assert_eq!(read.status, StatusCode::CONFLICT);
    assert!(read.body.contains("choose Yes or No"), "{}", read.body);
    // One byte over a form's cap is refused with the security headers.
    let over = |uri: &str, len: usize| {
        let body = format!("csrf={CSRF}&pad={}", "x".repeat(len - CSRF.len() - 10));
        let mut request = post(uri, &[]);
        *request.body_mut() = Body::from(body);
        request
    };
    for (uri, cap) in [
        ("/q/chat/call-1", super::MAX_ANSWER_FORM),
        ("/s/chat/fork", super::MAX_FORK_FORM),
    ] {
        let refused = send(&app, over(uri, cap + 1)).await;
        assert_eq!(
            (refused.status, refused.headers, refused.body),
            (
                StatusCode::PAYLOAD_TOO_LARGE,
                headers("text/plain; charset=utf-8", &[], 56),
                "Failed to buffer the request body: length limit exceeded".to_owned()
            ),
            "{uri}"
        );
    }
    assert_eq!(events(&log), [requested(&log)]);
}

/// At the engine's deadline the page stops taking answers: opened after it,
/// the timeout is recorded (as the waiting host would) and the page says what
/// the assistant got; an answer sent after it is not recorded.
#[tokio::test]
async fn at_the_deadline_the_page_stops_taking_answers_and_says_what_was_sent() {
    // The log's clock says the question showed in 1970: its deadline is past.
    let (log, app) = served_at(Timestamp(1_000));
    ask_with(&log, due_at_once());
    // The deadline (1 ms after the question showed) passed before this answer.
    let late = post(
        "/q/chat/call-1",
        &[
            ("csrf", CSRF),
            ("at_step", "0"),
            ("at_question", "apply"),
            ("answer", "true"),
            ("action", "answer"),
        ],
    );
    let before = crate::app::now_ms();
    assert_page(&send(&app, late).await, StatusCode::CONFLICT, "done_late");
    let recorded = events(&log);
    assert_fired_by_the_web(&recorded, before);
    // Opened again, it says only what happened; nothing more is recorded.
    assert_page(
        &open(&app, "/q/chat/call-1").await,
        StatusCode::OK,
        "done_timed_out",
    );
    assert_eq!(events(&log), recorded);
}

/// The last of `recorded` is the timeout of `call-1` the web fired, by its own
/// clock, after `before` (any surface showing a question may fire its timeout;
/// the engine took this one, past the deadline).
fn assert_fired_by_the_web(recorded: &[Event], before: u64) {
    let after = crate::app::now_ms();
    let Some(Event::TimedOut {
        inquiry,
        message: None,
        fired_at_ms: Some(fired),
    }) = recorded.last()
    else {
        panic!("a timeout the web fired, last: {recorded:?}");
    };
    assert_eq!(inquiry.as_str(), "call-1");
    assert!(
        (before..=after).contains(fired),
        "{before} <= {fired} <= {after}"
    );
}

/// Asks [`arguments`] as `call-1` of `chat` as an MCP call does (its result
/// is owed to the same call made again), with the client's `notes` on it.
fn ask_noted(log: &Arc<MemLog>, notes: &[askuser_core::ClientNote]) {
    let arguments = arguments();
    let form = parse_form(&arguments).expect("the form is valid");
    let mut session = Session::open(log.clone(), "chat").expect("the stream opens");
    let origin = askuser_core::Origin {
        resumes: true,
        ..askuser_core::Origin::default()
    };
    let request = Request {
        inquiry: InquiryId::new("call-1"),
        form: form.form().clone(),
        policy: askuser_core::Policy::default(),
        origin,
        call: Some(ToolCall {
            dialect: "jp-form".into(),
            arguments,
        }),
    };
    session.handle(&Input::Ask(request)).expect("asked");
    for note in notes {
        let noting = Input::NoteClient {
            inquiry: InquiryId::new("call-1"),
            note: note.clone(),
        };
        session.handle(&noting).expect("noted");
    }
}

/// Answers both questions and sends them from the review.
async fn answer_and_send(app: &App) {
    answer_both(app).await;
    let submit = post(
        "/q/chat/call-1",
        &[("csrf", CSRF), ("at_step", "3"), ("action", "submit")],
    );
    assert_eq!(send(app, submit).await, see_other("/q/chat/call-1", &[]));
}

/// Gemini CLI stops a call (Esc) without telling: answers sent to its waiting
/// call are said to have gone to that call, with what happens if it was
/// stopped, until the same call made again takes them; a call its model moved
/// on from, or its client cancelled while it waited, was waited for by nobody.
#[tokio::test]
async fn answers_to_a_call_its_host_may_have_stopped_unseen_say_so_until_taken() {
    let silently = askuser_core::ClientNote::StopsSilently {
        host: "Gemini CLI".into(),
    };
    let (log, app) = served();
    ask_noted(&log, std::slice::from_ref(&silently));
    answer_and_send(&app).await;
    // The inbox's "Answered today" and the stream's history say the same, briefly.
    assert_told(
        &app,
        "Answered; sent to the call Gemini CLI was waiting on. Gemini CLI does not tell askuser when its person stops a call (Esc): if this one was stopped, your answers are kept, and the assistant is given them when it asks the same again. The answers sent:",
        "answered; sent to the call Gemini CLI was waiting on, which may have been stopped there:",
    )
    .await;
    // The same call made again took them.
    let mut other = Session::open(log.clone(), "chat").expect("the stream opens");
    let deliver = Input::Deliver {
        inquiry: InquiryId::new("call-1"),
    };
    other.handle(&deliver).expect("handed over");
    assert_told(
        &app,
        "Answered; the assistant got these answers:",
        "answered; the assistant got:",
    )
    .await;

    let (log, app) = served();
    let moved = askuser_core::ClientNote::MovedOn { after_ms: 23_000 };
    ask_noted(&log, &[silently, moved]);
    answer_and_send(&app).await;
    assert_told(
        &app,
        "Answered. The agent had stopped waiting: it moved on to a new call 23 s into this one; your answers are kept and given to it when it makes the same call again.",
        "answered; nobody was waiting for them; they are kept:",
    )
    .await;

    // A client that cancelled its waiting call.
    let (log, app) = served();
    let stopped = askuser_core::ClientNote::StoppedWaiting {
        disconnected: false,
    };
    ask_noted(&log, &[stopped]);
    answer_and_send(&app).await;
    assert_eq!(
        outcome_of(&open(&app, "/q/chat/call-1").await.body),
        "Answered. The agent had stopped waiting: its host cancelled the call; your answers are kept and given to it when it makes the same call again."
    );
}

/// A Reply's Done page says the person replied, with their message.
#[tokio::test]
async fn a_reply_says_it_was_a_reply_with_its_message() {
    let (log, app) = served();
    ask(&log);
    let reply = post(
        "/q/chat/call-1",
        &[
            ("csrf", CSRF),
            ("at_step", "0"),
            ("at_question", "apply"),
            ("message", "use the staging copy"),
            ("action", "reply"),
        ],
    );
    assert_eq!(send(&app, reply).await, see_other("/q/chat/call-1", &[]));
    assert_page(
        &open(&app, "/q/chat/call-1").await,
        StatusCode::OK,
        "done_replied",
    );
}

/// Changing the first answer from the review takes one step: the form asks it
/// again; once it is answered, the review shows again with the later answer
/// kept, and Send sends them.
#[tokio::test]
async fn changing_the_first_answer_from_the_review_takes_one_step() {
    let (log, app) = served();
    ask(&log);
    answer_both(&app).await;
    let change = post(
        "/q/chat/call-1",
        &[("csrf", CSRF), ("at_step", "3"), ("change", "apply")],
    );
    assert_eq!(send(&app, change).await, see_other("/q/chat/call-1", &[]));
    let again = post(
        "/q/chat/call-1",
        &[
            ("csrf", CSRF),
            ("at_step", "5"),
            ("at_question", "apply"),
            ("answer", "true"),
            ("note", "careful, again"),
            ("action", "answer"),
        ],
    );
    assert_eq!(send(&app, again).await, see_other("/q/chat/call-1", &[]));
    assert_page(
        &open(&app, "/q/chat/call-1").await,
        StatusCode::OK,
        "review_after_change",
    );
    let submit = || {
        post(
            "/q/chat/call-1",
            &[("csrf", CSRF), ("at_step", "7"), ("action", "submit")],
        )
    };
    assert_eq!(send(&app, submit()).await, see_other("/q/chat/call-1", &[]));
    let recorded = events(&log);
    assert_eq!(
        recorded[recorded.len() - 3..],
        [
            build::change_wanted("call-1", "apply"),
            build::answered_with_note("call-1", "apply", serde_json::json!(true), "careful, again"),
            build::submitted("call-1")
        ]
    );
}

/// Past its deadline a question no longer waits in the inbox either: the
/// inbox records the timeout (as the waiting host would) and lists nothing.
#[tokio::test]
async fn past_its_deadline_a_question_leaves_the_inbox_timed_out() {
    let (log, app) = served_at(Timestamp(1_000));
    ask_with(&log, due_at_once());
    // The inbox with nothing waiting, as on a log where nothing was asked.
    let before = crate::app::now_ms();
    assert_page(&open(&app, "/").await, StatusCode::OK, "inbox_empty");
    assert_fired_by_the_web(&events(&log), before);
    // Asked for again, nothing more is recorded.
    let recorded = events(&log);
    open(&app, "/").await;
    assert_eq!(events(&log), recorded);
}

/// A page fetched again with what it showed (`?step=&question=`) carries what
/// moved its inquiry on since, in words from the engine's `Happened`: the
/// question answered elsewhere and what is asked now; once it ended, how.
#[tokio::test]
async fn a_page_fetched_with_what_it_showed_says_what_moved_it_on() {
    let (log, app) = served();
    ask(&log);
    let shared: crate::SharedLog = log.clone();
    let mut elsewhere = askuser_app::Desk::new(shared);
    let id = InquiryId::new("call-1");
    let shown = elsewhere.state("chat").unwrap().at(&id).unwrap();
    let uri = format!("/q/chat/call-1?step={}&question=apply", shown.step);
    let moved = |body: &str| {
        (body.split("<p id=\"moved\" hidden>").nth(1))
            .and_then(|rest| rest.split("</p>").next())
            .map(str::to_owned)
    };
    assert_eq!(moved(&open(&app, &uri).await.body), None);
    let yes = Input::from(AnswerInput::new(shown, json!(true)));
    assert!(elsewhere.input("chat", &yes).unwrap().refusal().is_none());
    assert_eq!(
        moved(&open(&app, &uri).await.body).as_deref(),
        Some(
            "While this page was open, “Apply the migration?” was answered elsewhere (in another tab or the terminal): Yes. It now asks “Which environment?”."
        )
    );
    let end = Input::EndTurn {
        inquiry: id,
        surface: None,
    };
    assert!(elsewhere.input("chat", &end).unwrap().refusal().is_none());
    assert_eq!(
        moved(&open(&app, &uri).await.body).as_deref(),
        Some(
            "While this page was open, this question ended elsewhere (in another tab or the terminal): turn ended."
        )
    );
}

#[tokio::test]
async fn answering_again_asks_first_and_asking_forks_nothing() {
    let (log, app) = served();
    ask(&log);
    let asks = open(&app, "/s/chat/fork?at=1").await;
    assert_eq!(asks.status, StatusCode::OK);
    assert!(
        asks.body.contains("Start the branch and answer again"),
        "{}",
        asks.body
    );
    // A fork past the head is refused in words, and neither GET forks.
    let past = open(&app, "/s/chat/fork?at=9").await;
    assert_eq!(past.status, StatusCode::CONFLICT);
    assert_eq!(log.streams().unwrap().len(), 1, "nothing was forked");
}
