//! Records askuser keeps beside the events: each call's dialect and arguments (to
//! render results in the dialect's shape again), and the protocol lines each event
//! produced (so a replay can say whether it re-derives exactly what was sent).
//!
//! The store's streams hold core events only, so these live in a [`Sidecar`]: in
//! memory ([`MemSidecar`]), or in two sled trees of the log's own database
//! ([`SledSidecar`]: `askuser-rpc/calls` and `askuser-rpc/outputs`), written before
//! the event's append and so flushed with it.

use std::collections::BTreeMap;
use std::sync::{Mutex, PoisonError};

use askuser_store::Seq;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::{Result, RpcError};

/// A tool call as it arrived: the dialect, and the arguments as the model wrote them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CallRecord {
    /// The dialect's name (`jp-form`, `claude`, ...).
    pub dialect: String,
    /// The tool call's arguments.
    pub arguments: Value,
}

/// Where the records beside the events are kept. Keys are a stream's name with an
/// inquiry id (calls) or a sequence number (outputs).
pub trait Sidecar: Send + Sync + std::fmt::Debug {
    /// Stores the call of `inquiry` in `stream` (replacing one already there).
    ///
    /// # Errors
    /// When the record cannot be written.
    fn put_call(&self, stream: &str, inquiry: &str, call: &CallRecord) -> Result<()>;

    /// The call of `inquiry` stored for `stream` itself (not its parents).
    ///
    /// # Errors
    /// When the record cannot be read or decoded.
    fn call(&self, stream: &str, inquiry: &str) -> Result<Option<CallRecord>>;

    /// Stores the protocol lines event `seq` of `stream` produced.
    ///
    /// # Errors
    /// When the record cannot be written.
    fn put_outputs(&self, stream: &str, seq: Seq, outputs: &[Value]) -> Result<()>;

    /// Removes the lines stored for event `seq` (after a failed append).
    ///
    /// # Errors
    /// When the record cannot be removed.
    fn remove_outputs(&self, stream: &str, seq: Seq) -> Result<()>;

    /// The protocol lines stored for event `seq` of `stream` itself, if any.
    ///
    /// # Errors
    /// When the record cannot be read or decoded.
    fn outputs(&self, stream: &str, seq: Seq) -> Result<Option<Vec<Value>>>;
}

fn call_key(stream: &str, inquiry: &str) -> Vec<u8> {
    let mut key = stream.as_bytes().to_vec();
    key.push(0);
    key.extend_from_slice(inquiry.as_bytes());
    key
}

fn seq_key(stream: &str, seq: Seq) -> Vec<u8> {
    let mut key = stream.as_bytes().to_vec();
    key.push(0);
    key.extend_from_slice(&seq.to_be_bytes());
    key
}

fn call_name(stream: &str, inquiry: &str) -> String {
    format!("call \"{inquiry}\" of stream \"{stream}\"")
}

fn outputs_name(stream: &str, seq: Seq) -> String {
    format!("outputs of event {seq} of stream \"{stream}\"")
}

fn encode<T: Serialize + ?Sized>(value: &T, key: impl FnOnce() -> String) -> Result<Vec<u8>> {
    serde_json::to_vec(value).map_err(|e| RpcError::Record {
        key: key(),
        detail: e.to_string(),
    })
}

fn decode<T: for<'de> Deserialize<'de>>(bytes: &[u8], key: impl FnOnce() -> String) -> Result<T> {
    serde_json::from_slice(bytes).map_err(|e| RpcError::Record {
        key: key(),
        detail: format!("the record is damaged ({e})"),
    })
}

/// A [`Sidecar`] in memory.
#[derive(Debug, Default)]
pub struct MemSidecar {
    calls: Mutex<BTreeMap<Vec<u8>, Vec<u8>>>,
    outputs: Mutex<BTreeMap<Vec<u8>, Vec<u8>>>,
}

impl MemSidecar {
    /// An empty sidecar.
    pub fn new() -> Self {
        Self::default()
    }
}

impl Sidecar for MemSidecar {
    fn put_call(&self, stream: &str, inquiry: &str, call: &CallRecord) -> Result<()> {
        let bytes = encode(call, || call_name(stream, inquiry))?;
        self.calls
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(call_key(stream, inquiry), bytes);
        Ok(())
    }

    fn call(&self, stream: &str, inquiry: &str) -> Result<Option<CallRecord>> {
        let calls = self.calls.lock().unwrap_or_else(PoisonError::into_inner);
        calls
            .get(&call_key(stream, inquiry))
            .map(|bytes| decode(bytes, || call_name(stream, inquiry)))
            .transpose()
    }

    fn put_outputs(&self, stream: &str, seq: Seq, outputs: &[Value]) -> Result<()> {
        let bytes = encode(outputs, || outputs_name(stream, seq))?;
        self.outputs
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(seq_key(stream, seq), bytes);
        Ok(())
    }

