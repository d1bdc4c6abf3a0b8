//! [`AskServer`]: the MCP server's handler (`tools/list`, `tools/call`), walking each
//! call's form through the client's elicitation.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use askuser_app::log::{PresenceGuard, StreamName};
use askuser_core::{
    AgentOrigin, CancelReason, ClientNote, Command, FormAction, Input, InquiryId, Problem, Target,
};
use askuser_dialects::{Call, Dialect, ToolResult};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ElicitResult,
    ElicitationAction, Implementation, InitializeResult, ListToolsResult, PaginatedRequestParams,
    ServerCapabilities, ServerConfig,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData, Peer, ServerHandler};
use serde_json::{Map, Value};

use crate::clients::Client;
use crate::config::{Config, WithoutElicitation};
use crate::elsewhere::{self, Elsewhere, Unsent};
use crate::moved_on::Waiters;
use crate::mrtr::{MRTR_VERSION, Mrtr, Retry, Sealer, elicit_params};
use crate::progress::{HEARTBEAT, Progress};
use crate::recorder::{Naming, Recorder, Taken};
use crate::tools::{call_result, dismissed, instructions, no_forms, tools};
use crate::unanswered::{Full, Unanswered};
use crate::waiting::note;
use crate::walk::{Done, Instead, Next, Round, Walk, take_instead};

/// The handler of one MCP session: its tools, recorded as one stream.
#[derive(Clone)]
pub struct AskServer {
    pub(crate) config: Arc<Config>,
    pub(crate) recorder: Recorder,
    pub(crate) sealer: Arc<Sealer>,
    /// Tool calls being asked now: the server waits for them to record how they
    /// ended before it exits.
    pub(crate) asking: Arc<AtomicUsize>,
    /// How often a progress heartbeat goes out while a form is open.
    pub(crate) heartbeat: Duration,
    /// This session's presence on its stream, from its first recorded call
    /// until the last handle of the session is dropped (with
    /// [`Config::origin`] only).
    presence: Arc<Mutex<Presence>>,
    /// Over HTTP, the 2026-07-28 calls waiting for their retry: such a call
    /// has no session, and each of its retries comes to a handler of its own, so
    /// it is counted, ended when its agent never comes back, and its presence
    /// held there. `None` on stdio, where the session holds its presence.
    kept: Option<Arc<Unanswered>>,
    /// Whether a person has answered a form of this session at a person's
    /// pace: a later quick dismissal is then theirs, never "no person".
    pub(crate) person_seen: Arc<AtomicBool>,
    /// The calls of this session waiting for another window, from a client
    /// that stops calls silently: a new call tells they were left.
    pub(crate) waiters: Waiters,
}

/// What the session knows of its presence.
#[derive(Default)]
struct Presence {
    /// The client's name and version, from `clientInfo`.
    client: Option<String>,
    /// Tried already (held, or the log could not keep it).
    tried: bool,
    guard: Option<PresenceGuard>,
    /// Held without a thread: for a stateless call, whose presence is renewed
    /// by the server's sweeping task ([`Unanswered`]).
    threadless: bool,
    held: Option<askuser_app::HeldPresence>,
    /// Asked already: the client's roots.
    roots_asked: bool,
    /// Where the client says the project is: its first `file://` root.
    directory: Option<String>,
}

/// Who asks one tool call, and since when.
struct Asker {
    /// The client, as the table knows it.
    client: Client,
    /// Whether it shows forms.
    can_elicit: bool,
    /// When the call came.
    started: Instant,
}

/// The calling client, from its `clientInfo`.
fn client_of(context: &RequestContext<RoleServer>) -> Client {
    context.client_info().map_or_else(Client::spec, |info| {
        Client::from_info(&info.name, &info.version)
    })
}

/// One tool call counted in [`AskServer::asking`] while it lives.
struct Asking(Arc<AtomicUsize>);

impl Asking {
    fn new(count: &Arc<AtomicUsize>) -> Self {
        count.fetch_add(1, Ordering::SeqCst);
        Self(Arc::clone(count))
    }
}

