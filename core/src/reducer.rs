//! The state and its infallible apply step: `(State, Event) → (State', [Command])`.
//!
//! Deciding (validation, policy, who may answer) is in `decide.rs`; this file only
//! moves the state. Applying reads what an event recorded and never validates again,
//! so a replay gives the same states and commands whatever validator is linked in.

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::command::{Command, OutcomeStatus, Slot};
use crate::decide::Decision;
use crate::error::Refusal;
use crate::event::{
    AgentOrigin, AnsweredBy, CancelReason, Event, InquiryId, OnTimeout, Origin, Persistence,
    Policy, Request, Surface,
};
use crate::finished::{Ending, FinishedInquiry};
use crate::inquiry::Open;
use crate::limits::MAX_REFUSED_ANSWERS;
use crate::table::Table;
use crate::text::same_text;
use crate::used::Used;
use crate::valid_form::ValidForm;

/// How many finished inquiries a [`State`] keeps a record of, the oldest forgotten
/// first, so that the state's size does not grow with the log's length. (Every id
/// ever requested is still known as used: see [`State::decide`].) A record is what
/// tells a late answer or a second surface how the inquiry ended, and holds what
/// it sent ([`State::outcome`]); 32 covers every race a person can run (a race is
/// on the inquiry just finished, from another window or process), and keeps a
/// host that follows 1,000 streams at a bounded size whatever their length: a
/// record is its slot plus the answers it sent and its call (in memory its form is
/// the request's, shared; a snapshot writes the form with each record). It was
/// 64 until records held results: at 64, an inbox following 1,000 streams of 500
/// finished inquiries each took 75 MB against 64 MB before (benches/README.md).
pub const FINISHED_REMEMBERED: usize = 32;

/// Everything the engine knows: the open inquiries, a record of the last
/// [`FINISHED_REMEMBERED`] finished ones, the ids ever requested, and the answers
/// remembered for the current turn. Built only by applying events.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct State {
    pub(crate) inquiries: Table<Inquiry>,
    /// The finished inquiries still in `inquiries`, oldest first.
    #[serde(default)]
    finished_order: VecDeque<InquiryId>,
    /// A 64-bit digest of every inquiry id requested in this stream (8 bytes each),
    /// so that an id is never reused, however long ago it finished.
    #[serde(default)]
    pub(crate) used: Used,
    /// The current turn, once a request named one.
    turn: Option<String>,
    /// Answers remembered for the turn: tool name → question id → answer.
    remembered: BTreeMap<String, BTreeMap<String, Value>>,
    /// Who is asking on this stream, from where: the origin the last
    /// [`Event::Attached`] recorded.
    /// (Boxed: most streams have none, and a state stays small.)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    agent: Option<Box<AgentOrigin>>,
    /// What the last request applied used, reused by the next one that shares it.
    #[serde(skip)]
    recent: Recent,
}

/// The label and origin of the last request applied: the next request with the
/// same label or origin shares it instead of copying it. (A form needs no such
/// cache: what the engine derives from it is kept with the shared `Arc<Form>`, so
/// a log reader's requests of one form, and the states of one process, derive it
/// once.) A cache: it never changes what the state means, so it is not compared,
/// serialized or shown.
#[derive(Clone, Default)]
struct Recent {
    label: Option<Arc<str>>,
    origin: Option<Arc<Origin>>,
    /// Set while [`State::replay_at`] applies: no prompt is built, and a result
    /// is moved into its record rather than copied.
    quiet: bool,
    /// The commands [`State::replay_at`] pushes and nobody reads (a result, for
    /// a moment), kept empty between calls so that their buffer is allocated once.
    unyielded: Vec<Command>,
}

impl Recent {
    /// A request's origin, shared with the last request's when it is the same.
    fn origin(&mut self, origin: &Origin) -> Arc<Origin> {
        match &self.origin {
            Some(recent) if same_origin(recent, origin) => Arc::clone(recent),
            _ => Arc::clone(self.origin.insert(Arc::new(origin.clone()))),
        }
    }

