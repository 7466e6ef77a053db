//! The archive merged by what was added on top of it. Both sides of a merge move sessions into
//! the archive by putting them on top; below, the three versions end in the same bytes. Only
//! the tops are read and merged by entry; the rest is copied from ours a block at a time, so a
//! merge holds the new entries, never the archive (which may be past what is read whole). It
//! applies when the tops parse on their own and the merged entries are no older than the first
//! entry below them, which is where the whole merge puts them; otherwise the whole merge runs.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use chrono::NaiveDate;

use crate::error::{Error, Result};
use crate::markdown::{self, Doc, merge_entries};
use crate::model::heading_date;
use crate::workspace::{MAX_STREAMED_BYTES, write_atomic_spliced};

/// A block of the files compared or searched at a time.
const BLOCK: usize = 1 << 20;

/// The most text above the shared part read into memory from one version.
const MAX_TOP: u64 = 64 << 20;

/// How far into the shared part the first entry is looked for.
const MAX_SEARCH: u64 = 4 << 20;

/// Merge `base`, `ours` (written in place) and `theirs` by their tops; `None` when the three do
/// not share a tail this merge may keep as it is (the whole merge then decides).
pub(super) fn merge(base: &Path, ours: &Path, theirs: &Path) -> Result<Option<usize>> {
    let paths = [base, ours, theirs];
    let mut files = Vec::with_capacity(3);
    for p in paths {
        let (f, meta) =
            crate::base::fence::open_regular(p, MAX_STREAMED_BYTES).map_err(|e| Error::io(p, e))?;
        files.push((f, meta.len()));
    }
    let shared = shared_tail(&mut files).map_err(|e| Error::io(ours, e))?;
    let (ours_file, ours_len) = &mut files[1];
    let Some((skip, below)) =
        first_entry(ours_file, *ours_len - shared, shared).map_err(|e| Error::io(ours, e))?
    else {
        return Ok(None);
    };
    // each version's top: everything above the first entry of the shared tail
    let mut tops = Vec::with_capacity(3);
    for ((f, len), p) in files.iter_mut().zip(paths) {
        let top = *len - shared + skip;
        if top > MAX_TOP {
            return Ok(None);
        }
        let mut bytes = vec![0u8; top as usize];
        f.seek(SeekFrom::Start(0))
            .and_then(|_| f.read_exact(&mut bytes))
            .map_err(|e| Error::io(p, e))?;
        match top_doc(&bytes) {
            Some(doc) => tops.push(doc),
            None => return Ok(None),
        }
    }
    let mut m = merge_entries(&tops[0], &tops[1], &tops[2]);
    super::order_by_date(&mut m.doc);
    if !no_older_than(&m.doc, below) {
        return Ok(None);
    }
    let mut head = markdown::render(&m.doc, None);
    if m.conflicts == 0 && top_doc(head.as_bytes()).is_none() {
        return Ok(None);
    }
    if !head.is_empty() {
        head.push('\n');
    }
    let from = files[1].1 - shared + skip;
    // closed before ours is replaced: Windows may refuse to replace a file still open
    drop(files);
    write_atomic_spliced(ours, head.as_bytes(), ours, from)?;
    Ok(Some(m.conflicts))
}

/// How many bytes the three files end with in common, compared a block at a time from the end.
fn shared_tail(files: &mut [(File, u64)]) -> std::io::Result<u64> {
    let shortest = files.iter().map(|(_, len)| *len).min().unwrap_or(0);
    let mut bufs = vec![vec![0u8; BLOCK]; files.len()];
    let mut shared = 0u64;
    while shared < shortest {
        let n = (BLOCK as u64).min(shortest - shared) as usize;
        for ((f, len), buf) in files.iter_mut().zip(&mut bufs) {
            f.seek(SeekFrom::Start(*len - shared - n as u64))?;
            f.read_exact(&mut buf[..n])?;
        }
        let same = (1..=n)
            .take_while(|k| bufs.iter().all(|b| b[n - k] == bufs[0][n - k]))
            .count();
        shared += same as u64;
        if same < n {
            break;
        }
    }
    Ok(shared)
}

/// In the `shared` bytes of `f` from offset `from`: where its first entry starts (the `## ` of
/// a heading after a blank line, so every version has a blank line above it) and that entry's
/// date. `None` when there is none near the start, or it is undated.
fn first_entry(f: &mut File, from: u64, shared: u64) -> std::io::Result<Option<(u64, NaiveDate)>> {
    let want = shared.min(MAX_SEARCH) as usize;
    let mut bytes = vec![0u8; want];
    f.seek(SeekFrom::Start(from))?;
    f.read_exact(&mut bytes)?;
    let Some(at) = memchr::memmem::find(&bytes, b"\n\n## ") else {
        return Ok(None);
    };
    let start = at + 2;
    let line = &bytes[start + 3..];
    let line = &line[..memchr::memchr(b'\n', line).unwrap_or(line.len())];
    let date = std::str::from_utf8(line).ok().and_then(heading_date);
    Ok(date.map(|d| (start as u64, d)))
}

