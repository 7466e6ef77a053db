//! The fence every file of a workspace goes through ([`crate::base::fence`]: opened without
//! ever waiting, regular files only, no more than a cap of bytes), with what is refused as an
//! error naming the file and what to do.

use std::path::Path;

use crate::base::fence::open_regular;
use crate::error::{Error, Result};

/// The largest file of the workspace trilogy reads: far above a 100k-entry archive (about
/// 20 MB), far below what would exhaust memory.
pub const MAX_FILE_BYTES: u64 = 256 << 20;

/// The largest file trilogy reads a block at a time (its hash, a copy, the archive's chunked
/// import, entries added on top of it): such a read holds a block, never the file, so only an
/// archive grows past [`MAX_FILE_BYTES`] and is still read this way. The bound keeps a runaway
/// file from being read for hours.
pub const MAX_STREAMED_BYTES: u64 = 64 << 30;

/// [`open_regular`] with its refusals as errors naming the file: `instead` says what to do
/// with something that is not a regular file. `None` when the file does not exist.
pub(super) fn open_fenced(
    path: &Path,
    max: u64,
    instead: &str,
) -> Result<Option<(std::fs::File, std::fs::Metadata)>> {
    use std::io::ErrorKind;
    let advice = |e: std::io::Error, what: &str| {
        Error::io(path, std::io::Error::other(format!("{e}; {what}")))
    };
    match open_regular(path, max) {
        Ok(opened) => Ok(Some(opened)),
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(None),
        Err(e) if e.kind() == ErrorKind::InvalidInput => Err(advice(e, instead)),
        Err(e) if e.kind() == ErrorKind::FileTooLarge => Err(advice(
            e,
            "move it out of the workspace and keep what you need of it in smaller files",
        )),
        Err(e) => Err(Error::io(path, e)),
    }
}

/// The bytes of the file at `path`, through the one fence every file trilogy reads goes
/// through: opened without waiting, a regular file only, at most `max` bytes (read no
/// further, should it grow meanwhile). `None` when it does not exist; anything else that
/// keeps it from being read is an error naming the file and what to do.
pub fn read_file(path: &Path, max: u64) -> Result<Option<Vec<u8>>> {
    use std::io::Read;
    let instead =
        "trilogy reads and writes regular files only: replace it with a file, or delete it";
    let Some((f, meta)) = open_fenced(path, max, instead)? else {
        return Ok(None);
    };
    let mut bytes = Vec::with_capacity(meta.len().min(max) as usize);
    f.take(max)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io(path, e))?;
    Ok(Some(bytes))
}

/// [`read_file`] of a file that must be there: a missing one is an error naming it.
pub fn read_existing(path: &Path, max: u64) -> Result<Vec<u8>> {
    read_file(path, max)?.ok_or_else(|| Error::io(path, std::io::ErrorKind::NotFound.into()))
}

/// [`read_file`] as UTF-8 text: bytes that are not are an error naming the file and line.
pub fn read_text_file(path: &Path, max: u64) -> Result<Option<String>> {
    let Some(bytes) = read_file(path, max)? else {
        return Ok(None);
    };
    String::from_utf8(bytes).map(Some).map_err(|e| {
        let valid = &e.as_bytes()[..e.utf8_error().valid_up_to()];
        Error::Unparseable {
            path: path.to_path_buf(),
            line: 1 + valid.iter().filter(|b| **b == b'\n').count(),
            reason: "not UTF-8 text; save the file as UTF-8".into(),
        }
    })
}

/// Refuse to write over something at `path` that is not a regular file (a FIFO, a device, a
/// folder): trilogy writes regular files only, and never replaces what a person put there.
pub(super) fn refuse_special(path: &Path) -> Result<()> {
    crate::base::fence::refuse_special(path).map_err(|e| Error::io(path, e))
}

/// Open (creating it) a file that only serves as a lock ([`crate::base::lock::open_lock_file`]),
/// its refusal naming the file.
pub fn open_lock_file(path: &Path) -> Result<std::fs::File> {
    crate::base::lock::open_lock_file(path).map_err(|e| Error::io(path, e))
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::FileTypeExt;

    /// A FIFO where a file belongs: every read of it is refused at once, naming it, and a
    /// write refuses to replace it.
    #[test]
    fn a_fifo_is_refused_by_name_for_reading_and_writing_and_left_in_place() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("AGENTS.md");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        let e = read_file(&fifo, MAX_FILE_BYTES).unwrap_err().to_string();
        assert!(
            e.contains("AGENTS.md") && e.contains("not a regular file"),
            "{e}"
        );
        assert!(read_text_file(&fifo, MAX_FILE_BYTES).is_err());
        assert!(crate::base::fence::read_small_text(&fifo, MAX_FILE_BYTES).is_none());
        let e = crate::workspace::write_atomic(&fifo, b"x")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("AGENTS.md") && e.contains("regular files only"),
            "{e}"
        );
        let e = open_lock_file(&fifo).unwrap_err().to_string();
        assert!(e.contains("AGENTS.md"), "{e}");
        assert!(
            std::fs::symlink_metadata(&fifo)
                .unwrap()
                .file_type()
                .is_fifo()
        );
        // a missing file is no error, a file over the cap is one
        assert!(read_file(&dir.path().join("none"), 8).unwrap().is_none());
        std::fs::write(dir.path().join("big"), b"123456789").unwrap();
        let e = read_file(&dir.path().join("big"), 8)
            .unwrap_err()
            .to_string();
        assert!(e.contains("more than"), "{e}");
    }
}
