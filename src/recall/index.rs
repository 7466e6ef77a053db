//! The recall index: one tantivy index per workspace in the user's cache folder, over what
//! people and agents said in the hosts' transcripts, with a manifest of how far each file has
//! been read.
//!
//! Per file the manifest keeps its size, a fingerprint of its first 4 KiB and the byte offset
//! read so far (the end of the last complete line, or of the last complete zstd frame). A file
//! that only grew is read from that offset; one that shrank or whose head changed is read
//! again from the start (its old lines are deleted first). When another process holds the
//! index's writer, what it has not indexed yet is read into an index in memory for this one
//! answer: a query never waits on another build.

use std::collections::BTreeMap;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use tantivy::schema::{
    FAST, Field, INDEXED, IndexRecordOption, STORED, STRING, Schema, TextFieldIndexing,
    TextOptions, Value as _,
};
use tantivy::{Index, TantivyDocument, Term, doc};

use crate::error::{Error, Result};

use super::CHUNK;
use super::Host;
use super::chunks::{FileState, Stop};
use super::parse::{self, Said};
use super::sources::{Source, Stat, belongs};

/// Bump when the schema or what is indexed changes: older indexes are built again.
pub const VERSION: u64 = 1;
/// Bytes of a file's head its fingerprint covers.
const HEAD: usize = 4096;

/// The manifest beside the index.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Manifest {
    pub version: u64,
    /// The index commit this manifest goes with (the commit's payload says the same): one that
    /// does not match was left by a process that stopped between the two, and the index is
    /// built again rather than read on from offsets it may already hold.
    #[serde(default)]
    pub generation: u64,
    pub files: BTreeMap<String, FileState>,
    pub last_build: Option<String>,
}

#[derive(Clone, Copy)]
pub struct Fields {
    pub file: Field,
    pub host: Field,
    pub session: Field,
    pub line: Field,
    pub role: Field,
    pub time: Field,
    pub ts: Field,
    pub text: Field,
    pub prev: Field,
}

pub fn schema() -> (Schema, Fields) {
    let mut b = Schema::builder();
    // recall ranks words by BM25 alone: no positions are kept (a third less to write)
    let text = TextOptions::default()
        .set_indexing_options(
            TextFieldIndexing::default()
                .set_tokenizer(crate::index::TOKENIZER_NAME)
                .set_index_option(IndexRecordOption::WithFreqs),
        )
        .set_stored();
    let f = Fields {
        file: b.add_text_field("file", STRING | STORED),
        host: b.add_text_field("host", STRING | STORED),
        session: b.add_text_field("session", STRING | STORED),
        line: b.add_u64_field("line", STORED),
        role: b.add_text_field("role", STRING | STORED),
        time: b.add_text_field("time", STORED),
        ts: b.add_i64_field("ts", INDEXED | FAST | STORED),
        text: b.add_text_field("text", text),
        prev: b.add_text_field("prev", STORED),
    };
    (b.build(), f)
}

/// Seconds since the epoch of an RFC 3339 time (0 when there is none).
fn seconds(time: Option<&str>) -> i64 {
    time.and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok())
        .map_or(0, |t| t.timestamp())
}

fn fingerprint(bytes: &[u8]) -> String {
    crate::base::hex::sha1(&bytes[..bytes.len().min(HEAD)])
}

