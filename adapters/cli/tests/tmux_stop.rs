//! A person stops `askuser ask` (Ctrl-Z) while another process needs the log
//! (issue 28, item 3): the form's process hands the log over before it stops,
//! so `askuser serve` goes on without ending it, and `fg` carries the form on.
//! A real terminal: tmux on a private socket running an interactive shell (job
//! control: Ctrl-Z, `fg`), polling the screen (never sleeping a fixed time).

mod common;

use std::process::Command;
use std::time::{Duration, Instant};

use common::tmux::{TIMEOUT, Tmux};
use common::{BIN, Scratch};

/// A tmux server on a private socket running `bash` with job control in
/// `scratch`, with `$EDITOR` set to `editor`.
fn shell(name: &str, scratch: &Scratch, editor: &str) -> Tmux {
    let command = format!(
        "cd '{}' && env HOME=. PS1='$ ' EDITOR='{editor}' VISUAL= bash --norc --noprofile -i",
        scratch.dir.path().display()
    );
    Tmux::shell(name, scratch, &command)
}

/// Types `text` and Enter.
fn line(shell: &Tmux, text: &str) {
    shell.text(text);
    shell.keys(&["Enter"]);
}

/// Writes the editor (asks for a line, writes it as the answer), the form and
/// the job (`ask`, then its exit status written by a shell that waits through
/// the stop, as the person's shell would); returns the editor's path.
fn write_job(scratch: &Scratch) -> String {
    let form = scratch.path("form.json");
    std::fs::write(
        &form,
        r#"{"questions": [{"id": "why", "text": "Why ship today?", "answer_type": "text"}]}"#,
    )
    .unwrap();
    let editor = scratch.path("editor.sh");
    std::fs::write(
        &editor,
        "#!/bin/sh\necho 'editor: your answer?'\nread -r line\nprintf '%s\\n' \"$line\" > \"$1\"\n",
    )
    .unwrap();
    let editor = editor.display().to_string();
    let job = scratch.path("ask.sh");
    std::fs::write(
        &job,
        format!(
            "#!/bin/sh\n'{BIN}' ask --db '{}' --stream s '{}' > out\necho $? > code.tmp && mv code.tmp code\n",
            scratch.db(),
            form.display()
        ),
    )
    .unwrap();
    for script in [&editor, &job.display().to_string()] {
        assert!(
            Command::new("chmod")
                .arg("+x")
                .arg(script)
                .status()
                .unwrap()
                .success()
        );
    }
    editor
}

