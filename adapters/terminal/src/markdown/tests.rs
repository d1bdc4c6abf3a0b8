use super::*;

fn texts(markdown: &str, width: usize) -> Vec<String> {
    lines(markdown, width).iter().map(Line::text).collect()
}

const BOLD: Style = Style {
    bold: true,
    italic: false,
    code: false,
};
const ITALIC: Style = Style {
    bold: false,
    italic: true,
    code: false,
};
const CODE: Style = Style {
    bold: false,
    italic: false,
    code: true,
};
const PLAIN: Style = Style {
    bold: false,
    italic: false,
    code: false,
};

#[test]
fn a_fenced_block_shows_escape_and_bidi_characters_visibly() {
    let markdown = "Run this:\n\n```sh\necho \u{1b}[2J \u{202e}gnp.exe\n\tdone\n```\n";
    assert_eq!(
        texts(markdown, 60),
        [
            "Run this:",
            "",
            "    echo \\u{1b}[2J \\u{202e}gnp.exe",
            "        done",
        ]
    );
    let styled: Vec<String> = lines(markdown, 60).iter().map(Line::styled).collect();
    assert_eq!(
        styled[2],
        "    \u{1b}[36mecho \\u{1b}[2J \\u{202e}gnp.exe\u{1b}[39m"
    );
    assert!(styled.iter().all(|row| !row.contains('\u{202e}')));
}

#[test]
fn raw_html_is_shown_as_text() {
    assert_eq!(
        texts(
            "Before\n\n<script>alert(1)</script>\n\nand <b>inline</b> too",
            60
        ),
        [
            "Before",
            "",
            "<script>alert(1)</script>",
            "",
            "and <b>inline</b> too"
        ]
    );
    assert_eq!(
        inline("<script>alert(1)</script>"),
        "<script>alert(1)</script>"
    );
}

#[test]
fn lists_wrap_under_their_first_word_at_40_columns() {
    let markdown = "Steps:\n\n\
        - first, a rather long item that has to wrap onto a second row\n\
        - second\n  \
          1. nested one, long enough to wrap once more at forty\n  \
          2. nested two\n\n\
        9. nine\n\
        10. ten";
    assert_eq!(
        texts(markdown, 40),
        [
            "Steps:",
            "",
            "- first, a rather long item that has to",
            "  wrap onto a second row",
            "- second",
            "  1. nested one, long enough to wrap",
            "     once more at forty",
            "  2. nested two",
            "",
            "9. nine",
            "10. ten",
        ]
    );
}

#[test]
fn emphasis_code_headings_and_links() {
    assert_eq!(
        lines("Is **this** *ok* with `x`?", 60),
        [Line {
            spans: vec![
                (PLAIN, "Is ".into()),
                (BOLD, "this".into()),
                (PLAIN, " ".into()),
                (ITALIC, "ok".into()),
                (PLAIN, " with ".into()),
                (CODE, "x".into()),
                (PLAIN, "?".into()),
            ]
        }]
    );
    assert_eq!(
        lines("# Plan", 60),
        [Line {
            spans: vec![(BOLD, "Plan".into())]
        }]
    );
    assert_eq!(
        texts(
            "See [the docs](https://example.com/d) or <https://example.com>.",
            80
        ),
        ["See the docs (https://example.com/d) or https://example.com."]
    );
    assert_eq!(
        texts("> quoted\n\n---\n\n    indented code", 40),
        [
            "│ quoted",
            "",
            "────────────────────",
            "",
            "    indented code"
        ]
    );
}

#[test]
fn one_line_text_loses_its_marks_but_not_its_block_starts() {
    assert_eq!(
        inline("Deploy **`main`** to *prod*?"),
        "Deploy main to prod?"
    );
    assert_eq!(inline("1. Pick one"), "1. Pick one");
    assert_eq!(inline("# of files?"), "# of files?");
    assert_eq!(inline("a \u{1b}[2J b"), "a \\u{1b}[2J b");
    assert_eq!(inline(""), "");
}

