//! Recall: what people and agents said in this workspace's agent sessions, searched in the
//! hosts' own transcripts (Claude Code, Codex, Gemini CLI, DeepSeek Harness) — the memory
//! files hold what an agent chose to write down, the transcripts everything else.
//!
//! A second tantivy index, in the user's cache folder (never in the repository), built on the
//! first recall and topped up before each one from where each file was last read (`index`).
//! Transcripts are read-only input in formats internal to each host: parsed line by line,
//! what is not understood is counted and skipped (`parse`); each host's files and which of
//! their lines belong to the workspace (`sources`); DeepSeek Harness's zstd frames (`frames`);
//! each file's new part read a bounded chunk at a time (`chunks`).
//! Hits carry where they came from (host, session, line) and are masked by the secret rules.

mod chunks;
pub mod draft;
mod frames;
mod fresh;
mod index;
mod parse;
pub mod sources;
mod tail;
mod topup;

use std::path::{Path, PathBuf};

use serde::Serialize;
use tantivy::collector::TopDocs;
use tantivy::query::{BooleanQuery, Occur, Query, RangeQuery, TermQuery};
use tantivy::schema::IndexRecordOption;
use tantivy::{TantivyDocument, Term};

use crate::error::{Error, Result};
use crate::workspace::Workspace;

use crate::model::host::Host;
pub use parse::{Role, is_ours};

/// The most of one transcript read at once: also the longest line read (a longer one is
/// skipped), and the most of a session document read whole.
const CHUNK: u64 = 64 << 20;

/// Most of a hit's text shown, in bytes (cut at a sentence end and marked).
pub const HIT_BYTES: usize = 1024;
pub const DEFAULT_LIMIT: usize = 5;
/// Up to this many new messages are read and searched from memory instead of committed.
pub const SMALL_TAIL: usize = 32;
pub const MAX_LIMIT: usize = 20;

/// What to recall.
#[derive(Debug, Clone, Default)]
pub struct RecallQuery {
    pub text: String,
    pub since: Option<chrono::NaiveDate>,
    pub host: Option<Host>,
    pub limit: usize,
    /// The hosts searched (set by [`recall`] from `recall_hosts`).
    pub hosts: Vec<Host>,
}

/// One thing said, found.
#[derive(Debug, Clone, Serialize)]
pub struct RecallHit {
    pub host: &'static str,
    pub session: String,
    /// The transcript file and the line in it (of its decompressed text for DeepSeek Harness).
    pub file: String,
    pub line: u64,
    pub role: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time: Option<String>,
    pub text: String,
    /// What was said just before it in the same file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub before: Option<String>,
    pub score: f32,
}

impl RecallHit {
    /// Where it was said, in one line: `claude SESSION line 12 · user · TIME`.
    pub fn place(&self) -> String {
        let time = self
            .time
            .as_deref()
            .map(|t| format!(" · {t}"))
            .unwrap_or_default();
        format!(
            "{} {} line {} · {}{time}",
            self.host, self.session, self.line, self.role
        )
    }
}

/// What a recall answered.
#[derive(Debug, Clone, Serialize)]
pub struct RecallOutcome {
    pub query: String,
    pub hits: Vec<RecallHit>,
    /// New messages not in the index yet (a few since the last build, or all while another
    /// process is building it), read from the transcripts for this answer.
    pub read_meanwhile: usize,
}

/// The hosts recall reads here: `recall_hosts`, or the one asked for.
fn hosts(ws: &Workspace, only: Option<Host>) -> Vec<Host> {
    let allowed: Vec<Host> = (ws.config.recall_hosts.iter())
        .filter_map(|h| Host::parse(h))
        .collect();
    match only {
        Some(h) => allowed.into_iter().filter(|a| *a == h).collect(),
        None => allowed,
    }
}

