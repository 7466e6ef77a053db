//! Rebuilding the index without a gap: a new index is built in a private directory beside
//! the live one and exchanged with it in one step, so a search running meanwhile always finds
//! a whole index (the previous one or the new one), never a half-built or missing one.
//! Where the system cannot exchange two directories (Windows, where a folder a reader has
//! mapped cannot be renamed either), the index is rebuilt in its own folder in one commit, so
//! a reader still sees the previous documents or the new ones. Where only the filesystem
//! refuses an exchange at run time, two renames are used and a search that falls in between
//! answers from the store.

use std::path::{Path, PathBuf};

use super::{Progress, SearchIndex};
use crate::error::{Error, Result};
use crate::store::Reader;

/// A fresh sibling of `dir` named `<dir>.<what>-<pid>-<nanos>`.
fn sibling(dir: &Path, what: &str) -> PathBuf {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "index".into());
    dir.with_file_name(format!("{name}.{what}-{}-{nanos}", std::process::id()))
}

/// Build the index of snapshot `r` and put it in place at `dir`; returns its document count.
pub fn rebuild(dir: &Path, r: &dyn Reader, progress: Progress) -> Result<u64> {
    if !crate::base::write::can_exchange() {
        return in_place(dir, r, progress);
    }
    let build = sibling(dir, "build");
    let built = (|| {
        let index = SearchIndex::open(&build)?;
        // nobody else knows this directory: its writer is always free, nothing stays pending
        index.sync(r, Some(progress))?;
        index.len()
    })();
    let n = match built {
        Ok(n) => n,
        Err(e) => {
            let _ = std::fs::remove_dir_all(&build);
            return Err(e);
        }
    };
    let placed = put_in_place(&build, dir);
    if placed.is_err() {
        let _ = std::fs::remove_dir_all(&build);
    }
    placed?;
    Ok(n)
}

/// Rebuild the index at `dir` in its own folder, every document in one commit.
fn in_place(dir: &Path, r: &dyn Reader, progress: Progress) -> Result<u64> {
    let index = SearchIndex::open(dir)?;
    // another process may hold the writer a moment (a search catching the index up)
    let started = std::time::Instant::now();
    loop {
        let left = index.sync_from_scratch(r, Some(&mut *progress))?;
        if left.keys.is_empty() {
            return index.len();
        }
        if started.elapsed() > std::time::Duration::from_secs(2) {
            return Err(Error::Busy {
                path: dir.to_path_buf(),
                waited_ms: started.elapsed().as_millis() as u64,
            });
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// Move the built index `build` to `dir`, replacing what is there.
fn put_in_place(build: &Path, dir: &Path) -> Result<()> {
    let io = |p: &Path, e: std::io::Error| Error::io(p, e);
    // another process may create or replace `dir` meanwhile: try again a few times
    for _ in 0..50 {
        match std::fs::symlink_metadata(dir) {
            Ok(m) if m.is_dir() => {
                match crate::base::write::exchange(build, dir) {
                    Ok(()) => {
                        // `build` now holds the previous index; readers of it keep their files
                        let _ = std::fs::remove_dir_all(build);
                        return Ok(());
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                    Err(_) => {
                        // no exchange on this filesystem: two renames, a short gap
                        let old = sibling(dir, "old");
                        if std::fs::rename(dir, &old).is_err() {
                            continue;
                        }
                        let moved = std::fs::rename(build, dir);
                        let _ = std::fs::remove_dir_all(&old);
                        if moved.is_ok() {
                            return Ok(());
                        }
                    }
                }
            }
            Ok(_) => {
                return Err(Error::Io {
                    path: dir.to_path_buf(),
                    message: "is a file where the search index directory should be; run `trilogy doctor --fix`: it moves the file aside".into(),
                });
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                if std::fs::rename(build, dir).is_ok() {
                    return Ok(());
                }
            }
            Err(e) => return Err(io(dir, e)),
        }
    }
    Err(Error::Busy {
        path: dir.to_path_buf(),
        waited_ms: 0,
    })
}
