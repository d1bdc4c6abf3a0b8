//! Walking one form through elicitation rounds: what to ask next, and the answers
//! of a round handed to the engine in the order it asks them, each naming what
//! the round showed ([`At`]), so that a round another surface overtook (the web
//! inbox, a terminal, `askuser answer` answered, went Back or finished the
//! inquiry while the form was shown) is never recorded over what it did.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};

use askuser_app::log::{Seq, StoreError};
use askuser_core::{
    Answer, AnswerInput, AnsweredBy, At, Command, Input, InquiryId, Prompt, Surface, ValidForm,
};
use askuser_dialects::dialect::mcp::{
    FieldKind, Fields, Response, field_kind, limited_schema, read_field, read_limited, round_schema,
};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::elsewhere::{Elsewhere, Unsent, news, review_lines};
use crate::recorder::{Moved, Now, Recorder, Taken};
use crate::rounds::{plan, progress};

/// How many times a walk builds its round again because the log moved under it
/// before it could record the round as shown.
const MOVES_PER_ROUND: usize = 8;

/// The field of the review round.
pub(crate) const SEND_FIELD: &str = "send";

/// The last field of a round for a client whose form has no Decline button
/// ([`Walk::offering_instead`]): send the answers, or Reply or end the turn
/// instead. Named to sort after every question's field (a client may list
/// fields by name).
pub(crate) const INSTEAD_FIELD: &str = "~instead";

/// What the person chose instead of sending a round's answers, in its last
/// field ([`INSTEAD_FIELD`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Instead {
    /// Reply to the assistant, as a Decline would.
    Reply,
    /// End the turn, as a dismissal would.
    EndTurn,
}

/// Takes the [`INSTEAD_FIELD`] out of an accepted round's `content`: what the
/// person chose instead of sending it, if anything (sending is the default).
pub(crate) fn take_instead(content: &mut Map<String, Value>) -> Option<Instead> {
    match content.remove(INSTEAD_FIELD)?.as_str()? {
        "reply" => Some(Instead::Reply),
        "end_turn" => Some(Instead::EndTurn),
        _ => None,
    }
}

/// A response to a round, its last field's choice ([`INSTEAD_FIELD`]) read as
/// the Decline or dismissal it stands for; any other response as it is.
pub(crate) fn read_instead(response: Response) -> Response {
    match response {
        Response::Accept(mut content) => match take_instead(&mut content) {
            Some(Instead::Reply) => Response::Decline,
            Some(Instead::EndTurn) => Response::Cancel,
            None => Response::Accept(content),
        },
        other => other,
    }
}

/// What a free-text field says in a round offering [`INSTEAD_FIELD`]: the
/// client's Enter does nothing on an empty text field, so the field says how
/// to leave it empty.
const EMPTY_TEXT_HINT: &str = "Enter needs text here; Ctrl+N moves on without it.";

/// Makes a limited round's form answerable in a client with no Decline button
/// (Codex 0.171.0, measured: Enter on an empty text field does nothing, and
/// a form whose last field is one cannot be sent until something is typed):
/// every field optional (a question left out is asked again), each free-text
/// field saying how to leave it empty, and a last choice to send the answers,
/// or Reply or end the turn instead ([`INSTEAD_FIELD`]).
fn offer_instead(schema: &mut Value) {
    let Some(properties) = schema.get_mut("properties").and_then(Value::as_object_mut) else {
        return;
    };
    for field in properties.values_mut() {
        let free_text = field.get("type").and_then(Value::as_str) == Some("string")
            && field.get("oneOf").is_none()
            && field.get("enum").is_none();
        if !free_text {
            continue;
        }
        let description = match field.get("description").and_then(Value::as_str) {
            Some(text) if !text.is_empty() => format!("{text}\n{EMPTY_TEXT_HINT}"),
            _ => EMPTY_TEXT_HINT.to_owned(),
        };
        field["description"] = Value::String(description);
    }
    properties.insert(
        INSTEAD_FIELD.to_owned(),
        json!({
            "type": "string",
            "title": "Send these answers, or instead:",
            "oneOf": [
                {"const": "send", "title": "Send the answers above"},
                {"const": "reply", "title": "Reply to the assistant instead (the answers above are not sent)"},
                {"const": "end_turn", "title": "End the turn (the assistant gets no answers)"}
            ],
            "default": "send"
        }),
    );
    schema["required"] = json!([]);
}