    fn remove_outputs(&self, stream: &str, seq: Seq) -> Result<()> {
        self.outputs
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&seq_key(stream, seq));
        Ok(())
    }

    fn outputs(&self, stream: &str, seq: Seq) -> Result<Option<Vec<Value>>> {
        let outputs = self.outputs.lock().unwrap_or_else(PoisonError::into_inner);
        outputs
            .get(&seq_key(stream, seq))
            .map(|bytes| decode(bytes, || outputs_name(stream, seq)))
            .transpose()
    }
}

/// A [`Sidecar`] in two trees of a sled database (the log's own, so that the
/// records are flushed with the events).
#[derive(Debug, Clone)]
pub struct SledSidecar {
    calls: sled::Tree,
    outputs: sled::Tree,
}

impl SledSidecar {
    /// The sidecar in `db` (its trees are created if needed).
    ///
    /// # Errors
    /// When sled cannot open the trees.
    pub fn open(db: &sled::Db) -> Result<Self> {
        let tree = |name: &str| {
            db.open_tree(name).map_err(|e| RpcError::Record {
                key: format!("tree {name}"),
                detail: e.to_string(),
            })
        };
        Ok(Self {
            calls: tree("askuser-rpc/calls")?,
            outputs: tree("askuser-rpc/outputs")?,
        })
    }
}

fn sled_error(key: String, error: &sled::Error) -> RpcError {
    RpcError::Record {
        key,
        detail: error.to_string(),
    }
}

impl Sidecar for SledSidecar {
    fn put_call(&self, stream: &str, inquiry: &str, call: &CallRecord) -> Result<()> {
        let bytes = encode(call, || call_name(stream, inquiry))?;
        self.calls
            .insert(call_key(stream, inquiry), bytes)
            .map_err(|e| sled_error(call_name(stream, inquiry), &e))?;
        Ok(())
    }

    fn call(&self, stream: &str, inquiry: &str) -> Result<Option<CallRecord>> {
        self.calls
            .get(call_key(stream, inquiry))
            .map_err(|e| sled_error(call_name(stream, inquiry), &e))?
            .map(|bytes| decode(&bytes, || call_name(stream, inquiry)))
            .transpose()
    }

    fn put_outputs(&self, stream: &str, seq: Seq, outputs: &[Value]) -> Result<()> {
        let bytes = encode(outputs, || outputs_name(stream, seq))?;
        self.outputs
            .insert(seq_key(stream, seq), bytes)
            .map_err(|e| sled_error(outputs_name(stream, seq), &e))?;
        Ok(())
    }

    fn remove_outputs(&self, stream: &str, seq: Seq) -> Result<()> {
        self.outputs
            .remove(seq_key(stream, seq))
            .map_err(|e| sled_error(outputs_name(stream, seq), &e))?;
        Ok(())
    }

    fn outputs(&self, stream: &str, seq: Seq) -> Result<Option<Vec<Value>>> {
        self.outputs
            .get(seq_key(stream, seq))
            .map_err(|e| sled_error(outputs_name(stream, seq), &e))?
            .map(|bytes| decode(&bytes, || outputs_name(stream, seq)))
            .transpose()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn exercise(side: &dyn Sidecar) {
        let call = CallRecord {
            dialect: "jp".into(),
            arguments: json!({"question": "Ok?"}),
        };
        assert_eq!(side.call("s", "c").unwrap(), None);
        side.put_call("s", "c", &call).unwrap();
        assert_eq!(side.call("s", "c").unwrap(), Some(call));
        assert_eq!(side.call("s2", "c").unwrap(), None);
        side.put_outputs("s", 3, &[json!({"type": "turn_ended"})])
            .unwrap();
        assert_eq!(
            side.outputs("s", 3).unwrap(),
            Some(vec![json!({"type": "turn_ended"})])
        );
        side.remove_outputs("s", 3).unwrap();
        assert_eq!(side.outputs("s", 3).unwrap(), None);
    }

    #[test]
    fn both_sidecars_store_and_return_records() {
        exercise(&MemSidecar::new());
        let db = sled::Config::new().temporary(true).open().unwrap();
        exercise(&SledSidecar::open(&db).unwrap());
    }

    #[test]
    fn a_damaged_record_is_an_error_naming_it() {
        let db = sled::Config::new().temporary(true).open().unwrap();
        let side = SledSidecar::open(&db).unwrap();
        side.outputs.insert(seq_key("s", 1), &b"{"[..]).unwrap();
        assert_eq!(
            side.outputs("s", 1).unwrap_err().to_string(),
            "the call records in the log (outputs of event 1 of stream \"s\"): the record is damaged (invalid type: map, expected a sequence at line 1 column 0)"
        );
    }
}
