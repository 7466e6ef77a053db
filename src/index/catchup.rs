//! Catching up: the store changes after the index's watermark, scored beside it when few,
//! applied and committed when many; an index built whole (never built, or built from another
//! store) is made from one scan of the store.

use std::collections::{HashMap, HashSet};

use tantivy::{IndexWriter, TantivyDocument, TantivyError, Term};

use super::doc::{Pending, SearchDoc, load};
use super::{Progress, SCHEMA_VERSION, SMALL_TAIL, SearchIndex, days, index_err};
use crate::error::Result;
use crate::model::{FileKind, SectionRecord};
use crate::store::Reader;

/// The indexing arena of a build of the whole index (all threads together): room for a few
/// large segments, and a bound on the memory a build takes, whatever the store holds. At a
/// million entries 40 MB builds as fast as 64 MB did and peaks at 139 MiB, not 175–237 MiB;
/// with a first import in the same command, 177 MiB, not 275 MiB (`benches/clone_volume.py`).
const WHOLE_ARENA: usize = 40_000_000;

/// How far the index is behind a snapshot of the store.
struct Behind {
    /// The index was built from another store (or `from_scratch` was asked): all of it goes.
    rebuild: bool,
    /// The change sequence the index has applied (0 when it goes).
    wm: u64,
    /// The snapshot's change sequence.
    target: u64,
}

impl Behind {
    /// The index is built whole, from one scan of the store.
    fn whole(&self) -> bool {
        self.wm == 0 && (self.rebuild || self.target > 0)
    }
}

impl SearchIndex {
    /// What a search needs before it runs: small sets of changes (at most [`SMALL_TAIL`]) are
    /// read from the store and scored alongside the index instead of committed (a tantivy
    /// commit costs tens of milliseconds); larger ones are applied with [`SearchIndex::sync`].
    pub fn catch_up(&self, r: &dyn Reader) -> Result<Pending> {
        self.catch_up_showing(r, None)
    }

    /// [`SearchIndex::catch_up`], telling `progress` how far a large catch-up (the first
    /// search of a fresh clone builds the whole index) has come.
    pub fn catch_up_showing(&self, r: &dyn Reader, progress: Option<Progress>) -> Result<Pending> {
        // an index to build whole, and more than a few entries to build it from (each is a
        // change of its own): built from one scan of the store, without listing its changes
        let behind = self.behind(r, false)?;
        if behind.whole() && (behind.rebuild || r.meta("count:total")? > SMALL_TAIL as u64) {
            return self.sync(r, progress);
        }
        let (rebuild, _, keys) = self.pending_keys(r)?;
        if !rebuild && keys.len() <= SMALL_TAIL {
            return self.pending(r, keys);
        }
        self.sync(r, progress)
    }

    /// Every change in the store as pending (for [`SearchIndex::in_memory`]): a search then
    /// reads the whole store.
    pub fn scan_store(&self, r: &dyn Reader) -> Result<Pending> {
        let (_, _, keys) = self.pending_keys(r)?;
        self.pending(r, keys)
    }

    /// The changes after the index's watermark, each key once, oldest first; `true` when the
    /// index was built from another store (one rebuilt from scratch): everything is pending.
    /// An index ahead of this snapshot (another process caught it up further) has nothing
    /// pending for it.
    pub(super) fn pending_keys(&self, r: &dyn Reader) -> Result<(bool, u64, Vec<String>)> {
        self.pending_keys_from(r, false)
    }

    /// How far the index is behind snapshot `r` (everything when `from_scratch`).
    fn behind(&self, r: &dyn Reader, from_scratch: bool) -> Result<Behind> {
        let target = r.change_seq()?;
        let disk = self.on_disk();
        let rebuild = from_scratch
            || match disk.store {
                Some(s) => s != r.store_id()?,
                None => disk.wm > 0,
            };
        let wm = if rebuild { 0 } else { disk.wm };
        Ok(Behind {
            rebuild,
            wm,
            target,
        })
    }

    /// [`Self::pending_keys`], every document when `from_scratch`.
    fn pending_keys_from(
        &self,
        r: &dyn Reader,
        from_scratch: bool,
    ) -> Result<(bool, u64, Vec<String>)> {
        let Behind {
            rebuild,
            wm,
            target,
        } = self.behind(r, from_scratch)?;
        if wm >= target && !rebuild {
            return Ok((false, target, Vec::new()));
        }
        let mut keys: Vec<String> = Vec::new();
        let mut seen = HashSet::new();
        let changes = r.changes_since(wm)?;
        for (_, k) in changes.into_iter().rev() {
            if seen.insert(k.clone()) {
                keys.push(k);
            }
        }
        keys.reverse();
        if wm == 0 {
            // a build from scratch: every file's prose, including any set before the store
            // noted prose changes
            for f in crate::model::FileKind::ALL {
                let k = format!("p:{}", f.file_name());
                let has_prose = r
                    .preamble(f)?
                    .is_some_and(|p| !crate::markdown::prose(&p).is_empty());
                if has_prose && seen.insert(k.clone()) {
                    keys.push(k);
                }
            }
        }
        Ok((rebuild, target, keys))
    }

    pub(super) fn pending(&self, r: &dyn Reader, keys: Vec<String>) -> Result<Pending> {
        let sections: HashMap<String, SectionRecord> = r
            .sections()?
            .into_iter()
            .map(|s| (s.key.clone(), s))
            .collect();
        let mut docs = Vec::new();
        for k in &keys {
            if let Some(d) = load(r, k, &sections)? {
                docs.push(d);
            }
        }
        Ok(Pending {
            docs,
            keys: keys.into_iter().collect(),
        })
    }

