//! The protocol between a log's owner and its clients: length-framed requests and
//! responses, `MessagePack` with named fields (the encoding of the records on disk,
//! without the envelope: the socket is a local stream, not storage).
//!
//! A frame is `[length: u32, big-endian][payload]`, the payload at most
//! [`FRAME_CAP`] bytes. Every frame is hostile until decoded: a length past the cap,
//! a payload that does not decode, nesting past [`MAX_DEPTH`], or a response of the
//! wrong kind is a [`StoreError::BadMessage`], never a panic.

use std::borrow::Cow;
use std::io::{self, Read, Write};

use askuser_core::{AgentOrigin, Event, State};
use serde::{Deserialize, Serialize};

use askuser_store::{Durability, ForkPoint, Recorded, Seq, Snapshot, StreamInfo, Timestamp};
use askuser_store::{Leases, RecordKind, StoreError, StreamName};

/// The protocol's version: an owner and a client of different versions refuse each
/// other at the greeting.
pub(crate) const PROTOCOL: u32 = 1;

/// The revision of [`PROTOCOL`] this build speaks: requests added later, which an
/// owner announces in its greeting (an older owner announces none: revision 0).
/// Revision 1 added [`Request::WaitChanged`]; revision 2 the presence leases
/// ([`Request::RenewLease`], [`Request::EndLease`], [`Request::Leases`]); revision 3
/// the lease refusal [`WireError::BadLease`] (before, sent as an owner failure);
/// revision 4 [`Request::WaitForOthers`]; revision 5 [`Request::LeasesOn`]. A
/// client asks an owner only what its revision knows, so builds of one protocol
/// still work together.
pub(crate) const REVISION: u32 = 5;

/// The largest payload of one frame, in bytes. A read of many events is split into
/// several frames; one event or snapshot larger than this cannot cross the socket.
pub(crate) const FRAME_CAP: usize = 64 << 20;

/// The deepest nesting a frame may hold (JSON values inside events included).
const MAX_DEPTH: usize = 512;

/// A request from a client, one per [`Log`](askuser_store::Log) or backend operation.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) enum Request<'a> {
    /// The first frame of a connection.
    Hello {
        protocol: u32,
    },
    Append {
        stream: Cow<'a, str>,
        expected: Seq,
        events: Cow<'a, [Event]>,
        flush: bool,
    },
    Stream {
        stream: Cow<'a, str>,
    },
    Streams,
    Fork {
        parent: Cow<'a, str>,
        at: Seq,
        name: Cow<'a, str>,
    },
    Flush,
    /// Up to a chunk of `stream`'s own records from `from` to `to`.
    Scan {
        stream: Cow<'a, str>,
        from: Seq,
        to: Seq,
    },
    PutSnapshot {
        stream: Cow<'a, str>,
        seq: Seq,
        state: Cow<'a, State>,
    },
    GetSnapshot {
        stream: Cow<'a, str>,
        seq: Seq,
    },
    SnapshotSeqs {
        stream: Cow<'a, str>,
    },
    DropThrough {
        stream: Cow<'a, str>,
        seq: Seq,
    },

    LegacyOutputs {
        stream: Cow<'a, str>,
        seq: Seq,
    },
    /// Answered when the stream's head is past `past` or `millis` have passed.
    Wait {
        stream: Cow<'a, str>,
        past: Seq,
        millis: u64,
    },
    /// Added last, so that the earlier requests keep their encoding.
    Repack {
        stream: Cow<'a, str>,
    },
    /// Answered with [`Response::Version`] when the log's version is not `since`
    /// or `millis` have passed (revision 1).
    WaitChanged {
        since: u64,
        millis: u64,
    },
    /// Takes or renews `holder`'s presence lease on `stream` for `ttl_millis`
    /// on the owner's clock (revision 2); answered with [`Response::Done`].
    RenewLease {
        stream: Cow<'a, str>,
        holder: Cow<'a, str>,
        origin: Cow<'a, AgentOrigin>,
        ttl_millis: u64,
    },
    /// Ends `holder`'s lease on `stream` (revision 2); answered with
    /// [`Response::Done`].
    EndLease {
        stream: Cow<'a, str>,
        holder: Cow<'a, str>,
    },
    /// Every lease the owner keeps (revision 2); answered with
    /// [`Response::Leases`].
    Leases,
    /// Answered with [`Response::Head`] when a process other than the client
    /// appends to `stream`, or `millis` have passed; at once when its head is
    /// already past `past` (revision 4).
    WaitForOthers {
        stream: Cow<'a, str>,
        past: Seq,
        millis: u64,
    },
    /// The leases the owner keeps on `stream` (revision 5); answered with
    /// [`Response::Leases`].
    LeasesOn {
        stream: Cow<'a, str>,
    },
}

