//! The errors of the core: problems with a submitted form ([`FormError`]), with an
//! answer ([`AnswerError`]), and with an input a host should not have handed in
//! ([`Refusal`]). None of them is ever a panic; each reaches the adapter as data.

use std::fmt;

use crate::input::At;

use serde::{Deserialize, Serialize};

use crate::event::{AnsweredBy, InquiryId, Target};
use crate::finished::Ending;
use crate::form::AnswerType;
use crate::text::{ForbiddenChar, first_difference, for_display_line};

/// One problem with a submitted form: where it is (a JSON pointer into the tool
/// arguments, such as `/questions/1/options`) and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}: {kind}", if path.is_empty() { "(the form)" } else { path.as_str() })]
pub struct FormError {
    /// A JSON pointer to the offending field; empty for the form as a whole.
    pub path: String,
    /// What is wrong, and what to change.
    pub kind: FormErrorKind,
}

impl FormError {
    /// A problem at `path`.
    pub fn new(path: impl Into<String>, kind: FormErrorKind) -> Self {
        Self {
            path: path.into(),
            kind,
        }
    }

    /// The message alone, without the path.
    pub fn message(&self) -> String {
        self.kind.to_string()
    }
}

/// Every problem found in a form, in the order of the fields.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct FormErrors(pub Vec<FormError>);

impl fmt::Display for FormErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, error) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            write!(f, "{error}")?;
        }
        Ok(())
    }
}

