//! The fence every file trilogy reads or writes goes through, at the operating system's level:
//! files are opened without ever waiting (a FIFO or a device where a file belongs would hang
//! the command), only regular files are taken, and no more than a cap of bytes is read. What
//! is refused is an `io::Error` saying why; the rooms above name the file and what to do.

use std::io::{Error as IoError, ErrorKind, Read};
use std::path::Path;

/// Why a special file is refused.
pub const NOT_REGULAR: &str = "not a regular file (a FIFO, a device or a folder)";

/// Open `path` with `options`, never waiting for a FIFO's other end, and (`here`) never through
/// a symbolic link at its last step.
#[cfg(unix)]
pub(super) fn open_with(
    path: &Path,
    options: &mut std::fs::OpenOptions,
    here: bool,
) -> std::io::Result<std::fs::File> {
    use rustix::fs::OFlags;
    use std::os::unix::fs::OpenOptionsExt;
    let extra = if here {
        OFlags::NOFOLLOW
    } else {
        OFlags::empty()
    };
    options
        .custom_flags((OFlags::NONBLOCK | extra).bits() as i32)
        .open(path)
}

/// Open `path` with `options` (Windows): a device name (`CON`, `NUL`, `COM1.md`, …) is refused
/// before it is opened, and (`here`) a link or junction at the last step is opened as itself,
/// so the caller's check that it is a regular file refuses it.
#[cfg(windows)]
pub(super) fn open_with(
    path: &Path,
    options: &mut std::fs::OpenOptions,
    here: bool,
) -> std::io::Result<std::fs::File> {
    use std::os::windows::fs::OpenOptionsExt;
    /// `FILE_FLAG_OPEN_REPARSE_POINT`: open a link, not what it points at.
    const OPEN_REPARSE_POINT: u32 = 0x0020_0000;
    if path.file_name().is_some_and(is_device_name) {
        return Err(IoError::new(ErrorKind::InvalidInput, NOT_REGULAR));
    }
    if here {
        options.custom_flags(OPEN_REPARSE_POINT);
    }
    options.open(path)
}

/// True when `name` opens a device on Windows whatever folder it is in: `CON`, `PRN`, `AUX`,
/// `NUL`, `COM0`–`COM9`, `LPT0`–`LPT9` (also with superscript digits), `CONIN$`, `CONOUT$`, in
/// any case, with any extension and trailing dots or spaces.
pub fn is_device_name(name: &std::ffi::OsStr) -> bool {
    let name = name.to_string_lossy();
    let stem = name
        .split('.')
        .next()
        .unwrap_or("")
        .trim_end_matches([' ', '.']);
    let stem = stem.to_ascii_uppercase();
    let numbered = |prefix: &str| {
        stem.strip_prefix(prefix).is_some_and(|n| {
            let mut c = n.chars();
            matches!(
                (c.next(), c.next()),
                (Some('0'..='9' | '¹' | '²' | '³'), None)
            )
        })
    };
    matches!(
        stem.as_str(),
        "CON" | "PRN" | "AUX" | "NUL" | "CONIN$" | "CONOUT$"
    ) || numbered("COM")
        || numbered("LPT")
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
    let f = open_with(path, std::fs::OpenOptions::new().read(true), false)?;
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
    open_with(path, std::fs::OpenOptions::new().read(true), true)
}

/// Open a regular file for appending (made when missing), never through a symbolic link at its
/// last step and never waiting on a FIFO left at its name.
pub fn open_append_here(path: &Path) -> std::io::Result<std::fs::File> {
    let f = open_with(
        path,
        std::fs::OpenOptions::new().create(true).append(true),
        true,
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsStr;

    #[test]
    fn windows_device_names_are_told_in_any_case_and_with_any_extension() {
        for name in [
            "CON", "nul", "Aux.md", "com1", "LPT9.txt", "con .md", "COM¹", "conin$",
        ] {
            assert!(is_device_name(OsStr::new(name)), "{name}");
        }
        for name in [
            "PROJECT.md",
            "CONSOLE",
            "com",
            "COM10",
            "LPT",
            "nul-notes.md",
            ".trilogy",
        ] {
            assert!(!is_device_name(OsStr::new(name)), "{name}");
        }
    }
}
