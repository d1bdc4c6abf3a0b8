//! The MCP session's stream: every input goes through the application layer's
//! [`Desk`] (the one unit of work), one desk a step, over the log opened for
//! the step and let go after, so no process holds it while a person thinks
//! (`askuser answer` can record into it meanwhile).

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use askuser_app::log::{Caught, Seq, StoreError};
use askuser_app::{AppError, Desk, Taken as Took};
use askuser_core::{
    Answer, At, Command, Event, Input, InquiryId, Refusal, State, Surface, ToolCall,
};

/// Opens a desk over the log for one step (a sled database is opened and closed
/// again; an in-memory log hands out the same one): the server records, reads
/// and waits only through the [`Desk`]s it gives.
pub type OpenDesk = Arc<dyn Fn() -> Result<Desk, AppError> + Send + Sync>;

/// What became of an input a walk took on what it was shown ([`Recorder::take`]).
pub(crate) enum Taken {
    /// Recorded.
    Recorded(Step),
    /// The engine refused it, and nothing of the inquiry moved elsewhere since the
    /// walk last saw the log; nothing was recorded.
    Refused(Refusal),
    /// Another surface moved the inquiry first (answered, went Back, finished
    /// it); nothing was recorded.
    Moved(Box<Moved>),
}

/// A recorded input.
pub(crate) struct Step {
    /// The commands it yielded.
    pub(crate) commands: Vec<Command>,
    /// What the inquiry shows now (`None` once it is finished).
    pub(crate) at: Option<At>,
    /// The stream's head after it.
    pub(crate) head: Seq,
}

/// What another surface did to an inquiry while a walk's form was shown.
pub(crate) struct Moved {
    /// The inquiry's events recorded since the walk last saw the log, each with
    /// what it yielded (the other surface's result among them when it finished
    /// the inquiry).
    pub(crate) caught: Vec<Caught>,
    /// Where the inquiry stands now; `None` when it is finished.
    pub(crate) now: Option<Now>,
    /// The stream's head.
    pub(crate) head: Seq,
}

impl Moved {
    /// The command that finished the inquiry elsewhere, when it is finished.
    pub(crate) fn ending(&self) -> Option<&Command> {
        if self.now.is_some() {
            return None;
        }
        self.caught
            .iter()
            .flat_map(|caught| &caught.commands)
            .rfind(|command| is_final(command))
    }

    /// Where a person ended the turn elsewhere, when that finished the
    /// inquiry and the log says where.
    pub(crate) fn turn_ended_in(&self) -> Option<Surface> {
        self.caught
            .iter()
            .rev()
            .find_map(|caught| match &caught.event {
                Event::TurnEnded { surface, .. } => *surface,
                _ => None,
            })
    }
}

/// Whether `command` ends its inquiry.
fn is_final(command: &Command) -> bool {
    matches!(
        command,
        Command::Respond { .. }
            | Command::Fail { .. }
            | Command::EndTurn { .. }
            | Command::Reject { .. }
    )
}

/// Where an open inquiry stands in the log.
pub(crate) struct Now {
    /// What it shows (a question, or its review).
    pub(crate) at: At,
    /// The command it waits on (its prompt, assistant request or review).
    pub(crate) pending: Command,
    /// One slot per question: the answers taken, and those given ahead.
    pub(crate) answers: Vec<Option<Answer>>,
}

impl Now {
    fn of(state: &State, inquiry: &InquiryId) -> Option<Now> {
        Some(Now {
            at: state.at(inquiry)?,
            pending: state.pending(inquiry)?,
            answers: state
                .answers(inquiry)?
                .iter()
                .map(|slot| slot.as_ref().map(|slot| slot.answer.clone()))
                .collect(),
        })
    }
}

/// How a recorder's stream is named: given, numbered or claimed when it first
/// records; with whether it was made by claiming its name.
pub(crate) type Naming = Arc<dyn Fn() -> (String, bool) + Send + Sync>;