    /// A request's label, shared with the last request's when it is the same text.
    fn label(&mut self, label: Option<&str>) -> Option<Arc<str>> {
        let label = label?;
        match &self.label {
            Some(recent) if same_text(recent, label) => Some(Arc::clone(recent)),
            _ => Some(Arc::clone(self.label.insert(Arc::from(label)))),
        }
    }
}

/// The record of an inquiry whose result `out` got last: that result itself
/// while [`State::replay_at`] applies (nobody reads `out` then), else a copy,
/// which `out` keeps for its host.
fn finished_record(
    quiet: bool,
    out: &mut Vec<Command>,
    call: Option<Arc<crate::event::ToolCall>>,
    owed: bool,
) -> FinishedInquiry {
    if quiet {
        FinishedInquiry::taking(out.pop(), call, owed)
    } else {
        FinishedInquiry::new(out.last(), call, owed)
    }
}

/// `a == b`, without `memcmp` on empty texts (see [`same_text`]).
fn same_origin(a: &Origin, b: &Origin) -> bool {
    same_text(&a.tool, &b.tool)
        && same_text(&a.turn, &b.turn)
        && a.subagent == b.subagent
        && a.resumes == b.resumes
}

impl PartialEq for Recent {
    /// Always equal: a cache does not tell two states apart.
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl std::fmt::Debug for Recent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Recent")
    }
}

/// One inquiry: open, or finished (kept so that late events get a clear refusal,
/// and a host can show or send its result again). Neither is boxed: the table's
/// slots are reused, so an inquiry costs no allocation of its own, and what a
/// finished one ended with (its answers shared with the command that sent them)
/// is smaller than an open one, so it does not make any slot larger.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[allow(clippy::large_enum_variant)] // see above; a table holds ~1,000 of them
pub(crate) enum Inquiry {
    Open(Open),
    Finished(FinishedInquiry),
}

/// Decides one [`Input`](crate::Input) and applies the events it stands for: the
/// one-call convenience for a host that keeps no log (a host that records uses
/// `askuser_store::Session::handle`, which appends between the two steps).
///
/// # Errors
/// The [`Refusal`] when the input does not fit the state (an action on something
/// no longer shown is [`Refusal::Stale`]); the state is unchanged.
pub fn reduce(state: &mut State, input: &crate::Input) -> Result<Vec<Command>, Refusal> {
    let decision = state.decide(input)?;
    let mut commands = Vec::with_capacity(1);
    state.apply_decision(decision, &mut commands);
    Ok(commands)
}

/// Judges an event as if it were handed in, then applies it: for the engine's own
/// tests of deciding and applying (the event strategies), never a host's road.
#[cfg(any(test, feature = "proptest"))]
pub(crate) fn reduce_event(state: &mut State, event: &Event) -> Result<Vec<Command>, Refusal> {
    let decision = state.decide_event(event)?;
    let mut commands = Vec::with_capacity(1);
    state.apply_decision(decision, &mut commands);
    Ok(commands)
}

/// The FNV-1a digest of an inquiry id: fixed, so a replay gives the same state.
pub(crate) fn digest(id: &str) -> u64 {
    id.bytes().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    })
}

impl State {
    /// A state with nothing in it.
    pub fn new() -> Self {
        Self::default()
    }

    /// Applies one recorded event (what [`State::decide`] decided, read back from a
    /// log), appending the commands it yields to `out` (reuse `out` to avoid
    /// allocating). Infallible and validation-free: it trusts the decision the event
    /// records. An event that does not fit the state (which `decide` never yields)
    /// is ignored and yields nothing.
    ///
    /// It learns no time: an inquiry with a timeout that this moves has no
    /// deadline until an event applied with its recorded time moves it again (see
    /// [`State::apply_at`], what a host with a log uses).
    pub fn apply(&mut self, event: &Event, out: &mut Vec<Command>) {
        self.apply_prepared(event, None, None, out);
    }

