//! An archive that only grew on top: entries written above the ones trilogy last wrote, the
//! rest of the file byte for byte as it was. Only those entries are read and absorbed: the file
//! is hashed a block at a time, never parsed or rendered whole, so a hand-added entry costs the
//! same at a million archived entries as at a thousand. The new entries may be new to the store
//! or live sessions it holds (a batch move made in another clone, arriving with a pull); each
//! takes a new sequence number, so the store renders them in the file's order, and a layout
//! kept for the file gains them on top. A merge that put another clone's moves among the
//! entries trilogy last put on top (both clones moved sessions) is read the same way: those
//! entries are found among the new ones and take new sequence numbers with them, the rest of
//! the file still proven by its hash. Whatever it cannot prove (any other change, entries
//! out of date order or not laid out as the store renders them, an entry the store holds
//! anywhere but live in SESSIONS.md) is left to the full absorb, which gives the same files.
//! It never writes a memory file.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use sha1::{Digest, Sha1};

use crate::error::{Error, Result};
use crate::markdown::{self, Piece};
use crate::model::{EntryRecord, FileKind, FileStamp, State, heading_date};
use crate::store::Reader;

use super::super::fsio;
use super::items::{Item, items_drain};
use super::{Tx, gitop, render};

/// The most new text above the old entries read this way.
const MAX_GROWN: u64 = 8 << 20;

/// The most entries trilogy last put on top that a merge may have mixed with the new ones.
const MAX_RESTACKED: usize = 4096;

/// Entries found on top of the archive, each with the live session the store holds under its
/// id (`None`: new to the store).
type Found = Vec<(Item, Option<EntryRecord>)>;

/// The archive as read: its stamp, the new text on top, and git's id for the whole file.
struct Grown {
    disk: FileStamp,
    top: Vec<u8>,
    blob: Option<String>,
}

