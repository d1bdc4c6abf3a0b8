//! The memory of the day in the web inbox (issue 39, item 4), with a real
//! browser (headless chromium, script on) against the real binary: "Answered
//! today" below what waits after a day of 50 inquiries from 3 agents, a
//! conversation's history grouped by inquiry with its Markdown rendered, and
//! "Answer again from here" that asks first. The day is recorded through the
//! engine's own session with the times given as inputs (a clock the test
//! sets), and the server is given a time zone in which it is just after noon,
//! so "today" and every clock time on the page are known. Each new page is
//! checked with axe-core at 1280 px and 390 px, light and dark.

mod common;

use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use askuser_app::log::{Clock, Log, ManualClock, Session, Timestamp};
use askuser_core::{AgentOrigin, AnswerInput, Input, InquiryId, parse_form};
use askuser_sled::SledLog;
use common::Scratch;
use common::browser::Browser;
use common::web::{Web, at, keep_screenshot, page_problems};
use serde_json::{Value, json};

/// A minute, in milliseconds.
const MIN: u64 = 60_000;

/// Noon of the server's day, as a moment, and the `TZ` that makes the wall
/// clock's current minute noon there (a POSIX zone `ASK-HH:MM`: east of UTC
/// by that much).
fn noon_now() -> (u64, String) {
    let now = || {
        u64::try_from(
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .unwrap()
                .as_millis(),
        )
        .unwrap()
    };
    // Early in a minute, so that what follows takes place within it.
    if now() % MIN > 45_000 {
        std::thread::sleep(std::time::Duration::from_millis(MIN + 500 - now() % MIN));
    }
    let now = now();
    let minute = now - now % MIN;
    let of_day = i64::try_from(minute / MIN % 1440).unwrap();
    let mut offset = (720 - of_day).rem_euclid(1440);
    if offset > 720 {
        offset -= 1440;
    }
    // POSIX counts west as positive.
    let sign = if offset >= 0 { '-' } else { '+' };
    let tz = format!("ASK{sign}{:02}:{:02}", offset.abs() / 60, offset.abs() % 60);
    (minute, tz)
}

/// One agent of the day: its stream, its host and its repository.
const AGENTS: [(&str, &str, &str); 3] = [
    ("billing-api", "Claude Code", "billing-api"),
    ("infra", "Codex", "infra"),
    ("docs-site", "Gemini CLI", "docs-site"),
];

fn origin(host: &str, repository: &str) -> AgentOrigin {
    AgentOrigin {
        host: Some(host.into()),
        machine: Some("laptop".into()),
        repository: Some(repository.into()),
        ..AgentOrigin::default()
    }
}

/// Inquiry `n` of the day: a yes/no question (Markdown in it) or a choice.
fn form(n: usize) -> Value {
    if n.is_multiple_of(2) {
        json!({"questions": [{"id": "go", "text": format!("Run **step {n}** now?"),
            "answer_type": "boolean"}]})
    } else {
        json!({"questions": [{"id": "db", "text": format!("Which database for `job-{n}`?"),
            "answer_type": "select", "options": ["PostgreSQL", "SQLite"]}]})
    }
}

/// The answer inquiry `n` gets.
fn answer(n: usize) -> Value {
    if n.is_multiple_of(2) {
        json!(n.is_multiple_of(4))
    } else if n.is_multiple_of(3) {
        json!("SQLite")
    } else {
        json!("PostgreSQL")
    }
}

/// Asks `form` as `inquiry` in `session` at `asked`.
fn ask(session: &mut Session, clock: &ManualClock, asked: u64, inquiry: &str, form: &Value) {
    clock.set(Timestamp(asked));
    let form = parse_form(form).unwrap();
    let mut request = askuser_testkit::build::request(inquiry, form.form().clone());
    request.origin.resumes = true;
    session.handle(&Input::Ask(request)).unwrap();
}