    /// [`State::apply`], for an event the log recorded at `recorded_at_ms`
    /// (milliseconds since the Unix epoch, the log's `Recorded::at`): an inquiry
    /// with a timeout whose question or review it puts up counts its
    /// [deadline](State::deadline) from that time. A replay, a catch-up and a
    /// session after its append all apply this way, so they reach the same state.
    pub fn apply_at(&mut self, event: &Event, recorded_at_ms: u64, out: &mut Vec<Command>) {
        self.apply_prepared(event, None, Some(recorded_at_ms), out);
    }

    /// [`State::apply_at`] for a host that wants the state alone (a load, a
    /// replay whose commands nobody reads): the same state, without building the
    /// prompts the event would yield. A replay of a million events spends a
    /// tenth of its applying on prompts it then drops.
    pub fn replay_at(&mut self, event: &Event, recorded_at_ms: u64) {
        // Only a result is pushed here, and its record takes it back out.
        let mut unyielded = std::mem::take(&mut self.recent.unyielded);
        self.recent.quiet = true;
        self.apply_prepared(event, None, Some(recorded_at_ms), &mut unyielded);
        self.recent.quiet = false;
        unyielded.clear();
        self.recent.unyielded = unyielded;
    }

    /// Applies an event the log's first format recorded at `recorded_at_ms` (see
    /// [`State::apply_at`]). That format recorded inputs before they were
    /// decided, and its reducer ignored those that did not fit, so each is judged
    /// again as it is applied, and one that does not fit (or a verdict, which that
    /// format never recorded) yields nothing. Infallible, as every apply is: what
    /// a replay of such a log runs, never a way to decide.
    pub fn apply_first_format_at(
        &mut self,
        event: &Event,
        recorded_at_ms: u64,
        out: &mut Vec<Command>,
    ) {
        if matches!(event, Event::AnswerRefused { .. } | Event::Denied { .. }) {
            return;
        }
        if let Ok(decision) = self.decide_event(event) {
            self.apply_decision_timed(decision, Some(recorded_at_ms), out);
        }
    }

    /// Applies a decision just made (after recording [`Decision::event`]), reusing
    /// what deciding prepared. Learns no time, as [`State::apply`].
    pub fn apply_decision(&mut self, decision: Decision<'_>, out: &mut Vec<Command>) {
        self.apply_decision_timed(decision, None, out);
    }

    /// [`State::apply_decision`], for events the log recorded at `recorded_at_ms`
    /// (see [`State::apply_at`]).
    pub fn apply_decision_at(
        &mut self,
        decision: Decision<'_>,
        recorded_at_ms: u64,
        out: &mut Vec<Command>,
    ) {
        self.apply_decision_timed(decision, Some(recorded_at_ms), out);
    }

    fn apply_decision_timed(
        &mut self,
        decision: Decision<'_>,
        at: Option<u64>,
        out: &mut Vec<Command>,
    ) {
        let (events, mut form) = decision.into_parts();
        // Only a request prepares a form, and a request is decided alone.
        for event in events.iter() {
            self.apply_prepared(event, form.take(), at, out);
        }
    }

    /// Whether applying `event` keeps the time it was recorded at: it belongs to
    /// an inquiry whose policy has a timeout (open, or requested by `event`). A
    /// host that learns the recorded time only by reading it back (a session
    /// after its append) reads it for these events alone; for the others
    /// [`State::apply`] and [`State::apply_at`] reach the same state.
    pub fn keeps_time_of(&self, event: &Event) -> bool {
        match event {
            Event::Requested(request) => request.policy.timeout.is_some(),
            other => other
                .inquiry()
                .and_then(|inquiry| self.open(inquiry))
                .is_some_and(|open| open.policy.timeout.is_some()),
        }
    }