impl Drop for Asking {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

impl std::fmt::Debug for AskServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AskServer")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

/// The tool error when the log cannot record a step.
pub(crate) fn not_recorded(tool: &str, error: &dyn std::fmt::Display) -> CallToolResult {
    error_result(format!(
        "{tool}: askuser could not record the questions ({error}). Do not retry this tool call in this turn."
    ))
}

pub(crate) fn error_result(text: String) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(text)])
}

impl AskServer {
    /// A handler recording into `config`'s log and stream.
    pub fn new(config: Config) -> Self {
        Self::with_sealer(config, Arc::new(Sealer::new()))
    }

    /// A handler sharing `sealer` with the other handlers of one server.
    pub(crate) fn with_sealer(config: Config, sealer: Arc<Sealer>) -> Self {
        let presence: Arc<Mutex<Presence>> = Arc::default();
        let recorder = match &config.origin {
            Some(origin) if config.claim => Recorder::named_later(
                Arc::clone(&config.open_desk),
                claiming(&config, origin, Arc::clone(&presence)),
            ),
            _ => {
                Recorder::new(Arc::clone(&config.open_desk), &config.stream).claimed(config.claimed)
            }
        };
        let mut server = Self::with_recorder(config, sealer, recorder);
        server.presence = presence;
        server
    }

    /// A handler of one HTTP session: it records into `<stream>-<n>`, numbered
    /// from `sessions` when it first records.
    pub(crate) fn numbered(
        config: Config,
        sealer: Arc<Sealer>,
        sessions: Arc<AtomicUsize>,
        kept: Arc<Unanswered>,
    ) -> Self {
        let recorder = Recorder::numbered(Arc::clone(&config.open_desk), &config.stream, sessions);
        let mut server = Self::with_recorder(config, sealer, recorder);
        server.kept = Some(kept);
        server
    }

    /// Over HTTP, whether a new stateless call fits under the cap; when it does,
    /// its presence will be held without a thread of its own.
    pub(crate) fn admit_stateless(&self) -> Result<(), Full> {
        let Some(kept) = &self.kept else {
            return Ok(());
        };
        kept.admit()?;
        let mut presence = self.presence.lock().unwrap_or_else(PoisonError::into_inner);
        presence.threadless = true;
        Ok(())
    }

    /// Over HTTP, keeps a stateless call waiting for its retry while `response`
    /// asks for input (with the presence its `first` round took), and ends it
    /// (its presence too) once the call has its result.
    pub(crate) fn keep_round(
        &self,
        recorder: &Recorder,
        call: &Call,
        inquiry: &InquiryId,
        response: &CallToolResponse,
        first: bool,
    ) {
        let Some(kept) = &self.kept else {
            return;
        };
        if !matches!(response, CallToolResponse::InputRequired(_)) {
            kept.end(recorder.stream());
            return;
        }
        let lease = first.then(|| {
            (self.presence.lock().unwrap_or_else(PoisonError::into_inner))
                .held
                .take()
        });
        kept.keep(recorder, call, inquiry, lease.flatten());
    }

    /// Over HTTP, notes a stateless call's retry waiting for another window.
    pub(crate) fn keep_busy(&self, recorder: &Recorder) {
        if let Some(kept) = &self.kept {
            kept.busy(recorder.stream());
        }
    }

    fn with_recorder(config: Config, sealer: Arc<Sealer>, recorder: Recorder) -> Self {
        Self {
            config: Arc::new(config),
            recorder,
            sealer,
            asking: Arc::new(AtomicUsize::new(0)),
            heartbeat: HEARTBEAT,
            presence: Arc::default(),
            kept: None,
            person_seen: Arc::new(AtomicBool::new(false)),
            waiters: Waiters::default(),
        }
    }

    /// Notes the client's `clientInfo` (its title or name, and version): who is
    /// asking, unless `--agent` said.
    fn note_client(&self, client: Option<Implementation>) {
        let Some(client) = client else { return };
        // A client without a title goes by the table's name for it
        // (`gemini-cli-mcp-client` is Gemini CLI).
        let known = Client::from_info(&client.name, &client.version);
        let name = (client.title)
            .or_else(|| (!known.key.is_empty()).then(|| known.host.to_owned()))
            .unwrap_or(client.name);
        let host = format!("{name} {}", client.version);
        let mut presence = self.presence.lock().unwrap_or_else(PoisonError::into_inner);
        presence.client.get_or_insert(host.trim().to_owned());
    }

