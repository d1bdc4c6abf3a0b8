//! `docs/protocol.md`'s example session is what askuser really sends: its `>` lines
//! are fed to a server, and the `<` lines must be exactly the lines it answers with.

use askuser_rpc::{Desk, Server, replay};

const DOC: &str = include_str!("../../docs/protocol.md");

#[test]
fn the_example_session_in_the_protocol_document_is_exact() {
    let start = DOC
        .find("## An example session")
        .expect("the document has an example session");
    let block = &DOC[start..];
    let block = &block[block.find("```text\n").expect("a text block") + 8..];
    let block = &block[..block.find("```").expect("the block ends")];

    let mut server = Server::new(Desk::memory(), "session-1").unwrap();
    let mut got: Vec<String> = server
        .greeting()
        .into_iter()
        .map(|line| format!("< {line}"))
        .collect();
    for line in block.lines().filter_map(|l| l.strip_prefix("> ")) {
        got.push(format!("> {line}"));
        got.extend(
            server
                .handle_line(line)
                .into_iter()
                .map(|out| format!("< {out}")),
        );
    }
    let expected: Vec<&str> = block.lines().collect();
    assert_eq!(got, expected);

    let journal = server.desk();
    let report = replay(&**journal.log(), "session-1").unwrap();
    let last = report.to_text();
    assert_eq!(
        last.lines().last(),
        Some(
            "replayed: the 12 events re-derive their lines from the log alone (this log records events, not the lines sent)"
        )
    );
    assert!(DOC.contains(
        "```text\nreplayed: the 12 events re-derive their lines from the log alone (this log records events, not the lines sent)\n```"
    ));
}
