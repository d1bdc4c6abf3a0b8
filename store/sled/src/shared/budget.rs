//! What the owner's socket may cost it: the bytes of requests it buffers, across
//! every connection, and how long a connection may send nothing.
//!
//! A frame's declared length is reserved from one budget shared by all
//! connections before any of its bytes are buffered; a frame that does not fit
//! is refused (an error frame, then the connection is closed), so clients that
//! start large frames and never finish them cost the owner at most
//! [`FRAME_BUDGET`], not 64 MiB each. Small frames (every request but a large
//! append or snapshot) are not counted: there are at most
//! [`MAX_CONNECTIONS`](super::owner::MAX_CONNECTIONS) of them at a time, of
//! [`SMALL_FRAME`] bytes each.

use std::io::{self, Read};
use std::os::unix::net::UnixStream;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use super::wire::{FRAME_CAP, read_length};

/// The most bytes of frames larger than [`SMALL_FRAME`] buffered at once, across
/// every connection: two frames of the largest size.
pub(super) const FRAME_BUDGET: usize = 2 * FRAME_CAP;

/// Frames up to this size are read without reserving from the budget.
pub(super) const SMALL_FRAME: usize = 64 << 10;

/// How long a frame may take to arrive, once its length is read.
const FRAME_PATIENCE: Duration = Duration::from_secs(30);

/// The bytes of frames buffered, shared by the connections of one owner.
#[derive(Debug, Default)]
pub(super) struct Budget {
    used: Mutex<usize>,
}

/// Bytes reserved from a [`Budget`], given back when dropped.
#[derive(Debug)]
pub(super) struct Reservation {
    budget: Option<Arc<Budget>>,
    bytes: usize,
}

impl Drop for Reservation {
    fn drop(&mut self) {
        if let Some(budget) = &self.budget {
            let mut used = budget.used.lock().unwrap_or_else(PoisonError::into_inner);
            *used = used.saturating_sub(self.bytes);
        }
    }
}

/// What reading the next frame of a connection gave.
#[derive(Debug)]
pub(super) enum Next {
    /// A frame, and the bytes it holds of the budget until dropped.
    Frame(Vec<u8>, Reservation),
    /// The client closed the connection, or sent nothing for `idle`: close it.
    Closed,
    /// The frame does not fit in the budget now: say so, and close.
    OverBudget(String),
}

/// Reads the next frame from `reader`, its length reserved from `budget`
/// first; a connection that sends nothing for `idle` between frames is
/// closed, and a frame must arrive within [`FRAME_PATIENCE`].
///
/// # Errors
/// A broken or hostile frame (past the cap, cut short, too slow).
pub(super) fn next_frame(
    reader: &mut io::BufReader<UnixStream>,
    budget: &Arc<Budget>,
    idle: Duration,
) -> io::Result<Next> {
    reader.get_ref().set_read_timeout(Some(idle))?;
    let length = match read_length(reader) {
        Ok(Some(length)) => length,
        Ok(None) => return Ok(Next::Closed),
        Err(error)
            if matches!(
                error.kind(),
                io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
            ) =>
        {
            return Ok(Next::Closed);
        }
        Err(error) => return Err(error),
    };
    let reservation = if length <= SMALL_FRAME {
        Reservation {
            budget: None,
            bytes: 0,
        }
    } else {
        let mut used = budget.used.lock().unwrap_or_else(PoisonError::into_inner);
        if *used + length > FRAME_BUDGET {
            return Ok(Next::OverBudget(format!(
                "the log's owner is holding {} MiB of other requests, the most it takes ({} MiB), so this one of {length} bytes was refused: try again",
                mib(*used),
                mib(FRAME_BUDGET)
            )));
        }
        *used += length;
        Reservation {
            budget: Some(Arc::clone(budget)),
            bytes: length,
        }
    };
    let payload = read_within(reader, length, FRAME_PATIENCE)?;
    Ok(Next::Frame(payload, reservation))
}

/// `bytes` in whole MiB, rounded up.
fn mib(bytes: usize) -> usize {
    bytes.div_ceil(1 << 20)
}

/// Reads `length` bytes within `patience`.
fn read_within(
    reader: &mut io::BufReader<UnixStream>,
    length: usize,
    patience: Duration,
) -> io::Result<Vec<u8>> {
    let deadline = Instant::now() + patience;
    let mut payload = Vec::with_capacity(length);
    let mut chunk = vec![0u8; (64 << 10).min(length.max(1))];
    while payload.len() < length {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(io::Error::new(
                io::ErrorKind::TimedOut,
                format!(
                    "a frame of {length} bytes did not arrive within {} s",
                    patience.as_secs()
                ),
            ));
        }
        reader.get_ref().set_read_timeout(Some(left))?;
        let want = chunk.len().min(length - payload.len());
        match reader.read(&mut chunk[..want]) {
            Ok(0) => return Err(io::ErrorKind::UnexpectedEof.into()),
            Ok(n) => payload.extend_from_slice(&chunk[..n]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) if matches!(e.kind(), io::ErrorKind::WouldBlock) => {}
            Err(e) => return Err(e),
        }
    }
    Ok(payload)
}

const _: () = assert!(SMALL_FRAME < FRAME_CAP && FRAME_CAP <= FRAME_BUDGET);