/// One round: the message and `requestedSchema` to send.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Round {
    /// The questions it holds (indices into the form); empty for the review.
    pub(crate) questions: Vec<usize>,
    /// The elicitation's message.
    pub(crate) message: String,
    /// The flat `requestedSchema`, each question a field named by its id.
    pub(crate) schema: Value,
    /// For a client with limited forms ([`Fields::Limited`]), the same round in
    /// the fields it shows ([`limited_schema`]): what is sent instead.
    pub(crate) limited: Option<Value>,
}

impl Round {
    /// The `requestedSchema` sent to the client.
    pub(crate) fn requested(&self) -> &Value {
        self.limited.as_ref().unwrap_or(&self.schema)
    }

    /// Whether `content` holds answers and each is its field's default as sent
    /// (a form sent back unread, the way a client that accepts for nobody does).
    pub(crate) fn all_defaults(&self, content: &Map<String, Value>) -> bool {
        let properties = &self.requested()["properties"];
        !content.is_empty()
            && (content.iter())
                .all(|(field, value)| properties[field].get("default") == Some(value))
    }
}

/// Where a form's walk stands.
pub(crate) struct Walk {
    form: ValidForm,
    inquiry: InquiryId,
    /// The question the engine asks now.
    current: usize,
    /// Answered in the engine, or skipped.
    settled: Vec<bool>,
    /// The engine's answers so far, for the gates.
    answers: Vec<Option<Answer>>,
    /// Answers given in a round, waiting for the engine to reach their question.
    held: BTreeMap<usize, Value>,
    /// The held answers already recorded ([`Input::AnswerAhead`]).
    ahead: BTreeSet<usize>,
    /// Why a question's last answer was refused, until it is answered.
    refused: BTreeMap<usize, String>,
    /// The question the engine asks the assistant now, if it does.
    assistant: Option<usize>,
    /// What the engine shows now, as the walk last saw the log: what its next
    /// input is taken on (`None` once the inquiry is finished).
    at: Option<At>,
    /// The stream's head the walk last saw: the inquiry's events after it were
    /// recorded elsewhere.
    seen: Seq,
    /// Values to fill in, by field: what the person typed in a round another
    /// surface overtook, or an answer taken back. Offered as the fields'
    /// defaults in the next round.
    kept: Map<String, Value>,
    /// What another surface did while the last round was shown, in words, for
    /// the next round's message.
    news: Vec<String>,
    /// Whether the person's last form was overtaken, not sent.
    lost: bool,
    /// The fields the client's form shows.
    fields: Fields,
    /// Whether the client's last form came back empty.
    empty: bool,
    /// Whether each limited round ends with a choice to Reply or end the turn
    /// instead ([`Walk::offering_instead`]).
    instead: bool,
}

/// How a walk ended.
pub(crate) enum Done {
    /// Its own input finished the inquiry, with this command.
    Finished(Finished),
    /// Another surface finished the inquiry first.
    Elsewhere(Box<Elsewhere>),
    /// The walk's ending could not be recorded, and why.
    Refused(String),
}

/// What a walk does next.
pub(crate) enum Next {
    /// Send this round (recorded as shown).
    Ask(Round),
    /// Nothing more to ask.
    Done(Done),
    /// The engine asks the assistant now ([`Walk::for_assistant`]): ask it
    /// before the next round.
    Assistant,
}

/// What became of an answer by the assistant.
pub(crate) enum Sampled {
    /// The walk ended.
    Done(Done),
    /// Recorded; the walk goes on.
    Next,
    /// Refused, and why: the engine asks the assistant again.
    Refused(String),
}

