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

mod tokenizer;

use std::collections::{HashMap, HashSet};
use std::ops::Bound;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use chrono::{Datelike, NaiveDate};
use serde::Serialize;
use tantivy::collector::TopDocs;
use tantivy::query::{
    BooleanQuery, BoostQuery, EnableScoring, Occur, PhraseQuery, Query, RangeQuery, TermQuery,
};
use tantivy::schema::{
    FAST, Field, INDEXED, IndexRecordOption, STORED, STRING, Schema, TextFieldIndexing,
    TextOptions, Value,
};
use tantivy::tokenizer::{Language, LowerCaser, RemoveLongFilter, Stemmer, TextAnalyzer};
use tantivy::{
    DocAddress, DocSet, Index, IndexReader, IndexWriter, ReloadPolicy, TantivyDocument,
    TantivyError, Term,
};

use crate::error::{Error, Result};
use crate::model::{EntryRecord, FileKind, SectionRecord, State};
use crate::store::Reader;

pub use tokenizer::{MemoryTokenizer, is_cjk, tokens};

/// Bump when the schema, the tokenizer or what is indexed changes: older indexes are rebuilt.
/// 2: entries holding a credential are left out; areas are indexed composed (NFC).
const SCHEMA_VERSION: u64 = 2;
const TOKENIZER: &str = "memory";
/// Heading matches count more than body matches.
const HEADING_BOOST: f32 = 2.5;
const PHRASE_BOOST: f32 = 3.0;

#[derive(Clone, Copy)]
struct Fields {
    key: Field,
    kind: Field,
    file: Field,
    area: Field,
    state: Field,
    date: Field,
    heading: Field,
    body: Field,
}

fn schema() -> (Schema, Fields) {
    let mut b = Schema::builder();
    let text = TextOptions::default()
        .set_indexing_options(
            TextFieldIndexing::default()
                .set_tokenizer(TOKENIZER)
                .set_index_option(IndexRecordOption::WithFreqsAndPositions),
        )
        .set_stored();
    let f = Fields {
        key: b.add_text_field("key", STRING | STORED),
        kind: b.add_text_field("kind", STRING | STORED),
        file: b.add_text_field("file", STRING | STORED),
        area: b.add_text_field("area", STRING | STORED),
        state: b.add_text_field("state", STRING | STORED),
        date: b.add_i64_field("date", INDEXED | STORED | FAST),
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

/// What is searchable: an entry in a file, or a PROJECT section.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchDoc {
    /// `e:<id>` or `s:<section key>`.
    pub key: String,
    pub kind: &'static str,
    pub file: &'static str,
    pub area: String,
    pub state: &'static str,
    pub date: Option<NaiveDate>,
    pub heading: String,
    pub body: String,
}

/// What the index on disk says about itself.
#[derive(Debug, Default, Clone, Copy)]
struct OnDisk {
    wm: u64,
    /// The store it was built from (`None`: an index from before stores had an identity).
    store: Option<u64>,
    commit: u64,
}

/// Changes the index has not applied (another process holds its writer, or too few to be
/// worth a commit): a search reads these from the store instead, so no answer is stale.
#[derive(Debug, Default)]
pub struct Pending {
    /// The current version of each pending change that is searchable.
    pub docs: Vec<SearchDoc>,
    /// Every pending key (`e:<id>`, `s:<key>`): what the index holds for them is outdated.
    pub keys: HashSet<String>,
}

impl Pending {
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }
}

impl SearchDoc {
    fn of_entry(e: &EntryRecord) -> Option<SearchDoc> {
        let file = e.file()?;
        // a credential written in by hand stays out of the index until it is removed
        if crate::secrets::in_entry(e).is_some() {
            return None;
        }
        Some(SearchDoc {
            key: format!("e:{}", e.id),
            kind: e.kind.as_str(),
            file: file.file_name(),
            area: e.area().to_lowercase(),
            state: e.state.as_str(),
            date: e.date(),
            heading: e.heading.clone(),
            body: e.body.clone(),
        })
    }