/// What is wrong with a form field. Each message says what to change.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FormErrorKind {
    /// A field has the wrong JSON type.
    #[error("must be {expected}")]
    WrongType {
        /// What the field must be, in words.
        expected: &'static str,
    },
    /// A required field is absent.
    #[error("is required: add {what}")]
    MissingField {
        /// What to add, in words.
        what: &'static str,
    },
    /// A field the shape does not know (reported only where the caller asks for it).
    #[error("unknown field `{field}`; remove it (known fields: {known})")]
    UnknownField {
        /// The unknown field's name.
        field: String,
        /// The fields that are known here.
        known: &'static str,
    },
    /// `answer_type` names no known type.
    #[error(
        "unknown answer_type `{found}`; use one of boolean, select, multi_select, text, schema"
    )]
    UnknownAnswerType {
        /// What was given.
        found: String,
    },
    /// The form has no questions.
    #[error("the form has no questions; add at least one")]
    NoQuestions,
    /// The form has more questions than allowed.
    #[error("the form has {count} questions; the limit is {max}: split it into several calls")]
    TooManyQuestions {
        /// How many were given.
        count: usize,
        /// The limit.
        max: usize,
    },
    /// The whole form is too large.
    #[error("the form is {bytes} bytes; the limit is {max}: shorten its texts or schemas")]
    FormTooLarge {
        /// Its size in bytes of compact JSON.
        bytes: usize,
        /// The limit.
        max: usize,
    },
    /// A question id is empty.
    #[error("is empty; give the question a short unique id such as \"env\"")]
    EmptyId,
    /// Two questions share an id.
    #[error("id \"{id}\" is already used by /questions/{first}; give every question a unique id")]
    DuplicateId {
        /// The repeated id.
        id: String,
        /// The index of the first question that has it.
        first: usize,
    },
    /// A text is empty.
    #[error("is empty; write the question as one line")]
    EmptyText,
    /// A question's text spans several lines.
    #[error("must be a single line; put the extra lines in `context`")]
    MultiLineText,
    /// A field holds a character that could act on a terminal or disguise the text:
    /// a control character (anywhere but a newline or tab in a multi-line field), a
    /// line or paragraph separator, or a format (bidi controls among them) or other
    /// default-ignorable character (in a multi-line field, all but the joiners,
    /// marks and tags scripts and emoji need).
    #[error("has {found}; {fix}")]
    ForbiddenCharacter {
        /// The character, and its position in the field.
        found: ForbiddenChar,
        /// What to write instead.
        fix: &'static str,
    },
    /// A text is longer than allowed.
    #[error("is {bytes} bytes long; the limit is {max}: shorten it")]
    TooLong {
        /// Its length in bytes of JSON (escapes counted as written).
        bytes: usize,
        /// The limit.
        max: usize,
    },
    /// A select kind has no `options`.
    #[error("answer_type `{answer_type}` needs `options`: add a list of at least one choice")]
    MissingOptions {
        /// The question's answer type.
        answer_type: AnswerType,
    },
    /// A select kind has an empty `options` list.
    #[error("is empty; answer_type `{answer_type}` needs at least one choice")]
    EmptyOptions {
        /// The question's answer type.
        answer_type: AnswerType,
    },
    /// `options` on a type that takes none.
    #[error(
        "`options` only goes with select and multi_select, and this question is `{answer_type}`: remove `options` or change answer_type"
    )]
    UnexpectedOptions {
        /// The question's answer type.
        answer_type: AnswerType,
    },
    /// More options than allowed.
    #[error("has {count} options; the limit is {max}")]
    TooManyOptions {
        /// How many were given.
        count: usize,
        /// The limit.
        max: usize,
    },
    /// An option label is empty.
    #[error("is empty; give every option a label")]
    EmptyLabel,
    /// Two options share a label.
    #[error(
        "option \"{label}\" is listed twice (first at index {first}); make every label distinct"
    )]
    DuplicateLabel {
        /// The repeated label.
        label: String,
        /// The index of its first appearance.
        first: usize,
    },
    /// Two options' labels differ, but only in characters that look alike once
    /// compatibility forms and confusable characters are folded (NFKC and UTS
    /// #39's skeleton): fullwidth `ＳＱＬｉｔｅ` and `SQLite`, Cyrillic `Аpprove`
    /// and Latin `Approve`. A person could not tell which is which.
    #[error(
        "option \"{}\" looks the same as option \"{}\" (index {first}): {}; reword one of them so that a person can tell every option apart",
        for_display_line(label),
        for_display_line(like),
        first_difference(label, like)
    )]
    LookAlikeLabel {
        /// The later label.
        label: String,
        /// The earlier label it looks like.
        like: String,
        /// The index of the earlier label.
        first: usize,
    },
    /// `allow_other` on a type that takes no options.
    #[error(
        "`allow_other` only goes with select and multi_select, and this question is `{answer_type}`: remove it"
    )]
    UnexpectedAllowOther {
        /// The question's answer type.
        answer_type: AnswerType,
    },
    /// A `schema` question without a schema.
    #[error(
        "answer_type `schema` needs `schema`: add a JSON Schema for the answer, such as {{\"type\": \"object\"}}"
    )]
    MissingSchema,
    /// `schema` on a type that takes none.
    #[error(
        "`schema` only goes with answer_type `schema`, and this question is `{answer_type}`: remove `schema` or change answer_type"
    )]
    UnexpectedSchema {
        /// The question's answer type.
        answer_type: AnswerType,
    },
    /// The schema is neither an object nor a boolean.
    #[error("must be a JSON Schema: an object such as {{\"type\": \"string\"}}, or true/false")]
    SchemaNotAnObject,
    /// The schema is too large.
    #[error("is {bytes} bytes; the limit is {max}: simplify the schema")]
    SchemaTooLarge {
        /// Its size in bytes of compact JSON.
        bytes: usize,
        /// The limit.
        max: usize,
    },
    /// The schema nests too deeply.
    #[error("nests deeper than {max} levels; flatten it")]
    SchemaTooDeep {
        /// The limit.
        max: usize,
    },
    /// A `$ref` (or `$dynamicRef`) that points outside the schema: never fetched.
    #[error(
        "\"{reference}\" points outside this schema; only local references such as \"#/$defs/name\" are allowed: inline the definition"
    )]
    SchemaExternalRef {
        /// The reference as given.
        reference: String,
    },
    /// The schema does not compile.
    #[error("is not a valid JSON Schema: {reason}")]
    SchemaInvalid {
        /// The compiler's message.
        reason: String,
    },
    /// The default is not a valid answer to its question.
    #[error("is not a valid answer to this question ({reason}): fix it or remove `default`")]
    InvalidDefault {
        /// Why, as an [`AnswerError`] message.
        reason: String,
    },
    /// A `when` predicate is not an object.
    #[error("must be an object such as {{\"question_id\": \"apply\", \"equals\": true}}")]
    WhenNotAnObject,
    /// A `when` predicate has a key it does not know.
    #[error(
        "unknown key `{key}` in a predicate; use question_id with one of equals, not_equals, one_of, contains, or one of all, any, not"
    )]
    WhenUnknownKey {
        /// The unknown key.
        key: String,
    },
    /// A `when` predicate with no operator or several.
    #[error(
        "a predicate needs exactly one operator (equals, not_equals, one_of, contains, all, any or not); found {}",
        if found.is_empty() { "none".to_owned() } else { found.join(", ") }
    )]
    WhenOperatorCount {
        /// The operators found.
        found: Vec<String>,
    },
    /// `all` / `any` / `not` beside a `question_id`.
    #[error(
        "`{operator}` takes nested predicates: remove question_id here and put it in each nested predicate"
    )]
    WhenCombinatorWithQuestion {
        /// The combinator.
        operator: String,
    },
    /// `all` / `any` that is not a list.
    #[error("`{operator}` must be a list of predicates")]
    WhenGroupNotAList {
        /// The combinator.
        operator: String,
    },
    /// An empty `all`, `any` or `one_of`.
    #[error("`{operator}` is empty; give at least one")]
    WhenEmptyGroup {
        /// The operator.
        operator: String,
    },
    /// `one_of` that is not a list.
    #[error("`one_of` must be a list of values")]
    WhenOneOfNotAList,
    /// A comparison without `question_id`.
    #[error("`{operator}` needs `question_id`: the id of an earlier question")]
    WhenMissingQuestionId {
        /// The comparison.
        operator: String,
    },
    /// Predicates nested too deeply.
    #[error("predicates nest deeper than {max} levels; flatten them")]
    WhenTooDeep {
        /// The limit.
        max: usize,
    },
    /// A predicate names a question the form does not have.
    #[error(
        "refers to \"{id}\", which is not a question in this form; use the id of an earlier question"
    )]
    WhenUnknownQuestion {
        /// The id named.
        id: String,
    },
    /// A predicate names a later question.
    #[error(
        "refers to \"{id}\", which comes later (/questions/{index}); a question may only depend on earlier questions: reorder them"
    )]
    WhenForwardReference {
        /// The id named.
        id: String,
        /// Where that question is.
        index: usize,
    },
    /// A predicate names its own question.
    #[error("refers to its own question \"{id}\"; a question may only depend on earlier questions")]
    WhenSelfReference {
        /// The id named.
        id: String,
    },
    /// A comparison with a value the named question can never have.
    #[error(
        "can never match: \"{id}\" is a {answer_type} question and its answer is never {value} ({reason})"
    )]
    WhenImpossibleValue {
        /// The id named.
        id: String,
        /// Its answer type.
        answer_type: AnswerType,
        /// The value compared with, as JSON.
        value: String,
        /// Why that value is impossible.
        reason: String,
    },
    /// `contains` on a question that is not `multi_select`.
    #[error(
        "`contains` needs a multi_select question, but \"{id}\" is `{answer_type}`: use equals or one_of"
    )]
    WhenContainsNotMultiSelect {
        /// The id named.
        id: String,
        /// Its answer type.
        answer_type: AnswerType,
    },
}