/// A walk's position, to carry between requests (sealed in MRTR's `requestState`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Saved {
    current: usize,
    settled: Vec<bool>,
    answers: Vec<Option<Value>>,
    held: BTreeMap<usize, Value>,
    #[serde(default)]
    ahead: BTreeSet<usize>,
    refused: BTreeMap<usize, String>,
    #[serde(default)]
    at: Option<At>,
    #[serde(default)]
    seen: Seq,
    #[serde(default)]
    kept: Map<String, Value>,
    /// Whether the client's form shows limited fields ([`Fields::Limited`]), so a
    /// retry rebuilds the round it answers.
    #[serde(default)]
    limited: bool,
    /// Whether the client's last form came back empty.
    #[serde(default)]
    empty: bool,
    /// Whether each limited round ends with a choice to Reply or end the turn
    /// instead ([`Walk::offering_instead`]).
    #[serde(default)]
    instead: bool,
}

impl Saved {
    /// What the engine showed when the round was sent.
    pub(crate) fn at(&self) -> Option<&At> {
        self.at.as_ref()
    }

    /// The stream's head when the round was sent.
    pub(crate) fn seen(&self) -> Seq {
        self.seen
    }
}

/// The end of a walk: the command that finished it.
pub(crate) type Finished = Box<Command>;

/// What a step of the walk came to.
enum Flow {
    /// Recorded; the walk goes on.
    On,
    /// The walk's own input finished the inquiry.
    Finished(Finished),
    /// The engine refused the walk's input, and why; nothing moved elsewhere.
    Refused(String),
    /// Another surface moved the inquiry first; nothing was recorded.
    Moved(Box<Moved>),
}

impl Walk {
    /// A walk from the engine's first commands (`at`: what the inquiry shows
    /// then, `head`: the stream's head); the command that already finished it (a
    /// failure, say) when there is nothing to ask.
    pub(crate) fn start(
        form: ValidForm,
        inquiry: InquiryId,
        commands: Vec<Command>,
        at: Option<At>,
        head: Seq,
    ) -> Result<Walk, Finished> {
        let count = form.len();
        let mut walk = Walk {
            form,
            inquiry,
            current: 0,
            settled: vec![false; count],
            answers: vec![None; count],
            held: BTreeMap::new(),
            ahead: BTreeSet::new(),
            refused: BTreeMap::new(),
            assistant: None,
            at,
            seen: head,
            kept: Map::new(),
            news: Vec::new(),
            lost: false,
            fields: Fields::Full,
            empty: false,
            instead: false,
        };
        match walk.follow(commands) {
            Some(finished) => Err(finished),
            None => Ok(walk),
        }
    }

    /// The same walk, its rounds in the fields the client's form shows.
    pub(crate) fn showing(mut self, fields: Fields) -> Walk {
        self.fields = fields;
        self
    }

    /// The same walk, shaped for a client's `forms`: its rounds in the fields
    /// the form shows ([`Walk::showing`]), each ending with a choice to Reply
    /// or end the turn where it has no Decline button
    /// ([`Walk::offering_instead`]).
    pub(crate) fn for_forms(self, forms: crate::clients::Forms) -> Walk {
        self.showing(forms.fields())
            .offering_instead(!forms.declines())
    }

    /// The same walk, each limited round ending with a choice to Reply or end
    /// the turn instead of sending it (`on`: the client's form has no Decline
    /// button, so nothing else reaches a Reply): see [`INSTEAD_FIELD`].
    pub(crate) fn offering_instead(mut self, on: bool) -> Walk {
        self.instead = on;
        self
    }

    /// Notes a form the client sent back (`content`): whether it came back empty
    /// (every field left out or blank) this time and the time before. A form
    /// empty once is asked again, saying what is missing; empty twice, the
    /// client may not be able to show it, and it is not asked a third time.
    pub(crate) fn empty_twice(&mut self, content: &Map<String, Value>) -> bool {
        let empty = content
            .values()
            .all(|v| v.is_null() || v.as_str().is_some_and(|s| s.trim().is_empty()));
        std::mem::replace(&mut self.empty, empty) && empty
    }

    /// The inquiry walked.
    pub(crate) fn inquiry(&self) -> &InquiryId {
        &self.inquiry
    }

    /// The walk's position, to restore later with [`Walk::restore`].
    pub(crate) fn save(&self) -> Saved {
        let answers = self
            .answers
            .iter()
            .enumerate()
            .map(|(i, a)| a.as_ref().map(|a| a.to_value(self.form.question(i))))
            .collect();
        Saved {
            current: self.current,
            settled: self.settled.clone(),
            answers,
            held: self.held.clone(),
            ahead: self.ahead.clone(),
            refused: self.refused.clone(),
            at: self.at.clone(),
            seen: self.seen,
            kept: self.kept.clone(),
            limited: self.fields == Fields::Limited,
            empty: self.empty,
            instead: self.instead,
        }
    }

