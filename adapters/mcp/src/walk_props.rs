//! Property: walking any form in elicitation rounds asks each question once (twice
//! when its first answer does not fit), in at most as many rounds as it has
//! questions (twice that with refusals), with schemas rmcp accepts, and ends with
//! the outcome of asking the same answers one question at a time; and so it
//! does when another surface answers the question asked while a round is shown
//! (the round is not recorded over it; the walk goes on from there, each round
//! derived again from the log). For a client with limited forms the rounds are
//! the same, sent only as yes/no and text fields named in question order, and
//! what such a client sends back reads as the answers it stands for.

use std::collections::BTreeMap;
use std::sync::Arc;

use askuser_app::log::{Log, MemLog, Session};
use askuser_core::strategies::{arb_form, invalid_answer, sample_answer};
use askuser_core::{
    AnswerInput, AnswerType, Command, Input, InquiryId, Request, State, reduce, validate,
};
use askuser_core::{UiInput, ui_answer};
use askuser_dialects::dialect::mcp::{
    FieldKind, Fields, field_kind, other_field, read_field, read_limited,
};
use proptest::prelude::*;
use rmcp::model::ElicitationSchema;
use serde_json::{Map, Value, json};

use crate::recorder::Recorder;
use crate::walk::{Done, Next, Walk};

fn request(form: &askuser_core::ValidForm, inquiry: InquiryId) -> Request {
    Request {
        inquiry,
        form: form.form().clone(),
        policy: askuser_core::Policy::default(),
        origin: askuser_core::Origin::default(),
        call: None,
    }
}

/// A walk of `form` asked on a new in-memory log (stream `s`): the log, the
/// recorder into it, and the walk ready for its first round.
fn walked(form: &askuser_core::ValidForm) -> (Arc<dyn Log>, Recorder, Walk) {
    let log: Arc<dyn Log> = Arc::new(MemLog::new());
    let shared = Arc::clone(&log);
    let recorder = Recorder::new(
        Arc::new(move || Ok(askuser_app::Desk::new(Arc::clone(&shared)))),
        "s",
    );
    let (inquiry, Ok(step)) = recorder
        .request(|id| Input::Ask(request(form, id)))
        .unwrap()
    else {
        panic!("refused")
    };
    let walk = Walk::start(form.clone(), inquiry, step.commands, step.at, step.head)
        .ok()
        .unwrap();
    (log, recorder, walk)
}

/// The content of a round answering each of its questions with `answer`.
fn content_of(
    form: &askuser_core::ValidForm,
    questions: &[usize],
    answer: &dyn Fn(usize) -> Value,
) -> Map<String, Value> {
    let mut content = Map::new();
    for &i in questions {
        let question = form.question(i);
        let value = answer(i);
        let own = question.answer_type == AnswerType::Select
            && question.allow_other
            && !question.choices().iter().any(|c| value == c.label.as_str());
        match (field_kind(question), own) {
            (FieldKind::Json, _) => {
                content.insert(question.id.clone(), Value::String(value.to_string()));
            }
            (FieldKind::Plain, true) => {
                content.insert(other_field(question).unwrap(), value);
            }
            (FieldKind::Plain, false) => {
                content.insert(question.id.clone(), value);
            }
        }
    }
    content
}

