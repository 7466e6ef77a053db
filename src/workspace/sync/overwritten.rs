//! Entries a merge wrote over before git knew them. `git merge` (and so `git pull`) checks the
//! work tree clean and later takes the index lock again to write its result, trusting the
//! check; a trilogy write landing between the two is overwritten, and the merged file — a
//! version git holds — then lacks entries git never saw. Such an entry is not a removal: it was
//! recorded before HEAD last moved and is in no version of the file the merge started from
//! (`ORIG_HEAD`), so no side of the merge can have meant to take it out; it stays, as an entry
//! recorded after the copy a save was made from does.
//!
//! The same holds for a merge that gave up: its strategy refused (the work tree changed under
//! it), so git puts the work tree back to HEAD and then reapplies the changes it stashed when
//! it began. For a moment the file is HEAD's version, and an entry recorded meanwhile is in no
//! version at all; HEAD has not moved. Such a merge leaves `ORIG_HEAD` naming HEAD's own
//! commit, and git does not write a ref again to the value it holds, so a second merge that
//! gives up from the same HEAD leaves `ORIG_HEAD`'s time as the first left it: the rule is
//! "`ORIG_HEAD` names HEAD's commit, or was written in the last [`MERGING`]", not the time
//! alone. A person's `git reset --hard` leaves `ORIG_HEAD` the same way; what it drops that was
//! never committed is kept once and reported, and dropping it again removes it (as for any
//! older copy put back). A person's `git checkout -- FILE` after a commit (HEAD moved past
//! `ORIG_HEAD`) still removes what was not committed. Reads git's files and asks git for one
//! blob and two commit ids; never writes.

use std::path::Path;

use crate::model::{EntryRecord, FileKind};

use super::{Tx, gitop};

/// How long after `ORIG_HEAD` is written a merge counts as under way: a merge on a loaded
/// machine was seen to take six seconds from its start to putting the work tree back.
const MERGING: std::time::Duration = std::time::Duration::from_secs(60);

/// What the last movement of HEAD by a merge, a pull or a reset left to compare with.
pub(super) struct LastMerge {
    /// When HEAD last moved (unix seconds, from its reflog).
    moved_at: i64,
    /// The file may be one a merge put back: the last merge, pull or reset left HEAD where it
    /// was (`ORIG_HEAD` names HEAD's commit), or wrote `ORIG_HEAD` within the last [`MERGING`].
    merging: bool,
    /// The file as the commit the merge started from held it.
    ours: String,
}

impl LastMerge {
    /// Whether `e`, missing from the version git wrote, was written over by the merge.
    pub(super) fn overwrote(&self, e: &EntryRecord) -> bool {
        let Ok(at) = chrono::DateTime::parse_from_rfc3339(&e.created_at) else {
            return false;
        };
        // a second either way: the reflog and the entry's time are both in whole seconds
        (self.merging || at.timestamp() <= self.moved_at + 1) && !self.ours.contains(&block(e))
    }
}

fn block(e: &EntryRecord) -> String {
    match e.body.is_empty() {
        true => format!("## {}\n", e.heading),
        false => format!("## {}\n{}", e.heading, e.body),
    }
}

impl Tx<'_> {
    /// The last merge's facts for file `f`, when `f` was just read as a version git wrote
    /// (outside a branch switch) and git's folder has an `ORIG_HEAD`.
    pub(super) fn last_merge(&self, f: FileKind) -> Option<LastMerge> {
        if !self.git.absorbed_from_index.contains(&f) || self.git.switched_from.is_some() {
            return None;
        }
        let root = self.ws.git()?;
        let dir = gitop::git_dir(root)?;
        let orig = std::fs::metadata(dir.join("ORIG_HEAD")).ok()?;
        if !orig.is_file() {
            return None;
        }
        let merging = (orig.modified().ok())
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age <= MERGING)
            || gitop::same_commit(root, "ORIG_HEAD", "HEAD") == Some(true);
        let moved_at = last_move(&dir.join("logs").join("HEAD"))?;
        let path = self.ws.memory_file(f).ok()?;
        let ours = gitop::version_at(root, "ORIG_HEAD", &path)?;
        Some(LastMerge {
            moved_at,
            merging,
            ours: String::from_utf8_lossy(&ours).into_owned(),
        })
    }
}

/// When HEAD last moved: the time on the last line of its reflog (`old new who <mail> SECONDS
/// ZONE\tmessage`). Only the file's tail is read.
fn last_move(reflog: &Path) -> Option<i64> {
    use std::io::{Read, Seek, SeekFrom};
    let mut file = std::fs::File::open(reflog).ok()?;
    let len = file.metadata().ok()?.len();
    let from = len.saturating_sub(4096);
    file.seek(SeekFrom::Start(from)).ok()?;
    let mut tail = String::new();
    file.take(4096).read_to_string(&mut tail).ok()?;
    let line = tail.lines().rev().find(|l| !l.trim().is_empty())?;
    let head = line.split('\t').next()?;
    let mut words = head.rsplitn(3, ' ');
    let _zone = words.next()?;
    words.next()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_time_head_last_moved_is_read_from_the_end_of_its_reflog() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("HEAD");
        std::fs::write(
            &log,
            "0000 1111 A <a@x> 1700000000 +0100\tcommit (initial): one\n\
             1111 2222 B <b@x> 1700000123 -0500\tpull: Merge made by the 'ort' strategy.\n",
        )
        .unwrap();
        assert_eq!(last_move(&log), Some(1_700_000_123));
        std::fs::write(&log, "").unwrap();
        assert_eq!(last_move(&log), None);
    }
}
