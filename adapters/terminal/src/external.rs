//! Editing a typed answer in the person's own editor (`$VISUAL` / `$EDITOR`):
//! the answer goes into a new temporary file (created exclusively, removed
//! afterwards), the editor runs on it with the terminal handed over, and the file
//! is read back, bounded.

use std::io::{Read, Write};
use std::process::{Command, Stdio};

use crate::error::TerminalError;
use crate::screen::Screen;

/// The most bytes read back from the edited file.
pub(crate) const MAX_EDITED_BYTES: u64 = 1 << 20;

/// The controlling terminal, three times: the editor's standard input, output
/// and error.
fn terminal_streams() -> std::io::Result<[Stdio; 3]> {
    let open = || {
        std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open("/dev/tty")
    };
    Ok([open()?.into(), open()?.into(), open()?.into()])
}

/// Runs `command` on a file holding `text`; the edited text (without the final
/// new line an editor adds), or why not, in words for the person.
///
/// # Errors
/// When the terminal cannot be handed over and taken back.
pub(crate) fn edit(
    screen: &mut Screen,
    command: &str,
    text: &str,
    json: bool,
) -> Result<Result<String, String>, TerminalError> {
    let file = tempfile::Builder::new()
        .prefix("askuser-answer-")
        .suffix(if json { ".json" } else { ".txt" })
        .tempfile();
    let mut file = match file {
        Ok(file) => file,
        Err(error) => return Ok(Err(format!("could not create a file to edit: {error}"))),
    };
    if let Err(error) = file.write_all(text.as_bytes()).and_then(|()| file.flush()) {
        return Ok(Err(format!("could not write the file to edit: {error}")));
    }
    let path = file.path().to_owned();
    // The editor gets the terminal itself: never this process's standard output
    // (the agent's pipe, where the tool result goes) or its standard input (the
    // call, perhaps).
    let terminal = match terminal_streams() {
        Ok(streams) => streams,
        Err(error) => {
            return Ok(Err(format!(
                "could not open the terminal (/dev/tty) for the editor: {error}"
            )));
        }
    };
    let status = screen.suspended(|| {
        let [stdin, stdout, stderr] = terminal;
        Command::new("sh")
            .arg("-c")
            .arg(format!("{command} \"$1\""))
            .arg("sh")
            .arg(&path)
            .stdin(stdin)
            .stdout(stdout)
            .stderr(stderr)
            .status()
    })?;
    match status {
        Ok(status) if status.success() => {}
        Ok(status) => return Ok(Err(format!("the editor `{command}` failed ({status})"))),
        Err(error) => {
            return Ok(Err(format!(
                "the editor `{command}` did not start: {error}"
            )));
        }
    }
    let mut edited = String::new();
    let read = std::fs::File::open(&path)
        .and_then(|f| f.take(MAX_EDITED_BYTES + 1).read_to_string(&mut edited));
    Ok(match read {
        Err(error) => Err(format!("could not read the edited file back: {error}")),
        Ok(_) if edited.len() as u64 > MAX_EDITED_BYTES => Err(format!(
            "the edited answer is over {MAX_EDITED_BYTES} bytes; it was not taken"
        )),
        Ok(_) => {
            if edited.ends_with('\n') {
                edited.pop();
                if edited.ends_with('\r') {
                    edited.pop();
                }
            }
            Ok(edited)
        }
    })
}
