//! Projection: a file's bytes rendered from the store, deterministic byte for byte, and the
//! archive splice that avoids re-rendering (or even reading into memory) 100k entries when only
//! new ones arrive.

use std::collections::{HashMap, HashSet};
use std::io::Read;
use std::path::Path;

use crate::error::{Error, Result};
use crate::markdown::{
    self, Block, Layout, LayoutTop, OnTop, Piece, Unit, entry_block, pointer_line,
};
use crate::model::{FileKind, FileStamp, Lang, State};
use crate::store::Reader;

use super::super::{fsio, scaffold};
use super::Tx;

/// The archive written by splicing: the new entries' text on top, then the file's entries
/// copied from the file itself, from `from` on. The archive is never held in memory whole.
pub(super) struct Splice {
    /// Preamble and new entries, up to where the old entries start.
    pub head: Vec<u8>,
    /// The archive file, opened and checked to be the store's last rendering of it.
    pub src: std::fs::File,
    /// Where the old entries start in `src` (its length when it has none).
    pub from: u64,
    /// The stamp of `src`: the version the swap must displace.
    pub stamp: FileStamp,
    /// The layout of the spliced archive.
    pub layout: Laid,
}

impl Splice {
    /// Write the spliced archive into `out`; returns its SHA-1.
    pub fn write_to(mut self, out: &mut std::fs::File) -> std::io::Result<String> {
        fsio::write_spliced(out, &self.head, &mut self.src, self.from)
    }
}

impl Tx<'_> {
    /// The archive with this transaction's new entries spliced on top of the file, when that
    /// is what rendering it whole would give: nothing else about the archive changed, the file
    /// is exactly the store's last rendering of it (by a trusted stat, else by its hash), and
    /// the new entries are its newest. A file laid out as a person wrote it (a stored layout)
    /// is spliced the same way: its units stay as they are, the new ones go on top. At 100k
    /// entries this turns a full re-render into a streamed copy: no entry is loaded from the
    /// store but the new ones, the file is not read into memory. `None`: render it whole.
    pub(super) fn archive_splice(&self, f: FileKind, path: &Path) -> Result<Option<Splice>> {
        if f != FileKind::Archive || self.archive.other || self.archive.added.is_empty() {
            return Ok(None);
        }
        let Some(stamp) = self.store.stamp(f)? else {
            return Ok(None);
        };
        if self.files.seen.get(&f) != Some(&Some(stamp.sha1.clone())) {
            return Ok(None);
        }
        let trusted = fsio::stat_matches(path, &stamp, self.store.stamped_at(f)?)
            || fsio::hash_stamped(path)?.is_some_and(|d| d.sha1 == stamp.sha1 && d == stamp);
        if !trusted {
            return Ok(None);
        }
        let (mut src, meta) = crate::base::fence::open_regular(path, fsio::MAX_STREAMED_BYTES)
            .map_err(|e| Error::io(path, e))?;
        let mtime = crate::base::stat::mtime_ns(&meta);
        if meta.len() != stamp.len
            || crate::base::stat::inode(path, &meta) != stamp.ino
            || mtime != stamp.mtime_ns
        {
            return Ok(None);
        }
        let k = self.archive.added.len();
        let top = self.store.file_entries(f, 0, k)?;
        let added: HashSet<&str> = self.archive.added.iter().map(String::as_str).collect();
        if top.len() != k || top.iter().any(|e| !added.contains(e.id.as_str())) {
            return Ok(None);
        }
        let preamble = file_head(&self.store, f, self.lang())?;
        let on_top: Vec<Piece> = (top.iter())
            .map(|e| Piece {
                key: e.id.clone(),
                text: entry_block(e, self.lang()).text(),
            })
            .collect();
        let Some(cut) = cut(self.store.layout_top(f)?, &preamble, &on_top, meta.len()) else {
            return Ok(None);
        };
        // the file must start as that cut says (all of it, when it holds no entry yet)
        let mut start = vec![0u8; cut.expect.len()];
        src.read_exact(&mut start).map_err(|e| Error::io(path, e))?;
        if start != cut.expect {
            return Ok(None);
        }
        let from = cut.expect.len() as u64;
        #[cfg(debug_assertions)]
        {
            let old = std::fs::read(path).map_err(|e| Error::io(path, e))?;
            let mut text = cut.head.clone();
            text.extend_from_slice(&old[from as usize..]);
            let (whole, laid) = render_laid(&self.store, f, self.lang())?;
            debug_assert_eq!(
                String::from_utf8_lossy(&text),
                whole,
                "the spliced archive equals the full rendering"
            );
            if laid.is_some() {
                let whole = (self.store.layout(f)?)
                    .and_then(|l| l.put_on_top(&preamble, &on_top))
                    .map(|(_, _, l)| l);
                debug_assert_eq!(whole, laid, "the spliced archive's layout is the full one");
            }
        }
        Ok(Some(Splice {
            head: cut.head,
            src,
            from,
            stamp,
            layout: cut.layout,
        }))
    }
}