    /// Whether applying `events` (decided on this state) finishes the open
    /// `inquiry` with a result owed to its asker ([`FinishedInquiry::owed`]).
    /// Worked out on a copy of that inquiry alone (with the turn's remembered
    /// answers), so it costs the same however large the state: `false` when any
    /// of the events belongs to another inquiry or to none.
    pub(crate) fn finishes_owed(&self, inquiry: &InquiryId, events: &[Event]) -> bool {
        let Some((held, Inquiry::Open(open))) = self.inquiries.get_key_value(inquiry) else {
            return false;
        };
        if !open.origin.resumes || events.iter().any(|event| event.inquiry() != Some(inquiry)) {
            return false;
        }
        let mut alone = State {
            remembered: self.remembered.clone(),
            turn: self.turn.clone(),
            ..State::default()
        };
        alone
            .inquiries
            .insert(held.clone(), Inquiry::Open(open.clone()));
        let mut out = Vec::new();
        for event in events {
            alone.apply_prepared(event, None, None, &mut out);
        }
        alone.outcome(inquiry).is_some_and(FinishedInquiry::owed)
    }

    /// When an open inquiry's current question (or review) times out, in
    /// milliseconds since the Unix epoch: its policy's `after_ms` after the time
    /// the log recorded the event that put it up (its request, or the last event
    /// that moved its step: an answer, an answer given ahead, Back, a review
    /// wanted, a change from the review). `None` without a timeout, or when the
    /// state learned no recorded time for it (applied with [`State::apply`]); a
    /// timeout is then taken whenever it is fired.
    pub fn deadline(&self, inquiry: &InquiryId) -> Option<u64> {
        self.open(inquiry)?.due_at()
    }

    fn apply_prepared(
        &mut self,
        event: &Event,
        form: Option<ValidForm>,
        at: Option<u64>,
        out: &mut Vec<Command>,
    ) {
        match event {
            Event::Requested(request) => self.requested(request, form, at, out),
            Event::Rejected {
                inquiry,
                tool,
                problems,
            } => out.push(Command::Reject {
                inquiry: inquiry.clone(),
                tool: tool.clone(),
                problems: problems.clone(),
            }),
            Event::Denied {
                inquiry,
                reason,
                message,
            } => {
                self.used.insert(digest(inquiry.as_str()));
                out.push(Command::Fail {
                    inquiry: inquiry.clone(),
                    reason: reason.clone(),
                    message: message.clone(),
                });
                let record = finished_record(self.recent.quiet, out, None, false);
                self.inquiries
                    .insert(inquiry.clone(), Inquiry::Finished(record));
                self.remember_finished(inquiry);
            }
            Event::Answered {
                inquiry,
                question,
                value,
                by,
                remember,
                note,
            } => self.answered(
                inquiry,
                question,
                value,
                (*by, *remember, note.as_ref()),
                at,
                out,
            ),
            Event::AnsweredAhead {
                inquiry,
                question,
                value,
            } => self.answered_ahead(inquiry, question, value, at),
            Event::Shown { .. } | Event::Detached { .. } | Event::ClientNoted { .. } => {}
            Event::AnswerRefused {
                inquiry,
                message,
                reason,
                ..
            } => self.answer_refused(inquiry, message, reason.as_ref(), out),
            Event::Back { inquiry } => self.back(inquiry, at, out),
            Event::Cancelled {
                inquiry,
                reason,
                message,
            } => self.cancelled(inquiry, reason, message.as_deref(), out),
            Event::TurnEnded { inquiry, surface } => self.turn_ended(inquiry, *surface, out),
            Event::TimedOut {
                inquiry, message, ..
            } => {
                self.timed_out(inquiry, message.as_deref(), out);
            }
            Event::ReviewWanted { inquiry } => self.review_wanted(inquiry, at, out),
            Event::Submitted { inquiry } => self.submitted(inquiry, out),
            Event::ChangeWanted { inquiry, question } => {
                self.change_wanted(inquiry, question, at, out);
            }
            Event::Attached { origin } => self.agent = Some(Box::new(origin.clone())),
            Event::Delivered { inquiry } => {
                if let Some(Inquiry::Finished(record)) = self.inquiries.get_mut(inquiry) {
                    record.delivered();
                }
            }
        }
    }

    /// Who is asking on this stream and from where: the origin the last
    /// [`Event::Attached`] recorded (kept after a [`Event::Detached`], so a
    /// surface can still say whose questions these are).
    pub fn agent(&self) -> Option<&AgentOrigin> {
        self.agent.as_deref()
    }

