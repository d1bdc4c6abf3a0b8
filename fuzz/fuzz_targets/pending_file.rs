//! The pending-file reader against arbitrary text: a file either reads (then it
//! names a valid stream and inquiry, and writing it out reads back the same) or is
//! refused naming a field; never a panic.

#![no_main]

use askuser_app::pending::{PENDING_FORMAT, PendingFile};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match PendingFile::parse(text) {
        Ok(file) => {
            assert_eq!(file.format, PENDING_FORMAT);
            assert!(askuser_store::StreamName::check(&file.stream).is_ok());
            assert!(!file.inquiry.is_empty());
            let written = serde_json::to_string_pretty(&file).expect("serializes");
            assert_eq!(PendingFile::parse(&written).expect("reads back"), file);
        }
        Err((field, message)) => {
            assert!(field.is_empty() || field.starts_with('/'), "{field}");
            assert!(!message.is_empty());
        }
    }
});
