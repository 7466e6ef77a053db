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

use super::Host;
use super::parse::{self, Context, Said};
use super::sources::{Source, belongs};

/// Bump when the schema or what is indexed changes: older indexes are built again.
const VERSION: u64 = 1;
const TOKENIZER: &str = "memory";
/// Bytes of a file's head its fingerprint covers.
const HEAD: usize = 4096;
/// The most of one file read per top-up (a huge file is indexed over several queries).
const CHUNK: u64 = 64 << 20;

/// How far one file has been read, and what it said about itself.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct FileState {
    pub host: String,
    pub size: u64,
    pub head: String,
    /// Its modification time (nanoseconds) when read: size and time unchanged, it is not
    /// opened again.
    #[serde(default)]
    pub mtime: i64,
    /// Bytes read (complete lines, or complete frames).
    pub offset: u64,
    /// Lines read.
    pub lines: u64,
    pub ctx: Context,
    /// Messages of this workspace indexed from it.
    pub messages: u64,
    /// Lines not understood.
    pub skipped: u64,
    /// The last thing said in it, for the context of the next one.
    pub last: Option<String>,
    /// Why it could not be read (it stays pending).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unreadable: Option<String>,
}

/// The manifest beside the index.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Manifest {
    pub version: u64,
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
    let text = TextOptions::default()
        .set_indexing_options(
            TextFieldIndexing::default()
                .set_tokenizer(TOKENIZER)
                .set_index_option(IndexRecordOption::WithFreqsAndPositions),
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
    use sha1::{Digest, Sha1};
    Sha1::digest(&bytes[..bytes.len().min(HEAD)])
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The index folder, opened (made, or made again when it is broken or of another version).
pub fn open(dir: &Path) -> Result<(Index, Fields)> {
    let (schema, f) = schema();
    let err = |e: tantivy::TantivyError| Error::Store {
        path: dir.to_path_buf(),
        message: format!("recall index: {e}"),
    };
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let index = match Index::open_in_dir(dir) {
        Ok(i) if i.schema() == schema && load(dir).version == VERSION => i,
        _ => {
            // a cache: what cannot be used is built again
            let _ = std::fs::remove_dir_all(dir);
            std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
            let i = Index::create_in_dir(dir, schema).map_err(err)?;
            save(
                dir,
                &Manifest {
                    version: VERSION,
                    ..Manifest::default()
                },
            )?;
            i
        }
    };
    index
        .tokenizers()
        .register(TOKENIZER, crate::index::analyzer());
    Ok((index, f))
}

fn manifest_path(dir: &Path) -> PathBuf {
    dir.join("manifest.json")
}

/// The manifest (an empty one when missing or unreadable: everything is read again).
pub fn load(dir: &Path) -> Manifest {
    std::fs::read(manifest_path(dir))
        .ok()
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

fn mtime_of(meta: &std::fs::Metadata) -> i64 {
    use std::os::unix::fs::MetadataExt;
    meta.mtime() * 1_000_000_000 + meta.mtime_nsec()
}

/// Whether `src` is as `old` saw it, by its size and time alone.
pub fn unchanged(src: &Source, old: Option<&FileState>) -> bool {
    let Some(old) = old.filter(|o| o.unreadable.is_none()) else {
        return false;
    };
    std::fs::metadata(&src.path).is_ok_and(|m| m.len() == old.size && mtime_of(&m) == old.mtime)
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
    let mtime = meta.as_ref().map_or(0, mtime_of);
    let mut state = old.cloned().unwrap_or_else(|| FileState {
        host: src.host.as_str().into(),
        ..FileState::default()
    });
    let fail = |mut st: FileState, why: String| {
        st.unreadable = Some(why);
        Some(Fresh {
            path: path.display().to_string(),
            restart: false,
            docs: Vec::new(),
            state: st,
        })
    };
    let mut file = match crate::workspace::open_regular(path, u64::MAX) {
        Ok((f, _)) => f,
        Err(e) => return fail(state, e.to_string()),
    };
    let mut head = vec![0u8; HEAD.min(size as usize)];
    if let Err(e) = file.read_exact(&mut head) {
        return fail(state, e.to_string());
    }
    let head = fingerprint(&head);
    let same = old.is_some_and(|o| o.size == size && o.head == head && o.unreadable.is_none());
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
    let restart = old.is_some_and(|o| size < o.offset || (o.size >= HEAD as u64 && o.head != head));
    if restart || old.is_none() {
        state = FileState {
            host: src.host.as_str().into(),
            ..FileState::default()
        };
    }
    state.unreadable = None;
    state.size = size;
    state.mtime = mtime;
    state.head = head;
    let from = state.offset;
    let want = (size - from).min(CHUNK);
    if file.seek(SeekFrom::Start(from)).is_err() {
        return fail(state, "cannot seek".into());
    }
    let mut bytes = Vec::with_capacity(want as usize);
    if let Err(e) = file.take(want).read_to_end(&mut bytes) {
        return fail(state, e.to_string());
    }
    let (text, used) = match src.host {
        Host::Dsh => match super::frames::complete(&bytes) {
            Ok(x) => x,
            Err(why) => return fail(state, why),
        },
        _ => {
            // the last line without its line feed is still being written
            let end = bytes.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
            (String::from_utf8_lossy(&bytes[..end]).into_owned(), end)
        }
    };
    let first = state.lines + 1;
    let read = parse::lines(src.host, &text, first, &mut state.ctx);
    state.lines += text.lines().count() as u64;
    state.offset = from + used as u64;
    state.skipped += read.skipped;
    let project = state.ctx.project.clone();
    // each line as of the working directory its file named by then; a Claude Code file that
    // names none is its project folder's
    let ours = |said: &Said| match src.host {
        Host::Gemini => project.as_ref().is_some_and(|p| gemini.contains(p)),
        Host::Claude if said.cwd.is_none() => true,
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
    for said in read.said {
        let prev = state.last.replace(said.text.clone());
        if ours(&said) {
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
