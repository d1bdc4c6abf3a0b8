//! The person's day in the web inbox (issue 39), with a real browser (headless
//! chromium, script on) against the real binaries: nothing typed is dropped
//! (an own answer and a multi-select's typed extras through Back and Change, a
//! conflict's way out, text typed as the time runs out, a stale tab landing on
//! the review). Each new or changed page is checked with axe-core at 1280 px
//! (light and dark) and 390 px, and must not scroll sideways.

mod common;

use common::Scratch;
use common::browser::Browser;
use common::web::{Serve, Web, at, done_text, page_problems, page_text};
use serde_json::json;

/// Whether the input `css` selects is ticked.
fn checked(browser: &Browser, css: &str) -> bool {
    let script = format!("return document.querySelector({css:?}).checked");
    browser.run(&script).as_bool() == Some(true)
}

/// A database (a single choice with "Your own answer") and checks (a
/// multi-select with typed extras), asked in stream `day` as inquiry `d1`.
fn database_and_checks(serve: &mut Serve) {
    serve.send(
        &json!({"type": "ask", "inquiry": "d1", "arguments": {"questions": [
        {"id": "db", "text": "Which database?", "answer_type": "select",
         "options": ["PostgreSQL", "SQLite"], "allow_other": true},
        {"id": "checks", "text": "Which checks?", "answer_type": "multi_select",
         "options": ["lint", "test"], "allow_other": true}]}}),
    );
    serve.next_of("prompt");
}

/// An own answer and a typed extra come back on Back and Change, picked and in
/// their fields, and the model gets exactly them.
#[test]
fn own_text_and_multi_select_extras_come_back_through_back_and_change() {
    let scratch = Scratch::new();
    let db = scratch.db();
    let mut serve = Serve::start(&scratch, &db, "day");
    database_and_checks(&mut serve);
    let web = Web::start(&scratch, &db);
    let browser = Browser::start_with_script();
    browser.go(&web.url);
    browser.go(&format!("http://127.0.0.1:{}/q/day/d1", web.port));
    at(&browser, "[1/2] Which database?");
    browser.click("input[name=answer][value=other]");
    browser.type_into("#other", "DynamoDB");
    browser.click("button[value=answer]");
    at(&browser, "[2/2] Which checks?");
    // Back: the own answer is picked and in its field.
    browser.click("button[value=back]");
    at(&browser, "[1/2] Which database?");
    assert_eq!(browser.value_of("#other"), "DynamoDB");
    assert!(checked(&browser, "input[name=answer][value=other]"));
    let mut problems = page_problems(&browser, "an own answer after Back");
    browser.click("button[value=answer]");
    at(&browser, "[2/2] Which checks?");
    browser.click("#c0");
    browser.type_into("#other", "security scan");
    browser.click("button[value=answer]");
    at(&browser, "Review your answers");
    let review = page_text(&browser, &scratch);
    assert_eq!(
        review,
        "← All questions\nReview your answers for Assistant in <scratch> on laptop\nwaiting N s\nWhich database?\nDynamoDB\nChange\nWhich checks?\nlint, security scan\nChange\nSend these answers\nCtrl\n+\nEnter\nReply to the assistant instead\nEnd the turn"
    );
    // Change the checks: lint ticked, the typed extra in its field.
    browser.click("button[name=change][value=checks]");
    at(&browser, "[2/2] Which checks?");
    assert!(checked(&browser, "#c0"));
    assert!(!checked(&browser, "#c1"));
    assert_eq!(browser.value_of("#other"), "security scan");
    problems.extend(page_problems(&browser, "typed extras after Change"));
    browser.click("button[value=answer]");
    at(&browser, "Review your answers");
    assert_eq!(page_text(&browser, &scratch), review);
    // Change the database: the own answer again.
    browser.click("button[name=change][value=db]");
    at(&browser, "[1/2] Which database?");
    assert_eq!(browser.value_of("#other"), "DynamoDB");
    assert!(checked(&browser, "input[name=answer][value=other]"));
    browser.click("button[value=answer]");
    at(&browser, "Review your answers");
    // Another question waits by now: Done leads to it.
    serve.send(
        &json!({"type": "ask", "inquiry": "d2", "arguments": {"questions": [
        {"id": "ship", "text": "Ship **it**?", "answer_type": "boolean"}]}}),
    );
    serve.next_of("prompt");
    browser.click("button[value=submit]");
    assert_eq!(
        serve.next_of("result"),
        r#"{"type":"result","inquiry":"d1","result":{"db":"DynamoDB","checks":["lint","security scan"]},"cancelled":false}"#
    );
    // Done in words: the answers as labelled lines, then the next question.
    at(&browser, "Done");
    assert_eq!(
        done_text(&browser, &scratch),
        "Done for Assistant in <scratch> on laptop\nAnswered; the assistant got these answers:\nWhich database?\nDynamoDB\nWhich checks?\n\
         lint, security scan\nThe assistant got them at HH:MM.\nNext waiting question: Ship it?\nAll questions"
    );
    problems.extend(page_problems(&browser, "done in words"));
    browser.click("a[href='/q/day/d2']");
    at(&browser, "Ship it?");
    assert_eq!(problems, Vec::<String>::new());
}