#[test]
fn styles_turn_off_only_what_they_turned_on() {
    let line = inline_line("a **`b`** *c*");
    assert_eq!(
        line.styled(),
        "a \u{1b}[1m\u{1b}[36mb\u{1b}[39m\u{1b}[22m \u{1b}[3mc\u{1b}[23m"
    );
    assert_eq!(
        line.wrap(3),
        [
            Line {
                spans: vec![
                    (PLAIN, "a ".into()),
                    (
                        Style {
                            bold: true,
                            italic: false,
                            code: true
                        },
                        "b".into()
                    ),
                ]
            },
            Line {
                spans: vec![(ITALIC, "c".into())]
            },
        ]
    );
}

#[test]
fn long_code_rows_go_on_under_themselves_broken_at_a_space() {
    assert_eq!(
        texts("```\nlet x = [1, 2, 3, 4, 5, 6];\n```", 20),
        ["    let x = [1, 2,", "    3, 4, 5, 6];"]
    );
    // A token longer than the row, in code or a link, is never split.
    assert_eq!(
        texts(
            "```\nopen /srv/releases/2026-11-29/billing-api.tar.gz now\n```",
            20
        ),
        [
            "    open",
            "    /srv/releases/2026-11-29/billing-api.tar.gz",
            "    now"
        ]
    );
    assert_eq!(
        texts(
            "Read [the runbook](https://runbooks.example.com/billing/deploys#rollback) first.",
            20
        ),
        [
            "Read the runbook",
            "(https://runbooks.example.com/billing/deploys#rollback)",
            "first."
        ]
    );
}

#[test]
fn quotes_nested_past_the_bound_are_drawn_flat_and_said_once() {
    let context = format!("{} deep\n", "> ".repeat(1_000));
    let bars = "│ ".repeat(MAX_NESTING);
    assert_eq!(
        texts(&context, 40),
        [
            format!("{bars}deep"),
            String::new(),
            "(Nested more than 8 levels deep: the".to_owned(),
            "deeper levels are shown flat.)".to_owned()
        ]
    );
    // 1,000 nested quotes of 300 words: the rows written stay in proportion.
    let long = format!("{}{}", "> ".repeat(1_000), "word ".repeat(300));
    let written: usize = lines(&long, 40).iter().map(|line| line.text().len()).sum();
    assert!(
        written < 6 * long.len(),
        "{written} bytes for {} sent",
        long.len()
    );
}

#[test]
fn lists_nested_past_the_bound_are_drawn_flat_and_said_once() {
    let items = format!("{}x", "- ".repeat(7_500));
    let rows = texts(&items, 40);
    assert_eq!(
        rows,
        [
            format!("{}- x", "  ".repeat(MAX_NESTING - 1)),
            String::new(),
            "(Nested more than 8 levels deep: the".to_owned(),
            "deeper levels are shown flat.)".to_owned()
        ]
    );
}

/// Found by the `markdown` fuzz target: the note was one row of 67 columns
/// whatever the screen's width, so a narrow terminal wrapped it and the rows
/// counted as printed (then erased) were one short.
#[test]
fn the_flattened_note_is_wrapped_to_the_screen_like_every_row() {
    let items = format!("{}x", "- ".repeat(20));
    assert_eq!(
        texts(&items, 20),
        [
            "              - x",
            "",
            "(Nested more than 8",
            "levels deep: the",
            "deeper levels are",
            "shown flat.)"
        ]
    );
    let wide = texts(&items, 80);
    assert_eq!(wide.last().map(String::as_str), Some(FLATTENED));
}

#[test]
fn nesting_up_to_the_bound_is_drawn_whole() {
    let context = format!("{} deep\n", "> ".repeat(MAX_NESTING));
    assert_eq!(
        texts(&context, 40),
        [format!("{}deep", "│ ".repeat(MAX_NESTING))]
    );
}

/// Found by the `markdown` fuzz target: a block of raw HTML was written as it
/// came, one row of any length, wider than the screen.
#[test]
fn a_long_raw_html_row_goes_on_under_itself() {
    let html = format!("<p>{} and more words after it</p>", "a".repeat(10));
    assert_eq!(
        texts(&html, 20),
        ["<p>aaaaaaaaaa and", "more words after", "it</p>"]
    );
    // A token longer than the row is kept whole, as in code.
    let html = format!("<p>{}</p>", "a".repeat(40));
    assert_eq!(texts(&html, 20), [format!("<p>{}</p>", "a".repeat(40))]);
}