    /// Asks a client that offers roots (`roots/list`) where its project is,
    /// once, before the session's first call is recorded: its first `file://`
    /// root. A client that does not answer within [`ROOTS_WAIT`] leaves the
    /// working directory in place. (Roots are deprecated by SEP-2577, but the
    /// hosts of today, Gemini CLI among them, offer them.)
    #[allow(deprecated)]
    async fn note_roots(&self, context: &RequestContext<RoleServer>) {
        let offers = (context.client_capabilities()).is_some_and(|c| c.roots.is_some());
        if !offers || self.config.origin.is_none() {
            return;
        }
        {
            let mut presence = self.presence.lock().unwrap_or_else(PoisonError::into_inner);
            if presence.tried || std::mem::replace(&mut presence.roots_asked, true) {
                return;
            }
        }
        let listed = tokio::time::timeout(ROOTS_WAIT, context.peer.list_roots()).await;
        let Ok(Ok(listed)) = listed else { return };
        let directory = (listed.roots.iter())
            .find_map(|root| root.uri.strip_prefix("file://").map(percent_decoded));
        let mut presence = self.presence.lock().unwrap_or_else(PoisonError::into_inner);
        presence.directory = directory;
    }

    /// Where this server runs, with where the client says its project is (its
    /// first root) and the client's name (unless `--agent` said): `origin` as
    /// the session knows it now.
    fn origin_now(origin: &AgentOrigin, presence: &Presence) -> AgentOrigin {
        let mut origin = origin.clone();
        // The client's root says where the agent works (OpenCode starts its
        // servers wherever it was started): the directory it names.
        if let Some(dir) = presence.directory.clone() {
            origin.repository = askuser_app::origin::repository_of(std::path::Path::new(&dir))
                .as_deref()
                .and_then(askuser_app::origin::plain);
            origin.directory = askuser_app::origin::plain(&dir);
        }
        if origin.host.is_none() {
            origin.host = presence
                .client
                .as_deref()
                .and_then(askuser_app::origin::plain);
        }
        origin
    }

    /// Records where this server runs in its stream and holds its presence
    /// there, once (after its first call is recorded, so that call keeps the id
    /// `call-1`); nothing without [`Config::origin`]. Best effort: a log that
    /// cannot keep it changes nothing else.
    fn attend(&self) {
        let Some(origin) = &self.config.origin else {
            return;
        };
        // Named (claimed, say) before the session's presence is locked: the
        // claim reads it.
        let stream = self.recorder.stream().to_owned();
        let mut presence = self.presence.lock().unwrap_or_else(PoisonError::into_inner);
        if std::mem::replace(&mut presence.tried, true) {
            return;
        }
        let origin = Self::origin_now(origin, &presence);
        let (Ok(mut desk), Ok(stream)) = ((self.config.open_desk)(), StreamName::try_from(stream))
        else {
            return;
        };
        if presence.threadless {
            presence.held = desk
                .hold_presence_renewed_by_caller(&stream, origin, false)
                .ok();
        } else {
            presence.guard = desk.hold_presence(&stream, origin, false).ok();
        }
    }

    /// The same server, sending a progress heartbeat every `every` while a form
    /// is open (10 s by default) to a client that asked for progress.
    #[must_use]
    pub fn with_heartbeat(mut self, every: Duration) -> Self {
        self.heartbeat = every.max(Duration::from_millis(10));
        self
    }

    /// How many tool calls are being asked now.
    pub(crate) fn asking(&self) -> Arc<AtomicUsize> {
        Arc::clone(&self.asking)
    }

