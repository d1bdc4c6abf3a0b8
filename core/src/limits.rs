//! Size limits on what a model may submit. Every limit is checked at submission and
//! reported as a [`FormError`](crate::FormError) naming the offending field.
//!
//! Every size is counted in bytes of compact JSON *as askuser writes it*, escapes
//! included: a control character that arrived as one byte after unescaping is six
//! bytes (`\u0001`) in the log, and is counted as six.

/// The most questions one form may hold.
pub const MAX_QUESTIONS: usize = 64;
/// The most options one `select` or `multi_select` question may offer.
pub const MAX_OPTIONS: usize = 64;
/// The longest text (question text, context, header, option label or description), in bytes.
pub const MAX_TEXT_BYTES: usize = 4 * 1024;
/// The longest question id, in bytes.
pub const MAX_ID_BYTES: usize = 128;
/// The largest JSON Schema of a `schema` question, in bytes of compact JSON.
pub const MAX_SCHEMA_BYTES: usize = 64 * 1024;
/// The largest whole form, in bytes of compact JSON.
pub const MAX_FORM_BYTES: usize = 256 * 1024;
/// The most levels of predicates in one `when`: a comparison alone is one level, and
/// each `all` / `any` / `not` around it adds one.
pub const MAX_WHEN_DEPTH: usize = 16;
/// The longest answer a person may give, in bytes of compact JSON.
pub const MAX_ANSWER_BYTES: usize = 64 * 1024;
/// The longest field of an agent's origin ([`AgentOrigin`](crate::AgentOrigin):
/// its label, host, machine, directory, repository), in bytes of compact JSON.
pub const MAX_ORIGIN_FIELD_BYTES: usize = 512;
/// How many answers in a row to one question may be refused before the inquiry fails
/// (each refused answer is recorded, so this bounds what a confused answerer costs).
pub const MAX_REFUSED_ANSWERS: u32 = 10;

/// The exact length of `value` serialized as compact JSON (escapes included),
/// counted without building the text.
pub(crate) fn json_bytes<T: serde::Serialize + ?Sized>(value: &T) -> usize {
    let mut counter = ByteCounter(0);
    // Serializing plain data into a counter cannot fail; a failure counts as too large.
    match serde_json::to_writer(&mut counter, value) {
        Ok(()) => counter.0,
        Err(_) => usize::MAX,
    }
}

/// The length of `text` as a JSON string, quotes and escapes included.
pub(crate) fn json_string_bytes(text: &str) -> usize {
    2 + text
        .bytes()
        .map(|b| match b {
            b'"' | b'\\' | 0x08 | 0x0c | b'\n' | b'\r' | b'\t' => 2,
            0..=0x1f => 6,
            _ => 1,
        })
        .sum::<usize>()
}

struct ByteCounter(usize);

impl std::io::Write for ByteCounter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 = self.0.saturating_add(buf.len());
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn sizes_are_the_encoded_bytes() {
        let values = [
            json!("\u{1}\u{1}"),
            json!({"a\"b": ["\n\t\\", 1.5e300, -7, null, true, "é\u{7f}\u{9b}"]}),
            json!([]),
        ];
        for value in values {
            let text = serde_json::to_string(&value).unwrap();
            assert_eq!(json_bytes(&value), text.len(), "{text}");
            if let Some(s) = value.as_str() {
                assert_eq!(json_string_bytes(s), text.len());
            }
        }
        assert_eq!(json_string_bytes("\u{1}"), 8);
        assert_eq!(json_string_bytes("a\"\u{1f}é"), 2 + 1 + 2 + 6 + 2);
    }
}