/// A question of stream `day` that times out after `after_ms`, doing `then`
/// (`cancel`: the answers so far and a message go; `end_turn`: nothing goes).
fn timing_out(serve: &mut Serve, inquiry: &str, after_ms: u64, then: &str) {
    serve.send(
        &json!({"type": "ask", "inquiry": inquiry, "arguments": {"questions": [
        {"id": "db", "text": "Which database?", "answer_type": "select",
         "options": ["PostgreSQL", "SQLite"], "allow_other": true}]},
        "policy": {"timeout": {"after_ms": after_ms, "on_timeout": then}}}),
    );
    serve.next_of("prompt");
}

/// Text typed as the time runs out is given back on the page the person lands
/// on, ready to copy; a Reply's message goes with a timeout that replies, and
/// is given back when the timeout ends the turn.
#[test]
fn what_was_typed_when_the_time_ran_out_is_given_back_or_sent_as_the_message() {
    let scratch = Scratch::new();
    let db = scratch.db();
    // The browser first: the tests take turns with it, and the time to answer
    // runs from the question.
    let browser = Browser::start_with_script();
    let mut serve = Serve::start(&scratch, &db, "day");
    timing_out(&mut serve, "t1", 10_000, "cancel");
    let web = Web::start(&scratch, &db);
    browser.go(&web.url);
    let base = format!("http://127.0.0.1:{}", web.port);
    browser.go(&format!("{base}/q/day/t1"));
    at(&browser, "Which database?");
    browser.click("input[name=answer][value=other]");
    browser.type_into("#other", "DynamoDB");
    browser.type_into("#note", "after lunch");
    assert_eq!(browser.wait_text(".countdown", "time is up"), "time is up");
    browser.click("button[value=answer]");
    at(&browser, "Done");
    assert_eq!(
        done_text(&browser, &scratch),
        "Done for Assistant in <scratch> on laptop\nThe time to answer ran out before this arrived; nothing you sent was recorded. The time to answer (10 s) ran out; the assistant got no answers.\nThe assistant got it at HH:MM.\nWhat you were typing was not sent; here it is, to copy:\nYour own answer\nDynamoDB\nYour note\nafter lunch\nAll questions"
    );
    assert_eq!(
        [browser.value_of("#unsent-1"), browser.value_of("#unsent-2")],
        ["DynamoDB", "after lunch"]
    );
    let mut problems = page_problems(&browser, "done with what was not sent");
    serve.next_of("result");
    // A Reply sent as the time runs out: its message goes with the timeout.
    timing_out(&mut serve, "t2", 5_000, "cancel");
    browser.go(&format!("{base}/q/day/t2/reply"));
    at(&browser, "Reply to the assistant");
    browser.type_into("#message", "use staging, I am away");
    std::thread::sleep(std::time::Duration::from_millis(5_500));
    browser.click("button[value=reply]");
    at(&browser, "Done");
    assert_eq!(
        done_text(&browser, &scratch),
        "Done for Assistant in <scratch> on laptop\nThe time to answer ran out as this arrived; your message went to the assistant with it. The time to answer (5 s) ran out, with your message “use staging, I am away”; the assistant got no answers.\nThe assistant got it at HH:MM.\nAll questions"
    );
    assert_eq!(
        serve.next_of("result"),
        r#"{"type":"result","inquiry":"t2","result":{"timed_out":true,"answered":{},"filled_by_timeout":{},"message":"The user did not answer in time: the question timed out after 5 seconds. No answer was filled in for the user. Not answered: \"Which database?\". When the time ran out the user was writing this reply to you: use staging, I am away"},"cancelled":false,"timed_out":{"after_ms":5000}}"#
    );
    // A timeout that ends the turn sends no message: it is given back.
    timing_out(&mut serve, "t3", 5_000, "end_turn");
    browser.go(&format!("{base}/q/day/t3/reply"));
    at(&browser, "Reply to the assistant");
    browser.type_into("#message", "use staging, I am away");
    std::thread::sleep(std::time::Duration::from_millis(5_500));
    browser.click("button[value=reply]");
    at(&browser, "Done");
    assert_eq!(
        done_text(&browser, &scratch),
        "Done for Assistant in <scratch> on laptop\nThe time to answer ran out before this arrived; nothing you sent was recorded. The time to answer (5 s) ran out and ended the turn; the assistant got no reply.\nThe turn ended at HH:MM.\nWhat you were typing was not sent; here it is, to copy:\nYour message\nuse staging, I am away\nAll questions"
    );
    assert_eq!(browser.value_of("#unsent-1"), "use staging, I am away");
    problems.extend(page_problems(&browser, "done with a message not sent"));
    assert_eq!(problems, Vec::<String>::new());
}