    /// Runs one tool call over server-to-client elicitation (protocol 2025-06-18
    /// and 2025-11-25): the result to send the model.
    async fn ask(
        &self,
        dialect: Dialect,
        arguments: &Value,
        client: Asker,
        context: &RequestContext<RoleServer>,
    ) -> CallToolResult {
        let _asking = Asking::new(&self.asking);
        if let Some(result) = self.take_over(dialect, arguments, &client, context).await {
            return result;
        }
        let (call, inquiry, walk) = match self.start(dialect, arguments, client.can_elicit) {
            Ok(started) => started,
            Err(result) => return *result,
        };
        // No forms is not no answer: another window may answer.
        let result = if !client.can_elicit && walk.for_assistant().is_none() {
            self.wait_without_form(&call, &inquiry, &client.client, context)
                .await
        } else {
            let walk = walk.for_forms(client.client.forms);
            self.elicit_rounds(&call, &inquiry, walk, &client, context)
                .await
        };
        // The result goes to the client now: a call retried later is a new one.
        self.recorder.handed_over(&inquiry);
        result
    }

    /// A call sent no form (the client has none, or its host says nobody is
    /// at it) waits for another window, noted with why: its result.
    async fn wait_without_form(
        &self,
        call: &Call,
        inquiry: &InquiryId,
        client: &Client,
        context: &RequestContext<RoleServer>,
    ) -> CallToolResult {
        let note = match self.config.waiting.headless {
            Some(headless) => ClientNote::Headless {
                mode: headless.name().to_owned(),
            },
            None => ClientNote::NoForms,
        };
        self.wait_elsewhere(&self.recorder, call, inquiry, note, client, context)
            .await
    }

    /// A new call from a client that stops calls silently: the calls of this
    /// session that waited long enough were left by their model (noted moved
    /// on, see [`crate::moved_on`]). When the new call is one of them made
    /// again and its questions are still open, it waits on them: its result.
    async fn take_over(
        &self,
        dialect: Dialect,
        arguments: &Value,
        client: &Asker,
        context: &RequestContext<RoleServer>,
    ) -> Option<CallToolResult> {
        if !client.client.stops_silently || client.can_elicit {
            return None;
        }
        let moved = self.waiters.new_call(&self.recorder);
        let inquiry = moved.into_iter().find(|inquiry| {
            matches!(
                self.recorder.open_inquiry(inquiry),
                Ok(Some((_, Some(asked)))) if asked.dialect == dialect.name() && asked.arguments == *arguments
            )
        })?;
        let call = dialect.parse(arguments).ok()?;
        self.waiters.take_over(&inquiry);
        let result = (self.wait_without_form(&call, &inquiry, &client.client, context)).await;
        self.recorder.handed_over(&inquiry);
        Some(result)
    }

    /// Parses and records a call: its walk, ready for the first round; or the
    /// result already (a rejected call, a failure, a pending file).
    pub(crate) fn start(
        &self,
        dialect: Dialect,
        arguments: &Value,
        can_elicit: bool,
    ) -> Result<(Call, InquiryId, Walk), Box<CallToolResult>> {
        let tool = dialect.tool_name();
        let call = dialect
            .parse(arguments)
            .map_err(|rejection| Box::new(self.reject(&rejection)))?;
        // The same call again after its server went away (the host restarted
        // it): the result of the one that finished meanwhile, given once.
        match self.recorder.take_owed(dialect.name(), arguments) {
            Ok(Some(result)) => return Err(Box::new(finish(&call, &result))),
            Ok(None) => {}
            Err(error) => return Err(Box::new(not_recorded(tool, &error))),
        }
        // Without forms, the call waits for another window (with a pending
        // file, that file is answered later): someone may still answer.
        let interactive = can_elicit
            || self.config.waiting.wait != Some(Duration::ZERO)
            || matches!(
                self.config.without_elicitation,
                WithoutElicitation::Pending { .. }
            );
        let requested = self.recorder.request(|inquiry| {
            let mut request = call.recorded_request(inquiry, arguments);
            // A call retried after this server went away is given the result.
            request.origin.resumes = true;
            if let Some(policy) = &self.config.policy {
                request.policy = policy.clone();
            }
            request.policy.interactive = interactive;
            Input::Ask(request)
        });
        let (inquiry, step) = match requested {
            Ok((inquiry, Ok(step))) => {
                self.attend();
                (inquiry, step)
            }
            Ok((_, Err(refusal))) => {
                return Err(Box::new(not_recorded(tool, &refusal)));
            }
            Err(error) => return Err(Box::new(not_recorded(tool, &error))),
        };
        let form = call.form().clone();
        let walk = Walk::start(form, inquiry.clone(), step.commands, step.at, step.head).map_err(
            |finished| match *finished {
                Command::Fail {
                    reason: CancelReason::NoPromptBackend,
                    ..
                } if !interactive => Box::new(error_result(no_forms(tool))),
                _ => Box::new(finish(&call, &finished)),
            },
        )?;
        Ok((call, inquiry, walk))
    }

