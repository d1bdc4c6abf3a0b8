//! Multi round-trip requests (protocol 2026-07-28, SEP-2322): a `tools/call` answers
//! `input_required` with the round's elicitation and a sealed `requestState`; the
//! client retries the call with the person's response and the state echoed.
//!
//! The state is untrusted: it is sealed (HMAC-SHA256, bound to the tool and its
//! arguments, with a key this process drew at start) and checked against the log
//! (the inquiry must be open, waiting on the question the state says), so a forged,
//! altered, moved or replayed state is refused and nothing is recorded.

use std::io::Read as _;
use std::time::Duration;

use askuser_app::log::StoreError;
use askuser_core::{CancelReason, ClientNote, FormAction, InquiryId};
use askuser_dialects::dialect::mcp::Response;
use askuser_dialects::{Call, Dialect};
use rmcp::model::{
    CallToolResponse, CallToolResult, ElicitRequest, ElicitRequestParams, ElicitationSchema,
    InputRequest, InputRequests, InputRequiredResult, InputResponses,
};
use rmcp::model::{RequestStateCodec, SealOptions};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::clients::{Client, Forms};
use crate::config::Waiting;
use crate::recorder::Recorder;
use crate::sampling::no_sampling;
use crate::server::{AskServer, done_result, end_turn, error_result, not_recorded, reply};
use crate::waiting::note;
use crate::walk::{Next, Round, Saved, Walk, read_instead};

/// The first protocol version whose clients are asked through MRTR.
pub(crate) const MRTR_VERSION: &str = "2026-07-28";
/// The key of the round's elicitation in `inputRequests` / `inputResponses`.
pub(crate) const ROUND_KEY: &str = "askuser_round";
/// How long a person may take over one round.
const STATE_TTL: Duration = Duration::from_secs(24 * 60 * 60);

/// What a retried `tools/call` carries.
pub(crate) struct Retry {
    /// The echoed `requestState`.
    pub(crate) state: Option<String>,
    /// The client's `inputResponses`.
    pub(crate) responses: Option<InputResponses>,
}

/// Seals and opens `requestState` with a key drawn when the server starts.
pub(crate) struct Sealer {
    codec: RequestStateCodec,
}

/// What a `requestState` holds.
#[derive(Serialize, Deserialize)]
struct State {
    stream: String,
    inquiry: String,
    walk: Saved,
    /// When the round went out (milliseconds since the epoch, this server's
    /// clock): a response much sooner came from no person.
    #[serde(default)]
    issued_ms: u64,
    /// When the call first came: a response after the client's own timeout is
    /// late.
    #[serde(default)]
    called_ms: u64,
    /// Whether a person answered an earlier round of this call at a person's
    /// pace: a quick dismissal after it is theirs, never "no person".
    #[serde(default)]
    person: bool,
}

/// A retry's walk, checked: its stream, call and walk, when its round went
/// out and its call first came (`issued_ms`, `called_ms`), and whether a
/// person answered an earlier round of it.
type Resumed = (Recorder, Call, Walk, (u64, u64, bool));

/// This server's clock, in milliseconds since the epoch.
fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |since| {
            u64::try_from(since.as_millis()).unwrap_or(u64::MAX)
        })
}

/// What a `tools/call` of a 2026-07-28 client comes to.
pub(crate) enum Mrtr {
    /// Its response.
    Response(CallToolResponse),
    /// Nobody can answer at the client (its round came back dismissed or
    /// declined by no person, or empty twice): the call waits for another
    /// window.
    Wait {
        /// The stream of the call.
        recorder: Recorder,
        /// The call.
        call: Call,
        /// Its inquiry.
        inquiry: InquiryId,
        /// What the client did.
        note: ClientNote,
    },
}

impl From<CallToolResponse> for Mrtr {
    fn from(response: CallToolResponse) -> Self {
        Mrtr::Response(response)
    }
}

impl Sealer {
    pub(crate) fn new() -> Self {
        let mut key = [0u8; 32];
        let drawn = std::fs::File::open("/dev/urandom").and_then(|mut f| f.read_exact(&mut key));
        if drawn.is_err() {
            // No system randomness: a key no client can know still (the address of
            // a fresh allocation, the time and the process id) beats none.
            let seed = format!(
                "{:p}{:?}{}",
                &key,
                std::time::SystemTime::now(),
                std::process::id()
            );
            for (i, byte) in seed.bytes().enumerate() {
                key[i % 32] ^= byte;
            }
        }
        Self {
            codec: RequestStateCodec::new_unchecked(key.to_vec()),
        }
    }

    fn seal(&self, state: &State, bound: &[u8]) -> Option<String> {
        let options = SealOptions::new().associated_data(bound).ttl(STATE_TTL);
        self.codec.seal_json_with(state, &options).ok()
    }

    fn open(&self, sealed: &str, bound: &[u8]) -> Option<State> {
        self.codec.open_json_with(sealed, bound).ok()
    }
}