/// Why an answer does not fit its question. Recorded in
/// [`Event::AnswerRefused`](crate::Event::AnswerRefused) and carried by
/// [`Command::InvalidAnswer`](crate::Command::InvalidAnswer), serialized as
/// `{"code": "not_an_option", "value": .., "options": ..}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[serde(tag = "code", rename_all = "snake_case")]
#[non_exhaustive]
pub enum AnswerError {
    /// A boolean question got something else.
    #[error("expected true or false, got {found}")]
    ExpectedBool {
        /// The JSON type given.
        found: String,
    },
    /// A text or select question got something other than a string.
    #[error("expected a string, got {found}")]
    ExpectedString {
        /// The JSON type given.
        found: String,
    },
    /// A select answer that is not an option, where free text is not allowed.
    #[error("\"{value}\" is not one of the options: {options}")]
    NotAnOption {
        /// The answer given.
        value: String,
        /// The options, quoted and comma-separated.
        options: String,
    },
    /// An empty free-text answer to a select question.
    #[error("the answer is empty; pick an option or type an answer")]
    EmptyOther,
    /// A multi-select question got something other than a list.
    #[error("expected a list of options, got {found}")]
    ExpectedList {
        /// The JSON type given.
        found: String,
    },
    /// A multi-select list holds something other than a string.
    #[error("item {index} is {found}; every item must be an option label")]
    ExpectedLabel {
        /// Where in the list.
        index: usize,
        /// The JSON type given.
        found: String,
    },
    /// A multi-select list names an option twice.
    #[error("\"{label}\" is picked twice; pick each option at most once")]
    DuplicatePick {
        /// The repeated pick.
        label: String,
    },
    /// A schema answer that the schema rejects.
    #[error("does not match the schema: {message}")]
    SchemaViolation {
        /// The validator's messages, each with the path inside the answer.
        message: String,
    },
    /// An answer larger than allowed.
    #[error("the answer is {bytes} bytes; the limit is {max}")]
    TooLong {
        /// Its size in bytes of compact JSON.
        bytes: usize,
        /// The limit.
        max: usize,
    },
}