    /// Records a rejected call (with its problems) and returns its tool error.
    fn reject(&self, rejection: &askuser_dialects::Rejection) -> CallToolResult {
        let problems: Vec<Problem> = rejection
            .errors
            .iter()
            .map(|e| Problem {
                path: e.path.clone(),
                message: e.message.clone(),
            })
            .collect();
        let recorded = self.recorder.request(|inquiry| Input::RejectCall {
            inquiry,
            tool: rejection.tool.to_owned(),
            problems: problems.clone(),
        });
        match recorded {
            Ok(_) => error_result(rejection.tool_error_text()),
            Err(error) => not_recorded(rejection.tool, &error),
        }
    }

    /// Asks round after round until the engine finishes the inquiry.
    async fn elicit_rounds(
        &self,
        call: &Call,
        inquiry: &InquiryId,
        mut walk: Walk,
        client: &Asker,
        request: &RequestContext<RoleServer>,
    ) -> CallToolResult {
        let tool = call.tool_name();
        let most = 3 * call.form().len() + 3;
        let mut progress = Progress::new(request);
        // A person shown in this call or session: their quick Esc is theirs.
        let mut person = self.person_seen.load(Ordering::SeqCst);
        for _ in 0..most {
            if let Some(index) = walk.for_assistant() {
                match self.ask_assistant(call, &mut walk, index, request).await {
                    Some(result) => return result,
                    None => continue,
                }
            }
            let round = match walk.next_round(&self.recorder) {
                Ok(Next::Ask(round)) => round,
                Ok(Next::Done(done)) => return done_result(call, &done),
                Ok(Next::Assistant) => continue,
                Err(error) => return not_recorded(tool, &error),
            };
            let sent = Instant::now();
            let result = match self
                .elicit(call, inquiry, &round, &mut progress, request)
                .await
            {
                Ok(result) => result,
                Err(ended) => return *ended,
            };
            let action = match result.action {
                ElicitationAction::Cancel => Some(FormAction::Cancel),
                ElicitationAction::Decline => Some(FormAction::Decline),
                _ => None,
            };
            let waiting = &self.config.waiting;
            let no_person = action
                .filter(|_| !person)
                .and_then(|action| waiting.no_person(action, sent.elapsed()));
            if let Some(note) = no_person {
                return self
                    .wait_elsewhere(&self.recorder, call, inquiry, note, &client.client, request)
                    .await;
            }
            let mut response = match result.action {
                ElicitationAction::Accept => match result.content {
                    Some(Value::Object(content)) => content,
                    _ => Map::new(),
                },
                ElicitationAction::Decline => return reply(&self.recorder, call, &mut walk),
                // `cancel`, and any action a later protocol adds: dismissed.
                _ => return end_turn(&self.recorder, call, &mut walk),
            };
            // A form without a Decline button: its last field chose instead.
            match take_instead(&mut response) {
                Some(Instead::Reply) => {
                    // Boxed: a rare round, kept out of every call's future.
                    return Box::pin(self.reply_asking_its_message(
                        call,
                        inquiry,
                        &mut walk,
                        &mut progress,
                        request,
                    ))
                    .await;
                }
                Some(Instead::EndTurn) => return end_turn(&self.recorder, call, &mut walk),
                None => {}
            }
            // Accepted at every default faster than anyone reads: nobody's.
            let unread = waiting.unread(round.all_defaults(&response), sent.elapsed());
            if let Some(note) = unread.filter(|_| !person) {
                return self
                    .wait_elsewhere(&self.recorder, call, inquiry, note, &client.client, request)
                    .await;
            }
            if waiting.read_by_a_person(sent.elapsed()) {
                person = true;
                self.person_seen.store(true, Ordering::SeqCst);
            }
            if let Some(late) = waiting.late(&client.client, client.started.elapsed()) {
                note(&self.recorder, inquiry, late);
            }
            // A form sent back empty is asked again once, saying what is
            // missing; empty again, this client may not show these questions:
            // not asked a third time.
            if walk.empty_twice(&response) {
                let note = ClientNote::CannotShow;
                return self
                    .wait_elsewhere(&self.recorder, call, inquiry, note, &client.client, request)
                    .await;
            }
            match walk.accept(&self.recorder, &round, &response) {
                Ok(Some(done)) => return done_result(call, &done),
                Ok(None) => {}
                Err(error) => return not_recorded(tool, &error),
            }
        }
        self.give_up(
            call,
            inquiry,
            "too_many_rounds",
            &"the form kept coming back incomplete",
        )
    }

