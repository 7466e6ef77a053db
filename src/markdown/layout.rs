//! A file's layout: the order of its blocks and the text around them as a person wrote it, so
//! a file absorbed from disk renders back to the same bytes and a change moves only what it
//! changes.
//!
//! A file is a sequence of units — the head (everything above the first block), then one
//! unit per block — each followed by its gap (the blank lines after it; for the last unit,
//! up to the end of the file, archive pointer included). A unit keeps the text it was
//! written with for as long as the store's own rendering of it is what it was when the file
//! was read; once the store changes the unit (a correction, a superseded decision, a renamed
//! heading) the store's rendering takes its place. New units take the canonical form: one
//! blank line between units, one newline at the end.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use sha1::{Digest, Sha1};

use super::Region;
use super::parse::{Shape, is_pointer_line};

/// The layout of one file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Layout {
    /// Starts with a byte-order mark.
    pub bom: bool,
    /// Lines end with CRLF.
    pub crlf: bool,
    pub head: Unit,
    pub units: Vec<Unit>,
    /// Entries in the archive when the pointer line was last written or read: the pointer's
    /// wording is kept, and its count changes only when this does.
    pub archived: u64,
}

/// One unit of a file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Unit {
    /// Entry id or section key (empty for the head).
    pub key: String,
    /// Hash of the store's rendering of the unit when `raw` was taken.
    pub canon: u64,
    /// The unit as written, when that differs from the store's rendering.
    pub raw: Option<String>,
    /// `raw` holds an unclosed fence: it can only stand last.
    pub open_end: bool,
    /// The whitespace after the unit.
    pub gap: String,
}

/// A unit to render: its key and the store's rendering of it.
#[derive(Debug, Clone)]
pub struct Piece {
    pub key: String,
    pub text: String,
}

/// Short hash of a unit's rendering.
pub fn text_hash(text: &str) -> u64 {
    let d = Sha1::digest(text.as_bytes());
    u64::from_be_bytes(d[..8].try_into().expect("8 bytes"))
}

impl Layout {
    /// The layout of a parsed file. `units` gives, for the head and then each block, its key,
    /// the text the parser read for it when the shape kept none (its canonical form), and the
    /// store's rendering of it.
    pub fn of(shape: &Shape, units: Vec<(String, String, String)>, archived: u64) -> Layout {
        let mut out: Vec<Unit> = shape
            .regions
            .iter()
            .zip(units)
            .map(|(region, (key, parsed, store))| unit_of(region, key, parsed, &store))
            .collect();
        let head = if out.is_empty() {
            Unit {
                gap: "\n".into(),
                ..Unit::default()
            }
        } else {
            out.remove(0)
        };
        Layout {
            bom: shape.bom,
            crlf: shape.crlf,
            head,
            units: out,
            archived,
        }
    }

    /// True when this layout lays a file out exactly as its canonical rendering does (see
    /// [`super::join_units`]), for a file whose preamble is `head` and whose archive pointer
    /// line, if any, is `pointer`: no byte-order mark or CRLF, every unit as the store renders
    /// it, one blank line between units, one newline at the end.
    pub fn is_canonical(&self, head: &str, pointer: Option<&str>) -> bool {
        if self.bom
            || self.crlf
            || self.head.raw.is_some()
            || self.units.iter().any(|u| u.raw.is_some())
        {
            return false;
        }
        let head_empty = head.trim_end().is_empty();
        let end = match pointer {
            Some(p) => format!("\n\n{p}\n"),
            None => "\n".to_string(),
        };
        let Some((last, rest)) = self.units.split_last() else {
            let want = match (head_empty, pointer) {
                (true, Some(p)) => format!("{p}\n"),
                (true, None) => "\n".to_string(),
                (false, _) => end,
            };
            return self.head.gap == want;
        };
        let head_gap = if head_empty { "" } else { "\n\n" };
        self.head.gap == head_gap && rest.iter().all(|u| u.gap == "\n\n") && last.gap == end
    }

