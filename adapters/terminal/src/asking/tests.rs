//! One prompt driven key by key, its frames asserted whole (on a 60×22 screen).

use askuser_core::{Input, InquiryId, Policy, Request, State, parse_form, reduce};
use serde_json::{Value, json};

use super::*;

const WIDTH: usize = 60;
const HEIGHT: usize = 22;

/// The prompt for question `at` of `arguments`, after `answers` (in order).
fn prompt_at(arguments: &Value, answers: &[Value]) -> Prompt {
    let form = parse_form(arguments).unwrap();
    let mut state = State::new();
    let mut commands = reduce(
        &mut state,
        &Input::Ask(Request {
            inquiry: InquiryId::new("c"),
            form: form.form().clone(),
            policy: Policy::default(),
            origin: askuser_core::Origin::default(),
            call: None,
        }),
    )
    .unwrap();
    for value in answers {
        let Some(Command::Prompt(prompt)) = commands.first() else {
            panic!("a prompt")
        };
        commands = reduce(&mut state, &Action::Answer(value.clone()).to_input(prompt)).unwrap();
    }
    match commands.into_iter().next() {
        Some(Command::Prompt(prompt)) => prompt,
        other => panic!("expected a prompt, got {other:?}"),
    }
}

use askuser_core::Command;

/// Drives the prompt with `keys`; the last frame's rows, and how it ended.
fn drive(prompt: &Prompt, settings: &Settings, keys: &[Key]) -> (Vec<String>, Option<Done>) {
    let mut asking = Asking::question(prompt, settings);
    let mut view = View::Question;
    for &key in keys {
        let (next, done) = asking.step(view, key);
        if let Some(done) = done {
            let done = asking.with_note(done);
            return (vec![asking.summary(&done)], Some(done));
        }
        view = next;
    }
    (asking.frame(&view, WIDTH, HEIGHT).rows, None)
}

fn typed(text: &str) -> Vec<Key> {
    text.chars().map(Key::Char).collect()
}

fn migration() -> Value {
    json!({"questions": [
        {"id": "apply", "text": "Apply the proposed migration?", "answer_type": "boolean"},
        {"id": "env", "text": "Which environment?", "answer_type": "select",
         "options": ["staging", "production"], "allow_other": true},
        {"id": "note", "text": "Optional note", "answer_type": "text"}]})
}

#[test]
fn uppercase_remembers_only_when_allowed() {
    let prompt = prompt_at(&migration(), &[]);
    let remembering = Settings {
        remember: true,
        ..Settings::default()
    };
    let (rows, _) = drive(&prompt, &remembering, &[]);
    assert_eq!(
        rows,
        [
            "? [1/3] Assistant asks: Apply the proposed migration?",
            "  y) Yes",
            "  n) No",
            "[y Yes · n No · Y or N also remembers it for this turn ·",
            "Alt+N note · Esc for Reply / End Turn]",
        ]
    );
    let (summary, done) = drive(&prompt, &remembering, &[Key::Char('N')]);
    assert_eq!(done, Some(Done::Act(Action::Remember(json!(false)))));
    assert_eq!(
        summary,
        ["> [1/3] Assistant asks: Apply the proposed migration? No (remembered for this turn)"]
    );
    let (_, done) = drive(&prompt, &Settings::default(), &[Key::Char('N')]);
    assert_eq!(done, Some(Done::Act(Action::Answer(json!(false)))));
}

#[test]
fn a_yes_no_without_a_default_needs_y_or_n() {
    let prompt = prompt_at(&migration(), &[]);
    let settings = Settings::default();
    let (rows, done) = drive(&prompt, &settings, &[Key::Enter]);
    assert_eq!(done, None);
    assert_eq!(
        rows,
        [
            "? [1/3] Assistant asks: Apply the proposed migration?",
            "  y) Yes",
            "  n) No",
            "✗ this question has no default: press y for Yes or n for No",
            "(or ↑↓ then Enter)",
            "[y Yes · n No · ↑↓ and Enter · Alt+N note · Esc for Reply /",
            "End Turn]",
        ]
    );
    let (_, done) = drive(&prompt, &settings, &[Key::Up, Key::Enter]);
    assert_eq!(done, Some(Done::Act(Action::Answer(json!(false)))));
    let (_, done) = drive(&prompt, &settings, &[Key::Enter, Key::Char('y')]);
    assert_eq!(done, Some(Done::Act(Action::Answer(json!(true)))));
    // With a default, Enter takes it.
    let mut form = migration();
    form["questions"][0]["default"] = json!(false);
    let prompt = prompt_at(&form, &[]);
    let (_, done) = drive(&prompt, &settings, &[Key::Enter]);
    assert_eq!(done, Some(Done::Act(Action::Answer(json!(false)))));
}

