//! Writes a big log for measuring read-only commands: `cargo run --release -p
//! askuser-sled --example big_log -- PATH GIB [SESSIONS]` appends free-text
//! answers of 32,000 random printable characters (they do not compress), 32 per
//! append, to 50 streams, until GIB gibibytes of answers are written, in
//! SESSIONS sessions (1 unless given: the log is closed and opened again between
//! them, as a log that grows over many runs is), then closes the log (which
//! seals it, see `SledLog::closed_cleanly`, when its last session's writes
//! could be settled in time). Prints the events written.

use askuser_core::Event;
use askuser_sled::SledLog;
use askuser_store::backend::Backend as _;
use askuser_store::{Durability, Log};
use askuser_testkit::build::answered;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let (Some(path), Some(gib)) = (args.next(), args.next()) else {
        return Err("usage: big_log PATH GIB [SESSIONS]".into());
    };
    let sessions: u64 = args.next().map_or(Ok(1), |n| n.parse())?.max(1);
    let target: u64 = gib.parse::<u64>()? << 30;
    let (mut written, mut events) = (0_u64, 0_u64);
    for session in 1..=sessions {
        let log = SledLog::open(&path)?.with_durability(Durability::Buffered);
        while written < target * session / sessions {
            let batch: Vec<Event> = (0..32).map(|_| answer(&mut events)).collect();
            written += 32 * 32_000;
            let stream = format!("s{}", (events / 32) % 50);
            let head = log.stream(&stream)?.map_or(0, |info| info.head);
            log.append(&stream, head, &batch)?;
        }
        log.flush()?;
    }
    println!("{events} events");
    Ok(())
}

/// The next answer: 32,000 printable characters from a xorshift generator.
fn answer(events: &mut u64) -> Event {
    *events += 1;
    let mut x = events.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let text: String = (0..32_000)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            char::from(b'#' + u8::try_from(x % 56).unwrap_or(0))
        })
        .collect();
    answered(
        &format!("q{events}"),
        "note",
        serde_json::Value::String(text),
    )
}
