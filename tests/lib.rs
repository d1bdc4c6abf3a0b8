//! Cross-crate integration tests live in `tests/tests/`: the JSON-lines server, the
//! terminal loop and the pending-file workflow recording into the event log, and
//! replays of what they recorded. (The tests that drive the `askuser` binary itself,
//! over pipes and under tmux, are in `adapters/cli/tests/`, where Cargo builds it.)
//!
//! The embedder's guide, `docs/embedding.md`, is compiled here: each of its
//! examples runs as a doc test of [`embedding_guide`].

#[doc = include_str!("../docs/embedding.md")]
pub mod embedding_guide {}
