//! Rejected calls: every problem with its field path, and the tool error text a
//! model reads to fix its call.

use std::fmt::Write as _;

use askuser_core::Problem;

/// A tool call that was not run: every problem found, in the order of the fields.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.tool_error_text())]
pub struct Rejection {
    /// The tool's name, as the model knows it (`ask_user`, `AskUserQuestion`).
    pub tool: &'static str,
    /// Every problem, each with the path of its field. Never empty.
    pub errors: Vec<Problem>,
}

/// The most problems listed in a tool error text; the rest are counted.
pub const MAX_LISTED_ERRORS: usize = 20;
/// The longest line of a tool error text, in characters; longer lines are cut with `…`.
pub const MAX_LINE_CHARS: usize = 300;

impl Rejection {
    /// The tool error text for the model: one line per problem (at most
    /// [`MAX_LISTED_ERRORS`]), each naming its field and what to change.
    ///
    /// ```text
    /// AskUserQuestion: the call was not run. Fix this problem and call the tool again:
    /// - /questions/0/header: is 18 characters long; the limit is 12: shorten it
    /// ```
    pub fn tool_error_text(&self) -> String {
        tool_error_text(self.tool, &self.errors)
    }

    /// The paths of the problems, in order.
    pub fn paths(&self) -> Vec<&str> {
        self.errors.iter().map(|e| e.path.as_str()).collect()
    }
}

/// The tool error text listing `errors` (see [`Rejection::tool_error_text`]).
pub(crate) fn tool_error_text(tool: &str, errors: &[Problem]) -> String {
    let count = errors.len();
    let mut text = if count == 1 {
        format!("{tool}: the call was not run. Fix this problem and call the tool again:")
    } else {
        format!("{tool}: the call was not run. Fix these {count} problems and call the tool again:")
    };
    for error in errors.iter().take(MAX_LISTED_ERRORS) {
        text.push_str("\n- ");
        text.push_str(&cut(&error.to_string()));
    }
    if count > MAX_LISTED_ERRORS {
        let rest = count - MAX_LISTED_ERRORS;
        let plural = if rest == 1 { "" } else { "s" };
        let _ = write!(text, "\n- and {rest} more problem{plural}");
    }
    text
}

/// Cuts a line to [`MAX_LINE_CHARS`] characters.
fn cut(line: &str) -> String {
    match line.char_indices().nth(MAX_LINE_CHARS) {
        None => line.to_owned(),
        Some((end, _)) => format!("{}…", &line[..end]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_problem_reads_as_one_line_after_the_header() {
        let rejection = Rejection {
            tool: "ask_user",
            errors: vec![Problem::new("/question", "is empty; write the question")],
        };
        assert_eq!(
            rejection.tool_error_text(),
            "ask_user: the call was not run. Fix this problem and call the tool again:\n\
             - /question: is empty; write the question"
        );
        assert_eq!(rejection.to_string(), rejection.tool_error_text());
    }

    #[test]
    fn many_problems_are_capped_and_long_lines_cut() {
        let mut errors: Vec<Problem> = (0..22)
            .map(|i| Problem::new(format!("/questions/{i}"), "bad"))
            .collect();
        errors[0].message = "x".repeat(400);
        errors[1].path = String::new();
        let text = Rejection {
            tool: "ask_user",
            errors,
        }
        .tool_error_text();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 1 + MAX_LISTED_ERRORS + 1);
        assert_eq!(
            lines[0],
            "ask_user: the call was not run. Fix these 22 problems and call the tool again:"
        );
        assert_eq!(
            lines[1],
            format!(
                "- /questions/0: {}…",
                "x".repeat(MAX_LINE_CHARS - "/questions/0: ".len())
            )
        );
        assert_eq!(lines[2], "- (arguments): bad");
        assert_eq!(lines[21], "- and 2 more problems");
    }
}