/// Where a splice cuts the archive: the bytes it must start with (all of it when it holds no
/// entry), what replaces them, and the layout of the result.
pub(super) struct Cut {
    pub expect: Vec<u8>,
    pub head: Vec<u8>,
    pub layout: Laid,
}

/// The layout of an archive with entries spliced on top.
pub(super) enum Laid {
    /// The canonical rendering: none kept.
    Canonical,
    /// The stored layout with units on top: its new top, and those units.
    OnTop(LayoutTop, Vec<Unit>),
}

impl Laid {
    /// Keep it as file `f`'s layout in `store`.
    pub(super) fn keep(&self, store: &crate::store::WriteTx, f: FileKind) -> Result<()> {
        match self {
            Laid::Canonical => store.set_layout(f, None),
            Laid::OnTop(top, units) => store.put_layout_on_top(f, top, units),
        }
    }
}

/// The cut of an archive `len` bytes long, laid out by `layout` (`None`: canonically) under
/// `preamble`, for `on_top` to go on top of it.
pub(super) fn cut(
    layout: Option<LayoutTop>,
    preamble: &str,
    on_top: &[Piece],
    len: u64,
) -> Option<Cut> {
    match layout {
        Some(layout) => laid_cut(layout, preamble, on_top, len),
        None => canonical_cut(preamble, on_top, len),
    }
}

/// The cut of an archive rendered canonically (`len` bytes long) under `preamble`.
fn canonical_cut(preamble: &str, on_top: &[Piece], len: u64) -> Option<Cut> {
    let render = |pieces: &[Piece]| {
        markdown::join_units(preamble, pieces.iter().map(|p| p.text.as_str()), None)
    };
    let prefix = render(&[]);
    let head = render(on_top);
    if len == prefix.len() as u64 {
        // no entry yet: the file is the preamble alone
        return Some(Cut {
            expect: prefix.into_bytes(),
            head: head.into_bytes(),
            layout: Laid::Canonical,
        });
    }
    // the old entries follow `prefix` (less its newline) and a blank line; an empty preamble
    // renders as "\n" and no prefix
    let expect = match prefix.as_str() {
        "\n" => String::new(),
        p => format!("{}\n\n", p.strip_suffix('\n').unwrap_or(p)),
    };
    if len <= expect.len() as u64 {
        return None;
    }
    Some(Cut {
        expect: expect.into_bytes(),
        head: format!("{}\n\n", head.strip_suffix('\n').unwrap_or(&head)).into_bytes(),
        layout: Laid::Canonical,
    })
}

/// The cut of an archive laid out by `layout` (`len` bytes long): its head as laid out, the
/// new entries below it, its units untouched.
fn laid_cut(layout: LayoutTop, preamble: &str, on_top: &[Piece], len: u64) -> Option<Cut> {
    let OnTop {
        start: expect,
        text: head,
        top,
        units,
    } = layout.put_on_top(preamble, on_top)?;
    if len <= expect.len() as u64 {
        return None;
    }
    // kept even where the full rendering would find the text canonical and keep none: the
    // layout renders that same text (and telling would take rendering the whole file)
    Some(Cut {
        expect,
        head,
        layout: Laid::OnTop(top, units),
    })
}

