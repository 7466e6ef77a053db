//! Lock files: a file that only serves as a lock, held with `flock`-style whole-file locks
//! (std's `File::lock`/`try_lock`), and the probe that tells whether another open of a store
//! file holds one of its locks.

use std::path::Path;

/// Open (creating it) a file that only serves as a lock: without waiting on a FIFO left at its
/// name, and refused when it is not a regular file.
pub fn open_lock_file(path: &Path) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.create(true).truncate(false).write(true);
    let file = super::fence::open_with(path, &mut options, false)?;
    if !file.metadata().is_ok_and(|m| m.is_file()) {
        return Err(std::io::Error::other(format!(
            "{}; delete it and trilogy makes the lock file again",
            super::fence::NOT_REGULAR
        )));
    }
    Ok(file)
}

/// Whether another open of the file at `path` holds a lock on it (as every handle on a redb
/// store does while it is open). Probed with a whole-file write lock taken and given back at
/// once, without waiting (this process must hold no handle on it). A filesystem without locks
/// holds none.
pub fn held_elsewhere(path: &Path) -> bool {
    // a write lock needs a handle opened for writing; nothing is written through it
    std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(path)
        .is_ok_and(|f| locked_elsewhere(&f))
}

/// Unix: a record lock (`fcntl`), which redb's handles hold.
#[cfg(unix)]
fn locked_elsewhere(f: &std::fs::File) -> bool {
    use rustix::fs::{FlockOperation, fcntl_lock};
    use rustix::io::Errno;
    match fcntl_lock(f, FlockOperation::NonBlockingLockExclusive) {
        Ok(()) => {
            let _ = fcntl_lock(f, FlockOperation::NonBlockingUnlock);
            false
        }
        Err(e) => e == Errno::AGAIN || e == Errno::ACCESS,
    }
}

/// Windows: locks are on byte ranges of a handle, and a whole-file lock conflicts with any.
#[cfg(windows)]
fn locked_elsewhere(f: &std::fs::File) -> bool {
    match f.try_lock() {
        Ok(()) => {
            let _ = f.unlock();
            false
        }
        Err(std::fs::TryLockError::WouldBlock) => true,
        Err(std::fs::TryLockError::Error(_)) => false,
    }
}
