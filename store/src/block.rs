//! For log backends: blocks, the third format of stored events.
//!
//! The third format: the events of one append stored together, a few kilobytes per
//! sled value (a *block*), under the key of the block's first event.
//!
//! A block is an envelope like every other record (`[version 3][crc32][payload]`,
//! the checksum over key, version and payload). Its payload is a codec byte and the
//! body: `0` and the body as it is, or `1`, the body's length (varint) and the body
//! compressed with LZ4 (its block format; a body is compressed when that makes it
//! smaller). The body:
//!
//! ```text
//! count: varint                      how many events the block holds (at least 1)
//! at: varint                         the first event's timestamp, milliseconds
//! then per event:
//!   at delta: zigzag varint          from the previous event's timestamp
//!   kind: u8                         0 event, 1 request defining its form, 2 request
//!                                    reusing a form defined earlier in the block
//!   kind 0: len: varint, the event   (MessagePack, named fields, as `Event`)
//!   kind 1: len: varint, the form;   (MessagePack, named fields, as `Form`)
//!           len: varint, the rest    (the request without its form)
//!   kind 2: form: varint (the index of the form among those the block defines),
//!           len: varint, the rest
//! ```
//!
//! Storing a form once per block and referring to it from the requests that repeat
//! it keeps blocks small and lets a reader decode it once (the requests share it).
//! The event at index `i` of a block keyed `first` has sequence number `first + i`.

use std::sync::Arc;

use askuser_core::{Event, Form, InquiryId, Origin, Policy, Request, ToolCall};
use serde::{Deserialize, Serialize};

use crate::codec::{HEADER, check_envelope, checksum, seq_key};
use crate::error::{Result, StoreError};
use crate::types::{Recorded, Seq, Timestamp};

/// The envelope version of a block.
pub const BLOCK_VERSION: u8 = 3;

/// A block is closed once its body would grow past this many bytes (an event larger
/// than this gets a block of its own). Compressed, a full block is a few kilobytes:
/// sled 0.34 keeps up to 16 values in a page and writes a page of more than about
/// 128 KiB as a file of its own, so pages stay inline while each page load reads
/// hundreds of events.
pub const BLOCK_TARGET: usize = 16 * 1024;

/// A body shorter than this is stored as it is.
const COMPRESS_MIN: usize = 128;

/// The largest decompressed body a block is believed to have (32 MiB), and so
/// the most memory reading one block's value takes for its body. A block closes
/// once it passes [`BLOCK_TARGET`], so its body is at most that plus one event,
/// and the largest event the engine records (a request with a form of
/// `askuser_core::limits::MAX_FORM_BYTES`, or a result of
/// `askuser_core::limits::MAX_QUESTIONS` answers of
/// `askuser_core::limits::MAX_ANSWER_BYTES`, with its call) stays under 8 MiB.
pub const MAX_BLOCK_BODY: usize = 32 << 20;

const CODEC_NONE: u8 = 0;
const CODEC_LZ4: u8 = 1;

/// At most this many events per block (so that a damaged block loses a bounded
/// number of events).
pub const BLOCK_MAX_EVENTS: u64 = 256;

/// How many of an append's latest distinct forms a new request's form is compared
/// with (by identity, then by bytes) to store it once.
const FORMS_COMPARED: usize = 16;

const KIND_EVENT: u8 = 0;
const KIND_FORM: u8 = 1;
const KIND_FORM_REF: u8 = 2;

/// A request without its form, as a block stores it (borrowing, to encode). The
/// attributes are `Request`'s own.
#[derive(Serialize)]
struct RequestRestRef<'a> {
    inquiry: &'a InquiryId,
    policy: &'a Policy,
    origin: &'a Origin,
    #[serde(skip_serializing_if = "Option::is_none")]
    call: &'a Option<ToolCall>,
}

/// A request without its form (owned, decoded).
#[derive(Deserialize)]
struct RequestRest {
    inquiry: InquiryId,
    #[serde(default)]
    policy: Policy,
    #[serde(default)]
    origin: Origin,
    #[serde(default)]
    call: Option<ToolCall>,
}

fn encode_named(out: &mut Vec<u8>, value: &impl Serialize) -> Result<()> {
    rmp_serde::encode::write_named(out, value).map_err(|e| StoreError::Encode(e.to_string()))
}