/// The index folder of `ws`: `<cache>/recall/<workspace id>/`.
pub fn dir(ws: &Workspace) -> Result<PathBuf> {
    if !ws.config.recall_enabled {
        return Err(Error::bad_input(
            "recall is turned off here (recall_enabled = false); `trilogy config` says where",
        ));
    }
    let places = ws.config.recall.as_ref().ok_or_else(|| {
        Error::NotFound("no cache folder is known (neither HOME nor XDG_CACHE_HOME is set)".into())
    })?;
    Ok(places.cache.join(workspace_id(&ws.root)))
}

/// A workspace's id: 16 hex digits of the SHA-1 of its root.
pub fn workspace_id(root: &Path) -> String {
    let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    crate::base::hex::sha1_prefix(root.to_string_lossy().as_bytes(), 8)
}

fn root_of(ws: &Workspace) -> PathBuf {
    ws.root.canonicalize().unwrap_or_else(|_| ws.root.clone())
}

fn index_err(dir: &Path, e: impl std::fmt::Display) -> Error {
    Error::Store {
        path: dir.to_path_buf(),
        message: format!("recall index: {e}"),
    }
}

/// The query's words: its subject words (no question or function words), or all its words
/// when it has nothing else.
fn query_terms(text: &str) -> Vec<String> {
    let subject = crate::index::subject_terms(text);
    let words = match subject.is_empty() {
        true => crate::index::terms(text),
        false => subject
            .iter()
            .flat_map(|t| crate::index::terms(t))
            .collect(),
    };
    let mut out: Vec<String> = Vec::new();
    for w in words {
        if !out.contains(&w) {
            out.push(w);
        }
    }
    out
}

fn search_in(
    searcher: &tantivy::Searcher,
    f: &index::Fields,
    q: &RecallQuery,
    limit: usize,
) -> Result<Vec<(f32, TantivyDocument)>> {
    let terms = query_terms(&q.text);
    if terms.is_empty() {
        return Ok(Vec::new());
    }
    let words: Vec<(Occur, Box<dyn Query>)> = terms
        .iter()
        .map(|t| {
            let q: Box<dyn Query> = Box::new(TermQuery::new(
                Term::from_field_text(f.text, t),
                IndexRecordOption::WithFreqs,
            ));
            (Occur::Should, q)
        })
        .collect();
    let mut all: Vec<(Occur, Box<dyn Query>)> = Vec::new();
    // only the hosts recall reads now (`recall_hosts`), whatever the index still holds; a
    // filter every indexed message passes is left out, so the words alone are ranked with
    // their block-max pruning (on a large index that is most of a warm recall's time)
    let other_host_indexed = Host::recalled().filter(|h| !q.hosts.contains(h)).any(|h| {
        searcher
            .doc_freq(&Term::from_field_text(f.host, h.as_str()))
            .map_or(true, |n| n > 0)
    });
    let hosts: Vec<(Occur, Box<dyn Query>)> = (q.hosts.iter())
        .map(|h| {
            let t: Box<dyn Query> = Box::new(TermQuery::new(
                Term::from_field_text(f.host, h.as_str()),
                IndexRecordOption::Basic,
            ));
            (Occur::Should, t)
        })
        .collect();
    if hosts.is_empty() {
        return Ok(Vec::new());
    }
    if other_host_indexed {
        all.push((Occur::Must, Box::new(BooleanQuery::new(hosts))));
    }
    if let Some(h) = q.host {
        all.push((
            Occur::Must,
            Box::new(TermQuery::new(
                Term::from_field_text(f.host, h.as_str()),
                IndexRecordOption::Basic,
            )),
        ));
    }
    if let Some(d) = q.since {
        let from = d
            .and_hms_opt(0, 0, 0)
            .map_or(0, |t| t.and_utc().timestamp());
        all.push((
            Occur::Must,
            Box::new(RangeQuery::new(
                std::ops::Bound::Included(Term::from_field_i64(f.ts, from)),
                std::ops::Bound::Unbounded,
            )),
        ));
    }
    let words = BooleanQuery::new(words);
    let query: Box<dyn Query> = if all.is_empty() {
        Box::new(words)
    } else {
        all.push((Occur::Must, Box::new(words)));
        Box::new(BooleanQuery::new(all))
    };
    let top = searcher
        .search(&query, &TopDocs::with_limit(limit).order_by_score())
        .map_err(|e| Error::Internal(format!("recall index: {e}")))?;
    top.into_iter()
        .map(|(score, at)| {
            searcher
                .doc::<TantivyDocument>(at)
                .map(|d| (score, d))
                .map_err(|e| Error::Internal(format!("recall index: {e}")))
        })
        .collect()
}