    /// Bring the index up to the store's change sequence. Returns the changes it could not
    /// apply because another process holds the writer: the search scans those itself.
    pub fn sync(&self, r: &dyn Reader, progress: Option<Progress>) -> Result<Pending> {
        self.sync_from(r, progress, false)
    }

    /// Index every document again in this index's own folder, in one commit: a reader sees the
    /// previous documents or the new ones, never none (where a folder cannot be exchanged).
    /// Returns what it could not apply because another process holds the writer.
    pub fn sync_from_scratch(&self, r: &dyn Reader, progress: Option<Progress>) -> Result<Pending> {
        self.sync_from(r, progress, true)
    }

    fn sync_from(
        &self,
        r: &dyn Reader,
        mut progress: Option<Progress>,
        from_scratch: bool,
    ) -> Result<Pending> {
        let behind = self.behind(r, from_scratch)?;
        if !behind.whole() && behind.wm >= behind.target {
            return Ok(Pending::default());
        }
        // a catch-up of a few changes needs one thread and the smallest arena; a build of the
        // whole index two threads and an arena that keeps its memory bounded whatever the store
        let (threads, arena) = if behind.whole() || behind.target - behind.wm > 5_000 {
            (2, WHOLE_ARENA)
        } else {
            (1, 15_000_000)
        };
        let mut writer: IndexWriter = match self.index.writer_with_num_threads(threads, arena) {
            Ok(w) => w,
            Err(TantivyError::LockFailure(..)) => {
                let (_, _, keys) = self.pending_keys_from(r, from_scratch)?;
                return self.pending(r, keys);
            }
            Err(e) => return Err(index_err(&self.dir, e)),
        };
        // with the writer held nobody else commits: look again, so a commit made meanwhile by
        // another process is built on, never replaced by an older view (watermarks only rise)
        let behind = self.behind(r, from_scratch)?;
        let store_id = r.store_id()?;
        let result = (|| -> Result<()> {
            if behind.whole() {
                self.add_whole(&mut writer, r, &mut progress)?;
            } else if !self.add_changes(&mut writer, r, from_scratch, &mut progress)? {
                return Ok(());
            }
            crate::base::fault::crash_point("index-before-commit");
            let mut prepared = writer
                .prepare_commit()
                .map_err(|e| index_err(&self.dir, e))?;
            prepared.set_payload(&format!(
                "{{\"wm\":{},\"schema\":{SCHEMA_VERSION},\"store\":{store_id}}}",
                behind.target
            ));
            prepared.commit().map_err(|e| index_err(&self.dir, e))?;
            Ok(())
        })();
        // never drop a writer without letting its merges finish
        let merged = writer
            .wait_merging_threads()
            .map_err(|e| index_err(&self.dir, e));
        result?;
        merged?;
        self.on_disk();
        Ok(Pending::default())
    }

    /// Apply the changes after the index's watermark (delete by key, add the current version);
    /// false when there were none.
    fn add_changes(
        &self,
        writer: &mut IndexWriter,
        r: &dyn Reader,
        from_scratch: bool,
        progress: &mut Option<Progress>,
    ) -> Result<bool> {
        let (_, _, keys) = self.pending_keys_from(r, from_scratch)?;
        if keys.is_empty() {
            return Ok(false);
        }
        let sections: HashMap<String, SectionRecord> = r
            .sections()?
            .into_iter()
            .map(|s| (s.key.clone(), s))
            .collect();
        let total = keys.len();
        for (n, k) in keys.iter().enumerate() {
            writer.delete_term(Term::from_field_text(self.f.key, k));
            if let Some(d) = load(r, k, &sections)? {
                writer
                    .add_document(self.document(&d))
                    .map_err(|e| index_err(&self.dir, e))?;
            }
            if let Some(p) = progress.as_deref_mut()
                && (n % 2000 == 0 || n + 1 == total)
            {
                p(n + 1, total);
            }
        }
        Ok(true)
    }

    /// Index every searchable document of snapshot `r` anew, from one pass over its entries in
    /// key order, then its sections and its files' prose: what the store's changes name, without
    /// listing them or loading the entries one by one.
    fn add_whole(
        &self,
        writer: &mut IndexWriter,
        r: &dyn Reader,
        progress: &mut Option<Progress>,
    ) -> Result<()> {
        writer
            .delete_all_documents()
            .map_err(|e| index_err(&self.dir, e))?;
        let add = |d: Option<SearchDoc>| match d {
            Some(d) => (writer.add_document(self.document(&d)).map(drop))
                .map_err(|e| index_err(&self.dir, e)),
            None => Ok(()),
        };
        let total = r.meta("count:total")? as usize;
        let mut n = 0;
        r.scan_entries(&mut |e| {
            add(SearchDoc::of_entry(&e))?;
            n += 1;
            if let Some(p) = progress.as_deref_mut()
                && (n % 2000 == 1 || n == total)
            {
                p(n, total.max(n));
            }
            Ok(true)
        })?;
        for s in r.sections()? {
            add(SearchDoc::of_section(&s))?;
        }
        for f in FileKind::ALL {
            add(r.preamble(f)?.and_then(|p| SearchDoc::of_prose(f, &p)))?;
        }
        Ok(())
    }

    fn document(&self, d: &SearchDoc) -> TantivyDocument {
        let mut doc = TantivyDocument::default();
        doc.add_text(self.f.key, &d.key);
        doc.add_text(self.f.kind, d.kind);
        doc.add_text(self.f.file, d.file);
        doc.add_text(self.f.area, &d.area);
        doc.add_text(self.f.state, d.state);
        doc.add_i64(self.f.date, d.date.map_or(0, days));
        doc.add_u64(self.f.recency, d.recency());
        doc.add_text(self.f.heading, &d.heading);
        doc.add_text(self.f.body, &d.body);
        doc
    }
}
