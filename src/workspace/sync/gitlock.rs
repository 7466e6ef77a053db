//! Git and trilogy never write a memory file at the same time. While trilogy reads memory files
//! it found changed, and while it swaps its own versions in, it holds git's own lock on the
//! index (`index.lock` in the work tree's git folder), the lock every git command that reads or
//! rewrites the work tree takes first (commit, merge, pull, checkout, reset, stash, rebase). A
//! git command started meanwhile fails at once ("Unable to create … index.lock: File exists")
//! and changes nothing; trilogy, finding git's lock, writes the files later (`pending`). A stash
//! saving the work tree reads it without that lock, so it is waited out the same way (see
//! `gitop::stash_saving`).
//!
//! Without the lock, git could check a file clean, trilogy swap an entry in, and git then write
//! its merge result over it: an entry in the store that no file holds, and the next read of the
//! file (a version git holds) taking it as removed.
//!
//! trilogy's lock holds one line, `trilogy <pid> <unix ms>`. A lock of trilogy's whose process is
//! gone (killed while holding it), or that is far older than any hold, is removed by the next
//! command that takes the lock, by every read, and by `doctor --fix`. Git's own locks are never
//! touched.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::gitop;

/// The first word of a lock trilogy holds.
const MARK: &str = "trilogy";

/// Past this age a lock of trilogy's is stale whatever its pid says (a pid reused by another
/// process): trilogy holds it for milliseconds.
const STALE_AFTER: Duration = Duration::from_secs(300);

/// Git's index lock, held by this process until dropped.
#[derive(Debug)]
pub(crate) struct IndexLock {
    path: PathBuf,
}

impl Drop for IndexLock {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// What asking for the lock found.
#[derive(Debug)]
pub(crate) enum Taken {
    /// Held: no git command reads or rewrites the work tree until it is dropped.
    Held(IndexLock),
    /// A git command holds the index, or an operation (merge, rebase, …) is under way.
    Busy(&'static str),
    /// Not in a git work tree: nothing to hold.
    NoRepo,
}

/// Take git's index lock for the work tree holding `root`.
pub(crate) fn take(root: &Path) -> Taken {
    let Some(dir) = gitop::git_dir(root) else {
        return Taken::NoRepo;
    };
    if !dir.is_dir() {
        return Taken::NoRepo;
    }
    // a rebase or merge under way takes the lock at each of its steps: one taken between two
    // of them would make the next step fail, so it is looked for first
    if let Some(why) = gitop::in_progress_besides_index(&dir) {
        return Taken::Busy(why);
    }
    let path = dir.join("index.lock");
    let lock = match create(&path) {
        Ok(l) => l,
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            // a lock trilogy left behind is cleared, then taken; git's own is waited out
            if !clear_stale_at(&path) {
                return Taken::Busy(BUSY);
            }
            match create(&path) {
                Ok(l) => l,
                Err(_) => return Taken::Busy(BUSY),
            }
        }
        // a git folder trilogy cannot write (read-only, another owner): git's own commands
        // there cannot run either, and the files are guarded as before by looking
        Err(_) => {
            return match gitop::in_progress(root) {
                Some(why) => Taken::Busy(why),
                None => Taken::NoRepo,
            };
        }
    };
    // the operations that span several git commands leave their marks between them
    if let Some(why) = gitop::in_progress_besides_index(&dir) {
        return Taken::Busy(why);
    }
    Taken::Held(lock)
}

/// Why files wait while git holds the index.
const BUSY: &str = "a git command holds the index (index.lock)";

fn create(path: &Path) -> std::io::Result<IndexLock> {
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)?;
    let lock = IndexLock {
        path: path.to_path_buf(),
    };
    let line = format!(
        "{MARK} {} {}\n",
        std::process::id(),
        crate::base::clock::wall_ms()
    );
    // the lock is held from its creation: a failed write leaves a lock the drop removes
    let _ = f.write_all(line.as_bytes());
    Ok(lock)
}

/// Run `f` while holding git's index lock for the work tree holding `root` (or with no lock
/// outside a repository); `Err` names the git operation that holds it, and `f` is not run.
pub fn while_git_waits<R>(root: &Path, f: impl FnOnce() -> R) -> Result<R, &'static str> {
    match take(root) {
        Taken::Held(lock) => {
            let r = f();
            drop(lock);
            Ok(r)
        }
        Taken::Busy(why) => Err(why),
        Taken::NoRepo => Ok(f()),
    }
}

