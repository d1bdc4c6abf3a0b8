//! # askuser-testkit: test support for askuser
//!
//! What the workspace's tests and benchmarks share, kept out of the library
//! crates' public APIs:
//!
//! - [`build`]: builders for the common events, requests, forms and policies
//!   ([`build::requested`], [`build::answered`], [`build::back`], ...), and a fixed
//!   test clock ([`build::T0`]).
//! - [`given`]: a small given/when/then over the core's `State` and the store's
//!   `Session`: [`Given::events`], then [`Given::when`] an input, then check the
//!   commands, the events recorded, or the refusal.
//! - [`script`]: a deterministic script of events (RFD D30's migration form walked
//!   over and over), for logs of any size.
//! - [`suite`]: the conformance suite every [`Log`](askuser_store::Log)
//!   implementation passes; a backend's tests run it with [`log_suite!`].
//! - [`record()`]: recorded events written into a log as they are, for tests and
//!   benchmarks that fill a log (a host writes through a `Session` only).
//!
//! ```
//! use askuser_core::{AnswerInput, At, Command, InquiryId};
//! use askuser_testkit::build::{db_form, requested};
//! use askuser_testkit::Given;
//! use serde_json::json;
//!
//! let shown = At::question(InquiryId::new("i1"), "db", 0);
//! Given::events([requested("i1", db_form())])
//!     .when(AnswerInput::new(shown, json!("SQLite")))
//!     .then_commands(|commands| matches!(commands, [Command::Prompt(prompt)]
//!         if prompt.question().id == "migrate"));
//! ```

#![warn(unreachable_pub)]

pub mod build;
pub mod given;
pub mod record;
pub mod script;
pub mod suite;

pub use given::{Given, When};
pub use record::record;
pub use script::{EVENTS_PER_INQUIRY, copy_dir, d30_form, scripted_event, scripted_events};
