//! Steps 4 and 5 of the sync protocol: render the affected files, swap the changed ones in
//! (putting everything back when a concurrent save is found under one), commit.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::base::hex;
use crate::error::{Error, Result};
use crate::model::{FileKind, FileStamp};
use crate::store::Reader;

use super::super::fsio;
use super::render::Splice;
use super::{SyncReport, Tx, late, pending_key, render, written_key};
use crate::base::fault::{crash_point, pause_point};

impl Tx<'_> {
    /// The order files are written in: a file gaining entries before the file losing them,
    /// so a crash between the two leaves the entry in both (absorbed as a move), never in none.
    fn write_order(&self) -> Vec<FileKind> {
        use FileKind::*;
        let to_archive = self.moves.contains(&(Sessions, Archive));
        let from_archive = self.moves.contains(&(Archive, Sessions));
        let mut order = vec![Project, Decisions, Sessions, Archive];
        if to_archive && !from_archive {
            order = vec![Project, Decisions, Archive, Sessions];
        }
        order.retain(|f| self.dirty.contains(f) && !self.files.broken.contains_key(f));
        order
    }

    /// Steps 4 and 5: render the affected files, write the changed ones, commit. `Ok(None)`
    /// when a file changed on disk after it was absorbed: nothing has been written and the
    /// caller starts over with a fresh transaction (which takes the late saves again).
    pub(in crate::workspace) fn finish(mut self) -> Result<Option<SyncReport>> {
        let late = std::mem::take(&mut self.files.late_taken);
        let report = self.finish_committing()?;
        if report.is_some() {
            Tx::name_late_taken(late);
        }
        Ok(report)
    }

    /// [`Tx::finish`] up to its commit.
    fn finish_committing(mut self) -> Result<Option<SyncReport>> {
        if self.clearing {
            return self.finish_clear();
        }
        if self.dirty.contains(&FileKind::Archive)
            && !self.files.broken.contains_key(&FileKind::Sessions)
        {
            // the pointer line counts the archive
            self.dirty.insert(FileKind::Sessions);
        }
        if self.dirty.iter().any(|f| self.files.deferred.contains(f)) {
            // a file this command must write is being written by someone else: wait for it
            return Ok(None);
        }
        pause_point("before-write");
        if !self.project {
            return self.finish_read();
        }
        let hold = match self.write_order().is_empty() {
            true => None,
            false => self.hold_git(),
        };
        if let Some(why) = hold {
            return self.finish_deferred(why);
        }
        let Some((plan, splices, standing)) = self.plan_writes()? else {
            return Ok(None);
        };
        let Some(swaps) = self.swap_files(plan, splices, standing)? else {
            return Ok(None);
        };
        self.settle(swaps)?;
        let report = std::mem::take(&mut self.report);
        if self.changed || self.store.migrated() {
            crash_point("before-commit");
            self.store.commit()?;
        }
        Ok(Some(report))
    }

    /// A read: the store takes what the files say, and the files stay exactly as they are;
    /// whatever they lack is written by the next command that records something.
    fn finish_read(mut self) -> Result<Option<SyncReport>> {
        self.record_read_versions()?;
        let absorbed = std::mem::take(&mut self.files.stamps);
        for (f, st) in &absorbed {
            if !self.files.broken.contains_key(f) {
                self.store.set_stamp(*f, st)?;
                self.store.set_meta(&written_key(*f), 0)?;
                self.changed = true;
            }
        }
        // a file the store would write differently (a renamed legacy heading, a missing
        // file) is owed a write: the next command that records something makes it
        for f in self.write_order() {
            if self.git.pending.contains_key(&f) {
                continue;
            }
            if self.files.as_read.contains(&f) {
                // imported just now, in the very bytes the store renders: nothing owed
                self.changed = true;
                continue;
            }
            let (text, laid) = render::render_laid(&self.store, f, self.lang())?;
            let on_disk = self.files.seen.get(&f).cloned().flatten();
            if on_disk == Some(hex::sha1(text.as_bytes())) {
                // the same bytes: keep the simplest layout that gives them
                self.store.set_layout(f, laid.as_ref())?;
            } else {
                self.store.set_meta(&pending_key(f), self.git.seq_floor)?;
            }
            self.changed = true;
        }
        let report = std::mem::take(&mut self.report);
        if self.changed || self.store.migrated() {
            self.store.commit()?;
        }
        Ok(Some(report))
    }

    /// Git is rewriting the work tree (or the folder is read-only, `why`): the store takes the
    /// change now, the files wait for the first command that can write them.
    fn finish_deferred(mut self, why: &str) -> Result<Option<SyncReport>> {
        for f in self.write_order() {
            if !self.git.pending.contains_key(&f) {
                self.store.set_meta(&pending_key(f), self.git.seq_floor)?;
                self.changed = true;
            }
        }
        let mut report = std::mem::take(&mut self.report);
        report.files_deferred = Some(why.to_string());
        if self.changed || self.store.migrated() {
            self.store.commit()?;
        }
        Ok(Some(report))
    }

    /// Each file to write, rendered, with the archive's splices and the files that already
    /// stand as the store renders them; `None` when a file changed on disk after it was absorbed.
    fn plan_writes(&mut self) -> Result<Option<Plan>> {
        let mut plan = Vec::new();
        let mut splices = HashMap::new();
        let mut standing = Vec::new();
        for f in self.write_order() {
            let path = self.ws.memory_file(f)?;
            if self.files.as_read.contains(&f)
                && let Some(read) = self.files.stamps.get(&f)
                && fsio::stat_equal(&path, read)
            {
                // absorbed just now in the very bytes the store renders (an archive that
                // grew on top): nothing to render or write
                standing.push((f, read.clone()));
                continue;
            }
            if let Some(splice) = self.archive_splice(f, &path)? {
                // the archive gains entries on top: streamed from the file, never read whole
                splice.layout.keep(&self.store, f)?;
                splices.insert(f, Streamed::Splice(Box::new(splice)));
                plan.push((f, path, None, String::new(), Vec::new()));
                continue;
            }
            let now = fsio::read_stamped(&path)?;
            if self.files.seen.get(&f) != Some(&now.as_ref().map(|(_, st)| st.sha1.clone())) {
                return Ok(None);
            }
            // an archive with no file yet (an import into a new folder) and no layout: rendered
            // into the file from the store an entry at a time, never whole
            if f == FileKind::Archive && now.is_none() && self.store.layout_top(f)?.is_none() {
                splices.insert(f, Streamed::Canonical);
                plan.push((f, path, None, String::new(), Vec::new()));
                continue;
            }
            let (text, layout, prints) = render::render_printed(&self.store, f, self.lang())?;
            self.store.set_layout(f, layout.as_ref())?;
            plan.push((f, path, now, text, prints));
        }
        Ok(Some((plan, splices, standing)))
    }

    /// Swap each changed file in; the bytes displaced must be the ones absorbed, else a
    /// concurrent writer got in between: everything is put back and `None` says start over.
    fn swap_files(
        &mut self,
        plan: Vec<Planned>,
        mut splices: HashMap<FileKind, Streamed>,
        standing: Vec<(FileKind, FileStamp)>,
    ) -> Result<Option<Swaps>> {
        let rescue_dir = self.ws.rescue_dir()?;
        let tmp_dir = self.ws.inside(&self.ws.state_dir().join("tmp"))?;
        let mut s = Swaps {
            changed_files: standing,
            ..Swaps::default()
        };
        for (f, path, now, text, prints) in plan {
            if super::base::kept_for(f) {
                s.versions.push((f, prints));
            }
            let splice = splices.remove(&f);
            let unchanged = now
                .as_ref()
                .is_some_and(|(bytes, _)| bytes.as_slice() == text.as_bytes());
            if let (true, Some((_, disk_stamp))) = (unchanged, now) {
                s.changed_files.push((f, disk_stamp));
                continue;
            }
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
            }
            let (sw, displaced, intact) = self.swap_one(f, &path, &text, splice, &tmp_dir)?;
            if let Some((_, st)) = &displaced
                && intact
                && late::worth_keeping(st)
                && self.store.stamp(f)?.is_none_or(|s| s.sha1 != st.sha1)
            {
                s.keep_displaced.insert(f, st.clone());
            }
            s.changed_files.push((f, sw.stamp.clone()));
            s.swapped.push((f, sw));
            if !intact {
                // put everything back (a save that landed in a swapped-in version is kept
                // and absorbed by the retry), drop the transaction, start over
                self.undo_swaps(s.swapped, &rescue_dir)?;
                return Ok(None);
            }
            crash_point("after-first-write");
            pause_point("after-swap");
            self.report.written.push(self.ws.file_name(f).to_string());
        }
        Ok(Some(s))
    }

    /// Swap file `f`'s new version in at `path` (`text`, or the archive's `splice`): the swap,
    /// the version displaced (read back unless spliced), and whether that was the one absorbed.
    fn swap_one(
        &self,
        f: FileKind,
        path: &Path,
        text: &str,
        splice: Option<Streamed>,
        tmp_dir: &Path,
    ) -> Result<(fsio::Swapped, OnDisk, bool)> {
        Ok(match splice {
            Some(Streamed::Canonical) => {
                let lang = self.lang();
                let sw = fsio::swap_in_with(path, tmp_dir, |out| {
                    render::write_canonical_archive(&self.store, lang, out)
                })?;
                #[cfg(debug_assertions)]
                debug_assert_eq!(
                    std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?,
                    render::render_file(&self.store, f, lang)?,
                    "the archive written an entry at a time is its rendering"
                );
                // no file stood there when it was planned: one found now was saved meanwhile
                let intact = sw.previous.is_none();
                (sw, None, intact)
            }
            Some(Streamed::Splice(sp)) => {
                // trilogy's own last version, checked by stat: displacing that same
                // inode unchanged is the proof nobody saved in between
                let was = sp.stamp.clone();
                let sw = fsio::swap_in_with(path, tmp_dir, |out| sp.write_to(out))?;
                let intact = sw.previous.is_none() || sw.displaced_matches(&was);
                (sw, None, intact)
            }
            None => {
                let sw = fsio::swap_in(path, text.as_bytes(), tmp_dir)?;
                let displaced = sw.previous_stamped()?;
                let expected = self.files.seen.get(&f).cloned().flatten();
                let intact = match (&displaced, &sw.previous) {
                    (Some((b, _)), _) => Some(hex::sha1(b)) == expected,
                    (None, None) => true,
                    (None, Some(_)) => false,
                };
                (sw, displaced, intact)
            }
        })
    }

    /// Undo the swaps, newest first; a save that raced with them is kept in `rescue_dir`.
    fn undo_swaps(&self, swapped: Vec<(FileKind, fsio::Swapped)>, rescue_dir: &Path) -> Result<()> {
        for (f, sw) in swapped.into_iter().rev() {
            let expected = self.files.seen.get(&f).cloned().flatten();
            match sw.undo(expected.as_deref(), rescue_dir)? {
                fsio::Undone::Restored | fsio::Undone::KeptTheirSave => {}
                fsio::Undone::Rescued(to) => tracing::warn!(
                    "{}: two saves raced with trilogy's write; the older one was kept at {} (merge it by hand, then delete it)",
                    self.ws.file_name(f),
                    to.display()
                ),
            }
        }
        Ok(())
    }

    /// Once every file is in: the renames made durable, git let go of, the versions read and
    /// written recorded, and the new stamps kept.
    fn settle(&mut self, s: Swaps) -> Result<()> {
        // every rename is made durable by one sync of each directory, after the last of them
        let mut dirs = std::collections::BTreeSet::new();
        for (f, sw) in s.swapped {
            if let Some(d) = sw.path.parent() {
                dirs.insert(d.to_path_buf());
            }
            match s.keep_displaced.get(&f) {
                Some(st) => {
                    let to = late::displaced_path(self.ws, f, st)?;
                    if let Some(d) = to.parent() {
                        dirs.insert(d.to_path_buf());
                    }
                    sw.keep_previous_at(&to)?;
                }
                None => sw.keep()?,
            }
        }
        // the files are in place (their folder's sync only makes that durable): git may read
        // and rewrite them again
        self.release_git();
        for d in dirs {
            crate::base::write::sync_dir(&d);
        }
        self.record_read_versions()?;
        for (f, prints) in s.versions {
            if let Some((_, stamp)) = s.changed_files.iter().find(|(g, _)| *g == f) {
                let sha1 = stamp.sha1.clone();
                self.record_version(f, &sha1, prints)?;
            }
        }
        for (f, stamp) in s.changed_files {
            self.store.set_stamp(f, &stamp)?;
            self.store.set_meta(&written_key(f), 1)?;
            if self.git.pending.contains_key(&f) {
                self.store.set_meta(&pending_key(f), 0)?;
            }
            self.changed = true;
        }
        Ok(())
    }
}