    fn of_section(s: &SectionRecord) -> Option<SearchDoc> {
        (!s.removed && crate::secrets::in_section(s).is_none()).then(|| SearchDoc {
            key: format!("s:{}", s.key),
            kind: "section",
            file: FileKind::Project.file_name(),
            area: String::new(),
            state: State::Live.as_str(),
            date: None,
            heading: s.heading.clone(),
            body: s.text().to_string(),
        })
    }
}

/// The current searchable version of `key`, if it is searchable at all.
fn load(
    r: &dyn Reader,
    key: &str,
    sections: &HashMap<String, SectionRecord>,
) -> Result<Option<SearchDoc>> {
    if let Some(id) = key.strip_prefix("e:") {
        return Ok(r.entry(id)?.as_ref().and_then(SearchDoc::of_entry));
    }
    if let Some(k) = key.strip_prefix("s:") {
        return Ok(sections.get(k).and_then(SearchDoc::of_section));
    }
    Ok(None)
}

/// Which part of the archive a search covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ArchiveMode {
    /// Live files and the archive.
    #[default]
    Include,
    /// Live files only.
    Exclude,
    /// The archive only.
    Only,
}

/// A search.
#[derive(Debug, Clone, Default)]
pub struct SearchQuery {
    pub text: String,
    pub limit: usize,
    /// `session`, `decision` or `section`.
    pub kind: Option<String>,
    pub area: Option<String>,
    pub since: Option<NaiveDate>,
    pub until: Option<NaiveDate>,
    pub archive: ArchiveMode,
}

/// One result.
#[derive(Debug, Clone, Serialize)]
pub struct Hit {
    /// Entry id, or section key.
    pub id: String,
    pub kind: String,
    pub file: String,
    pub heading: String,
    /// The best-matching line.
    pub snippet: String,
    pub score: f32,
    pub state: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub date: Option<NaiveDate>,
}

fn days(d: NaiveDate) -> i64 {
    d.num_days_from_ce() as i64
}