/// Why [`State::decide`](crate::State::decide) refused an input: a host used the
/// engine wrongly. Nothing is recorded and the state is unchanged; each variant says
/// what the host should do instead.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[serde(tag = "code", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Refusal {
    /// No inquiry has this id: it was never requested in this stream. Ask first.
    #[error("no inquiry \"{inquiry}\" was requested; send the request first")]
    UnknownInquiry {
        /// The id given.
        inquiry: InquiryId,
    },
    /// The inquiry has already been answered, cancelled, failed or ended; whoever
    /// finished it first won. Show how it ended instead
    /// ([`State::outcome`](crate::State::outcome)).
    #[error(
        "inquiry \"{inquiry}\" already finished{}; it takes no more input: show how it ended instead",
        ended.map(|how| format!(" ({})", how.words())).unwrap_or_default()
    )]
    InquiryFinished {
        /// The id given.
        inquiry: InquiryId,
        /// How it ended; `None` for one that finished too long ago to be
        /// remembered (see [`FINISHED_REMEMBERED`](crate::FINISHED_REMEMBERED)).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ended: Option<Ending>,
    },
    /// A request reuses an id this stream has seen. Use a new id for a new request.
    #[error(
        "inquiry \"{inquiry}\" was already requested in this stream; use a new id for a new request"
    )]
    DuplicateInquiry {
        /// The id given.
        inquiry: InquiryId,
    },
    /// An action naming a question the inquiry's form does not have (a typo in
    /// an id, an id from another form). Act on what the inquiry shows now,
    /// `current` ([`Prompt::at`](crate::Prompt::at) names it).
    #[error(
        "inquiry \"{inquiry}\" has no question \"{question}\": its form never asks it; act on what it shows now, {current}"
    )]
    UnknownQuestion {
        /// The inquiry.
        inquiry: InquiryId,
        /// The question named.
        question: String,
        /// What the inquiry shows now.
        current: At,
    },
    /// An action naming a question of the form that the inquiry is not asking at
    /// the step it is at (a stepless answer: that it is not asking now). Answer
    /// the question it asks, or go Back or Reply from it.
    #[error(
        "inquiry \"{inquiry}\" is asking question \"{expected}\" (step {step}), not \"{got}\": answer that question, or go back or reply from it"
    )]
    UnexpectedQuestion {
        /// The inquiry.
        inquiry: InquiryId,
        /// The question being asked.
        expected: String,
        /// The question the action named.
        got: String,
        /// The inquiry's step.
        step: u32,
    },
    /// A submit or a change of an answer (or an action naming the review) while
    /// the inquiry shows no review: it is asking `current`, or no review was
    /// ever wanted (a review shows once every question is answered, on a
    /// surface that asked for one with [`Input::WantReview`](crate::Input::WantReview)
    /// or [`AnswerInput::reviewed`](crate::AnswerInput::reviewed)). Answer the
    /// question being asked.
    #[error(
        "inquiry \"{}\" shows no review to submit or change an answer from: it shows {current}; answer that (a review shows once every question is answered, on a surface that asked for one)",
        current.inquiry
    )]
    NotInReview {
        /// What the inquiry shows now (its inquiry among it).
        current: At,
    },
    /// An answer (or an action naming a question) while every question is
    /// answered and the review is showing. Submit, go Back, change an answer
    /// or Reply from the review instead.
    #[error(
        "inquiry \"{inquiry}\" has every answer and shows its review (step {step}), not question \"{got}\": submit, go back, change an answer or reply from the review"
    )]
    InReview {
        /// The inquiry.
        inquiry: InquiryId,
        /// The question the action named.
        got: String,
        /// The inquiry's step: the review's.
        step: u32,
    },
    /// An action naming a step the inquiry has not reached: nothing was shown
    /// at it (a step made up, or taken from another inquiry). Act on what the
    /// inquiry shows now, `current`, naming its step.
    #[error(
        "inquiry \"{}\" never showed {shown}: it is at step {}; act on what it shows now, {current}",
        shown.inquiry, current.step
    )]
    FutureStep {
        /// What the action named (its inquiry among it).
        shown: At,
        /// What the inquiry shows now.
        current: At,
    },
    /// A change of an answer (from the review) to a question the person did not
    /// answer: it was skipped, or answered by the configuration or a remembered
    /// answer. Change one of the answers the person gave.
    #[error(
        "question \"{question}\" of inquiry \"{inquiry}\" has no answer the person gave, so there is none to change"
    )]
    NotTheirAnswer {
        /// The inquiry.
        inquiry: InquiryId,
        /// The question named.
        question: String,
    },
    /// `Back` with no earlier question the person answered.
    #[error("inquiry \"{inquiry}\" has no earlier answered question to go back to")]
    NothingToGoBackTo {
        /// The inquiry.
        inquiry: InquiryId,
    },
    /// An answer from someone the policy did not route the question to (the
    /// assistant answering a question for the person, or a configured or remembered
    /// answer handed in by a host, which only the engine itself applies).
    #[error(
        "question \"{question}\" of inquiry \"{inquiry}\" is for {}; an answer by {} is not accepted",
        target_name(*expected), answerer_name(*by)
    )]
    WrongAnswerer {
        /// The inquiry.
        inquiry: InquiryId,
        /// The question.
        question: String,
        /// Who the answer claimed to be from.
        by: AnsweredBy,
        /// Who the question was routed to.
        expected: Target,
    },
    /// An answer given ahead ([`Event::AnsweredAhead`](crate::Event::AnsweredAhead))
    /// or a form shown ([`Event::Shown`](crate::Event::Shown)) that does not fit
    /// the inquiry as it stands: `why` says what is wrong. Nothing is recorded.
    #[error("inquiry \"{inquiry}\" does not take this for question \"{question}\": {why}")]
    NotForThisQuestion {
        /// The inquiry.
        inquiry: InquiryId,
        /// The question named.
        question: String,
        /// What is wrong, in words for the host.
        why: String,
    },
    /// An answer, Back, Reply or submit for something the inquiry showed at an
    /// earlier step and no longer shows: another surface (a second tab, the
    /// terminal, an edited file) moved it on first. Nothing is recorded; show the person `current` (keeping what they
    /// typed) and say what changed.
    #[error(
        "inquiry \"{}\" moved on since {shown} was shown: it now shows {current}",
        shown.inquiry
    )]
    Stale {
        /// What the action named (its inquiry among it).
        shown: At,
        /// What the inquiry shows now.
        current: At,
    },
    /// `TimedOut` for an inquiry whose policy sets no timeout: it waits for an
    /// answer however long it takes. Fire timeouts only for inquiries whose
    /// policy has one.
    #[error("inquiry \"{inquiry}\" has no timeout in its policy; it cannot time out")]
    NoTimeout {
        /// The inquiry.
        inquiry: InquiryId,
    },
    /// A timeout fired before the inquiry's deadline
    /// ([`State::deadline`](crate::State::deadline)): the time to answer is not
    /// up. Nothing is recorded; keep showing the question, and fire again at or
    /// after `due_at_ms` (a surface whose clock runs ahead of the log's is told
    /// so here).
    #[error(
        "inquiry \"{inquiry}\" is not due to time out yet: {} of its time to answer are left; fire the timeout again at or after its deadline, {due_at_ms} ms after the Unix epoch",
        seconds(due_at_ms.saturating_sub(*fired_at_ms))
    )]
    NotYetDue {
        /// The inquiry.
        inquiry: InquiryId,
        /// Its deadline, in milliseconds since the Unix epoch.
        due_at_ms: u64,
        /// When the refused timeout was fired, in milliseconds since the Unix epoch.
        fired_at_ms: u64,
    },
    /// A result handed over ([`Input::Deliver`](crate::Input::Deliver)) that is
    /// not owed: the inquiry is open, its result was handed over already (by
    /// another surface of the same asker, say), its asker does not take results
    /// it missed, or it finished too long ago. Nothing is recorded; do not hand
    /// the result over again.
    #[error("inquiry \"{inquiry}\" has no result owed to its asker: {why}")]
    NothingOwed {
        /// The inquiry.
        inquiry: InquiryId,
        /// Why, in words.
        why: String,
    },
    /// An agent's origin ([`AgentOrigin`](crate::AgentOrigin)) with a field that is
    /// too long or not one line of plain text. Send the field shorter, without
    /// control, bidi-control or invisible characters, or leave it out.
    #[error("the agent's origin cannot be recorded: its {field} {why}")]
    BadOrigin {
        /// The field's name (`host`, `directory`, ...).
        field: String,
        /// What is wrong with it, in words.
        why: String,
    },
}