/// A file's bytes and stamp as read (`None`: missing).
type OnDisk = Option<(Vec<u8>, FileStamp)>;

/// A file to write: the file, its path, what is on disk now, the text to write and its prints.
type Planned = (FileKind, PathBuf, OnDisk, String, Vec<crate::store::Print>);

/// The archive written as it is produced, never held whole: spliced (entries on top of the
/// file), or rendered canonically from the store where there was no file.
enum Streamed {
    Splice(Box<Splice>),
    Canonical,
}

/// The files to write, the archive when it is written as it is produced, and the files found
/// already as they should be (with their stamps).
type Plan = (
    Vec<Planned>,
    HashMap<FileKind, Streamed>,
    Vec<(FileKind, FileStamp)>,
);

/// What swapping the files in did, made durable and recorded once all are in.
#[derive(Default)]
struct Swaps {
    swapped: Vec<(FileKind, fsio::Swapped)>,
    /// Displaced versions that were saves by someone else moments ago: kept for a while, in
    /// case their writer is not done with them (see `late`).
    keep_displaced: HashMap<FileKind, FileStamp>,
    /// Each file written (or found already as it should be) with its stamp.
    changed_files: Vec<(FileKind, FileStamp)>,
    /// What each file holds once written: recorded as its newest version.
    versions: Vec<(FileKind, Vec<crate::store::Print>)>,
}