/// The index folder, opened (made, or made again when it is broken or of another layout),
/// with the manifest beside it (empty when there is none yet).
pub fn open(dir: &Path) -> Result<(Index, Fields, Manifest)> {
    let (schema, f) = schema();
    let err = |e: tantivy::TantivyError| Error::Store {
        path: dir.to_path_buf(),
        message: format!("recall index: {e}"),
    };
    make_private(dir)?;
    let bytes = crate::workspace::read_file(&manifest_path(dir), crate::workspace::MAX_FILE_BYTES)
        .ok()
        .flatten();
    let manifest: Option<Manifest> = bytes.as_ref().and_then(|b| serde_json::from_slice(b).ok());
    // a manifest that is there but unreadable, or of another layout, marks the index stale
    let stale = |i: &Index| {
        i.schema() != schema
            || (bytes.is_some() && manifest.as_ref().is_none_or(|m| m.version != VERSION))
    };
    let (index, manifest) = match Index::open_in_dir(dir) {
        Ok(i) if !stale(&i) => (i, manifest.unwrap_or_default()),
        Ok(_) => {
            // another layout: a cache, built again
            let _ = std::fs::remove_dir_all(dir);
            make_private(dir)?;
            (create(dir, &schema).map_err(err)?, Manifest::default())
        }
        // not made yet, or being made by another process right now
        Err(_) => (
            create(dir, &schema).map_err(err)?,
            manifest.unwrap_or_default(),
        ),
    };
    index
        .tokenizers()
        .register(crate::index::TOKENIZER_NAME, crate::index::analyzer());
    Ok((index, f, manifest))
}

/// The index alone, when the stamp beside it says the files as found (`digest`) are all
/// indexed at its last commit and the manifest is the one that check saw: nothing to read,
/// and the manifest is not needed. `None` when anything differs (the full check decides).
pub fn open_fresh(
    dir: &Path,
    stamp: &super::fresh::Stamp,
    digest: &str,
) -> Option<(Index, Fields)> {
    if stamp.version != VERSION || stamp.files != digest {
        return None;
    }
    if manifest_stat(dir)? != stamp.manifest {
        return None;
    }
    make_private(dir).ok()?;
    let (schema, f) = schema();
    let index = Index::open_in_dir(dir).ok()?;
    if index.schema() != schema || committed(&index) != stamp.generation {
        return None;
    }
    index
        .tokenizers()
        .register(crate::index::TOKENIZER_NAME, crate::index::analyzer());
    Some((index, f))
}

/// The manifest's size and time (`None`: there is none).
pub fn manifest_stat(dir: &Path) -> Option<Stat> {
    std::fs::metadata(manifest_path(dir))
        .ok()
        .map(|m| Stat::of(&m))
}

/// Made, or opened when another process made it first.
fn create(dir: &Path, schema: &Schema) -> tantivy::Result<Index> {
    match Index::create_in_dir(dir, schema.clone()) {
        Ok(i) => Ok(i),
        Err(_) => Index::open_in_dir(dir),
    }
}

/// The folder, readable by its owner only: it holds what was said, unmasked.
fn make_private(dir: &Path) -> Result<()> {
    crate::base::write::private_dir(dir).map_err(|e| Error::io(dir, e))
}

/// The generation the index's last commit names (0: none yet).
pub fn committed(index: &Index) -> u64 {
    index
        .load_metas()
        .ok()
        .and_then(|m| m.payload)
        .and_then(|p| p.parse().ok())
        .unwrap_or(0)
}

fn manifest_path(dir: &Path) -> PathBuf {
    dir.join("manifest.json")
}

/// The manifest (an empty one when missing or unreadable: everything is read again).
pub fn load(dir: &Path) -> Manifest {
    crate::workspace::read_file(&manifest_path(dir), crate::workspace::MAX_FILE_BYTES)
        .ok()
        .flatten()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default()
}

pub fn save(dir: &Path, m: &Manifest) -> Result<()> {
    let bytes = serde_json::to_vec(m).map_err(|e| Error::Internal(e.to_string()))?;
    crate::workspace::write_atomic(&manifest_path(dir), &bytes)
}

/// One message ready for the index.
pub struct Doc {
    pub file: String,
    pub host: Host,
    pub session: String,
    pub said: Said,
    pub prev: Option<String>,
}

impl Doc {
    pub fn into_tantivy(self, f: &Fields) -> TantivyDocument {
        doc!(
            f.file => self.file,
            f.host => self.host.as_str(),
            f.session => self.session,
            f.line => self.said.line,
            f.role => self.said.role.as_str(),
            f.time => self.said.time.clone().unwrap_or_default(),
            f.ts => seconds(self.said.time.as_deref()),
            f.text => self.said.text,
            f.prev => self.prev.unwrap_or_default(),
        )
    }
}

