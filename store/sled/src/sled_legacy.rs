//! The side records of the first format's JSON-lines server, read by [`crate::SledLog`].

use crate::error::Storage as _;
use askuser_core::{Event, ToolCall};
use sled::Db;
use sled::Tree;

use askuser_store::Recorded;
use askuser_store::Result;

/// The trees the first format's JSON-lines server kept beside the events: each
/// inquiry's raw tool call (`askuser-rpc/calls`, keyed by stream ++ `0x00` ++
/// inquiry id) and each event's output lines (`askuser-rpc/outputs`, keyed like
/// `events`), both JSON. Read only: today's format records the call inside the
/// request.
#[derive(Debug, Clone)]
pub(crate) struct Legacy {
    calls: Tree,
    pub(crate) outputs: Tree,
}

impl Legacy {
    const CALLS: &'static str = "askuser-rpc/calls";
    const OUTPUTS: &'static str = "askuser-rpc/outputs";

    /// The legacy trees of `db`, if it has them (never creates them).
    pub(crate) fn open(db: &Db) -> Result<Option<Self>> {
        let names = db.tree_names();
        let has = |name: &str| names.iter().any(|n| n.as_ref() == name.as_bytes());
        if !has(Self::CALLS) {
            return Ok(None);
        }
        Ok(Some(Self {
            calls: db.open_tree(Self::CALLS).storage()?,
            outputs: db.open_tree(Self::OUTPUTS).storage()?,
        }))
    }

    /// A first-format request, completed with the tool call kept beside it.
    pub(crate) fn complete(&self, stream: &str, mut recorded: Recorded) -> Recorded {
        if recorded.decided {
            return recorded;
        }
        if let Event::Requested(request) = &mut recorded.event
            && request.call.is_none()
        {
            let mut key = stream.as_bytes().to_vec();
            key.push(0);
            key.extend_from_slice(request.inquiry.as_str().as_bytes());
            request.call = self
                .calls
                .get(key)
                .ok()
                .flatten()
                .and_then(|bytes| serde_json::from_slice::<ToolCall>(&bytes).ok());
        }
        recorded
    }
}
