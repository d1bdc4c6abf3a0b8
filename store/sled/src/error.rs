//! sled's errors as the store's: [`StoreError::Storage`] carrying a [`SledError`],
//! which says in words what sled found.

use std::fmt;

use askuser_store::StoreError;

/// A sled error, shown in words: a corruption names the byte of the data file
/// (`db`) sled could not read, never a debug dump. What a [`StoreError::Storage`]
/// from this crate carries (its `source` is sled's own error).
#[derive(Debug)]
pub struct SledError(pub sled::Error);

impl fmt::Display for SledError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&sled_words(&self.0))
    }
}

impl std::error::Error for SledError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.0)
    }
}

/// sled's error as [`StoreError::Storage`] (for `map_err`).
pub(crate) fn storage(error: sled::Error) -> StoreError {
    StoreError::Storage(Box::new(SledError(error)))
}

/// `result`'s sled error as [`StoreError::Storage`]: `sled_call().storage()?`.
pub(crate) trait Storage<T> {
    /// The value, or sled's error as the store's.
    fn storage(self) -> Result<T, StoreError>;
}

impl<T> Storage<T> for sled::Result<T> {
    fn storage(self) -> Result<T, StoreError> {
        self.map_err(storage)
    }
}

/// A sled error in words: a corruption names the byte of the data file (`db`)
/// sled could not read, never a debug dump.
pub(crate) fn sled_words(error: &sled::Error) -> String {
    match error {
        sled::Error::Corruption {
            at: Some(sled::DiskPtr::Inline(offset)),
            ..
        } => {
            format!("the data file `db` is damaged: the record at byte {offset} fails its checksum")
        }
        sled::Error::Corruption {
            at: Some(sled::DiskPtr::Blob(offset, blob)),
            ..
        } => format!(
            "the blob file `blobs/{blob}` (named at byte {offset} of the data file `db`) \
             is damaged or missing"
        ),
        sled::Error::Corruption { at: None, .. } => {
            "the data file `db` or a recovery snapshot (`snap.*`) is damaged: \
             sled's recovery found a record that fails its checksum or does not fit"
                .to_owned()
        }
        sled::Error::Io(error) => format!("i/o: {error}"),
        other => other.to_string(),
    }
}