/// `text` as a hit shows it: secrets masked, cut at about [`HIT_BYTES`] at a sentence end.
fn shown(text: &str) -> String {
    let text = crate::secrets::masked(text);
    if text.len() <= HIT_BYTES {
        return text;
    }
    let cut = crate::model::text::cut_to(&text, HIT_BYTES);
    format!("{cut} […]")
}

fn hit_of(d: &index::Doc, score: f32) -> RecallHit {
    RecallHit {
        host: d.host.as_str(),
        session: d.session.clone(),
        file: d.file.clone(),
        line: d.said.line,
        role: d.said.role.as_str().to_string(),
        time: d.said.time.clone(),
        text: shown(&d.said.text),
        before: d.prev.as_deref().map(shown),
        score,
    }
}

fn hit(f: &index::Fields, score: f32, d: &TantivyDocument) -> RecallHit {
    let t = |field| index::stored_text(d, field);
    let before = t(f.prev);
    let time = t(f.time);
    RecallHit {
        host: Host::parse(&t(f.host)).map_or("?", Host::as_str),
        session: t(f.session),
        file: t(f.file),
        line: index::stored_u64(d, f.line),
        role: t(f.role),
        time: (!time.is_empty()).then_some(time),
        text: shown(&t(f.text)),
        before: (!before.is_empty()).then(|| shown(&before)),
        score,
    }
}