/// One stream of the log, shared by the session's tool calls.
#[derive(Clone)]
pub(crate) struct Recorder {
    open: OpenDesk,
    /// The stream's name, once known.
    stream: Arc<OnceLock<Arc<str>>>,
    naming: Naming,
    /// One step at a time in this process (other processes are the log's concern).
    lock: Arc<Mutex<()>>,
    /// The stream was made by claiming its name: its first event is where the
    /// server runs, and its first call is still `call-1`.
    claimed: Arc<AtomicBool>,
    /// Results given to a call whose client may have stopped it without
    /// telling ([`Client::stops_silently`](crate::Client::stops_silently)):
    /// [`Recorder::handed_over`] leaves them owed, for the same call made again.
    left_owed: Marks,
}

/// Inquiries marked for the next step that asks about them, once: each mark is
/// taken by the first to ask. Shared by the clones of its holder.
#[derive(Clone, Default)]
pub(crate) struct Marks(Arc<Mutex<BTreeSet<InquiryId>>>);

impl Marks {
    /// Marks `inquiry`.
    pub(crate) fn mark(&self, inquiry: &InquiryId) {
        let mut marked = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        marked.insert(inquiry.clone());
    }

    /// Whether `inquiry` was marked, taking the mark.
    pub(crate) fn take(&self, inquiry: &InquiryId) -> bool {
        let mut marked = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        marked.remove(inquiry)
    }
}

impl Recorder {
    /// A recorder into the stream `stream`.
    pub(crate) fn new(open: OpenDesk, stream: &str) -> Self {
        let name: Arc<str> = stream.into();
        let named = Arc::new(OnceLock::new());
        let _ = named.set(Arc::clone(&name));
        Self {
            open,
            stream: named,
            naming: Arc::new(move || (name.to_string(), false)),
            lock: Arc::new(Mutex::new(())),
            claimed: Arc::default(),
            left_owed: Marks::default(),
        }
    }

    /// The same recorder, into a stream made by claiming its name (see
    /// [`Config::claimed`](crate::Config::claimed)).
    pub(crate) fn claimed(self, claimed: bool) -> Self {
        self.claimed.store(claimed, Ordering::SeqCst);
        self
    }

    /// A recorder into the stream `naming` names (claims, say) only when it
    /// first needs its stream: after the client said where its project is.
    pub(crate) fn named_later(open: OpenDesk, naming: Naming) -> Self {
        Self {
            open,
            stream: Arc::new(OnceLock::new()),
            naming,
            lock: Arc::new(Mutex::new(())),
            claimed: Arc::default(),
            left_owed: Marks::default(),
        }
    }

    /// A recorder into `<base>-<n>`, `n` taken from `counter` only when it first
    /// needs its stream: sessions that record nothing (a `tools/list`, a
    /// `server/discover`) leave no gap in the numbering.
    pub(crate) fn numbered(open: OpenDesk, base: &str, counter: Arc<AtomicUsize>) -> Self {
        let base = base.to_owned();
        Self {
            open,
            stream: Arc::new(OnceLock::new()),
            naming: Arc::new(move || {
                let n = counter.fetch_add(1, Ordering::SeqCst) + 1;
                (format!("{base}-{n}"), false)
            }),
            lock: Arc::new(Mutex::new(())),
            claimed: Arc::default(),
            left_owed: Marks::default(),
        }
    }

    /// The stream recorded into (named now if it was not yet).
    pub(crate) fn stream(&self) -> &str {
        self.stream.get_or_init(|| {
            let (name, claimed) = (self.naming)();
            if claimed {
                self.claimed.store(true, Ordering::SeqCst);
            }
            name.into()
        })
    }

    /// The stream's name if it has one already.
    pub(crate) fn named(&self) -> Option<&str> {
        self.stream.get().map(|name| &**name)
    }