/// The owner's answer to one request.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) enum Response {
    Hello {
        protocol: u32,
        pid: u32,
        /// The owner's [`REVISION`]; an owner older than the field sends none (0),
        /// and an older client ignores it.
        #[serde(default)]
        revision: u32,
    },
    Head(Seq),
    Stream(Option<WireInfo>),
    Streams(Vec<WireInfo>),
    Info(WireInfo),
    Done,
    /// A chunk of a scan: its items, where the next chunk starts, and whether the
    /// scan is over.
    Records {
        items: Vec<Result<WireRecord, WireError>>,
        next: Seq,
        end: bool,
    },
    /// Boxed, so that a state (which grows with the engine's caches) does not
    /// make every answer as large; serde encodes a box as what it holds.
    Snapshot(Option<Box<WireSnapshot>>),
    Seqs(Vec<Seq>),
    Count(u64),
    Outputs(Option<Vec<serde_json::Value>>),
    Error(WireError),
    /// Added last, so that the earlier answers keep their encoding.
    Repacked {
        events: u64,
        values_before: u64,
        values_after: u64,
    },
    /// The log's version (revision 1).
    Version(u64),
    /// The owner's leases, with its clock's time (revision 2): at most
    /// [`MAX_LEASES`](askuser_store::presence::MAX_LEASES) of a few KiB each, well
    /// within a frame.
    Leases(Leases),
}

impl Response {
    /// The response's kind, for an error message.
    pub(crate) fn kind(&self) -> &'static str {
        match self {
            Self::Hello { .. } => "a greeting",
            Self::Head(_) => "a head",
            Self::Stream(_) => "a stream",
            Self::Streams(_) => "a list of streams",
            Self::Info(_) => "a new stream",
            Self::Done => "done",
            Self::Records { .. } => "records",
            Self::Snapshot(_) => "a snapshot",
            Self::Seqs(_) => "sequence numbers",
            Self::Count(_) => "a count",
            Self::Outputs(_) => "output lines",
            Self::Error(_) => "an error",
            Self::Repacked { .. } => "a repack's figures",
            Self::Version(_) => "a version",
            Self::Leases(_) => "presence leases",
        }
    }
}

/// A [`StreamInfo`] on the wire.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct WireInfo {
    name: String,
    head: Seq,
    parent: Option<ForkPoint>,
    created_at: Timestamp,
    floor: Seq,
}

impl From<StreamInfo> for WireInfo {
    fn from(info: StreamInfo) -> Self {
        Self {
            name: info.name,
            head: info.head,
            parent: info.parent,
            created_at: info.created_at,
            floor: info.floor,
        }
    }
}

impl From<WireInfo> for StreamInfo {
    fn from(info: WireInfo) -> Self {
        Self {
            name: info.name,
            head: info.head,
            parent: info.parent,
            created_at: info.created_at,
            floor: info.floor,
        }
    }
}

/// A [`Recorded`] event on the wire.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct WireRecord {
    pub(crate) seq: Seq,
    at: Timestamp,
    decided: bool,
    event: Event,
}

impl From<Recorded> for WireRecord {
    fn from(r: Recorded) -> Self {
        Self {
            seq: r.seq,
            at: r.at,
            decided: r.decided,
            event: r.event,
        }
    }
}

impl From<WireRecord> for Recorded {
    fn from(r: WireRecord) -> Self {
        Self {
            seq: r.seq,
            at: r.at,
            event: r.event,
            decided: r.decided,
        }
    }
}

/// A [`Snapshot`] on the wire.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct WireSnapshot {
    seq: Seq,
    taken_at: Timestamp,
    state: State,
    /// Absent from an owner of before format 2: it sent only snapshots it read
    /// whole, which then meant format 1.
    #[serde(default = "first_state_format")]
    state_format: u32,
}

fn first_state_format() -> u32 {
    1
}

impl From<Snapshot> for WireSnapshot {
    fn from(s: Snapshot) -> Self {
        Self {
            seq: s.seq,
            taken_at: s.taken_at,
            state: s.state,
            state_format: s.state_format,
        }
    }
}