    /// The ids of the open inquiries, in id order.
    pub fn open_inquiries(&self) -> impl Iterator<Item = &InquiryId> {
        self.inquiries
            .sorted(|inquiry| matches!(inquiry, Inquiry::Open(_)))
            .map(|(id, _)| id)
    }

    /// How an inquiry finished, if it has and is among the last
    /// [`FINISHED_REMEMBERED`] to finish.
    pub fn finished(&self, inquiry: &InquiryId) -> Option<Ending> {
        Some(self.outcome(inquiry)?.how())
    }

    /// What a finished inquiry ended with (its answers, its tool error, or the
    /// end of the turn) and the tool call its request recorded, if it has finished
    /// and is among the last [`FINISHED_REMEMBERED`] to finish: the recorded result
    /// that [`Refusal::InquiryFinished`] tells a late surface to show. Kept in
    /// the state, so a snapshot holds it after compaction dropped the events.
    pub fn outcome(&self, inquiry: &InquiryId) -> Option<&FinishedInquiry> {
        match self.inquiries.get(inquiry)? {
            Inquiry::Finished(record) => Some(record),
            Inquiry::Open(_) => None,
        }
    }

    /// The finished inquiries whose result is owed to their asker, in the order
    /// they finished (among the last [`FINISHED_REMEMBERED`]): each asked by a
    /// surface that takes a result it missed ([`Origin::resumes`](crate::Origin::resumes))
    /// and not yet recorded handed over ([`Event::Delivered`]). What a restarted
    /// `askuser serve` is given, and what a retried MCP call is answered with.
    pub fn owed(&self) -> impl Iterator<Item = (&InquiryId, &FinishedInquiry)> {
        self.finished_order
            .iter()
            .filter_map(|id| match self.inquiries.get_key_value(id)? {
                (id, Inquiry::Finished(record)) if record.owed() => Some((id, record)),
                _ => None,
            })
    }

    /// The result command a finished inquiry ended with ([`Command::Respond`],
    /// [`Command::Fail`] or [`Command::EndTurn`]), rebuilt from the state: what
    /// to send or show again after a restart. The finished counterpart of
    /// [`State::pending`]; `None` while it is open, once it is forgotten, or if
    /// a snapshot taken before results were kept says only how it finished.
    pub fn result(&self, inquiry: &InquiryId) -> Option<Command> {
        match self.inquiries.get_key_value(inquiry)? {
            (id, Inquiry::Finished(record)) => record.command(id),
            (_, Inquiry::Open(_)) => None,
        }
    }

    /// Whether an inquiry with this id was ever requested in this stream.
    pub fn was_requested(&self, inquiry: &InquiryId) -> bool {
        self.inquiries.contains_key(inquiry) || self.used.contains(digest(inquiry.as_str()))
    }

    /// Whether a surface asked to review an open inquiry's answers before they
    /// are sent ([`Event::ReviewWanted`] was recorded for it).
    pub fn reviews(&self, inquiry: &InquiryId) -> bool {
        self.open(inquiry).is_some_and(|open| open.review)
    }

    /// The form of an open inquiry.
    pub fn form(&self, inquiry: &InquiryId) -> Option<&ValidForm> {
        Some(&self.open(inquiry)?.form)
    }

    /// The answers collected so far by an open inquiry, one slot per question.
    pub fn answers(&self, inquiry: &InquiryId) -> Option<&[Option<Slot>]> {
        Some(&self.open(inquiry)?.answers)
    }

    /// The tool call an open inquiry's request recorded, if it recorded one: what a
    /// host renders the dialect's result with.
    pub fn call(&self, inquiry: &InquiryId) -> Option<&Arc<crate::event::ToolCall>> {
        self.open(inquiry)?.call.as_ref()
    }

    /// The policy of an open inquiry (its timeout, persistence, ...; the label is
    /// in each prompt rather than here).
    pub fn policy(&self, inquiry: &InquiryId) -> Option<&Policy> {
        Some(&self.open(inquiry)?.policy)
    }