fn index_err(dir: &Path, e: impl std::fmt::Display) -> Error {
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

    /// What a search needs before it runs: small sets of changes (at most [`SMALL_TAIL`]) are
    /// read from the store and scored alongside the index instead of committed (a tantivy
    /// commit costs tens of milliseconds); larger ones are applied with [`SearchIndex::sync`].
    pub fn catch_up(&self, r: &dyn Reader) -> Result<Pending> {
        let (rebuild, _, keys) = self.pending_keys(r)?;
        if !rebuild && keys.len() <= SMALL_TAIL {
            return self.pending(r, keys);
        }
        self.sync(r, None)
    }

    /// The changes after the index's watermark, each key once, oldest first; `true` when the
    /// index was built from another store (one rebuilt from scratch): everything is pending.
    /// An index ahead of this snapshot (another process caught it up further) has nothing
    /// pending for it.
    fn pending_keys(&self, r: &dyn Reader) -> Result<(bool, u64, Vec<String>)> {
        let target = r.change_seq()?;
        let disk = self.on_disk();
        let rebuild = match disk.store {
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
        Ok((rebuild, target, keys))
    }

    fn pending(&self, r: &dyn Reader, keys: Vec<String>) -> Result<Pending> {
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
    pub fn sync(&self, r: &dyn Reader, mut progress: Option<Progress>) -> Result<Pending> {
        let (rebuild, _, keys) = self.pending_keys(r)?;
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
        let (rebuild, target, keys) = self.pending_keys(r)?;
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
            crate::workspace::crash_point("index-before-commit");
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
        doc.add_text(self.f.heading, &d.heading);
        doc.add_text(self.f.body, &d.body);
        doc
    }

    fn filters(&self, q: &SearchQuery) -> Vec<(Occur, Box<dyn Query>)> {
        let term = |f: Field, v: &str| -> Box<dyn Query> {
            Box::new(TermQuery::new(
                Term::from_field_text(f, v),
                IndexRecordOption::Basic,
            ))
        };
        let mut v: Vec<(Occur, Box<dyn Query>)> = Vec::new();
        if let Some(k) = &q.kind {
            v.push((Occur::Must, term(self.f.kind, k)));
        }
        if let Some(a) = &q.area {
            v.push((Occur::Must, term(self.f.area, &a.trim().to_lowercase())));
        }
        match q.archive {
            ArchiveMode::Include => {}
            ArchiveMode::Exclude => {
                v.push((Occur::MustNot, term(self.f.state, State::Archived.as_str())))
            }
            ArchiveMode::Only => {
                v.push((Occur::Must, term(self.f.state, State::Archived.as_str())))
            }
        }
        if q.since.is_some() || q.until.is_some() {
            // undated documents (sections, undated entries) are stored with date 0: a date
            // filter leaves them out, as it does for pending documents
            let lo = Bound::Included(Term::from_field_i64(self.f.date, q.since.map_or(1, days)));
            let hi = q.until.map_or(Bound::Unbounded, |d| {
                Bound::Included(Term::from_field_i64(self.f.date, days(d)))
            });
            v.push((Occur::Must, Box::new(RangeQuery::new(lo, hi))));
        }
        v
    }

    /// Run a search; `pending` holds the changes the index has not applied yet.
    pub fn search(&self, q: &SearchQuery, pending: &Pending) -> Result<Vec<Hit>> {
        let tail = pending.docs.as_slice();
        let ordered = terms(&q.text);
        let mut distinct: Vec<String> = Vec::new();
        for t in &ordered {
            if !distinct.contains(t) {
                distinct.push(t.clone());
            }
        }
        if distinct.is_empty() {
            return Err(Error::bad_input(format!(
                "`{}` has no searchable words or characters",
                q.text.trim()
            )));
        }
        let mut should: Vec<(Occur, Box<dyn Query>)> = Vec::new();
        for t in &distinct {
            let h = TermQuery::new(
                Term::from_field_text(self.f.heading, t),
                IndexRecordOption::WithFreqs,
            );
            should.push((
                Occur::Should,
                Box::new(BoostQuery::new(Box::new(h), HEADING_BOOST)),
            ));
            let b = TermQuery::new(
                Term::from_field_text(self.f.body, t),
                IndexRecordOption::WithFreqs,
            );
            should.push((Occur::Should, Box::new(b)));
        }
        // without filters the query is the bare union of term queries, which tantivy answers
        // with block-max WAND (skipping documents that cannot reach the top); nested in a
        // filtering query it would score every match of every term
        let filters = self.filters(q);
        let query = if filters.is_empty() {
            BooleanQuery::new(should)
        } else {
            let mut clauses: Vec<(Occur, Box<dyn Query>)> =
                vec![(Occur::Must, Box::new(BooleanQuery::new(should)))];
            clauses.extend(filters);
            BooleanQuery::new(clauses)
        };

        let reader = self.reader()?;
        let searcher = reader.searcher();
        let stale: HashSet<&str> = pending.keys.iter().map(String::as_str).collect();
        let want = q.limit.max(1);
        let mut top = searcher
            .search(
                &query,
                &TopDocs::with_limit(want + stale.len() + RESCORE_WINDOW).order_by_score(),
            )
            .map_err(|e| index_err(&self.dir, e))?;
        // phrase bonus, as a rescoring of the candidates (a phrase clause in the query itself
        // would keep tantivy from skipping low-scoring blocks): the query's tokens at
        // consecutive positions. For CJK this is the query as a contiguous substring
        // (characters and pairs interleave the same way).
        if ordered.len() >= 2 && ordered.len() <= 32 {
            let phrase: Vec<Term> = ordered
                .iter()
                .map(|t| Term::from_field_text(self.f.body, t))
                .collect();
            self.add_phrase_bonus(&searcher, PhraseQuery::new(phrase), &mut top)?;
        }
        let wanted: HashSet<&str> = distinct.iter().map(String::as_str).collect();
        let mut hits = Vec::new();
        for (score, addr) in top {
            if hits.len() >= want {
                break;
            }
            let doc: TantivyDocument = searcher.doc(addr).map_err(|e| index_err(&self.dir, e))?;
            let get = |f: Field| {
                doc.get_first(f)
                    .and_then(|v| v.as_str())
                    .unwrap_or("")
                    .to_string()
            };
            let key = get(self.f.key);
            if stale.contains(key.as_str()) {
                continue;
            }
            let date = doc
                .get_first(self.f.date)
                .and_then(|v| v.as_i64())
                .filter(|d| *d > 0)
                .and_then(|d| NaiveDate::from_num_days_from_ce_opt(d as i32));
            let body = get(self.f.body);
            let heading = get(self.f.heading);
            hits.push(Hit {
                id: key[2..].to_string(),
                kind: get(self.f.kind),
                file: get(self.f.file),
                snippet: snippet(&heading, &body, &wanted),
                heading,
                score,
                state: get(self.f.state),
                date,
            });
        }
        let bm25 = Bm25::new(&searcher, &self.f, &distinct, tail, &self.dir)?;
        for (i, d) in tail.iter().enumerate() {
            if !self.tail_passes(d, q) {
                continue;
            }
            let score = bm25.score(i, &ordered);
            if score > 0.0 {
                hits.push(Hit {
                    id: d.key[2..].to_string(),
                    kind: d.kind.to_string(),
                    file: d.file.to_string(),
                    snippet: snippet(&d.heading, &d.body, &wanted),
                    heading: d.heading.clone(),
                    score,
                    state: d.state.to_string(),
                    date: d.date,
                });
            }
        }
        hits.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.id.cmp(&b.id)));
        hits.truncate(want);
        Ok(hits)
    }

    /// Add the boosted score of `phrase` to each candidate it matches, and re-sort.
    fn add_phrase_bonus(
        &self,
        searcher: &tantivy::Searcher,
        phrase: PhraseQuery,
        top: &mut [(f32, DocAddress)],
    ) -> Result<()> {
        let err = |e| index_err(&self.dir, e);
        let weight = phrase
            .weight(EnableScoring::enabled_from_searcher(searcher))
            .map_err(err)?;
        let mut order: Vec<usize> = (0..top.len()).collect();
        order.sort_by_key(|&i| (top[i].1.segment_ord, top[i].1.doc_id));
        let mut current: Option<(u32, Box<dyn tantivy::query::Scorer>)> = None;
        for i in order {
            let (seg, doc) = (top[i].1.segment_ord, top[i].1.doc_id);
            if current.as_ref().is_none_or(|(s, _)| *s != seg) {
                let scorer = weight
                    .scorer(searcher.segment_reader(seg), PHRASE_BOOST)
                    .map_err(err)?;
                current = Some((seg, scorer));
            }
            let Some((_, scorer)) = current.as_mut() else {
                continue;
            };
            let at = if scorer.doc() >= doc {
                scorer.doc()
            } else {
                scorer.seek(doc)
            };
            if at == doc {
                top[i].0 += scorer.score();
            }
        }
        top.sort_by(|a, b| b.0.total_cmp(&a.0));
        Ok(())
    }

    fn tail_passes(&self, d: &SearchDoc, q: &SearchQuery) -> bool {
        let archived = d.state == State::Archived.as_str();
        q.kind.as_deref().is_none_or(|k| k == d.kind)
            && q.area
                .as_deref()
                .is_none_or(|a| a.trim().to_lowercase() == d.area)
            && match q.archive {
                ArchiveMode::Include => true,
                ArchiveMode::Exclude => !archived,
                ArchiveMode::Only => archived,
            }
            && q.since.is_none_or(|s| d.date.is_some_and(|x| x >= s))
            && q.until.is_none_or(|u| d.date.is_some_and(|x| x <= u))
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

/// BM25 as tantivy computes it (k1 1.2, b 0.75), for the pending documents scored outside
/// the index, with statistics (document count, document frequencies, average field lengths)
/// taken over the index and the pending documents together: pending changes rank among
/// indexed ones as they will once committed, and a young workspace whose entries are all
/// pending still gets real idf. (Field lengths are not quantised here; an indexed version a
/// pending one replaces is counted twice: both are small differences.)
struct Bm25 {
    /// Per query term: idf × (k1 + 1), for heading and body.
    heading: HashMap<String, f32>,
    body: HashMap<String, f32>,
    avg_heading: f32,
    avg_body: f32,
    /// Tokens of each pending document: (heading, body).
    tokens: Vec<(Vec<String>, Vec<String>)>,
}

const BM25_K1: f32 = 1.2;
const BM25_B: f32 = 0.75;

impl Bm25 {
    fn new(
        searcher: &tantivy::Searcher,
        f: &Fields,
        distinct: &[String],
        pending: &[SearchDoc],
        dir: &Path,
    ) -> Result<Bm25> {
        let err = |e: TantivyError| index_err(dir, e);
        let tokens: Vec<(Vec<String>, Vec<String>)> = pending
            .iter()
            .map(|d| (terms(&d.heading), terms(&d.body)))
            .collect();
        let docs: u64 = searcher
            .segment_readers()
            .iter()
            .map(|s| u64::from(s.max_doc()))
            .sum::<u64>()
            + pending.len() as u64;
        let indexed_tokens = |field: Field| -> Result<u64> {
            let mut n = 0u64;
            for s in searcher.segment_readers() {
                n += s.inverted_index(field).map_err(err)?.total_num_tokens();
            }
            Ok(n)
        };
        let avg = |total: u64| {
            if docs == 0 {
                1.0
            } else {
                (total as f32 / docs as f32).max(1.0)
            }
        };
        let avg_heading =
            avg(indexed_tokens(f.heading)?
                + tokens.iter().map(|(h, _)| h.len() as u64).sum::<u64>());
        let avg_body =
            avg(indexed_tokens(f.body)? + tokens.iter().map(|(_, b)| b.len() as u64).sum::<u64>());
        let weights = |field: Field, heading: bool| -> Result<HashMap<String, f32>> {
            let mut m = HashMap::new();
            for t in distinct {
                let pending_df = tokens
                    .iter()
                    .filter(|(h, b)| {
                        if heading {
                            h.contains(t)
                        } else {
                            b.contains(t)
                        }
                    })
                    .count() as u64;
                let n = (searcher
                    .doc_freq(&Term::from_field_text(field, t))
                    .map_err(err)?
                    + pending_df)
                    .min(docs);
                let x = ((docs - n) as f32 + 0.5) / (n as f32 + 0.5);
                m.insert(t.clone(), (1.0 + x).ln() * (1.0 + BM25_K1));
            }
            Ok(m)
        };
        Ok(Bm25 {
            heading: weights(f.heading, true)?,
            body: weights(f.body, false)?,
            avg_heading,
            avg_body,
            tokens,
        })
    }

    fn field(weights: &HashMap<String, f32>, avg: f32, tokens: &[String]) -> f32 {
        let len = tokens.len() as f32;
        let norm = BM25_K1 * (1.0 - BM25_B + BM25_B * len / avg);
        weights
            .iter()
            .map(|(t, w)| {
                let tf = tokens.iter().filter(|x| *x == t).count() as f32;
                if tf == 0.0 { 0.0 } else { w * tf / (tf + norm) }
            })
            .sum()
    }

    /// The score the index would give pending document `i` for the query `ordered` (its
    /// tokens in order).
    fn score(&self, i: usize, ordered: &[String]) -> f32 {
        let (heading, body) = &self.tokens[i];
        let mut score = HEADING_BOOST * Self::field(&self.heading, self.avg_heading, heading)
            + Self::field(&self.body, self.avg_body, body);
        // the phrase bonus: the query's tokens at consecutive positions of the body
        if ordered.len() >= 2 && ordered.len() <= 32 {
            let hits = body
                .windows(ordered.len())
                .filter(|w| w.iter().zip(ordered).all(|(a, b)| a == b))
                .count() as f32;
            if hits > 0.0 {
                let idf: f32 = ordered.iter().filter_map(|t| self.body.get(t)).sum();
                let norm = BM25_K1 * (1.0 - BM25_B + BM25_B * body.len() as f32 / self.avg_body);
                score += PHRASE_BOOST * idf * hits / (hits + norm);
            }
        }
        score
    }
}

/// The line sharing the most terms with the query (the heading when nothing better).
fn snippet(heading: &str, body: &str, wanted: &HashSet<&str>) -> String {
    let mut best = (0usize, heading);
    for line in body.lines().filter(|l| !l.trim().is_empty()) {
        let n = terms(line)
            .iter()
            .filter(|t| wanted.contains(String::as_str(t)))
            .collect::<HashSet<_>>()
            .len();
        if n > best.0 {
            best = (n, line);
        }
    }
    let line = best.1.trim();
    match line.char_indices().nth(200) {
        Some((i, _)) => format!("{}…", &line[..i]),
        None => line.to_string(),
    }
}

#[cfg(test)]
mod tests {
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
}
