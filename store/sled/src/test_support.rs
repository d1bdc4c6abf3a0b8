//! For this crate's test programs only (feature `test-support`, off by default;
//! not an API).

/// The frame the owner of a shared sled log answers a greeting with, from process
/// `pid`: for a test that plays a hung owner (one that greets a connection, then
/// answers nothing on it, and greets no other).
///
/// # Panics
///
/// Never: the greeting is a small constant message.
#[cfg(unix)]
pub fn owner_greeting_frame(pid: u32) -> Vec<u8> {
    use crate::shared::wire::{PROTOCOL, REVISION, Response, encode, write_frame};
    let payload = encode(&Response::Hello {
        protocol: PROTOCOL,
        pid,
        revision: REVISION,
    })
    .expect("a greeting encodes");
    let mut frame = Vec::new();
    write_frame(&mut frame, &payload).expect("writing to a vector");
    frame
}
