//! Another surface on the log, for the end-to-end tests: `elsewhere DB STREAM
//! ACTIONS` acts on the stream's open inquiry as the web inbox or a terminal
//! does, through a `Session` on the same sled log, while the MCP client's form
//! is shown. `ACTIONS` is a JSON list, each one of `{"answer": VALUE}` (the
//! question shown, on a surface that reviews: the first answer records the
//! review the form calls for), `{"submit": true}` (the review shown), `{"back":
//! true}` and `{"reply": MESSAGE|null}`. Prints the stream's head.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use askuser_app::log::{Log, Session};
use askuser_core::{AnswerInput, Input};
use askuser_sled::SledLog;
use serde_json::Value;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let (Some(db), Some(stream), Some(actions)) = (args.next(), args.next(), args.next()) else {
        return Err("usage: elsewhere DB STREAM ACTIONS".into());
    };
    let actions: Vec<Value> = serde_json::from_str(&actions)?;
    let log = open(&PathBuf::from(db))?;
    let mut session = Session::open(Arc::clone(&log), stream)?;
    let inquiry = session
        .state()
        .open_inquiries()
        .last()
        .cloned()
        .ok_or("no inquiry is open")?;
    for action in actions {
        let at = session
            .state()
            .at(&inquiry)
            .ok_or("the inquiry is finished")?;
        let input = if let Some(value) = action.get("answer") {
            AnswerInput::new(at, value.clone()).reviewed().into()
        } else if action.get("submit").is_some() {
            Input::Submit(at)
        } else if action.get("back").is_some() {
            Input::Back(at)
        } else if let Some(message) = action.get("reply") {
            Input::Reply {
                at,
                message: message.as_str().map(str::to_owned),
            }
        } else {
            return Err(format!("not an action: {action}").into());
        };
        session.handle(&input)?;
    }
    println!("{}", session.head());
    Ok(())
}

/// The sled log, once the MCP server has let it go (it holds it only while it
/// records a step).
fn open(db: &std::path::Path) -> Result<Arc<dyn Log>, Box<dyn std::error::Error>> {
    let start = Instant::now();
    loop {
        match SledLog::open(db) {
            Ok(log) => return Ok(Arc::new(log)),
            Err(_) if start.elapsed() < Duration::from_secs(10) => {
                std::thread::sleep(Duration::from_millis(20));
            }
            Err(error) => return Err(error.into()),
        }
    }
}
