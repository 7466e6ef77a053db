//! A first import of the archive a chunk at a time. The archive is the one memory file that
//! grows without bound (88 MB at a million entries); parsed whole, its blocks, their entries
//! and the parser's tree were all held at once. Here it is cut before a `## ` heading that
//! follows a blank line, a few MiB at a time, and each chunk's entries go to the store before
//! the next is read. It applies only where reading chunk by chunk is reading the whole file:
//! [`suits`] says which files, an open fence carries a chunk on to the next cut, ids and dates
//! carry over from chunk to chunk. Each entry gets the sequence number the whole read gives
//! it, relative to the others (reserved bottom-up from the count of heading lines). Whether
//! the store renders the file as it reads is checked as it goes; when it does not, the file is
//! parsed whole once more for its layout alone. It never writes a memory file.

use std::borrow::Cow;
use std::collections::BTreeMap;

use chrono::NaiveDate;

use crate::error::{Error, Result};
use crate::markdown::{self, POINTER_PREFIXES, Parsed};
use crate::model::{EntryRecord, FileKind, Origin, State, heading_date};

use super::Tx;
use super::base::{block_hash, id_key};
use super::items::{Ids, Item, dates_of, item_of};
use crate::store::Print;

/// How much of the archive is parsed at once.
const CHUNK: usize = 4 << 20;

/// A file's shape as parsed and its units (key, text read, store's text), for its layout.
pub(super) type Shaped = (FileKind, markdown::Shape, Vec<(String, String, String)>);

/// Entries a first import writes to the store at once.
pub(super) const LOT: usize = 4096;

/// A changed memory file as read: parsed whole, or the text of an archive a first import
/// reads a chunk at a time (see [`suits`]).
pub(in crate::workspace::sync) enum Changed<'a> {
    Parsed(Parsed),
    Archive(Cow<'a, str>),
}

/// What a first import has taken so far: each entry id (an entry two files hold is the
/// first file's), and how many entries each file brought.
#[derive(Default)]
pub(super) struct Fresh {
    pub(super) ids: Ids,
    pub(super) imported: BTreeMap<FileKind, usize>,
}

/// True when the archive `text` reads chunk by chunk as it reads whole: no byte-order mark or
/// carriage return (the file's marks), no conflict marker (a parse error names its line), no
/// archive pointer line (taken out wherever it stands alone), and an entry to start with.
pub(in crate::workspace::sync) fn suits(text: &str) -> bool {
    if crate::base::fault::without("stream-archive")
        || text.starts_with('\u{feff}')
        || text.contains('\r')
        || POINTER_PREFIXES.iter().any(|p| text.contains(p))
    {
        return false;
    }
    let mut entries = false;
    for line in text.split('\n') {
        if line.starts_with("<<<<<<<") || line.starts_with(">>>>>>>") {
            return false;
        }
        entries |= line.starts_with("## ");
    }
    entries
}

/// Where the next chunk of `text` from `from` ends: before the first `## ` line after a blank
/// line once `CHUNK` bytes are read, else at the end.
fn cut_after(text: &str, from: usize) -> usize {
    let mut at = (from + crate::base::fault::chunk_bytes(CHUNK)).min(text.len());
    while !text.is_char_boundary(at) {
        at += 1;
    }
    match text[at..].find("\n\n## ") {
        Some(i) => at + i + 2,
        None => text.len(),
    }
}

/// One chunk, parsed: the first chunk's parse reads from the file's start, every other one from
/// a `## ` heading.
struct Chunk {
    parsed: Parsed,
    /// The chunk ends the file.
    last: bool,
}

/// The chunk of `text` from `from`, carried on past each cut a fence left open (or that leaves
/// it no entry), and where it ends; `line` is the file's line it starts on, for an error.
fn chunk_at(text: &str, from: usize, line: usize) -> Result<(Chunk, usize)> {
    let mut end = cut_after(text, from);
    loop {
        let parsed = markdown::parse(&text[from..end], true).map_err(|e| {
            Error::bad_input(format!(
                "line {}: {} (reading the archive a chunk at a time)",
                e.line + line - 1,
                e.reason
            ))
        })?;
        // a fence left open runs on past the cut; a chunk holds an entry at least (the
        // first may be all preamble)
        let open = (parsed.shape.regions.last()).is_some_and(|r| r.open_end);
        if (open || parsed.doc.blocks.is_empty()) && end < text.len() {
            end = cut_after(text, end);
            continue;
        }
        let last = end == text.len();
        return Ok((Chunk { parsed, last }, end));
    }
}

/// What reading the archive chunk by chunk gathered besides its entries.
struct Reading {
    /// Every unit so far as the store renders it, one blank line between two.
    canonical: bool,
    /// The date of the entry above (entries so far newest first).
    newest_below: Option<NaiveDate>,
    in_order: bool,
    /// The date of the nearest entry above dated by its heading.
    dated_above: Option<NaiveDate>,
    prints: Vec<Print>,
    /// The sequence number the next entry takes (they go down the file).
    seq: u64,
    lot: Vec<EntryRecord>,
    count: usize,
}

