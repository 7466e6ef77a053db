//! An archive that only grew on top: entries written above the ones trilogy last wrote, the
//! rest of the file byte for byte as it was. Only those entries are read and absorbed: the file
//! is hashed a block at a time, never parsed or rendered whole, so a hand-added entry costs the
//! same at a million archived entries as at a thousand. Whatever it cannot prove (any other
//! change, a layout kept for the file, entries out of date order or not as the store renders
//! them, an entry the store knows) is left to the full absorb, which gives the same store and
//! files. It never writes a memory file.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use sha1::{Digest, Sha1};

use crate::error::{Error, Result};
use crate::markdown;
use crate::model::{FileKind, FileStamp, heading_date};
use crate::store::Reader;

use super::super::fsio;
use super::items::{Item, items_drain};
use super::{Tx, gitop, render};

/// The most new text above the old entries read this way.
const MAX_GROWN: u64 = 8 << 20;

/// The archive as read: its stamp, the new text on top, and git's id for the whole file.
struct Grown {
    disk: FileStamp,
    top: Vec<u8>,
    blob: Option<String>,
}

impl Tx<'_> {
    /// Absorb the archive at `path` when it is the version stamped `stamp` (the store's
    /// canonical rendering, trilogy's last write or read) with new entries written on top;
    /// false, having changed nothing, when that cannot be shown.
    pub(super) fn absorb_grown_archive(&mut self, path: &Path, stamp: &FileStamp) -> Result<bool> {
        let f = FileKind::Archive;
        // `TRILOGY_WITHOUT=grown-archive`: a test absorbs the same edit the full way to compare
        if crate::base::fault::without("grown-archive")
            || self.git.switched_from.is_some()
            || self.store.meta("absorbed_once")? == 0
            || self.store.layout(f)?.is_some()
        {
            return Ok(false);
        }
        let preamble = render::file_head(&self.store, f, self.lang())?;
        let Some(cut) = render::canonical_cut(&preamble, &[], stamp.len) else {
            return Ok(false);
        };
        let expect = cut.expect;
        if expect.len() as u64 >= stamp.len {
            // no entry yet: the file is its head alone
            return Ok(false);
        }
        let Some(read) = self.read_grown(path, stamp, &expect)? else {
            return Ok(false);
        };
        let Some(items) = self.grown_items(&read.top[expect.len()..])? else {
            return Ok(false);
        };
        // a checkout that moved HEAD meanwhile: the full absorb leaves it for the next command
        if self.ws.git().and_then(gitop::head) != self.git.head {
            return Ok(false);
        }
        if let (Some(root), Some(id)) = (self.ws.git(), &read.blob)
            && gitop::is_git_blob(root, id)
        {
            self.git.same_as_index.insert(f);
            self.git.absorbed_from_index.insert(f);
        }
        self.files.seen.insert(f, Some(read.disk.sha1.clone()));
        self.files.stamps.insert(f, read.disk);
        let mut imported = BTreeMap::new();
        let replaced = HashMap::new();
        let author = self.author.as_actor("file-edit");
        self.as_author(author, |tx| {
            // sequence numbers bottom-up: the upper of two same-date entries is the newer
            items
                .iter()
                .rev()
                .try_for_each(|item| tx.add_found(f, item, false, &replaced, &mut imported))
        })?;
        // the file is the store's rendering as it stands: nothing to render to prove it
        self.files.as_read.insert(f);
        Ok(true)
    }

    /// Read the archive a block at a time: `None` unless it is `expect`, new text, then the
    /// rest of the version `stamp` names (what follows `expect` in it, by its hash).
    fn read_grown(&self, path: &Path, stamp: &FileStamp, expect: &[u8]) -> Result<Option<Grown>> {
        let len = match std::fs::metadata(path) {
            Ok(m) => m.len(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(Error::io(path, e)),
        };
        if len <= stamp.len || len - stamp.len > MAX_GROWN {
            return Ok(None);
        }
        let tail_start = len - (stamp.len - expect.len() as u64);
        let mut top: Vec<u8> = Vec::with_capacity(tail_start as usize);
        let mut tail = Sha1::new();
        tail.update(expect);
        let mut blob = self
            .ws
            .git()
            .filter(|root| gitop::git_dir(root).is_some())
            .map(|_| {
                let mut h = Sha1::new();
                h.update(format!("blob {len}\0").as_bytes());
                h
            });
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

    /// The entries of the text written on top of the archive, newest first: `None` unless
    /// each is laid out as the store renders it (one blank line after each), dated by its own
    /// heading, in date order and no older than the archive's newest, and new to the store.
    fn grown_items(&self, text: &[u8]) -> Result<Option<Vec<Item>>> {
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
        let mut rendered = String::with_capacity(text.len());
        let items = items_drain(f, &mut parsed.doc, self.author.today, |_, _, item| {
            let block = markdown::block_of(
                &item.heading,
                &item.body,
                item.state,
                item.superseded_by.as_deref(),
                lang,
            );
            rendered.push_str(&block.text());
            rendered.push_str("\n\n");
        });
        let Some(oldest) = items.last() else {
            return Ok(None);
        };
        let newest_kept = self.store.file_entries(f, 0, 1)?;
        let in_order = items.windows(2).all(|w| w[0].sort_date >= w[1].sort_date)
            && newest_kept
                .first()
                .is_none_or(|e| oldest.sort_date >= e.sort_date);
        let dated = (items.iter()).all(|i| heading_date(&i.heading) == Some(i.sort_date));
        if rendered != text || !in_order || !dated {
            return Ok(None);
        }
        for item in &items {
            if self.store.entry(&item.id)?.is_some() || self.entry_of(item)?.file() != Some(f) {
                return Ok(None);
            }
        }
        Ok(Some(items))
    }
}
