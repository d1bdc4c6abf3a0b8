//! [`Server`]: the engine over JSON lines, one object per line in each direction.

use std::collections::{BTreeSet, HashMap};
use std::io::{self, BufRead, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use askuser_core::{AnswerInput, At, Command, InquiryId, Policy, Surface};
use askuser_core::{UiInput, ui_answer};
use serde_json::{Value, json};

use crate::input::{Ask, Input, MAX_LINE_BYTES, Shown, named_inquiry, parse_input};
use crate::lines::{self, Held, Step};
use crate::output::{command_line, error_line, refusal_line};
use askuser_app::Desk;
use askuser_app::Result;

/// The protocol's version, sent in the `ready` line.
pub const PROTOCOL_VERSION: u32 = 1;

/// The engine over JSON lines (see `docs/protocol.md`): reads a host's messages,
/// records each as an event, and answers with the lines of the engine's commands.
/// A bad line gets an `error` line and the server goes on.
#[derive(Debug)]
pub struct Server {
    desk: Desk,
    /// What other surfaces recorded that this server has not passed on yet.
    held: Held,
    stream: String,
    /// Which stream each inquiry of this session lives in, for those outside the
    /// server's own stream (an inquiry of its own stream is found in its state).
    routes: HashMap<String, String>,
    /// The streams whose open inquiries were routed already (each once: after that,
    /// every ask this server records is routed as it is recorded).
    adopted: BTreeSet<String>,
    /// The inquiries this server asked or took over (its stream's open ones at
    /// its greeting), by stream then id, that have not finished yet: the results
    /// [`Server::serve`] records handing over.
    asked: BTreeSet<(String, String)>,
    /// While [`Server::serve_watching`] runs: the default stream's head its
    /// watcher last saw (a catch-up before an input is needed only when the
    /// desk does not hold that much yet).
    pub(crate) watched: Option<Arc<AtomicU64>>,
}

impl Server {
    /// A server recording through `desk` into `stream` by default (an `ask` may
    /// name another stream). If the stream already exists, its open inquiries
    /// can be answered.
    ///
    /// # Errors
    /// When the stream cannot be read from the log.
    pub fn new(desk: Desk, stream: impl Into<String>) -> Result<Self> {
        let mut server = Self {
            desk,
            held: Held::default(),
            stream: stream.into(),
            routes: HashMap::new(),
            adopted: BTreeSet::new(),
            asked: BTreeSet::new(),
            watched: None,
        };
        let stream = server.stream.clone();
        server.adopt(&stream)?;
        Ok(server)
    }

    /// The default stream.
    pub fn stream(&self) -> &str {
        &self.stream
    }

    /// The desk the server records through.
    pub fn desk(&mut self) -> &mut Desk {
        &mut self.desk
    }

    /// The first line a server sends: `{"type":"ready","stream":...,"protocol":1,
    /// "open":[...]}`, `open` listing the inquiries of the stream still open in the
    /// log (in id order), as [`Server::greeting`] sends it (which adds
    /// `"finished_while_away"` when it hands results over).
    ///
    /// # Errors
    /// When the stream cannot be read from the log.
    pub fn ready_line(&mut self) -> Result<Value> {
        let open: Vec<String> = self
            .desk
            .state(&self.stream)?
            .open_inquiries()
            .map(ToString::to_string)
            .collect();
        Ok(
            json!({"type": "ready", "stream": self.stream, "protocol": PROTOCOL_VERSION,
                  "open": open}),
        )
    }

    /// What a server sends before reading anything: the `ready` line; then the
    /// result line of each inquiry of the stream whose result is owed to its asker
    /// (it finished while no server of its asker was there to hand it over, see
    /// [`State::owed`](askuser_core::State::owed)), in the order they finished, each
    /// recorded handed over first ([`askuser_core::Input::Deliver`]) and listed on
    /// the `ready` line as `"finished_while_away"`; then for each open inquiry of
    /// the stream the line it is waiting on (its current `prompt`, or
    /// `ask_assistant`), so that a host that restarted can show it again. A problem
    /// reading the log is an `error` line.
    pub fn greeting(&mut self) -> Vec<Value> {
        let mut ready = match self.ready_line() {
            Ok(ready) => ready,
            Err(error) => return vec![error_line(&not_recorded(&error))],
        };
        let open: Vec<String> = ready["open"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|id| id.as_str().map(str::to_owned))
            .collect();
        let stream = self.stream.clone();
        let (away, results) = self.finished_while_away();
        if let (false, Value::Object(object)) = (away.is_empty(), &mut ready) {
            object.insert("finished_while_away".into(), json!(away));
        }
        let mut lines = vec![ready];
        lines.extend(results);
        for inquiry in open {
            // The server on a stream is its asker: it takes over the inquiries a
            // server before it left open, and hands their results over.
            self.asked.insert((stream.clone(), inquiry.clone()));
            match lines::pending_line(&mut self.desk, &stream, &InquiryId::new(&inquiry)) {
                Ok(Some(line)) => lines.push(line),
                Ok(None) => {}
                Err(error) => lines.push(inquiry_error(&inquiry, &error.to_string())),
            }
        }
        lines
    }

    /// The results owed on the server's stream (see [`Server::greeting`]), each
    /// recorded handed over before its line is given: the ids handed over, and
    /// their lines (or the `error` line of one that could not be recorded). One
    /// that another surface handed over first is left out.
    fn finished_while_away(&mut self) -> (Vec<String>, Vec<Value>) {
        let stream = self.stream.clone();
        let owed: Vec<(InquiryId, Option<Command>, Option<askuser_core::ToolCall>)> =
            match self.desk.state(&stream) {
                Ok(state) => (state.owed())
                    .map(|(id, record)| (id.clone(), record.command(id), record.call().cloned()))
                    .collect(),
                Err(error) => return (Vec::new(), vec![error_line(&not_recorded(&error))]),
            };
        let (mut away, mut lines) = (Vec::new(), Vec::new());
        for (inquiry, command, call) in owed {
            let deliver = askuser_core::Input::Deliver {
                inquiry: inquiry.clone(),
            };
            match lines::input(&mut self.desk, &mut self.held, &stream, &deliver) {
                Ok(Step::Recorded { .. }) => {}
                // Handed over by another surface first.
                Ok(Step::Refused(_)) => continue,
                Err(error) => {
                    lines.push(inquiry_error(inquiry.as_str(), &not_recorded(&error)));
                    continue;
                }
            }
            let call = call.as_ref().and_then(askuser_app::parse_recorded);
            if let Some(command) = command {
                lines.push(command_line(&command, call.as_ref(), None));
            }
            away.push(inquiry.to_string());
        }
        (away, lines)
    }

    /// Records that the results among `lines` of inquiries this server asked were
    /// handed to its host (so a restarted server is not given them again), each
    /// once; one another surface recorded first, or not owed, is left as it is.
    /// [`Server::handle`] and [`Server::catch_up`] do it with the lines they
    /// return: a line returned is a line handed over.
    fn handed_over(&mut self, lines: &[Value]) {
        if self.asked.is_empty() {
            return;
        }
        for line in lines {
            let ends = matches!(
                line["type"].as_str(),
                Some("result" | "failed" | "turn_ended" | "rejected")
            );
            let Some(inquiry) = line["inquiry"].as_str().filter(|_| ends) else {
                continue;
            };
            let stream = (self.routes.get(inquiry).cloned()).unwrap_or_else(|| self.stream.clone());
            if !self.asked.remove(&(stream.clone(), inquiry.to_owned())) {
                continue;
            }
            // Best effort: a result not recorded handed over is given again
            // after a restart, which is the lesser harm.
            let _ = self.desk.handed_over(&stream, &InquiryId::new(inquiry));
        }
    }

    /// Routes the open inquiries of `stream` (read from the log) to it, the first
    /// time the stream is used: the cost of an ask must not grow with how many are
    /// open.
    fn adopt(&mut self, stream: &str) -> Result<()> {
        if self.adopted.contains(stream) {
            return Ok(());
        }
        let state = self.desk.state(stream)?;
        let open: Vec<String> = state.open_inquiries().map(ToString::to_string).collect();
        for inquiry in open {
            self.routes
                .entry(inquiry)
                .or_insert_with(|| stream.to_owned());
        }
        self.adopted.insert(stream.to_owned());
        Ok(())
    }

    /// Serves until `input` ends: writes the `ready` line, then the lines answering
    /// each input line, flushing after each.
    ///
    /// # Errors
    /// Only when reading `input` or writing `output` fails.
    pub fn serve<R: BufRead, W: Write>(&mut self, mut input: R, mut output: W) -> Result<()> {
        for line in self.greeting() {
            write_line(&mut output, &line)?;
        }
        let mut buffer = Vec::new();
        loop {
            let line = read_line(&mut input, &mut buffer)?;
            if matches!(line, Line::End) {
                return Ok(());
            }
            for line in &self.answer_input(&line, &buffer) {
                write_line(&mut output, line)?;
            }
        }
    }

    /// The lines answering one line of input (`buffer` holds its text).
    pub(crate) fn answer_input(&mut self, line: &Line, buffer: &[u8]) -> Vec<Value> {
        match line {
            Line::End => Vec::new(),
            Line::TooLong => vec![error_line(&format!(
                "the line is longer than {MAX_LINE_BYTES} bytes (1 MiB) and was skipped; send smaller messages"
            ))],
            Line::Text => match std::str::from_utf8(buffer) {
                Ok(text) if text.trim().is_empty() => Vec::new(),
                Ok(text) => self.handle_line(text),
                Err(_) => vec![error_line(
                    "the line is not UTF-8 text and was skipped; send JSON encoded as UTF-8",
                )],
            },
        }
    }

    /// The lines for what other processes recorded in the streams this session
    /// serves since it last looked: an answer given elsewhere (another terminal,
    /// `askuser answer`) arrives as its `result` line. A host loop calls this when
    /// [`Log::wait_past`](askuser_app::log::Log::wait_past) on the desk's log says a
    /// head moved; nothing comes of the session's own inputs, already answered.
    pub fn catch_up(&mut self) -> Vec<Value> {
        // The streams this session used (each adopted once), not every route: the
        // cost of a look must not grow with how many inquiries were asked.
        let mut streams: Vec<String> = self.adopted.iter().cloned().collect();
        if !self.adopted.contains(&self.stream) {
            streams.push(self.stream.clone());
        }
        let mut lines = Vec::new();
        for stream in streams {
            match lines::catch_up(&mut self.desk, &mut self.held, &stream) {
                Ok(more) => lines.extend(more),
                Err(error) => lines.push(error_line(&not_recorded(&error))),
            }
        }
        self.handed_over(&lines);
        lines
    }

    /// The lines answering one input line. Never fails: a problem is an `error` line.
    /// The lines answering one input line. Never fails: a problem is an `error` line
    /// (naming the `inquiry` when the line names one).
    pub fn handle_line(&mut self, line: &str) -> Vec<Value> {
        match parse_input(line) {
            Ok(input) => self.handle(input),
            Err(message) => match named_inquiry(line) {
                Some(inquiry) => vec![inquiry_error(&inquiry, &message)],
                None => vec![error_line(&message)],
            },
        }
    }

    /// The lines answering one message. Each message that the engine accepts is
    /// recorded before this returns.
    ///
    /// An `answer`, `back`, `reply` or `submit` that names the `step` it was sent
    /// on is handed to the engine as an [`askuser_core::Input`] saying what it
    /// answers: refused, with a `stale` error line and the line the inquiry shows
    /// now, when another surface moved the inquiry on first (and with the code of
    /// the mistake, `unknown_question`, `unexpected_question`, `not_in_review`,
    /// `in_review` or `future_step`, and that line, when what it names was never
    /// shown). Without a `step` it is taken on whatever the inquiry shows, as
    /// before steps were sent. Every refusal's `error` line carries its `code`.
    ///
    /// Before an action that names its step is decided, the server reads what
    /// other surfaces recorded since it last looked, and the lines of that (the
    /// `prompt` they moved the inquiry to, the `result` of one they finished) come
    /// first: a host does not miss them because its own line was read before the
    /// server passed them on unrequested.
    ///
    /// A result line of an inquiry this server asked (or took over at its
    /// greeting) is recorded handed over ([`askuser_core::Input::Deliver`]) before
    /// it is returned, as [`Server::catch_up`] does: a restarted server is given
    /// only what none of its predecessors returned. When the host's line itself
    /// finishes such an inquiry, that record is made in the same append as the
    /// line's own ([`Desk::input_handing_over`]): one write for both.
    pub fn handle(&mut self, input: Input) -> Vec<Value> {
        let lines = if let Input::Ask(ask) = input {
            self.ask(ask)
        } else {
            let inquiry = input.inquiry().to_owned();
            match self.route(&inquiry) {
                Ok(stream) => self.act(&stream, &inquiry, input),
                Err(message) => vec![inquiry_error(&inquiry, &message)],
            }
        };
        self.handed_over(&lines);
        lines
    }

    /// Hands the engine what a message of an inquiry of `stream` stands for.
    fn act(&mut self, stream: &str, inquiry: &str, input: Input) -> Vec<Value> {
        let action = match self.action(stream, input) {
            Ok(Some(action)) => action,
            // An ask is answered by `ask`.
            Ok(None) => return Vec::new(),
            Err(error) => return vec![inquiry_error(inquiry, &not_recorded(&error))],
        };
        let mut lines = match self.caught_up_before(stream, &action) {
            Ok(lines) => lines,
            Err(error) => return vec![inquiry_error(inquiry, &not_recorded(&error))],
        };
        let asked_here = (self.asked).contains(&(stream.to_owned(), inquiry.to_owned()));
        let step = match &action {
            Action::Decide(input) | Action::Current(input) if asked_here => {
                lines::asker_input(&mut self.desk, &mut self.held, stream, input)
            }
            Action::Decide(input) | Action::Current(input) => {
                lines::input(&mut self.desk, &mut self.held, stream, input)
            }
            Action::Refuse(refusal) => Ok(Step::Refused(refusal.clone())),
        };
        let id = InquiryId::new(inquiry);
        if let Ok(Step::Refused(refusal)) = &step
            && refusal.current().is_some()
        {
            // It named something the inquiry does not show: then the line it
            // shows now, unless it was just passed on.
            let now = self.shows_now(stream, &id);
            let passed_on = lines.iter().rev().find(|line| line["inquiry"] == inquiry);
            let again = now.filter(|now| passed_on != Some(now));
            lines.push(refusal_line(inquiry, refusal));
            lines.extend(again);
            return lines;
        }
        match step {
            // A review wanted while questions are still to answer shows nothing
            // yet, but moves the step: the prompt comes again with the new one.
            Ok(Step::Recorded { outputs, .. })
                if outputs.is_empty()
                    && matches!(
                        action,
                        Action::Current(askuser_core::Input::WantReview { .. })
                    ) =>
            {
                lines.extend(self.shows_now(stream, &id));
            }
            step => lines.extend(finish(inquiry, step.map_err(|e| not_recorded(&e)))),
        }
        lines
    }

    /// What a message stands for, as an [`askuser_core::Input`]: an action
    /// naming what was shown (it has a `step`) is decided on that; one that names
    /// no step on what the inquiry shows now. `None` for an `ask`, which names no
    /// inquiry of the session yet.
    fn action(&mut self, stream: &str, input: Input) -> Result<Option<Action>> {
        use askuser_core::Input as Core;
        let id = |inquiry: &str| InquiryId::new(inquiry);
        Ok(Some(match input {
            Input::Answer {
                inquiry,
                question,
                value,
                by,
                remember,
                note,
                step,
            } => {
                let value = self.normalize(stream, &inquiry, &question, value)?;
                let at = match step {
                    Some(step) => At::question(id(&inquiry), question, step),
                    None => match self.current_question(stream, &id(&inquiry), &question)? {
                        Ok(at) => at,
                        Err(refusal) => return Ok(Some(Action::Refuse(refusal))),
                    },
                };
                let mut answer = AnswerInput::new(at, value).with_note(note).by(by);
                answer.remember = remember;
                match step {
                    Some(_) => Action::Decide(answer.into()),
                    None => Action::Current(answer.into()),
                }
            }
            Input::Back { inquiry, shown } => match shown {
                Some(shown) => Action::Decide(Core::Back(at(&inquiry, shown))),
                None => Action::Current(Core::Back(self.current(stream, &id(&inquiry))?)),
            },
            Input::Reply {
                inquiry,
                message,
                shown,
            } => match shown {
                Some(shown) => Action::Decide(Core::Reply {
                    at: at(&inquiry, shown),
                    message,
                }),
                None => Action::Current(Core::Reply {
                    at: self.current(stream, &id(&inquiry))?,
                    message,
                }),
            },
            Input::Submit { inquiry, shown } => match shown {
                Some(shown) => Action::Decide(Core::Submit(at(&inquiry, shown))),
                None => Action::Current(Core::Submit(self.current(stream, &id(&inquiry))?)),
            },
            Input::Change {
                inquiry,
                question,
                step,
            } => match step {
                Some(step) => Action::Decide(Core::Change {
                    at: At::review(id(&inquiry), step),
                    question,
                }),
                None => Action::Current(Core::Change {
                    at: self.current(stream, &id(&inquiry))?,
                    question,
                }),
            },
            // The line carries no time: fired when it arrives, by the log's clock
            // (the one the deadline counts by); the engine refuses it if early.
            Input::TimedOut { inquiry, message } => Action::Current(Core::TimeOut {
                inquiry: id(&inquiry),
                message,
                fired_at_ms: self.desk.now().millis(),
            }),
            Input::Review { inquiry } => Action::Current(Core::WantReview {
                inquiry: id(&inquiry),
            }),
            Input::EndTurn { inquiry } => Action::Current(Core::EndTurn {
                inquiry: id(&inquiry),
                surface: Some(Surface::Host),
            }),
            Input::Ask(_) => return Ok(None),
        }))
    }

    /// What `inquiry` shows now, for a line that names no step (what other
    /// surfaces recorded is applied first, and passed on with the next line
    /// that names a step); `None` when it is not open.
    fn shows(&mut self, stream: &str, inquiry: &InquiryId) -> Result<Option<At>> {
        lines::look(&mut self.desk, &mut self.held, stream)?;
        Ok(self.desk.state(stream)?.at(inquiry))
    }

    /// What `inquiry` shows now; of an inquiry that is not open, any `At`: the
    /// engine refuses it as not open.
    fn current(&mut self, stream: &str, inquiry: &InquiryId) -> Result<At> {
        Ok(self
            .shows(stream, inquiry)?
            .unwrap_or_else(|| At::review(inquiry.clone(), 0)))
    }

    /// What a stepless answer to `question` answers: the question `inquiry` shows
    /// now, or the refusal the engine gives an answer to a question it does not
    /// show ([`State::asking`](askuser_core::State::asking)).
    fn current_question(
        &mut self,
        stream: &str,
        inquiry: &InquiryId,
        question: &str,
    ) -> Result<std::result::Result<At, askuser_core::Refusal>> {
        lines::look(&mut self.desk, &mut self.held, stream)?;
        Ok(self.desk.state(stream)?.asking(inquiry, question))
    }

    /// The lines of what other surfaces recorded in `stream` since this server
    /// last looked, read before an action that names what was shown is decided
    /// (none before a line without a step, decided as it comes).
    ///
    /// While a watcher tells this server of every move of its default stream,
    /// that stream is read only when the watcher saw more than the desk holds:
    /// what lands after that look is caught by the append itself (another
    /// writer went first: decided again), as it is after a read.
    fn caught_up_before(&mut self, stream: &str, action: &Action) -> Result<Vec<Value>> {
        match action {
            Action::Decide(_) if self.told_of_everything(stream) => Ok(Vec::new()),
            Action::Decide(_) => lines::catch_up(&mut self.desk, &mut self.held, stream),
            Action::Current(_) | Action::Refuse(_) => Ok(Vec::new()),
        }
    }

    /// Whether `stream` is watched and the desk holds all its watcher saw, with
    /// nothing held for the host.
    fn told_of_everything(&self, stream: &str) -> bool {
        let Some(watched) = self.watched.as_ref().filter(|_| stream == self.stream) else {
            return false;
        };
        !self.held.has(stream)
            && self
                .desk
                .has_caught_up(stream, watched.load(Ordering::SeqCst))
    }

    /// The line an open inquiry shows now (its `prompt`, `review` or
    /// `ask_assistant`), or the `error` line saying why it cannot be read.
    fn shows_now(&mut self, stream: &str, inquiry: &InquiryId) -> Option<Value> {
        match lines::pending_line(&mut self.desk, stream, inquiry) {
            Ok(line) => line,
            Err(error) => Some(inquiry_error(inquiry.as_str(), &not_recorded(&error))),
        }
    }

    /// The stream an inquiry of this session lives in.
    fn route(&mut self, inquiry: &str) -> Result<String, String> {
        match self.routes.get(inquiry).cloned() {
            Some(stream) => Ok(stream),
            // Asked in the server's stream before a restart, and finished since: the
            // engine says so.
            None if self.was_requested(inquiry) => Ok(self.stream.clone()),
            None => Err(format!(
                "no inquiry \"{inquiry}\" was asked in this session; send an \"ask\" for it first"
            )),
        }
    }

    /// Whether the server's stream ever recorded a request for `inquiry`.
    fn was_requested(&mut self, inquiry: &str) -> bool {
        let stream = self.stream.clone();
        self.desk
            .state(&stream)
            .is_ok_and(|state| state.was_requested(&InquiryId::new(inquiry)))
    }

    /// The answer as the engine takes it: an option's label for text naming one,
    /// `true` for "yes", as [`ui_answer`] reads a UI's input. A value it cannot
    /// read is passed on as is, for the engine to refuse with its own message.
    fn normalize(
        &mut self,
        stream: &str,
        inquiry: &str,
        question: &str,
        value: Value,
    ) -> Result<Value> {
        let state = self.desk.state(stream)?;
        Ok(match state.pending(&InquiryId::new(inquiry)) {
            Some(Command::Prompt(prompt)) if prompt.question().id == question => {
                ui_answer(prompt.question(), UiInput::Json(value.clone())).unwrap_or(value)
            }
            _ => value,
        })
    }

    fn ask(&mut self, ask: Ask) -> Vec<Value> {
        let inquiry = ask.inquiry.clone();
        if self.routes.contains_key(&inquiry) || self.was_requested(&inquiry) {
            return vec![inquiry_error(
                &inquiry,
                &format!(
                    "inquiry \"{inquiry}\" was already asked in this session; use a new id for a new tool call"
                ),
            )];
        }
        let stream = ask
            .stream
            .clone()
            .map_or_else(|| self.stream.clone(), String::from);
        if let Err(error) = self.adopt(&stream) {
            return vec![inquiry_error(&inquiry, &not_recorded(&error))];
        }
        if self.routes.contains_key(&inquiry) {
            return vec![inquiry_error(
                &inquiry,
                &format!(
                    "inquiry \"{inquiry}\" is already open in stream \"{stream}\"; answer it, or use a new id"
                ),
            )];
        }
        let call = match ask.dialect.parse(&ask.arguments) {
            Ok(call) => call,
            // What the model did is part of the session: the rejected call is
            // recorded with its problems (not its arguments).
            Err(rejection) => {
                let rejected = askuser_core::Input::RejectCall {
                    inquiry: InquiryId::new(&inquiry),
                    tool: rejection.tool.to_owned(),
                    problems: rejection
                        .errors
                        .iter()
                        .map(|e| askuser_core::Problem {
                            path: e.path.clone(),
                            message: e.message.clone(),
                        })
                        .collect(),
                };
                let step = lines::input(&mut self.desk, &mut self.held, &stream, &rejected)
                    .map_err(|e| not_recorded(&e));
                return finish(&inquiry, step);
            }
        };
        let mut request = call.request(InquiryId::new(&inquiry));
        request.origin.subagent = ask.subagent;
        // A restarted server is given the result of one finished while it was away.
        request.origin.resumes = true;
        // An ask that names no turn is a turn of its own.
        request.origin.turn = ask
            .turn
            .filter(|turn| !turn.is_empty())
            .unwrap_or_else(|| inquiry.clone());
        match merge_policy(request.policy, ask.policy) {
            Ok(policy) => request.policy = policy,
            Err(message) => return vec![inquiry_error(&inquiry, &message)],
        }
        if let Some(interactive) = ask.interactive {
            request.policy.interactive = interactive;
        }
        let step = lines::request(
            &mut self.desk,
            &mut self.held,
            &stream,
            (&call, &ask.arguments),
            request,
        )
        .map_err(|e| not_recorded(&e));
        // An inquiry of the server's own stream needs no route (the stream's state
        // knows it), so the routes do not grow with the asks of a long session.
        if matches!(step, Ok(Step::Recorded { .. })) {
            self.asked.insert((stream.clone(), inquiry.clone()));
            if stream != self.stream {
                self.routes.insert(inquiry.clone(), stream);
            }
        }
        finish(&inquiry, step)
    }
}

/// What a host's message stands for.
enum Action {
    /// An action that names what was shown, for the engine to decide.
    Decide(askuser_core::Input),
    /// A line that names no step, decided on what the inquiry shows now.
    Current(askuser_core::Input),
    /// A stepless answer to a question the inquiry does not show: the engine's
    /// refusal, as an answer to a question not asked gets it.
    Refuse(askuser_core::Refusal),
}

/// What a `back`, `reply` or `submit` line says was shown, for the engine.
fn at(inquiry: &str, shown: Shown) -> At {
    At {
        inquiry: InquiryId::new(inquiry),
        question: shown.question,
        step: shown.step,
    }
}

/// The dialect's policy with the host's overrides (`"policy": {...}`).
fn merge_policy(
    policy: Policy,
    overrides: Option<serde_json::Map<String, Value>>,
) -> Result<Policy, String> {
    let Some(overrides) = overrides else {
        return Ok(policy);
    };
    let mut base = match serde_json::to_value(&policy) {
        Ok(Value::Object(base)) => base,
        _ => serde_json::Map::new(),
    };
    base.extend(overrides);
    serde_json::from_value(Value::Object(base)).map_err(|e| {
        format!("\"policy\" does not read as a policy ({e}); see docs/protocol.md for its fields")
    })
}

fn not_recorded(error: &askuser_app::AppError) -> String {
    format!("the message was not recorded, so it had no effect ({error}); send it again")
}

fn inquiry_error(inquiry: &str, message: &str) -> Value {
    json!({"type": "error", "inquiry": inquiry, "message": message})
}

fn finish(inquiry: &str, step: Result<Step, String>) -> Vec<Value> {
    match step {
        Ok(Step::Recorded { outputs, .. }) => outputs,
        Ok(Step::Refused(refusal)) => vec![refusal_line(inquiry, &refusal)],
        Err(message) => vec![inquiry_error(inquiry, &message)],
    }
}

pub(crate) fn write_line<W: Write>(output: &mut W, line: &Value) -> io::Result<()> {
    write_lines(output, std::slice::from_ref(line))
}

/// Writes `lines`, one JSON value a line, then flushes `output` once.
pub(crate) fn write_lines<W: Write>(output: &mut W, lines: &[Value]) -> io::Result<()> {
    for line in lines {
        serde_json::to_writer(&mut *output, line)?;
        output.write_all(b"\n")?;
    }
    output.flush()
}

/// Every line the server's reader yields from `input` (`None` for a line over the
/// cap), reading through a buffer of `capacity` bytes: the fuzz target's door to the
/// line reader, not an API.
#[doc(hidden)]
pub fn fuzz_read_lines(input: &[u8], capacity: usize) -> Vec<Option<Vec<u8>>> {
    let mut reader = io::BufReader::with_capacity(capacity.max(1), input);
    let mut buffer = Vec::new();
    let mut lines = Vec::new();
    // Reading from a slice cannot fail.
    while let Ok(line) = read_line(&mut reader, &mut buffer) {
        match line {
            Line::End => break,
            Line::TooLong => lines.push(None),
            Line::Text => lines.push(Some(buffer.clone())),
        }
    }
    lines
}

/// What [`read_line`] read.
pub(crate) enum Line {
    Text,
    TooLong,
    End,
}

/// Reads one line into `buffer` (without its `\n` or `\r\n`), holding at most
/// [`MAX_LINE_BYTES`] (and the `\r` of a `\r\n`, which does not count): a longer
/// line is skipped to its end.
pub(crate) fn read_line<R: BufRead>(input: &mut R, buffer: &mut Vec<u8>) -> io::Result<Line> {
    buffer.clear();
    let mut read_any = false;
    let mut too_long = false;
    let finish = |buffer: &mut Vec<u8>, too_long: bool, ended: bool| {
        if ended && buffer.last() == Some(&b'\r') {
            buffer.pop();
        }
        if too_long || buffer.len() > MAX_LINE_BYTES {
            buffer.clear();
            Line::TooLong
        } else {
            Line::Text
        }
    };
    loop {
        let available = match input.fill_buf() {
            Ok(available) => available,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
            Err(error) => return Err(error),
        };
        if available.is_empty() {
            return Ok(if read_any {
                finish(buffer, too_long, false)
            } else {
                Line::End
            });
        }
        read_any = true;
        let (chunk, used, done) = match available.iter().position(|&b| b == b'\n') {
            Some(end) => (&available[..end], end + 1, true),
            None => (available, available.len(), false),
        };
        if !too_long {
            // One byte over the limit is held, for the `\r` of a `\r\n`.
            if buffer.len() + chunk.len() > MAX_LINE_BYTES + 1 {
                too_long = true;
                buffer.clear();
            } else {
                buffer.extend_from_slice(chunk);
            }
        }
        input.consume(used);
        if done {
            return Ok(finish(buffer, too_long, true));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &[u8]) -> Vec<Result<String, &'static str>> {
        let mut reader = io::BufReader::with_capacity(16, input);
        let mut buffer = Vec::new();
        let mut out = Vec::new();
        loop {
            match read_line(&mut reader, &mut buffer).unwrap() {
                Line::End => return out,
                Line::TooLong => out.push(Err("too long")),
                Line::Text => out.push(Ok(String::from_utf8(buffer.clone()).unwrap())),
            }
        }
    }

    #[test]
    fn an_answer_recorded_by_another_server_arrives_by_catch_up() {
        let log: std::sync::Arc<dyn askuser_app::log::Log> =
            std::sync::Arc::new(askuser_app::log::MemLog::new());
        let mut asking = Server::new(Desk::new(log.clone()), "s").unwrap();
        let ask = r#"{"type":"ask","inquiry":"c1","dialect":"jp","arguments":{"question":"Deploy now?","answer_type":"boolean"}}"#;
        assert_eq!(asking.handle_line(ask)[0]["type"], "prompt");
        assert_eq!(asking.catch_up(), Vec::<Value>::new());
        // Another process (here, another server on the same log) answers.
        let mut answering = Server::new(Desk::new(log), "s").unwrap();
        let answered = answering
            .handle_line(r#"{"type":"answer","inquiry":"c1","question":"answer","value":"yes"}"#);
        let result = json!({"type": "result", "inquiry": "c1",
            "result": {"answer_type": "boolean", "answer": true}, "cancelled": false});
        assert_eq!(answered, std::slice::from_ref(&result));
        assert_eq!(asking.catch_up(), [result]);
        assert_eq!(asking.catch_up(), Vec::<Value>::new());
        // The asking server was told: answering again is refused, not recorded.
        let again = asking
            .handle_line(r#"{"type":"answer","inquiry":"c1","question":"answer","value":"no"}"#);
        assert_eq!(
            again,
            [
                json!({"type": "error", "inquiry": "c1", "code": "inquiry_finished",
                "message": "inquiry \"c1\" already finished (answered); it takes no more input: show how it ended instead"})
            ]
        );
    }

    const ASK: &str = r#"{"type":"ask","inquiry":"c1","dialect":"jp","arguments":{"question":"Deploy now?","answer_type":"boolean"}}"#;

    /// What `server` writes serving `input`, line by line.
    fn served(server: &mut Server, input: &str) -> Vec<Value> {
        let mut output = Vec::new();
        server.serve(input.as_bytes(), &mut output).unwrap();
        (output.split(|b| *b == b'\n'))
            .filter(|line| !line.is_empty())
            .map(|line| serde_json::from_slice(line).unwrap())
            .collect()
    }

    #[test]
    fn a_result_finished_while_the_server_was_away_is_given_at_its_restart_once() {
        let log: std::sync::Arc<dyn askuser_app::log::Log> =
            std::sync::Arc::new(askuser_app::log::MemLog::new());
        let mut asking = Server::new(Desk::new(log.clone()), "s").unwrap();
        let lines = served(&mut asking, &format!("{ASK}\n"));
        assert_eq!(lines[1]["type"], "prompt");
        // The server is gone; another surface (`askuser answer`, the web) answers.
        drop(asking);
        let mut elsewhere = Desk::new(log.clone());
        let at = elsewhere
            .state("s")
            .unwrap()
            .at(&InquiryId::new("c1"))
            .unwrap();
        let yes = AnswerInput::new(at, json!(true)).into();
        assert!(elsewhere.input("s", &yes).unwrap().refusal().is_none());

        let mut back = Server::new(Desk::new(log.clone()), "s").unwrap();
        assert_eq!(
            back.greeting(),
            [
                json!({"type": "ready", "stream": "s", "protocol": 1, "open": [],
                    "finished_while_away": ["c1"]}),
                json!({"type": "result", "inquiry": "c1",
                    "result": {"answer_type": "boolean", "answer": true}, "cancelled": false}),
            ]
        );
        // Given once: the next server on the stream is given nothing.
        let mut again = Server::new(Desk::new(log), "s").unwrap();
        assert_eq!(
            again.greeting(),
            [json!({"type": "ready", "stream": "s", "protocol": 1, "open": []})]
        );
    }

    #[test]
    fn a_result_the_server_handed_over_itself_is_not_given_again() {
        let log: std::sync::Arc<dyn askuser_app::log::Log> =
            std::sync::Arc::new(askuser_app::log::MemLog::new());
        let mut asking = Server::new(Desk::new(log.clone()), "s").unwrap();
        let answer = r#"{"type":"answer","inquiry":"c1","question":"answer","value":"yes"}"#;
        let lines = served(&mut asking, &format!("{ASK}\n{answer}\n"));
        assert_eq!(lines[2]["type"], "result");
        // Left open by one server, answered through the next (its host is the
        // asker's now): neither result is given to the server after them.
        let ask2 = ASK.replace("c1", "c2");
        let lines = served(&mut asking, &format!("{ask2}\n"));
        assert_eq!(lines[1]["type"], "prompt");
        let mut next = Server::new(Desk::new(log.clone()), "s").unwrap();
        let lines = served(&mut next, &answer.replace("c1", "c2"));
        assert_eq!(lines[0]["open"], json!(["c2"]));
        assert_eq!(lines[2]["type"], "result");
        let mut last = Server::new(Desk::new(log), "s").unwrap();
        assert_eq!(
            last.greeting(),
            [json!({"type": "ready", "stream": "s", "protocol": 1, "open": []})]
        );
    }

    /// A clock a millisecond later each time it is read: every append is
    /// stamped with a time of its own.
    #[derive(Debug, Default)]
    struct Ticking(std::sync::atomic::AtomicU64);

    impl askuser_app::log::Clock for Ticking {
        fn now(&self) -> askuser_app::log::Timestamp {
            let ticks = self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            askuser_app::log::Timestamp(1_800_000_000_000 + ticks)
        }
    }

    #[test]
    fn an_answer_in_band_records_its_result_handed_over_in_the_same_append() {
        use askuser_core::Event;
        let log: std::sync::Arc<dyn askuser_app::log::Log> = std::sync::Arc::new(
            askuser_app::log::MemLog::new().with_clock(std::sync::Arc::new(Ticking::default())),
        );
        let mut asking = Server::new(Desk::new(log.clone()), "s").unwrap();
        let answer = r#"{"type":"answer","inquiry":"c1","question":"answer","value":"yes"}"#;
        let lines = served(&mut asking, &format!("{ASK}\n{answer}\n"));
        assert_eq!(lines[2]["type"], "result");
        let recorded: Vec<(Event, u64)> = (log.read("s", 1).unwrap())
            .map(|recorded| recorded.map(|r| (r.event, r.at.millis())).unwrap())
            .collect();
        let [
            (Event::Requested(_), asked),
            (Event::Answered { .. }, answered),
            (Event::Delivered { .. }, delivered),
        ] = recorded.as_slice()
        else {
            panic!("{recorded:?}");
        };
        // One append for the answer and the result handed over (the clock ticks
        // at each), none left owed.
        assert!(asked < answered, "{recorded:?}");
        assert_eq!(answered, delivered, "{recorded:?}");
        assert_eq!(asking.desk.state("s").unwrap().owed().count(), 0);
    }

    #[test]
    fn lines_are_split_bounded_and_the_last_may_lack_a_newline() {
        let mut input = b"one\r\ntwo\n".to_vec();
        input.extend(std::iter::repeat_n(b'x', MAX_LINE_BYTES + 1));
        input.extend(b"\nthree");
        assert_eq!(
            lines(&input),
            [
                Ok("one".to_owned()),
                Ok("two".to_owned()),
                Err("too long"),
                Ok("three".to_owned())
            ]
        );
        assert_eq!(lines(b""), []);
    }

    #[test]
    fn a_line_of_the_full_size_may_end_in_crlf() {
        let full = "x".repeat(MAX_LINE_BYTES);
        let input = format!("{full}\r\n{full}\n{full}x\r\n{full}\r");
        assert_eq!(
            lines(input.as_bytes()),
            [
                Ok(full.clone()),
                Ok(full.clone()),
                Err("too long"),
                Err("too long")
            ]
        );
    }
}