    /// The origin (tool, turn) of an open inquiry.
    pub fn origin(&self, inquiry: &InquiryId) -> Option<&crate::event::Origin> {
        Some(&*self.open(inquiry)?.origin)
    }

    /// What an open inquiry shows now (its question or its review, and its
    /// step): what an answer, Back, Reply or submit must name to be taken.
    pub fn at(&self, inquiry: &InquiryId) -> Option<crate::input::At> {
        let (id, open) = match self.inquiries.get_key_value(inquiry)? {
            (id, Inquiry::Open(open)) => (id, open),
            (_, Inquiry::Finished(_)) => return None,
        };
        Some(open.at(id))
    }

    /// The command an open inquiry is waiting on (its current prompt or assistant
    /// request), rebuilt from the state: what to show again after a restart.
    pub fn pending(&self, inquiry: &InquiryId) -> Option<Command> {
        match self.inquiries.get_key_value(inquiry)? {
            (id, Inquiry::Open(open)) => Some(open.current(id)),
            (_, Inquiry::Finished(_)) => None,
        }
    }

    /// The turn the last accepted request belonged to, until the turn ends.
    pub fn turn(&self) -> Option<&str> {
        self.turn.as_deref()
    }

    pub(crate) fn open(&self, inquiry: &InquiryId) -> Option<&Open> {
        match self.inquiries.get(inquiry)? {
            Inquiry::Open(open) => Some(open),
            Inquiry::Finished(_) => None,
        }
    }

    fn open_mut(&mut self, inquiry: &InquiryId) -> Option<&mut Open> {
        match self.inquiries.get_mut(inquiry)? {
            Inquiry::Open(open) => Some(open),
            Inquiry::Finished(_) => None,
        }
    }

    fn requested(
        &mut self,
        request: &Request,
        form: Option<ValidForm>,
        at: Option<u64>,
        out: &mut Vec<Command>,
    ) {
        let inquiry = &request.inquiry;
        let mut finished = None;
        let new = self.inquiries.insert_new(inquiry, || {
            self.used.insert(digest(inquiry.as_str()));
            let form = form.unwrap_or_else(|| ValidForm::decided(Arc::clone(&request.form)));
            let turn = &request.origin.turn;
            if !self
                .turn
                .as_deref()
                .is_some_and(|current| same_text(current, turn))
            {
                self.remembered.clear();
                self.turn = Some(request.origin.turn.clone());
            }
            let mut open = Open::new(
                form,
                Policy {
                    label: None,
                    static_answers: request.policy.static_answers.clone(),
                    ..request.policy
                },
                self.recent.label(request.policy.label.as_deref()),
                self.recent.origin(&request.origin),
                request.call.clone().map(Arc::new),
            );
            open.moved_at(at);
            finished = open.advance(inquiry, &self.remembered, self.recent.quiet, out);
            match finished {
                Some(_) => Inquiry::Finished(finished_record(
                    self.recent.quiet,
                    out,
                    open.call.take(),
                    false,
                )),
                None => Inquiry::Open(open),
            }
        });
        if new && finished.is_some() {
            self.remember_finished(inquiry);
        }
    }

    /// Marks `id` finished, `how`, with the result command just pushed: the last
    /// in `out`.
    fn finish(&mut self, id: &InquiryId, how: Ending, out: &mut Vec<Command>) {
        if let Some(entry) = self.inquiries.get_mut(id) {
            // A result the asker takes when it comes back is owed until a
            // surface records handing it over.
            let (call, owed) = match entry {
                Inquiry::Open(open) => (open.call.take(), open.origin.resumes),
                Inquiry::Finished(_) => (None, false),
            };
            let record = finished_record(self.recent.quiet, out, call, owed);
            debug_assert_eq!(record.how(), how, "the result pushed last is {how:?}'s");
            *entry = Inquiry::Finished(record);
            self.remember_finished(id);
        }
    }

    /// Records that `id` finished, forgetting the oldest finished inquiry beyond
    /// [`FINISHED_REMEMBERED`].
    fn remember_finished(&mut self, id: &InquiryId) {
        self.finished_order.push_back(id.clone());
        while self.finished_order.len() > FINISHED_REMEMBERED {
            if let Some(oldest) = self.finished_order.pop_front() {
                self.inquiries.remove(&oldest);
            }
        }
    }

