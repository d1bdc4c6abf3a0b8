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
//!   transcript): every control, format (bidi controls among them), line- or
//!   paragraph-separating and default-ignorable character becomes a visible
//!   `\u{…}` escape, so nothing in it can act on the terminal and nothing is
//!   hidden. Right-to-left *text* (Arabic, Hebrew) is left as it is.
//! - [`forbidden_char`] is what validation refuses in ids, labels, headers and
//!   question texts, naming the character and its position: the same characters,
//!   from Unicode's own properties (`General_Category` `Cc`, `Cf`, `Zl`, `Zp` and
//!   `Default_Ignorable_Code_Point`), so a string validation took is shown as it
//!   is. Free text ([`forbidden_control`]) keeps the joiners, marks and tags that
//!   scripts and emoji need.
//!
//! Validation also refuses two labels of one question that look the same once
//! compatibility forms and confusable characters are folded (NFKC, then UTS #39's
//! skeleton): fullwidth `ＳＱＬｉｔｅ` beside `SQLite`, Cyrillic `Аpprove` beside
//! Latin `Approve`.
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
use std::sync::OnceLock;

use unicode_normalization::{IsNormalized, UnicodeNormalization as _};
use unicode_properties::{GeneralCategory, UnicodeGeneralCategory as _};
use unicode_security::GeneralSecurityProfile as _;
use unicode_security::general_security_profile::IdentifierType;

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
/// a format character (Unicode's `Cf`: bidi overrides, embeddings, isolates and
/// marks, zero-width characters and joiners, invisible operators, tags…), a line
/// or paragraph separator (U+2028, U+2029), or any other default-ignorable code
/// point (variation selectors, Hangul fillers): whatever acts on a terminal or
/// draws nothing, so that a text could look like another.
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

/// The first character of `text` that validation refuses in free text that may
/// hold any script and any emoji (context, option descriptions, string defaults,
/// strings inside a schema): a C0 or C1 control character or DEL other than
/// newline and tab, a bidi override, embedding or isolate (U+202A–U+202E,
/// U+2066–U+2069, which can make a text read backwards), a line or paragraph
/// separator (U+2028, U+2029: write a newline), or another invisible format
/// or default-ignorable character. Kept, because scripts and emoji need them:
/// the joiners (ZWNJ, ZWJ), the bidi marks (LRM, RLM, ALM), the zero-width
/// space, the word joiner, the soft hyphen, emoji's tag characters and every
/// nonspacing mark (variation selectors among them).
pub fn forbidden_control(text: &str) -> Option<ForbiddenChar> {
    if text.is_ascii() {
        return forbidden_char(text, Lines::Many);
    }
    text.chars()
        .enumerate()
        .find(|&(_, c)| c != '\n' && c != '\t' && is_unsafe(c) && !kept_in_free_text(c))
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

/// An answer in words for a person, on one line: the one rule every surface
/// (the terminal, the web inbox, `askuser answer`, transcripts, event words)
/// tells an answer by; each only styles it.
///
/// `Yes` / `No` (as the choice reads); a label or text as it is, its lines
/// joined with ` ⏎ `, and an empty text as `""`; a list of labels joined with
/// `, ` (`none` when empty); `nothing` for null; any other JSON compact. Not yet
/// safe to show: pass it through [`for_display`] or [`for_display_line`].
///
/// ```
/// use askuser_core::text::answer_words;
/// use serde_json::json;
///
/// assert_eq!(answer_words(&json!(true)), "Yes");
/// assert_eq!(answer_words(&json!("one\ntwo")), "one ⏎ two");
/// assert_eq!(answer_words(&json!("")), r#""""#);
/// assert_eq!(answer_words(&json!(["auth", "api"])), "auth, api");
/// assert_eq!(answer_words(&json!([])), "none");
/// assert_eq!(answer_words(&json!(null)), "nothing");
/// assert_eq!(answer_words(&json!({"percent": 5})), r#"{"percent":5}"#);
/// ```
pub fn answer_words(value: &serde_json::Value) -> String {
    use serde_json::Value;
    let text = |text: &str| match text {
        "" => "\"\"".to_owned(),
        text => text.lines().collect::<Vec<_>>().join(" ⏎ "),
    };
    match value {
        Value::Bool(true) => "Yes".to_owned(),
        Value::Bool(false) => "No".to_owned(),
        Value::Null => "nothing".to_owned(),
        Value::String(one) => text(one),
        Value::Array(items) if items.is_empty() => "none".to_owned(),
        Value::Array(items) if items.iter().all(Value::is_string) => (items.iter())
            .filter_map(Value::as_str)
            .map(text)
            .collect::<Vec<_>>()
            .join(", "),
        other => other.to_string(),
    }
}

/// What happens when the time to answer runs out, in words for a countdown:
/// the one wording of every surface (the terminal's countdown line, the web's).
///
/// ```
/// use askuser_core::{OnTimeout, text::on_timeout_words};
/// assert_eq!(on_timeout_words(OnTimeout::EndTurn), "the turn ends and nothing is sent");
/// ```
pub fn on_timeout_words(action: crate::OnTimeout) -> &'static str {
    match action {
        crate::OnTimeout::Cancel => "the answers so far are sent, marked as not answered in time",
        crate::OnTimeout::Defaults => {
            "the remaining questions take their defaults and the answers are sent"
        }
        crate::OnTimeout::EndTurn => "the turn ends and nothing is sent",
    }
}