impl From<WireSnapshot> for Snapshot {
    fn from(s: WireSnapshot) -> Self {
        Self {
            seq: s.seq,
            taken_at: s.taken_at,
            state: s.state,
            state_format: s.state_format,
        }
    }
}

/// A [`StoreError`] on the wire: the variants a client acts on keep their fields;
/// the owner's storage and I/O failures travel as text.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) enum WireError {
    Conflict {
        stream: String,
        expected: Seq,
        actual: Seq,
    },
    NoSuchStream(String),
    StreamExists(String),
    /// The reason travels as text (as it always has: the protocol's shape is
    /// kept); the client finds it again from the name, by the same rule.
    InvalidStreamName {
        name: String,
        reason: String,
    },
    OutOfRange {
        stream: String,
        seq: Seq,
        head: Seq,
    },
    Compacted {
        stream: String,
        floor: Seq,
    },
    ForkDependsOnEvents {
        stream: String,
        upto: Seq,
        fork: String,
        at: Seq,
    },
    Corrupt {
        kind: WireKind,
        stream: String,
        seq: Seq,
        detail: String,
    },
    Encode(String),
    BadMessage(String),
    Failed(String),
    /// A presence lease the owner would not keep (revision 3): the client is
    /// told it as [`StoreError::BadLease`], not as the owner failing. An
    /// older client cannot decode it and reports a malformed message.
    BadLease(String),
}

/// A [`RecordKind`] on the wire.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub(crate) enum WireKind {
    Event,
    Stream,
    Snapshot,
}

impl From<StoreError> for WireError {
    fn from(error: StoreError) -> Self {
        match error {
            StoreError::Conflict {
                stream,
                expected,
                actual,
            } => Self::Conflict {
                stream,
                expected,
                actual,
            },
            StoreError::NoSuchStream(name) => Self::NoSuchStream(name),
            StoreError::StreamExists(name) => Self::StreamExists(name),
            StoreError::InvalidStreamName { name, reason } => Self::InvalidStreamName {
                name,
                reason: reason.to_string(),
            },
            StoreError::OutOfRange { stream, seq, head } => Self::OutOfRange { stream, seq, head },
            StoreError::Compacted { stream, floor } => Self::Compacted { stream, floor },
            StoreError::ForkDependsOnEvents {
                stream,
                upto,
                fork,
                at,
            } => Self::ForkDependsOnEvents {
                stream,
                upto,
                fork,
                at,
            },
            StoreError::Corrupt {
                kind,
                stream,
                seq,
                detail,
            } => Self::Corrupt {
                kind: match kind {
                    RecordKind::Event => WireKind::Event,
                    RecordKind::Stream => WireKind::Stream,
                    RecordKind::Snapshot => WireKind::Snapshot,
                },
                stream,
                seq,
                detail,
            },
            StoreError::Encode(detail) => Self::Encode(detail),
            StoreError::BadMessage(detail) => Self::BadMessage(detail),
            StoreError::OwnerFailed(detail) => Self::Failed(detail),
            StoreError::BadLease(detail) => Self::BadLease(detail),
            other => Self::Failed(other.to_string()),
        }
    }
}

impl From<WireError> for StoreError {
    fn from(error: WireError) -> Self {
        match error {
            WireError::Conflict {
                stream,
                expected,
                actual,
            } => Self::Conflict {
                stream,
                expected,
                actual,
            },
            WireError::NoSuchStream(name) => Self::NoSuchStream(name),
            WireError::StreamExists(name) => Self::StreamExists(name),
            // The reason found again from the name by this process's rule, so the
            // text is its own; an owner that refused a name the rule takes is
            // answering something else (its words made safe to show).
            WireError::InvalidStreamName { name, reason } => match StreamName::check(&name) {
                Err(reason) => Self::InvalidStreamName { name, reason },
                Ok(()) => Self::BadMessage(format!(
                    "the owner refused the stream name {name:?}: {}",
                    askuser_core::text::for_display_line(&reason)
                )),
            },
            WireError::OutOfRange { stream, seq, head } => Self::OutOfRange { stream, seq, head },
            WireError::Compacted { stream, floor } => Self::Compacted { stream, floor },
            WireError::ForkDependsOnEvents {
                stream,
                upto,
                fork,
                at,
            } => Self::ForkDependsOnEvents {
                stream,
                upto,
                fork,
                at,
            },
            WireError::Corrupt {
                kind,
                stream,
                seq,
                detail,
            } => Self::Corrupt {
                kind: match kind {
                    WireKind::Event => RecordKind::Event,
                    WireKind::Stream => RecordKind::Stream,
                    WireKind::Snapshot => RecordKind::Snapshot,
                },
                stream,
                seq,
                detail,
            },
            WireError::Encode(detail) => Self::Encode(detail),
            WireError::BadMessage(detail) => Self::BadMessage(detail),
            WireError::Failed(detail) => Self::OwnerFailed(detail),
            WireError::BadLease(detail) => Self::BadLease(detail),
        }
    }
}