impl Refusal {
    /// The refusal's code, as it is serialized (`"code"`): a stable name a host
    /// matches on (the JSON-lines protocol's `error` lines carry it).
    pub fn code(&self) -> &'static str {
        match self {
            Refusal::UnknownInquiry { .. } => "unknown_inquiry",
            Refusal::InquiryFinished { .. } => "inquiry_finished",
            Refusal::DuplicateInquiry { .. } => "duplicate_inquiry",
            Refusal::UnknownQuestion { .. } => "unknown_question",
            Refusal::UnexpectedQuestion { .. } => "unexpected_question",
            Refusal::NotInReview { .. } => "not_in_review",
            Refusal::InReview { .. } => "in_review",
            Refusal::FutureStep { .. } => "future_step",
            Refusal::NotTheirAnswer { .. } => "not_their_answer",
            Refusal::NothingToGoBackTo { .. } => "nothing_to_go_back_to",
            Refusal::WrongAnswerer { .. } => "wrong_answerer",
            Refusal::NotForThisQuestion { .. } => "not_for_this_question",
            Refusal::Stale { .. } => "stale",
            Refusal::NoTimeout { .. } => "no_timeout",
            Refusal::NotYetDue { .. } => "not_yet_due",
            Refusal::NothingOwed { .. } => "nothing_owed",
            Refusal::BadOrigin { .. } => "bad_origin",
        }
    }

    /// What the inquiry shows now, for a refusal of an action that named
    /// something else ([`Refusal::Stale`], [`Refusal::UnknownQuestion`],
    /// [`Refusal::UnexpectedQuestion`], [`Refusal::InReview`],
    /// [`Refusal::NotInReview`], [`Refusal::FutureStep`]): show the person
    /// that. `None` for any other refusal.
    pub fn current(&self) -> Option<At> {
        Some(match self {
            Refusal::Stale { current, .. }
            | Refusal::UnknownQuestion { current, .. }
            | Refusal::NotInReview { current }
            | Refusal::FutureStep { current, .. } => current.clone(),
            Refusal::UnexpectedQuestion {
                inquiry,
                expected,
                step,
                ..
            } => At::question(inquiry.clone(), expected.clone(), *step),
            Refusal::InReview { inquiry, step, .. } => At::review(inquiry.clone(), *step),
            _ => return None,
        })
    }
}