/// Waits until the `askuser ask` process on the log of `scratch` is stopped
/// (state `T` in `/proc/PID/stat`).
fn ask_stopped(scratch: &Scratch) {
    let db = scratch.db();
    let start = Instant::now();
    loop {
        let stopped = std::fs::read_dir("/proc").unwrap().flatten().any(|entry| {
            let path = entry.path();
            let cmdline = std::fs::read(path.join("cmdline")).unwrap_or_default();
            let args: Vec<&[u8]> = cmdline.split(|b| *b == 0).collect();
            let ours = args.get(1) == Some(&&b"ask"[..]) && args.contains(&db.as_bytes());
            let process = std::fs::read_to_string(path.join("stat")).unwrap_or_default();
            let state = process
                .rsplit_once(") ")
                .map(|(_, rest)| rest.starts_with('T'));
            ours && state == Some(true)
        });
        if stopped {
            return;
        }
        assert!(start.elapsed() < TIMEOUT, "askuser ask never stopped");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// `askuser serve` records an inquiry on another stream of the same log while
/// the form is stopped, and exits cleanly.
fn serve_appends(scratch: &Scratch) {
    let ask = r#"{"type": "ask", "inquiry": "t1", "interactive": false, "arguments": {"questions": [{"id": "q", "text": "Deploy?", "answer_type": "text"}]}}"#;
    let served = scratch.run_db(&["serve", "--stream", "t"], &format!("{ask}\n"));
    assert_eq!((served.code, served.stderr.as_str()), (0, ""));
}

/// The answer shown at the form's prompt is sent with Enter: the job ends 0
/// with it as the result, and the log holds both the form's answer and what
/// `serve` recorded meanwhile.
fn the_form_answers(shell: &Tmux, scratch: &Scratch) {
    let answered = shell.wait_for("> the fix is small");
    assert!(
        answered.ends_with(
            "? Assistant asks: Why ship today?\n\
             > the fix is small\n\
             [Enter sends · Alt+Enter new line · Ctrl+U/W/A/E edit · Alt+N note · Esc for Reply / End Turn]"
        ),
        "{answered}"
    );
    shell.keys(&["Enter"]);
    let code = scratch.path("code");
    let start = Instant::now();
    while !code.exists() {
        assert!(start.elapsed() < TIMEOUT, "{}", shell.screen());
        std::thread::sleep(Duration::from_millis(40));
    }
    assert_eq!(
        (
            std::fs::read_to_string(code).unwrap(),
            std::fs::read_to_string(scratch.path("out")).unwrap()
        ),
        (
            "0\n".to_owned(),
            "{\"why\":\"the fix is small\"}\n".to_owned()
        )
    );
    let listed = scratch.run_db(&["log", "list"], "");
    assert_eq!(
        (listed.code, scratch.redact(&listed.stdout)),
        (
            0,
            "s  4 events, created just now; answered\nt  3 events, created just now; failed\n"
                .to_owned()
        )
    );
}

/// Ctrl-Z while `askuser ask` waits on the person's editor (which, reading the
/// terminal, is stopped with it, as vim stops its process group), then `askuser
/// serve` appends to the same log, then `fg`: nothing was ended, and the
/// answer typed in the editor is the form's result. (The stopped form used to
/// own the log, and `serve` ended it after a second: `fg` found the job gone.)
#[test]
fn ctrl_z_in_ask_while_serve_appends_ends_nothing_and_fg_carries_the_form_on() {
    let scratch = Scratch::new();
    let editor = write_job(&scratch);
    let shell = shell("stop", &scratch, &editor);
    shell.wait_for("$");
    line(&shell, "./ask.sh");
    shell.wait_for("Why ship today?");
    shell.keys(&["Escape"]);
    shell.wait_for("e) Edit the answer in");
    shell.keys(&["e", "Enter"]);
    shell.wait_for("editor: your answer?");
    shell.keys(&["C-z"]);
    shell.wait_for("Stopped");
    // The shell says "Stopped" once the job's own shell stops, while the form's
    // process may still be handing the log over; it stops once it has.
    ask_stopped(&scratch);
    serve_appends(&scratch);
    line(&shell, "fg");
    line(&shell, "the fix is small");
    the_form_answers(&shell, &scratch);
}

/// Ctrl-Z at the form's own prompt (raw mode: the key reaches askuser, not
/// the terminal) stops the job as it would any program, handing the log over
/// first; `serve` appends meanwhile; `fg` draws the form again and it
/// answers. (The key used to do nothing.)
#[test]
fn ctrl_z_at_the_prompt_stops_the_form_and_fg_draws_it_again() {
    let scratch = Scratch::new();
    let editor = write_job(&scratch);
    let shell = shell("stop-prompt", &scratch, &editor);
    shell.wait_for("$");
    line(&shell, "./ask.sh");
    shell.wait_for("Why ship today?");
    shell.keys(&["C-z"]);
    let stopped = shell.wait_for("Stopped");
    assert!(
        stopped.ends_with("Stopped                 ./ask.sh\n$"),
        "{stopped}"
    );
    serve_appends(&scratch);
    line(&shell, "fg");
    shell.wait_until("the job continued", |screen| {
        screen.contains("$ fg\n./ask.sh\n")
    });
    shell.text("the fix is small");
    the_form_answers(&shell, &scratch);
}