/// One event, encoded, before it is placed in a block.
struct Encoded {
    at: u64,
    /// For a request: which of the append's distinct forms it carries.
    form: Option<usize>,
    /// The event (kind 0) or the request's rest (kinds 1 and 2).
    bytes: Vec<u8>,
}

/// The blocks of one append (or of a rewritten tail): encodes events one by one and
/// closes a block when it is full.
pub struct BlockWriter<'s> {
    stream: &'s str,
    /// The append's distinct forms (by identity), encoded once each.
    forms: Vec<(Arc<Form>, Vec<u8>)>,
    /// Finished blocks: key and value.
    done: Vec<(Vec<u8>, Vec<u8>)>,
    current: Current,
}

/// The block being filled.
struct Current {
    first: Seq,
    count: u64,
    first_at: u64,
    last_at: u64,
    body: Vec<u8>,
    /// Which of the append's forms the block defines, in order.
    defined: Vec<usize>,
}

impl Current {
    fn new(first: Seq) -> Self {
        Self {
            first,
            count: 0,
            first_at: 0,
            last_at: 0,
            body: Vec::with_capacity(BLOCK_TARGET + 512),
            defined: Vec::new(),
        }
    }
}

impl<'s> BlockWriter<'s> {
    /// A writer for `stream`'s events from sequence number `first`.
    pub fn new(stream: &'s str, first: Seq) -> Self {
        Self {
            stream,
            forms: Vec::new(),
            done: Vec::new(),
            current: Current::new(first),
        }
    }

    /// Adds the next event, appended at `at`.
    ///
    /// # Errors
    ///
    /// What is wrong with the block (a torn or damaged envelope, a body that does not decode), or an event that does not encode.
    pub fn push(&mut self, at: Timestamp, event: &Event) -> Result<()> {
        let encoded = self.encode(at.0, event)?;
        let form_len = encoded
            .form
            .filter(|form| !self.current.defined.contains(form))
            .map_or(0, |form| self.forms[form].1.len());
        let size = encoded.bytes.len() + form_len + 24;
        let current = &self.current;
        if current.count > 0
            && (current.body.len() + size > BLOCK_TARGET || current.count >= BLOCK_MAX_EVENTS)
        {
            self.close();
        }
        self.place(&encoded);
        Ok(())
    }

    /// The finished blocks, as (key, value) pairs in sequence order.
    pub fn finish(mut self) -> Vec<(Vec<u8>, Vec<u8>)> {
        if self.current.count > 0 {
            self.close();
        }
        self.done
    }

    fn encode(&mut self, at: u64, event: &Event) -> Result<Encoded> {
        let mut bytes = Vec::new();
        let Event::Requested(request) = event else {
            encode_named(&mut bytes, event)?;
            return Ok(Encoded {
                at,
                form: None,
                bytes,
            });
        };
        // Every field but the form, named exactly as `Request` names them (a new
        // field of `Request` fails to compile here).
        let Request {
            inquiry,
            form,
            policy,
            origin,
            call,
        } = request;
        encode_named(
            &mut bytes,
            &RequestRestRef {
                inquiry,
                policy,
                origin,
                call,
            },
        )?;
        let recent = self.forms.len().saturating_sub(FORMS_COMPARED);
        let same = |(f, _): &(Arc<Form>, Vec<u8>)| Arc::ptr_eq(f, form);
        let index = if let Some(index) = self.forms[recent..].iter().position(same) {
            recent + index
        } else {
            let mut encoded = Vec::new();
            encode_named(&mut encoded, &**form)?;
            // The same form under another `Arc` (decoded separately) is the same
            // bytes: store it once too.
            if let Some(index) = self.forms[recent..].iter().position(|(_, b)| *b == encoded) {
                recent + index
            } else {
                self.forms.push((Arc::clone(form), encoded));
                self.forms.len() - 1
            }
        };
        Ok(Encoded {
            at,
            form: Some(index),
            bytes,
        })
    }

    fn place(&mut self, encoded: &Encoded) {
        let current = &mut self.current;
        if current.count == 0 {
            current.first_at = encoded.at;
            current.last_at = encoded.at;
        }
        let delta = encoded
            .at
            .cast_signed()
            .wrapping_sub(current.last_at.cast_signed());
        put_varint(&mut current.body, zigzag(delta));
        current.last_at = encoded.at;
        match encoded.form {
            None => current.body.push(KIND_EVENT),
            Some(form) => {
                if let Some(index) = current.defined.iter().position(|&d| d == form) {
                    current.body.push(KIND_FORM_REF);
                    put_varint(&mut current.body, index as u64);
                } else {
                    current.body.push(KIND_FORM);
                    let bytes = &self.forms[form].1;
                    put_varint(&mut current.body, bytes.len() as u64);
                    current.body.extend_from_slice(bytes);
                    current.defined.push(form);
                }
            }
        }
        put_varint(&mut current.body, encoded.bytes.len() as u64);
        current.body.extend_from_slice(&encoded.bytes);
        current.count += 1;
    }

