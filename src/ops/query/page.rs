//! A whole file read in pages, as an agent is given it: at most a byte budget of the file's
//! text per answer, cut between entries (an entry longer than a page on its own is cut inside,
//! at a marker), with a cursor naming the entry the next page starts with.
//!
//! A page costs what it touches: the entries on it and the one after, found from the cursor
//! through the render order, never the rest of the file, which is not rendered. Credentials are
//! masked entry by entry before a page is measured, so a cut never hides one from the mask.
//! Pages show the file as the store renders it canonically (entries newest first, blank line
//! between); this module only reads.

use serde::Serialize;

use crate::error::{Error, Result};
use crate::markdown::{entry_block, pointer_line};
use crate::model::{EntryRecord, FileKind, Lang};
use crate::store::Reader;

/// What a paged read asks for.
#[derive(Debug, Clone, PartialEq)]
pub struct PageAsk {
    /// DECISIONS.md, SESSIONS.md or SESSIONS-archive.md.
    pub file: FileKind,
    /// The most bytes of the file's text one page holds, counted as JSON writes them (a
    /// newline or a quote counts two); at least [`MIN_PAGE_BYTES`].
    pub bytes: usize,
    /// The `cursor` of the previous page; `None`: the top of the file.
    pub cursor: Option<String>,
}

/// The smallest page: room for the start of a long entry and the marker where it is cut.
pub const MIN_PAGE_BYTES: usize = 1024;

/// Where a page sits in its file: the fields a paged answer adds beside `content`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Paging {
    /// What to pass as `cursor` for the next page; `None` on the last page.
    pub cursor: Option<String>,
    /// Whether the file goes on after this page.
    pub truncated: bool,
    /// For the model: that this is a page, how much is left, how to go on.
    pub note: String,
}

/// One page of a file.
#[derive(Debug)]
pub struct Page {
    /// The page's text: the file's text from where the cursor points, ending in a newline.
    pub content: String,
    pub paging: Paging,
    /// Read from the top with nothing left after it: the page is the whole file.
    pub whole: bool,
}

/// Where a long entry is cut, in the page's text.
const CUT_MARKER: &str = "\n\n[trilogy: this entry is too long for one page and is cut here; the next page goes on with the rest of it]";

/// The bytes JSON takes to write `s` inside a string: what a page is measured in, since hosts
/// hand the model the JSON answer. A byte-level tokenizer never makes more tokens than bytes.
pub fn json_len(s: &str) -> usize {
    s.len()
        + s.bytes()
            .map(|b| match b {
                b'"' | b'\\' | b'\n' | b'\r' | b'\t' | 0x08 | 0x0c => 1,
                0..=0x1f => 5,
                _ => 0,
            })
            .sum::<usize>()
}

/// What the next page starts with.
#[derive(Debug, Clone, PartialEq)]
enum Next {
    /// The entry `id`, from byte `within` of its text (0: from its start).
    Entry { id: String, within: usize },
    /// Only the pointer line at the end of SESSIONS.md.
    Trailer,
}

/// A cursor: `<file code>.<entry id or "end">.<byte within the entry>.<entries before>.<bytes
/// before>`. The entry is named by its id, so entries added or removed elsewhere in the file do
/// not move it; the two counts only say how much is left.
#[derive(Debug, Clone, PartialEq)]
struct Cursor {
    next: Next,
    seen: u64,
    done: u64,
}

impl Cursor {
    fn write(&self, file: FileKind) -> String {
        let (id, within) = match &self.next {
            Next::Entry { id, within } => (id.as_str(), *within),
            Next::Trailer => ("end", 0),
        };
        format!("{}.{id}.{within}.{}.{}", file.code(), self.seen, self.done)
    }

    fn parse(s: &str, file: FileKind) -> Result<Cursor> {
        let bad = || {
            Error::bad_input(format!(
                "`cursor` = \"{}\" is not a cursor a page of {} gave; pass the `cursor` of the previous page unchanged, or leave `cursor` out to start from the top",
                s.escape_debug(),
                file.file_name()
            ))
        };
        let parts: Vec<&str> = s.split('.').collect();
        let [code, id, within, seen, done] = parts[..] else {
            return Err(bad());
        };
        let number = |t: &str| t.parse::<u64>().map_err(|_| bad());
        let code: u8 = code.parse().map_err(|_| bad())?;
        if code != file.code() {
            let other = [FileKind::Decisions, FileKind::Sessions, FileKind::Archive]
                .into_iter()
                .find(|f| f.code() == code)
                .ok_or_else(bad)?;
            return Err(Error::bad_input(format!(
                "`cursor` = \"{s}\" pages {}, not {}; name the file it came from, or leave `cursor` out to start {} from the top",
                other.file_name(),
                file.file_name(),
                file.file_name()
            )));
        }
        let within = usize::try_from(number(within)?).map_err(|_| bad())?;
        let next = match id {
            "end" if within == 0 && file == FileKind::Sessions => Next::Trailer,
            _ if !id.is_empty() && id.len() <= 64 && id.bytes().all(|b| b.is_ascii_hexdigit()) => {
                Next::Entry {
                    id: id.to_string(),
                    within,
                }
            }
            _ => return Err(bad()),
        };
        Ok(Cursor {
            next,
            seen: number(seen)?,
            done: number(done)?,
        })
    }
}