/// The day: 50 inquiries from 3 agents between 09:30 and 11:57 local time,
/// each answered 30 s after it was asked (one with a note, one replied to,
/// one whose turn was ended), one of yesterday, and one still waiting.
fn record_day(db: &str, noon: u64) {
    let clock = ManualClock::new(Timestamp(noon));
    let log: Arc<dyn Log> = Arc::new(
        SledLog::open(db)
            .unwrap()
            .with_clock(Arc::clone(&clock) as Arc<dyn Clock>),
    );
    let mut sessions: Vec<Session> = AGENTS
        .iter()
        .map(|(stream, host, repository)| {
            clock.set(Timestamp(noon - 15 * 60 * MIN));
            let mut session = Session::open(Arc::clone(&log), *stream).unwrap();
            session
                .handle(&Input::Attach(origin(host, repository)))
                .unwrap();
            session
        })
        .collect();
    // Yesterday, 23:00: not today.
    let docs = &mut sessions[2];
    ask(docs, &clock, noon - 13 * 60 * MIN, "y1", &form(1));
    let shown = docs.state().at(&InquiryId::new("y1")).unwrap();
    docs.handle(&AnswerInput::new(shown, json!("SQLite")).reviewed().into())
        .unwrap();
    for n in 0..50 {
        let session = &mut sessions[n % 3];
        let asked = noon - 150 * MIN + u64::try_from(n).unwrap() * 3 * MIN;
        let inquiry = format!("q{n}");
        ask(session, &clock, asked, &inquiry, &form(n));
        clock.set(Timestamp(asked + MIN / 2));
        let shown = session.state().at(&InquiryId::new(&inquiry)).unwrap();
        let input = match n {
            7 => Input::Reply {
                at: shown,
                message: Some("use the replica".into()),
            },
            11 => Input::EndTurn {
                inquiry: InquiryId::new(&inquiry),
                surface: None,
            },
            41 => AnswerInput::new(shown, answer(n))
                .with_note(Some("the replica lags".into()))
                .reviewed()
                .into(),
            _ => AnswerInput::new(shown, answer(n)).reviewed().into(),
        };
        session.handle(&input).unwrap();
    }
    ask(&mut sessions[0], &clock, noon - MIN, "open", &form(60));
}

/// The clock time `minutes` after 09:30 local, and its answer's 30 s.
fn clock_at(n: usize) -> String {
    let minutes = 9 * 60 + 30 + n * 3;
    format!("{:02}:{:02}", minutes / 60, minutes % 60)
}

/// What inquiry `n` says in "Answered today": its question, its time and
/// how it ended, and what the agent got.
fn ended_lines(n: usize) -> String {
    let (question, answer) = if n.is_multiple_of(2) {
        (
            format!("Run step {n} now?"),
            if n.is_multiple_of(4) { "Yes" } else { "No" }.to_owned(),
        )
    } else {
        (
            format!("Which database for job-{n}?"),
            answer(n).as_str().unwrap().to_owned(),
        )
    };
    let time = clock_at(n);
    match n {
        7 => format!("{question}\n{time} · you replied instead: “use the replica”"),
        11 => format!("{question}\n{time} · you ended the turn; the assistant got no reply"),
        41 => format!(
            "{question}\n{time} · answered; the assistant got:\n{question} {answer} (note: the replica lags)"
        ),
        _ => format!("{question}\n{time} · answered; the assistant got:\n{question} {answer}"),
    }
}

/// The whole "Answered today" section, as the page reads.
fn answered_today() -> String {
    let mut out = "Answered today".to_owned();
    // The agent whose inquiry ended last comes first: q49 is infra's, q48
    // billing-api's.
    for k in [1, 0, 2] {
        let (stream, host, repository) = AGENTS[k];
        let ns: Vec<usize> = (0..50).rev().filter(|n| n % 3 == k).collect();
        let head = format!(
            "\n{host} · {repository} · laptop\nstream {stream} · {} today · conversation",
            ns.len()
        );
        out.push_str(&head);
        for n in ns {
            out.push('\n');
            out.push_str(&ended_lines(n));
        }
    }
    out
}

