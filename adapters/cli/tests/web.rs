//! The web inbox with a real browser (headless chromium, JavaScript off, driven
//! over `WebDriver`; see `common/browser.rs`) against the real binaries: an agent
//! asks through `askuser serve`, the person answers in the browser, and `serve`
//! prints the exact result. Also: a typed answer's generated form, Reply with a
//! message, End Turn, a race with `askuser answer`, live updates with JavaScript
//! on, and a stream's history and fork. Every test runs twice: on a sled log and
//! on a fresh PostgreSQL database. What keeps the inbox safe is in
//! `web_safety.rs`.

mod common;

use common::Scratch;
use common::browser::Browser;
use common::place::Place;
use common::web::{Serve, Web, at, done_text, keep_screenshot, masked, migration, page_text};
use serde_json::json;

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
    // Who asks, from where (the agent's working directory, the machine), and
    // that it waits.
    let dir = scratch.dir_name();
    assert_eq!(
        masked(&browser.text()),
        format!(
            "Questions waiting for you\nAssistant\nwaiting now\n{dir} · laptop\n\
             stream agent-1 · started N s ago · history\n\
             [1/3] Apply the proposed migration?\nwaiting N s · call c1"
        )
    );
    keep_screenshot(&browser, "inbox.png");
    browser.click("a[href='/q/agent-1/c1']");
    at(&browser, "[1/3] Apply the proposed migration?");
    browser.click("#c0");
    browser.click("button[value=answer]");
    at(&browser, "[2/3] Which environment?");
    keep_screenshot(&browser, "question.png");
    browser.click("#c1");
    browser.type_into("#note", "after the backup");
    browser.click("button[value=answer]");
    at(&browser, "[3/3] Optional note for the migration log");
    // Back: the environment comes back with its answer.
    browser.click("button[value=back]");
    at(&browser, "[2/3] Which environment?");
    assert!(browser.source().contains("value=\"1\" checked"));
    browser.click("#c0");
    browser.click("button[value=answer]");
    // The note came back beside another answer: asked about once, kept.
    assert_eq!(browser.wait_text("p.error", NOTE_QUESTION), NOTE_QUESTION);
    browser.click("button[value=answer]");
    at(&browser, "[3/3] Optional note for the migration log");
    browser.type_into("#answer", "weekly run");
    browser.click("button[value=answer]");
    at(&browser, "Review your answers");
    assert_eq!(
        page_text(&browser, &scratch),
        "← All questions\nReview your answers for Assistant in <scratch> on laptop\nwaiting N s\nApply the proposed migration?\nYes\nChange\nWhich environment?\nstaging (note: after the backup)\nChange\nOptional note for the migration log\nweekly run\nChange\nSend these answers\nReply to the assistant instead\nEnd the turn"
    );
    keep_screenshot(&browser, "review.png");
    // Change answer 1 of 3 in one step: asked again (its answer checked), then
    // straight back to the review, answers 2 and 3 kept.
    let review = browser.text();
    browser.click("button[name=change][value=apply]");
    at(&browser, "[1/3] Apply the proposed migration?");
    assert!(browser.source().contains("value=\"true\" checked"));
    browser.click("button[value=answer]");
    at(&browser, "Review your answers");
    assert_eq!(masked(&browser.text()), masked(&review));
    browser.click("button[value=submit]");
    assert_eq!(
        serve.next_of("result"),
        r#"{"type":"result","inquiry":"c1","result":{"apply":true,"env":"staging","note":"weekly run","_notes":{"env":"after the backup"}},"cancelled":false}"#
    );
    at(&browser, "Done");
    assert_eq!(
        done_text(&browser, &scratch),
        "Done for Assistant in <scratch> on laptop\nAnswered; the assistant got these answers:\nApply the proposed migration?\nYes\nWhich environment?\nstaging (note: after the backup)\nOptional note for the migration log\nweekly run\nThe assistant got them at HH:MM UTC.\nAll questions"
    );
    keep_screenshot(&browser, "done.png");
    browser.go(&format!("http://127.0.0.1:{}/", web.port));
    assert_eq!(browser.wait_title("askuser inbox"), "askuser inbox");
}

