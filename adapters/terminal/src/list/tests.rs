//! The list's keys and rows.
use super::*;
use askuser_core::{AnswerType, Question};

fn languages() -> Vec<Entry> {
    let q = Question::new("l", "Which?", AnswerType::Select)
        .with_options(["go", "rust", "ruby", "scala", "bash"])
        .with_other(true);
    crate::menu::option_entries(&q)
}

#[test]
fn typing_filters_with_prefixes_first_and_enter_picks() {
    let mut list = List::new(languages(), Mode::Select, 0, &[]);
    assert_eq!(list.handle(Key::Char('s')), Listed::Changed);
    assert_eq!(
        list.rows(10, 80),
        [
            "> 4) scala",
            "  2) rust",
            "  5) bash",
            "  0) Other (type your answer)"
        ]
    );
    assert_eq!(list.handle(Key::Enter), Listed::Picked(Pick::Option(3)));
    list.handle(Key::Char('x'));
    assert_eq!(list.rows(10, 80), ["> 0) Other (type your answer)"]);
    assert_eq!(list.filter(), "sx");
    list.handle(Key::Ctrl('u'));
    assert_eq!(
        list.rows(3, 80),
        ["> 1) go", "  2) rust", "  (4 more: ↑↓ scroll)"]
    );
    list.handle(Key::End);
    assert_eq!(
        list.rows(3, 80),
        [
            "  5) bash",
            "> 0) Other (type your answer)",
            "  (4 more: ↑↓ scroll)"
        ]
    );
}

#[test]
fn digits_pick_at_once_unless_typing() {
    let mut list = List::new(languages(), Mode::Select, 0, &[]);
    assert_eq!(list.handle(Key::Char('3')), Listed::Picked(Pick::Option(2)));
    list.handle(Key::Char('r'));
    assert_eq!(list.handle(Key::Char('9')), Listed::Changed);
    assert_eq!(list.filter(), "r9");
    list.paste("\u{1b}[2J x");
    assert_eq!(list.filter(), "r9[2J x");
}

#[test]
fn ticks_are_counted_even_when_the_filter_hides_them_and_all_or_none_tick() {
    let mut list = List::new(languages(), Mode::Multi, 0, &[0, 3]);
    list.handle(Key::Char('r'));
    assert_eq!(
        list.rows(10, 80),
        [
            "> [ ] 2) rust",
            "  [ ] 3) ruby",
            "  [ ] 0) Other (type your answer)",
            "  2 ticked (2 hidden by the filter)"
        ]
    );
    // Ctrl+A and Ctrl+D edit the filter while there is one.
    assert_eq!(list.handle(Key::Ctrl('a')), Listed::Changed);
    list.handle(Key::Ctrl('e'));
    list.handle(Key::Ctrl('u'));
    assert_eq!(list.filter(), "");
    list.handle(Key::Ctrl('a'));
    assert_eq!(list.rows(10, 80).last().unwrap(), "  5 ticked");
    list.handle(Key::Ctrl('d'));
    assert_eq!(list.rows(10, 80).last().unwrap(), "  0 ticked");
}

#[test]
fn labels_and_every_description_wrap_and_are_never_cut() {
    let q = Question::new("db", "Which database?", AnswerType::Select).with_options([
        askuser_core::Choice::described(
            "PostgreSQL with logical replication (Recommended)",
            "Runs in every region we have, and the team knows it well",
        ),
        askuser_core::Choice::described("SQLite", "One file, no server to run at all"),
    ]);
    let mut list = List::new(crate::menu::option_entries(&q), Mode::Select, 0, &[]);
    assert_eq!(
        list.rows(10, 39),
        [
            "> 1) PostgreSQL with logical",
            "  replication (Recommended) — Runs in",
            "  every region we have, and the team",
            "  knows it well",
            "  2) SQLite — One file, no server to",
            "  run at all",
        ]
    );
    list.handle(Key::Down);
    assert_eq!(
        list.marked_rows(10, 39),
        (
            vec![
                "  1) PostgreSQL with logical".to_owned(),
                "  replication (Recommended) — Runs in".to_owned(),
                "  every region we have, and the team".to_owned(),
                "  knows it well".to_owned(),
                "> 2) SQLite — One file, no server to".to_owned(),
                "  run at all".to_owned(),
            ],
            4..6
        )
    );
}

