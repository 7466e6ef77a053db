//! Whole files from outside the files themselves: a file's text taken into the store as a hand
//! edit by a named writer (a save from the panel, a bundle import), and the clear of a
//! workspace's memory, recorded in the store before the files go.
//!
//! After a clear the memory files are missing on purpose: reads leave them missing, and the
//! first command that writes (a session's scaffolding, `init`, a checkpoint) starts them again
//! from the templates. Every cleared entry stays in the store, `removed`, and can be restored.

use crate::error::{Error, Result};
use crate::markdown;
use crate::model::{FileKind, State};
use crate::store::Reader;

use super::stream::{self, Changed};
use super::{Tx, fsio};

/// Store meta key: 1 after `trilogy clear`, until the files are started again from templates.
pub(crate) const CLEARED: &str = "cleared";

/// What a clear marked in the store.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct ClearedCounts {
    /// Entries tombstoned (now `removed`, restorable by id).
    pub entries: usize,
    /// PROJECT sections tombstoned (restorable by revision).
    pub sections: usize,
    /// The `clear` event (its sequence number): `restore_cleared` undoes it.
    pub event: u64,
}

/// The op of the event naming the archived entries a clear took out (logged just before the
/// `clear` event itself).
pub const CLEAR_ARCHIVE: &str = "clear-archive";

/// The ids the store gives the entries of `doc`, a parsed `f` (DECISIONS, SESSIONS or the
/// archive), in file order.
pub fn entry_ids(f: FileKind, doc: &markdown::Doc, today: chrono::NaiveDate) -> Vec<String> {
    super::items::items_of(f, doc, today)
        .into_iter()
        .map(|i| i.id)
        .collect()
}

/// The live entries of `doc`, a parsed DECISIONS or SESSIONS, in file order: the id the store
/// gives each, its heading and its body (without a state marker).
pub fn live_entries(
    f: FileKind,
    doc: &markdown::Doc,
    today: chrono::NaiveDate,
) -> Vec<(String, String, String)> {
    super::items::items_of(f, doc, today)
        .into_iter()
        .filter(|i| i.state == crate::model::State::Live)
        .map(|i| (i.id, i.heading, i.body))
        .collect()
}

