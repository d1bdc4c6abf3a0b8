//! Every shell example of the README, of `docs/*.md` and of the store crate's docs
//! runs as written: each `askuser` command is run (with the `askuser` built for
//! the tests on `PATH`, in the repository, its standard input empty), and must not
//! fail as "askuser could not run" (exit 1: a usage error, a missing file, a log
//! that cannot be opened). A server that is still serving after 5 seconds
//! (`askuser web`) passes. An `npm install` must name the package and version
//! `scripts/test-env` installs. `openssl` lines (a certificate to serve HTTPS with)
//! run before the commands after them. The other commands are too long to run here (a
//! release build, the whole test suite), so what they name is checked instead: a
//! script exists and is executable, a `cargo -p` package and a `--path` crate exist.
//!
//! Two placeholders are replaced: the example PostgreSQL URL by the test server's
//! (`ASKUSER_TEST_PG`), and `/tmp/` by a scratch directory.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const PLACEHOLDER_URLS: [&str; 2] = [
    "postgres://askuser:PASSWORD@db.example/askuser",
    "postgres://askuser:change-me@db.internal:5432/askuser",
];

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The shell blocks (fenced as sh, bash or shell) of a Markdown text, each as its command lines: line
/// continuations joined, comments after the command dropped.
fn shell_blocks(markdown: &str) -> Vec<Vec<String>> {
    let mut blocks = Vec::new();
    let mut current: Option<Vec<String>> = None;
    for line in markdown.lines() {
        let trimmed = line.trim();
        match (&mut current, trimmed) {
            (None, "```sh" | "```bash" | "```shell") => current = Some(Vec::new()),
            (Some(_), "```") => blocks.push(current.take().unwrap_or_default()),
            (Some(block), text) if !text.is_empty() && !text.starts_with('#') => {
                match block.last_mut() {
                    Some(last) if last.ends_with('\\') => {
                        last.pop();
                        last.push_str(text);
                    }
                    _ => block.push(text.to_owned()),
                }
            }
            _ => {}
        }
    }
    blocks
        .into_iter()
        .map(|b| b.into_iter().flat_map(|l| commands_of(&l)).collect())
        .collect()
}

/// The command of a line, and the other one its comment offers (`cmd  # or: cmd2`).
fn commands_of(line: &str) -> Vec<String> {
    let command = without_comment(line);
    let comment = line[command.len()..]
        .trim_start()
        .trim_start_matches('#')
        .trim();
    match comment.strip_prefix("or:") {
        Some(other) => vec![command, other.trim().to_owned()],
        None => vec![command],
    }
}

/// The line without a trailing `  # comment` (outside quotes).
fn without_comment(line: &str) -> String {
    let (mut single, mut double) = (false, false);
    let mut previous = ' ';
    for (i, c) in line.char_indices() {
        match c {
            '\'' if !double => single = !single,
            '"' if !single => double = !double,
            '#' if !single && !double && previous.is_whitespace() => {
                return line[..i].trim_end().to_owned();
            }
            _ => {}
        }
        previous = c;
    }
    line.to_owned()
}