#[test]
fn digits_filter_when_a_label_starts_with_a_digit() {
    let q = Question::new("v", "Which version?", AnswerType::Select)
        .with_options(["1.85", "1.7", "2.0"]);
    let mut list = List::new(crate::menu::option_entries(&q), Mode::Select, 0, &[]);
    assert!(!list.digits_pick());
    for c in "1.7".chars() {
        assert_eq!(list.handle(Key::Char(c)), Listed::Changed);
    }
    assert_eq!(list.rows(10, 80), ["> 2) 1.7"]);
    assert_eq!(list.handle(Key::Enter), Listed::Picked(Pick::Option(1)));
}

#[test]
fn a_letter_highlights_without_picking() {
    let mut menu = List::new(
        crate::menu::action_entries(true, None, None),
        Mode::Menu,
        0,
        &[],
    );
    assert!(menu.highlight('s'));
    assert!(!menu.highlight('x'));
    assert_eq!(menu.handle(Key::Enter), Listed::Picked(Pick::EndTurn));
}

#[test]
fn multi_select_ticks_with_digits_and_space() {
    let mut list = List::new(languages(), Mode::Multi, 0, &[4]);
    list.handle(Key::Char('2'));
    list.handle(Key::Down);
    list.handle(Key::Char(' '));
    assert_eq!(
        list.rows(5, 80),
        [
            "  [ ] 1) go",
            "  [x] 2) rust",
            "> [x] 3) ruby",
            "  (3 more: ↑↓ scroll)",
            "  3 ticked"
        ]
    );
    assert_eq!(
        list.handle(Key::Enter),
        Listed::Sent(vec![Pick::Option(1), Pick::Option(2), Pick::Option(4)])
    );
}

#[test]
fn menus_and_booleans_pick_by_letter() {
    let mut yes_no = List::new(
        crate::menu::boolean_entries(),
        Mode::Boolean { remember: true },
        0,
        &[],
    );
    assert_eq!(yes_no.handle(Key::Char('n')), Listed::Picked(Pick::No));
    assert_eq!(yes_no.handle(Key::Char('Y')), Listed::Remembered(Pick::Yes));
    assert_eq!(yes_no.handle(Key::Char('x')), Listed::Ignored);
    let mut plain = List::new(
        crate::menu::boolean_entries(),
        Mode::Boolean { remember: false },
        1,
        &[],
    );
    assert_eq!(plain.handle(Key::Char('Y')), Listed::Picked(Pick::Yes));
    assert_eq!(plain.handle(Key::Enter), Listed::Picked(Pick::No));
    assert_eq!(plain.handle(Key::Backspace), Listed::Ignored);
}

#[test]
fn a_page_holds_whole_entries_and_the_cursors_even_when_it_alone_is_taller() {
    let long = "Keeps every write on two machines before it answers, so a lost disk loses nothing";
    let q = Question::new("db", "Which database?", AnswerType::Select).with_options([
        askuser_core::Choice::described("Replicated", long),
        askuser_core::Choice::described("Single", "One machine"),
        askuser_core::Choice::described("Memory", "Nothing kept"),
    ]);
    let mut list = List::new(crate::menu::option_entries(&q), Mode::Select, 0, &[]);
    assert_eq!(
        list.rows(4, 30),
        [
            "> 1) Replicated — Keeps every",
            "  write on two machines before",
            "  it answers, so a lost disk",
            "  loses nothing",
            "  (2 more: ↑↓ scroll)",
        ]
    );
    list.handle(Key::Down);
    assert_eq!(
        list.rows(4, 30),
        [
            "> 2) Single — One machine",
            "  3) Memory — Nothing kept",
            "  (1 more: ↑↓ scroll)",
        ]
    );
}