    /// Sends one round and waits for the person's response, with a progress
    /// heartbeat meanwhile: the response, or the call's result when it ended (the
    /// client cancelled it or went away, or the elicitation failed).
    pub(crate) async fn elicit(
        &self,
        call: &Call,
        inquiry: &InquiryId,
        round: &Round,
        progress: &mut Progress<'_>,
        request: &RequestContext<RoleServer>,
    ) -> Result<ElicitResult, Box<CallToolResult>> {
        let params = elicit_params(round)
            .map_err(|error| Box::new(self.give_up(call, inquiry, "schema", &error)))?;
        progress.tell(&round.message).await;
        let asking = request.peer.create_elicitation(params);
        tokio::pin!(asking);
        let mut beat =
            tokio::time::interval_at(tokio::time::Instant::now() + self.heartbeat, self.heartbeat);
        // The client may cancel the call (`notifications/cancelled`: an Esc,
        // an interrupt, its own timeout) or go away while the person answers.
        let asked = loop {
            tokio::select! {
                asked = &mut asking => break asked,
                () = request.ct.cancelled() => return Err(Box::new(self.stopped(call, inquiry, &request.peer))),
                _ = beat.tick() => progress.tell(&round.message).await,
            }
        };
        match asked {
            Ok(result) => Ok(result),
            Err(_) if request.ct.is_cancelled() || request.peer.is_transport_closed() => {
                Err(Box::new(self.stopped(call, inquiry, &request.peer)))
            }
            Err(error) => Err(Box::new(self.give_up(
                call,
                inquiry,
                "elicitation_failed",
                &error,
            ))),
        }
    }

    /// Ends the inquiry of a call the client cancelled or left (recorded, so the
    /// log does not keep it open); no further round is sent.
    pub(crate) fn stopped(
        &self,
        call: &Call,
        inquiry: &InquiryId,
        peer: &Peer<RoleServer>,
    ) -> CallToolResult {
        stopped_in(&self.recorder, call, inquiry, peer)
    }

    /// Cancels the inquiry for a system reason (recorded) and returns its failure.
    fn give_up(
        &self,
        call: &Call,
        inquiry: &InquiryId,
        reason: &str,
        error: &dyn std::fmt::Display,
    ) -> CallToolResult {
        self.fail_with(
            call,
            inquiry,
            CancelReason::Unknown(reason.to_owned()),
            error,
        )
    }

    /// Cancels the inquiry for `reason` (recorded, with `error` as its message)
    /// and returns its failure.
    pub(crate) fn fail_with(
        &self,
        call: &Call,
        inquiry: &InquiryId,
        reason: CancelReason,
        error: &dyn std::fmt::Display,
    ) -> CallToolResult {
        cancel_in(&self.recorder, call, inquiry, reason, error)
    }
}

/// Ends the inquiry of a call the client cancelled or left, in `recorder`'s
/// stream (recorded, so the log does not keep it open): its result.
pub(crate) fn stopped_in(
    recorder: &Recorder,
    call: &Call,
    inquiry: &InquiryId,
    peer: &Peer<RoleServer>,
) -> CallToolResult {
    let (reason, why) = if peer.is_transport_closed() {
        (
            "client_disconnected",
            "the client disconnected before the questions were answered",
        )
    } else {
        (
            "client_cancelled",
            "the client cancelled the tool call (notifications/cancelled)",
        )
    };
    let reason = CancelReason::Unknown(reason.to_owned());
    cancel_in(recorder, call, inquiry, reason, &why)
}

