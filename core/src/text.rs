//! Text that came from a model, a file or a host, made safe to show a person.
//!
//! Every string askuser did not write itself is hostile until checked: a question's
//! text may hold an escape sequence that sets the terminal's title (OSC 2), writes the
//! clipboard (OSC 52), clears the screen or draws text invisibly (SGR 8), and a label
//! may hold a right-to-left override or a zero-width character so that it looks like
//! another. Two functions guard the two doors:
//!
//! - [`for_display`] neutralises a string at the one place it reaches a terminal or a
//!   human-readable output (the terminal prompts, the program's printing, the
//!   transcript): every control, bidi-control and invisible character becomes a
//!   visible `\u{…}` escape, so nothing in it can act on the terminal and nothing is
//!   hidden. Right-to-left *text* (Arabic, Hebrew) is left as it is.
//! - [`forbidden_char`] is what validation refuses in ids, labels, headers and
//!   question texts, naming the character and its position.
//!
//! ```
//! use askuser_core::text::{for_display, forbidden_char, Lines};
//!
//! // An OSC 2 title change and an invisible SGR 8 run are shown, not obeyed.
//! assert_eq!(
//!     for_display("Deploy?\u{1b}]2;pwned\u{7}\u{1b}[8mhidden"),
//!     "Deploy?\\u{1b}]2;pwned\\u{7}\\u{1b}[8mhidden"
//! );
//! // Arabic stays Arabic; a right-to-left override does not.
//! assert_eq!(for_display("نعم"), "نعم");
//! let found = forbidden_char("yes\u{202e}on", Lines::One).unwrap();
//! assert_eq!(found.to_string(), "U+202E RIGHT-TO-LEFT OVERRIDE at character 4");
//! ```

use std::borrow::Cow;
use std::fmt;
use std::fmt::Write as _;

/// Whether a field may span lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lines {
    /// One line: ids, labels, headers, question texts. No line break or tab.
    One,
    /// Several lines (context, descriptions): newline and tab are allowed.
    Many,
}

/// A character validation refuses, with where it stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ForbiddenChar {
    /// The character.
    pub ch: char,
    /// Its 1-based position, counted in characters.
    pub position: usize,
}

impl fmt::Display for ForbiddenChar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "U+{:04X} {} at character {}",
            u32::from(self.ch),
            char_name(self.ch),
            self.position
        )
    }
}

/// The first character of `text` that validation refuses: a C0 or C1 control
/// character or DEL (newline and tab are allowed where `lines` is [`Lines::Many`]),
/// a bidi override, embedding, isolate or mark, or an invisible (zero-width)
/// character.
pub fn forbidden_char(text: &str, lines: Lines) -> Option<ForbiddenChar> {
    let allowed = |c: char| lines == Lines::Many && (c == '\n' || c == '\t');
    if text.is_ascii() {
        // The common case: one pass over bytes.
        return text
            .bytes()
            .position(|b| (b.is_ascii_control()) && !allowed(char::from(b)))
            .map(|i| ForbiddenChar {
                ch: char::from(text.as_bytes()[i]),
                position: i + 1,
            });
    }
    text.chars()
        .enumerate()
        .find(|&(_, c)| is_unsafe(c) && !allowed(c))
        .map(|(i, ch)| ForbiddenChar {
            ch,
            position: i + 1,
        })
}

/// The first C0 or C1 control character or DEL of `text` other than newline and
/// tab, or bidi override, embedding or isolate (U+202A–U+202E, U+2066–U+2069, which
/// can make a text read backwards): what validation refuses in free text that may
/// hold any script and any joiner (context, option descriptions, string defaults,
/// strings inside a schema). The bidi marks (LRM, RLM, ALM) and joiners stay
/// allowed: right-to-left scripts and emoji need them.
pub fn forbidden_control(text: &str) -> Option<ForbiddenChar> {
    let bidi_control = |c: char| matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}');
    text.chars()
        .enumerate()
        .find(|&(_, c)| (c.is_control() && c != '\n' && c != '\t') || bidi_control(c))
        .map(|(i, ch)| ForbiddenChar {
            ch,
            position: i + 1,
        })
}