    /// A walk at a saved position; `None` when it does not fit the form.
    pub(crate) fn restore(form: ValidForm, inquiry: InquiryId, saved: Saved) -> Option<Walk> {
        let count = form.len();
        let fits = saved.current < count
            && saved.settled.len() == count
            && saved.answers.len() == count
            && saved
                .held
                .keys()
                .chain(saved.refused.keys())
                .chain(saved.ahead.iter())
                .all(|i| *i < count)
            && saved.at.as_ref().is_none_or(|at| at.inquiry == inquiry);
        if !fits {
            return None;
        }
        let answers = saved
            .answers
            .iter()
            .enumerate()
            .map(|(i, v)| v.as_ref().and_then(|v| form.check(i, v).ok()))
            .collect();
        Some(Walk {
            form,
            inquiry,
            current: saved.current,
            settled: saved.settled,
            answers,
            held: saved.held,
            ahead: saved.ahead,
            refused: saved.refused,
            assistant: None,
            at: saved.at,
            seen: saved.seen,
            kept: saved.kept,
            news: Vec::new(),
            lost: false,
            fields: if saved.limited {
                Fields::Limited
            } else {
                Fields::Full
            },
            empty: saved.empty,
            instead: saved.instead,
        })
    }

    /// Moves to the engine's prompt; the final command when there is one. A
    /// review (another surface wanted one) is not final: the walk submits it or
    /// shows it ([`Walk::reviewing`]).
    fn follow(&mut self, commands: Vec<Command>) -> Option<Finished> {
        let mut prompt = None;
        let mut assistant = None;
        for command in commands {
            match command {
                Command::Prompt(p) => {
                    prompt = Some(p.index);
                    assistant = None;
                }
                Command::AskAssistant { question, .. } => {
                    assistant = self.form.index_of(&question);
                    prompt = assistant.or(prompt);
                }
                Command::InvalidAnswer {
                    question, message, ..
                } => {
                    if let Some(index) = self.form.index_of(&question) {
                        self.refused.insert(index, message);
                    }
                }
                Command::Review { .. } => {}
                finished => return Some(Box::new(finished)),
            }
        }
        if let Some(index) = prompt {
            for skipped in self.current..index {
                self.settled[skipped] = true;
            }
            self.current = index;
            self.assistant = assistant;
        }
        None
    }

    /// Whether the engine shows the review of every answer (another surface
    /// asked for one, and every question is answered).
    pub(crate) fn reviewing(&self) -> bool {
        self.at.as_ref().is_some_and(|at| at.question.is_none())
    }

    /// Records `input` on what the walk last saw, and follows what it yielded.
    fn take(&mut self, recorder: &Recorder, input: &Input) -> Result<Flow, StoreError> {
        let shown = self.at.clone();
        Ok(match recorder.take(input, shown.as_ref(), self.seen)? {
            Taken::Recorded(step) => {
                self.at = step.at;
                self.seen = step.head;
                match self.follow(step.commands) {
                    Some(finished) => Flow::Finished(finished),
                    None => Flow::On,
                }
            }
            Taken::Refused(refusal) => Flow::Refused(refusal.to_string()),
            Taken::Moved(moved) => Flow::Moved(moved),
        })
    }

    /// Carries on from what another surface did: the other surface's ending when
    /// it finished the inquiry; else the walk stands where the log does, keeping
    /// `unsent` (what the person typed here) to offer again.
    fn overtaken(&mut self, moved: Box<Moved>, unsent: Unsent) -> Option<Done> {
        self.seen = moved.head;
        let ending = moved.ending().cloned();
        let turn_ended_in = moved.turn_ended_in();
        let Some(now) = moved.now else {
            self.at = None;
            return Some(Done::Elsewhere(Box::new(Elsewhere {
                ending,
                turn_ended_in,
                unsent,
            })));
        };
        self.news.extend(news(&self.form, &moved.caught));
        if let Unsent::Answers(typed) = unsent {
            self.kept.extend(typed);
            self.lost = true;
        }
        self.stand_at(now);
        None
    }

