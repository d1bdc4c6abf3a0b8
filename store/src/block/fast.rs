//! A direct decoder for the most common stored event, an answer: three of every
//! four events of a form's walk. `rmp_serde` matches each field name through
//! serde's visitors and checks each string twice; this reads the `MessagePack`
//! bytes once. It only accepts what it is sure of (the exact shape `rmp_serde`
//! writes for [`Event::Answered`], integers but no floats, string keys) and
//! otherwise says `None`, and the caller decodes with `rmp_serde` as before, so
//! a record reads the same either way (`tests::fast_and_serde_agree`).

use askuser_core::{AnsweredBy, Event, InquiryId};
use serde_json::{Map, Number, Value};

/// How deep an answer's JSON may nest before the fast path leaves it to `rmp_serde`.
const MAX_DEPTH: usize = 32;

/// The answer stored in `bytes`, if it is one in the exact shape this reads. Its
/// inquiry id is `last`'s when they are the same text (the events of an inquiry
/// share one), and becomes `last`.
pub(super) fn answered(bytes: &[u8], last: &mut Option<InquiryId>) -> Option<Event> {
    let mut reader = Reader { bytes, pos: 0 };
    if reader.map_len()? != 1 || reader.raw_str()? != b"answered" {
        return None;
    }
    let mut inquiry = None;
    let mut question = None;
    let mut value = None;
    let mut by = None;
    let mut remember = None;
    let mut note = None;
    for _ in 0..reader.map_len()? {
        // Names are compared as bytes: only the values need checking as UTF-8.
        match reader.raw_str()? {
            b"inquiry" => set(&mut inquiry, shared_id(reader.str()?, last))?,
            b"question" => set(&mut question, reader.str()?.to_owned())?,
            b"value" => set(&mut value, reader.value(0)?)?,
            b"by" => set(&mut by, answered_by(reader.raw_str()?)?)?,
            b"remember" => set(&mut remember, reader.bool()?)?,
            b"note" => {
                let text = if reader.nil() {
                    None
                } else {
                    Some(reader.str()?.to_owned())
                };
                set(&mut note, text)?;
            }
            _ => return None,
        }
    }
    (reader.pos == bytes.len()).then_some(())?;
    Some(Event::Answered {
        inquiry: inquiry?,
        question: question?,
        value: value?,
        by: by.unwrap_or_default(),
        remember: remember.unwrap_or(false),
        note: note.flatten(),
    })
}

/// The id `text`: `last` again when it is the same text, else a new one (kept as
/// `last`).
fn shared_id(text: &str, last: &mut Option<InquiryId>) -> InquiryId {
    match last {
        Some(id) if id.as_str() == text => id.clone(),
        _ => last.insert(InquiryId::new(text)).clone(),
    }
}

/// Sets a field once: a field given twice is left to `rmp_serde` (which refuses it).
fn set<T>(slot: &mut Option<T>, value: T) -> Option<()> {
    if slot.is_some() {
        return None;
    }
    *slot = Some(value);
    Some(())
}

fn answered_by(name: &[u8]) -> Option<AnsweredBy> {
    Some(match name {
        b"user" => AnsweredBy::User,
        b"assistant" => AnsweredBy::Assistant,
        b"config" => AnsweredBy::Config,
        b"cache" => AnsweredBy::Cache,
        b"timeout" => AnsweredBy::Timeout,
        _ => return None,
    })
}