    /// A desk over the log opened for this step.
    fn desk(&self) -> Result<Desk, StoreError> {
        (self.open)().map_err(store)
    }

    /// Records a new request under a fresh inquiry id (`call-<seq>`, the sequence
    /// number it is recorded as): `make` builds the input for the id. The step,
    /// or the engine's refusal.
    pub(crate) fn request(
        &self,
        make: impl Fn(InquiryId) -> Input,
    ) -> Result<(InquiryId, Result<Step, Refusal>), StoreError> {
        let _guard = self.lock.lock().unwrap_or_else(PoisonError::into_inner);
        // Named (claimed, say) before the step's log is opened.
        let stream = self.stream();
        let mut desk = self.desk()?;
        let head = desk.head(stream).map_err(store)?;
        // A claimed stream's first event is its claim: its first call is `call-1`.
        let number = if self.claimed.load(Ordering::SeqCst) && head == 1 {
            1
        } else {
            head + 1
        };
        let inquiry = InquiryId::new(format!("call-{number}"));
        let outcome = desk.input(stream, &make(inquiry.clone())).map_err(store)?;
        let recorded = match outcome.taken {
            Took::Recorded { commands, .. } => Ok(Step {
                commands,
                at: desk.state(stream).map_err(store)?.at(&inquiry),
                head: desk.head(stream).map_err(store)?,
            }),
            Took::Refused(refusal) => Err(refusal),
        };
        Ok((inquiry, recorded))
    }

    /// Decides, records and applies `input`, which a walk took on what it was
    /// shown (`shown`: what the inquiry showed then, `None` for an input that
    /// stands whatever it shows, such as a cancellation; `seen`: the stream's head
    /// the walk last saw). An answer, Back, Reply or submit names what it was
    /// taken on itself and the engine refuses it when it is stale; any other input
    /// of a walk (a round shown, an answer given ahead) is not recorded either when
    /// the inquiry no longer shows `shown`. When the inquiry moved since `seen` (another surface
    /// answered, went Back or finished it), what it did comes back
    /// ([`Taken::Moved`]) instead of the refusal.
    pub(crate) fn take(
        &self,
        input: &Input,
        shown: Option<&At>,
        seen: Seq,
    ) -> Result<Taken, StoreError> {
        let _guard = self.lock.lock().unwrap_or_else(PoisonError::into_inner);
        let (mut desk, stream) = (self.desk()?, self.stream());
        let inquiry = input.inquiry();
        // An input with no `At` of its own (a round shown, an answer given ahead)
        // stands only while the inquiry still shows what the walk saw: the
        // engine judges that.
        let state = desk.state(stream).map_err(store)?;
        let refusal = if let Some(refusal) = shown.and_then(|shown| state.still_shows(shown).err())
        {
            refusal
        } else {
            let outcome = desk.input(stream, input).map_err(store)?;
            match outcome.taken {
                Took::Recorded { commands, .. } => {
                    return Ok(Taken::Recorded(Step {
                        commands,
                        at: (inquiry).and_then(|inquiry| desk.state(stream).ok()?.at(inquiry)),
                        head: desk.head(stream).map_err(store)?,
                    }));
                }
                Took::Refused(refusal) => refusal,
            }
        };
        let head = desk.head(stream).map_err(store)?;
        let (Some(inquiry), true) = (inquiry, head > seen) else {
            return Ok(Taken::Refused(refusal));
        };
        let caught = (desk.inquiry_events_between(stream, inquiry, (seen, head))).map_err(store)?;
        if caught.is_empty() {
            return Ok(Taken::Refused(refusal));
        }
        Ok(Taken::Moved(Box::new(Moved {
            caught,
            now: Now::of(desk.state(stream).map_err(store)?, inquiry),
            head,
        })))
    }