/// A tab left on a question while another tab answered it lands on the review
/// when it sends, and what it typed is there to copy, as its words say.
#[test]
fn a_stale_tab_landing_on_the_review_gives_back_what_it_typed() {
    let scratch = Scratch::new();
    let db = scratch.db();
    let mut serve = Serve::start(&scratch, &db, "day");
    database_and_checks(&mut serve);
    let web = Web::start(&scratch, &db);
    let browser = Browser::start_with_script();
    browser.go(&web.url);
    let page = format!("http://127.0.0.1:{}/q/day/d1", web.port);
    browser.go(&page);
    at(&browser, "[1/2] Which database?");
    browser.click("#c1");
    browser.click("button[value=answer]");
    at(&browser, "[2/2] Which checks?");
    let first = browser.tab();
    let second = browser.new_tab();
    browser.switch_to(&second);
    browser.go(&page);
    at(&browser, "[2/2] Which checks?");
    browser.click("#c0");
    browser.click("button[value=answer]");
    at(&browser, "Review your answers");
    browser.switch_to(&first);
    browser.type_into("#other", "security scan");
    browser.type_into("#note", "nightly is enough");
    browser.click("button[value=answer]");
    at(&browser, "Review your answers");
    assert_eq!(
        page_text(&browser, &scratch),
        "← All questions\nReview your answers for Assistant in <scratch> on laptop\nwaiting N s\nWhich database?\nSQLite\nChange\nWhich checks?\nlint\nChange\n\
         While this page was open, “Which checks?” was answered elsewhere (in another tab or the terminal): lint. \
         Every question is answered: review the answers below. Nothing you sent was recorded; what you typed is below, to copy.\n\
         Send these answers\nCtrl\n+\nEnter\nWhat you were typing was not sent; here it is, to copy:\n\
         Your own answer\nsecurity scan\nYour note\nnightly is enough\nReply to the assistant instead\nEnd the turn"
    );
    assert_eq!(
        [browser.value_of("#unsent-1"), browser.value_of("#unsent-2")],
        ["security scan", "nightly is enough"]
    );
    let problems = page_problems(&browser, "the review with what was not sent");
    browser.click("button[value=submit]");
    assert_eq!(
        serve.next_of("result"),
        r#"{"type":"result","inquiry":"d1","result":{"db":"SQLite","checks":["lint"]},"cancelled":false}"#
    );
    assert_eq!(problems, Vec::<String>::new());
}