/// The note for a retry's `response` to `round` (`took` after it went out)
/// that came from nobody: dismissed, declined, or accepted at every default,
/// faster than anyone reads, when no person has answered a round of the call
/// or session at a person's pace (`person`: then it is theirs).
fn nobody<E>(
    waiting: &Waiting,
    response: Option<&Result<Response, E>>,
    round: &Round,
    took: Duration,
    person: bool,
) -> Option<ClientNote> {
    if person {
        return None;
    }
    match response {
        Some(Ok(Response::Decline)) => waiting.no_person(FormAction::Decline, took),
        Some(Ok(Response::Cancel)) => waiting.no_person(FormAction::Cancel, took),
        Some(Ok(Response::Accept(content))) => waiting.unread(round.all_defaults(content), took),
        _ => None,
    }
}

/// The bytes a state is bound to: the tool and its arguments.
fn bound(dialect: Dialect, arguments: &Value) -> Vec<u8> {
    format!("{}\n{arguments}", dialect.tool_name()).into_bytes()
}

/// The elicitation of a round, in the fields the client's form shows.
pub(crate) fn elicit_params(round: &Round) -> Result<ElicitRequestParams, serde_json::Error> {
    let requested_schema: ElicitationSchema = serde_json::from_value(round.requested().clone())?;
    Ok(ElicitRequestParams::FormElicitationParams {
        meta: None,
        message: round.message.clone(),
        requested_schema,
    })
}

/// Records the result of `inquiry` handed over when `response` ends the call
/// (not when it asks for another round).
fn handed_over(recorder: &Recorder, inquiry: &InquiryId, response: &CallToolResponse) {
    if !matches!(response, CallToolResponse::InputRequired(_)) {
        recorder.handed_over(inquiry);
    }
}

impl AskServer {
    /// A call's first round, with no state sealed yet: the call recorded and
    /// its first form asked for (an `input_required` result).
    fn first_round(
        &self,
        dialect: Dialect,
        arguments: &Value,
        can_elicit: bool,
        forms: Forms,
    ) -> Mrtr {
        if let Err(full) = self.admit_stateless() {
            let tool = dialect.tool_name();
            return CallToolResponse::from(error_result(format!("{tool}: {full}."))).into();
        }
        match self.start(dialect, arguments, can_elicit) {
            Ok((call, inquiry, walk)) => {
                let mut walk = walk.for_forms(forms);
                let response = self.input_required(
                    &self.recorder,
                    &call,
                    arguments,
                    &mut walk,
                    (now_ms(), false),
                );
                handed_over(&self.recorder, &inquiry, &response);
                self.keep_round(&self.recorder, &call, &inquiry, &response, true);
                response.into()
            }
            Err(result) => CallToolResponse::from(*result).into(),
        }
    }

    /// Runs one `tools/call` of a 2026-07-28 client: the first asks for the first
    /// round; each retry records the previous round's response and asks the next.
    pub(crate) fn ask_mrtr(
        &self,
        dialect: Dialect,
        arguments: &Value,
        can_elicit: bool,
        forms: Forms,
        retry: Retry,
        client: &Client,
    ) -> Mrtr {
        let Some(sealed) = retry.state else {
            return self.first_round(dialect, arguments, can_elicit, forms);
        };
        let (recorder, call, mut walk, times) = match self.resume(dialect, arguments, &sealed) {
            Ok(resumed) => resumed,
            Err(result) => return CallToolResponse::from(*result).into(),
        };
        let (issued_ms, called_ms, person) = times;
        let person = person || self.person_seen.load(std::sync::atomic::Ordering::SeqCst);
        let round = walk.round();
        let response = retry
            .responses
            .as_ref()
            .and_then(|responses| responses.get(ROUND_KEY))
            .map(Response::read)
            // A form without a Decline button: its last field chose instead.
            .map(|read| read.map(read_instead));
        let took = Duration::from_millis(now_ms().saturating_sub(issued_ms));
        let waiting = &self.config.waiting;
        let no_person = nobody(waiting, response.as_ref(), &round, took, person);
        if issued_ms > 0
            && let Some(note) = no_person
        {
            let inquiry = walk.inquiry().clone();
            return Mrtr::Wait {
                recorder,
                call,
                inquiry,
                note,
            };
        }
        // Empty twice: not asked a third time; the call waits for another window.
        if let Some(Ok(Response::Accept(content))) = &response
            && walk.empty_twice(content)
        {
            let inquiry = walk.inquiry().clone();
            return Mrtr::Wait {
                recorder,
                call,
                inquiry,
                note: ClientNote::CannotShow,
            };
        }
        let response: CallToolResponse = match response {
            Some(Ok(Response::Accept(content))) => {
                let after = Duration::from_millis(now_ms().saturating_sub(called_ms));
                if called_ms > 0
                    && let Some(late) = waiting.late(client, after)
                {
                    note(&recorder, walk.inquiry(), late);
                }
                let person = person || waiting.read_by_a_person(took);
                if person {
                    (self.person_seen).store(true, std::sync::atomic::Ordering::SeqCst);
                }
                match walk.accept(&recorder, &round, &content) {
                    Ok(Some(done)) => done_result(&call, &done).into(),
                    Ok(None) => self.input_required(
                        &recorder,
                        &call,
                        arguments,
                        &mut walk,
                        (called_ms, person),
                    ),
                    Err(error) => not_recorded(call.tool_name(), &error).into(),
                }
            }
            Some(Ok(Response::Decline)) => reply(&recorder, &call, &mut walk).into(),
            Some(Ok(Response::Cancel)) => end_turn(&recorder, &call, &mut walk).into(),
            Some(Err(problem)) => error_result(format!(
                "{}: inputResponses.{ROUND_KEY} is not an elicitation result ({problem}); retry with the form's result.",
                call.tool_name()
            ))
            .into(),
            None => error_result(format!(
                "{}: the retry carries no inputResponses.{ROUND_KEY}; retry with the result of the form it asked for.",
                call.tool_name()
            ))
            .into(),
        };
        handed_over(&recorder, walk.inquiry(), &response);
        self.keep_round(&recorder, &call, walk.inquiry(), &response, false);
        response.into()
    }