#[test]
fn other_takes_the_filter_text_and_esc_keeps_what_was_typed() {
    let prompt = prompt_at(&migration(), &[json!(true)]);
    let settings = Settings::default();
    let mut keys = typed("dev");
    keys.push(Key::Enter);
    let (rows, _) = drive(&prompt, &settings, &keys);
    assert_eq!(
        rows,
        [
            "? [2/3] Assistant asks: Which environment? (Other)",
            "> dev",
            "[Enter sends · Esc returns to the options]",
        ]
    );
    keys.extend([Key::Char('2'), Key::Esc, Key::Enter]);
    let (rows, _) = drive(&prompt, &settings, &keys);
    assert_eq!(rows[1], "> dev2");
    keys.push(Key::Enter);
    let (summary, done) = drive(&prompt, &settings, &keys);
    assert_eq!(done, Some(Done::Act(Action::Answer(json!("dev2")))));
    assert_eq!(summary, ["> [2/3] Assistant asks: Which environment? dev2"]);
}

#[test]
fn the_menu_reply_and_end_turn_views() {
    let prompt = prompt_at(&migration(), &[json!(true), json!("staging")]);
    let settings = Settings {
        editor: Some("vi".into()),
        ..Settings::default()
    };
    let mut keys = typed("half");
    keys.push(Key::Esc);
    let (rows, _) = drive(&prompt, &settings, &keys);
    assert_eq!(
        rows,
        [
            "? [3/3] Assistant asks: Optional note — what now?",
            "> k) Keep answering",
            "  n) Add a note to the answer",
            "  e) Edit the answer in vi",
            "  b) Back to the previous question",
            "  r) Reply to the assistant instead",
            "  s) End the turn",
            "[a letter or ↑↓ chooses, Enter does it · typing goes back to",
            "the answer · Esc returns]",
        ]
    );
    // Esc on the menu: back to the question as it was.
    let mut back = keys.clone();
    back.push(Key::Esc);
    assert_eq!(drive(&prompt, &settings, &back).0[1], "> half");
    // A letter only highlights; typing on goes back to the answer with it.
    let mut typing_on = keys.clone();
    typing_on.extend(typed("ro"));
    assert_eq!(drive(&prompt, &settings, &typing_on).0[1], "> halfro");
    let mut reply = keys.clone();
    reply.extend([Key::Char('r'), Key::Enter]);
    reply.extend(typed("later"));
    let (rows, _) = drive(&prompt, &settings, &reply);
    assert_eq!(
        rows,
        [
            "? Reply to the assistant instead of answering",
            "> later",
            "⚠ What you typed for this question is not sent; Esc goes",
            "back to it.",
            "[a message is optional · Enter sends it with the answers so",
            "far · Esc returns to the question]",
        ]
    );
    reply.push(Key::Enter);
    let (summary, done) = drive(&prompt, &settings, &reply);
    assert_eq!(
        done,
        Some(Done::Act(Action::Reply {
            message: Some("later".into())
        }))
    );
    assert_eq!(
        summary,
        [
            "> [3/3] Assistant asks: Optional note ↩ Reply to the assistant, with the answers given: later"
        ]
    );
    let mut end = keys;
    end.extend([Key::Char('s'), Key::Enter, Key::Char('n'), Key::Enter]);
    assert_eq!(drive(&prompt, &settings, &end).0[1], "> half");
    // `y` alone only highlights "Yes, end the turn".
    end.extend([Key::Esc, Key::Char('s'), Key::Enter, Key::Char('y')]);
    assert_eq!(drive(&prompt, &settings, &end).1, None);
    end.push(Key::Enter);
    assert_eq!(
        drive(&prompt, &settings, &end).1,
        Some(Done::Act(Action::EndTurn))
    );
}

#[test]
fn end_turn_with_nothing_to_lose_asks_nothing() {
    let prompt = prompt_at(&migration(), &[]);
    let (_, done) = drive(
        &prompt,
        &Settings::default(),
        &[Key::Esc, Key::Char('s'), Key::Enter],
    );
    assert_eq!(done, Some(Done::Act(Action::EndTurn)));
    // Esc then `system`: the menu closes at `y` and the keys go to the answer.
    let text = prompt_at(
        &json!({"questions": [{"id": "w", "text": "Which?", "answer_type": "text"}]}),
        &[],
    );
    let mut keys = vec![Key::Esc];
    keys.extend(typed("system"));
    let (rows, done) = drive(&text, &Settings::default(), &keys);
    assert_eq!(done, None);
    assert_eq!(rows[1], "> system");
}