/// A length of time in milliseconds, in words a person and a model read alike:
/// whole seconds under two minutes, then minutes (and seconds), then hours (and
/// minutes); a time that is not whole seconds in milliseconds. The one wording
/// of a timeout's length, in a tool result and in a transcript.
///
/// ```
/// use askuser_core::text::duration_words;
/// assert_eq!(duration_words(1_000), "1 second");
/// assert_eq!(duration_words(60_000), "60 seconds");
/// assert_eq!(duration_words(600_000), "10 minutes");
/// assert_eq!(duration_words(150_000), "2 minutes 30 seconds");
/// assert_eq!(duration_words(7_260_000), "2 hours 1 minute");
/// assert_eq!(duration_words(1_500), "1500 ms");
/// ```
pub fn duration_words(ms: u64) -> String {
    let unit = |n: u64, one: &str| {
        if n == 1 {
            format!("1 {one}")
        } else {
            format!("{n} {one}s")
        }
    };
    let both = |big: u64, big_unit: &str, small: u64, small_unit: &str| match small {
        0 => unit(big, big_unit),
        _ => format!("{} {}", unit(big, big_unit), unit(small, small_unit)),
    };
    if !ms.is_multiple_of(1000) {
        return format!("{ms} ms");
    }
    match ms / 1000 {
        seconds @ 0..120 => unit(seconds, "second"),
        seconds @ 120..7200 => both(seconds / 60, "minute", seconds % 60, "second"),
        seconds => both(seconds / 3600, "hour", seconds % 3600 / 60, "minute"),
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

/// What `text` looks like to a person, for telling look-alike labels apart: its
/// NFKC form (fullwidth letters, ligatures and other compatibility forms folded
/// to their plain letters) taken to its UTS #39 confusable skeleton (Cyrillic
/// `А` to Latin `A`, `ｌ`, `1` and `I` to `l`, default-ignorable characters
/// dropped). Two texts with the same look can be mistaken for each other.
pub(crate) fn look(text: &str) -> String {
    if text.is_ascii() {
        // NFKC and NFD leave ASCII as it is, so its skeleton is its characters'
        // prototypes one after the other, when those are ASCII too.
        let looks = ascii_looks();
        let mut out = String::with_capacity(text.len());
        for b in text.bytes() {
            match looks.get(usize::from(b)) {
                Some(Some(shape)) => out.push_str(shape),
                _ => return unicode_security::skeleton(text).collect(),
            }
        }
        return out;
    }
    // Most text is in NFKC already, which the quick check tells without
    // normalising.
    if unicode_normalization::is_nfkc_quick(text.chars()) == IsNormalized::Yes {
        return unicode_security::skeleton(text).collect();
    }
    let folded: String = text.nfkc().collect();
    unicode_security::skeleton(&folded).collect()
}

/// Each ASCII character's skeleton, where it is ASCII (`1` is `l`, `m` is `rn`),
/// computed once: labels are mostly ASCII, and this spares the normalisation.
fn ascii_looks() -> &'static [Option<Box<str>>; 128] {
    static LOOKS: OnceLock<[Option<Box<str>>; 128]> = OnceLock::new();
    LOOKS.get_or_init(|| {
        std::array::from_fn(|i| {
            let c = char::from(u8::try_from(i).unwrap_or_default());
            let mut buffer = [0; 4];
            let shape: String = unicode_security::skeleton(c.encode_utf8(&mut buffer)).collect();
            shape.is_ascii().then(|| shape.into_boxed_str())
        })
    })
}

/// Whether two texts could be mistaken for each other by a person: the same
/// once compatibility forms and confusable characters are folded (NFKC, then
/// UTS #39's skeleton). What validation refuses between two labels of one
/// question.
///
/// ```
/// use askuser_core::text::looks_alike;
///
/// assert!(looks_alike("ＳＱＬｉｔｅ", "SQLite"));
/// assert!(looks_alike("\u{410}pprove", "Approve"));
/// assert!(!looks_alike("Approve", "Reject"));
/// ```
pub fn looks_alike(a: &str, b: &str) -> bool {
    look(a) == look(b)
}

/// Where two texts first differ: the first character that is not the same in
/// both (counted from 1) and the two characters there; `None` when one is the
/// other's start (or they are equal).
///
/// ```
/// use askuser_core::text::first_differing_char;
///
/// assert_eq!(first_differing_char("\u{410}pprove", "Approve"), Some((1, '\u{410}', 'A')));
/// assert_eq!(first_differing_char("beta", "bet"), None);
/// ```
pub fn first_differing_char(a: &str, b: &str) -> Option<(usize, char, char)> {
    a.chars()
        .zip(b.chars())
        .enumerate()
        .find(|(_, (a, b))| a != b)
        .map(|(i, (a, b))| (i + 1, a, b))
}

/// Where two different texts that look alike differ, in words: `character 1
/// is U+0410 here but U+0041 there`, or how long each is when one is the
/// other's start.
pub(crate) fn first_difference(here: &str, there: &str) -> String {
    match first_differing_char(here, there) {
        Some((at, a, b)) => format!(
            "character {at} is U+{:04X} here but U+{:04X} there",
            u32::from(a),
            u32::from(b)
        ),
        None => format!(
            "it has {} characters and the other {}",
            here.chars().count(),
            there.chars().count()
        ),
    }
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

/// Whether `c` is a control, format, line-separating or invisible character:
/// a control (`Cc`), a format character (`Cf`: the bidi controls, zero-width
/// characters, the byte-order mark, invisible operators, tag characters, the
/// musical and shorthand format controls…), a line or paragraph separator (`Zl`,
/// `Zp`), or any other Unicode default-ignorable code point (variation selectors,
/// Hangul fillers, reserved ignorables). Unicode's own properties, not a list of
/// ours, so a character added to them is refused without a change here.
fn is_unsafe(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_control();
    }
    match c.general_category() {
        GeneralCategory::Control
        | GeneralCategory::Format
        | GeneralCategory::LineSeparator
        | GeneralCategory::ParagraphSeparator => true,
        // Unicode derives Default_Ignorable_Code_Point from format characters,
        // variation selectors and Other_Default_Ignorable_Code_Point, whose
        // members are nonspacing marks, other letters (the Hangul fillers) and
        // unassigned code points: only these need the (slower) look-up, and of
        // them only those UTS #39 gives no identifier type, or the types
        // Default_Ignorable or Deprecated (letters of a script need not).
        GeneralCategory::NonspacingMark
        | GeneralCategory::OtherLetter
        | GeneralCategory::Unassigned => {
            matches!(
                c.identifier_type(),
                None | Some(IdentifierType::Default_Ignorable | IdentifierType::Deprecated)
            ) && is_default_ignorable(c)
        }
        _ => false,
    }
}

/// Unicode's `Default_Ignorable_Code_Point`: what a renderer draws as nothing.
/// UTS #39's skeleton removes exactly these (it takes the canonical decomposition
/// first, and no default-ignorable character decomposes), so a character whose
/// skeleton is empty is one; `unicode-security` keeps the table.
fn is_default_ignorable(c: char) -> bool {
    let mut buffer = [0; 4];
    unicode_security::skeleton(c.encode_utf8(&mut buffer))
        .next()
        .is_none()
}

/// The invisible characters free text keeps, because scripts and emoji need
/// them: the joiners (ZWNJ, ZWJ), the bidi marks (LRM, RLM, ALM), the zero-width
/// space and word joiner (word breaks in Thai, Khmer, Lao), the soft hyphen, the
/// tag characters of emoji flags (U+E0020–U+E007F), and every nonspacing mark
/// (variation selectors, the combining grapheme joiner).
fn kept_in_free_text(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}' | '\u{061C}' | '\u{200B}'..='\u{200F}' | '\u{2060}' | '\u{E0020}'..='\u{E007F}'
    ) || c.general_category() == GeneralCategory::NonspacingMark
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
        '\u{2028}' => "LINE SEPARATOR",
        '\u{2029}' => "PARAGRAPH SEPARATOR",
        c if c.is_control() => "control character",
        c if c.general_category() == GeneralCategory::Format => "format character",
        _ => "invisible character",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_ignorables_are_unicodes() {
        // Compared once with ICU4X's `DefaultIgnorableCodePoint` over every code
        // point: the same set, and every member a format character, nonspacing
        // mark, other letter or unassigned (what `is_unsafe` looks up). Its
        // ranges' ends, and neighbours that are not in it.
        let ignorable = [
            '\u{ad}',
            '\u{34f}',
            '\u{61c}',
            '\u{115f}',
            '\u{17b5}',
            '\u{180f}',
            '\u{200b}',
            '\u{206f}',
            '\u{3164}',
            '\u{fe0f}',
            '\u{feff}',
            '\u{ffa0}',
            '\u{fff8}',
            '\u{1bca3}',
            '\u{1d17a}',
            '\u{e0000}',
            '\u{e0fff}',
        ];
        let not = [
            'a',
            ' ',
            '\u{a0}',
            '\u{3000}',
            '\u{fff9}',
            '\u{1d172}',
            '\u{1bca4}',
            'é',
        ];
        assert!(
            ignorable
                .iter()
                .all(|&c| is_default_ignorable(c) && is_unsafe(c))
        );
        assert!(!not.iter().any(|&c| is_default_ignorable(c)));
    }

    #[test]
    fn every_default_ignorable_and_format_character_is_unsafe() {
        // Over every code point, against ICU4X's tables: `is_unsafe` is exactly
        // controls, format characters, separators and default-ignorables (its
        // short cuts by category and identifier type lose none).
        use icu_properties::props::{DefaultIgnorableCodePoint, GeneralCategory as Icu};
        use icu_properties::{CodePointMapData, CodePointSetData};
        let ignorable = CodePointSetData::new::<DefaultIgnorableCodePoint>();
        let category = CodePointMapData::<Icu>::new();
        let missed: Vec<char> = ('\0'..=char::MAX)
            .filter(|&c| {
                let expected = ignorable.contains(c)
                    || matches!(
                        category.get(c),
                        Icu::Control | Icu::Format | Icu::LineSeparator | Icu::ParagraphSeparator
                    );
                // ICU's data may be of an older Unicode than unicode-security's:
                // a code point ICU does not know yet is left out (but for the
                // unassigned it already counts as default-ignorable).
                let known = category.get(c) != Icu::Unassigned || ignorable.contains(c);
                known && expected != is_unsafe(c)
            })
            .collect();
        assert_eq!(missed, Vec::<char>::new());
    }

    #[test]
    fn looks_fold_compatibility_forms_and_confusables() {
        assert_eq!(look("ＳＱＬｉｔｅ"), look("SQLite"));
        assert_eq!(look("\u{410}pprove"), look("Approve"));
        assert_ne!(look("Approve"), look("approve"));
        assert!(looks_alike("rn", "m") && looks_alike("0", "O") && looks_alike("I", "l"));
        assert!(looks_alike("1", "l") && !looks_alike("a", "A"));
        assert_ne!(look("日本語"), look("中文"));
        // The ASCII shortcut gives the skeleton itself.
        let printable: String = (' '..='~').collect();
        for text in [printable.as_str(), "Admin", "l0g", "rn|1I", "a`b^c~"] {
            assert_eq!(
                look(text),
                unicode_security::skeleton(text).collect::<String>()
            );
        }
        for c in '\0'..='\u{7f}' {
            let text = c.to_string();
            assert_eq!(
                look(&text),
                unicode_security::skeleton(&text).collect::<String>()
            );
        }
        assert_eq!(
            first_difference("ab", "abc"),
            "it has 2 characters and the other 3"
        );
    }

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
            // Issue 28: format characters outside the old list, separators and
            // other default-ignorables (as an old log may still hold them).
            ("Appr\u{1d173}ove", "Appr\\u{1d173}ove"),
            ("Appro\u{1bca0}ve", "Appro\\u{1bca0}ve"),
            ("Approve\u{2028}", "Approve\\u{2028}"),
            ("para\u{2029}", "para\\u{2029}"),
            ("\u{3164}\u{ffa0}", "\\u{3164}\\u{ffa0}"),
            ("x\u{e01ef}\u{2065}", "x\\u{e01ef}\\u{2065}"),
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
        assert_eq!(
            forbidden_char("ok\u{2028}", Lines::Many).map(|f| f.to_string()),
            Some("U+2028 LINE SEPARATOR at character 3".to_owned())
        );
        assert_eq!(forbidden_char("שלום", Lines::One), None);
        assert_eq!(forbidden_control("پنجره\u{200c}ها\n\tok"), None);
        // What scripts and emoji need stays in free text; what only hides goes.
        assert_eq!(
            forbidden_control(
                "👩\u{200d}💻 ❤\u{fe0f} 🏴\u{e0067}\u{e0062}\u{e007f} ไทย\u{200b}x \u{200f}\u{ad}\u{2060}\u{34f}"
            ),
            None
        );
        for (text, message) in [
            ("a\u{2029}", "U+2029 PARAGRAPH SEPARATOR at character 2"),
            ("a\u{1d173}", "U+1D173 format character at character 2"),
            (
                "\u{feff}",
                "U+FEFF ZERO WIDTH NO-BREAK SPACE at character 1",
            ),
            ("\u{3164}", "U+3164 invisible character at character 1"),
            ("\u{e0001}", "U+E0001 format character at character 1"),
        ] {
            assert_eq!(
                forbidden_control(text).map(|f| f.to_string()).as_deref(),
                Some(message)
            );
        }
        assert_eq!(
            forbidden_control("a\u{200b}\u{9b}").map(|f| f.to_string()),
            Some("U+009B CONTROL SEQUENCE INTRODUCER at character 3".to_owned())
        );
    }
}
