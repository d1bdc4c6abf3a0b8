//! One prompt on the screen, from its first frame to what the person did: the
//! question (or the review), the menu Esc opens, the Reply message, the End Turn
//! confirmation, the "Other" input and the long-answer confirmation. The question
//! keeps its state (ticks, typed text, filter) while the other views come and go.

use askuser_core::text::for_display_line;
use askuser_core::{AnswerType, AnsweredBy, Outcome, Prompt, UiInput, ui_answer};
use serde_json::Value;

use std::time::{Duration, Instant};

use crate::action::Action;
use crate::clock::Countdown;
use crate::editor::{Edit, Editor};
use crate::error::TerminalError;
use crate::external;
use crate::keys::{Input, Key};
use crate::list::{List, Listed, Mode};
use crate::markdown::Line;
use crate::menu::{self, Pick};
use crate::render::{self, wrap};
use crate::screen::Screen;
use crate::stop;

/// How the prompter behaves, from its builder.
#[derive(Debug, Clone, Default)]
pub(crate) struct Settings {
    /// Ring the bell when a question starts waiting.
    pub(crate) bell: bool,
    /// The command that edits a typed answer in a file.
    pub(crate) editor: Option<String>,
    /// Uppercase Y / N remember a boolean answer for the turn.
    pub(crate) remember: bool,
    /// How long the person has to answer each prompt, and what happens then.
    pub(crate) timeout: Option<Timeout>,
    /// When the next prompt times out, as the host counts it (from when the
    /// question started waiting); `None`: `timeout` after the prompt shows.
    pub(crate) deadline: Option<Instant>,
}

/// The time the person has to answer a prompt (keys do not move it), and what
/// happens when it runs out, in words for the countdown line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Timeout {
    /// The time, from when the prompt shows (unless the host gave a deadline).
    pub(crate) after: Duration,
    /// What happens then (`the answers so far are sent`).
    pub(crate) then: &'static str,
}

/// What is being answered.
pub(crate) enum Body {
    /// A boolean, select or multi-select question's list.
    List(List),
    /// A text or schema question's input.
    Text(Editor),
    /// The review of a finished form.
    Review(List, Outcome),
}

/// The view on the screen.
enum View {
    Question,
    /// The menu Esc opens, with the menu letters typed since (each only
    /// highlights its entry: Enter acts).
    Menu(List, String),
    /// The End Turn confirmation; `true` when Ctrl+C opened it (a second Ctrl+C
    /// ends the turn).
    EndTurn(List, bool),
    Reply(Editor),
    /// A note for the answer to this question.
    Note(Editor),
    /// Whether the note written for the earlier answer still applies to this
    /// changed one, which is sent once the person says.
    NoteKept(List, Value),
    Other(Editor, Vec<Pick>),
    Long(Value),
    /// Run the external editor, then back to the question.
    Editing,
}

/// How a prompt ended.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Done {
    /// With this action.
    Act(Action),
    /// The review was submitted.
    Submit,
    /// The review asks to change the answer at this index.
    Change(usize),
    /// The person did not answer in time, with the Reply message they were
    /// typing, if any.
    TimedOut(Option<String>),
    /// Another surface moved the inquiry (the watch said so) before the person
    /// acted: what they were typing, as the action it would have been.
    Moved(Option<Action>),
}

/// How often a watched prompt looks at its watch while no key comes.
const WATCH_EVERY: Duration = Duration::from_millis(100);

/// One prompt being asked.
pub(crate) struct Asking<'a> {
    prompt: &'a Prompt,
    settings: &'a Settings,
    header: String,
    /// The header with the question's styles.
    styled: Line,
    body: Body,
    /// The draft at the start, to tell whether End Turn would lose work.
    start: String,
    /// The free text typed for "Other", kept across views.
    other: String,
    error: Option<String>,
    /// The seconds left, when the prompt has a time limit.
    left: Option<u64>,
    /// Whether the bell and the warning for the last seconds were given.
    warned: bool,
    /// The note the person wrote for this answer.
    note: Option<String>,
    /// Whether the person wrote, kept or dropped the note at this prompt (a
    /// note brought back from an earlier answer is not asked about again).
    note_settled: bool,
    /// The changed answer to send once the note being edited is kept.
    send_after_note: Option<Value>,
}

