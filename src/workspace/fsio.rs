//! File primitives of the sync protocol: atomic replace (temp file in the same directory,
//! fsync, rename, fsync the directory), stat stamps, and the symlink fence.

use std::io::Write;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::model::{FileStamp, sha1_hex};

/// Replace `path` with `bytes` atomically and durably.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = path
        .parent()
        .ok_or_else(|| Error::Internal(format!("{} has no parent", path.display())))?;
    let mut tmp = tempfile::Builder::new()
        .prefix(".trilogy-")
        .suffix(".tmp")
        .tempfile_in(dir)
        .map_err(|e| Error::io(dir, e))?;
    // the temp file is private (0600); the file keeps its own mode, a new one gets 0644
    let mode = std::fs::metadata(path).map_or(0o644, |m| m.permissions().mode() & 0o7777);
    std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(mode))
        .map_err(|e| Error::io(tmp.path(), e))?;
    tmp.write_all(bytes).map_err(|e| Error::io(tmp.path(), e))?;
    tmp.as_file()
        .sync_all()
        .map_err(|e| Error::io(tmp.path(), e))?;
    tmp.persist(path).map_err(|e| Error::io(path, e.error))?;
    if let Ok(d) = std::fs::File::open(dir) {
        // fsync of the directory makes the rename durable; some filesystems refuse it
        let _ = d.sync_all();
    }
    Ok(())
}

/// Stamp of the file as it is on disk now (hash of `bytes`, which the caller just read).
pub fn stamp_of(path: &Path, bytes: &[u8]) -> Result<FileStamp> {
    let meta = std::fs::metadata(path).map_err(|e| Error::io(path, e))?;
    Ok(FileStamp {
        sha1: sha1_hex(bytes),
        len: meta.len(),
        mtime_ns: meta.mtime() as i128 * 1_000_000_000 + meta.mtime_nsec() as i128,
        ino: meta.ino(),
    })
}

/// A file modified less than this long ago is hashed even when its stat matches: a second
/// write inside the filesystem's timestamp granularity would keep size and mtime.
const RACY_WINDOW_NS: i128 = 2_000_000_000;

/// True when the file's size, mtime and inode still match `stamp` and the mtime is old enough
/// to be trusted (no read needed).
pub fn stat_matches(path: &Path, stamp: &FileStamp) -> bool {
    let Ok(m) = std::fs::metadata(path) else {
        return false;
    };
    let mtime = m.mtime() as i128 * 1_000_000_000 + m.mtime_nsec() as i128;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as i128);
    m.len() == stamp.len
        && m.ino() == stamp.ino
        && mtime == stamp.mtime_ns
        && now - mtime > RACY_WINDOW_NS
}

/// Read a file; `None` when it does not exist.
pub fn read_opt(path: &Path) -> Result<Option<Vec<u8>>> {
    match std::fs::read(path) {
        Ok(b) => Ok(Some(b)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::io(path, e)),
    }
}

/// Resolve a memory file path: a symlink is followed only when it stays inside `root`.
pub fn resolve_inside(root: &Path, path: &Path) -> Result<PathBuf> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => {
            let target = std::fs::canonicalize(path).map_err(|e| Error::io(path, e))?;
            let root = std::fs::canonicalize(root).map_err(|e| Error::io(root, e))?;
            if target.starts_with(&root) {
                Ok(target)
            } else {
                Err(Error::Io {
                    path: path.to_path_buf(),
                    message: format!(
                        "is a symlink to {}, outside the workspace {}; trilogy refuses to read or write through it (replace the link with the file itself)",
                        target.display(),
                        root.display()
                    ),
                })
            }
        }
        _ => Ok(path.to_path_buf()),
    }
}