/// What the page asks when the environment's note comes back beside another
/// environment.
const NOTE_QUESTION: &str = "Your note \"after the backup\" was written for your earlier answer, production. Does it still apply to your new answer, staging? Keep it and press Answer again, edit it, or clear it to send the answer without it.";

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
        page_text(&browser, &scratch),
        "← All questions\nAssistant in <scratch> on laptop asks\nwaiting N s\n[1/2] How should it deploy?\nReplicas (required)\nregion (required)\nwhere it runs\n(no answer)\neu-west\nus-east\ncanary\n(no answer)\nYes\nNo\nowner\nA note for the assistant (optional)\nAnswer\nReply to the assistant instead\nEnd the turn"
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
    // Change the first answer from the review in one step: the generated form
    // comes back filled in, and once it is answered the review shows again,
    // the later answer kept.
    browser.click("button[name=change][value=deploy]");
    at(&browser, "[1/2] How should it deploy?");
    let source = browser.source();
    assert!(source.contains("name=\"f0\" value=\"3\""), "{source}");
    assert!(
        source.contains("<option value=\"1\" selected=\"\">us-east</option>"),
        "{source}"
    );
    browser.click("button[value=answer]");
    at(&browser, "Review your answers");
    browser.click("button[value=submit]");
    assert_eq!(
        serve.next_of("result"),
        r#"{"type":"result","inquiry":"t1","result":{"deploy":{"replicas":3,"region":"us-east","canary":true,"owner":"ops team"},"raw":["fast"],"_notes":{"deploy":"first try"}},"cancelled":false}"#
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
    at(&browser, "[1/3] Apply the proposed migration?");
    browser.click("#c0");
    browser.click("button[value=answer]");
    at(&browser, "[2/3] Which environment?");
    browser.click("a[href='/q/s/c1/reply']");
    at(&browser, "Reply to the assistant");
    browser.type_into("#message", "use staging first");
    browser.click("button[value=reply]");
    assert_eq!(
        serve.next_of("result"),
        r#"{"type":"result","inquiry":"c1","result":{"cancelled":true,"answered":{"apply":true},"message":"use staging first"},"cancelled":true}"#
    );

    browser.go(&format!("http://127.0.0.1:{}/q/s/c2/end", web.port));
    at(&browser, "End the turn?");
    browser.click("button[value=end_turn]");
    assert_eq!(
        serve.next_of("turn_ended"),
        r#"{"type":"turn_ended","inquiry":"c2"}"#
    );
    // Done says this tab ended it (the log records no surface; this inbox
    // remembers the turns it ended).
    at(&browser, "Done");
    assert_eq!(
        done_text(&browser, &scratch),
        "Done for Assistant in <scratch> on laptop\nYou ended the turn in this tab; the assistant got no reply.\nThe turn ended at HH:MM UTC.\nNext waiting question: Deploy now?\nAll questions"
    );

    // The page is open; meanwhile the terminal's `serve` host answers first.
    browser.go(&format!("http://127.0.0.1:{}/q/s/c3", web.port));
    at(&browser, "Deploy now?");
    serve.send(&json!({"type": "answer", "inquiry": "c3", "question": "answer", "value": "no"}));
    let first = serve.next_of("result");
    assert_eq!(
        first,
        r#"{"type":"result","inquiry":"c3","result":{"answer_type":"boolean","answer":false},"cancelled":false}"#
    );
    browser.click("#c0");
    browser.click("button[value=answer]");
    at(&browser, "Done");
    assert_eq!(
        done_text(&browser, &scratch),
        "Done for Assistant in <scratch> on laptop\nThis question was already finished (here, in another tab or in the terminal) before this arrived; nothing you sent now was recorded. Answered; the assistant got these answers:\nDeploy now?\nNo\nThe assistant got them at HH:MM UTC.\nAll questions"
    );
    // A link to a question the stream never asked (or answered long ago).
    browser.go(&format!("http://127.0.0.1:{}/q/s/c9", web.port));
    at(&browser, "No such question");
    assert_eq!(
        browser.text(),
        "No such question\nNo question of that name waits in stream s. If it was asked there, it was answered or ended earlier: the stream's history tells how.\nThe stream's history\nAll questions"
    );
}

