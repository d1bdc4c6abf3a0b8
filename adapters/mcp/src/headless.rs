//! A host's own headless mode: it runs with nobody at it and says so, so a
//! call sends no form (nobody would read it) and waits for another window at
//! once, recorded as [`ClientNote::Headless`](askuser_core::ClientNote::Headless).
//! The host's word comes before timing: a form dismissed faster than a person
//! reads ([`Waiting::no_person`](crate::Waiting::no_person)) is only the
//! fallback for hosts that do not say.
//!
//! What each host says, measured on Claude Code 2.1.332 and Codex 0.171.0
//! (the environment and parent of the server each starts):
//! - Claude Code sets `CLAUDE_CODE_ENTRYPOINT` in its servers' environment:
//!   `sdk-cli` for `claude -p`, `cli` for a person at its terminal.
//! - Codex passes its servers no variable of its own (only `HOME`, `PATH`,
//!   `TERM` and the like), but the server's parent is Codex itself, run as
//!   `codex exec …` for a headless run.
//!
//! Reading those facts (the environment, the parent's arguments) is the
//! caller's: [`Headless::detect`] only judges them.
//!
//! ```
//! use askuser_mcp::Headless;
//!
//! assert_eq!(Headless::detect(Some("sdk-cli"), &[]), Some(Headless::ClaudeCodePrint));
//! assert_eq!(Headless::detect(Some("cli"), &[]), None);
//! let codex = ["/usr/bin/codex", "--no-daemon", "exec", "Please ask me."].map(String::from);
//! assert_eq!(Headless::detect(None, &codex), Some(Headless::CodexExec));
//! assert_eq!(Headless::CodexExec.name(), "codex exec");
//! ```

/// A host's headless mode, as the host itself says it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Headless {
    /// Claude Code's print mode, `claude -p` (`CLAUDE_CODE_ENTRYPOINT=sdk-cli`).
    ClaudeCodePrint,
    /// Codex's non-interactive run, `codex exec` (the server's parent).
    CodexExec,
}

/// Codex's options that take their value as the next argument, before its
/// subcommand (`codex -c key=value exec …`).
const CODEX_OPTIONS_WITH_VALUES: [&str; 16] = [
    "-c",
    "--config",
    "-m",
    "--model",
    "-p",
    "--profile",
    "-s",
    "--sandbox",
    "-a",
    "--ask-for-approval",
    "-C",
    "--cd",
    "-i",
    "--image",
    "--add-dir",
    "--local-provider",
];

impl Headless {
    /// The mode as its people type it: `claude -p`, `codex exec`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Headless::ClaudeCodePrint => "claude -p",
            Headless::CodexExec => "codex exec",
        }
    }

    /// The headless mode the facts show, if any: `claude_entrypoint`, the
    /// server's `CLAUDE_CODE_ENTRYPOINT`; `parent_args`, its parent process's
    /// arguments (the program first; empty when unknown).
    #[must_use]
    pub fn detect(claude_entrypoint: Option<&str>, parent_args: &[String]) -> Option<Headless> {
        if claude_entrypoint.map(str::trim) == Some("sdk-cli") {
            return Some(Headless::ClaudeCodePrint);
        }
        codex_exec(parent_args).then_some(Headless::CodexExec)
    }
}

/// Whether `args` run Codex's `exec` subcommand (or its alias `e`): the
/// program is `codex`, and its first argument that is not an option (nor an
/// option's value) is the subcommand.
fn codex_exec(args: &[String]) -> bool {
    let Some((program, rest)) = args.split_first() else {
        return false;
    };
    let name = program.rsplit('/').next().unwrap_or(program);
    if name != "codex" {
        return false;
    }
    let mut rest = rest.iter();
    while let Some(arg) = rest.next() {
        if CODEX_OPTIONS_WITH_VALUES.contains(&arg.as_str()) {
            rest.next();
        } else if arg == "--" {
            return false;
        } else if !arg.starts_with('-') {
            return arg == "exec" || arg == "e";
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(line: &str) -> Vec<String> {
        line.split(' ').map(String::from).collect()
    }

    #[test]
    fn codex_exec_is_told_from_its_subcommand_not_from_its_prompt() {
        for (line, exec) in [
            (
                "/opt/codex/bin/codex --no-daemon exec --skip-git-repo-check Please",
                true,
            ),
            ("codex e hello", true),
            ("codex -c model=o3 -m o3 exec hi", true),
            ("codex --config=x=1 exec hi", true),
            ("/opt/codex/bin/codex --no-daemon", false),
            ("codex resume exec", false),
            ("codex -- exec", false),
            ("codex -m exec", false),
            ("node /x/codex.js exec", false),
            ("/usr/bin/codexx exec", false),
        ] {
            assert_eq!(codex_exec(&args(line)), exec, "{line}");
        }
        assert!(!codex_exec(&[]));
    }

    #[test]
    fn claude_code_print_mode_is_its_entrypoint() {
        assert_eq!(
            Headless::detect(Some(" sdk-cli\n"), &[]),
            Some(Headless::ClaudeCodePrint)
        );
        for other in ["cli", "sdk-ts", "sdk-py", "claude-desktop", ""] {
            assert_eq!(Headless::detect(Some(other), &[]), None, "{other}");
        }
        assert_eq!(Headless::detect(None, &[]), None);
    }
}
