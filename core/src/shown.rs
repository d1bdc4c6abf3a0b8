//! What a surface's view still matches: the engine's judgement of an action
//! taken on something shown, for the surfaces that must know before they build
//! the input (an answer that names only its question; an input with no [`At`] of
//! its own, taken on what a walk showed). Only the core builds a [`Refusal`]: a
//! surface asks here and renders what it is told.

use crate::error::Refusal;
use crate::event::InquiryId;
use crate::input::At;
use crate::reducer::State;

impl State {
    /// What an answer that names only its `question` answers: the [`At`] of that
    /// question while `inquiry` shows it.
    ///
    /// ```
    /// use askuser_core::{Input, InquiryId, Refusal, Request, State, parse_form};
    /// use serde_json::json;
    ///
    /// let form = parse_form(&json!({"questions": [
    ///     {"id": "apply", "text": "Apply?", "answer_type": "boolean"},
    ///     {"id": "env", "text": "Where?", "answer_type": "text"},
    /// ]})).unwrap();
    /// let id = InquiryId::new("call-1");
    /// let mut state = State::new();
    /// askuser_core::reduce(&mut state, &Input::Ask(Request {
    ///     inquiry: id.clone(), form: form.form().clone(), policy: Default::default(),
    ///     origin: Default::default(), call: None,
    /// })).unwrap();
    /// assert_eq!(state.asking(&id, "apply"), Ok(state.at(&id).unwrap()));
    /// assert_eq!(
    ///     state.asking(&id, "env").unwrap_err().to_string(),
    ///     "inquiry \"call-1\" is asking question \"apply\" (step 0), not \"env\": \
    ///      answer that question, or go back or reply from it"
    /// );
    /// ```
    ///
    /// # Errors
    /// [`Refusal::UnknownQuestion`] for a question the form does not have,
    /// [`Refusal::UnexpectedQuestion`] while another question shows,
    /// [`Refusal::InReview`] while the review shows, and for an inquiry that is
    /// not open [`Refusal::InquiryFinished`] or [`Refusal::UnknownInquiry`].
    pub fn asking(&self, inquiry: &InquiryId, question: &str) -> Result<At, Refusal> {
        let open = self.check_open(inquiry)?;
        let current = open.at(inquiry);
        if open.form.index_of(question).is_none() {
            return Err(Refusal::UnknownQuestion {
                inquiry: inquiry.clone(),
                question: question.to_owned(),
                current,
            });
        }
        match &current.question {
            Some(shown) if shown == question => Ok(current),
            Some(shown) => Err(Refusal::UnexpectedQuestion {
                inquiry: inquiry.clone(),
                expected: shown.clone(),
                got: question.to_owned(),
                step: current.step,
            }),
            None => Err(Refusal::InReview {
                inquiry: inquiry.clone(),
                got: question.to_owned(),
                step: current.step,
            }),
        }
    }

    /// Whether the inquiry still shows `shown`: `Ok` when it does.
    ///
    /// # Errors
    /// [`Refusal::Stale`] (with what shows now) when the inquiry moved on; the
    /// refusal naming the mistake when `shown` was never shown (see
    /// [`State::decide`]); for an inquiry that is not open
    /// [`Refusal::InquiryFinished`] or [`Refusal::UnknownInquiry`].
    pub fn still_shows(&self, shown: &At) -> Result<(), Refusal> {
        self.check_at(shown)
    }
}