/// Cancels `inquiry` in `recorder`'s stream for `reason` (recorded, with `error`
/// as its message) and returns its failure.
pub(crate) fn cancel_in(
    recorder: &Recorder,
    call: &Call,
    inquiry: &InquiryId,
    reason: CancelReason,
    error: &dyn std::fmt::Display,
) -> CallToolResult {
    let cancel = Input::Cancel {
        inquiry: inquiry.clone(),
        reason,
        message: Some(error.to_string()),
    };
    record_final(recorder, call, &cancel)
}

/// Records a `decline` (a Reply with the answers so far) and returns its result.
pub(crate) fn reply(recorder: &Recorder, call: &Call, walk: &mut Walk) -> CallToolResult {
    match walk.reply(recorder) {
        Ok(done) => done_result(call, &done),
        Err(error) => not_recorded(call.tool_name(), &error),
    }
}

/// Records a Reply with `message` (chosen in a form without a Decline button,
/// [`crate::reply_message`]) and returns its result.
pub(crate) fn reply_with(
    recorder: &Recorder,
    call: &Call,
    walk: &mut Walk,
    message: Option<String>,
) -> CallToolResult {
    match walk.reply_with(recorder, message) {
        Ok(done) => done_result(call, &done),
        Err(error) => not_recorded(call.tool_name(), &error),
    }
}

/// Records a `cancel` (the person dismissed the form: the turn ends) and
/// returns its result.
pub(crate) fn end_turn(recorder: &Recorder, call: &Call, walk: &mut Walk) -> CallToolResult {
    match walk.end_turn(recorder) {
        Ok(done) => done_result(call, &done),
        Err(error) => not_recorded(call.tool_name(), &error),
    }
}

/// Records a host's cancellation and returns its result; when another surface
/// finished the inquiry first, the result it produced.
fn record_final(recorder: &Recorder, call: &Call, cancel: &Input) -> CallToolResult {
    match recorder.take(cancel, None, 0) {
        Ok(Taken::Recorded(step)) => match step.commands.last() {
            Some(command) => finish(call, command),
            None => error_result(dismissed(call.tool_name())),
        },
        Ok(Taken::Moved(moved)) => elsewhere::result(
            call,
            &Elsewhere {
                ending: moved.ending().cloned(),
                turn_ended_in: moved.turn_ended_in(),
                unsent: Unsent::Nothing,
            },
        ),
        Ok(Taken::Refused(refusal)) => not_recorded(call.tool_name(), &refusal),
        Err(error) => not_recorded(call.tool_name(), &error),
    }
}

/// The tool result of a walk that ended: its own final command's, or the one
/// another surface produced, said in words.
pub(crate) fn done_result(call: &Call, done: &Done) -> CallToolResult {
    match done {
        Done::Finished(finished) => finish(call, finished),
        Done::Elsewhere(elsewhere) => elsewhere::result(call, elsewhere),
        Done::Refused(why) => not_recorded(call.tool_name(), why),
    }
}

/// The tool result for the command that finished an inquiry.
pub(crate) fn finish(call: &Call, command: &Command) -> CallToolResult {
    if let Command::EndTurn { .. } = command {
        return error_result(dismissed(call.tool_name()));
    }
    match call.tool_result(command) {
        Some(result) => call_result(result),
        None => call_result(ToolResult::Error(dismissed(call.tool_name()))),
    }
}