/// How a piece of text was taken onto a page.
enum Fit {
    Whole,
    /// The page is full; the piece goes on the next one.
    Full,
    /// The piece alone overflows an empty page: its first this many bytes were taken.
    Cut(usize),
}

/// A page being filled.
struct Sheet {
    text: String,
    /// `json_len` of `text` and its final newline.
    used: usize,
    budget: usize,
}

impl Sheet {
    fn offer(&mut self, piece: &str) -> Fit {
        let sep = if self.text.is_empty() { 0 } else { 4 };
        let cost = json_len(piece);
        if self.used + sep + cost <= self.budget {
            if sep > 0 {
                self.text.push_str("\n\n");
            }
            self.text.push_str(piece);
            self.used += sep + cost;
            return Fit::Whole;
        }
        if !self.text.is_empty() {
            return Fit::Full;
        }
        let room = self.budget - self.used - json_len(CUT_MARKER);
        let (mut end, mut cost) = (0, 0);
        for (i, c) in piece.char_indices() {
            cost += json_len(c.encode_utf8(&mut [0; 4]));
            if cost > room {
                break;
            }
            end = i + c.len_utf8();
        }
        // at a line's end when one is in the second half of what fits
        if let Some(nl) = piece[..end].rfind('\n').filter(|nl| *nl >= end / 2) {
            end = nl + 1;
        }
        self.text.push_str(&piece[..end]);
        self.text.push_str(CUT_MARKER);
        self.used += json_len(&piece[..end]) + json_len(CUT_MARKER);
        Fit::Cut(end)
    }
}

/// A page of `ask.file` from `r`: from the top, or from where `ask.cursor` says. A cursor whose
/// entry left the file (removed, or moved to another file) is refused: the file changed since
/// the previous page, and the reader starts again from the top.
pub fn page(r: &dyn Reader, ask: &PageAsk, lang: Lang) -> Result<Page> {
    let file = ask.file;
    let at = ask
        .cursor
        .as_deref()
        .map(|c| Cursor::parse(c, file))
        .transpose()?;
    let mut sheet = Sheet {
        text: String::new(),
        used: 2,
        budget: ask.bytes.max(MIN_PAGE_BYTES),
    };
    let mut head_cut = false;
    if at.is_none() {
        let head = crate::workspace::file_head(r, file, lang)?;
        let head = crate::secrets::masked(head.trim_end());
        if !head.is_empty() {
            head_cut = matches!(sheet.offer(&head), Fit::Cut(_));
        }
    }
    let mut start = match &at {
        Some(Cursor {
            next: Next::Entry { within, .. },
            ..
        }) => *within,
        _ => 0,
    };
    let (mut shown, mut next) = (0u64, None);
    let mut visit = |e: EntryRecord| -> Result<bool> {
        let block = crate::secrets::masked(&entry_block(&e, lang).text());
        let mut within = std::mem::take(&mut start).min(block.len());
        while !block.is_char_boundary(within) {
            within += 1;
        }
        let piece = &block[within..];
        if piece.is_empty() {
            shown += 1;
            return Ok(true);
        }
        match sheet.offer(piece) {
            Fit::Whole => {
                shown += 1;
                Ok(true)
            }
            Fit::Full => {
                next = Some(Next::Entry { id: e.id, within });
                Ok(false)
            }
            Fit::Cut(n) => {
                let within = within + n;
                next = Some(Next::Entry { id: e.id, within });
                Ok(false)
            }
        }
    };
    match at.as_ref().map(|c| &c.next) {
        None => r.scan_file(file, 0, &mut visit)?,
        Some(Next::Entry { id, .. }) => {
            if !r.scan_file_from(file, id, &mut visit)? {
                return Err(Error::bad_input(format!(
                    "`cursor`: the entry it points at ({id}) is no longer in {name}: the file changed since the previous page. Read {name} again without `cursor` to start from the top",
                    name = file.file_name()
                )));
            }
        }
        Some(Next::Trailer) => {}
    }
    if next.is_none() && file == FileKind::Sessions {
        let archived = r.file_count(FileKind::Archive)?;
        if archived > 0 && !matches!(sheet.offer(&pointer_line(archived, lang)), Fit::Whole) {
            next = Some(Next::Trailer);
        }
    }
    let (seen, done) = at.as_ref().map_or((0, 0), |c| (c.seen, c.done));
    // the file's text up to the next page: this page's and the blank line after it
    let done = done + sheet.text.len() as u64 + 2;
    let total = r.file_count(file)?;
    let cursor = next.clone().map(|next| Cursor {
        next,
        seen: seen + shown,
        done,
    });
    let left = Left {
        entries: total.saturating_sub(seen + shown),
        bytes: (r.stamp(file)?).map(|s| s.len.saturating_sub(done)),
    };
    let view = PageView {
        file,
        first: seen + 1,
        shown,
        total,
        from_inside: at
            .as_ref()
            .is_some_and(|c| matches!(c.next, Next::Entry { within, .. } if within > 0)),
        cut: matches!(next, Some(Next::Entry { within, .. }) if within > 0),
        bytes: sheet.text.len() + 1,
    };
    let cursor = cursor.map(|c| c.write(file));
    let note = view.note(cursor.as_deref(), at.is_none(), &left);
    let mut content = sheet.text;
    content.push('\n');
    Ok(Page {
        content,
        whole: at.is_none() && next.is_none() && !head_cut,
        paging: Paging {
            truncated: cursor.is_some(),
            cursor,
            note,
        },
    })
}

