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

/// A file replaced by [`swap_in`]: the previous content waits in `previous` until the caller
/// keeps the new version ([`Swapped::keep`]) or puts the old one back ([`Swapped::undo`]).
pub struct Swapped {
    pub path: PathBuf,
    /// Where the previous content now is (`None`: the file did not exist).
    pub previous: Option<PathBuf>,
}

impl Swapped {
    /// The bytes that were in the file just before the swap.
    pub fn previous_bytes(&self) -> Result<Option<Vec<u8>>> {
        match &self.previous {
            Some(p) => std::fs::read(p).map(Some).map_err(|e| Error::io(p, e)),
            None => Ok(None),
        }
    }

    /// Keep the new content; the previous one is deleted.
    pub fn keep(self) -> Result<()> {
        if let Some(p) = &self.previous {
            std::fs::remove_file(p).map_err(|e| Error::io(p, e))?;
        }
        sync_dir(&self.path);
        Ok(())
    }

    /// Put the previous content back (atomically), dropping the new one.
    pub fn undo(self) -> Result<()> {
        match &self.previous {
            Some(p) => {
                exchange(p, &self.path)?;
                std::fs::remove_file(p).map_err(|e| Error::io(p, e))?;
            }
            None => std::fs::remove_file(&self.path).map_err(|e| Error::io(&self.path, e))?,
        }
        sync_dir(&self.path);
        Ok(())
    }
}

fn sync_dir(path: &Path) {
    if let Some(dir) = path.parent()
        && let Ok(d) = std::fs::File::open(dir)
    {
        let _ = d.sync_all();
    }
}

fn exchange(a: &Path, b: &Path) -> Result<()> {
    use rustix::fs::{CWD, RenameFlags, renameat_with};
    renameat_with(CWD, a, CWD, b, RenameFlags::EXCHANGE)
        .map_err(|e| Error::io(b, std::io::Error::from(e)))
}

/// Replace `path` with `bytes` by atomically exchanging a durable temp file with it, so the
/// bytes that were there at that instant are kept and can be checked: a write that landed after
/// the caller last read the file is never silently overwritten.
pub fn swap_in(path: &Path, bytes: &[u8]) -> Result<Swapped> {
    let dir = path
        .parent()
        .ok_or_else(|| Error::Internal(format!("{} has no parent", path.display())))?;
    let mode = std::fs::metadata(path).map_or(0o644, |m| m.permissions().mode() & 0o7777);
    let tmp = tempfile::Builder::new()
        .prefix(".trilogy-")
        .suffix(".tmp")
        .tempfile_in(dir)
        .map_err(|e| Error::io(dir, e))?;
    std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(mode))
        .map_err(|e| Error::io(tmp.path(), e))?;
    let (mut file, tmp_path) = tmp.keep().map_err(|e| Error::io(dir, e.error))?;
    file.write_all(bytes).map_err(|e| Error::io(&tmp_path, e))?;
    file.sync_all().map_err(|e| Error::io(&tmp_path, e))?;
    drop(file);
    if path.exists() && exchange(&tmp_path, path).is_ok() {
        return Ok(Swapped {
            path: path.to_path_buf(),
            previous: Some(tmp_path),
        });
    }
    // no file yet (or a filesystem without exchange): a plain atomic rename
    std::fs::rename(&tmp_path, path).map_err(|e| Error::io(path, e))?;
    Ok(Swapped {
        path: path.to_path_buf(),
        previous: None,
    })
}