/// Two tabs and the terminal (the `serve` host) on one inquiry: every action
/// taken on a page that went stale (an answer, Back, a submit) is refused, the
/// page shows what is current with what the person typed kept and a line saying
/// what changed, and the result is exactly what the person meant.
fn two_tabs_and_the_terminal_race_on_one_inquiry(place: &Place) {
    let scratch = Scratch::new();
    let db = place.db(&scratch);
    let mut serve = Serve::start(&scratch, &db, "s");
    serve.send(&migration("c1"));
    serve.next_of("prompt");
    let web = Web::start(&scratch, &db);
    let browser = Browser::start();
    browser.go(&web.url);
    let question = format!("http://127.0.0.1:{}/q/s/c1", web.port);
    let a = browser.tab();
    browser.go(&question);
    at(&browser, "[1/3] Apply the proposed migration?");
    let b = browser.new_tab();

    // The terminal answers the first question while tab A still shows it.
    serve.send(&json!({"type": "answer", "inquiry": "c1", "question": "apply", "value": true}));
    serve.next_of("prompt");
    browser.click("#c1"); // "No", meant for "Apply?"
    browser.type_into("#note", "careful with prod");
    browser.click("button[value=answer]");
    at(&browser, "[2/3] Which environment?");
    assert_eq!(
        page_text(&browser, &scratch),
        "← All questions\nAssistant in <scratch> on laptop asks\nwaiting N s\n[2/3] Which environment?\nstaging\nsafe to try\nproduction\nWhile this page was open, “Apply the proposed migration?” was answered elsewhere (in another tab or the terminal): Yes. It now asks “Which environment?”. Nothing you sent was recorded; what you typed is kept.\nA note for the assistant (optional)\nAnswer\nBack\nReply to the assistant instead\nEnd the turn"
    );
    assert_eq!(browser.value_of("#note"), "careful with prod");
    assert!(
        !browser.source().contains("checked"),
        "no pick carried over"
    );
    browser.click("#c0");
    browser.click("button[value=answer]");
    at(&browser, "[3/3] Optional note for the migration log");

    // Tab B opens the last question; tab A answers it (two lines) and reaches
    // the review; B's Back is then stale.
    browser.switch_to(&b);
    browser.go(&question);
    at(&browser, "[3/3] Optional note for the migration log");
    browser.switch_to(&a);
    browser.type_into("#answer", "weekly\nrun");
    browser.click("button[value=answer]");
    at(&browser, "Review your answers");
    browser.switch_to(&b);
    browser.click("button[value=back]");
    at(&browser, "Review your answers");
    assert_eq!(
        page_text(&browser, &scratch),
        "← All questions\nReview your answers for Assistant in <scratch> on laptop\nwaiting N s\nApply the proposed migration?\nYes\nChange\nWhich environment?\nstaging (note: careful with prod)\nChange\nOptional note for the migration log\nweekly ⏎ run\nChange\nWhile this page was open, “Optional note for the migration log” was answered elsewhere (in another tab or the terminal): weekly ⏎ run. Every question is answered: review the answers below. Nothing you sent was recorded.\nSend these answers\nReply to the assistant instead\nEnd the turn"
    );

    // A changes the last answer from the review; B's Send is then stale.
    browser.switch_to(&a);
    browser.click("button[name=change][value=note]");
    at(&browser, "[3/3] Optional note for the migration log");
    browser.switch_to(&b);
    browser.click("button[value=submit]");
    at(&browser, "[3/3] Optional note for the migration log");
    assert_eq!(
        page_text(&browser, &scratch),
        "← All questions\nAssistant in <scratch> on laptop asks\nwaiting N s\n[3/3] Optional note for the migration log\nYour answer\nweekly\nrun\nWhile this page was open, the answers under review changed elsewhere (in another tab or the terminal). It now asks “Optional note for the migration log”. Nothing you sent was recorded.\nA note for the assistant (optional)\nAnswer\nBack\nReply to the assistant instead\nEnd the turn"
    );
    assert_eq!(browser.value_of("#answer"), "weekly\nrun");
    browser.click("button[value=answer]");
    at(&browser, "Review your answers");
    browser.click("button[value=submit]");
    assert_eq!(
        serve.next_of("result"),
        r#"{"type":"result","inquiry":"c1","result":{"apply":true,"env":"staging","note":"weekly\nrun","_notes":{"env":"careful with prod"}},"cancelled":false}"#
    );
    at(&browser, "Done");
    // Tab A, still on the question B just answered, is told it finished.
    browser.switch_to(&a);
    browser.type_into("#answer", " again");
    browser.click("button[value=answer]");
    at(&browser, "Done");
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
        "1\nDeploy now?\nwaiting N s · N min left · call t1"
    );
    // Times read as ages, with the exact moment in the person's time zone.
    assert_eq!(
        browser.wait_script(
            "var t = document.querySelector('li time.for'); var at = t && t.getAttribute('datetime');\
             return at && /^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z$/.test(at)\
               && t.title === new Date(at).toLocaleString() ? 'local' : 'not yet';",
            "local"
        ),
        "local"
    );
    // Its shortcut, 1, opens the first question.
    browser.type_into("body", "1");
    at(&browser, "Deploy now?");
    // The countdown runs each second (from 10 min: 9 min … left).
    assert_eq!(browser.wait_text(".countdown", "9 min left"), "9 min left");
    // The agent's host answers first: the open page is told, not changed.
    serve.send(&json!({"type": "answer", "inquiry": "t1", "question": "answer", "value": true}));
    serve.next_of("result");
    assert_eq!(
        browser.wait_text(
            "#changed",
            "While this page was open, this question ended elsewhere (in another tab or the terminal): answered. Show it now"
        ),
        "While this page was open, this question ended elsewhere (in another tab or the terminal): answered. Show it now"
    );
    browser.click("#changed a");
    at(&browser, "Done");
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
    at(&browser, "[2/3] Which environment?");
    browser.click("button[value=back]");
    at(&browser, "[1/3] Apply the proposed migration?");
    browser.click("#c0");
    browser.click("button[value=answer]");
    at(&browser, "[2/3] Which environment?");
    browser.click("#c1");
    browser.click("button[value=answer]");
    at(&browser, "[3/3] Optional note for the migration log");
    browser.go(&format!("{base}/q/h/c1/reply"));
    browser.type_into("#message", "wait, production needs a ticket");
    browser.click("button[value=reply]");
    serve.next_of("result");
    browser.go(&format!("{base}/s/h"));
    at(&browser, "History of h");
    let dir = scratch.dir_name();
    assert_eq!(
        masked(&browser.text()),
        format!(
            "← All questions\nConversation h\n1 inquiry · 9 events · started N s ago\nTranscript\nExport (JSON lines)\n\
             N s ago {dir} · laptop started waiting\n\
             Apply the proposed migration?\nAsked N s ago · 3 questions · call c1\n\
             Apply the proposed migration? Yes\n\
             Went back from Which environment?\n\
             Apply the proposed migration? Yes\n\
             Which environment? production\n\
             Ended N s ago: you replied instead: “wait, production needs a ticket”; with these answers:\n\
             Apply the proposed migration? Yes\n\
             Which environment? production\n\
             Answer again from here…"
        )
    );
    browser.click("a[href='/s/h/transcript']");
    assert_eq!(
        browser.text(),
        format!("{dir} · laptop started waiting.\n\n")
            + "Asked \"Apply the proposed migration?\"; the answer was Yes.\nAsked \"Which environment?\"; the answer was production.\nThe user chose to reply instead of answering \"Optional note for the migration log\".\nThe user replied: wait, production needs a ticket\nThe user went back from \"Which environment?\"."
    );
    answer_again_in_a_branch(&browser, &base, &scratch);
}

