//! The fence every file trilogy reads or writes goes through, at the operating system's level:
//! files are opened without ever waiting (a FIFO or a device where a file belongs would hang
//! the command), only regular files are taken, and no more than a cap of bytes is read. What
//! is refused is an `io::Error` saying why; the rooms above name the file and what to do.

use std::io::{Error as IoError, ErrorKind, Read};
use std::path::Path;

use rustix::fs::OFlags;

/// Why a special file is refused.
pub const NOT_REGULAR: &str = "not a regular file (a FIFO, a device or a folder)";

/// Open `path` with `options` and `extra` flags, never waiting for a FIFO's other end.
fn open_with(
    path: &Path,
    options: &mut std::fs::OpenOptions,
    extra: OFlags,
) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    options
        .custom_flags((OFlags::NONBLOCK | extra).bits() as i32)
        .open(path)
}

fn regular(f: std::fs::File) -> std::io::Result<(std::fs::File, std::fs::Metadata)> {
    let meta = f.metadata()?;
    if !meta.is_file() {
        return Err(IoError::new(ErrorKind::InvalidInput, NOT_REGULAR));
    }
    Ok((f, meta))
}

/// Open `path` for reading and stat the open file, without ever waiting: anything but a
/// regular file is an `InvalidInput` error, a file over `max` bytes a `FileTooLarge` one, each
/// saying so.
pub fn open_regular(path: &Path, max: u64) -> std::io::Result<(std::fs::File, std::fs::Metadata)> {
    let f = open_with(
        path,
        std::fs::OpenOptions::new().read(true),
        OFlags::empty(),
    )?;
    let (f, meta) = regular(f)?;
    if meta.len() > max {
        return Err(IoError::new(
            ErrorKind::FileTooLarge,
            format!(
                "it is {} MiB, more than the {} MiB trilogy reads",
                meta.len() >> 20,
                max >> 20
            ),
        ));
    }
    Ok((f, meta))
}

/// Open `path` for reading, never through a symbolic link at its last step and never waiting
/// on a FIFO: the caller asks the open file what it is.
pub fn open_read_here(path: &Path) -> std::io::Result<std::fs::File> {
    open_with(
        path,
        std::fs::OpenOptions::new().read(true),
        OFlags::NOFOLLOW,
    )
}

/// Open a regular file for appending (made when missing), never through a symbolic link at its
/// last step and never waiting on a FIFO left at its name.
pub fn open_append_here(path: &Path) -> std::io::Result<std::fs::File> {
    let f = open_with(
        path,
        std::fs::OpenOptions::new().create(true).append(true),
        OFlags::NOFOLLOW,
    )?;
    regular(f).map(|(f, _)| f)
}

/// The text of a regular file of at most `max` bytes ([`open_regular`]: never waits on a FIFO
/// or a device); `None` when it is missing, not regular, larger, or not UTF-8.
pub fn read_small_text(path: &Path, max: u64) -> Option<String> {
    let (file, _) = open_regular(path, max).ok()?;
    let mut text = String::new();
    file.take(max).read_to_string(&mut text).ok()?;
    Some(text)
}

/// Refuse to write over something at `path` that is not a regular file (a FIFO, a device, a
/// folder): trilogy writes regular files only, and never replaces what a person put there.
pub fn refuse_special(path: &Path) -> std::io::Result<()> {
    match std::fs::metadata(path) {
        Ok(m) if !m.is_file() => Err(IoError::other(format!(
            "{NOT_REGULAR}; trilogy writes regular files only: delete it, or replace it with a file"
        ))),
        _ => Ok(()),
    }
}