/// The doc comments (`//!`) of a Rust file as Markdown.
fn crate_docs(rust: &str) -> String {
    rust.lines()
        .filter_map(|l| l.trim_start().strip_prefix("//!"))
        .map(|l| l.strip_prefix(' ').unwrap_or(l))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every documented example, by where it is.
fn examples() -> Vec<(String, Vec<String>)> {
    let root = repository();
    let mut sources = vec![("README.md".to_owned(), read(&root.join("README.md")))];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    for doc in docs {
        let name = format!("docs/{}", doc.file_name().unwrap().to_string_lossy());
        sources.push((name, read(&doc)));
    }
    sources.push((
        "store/src/lib.rs".to_owned(),
        crate_docs(&read(&root.join("store/src/lib.rs"))),
    ));
    sources
        .into_iter()
        .flat_map(|(name, text)| {
            shell_blocks(&text)
                .into_iter()
                .map(move |block| (name.clone(), block))
        })
        .collect()
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Checks what a command that is not run names; `Err` says what is wrong.
fn check_named(line: &str) -> Result<(), String> {
    let root = repository();
    let words: Vec<&str> = line.split_whitespace().collect();
    let script = words
        .iter()
        .find_map(|w| Some(&w[w.find("scripts/").or_else(|| w.find("fuzz/"))?..]));
    if let Some(script) = script {
        let path = root.join(script);
        let mode = std::fs::metadata(&path)
            .map_err(|e| format!("{script}: {e}"))?
            .permissions();
        return if std::os::unix::fs::PermissionsExt::mode(&mode) & 0o111 == 0 {
            Err(format!("{script} is not executable"))
        } else {
            Ok(())
        };
    }
    if words.first() == Some(&"npm") {
        // A package the test set-up installs: the same one, at the same version.
        let package = words.last().copied().unwrap_or_default();
        let setup = std::fs::read_to_string(root.join("scripts/test-env")).unwrap_or_default();
        return if package.contains('@') && setup.contains(package) {
            Ok(())
        } else {
            Err(format!("{package} is not what scripts/test-env installs"))
        };
    }
    if words.first() != Some(&"cargo") {
        return Err("neither askuser, cargo, npm nor a script: the test cannot check it".into());
    }
    for pair in words.windows(2) {
        match pair[0] {
            "-p" => {
                let manifest = read(&root.join("Cargo.toml"));
                let members: Vec<String> = manifest
                    .lines()
                    .filter_map(|l| {
                        l.trim()
                            .strip_prefix('"')?
                            .strip_suffix("\",")
                            .map(str::to_owned)
                    })
                    .collect();
                let found = members.iter().any(|m| {
                    read(&root.join(m).join("Cargo.toml"))
                        .contains(&format!("name = \"{}\"", pair[1]))
                });
                if !found {
                    return Err(format!("no package {} in the workspace", pair[1]));
                }
            }
            "--path" if !root.join(pair[1]).join("Cargo.toml").is_file() => {
                return Err(format!("no crate at {}", pair[1]));
            }
            _ => {}
        }
    }
    Ok(())
}

#[test]
fn every_shell_example_runs_as_written() {
    let scratch = tempfile::tempdir().unwrap();
    let bin_dir = Path::new(common::BIN).parent().unwrap().to_owned();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let tmp = format!("{}/", scratch.path().display());
    let mut problems = Vec::new();
    let mut ran = 0;
    for (source, block) in examples() {
        let mut script = String::from("set -e\n");
        for line in &block {
            let first = line.split_whitespace().next().unwrap_or_default();
            let runs = first == "askuser"
                || first == "openssl"
                || (first == "export" && !line.contains("$("));
            if !runs {
                if let Err(problem) = check_named(line) {
                    problems.push(format!("{source}: `{line}`: {problem}"));
                }
                continue;
            }
            let mut line = line.replace("/tmp/", &tmp);
            if PLACEHOLDER_URLS.iter().any(|u| line.contains(u)) {
                let url = std::env::var("ASKUSER_TEST_PG").expect(
                    "ASKUSER_TEST_PG is not set: run the tests with scripts/test, or export ASKUSER_TEST_PG=\"$(scripts/postgres.sh | tail -n 1)\"",
                );
                for placeholder in PLACEHOLDER_URLS {
                    line = line.replace(placeholder, &url);
                }
            }
            script.push_str(&line);
            script.push('\n');
            if first == "askuser" {
                ran += 1;
                // Each askuser command alone, after the exports before it.
                let run = Command::new("timeout")
                    .args(["-k", "2", "5", "bash", "-c"])
                    .arg(&script)
                    .current_dir(repository())
                    .env("PATH", &path)
                    .env("HOME", scratch.path())
                    .env("XDG_DATA_HOME", scratch.path())
                    .stdin(Stdio::null())
                    .output()
                    .unwrap();
                // 124: `timeout` stopped a server that was still serving.
                if run.status.code() == Some(1) || run.status.code().is_none() {
                    problems.push(format!(
                        "{source}: `{line}` failed ({}): {}",
                        run.status,
                        String::from_utf8_lossy(&run.stderr).trim_end()
                    ));
                }
                script.truncate(script.len() - line.len() - 1);
            }
        }
    }
    assert_eq!(problems, Vec::<String>::new());
    assert!(ran >= 3, "only {ran} askuser commands were found");
}

#[test]
fn a_wrong_example_is_caught() {
    let blocks = shell_blocks(
        "text\n```sh\nexport A='x'   # a comment\naskuser --db \"$A\" \\\n  serve\n```\n",
    );
    assert_eq!(
        blocks,
        [[
            "export A='x'".to_owned(),
            "askuser --db \"$A\" serve".to_owned()
        ]]
    );
    assert_eq!(
        commands_of("askuser serve   # or: askuser --db \"$ASKUSER_DB\" serve"),
        ["askuser serve", "askuser --db \"$ASKUSER_DB\" serve"]
    );
    assert_eq!(
        check_named("cargo install --path adapters/nowhere --locked"),
        Err("no crate at adapters/nowhere".to_owned())
    );
    assert_eq!(
        check_named("cargo test -p askuser-nothing"),
        Err("no package askuser-nothing in the workspace".to_owned())
    );
    assert_eq!(check_named("scripts/test"), Ok(()));
    assert_eq!(
        check_named("export X=\"$(scripts/nothing.sh | tail -n 1)\""),
        Err("scripts/nothing.sh: No such file or directory (os error 2)".to_owned())
    );
    assert_eq!(
        check_named("cargo install --path adapters/cli --locked"),
        Ok(())
    );
}
