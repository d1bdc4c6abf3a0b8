//! Criterion benchmarks for askuser live under `benches/benches/`.