/// The outcome of answering question by question.
fn one_at_a_time(form: &askuser_core::ValidForm, answer: &dyn Fn(usize) -> Value) -> Value {
    let mut state = State::new();
    let ask = Input::Ask(askuser_testkit::build::request("ref", form.form().clone()));
    let mut commands = reduce(&mut state, &ask).unwrap();
    loop {
        match commands.first() {
            Some(Command::Prompt(prompt)) => {
                let input = AnswerInput::new(prompt.at(), answer(prompt.index)).into();
                commands = reduce(&mut state, &input).unwrap();
            }
            Some(Command::Respond { outcome, .. }) => return outcome.to_json(),
            other => panic!("unexpected {other:?}"),
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn rounds_end_as_one_question_at_a_time(
        form in arb_form(),
        seeds in prop::collection::vec(any::<usize>(), 6),
        bad in prop::collection::vec(any::<bool>(), 6),
    ) {
        let form = validate(form).unwrap();
        let answer = |i: usize| sample_answer(form.question(i), seeds[i % seeds.len()]);
        let expected = one_at_a_time(&form, &answer);

        let (_log, recorder, mut walk) = walked(&form);
        let mut asked: BTreeMap<usize, usize> = BTreeMap::new();
        let tries = if bad.iter().any(|b| *b) { 2 } else { 1 };
        let mut rounds = 0;
        let finished = loop {
            let Ok(Next::Ask(round)) = walk.next_round(&recorder) else { panic!("no round") };
            rounds += 1;
            prop_assert!(!round.questions.is_empty());
            prop_assert!(rounds <= tries * form.len());
            prop_assert!(serde_json::from_value::<ElicitationSchema>(round.schema.clone()).is_ok(), "{}", round.schema);
            let mut content = Map::new();
            for &i in &round.questions {
                let times = asked.entry(i).or_default();
                *times += 1;
                prop_assert!(*times <= tries, "question {} asked {} times", i, times);
                let question = form.question(i);
                // A wrong answer on the first try, unless the UI reads it as a right one
                // (`"yes"` for a boolean).
                let wrong = invalid_answer(question, seeds[i % seeds.len()]);
                let read_right = ui_answer(question, UiInput::Json(wrong.clone()))
                    .is_ok_and(|v| form.check(i, &v).is_ok());
                let value = if bad[i % bad.len()] && *times == 1 && !read_right {
                    wrong
                } else {
                    answer(i)
                };
                let own = question.answer_type == AnswerType::Select
                    && question.allow_other
                    && !question.choices().iter().any(|c| value == c.label.as_str());
                match (field_kind(question), own) {
                    (FieldKind::Json, _) => { content.insert(question.id.clone(), Value::String(value.to_string())); }
                    (FieldKind::Plain, true) => { content.insert(other_field(question).unwrap(), value); }
                    (FieldKind::Plain, false) => { content.insert(question.id.clone(), value); }
                }
            }
            if let Some(done) = walk.accept(&recorder, &round, &content).unwrap() {
                break done;
            }
        };
        let Done::Finished(finished) = finished else { panic!("finished elsewhere") };
        let Command::Respond { outcome, .. } = *finished else { panic!("{finished:?}") };
        prop_assert_eq!(outcome.to_json(), expected);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn rounds_overtaken_by_another_surface_end_as_one_question_at_a_time(
        form in arb_form(),
        seeds in prop::collection::vec(any::<usize>(), 6),
        elsewhere in prop::collection::vec(any::<bool>(), 6),
    ) {
        let form = validate(form).unwrap();
        let answer = |i: usize| sample_answer(form.question(i), seeds[i % seeds.len()]);
        let expected = one_at_a_time(&form, &answer);

        let (log, recorder, mut walk) = walked(&form);
        let inquiry = walk.inquiry().clone();
        let mut rounds = 0;
        let finished = loop {
            let Ok(Next::Ask(round)) = walk.next_round(&recorder) else { panic!("no round") };
            rounds += 1;
            prop_assert!(rounds <= 2 * form.len() + 1, "{} rounds", rounds);
            if elsewhere[rounds % elsewhere.len()] {
                // Another surface answers the question asked, as the person would.
                let mut other = Session::open(Arc::clone(&log), "s").unwrap();
                if let Some(at) = other.state().at(&inquiry) {
                    let index = at.question.as_deref().and_then(|q| form.index_of(q));
                    if let Some(index) = index {
                        let input = AnswerInput::new(at, answer(index)).reviewed().into();
                        other.handle(&input).unwrap();
                    }
                }
            }
            let content = if round.questions.is_empty() {
                let mut send = Map::new();
                send.insert("send".to_owned(), Value::Bool(true));
                send
            } else {
                content_of(&form, &round.questions, &answer)
            };
            if let Some(done) = walk.accept(&recorder, &round, &content).unwrap() {
                break done;
            }
        };
        let command = match finished {
            Done::Finished(finished) => *finished,
            Done::Elsewhere(elsewhere) => elsewhere.ending.expect("the other surface's ending"),
            Done::Refused(why) => panic!("refused: {why}"),
        };
        let Command::Respond { outcome, .. } = command else { panic!("{command:?}") };
        prop_assert_eq!(outcome.to_json(), expected);
        for check in crate::check_rounds(&*log, "s").unwrap() {
            prop_assert!(check.matches(), "{:?}", check);
        }
    }
}

/// The name of question `i`'s field in a limited round: `"<n>.<id>"`, `n` its
/// 1-based number zero-padded to the width of the form's length.
fn limited_name(form: &askuser_core::ValidForm, i: usize) -> String {
    let width = form.len().to_string().len();
    format!("{:0width$}.{}", i + 1, form.question(i).id)
}

/// What a client with limited forms sends for `questions` answering each with
/// `answer`: a multi-select's options ticked or not, a number as its text, an
/// own answer in `.other`; `wrong(i)`: an unusable first value instead (text
/// for a number, `"yes"` for an option).
fn limited_content_of(
    form: &askuser_core::ValidForm,
    questions: &[usize],
    answer: &dyn Fn(usize) -> Value,
    wrong: &dyn Fn(usize) -> bool,
) -> Map<String, Value> {
    let mut content = Map::new();
    for &i in questions {
        let question = form.question(i);
        let name = limited_name(form, i);
        let value = answer(i);
        match question.answer_type {
            AnswerType::MultiSelect => {
                let width = question.choices().len().to_string().len();
                for (k, choice) in question.choices().iter().enumerate() {
                    let picked = value
                        .as_array()
                        .is_some_and(|v| v.iter().any(|l| l == choice.label.as_str()));
                    let sent = if wrong(i) {
                        json!("yes")
                    } else {
                        Value::Bool(picked)
                    };
                    content.insert(format!("{name}.{:0width$}", k + 1), sent);
                }
            }
            AnswerType::Select
                if question.allow_other
                    && !question.choices().iter().any(|c| value == c.label.as_str()) =>
            {
                content.insert(format!("{name}.other"), value);
            }
            AnswerType::Schema if wrong(i) => {
                content.insert(name, json!("a few"));
            }
            AnswerType::Schema => {
                content.insert(name, Value::String(value.to_string()));
            }
            _ => {
                content.insert(name, value);
            }
        }
    }
    content
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Decoding a limited round's content gives the values the full round's
    /// content gives, question by question.
    #[test]
    fn limited_content_reads_as_the_full_content(
        form in arb_form(),
        seeds in prop::collection::vec(any::<usize>(), 6),
    ) {
        let form = validate(form).unwrap();
        let all: Vec<usize> = (0..form.len()).collect();
        let answer = |i: usize| sample_answer(form.question(i), seeds[i % seeds.len()]);
        let limited = limited_content_of(&form, &all, &answer, &|_| false);
        let (decoded, refused) = read_limited(&form, &all, &limited);
        prop_assert!(refused.is_empty(), "{:?}", refused);
        let full = content_of(&form, &all, &answer);
        for i in all {
            prop_assert_eq!(read_field(&form, i, &decoded), read_field(&form, i, &full));
            prop_assert_eq!(read_field(&form, i, &decoded), Ok(answer(i)));
        }
    }

    /// Walking a form for a client with limited forms: the same rounds (derived
    /// again on replay), each only yes/no and text fields named in question
    /// order, unusable values asked again once, and the outcome of asking the
    /// same answers one question at a time.
    #[test]
    fn limited_rounds_end_as_one_question_at_a_time(
        form in arb_form(),
        seeds in prop::collection::vec(any::<usize>(), 6),
        bad in prop::collection::vec(any::<bool>(), 6),
    ) {
        let form = validate(form).unwrap();
        let answer = |i: usize| sample_answer(form.question(i), seeds[i % seeds.len()]);
        let expected = one_at_a_time(&form, &answer);

        let (log, recorder, walk) = walked(&form);
        let mut walk = walk.showing(Fields::Limited);
        let mut asked: BTreeMap<usize, usize> = BTreeMap::new();
        let mut rounds = 0;
        let finished = loop {
            let Ok(Next::Ask(round)) = walk.next_round(&recorder) else { panic!("no round") };
            rounds += 1;
            prop_assert!(rounds <= 2 * form.len());
            let sent = round.requested();
            prop_assert!(serde_json::from_value::<ElicitationSchema>(sent.clone()).is_ok(), "{}", sent);
            let names: Vec<&String> = sent["properties"].as_object().unwrap().keys().collect();
            let mut sorted = names.clone();
            sorted.sort();
            prop_assert_eq!(&names, &sorted);
            for field in sent["properties"].as_object().unwrap().values() {
                prop_assert!(matches!(field["type"].as_str(), Some("boolean" | "string")), "{}", field);
            }
            for &i in &round.questions {
                *asked.entry(i).or_default() += 1;
            }
            let wrong = |i: usize| {
                bad[i % bad.len()]
                    && asked[&i] == 1
                    && matches!(form.question(i).answer_type, AnswerType::Schema | AnswerType::MultiSelect)
            };
            let content = limited_content_of(&form, &round.questions, &answer, &wrong);
            if let Some(done) = walk.accept(&recorder, &round, &content).unwrap() {
                break done;
            }
        };
        prop_assert!(asked.values().all(|times| *times <= 2), "{:?}", asked);
        let Done::Finished(finished) = finished else { panic!("finished elsewhere") };
        let Command::Respond { outcome, .. } = *finished else { panic!("{finished:?}") };
        prop_assert_eq!(outcome.to_json(), expected);
        for check in crate::check_rounds(&*log, "s").unwrap() {
            prop_assert!(check.matches(), "{:?}", check);
        }
    }
}