/// What is left after a page: entries, and bytes of the file as last written (when known).
struct Left {
    entries: u64,
    bytes: Option<u64>,
}

/// What a page shows, for its note.
struct PageView {
    file: FileKind,
    /// Position (from 1) of the first whole entry on the page.
    first: u64,
    /// Whole entries shown (an entry finished here that began on the previous page included).
    shown: u64,
    total: u64,
    /// The page starts inside an entry cut on the previous page.
    from_inside: bool,
    /// The page ends inside an entry, at the cut marker.
    cut: bool,
    bytes: usize,
}

impl PageView {
    fn note(&self, cursor: Option<&str>, from_top: bool, left: &Left) -> String {
        let name = self.file.file_name();
        let mut what = Vec::new();
        let (mut pos, mut whole) = (self.first, self.shown);
        let again = self.from_inside && whole == 0;
        if again {
            what.push(format!(
                "more of entry {pos}, which is longer than a page and is cut again at the marker"
            ));
        } else if self.from_inside {
            what.push(format!("the rest of entry {pos}, cut on the previous page"));
            pos += 1;
            whole -= 1;
        }
        if whole > 0 {
            what.push(format!(
                "entries {pos}–{} of {}",
                pos + whole - 1,
                self.total
            ));
            pos += whole;
        }
        if self.cut && !again {
            what.push(format!(
                "the start of entry {pos}, cut at the marker because it is longer than a page"
            ));
        }
        if what.is_empty() {
            what.push(match from_top {
                true => "the file's heading".into(),
                false => "the closing line that counts the archived sessions".into(),
            });
        }
        let what = what.join(", then ");
        let Some(cursor) = cursor else {
            return match from_top {
                true => format!("This page holds the whole of {name}: {what}."),
                false => format!(
                    "Last page of {name}: {what}. Nothing is left after it; the file ends here."
                ),
            };
        };
        let bytes = match left.bytes {
            Some(b) => format!(" (about {b} bytes)"),
            None => String::new(),
        };
        format!(
            "One page of {name}, not the whole file: {what} ({} bytes). About {} entries{bytes} are left after it. To read on, call memory_read with {{\"file\": \"{name}\", \"cursor\": \"{cursor}\"}}; to find something particular, memory_search costs less than paging.",
            self.bytes, left.entries
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_len_counts_what_json_escapes() {
        assert_eq!(json_len("abc"), 3);
        assert_eq!(json_len("a\nb\"c\\"), 9);
        assert_eq!(json_len("\u{1}"), 6);
        assert_eq!(json_len("决定"), 6);
    }

    #[test]
    fn a_cursor_reads_back_what_was_written_and_refuses_anything_else() {
        let c = Cursor {
            next: Next::Entry {
                id: "0a1b2c3d4e5f".into(),
                within: 17,
            },
            seen: 120,
            done: 25_013,
        };
        let s = c.write(FileKind::Archive);
        assert_eq!(Cursor::parse(&s, FileKind::Archive).unwrap(), c);
        let end = Cursor {
            next: Next::Trailer,
            seen: 3,
            done: 9,
        };
        let s = end.write(FileKind::Sessions);
        assert_eq!(Cursor::parse(&s, FileKind::Sessions).unwrap(), end);
        for bad in [
            "",
            "x",
            "4.zz.0.1.2",
            "4.0a1b.x.1.2",
            "4.0a1b.0.1",
            "9.0a1b.0.1.2",
            "4.end.3.1.2",
            "4.end.0.1.2",
        ] {
            let e = Cursor::parse(bad, FileKind::Archive)
                .unwrap_err()
                .to_string();
            assert!(
                e.contains("`cursor`") && e.contains("previous page"),
                "{bad}: {e}"
            );
        }
        let e = Cursor::parse("2.0a1b.0.1.2", FileKind::Archive)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("pages DECISIONS.md, not SESSIONS-archive.md"),
            "{e}"
        );
    }

    #[test]
    fn a_piece_longer_than_an_empty_page_is_cut_at_a_char_boundary_with_the_marker() {
        let mut sheet = Sheet {
            text: String::new(),
            used: 2,
            budget: MIN_PAGE_BYTES,
        };
        let long = "决".repeat(1000);
        let Fit::Cut(n) = sheet.offer(&long) else {
            panic!("not cut")
        };
        assert!(long.is_char_boundary(n) && n > 0);
        assert!(sheet.text.ends_with(CUT_MARKER));
        assert!(json_len(&sheet.text) + 2 <= MIN_PAGE_BYTES);
        assert!(matches!(sheet.offer("more"), Fit::Full));
    }

    /// A store whose SESSIONS.md holds `live` sessions (the third from the top longer than
    /// any page) and whose archive holds `archived`.
    fn store(live: usize, archived: usize) -> (tempfile::TempDir, crate::store::Store) {
        use crate::model::{EntryKind, Origin, State};
        let dir = tempfile::tempdir().unwrap();
        let timeout = std::time::Duration::from_secs(5);
        let s = crate::store::Store::open(&dir.path().join("s.redb"), timeout).unwrap();
        let w = s.write(timeout).unwrap();
        for k in 0..live + archived {
            let day =
                chrono::NaiveDate::from_ymd_opt(2026, 1, 1).unwrap() + chrono::Days::new(k as u64);
            let mut body = format!("完成：第 {k} 条，\"引号\"\n下一步：next-{k}");
            if k + 3 == live + archived {
                body.push_str(&"\n很长的一行".repeat(300));
            }
            w.put_entry(&EntryRecord {
                id: format!("{k:012x}"),
                kind: EntryKind::Session,
                heading: format!("{} · 区域", day.format("%Y-%m-%d")),
                body,
                state: if k < archived {
                    State::Archived
                } else {
                    State::Live
                },
                seq: k as u64,
                sort_date: day,
                superseded_by: None,
                replaced_by: None,
                created_at: String::new(),
                actor: "t".into(),
                origin: Origin::default(),
            })
            .unwrap();
        }
        w.commit().unwrap();
        (dir, s)
    }

    #[test]
    fn pages_of_any_size_put_together_are_the_file_pointer_line_included() {
        let (_dir, s) = store(12, 4);
        let r = s.read().unwrap();
        let file = crate::workspace::render_file(&r, FileKind::Sessions, Lang::Zh).unwrap();
        assert!(file.contains("SESSIONS-archive.md"), "{file}");
        let mut pointer_alone = 0;
        for bytes in [1024, 1100, 1300, 1700, 2500, 4000, 100_000] {
            let ask = |cursor| PageAsk {
                file: FileKind::Sessions,
                bytes,
                cursor,
            };
            let (mut whole, mut cursor, mut pages) = (String::new(), None, 0);
            loop {
                let p = page(&r, &ask(cursor), Lang::Zh).unwrap();
                assert!(json_len(&p.content) <= bytes.max(MIN_PAGE_BYTES), "{bytes}");
                assert_eq!(p.whole, pages == 0 && p.paging.cursor.is_none());
                pages += 1;
                let joined = whole.is_empty() || whole.ends_with(CUT_MARKER);
                if !joined {
                    whole.push('\n');
                }
                whole.push_str(&p.content);
                if let Some(start) = whole.strip_suffix(&format!("{CUT_MARKER}\n")) {
                    whole = format!("{start}{CUT_MARKER}");
                }
                cursor = p.paging.cursor;
                pointer_alone += usize::from(p.content.starts_with("> "));
                if cursor.is_none() {
                    assert!(p.paging.note.contains(if pages == 1 {
                        "the whole of"
                    } else {
                        "the file ends here"
                    }));
                    break;
                }
                assert!(p.paging.truncated && pages < 1000);
            }
            assert_eq!(whole.replace(CUT_MARKER, ""), file, "{bytes} bytes a page");
            assert_eq!(pages == 1, bytes == 100_000, "{bytes}: {pages} pages");
        }
        assert!(pointer_alone > 0, "a page of the pointer line alone");
    }
}