/// The open page says what zero will do beside its countdown and shows the
/// question's header; key hints show only where a keyboard is likely (not on
/// a touch phone); when the time runs out while the person types, the page
/// says so at once, and what they typed stays.
#[test]
fn the_open_page_says_what_zero_does_and_that_the_time_ran_out_the_moment_it_does() {
    let scratch = Scratch::new();
    let db = scratch.db();
    let browser = Browser::start_with_script();
    let mut serve = Serve::start(&scratch, &db, "day");
    serve.send(
        &json!({"type": "ask", "inquiry": "h1", "arguments": {"questions": [
        {"id": "db", "text": "Which database?", "header": "Database", "answer_type": "select",
         "options": ["PostgreSQL", "SQLite"]}]},
        "policy": {"timeout": {"after_ms": 12_000, "on_timeout": "cancel"}}}),
    );
    serve.next_of("prompt");
    let web = Web::start(&scratch, &db);
    browser.go(&web.url);
    browser.go(&format!("http://127.0.0.1:{}/q/day/h1", web.port));
    at(&browser, "Which database?");
    browser.emulate(1280, false);
    assert_eq!(
        page_text(&browser, &scratch),
        "← All questions\nAssistant in <scratch> on laptop asks\nwaiting N s · N s left (at zero, the answers so far are sent, \
         marked as not answered in time)\nDatabase\nWhich database?\nPostgreSQL\n1\nSQLite\n2\n\
         A note for the assistant (optional)\nAnswer\nCtrl\n+\nEnter\nReply to the assistant instead\nEnd the turn"
    );
    let hints = "return getComputedStyle(document.querySelector('.keys')).display";
    assert_eq!(browser.run(hints), "flex");
    browser.emulate(390, false);
    assert_eq!(browser.run(hints), "none");
    browser.emulate(1280, false);
    let problems = page_problems(&browser, "a question with a header and a countdown");
    browser.type_into("#note", "after lunch");
    let ran_out = "The time to answer ran out while this page was open; nothing typed here was \
                   sent, and it stays on this page to copy. Show it now";
    // The time runs out 12 s after the question was asked: wait past it.
    let mut seen = String::new();
    for _ in 0..3 {
        seen = browser.wait_text("#changed", ran_out);
        if seen == ran_out {
            break;
        }
    }
    assert_eq!(seen, ran_out);
    assert_eq!(browser.value_of("#note"), "after lunch");
    assert_eq!(problems, Vec::<String>::new());
}

/// A note written beside an answer, that answer then changed: the page asks
/// whether the note still applies before it goes with the new answer; cleared,
/// the new answer goes without it, and the model gets exactly that.
#[test]
fn a_changed_answer_asks_whether_its_note_still_applies() {
    let scratch = Scratch::new();
    let db = scratch.db();
    let mut serve = Serve::start(&scratch, &db, "day");
    serve.send(
        &json!({"type": "ask", "inquiry": "n1", "arguments": {"questions": [
        {"id": "channel", "text": "Which channel?", "answer_type": "select",
         "options": ["stable", "beta"]},
        {"id": "go", "text": "Go?", "answer_type": "boolean"}]}}),
    );
    serve.next_of("prompt");
    let web = Web::start(&scratch, &db);
    let browser = Browser::start_with_script();
    browser.go(&web.url);
    browser.go(&format!("http://127.0.0.1:{}/q/day/n1", web.port));
    at(&browser, "[1/2] Which channel?");
    browser.click("input[name=answer][value='0']");
    browser.type_into("#note", "stable is fine, changelog merged");
    browser.click("button[value=answer]");
    at(&browser, "[2/2] Go?");
    browser.click("button[value=back]");
    at(&browser, "[1/2] Which channel?");
    assert_eq!(
        browser.value_of("#note"),
        "stable is fine, changelog merged"
    );
    browser.click("input[name=answer][value='1']");
    browser.click("button[value=answer]");
    let asked = "return String(document.body.innerText.includes('Does it still apply'))";
    assert_eq!(browser.wait_script(asked, "true"), "true");
    assert_eq!(
        page_text(&browser, &scratch),
        "← All questions\nAssistant in <scratch> on laptop asks\nwaiting N s\n[1/2] Which channel?\nstable\n1\nbeta\n2\nYour note \"stable is fine, changelog merged\" was written for your earlier answer, stable. Does it still apply to your new answer, beta? Keep it and press Answer again, edit it, or clear it to send the answer without it.\nA note for the assistant (optional)\nAnswer\nCtrl\n+\nEnter\nReply to the assistant instead\nEnd the turn"
    );
    assert!(checked(&browser, "input[name=answer][value='1']"));
    let problems = page_problems(&browser, "the note question");
    browser.run("document.querySelector('#note').value = ''; return true");
    browser.click("button[value=answer]");
    at(&browser, "[2/2] Go?");
    browser.click("input[name=answer][value=true]");
    browser.click("button[value=answer]");
    at(&browser, "Review your answers");
    browser.click("button[value=submit]");
    assert_eq!(
        serve.next_of("result"),
        r#"{"type":"result","inquiry":"n1","result":{"channel":"beta","go":true},"cancelled":false}"#
    );
    assert_eq!(problems, Vec::<String>::new());
}