    /// Whether a round of `inquiry` was shown after `seen` (by this server: only
    /// the MCP walk records rounds).
    pub(crate) fn shown_since(&self, inquiry: &InquiryId, seen: Seq) -> Result<bool, StoreError> {
        let _guard = self.lock.lock().unwrap_or_else(PoisonError::into_inner);
        self.desk()?
            .shown_since(self.stream(), inquiry, seen)
            .map_err(store)
    }

    /// How `inquiry` ended, once it has: the command that finished it (its
    /// result, a failure, End Turn); `None` while it is open.
    pub(crate) fn ending(&self, inquiry: &InquiryId) -> Result<Option<Command>, StoreError> {
        let _guard = self.lock.lock().unwrap_or_else(PoisonError::into_inner);
        let mut desk = self.desk()?;
        let state = desk.state(self.stream()).map_err(store)?;
        if state.at(inquiry).is_some() {
            return Ok(None);
        }
        Ok(state.result(inquiry))
    }

    /// The result owed for a call of `dialect` with exactly these `arguments` in
    /// this stream (one that finished while no call of it was waiting, see
    /// [`State::owed`](askuser_core::State::owed); the first to finish when there
    /// are several), recorded handed over before it is returned: what a call
    /// retried after its server went away is answered with. `None` when none is
    /// owed, or another surface handed it over first: the call is a new question.
    pub(crate) fn take_owed(
        &self,
        dialect: &str,
        arguments: &serde_json::Value,
    ) -> Result<Option<Command>, StoreError> {
        let _guard = self.lock.lock().unwrap_or_else(PoisonError::into_inner);
        let (mut desk, stream) = (self.desk()?, self.stream());
        let owed = desk
            .state(stream)
            .map_err(store)?
            .owed()
            .find_map(|(id, record)| {
                let call = record.call()?;
                (call.dialect == dialect && call.arguments == *arguments)
                    .then(|| (id.clone(), record.command(id)))
            });
        let Some((inquiry, Some(result))) = owed else {
            return Ok(None);
        };
        let delivered = desk
            .input(stream, &Input::Deliver { inquiry })
            .map_err(store)?;
        Ok(delivered.refusal().is_none().then_some(result))
    }

    /// Records that the result of `inquiry` was handed to the client (so a call
    /// retried later is not answered with it again): only once it is finished
    /// and owed; otherwise, or when the log cannot record it, nothing changes.
    /// A result left owed ([`Recorder::leave_owed`]) stays so.
    pub(crate) fn handed_over(&self, inquiry: &InquiryId) {
        if self.left_owed.take(inquiry) {
            return;
        }
        let _guard = self.lock.lock().unwrap_or_else(PoisonError::into_inner);
        let (Ok(mut desk), stream) = (self.desk(), self.stream()) else {
            return;
        };
        let _ = desk.handed_over(stream, inquiry);
    }

    /// Leaves the result of `inquiry` owed when it is next handed over: the
    /// call it goes to may have been stopped silently by its client, so the
    /// same call made again is still answered with it.
    pub(crate) fn leave_owed(&self, inquiry: &InquiryId) {
        self.left_owed.mark(inquiry);
    }

    /// What the log says of an open inquiry: the command it waits on and the tool
    /// call it records; `None` when it is not open.
    pub(crate) fn open_inquiry(
        &self,
        inquiry: &InquiryId,
    ) -> Result<Option<(Command, Option<ToolCall>)>, StoreError> {
        let _guard = self.lock.lock().unwrap_or_else(PoisonError::into_inner);
        let mut desk = self.desk()?;
        let state = desk.state(self.stream()).map_err(store)?;
        Ok(state
            .pending(inquiry)
            .map(|command| (command, state.call(inquiry).map(|c| (**c).clone()))))
    }
}

/// The log's error behind an error of the desk (a desk over a log opened for a
/// step fails only when the log does; anything else is told in its words).
fn store(error: AppError) -> StoreError {
    match error {
        AppError::Store(error) => error,
        other => StoreError::Storage(Box::new(other)),
    }
}
