//! # askuser-web: the web inbox
//!
//! `askuser web` serves every open inquiry of every stream of a log as plain HTML
//! pages, so a person can answer an agent's questions from any browser: the
//! inbox (`/`) lists what waits, newest stream first, with who asks and how far
//! the form is; a question's page (`/q/STREAM/INQUIRY`) asks it as an HTML form
//! that works with JavaScript off (POST, then a redirect). Every button is an
//! input to the engine through the store's session driver (decided, recorded,
//! applied), exactly as the terminal's keys are: an answer, Back, Reply with a
//! message, End Turn (confirmed first), a note, and the review before the answers
//! are sent ([`askuser_core::Event::ReviewWanted`]). The waiting `serve`, `ask` or
//! MCP server sees the answer at once; the first answer wins and a later one is
//! told the question was already answered.
//!
//! Safe by default ([`guard`]): the server binds loopback only; the URL it prints
//! carries a secret token that becomes an `HttpOnly`, `SameSite=Strict` cookie;
//! the `Host` header must name the server (no DNS rebinding) and a POST's
//! `Origin`, when sent, must be the server's own, with a per-server form token
//! besides; pages carry a strict Content-Security-Policy (no inline script or
//! style, only the server's own `/app.js` and `/style.css`); pages are built
//! with `maud`, which escapes every value by construction, and every text from
//! a model or a person is neutralised first as the terminal neutralises it;
//! the model's Markdown is rendered by the crate's own renderer (no raw HTML
//! passes, links only to `http`/`https` and with their target shown); a
//! request that may carry a body
//! is checked on its head before its body, capped per form, is read. Every
//! connection is bounded in time and number (a request's head within 5 s, the
//! idle time between requests too; its body and answer within 30 s; at most 32
//! connections of one address that have not shown the token, a newer one
//! closing the oldest), so holding connections open cannot lock the person out.
//!
//! ```no_run
//! use std::sync::Arc;
//!
//! let log = askuser_app::open_log(std::path::Path::new("/tmp/askuser.db"))?;
//! let listen = askuser_web::Listen::loopback("127.0.0.1:0".parse()?);
//! let server = askuser_web::Inbox::bind(log, &listen)?;
//! println!("open {}", server.url());
//! server.run()?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

// Every public item here is reachable from outside the crate; the rest is
// `pub(crate)` (the workspace lints cannot add this one per crate).
#![warn(unreachable_pub)]

mod answer;
mod app;
mod elsewhere;
mod form;
#[cfg(fuzzing)]
pub mod fuzzing;
pub mod guard;
mod history;
mod live;
mod markdown;
mod notify;
mod pages;
mod queue;
mod schema_form;
mod serve;
mod stream_routes;
mod tls;
mod today;

use std::net::SocketAddr;
use std::sync::Arc;

use askuser_app::log::Log;

pub use app::{Inbox, Listen};

/// What can stop the web inbox.
#[derive(Debug, thiserror::Error)]
pub enum WebError {
    /// The address cannot be listened on (in use, not allowed, not loopback).
    #[error("cannot listen on {addr}: {reason}")]
    Listen {
        /// The address asked for.
        addr: SocketAddr,
        /// Why, in words.
        reason: String,
    },
    /// The TLS certificate or key cannot be used.
    #[error("TLS: {path} {reason}")]
    Tls {
        /// The file.
        path: String,
        /// What is wrong with it, in words.
        reason: String,
    },
    /// The `--notify` URL cannot be used.
    #[error("--notify {url}: {reason}")]
    Notify {
        /// The URL given (its first 80 characters).
        url: String,
        /// What is wrong with it, in words.
        reason: String,
    },
    /// The `--token-file` cannot be used (another user's, open to others, not
    /// a token); its words say what to do.
    #[error("--token-file: {0}")]
    TokenFile(String),
    /// No random token could be made (`/dev/urandom` unreadable).
    #[error("cannot make a secret token: {0}")]
    Token(std::io::Error),
    /// The server stopped on an I/O error.
    #[error("the web server stopped: {0}")]
    Io(#[from] std::io::Error),
}

/// A log shared by the handlers.
pub(crate) type SharedLog = Arc<dyn Log>;