/// "Answered today" after a day of 50 inquiries from 3 agents: below what
/// waits, per agent, the latest first, each with what the agent got in words
/// and a link to its conversation; the same at 390 px; axe-clean.
#[test]
fn answered_today_lists_a_day_of_fifty_inquiries_from_three_agents() {
    let scratch = Scratch::new();
    let db = scratch.db();
    let (noon, tz) = noon_now();
    record_day(&db, noon);
    let web = Web::start_env(&scratch, &db, &[("TZ", &tz)]);
    let browser = Browser::start_with_script();
    browser.go(&web.url);
    at(&browser, "(1) askuser inbox");
    let text = browser.text();
    let (waiting, today) = text.split_once("\nAnswered today\n").unwrap();
    assert_eq!(
        common::web::masked(waiting),
        "Questions waiting for you\nNotify me of new questions\nAnswered today: 50\nAssistant\nthe agent stopped\nClaude Code · billing-api · laptop\nstream billing-api · started 15 h ago · history\n1\nRun step 60 now?\nwaiting N min · call open"
    );
    assert_eq!(format!("Answered today\n{today}"), answered_today());
    keep_screenshot(&browser, "today-1280.png");
    let mut problems = page_problems(&browser, "answered today");
    // At 390 px: the same page (with no key hint on a phone), and the link
    // at the top leads to it.
    browser.emulate(390, false);
    // (The minutes waited may have moved on by now: a busy machine.)
    assert_eq!(
        common::web::masked(&browser.text()),
        common::web::masked(&text.replace("history\n1\n", "history\n"))
    );
    browser.click("a[href='#today']");
    let seen = browser.run(
        "var r = document.getElementById('today').getBoundingClientRect(); return r.top >= 0 && r.top < 844",
    );
    assert_eq!(seen, json!(true));
    keep_screenshot(&browser, "today-390.png");
    browser.emulate(1280, false);
    // An ended inquiry leads to its group in the conversation.
    browser.click("a[href='/s/billing-api#i-q48']");
    at(&browser, "History of billing-api");
    assert_eq!(
        common::web::masked(&browser.text_of("#i-q48")),
        "Run step 48 now?\nAsked N min ago · call q48\nEnded N min ago: answered; the assistant got:\nRun step 48 now? Yes\nAnswer again from here…"
    );
    problems.extend(page_problems(&browser, "the day's history"));
    assert_eq!(problems, Vec::<String>::new());
}

/// A conversation `h` of one agent: a two-question inquiry with Markdown,
/// a Back and a note, then one replied to, then one still waiting; the
/// times given (minutes before `now`).
fn record_conversation(db: &str, now: u64) {
    let clock = ManualClock::new(Timestamp(now - 30 * MIN));
    let log: Arc<dyn Log> = Arc::new(
        SledLog::open(db)
            .unwrap()
            .with_clock(Arc::clone(&clock) as Arc<dyn Clock>),
    );
    let mut session = Session::open(Arc::clone(&log), "h").unwrap();
    session
        .handle(&Input::Attach(origin("Claude Code", "billing-api")))
        .unwrap();
    let deploy = json!({"questions": [
        {"id": "go", "text": "Deploy **billing-api** to `production`?", "answer_type": "boolean"},
        {"id": "region", "text": "Which *region* first?", "answer_type": "select",
         "options": ["eu-west", "us-east"]}]});
    ask(&mut session, &clock, now - 20 * MIN, "c1", &deploy);
    let step = |session: &mut Session, minutes: u64, input: &dyn Fn(&Session) -> Input| {
        clock.set(Timestamp(now - minutes * MIN));
        let input = input(session);
        session.handle(&input).unwrap();
    };
    let shown = |session: &Session| session.state().at(&InquiryId::new("c1")).unwrap();
    step(&mut session, 19, &|s| {
        AnswerInput::new(shown(s), json!(true)).reviewed().into()
    });
    step(&mut session, 18, &|s| Input::Back(shown(s)));
    step(&mut session, 17, &|s| {
        AnswerInput::new(shown(s), json!(true)).reviewed().into()
    });
    step(&mut session, 16, &|s| {
        AnswerInput::new(shown(s), json!("us-east"))
            .with_note(Some("eu-west is frozen this week".into()))
            .reviewed()
            .into()
    });
    step(&mut session, 15, &|s| Input::Submit(shown(s)));
    ask(&mut session, &clock, now - 10 * MIN, "c2", &form(2));
    step(&mut session, 9, &|s| Input::Reply {
        at: s.state().at(&InquiryId::new("c2")).unwrap(),
        message: Some("wait for the freeze to end".into()),
    });
    ask(&mut session, &clock, now - 5 * MIN, "c3", &form(3));
}