/// From the history of `h`, answers its migration again from the inquiry's
/// start: a page that asks first, then a fork (`h.fork-2`), the original kept.
fn answer_again_in_a_branch(browser: &Browser, base: &str, scratch: &Scratch) {
    browser.go(&format!("{base}/s/h"));
    browser.click("#i-c1 .fork a");
    at(browser, "Answer again from here?");
    browser.click("button.primary");
    at(browser, "[1/3] Apply the proposed migration?");
    browser.click("#c0");
    browser.click("button[value=answer]");
    at(browser, "[2/3] Which environment?");
    browser.click("#c0");
    browser.click("button[value=answer]");
    at(browser, "[3/3] Optional note for the migration log");
    browser.type_into("#answer", "staging first");
    browser.click("button[value=answer]");
    at(browser, "Review your answers");
    browser.click("button[value=submit]");
    at(browser, "Done");
    assert_eq!(
        done_text(browser, scratch),
        "Done for Assistant in <scratch> on laptop\nAnswered in a fork. Nobody waits on a fork, so no agent got this; the fork's history keeps these answers:\nApply the proposed migration?\nYes\nWhich environment?\nstaging\nOptional note for the migration log\nstaging first\nIt finished at HH:MM UTC.\nAll questions"
    );
    browser.go(&format!("{base}/s/h.fork-2"));
    assert_eq!(
        masked(&browser.text()).lines().take(6).collect::<Vec<_>>(),
        [
            "← All questions",
            "Conversation h.fork-2",
            "1 inquiry · 7 events · started N s ago",
            "Transcript",
            "Export (JSON lines)",
            "A branch of h from after its event #2."
        ]
    );
}