/// Whether an append is flushed before it is acknowledged.
pub(crate) fn is_flush(durability: Durability) -> bool {
    durability == Durability::Flush
}

/// Encodes a message as one frame's payload.
///
/// # Errors
/// [`StoreError::Encode`] if it does not encode, or is larger than [`FRAME_CAP`].
pub(crate) fn encode(message: &impl Serialize) -> Result<Vec<u8>, StoreError> {
    let mut out = Vec::new();
    rmp_serde::encode::write_named(&mut out, message)
        .map_err(|e| StoreError::Encode(e.to_string()))?;
    if out.len() > FRAME_CAP {
        return Err(StoreError::Encode(format!(
            "a message of {} bytes is larger than the log's socket carries ({FRAME_CAP} bytes)",
            out.len()
        )));
    }
    Ok(out)
}

/// Decodes a frame's payload.
///
/// # Errors
/// [`StoreError::BadMessage`], naming what was expected.
pub(crate) fn decode<T: for<'de> Deserialize<'de>>(
    payload: &[u8],
    what: &str,
) -> Result<T, StoreError> {
    let mut deserializer = rmp_serde::Deserializer::from_read_ref(payload);
    deserializer.set_max_depth(MAX_DEPTH);
    T::deserialize(&mut deserializer)
        .map_err(|e| StoreError::BadMessage(format!("{what} does not decode: {e}")))
}

/// Writes one frame.
///
/// # Errors
/// The writer's error.
pub(crate) fn write_frame(writer: &mut impl Write, payload: &[u8]) -> io::Result<()> {
    let length = u32::try_from(payload.len())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "frame too large"))?;
    let mut frame = Vec::with_capacity(4 + payload.len());
    frame.extend_from_slice(&length.to_be_bytes());
    frame.extend_from_slice(payload);
    writer.write_all(&frame)?;
    writer.flush()
}

/// What reading a frame gave.
#[derive(Debug)]
pub(crate) enum Frame {
    /// A whole frame's payload.
    Payload(Vec<u8>),
    /// The peer closed the connection between frames.
    Closed,
}

/// Reads one frame, refusing one longer than [`FRAME_CAP`] before reading it.
///
/// # Errors
/// An I/O error (a connection closed inside a frame is `UnexpectedEof`), or
/// `InvalidData` for a frame past the cap.
pub(crate) fn read_frame(reader: &mut impl Read) -> io::Result<Frame> {
    let Some(length) = read_length(reader)? else {
        return Ok(Frame::Closed);
    };
    let mut payload = Vec::with_capacity(length.min(64 << 10));
    reader
        .take(u64::try_from(length).unwrap_or(u64::MAX))
        .read_to_end(&mut payload)?;
    if payload.len() < length {
        return Err(io::ErrorKind::UnexpectedEof.into());
    }
    Ok(Frame::Payload(payload))
}