    /// The walk where the log stands: the question asked (or the review), the
    /// answers taken, and those given ahead, as [`crate::check_rounds`] derives
    /// them.
    fn stand_at(&mut self, now: Now) {
        let count = self.form.len();
        self.assistant = None;
        self.current = match &now.pending {
            Command::Prompt(prompt) => {
                self.keep_prefill(prompt);
                prompt.index
            }
            Command::AskAssistant { question, .. } => {
                self.assistant = self.form.index_of(question);
                self.assistant.unwrap_or(0)
            }
            // The review: every question is settled.
            _ => count.saturating_sub(1),
        };
        let reviewing = now.at.question.is_none();
        self.settled = (0..count).map(|i| i < self.current || reviewing).collect();
        self.held.clear();
        self.ahead.clear();
        for (index, answer) in now.answers.iter().enumerate() {
            if let (Some(answer), false) = (answer, self.settled[index] || index <= self.current) {
                self.held
                    .insert(index, answer.to_value(self.form.question(index)));
                self.ahead.insert(index);
            }
        }
        self.answers = now.answers;
        self.refused.clear();
        self.at = Some(now.at);
    }

    /// Offers a prompt's prefill (an answer taken back) as its field's default,
    /// unless the person typed something for it here (the question's own
    /// default is the field's already).
    fn keep_prefill(&mut self, prompt: &Prompt) {
        let question = prompt.question();
        let prefill = prompt
            .prefill_value()
            .filter(|value| question.default.as_ref() != Some(value));
        if let (Some(value), false) = (prefill, self.kept.contains_key(&question.id)) {
            let value = match field_kind(question) {
                FieldKind::Json => Value::String(value.to_string()),
                FieldKind::Plain => value,
            };
            self.kept.insert(question.id.clone(), value);
        }
    }

    /// The form walked.
    pub(crate) fn form(&self) -> &ValidForm {
        &self.form
    }

    /// The question the engine asks the assistant now, if it does.
    pub(crate) fn for_assistant(&self) -> Option<usize> {
        self.assistant
    }

    /// Hands the assistant's answer to the question it is asked to the engine
    /// (recorded `by: assistant` when it fits).
    ///
    /// # Errors
    /// When the log fails.
    pub(crate) fn answer_by_assistant(
        &mut self,
        recorder: &Recorder,
        index: usize,
        value: &Value,
    ) -> Result<Sampled, StoreError> {
        let Some(at) = self.at.clone() else {
            return Ok(Sampled::Refused("the inquiry is finished".to_owned()));
        };
        let input: Input = AnswerInput::new(at, value.clone())
            .by(AnsweredBy::Assistant)
            .into();
        self.refused.remove(&index);
        Ok(match self.take(recorder, &input)? {
            Flow::Finished(finished) => Sampled::Done(Done::Finished(finished)),
            Flow::Moved(moved) => match self.overtaken(moved, Unsent::Nothing) {
                Some(done) => Sampled::Done(done),
                None => Sampled::Next,
            },
            Flow::Refused(message) => Sampled::Refused(message),
            Flow::On => {
                if let Some(message) = self.refused.remove(&index) {
                    Sampled::Refused(message)
                } else {
                    self.answers[index] = self.form.check(index, value).ok();
                    Sampled::Next
                }
            }
        })
    }

    /// The next round to send, recorded as shown ([`Input::Show`]) so a replay
    /// knows how the questions were grouped; built again from what is current
    /// when another surface moved the inquiry meanwhile.
    ///
    /// # Errors
    /// When the log fails, or keeps moving: a message for the model.
    pub(crate) fn next_round(&mut self, recorder: &Recorder) -> Result<Next, String> {
        for _ in 0..MOVES_PER_ROUND {
            let round = self.round();
            if round.questions.is_empty() {
                // The review round records nothing: it shows no question.
                return Ok(Next::Ask(round));
            }
            let input = Input::Show {
                inquiry: self.inquiry.clone(),
                questions: round
                    .questions
                    .iter()
                    .map(|&i| self.form.question(i).id.clone())
                    .collect(),
            };
            match self.take(recorder, &input) {
                Ok(Flow::On) => return Ok(Next::Ask(round)),
                Ok(Flow::Refused(why)) => return Err(why),
                Ok(Flow::Finished(finished)) => return Ok(Next::Done(Done::Finished(finished))),
                Ok(Flow::Moved(moved)) => {
                    if let Some(done) = self.overtaken(moved, Unsent::Nothing) {
                        return Ok(Next::Done(done));
                    }
                    if self.assistant.is_some() {
                        return Ok(Next::Assistant);
                    }
                }
                Err(error) => return Err(error.to_string()),
            }
        }
        Err("the log kept moving while the round was recorded".to_owned())
    }