/// The agent in `shop` (Claude Code) and the one in `billing` (Codex), each
/// with its questions asked: a schema and a yes/no in `shop` (`s1`); two
/// questions (`b1`) and a yes/no (`b2`) in `billing`.
struct TwoAgents {
    shop: Serve,
    billing: Serve,
    web: Web,
    base: String,
}

/// How the pages name the two agents.
const SHOP: &str = "Claude Code in shop on laptop";
const BILLING: &str = "Codex in billing on laptop";

impl TwoAgents {
    fn start(scratch: &Scratch) -> Self {
        let db = scratch.db();
        let (mut shop, shop_stream) = agent_in(scratch, &db, "shop", "Claude Code");
        let (mut billing, billing_stream) = agent_in(scratch, &db, "billing", "Codex");
        assert_eq!(
            [shop_stream.as_str(), billing_stream.as_str()],
            ["shop-1", "billing-1"]
        );
        shop.send(
            &json!({"type": "ask", "inquiry": "s1", "arguments": {"questions": [
            {"id": "deploy", "text": "How should it deploy?", "answer_type": "schema",
             "schema": {"type": "object", "required": ["replicas", "region"], "properties": {
                "replicas": {"type": "integer", "minimum": 1, "title": "Replicas"},
                "region": {"enum": ["eu-west", "us-east"]}}}},
            {"id": "ship", "text": "Ship it?", "answer_type": "boolean"}]}}),
        );
        shop.next_of("prompt");
        billing.send(&json!({"type": "ask", "inquiry": "b1", "arguments": {"questions": [
            {"id": "go", "text": "Run the billing migration?", "answer_type": "boolean"},
            {"id": "when", "text": "When?", "answer_type": "select", "options": ["now", "tonight"]}]}}));
        billing.next_of("prompt");
        billing.send(&json!({"type": "ask", "inquiry": "b2", "dialect": "jp",
            "arguments": {"question": "Rotate the keys?", "answer_type": "boolean"}}));
        billing.next_of("prompt");
        let web = Web::start(scratch, &db);
        let base = format!("http://127.0.0.1:{}", web.port);
        TwoAgents {
            shop,
            billing,
            web,
            base,
        }
    }

    /// Answers `billing`'s `b1` up to its review.
    fn billing_review(&self, browser: &Browser) {
        browser.go(&format!("{}/q/billing-1/b1", self.base));
        at(browser, "[1/2] Run the billing migration?");
        browser.click("input[name=answer][value=true]");
        browser.click("button[value=answer]");
        at(browser, "[2/2] When?");
        browser.click("#c0");
        browser.click("button[value=answer]");
        at(browser, "Review your answers");
    }
}

/// A repository `name` in the scratch directory (a directory holding `.git`),
/// where an agent `host` runs `askuser serve --agent HOST` (no `--stream`):
/// the serve and the stream its `ready` line names.
fn agent_in(scratch: &Scratch, db: &str, name: &str, host: &str) -> (Serve, String) {
    let repo = scratch.path(name);
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    let serve = Serve::start_in(
        &repo,
        scratch.dir.path(),
        &["serve", "--db", db, "--agent", host],
    );
    let ready: serde_json::Value = serde_json::from_str(&serve.ready).unwrap();
    let stream = ready["stream"].as_str().unwrap().to_owned();
    (serve, stream)
}

/// The `datetime` of the first `time` `css` selects.
fn datetime_of(browser: &Browser, css: &str) -> String {
    let script = format!("return document.querySelector({css:?}).getAttribute('datetime')");
    browser.run(&script).as_str().unwrap_or_default().to_owned()
}