    /// `how`: who answered, whether to remember it, and its note.
    fn answered(
        &mut self,
        id: &InquiryId,
        question: &str,
        value: &Value,
        (by, remember, note): (AnsweredBy, bool, Option<&String>),
        at: Option<u64>,
        out: &mut Vec<Command>,
    ) {
        let remembered = &mut self.remembered;
        let quiet = self.recent.quiet;
        let Some(Inquiry::Open(open)) = self.inquiries.get_mut(id) else {
            return;
        };
        if open.reviewing() || !same_text(&open.form.question(open.cursor).id, question) {
            return;
        }
        let Some(answer) = open.form.convert(open.cursor, value) else {
            return;
        };
        if remember && open.policy.persistence == Persistence::Turn {
            remembered
                .entry(open.origin.tool.clone())
                .or_default()
                .insert(question.to_owned(), value.clone());
        }
        open.accept(Slot {
            answer,
            by,
            note: note.cloned(),
        });
        open.moved_at(at);
        if let Some(finished) = open.advance(id, remembered, quiet, out) {
            self.finish(id, finished, out);
        }
    }

    /// Keeps an answer given ahead in its question's slot (the cursor does not move).
    fn answered_ahead(&mut self, id: &InquiryId, question: &str, value: &Value, at: Option<u64>) {
        let Some(Inquiry::Open(open)) = self.inquiries.get_mut(id) else {
            return;
        };
        let Some(index) = open.form.index_of(question).filter(|i| *i > open.cursor) else {
            return;
        };
        if let Some(answer) = open.form.convert(index, value) {
            open.answers[index] = Some(Slot {
                answer,
                by: AnsweredBy::User,
                note: None,
            });
            open.step = open.step.wrapping_add(1);
            open.moved_at(at);
        }
    }

    fn answer_refused(
        &mut self,
        id: &InquiryId,
        message: &str,
        reason: Option<&crate::error::AnswerError>,
        out: &mut Vec<Command>,
    ) {
        let Some(open) = self.open_mut(id).filter(|open| !open.reviewing()) else {
            return;
        };
        out.push(Command::InvalidAnswer {
            inquiry: id.clone(),
            question: open.form.question(open.cursor).id.clone(),
            message: message.to_owned(),
            reason: reason.cloned(),
        });
        open.refused += 1;
        if open.refused >= MAX_REFUSED_ANSWERS {
            let detail = open.refused.to_string();
            let how = open.fail(id, CancelReason::TooManyInvalidAnswers, &detail, out);
            self.finish(id, how, out);
        } else {
            out.push(open.current(id));
        }
    }

    fn back(&mut self, id: &InquiryId, at: Option<u64>, out: &mut Vec<Command>) {
        let Some(open) = self.open_mut(id) else {
            return;
        };
        if open.back() {
            open.moved_at(at);
            out.push(Command::Prompt(open.prompt(id)));
        }
    }

    fn cancelled(
        &mut self,
        id: &InquiryId,
        reason: &CancelReason,
        message: Option<&str>,
        out: &mut Vec<Command>,
    ) {
        let Some(open) = self.open_mut(id) else {
            return;
        };
        let how = if *reason == CancelReason::UserReply {
            out.push(open.respond(id, OutcomeStatus::Cancelled, message));
            Ending::Replied
        } else {
            open.fail(id, reason.clone(), "", out)
        };
        self.finish(id, how, out);
    }

    /// The surface will review the answers: a complete form waits for
    /// `Submitted`. Wanted while every question is already answered (a host that
    /// asks late), the review shows at once.
    fn review_wanted(&mut self, id: &InquiryId, at: Option<u64>, out: &mut Vec<Command>) {
        let Some(open) = self.open_mut(id) else {
            return;
        };
        open.review = true;
        open.step = open.step.wrapping_add(1);
        open.moved_at(at);
        if open.reviewing() {
            out.push(open.review_command(id));
        }
    }