    /// The round the walk sends now (not recorded; see [`Walk::next_round`]).
    pub(crate) fn round(&self) -> Round {
        if self.reviewing() {
            return self.review_round();
        }
        let held: Vec<bool> = (0..self.form.len())
            .map(|i| self.held.contains_key(&i))
            .collect();
        let questions = plan(
            &self.form,
            self.current,
            &self.settled,
            &held,
            &self.answers,
        );
        let done = self.settled.iter().filter(|s| **s).count() + self.held.len();
        let mut message = progress(done, questions.len(), self.form.len());
        if questions.iter().any(|i| self.refused.contains_key(i)) {
            message.push_str(
                "\nAn answer was not accepted; the note beside it says why. Please answer it again.",
            );
        }
        let mut schema = round_schema(&self.form, &questions, |i| {
            self.refused.get(&i).map(String::as_str)
        });
        let filled = self.fill_in(&mut schema);
        self.tell_news(&mut message, filled);
        let limited = (self.fields == Fields::Limited).then(|| {
            let mut limited = limited_schema(&self.form, &questions, &schema);
            if self.instead {
                offer_instead(&mut limited);
            }
            limited
        });
        Round {
            questions,
            message,
            schema,
            limited,
        }
    }

    /// Puts the kept values in the round's fields as their defaults: whether any.
    fn fill_in(&self, schema: &mut Value) -> bool {
        let mut filled = false;
        if let Some(Value::Object(properties)) = schema.get_mut("properties") {
            for (name, field) in properties.iter_mut() {
                if let (Some(value), Value::Object(field)) = (self.kept.get(name), field) {
                    field.insert("default".to_owned(), value.clone());
                    filled = true;
                }
            }
        }
        filled
    }

    /// Adds what another surface did to a round's message.
    fn tell_news(&self, message: &mut String, filled: bool) {
        if self.news.is_empty() {
            return;
        }
        message.push_str(if self.lost {
            "\nYour last form was not sent: meanwhile, in another window (the askuser web inbox or a terminal),"
        } else {
            "\nMeanwhile, in another window (the askuser web inbox or a terminal),"
        });
        for line in &self.news {
            message.push_str("\n- ");
            message.push_str(line);
        }
        if filled {
            message.push_str("\nWhat you had answered is filled in below; check it and send.");
        }
    }

    /// The review of every answer, when another surface answered the last
    /// question with a review wanted: send them, or change the last one.
    fn review_round(&self) -> Round {
        let lead = if self.lost {
            "Your last form was not sent: meanwhile, "
        } else {
            "Meanwhile, "
        };
        let message = format!(
            "{lead}the questions were answered in another window (the askuser web inbox or a terminal), which shows them for review:{}\nSend these answers?",
            review_lines(&self.form, &self.answers)
        );
        let schema = json!({
            "type": "object",
            "properties": {SEND_FIELD: {
                "type": "boolean",
                "title": "Send these answers",
                "description": "Yes sends them to the assistant; no asks the last question again.",
                "default": true
            }},
            "required": [SEND_FIELD]
        });
        Round {
            questions: Vec::new(),
            message,
            schema,
            limited: None,
        }
    }