/// `shop`'s schema question answered with one wrong field: its error is shown
/// once, beside it; then answered right, and "waiting" still counts from when
/// the agent first asked. The page's problems (axe, sideways scrolling).
fn one_error_beside_its_field(
    browser: &Browser,
    agents: &TwoAgents,
    scratch: &Scratch,
) -> Vec<String> {
    browser.go(&format!("{}/q/shop-1/s1", agents.base));
    at(browser, "[1/2] How should it deploy?");
    assert_eq!(
        browser.title(),
        format!("[1/2] How should it deploy? — {SHOP}")
    );
    let asked_at = datetime_of(browser, ".waited time");
    browser.type_into("#f0", "0");
    browser.run("document.querySelector('#f1').value = '0'; return true");
    browser.click("button[value=answer]");
    let error = browser.wait_text("#f0-error", "0 is less than the minimum of 1");
    assert_eq!(error, "0 is less than the minimum of 1");
    assert_eq!(
        page_text(browser, scratch),
        format!(
            "← All questions\n{SHOP} asks\nwaiting N s\n[1/2] How should it deploy?\n\
             Replicas (required)\n0 is less than the minimum of 1\nregion (required)\n(no answer)\neu-west\nus-east\n\
             A note for the assistant (optional)\nAnswer\nCtrl\n+\nEnter\nReply to the assistant instead\nEnd the turn"
        )
    );
    assert_eq!(
        browser.run("return document.querySelectorAll('.error').length"),
        1
    );
    let problems = page_problems(browser, "a schema answer with one wrong field");
    browser.clear("#f0");
    browser.type_into("#f0", "3");
    browser.click("button[value=answer]");
    at(browser, "[2/2] Ship it?");
    // Waiting counts from the request, not from this step: the same moment.
    assert_eq!(datetime_of(browser, ".waited time"), asked_at);
    problems
}

/// Two agents in two repositories: every page of each names it, in its
/// heading and its title (two review tabs never read the same); a schema
/// answer's error is shown once, beside its field; the review and Done show
/// the schema's answer field by field; Done says when the assistant got the
/// answers, in a `<time>` the script shows in the person's own zone.
#[test]
fn two_agents_are_named_in_every_title_and_done_says_when_field_by_field() {
    let scratch = Scratch::new();
    let agents = TwoAgents::start(&scratch);
    let browser = Browser::start_with_script();
    browser.go(&agents.web.url);
    let base = agents.base.clone();
    let mut problems = one_error_beside_its_field(&browser, &agents, &scratch);
    browser.click("input[name=answer][value=true]");
    browser.click("button[value=answer]");
    at(&browser, "Review your answers");
    let shop_review = browser.title();
    assert_eq!(shop_review, format!("Review your answers — {SHOP}"));
    assert_eq!(
        page_text(&browser, &scratch),
        format!(
            "← All questions\nReview your answers for {SHOP}\nwaiting N s\n\
             How should it deploy?\nReplicas: 3\nregion: eu-west\nChange\nShip it?\nYes\nChange\n\
             Send these answers\nCtrl\n+\nEnter\nReply to the assistant instead\nEnd the turn"
        )
    );
    problems.extend(page_problems(&browser, "a review with a schema's answer"));
    // The Reply page says who asks.
    browser.go(&format!("{base}/q/shop-1/s1/reply"));
    at(&browser, "Reply to the assistant");
    assert_eq!(browser.title(), format!("Reply to the assistant — {SHOP}"));
    assert_eq!(
        browser.text(),
        format!(
            "Reply to {SHOP} instead\nYour message (optional; the answers given so far go with it)\n\
             Send the reply\nCtrl\n+\nEnter\nBack to the question"
        )
    );
    problems.extend(page_problems(&browser, "the reply page"));
    // The other agent's review, in another tab: another title.
    let first = browser.tab();
    browser.switch_to(&browser.new_tab());
    agents.billing_review(&browser);
    assert_eq!(browser.title(), format!("Review your answers — {BILLING}"));
    assert_ne!(browser.title(), shop_review);
    // Done: field by field, and when the assistant got them.
    browser.switch_to(&first);
    browser.go(&format!("{base}/q/shop-1/s1"));
    at(&browser, "Review your answers");
    browser.click("button[value=submit]");
    assert_eq!(
        agents.shop.next_of("result"),
        r#"{"type":"result","inquiry":"s1","result":{"deploy":{"replicas":3,"region":"eu-west"},"ship":true},"cancelled":false}"#
    );
    at(&browser, "Done");
    assert_eq!(browser.title(), format!("Done — {SHOP}"));
    assert_eq!(
        done_text(&browser, &scratch),
        format!(
            "Done for {SHOP}\nAnswered; the assistant got these answers:\nHow should it deploy?\n\
             Replicas: 3\nregion: eu-west\nShip it?\nYes\nThe assistant got them at HH:MM.\n\
             Next waiting question: Rotate the keys?\nAll questions"
        )
    );
    // The time shown is the recorded moment's, in the browser's own zone.
    let local = "var el = document.querySelector('time.clock'); \
                 var at = new Date(el.getAttribute('datetime')); \
                 var two = function (n) { return (n < 10 ? '0' : '') + n; }; \
                 return String(two(at.getHours()) + ':' + two(at.getMinutes()) === el.textContent)";
    assert_eq!(browser.run(local), "true");
    problems.extend(page_problems(
        &browser,
        "done with a schema's answer and its time",
    ));
    assert_eq!(problems, Vec::<String>::new());
}

