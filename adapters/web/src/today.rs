//! The memory of the day: the person's local day as the server knows it
//! ([`LocalDay`], from the wall clock and the server's time zone, both read
//! by the handler and handed in), and the inbox's "Answered today" below what
//! waits: per agent, the latest first, each inquiry with when it ended and
//! what the agent got, in words, linking to its conversation.

use std::collections::BTreeMap;

use askuser_app::log::Timestamp;
use askuser_app::{AgentDay, Ended, Ending, Story, Unheard, UnheardOf};
use askuser_core::AgentOrigin;
use askuser_core::text::for_display_line;
use maud::{Markup, html};

use crate::markdown::{self, Flow};
use crate::pages::{shown, stream_path};

/// A day in milliseconds.
const DAY_MS: i64 = 86_400_000;

/// The person's day as the server knows it: the moment it is (`now`,
/// milliseconds since the Unix epoch) and how far the server's local time is
/// ahead of UTC (`offset_ms`, negative west of Greenwich).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LocalDay {
    /// Now, in milliseconds since the Unix epoch.
    pub(crate) now: u64,
    /// The local time's offset from UTC, in milliseconds.
    pub(crate) offset_ms: i64,
}

impl LocalDay {
    /// The day at the wall clock's `now` in the server's time zone (`TZ`, or
    /// the system's): the one place the web reads a time zone.
    pub(crate) fn at(now: u64) -> Self {
        use chrono::{Local, Offset, TimeZone};
        let offset_ms = i64::try_from(now)
            .ok()
            .and_then(chrono::DateTime::from_timestamp_millis)
            .map_or(0, |utc| {
                let offset = Local.offset_from_utc_datetime(&utc.naive_utc());
                i64::from(offset.fix().local_minus_utc()) * 1000
            });
        Self { now, offset_ms }
    }

    /// `at` in local milliseconds (since the local epoch).
    fn local(self, at: u64) -> i64 {
        i64::try_from(at)
            .unwrap_or(i64::MAX)
            .saturating_add(self.offset_ms)
    }

    /// When today began (local midnight), as a moment.
    pub(crate) fn start(self) -> Timestamp {
        let local = self.local(self.now);
        let midnight = local - local.rem_euclid(DAY_MS) - self.offset_ms;
        Timestamp(u64::try_from(midnight).unwrap_or(0))
    }

    /// The local time of `at` on the clock: `09:05`.
    pub(crate) fn clock(self, at: Timestamp) -> String {
        let minutes = self.local(at.millis()).rem_euclid(DAY_MS) / 60_000;
        format!("{:02}:{:02}", minutes / 60, minutes % 60)
    }
}

/// Of each stream, the inquiries whose answers may not have reached the agent
/// waiting for them ([`UnheardOf`]), by stream name.
pub(crate) type UnheardBy = BTreeMap<String, UnheardOf>;

