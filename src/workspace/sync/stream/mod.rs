//! A first import of the archive a chunk at a time. The archive is the one memory file that
//! grows without bound (88 MB at a million entries); parsed whole, its blocks, their entries
//! and the parser's tree were all held at once. Here it is cut before a `## ` heading that
//! follows a blank line, a few MiB at a time, and each chunk's entries go to the store before
//! the next is read. It applies only where reading chunk by chunk is reading the whole file:
//! [`suits`] says which files, an open fence carries a chunk on to the next cut, ids and dates
//! carry over from chunk to chunk. Each entry gets the sequence number the whole read gives
//! it, relative to the others (reserved bottom-up from the count of heading lines). Whether
//! the store renders the file as it reads is checked as it goes; when it does not, the file is
//! parsed whole once more for its layout alone. The chunks are parsed, and their entries made
//! records, on a thread of its own beside the one writing them to the store, a few lots apart.
//! It never writes a memory file.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::mpsc::Receiver;

use chrono::NaiveDate;

use crate::error::{Error, Result};
use crate::markdown::{self, POINTER_PREFIXES, Parsed};
use crate::model::{EntryRecord, FileKind, Lang, Origin, State, heading_date};

mod pieces;
mod scan;
#[cfg(test)]
mod tests;

pub(in crate::workspace::sync) use scan::{ArchiveFile, scan};

use pieces::{FilePieces, Pieces, TextPieces};

use super::base::kept_for;
use super::items::{Ids, Item, dates_of, item_of};
use super::{Author, Tx};

/// A file's shape as parsed and its units (key, text read, store's text), for its layout.
pub(super) type Shaped = (FileKind, markdown::Shape, Vec<(String, String, String)>);

/// Entries a first import writes to the store at once.
pub(super) const LOT: usize = 4096;

/// A changed memory file as read: parsed whole, or the text of an archive a first import
/// reads a chunk at a time (see [`suits`]).
pub(in crate::workspace::sync) enum Changed<'a> {
    Parsed(Parsed),
    Archive(Cow<'a, str>),
    /// The archive file itself, read from disk a chunk at a time (see [`scan`]).
    ArchiveFile(ArchiveFile),
}

/// Where the chunked read takes the archive from.
pub(super) enum Source<'a> {
    Text(&'a str),
    File(&'a ArchiveFile),
}

impl Source<'_> {
    /// Lines that start with `## `: the sequence numbers to reserve.
    fn headings(&self) -> u64 {
        match self {
            Source::Text(t) => t.split('\n').filter(|l| l.starts_with("## ")).count() as u64,
            Source::File(f) => f.headings,
        }
    }

    fn pieces(&self) -> Result<Box<dyn Pieces + Send + '_>> {
        Ok(match self {
            Source::Text(t) => Box::new(TextPieces::new(t)),
            Source::File(f) => Box::new(FilePieces::open(&f.path, f.stamp.clone())?),
        })
    }
}

impl ArchiveFile {
    /// The whole text, for what the chunked read leaves to a whole read; an error when the file
    /// is no longer the version the pre-pass read.
    pub(super) fn read_whole(&self) -> Result<String> {
        let mut pieces = FilePieces::open(&self.path, self.stamp.clone())?;
        let mut text = String::with_capacity(self.stamp.len as usize);
        while let Some(p) = pieces.piece()? {
            text.push_str(&p);
        }
        pieces.finish()?;
        Ok(text)
    }
}

/// What a first import has taken so far: each entry id (an entry two files hold is the
/// first file's), and how many entries each file brought.
#[derive(Default)]
pub(super) struct Fresh {
    pub(super) ids: Ids,
    pub(super) imported: BTreeMap<FileKind, usize>,
}