impl<'a> Asking<'a> {
    /// The prompt's question, its state set from the prefill.
    pub(crate) fn question(prompt: &'a Prompt, settings: &'a Settings) -> Self {
        let question = prompt.question();
        let prefill = prompt.prefill_value();
        let mut other = String::new();
        let body = match question.answer_type {
            AnswerType::Boolean | AnswerType::Select => {
                let entries = if question.answer_type == AnswerType::Boolean {
                    menu::boolean_entries()
                } else {
                    menu::option_entries(question)
                };
                let cursor = menu::starting_cursor(&entries, question, prefill.as_ref());
                if let Some(Value::String(text)) = &prefill
                    && !question.choices().iter().any(|c| &c.label == text)
                {
                    other.clone_from(text);
                }
                let mode = if question.answer_type == AnswerType::Boolean {
                    Mode::Boolean {
                        remember: settings.remember,
                    }
                } else {
                    Mode::Select
                };
                let list = List::new(entries, mode, cursor, &[]);
                // A yes/no question without a default (or earlier answer) takes
                // y or n: Enter alone does not mean Yes.
                if question.answer_type == AnswerType::Boolean && prefill.is_none() {
                    Body::List(list.unchosen())
                } else {
                    Body::List(list)
                }
            }
            AnswerType::MultiSelect => {
                let entries = menu::option_entries(question);
                let (ticked, typed) = menu::multi_prefill(&entries, question, prefill.as_ref());
                other = typed.unwrap_or_default();
                Body::List(List::new(entries, Mode::Multi, 0, &ticked))
            }
            AnswerType::Text | AnswerType::Schema => {
                let initial = prefill
                    .as_ref()
                    .map(render::prefill_text)
                    .unwrap_or_default();
                Body::Text(Editor::new(&initial, true))
            }
        };
        Self::new(prompt, settings, body).with_other(other)
    }

    /// A prompt showing `body`.
    pub(crate) fn new(prompt: &'a Prompt, settings: &'a Settings, body: Body) -> Self {
        let styled = match &body {
            Body::Review(..) => Line::plain(render::REVIEW_TITLE),
            _ => render::prompt_header_styled(prompt),
        };
        let header = styled.text();
        let mut asking = Self {
            prompt,
            settings,
            header,
            styled,
            body,
            start: String::new(),
            other: String::new(),
            error: None,
            left: None,
            warned: false,
            // A question asked again (Back, or a change from the review) brings
            // back the note written beside its earlier answer.
            note: prompt.prefill_note.clone(),
            note_settled: false,
            send_after_note: None,
        };
        asking.start = asking.draft();
        asking
    }

    fn with_other(mut self, other: String) -> Self {
        self.other = other;
        self
    }

    /// The work at this prompt, as text, to compare with the start.
    fn draft(&self) -> String {
        match &self.body {
            Body::Text(editor) => editor.text(),
            Body::List(list, ..)
                if matches!(self.prompt.question().answer_type, AnswerType::MultiSelect) =>
            {
                format!("{:?}", list.ticked())
            }
            _ => String::new(),
        }
    }

    /// Whether End Turn would lose answers: earlier ones, or work at this prompt.
    fn would_lose(&self) -> bool {
        matches!(self.body, Body::Review(..)) || self.prompt.can_back || self.draft() != self.start
    }