#[test]
fn a_multi_select_with_other_asks_for_the_text_when_sent() {
    let arguments = json!({"questions": [{"id": "f", "text": "Which?",
        "answer_type": "multi_select", "options": ["auth", "api"], "allow_other": true,
        "default": ["api", "cli"]}]});
    let prompt = prompt_at(&arguments, &[]);
    let (rows, _) = drive(&prompt, &Settings::default(), &[Key::Char('1')]);
    assert_eq!(
        rows,
        [
            "? Assistant asks: Which?",
            "> [x] 1) auth",
            "  [x] 2) api",
            "  [x] 0) Other (type your answer)",
            "  3 ticked",
            "[Space or 1-2 tick · 0 Other · Ctrl+A all · Ctrl+D none ·",
            "type to filter · Enter sends · Alt+N note · Esc for Reply /",
            "End Turn]",
        ]
    );
    let (rows, _) = drive(&prompt, &Settings::default(), &[Key::Enter]);
    assert_eq!(rows[1], "> cli");
    let (_, done) = drive(
        &prompt,
        &Settings::default(),
        &[Key::Char('1'), Key::Enter, Key::Enter],
    );
    assert_eq!(
        done,
        Some(Done::Act(Action::Answer(json!(["auth", "api", "cli"]))))
    );
}

#[test]
fn a_long_answer_asks_before_it_is_sent() {
    let prompt = prompt_at(&migration(), &[json!(true), json!("staging")]);
    let mut keys = typed(&"x".repeat(2_001));
    keys.push(Key::Enter);
    let (rows, _) = drive(&prompt, &Settings::default(), &keys);
    assert_eq!(
        rows,
        [
            "⚠ This answer is 2001 characters long (more than 2000); the",
            "assistant may not need that much.",
            "? Send it anyway? (y sends, n or Esc edits it)",
        ]
    );
    keys.push(Key::Char('y'));
    let (summary, _) = drive(&prompt, &Settings::default(), &keys);
    assert_eq!(
        summary,
        [format!(
            "> [3/3] Assistant asks: Optional note {}… (2001 characters)",
            "x".repeat(200)
        )]
    );
}

#[test]
fn a_tall_answer_shows_the_rows_around_the_cursor() {
    let prompt = prompt_at(&migration(), &[json!(true), json!("staging")]);
    let mut keys = Vec::new();
    for line in 0..30 {
        keys.extend(typed(&format!("line {line}")));
        keys.push(Key::AltEnter);
    }
    let (rows, _) = drive(&prompt, &Settings::default(), &keys);
    assert_eq!(rows.len(), HEIGHT - 1);
    assert_eq!(rows[0], "? [3/3] Assistant asks: Optional note");
    assert_eq!(rows[1], "  line 13");
    assert_eq!(rows[HEIGHT - 5], "  line 29");
    assert_eq!(rows[HEIGHT - 4], "  ");
}

#[test]
fn the_review_changes_only_answers_the_person_gave() {
    let arguments = json!({"questions": [
        {"id": "apply", "text": "Apply?", "answer_type": "boolean"},
        {"id": "env", "text": "Where?", "answer_type": "select",
         "options": ["staging", "production"], "when": {"question_id": "apply", "equals": true}},
        {"id": "note", "text": "Note?", "answer_type": "text"}]});
    let prompt = prompt_at(&arguments, &[json!(false)]);
    let form = prompt.form.clone();
    let slot = |value: Value, by: AnsweredBy| {
        Some(askuser_core::Slot {
            answer: form.check(0, &value).unwrap(),
            by,
            note: None,
        })
    };
    let outcome = Outcome {
        answers: vec![slot(json!(false), AnsweredBy::User), None, None].into(),
        form: form.clone(),
        status: askuser_core::OutcomeStatus::Completed,
        message: None,
    };
    let settings = Settings::default();
    let list = List::new(menu::review_entries(&outcome), Mode::Menu, 0, &[]);
    let mut asking = Asking::new(&prompt, &settings, Body::Review(list, outcome.clone()));
    assert_eq!(
        asking.frame(&View::Question, WIDTH, HEIGHT).rows,
        [
            "? Review your answers",
            "> Submit these answers",
            "  1) Apply? — No",
            "  2) Where? — (skipped)",
            "  3) Note? — (skipped)",
            "[Enter submits · 1-3 change that answer · Esc for Reply /",
            "End Turn]",
        ]
    );
    let (_, done) = asking.step(View::Question, Key::Char('2'));
    assert_eq!(done, None);
    assert_eq!(
        asking.frame(&View::Question, WIDTH, HEIGHT).rows[5],
        "✗ question 2 was not asked; change the answer it depends on"
    );
    let (_, done) = asking.step(View::Question, Key::Char('1'));
    assert_eq!(done, Some(Done::Change(0)));
    let mut configured = outcome;
    let mut answers = configured.answers.to_vec();
    answers[0] = slot(json!(false), AnsweredBy::Config);
    configured.answers = answers.into();
    let list = List::new(menu::review_entries(&configured), Mode::Menu, 0, &[]);
    let mut asking = Asking::new(&prompt, &settings, Body::Review(list, configured));
    assert_eq!(asking.step(View::Question, Key::Char('1')).1, None);
    let (_, done) = asking.step(View::Question, Key::Enter);
    assert_eq!(done, Some(Done::Submit));
}

