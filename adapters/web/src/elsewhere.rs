//! What another surface did, in the web's words: the one narrator's facts
//! ([`Happened`], made by the core and the application layer) styled for a
//! page, as the terminal and the MCP server style them in theirs. The web
//! decides nothing here: what moved a stale page on is
//! [`Happened::since_shown`], and what is shown now is the engine's.

use askuser_core::text::{answer_words, for_display_line};
use askuser_core::{Ending, FinishedInquiry, Happened, Surface};

/// Where another surface acts, as a page names it.
const THERE: &str = "(in another tab or the terminal)";

/// Where another surface ended a turn, as a page names it: the surface the log
/// recorded, seen from a page (the web inbox there is another tab), or
/// "elsewhere" when the log does not say.
pub(crate) fn turn_ended_where(surface: Option<Surface>) -> String {
    match surface {
        Some(Surface::Web) => "in another tab of the web inbox".to_owned(),
        Some(surface) => surface.words().to_owned(),
        None => format!("elsewhere {THERE}"),
    }
}

/// One line of `text`: a multi-line text reads with spaces for its breaks.
fn line(text: &str) -> String {
    for_display_line(&text.split_whitespace().collect::<Vec<_>>().join(" ")).into_owned()
}

/// A person's message (a Reply's), on one line as a sentence quotes it: its
/// line breaks shown as ` ⏎ `, as every surface shows a text answer
/// ([`answer_words`]), never as escapes.
pub(crate) fn message_words(message: &str) -> String {
    let words = answer_words(&serde_json::Value::String(message.to_owned()));
    for_display_line(&words).into_owned()
}

/// What another surface did, said as what happened while a page was open
/// (`review`: the page showed the review of the answers).
pub(crate) fn while_open(happened: &Happened, review: bool) -> String {
    let what = match happened {
        Happened::Answered { asked, value, .. } => format!(
            "“{}” was answered elsewhere {THERE}: {}.",
            line(asked),
            line(&answer_words(value))
        ),
        Happened::WentBack { .. } if review => {
            format!("the answers under review changed elsewhere {THERE}.")
        }
        Happened::WentBack { .. } => format!("the form went back elsewhere {THERE}."),
        Happened::Submitted { .. } => format!("the answers were sent elsewhere {THERE}."),
        Happened::Replied { .. } => format!("the assistant was replied to elsewhere {THERE}."),
        Happened::Cancelled { .. } => format!("the question was cancelled elsewhere {THERE}."),
        Happened::TurnEnded { surface, .. } => {
            format!("the turn was ended {}.", turn_ended_where(*surface))
        }
        Happened::TimedOut { .. } => "the time to answer ran out.".to_owned(),
    };
    format!("While this page was open, {what}")
}

/// What moved an inquiry on while a page showed it: what happened (`happened`:
/// `None` when the engine cannot tell, and the form moved on all the same; the
/// page showed the review when `review`), then what is asked now (`asks`:
/// `None` for the review).
pub(crate) fn moved(happened: Option<&Happened>, review: bool, asks: Option<&str>) -> String {
    let what = happened.map_or_else(
        || format!("While this page was open, the form moved on elsewhere {THERE}."),
        |happened| while_open(happened, review),
    );
    let now = match asks {
        Some(text) => format!(" It now asks “{}”.", line(text)),
        None => " Every question is answered: review the answers below.".to_owned(),
    };
    format!("{what}{now}")
}

/// What a page says when its inquiry ended elsewhere while it was open, with
/// how and where the turn was ended (`None`: not known any more).
pub(crate) fn ended(finished: Option<&FinishedInquiry>) -> String {
    let ending = finished.map(FinishedInquiry::how);
    if let Some(surface) = finished.and_then(FinishedInquiry::turn_ended_in) {
        return format!(
            "While this page was open, the turn was ended {}.",
            turn_ended_where(Some(surface))
        );
    }
    match ending {
        // No other surface did it: the time ran out, here as everywhere.
        Some(Ending::TimedOut) => "The time to answer ran out while this page was open; \
             nothing typed here was sent, and it stays on this page to copy."
            .to_owned(),
        Some(ending) => format!(
            "While this page was open, this question ended elsewhere {THERE}: {}.",
            ending.words()
        ),
        None => format!("While this page was open, this question ended elsewhere {THERE}."),
    }
}

/// What a stale page says: what moved it on ([`moved`]), that nothing was
/// recorded, and where what the person typed (`typed`: they typed some text)
/// is: back in the fields of the question now asked, or below the review, to
/// copy (`review`: the page showed the review, where nothing is typed).
pub(crate) fn stale(
    happened: Option<&Happened>,
    review: bool,
    asks: Option<&str>,
    typed: bool,
) -> String {
    let kept = match (review || !typed, asks) {
        (true, _) => " Nothing you sent was recorded.",
        (false, None) => " Nothing you sent was recorded; what you typed is below, to copy.",
        (false, Some(_)) => " Nothing you sent was recorded; what you typed is kept.",
    };
    format!("{}{kept}", moved(happened, review, asks))
}

#[cfg(test)]
mod tests {
    use askuser_core::InquiryId;
    use serde_json::json;

    use super::*;

    #[test]
    fn a_stale_page_says_what_happened_what_is_asked_now_and_what_was_kept() {
        let answered = Happened::Answered {
            inquiry: InquiryId::new("c1"),
            question: "apply".into(),
            asked: "Apply the\nmigration?".into(),
            value: json!(true),
            note: None,
            ahead: false,
        };
        let back = Happened::WentBack {
            inquiry: InquiryId::new("c1"),
            to: Some("Where?".into()),
        };
        assert_eq!(
            [
                stale(Some(&answered), false, Some("Where?"), true),
                stale(Some(&back), true, Some("Where?"), false),
                stale(Some(&back), false, None, true),
                stale(Some(&back), false, None, false),
            ],
            [
                "While this page was open, “Apply the migration?” was answered elsewhere (in another tab or the terminal): Yes. It now asks “Where?”. Nothing you sent was recorded; what you typed is kept.",
                "While this page was open, the answers under review changed elsewhere (in another tab or the terminal). It now asks “Where?”. Nothing you sent was recorded.",
                "While this page was open, the form went back elsewhere (in another tab or the terminal). Every question is answered: review the answers below. Nothing you sent was recorded; what you typed is below, to copy.",
                "While this page was open, the form went back elsewhere (in another tab or the terminal). Every question is answered: review the answers below. Nothing you sent was recorded.",
            ]
        );
    }

    #[test]
    fn a_message_on_several_lines_reads_with_a_mark_for_each_break() {
        assert_eq!(
            message_words("use staging\nthen prod\u{202e}"),
            "use staging ⏎ then prod\\u{202e}"
        );
    }
}