/// A cursor over `MessagePack` bytes.
struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn byte(&mut self) -> Option<u8> {
        let byte = *self.bytes.get(self.pos)?;
        self.pos += 1;
        Some(byte)
    }

    fn take(&mut self, len: usize) -> Option<&'a [u8]> {
        let end = self.pos.checked_add(len)?;
        let slice = self.bytes.get(self.pos..end)?;
        self.pos = end;
        Some(slice)
    }

    /// A big-endian unsigned number of `size` bytes.
    fn be(&mut self, size: usize) -> Option<u64> {
        Some(
            self.take(size)?
                .iter()
                .fold(0, |acc, byte| (acc << 8) | u64::from(*byte)),
        )
    }

    fn len(&mut self, size: usize) -> Option<usize> {
        usize::try_from(self.be(size)?).ok()
    }

    fn map_len(&mut self) -> Option<usize> {
        match self.byte()? {
            marker @ 0x80..=0x8f => Some(usize::from(marker & 0x0f)),
            0xde => self.len(2),
            0xdf => self.len(4),
            _ => None,
        }
    }

    /// The bytes of a string whose marker was just read, not yet checked as UTF-8.
    fn raw_str_after(&mut self, marker: u8) -> Option<&'a [u8]> {
        let len = match marker {
            0xa0..=0xbf => usize::from(marker & 0x1f),
            0xd9 => self.len(1)?,
            0xda => self.len(2)?,
            0xdb => self.len(4)?,
            _ => return None,
        };
        self.take(len)
    }

    fn raw_str(&mut self) -> Option<&'a [u8]> {
        let marker = self.byte()?;
        self.raw_str_after(marker)
    }

    fn str_after(&mut self, marker: u8) -> Option<&'a str> {
        std::str::from_utf8(self.raw_str_after(marker)?).ok()
    }

    fn str(&mut self) -> Option<&'a str> {
        let marker = self.byte()?;
        self.str_after(marker)
    }

    /// Reads a nil if one is next.
    fn nil(&mut self) -> bool {
        let nil = self.bytes.get(self.pos) == Some(&0xc0);
        if nil {
            self.pos += 1;
        }
        nil
    }

    fn bool(&mut self) -> Option<bool> {
        match self.byte()? {
            0xc2 => Some(false),
            0xc3 => Some(true),
            _ => None,
        }
    }

    /// A JSON value: nil, booleans, integers, strings, arrays and maps with string
    /// keys (anything else, floats among them, is left to `rmp_serde`).
    fn value(&mut self, depth: usize) -> Option<Value> {
        if depth > MAX_DEPTH {
            return None;
        }
        let marker = self.byte()?;
        Some(match marker {
            0xc0 => Value::Null,
            0xc2 => Value::Bool(false),
            0xc3 => Value::Bool(true),
            0x00..=0x7f => Value::Number(Number::from(marker)),
            0xe0..=0xff => Value::Number(Number::from(i64::from(marker.cast_signed()))),
            0xcc..=0xcf => Value::Number(Number::from(self.be(1 << (marker - 0xcc))?)),
            0xd0..=0xd3 => Value::Number(self.signed(1 << (marker - 0xd0))?),
            0xa0..=0xbf | 0xd9..=0xdb => Value::String(self.str_after(marker)?.to_owned()),
            0x90..=0x9f | 0xdc | 0xdd => {
                let len = match marker {
                    0xdc => self.len(2)?,
                    0xdd => self.len(4)?,
                    _ => usize::from(marker & 0x0f),
                };
                // Each item takes at least a byte: a length past the end is a lie.
                let mut items = Vec::with_capacity(len.min(self.bytes.len() - self.pos));
                for _ in 0..len {
                    items.push(self.value(depth + 1)?);
                }
                Value::Array(items)
            }
            0x80..=0x8f | 0xde | 0xdf => {
                self.pos -= 1;
                let len = self.map_len()?;
                let mut map = Map::new();
                for _ in 0..len {
                    let key = self.str()?.to_owned();
                    let item = self.value(depth + 1)?;
                    map.insert(key, item);
                }
                Value::Object(map)
            }
            _ => return None,
        })
    }

    /// A signed number of `size` bytes, as `serde_json` keeps it.
    fn signed(&mut self, size: usize) -> Option<Number> {
        let raw = self.be(size)?;
        let bits = u32::try_from(size * 8).ok()?;
        let shift = 64 - bits;
        let value = (raw << shift).cast_signed() >> shift;
        Some(match u64::try_from(value) {
            Ok(positive) => Number::from(positive),
            Err(_) => Number::from(value),
        })
    }
}

#[cfg(test)]
mod tests;