    /// Shows the prompt until the person is done with it, then leaves its
    /// summary. With a `watch`, looks at it before each frame and at least every
    /// [`WATCH_EVERY`] while no key comes: when it says the inquiry moved
    /// elsewhere, the prompt ends at once with [`Done::Moved`] and leaves
    /// nothing on the screen (what changed is said in its place).
    pub(crate) fn run(
        &mut self,
        screen: &mut Screen,
        mut watch: Option<&mut dyn FnMut() -> bool>,
    ) -> Result<Done, TerminalError> {
        let mut view = View::Question;
        // Whether the last wait brought nothing (then only the time left can
        // have changed the frame).
        let mut ticked = false;
        let clock = (self.settings.timeout.as_ref()).map(|timeout| {
            self.settings.deadline.map_or_else(
                || Countdown::new(timeout.after, Instant::now()),
                Countdown::until,
            )
        });
        loop {
            let now = Instant::now();
            if clock.is_some_and(|clock| clock.expired(now)) {
                let done = Done::TimedOut(replying(&view));
                let mut lines = wrap(&self.summary(&done), Screen::width());
                if let Some(text) = self.typed_not_sent(&view) {
                    lines.extend(wrap(render::TYPED_NOT_SENT, Screen::width()));
                    for line in text.lines() {
                        lines.extend(wrap(
                            &format!("  {}", for_display_line(line)),
                            Screen::width(),
                        ));
                    }
                }
                screen.print(&lines)?;
                return Ok(done);
            }
            let left = clock.map(|clock| clock.left(now));
            let stale = !ticked || left != self.left;
            self.left = left;
            if clock.is_some_and(|clock| clock.warning(now)) && !self.warned {
                self.warned = true;
                screen.bell()?;
            }
            if let Some(watch) = watch.as_mut()
                && watch()
            {
                return Ok(Done::Moved(self.unsent(&view)));
            }
            if stale {
                screen.draw(&self.frame(&view, Screen::width(), Screen::height()))?;
            }
            let wait = clock.map(|clock| clock.wait(now));
            let wait = match (wait, watch.is_some()) {
                (Some(wait), true) => Some(wait.min(WATCH_EVERY)),
                (None, true) => Some(WATCH_EVERY),
                (wait, false) => wait,
            };
            let input = screen.read(wait)?;
            ticked = input == Input::Tick;
            let key = match input {
                Input::Key(key) => key,
                Input::Paste(text) => {
                    self.paste(&mut view, &text);
                    continue;
                }
                Input::Redraw | Input::Tick => continue,
            };
            if key == Key::Ctrl('c') {
                if matches!(view, View::EndTurn(..)) || !self.would_lose() {
                    screen.print(&[render::INTERRUPTED.to_owned()])?;
                    return Ok(Done::Act(Action::EndTurn));
                }
                self.error = None;
                view = View::EndTurn(end_turn_list(), true);
                continue;
            }
            if key == Key::Ctrl('z') {
                screen.suspended(stop::until_continued)?;
                continue;
            }
            let (next, done) = self.step(view, key);
            if let Some(done) = done {
                let done = self.with_note(done);
                let summary = self.summary(&done);
                screen.print(&wrap(&summary, Screen::width()))?;
                return Ok(done);
            }
            view = next;
            if matches!(view, View::Editing) {
                self.edit_externally(screen)?;
                view = View::Question;
            }
        }
    }

    /// What the person was typing in `view` and had not sent, as the action it
    /// would have been: a Reply's message, an "Other" text, or a typed answer
    /// changed from what the prompt started with (with the note written for
    /// it). `None` when nothing was typed.
    fn unsent(&self, view: &View) -> Option<Action> {
        let typed = |editor: &Editor| Some(editor.text()).filter(|t| !t.trim().is_empty());
        let answer = match (view, &self.body) {
            (View::Reply(editor), _) => {
                let message = typed(editor)?.trim().to_owned();
                return Some(Action::Reply {
                    message: Some(message),
                });
            }
            (View::Other(editor, _), _) => typed(editor)?,
            (_, Body::Text(editor)) if editor.text() != self.start => typed(editor)?,
            _ => return None,
        };
        match self.with_note(Done::Act(Action::Answer(Value::String(answer)))) {
            Done::Act(action) => Some(action),
            _ => None,
        }
    }

    /// What the person was typing in `view` that a timeout does not send: a
    /// typed answer or "Other" text (also behind an open Reply, whose message
    /// the timeout does send), or a note being written.
    fn typed_not_sent(&self, view: &View) -> Option<String> {
        let action = match view {
            View::Reply(_) => self.unsent(&View::Question),
            View::Note(editor) => {
                return Some(editor.text()).filter(|text| !text.trim().is_empty());
            }
            _ => self.unsent(view),
        };
        match action? {
            Action::Answer(Value::String(text))
            | Action::AnswerWithNote {
                value: Value::String(text),
                ..
            } => Some(text),
            _ => None,
        }
    }

    /// The question whether the note written for the earlier answer still
    /// applies, when `done` changes that answer and the person has not settled
    /// the note here (the rule: [`Prompt::note_to_confirm`]).
    fn note_question(&self, done: &Done) -> Option<View> {
        let Done::Act(Action::Answer(value)) = done else {
            return None;
        };
        let unsettled = !self.note_settled && self.note == self.prompt.prefill_note;
        self.prompt.note_to_confirm(value).filter(|_| unsettled)?;
        let list = List::new(menu::note_kept_entries(), Mode::Menu, 0, &[]);
        Some(View::NoteKept(list, value.clone()))
    }