/// The archive parsed whole (what the chunked read leaves to a whole read).
pub(super) fn parse_archive(text: &str) -> Result<Parsed> {
    markdown::parse(text, true)
        .map_err(|e| Error::bad_input(format!("archive: line {}: {}", e.line, e.reason)))
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

/// Whether the archive `text` reads, parsed a chunk at a time as a first import parses it:
/// the first error with its line in `text`, or an unclosed fence at its end that hides
/// headings. Holds one chunk's parse at a time, never the whole text's. `None` when the text
/// does not suit the chunked read ([`suits`]): parse it whole.
pub fn check_in_chunks(text: &str) -> Option<std::result::Result<(), markdown::ParseError>> {
    suits(text).then(|| check_chunks(text))
}

fn check_chunks(text: &str) -> std::result::Result<(), markdown::ParseError> {
    let mut pieces = TextPieces::new(text);
    let mut line = 1;
    let at_line = |e: markdown::ParseError, line: usize| markdown::ParseError {
        line: e.line + line - 1,
        reason: e.reason,
    };
    // text pieces are cut from memory: taking one never fails
    while let Ok(Some(mut chunk)) = pieces.piece() {
        let parsed = loop {
            let parsed = markdown::parse(&chunk, true).map_err(|e| at_line(e, line))?;
            // a fence left open runs on past the cut, as in `next_chunk`
            let open = (parsed.shape.regions.last()).is_some_and(|r| r.open_end);
            if (open || parsed.doc.blocks.is_empty())
                && let Ok(Some(more)) = pieces.piece()
            {
                chunk.push_str(&more);
                continue;
            }
            break parsed;
        };
        if let Some(u) = parsed.unclosed.filter(|u| u.hidden > 0) {
            let reason = u.to_string();
            return Err(at_line(
                markdown::ParseError {
                    line: u.line,
                    reason,
                },
                line,
            ));
        }
        line += chunk.matches('\n').count();
    }
    Ok(())
}

/// One chunk, parsed: the first chunk's parse reads from the file's start, every other one from
/// a `## ` heading.
struct Chunk {
    parsed: Parsed,
    /// The chunk ends the file.
    last: bool,
}

/// The next chunk of `src` (`None` at its end), carried on past each cut a fence left open
/// (or that leaves it no entry), and how many lines it holds; `line` is the file's line it
/// starts on, for an error.
fn next_chunk(src: &mut dyn Pieces, line: usize) -> Result<Option<(Chunk, usize)>> {
    let Some(mut text) = src.piece()? else {
        return Ok(None);
    };
    loop {
        let parsed = markdown::parse(&text, true).map_err(|e| {
            Error::bad_input(format!(
                "line {}: {} (reading the archive a chunk at a time)",
                e.line + line - 1,
                e.reason
            ))
        })?;
        // a fence left open runs on past the cut; a chunk holds an entry at least (the
        // first may be all preamble)
        let open = (parsed.shape.regions.last()).is_some_and(|r| r.open_end);
        if (open || parsed.doc.blocks.is_empty())
            && let Some(more) = src.piece()?
        {
            text.push_str(&more);
            continue;
        }
        let lines = text.matches('\n').count();
        let last = src.done();
        return Ok(Some((Chunk { parsed, last }, lines)));
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
    /// The sequence number the next entry takes (they go down the file).
    seq: u64,
    lot: Vec<EntryRecord>,
}

impl Tx<'_> {
    /// Import the archive `text` (it [`suits`]) into a store that holds none of it, a chunk
    /// at a time; false, having changed nothing, when its first entry is undated (it takes its
    /// date from below, which a chunk may not hold). A layout the store needs for it goes to
    /// `shapes` (`set_layouts` keeps it).
    pub(super) fn stream_archive(
        &mut self,
        src: Source,
        fresh: &mut Fresh,
        shapes: &mut Vec<Shaped>,
    ) -> Result<bool> {
        let f = FileKind::Archive;
        let mut pieces = src.pieces()?;
        let Some((first, line)) = next_chunk(pieces.as_mut(), 1)? else {
            return Ok(false);
        };
        let dated_first =
            (first.parsed.doc.blocks.first()).is_some_and(|b| heading_date(&b.heading).is_some());
        if !dated_first {
            return Ok(false);
        }
        let heading_lines = src.headings();
        let mut r = Reading {
            canonical: true,
            newest_below: None,
            in_order: true,
            dated_above: None,
            seq: self.store.take_seqs(heading_lines)? + heading_lines - 1,
            lot: Vec::with_capacity(LOT),
        };
        self.touch(f)?;
        let head = first.parsed.doc.preamble.clone();
        self.take_preamble(f, &head)?;
        let head_gap = if head.is_empty() { "" } else { "\n\n" };
        let top = &first.parsed.shape.regions[0];
        r.canonical = top.raw.is_none() && top.gap == head_gap;
        let maker = Maker {
            author: self.author.clone(),
            lang: self.lang(),
        };
        // the chunks are parsed and made records on a thread of their own while this one
        // writes the records made so far: a few lots in flight, never the file
        let (lots, written) = std::sync::mpsc::sync_channel::<Vec<EntryRecord>>(2);
        let (ids, reading, maker) = (&mut fresh.ids, &mut r, &maker);
        let (read, wrote) = std::thread::scope(|s| {
            // the sender moves to the reader: the writer's loop ends when the reader does
            let reader = s.spawn(move || {
                let mut pieces = pieces;
                let stopped = || Error::Internal("the archive's writer stopped".into());
                let mut send = |lot| lots.send(lot).map_err(|_| stopped());
                read_chunks(
                    pieces.as_mut(),
                    first,
                    line + 1,
                    reading,
                    ids,
                    maker,
                    &mut send,
                )?;
                // the file read was the version absorbed (else nothing is kept)
                pieces.finish()
            });
            let wrote = self.write_lots(written, heading_lines);
            (reader.join(), wrote)
        });
        let read = read.unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        // the writer's error first: a reader stopped by it says only that it was stopped
        let count = wrote?;
        read?;
        self.ws.progress("reading the memory files", count, count);
        *fresh.imported.entry(f).or_default() += count;
        // the archive keeps no versions, so no prints of its entries are taken
        debug_assert!(!kept_for(f));
        self.dirty.insert(f);
        self.changed = true;
        self.archive.other = true;
        if r.canonical && r.in_order {
            self.store.set_layout(f, None)?;
            self.files.as_read.insert(f);
        } else {
            // laid out otherwise than the store renders it: its layout, from the whole file
            let whole = match src {
                Source::Text(t) => Cow::Borrowed(t),
                Source::File(a) => Cow::Owned(a.read_whole()?),
            };
            let mut parsed = markdown::parse(&whole, true)
                .map_err(|e| Error::bad_input(format!("archive: line {}: {}", e.line, e.reason)))?;
            let mut units = vec![(String::new(), head.clone(), head)];
            drop(self.drain_items(f, &mut parsed, &mut units));
            shapes.push((f, parsed.shape, units));
        }
        Ok(true)
    }

    /// Write the lots the reader sends until it is done: the entries written.
    fn write_lots(&mut self, lots: Receiver<Vec<EntryRecord>>, total: u64) -> Result<usize> {
        let mut count = 0;
        for lot in lots {
            self.store.put_new_entries(&lot)?;
            count += lot.len();
            self.ws
                .progress("reading the memory files", count, total as usize);
        }
        Ok(count)
    }
}

/// What the reader makes each entry's record with.
struct Maker {
    author: Author,
    lang: Lang,
}

/// Read the archive's chunks from `first` on (the next starts on `line`): each entry made a
/// record, checked for the store rendering it as it reads, and sent a lot at a time.
fn read_chunks(
    pieces: &mut dyn Pieces,
    first: Chunk,
    mut line: usize,
    r: &mut Reading,
    ids: &mut Ids,
    maker: &Maker,
    send: &mut dyn FnMut(Vec<EntryRecord>) -> Result<()>,
) -> Result<()> {
    take_chunk(first, r, ids, maker, send)?;
    while let Some((chunk, lines)) = next_chunk(pieces, line)? {
        line += lines;
        take_chunk(chunk, r, ids, maker, send)?;
    }
    send(std::mem::take(&mut r.lot))
}

/// Take one chunk's entries: each made a record, sent a lot at a time, and checked for the
/// store rendering it as it reads.
fn take_chunk(
    chunk: Chunk,
    r: &mut Reading,
    ids: &mut Ids,
    maker: &Maker,
    send: &mut dyn FnMut(Vec<EntryRecord>) -> Result<()>,
) -> Result<()> {
    let f = FileKind::Archive;
    let Chunk { mut parsed, last } = chunk;
    let dates = dates_of(&parsed.doc);
    let n = parsed.doc.blocks.len();
    let today = maker.author.today;
    for (i, block) in parsed.doc.blocks.iter_mut().enumerate() {
        let item = item_of(f, block, i, &dates, r.dated_above, ids, today);
        let read = block.text();
        let plain = item.body == block.body && item.heading == block.heading;
        let store = (!plain).then(|| {
            let state = item.state;
            markdown::block_of(&item.heading, &item.body, state, None, maker.lang).text()
        });
        let store_text = store.as_deref().unwrap_or(&read);
        let region = &parsed.shape.regions[i + 1];
        let gap = if last && i + 1 == n { "\n" } else { "\n\n" };
        r.canonical &= read == store_text && region.raw.is_none() && region.gap == gap;
        r.in_order &= r.newest_below.is_none_or(|d| item.sort_date <= d);
        r.newest_below = Some(item.sort_date);
        block.body = String::new();
        r.lot.push(found_entry(item, r.seq, &maker.author));
        r.seq = r.seq.saturating_sub(1);
        if r.lot.len() == LOT {
            send(std::mem::replace(&mut r.lot, Vec::with_capacity(LOT)))?;
        }
    }
    if let Some(d) = dates.iter().rev().flatten().next() {
        r.dated_above = Some(*d);
    }
    Ok(())
}

/// The record of an archived entry found on a first import, at sequence number `seq`.
fn found_entry(item: Item, seq: u64, author: &Author) -> EntryRecord {
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
        created_at: author.now.clone(),
        actor: author.actor.clone(),
        origin: Origin::default(),
    }
}