    /// Render `head` and `pieces` (in file order) in this layout; `pointer`, for SESSIONS.md:
    /// the archive's entry count and the canonical pointer line. Returns the text and the
    /// layout of that text.
    pub fn render(
        &self,
        head: &str,
        pieces: &[Piece],
        pointer: Option<(u64, &str)>,
    ) -> (String, Layout) {
        let index: HashMap<&str, usize> = self
            .units
            .iter()
            .enumerate()
            .map(|(i, u)| (u.key.as_str(), i))
            .collect();
        let old_last = self.units.len().checked_sub(1);
        let mut final_gap = self
            .units
            .last()
            .map_or(self.head.gap.as_str(), |u| u.gap.as_str())
            .to_string();
        let mut archived = self.archived;
        if let Some((count, line)) = pointer {
            if count != self.archived {
                final_gap = repoint(&final_gap, count, line);
            }
            archived = count;
        }
        let n = pieces.len();
        let mut out = String::new();
        let mut layout = Layout {
            bom: self.bom,
            crlf: self.crlf,
            head: Unit::default(),
            units: Vec::with_capacity(n),
            archived,
        };
        // the head
        let mut head_unit = choose(&self.head, "", head, n == 0);
        head_unit.gap = if n == 0 {
            final_gap.clone()
        } else if self.units.is_empty() {
            // the head stood last: now blocks follow it
            if head.is_empty() && head_unit.raw.is_none() {
                String::new()
            } else {
                "\n\n".to_string()
            }
        } else {
            self.head.gap.clone()
        };
        out.push_str(head_unit.raw.as_deref().unwrap_or(head));
        out.push_str(&head_unit.gap);
        layout.head = head_unit;
        for (i, p) in pieces.iter().enumerate() {
            let last = i + 1 == n;
            let old = index.get(p.key.as_str()).map(|&k| (k, &self.units[k]));
            let mut unit = match old {
                Some((_, u)) => choose(u, &p.key, &p.text, last),
                None => Unit {
                    key: p.key.clone(),
                    ..Unit::default()
                },
            };
            unit.gap = match old {
                _ if last => final_gap.clone(),
                Some((k, u)) if Some(k) != old_last => u.gap.clone(),
                _ => "\n\n".to_string(),
            };
            out.push_str(unit.raw.as_deref().unwrap_or(&p.text));
            out.push_str(&unit.gap);
            layout.units.push(unit);
        }
        if self.crlf {
            out = out.replace('\n', "\r\n");
        }
        if self.bom {
            out.insert(0, '\u{feff}');
        }
        (out, layout)
    }
}

/// A layout as far as its units: its marks, its head, and how many units follow. Stored first
/// in a layout's record, it is all that putting units on top needs to read (the units, 950k of
/// them in a large archive, are left as they are).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LayoutTop {
    pub bom: bool,
    pub crlf: bool,
    pub head: Unit,
    /// How many units the layout holds (a record's units follow this count).
    pub units: u64,
}

impl Layout {
    /// `pieces` (newest first) put on top of a file this layout lays out, the rest of it
    /// unchanged: see [`LayoutTop::put_on_top`]; the result as a whole layout.
    pub fn put_on_top(
        mut self,
        head: &str,
        pieces: &[Piece],
    ) -> Option<(Vec<u8>, Vec<u8>, Layout)> {
        let units = std::mem::take(&mut self.units);
        let top = LayoutTop {
            bom: self.bom,
            crlf: self.crlf,
            head: std::mem::take(&mut self.head),
            units: units.len() as u64,
        };
        let mut on = top.put_on_top(head, pieces)?;
        on.units.extend(units);
        self.head = on.top.head;
        self.units = on.units;
        Some((on.start, on.text, self))
    }
}