    /// Hands an accepted round's answers to the engine, in the order it asks,
    /// and records the rest as given ahead: how the walk ended, if it did.
    ///
    /// # Errors
    /// When the log fails.
    pub(crate) fn accept(
        &mut self,
        recorder: &Recorder,
        round: &Round,
        content: &Map<String, Value>,
    ) -> Result<Option<Done>, StoreError> {
        self.news.clear();
        self.lost = false;
        if self.reviewing() {
            return self.accept_review(recorder, content);
        }
        let (content, unread) = match round.limited {
            Some(_) => {
                let (full, unread) = read_limited(&self.form, &round.questions, content);
                (Cow::Owned(full), unread)
            }
            None => (Cow::Borrowed(content), Vec::new()),
        };
        let typed = typed(round, &content);
        self.kept.clear();
        for &index in &round.questions {
            let read = match unread.iter().find(|(i, _)| *i == index) {
                Some((_, message)) => Err(message.clone()),
                None => read_field(&self.form, index, &content),
            };
            match read {
                Ok(value) => {
                    self.held.insert(index, value);
                    self.ahead.remove(&index);
                }
                Err(message) => {
                    self.refused.insert(index, message);
                }
            }
        }
        let mut flow = self.hand_in(recorder)?;
        if let Flow::On = flow {
            flow = self.record_ahead(recorder)?;
        }
        if let (Flow::On, true) = (&flow, self.reviewing()) {
            // Another surface wanted a review; the form sent here is its own.
            flow = self.submit(recorder)?;
        }
        Ok(match flow {
            Flow::On | Flow::Refused(_) => None,
            Flow::Finished(finished) => Some(Done::Finished(finished)),
            Flow::Moved(moved) => self.overtaken(moved, Unsent::Answers(typed)),
        })
    }

    /// The review round's response: send the answers, or go Back to the last.
    fn accept_review(
        &mut self,
        recorder: &Recorder,
        content: &Map<String, Value>,
    ) -> Result<Option<Done>, StoreError> {
        let flow = match content.get(SEND_FIELD) {
            Some(Value::Bool(true)) => self.submit(recorder)?,
            Some(Value::Bool(false)) => {
                let Some(at) = self.at.clone() else {
                    return Ok(None);
                };
                self.take_back(recorder, at)?
            }
            _ => Flow::On,
        };
        Ok(match flow {
            Flow::On | Flow::Refused(_) => None,
            Flow::Finished(finished) => Some(Done::Finished(finished)),
            Flow::Moved(moved) => self.overtaken(moved, Unsent::Nothing),
        })
    }

    /// Submits the review shown.
    fn submit(&mut self, recorder: &Recorder) -> Result<Flow, StoreError> {
        let Some(at) = self.at.clone() else {
            return Ok(Flow::On);
        };
        self.take(recorder, &Input::Submit(at))
    }

    /// Goes Back from the review to the last answered question, offered again
    /// with its answer filled in.
    fn take_back(&mut self, recorder: &Recorder, at: At) -> Result<Flow, StoreError> {
        let shown = Some(at.clone());
        match recorder.take(&Input::Back(at), shown.as_ref(), self.seen)? {
            Taken::Recorded(step) => {
                self.seen = step.head;
                let prompt = step.commands.into_iter().find_map(|c| match c {
                    Command::Prompt(prompt) => Some(prompt),
                    _ => None,
                });
                if let (Some(prompt), Some(at)) = (prompt, step.at) {
                    // Back takes back the answer at the question asked again and
                    // every later one.
                    let target = prompt.index;
                    let answers = std::mem::take(&mut self.answers)
                        .into_iter()
                        .enumerate()
                        .map(|(i, a)| a.filter(|_| i < target))
                        .collect();
                    self.stand_at(Now {
                        at,
                        pending: Command::Prompt(prompt),
                        answers,
                    });
                }
                Ok(Flow::On)
            }
            Taken::Refused(_) => Ok(Flow::On),
            Taken::Moved(moved) => Ok(Flow::Moved(moved)),
        }
    }

    /// A `decline`: a Reply with the answers so far. When another surface moved
    /// the inquiry meanwhile and it is still open, the person still declines:
    /// the Reply is taken on what is current.
    ///
    /// # Errors
    /// When the log fails.
    pub(crate) fn reply(&mut self, recorder: &Recorder) -> Result<Done, StoreError> {
        self.reply_with(recorder, None)
    }

    /// A Reply with the answers so far and `message`, as [`Walk::reply`].
    ///
    /// # Errors
    /// When the log fails.
    pub(crate) fn reply_with(
        &mut self,
        recorder: &Recorder,
        message: Option<String>,
    ) -> Result<Done, StoreError> {
        self.end(recorder, &Unsent::Decline, move |at| Input::Reply {
            at,
            message: message.clone(),
        })
    }

