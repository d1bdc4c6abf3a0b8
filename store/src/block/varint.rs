//! The varints of a block: lengths, deltas of times and sequence numbers.
//!
//! Each is `#[inline]`: a block reader calls `get_slice` and `get_varint` several
//! times an event, and once they moved to this module `decode_event_value` (the
//! benchmarks' raw-scan baseline) called `get_slice` out of line: 23 more
//! instructions an event.

/// Appends `value` as a varint (7 bits a byte, low first).
#[inline]
pub(super) fn put_varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push(u8::try_from(value & 0x7f).unwrap_or(0) | 0x80);
        value >>= 7;
    }
    out.push(u8::try_from(value).unwrap_or(0));
}

/// A signed delta as an unsigned varint value.
#[inline]
pub(super) fn zigzag(delta: i64) -> u64 {
    ((delta << 1) ^ (delta >> 63)).cast_unsigned()
}

/// The signed delta of a [`zigzag`] value.
#[inline]
pub(super) fn unzigzag(value: u64) -> i64 {
    (value >> 1).cast_signed() ^ -((value & 1).cast_signed())
}

/// Reads one varint at `*pos`, advancing it.
#[inline]
pub(super) fn get_varint(bytes: &[u8], pos: &mut usize) -> Option<u64> {
    let mut value = 0u64;
    for shift in (0..64).step_by(7) {
        let byte = *bytes.get(*pos)?;
        *pos += 1;
        value |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return Some(value);
        }
    }
    None
}

/// Reads a length-prefixed slice at `*pos`: its range.
#[inline]
pub(super) fn get_slice(bytes: &[u8], pos: &mut usize) -> Option<(usize, usize)> {
    let len = usize::try_from(get_varint(bytes, pos)?).ok()?;
    let start = *pos;
    let end = start.checked_add(len).filter(|&end| end <= bytes.len())?;
    *pos = end;
    Some((start, end))
}