    /// The person's choice about the earlier answer's note: send the answer
    /// with it, without it, or edit it first.
    fn on_note_kept(&mut self, mut list: List, value: Value, key: Key) -> (View, Option<Done>) {
        if let Key::Char(c) = key {
            list.highlight(c);
            return (View::NoteKept(list, value), None);
        }
        let Listed::Picked(pick @ (Pick::KeepNote | Pick::DropNote | Pick::EditNote)) =
            list.handle(key)
        else {
            return (View::NoteKept(list, value), None);
        };
        self.note_settled = true;
        match pick {
            Pick::DropNote => self.note = None,
            Pick::EditNote => {
                self.send_after_note = Some(value);
                return (View::Note(self.note_editor()), None);
            }
            _ => {}
        }
        (View::Question, Some(Done::Act(Action::Answer(value))))
    }

    /// An answer carries the note the person wrote for it.
    fn with_note(&self, done: Done) -> Done {
        match (done, &self.note) {
            (Done::Act(Action::Answer(value)), Some(note)) => Done::Act(Action::AnswerWithNote {
                value,
                note: note.clone(),
            }),
            (done, _) => done,
        }
    }

    fn paste(&mut self, view: &mut View, text: &str) {
        match (view, &mut self.body) {
            (View::Reply(editor) | View::Other(editor, _) | View::Note(editor), _)
            | (View::Question, Body::Text(editor)) => editor.insert_str(text),
            (View::Question, Body::List(list)) => list.paste(text),
            _ => {}
        }
    }

    /// Applies a key to the view; the next view, or how the prompt ended (a
    /// changed answer whose earlier note is unsettled first asks about it).
    fn step(&mut self, view: View, key: Key) -> (View, Option<Done>) {
        let (next, done) = self.step_view(view, key);
        match done.as_ref().and_then(|done| self.note_question(done)) {
            Some(asked) => (asked, None),
            None => (next, done),
        }
    }

    /// Applies a key to the view, as [`Asking::step`] without the note's question.
    fn step_view(&mut self, view: View, key: Key) -> (View, Option<Done>) {
        match view {
            View::Question if key == Key::Esc => {
                self.error = None;
                (View::Menu(self.menu(), String::new()), None)
            }
            View::Question if key == Key::Alt('n') && !matches!(self.body, Body::Review(..)) => {
                (View::Note(self.note_editor()), None)
            }
            View::Question => self.on_question(key),
            View::Other(editor, _) if key == Key::Esc => {
                self.other = editor.text();
                (View::Question, None)
            }
            View::Note(_) | View::NoteKept(..) if key == Key::Esc => {
                self.send_after_note = None;
                (View::Question, None)
            }
            View::Menu(..) | View::EndTurn(..) | View::Reply(_) | View::Long(_) | View::Editing
                if key == Key::Esc =>
            {
                (View::Question, None)
            }
            View::Menu(list, typed) => self.on_menu(list, typed, key),
            View::EndTurn(mut list, ctrl_c) => {
                if let Key::Char(c) = key {
                    list.highlight(c);
                    return (View::EndTurn(list, ctrl_c), None);
                }
                match list.handle(key) {
                    Listed::Picked(Pick::Yes) => (View::Question, Some(Done::Act(Action::EndTurn))),
                    Listed::Picked(_) => (View::Question, None),
                    _ => (View::EndTurn(list, ctrl_c), None),
                }
            }
            View::Reply(mut editor) => match editor.handle(key) {
                Edit::Submit => {
                    let message = editor.text().trim().to_owned();
                    let message = (!message.is_empty()).then_some(message);
                    (View::Question, Some(Done::Act(Action::Reply { message })))
                }
                _ => (View::Reply(editor), None),
            },
            View::Note(mut editor) => match editor.handle(key) {
                Edit::Submit => {
                    let note = editor.text().trim().to_owned();
                    self.note = (!note.is_empty()).then_some(note);
                    self.note_settled = true;
                    let sent = self.send_after_note.take();
                    (
                        View::Question,
                        sent.map(|value| Done::Act(Action::Answer(value))),
                    )
                }
                _ => (View::Note(editor), None),
            },
            View::NoteKept(list, value) => self.on_note_kept(list, value, key),
            View::Other(mut editor, picks) => match editor.handle(key) {
                Edit::Submit => {
                    self.other = editor.text();
                    self.finish_other(editor, picks)
                }
                _ => (View::Other(editor, picks), None),
            },
            View::Long(value) => match key {
                Key::Char('y' | 'Y') | Key::Enter => {
                    (View::Question, Some(Done::Act(Action::Answer(value))))
                }
                Key::Char('n' | 'N') => (View::Question, None),
                _ => (View::Long(value), None),
            },
            View::Editing => (View::Question, None),
        }
    }

