//! Both Markdown renderers (the web page's and the terminal's) against arbitrary
//! text at any width: never a panic (no recursion per nesting level), what is
//! written stays in proportion to what was sent, no control, escape or bidi
//! character of the text reaches the page or the screen, a link is an `<a>`
//! only to `http`/`https`, and no terminal row is wider than the screen (but
//! by a deep indent, or for a word longer than a row: a link, a path, code,
//! kept whole on a row of its own for the terminal to wrap).

#![no_main]

use libfuzzer_sys::fuzz_target;
use unicode_width::UnicodeWidthStr;

/// The most bytes written per byte of text (and a constant for the marks
/// around an empty one): escapes such as `&amp;` or `\u{1b}` shown visibly,
/// and each nesting level's indent, are within this.
const MOST_PER_BYTE: usize = 64;
const MOST_FIXED: usize = 4096;

/// Characters that must never reach a page or a screen as they are.
fn forbidden(c: char) -> bool {
    (c.is_control() && c != '\n')
        || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}')
}

fn web(text: &str) {
    let [block, inline, no_links, plain] = askuser_web::fuzzing::markdown(text);
    for out in [&block, &inline, &no_links] {
        assert!(
            out.len() <= MOST_PER_BYTE * text.len() + MOST_FIXED,
            "{} bytes of HTML from {} bytes",
            out.len(),
            text.len()
        );
        assert!(
            // A tab is only white space on a page.
            !out.chars().any(|c| c != '\t' && forbidden(c)),
            "a forbidden character in {out:?}"
        );
        for (at, _) in out.match_indices("href=\"") {
            // A scheme is case-insensitive (`Https:` is `https:`).
            let target = out[at + 6..]
                .get(..8)
                .unwrap_or(&out[at + 6..])
                .to_ascii_lowercase();
            assert!(
                target.starts_with("http://") || target.starts_with("https://"),
                "a link to {:.40?}",
                &out[at + 6..]
            );
        }
    }
    assert!(
        !no_links.contains("<a "),
        "a link where none may be: {no_links}"
    );
    assert!(plain.len() <= MOST_PER_BYTE * text.len() + MOST_FIXED);
}

fn terminal(text: &str, width: usize) {
    let (rows, (line, styled_line)) = askuser_terminal::fuzzing::markdown(text, width);
    let written: usize = rows
        .iter()
        .map(|(plain, styled)| plain.len() + styled.len())
        .sum();
    assert!(
        written <= MOST_PER_BYTE * text.len() + MOST_FIXED,
        "{written} bytes on the screen from {} bytes at width {width}",
        text.len()
    );
    for (plain, styled) in &rows {
        assert!(
            !plain.chars().any(forbidden),
            "a forbidden character in {plain:?}"
        );
        // Under quotes and list markers (at most 8 levels drawn), a row keeps
        // at least 10 columns for its text, so it may pass a narrow screen by
        // its indent; any other row fits.
        let indented = plain.starts_with(|c: char| " │-*+.)".contains(c) || c.is_ascii_digit());
        let most = if indented { width.max(128) } else { width };
        // A word longer than a row is never split: its row holds it alone (after
        // the row's indent and marks), whole.
        let one_word = plain
            .trim_start_matches(|c: char| " │-*+.)>".contains(c) || c.is_ascii_digit())
            .split(' ')
            .filter(|word| !word.is_empty())
            .count()
            <= 1;
        assert!(
            one_word || plain.width() <= most,
            "a row of {} columns on a screen of {width}: {plain:?}",
            plain.width()
        );
        assert!(styled.len() >= plain.len());
    }
    assert!(
        !line.chars().any(forbidden),
        "a forbidden character in {line:?}"
    );
    assert!(
        !line.contains('\n'),
        "one line holds a line break: {line:?}"
    );
    assert!(styled_line.len() >= line.len());
}

fuzz_target!(|data: &[u8]| {
    let Some((&first, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    web(text);
    // The screen is at least 20 columns wide (`Screen::width`).
    terminal(text, 20 + usize::from(first) % 200);
});