    /// A `cancel`: the person dismissed the form; the turn ends.
    ///
    /// # Errors
    /// When the log fails.
    pub(crate) fn end_turn(&mut self, recorder: &Recorder) -> Result<Done, StoreError> {
        let inquiry = self.inquiry.clone();
        self.end(recorder, &Unsent::Dismissal, move |_| Input::EndTurn {
            inquiry: inquiry.clone(),
            surface: Some(Surface::Host),
        })
    }

    /// Records the input `make` builds on what is shown, once more on what is
    /// current when another surface moved the inquiry first.
    fn end(
        &mut self,
        recorder: &Recorder,
        unsent: &Unsent,
        make: impl Fn(At) -> Input,
    ) -> Result<Done, StoreError> {
        for _ in 0..MOVES_PER_ROUND {
            let Some(at) = self.at.clone() else { break };
            match self.take(recorder, &make(at))? {
                Flow::Finished(finished) => return Ok(Done::Finished(finished)),
                Flow::Moved(moved) => {
                    if let Some(done) = self.overtaken(moved, unsent.clone()) {
                        return Ok(done);
                    }
                }
                Flow::Refused(why) => return Ok(Done::Refused(why)),
                Flow::On => break,
            }
        }
        Ok(Done::Refused(
            "the questions kept changing in another window".to_owned(),
        ))
    }

    /// Hands the held answers to the engine while it asks one of them.
    fn hand_in(&mut self, recorder: &Recorder) -> Result<Flow, StoreError> {
        while let Some(value) = self.held.remove(&self.current) {
            let index = self.current;
            self.ahead.remove(&index);
            let Some(at) = self.at.clone() else {
                return Ok(Flow::On);
            };
            let input: Input = AnswerInput::new(at, value.clone()).into();
            self.refused.remove(&index);
            match self.take(recorder, &input)? {
                Flow::On => {}
                Flow::Refused(message) => {
                    self.refused.insert(index, message);
                    return Ok(Flow::On);
                }
                other => return Ok(other),
            }
            if self.refused.contains_key(&index) {
                // Not accepted (the engine said why): asked again.
                return Ok(Flow::On);
            }
            self.settled[index] = true;
            self.answers[index] = self.form.check(index, &value).ok();
        }
        Ok(Flow::On)
    }

    /// Records every held answer not yet recorded as given ahead, so a decline,
    /// a dismissal or a client that goes away loses none of them. One that does
    /// not fit its question is not held: it is asked again with the reason.
    fn record_ahead(&mut self, recorder: &Recorder) -> Result<Flow, StoreError> {
        let waiting: Vec<usize> = self
            .held
            .keys()
            .copied()
            .filter(|i| *i > self.current && !self.ahead.contains(i))
            .collect();
        for index in waiting {
            let Some(value) = self.held.get(&index).cloned() else {
                continue;
            };
            if let Err(reason) = self.form.check(index, &value) {
                self.held.remove(&index);
                self.refused.insert(index, reason.to_string());
                continue;
            }
            let input = Input::AnswerAhead {
                inquiry: self.inquiry.clone(),
                question: self.form.question(index).id.clone(),
                value,
            };
            match self.take(recorder, &input)? {
                Flow::On => {
                    self.ahead.insert(index);
                }
                Flow::Refused(message) => {
                    self.held.remove(&index);
                    self.refused.insert(index, message);
                }
                other => return Ok(other),
            }
        }
        Ok(Flow::On)
    }
}

/// What the person typed in `round`, by field (blank fields left out).
fn typed(round: &Round, content: &Map<String, Value>) -> Map<String, Value> {
    let Some(Value::Object(fields)) = round.schema.get("properties") else {
        return Map::new();
    };
    fields
        .keys()
        .filter_map(|name| {
            let value = content.get(name)?;
            let blank = value.is_null()
                || value.as_str().is_some_and(|s| s.trim().is_empty())
                || value.as_array().is_some_and(Vec::is_empty);
            (!blank).then(|| (name.clone(), value.clone()))
        })
        .collect()
}