/// Recall what was said in this workspace's agent sessions: ranked hits, each with where it
/// came from and what was said before it.
pub fn recall(
    ws: &Workspace,
    q: &RecallQuery,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<RecallOutcome> {
    if q.text.trim().is_empty() {
        return Err(Error::bad_input(
            "the recall query is empty; give a few words",
        ));
    }
    let dir = dir(ws)?;
    let limit = match q.limit {
        0 => DEFAULT_LIMIT,
        n => n.min(MAX_LIMIT),
    };
    let q = &RecallQuery {
        hosts: hosts(ws, q.host),
        ..q.clone()
    };
    let (idx, f, meanwhile) = topup::top_up(ws, &dir, progress)?;
    // one search and the process ends: no thread watching for commits
    let reader: tantivy::IndexReader = (idx.reader_builder())
        .reload_policy(tantivy::ReloadPolicy::Manual)
        .try_into()
        .map_err(|e| index_err(&dir, e))?;
    let searcher = reader.searcher();
    let mut hits: Vec<RecallHit> = (search_in(&searcher, &f, q, limit)?.iter())
        .map(|(s, d)| hit(&f, *s, d))
        .collect();
    let read_meanwhile = meanwhile.len();
    if !meanwhile.is_empty() {
        // what is not in the index yet, scored beside it with its statistics
        let terms = query_terms(&q.text);
        for (score, i) in tail::score(&searcher, &f, &terms, &meanwhile, q)
            .into_iter()
            .take(limit)
        {
            hits.push(hit_of(&meanwhile[i], score));
        }
        hits.sort_by(|a, b| b.score.total_cmp(&a.score));
        hits.truncate(limit);
    }
    Ok(RecallOutcome {
        query: q.text.clone(),
        hits,
        read_meanwhile,
    })
}

/// Bring the index up to the transcripts now, committing everything new (a recall leaves a
/// turn or two to be read from memory): what a person asks for when the status says files are
/// pending. `progress` hears the files read so far of those found.
pub fn index_now(ws: &Workspace, progress: &mut dyn FnMut(usize, usize)) -> Result<()> {
    let dir = dir(ws)?;
    topup::top_up_all(ws, &dir, progress)?;
    Ok(())
}

/// How complete the index is.
#[derive(Debug, Clone, Serialize)]
pub struct Status {
    pub dir: String,
    /// Per host: files found, indexed, pending, unreadable.
    pub hosts: Vec<HostStatus>,
    pub messages: u64,
    pub index_bytes: u64,
    pub last_build: Option<String>,
    /// Lines of a shape this trilogy does not know, skipped (never guessed at).
    pub skipped: u64,
    /// Every file found is indexed to its end.
    pub complete: bool,
    pub unreadable: Vec<Unreadable>,
}

#[derive(Debug, Clone, Serialize)]
pub struct HostStatus {
    pub host: &'static str,
    pub found: usize,
    pub indexed: usize,
    pub pending: usize,
    pub unreadable: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct Unreadable {
    pub file: String,
    pub why: String,
}

/// The index's freshness, without changing it.
pub fn status(ws: &Workspace) -> Result<Status> {
    let dir = dir(ws)?;
    let manifest = index::load(&dir);
    let root = root_of(ws);
    let found = match &ws.config.recall {
        Some(p) => sources::find(p, &hosts(ws, None), &root, &|_| false),
        None => Vec::new(),
    };
    let mut per: Vec<HostStatus> = Vec::new();
    let mut unreadable = Vec::new();
    let mut skipped = 0;
    for src in &found {
        let key = src.path.display().to_string();
        let size = std::fs::metadata(&src.path).map_or(0, |m| m.len());
        let st = manifest.files.get(&key);
        // another project's session: not this workspace's file
        if st.is_some_and(|s| s.other) {
            continue;
        }
        skipped += st.map_or(0, |s| s.skipped);
        let entry = match per.iter_mut().find(|h| h.host == src.host.as_str()) {
            Some(e) => e,
            None => {
                per.push(HostStatus {
                    host: src.host.as_str(),
                    found: 0,
                    indexed: 0,
                    pending: 0,
                    unreadable: 0,
                });
                per.last_mut().unwrap()
            }
        };
        entry.found += 1;
        let bad = crate::base::fence::open_regular(&src.path, u64::MAX)
            .err()
            .map(|e| e.to_string())
            .or_else(|| st.and_then(|s| s.unreadable.clone()));
        match (st, bad) {
            (_, Some(why)) => {
                entry.unreadable += 1;
                unreadable.push(Unreadable { file: key, why });
            }
            // read to its end (a line or frame still being written is pending)
            (Some(s), None) if s.size == size && s.offset == size => entry.indexed += 1,
            _ => entry.pending += 1,
        }
    }
    let messages = manifest.files.values().map(|s| s.messages).sum();
    let index_bytes = dir_size(&dir);
    let complete = per.iter().all(|h| h.pending == 0 && h.unreadable == 0);
    Ok(Status {
        dir: dir.display().to_string(),
        skipped,
        hosts: per,
        messages,
        index_bytes,
        last_build: manifest.last_build,
        complete,
        unreadable,
    })
}

fn dir_size(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .filter_map(|e| e.metadata().ok())
                .map(|m| m.len())
                .sum()
        })
        .unwrap_or(0)
}

/// Delete this workspace's recall index; whether there was one.
pub fn forget(ws: &Workspace) -> Result<bool> {
    let places = ws.config.recall.as_ref().ok_or_else(|| {
        Error::NotFound("no cache folder is known (neither HOME nor XDG_CACHE_HOME is set)".into())
    })?;
    let dir = places.cache.join(workspace_id(&ws.root));
    if !dir.exists() {
        return Ok(false);
    }
    std::fs::remove_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
    Ok(true)
}