/// Reads a frame's length, refusing one past [`FRAME_CAP`]; `None` when the
/// peer closed the connection before it.
///
/// # Errors
/// As [`read_frame`].
pub(crate) fn read_length(reader: &mut impl Read) -> io::Result<Option<usize>> {
    let mut length = [0u8; 4];
    let mut filled = 0;
    while filled < length.len() {
        match reader.read(&mut length[filled..]) {
            Ok(0) if filled == 0 => return Ok(None),
            Ok(0) => return Err(io::ErrorKind::UnexpectedEof.into()),
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    let length = usize::try_from(u32::from_be_bytes(length)).unwrap_or(usize::MAX);
    if length > FRAME_CAP {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("a frame of {length} bytes is larger than the cap of {FRAME_CAP}"),
        ));
    }
    Ok(Some(length))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hostile_frames_are_errors_not_panics() {
        // A length past the cap is refused before anything is allocated for it.
        let mut huge = &u32::MAX.to_be_bytes()[..];
        assert_eq!(
            read_frame(&mut huge).unwrap_err().kind(),
            io::ErrorKind::InvalidData
        );
        // Torn length, torn payload, clean close.
        assert!(read_frame(&mut &[0u8, 0][..]).is_err());
        assert!(read_frame(&mut &[0u8, 0, 0, 9, 1, 2][..]).is_err());
        assert!(matches!(read_frame(&mut &[][..]), Ok(Frame::Closed)));
        // Garbage and deep nesting decode to typed errors.
        let deep = vec![0x91u8; 100_000];
        for payload in [&[0xc1u8][..], &[0x92, 0x01][..], &deep[..]] {
            assert!(matches!(
                decode::<Request<'_>>(payload, "a request"),
                Err(StoreError::BadMessage(_))
            ));
        }
    }

    proptest::proptest! {
        /// Any bytes at all: a typed error or a value, never a panic.
        #[test]
        fn random_payloads_never_panic(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..512)) {
            let _ = decode::<Request<'_>>(&bytes, "a request");
            let _ = decode::<Response>(&bytes, "an answer");
            let mut framed = &bytes[..];
            let _ = read_frame(&mut framed);
        }

        /// A valid request with bytes flipped: never a panic.
        #[test]
        fn damaged_requests_never_panic(index in 0usize..4096, flip in 1u8..=255) {
            let events: Vec<Event> = askuser_testkit::scripted_events(1, 4).collect();
            let mut bytes = encode(&Request::Append {
                stream: "s".into(),
                expected: 0,
                events: Cow::Owned(events),
                flush: true,
            }).unwrap();
            let at = index % bytes.len();
            bytes[at] ^= flip;
            let _ = decode::<Request<'_>>(&bytes, "a request");
        }
    }

    /// The greeting of an owner before revisions decodes as revision 0, and a
    /// client before revisions reads today's greeting.
    #[test]
    fn greetings_of_other_revisions_decode() {
        #[derive(Serialize, Deserialize)]
        enum OldResponse {
            Hello { protocol: u32, pid: u32 },
        }
        let old = encode(&OldResponse::Hello {
            protocol: PROTOCOL,
            pid: 7,
        })
        .unwrap();
        let Response::Hello {
            protocol,
            pid,
            revision,
        } = decode(&old, "a greeting").unwrap()
        else {
            panic!("not a greeting");
        };
        assert_eq!((protocol, pid, revision), (PROTOCOL, 7, 0));
        let new = encode(&Response::Hello {
            protocol: PROTOCOL,
            pid: 8,
            revision: REVISION,
        })
        .unwrap();
        let OldResponse::Hello { protocol, pid } = decode(&new, "a greeting").unwrap();
        assert_eq!((protocol, pid), (PROTOCOL, 8));
        // The earlier requests keep their encoding: a `Repack` is still the
        // request it was.
        let repack = encode(&Request::Repack { stream: "s".into() }).unwrap();
        assert!(matches!(
            decode(&repack, "a request").unwrap(),
            Request::Repack { stream } if stream == "s"
        ));
    }

    #[test]
    fn requests_and_errors_round_trip() {
        let events = [askuser_testkit::build::back("q")];
        let request = Request::Append {
            stream: "s".into(),
            expected: 3,
            events: Cow::Borrowed(&events),
            flush: true,
        };
        let bytes = encode(&request).unwrap();
        let Request::Append { events: read, .. } = decode(&bytes, "a request").unwrap() else {
            panic!("not an append");
        };
        assert_eq!(&read[..], &events);
        let conflict = StoreError::from(WireError::from(StoreError::Conflict {
            stream: "s".into(),
            expected: 1,
            actual: 2,
        }));
        assert_eq!(
            conflict.to_string(),
            "stream \"s\": expected head 1, but the head is 2"
        );
        let name = StoreError::from(WireError::InvalidStreamName {
            name: String::new(),
            reason: "it is empty".into(),
        });
        assert_eq!(
            name.to_string(),
            "invalid stream name \"\": it is empty; a stream name is 1 to 200 bytes of plain text, such as \"session-1\""
        );
        // An owner that refuses a name the rule takes is not believed about it.
        let lying = StoreError::from(WireError::InvalidStreamName {
            name: "s".into(),
            reason: "no\u{1b}]2;pwned\u{7}".into(),
        });
        assert!(matches!(&lying, StoreError::BadMessage(_)), "{lying:?}");
        assert!(
            lying.to_string().contains("no\\u{1b}]2;pwned\\u{7}"),
            "{lying}"
        );
    }
}
