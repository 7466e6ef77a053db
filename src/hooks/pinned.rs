//! The workspace each agent session started in, kept outside any project so a later hook of
//! the same session finds it whatever its `cwd` says: `$XDG_STATE_HOME/trilogy/sessions/`
//! (else `~/.local/state/trilogy/sessions/`), one small file per session holding the root.
//! Best effort: a session that cannot be pinned falls back to the location rule.

use std::path::{Path, PathBuf};

fn dir(env: &[(String, String)]) -> Option<PathBuf> {
    Some(crate::base::dirs::state(env)?.join("sessions"))
}

fn file(env: &[(String, String)], host: &str, id: &str) -> Option<PathBuf> {
    let name = crate::base::hex::sha1_prefix(format!("{host}\n{id}").as_bytes(), 10);
    Some(dir(env)?.join(name))
}

/// The root the session was pinned to, when it is still a folder.
pub fn root(env: &[(String, String)], host: &str, id: &str) -> Option<PathBuf> {
    let text = crate::base::fence::read_small_text(&file(env, host, id)?, 64 << 10)?;
    let root = PathBuf::from(text.trim_end_matches('\n'));
    (root.is_absolute() && root.is_dir()).then_some(root)
}

/// Pin the session to `root` (best effort).
pub fn pin(env: &[(String, String)], host: &str, id: &str, root: &Path) {
    let Some(path) = file(env, host, id) else {
        return;
    };
    let Some(parent) = path.parent() else { return };
    if std::fs::create_dir_all(parent).is_err() {
        return;
    }
    sweep(parent);
    // whole or absent (temp file + rename), but not synced: a pin lost to a power cut costs
    // nothing the location rule does not find again, and a sync would cost every session start
    let text = format!("{}\n", root.display());
    use crate::base::write::{Whole, write_whole};
    let written = write_whole(&path, text.as_bytes(), Whole::Private);
    if let Err(e) = written {
        tracing::debug!(error = %e, "could not pin the session's workspace");
    }
}

/// Sessions pinned more than thirty days ago are over: their files go. Looked for at most
/// once a day (the time of the last look is `.swept`'s), so a session start does not stat
/// every session of the month.
fn sweep(dir: &Path) {
    let month = std::time::Duration::from_secs(30 * 24 * 3600);
    let day = std::time::Duration::from_secs(24 * 3600);
    let marker = dir.join(".swept");
    let recent = std::fs::metadata(&marker)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.elapsed().ok())
        .is_some_and(|age| age < day);
    if recent || std::fs::write(&marker, b"").is_err() {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let old = e
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age > month);
        if old {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn age(path: &Path, days: u64) {
        let t = std::time::SystemTime::now() - std::time::Duration::from_secs(days * 24 * 3600);
        std::fs::File::options()
            .write(true)
            .open(path)
            .unwrap()
            .set_modified(t)
            .unwrap();
    }

    #[test]
    fn pins_older_than_a_month_go_at_most_once_a_day() {
        let dir = tempfile::tempdir().unwrap();
        let (old, new) = (dir.path().join("old"), dir.path().join("new"));
        std::fs::write(&old, "/x\n").unwrap();
        std::fs::write(&new, "/y\n").unwrap();
        age(&old, 31);
        sweep(dir.path());
        assert!(!old.exists() && new.exists());
        // a month-old pin found the same day waits for the next day's look
        let later = dir.path().join("later");
        std::fs::write(&later, "/z\n").unwrap();
        age(&later, 40);
        sweep(dir.path());
        assert!(later.exists());
        age(&dir.path().join(".swept"), 2);
        sweep(dir.path());
        assert!(!later.exists() && new.exists());
    }
}