    /// A key on the menu: a menu letter highlights its entry (while only menu
    /// letters were typed), Enter acts on the highlighted one, and any other key
    /// closes the menu and goes to the question's field with what was typed, so
    /// typing on after Esc (`system`) never picks an action.
    fn on_menu(&mut self, mut list: List, mut typed: String, key: Key) -> (View, Option<Done>) {
        if let Key::Char(c) = key {
            if list.highlight(c) {
                typed.push(c);
                return (View::Menu(list, typed), None);
            }
            typed.push(c);
            self.type_into_field(&typed);
            return (View::Question, None);
        }
        match list.handle(key) {
            Listed::Picked(pick) => self.on_menu_pick(pick, list, typed),
            Listed::Changed => (View::Menu(list, typed), None),
            _ => {
                self.type_into_field(&typed);
                self.on_question(key)
            }
        }
    }

    fn on_menu_pick(&mut self, pick: Pick, list: List, typed: String) -> (View, Option<Done>) {
        match pick {
            Pick::Editor => (View::Editing, None),
            Pick::KeepAnswering => (View::Question, None),
            Pick::Note => (View::Note(self.note_editor()), None),
            Pick::Reply => (View::Reply(Editor::new("", true)), None),
            Pick::EndTurn if self.would_lose() => (View::EndTurn(end_turn_list(), false), None),
            pick => match menu::control_action(pick) {
                Some(action) => (View::Question, Some(Done::Act(action))),
                None => (View::Menu(list, typed), None),
            },
        }
    }

    /// Text typed on the menu goes to the question's field: a typed answer, or a
    /// list's filter (never a pick: a digit or `y` typed there only filters).
    fn type_into_field(&mut self, typed: &str) {
        for c in typed.chars() {
            match &mut self.body {
                Body::Text(editor) => {
                    editor.handle(Key::Char(c));
                }
                Body::List(list) => list.type_char(c),
                Body::Review(..) => {}
            }
        }
    }

    fn note_editor(&self) -> Editor {
        Editor::new(self.note.as_deref().unwrap_or_default(), false)
    }

    fn menu(&self) -> List {
        let typed = matches!(self.body, Body::Text(_));
        let editor = self.settings.editor.as_deref().filter(|_| typed);
        let entries = match self.body {
            Body::Review(..) => {
                let mut entries = menu::action_entries(false, None, None);
                "Keep reviewing".clone_into(&mut entries[0].label);
                entries
            }
            _ => menu::action_entries(self.prompt.can_back, editor, Some(self.note.is_some())),
        };
        List::new(entries, Mode::Menu, 0, &[])
    }

