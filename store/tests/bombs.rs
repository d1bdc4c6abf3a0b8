//! Decompression bombs: a block value whose checksum is right (anyone who can
//! write the database, or a hostile PostgreSQL row, can make one) but whose
//! LZ4 body claims, or really expands to, far more than a block holds. Reading
//! it allocates at most [`MAX_BLOCK_BODY`] for the body, whatever it claims,
//! measured by a global allocator that counts every byte this test binary
//! allocates (this file has one test, so nothing else allocates meanwhile):
//! the bytes allocated while a value is read bound the most it held at once.

use askuser_store::StoreError;
use askuser_store::block::{BLOCK_VERSION, MAX_BLOCK_BODY};
use askuser_store::codec::{checksum, decode_event_value, seq_key};
use proptest::prelude::*;
use stats_alloc::{INSTRUMENTED_SYSTEM, Region, StatsAlloc};

#[global_allocator]
static GLOBAL: &StatsAlloc<std::alloc::System> = &INSTRUMENTED_SYSTEM;

/// At least the most bytes held at once while `f` ran, beyond those held before
/// it: every byte it allocated, and what reallocations grew by.
fn peak_during(f: impl FnOnce()) -> usize {
    let region = Region::new(GLOBAL);
    f();
    let change = region.change();
    change.bytes_allocated + change.bytes_reallocated.max(0).unsigned_abs()
}

/// A block value for event 42 of "bomb" whose body is `compressed` LZ4 claiming
/// `claim` bytes, with its checksum right.
fn bomb(claim: u64, compressed: &[u8]) -> Vec<u8> {
    let mut payload = vec![1]; // the LZ4 codec
    let mut rest = claim;
    while rest >= 0x80 {
        payload.push(u8::try_from(rest & 0x7f).unwrap() | 0x80);
        rest >>= 7;
    }
    payload.push(u8::try_from(rest).unwrap());
    payload.extend_from_slice(compressed);
    let crc = checksum(&seq_key("bomb", 42), BLOCK_VERSION, &payload);
    let mut value = vec![BLOCK_VERSION];
    value.extend_from_slice(&crc.to_be_bytes());
    value.extend_from_slice(&payload);
    value
}

/// What reading `value` says, and the most memory it took.
fn read(value: &[u8]) -> (Vec<String>, usize) {
    let mut said = Vec::new();
    let peak = peak_during(|| {
        said = decode_event_value("bomb", 42, value)
            .into_iter()
            .map(|event| match event {
                Ok(recorded) => format!("event {}", recorded.seq),
                Err(error @ StoreError::Corrupt { .. }) => error.to_string(),
                Err(other) => panic!("not reported as damage: {other}"),
            })
            .collect();
    });
    (said, peak)
}

/// Slack beyond the body for the reader's own small allocations.
const SLACK: usize = 1 << 20;

#[test]
fn a_bomb_with_a_valid_checksum_takes_at_most_the_cap() {
    // 64 MiB of zeros compress to 257 KiB: a genuine stream, twice the cap.
    let zeros = lz4_flex::block::compress(&vec![0; 64 << 20]);
    let (said, peak) = read(&bomb(64 << 20, &zeros));
    assert_eq!(
        said,
        [
            "corrupt event in stream \"bomb\" at sequence 42: the block claims 67108864 \
             bytes, more than a block holds (33554432)"
        ]
    );
    assert!(peak < SLACK, "reading the refused bomb took {peak} bytes");

    // Any claim, over zeros that expand to it or to more, or over bytes that
    // are not LZ4 at all: the body never takes more than the cap.
    let zeros = std::sync::Arc::new(zeros);
    let claims = prop_oneof![
        any::<u64>(),
        0..=(64_u64 << 20),
        (MAX_BLOCK_BODY as u64 - 4096)..=(MAX_BLOCK_BODY as u64 + 4096),
    ];
    let bodies = prop_oneof![
        (1_usize..=zeros.len()).prop_map(move |cut| zeros[..cut].to_vec()),
        proptest::collection::vec(any::<u8>(), 0..4096),
    ];
    let config = ProptestConfig {
        cases: 64,
        ..ProptestConfig::default()
    };
    proptest!(config, |(claim in claims, body in bodies)| {
        let value = bomb(claim, &body);
        let (said, peak) = read(&value);
        prop_assert!(!said.is_empty());
        prop_assert!(
            peak <= MAX_BLOCK_BODY + value.len() + SLACK,
            "a claim of {} bytes took {} bytes",
            claim,
            peak
        );
    });
}
