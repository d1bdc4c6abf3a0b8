//! Where an asking process runs: the facts of an [`AgentOrigin`], read here (the
//! core reads no host name, directory or environment) and made plain text that
//! fits, so the engine records it.

use std::path::Path;

use askuser_core::AgentOrigin;
use askuser_core::limits::MAX_ORIGIN_FIELD_BYTES;
use askuser_core::text::for_display_line;

/// This process's origin: `host` (an MCP client's name and version, the dialect,
/// or `--agent NAME`), `label` (the agent's label), the machine's host name, the
/// working directory and the name of the repository it is in. Each field is made
/// one line of plain text that fits (see [`plain`]); one that cannot be read is
/// left out.
pub fn here(host: Option<&str>, label: Option<&str>) -> AgentOrigin {
    let directory = std::env::current_dir().ok();
    AgentOrigin {
        label: label.and_then(plain),
        host: host.and_then(plain),
        machine: machine_name().as_deref().and_then(plain),
        directory: (directory.as_deref()).and_then(|d| plain(&d.to_string_lossy())),
        repository: (directory.as_deref())
            .and_then(repository_of)
            .as_deref()
            .and_then(plain),
    }
}

/// The variables agent hosts set in the environment of the commands their
/// agents run, each with the host's name (the list Claude Code itself reads to
/// tell agents apart).
pub const HOST_MARKERS: [(&str, &str); 6] = [
    ("CLAUDECODE", "Claude Code"),
    ("GEMINI_CLI", "Gemini CLI"),
    ("CODEX_THREAD_ID", "Codex"),
    ("CODEX_SANDBOX", "Codex"),
    ("COPILOT_CLI", "GitHub Copilot CLI"),
    ("CURSOR_AGENT", "Cursor"),
];

/// The agent host this process was started by, told by the variable it sets
/// in its tools' environment (`CLAUDECODE=1`: `Claude Code`), `var` reading
/// one; `None` when no known host's variable is set (a person at a shell, or
/// a host that sets none). A set variable that is empty or `0` does not count.
///
/// ```
/// use askuser_app::origin::host_from_environment;
/// let env = |name: &str| (name == "GEMINI_CLI").then(|| "1".to_owned());
/// assert_eq!(host_from_environment(env), Some("Gemini CLI"));
/// assert_eq!(host_from_environment(|_| None), None);
/// ```
pub fn host_from_environment(var: impl Fn(&str) -> Option<String>) -> Option<&'static str> {
    HOST_MARKERS.iter().find_map(|&(name, host)| {
        var(name)
            .filter(|value| !value.trim().is_empty() && value.trim() != "0")
            .map(|_| host)
    })
}

/// The name of the repository `dir` is in: the name of the nearest directory,
/// `dir` or one above it, that holds `.git` (a directory, or a worktree's file).
pub fn repository_of(dir: &Path) -> Option<String> {
    dir.ancestors()
        .find(|ancestor| ancestor.join(".git").exists())
        .and_then(Path::file_name)
        .map(|name| name.to_string_lossy().into_owned())
}

/// The machine's name: `ASKUSER_MACHINE` when set (a container's host name is
/// often a random id: name the machine as its people know it), else the host
/// name as the kernel has it (`None` where it cannot be read).
pub fn machine_name() -> Option<String> {
    std::env::var("ASKUSER_MACHINE")
        .ok()
        .or_else(|| {
            ["/proc/sys/kernel/hostname", "/etc/hostname"]
                .iter()
                .find_map(|file| std::fs::read_to_string(file).ok())
        })
        .or_else(|| std::env::var("HOSTNAME").ok())
        .map(|name| name.trim().to_owned())
        .filter(|name| !name.is_empty())
}

/// `text` as one line of plain text the engine records: every control, bidi-control
/// or invisible character written as a visible escape, and cut (at a character's
/// end, with `…`) to fit [`MAX_ORIGIN_FIELD_BYTES`]; `None` when blank.
pub fn plain(text: &str) -> Option<String> {
    let text = for_display_line(text.trim());
    if text.is_empty() {
        return None;
    }
    // A backslash or quote counts twice as JSON: leave room for the worst case.
    let budget = (MAX_ORIGIN_FIELD_BYTES - 2) / 2;
    if text.len() <= budget {
        return Some(text.into_owned());
    }
    let mut end = budget - '…'.len_utf8();
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    Some(format!("{}…", &text[..end]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hostile_text_is_made_plain_and_cut_to_fit() {
        assert_eq!(plain("  "), None);
        assert_eq!(
            plain("billing\u{202e}api").as_deref(),
            Some("billing\\u{202e}api")
        );
        let long = plain(&"é".repeat(400)).unwrap();
        assert_eq!(long.len(), 255);
        assert!(long.ends_with('…'));
        let origin = AgentOrigin {
            directory: Some(long),
            host: plain("\u{1b}[2J\"\\\\"),
            ..AgentOrigin::default()
        };
        assert_eq!(origin.check(), Ok(()));
    }

    #[test]
    fn the_repository_is_the_nearest_directory_holding_git() {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path().join("billing-api");
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        std::fs::create_dir_all(repo.join("web/src")).unwrap();
        assert_eq!(
            repository_of(&repo.join("web/src")).as_deref(),
            Some("billing-api")
        );
        assert_eq!(repository_of(&repo).as_deref(), Some("billing-api"));
        assert_eq!(repository_of(dir.path()), None);
    }
}