    fn on_question(&mut self, key: Key) -> (View, Option<Done>) {
        self.error = None;
        let question = self.prompt.question();
        match &mut self.body {
            Body::Text(editor) => {
                if editor.handle(key) != Edit::Submit {
                    return (View::Question, None);
                }
                match render::typed_answer(&self.prompt.form, self.prompt.index, &editor.text()) {
                    Ok(value) if render::long_answer_warning(&editor.text()).is_some() => {
                        (View::Long(value), None)
                    }
                    Ok(value) => (View::Question, Some(Done::Act(Action::Answer(value)))),
                    Err(message) => {
                        self.error = Some(message);
                        (View::Question, None)
                    }
                }
            }
            Body::Review(list, outcome) => match list.handle(key) {
                Listed::Picked(Pick::Submit) => (View::Question, Some(Done::Submit)),
                Listed::Picked(Pick::Change(index)) => {
                    match outcome.answers.get(index).and_then(Option::as_ref) {
                        Some(slot) if slot.by == AnsweredBy::User => {
                            (View::Question, Some(Done::Change(index)))
                        }
                        Some(_) => {
                            self.error = Some(format!(
                                "answer {} was not given here (it was configured or remembered); it cannot be changed",
                                index + 1
                            ));
                            (View::Question, None)
                        }
                        None => {
                            self.error = Some(format!(
                                "question {} was not asked; change the answer it depends on",
                                index + 1
                            ));
                            (View::Question, None)
                        }
                    }
                }
                _ => (View::Question, None),
            },
            Body::List(list) => match list.handle(key) {
                Listed::Picked(Pick::Other) => {
                    let typed = list.filter();
                    let initial = if self.other.is_empty() {
                        typed
                    } else {
                        self.other.clone()
                    };
                    (View::Other(Editor::new(&initial, false), Vec::new()), None)
                }
                Listed::Picked(pick) => match menu::answer_of(pick, question) {
                    Some(value) => (View::Question, Some(Done::Act(Action::Answer(value)))),
                    None => (View::Question, None),
                },
                Listed::Remembered(pick) => match menu::answer_of(pick, question) {
                    Some(value) => (View::Question, Some(Done::Act(Action::Remember(value)))),
                    None => (View::Question, None),
                },
                Listed::Sent(picks) | Listed::OtherTicked(picks)
                    if picks.contains(&Pick::Other) =>
                {
                    (View::Other(Editor::new(&self.other, false), picks), None)
                }
                Listed::Sent(picks) => self.finish_multi(&picks, None),
                Listed::Unchosen => {
                    self.error = Some(render::NO_DEFAULT.to_owned());
                    (View::Question, None)
                }
                Listed::OtherTicked(_) | Listed::Changed | Listed::Ignored => {
                    (View::Question, None)
                }
            },
        }
    }

    /// The "Other" text was sent: a select's answer, or a multi-select's last
    /// pick.
    fn finish_other(&mut self, editor: Editor, picks: Vec<Pick>) -> (View, Option<Done>) {
        let text = editor.text();
        if text.trim().is_empty() {
            self.error = Some("the answer is empty; type an answer or press Esc".to_owned());
            return (View::Other(editor, picks), None);
        }
        if self.prompt.question().answer_type == AnswerType::MultiSelect {
            return self.finish_multi(&picks, Some(&text));
        }
        // Read as every surface reads "Other": a label (however spaced) is that
        // option, other text is the person's own answer where it is allowed.
        let read = ui_answer(self.prompt.question(), UiInput::Text(text))
            .map_err(|error| error.to_string())
            .and_then(|value| {
                (self.prompt.form.check(self.prompt.index, &value))
                    .map(|_| value)
                    .map_err(|error| error.to_string())
            });
        match read {
            Ok(value) => (View::Question, Some(Done::Act(Action::Answer(value)))),
            Err(error) => {
                self.error = Some(error);
                (View::Other(editor, picks), None)
            }
        }
    }

    fn finish_multi(&mut self, picks: &[Pick], other: Option<&str>) -> (View, Option<Done>) {
        let value = menu::multi_value(self.prompt.question(), picks, other);
        let value = match ui_answer(self.prompt.question(), UiInput::Json(value)) {
            Ok(value) => value,
            Err(error) => {
                self.error = Some(error.to_string());
                return (View::Question, None);
            }
        };
        match self.prompt.form.check(self.prompt.index, &value) {
            Ok(_) => (View::Question, Some(Done::Act(Action::Answer(value)))),
            Err(error) => {
                self.error = Some(error.to_string());
                (View::Question, None)
            }
        }
    }

    fn edit_externally(&mut self, screen: &mut Screen) -> Result<(), TerminalError> {
        let (Some(command), Body::Text(editor)) = (&self.settings.editor, &mut self.body) else {
            return Ok(());
        };
        let json = self.prompt.question().answer_type == AnswerType::Schema;
        match external::edit(screen, command, &editor.text(), json)? {
            Ok(text) => editor.set(&text),
            Err(message) => self.error = Some(message),
        }
        Ok(())
    }
}

/// The End Turn confirmation's list, the cursor on "No".
fn end_turn_list() -> List {
    List::new(menu::end_turn_entries(), Mode::Menu, 0, &[])
}

/// The Reply message being typed in `view`, if any.
fn replying(view: &View) -> Option<String> {
    match view {
        View::Reply(editor) => Some(editor.text().trim().to_owned()).filter(|m| !m.is_empty()),
        _ => None,
    }
}

mod frame;

mod summary;

pub(crate) use summary::answered_line;

#[cfg(test)]
mod tests;