/// Remove git's index lock of the work tree holding `root` when trilogy left it (its process
/// is gone, or it is stale); the path removed.
pub fn clear_stale(root: &Path) -> Option<PathBuf> {
    let path = gitop::git_dir(root)?.join("index.lock");
    (path.exists() && clear_stale_at(&path)).then_some(path)
}

/// Git's index lock of the work tree holding `root` when trilogy left it behind (its process is
/// gone, or it is stale), without removing it.
pub fn stale_lock(root: &Path) -> Option<PathBuf> {
    let path = gitop::git_dir(root)?.join("index.lock");
    let text = crate::base::fence::read_small_text(&path, 256)?;
    stale(&text).then_some(path)
}

/// Whether the lock at `path` was trilogy's and stale, and is now removed.
fn clear_stale_at(path: &Path) -> bool {
    let Some(text) = crate::base::fence::read_small_text(path, 256) else {
        return false;
    };
    if !stale(&text) {
        return false;
    }
    // moved aside before it is removed: a lock another trilogy took in its place meanwhile is
    // put back, never removed
    let aside = path.with_extension(format!("lock.stale-{}", std::process::id()));
    if std::fs::rename(path, &aside).is_err() {
        return false;
    }
    let moved = crate::base::fence::read_small_text(&aside, 256);
    if moved.as_deref() != Some(text.as_str()) {
        let _ = std::fs::hard_link(&aside, path);
        let _ = std::fs::remove_file(&aside);
        return false;
    }
    std::fs::remove_file(&aside).is_ok()
}

/// Whether a lock holding `text` is trilogy's and its holder gone.
fn stale(text: &str) -> bool {
    let mut words = text.split_whitespace();
    if words.next() != Some(MARK) {
        return false;
    }
    let (Some(pid), Some(at)) = (words.next(), words.next()) else {
        return false;
    };
    let Ok(at) = at.parse::<u64>() else {
        return false;
    };
    let age = crate::base::clock::wall_ms().saturating_sub(at);
    u128::from(age) > STALE_AFTER.as_millis() || !crate::base::process::pid_alive(pid)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repo() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join(".git")).unwrap();
        std::fs::write(dir.path().join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
        dir
    }

    #[test]
    fn the_lock_is_held_until_dropped_and_names_its_process() {
        let dir = repo();
        let lock = dir.path().join(".git/index.lock");
        let Taken::Held(held) = take(dir.path()) else {
            panic!("not taken")
        };
        let text = std::fs::read_to_string(&lock).unwrap();
        assert!(text.starts_with(&format!("trilogy {} ", std::process::id())));
        assert!(matches!(take(dir.path()), Taken::Busy(_)));
        // a live holder's lock is never cleared
        assert_eq!(clear_stale(dir.path()), None);
        drop(held);
        assert!(!lock.exists());
    }

    #[test]
    fn gits_own_lock_and_operations_under_way_are_waited_out() {
        let dir = repo();
        let lock = dir.path().join(".git/index.lock");
        std::fs::write(&lock, b"DIRC\0\0\0\x02").unwrap();
        assert!(matches!(take(dir.path()), Taken::Busy(_)));
        assert_eq!(clear_stale(dir.path()), None);
        assert!(lock.exists());
        std::fs::remove_file(&lock).unwrap();
        std::fs::write(dir.path().join(".git/MERGE_HEAD"), "0\n").unwrap();
        assert!(matches!(take(dir.path()), Taken::Busy(w) if w.contains("merge")));
        // taken and let go again: git's next command finds no lock
        assert!(!lock.exists());
    }

    #[test]
    fn a_lock_whose_holder_is_gone_is_cleared_and_taken() {
        let dir = repo();
        let lock = dir.path().join(".git/index.lock");
        let now = crate::base::clock::wall_ms();
        // a process that has exited (and been waited for); an old lock is stale whatever its pid
        let mut gone = std::process::Command::new("true").spawn().unwrap();
        gone.wait().unwrap();
        for text in [
            format!("trilogy {} {now}\n", gone.id()),
            format!("trilogy {} 1000\n", std::process::id()),
        ] {
            std::fs::write(&lock, &text).unwrap();
            assert_eq!(clear_stale(dir.path()), Some(lock.clone()));
            assert!(!lock.exists());
            std::fs::write(&lock, &text).unwrap();
            assert!(matches!(take(dir.path()), Taken::Held(_)));
            assert!(!lock.exists());
        }
    }

    #[test]
    fn no_repository_is_nothing_to_hold() {
        let dir = tempfile::tempdir().unwrap();
        assert!(matches!(take(dir.path()), Taken::NoRepo));
    }
}