/// One problem with a rejected tool call, as recorded: the JSON pointer of the
/// offending field (in the dialect's own arguments, or the form's) and what to
/// change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Problem {
    /// A JSON pointer into the tool arguments; empty for the arguments as a whole.
    pub path: String,
    /// What is wrong and what to change, without the path.
    pub message: String,
}

impl Problem {
    /// A problem at `path` (a JSON pointer; empty for the arguments as a whole).
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            path: path.into(),
            message: message.into(),
        }
    }
}

/// `path: message`, with `(arguments)` for the empty path: one line of the tool
/// error text a model reads.
impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let path = if self.path.is_empty() {
            "(arguments)"
        } else {
            self.path.as_str()
        };
        write!(f, "{path}: {}", self.message)
    }
}

impl From<&FormError> for Problem {
    fn from(error: &FormError) -> Self {
        Problem {
            path: error.path.clone(),
            message: error.message(),
        }
    }
}

/// Milliseconds as seconds, to the millisecond: `30.000 s`, `0.250 s`.
fn seconds(ms: u64) -> String {
    format!("{}.{:03} s", ms / 1000, ms % 1000)
}

/// Who answered, in words: `"the user"`, `"the assistant"`, ...
pub(crate) fn answerer_name(by: AnsweredBy) -> &'static str {
    match by {
        AnsweredBy::User => "the user",
        AnsweredBy::Assistant => "the assistant",
        AnsweredBy::Config => "configuration",
        AnsweredBy::Cache => "a remembered answer",
        AnsweredBy::Timeout => "the timeout",
    }
}

/// Who a question is for, in words: `"the user"` or `"the assistant"`.
fn target_name(target: Target) -> &'static str {
    match target {
        Target::User => "the user",
        Target::Assistant => "the assistant",
    }
}
