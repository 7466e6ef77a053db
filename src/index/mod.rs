//! The full-text index: a rebuildable cache of the store, in tantivy. The only module that
//! names tantivy.
//!
//! The index records in its commit payload the store change sequence it has applied. Before
//! answering, a search catches up: a few pending changes (at most [`SMALL_TAIL`]) are read
//! from the store and scored beside the index with the same BM25 (a commit costs tens of
//! milliseconds), more are applied (delete by key, add the current version) and committed;
//! when another process holds the index writer, all pending changes are read from the store.
//! Either way a result is never stale. A broken index or one with another schema is deleted
//! and rebuilt from the store. Writers always wait for their merge threads.

//!
//! Layout: `doc` (what is searchable, what is pending), `catchup` (applying store changes),
//! `query` (searching and ranking), `bm25` (scoring pending documents), `rebuild` (a new
//! index put in place in one step), `tokenizer`.

mod bm25;
mod catchup;
mod doc;
mod query;
mod rebuild;
mod tokenizer;

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use chrono::{Datelike, NaiveDate};
use tantivy::schema::{
    FAST, Field, INDEXED, IndexRecordOption, STORED, STRING, Schema, TextFieldIndexing, TextOptions,
};
use tantivy::tokenizer::{Language, LowerCaser, RemoveLongFilter, Stemmer, TextAnalyzer};
use tantivy::{Index, IndexReader, ReloadPolicy};

use crate::error::{Error, Result};

pub use doc::{Pending, SearchDoc};
pub use query::{ArchiveMode, Hit, SearchQuery, subject_terms};
pub use rebuild::rebuild;
pub use tokenizer::{MemoryTokenizer, is_cjk, tokens};

/// Bump when the schema, the tokenizer or what is indexed changes: older indexes are rebuilt.
/// 2: entries holding a credential are left out; areas are indexed composed (NFC).
/// 4: documents carry their recency (equal scores rank live and newer first).
/// 5: a PROJECT section that is still its template's placeholder is not indexed.
/// 6: tantivy is built without its zstd column compression (lz4 stored text, as before): an
/// index written by a build that had it is rebuilt rather than read.
const SCHEMA_VERSION: u64 = 6;
const TOKENIZER: &str = "memory";
/// The column ordering documents of equal score (see `doc::recency`).
const RECENCY: &str = "recency";
/// Heading matches count more than body matches.
const HEADING_BOOST: f32 = 0.5;
const PHRASE_BOOST: f32 = 3.0;
/// Two subject words of the query within this many positions of each other in an entry's
/// body earn the proximity bonus, this boost times their phrase score.
const PROXIMITY_SLOP: u32 = 3;
const PROXIMITY_BOOST: f32 = 1.0;
/// Proximity is checked between the first this many subject words of a query.
const MAX_NEAR_TERMS: usize = 12;

#[derive(Clone, Copy)]
pub(super) struct Fields {
    key: Field,
    kind: Field,
    file: Field,
    area: Field,
    state: Field,
    date: Field,
    recency: Field,
    heading: Field,
    body: Field,
}

/// A stored text field analysed by [`analyzer`] with positions (phrases, proximity): the
/// memory index's heading and body, the recall index's messages.
pub fn text_options() -> TextOptions {
    TextOptions::default()
        .set_indexing_options(
            TextFieldIndexing::default()
                .set_tokenizer(TOKENIZER)
                .set_index_option(IndexRecordOption::WithFreqsAndPositions),
        )
        .set_stored()
}

/// The name [`analyzer`] is registered under.
pub const TOKENIZER_NAME: &str = TOKENIZER;

fn schema() -> (Schema, Fields) {
    let mut b = Schema::builder();
    let text = text_options();
    let f = Fields {
        key: b.add_text_field("key", STRING | STORED),
        kind: b.add_text_field("kind", STRING | STORED),
        file: b.add_text_field("file", STRING | STORED),
        area: b.add_text_field("area", STRING | STORED),
        state: b.add_text_field("state", STRING | STORED),
        date: b.add_i64_field("date", INDEXED | STORED | FAST),
        recency: b.add_u64_field(RECENCY, FAST),
        heading: b.add_text_field("heading", text.clone()),
        body: b.add_text_field("body", text),
    };
    (b.build(), f)
}

/// The analyzer used for documents and queries alike.
pub fn analyzer() -> TextAnalyzer {
    TextAnalyzer::builder(MemoryTokenizer)
        .filter(RemoveLongFilter::limit(40))
        .filter(LowerCaser)
        .filter(Stemmer::new(Language::English))
        .build()
}