impl Tx<'_> {
    /// Absorb the archive at `path` when it is the version stamped `stamp` (the store's
    /// rendering, trilogy's last write or read) with new entries written on top; false, having
    /// changed nothing, when that cannot be shown.
    pub(super) fn absorb_grown_archive(&mut self, path: &Path, stamp: &FileStamp) -> Result<bool> {
        let f = FileKind::Archive;
        // `TRILOGY_WITHOUT=grown-archive`: a test absorbs the same edit the full way to compare
        if crate::base::fault::without("grown-archive")
            || self.git.switched_from.is_some()
            || self.store.meta("absorbed_once")? == 0
        {
            return Ok(false);
        }
        let layout = self.store.layout_top(f)?;
        let preamble = render::file_head(&self.store, f, self.lang())?;
        let Some(was) = render::cut(layout.clone(), &preamble, &[], stamp.len) else {
            return Ok(false);
        };
        let (read, under) = match self.read_grown(path, stamp, &was.expect, &was.expect)? {
            Some(read) => (read, Vec::new()),
            None if layout.is_none() => match self.read_restacked(path, stamp, &was.expect)? {
                Some(found) => found,
                None => return Ok(false),
            },
            None => return Ok(false),
        };
        let top = &read.top[was.expect.len()..];
        let Some((items, on_top)) = self.grown_items(top, &under)? else {
            return Ok(false);
        };
        // the file starts as the store renders it with those entries on top
        let laid = match render::cut(layout, &preamble, &on_top, stamp.len) {
            Some(cut) if cut.expect == was.expect && cut.head == read.top => cut.layout,
            _ => return Ok(false),
        };
        // a checkout that moved HEAD meanwhile: the full absorb leaves it for the next command
        if self.ws.git().and_then(gitop::head) != self.git.head {
            return Ok(false);
        }
        laid.keep(&self.store, f)?;
        if let (Some(root), Some(id)) = (self.ws.git(), &read.blob)
            && gitop::is_git_blob(root, id)
        {
            self.git.same_as_index.insert(f);
            self.git.absorbed_from_index.insert(f);
        }
        self.files.seen.insert(f, Some(read.disk.sha1.clone()));
        self.files.stamps.insert(f, read.disk);
        self.take_grown(items)?;
        // the file is the store's rendering as it stands: nothing to render to prove it
        #[cfg(debug_assertions)]
        debug_assert_eq!(
            render::render_file(&self.store, f, self.lang())?,
            String::from_utf8_lossy(&std::fs::read(path).map_err(|e| Error::io(path, e))?),
            "an archive absorbed as grown is the store's rendering"
        );
        self.files.as_read.insert(f);
        Ok(true)
    }

    /// Record the entries found on top of the archive, bottom-up, each under a new sequence
    /// number (so the store renders them in the file's order, above every entry of their day):
    /// new ones added, live sessions moved.
    fn take_grown(&mut self, items: Found) -> Result<()> {
        let f = FileKind::Archive;
        let replaced = HashMap::new();
        let author = self.author.as_actor("file-edit");
        self.as_author(author, |tx| {
            items
                .into_iter()
                .rev()
                .try_for_each(|(item, held)| match held {
                    // what trilogy last put on top, in its place in the new order
                    Some(mut rec) if rec.state == State::Archived => {
                        rec.seq = tx.store.next_seq()?;
                        tx.put_entry(&rec)
                    }
                    Some(mut rec) => {
                        rec.seq = tx.store.next_seq()?;
                        tx.take_state(f, rec, &item, "")
                    }
                    None => tx.add_found(f, &item, &replaced),
                })
        })
    }

    /// The archive as a merge leaves it when both sides put entries on top: the store's
    /// newest `k` archived entries (what trilogy last put on top, rendered canonically under
    /// `expect`) are among the new text on top, and the rest is the version `stamp` names from
    /// its `k`th entry on. The read, with those `k` entries; `None` when no `k` up to
    /// [`MAX_RESTACKED`] shows it. Each `k` whose first entry below is not where it would be
    /// is passed over by a read of that entry alone.
    fn read_restacked(
        &self,
        path: &Path,
        stamp: &FileStamp,
        expect: &[u8],
    ) -> Result<Option<(Grown, Vec<EntryRecord>)>> {
        let len = std::fs::metadata(path).map_or(0, |m| m.len());
        let newest = self
            .store
            .file_entries(FileKind::Archive, 0, MAX_RESTACKED + 1)?;
        let blocks: Vec<String> = (newest.iter())
            .map(|e| markdown::entry_block(e, self.lang()).text())
            .collect();
        let mut prefix = expect.to_vec();
        for k in 1..blocks.len() {
            prefix.extend_from_slice(blocks[k - 1].as_bytes());
            prefix.extend_from_slice(b"\n\n");
            let Some(rest) = stamp.len.checked_sub(prefix.len() as u64) else {
                break;
            };
            let Some(at) = len.checked_sub(rest) else {
                break;
            };
            // the entry below, whole (entries of one day and area share their heading)
            let below = format!("\n\n{}\n", blocks[k]);
            if at < 2 || !fsio::bytes_at(path, at - 2, below.as_bytes())? {
                continue;
            }
            if let Some(read) = self.read_grown(path, stamp, &prefix, expect)? {
                return Ok(Some((read, newest[..k].to_vec())));
            }
        }
        Ok(None)
    }

    /// Read the archive a block at a time: `None` unless it is `expect`, new text, then the
    /// rest of the version `stamp` names (what follows `old` in it, by its hash; `old` is
    /// `expect` when the new text was only added, or `expect` and the entries it replaced).
    fn read_grown(
        &self,
        path: &Path,
        stamp: &FileStamp,
        old: &[u8],
        expect: &[u8],
    ) -> Result<Option<Grown>> {
        let len = match std::fs::metadata(path) {
            Ok(m) => m.len(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(Error::io(path, e)),
        };
        let old_len = old.len() as u64;
        if len <= stamp.len || len - stamp.len > MAX_GROWN || stamp.len < old_len {
            return Ok(None);
        }
        let tail_start = len - (stamp.len - old_len);
        let mut top: Vec<u8> = Vec::with_capacity(tail_start as usize);
        let mut tail = Sha1::new();
        tail.update(old);
        let mut blob = gitop::blob_hasher_in(self.ws.git(), len);
        let disk = fsio::hash_stamped_with(path, |at, block| {
            let end = at + block.len() as u64;
            if at < tail_start {
                top.extend_from_slice(&block[..(tail_start.min(end) - at) as usize]);
            }
            if end > tail_start {
                tail.update(&block[tail_start.saturating_sub(at) as usize..]);
            }
            if let Some(h) = &mut blob {
                h.update(block);
            }
        })?;
        let hex = |h: Sha1| crate::base::hex::lower(&h.finalize());
        let Some(disk) = disk else {
            return Ok(None);
        };
        if disk.len != len || !top.starts_with(expect) || hex(tail) != stamp.sha1 {
            return Ok(None);
        }
        Ok(Some(Grown {
            disk,
            top,
            blob: blob.map(hex),
        }))
    }

    /// The entries of the text written on top of the archive, newest first, each with the live
    /// session the store holds under its id (`None`: new to the store), and their blocks as the
    /// store renders them: `None` unless each is dated by its own heading, in date order and no
    /// older than the archive's newest.
    fn grown_items(
        &self,
        text: &[u8],
        under: &[EntryRecord],
    ) -> Result<Option<(Found, Vec<Piece>)>> {
        let f = FileKind::Archive;
        let Ok(text) = std::str::from_utf8(text) else {
            return Ok(None);
        };
        let Ok(mut parsed) = markdown::parse(text, true) else {
            return Ok(None);
        };
        if !parsed.doc.preamble.is_empty() {
            return Ok(None);
        }
        let lang = self.lang();
        let mut on_top = Vec::new();
        let items = items_drain(f, &mut parsed.doc, self.author.today, |_, _, item| {
            let block = markdown::block_of(
                &item.heading,
                &item.body,
                item.state,
                item.superseded_by.as_deref(),
                lang,
            );
            on_top.push(Piece {
                key: item.id.clone(),
                text: block.text(),
            });
        });
        let dated = (items.iter()).all(|i| heading_date(&i.heading) == Some(i.sort_date));
        let newest_kept = self.store.file_entries(f, under.len(), 1)?;
        let in_order = items.windows(2).all(|w| w[0].sort_date >= w[1].sort_date)
            && items.last().is_some_and(|oldest| {
                newest_kept
                    .first()
                    .is_none_or(|e| oldest.sort_date >= e.sort_date)
            });
        if !dated || !in_order {
            return Ok(None);
        }
        let mut ids = HashSet::new();
        let mut found = Vec::with_capacity(items.len());
        for item in items {
            if !ids.insert(item.id.clone()) {
                return Ok(None);
            }
            let held = match self.store.entry(&item.id)? {
                None if self.entry_of(&item)?.file() == Some(f) => None,
                // a live session moved here (a batch move made in another clone)
                Some(rec)
                    if rec.file() == Some(FileKind::Sessions)
                        && rec.state == State::Live
                        && item.state == State::Archived
                        && rec.sort_date == item.sort_date =>
                {
                    Some(rec)
                }
                // one trilogy last put on top, among the new ones
                Some(rec)
                    if item.state == State::Archived && under.iter().any(|u| u.id == rec.id) =>
                {
                    Some(rec)
                }
                _ => return Ok(None),
            };
            found.push((item, held));
        }
        // every one of them still there: one taken out is the full absorb's to honour
        let kept = (found.iter())
            .filter(|(_, held)| held.as_ref().is_some_and(|r| r.state == State::Archived))
            .count();
        if kept != under.len() {
            return Ok(None);
        }
        Ok(Some((found, on_top)))
    }
}