impl LayoutTop {
    /// `pieces` (newest first) put on top of a file this layout lays out, the rest of it
    /// unchanged: the bytes the file starts with up to its first unit, the bytes it starts with
    /// once the pieces are on top, the top of the resulting layout and its new units (which go
    /// before the old ones) — what [`Layout::render`] gives for the pieces followed by the
    /// file's units, without touching those units (with no piece, the first two are the same).
    /// `None` when the layout holds no unit (the head stands last, and its gap changes).
    pub fn put_on_top(mut self, head: &str, pieces: &[Piece]) -> Option<OnTop> {
        if self.units == 0 {
            return None;
        }
        let mut head_unit = choose(&self.head, "", head, false);
        head_unit.gap = std::mem::take(&mut self.head.gap);
        let start = format!(
            "{}{}",
            head_unit.raw.as_deref().unwrap_or(head),
            head_unit.gap
        );
        let mut top = start.clone();
        let fresh: Vec<Unit> = (pieces.iter())
            .map(|p| {
                top.push_str(&p.text);
                top.push_str("\n\n");
                Unit {
                    key: p.key.clone(),
                    gap: "\n\n".to_string(),
                    ..Unit::default()
                }
            })
            .collect();
        self.units += fresh.len() as u64;
        self.head = head_unit;
        let bytes = |text: String| {
            let text = if self.crlf {
                text.replace('\n', "\r\n")
            } else {
                text
            };
            let mut out = Vec::with_capacity(text.len() + 3);
            if self.bom {
                out.extend_from_slice("\u{feff}".as_bytes());
            }
            out.extend_from_slice(text.as_bytes());
            out
        };
        Some(OnTop {
            start: bytes(start),
            text: bytes(top),
            top: self,
            units: fresh,
        })
    }
}

/// Units put on top of a layout ([`LayoutTop::put_on_top`]).
pub struct OnTop {
    /// The bytes the file started with up to its first unit.
    pub start: Vec<u8>,
    /// The bytes it starts with once the pieces are on top.
    pub text: Vec<u8>,
    /// The top of the resulting layout.
    pub top: LayoutTop,
    /// The new units, which go before the old ones.
    pub units: Vec<Unit>,
}

fn unit_of(region: &Region, key: String, parsed: String, store: &str) -> Unit {
    let written = region.raw.clone().unwrap_or(parsed);
    let raw = (written != store).then_some(written);
    Unit {
        key,
        canon: if raw.is_some() { text_hash(store) } else { 0 },
        raw,
        open_end: region.open_end,
        gap: region.gap.clone(),
    }
}

/// The unit to write for `old` now that the store renders it as `text`: as written while the
/// store's rendering is unchanged (and an unclosed fence only where nothing follows it).
fn choose(old: &Unit, key: &str, text: &str, last: bool) -> Unit {
    let keep = old.raw.is_some() && old.canon == text_hash(text) && (last || !old.open_end);
    Unit {
        key: key.to_string(),
        canon: if keep { old.canon } else { 0 },
        raw: if keep { old.raw.clone() } else { None },
        open_end: keep && old.open_end,
        gap: String::new(),
    }
}