/// End Turn names the agent; Done tells the tab that ended the turn "in this
/// tab", another tab "in another tab of the web inbox", and a turn the
/// agent's own host ended "in the agent's own window" (the surface the log
/// recorded). The inbox row and the question page count "waiting" from the
/// same moment.
#[test]
fn end_turn_says_which_tab_ended_it_or_where_else_it_was_ended() {
    let scratch = Scratch::new();
    let mut agents = TwoAgents::start(&scratch);
    let browser = Browser::start_with_script();
    browser.go(&agents.web.url);
    let base = agents.base.clone();
    agents.billing_review(&browser);
    browser.go(&format!("{base}/q/billing-1/b1/end"));
    at(&browser, "End the turn?");
    assert_eq!(browser.title(), format!("End the turn? — {BILLING}"));
    assert_eq!(
        browser.text(),
        format!(
            "End the turn of {BILLING}?\nYour answers so far are not sent, and the assistant gets no reply.\n\
             Yes, end the turn\nNo, back to the question"
        )
    );
    let mut problems = page_problems(&browser, "the end turn page");
    browser.click("button[value=end_turn]");
    agents.billing.next_of("turn_ended");
    at(&browser, "Done");
    let ended = |by: &str, next: &str| {
        format!(
            "Done for {BILLING}\n{by}; the assistant got no reply.\nThe turn ended at HH:MM.\n{next}All questions"
        )
    };
    let next = "Next waiting question: Rotate the keys?\n";
    assert_eq!(
        done_text(&browser, &scratch),
        ended("You ended the turn in this tab", next)
    );
    problems.extend(page_problems(
        &browser,
        "done after this tab ended the turn",
    ));
    browser.switch_to(&browser.new_tab());
    browser.go(&format!("{base}/q/billing-1/b1"));
    at(&browser, "Done");
    assert_eq!(
        done_text(&browser, &scratch),
        ended("The turn was ended in another tab of the web inbox", next)
    );
    // The inbox row and the question's page: waiting since the same moment.
    browser.go(&format!("{base}/"));
    at(&browser, "(2) askuser inbox");
    let row = "a[href='/q/billing-1/b2'] + .meta .waited time";
    let row_asked = datetime_of(&browser, row);
    browser.go(&format!("{base}/q/billing-1/b2"));
    at(&browser, "Rotate the keys?");
    assert_eq!(datetime_of(&browser, ".waited time"), row_asked);
    // Ended by the agent's own host, not this inbox.
    agents
        .billing
        .send(&json!({"type": "end_turn", "inquiry": "b2"}));
    agents.billing.next_of("turn_ended");
    browser.go(&format!("{base}/q/billing-1/b2"));
    at(&browser, "Done");
    assert_eq!(
        done_text(&browser, &scratch),
        ended(
            "The turn was ended in the agent's own window",
            "Next waiting question: How should it deploy?\n"
        )
    );
    assert_eq!(problems, Vec::<String>::new());
}