impl Tx<'_> {
    /// Import the archive `text` (it [`suits`]) into a store that holds none of it, a chunk
    /// at a time; false, having changed nothing, when its first entry is undated (it takes its
    /// date from below, which a chunk may not hold). A layout the store needs for it goes to
    /// `shapes` (`set_layouts` keeps it).
    pub(super) fn stream_archive(
        &mut self,
        text: &str,
        fresh: &mut Fresh,
        shapes: &mut Vec<Shaped>,
    ) -> Result<bool> {
        let f = FileKind::Archive;
        let (first, mut end) = chunk_at(text, 0, 1)?;
        let dated_first =
            (first.parsed.doc.blocks.first()).is_some_and(|b| heading_date(&b.heading).is_some());
        if !dated_first {
            return Ok(false);
        }
        let heading_lines = text.split('\n').filter(|l| l.starts_with("## ")).count() as u64;
        let mut r = Reading {
            canonical: true,
            newest_below: None,
            in_order: true,
            dated_above: None,
            prints: Vec::new(),
            seq: self.store.take_seqs(heading_lines)? + heading_lines - 1,
            lot: Vec::with_capacity(LOT),
            count: 0,
        };
        self.touch(f)?;
        let head = first.parsed.doc.preamble.clone();
        self.take_preamble(f, &head)?;
        let head_gap = if head.is_empty() { "" } else { "\n\n" };
        let top = &first.parsed.shape.regions[0];
        r.canonical = top.raw.is_none() && top.gap == head_gap;
        let mut line = 1 + text[..end].matches('\n').count();
        self.take_chunk(first, &mut r, fresh, heading_lines)?;
        while end < text.len() {
            let (chunk, next) = chunk_at(text, end, line)?;
            line += text[end..next].matches('\n').count();
            end = next;
            self.take_chunk(chunk, &mut r, fresh, heading_lines)?;
        }
        self.store.put_new_entries(&r.lot)?;
        self.ws
            .progress("reading the memory files", r.count, r.count);
        *fresh.imported.entry(f).or_default() += r.count;
        self.files.prints.insert(f, std::mem::take(&mut r.prints));
        self.dirty.insert(f);
        self.changed = true;
        self.archive.other = true;
        if r.canonical && r.in_order {
            self.store.set_layout(f, None)?;
            self.files.as_read.insert(f);
        } else {
            // laid out otherwise than the store renders it: its layout, from the whole file
            let mut parsed = markdown::parse(text, true)
                .map_err(|e| Error::bad_input(format!("archive: line {}: {}", e.line, e.reason)))?;
            let mut units = vec![(String::new(), head.clone(), head)];
            drop(self.drain_items(f, &mut parsed, &mut units));
            shapes.push((f, parsed.shape, units));
        }
        Ok(true)
    }

    /// Take one chunk's entries: each recorded (written a lot at a time), printed, and checked
    /// for the store rendering it as it reads.
    fn take_chunk(
        &mut self,
        chunk: Chunk,
        r: &mut Reading,
        fresh: &mut Fresh,
        total: u64,
    ) -> Result<()> {
        let f = FileKind::Archive;
        let lang = self.lang();
        let Chunk { mut parsed, last } = chunk;
        let dates = dates_of(&parsed.doc);
        let n = parsed.doc.blocks.len();
        let today = self.author.today;
        for (i, block) in parsed.doc.blocks.iter_mut().enumerate() {
            let item = item_of(f, block, i, &dates, r.dated_above, &mut fresh.ids, today);
            let read = block.text();
            let plain = item.body == block.body && item.heading == block.heading;
            let store = (!plain).then(|| {
                let state = item.state;
                markdown::block_of(&item.heading, &item.body, state, None, lang).text()
            });
            let store_text = store.as_deref().unwrap_or(&read);
            r.prints.push((id_key(&item.id), block_hash(store_text)));
            let region = &parsed.shape.regions[i + 1];
            let gap = if last && i + 1 == n { "\n" } else { "\n\n" };
            r.canonical &= read == store_text && region.raw.is_none() && region.gap == gap;
            r.in_order &= r.newest_below.is_none_or(|d| item.sort_date <= d);
            r.newest_below = Some(item.sort_date);
            block.body = String::new();
            let rec = self.found_entry(item, r.seq);
            r.seq = r.seq.saturating_sub(1);
            r.lot.push(rec);
            r.count += 1;
            if r.count.is_multiple_of(2000) {
                self.ws
                    .progress("reading the memory files", r.count, total as usize);
            }
            if r.lot.len() == LOT {
                self.store.put_new_entries(&r.lot)?;
                r.lot.clear();
            }
        }
        if let Some(d) = dates.iter().rev().flatten().next() {
            r.dated_above = Some(*d);
        }
        Ok(())
    }

    /// The record of an archived entry found on a first import, at sequence number `seq`.
    fn found_entry(&self, item: Item, seq: u64) -> EntryRecord {
        debug_assert_eq!(item.state, State::Archived);
        EntryRecord {
            id: item.id,
            kind: item.kind,
            sort_date: item.sort_date,
            heading: item.heading,
            body: item.body,
            state: item.state,
            seq,
            superseded_by: item.superseded_by,
            replaced_by: None,
            created_at: self.author.now.clone(),
            actor: self.author.actor.clone(),
            origin: Origin::default(),
        }
    }
}