/// Analyzed terms of `text`, in order.
pub fn terms(text: &str) -> Vec<String> {
    let mut a = analyzer();
    let mut ts = a.token_stream(text);
    let mut out = Vec::new();
    while let Some(t) = ts.next() {
        out.push(t.text.clone());
    }
    out
}
/// What the index on disk says about itself.
#[derive(Debug, Default, Clone, Copy)]
struct OnDisk {
    wm: u64,
    /// The store it was built from (`None`: an index from before stores had an identity).
    store: Option<u64>,
    commit: u64,
}

pub(super) fn days(d: NaiveDate) -> i64 {
    d.num_days_from_ce() as i64
}

pub(super) fn index_err(dir: &Path, e: impl std::fmt::Display) -> Error {
    Error::Store {
        path: dir.to_path_buf(),
        message: format!("search index: {e}"),
    }
}

/// Progress of a long catch-up: (done, total).
pub type Progress<'a> = &'a mut dyn FnMut(usize, usize);

/// Candidates the word query hands to the phrase rescoring, beyond what is asked for.
const RESCORE_WINDOW: usize = 40;
/// Up to this many pending changes are scored from the store instead of committed.
pub const SMALL_TAIL: usize = 32;

/// The index directory, opened. Holds one reader, reloaded only when the index on disk moved
/// on (a long-lived process such as the MCP server searches without reopening anything).
pub struct SearchIndex {
    index: Index,
    f: Fields,
    dir: PathBuf,
    /// The reader and the commit it shows (a fingerprint of opstamp and segments).
    reader: Mutex<Option<(IndexReader, u64)>>,
    /// The newest commit known to be on disk (0: unknown, check).
    latest: AtomicU64,
}

impl SearchIndex {
    /// Open the index in `dir`, creating it, or rebuilding it when it is broken or stale in
    /// its schema.
    pub fn open(dir: &Path) -> Result<SearchIndex> {
        let (schema, f) = schema();
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        let existing = dir.join("meta.json").exists();
        let opened = if existing {
            match Index::open_in_dir(dir) {
                Ok(idx)
                    if idx.schema() == schema
                        && Self::payload_schema(&idx).is_none_or(|v| v == SCHEMA_VERSION) =>
                {
                    Some(idx)
                }
                _ => None,
            }
        } else {
            None
        };
        let index = match opened {
            Some(idx) => idx,
            None => {
                if existing {
                    // broken or another schema: the store can always rebuild it
                    std::fs::remove_dir_all(dir).map_err(|e| Error::io(dir, e))?;
                    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
                }
                Index::create_in_dir(dir, schema).map_err(|e| index_err(dir, e))?
            }
        };
        index.tokenizers().register(TOKENIZER, analyzer());
        Ok(SearchIndex::wrap(index, f, dir))
    }

    fn wrap(index: Index, f: Fields, dir: &Path) -> SearchIndex {
        SearchIndex {
            index,
            f,
            dir: dir.to_path_buf(),
            reader: Mutex::new(None),
            latest: AtomicU64::new(0),
        }
    }

    /// An empty index in memory: searched with every store change pending (see
    /// [`SearchIndex::scan_store`]) it scores the whole store without the index directory.
    pub fn in_memory() -> SearchIndex {
        let (schema, f) = schema();
        let index = Index::create_in_ram(schema);
        index.tokenizers().register(TOKENIZER, analyzer());
        SearchIndex::wrap(index, f, Path::new("(memory)"))
    }

    /// Open an existing index as it is (no creation, no rebuild); for checks.
    pub fn open_existing(dir: &Path) -> Result<SearchIndex> {
        let (schema, f) = schema();
        let index = Index::open_in_dir(dir).map_err(|e| index_err(dir, e))?;
        if index.schema() != schema {
            return Err(index_err(dir, "written with another schema"));
        }
        index.tokenizers().register(TOKENIZER, analyzer());
        // a corrupt segment shows when a reader loads it
        index
            .reader_builder()
            .reload_policy(ReloadPolicy::Manual)
            .try_into()
            .map(|_: tantivy::IndexReader| ())
            .map_err(|e| index_err(dir, e))?;
        Ok(SearchIndex::wrap(index, f, dir))
    }

    fn payload(idx: &Index) -> Option<serde_json::Value> {
        let p = idx.load_metas().ok()?.payload?;
        serde_json::from_str(&p).ok()
    }

    fn payload_schema(idx: &Index) -> Option<u64> {
        Self::payload(idx)?.get("schema")?.as_u64()
    }

    /// The store change sequence this index has applied.
    pub fn watermark(&self) -> u64 {
        self.on_disk().wm
    }

