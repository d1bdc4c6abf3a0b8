//! temporary profiling
#![allow(missing_docs, clippy::pedantic)]
use std::time::Instant;
use askuser_benches::*;
fn rss() -> String { let s = std::fs::read_to_string("/proc/self/status").unwrap(); s.lines().filter(|l| l.starts_with("VmRSS") || l.starts_with("VmHWM") || l.starts_with("RssAnon") || l.starts_with("RssFile")).collect::<Vec<_>>().join(" ") }
fn main() {
    let path = bench_dir().join("replay-1m");
    let cache: u64 = std::env::args().nth(1).unwrap().parse().unwrap();
    println!("start {}", rss());
    let t = Instant::now();
    let db = sled::Config::new().path(&path).cache_capacity(cache << 20).open().unwrap();
    let events = db.open_tree("events").unwrap();
    println!("open {:?} {}", t.elapsed(), rss());
    let t = Instant::now();
    let mut n = 0u64;
    for e in events.iter() { let (_k, v) = e.unwrap(); n += 1; std::hint::black_box(v); }
    println!("scan {n} {:?} {}", t.elapsed(), rss());
}