/// A question written in Markdown, as models write them: its context's fenced
/// block is preformatted text, a `<script>` inside it (and raw HTML outside
/// it) shown as text, emphasis and code as such, and a `javascript:` link
/// not a link at all.
fn a_markdown_question_shows_its_fenced_block_and_a_script_in_it_as_text(place: &Place) {
    let scratch = Scratch::new();
    let db = place.db(&scratch);
    let mut serve = Serve::start(&scratch, &db, "md");
    serve.send(
        &json!({"type": "ask", "inquiry": "g1", "arguments": {"questions": [
        {"id": "write", "text": "Write `config.json` with **these** settings?",
         "context": "The file:\n\n```json\n{\"debug\": true}\n<script>alert(1)</script>\n```\n\n\
                     Also <b>raw</b> HTML and [a link](javascript:alert(1)).",
         "answer_type": "boolean"}]}}),
    );
    serve.next_of("prompt");
    let web = Web::start(&scratch, &db);
    let browser = Browser::start_with_script();
    browser.go(&web.url);
    browser.go(&format!("http://127.0.0.1:{}/q/md/g1", web.port));
    at(&browser, "Write config.json with these settings?");
    assert_eq!(
        browser.run("return document.querySelector('.context').innerHTML"),
        json!(
            "<p>The file:</p><pre><code>{\"debug\": true}\n&lt;script&gt;alert(1)&lt;/script&gt;\n</code></pre>\
               <p>Also &lt;b&gt;raw&lt;/b&gt; HTML and a link (javascript:alert(1)).</p>"
        )
    );
    assert_eq!(
        browser.text_of(".context pre"),
        "{\"debug\": true}\n<script>alert(1)</script>"
    );
    assert_eq!(
        browser.run("return document.querySelector('legend').innerHTML"),
        json!("Write <code>config.json</code> with <strong>these</strong> settings?")
    );
    assert_eq!(
        browser.run("return document.querySelectorAll('main script, main b, main a[href^=javascript]').length"),
        json!(0)
    );
    // The shortcuts, shown beside their controls: 1-9 pick an option (the
    // first is focused), Ctrl+Enter answers.
    assert_eq!(
        browser.run(
            "return Array.from(document.querySelectorAll('.keys')).map(function (k) {\
               return getComputedStyle(k).display + ' ' + k.textContent; }).join(', ')"
        ),
        json!("flex 1, flex 2, flex Ctrl+Enter")
    );
    assert_eq!(browser.run("return document.activeElement.id"), json!("c0"));
    browser.type_into("#c0", "2");
    assert_eq!(
        browser.run("return document.querySelector('input:checked').id"),
        json!("c1")
    );
    browser.type_into("#c1", "1");
    assert_eq!(
        browser.run("return document.querySelector('input:checked').id"),
        json!("c0")
    );
    browser.type_into("#c0", "\u{E009}\u{E007}");
    // One question: sent with its answer; Done lists it, Markdown rendered.
    at(&browser, "Done");
    assert_eq!(
        browser.run("return document.querySelector('dt').innerHTML"),
        json!("Write <code>config.json</code> with <strong>these</strong> settings?")
    );
    assert_eq!(
        serve.next_of("result"),
        r#"{"type":"result","inquiry":"g1","result":{"write":true},"cancelled":false}"#
    );
}