/// The history groups a conversation by inquiry, Markdown rendered; "Answer
/// again from here" asks first, says what it does, and forks only once
/// confirmed.
#[test]
fn a_conversation_is_grouped_by_inquiry_and_answering_again_asks_first() {
    let scratch = Scratch::new();
    let db = scratch.db();
    let now = u64::try_from(
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_millis(),
    )
    .unwrap();
    record_conversation(&db, now);
    let web = Web::start(&scratch, &db);
    let browser = Browser::start_with_script();
    browser.go(&web.url);
    let base = format!("http://127.0.0.1:{}", web.port);
    browser.go(&format!("{base}/s/h"));
    at(&browser, "History of h");
    let history = "← All questions\nConversation h\n3 inquiries · 11 events · started N min ago\n\
        Transcript\nExport (JSON lines)\n\
        N min ago Claude Code · billing-api · laptop started waiting\n\
        Deploy billing-api to production?\nAsked N min ago · 2 questions · call c1\n\
        Deploy billing-api to production? Yes\nWent back from Which region first?\n\
        Deploy billing-api to production? Yes\n\
        Which region first? us-east (note: eu-west is frozen this week)\n\
        Ended N min ago: answered; the assistant got:\n\
        Deploy billing-api to production? Yes\n\
        Which region first? us-east (note: eu-west is frozen this week)\n\
        Answer again from here…\n\
        Run step 2 now?\nAsked N min ago · call c2\n\
        Ended N min ago: you replied instead: “wait for the freeze to end”\n\
        Answer again from here…\n\
        Which database for job-3?\nAsked N min ago · call c3\nStill waiting · answer it\n\
        Answer again from here…";
    assert_eq!(common::web::masked(&browser.text()), history);
    // The Markdown is rendered, never shown raw.
    let rendered = browser.run(
        "var h = document.querySelector('#i-c1 h2'); return [h.querySelector('strong').textContent, h.querySelector('code').textContent, document.querySelector('#i-c1 .steps em').textContent]",
    );
    assert_eq!(rendered, json!(["billing-api", "production", "region"]));
    keep_screenshot(&browser, "history-1280.png");
    browser.emulate(390, false);
    keep_screenshot(&browser, "history-390.png");
    browser.emulate(1280, false);
    let mut problems = page_problems(&browser, "the grouped history");
    // Answering again asks first, and says what it does.
    browser.click("#i-c1 .fork a");
    at(&browser, "Answer again from here?");
    assert_eq!(
        browser.text(),
        "← Back to the conversation\nAnswer again from here?\n\
         This starts a new branch of the conversation h, named h.fork-2, from the moment \
         “Deploy billing-api to production?” was asked. You answer its questions again there.\n\
         The original conversation stays as it is: nothing in it changes, and the answers the assistant got stay as they were.\n\
         No agent waits on a branch, so what you answer there is sent to no agent. It is kept in the branch's history, transcript and export.\n\
         Start the branch and answer again\nKeep the conversation as it is"
    );
    keep_screenshot(&browser, "fork-1280.png");
    problems.extend(page_problems(&browser, "answer again from here?"));
    // Nothing was forked by asking; the way back leads to the conversation.
    browser.click("div.actions a");
    at(&browser, "History of h");
    assert_eq!(common::web::masked(&browser.text()), history);
    // Confirmed: the branch, at its first question.
    browser.click("#i-c1 .fork a");
    at(&browser, "Answer again from here?");
    browser.click("button.primary");
    at(&browser, "[1/2] Deploy billing-api to production?");
    browser.go(&format!("{base}/s/h"));
    at(&browser, "History of h");
    assert_eq!(
        common::web::masked(&browser.text()),
        history.replace(
            "Export (JSON lines)\n",
            "Export (JSON lines)\nBranches: h.fork-2\n"
        )
    );
    browser.go(&format!("{base}/s/h.fork-2"));
    at(&browser, "History of h.fork-2");
    assert_eq!(
        common::web::masked(&browser.text()),
        "← All questions\nConversation h.fork-2\n1 inquiry · 2 events · started N s ago\n\
         Transcript\nExport (JSON lines)\nA branch of h from after its event #2.\n\
         N min ago Claude Code · billing-api · laptop started waiting\n\
         Deploy billing-api to production?\nAsked N min ago · 2 questions · call c1\n\
         Still waiting · answer it\nAnswer again from here…"
    );
    assert_eq!(problems, Vec::<String>::new());
}