/// What reading a file's new part found.
pub struct Fresh {
    /// The file's path, the manifest's key.
    pub path: String,
    /// The file is read from the start again: its old documents go first.
    pub restart: bool,
    pub docs: Vec<Doc>,
    pub state: FileState,
}

/// Whether `src` is as `old` saw it, by its size and time when listed alone.
pub fn unchanged(src: &Source, old: Option<&FileState>) -> bool {
    let Some(old) = old.filter(|o| o.unreadable.is_none() || o.over_cap) else {
        return false;
    };
    if old.other {
        return true;
    }
    src.stat
        .is_some_and(|s| s.size == old.size && s.mtime == old.mtime)
}

/// The fingerprint of the up to 4 KiB before `offset` (empty at 0; `None` when they cannot
/// be read).
fn tail_at(file: &mut std::fs::File, offset: u64) -> Option<String> {
    let from = offset.saturating_sub(HEAD as u64);
    let mut bytes = vec![0u8; (offset - from) as usize];
    file.seek(SeekFrom::Start(from)).ok()?;
    file.read_exact(&mut bytes).ok()?;
    Some(match bytes.is_empty() {
        true => String::new(),
        false => fingerprint(&bytes),
    })
}

/// Read what `src` holds past what `old` says was read; `None` when nothing changed.
pub fn read_new(
    src: &Source,
    old: Option<&FileState>,
    root: &Path,
    gemini: &[String],
) -> Option<Fresh> {
    let path = &src.path;
    if unchanged(src, old) {
        return None;
    }
    let meta = std::fs::metadata(path).ok();
    let size = meta.as_ref().map_or(0, |m| m.len());
    let mtime = meta.as_ref().map_or(0, |m| Stat::of(m).mtime);
    let mut state = old.cloned().unwrap_or_else(|| FileState {
        host: src.host.as_str().into(),
        ..FileState::default()
    });
    // a read that fails leaves the file as the last good read saw it: it is tried again from
    // there, with nothing of this read taken (and so nothing of it lost, nor read twice)
    let initial = state.clone();
    let fail = |stop: Stop| {
        let mut st = initial.clone();
        st.over_cap = matches!(stop, Stop::OverCap(_));
        if st.over_cap {
            // as it is now: not read again until it changes
            (st.size, st.mtime) = (size, mtime);
        }
        st.unreadable = Some(match stop {
            Stop::Failed(why) | Stop::OverCap(why) => why,
        });
        Some(Fresh {
            path: path.display().to_string(),
            restart: false,
            docs: Vec::new(),
            state: st,
        })
    };
    let failed = |e: std::io::Error| fail(Stop::Failed(e.to_string()));
    let mut file = match crate::base::fence::open_regular(path, u64::MAX) {
        Ok((f, _)) => f,
        Err(e) => return failed(e),
    };
    let mut first_bytes = vec![0u8; HEAD.min(size as usize)];
    if let Err(e) = file.read_exact(&mut first_bytes) {
        return failed(e);
    }
    let head = fingerprint(&first_bytes);
    // the same bytes the last read's fingerprint covered: changed, the file was rewritten
    let was_len = old.map_or(0, |o| match o.head_len {
        0 => o.size.min(HEAD as u64),
        n => n,
    }) as usize;
    let rewritten = old.is_some_and(|o| {
        size < o.offset
            || was_len > first_bytes.len()
            || fingerprint(&first_bytes[..was_len]) != o.head
    });
    // what was read last ends as it did: otherwise the file was rewritten under its head
    let rewritten = rewritten
        || old.is_some_and(|o| {
            !o.tail.is_empty() && tail_at(&mut file, o.offset).is_none_or(|t| t != o.tail)
        });
    let same = old.is_some_and(|o| o.size == size && !rewritten && o.unreadable.is_none());
    if same {
        // only touched: nothing new to read, its time is kept so the next look needs no open
        let mut st = state;
        st.mtime = mtime;
        return Some(Fresh {
            path: path.display().to_string(),
            restart: false,
            docs: Vec::new(),
            state: st,
        });
    }
    // a session document is rewritten whole at each message: read again whole when it changed
    let document = src.host == Host::Gemini && path.extension().is_some_and(|e| e == "json");
    let restart = rewritten || (document && old.is_some());
    if restart || old.is_none() {
        state = FileState {
            host: src.host.as_str().into(),
            ..FileState::default()
        };
    }
    state.unreadable = None;
    state.over_cap = false;
    state.size = size;
    state.mtime = mtime;
    state.head = head;
    state.head_len = first_bytes.len() as u64;
    let read = if document {
        read_document(&mut file, size, &mut state)
    } else {
        super::chunks::read(src, &mut file, size, root, &mut state)
    };
    let said = match read {
        Ok(said) => said,
        Err(stop) => return fail(stop),
    };
    state.tail = tail_at(&mut file, state.offset).unwrap_or_default();
    let project = state.ctx.project.clone();
    // each line as of the working directory its file named by then; a Claude Code file that
    // names none is its project folder's
    let ours = |said: &Said| match src.host {
        Host::Gemini => project.as_ref().is_some_and(|p| gemini.contains(p)),
        Host::Claude if said.cwd.is_none() => src.own,
        _ => said
            .cwd
            .as_deref()
            .is_some_and(|c| belongs(root, Path::new(c))),
    };
    let session = state.ctx.session.clone().unwrap_or_else(|| {
        path.file_stem()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned()
    });
    let mut docs = Vec::new();
    for said in said {
        if !ours(&said) {
            continue;
        }
        let prev = state.last.replace(said.text.clone());
        {
            docs.push(Doc {
                file: path.display().to_string(),
                host: src.host,
                session: session.clone(),
                said,
                prev,
            });
        }
    }
    state.messages += docs.len() as u64;
    Some(Fresh {
        path: path.display().to_string(),
        restart,
        docs,
        state,
    })
}

