//! An embedder's crate outside askuser's workspace, built against the packages
//! `cargo package` makes (see `scripts/embedder`): each example of the
//! embedder's guide, `docs/embedding.md`, runs as a doc test of
//! [`embedding_guide`], with only what a crate from crates.io would have.

#[doc = include_str!("../../../docs/embedding.md")]
pub mod embedding_guide {}