/// Render one file from the store: deterministic, byte for byte.
pub fn render_file(r: &dyn Reader, f: FileKind, lang: Lang) -> Result<String> {
    Ok(render_laid(r, f, lang)?.0)
}

/// The archive rendered canonically into `out`, its entries read from the store one at a time
/// in file order and written a block at a time: what [`render_file`] gives an archive that
/// keeps no layout, never held whole. Returns the SHA-1 (hex) of what was written.
pub(super) fn write_canonical_archive(
    r: &dyn Reader,
    lang: Lang,
    out: &mut std::fs::File,
) -> std::io::Result<String> {
    use std::io::Write;
    let io = |e: Error| std::io::Error::other(e.to_string());
    let head = file_head(r, FileKind::Archive, lang).map_err(io)?;
    let mut w = fsio::HashingWriter::new(out);
    let mut any = false;
    // as `markdown::join_units`: a blank line between parts, one newline at the end
    let mut put = |part: &str, w: &mut fsio::HashingWriter<_>| {
        if std::mem::replace(&mut any, true) {
            w.write_all(b"\n\n")?;
        }
        w.write_all(part.as_bytes())
    };
    let head = head.trim_end();
    if !head.is_empty() {
        put(head, &mut w)?;
    }
    let mut failed = None;
    r.scan_file(FileKind::Archive, 0, &mut |e| {
        if let Err(err) = put(&entry_block(&e, lang).text(), &mut w) {
            failed = Some(err);
            return Ok(false);
        }
        Ok(true)
    })
    .map_err(io)?;
    if let Some(err) = failed {
        return Err(err);
    }
    w.write_all(b"\n")?;
    w.finish()
}

/// The head, the units and the pointer of a file, as the store renders them.
pub(super) struct Parts {
    pub head: String,
    pub pieces: Vec<Piece>,
    /// SESSIONS.md: entries in the archive, and the canonical pointer line.
    pub pointer: Option<(u64, String)>,
}

/// What a file's text starts with, before its units: its preamble as last read or written,
/// else the template's.
pub fn file_head(r: &dyn Reader, f: FileKind, lang: Lang) -> Result<String> {
    Ok(match r.preamble(f)? {
        Some(p) => p,
        None => scaffold::template_preamble(f, lang),
    })
}

pub(super) fn parts(r: &dyn Reader, f: FileKind, lang: Lang) -> Result<Parts> {
    let head = file_head(r, f, lang)?;
    let pieces: Vec<Piece> = match f {
        FileKind::Project => r
            .sections()?
            .into_iter()
            .filter(|s| !s.removed)
            .map(|s| Piece {
                text: Block::new(s.heading, s.body).text(),
                key: s.key,
            })
            .collect(),
        _ => r
            .file_entries(f, 0, usize::MAX)?
            .iter()
            .map(|e| Piece {
                text: entry_block(e, lang).text(),
                key: e.id.clone(),
            })
            .collect(),
    };
    let pointer = if f == FileKind::Sessions {
        let archived = r.file_count(FileKind::Archive)?;
        Some((archived, pointer_line(archived, lang)))
    } else {
        None
    };
    Ok(Parts {
        head,
        pieces,
        pointer,
    })
}

/// The canonical rendering of a file's parts.
fn canonical(parts: &Parts) -> String {
    let pointer = parts
        .pointer
        .as_ref()
        .filter(|(n, _)| *n > 0)
        .map(|(_, line)| line.as_str());
    markdown::join_units(
        &parts.head,
        parts.pieces.iter().map(|p| p.text.as_str()),
        pointer,
    )
}

/// Render one file from the store in the layout it was last read or written in: the text, and
/// the layout of that text (`None` when it is the canonical rendering).
pub fn render_laid(r: &dyn Reader, f: FileKind, lang: Lang) -> Result<(String, Option<Layout>)> {
    let (text, laid, _) = render_printed(r, f, lang)?;
    Ok((text, laid))
}