/// The inbox's "Answered today": `days` (the inquiries that ended since local
/// midnight, by agent) under their heading, each saying whether the agent got
/// its answers (`unheard`: those it may not have); nothing when none ended.
pub(crate) fn answered_today(days: &[AgentDay], day: LocalDay, unheard: &UnheardBy) -> Markup {
    let count: usize = days.iter().map(|d| d.ended.len()).sum();
    if count == 0 {
        return html! {};
    }
    html! {
        section.today #today aria-labelledby="today-head" {
            h2 #today-head { "Answered today" }
            @for (k, agent) in days.iter().enumerate() {
                section.agent aria-labelledby=(format!("today-{k}")) {
                    h3 #(format!("today-{k}")) { (shown(&who(agent))) }
                    p.meta {
                        "stream " span.id { (shown(&agent.stream)) }
                        " · " (agent.ended.len()) " today · "
                        a href=(stream_path(&agent.stream)) { "conversation" }
                    }
                    ol.ended {
                        @for story in &agent.ended {
                            @if let Some(ended) = &story.ended {
                                li { (ended_line(&agent.stream, story, ended, day, unheard)) }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// Who asks on `agent`'s stream: the label its latest inquiry carries, and
/// where the agent runs (`Assistant` when neither is known).
fn who(agent: &AgentDay) -> String {
    // The engine's default label says nothing the place does not.
    let label = (agent.ended.first())
        .and_then(|story| story.label.clone())
        .filter(|label| label != "Assistant");
    let place = (agent.agent.as_ref().map(AgentOrigin::line)).filter(|place| !place.is_empty());
    match (label, place) {
        (Some(label), Some(place)) => format!("{label} · {place}"),
        (Some(one), None) | (None, Some(one)) => one,
        (None, None) => "Assistant".to_owned(),
    }
}

/// One inquiry that ended: its first question (a link to its conversation,
/// at the inquiry), when it ended and how, and what the agent got.
fn ended_line(
    stream: &str,
    story: &Story,
    ended: &Ended,
    day: LocalDay,
    unheard: &UnheardBy,
) -> Markup {
    let unheard = (unheard.get(stream)).and_then(|of_stream| of_stream.get(&story.inquiry));
    let first = story.questions.first().map_or("", String::as_str);
    let more = story.questions.len().saturating_sub(1);
    let href = format!("{}#i-{}", stream_path(stream), ended_anchor(story));
    let answers = ended.answers();
    html! {
        a.ended-link href=(href) {
            span { (markdown::render(first, Flow::InlineNoLinks)) }
            @if more > 0 { span.more { " (+" (more) " more)" } }
        }
        p.meta {
            time datetime=(ended.moment.at.to_string()) { (day.clock(ended.moment.at)) }
            " · " (how_words(ended, !answers.is_empty(), unheard))
        }
        (got_list(&answers))
    }
}

/// What the agent got (`answers`: question, answer in words, note), one line
/// each; nothing when it got no answers. Answered today and the history show it.
pub(crate) fn got_list(answers: &[(String, String, Option<String>)]) -> Markup {
    html! {
        @if !answers.is_empty() {
            ul.got {
                @for (question, answer, note) in answers {
                    li {
                        span.q { (markdown::render(question, Flow::Inline)) }
                        " " b { (shown(answer)) }
                        @if let Some(note) = note {
                            " " span.note { "(note: " (shown(note)) ")" }
                        }
                    }
                }
            }
        }
    }
}

/// The anchor of `story`'s group on its stream's history page.
pub(crate) fn ended_anchor(story: &Story) -> String {
    crate::pages::segment(story.inquiry.as_str())
}

/// How an inquiry ended and what the agent got, in words (`answers`: answer
/// lines follow; `unheard`: the agent may not have got them, see
/// [`Desk::unheard`](askuser_app::Desk::unheard)).
pub(crate) fn how_words(ended: &Ended, answers: bool, unheard: Option<&Unheard>) -> String {
    let got = match (unheard, answers) {
        (None, true) => "the assistant got:".to_owned(),
        (None, false) => "the assistant got no answers".to_owned(),
        (Some(Unheard::Unsure { host }), _) => format!(
            "sent to the call {} was waiting on, which may have been stopped there{}",
            for_display_line(host),
            if answers { ":" } else { "" }
        ),
        (Some(_), true) => "nobody was waiting for them; they are kept:".to_owned(),
        (Some(_), false) => "nobody was waiting for it".to_owned(),
    };
    match ended.how {
        Ending::Answered => format!("answered; {got}"),
        Ending::Replied => match ended.message() {
            Some(message) => format!(
                "you replied instead: “{}”{}",
                for_display_line(message),
                if answers { "; with these answers:" } else { "" }
            ),
            None if answers => "you replied instead; with these answers:".to_owned(),
            None => "you replied instead, without a message".to_owned(),
        },
        Ending::TimedOut => format!(
            "the time to answer ({}) ran out; {got}",
            crate::pages::duration_words(ended.timed_out_after_ms().unwrap_or(0))
        ),
        Ending::TurnEnded => match ended.turn_ended_in {
            Some(surface) => format!(
                "you ended the turn {}; the assistant got no reply",
                surface.words()
            ),
            None => "you ended the turn; the assistant got no reply".to_owned(),
        },
        Ending::Failed | Ending::Rejected => "ended without answers".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_day_starts_at_local_midnight_and_its_times_read_on_the_local_clock() {
        // 2026-11-30 01:30 UTC is 2026-11-29 20:30 in New York (UTC-5).
        let now = 1_796_002_200_000;
        let west = LocalDay {
            now,
            offset_ms: -5 * 3_600_000,
        };
        assert_eq!(west.start().to_string(), "2026-11-29T05:00:00.000Z");
        assert_eq!(west.clock(Timestamp(now)), "20:30");
        let east = LocalDay {
            now,
            offset_ms: 5 * 3_600_000 + 1_800_000,
        };
        assert_eq!(east.start().to_string(), "2026-11-29T18:30:00.000Z");
        assert_eq!(east.clock(Timestamp(now)), "07:00");
    }
}