    /// The commit on disk: its watermark and store identity (from the payload) and a
    /// fingerprint (remembered, so the reader is reloaded when it changes).
    fn on_disk(&self) -> OnDisk {
        let Ok(metas) = self.index.load_metas() else {
            return OnDisk::default();
        };
        // which commit: its opstamp and its segments (an index rebuilt from scratch restarts
        // its opstamps, never its segment ids)
        let mut h = std::hash::DefaultHasher::new();
        std::hash::Hash::hash(&metas.opstamp, &mut h);
        for seg in &metas.segments {
            std::hash::Hash::hash(&seg.id().uuid_string(), &mut h);
        }
        let commit = std::hash::Hasher::finish(&h).max(1);
        self.latest.store(commit, Ordering::Relaxed);
        let payload = metas
            .payload
            .and_then(|p| serde_json::from_str::<serde_json::Value>(&p).ok());
        let field = |k: &str| {
            payload
                .as_ref()
                .and_then(|p| p.get(k).and_then(serde_json::Value::as_u64))
        };
        OnDisk {
            wm: field("wm").unwrap_or(0),
            store: field("store"),
            commit,
        }
    }

    /// The reader, reloaded when a newer commit is known to be on disk.
    fn reader(&self) -> Result<IndexReader> {
        let mut latest = self.latest.load(Ordering::Relaxed);
        if latest == 0 {
            latest = self.on_disk().commit;
        }
        let mut cached = self.reader.lock().unwrap_or_else(|p| p.into_inner());
        match cached.as_mut() {
            Some((reader, shown)) if *shown == latest => Ok(reader.clone()),
            Some((reader, shown)) => {
                reader.reload().map_err(|e| index_err(&self.dir, e))?;
                *shown = latest;
                Ok(reader.clone())
            }
            None => {
                let reader: IndexReader = self
                    .index
                    .reader_builder()
                    .reload_policy(ReloadPolicy::Manual)
                    .try_into()
                    .map_err(|e| index_err(&self.dir, e))?;
                *cached = Some((reader.clone(), latest));
                Ok(reader)
            }
        }
    }

    /// Number of documents in the index.
    pub fn len(&self) -> Result<u64> {
        let reader = self.reader()?;
        Ok(reader.searcher().num_docs())
    }

    pub fn is_empty(&self) -> Result<bool> {
        Ok(self.len()? == 0)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    #[test]
    fn stemming_and_identifiers_meet_in_the_middle() {
        let q: HashSet<String> = terms("running tests").into_iter().collect();
        let d: HashSet<String> = terms("run the test suite").into_iter().collect();
        assert!(q.iter().all(|t| d.contains(t)), "{q:?} vs {d:?}");
        let q: HashSet<String> = terms("parseSessions").into_iter().collect();
        let d: HashSet<String> = terms("fn parse_sessions()").into_iter().collect();
        assert!(q.intersection(&d).count() >= 2, "{q:?} vs {d:?}");
    }

    /// An index as an older trilogy left it: one document, committed with `schema` in its
    /// payload.
    fn left_by_an_older_trilogy(dir: &Path, schema_version: u64) {
        let index = Index::create_in_dir(dir, schema().0).unwrap();
        index.tokenizers().register(TOKENIZER, analyzer());
        let f = schema().1;
        let mut writer: tantivy::IndexWriter<tantivy::TantivyDocument> =
            index.writer_with_num_threads(1, 15_000_000).unwrap();
        writer
            .add_document(tantivy::doc!(f.key => "d-1", f.recency => 1u64))
            .unwrap();
        let mut prepared = writer.prepare_commit().unwrap();
        prepared.set_payload(&format!(
            "{{\"wm\":7,\"schema\":{schema_version},\"store\":1}}"
        ));
        prepared.commit().unwrap();
        writer.wait_merging_threads().unwrap();
    }

    #[test]
    fn an_index_of_an_older_schema_is_rebuilt_and_one_of_this_schema_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        left_by_an_older_trilogy(dir.path(), SCHEMA_VERSION - 1);
        let idx = SearchIndex::open(dir.path()).unwrap();
        // made anew: nothing applied, nothing in it, the store fills it again
        assert_eq!((idx.watermark(), idx.len().unwrap()), (0, 0));
        drop(idx);

        let dir = tempfile::tempdir().unwrap();
        left_by_an_older_trilogy(dir.path(), SCHEMA_VERSION);
        let idx = SearchIndex::open(dir.path()).unwrap();
        assert_eq!((idx.watermark(), idx.len().unwrap()), (7, 1));
    }
}
