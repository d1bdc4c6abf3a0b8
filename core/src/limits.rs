//! Size limits on what a model may submit. Every limit is checked at submission and
//! reported as a [`FormError`](crate::FormError) naming the offending field.

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
/// The deepest nesting of `all` / `any` / `not` in one `when` predicate.
pub const MAX_WHEN_DEPTH: usize = 16;
/// The longest answer a person may give, in bytes of compact JSON.
pub const MAX_ANSWER_BYTES: usize = 64 * 1024;
/// How many answers in a row to one question may be refused before the inquiry fails
/// (each refused answer is recorded, so this bounds what a confused answerer costs).
pub const MAX_REFUSED_ANSWERS: u32 = 10;