impl Tx<'_> {
    /// Take `text` as the new content of `f`, as a hand edit made by this transaction's actor:
    /// what it lacks is marked removed (restorable), what it adds is recorded, and the file is
    /// written with exactly these bytes (the store keeps each file's layout). With `meant`, the
    /// text is taken wholesale even when trilogy wrote the file moments ago (otherwise entries
    /// recorded after the text was read are kept, as for any save).
    pub fn take_text(&mut self, f: FileKind, text: &str, meant: bool) -> Result<()> {
        self.take_texts(&[(f, text)], meant)
    }

    /// [`Tx::take_text`] for a text made from the version of `f` whose bytes hash to
    /// `version` (SHA-1, as the writer read it): merged against exactly that version. Refused
    /// (a conflict, nothing changed) when that version is not known, when PROJECT.md changed
    /// since, or when the text removes, edits or marks an entry changed since.
    pub fn take_text_from(&mut self, f: FileKind, text: &str, version: &str) -> Result<()> {
        if f == FileKind::Project
            && self.files.seen.get(&f).and_then(|s| s.as_deref()) != Some(version)
        {
            return Err(Error::Conflict(format!(
                "{}: changed by someone else since this copy was read; nothing was saved: read the file again and make the change there",
                self.ws.file_name(f)
            )));
        }
        self.files.named.insert(f, version.to_string());
        let result = self.take_texts(&[(f, text)], false);
        self.files.named.remove(&f);
        result
    }

    /// [`Tx::take_text`] for several files at once (a bundle): one pass, so a store that holds
    /// no entry yet takes them in bulk, as when it is rebuilt from the Markdown.
    pub fn take_texts(&mut self, files: &[(FileKind, &str)], meant: bool) -> Result<()> {
        let mut docs = Vec::with_capacity(files.len());
        // no entry stored yet (a new or a cleared-and-never-used store holds none): bulk
        let fresh = self.store.meta("count:total")? == 0;
        for (f, text) in files {
            let f = *f;
            if let Some(e) = self.files.broken.get(&f) {
                return Err(Error::WouldOverwrite {
                    path: self.ws.file_path(f),
                    line: e.line,
                    reason: e.reason.clone(),
                });
            }
            if fresh && f == FileKind::Archive && stream::suits(text) {
                docs.push((f, Changed::Archive((*text).into())));
                continue;
            }
            let strip = matches!(f, FileKind::Sessions | FileKind::Archive);
            let parsed = markdown::parse(text, strip).map_err(|e| {
                Error::bad_input(format!(
                    "{}: line {}: {}; fix the text and save again",
                    self.ws.file_name(f),
                    e.line,
                    e.reason
                ))
            })?;
            docs.push((f, Changed::Parsed(parsed)));
        }
        let added_git: Vec<FileKind> = match meant {
            true => files
                .iter()
                .map(|(f, _)| *f)
                .filter(|f| self.git.same_as_index.insert(*f))
                .collect(),
            false => Vec::new(),
        };
        let result = self.apply_docs(docs, fresh);
        // a text taken whole was never on disk as it is: no version of the file
        self.files.prints.clear();
        for f in added_git {
            self.git.same_as_index.remove(&f);
        }
        result?;
        for (f, _) in files {
            if *f == FileKind::Archive {
                self.archive.other = true;
            }
            self.dirty.insert(*f);
        }
        self.changed = true;
        Ok(())
    }

    /// Tombstone every entry and PROJECT section of the workspace (one `clear` event, with the
    /// actor), and have this transaction delete the four files instead of writing them. A file
    /// that does not parse is refused: its text is not in the store, so deleting it would lose it.
    pub fn clear_memory(&mut self) -> Result<ClearedCounts> {
        if let Some((f, e)) = self.files.broken.iter().next() {
            return Err(Error::WouldOverwrite {
                path: self.ws.file_path(*f),
                line: e.line,
                reason: e.reason.clone(),
            });
        }
        let mut counts = ClearedCounts::default();
        let mut ids = Vec::new();
        let mut archived = Vec::new();
        for f in [FileKind::Decisions, FileKind::Sessions, FileKind::Archive] {
            for mut rec in self.store.file_entries(f, 0, usize::MAX)? {
                rec.state = State::Removed;
                rec.replaced_by = None;
                self.put_entry(&rec)?;
                match f {
                    FileKind::Archive => archived.push(rec.id),
                    _ => ids.push(rec.id),
                }
            }
        }
        counts.entries = ids.len() + archived.len();
        // the archive's entries are named by an event of their own, just before the clear's,
        // so undoing the clear puts them back in the archive rather than in SESSIONS.md
        if !archived.is_empty() {
            let n = archived.len();
            self.log(
                CLEAR_ARCHIVE,
                archived,
                &format!("{n} archived entries cleared (restorable)"),
            )?;
        }
        let mut keys = Vec::new();
        for mut s in self.store.sections()? {
            if s.removed {
                continue;
            }
            s.removed = true;
            s.revision += 1;
            self.put_section(&s)?;
            keys.push(s.key);
        }
        counts.sections = keys.len();
        ids.extend(keys);
        counts.event = self.log(
            "clear",
            ids,
            &format!(
                "{} entries and {} sections cleared (restorable)",
                counts.entries, counts.sections
            ),
        )?;
        // no file on disk is what the store last wrote any more: the old files brought back
        // (a `git checkout`) are read as the edit they are, never taken as already known
        let never = crate::model::FileStamp {
            sha1: "cleared".into(),
            len: u64::MAX,
            mtime_ns: 0,
            ino: 0,
            taken_ms: 0,
        };
        for f in FileKind::ALL {
            self.store.set_stamp(f, &never)?;
            self.store.set_layout(f, None)?;
            self.store.set_meta(&super::written_key(f), 0)?;
            self.store.set_meta(&super::pending_key(f), 0)?;
        }
        self.store.set_meta(CLEARED, 1)?;
        self.clearing = true;
        Ok(counts)
    }

    /// The end of a clear: delete the files (each must still be the version absorbed, else the
    /// transaction starts over), then commit. `Ok(None)`: start over.
    pub(super) fn finish_clear(mut self) -> Result<Option<super::SyncReport>> {
        if !self.files.deferred.is_empty() {
            return Ok(None);
        }
        let mut doomed = Vec::new();
        for f in FileKind::ALL {
            let path = self.ws.memory_file(f)?;
            let now = fsio::read_stamped(&path)?;
            if self
                .files
                .seen
                .get(&f)
                .is_some_and(|seen| seen.as_deref() != now.as_ref().map(|(_, st)| st.sha1.as_str()))
            {
                return Ok(None);
            }
            if now.is_some() {
                doomed.push((f, path));
            }
        }
        let mut report = std::mem::take(&mut self.report);
        for (f, path) in doomed {
            std::fs::remove_file(&path).map_err(|e| Error::io(&path, e))?;
            report.written.push(self.ws.file_name(f).to_string());
        }
        crate::base::fault::crash_point("before-commit");
        self.store.commit()?;
        Ok(Some(report))
    }

    /// A file missing after a clear, in a command that writes: it starts again from its
    /// template (the file is written with the template's bytes).
    pub(super) fn start_from_template(&mut self, f: FileKind) -> Result<()> {
        if f == FileKind::Archive {
            return Ok(());
        }
        let template = self.ws.file_template(f)?;
        let parsed = markdown::parse(&template, f == FileKind::Sessions).map_err(|e| {
            Error::bad_input(format!(
                "template {}: line {}: {}",
                self.ws.file_name(f),
                e.line,
                e.reason
            ))
        })?;
        self.apply_docs(vec![(f, Changed::Parsed(parsed))], false)
    }
}