impl ServerHandler for AskServer {
    fn get_info(&self) -> ServerConfig {
        InitializeResult::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("askuser", env!("CARGO_PKG_VERSION")))
            .with_instructions(instructions(
                &self.config.without_elicitation,
                &self.config.tool_names,
            ))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        // The model is told how long a call may wait for another window.
        let wait = self.config.waiting.wait_for(&client_of(&context));
        let mut tools = tools(&self.config.tool_names);
        if !wait.is_zero() {
            let words = crate::waiting::wait_words(wait);
            for tool in &mut tools {
                let description = tool.description.as_deref().unwrap_or_default();
                tool.description = Some(format!("{description}\n\n{words}").into());
            }
        }
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let names = &self.config.tool_names;
        let Some(dialect) = names.dialect_of(&request.name) else {
            return Err(ErrorData::invalid_params(
                format!(
                    "there is no tool \"{}\"; askuser's tools are {}",
                    request.name,
                    names.listed()
                ),
                None,
            ));
        };
        let arguments = Value::Object(request.arguments.unwrap_or_default());
        let client = client_of(&context);
        self.note_client(context.client_info());
        self.note_roots(&context).await;
        // A host that says nobody is at it is sent no form.
        let can_elicit = self.config.waiting.headless.is_none()
            && context
                .client_capabilities()
                .and_then(|c| c.elicitation)
                .is_some_and(|e| e.form.is_some() || e.url.is_none());
        let modern = context
            .protocol_version()
            .is_some_and(|v| v.as_str() >= MRTR_VERSION);
        let for_assistant =
            (self.config.policy.as_ref()).is_some_and(|p| p.target == Target::Assistant);
        // A modern client without forms waits here too, for another window.
        if modern && (can_elicit || for_assistant) {
            let retry = Retry {
                state: request.request_state,
                responses: request.input_responses,
            };
            return Ok(
                match self.ask_mrtr(
                    dialect,
                    &arguments,
                    can_elicit,
                    client.forms,
                    retry,
                    &client,
                ) {
                    Mrtr::Response(response) => names.served_response(dialect, response),
                    Mrtr::Wait {
                        recorder,
                        call,
                        inquiry,
                        note,
                    } => {
                        let _asking = Asking::new(&self.asking);
                        self.keep_busy(&recorder);
                        let result = self
                            .wait_elsewhere(&recorder, &call, &inquiry, note, &client, &context)
                            .await;
                        recorder.handed_over(&inquiry);
                        let response = CallToolResponse::from(result);
                        self.keep_round(&recorder, &call, &inquiry, &response, false);
                        names.served_response(dialect, response)
                    }
                },
            );
        }
        let client = Asker {
            client,
            can_elicit,
            started: Instant::now(),
        };
        let result = self.ask(dialect, &arguments, client, &context).await;
        Ok(names.served_response(dialect, result.into()))
    }
}

/// The naming of a stream claimed when the session first records
/// ([`Config::claim`]): named after where the agent works as the session
/// knows it then (the client's root, else `origin`'s directory), by
/// [`Desk::claim_stream`]; `config`'s stream where that names no
/// place or cannot be claimed.
fn claiming(config: &Config, origin: &AgentOrigin, presence: Arc<Mutex<Presence>>) -> Naming {
    let (open, origin, fallback) = (
        Arc::clone(&config.open_desk),
        origin.clone(),
        config.stream.to_string(),
    );
    Arc::new(move || {
        let origin = {
            let presence = presence.lock().unwrap_or_else(PoisonError::into_inner);
            AskServer::origin_now(&origin, &presence)
        };
        let claimed = open()
            .ok()
            .and_then(|desk| desk.claim_stream(&origin).ok().flatten());
        match claimed {
            Some(name) => (name.to_string(), true),
            None => (fallback.clone(), false),
        }
    })
}

/// How long a client is given to say its roots.
const ROOTS_WAIT: Duration = Duration::from_secs(2);

/// A `file://` URI's path with its `%XX` escapes decoded (an escape that does
/// not decode to UTF-8 is kept as written).
fn percent_decoded(path: &str) -> String {
    let bytes = path.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |at: usize| {
            bytes
                .get(at..at + 2)
                .and_then(|h| std::str::from_utf8(h).ok())
                .and_then(|h| u8::from_str_radix(h, 16).ok())
        };
        match (bytes[i], hex(i + 1)) {
            (b'%', Some(byte)) => {
                out.push(byte);
                i += 3;
            }
            (byte, _) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8(out).unwrap_or_else(|_| path.to_owned())
}