/// `text` with every character that could act on a terminal or hide itself written
/// as a visible `\u{…}` escape (and a backslash that could be mistaken for one's
/// start left as it is: the escapes are for a person, not a parser). Newlines and
/// tabs are kept. Borrows when there is nothing to change.
pub fn for_display(text: &str) -> Cow<'_, str> {
    for_display_lines(text, Lines::Many)
}

/// An answer in words for a person: `Yes` / `No`, a text as it is, a list of
/// labels joined with `, `, any other JSON compact. Not yet safe to show: pass
/// it through [`for_display`] or [`for_display_line`].
///
/// ```
/// use askuser_core::text::answer_words;
/// use serde_json::json;
///
/// assert_eq!(answer_words(&json!(true)), "Yes");
/// assert_eq!(answer_words(&json!(["auth", "api"])), "auth, api");
/// assert_eq!(answer_words(&json!({"percent": 5})), r#"{"percent":5}"#);
/// ```
pub fn answer_words(value: &serde_json::Value) -> String {
    use serde_json::Value;
    match value {
        Value::Bool(true) => "Yes".to_owned(),
        Value::Bool(false) => "No".to_owned(),
        Value::String(text) => text.clone(),
        Value::Array(items) if items.iter().all(Value::is_string) => items
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join(", "),
        other => other.to_string(),
    }
}

/// [`for_display`] for a one-line place (a menu entry, a header): newlines and tabs
/// are escaped too.
pub fn for_display_line(text: &str) -> Cow<'_, str> {
    for_display_lines(text, Lines::One)
}

fn for_display_lines(text: &str, lines: Lines) -> Cow<'_, str> {
    if forbidden_char(text, lines).is_none() {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        let keep = !is_unsafe(c) || (lines == Lines::Many && (c == '\n' || c == '\t'));
        if keep {
            out.push(c);
        } else {
            // Writing to a String cannot fail.
            let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
        }
    }
    Cow::Owned(out)
}

/// Whether two texts are equal, as `==` says, but two empty texts are never
/// handed to `memcmp`. An empty `String`'s pointer is dangling (`0x1`), and glibc's
/// AVX-512 `memcmp` (`__memcmp_evex_movbe`) reads up to 32 bytes there with a masked
/// load; a masked load from an unmapped page costs a fault-suppression assist:
/// about 150 ns per comparison on the development VM (AMD EPYC), against ~1 ns for
/// two 8-byte texts. The reducer compares empty texts (a request's turn, when the
/// host names none) on every request.
pub(crate) fn same_text(a: &str, b: &str) -> bool {
    a.len() == b.len() && (a.is_empty() || a == b)
}

/// Whether `c` is a control, bidi-control or invisible character.
fn is_unsafe(c: char) -> bool {
    c.is_control() || is_bidi_control(c) || is_invisible(c)
}

/// The bidi embeddings, overrides, isolates and marks (Unicode's `Bidi_Control`).
fn is_bidi_control(c: char) -> bool {
    matches!(
        c,
        '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}'
    )
}

/// Characters that draw nothing: zero-width spaces and joiners, the word joiner and
/// invisible operators, the byte-order mark, soft hyphen, Hangul fillers, the
/// interlinear annotation and tag characters.
fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}'
            | '\u{034F}'
            | '\u{115F}'
            | '\u{1160}'
            | '\u{17B4}'
            | '\u{17B5}'
            | '\u{180B}'..='\u{180F}'
            | '\u{200B}'..='\u{200D}'
            | '\u{2060}'..='\u{2064}'
            | '\u{206A}'..='\u{206F}'
            | '\u{3164}'
            | '\u{FE00}'..='\u{FE0F}'
            | '\u{FEFF}'
            | '\u{FFA0}'
            | '\u{FFF9}'..='\u{FFFB}'
            | '\u{E0000}'..='\u{E007F}'
    )
}