    fn close(&mut self) {
        let next = self.current.first + self.current.count;
        let block = std::mem::replace(&mut self.current, Current::new(next));
        let key = seq_key(self.stream, block.first);
        let mut body = Vec::with_capacity(20 + block.body.len());
        put_varint(&mut body, block.count);
        put_varint(&mut body, block.first_at);
        body.extend_from_slice(&block.body);
        let mut value = Vec::with_capacity(HEADER + 1 + body.len());
        value.extend_from_slice(&[BLOCK_VERSION, 0, 0, 0, 0]);
        let compressed = (body.len() >= COMPRESS_MIN)
            .then(|| lz4_flex::block::compress(&body))
            .filter(|compressed| compressed.len() + 10 < body.len());
        if let Some(compressed) = compressed {
            value.push(CODEC_LZ4);
            put_varint(&mut value, body.len() as u64);
            value.extend_from_slice(&compressed);
        } else {
            value.push(CODEC_NONE);
            value.extend_from_slice(&body);
        }
        let crc = checksum(&key, BLOCK_VERSION, &value[HEADER..]);
        value[1..HEADER].copy_from_slice(&crc.to_be_bytes());
        self.done.push((key, value));
    }
}

/// Encodes `events` as the blocks of one append from sequence number `first`, all
/// stamped `at`.
///
/// # Errors
///
/// What is wrong with the block (a torn or damaged envelope, a body that does not decode), or an event that does not encode.
pub fn encode_append(
    stream: &str,
    first: Seq,
    at: Timestamp,
    events: &[Event],
) -> Result<Vec<(Vec<u8>, Vec<u8>)>> {
    let mut writer = BlockWriter::new(stream, first);
    for event in events {
        writer.push(at, event)?;
    }
    Ok(writer.finish())
}

/// A form a block defines: where its bytes are, and once decoded, the form.
enum FormSlot {
    Raw(usize, usize),
    Decoded(Arc<Form>),
}

/// A block's body: in the stored value (`B` is sled's `IVec`, or a slice), from an
/// offset, or decompressed.
enum Body<B> {
    Stored(B, usize),
    Decompressed(Vec<u8>),
}

impl<B: AsRef<[u8]>> Body<B> {
    fn bytes(&self) -> &[u8] {
        match self {
            Body::Stored(value, start) => &value.as_ref()[*start..],
            Body::Decompressed(body) => body,
        }
    }
}

/// Reads the events of one block, decoding each as it is asked for.
pub struct BlockReader<B> {
    body: Body<B>,
    /// The next event's position in `bytes`.
    pos: usize,
    /// The next event's sequence number.
    seq: Seq,
    /// One past the last event's sequence number.
    end: Seq,
    at: u64,
    forms: Vec<FormSlot>,
    /// The inquiry id of the last event decoded: the events of one inquiry share it
    /// (one allocation for a request and its answers, not one each).
    last_inquiry: Option<InquiryId>,
    /// Set when the block's structure is broken at `pos`: every event left is lost.
    broken: Option<String>,
}

/// One event's place in a block, parsed but not decoded.
#[derive(Clone, Copy)]
enum Parsed {
    Event(usize, usize),
    Request { form: usize, rest: (usize, usize) },
}

impl<B: AsRef<[u8]>> BlockReader<B> {
    /// Checks the block stored under `key` (its envelope, version and checksum) and
    /// reads its header. On a problem, the reason (the caller names the events).
    ///
    /// # Errors
    ///
    /// What is wrong with the block (a torn or damaged envelope, a body that does not decode), or an event that does not encode.
    pub fn open(key: &[u8], first: Seq, value: B) -> Result<Self, String> {
        let version = check_envelope(key, value.as_ref())?;
        if version != BLOCK_VERSION {
            return Err(format!(
                "a record of format {version} where a block (format {BLOCK_VERSION}) was expected"
            ));
        }
        let body = Self::body(value)?;
        let mut pos = 0;
        let header = (|| {
            let count = get_varint(body.bytes(), &mut pos)?;
            let at = get_varint(body.bytes(), &mut pos)?;
            Some((count, at))
        })();
        let Some((count, at)) = header else {
            return Err("the block's header is cut short".to_owned());
        };
        if count == 0 || count > BLOCK_MAX_EVENTS {
            return Err(format!("the block claims {count} events"));
        }
        let end = first
            .checked_add(count)
            .ok_or_else(|| "the block's sequence numbers overflow".to_owned())?;
        Ok(Self {
            body,
            pos,
            seq: first,
            end,
            at,
            forms: Vec::new(),
            last_inquiry: None,
            broken: None,
        })
    }