/// "Other" typed beside a picked option: the page asks which one the person
/// meant and records nothing, the pick and the text kept; clearing the text
/// sends the option, and picking "Your own answer" sends what they typed.
fn other_typed_beside_a_picked_option_asks_which_was_meant(place: &Place) {
    let scratch = Scratch::new();
    let db = place.db(&scratch);
    let mut serve = Serve::start(&scratch, &db, "db");
    serve.send(
        &json!({"type": "ask", "inquiry": "o1", "arguments": {"questions": [
        {"id": "db", "text": "Which database?", "answer_type": "select",
         "options": ["PostgreSQL", "SQLite"], "allow_other": true}]}}),
    );
    serve.next_of("prompt");
    let web = Web::start(&scratch, &db);
    let browser = Browser::start();
    browser.go(&web.url);
    browser.go(&format!("http://127.0.0.1:{}/q/db/o1", web.port));
    at(&browser, "Which database?");
    browser.click("#c0");
    browser.type_into("#other", "DynamoDB");
    browser.click("button[value=answer]");
    assert_eq!(
        browser.wait_text(
            ".error",
            "You picked “PostgreSQL” and also typed “DynamoDB” as your own answer: which did \
             you mean? Pick “Your own answer” to send what you typed, or clear it to send \
             “PostgreSQL”"
        ),
        "You picked “PostgreSQL” and also typed “DynamoDB” as your own answer: which did \
         you mean? Pick “Your own answer” to send what you typed, or clear it to send \
         “PostgreSQL”"
    );
    assert_eq!(browser.value_of("#other"), "DynamoDB");
    // The pick is kept too, so the way the message names works: clearing the
    // text sends the picked option.
    assert!(browser.source().contains("value=\"0\" checked"));
    browser.clear("#other");
    // One question: sent with its answer, no review.
    browser.click("button[value=answer]");
    at(&browser, "Done");
    assert_eq!(
        serve.next_of("result"),
        r#"{"type":"result","inquiry":"o1","result":{"db":"PostgreSQL"},"cancelled":false}"#
    );
    // Asked again: picking the own answer sends what was typed.
    serve.send(
        &json!({"type": "ask", "inquiry": "o2", "arguments": {"questions": [
        {"id": "db", "text": "Which database?", "answer_type": "select",
         "options": ["PostgreSQL", "SQLite"], "allow_other": true}]}}),
    );
    serve.next_of("prompt");
    browser.go(&format!("http://127.0.0.1:{}/q/db/o2", web.port));
    at(&browser, "Which database?");
    browser.type_into("#other", "DynamoDB");
    browser.click("input[name=answer][value=other]");
    browser.click("button[value=answer]");
    at(&browser, "Done");
    assert_eq!(
        serve.next_of("result"),
        r#"{"type":"result","inquiry":"o2","result":{"db":"DynamoDB"},"cancelled":false}"#
    );
}

#[test]
fn other_typed_beside_a_picked_option_asks_which_was_meant_on_sled() {
    other_typed_beside_a_picked_option_asks_which_was_meant(&Place::Sled);
}

#[test]
fn other_typed_beside_a_picked_option_asks_which_was_meant_on_postgres() {
    other_typed_beside_a_picked_option_asks_which_was_meant(&Place::postgres());
}

/// The inbox with two agents and a question, at 1280 px and on a 390 px phone,
/// light and dark: nothing wider than the screen (no sideways scrolling), and
/// the screenshots docs/web.md shows (saved when `ASKUSER_SCREENSHOTS` is set).
#[test]
fn the_inbox_and_a_question_fit_a_phone_and_a_desktop_in_both_themes() {
    let scratch = Scratch::new();
    let db = scratch.db();
    // Two agents, each in its repository: streams named after them.
    let start = |repo: &str, agent: &str, stream: &str| {
        let dir = scratch.path(repo);
        std::fs::create_dir_all(dir.join(".git")).unwrap();
        let args = ["serve", "--db", &db, "--agent", agent, "--stream", stream];
        Serve::start_in(&dir, scratch.dir.path(), &args)
    };
    let mut billing = start("billing-api", "Claude Code", "billing-api-1");
    billing.send(&json!({"type": "ask", "inquiry": "toolu_B1", "arguments": {"questions": [
        {"id": "env", "text": "Deploy the **billing** migration to which environment?",
         "context": "The migration adds `invoices.due_at`:\n\n```sql\nALTER TABLE invoices ADD COLUMN due_at timestamptz;\n```\n\nIt takes about 2 minutes on production.",
         "answer_type": "select", "allow_other": true,
         "options": [{"label": "staging", "description": "safe to try; *reset nightly*"},
                     {"label": "production", "description": "needs the on-call's OK"}]},
        {"id": "notify", "text": "Tell the team on Slack?", "answer_type": "boolean"}]},
        "policy": {"label": "Claude Code (billing-api)",
                   "timeout": {"after_ms": 900_000, "on_timeout": "cancel"}}}));
    billing.next_of("prompt");
    let mut docs = start("docs-site", "Gemini CLI", "docs-site-1");
    docs.send(&json!({"type": "ask", "inquiry": "call-7", "dialect": "jp",
        "arguments": {"question": "Publish the `v2` docs now?", "answer_type": "boolean"},
        "policy": {"label": "Gemini CLI (docs-site)"}}));
    docs.next_of("prompt");
    let web = Web::start(&scratch, &db);
    let browser = Browser::start_with_script();
    browser.go(&web.url);
    at(&browser, "(2) askuser inbox");
    let base = format!("http://127.0.0.1:{}", web.port);
    let mut wide = Vec::new();
    for (page, path) in [("inbox", "/"), ("question", "/q/billing-api-1/toolu_B1")] {
        browser.go(&format!("{base}{path}"));
        for (width, dark) in [(1280, false), (1280, true), (390, false), (390, true)] {
            browser.emulate(width, dark);
            let scroll = browser.run("return document.documentElement.scrollWidth");
            if scroll.as_u64() > Some(u64::from(width)) {
                wide.push(format!("{page} at {width} px: {scroll} px wide"));
            }
            let theme = if dark { "dark" } else { "light" };
            keep_screenshot(&browser, &format!("{page}-{width}-{theme}.png"));
        }
        browser.emulate(1280, false);
    }
    assert_eq!(wide, Vec::<String>::new());
}