/// A version's top parsed on its own: `None` unless it is UTF-8, parses with every fence
/// closed, and holds no pointer line (the whole merge handles those).
fn top_doc(bytes: &[u8]) -> Option<Doc> {
    let p = markdown::parse_bytes(bytes, true).ok()?;
    (p.require_closed().is_ok() && p.stripped.is_empty()).then_some(p.doc)
}

/// Whether every entry of `doc` (an undated one dated by the entry above it) is dated no
/// earlier than `below`: the whole merge would put them all above it.
fn no_older_than(doc: &Doc, below: NaiveDate) -> bool {
    let mut last = None;
    doc.blocks.iter().all(|b| {
        last = heading_date(&b.heading).or(last);
        last.is_some_and(|d| d >= below)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An archive as trilogy renders it: the preamble, then `entries` (day, text) newest first.
    fn archive(entries: &[(u32, String)]) -> String {
        let mut s = String::from("# SESSIONS ARCHIVE\n");
        for (day, text) in entries {
            s.push_str(&format!(
                "\n## 2026-{:02}-{:02} · cli\n完成：{text}\n",
                day / 28 + 1,
                day % 28 + 1
            ));
        }
        s
    }

    fn entries(days: std::ops::Range<u32>, tag: &str) -> Vec<(u32, String)> {
        days.rev()
            .map(|d| (d, format!("{tag} {d}，tested")))
            .collect()
    }

    /// Merge three versions both ways: by their tops (`None` when that does not apply) and
    /// whole (the same entry merge, as SESSIONS.md is merged).
    fn both(base: &str, ours: &str, theirs: &str) -> (Option<String>, String) {
        let dir = tempfile::tempdir().unwrap();
        let put = |n: &str, t: &str| {
            let p = dir.path().join(n);
            std::fs::write(&p, t).unwrap();
            p
        };
        let (b, o, t) = (put("b", base), put("o", ours), put("t", theirs));
        let fast = merge(&b, &o, &t)
            .unwrap()
            .map(|c| (c, std::fs::read_to_string(&o).unwrap()));
        let o = put("o", ours);
        let whole = super::super::merge_driver(&b, &o, &t, "memory/SESSIONS.md").unwrap();
        assert_eq!(whole.conflicts, 0);
        if let Some((c, _)) = &fast {
            assert_eq!(*c, 0);
        }
        (
            fast.map(|(_, text)| text),
            std::fs::read_to_string(&o).unwrap(),
        )
    }

    #[test]
    fn sessions_both_sides_put_on_top_merge_as_the_whole_merge_does() {
        // a tail of more than two blocks, so it is compared block by block
        let old = entries(0..200, &"x".repeat(9000));
        let base = archive(&old);
        let with = |new: Vec<(u32, String)>| archive(&[new, old.clone()].concat());
        let ours = with(entries(300..305, "ours"));
        let theirs = with(entries(302..309, "theirs"));
        let (fast, whole) = both(&base, &ours, &theirs);
        assert_eq!(fast.as_deref(), Some(whole.as_str()));
        assert!(whole.contains("ours 300，") && whole.contains("theirs 308，"));
        // one side only, and a base that shares nothing but the preamble's end
        let (fast, whole) = both(&base, &ours, &base);
        assert_eq!(fast.as_deref(), Some(whole.as_str()));
        let (fast, whole) = both(&archive(&[]), &ours, &theirs);
        assert_eq!(
            fast, None,
            "no entry below is shared: the whole merge decides"
        );
        assert!(whole.contains("ours 300，") && whole.contains("x 0，"));
    }

    #[test]
    fn entries_older_than_the_shared_tail_or_a_top_that_does_not_parse_go_to_the_whole_merge() {
        let old = entries(10..40, "old");
        let base = archive(&old);
        let with = |new: Vec<(u32, String)>| archive(&[new, old.clone()].concat());
        // theirs put an entry older than the tail's newest on top: the whole merge sorts it in
        let (fast, whole) = both(
            &base,
            &with(entries(50..52, "ours")),
            &with(entries(5..6, "late")),
        );
        assert_eq!(fast, None);
        let late = whole.find("late 5，").unwrap();
        assert!(late > whole.find("old 10，").unwrap(), "{whole}");
        // a fence opened on top and never closed would swallow the tail's headings
        let open = base.replacen("# SESSIONS ARCHIVE\n", "# SESSIONS ARCHIVE\n\n```\n", 1);
        let dir = tempfile::tempdir().unwrap();
        let put = |n: &str, t: &str| {
            let p = dir.path().join(n);
            std::fs::write(&p, t).unwrap();
            p
        };
        let ours = with(entries(50..52, "ours"));
        let (b, o, t) = (put("b", &base), put("o", &ours), put("t", &open));
        assert_eq!(merge(&b, &o, &t).unwrap(), None);
        assert_eq!(
            std::fs::read_to_string(&o).unwrap(),
            ours,
            "ours is left as it was"
        );
    }
}