/// A session document (rewritten whole at each message) read whole, up to [`CHUNK`] bytes.
fn read_document(
    file: &mut std::fs::File,
    size: u64,
    state: &mut FileState,
) -> std::result::Result<Vec<Said>, Stop> {
    if size > CHUNK {
        return Err(Stop::OverCap(format!(
            "a session document of {size} bytes is over {} MiB; trilogy does not read it",
            CHUNK >> 20
        )));
    }
    let mut bytes = Vec::with_capacity(size as usize);
    file.seek(SeekFrom::Start(0))
        .and_then(|_| (&mut *file).take(size).read_to_end(&mut bytes))
        .map_err(|e| Stop::Failed(e.to_string()))?;
    let Some(text) = parse::gemini_document(&bytes) else {
        return Err(Stop::Failed(
            "not a whole Gemini CLI session document (yet)".into(),
        ));
    };
    let read = parse::lines(Host::Gemini, text.as_bytes(), 1, &mut state.ctx);
    state.lines = read.lines;
    state.offset = size;
    state.skipped = read.skipped;
    Ok(read.said)
}

/// The documents of `file` in the index, deleted (the file is read again from the start).
pub fn delete_file(writer: &tantivy::IndexWriter, f: &Fields, file: &str) {
    writer.delete_term(Term::from_field_text(f.file, file));
}

/// A stored text field of a document.
pub fn stored_text(d: &TantivyDocument, field: Field) -> String {
    d.get_first(field)
        .and_then(|v| v.as_str())
        .unwrap_or_default()
        .to_string()
}

pub fn stored_u64(d: &TantivyDocument, field: Field) -> u64 {
    d.get_first(field).and_then(|v| v.as_u64()).unwrap_or(0)
}