/// [`render_laid`], with the prints of the entries rendered (of the sections' lines for
/// PROJECT.md): what a version of the file holds.
pub(super) fn render_printed(
    r: &dyn Reader,
    f: FileKind,
    lang: Lang,
) -> Result<(String, Option<Layout>, Vec<crate::store::Print>)> {
    let parts = parts(r, f, lang)?;
    let prints = match super::base::kept_for(f) {
        true if f == FileKind::Project => {
            let sections = r.sections()?;
            super::base::lines::section_prints(
                (sections.iter())
                    .filter(|s| !s.removed)
                    .map(|s| (s.key.as_str(), s.body.as_str())),
            )
        }
        true => (parts.pieces.iter())
            .map(|p| {
                (
                    super::base::id_key(&p.key),
                    super::base::block_hash(&p.text),
                )
            })
            .collect(),
        false => Vec::new(),
    };
    let plain = canonical(&parts);
    let Some(layout) = r.layout(f)? else {
        return Ok((plain, None, prints));
    };
    let ordered = arrange(r, f, &layout, parts.pieces)?;
    let (text, laid) = layout.render(
        &parts.head,
        &ordered,
        parts.pointer.as_ref().map(|(n, l)| (*n, l.as_str())),
    );
    if text == plain {
        return Ok((text, None, prints));
    }
    Ok((text, Some(laid), prints))
}

/// The units of a file in the order its layout gives: those it holds in their places, an
/// entry that replaced one of them in that one's place, other new entries on top (newest
/// first), a PROJECT section the file lacked at its canonical position.
fn arrange(r: &dyn Reader, f: FileKind, layout: &Layout, pieces: Vec<Piece>) -> Result<Vec<Piece>> {
    let mut fresh: HashMap<String, Piece> = HashMap::new();
    let mut fresh_order: Vec<String> = Vec::new();
    let mut kept: HashMap<String, Piece> = HashMap::new();
    let known: HashSet<&str> = layout.units.iter().map(|u| u.key.as_str()).collect();
    for p in pieces {
        if known.contains(p.key.as_str()) {
            kept.insert(p.key.clone(), p);
        } else {
            fresh_order.push(p.key.clone());
            fresh.insert(p.key.clone(), p);
        }
    }
    // an entry that replaced one of the file's (a correction) takes that one's place
    let mut in_place: HashMap<&str, Piece> = HashMap::new();
    if f != FileKind::Project && !fresh.is_empty() {
        for u in &layout.units {
            if !kept.contains_key(&u.key)
                && let Some(rec) = r.entry(&u.key)?
                && rec.state == State::Replaced
                && let Some(by) = rec.replaced_by.as_deref()
                && let Some(p) = fresh.remove(by)
            {
                in_place.insert(u.key.as_str(), p);
            }
        }
    }
    let mut out: Vec<Piece> = Vec::with_capacity(kept.len() + fresh.len() + in_place.len());
    let mut placed_fresh = false;
    for u in &layout.units {
        let here = kept
            .remove(&u.key)
            .or_else(|| in_place.remove(u.key.as_str()));
        let Some(p) = here else { continue };
        if f != FileKind::Project && !placed_fresh {
            placed_fresh = true;
            // new entries go on top, above the first entry still in the file
            out.extend(fresh_order.iter().filter_map(|k| fresh.remove(k)));
        }
        out.push(p);
    }
    let rest: Vec<Piece> = fresh_order.iter().filter_map(|k| fresh.remove(k)).collect();
    if f != FileKind::Project {
        // no entry of the file is left: the new ones are all there is
        let mut all = rest;
        all.extend(out);
        return Ok(all);
    }
    for p in rest {
        let slot = |key: &str| key.parse::<u32>().ok();
        let at = match slot(&p.key) {
            Some(s) => out
                .iter()
                .position(|q| slot(&q.key).is_some_and(|t| t > s))
                .unwrap_or(out.len()),
            None => out.len(),
        };
        out.insert(at, p);
    }
    Ok(out)
}