    /// Back to `question` from the review, in one step; the later answers the
    /// person gave come back once it is answered (see [`Open::change`]).
    fn change_wanted(
        &mut self,
        id: &InquiryId,
        question: &str,
        at: Option<u64>,
        out: &mut Vec<Command>,
    ) {
        let Some(open) = self.open_mut(id).filter(|open| open.reviewing()) else {
            return;
        };
        if open.change(question) {
            open.moved_at(at);
            out.push(Command::Prompt(open.prompt(id)));
        }
    }

    fn submitted(&mut self, id: &InquiryId, out: &mut Vec<Command>) {
        let Some(open) = self.open_mut(id).filter(|open| open.reviewing()) else {
            return;
        };
        out.push(open.respond(id, OutcomeStatus::Completed, None));
        self.finish(id, Ending::Answered, out);
    }

    fn timed_out(&mut self, id: &InquiryId, message: Option<&str>, out: &mut Vec<Command>) {
        let remembered = &self.remembered;
        let Some(Inquiry::Open(open)) = self.inquiries.get_mut(id) else {
            return;
        };
        let Some(timeout) = open.policy.timeout else {
            return;
        };
        let status = OutcomeStatus::TimedOut {
            after_ms: timeout.after_ms,
        };
        match timeout.on_timeout {
            OnTimeout::EndTurn => {
                let after_ms = timeout.after_ms;
                self.turn_ended(id, None, out);
                if let Some(Inquiry::Finished(record)) = self.inquiries.get_mut(id) {
                    record.turn_ended_by_timeout = Some(after_ms);
                }
            }
            OnTimeout::Cancel => {
                out.push(open.respond(id, status, message));
                self.finish(id, Ending::TimedOut, out);
            }
            OnTimeout::Defaults => {
                open.fill_on_timeout(remembered);
                out.push(open.respond(id, status, message));
                self.finish(id, Ending::TimedOut, out);
            }
        }
    }

    /// Ends the turn of `id` (ended `in_surface`, when known): it and every
    /// other open inquiry of the same turn.
    fn turn_ended(&mut self, id: &InquiryId, in_surface: Option<Surface>, out: &mut Vec<Command>) {
        let Some(open) = self.open(id) else {
            return;
        };
        // A request that named no turn is a turn of its own.
        let turn = open.origin.turn.clone();
        let others: Vec<InquiryId> = if turn.is_empty() {
            Vec::new()
        } else {
            self.inquiries
                .sorted(|inquiry| matches!(inquiry, Inquiry::Open(o) if o.origin.turn == turn))
                .filter(|(other, _)| *other != id)
                .map(|(other, _)| other.clone())
                .collect()
        };
        for ended in std::iter::once(id).chain(&others) {
            out.push(Command::EndTurn {
                inquiry: ended.clone(),
            });
            self.finish(ended, Ending::TurnEnded, out);
            if let Some(Inquiry::Finished(record)) = self.inquiries.get_mut(ended) {
                record.turn_ended_in = in_surface;
            }
        }
        self.remembered.clear();
        self.turn = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A finished inquiry is smaller than an open one (its answers are shared): a
    /// table slot is the size of an open inquiry (240 bytes, 256 with its id, on
    /// 64-bit targets), whatever it ended with.
    #[test]
    fn a_finished_inquiry_does_not_make_a_slot_larger() {
        let slot = std::mem::size_of::<Option<(InquiryId, Inquiry)>>();
        println!(
            "slot {slot} bytes, Inquiry {}, Open {}, FinishedInquiry {}",
            std::mem::size_of::<Inquiry>(),
            std::mem::size_of::<Open>(),
            std::mem::size_of::<FinishedInquiry>()
        );
        assert_eq!(std::mem::size_of::<Inquiry>(), std::mem::size_of::<Open>());
        assert!(std::mem::size_of::<FinishedInquiry>() < std::mem::size_of::<Open>());
        assert_eq!(
            slot,
            std::mem::size_of::<Option<(InquiryId, Open)>>(),
            "a slot holds an open inquiry and its id"
        );
    }
}
