//! Step 2 of the protocol: absorb every memory file whose bytes differ from what the store
//! renders. Each file is looked at once (its stamp, git's lock, a save still under way, a
//! missing or emptied file), what changed is parsed, and the parsed files are applied under
//! the actor of the change (a person's edit or a checkout). It never writes a memory file.

use std::path::Path;

use crate::error::Result;
use crate::markdown;
use crate::model::{FileKind, FileStamp};
use crate::store::Reader;

use super::super::fsio;
use super::stream::{self, Changed};
use super::{
    Broken, CHECKOUT, MID_LINE_QUIET, QUIET_LIMIT, Tx, gitop, pending_key, render_file, switch,
    wholesale, written_key,
};

/// A file's bytes and their stamp, as read (`None`: the file is missing).
type Read = Option<(Vec<u8>, FileStamp)>;

impl Tx<'_> {
    /// Step 2: absorb every file whose bytes differ from what the store renders.
    /// `trust_stat`: skip reading a file whose stat matches its stamp (false on a retry, so a
    /// change the stat cannot show is still found).
    pub(in crate::workspace) fn absorb(
        &mut self,
        files: &[FileKind],
        trust_stat: bool,
    ) -> Result<()> {
        let fresh = self.store.meta("absorbed_once")? == 0;
        if !fresh {
            self.absorb_late_saves()?;
        }
        self.git.seq_floor = self.store.meta("next_seq")? + 1;
        // after `trilogy clear` the files are missing on purpose (see `wholesale`)
        let cleared = self.store.meta(wholesale::CLEARED)? == 1;
        for f in FileKind::ALL {
            let since = self.store.meta(&pending_key(f))?;
            if since > 0 {
                self.git.pending.insert(f, since);
            }
        }
        let last_head = self.store.git_head()?;
        if let (Some(last), Some(now)) = (&last_head, &self.git.head)
            && switch::is_switch(last, now)
        {
            self.git.switched_from = Some(last.clone());
        }
        let mut changed_docs: Vec<(FileKind, Changed)> = Vec::new();
        // while git rewrites the work tree the files are in flux: they are neither read nor
        // written until it is done (entries recorded meanwhile are kept, see `pending`); git is
        // asked only once a file needs reading, so an unchanged workspace pays nothing for it
        let mut git_busy: Option<bool> = None;
        for &f in files {
            if let Some(p) = self.look_at(f, trust_stat, cleared, &mut git_busy)? {
                changed_docs.push((f, p));
            }
        }
        self.after_looking(fresh, git_busy == Some(true), cleared)?;
        // a checkout that moved HEAD while the files were read (git drops its index lock
        // before it writes HEAD): nothing is absorbed, the next command reads it whole
        if !changed_docs.is_empty() && self.ws.git().and_then(gitop::head) != self.git.head {
            for (f, _) in changed_docs.drain(..) {
                self.files.deferred.insert(f);
                self.files.stamps.remove(&f);
            }
        }
        // the head is recorded once every file was looked at under it: a file left for a later
        // command (or one that does not parse) is still read as part of the switch
        let looked = git_busy != Some(true)
            && self.files.deferred.is_empty()
            && self.files.broken.is_empty();
        if looked
            && let Some(now) = &self.git.head
            && last_head.as_ref() != Some(now)
        {
            self.store.set_git_head(now)?;
            self.changed = true;
        }
        self.apply_changed(changed_docs, fresh, looked)
    }

    /// Look at file `f`: what changed in it, parsed; `None` when there is nothing to apply
    /// (unchanged, left for later, missing, or not parsing).
    fn look_at(
        &mut self,
        f: FileKind,
        trust_stat: bool,
        cleared: bool,
        git_busy: &mut Option<bool>,
    ) -> Result<Option<Changed<'static>>> {
        let path = self.ws.memory_file(f)?;
        let stamp = self.store.stamp(f)?;
        let stamped_at = self.store.stamped_at(f)?;
        if let Some(s) = &stamp
            && trust_stat
            && fsio::stat_matches(&path, s, stamped_at)
        {
            self.files.seen.insert(f, Some(s.sha1.clone()));
            return Ok(None);
        }
        if *git_busy.get_or_insert_with(|| self.hold_git().is_some()) {
            return Ok(None);
        }
        // someone else wrote the file: read it once they have stopped writing (a program may
        // save in several `write()` calls); one still writing is left for a later command
        let ours = stamp.as_ref().is_some_and(|s| fsio::stat_equal(&path, s));
        if !ours && !fsio::wait_quiet(&path, fsio::QUIET, QUIET_LIMIT) {
            self.files.deferred.insert(f);
            return Ok(None);
        }
        if ours
            && let Some(s) = &stamp
            && let Some(disk) = fsio::hash_stamped(&path)?
            && disk.sha1 == s.sha1
        {
            // the version trilogy last wrote or read, by its hash (taken a block at a time,
            // so a 20 MB archive is never held in memory): only its stamp may need recording
            self.files.seen.insert(f, Some(disk.sha1.clone()));
            let settled = fsio::is_racy(s, stamped_at) && fsio::vouches(&disk);
            if disk != *s || settled {
                self.store.set_stamp(f, &disk)?;
                self.changed = true;
            }
            return Ok(None);
        }
        // entries written on top of the archive trilogy last wrote are read alone
        if f == FileKind::Archive
            && !ours
            && let Some(s) = &stamp
            && self.absorb_grown_archive(&path, s)?
        {
            return Ok(None);
        }
        // a first import takes the archive from the file a chunk at a time, never whole
        if f == FileKind::Archive
            && !ours
            && let Some(file) = self.fresh_archive_file(&path)?
        {
            return Ok(Some(file));
        }
        if self.past_whole_read(f, &path, stamp.as_ref())? {
            return Ok(None);
        }
        let Some(read) = self.read_settled(f, &path, ours)? else {
            return Ok(None);
        };
        self.files
            .seen
            .insert(f, read.as_ref().map(|(_, st)| st.sha1.clone()));
        if self.is_missing(f, &read, cleared)? {
            return Ok(None);
        }
        let Some((bytes, disk_stamp)) = read else {
            return Ok(None);
        };
        if let Some(s) = &stamp
            && s.sha1 == disk_stamp.sha1
        {
            // a new stat, or a racy stamp that can now be trusted: record it again
            let settled = fsio::is_racy(s, stamped_at) && fsio::vouches(&disk_stamp);
            if disk_stamp != *s || settled {
                self.store.set_stamp(f, &disk_stamp)?;
                self.changed = true;
            }
            return Ok(None);
        }
        self.parse_changed(f, &path, bytes, disk_stamp)
    }

    /// The archive at `path` as a first import reads it from disk (see `stream::scan`): `None`
    /// when the store was filled before, or the file is to be read whole.
    fn fresh_archive_file(&mut self, path: &Path) -> Result<Option<Changed<'static>>> {
        let f = FileKind::Archive;
        if self.store.meta("absorbed_once")? != 0 || self.store.file_count(f)? != 0 {
            return Ok(None);
        }
        let Some(file) = stream::scan(path, self.ws.git())? else {
            return Ok(None);
        };
        // the store's rendering of an empty archive is no file that holds an entry
        if render_file(&self.store, f, self.lang())?.len() as u64 == file.stamp.len {
            return Ok(None);
        }
        // a version git holds is meant as it is (as `parse_changed` has it)
        if let (Some(root), Some(blob)) = (self.ws.git(), &file.blob)
            && gitop::is_git_blob(root, blob)
        {
            self.git.same_as_index.insert(f);
            self.git.absorbed_from_index.insert(f);
        }
        self.files.seen.insert(f, Some(file.stamp.sha1.clone()));
        self.files.stamps.insert(f, file.stamp.clone());
        Ok(Some(Changed::ArchiveFile(file)))
    }

    /// True when file `f` changed past what trilogy reads whole. Only the archive grows that
    /// far, and what trilogy does with it then reads it a block at a time: its own writes,
    /// entries added on top, a first import. Any other change to it is reported and the file
    /// left untouched, as one that does not parse is; the other files go on, and sessions stay
    /// in SESSIONS.md until the archive is put back.
    /// The version trilogy last wrote or read, saved again (by its hash, a block at a time),
    /// is no change: its stamp is recorded.
    fn past_whole_read(
        &mut self,
        f: FileKind,
        path: &Path,
        stamp: Option<&FileStamp>,
    ) -> Result<bool> {
        let len = std::fs::metadata(path).map_or(0, |m| m.len());
        let cap = crate::base::fault::whole_read_cap(fsio::MAX_FILE_BYTES);
        if f != FileKind::Archive || len <= cap {
            return Ok(false);
        }
        if let Some(disk) = fsio::hash_stamped(path)?
            && stamp.is_some_and(|s| s.sha1 == disk.sha1)
        {
            self.files.seen.insert(f, Some(disk.sha1.clone()));
            self.store.set_stamp(f, &disk)?;
            self.changed = true;
            return Ok(true);
        }
        let e = markdown::ParseError {
            line: 1,
            reason: format!(
                "{} MiB, more than the {} MiB trilogy reads whole, and changed other than by \
                 entries added on top (or it has CRLF line ends, a byte-order mark, conflict \
                 markers or a pointer line); trilogy reads an archive this large only from the \
                 top, a block at a time: put back the version trilogy wrote (`git checkout -- \
                 {}` when it is committed) and add entries on top only",
                len >> 20,
                cap >> 20,
                path.strip_prefix(&self.ws.root).unwrap_or(path).display()
            ),
        };
        self.mark_broken(f, path, e);
        Ok(true)
    }

    /// File `f` at `path` is reported and left untouched until fixed by hand (`e` says why).
    fn mark_broken(&mut self, f: FileKind, path: &Path, e: markdown::ParseError) {
        self.report.unparseable.push(Broken {
            file: f,
            path: path.display().to_string(),
            line: e.line,
            reason: e.reason.clone(),
        });
        self.files.broken.insert(f, e);
    }

    /// Read file `f` (not `ours`, the version trilogy last stamped); `None` when a save seems
    /// still under way and the file is left for a later command.
    fn read_settled(&mut self, f: FileKind, path: &Path, ours: bool) -> Result<Option<Read>> {
        let mut read = fsio::read_stamped(path)?;
        // every file trilogy writes, and every editor's save, ends with a newline: a file cut
        // mid-line is more likely a save still under way, so it must stay quiet for longer
        if !ours
            && read
                .as_ref()
                .is_some_and(|(b, _)| !b.is_empty() && !b.ends_with(b"\n"))
        {
            if !fsio::wait_quiet(path, MID_LINE_QUIET, QUIET_LIMIT + MID_LINE_QUIET) {
                self.files.deferred.insert(f);
                return Ok(None);
            }
            read = fsio::read_stamped(path)?;
            // still cut mid-line, and written in the last two seconds: a save under way (a
            // writer paused by a busy machine) is left alone like an emptied file; a command
            // that must write it waits for the rest
            if let Some((b, st)) = &read
                && !b.is_empty()
                && !b.ends_with(b"\n")
                && fsio::is_fresh(st)
            {
                self.files.deferred.insert(f);
                return Ok(None);
            }
        }
        Ok(Some(read))
    }

    /// Whether file `f`, as `read`, is missing or empty, and so rendered again from the store
    /// (or started again from its template after `trilogy clear`); true too for a file emptied
    /// moments ago, which is left for later.
    fn is_missing(&mut self, f: FileKind, read: &Read, cleared: bool) -> Result<bool> {
        // a missing file, and an empty one, is rendered again from the store: an empty
        // file is never read as "delete everything". Editors and tools truncate before they
        // write: a file emptied moments ago is left alone until that write is done (or two
        // seconds pass)
        let missing = match read {
            None => true,
            Some((bytes, st)) if bytes.is_empty() => {
                if fsio::is_fresh(st) {
                    self.files.deferred.insert(f);
                    return Ok(true);
                }
                true
            }
            Some(_) => false,
        };
        if missing && cleared {
            if self.project {
                self.start_from_template(f)?;
            }
            return Ok(true);
        }
        if missing {
            if f == FileKind::Project && self.store.sections()?.is_empty() {
                // a folder that never had a PROJECT.md gets the template's five sections
                let template = self.ws.file_template(f)?;
                if let Ok(p) = markdown::parse(&template, false) {
                    self.apply_project(&p.doc, true)?;
                }
            }
            let wanted = f != FileKind::Archive || self.store.file_count(FileKind::Archive)? > 0;
            if wanted {
                self.dirty.insert(f);
                self.changed = true;
            }
        }
        Ok(missing)
    }

    /// File `f` differs from the last write (or was never written): compared with the store's
    /// rendering, and parsed when it differs; a file that does not parse is reported.
    fn parse_changed(
        &mut self,
        f: FileKind,
        path: &Path,
        bytes: Vec<u8>,
        disk_stamp: FileStamp,
    ) -> Result<Option<Changed<'static>>> {
        let rendered = render_file(&self.store, f, self.lang())?;
        if rendered.as_bytes() == bytes.as_slice() {
            self.store.set_stamp(f, &disk_stamp)?;
            self.store.set_meta(&written_key(f), 0)?;
            self.changed = true;
            return Ok(None);
        }
        // a first import reads a large archive a chunk at a time (see `stream`): its text is
        // checked as UTF-8 once, and kept without a copy
        let fresh_archive = f == FileKind::Archive && self.store.meta("absorbed_once")? == 0;
        let (text, bytes) = match fresh_archive {
            true => match String::from_utf8(bytes) {
                Ok(t) if stream::suits(&t) => (Some(t), Vec::new()),
                Ok(t) => (None, t.into_bytes()),
                Err(e) => (None, e.into_bytes()),
            },
            false => (None, bytes),
        };
        let read: &[u8] = text.as_deref().map_or(&bytes, str::as_bytes);
        let strip = matches!(f, FileKind::Sessions | FileKind::Archive);
        let parsed = match &text {
            Some(_) => Ok(None),
            None => markdown::parse_bytes(&bytes, strip).map(Some),
        };
        match parsed {
            Ok(p) => {
                if f == FileKind::Project {
                    let day = self
                        .ws
                        .git()
                        .map_or(1, |g| gitop::project_day(g, path, read));
                    self.store.set_meta(gitop::PROJECT_DAY_KEY, day)?;
                }
                // a version git holds (a checkout, a pull, a reset, a file restored from
                // history) is meant as it is: its removals are honoured (PROJECT.md's
                // sections are taken as they are, not merged with the store's lines)
                if self
                    .ws
                    .git()
                    .is_some_and(|g| gitop::is_git_version(g, read))
                {
                    self.git.same_as_index.insert(f);
                    self.git.absorbed_from_index.insert(f);
                }
                self.files.stamps.insert(f, disk_stamp.clone());
                Ok(Some(match (p, text) {
                    (Some(p), _) => Changed::Parsed(p),
                    (None, Some(t)) => Changed::Archive(t.into()),
                    (None, None) => unreachable!("a file is parsed unless its text is streamed"),
                }))
            }
            Err(e) => {
                self.mark_broken(f, path, e);
                Ok(None)
            }
        }
    }

    /// Once every file was looked at: the first import marked done, PROJECT.md's day learnt,
    /// a cleared memory started again, and the files git kept trilogy from writing marked.
    fn after_looking(&mut self, fresh: bool, git_busy: bool, cleared: bool) -> Result<()> {
        // the first import is done once every file was read: one left for a save in flight is
        // imported, as the rest were, by the next command
        if fresh && !git_busy && self.files.deferred.is_empty() {
            self.store.set_meta("absorbed_once", 1)?;
            self.changed = true;
        }
        // a store that kept no day for PROJECT.md (older ones kept none for a version git does
        // not hold) learns it once here, so no session start has to ask git
        if self.store.meta(gitop::PROJECT_DAY_KEY)? == 0
            && let Ok(path) = self.ws.memory_file(FileKind::Project)
            && let Ok(Some(bytes)) = fsio::read_file(&path, fsio::MAX_FILE_BYTES)
        {
            let day = self
                .ws
                .git()
                .map_or(1, |g| gitop::project_day(g, &path, &bytes));
            self.store.set_meta(gitop::PROJECT_DAY_KEY, day)?;
            self.changed = true;
        }
        if cleared && self.project && !self.files.deferred.is_empty() {
            // not every file could start again yet: stay cleared for the next command
        } else if cleared && self.project {
            self.store.set_meta(wholesale::CLEARED, 0)?;
            self.changed = true;
        }
        // files a git operation kept trilogy from writing are written now (finish checks git)
        for f in self.git.pending.keys() {
            self.dirty.insert(*f);
        }
        Ok(())
    }

    /// Apply the files that changed, as a person's edit or (during a branch switch) as the
    /// checkout; then record the versions read.
    fn apply_changed(
        &mut self,
        changed_docs: Vec<(FileKind, Changed)>,
        fresh: bool,
        looked: bool,
    ) -> Result<()> {
        let actor = match self.git.switched_from {
            Some(_) => CHECKOUT,
            None => "file-edit",
        };
        let result = self.as_author(self.author.as_actor(actor), |tx| {
            let mut result = match changed_docs.is_empty() {
                true => Ok(()),
                false => tx.apply_docs(changed_docs, fresh),
            };
            if result.is_ok() && looked && tx.git.switched_from.is_some() {
                result = tx.settle_switch();
            }
            result
        });
        // what the operation then writes is its own doing, not the checkout's
        self.git.switched_from = None;
        // the versions read are recorded too: a later save from the same copy (an editor's
        // next save) is made from them, not from what trilogy writes in their place
        for (f, st) in &self.files.stamps {
            if let Some(p) = self.files.prints.remove(f) {
                self.files.versions.push((*f, st.sha1.clone(), p));
            }
        }
        self.files.prints.clear();
        result?;
        self.begin_section_versions()
    }
}