#[test]
fn the_countdown_line_says_what_happens_then() {
    let prompt = prompt_at(&migration(), &[]);
    let settings = Settings {
        timeout: Some(Timeout {
            after: std::time::Duration::from_secs(60),
            then: render::on_timeout(askuser_core::OnTimeout::Cancel),
        }),
        ..Settings::default()
    };
    let mut asking = Asking::question(&prompt, &settings);
    asking.left = Some(15);
    assert_eq!(
        asking.frame(&View::Question, WIDTH, HEIGHT).rows,
        [
            "? [1/3] Assistant asks: Apply the proposed migration?",
            "  y) Yes",
            "  n) No",
            "[y Yes · n No · ↑↓ and Enter · Alt+N note · Esc for Reply /",
            "End Turn]",
            "⏳ ⚠ 15 s left to answer; then the answers so far are sent,",
            "marked as not answered in time.",
        ]
    );
    assert_eq!(
        asking.summary(&Done::TimedOut(None)),
        "⏱ [1/3] Assistant asks: Apply the proposed migration?: no answer in time"
    );
}

#[test]
fn a_note_shows_as_attached_before_the_answer_is_sent() {
    let prompt = prompt_at(&migration(), &[]);
    let mut keys = vec![Key::Alt('n')];
    keys.extend(typed("after the backup"));
    keys.push(Key::Enter);
    let (rows, done) = drive(&prompt, &Settings::default(), &keys);
    assert_eq!(done, None);
    assert_eq!(
        rows,
        [
            "? [1/3] Assistant asks: Apply the proposed migration?",
            "  y) Yes",
            "  n) No",
            "  ✎ note attached: after the backup (Alt+N changes it)",
            "[y Yes · n No · ↑↓ and Enter · Alt+N note · Esc for Reply /",
            "End Turn]",
        ]
    );
}

/// What the person was typing when another surface moved the inquiry: the
/// action it would have been, with the note written for it; nothing for a
/// list, or for a field left as it started.
#[test]
fn what_was_being_typed_is_kept_unsent() {
    let settings = Settings::default();
    let note = prompt_at(&migration(), &[json!(true), json!("staging")]);
    let mut asking = Asking::question(&note, &settings);
    assert_eq!(asking.unsent(&View::Question), None);
    let mut view = View::Question;
    for key in typed("half a no") {
        view = asking.step(view, key).0;
    }
    assert_eq!(
        asking.unsent(&view),
        Some(Action::Answer(json!("half a no")))
    );
    asking.note = Some("checked".into());
    assert_eq!(
        asking.unsent(&view),
        Some(Action::AnswerWithNote {
            value: json!("half a no"),
            note: "checked".into()
        })
    );
    let mut reply = View::Reply(Editor::new("", true));
    for key in typed(" use staging ") {
        reply = asking.step(reply, key).0;
    }
    assert_eq!(
        asking.unsent(&reply),
        Some(Action::Reply {
            message: Some("use staging".into())
        })
    );
    let env = prompt_at(&migration(), &[json!(true)]);
    let mut list = Asking::question(&env, &settings);
    let (view, _) = list.step(View::Question, Key::Char('s'));
    assert_eq!(list.unsent(&view), None);
}

