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

/// Records this process as the owner serving the log's socket `socket` on
/// `listener` (the record a client checks before it ends a stopped or hung
/// owner): for a test that plays an owner.
///
/// # Errors
///
/// When the record cannot be written.
#[cfg(unix)]
pub fn write_owner_record(
    socket: &std::path::Path,
    listener: &std::os::unix::net::UnixListener,
) -> std::io::Result<()> {
    crate::shared::record::write(socket, listener)
}

/// The largest payload of a frame on the log's socket.
#[cfg(unix)]
pub const FRAME_CAP: usize = crate::shared::wire::FRAME_CAP;

/// The text of the error a frame's payload holds, if it is the owner's error.
#[cfg(unix)]
pub fn error_of_frame(payload: &[u8]) -> Option<String> {
    use crate::shared::wire::{Response, WireError, decode};
    match decode::<Response>(payload, "an answer").ok()? {
        Response::Error(WireError::Failed(why) | WireError::BadMessage(why)) => Some(why),
        _ => None,
    }
}