    /// The `input_required` result asking the walk's next round (built from what
    /// is current when another surface moved the inquiry), or the call's result
    /// when the walk ended. `(called_ms, person)`: when the call first came,
    /// and whether a person answered a round of it already.
    fn input_required(
        &self,
        recorder: &Recorder,
        call: &Call,
        arguments: &Value,
        walk: &mut Walk,
        (called_ms, person): (u64, bool),
    ) -> CallToolResponse {
        let next = if walk.for_assistant().is_some() {
            Ok(Next::Assistant)
        } else {
            walk.next_round(recorder)
        };
        let round = match next {
            Ok(Next::Ask(round)) => round,
            Ok(Next::Done(done)) => return done_result(call, &done).into(),
            Ok(Next::Assistant) => {
                // No server-to-client request in this protocol: no sampling.
                let message = "protocol 2026-07-28 has no sampling";
                let _ = self.fail_with(call, walk.inquiry(), CancelReason::BackendError, &message);
                return error_result(no_sampling(call.tool_name())).into();
            }
            Err(error) => return not_recorded(call.tool_name(), &error).into(),
        };
        let state = State {
            stream: recorder.stream().to_owned(),
            inquiry: walk.inquiry().as_str().to_owned(),
            walk: walk.save(),
            issued_ms: now_ms(),
            called_ms,
            person,
        };
        let sealed = self.sealer.seal(&state, &bound(call.dialect(), arguments));
        let (Ok(params), Some(sealed)) = (elicit_params(&round), sealed) else {
            return error_result(format!(
                "{}: askuser could not build the form. Do not retry this tool call in this turn.",
                call.tool_name()
            ))
            .into();
        };
        let mut requests = InputRequests::new();
        requests.insert(
            ROUND_KEY.to_owned(),
            InputRequest::Elicitation(ElicitRequest::new(params)),
        );
        CallToolResponse::InputRequired(InputRequiredResult::new(Some(requests), Some(sealed)))
    }

    /// The walk a retry's `requestState` stands for, once it is checked: sealed by
    /// this server for this tool and these arguments, for the latest round of its
    /// inquiry (a later round shown means the state was replayed). Another
    /// surface may have moved or finished the inquiry since: the walk finds out
    /// when it records the response. Over stateless HTTP a retry may reach
    /// another handler of the same server: the stream is the one the
    /// (authenticated) state names.
    fn resume(
        &self,
        dialect: Dialect,
        arguments: &Value,
        sealed: &str,
    ) -> Result<Resumed, Box<CallToolResult>> {
        let tool = dialect.tool_name();
        let refused = |why: &str| {
            Box::new(error_result(format!(
                "{tool}: the requestState was refused ({why}). Call {tool} again without requestState to ask anew."
            )))
        };
        let state = self
            .sealer
            .open(sealed, &bound(dialect, arguments))
            .ok_or_else(|| {
                refused("it was not issued by this server for this call, or it expired")
            })?;
        let recorder = if self.recorder.named() == Some(state.stream.as_str()) {
            self.recorder.clone()
        } else {
            Recorder::new(std::sync::Arc::clone(&self.config.open_desk), &state.stream)
        };
        let inquiry = InquiryId::new(&state.inquiry);
        let unreadable = |e: StoreError| refused(&format!("the log cannot be read: {e}"));
        let replayed = recorder
            .shown_since(&inquiry, state.walk.seen())
            .map_err(unreadable)?;
        let open = recorder.open_inquiry(&inquiry).map_err(unreadable)?;
        let other_call = matches!(&open, Some((_, Some(call))) if call.arguments != *arguments);
        if replayed || other_call || state.walk.at().is_none() {
            return Err(refused("it is not the latest state of its questions"));
        }
        let call = dialect
            .parse(arguments)
            .map_err(|_| refused("the arguments changed"))?;
        let times = (state.issued_ms, state.called_ms, state.person);
        let walk = Walk::restore(call.form().clone(), inquiry, state.walk)
            .ok_or_else(|| refused("it does not fit the questions"))?;
        Ok((recorder, call, walk, times))
    }
}