#[test]
fn zero_in_a_multi_select_ticks_other_and_opens_its_field_as_in_a_single_choice() {
    let arguments = json!({"questions": [{"id": "f", "text": "Which checks?",
        "answer_type": "multi_select", "options": ["lint", "tests"], "allow_other": true}]});
    let prompt = prompt_at(&arguments, &[]);
    let mut keys = vec![Key::Char('2'), Key::Char('0')];
    keys.extend(typed("security scan"));
    let (rows, _) = drive(&prompt, &Settings::default(), &keys);
    assert_eq!(rows[1], "> security scan");
    keys.push(Key::Enter);
    let (_, done) = drive(&prompt, &Settings::default(), &keys);
    assert_eq!(
        done,
        Some(Done::Act(Action::Answer(json!(["tests", "security scan"]))))
    );
    // Esc keeps the text and the tick; Enter on the list asks for it again,
    // filled in, and sends it.
    let mut keys = vec![Key::Char('0')];
    keys.extend(typed("fuzz"));
    keys.extend([Key::Esc, Key::Char('1')]);
    let (rows, _) = drive(&prompt, &Settings::default(), &keys);
    assert_eq!(
        rows[..5],
        [
            "? Assistant asks: Which checks?",
            "> [x] 1) lint",
            "  [ ] 2) tests",
            "  [x] 0) Other (type your answer)",
            "  2 ticked",
        ]
    );
    keys.extend([Key::Enter, Key::Enter]);
    let (_, done) = drive(&prompt, &Settings::default(), &keys);
    assert_eq!(
        done,
        Some(Done::Act(Action::Answer(json!(["lint", "fuzz"]))))
    );
}

#[test]
fn what_a_timeout_does_not_send_is_given_back() {
    let settings = Settings::default();
    let note = prompt_at(&migration(), &[json!(true), json!("staging")]);
    let mut asking = Asking::question(&note, &settings);
    let mut view = View::Question;
    for key in typed("run it after the backup") {
        view = asking.step(view, key).0;
    }
    assert_eq!(
        asking.typed_not_sent(&view),
        Some("run it after the backup".to_owned())
    );
    // Behind the menu Esc opens, too.
    let (reply, _) = asking.step(view, Key::Esc);
    assert_eq!(
        asking.typed_not_sent(&reply),
        Some("run it after the backup".to_owned())
    );
    let fresh = Asking::question(&note, &settings);
    assert_eq!(fresh.typed_not_sent(&View::Question), None);
}

/// A changed answer whose earlier answer carried a note asks whether the note
/// still applies: kept, dropped or edited, then sent; the same answer sends
/// the note without asking.
#[test]
fn a_changed_answer_asks_whether_its_note_still_applies() {
    let form = json!({"questions": [
        {"id": "channel", "text": "Which channel?", "answer_type": "select",
         "options": ["stable", "beta"]}]});
    let mut prompt = prompt_at(&form, &[]);
    prompt.prefill = Some(askuser_core::Answer::Choice(0));
    prompt.prefill_note = Some("stable is fine, changelog merged".to_owned());
    let settings = Settings::default();
    let (rows, done) = drive(&prompt, &settings, &[Key::Char('2')]);
    assert_eq!(done, None);
    assert_eq!(
        rows,
        [
            "? Assistant asks: Which channel? — your note was written for",
            "your earlier answer",
            "  stable is fine, changelog merged",
            "Does it still apply to your new answer, beta?",
            "> k) Keep the note",
            "  e) Edit the note",
            "  d) Drop the note",
            "[a letter or ↑↓ chooses, Enter does it · Esc returns to the",
            "question]",
        ]
    );
    let note = "stable is fine, changelog merged".to_owned();
    let with_note = |note: &str| {
        Some(Done::Act(Action::AnswerWithNote {
            value: json!("beta"),
            note: note.to_owned(),
        }))
    };
    let keep = drive(&prompt, &settings, &[Key::Char('2'), Key::Enter]);
    assert_eq!(keep.1, with_note(&note));
    let drop = drive(
        &prompt,
        &settings,
        &[Key::Char('2'), Key::Char('d'), Key::Enter],
    );
    assert_eq!(drop.1, Some(Done::Act(Action::Answer(json!("beta")))));
    let mut edit = vec![Key::Char('2'), Key::Char('e'), Key::Enter];
    edit.extend(typed(", beta too"));
    edit.push(Key::Enter);
    let edited = drive(&prompt, &settings, &edit);
    assert_eq!(
        edited.1,
        with_note("stable is fine, changelog merged, beta too")
    );
    // Esc goes back to the question; the same answer sends the note unasked.
    let (_, done) = drive(&prompt, &settings, &[Key::Char('2'), Key::Esc]);
    assert_eq!(done, None);
    let same = drive(&prompt, &settings, &[Key::Char('1')]);
    let stable = Some(Done::Act(Action::AnswerWithNote {
        value: json!("stable"),
        note,
    }));
    assert_eq!(same.1, stable);
}