#[test]
fn a_markdown_question_shows_its_fenced_block_and_a_script_in_it_as_text_on_sled() {
    a_markdown_question_shows_its_fenced_block_and_a_script_in_it_as_text(&Place::Sled);
}

#[test]
fn a_markdown_question_shows_its_fenced_block_and_a_script_in_it_as_text_on_postgres() {
    a_markdown_question_shows_its_fenced_block_and_a_script_in_it_as_text(&Place::postgres());
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
fn two_tabs_and_the_terminal_race_on_one_inquiry_on_sled() {
    two_tabs_and_the_terminal_race_on_one_inquiry(&Place::Sled);
}

#[test]
fn two_tabs_and_the_terminal_race_on_one_inquiry_on_postgres() {
    two_tabs_and_the_terminal_race_on_one_inquiry(&Place::postgres());
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

/// With 55 questions open the inbox lists 50, says how many more wait, and its
/// link opens the page of the other 5, which links back (Debian chromium, the
/// whole text of both pages).
#[test]
fn fifty_five_questions_open_are_listed_fifty_a_page_with_how_many_more_wait() {
    let scratch = Scratch::new();
    let db = scratch.db();
    let mut serve = Serve::start(&scratch, &db, "s");
    for n in 1..=55 {
        serve.send(
            &json!({"type": "ask", "inquiry": format!("t{n:02}"), "dialect": "jp",
            "arguments": {"question": format!("Question {n}?"), "answer_type": "boolean"}}),
        );
        serve.next_of("prompt");
    }
    let web = Web::start(&scratch, &db);
    let browser = Browser::start();
    browser.go(&web.url);
    at(&browser, "(55) askuser inbox");
    let head = "Questions waiting for you\nAssistant\nwaiting now\n<scratch> · laptop\nstream s · started N s ago · history\n";
    let lines = |from: usize, to: usize| -> String {
        (from..=to)
            .map(|n| format!("Question {n}?\nwaiting N s · call t{n:02}\n"))
            .collect::<Vec<_>>()
            .concat()
    };
    let text = || masked(&browser.text()).replace(&scratch.dir_name(), "<scratch>");
    assert_eq!(
        text(),
        format!("{head}{}5 more waiting · older questions", lines(1, 50))
    );
    browser.click("p.pages a");
    at(&browser, "(55) askuser inbox");
    assert_eq!(
        text(),
        format!(
            "Questions waiting for you\nQuestions 51–55 of 55 · newer questions\n{}",
            (head
                .strip_prefix("Questions waiting for you\n")
                .unwrap_or(head)
                .to_owned()
                + &lines(51, 55))
                .trim_end()
        )
    );
    browser.click("p.pages a");
    at(&browser, "(55) askuser inbox");
    assert!(text().ends_with("5 more waiting · older questions"));
}
