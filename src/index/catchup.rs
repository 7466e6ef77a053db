//! Catching up: the store changes after the index's watermark, scored beside it when few,
//! applied and committed when many.

use std::collections::{HashMap, HashSet};

use tantivy::{IndexWriter, TantivyDocument, TantivyError, Term};

use super::doc::{Pending, SearchDoc, load};
use super::{Progress, SCHEMA_VERSION, SMALL_TAIL, SearchIndex, days, index_err};
use crate::error::Result;
use crate::model::SectionRecord;
use crate::store::Reader;

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

    /// [`Self::pending_keys`], every document when `from_scratch`.
    fn pending_keys_from(
        &self,
        r: &dyn Reader,
        from_scratch: bool,
    ) -> Result<(bool, u64, Vec<String>)> {
        let target = r.change_seq()?;
        let disk = self.on_disk();
        let rebuild = from_scratch
            || match disk.store {
                Some(s) => s != r.store_id()?,
                None => disk.wm > 0,
            };
        let wm = if rebuild { 0 } else { disk.wm };
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
        let (rebuild, _, keys) = self.pending_keys_from(r, from_scratch)?;
        if keys.is_empty() && !rebuild {
            return Ok(Pending::default());
        }
        let sections: HashMap<String, SectionRecord> = r
            .sections()?
            .into_iter()
            .map(|s| (s.key.clone(), s))
            .collect();
        // a catch-up of a few changes needs one thread and the smallest arena; a rebuild gets
        // two threads and room enough to write a few large segments instead of many small ones
        let (threads, arena) = if keys.len() > 5_000 {
            (2, 120_000_000)
        } else {
            (1, 15_000_000)
        };
        let mut writer: IndexWriter = match self.index.writer_with_num_threads(threads, arena) {
            Ok(w) => w,
            Err(TantivyError::LockFailure(..)) => return self.pending(r, keys),
            Err(e) => return Err(index_err(&self.dir, e)),
        };
        // with the writer held nobody else commits: look again, so a commit made meanwhile by
        // another process is built on, never replaced by an older view (watermarks only rise)
        let (rebuild, target, keys) = self.pending_keys_from(r, from_scratch)?;
        let store_id = r.store_id()?;
        let result = (|| -> Result<()> {
            if keys.is_empty() && !rebuild {
                return Ok(());
            }
            if rebuild {
                writer
                    .delete_all_documents()
                    .map_err(|e| index_err(&self.dir, e))?;
            }
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
            crate::base::fault::crash_point("index-before-commit");
            let mut prepared = writer
                .prepare_commit()
                .map_err(|e| index_err(&self.dir, e))?;
            prepared.set_payload(&format!(
                "{{\"wm\":{target},\"schema\":{SCHEMA_VERSION},\"store\":{store_id}}}"
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