    /// The body of a checked block value, decompressed if it was compressed.
    fn body(value: B) -> Result<Body<B>, String> {
        let payload = &value.as_ref()[HEADER..];
        match payload.first() {
            Some(&CODEC_NONE) => Ok(Body::Stored(value, HEADER + 1)),
            Some(&CODEC_LZ4) => {
                let mut pos = 1;
                let len = get_varint(payload, &mut pos)
                    .and_then(|len| usize::try_from(len).ok())
                    .ok_or_else(|| "the block's length is malformed".to_owned())?;
                let compressed = &payload[pos..];
                // LZ4 expands at most 255 times: a larger claim is not believed.
                if len > compressed.len().saturating_mul(255).saturating_add(64) {
                    return Err(format!(
                        "the block claims {len} bytes from {} compressed",
                        compressed.len()
                    ));
                }
                // Nor one no block of this store holds: the claim is checked
                // before the body is allocated, so a hostile value (a valid
                // checksum over a small stream of zeros, say) costs at most this.
                if len > MAX_BLOCK_BODY {
                    return Err(format!(
                        "the block claims {len} bytes, more than a block holds ({MAX_BLOCK_BODY})"
                    ));
                }
                let mut body = vec![0; len];
                match lz4_flex::block::decompress_into(compressed, &mut body) {
                    Ok(written) if written == len => Ok(Body::Decompressed(body)),
                    Ok(written) => Err(format!(
                        "the block decompresses to {written} bytes, not {len}"
                    )),
                    Err(e) => Err(format!("the block does not decompress: {e}")),
                }
            }
            Some(other) => Err(format!("unknown block encoding {other}")),
            None => Err("the block is empty".to_owned()),
        }
    }

    /// The sequence number of the block's last event.
    pub fn last(&self) -> Seq {
        self.end - 1
    }

    /// The next event's sequence number.
    pub fn next_seq(&self) -> Seq {
        self.seq
    }

    /// Skips the events before `seq` without decoding them.
    pub fn skip_to(&mut self, seq: Seq) {
        while self.seq < seq.min(self.end) {
            if self.broken.is_some() {
                self.seq = seq.min(self.end);
                return;
            }
            if let Err(detail) = self.parse() {
                self.broken = Some(detail);
            }
            self.seq += 1;
        }
    }

    /// The next event, or `None` after the last. A problem is reported for the event
    /// it concerns; after a problem with the block's structure, for every event left.
    pub fn next_event(&mut self) -> Option<(Seq, Result<Recorded, String>)> {
        if self.seq >= self.end {
            return None;
        }
        let seq = self.seq;
        self.seq += 1;
        if let Some(detail) = &self.broken {
            return Some((seq, Err(detail.clone())));
        }
        let event = match self.parse() {
            Ok(parsed) => self.decode(parsed),
            Err(detail) => {
                self.broken = Some(detail.clone());
                Err(detail)
            }
        };
        let at = self.at;
        Some((
            seq,
            event.map(|event| Recorded {
                seq,
                at: Timestamp(at),
                event,
                decided: true,
            }),
        ))
    }

    /// [`BlockReader::next_event`], the record handed to `visit` where it is
    /// built rather than returned (a record is a few hundred bytes; a replay
    /// of a million events spent a twentieth of its time moving them). Its
    /// own body, not `next_event`'s through a helper: sharing one slowed
    /// `next_event`, which the raw scan reads with.
    pub fn visit_next<R>(
        &mut self,
        visit: impl FnOnce(Seq, Result<&Recorded, String>) -> R,
    ) -> Option<R> {
        if self.seq >= self.end {
            return None;
        }
        let seq = self.seq;
        self.seq += 1;
        if let Some(detail) = &self.broken {
            return Some(visit(seq, Err(detail.clone())));
        }
        let event = match self.parse() {
            Ok(parsed) => self.decode(parsed),
            Err(detail) => {
                self.broken = Some(detail.clone());
                Err(detail)
            }
        };
        Some(match event {
            Ok(event) => visit(
                seq,
                Ok(&Recorded {
                    seq,
                    at: Timestamp(self.at),
                    event,
                    decided: true,
                }),
            ),
            Err(detail) => visit(seq, Err(detail)),
        })
    }

