//! Reading what askuser is given (a call's arguments, a pending file, standard
//! input) with the same cap as a protocol line, and only from a regular file.
//!
//! `askuser answer /dev/zero` once read until memory ran out, and a FIFO given as a
//! pending file hung the program. A path is now looked at before it is opened (a
//! directory, FIFO, device or socket is refused, naming what it is), opened without
//! blocking, looked at again through the open handle (so a swap between the two
//! looks changes nothing), and read to at most [`MAX_INPUT_BYTES`].

use std::fs::{self, File, OpenOptions};
use std::io::Read;
use std::path::Path;

/// The most bytes askuser reads from a file or standard input: a protocol line's cap.
pub const MAX_INPUT_BYTES: usize = 1 << 20;

/// Whether a symbolic link is followed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Links {
    /// Follow it to a regular file (a call's arguments).
    Follow,
    /// Refuse it, saying so (a pending file, which askuser also writes).
    Refuse,
}

/// Reads a regular file's UTF-8 text, at most [`MAX_INPUT_BYTES`].
///
/// # Errors
/// Why not, in words that follow the file's name: `is a FIFO, not a regular file;
/// ...`, `is a symbolic link (to /etc/passwd); ...`, `is larger than ...`.
pub fn read_regular_file(path: &Path, links: Links) -> Result<String, String> {
    check_kind(path, links)?;
    let file = open_without_blocking(path, links).map_err(|e| cannot_read(&e))?;
    let metadata = file.metadata().map_err(|e| cannot_read(&e))?;
    if !metadata.is_file() {
        return Err(not_regular(metadata.file_type()));
    }
    read_bounded(file)
}

/// Reads UTF-8 text from `reader` (standard input, say), at most [`MAX_INPUT_BYTES`].
///
/// # Errors
/// When reading fails, the text is larger than the cap, or is not UTF-8.
pub fn read_bounded(reader: impl Read) -> Result<String, String> {
    let mut bytes = Vec::new();
    let limit = u64::try_from(MAX_INPUT_BYTES).unwrap_or(u64::MAX) + 1;
    reader
        .take(limit)
        .read_to_end(&mut bytes)
        .map_err(|e| cannot_read(&e))?;
    if bytes.len() > MAX_INPUT_BYTES {
        return Err(format!(
            "is larger than {MAX_INPUT_BYTES} bytes (1 MiB), the most askuser reads; give a smaller file"
        ));
    }
    String::from_utf8(bytes).map_err(|e| {
        format!(
            "is not UTF-8 text (byte {} is not); give JSON encoded as UTF-8",
            e.utf8_error().valid_up_to() + 1
        )
    })
}

/// Refuses what is not a regular file (or, with [`Links::Refuse`], a link).
pub(crate) fn check_kind(path: &Path, links: Links) -> Result<(), String> {
    let metadata = fs::symlink_metadata(path).map_err(|e| cannot_read(&e))?;
    if metadata.file_type().is_symlink() {
        if links == Links::Refuse {
            let target =
                fs::read_link(path).map_or_else(|_| "?".to_owned(), |t| t.display().to_string());
            return Err(format!(
                "is a symbolic link (to {}); askuser does not follow links here: give the path of the file itself",
                askuser_core::text::for_display_line(&target)
            ));
        }
        let followed = fs::metadata(path).map_err(|e| cannot_read(&e))?;
        if !followed.is_file() {
            return Err(not_regular(followed.file_type()));
        }
        return Ok(());
    }
    if !metadata.is_file() {
        return Err(not_regular(metadata.file_type()));
    }
    Ok(())
}

/// Opens `path` for reading without blocking (a FIFO does not wait for a
/// writer), following a symbolic link only with [`Links::Follow`]; look at the
/// handle's metadata before reading from it.
///
/// # Errors
/// When it cannot be opened (with [`Links::Refuse`], a link cannot).
#[cfg(unix)]
pub fn open_without_blocking(path: &Path, links: Links) -> std::io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt as _;
    let mut flags = libc::O_NONBLOCK;
    if links == Links::Refuse {
        flags |= libc::O_NOFOLLOW;
    }
    OpenOptions::new().read(true).custom_flags(flags).open(path)
}

/// Opens `path` for reading (elsewhere than Unix, as it comes).
///
/// # Errors
/// When it cannot be opened.
#[cfg(not(unix))]
pub fn open_without_blocking(path: &Path, _links: Links) -> std::io::Result<File> {
    OpenOptions::new().read(true).open(path)
}

fn cannot_read(error: &std::io::Error) -> String {
    format!("cannot be read ({error})")
}

fn not_regular(kind: fs::FileType) -> String {
    format!(
        "is {}, not a regular file; give a file, or - for standard input",
        kind_name(kind)
    )
}

/// What a file that is not a regular file is, in words: `a FIFO (named pipe)`,
/// `a directory`, `a symbolic link`...
pub fn kind_name(kind: fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt as _;
        if kind.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if kind.is_char_device() {
            return "a character device";
        }
        if kind.is_block_device() {
            return "a block device";
        }
        if kind.is_socket() {
            return "a socket";
        }
    }
    if kind.is_dir() {
        "a directory"
    } else if kind.is_symlink() {
        "a symbolic link"
    } else {
        "not a file"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_regular_files_are_read_and_only_up_to_the_cap() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("call.json");
        fs::write(&file, "{}").unwrap();
        assert_eq!(read_regular_file(&file, Links::Refuse), Ok("{}".to_owned()));
        assert_eq!(
            read_regular_file(dir.path(), Links::Follow),
            Err("is a directory, not a regular file; give a file, or - for standard input".into())
        );
        #[cfg(unix)]
        {
            assert_eq!(
                read_regular_file(Path::new("/dev/zero"), Links::Follow),
                Err("is a character device, not a regular file; give a file, or - for standard input".into())
            );
            let link = dir.path().join("link.json");
            std::os::unix::fs::symlink(&file, &link).unwrap();
            assert_eq!(read_regular_file(&link, Links::Follow), Ok("{}".to_owned()));
            assert_eq!(
                read_regular_file(&link, Links::Refuse),
                Err(format!(
                    "is a symbolic link (to {}); askuser does not follow links here: give the path of the file itself",
                    file.display()
                ))
            );
        }
        let big = dir.path().join("big.json");
        fs::write(&big, vec![b' '; MAX_INPUT_BYTES + 1]).unwrap();
        assert_eq!(
            read_regular_file(&big, Links::Follow),
            Err(
                "is larger than 1048576 bytes (1 MiB), the most askuser reads; give a smaller file"
                    .into()
            )
        );
        assert_eq!(
            read_bounded(&b"ok\xff"[..]),
            Err("is not UTF-8 text (byte 3 is not); give JSON encoded as UTF-8".into())
        );
        assert_eq!(
            read_bounded(std::io::repeat(0)).unwrap_err(),
            "is larger than 1048576 bytes (1 MiB), the most askuser reads; give a smaller file"
        );
    }
}