/// A short name for a refused character, for error messages.
fn char_name(c: char) -> &'static str {
    match c {
        '\0' => "NUL",
        '\u{7}' => "BELL",
        '\u{8}' => "BACKSPACE",
        '\t' => "TAB",
        '\n' => "LINE FEED",
        '\r' => "CARRIAGE RETURN",
        '\u{1b}' => "ESCAPE",
        '\u{7f}' => "DELETE",
        '\u{9b}' => "CONTROL SEQUENCE INTRODUCER",
        '\u{202A}' => "LEFT-TO-RIGHT EMBEDDING",
        '\u{202B}' => "RIGHT-TO-LEFT EMBEDDING",
        '\u{202C}' => "POP DIRECTIONAL FORMATTING",
        '\u{202D}' => "LEFT-TO-RIGHT OVERRIDE",
        '\u{202E}' => "RIGHT-TO-LEFT OVERRIDE",
        '\u{2066}' => "LEFT-TO-RIGHT ISOLATE",
        '\u{2067}' => "RIGHT-TO-LEFT ISOLATE",
        '\u{2068}' => "FIRST STRONG ISOLATE",
        '\u{2069}' => "POP DIRECTIONAL ISOLATE",
        '\u{200E}' => "LEFT-TO-RIGHT MARK",
        '\u{200F}' => "RIGHT-TO-LEFT MARK",
        '\u{061C}' => "ARABIC LETTER MARK",
        '\u{200B}' => "ZERO WIDTH SPACE",
        '\u{200C}' => "ZERO WIDTH NON-JOINER",
        '\u{200D}' => "ZERO WIDTH JOINER",
        '\u{2060}' => "WORD JOINER",
        '\u{FEFF}' => "ZERO WIDTH NO-BREAK SPACE",
        '\u{00AD}' => "SOFT HYPHEN",
        c if c.is_control() => "control character",
        c if is_bidi_control(c) => "bidi control",
        _ => "invisible character",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_text_is_borrowed() {
        assert!(matches!(for_display("Deploy now?"), Cow::Borrowed(_)));
        assert!(matches!(for_display("line\none\tx"), Cow::Borrowed(_)));
        assert!(matches!(
            for_display("한국어 العربية עברית"),
            Cow::Borrowed(_)
        ));
    }

    #[test]
    fn every_attack_is_made_visible() {
        let cases = [
            (
                "\u{1b}]52;c;cm0gLXJmIC8=\u{7}",
                "\\u{1b}]52;c;cm0gLXJmIC8=\\u{7}",
            ),
            ("\u{1b}[2J", "\\u{1b}[2J"),
            ("a\u{9b}31mb", "a\\u{9b}31mb"),
            ("ok\u{202e}cod.exe", "ok\\u{202e}cod.exe"),
            ("y\u{200b}es", "y\\u{200b}es"),
            ("nul\0", "nul\\u{0}"),
            ("cr\rlf", "cr\\u{d}lf"),
            ("tag\u{E0041}", "tag\\u{e0041}"),
        ];
        for (input, shown) in cases {
            assert_eq!(for_display(input), shown, "{input:?}");
        }
        assert_eq!(for_display_line("two\nlines\t!"), "two\\u{a}lines\\u{9}!");
    }

    #[test]
    fn forbidden_characters_are_named_with_their_position() {
        let cases = [
            ("a\u{1b}b", Lines::One, "U+001B ESCAPE at character 2"),
            ("ab\n", Lines::One, "U+000A LINE FEED at character 3"),
            (
                "é\u{200d}",
                Lines::One,
                "U+200D ZERO WIDTH JOINER at character 2",
            ),
            (
                "x\u{2067}",
                Lines::Many,
                "U+2067 RIGHT-TO-LEFT ISOLATE at character 2",
            ),
            (
                "\u{85}",
                Lines::Many,
                "U+0085 control character at character 1",
            ),
        ];
        for (text, lines, message) in cases {
            let found = forbidden_char(text, lines).expect(text);
            assert_eq!(found.to_string(), message);
        }
        assert_eq!(forbidden_char("line\n\tnext", Lines::Many), None);
        assert_eq!(forbidden_char("שלום", Lines::One), None);
        assert_eq!(forbidden_control("پنجره\u{200c}ها\n\tok"), None);
        assert_eq!(
            forbidden_control("a\u{200b}\u{9b}").map(|f| f.to_string()),
            Some("U+009B CONTROL SEQUENCE INTRODUCER at character 3".to_owned())
        );
    }
}