    /// Parses the next event's place (and timestamp), without decoding it.
    fn parse(&mut self) -> Result<Parsed, String> {
        let bytes = self.body.bytes();
        let mut pos = self.pos;
        let cut = || "the block is cut short or malformed".to_owned();
        let delta = unzigzag(get_varint(bytes, &mut pos).ok_or_else(cut)?);
        let at = self
            .at
            .checked_add_signed(delta)
            .ok_or_else(|| "a timestamp out of range".to_owned())?;
        let kind = *bytes.get(pos).ok_or_else(cut)?;
        pos += 1;
        let parsed = match kind {
            KIND_EVENT => {
                let (start, end) = get_slice(bytes, &mut pos).ok_or_else(cut)?;
                Parsed::Event(start, end)
            }
            KIND_FORM => {
                let (start, end) = get_slice(bytes, &mut pos).ok_or_else(cut)?;
                self.forms.push(FormSlot::Raw(start, end));
                let rest = get_slice(bytes, &mut pos).ok_or_else(cut)?;
                Parsed::Request {
                    form: self.forms.len() - 1,
                    rest,
                }
            }
            KIND_FORM_REF => {
                let form = usize::try_from(get_varint(bytes, &mut pos).ok_or_else(cut)?)
                    .ok()
                    .filter(|&form| form < self.forms.len())
                    .ok_or_else(|| {
                        "a request refers to a form the block does not hold".to_owned()
                    })?;
                let rest = get_slice(bytes, &mut pos).ok_or_else(cut)?;
                Parsed::Request { form, rest }
            }
            other => return Err(format!("unknown event kind {other} in the block")),
        };
        self.pos = pos;
        self.at = at;
        Ok(parsed)
    }

    fn decode(&mut self, parsed: Parsed) -> Result<Event, String> {
        let undecodable = |e: rmp_serde::decode::Error| format!("the payload does not decode: {e}");
        match parsed {
            Parsed::Event(start, end) => {
                let bytes = &self.body.bytes()[start..end];
                match fast::answered(bytes, &mut self.last_inquiry) {
                    Some(event) => Ok(event),
                    None => rmp_serde::from_slice(bytes).map_err(undecodable),
                }
            }
            Parsed::Request { form, rest } => {
                let rest: RequestRest = rmp_serde::from_slice(&self.body.bytes()[rest.0..rest.1])
                    .map_err(undecodable)?;
                let form = match &self.forms[form] {
                    FormSlot::Decoded(decoded) => Arc::clone(decoded),
                    &FormSlot::Raw(start, end) => {
                        let decoded: Arc<Form> = Arc::new(
                            rmp_serde::from_slice(&self.body.bytes()[start..end])
                                .map_err(|e| format!("the request's form does not decode: {e}"))?,
                        );
                        self.forms[form] = FormSlot::Decoded(Arc::clone(&decoded));
                        decoded
                    }
                };
                Ok(Event::Requested(Request {
                    inquiry: {
                        self.last_inquiry = Some(rest.inquiry.clone());
                        rest.inquiry
                    },
                    form,
                    policy: rest.policy,
                    origin: rest.origin,
                    call: rest.call,
                }))
            }
        }
    }
}

/// The events of a block from `from` on, as blocks of their own; `None` if one of
/// them cannot be read.
pub fn rewrite_tail(
    stream: &str,
    reader: &mut BlockReader<impl AsRef<[u8]>>,
    from: Seq,
) -> Option<Vec<(Vec<u8>, Vec<u8>)>> {
    reader.skip_to(from);
    let mut writer = BlockWriter::new(stream, from);
    while let Some((_, event)) = reader.next_event() {
        let recorded = event.ok()?;
        writer.push(recorded.at, &recorded.event).ok()?;
    }
    Some(writer.finish())
}

mod fast;
#[cfg(test)]
mod tests;
mod varint;

use varint::{get_slice, get_varint, put_varint, unzigzag, zigzag};