/// The end of SESSIONS.md once the archive holds `count` entries: the pointer line keeps its
/// wording with the count changed, goes when the archive is empty, and is added (in its
/// canonical form) when there was none.
fn repoint(gap: &str, count: u64, line: &str) -> String {
    let lines: Vec<&str> = gap.split('\n').collect();
    let Some(at) = lines.iter().position(|l| is_pointer_line(l)) else {
        return if count == 0 {
            gap.to_string()
        } else {
            format!("\n\n{line}\n")
        };
    };
    if count == 0 {
        return "\n".to_string();
    }
    let old = lines[at];
    let Some(start) = old.find(|c: char| c.is_ascii_digit()) else {
        return gap.to_string();
    };
    let len = old[start..]
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(old.len() - start);
    let new = format!("{}{count}{}", &old[..start], &old[start + len..]);
    let mut out: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    out[at] = new;
    out.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::markdown::parse;

    fn pieces(parsed: &crate::markdown::Parsed) -> Vec<(String, String, String)> {
        let mut v = vec![(
            String::new(),
            parsed.doc.preamble.clone(),
            parsed.doc.preamble.clone(),
        )];
        for (i, b) in parsed.doc.blocks.iter().enumerate() {
            let t = b.text();
            v.push((format!("k{i}"), t.clone(), t));
        }
        v
    }

    fn round_trip(text: &str) -> String {
        let p = parse(text, true).unwrap();
        let units = pieces(&p);
        let head = units[0].2.clone();
        let ps: Vec<Piece> = units[1..]
            .iter()
            .map(|(k, _, t)| Piece {
                key: k.clone(),
                text: t.clone(),
            })
            .collect();
        let layout = Layout::of(&p.shape, units, 3);
        let (out, again) = layout.render(&head, &ps, Some((3, "> p")));
        assert_eq!(
            again, layout,
            "the layout of the rendering is the layout read"
        );
        out
    }

    #[test]
    fn hand_written_files_render_back_byte_for_byte() {
        for text in [
            "",
            "\n",
            "# T",
            "\u{feff}# T\r\n\r\n## b  \r\nx  \r\n\r\n\r\n\r\n## a\r\n",
            "\n\n\n## a\n\n\nbody   \n\n\n## b\n",
            "# S\n\n## 2026-01-01\nx\n\n\n> 更早的会话条目已归档到 12 条（见 `SESSIONS-archive.md`）。\n\n",
            "# S\n   ## indented\n##  spaced  \n```\nopen\n## hidden\n",
            "## a\n> 更早的会话条目已归档到 3 条\nmiddle\n## b\n",
        ] {
            assert_eq!(round_trip(text), text, "{text:?}");
        }
    }

    #[test]
    fn units_put_on_top_give_what_rendering_the_whole_file_gives() {
        let new = [
            Piece {
                key: "n1".into(),
                text: "## 2026-03-02\nnewest".into(),
            },
            Piece {
                key: "n2".into(),
                text: "## 2026-03-01\nnew".into(),
            },
        ];
        for text in [
            "# A\n\n## 2026-01-01\nx\n",
            "\u{feff}# T\r\n\r\n## b  \r\nx  \r\n\r\n\r\n\r\n## a\r\n",
            "\n\n\n## a\n\n\nbody   \n\n\n## b\n",
            "# A  \n> kept\n\n\n\n## 2026-01-01\nx\n\n## 2025-12-31\n```\nopen\n",
            "## a\nfirst line is a block\n\n\n## b\n\n\n",
        ] {
            let p = parse(text, true).unwrap();
            let units = pieces(&p);
            let head = units[0].2.clone();
            let mut all: Vec<Piece> = new.to_vec();
            all.extend(units[1..].iter().map(|(k, _, t)| Piece {
                key: k.clone(),
                text: t.clone(),
            }));
            let layout = Layout::of(&p.shape, units, 0);
            let (whole, laid) = layout.render(&head, &all, None);
            let (start, top, spliced) = layout.clone().put_on_top(&head, &new).unwrap();
            assert!(text.as_bytes().starts_with(&start), "{text:?}");
            let mut out = top;
            out.extend_from_slice(&text.as_bytes()[start.len()..]);
            assert_eq!(String::from_utf8(out).unwrap(), whole, "{text:?}");
            assert_eq!(spliced, laid, "{text:?}");
        }
        // a file of no unit has no place to cut: it is rendered whole
        let p = parse("# A\n", true).unwrap();
        let layout = Layout::of(&p.shape, pieces(&p), 0);
        assert!(layout.put_on_top("# A", &new).is_none());
    }

    #[test]
    fn a_new_unit_goes_where_it_is_placed_and_nothing_else_moves() {
        let text = "# T\n\n\n## b\nx  \n\n\n## a\ny\n";
        let p = parse(text, false).unwrap();
        let units = pieces(&p);
        let layout = Layout::of(&p.shape, units.clone(), 0);
        let mut ps: Vec<Piece> = units[1..]
            .iter()
            .map(|(k, _, t)| Piece {
                key: k.clone(),
                text: t.clone(),
            })
            .collect();
        ps.insert(
            0,
            Piece {
                key: "new".into(),
                text: "## c\nz".into(),
            },
        );
        let (out, _) = layout.render("# T", &ps, None);
        assert_eq!(out, "# T\n\n\n## c\nz\n\n## b\nx  \n\n\n## a\ny\n");
        // the last one leaves: the one above it ends the file as the last one did
        let (out, _) = layout.render("# T", &ps[..2], None);
        assert_eq!(out, "# T\n\n\n## c\nz\n\n## b\nx\n");
    }

    #[test]
    fn the_pointer_keeps_its_wording_and_changes_its_count() {
        assert_eq!(
            repoint("\n\n> 更早的会话条目已归档到 12 条（旧）。\n", 13, "> x"),
            "\n\n> 更早的会话条目已归档到 13 条（旧）。\n"
        );
        assert_eq!(repoint("\n", 1, "> p 1"), "\n\n> p 1\n");
        assert_eq!(
            repoint("\n\n> 更早的会话条目已归档到 2 条\n", 0, "> x"),
            "\n"
        );
    }
}
