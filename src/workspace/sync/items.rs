//! Entries as found in a parsed file: one item per block, with the identity, state and date the
//! store gives it.

use std::collections::HashSet;

use chrono::NaiveDate;

use crate::markdown::{self, Doc};
use crate::model::{EntryKind, FileKind, State, entry_id, heading_date};

/// An entry as found in a file.
pub(super) struct Item {
    pub(super) id: String,
    pub(super) kind: EntryKind,
    pub(super) heading: String,
    pub(super) body: String,
    pub(super) state: State,
    pub(super) superseded_by: Option<String>,
    pub(super) sort_date: NaiveDate,
}

/// Entries of a parsed entry file; an undated entry takes the date of the nearest dated entry
/// above it (else below it, else today), so it keeps its place. One item per block.
pub(super) fn items_of(f: FileKind, doc: &Doc, today: NaiveDate) -> Vec<Item> {
    let dates = dates_of(doc);
    let mut ids = Ids::default();
    (doc.blocks.iter().enumerate())
        .map(|(i, block)| item_of(f, block, i, &dates, None, &mut ids, today))
        .collect()
}

/// [`items_of`], emptying each block of `doc` once `visit` has seen it beside its item, so the
/// file's text is never held twice.
pub(super) fn items_drain(
    f: FileKind,
    doc: &mut Doc,
    today: NaiveDate,
    mut visit: impl FnMut(usize, &markdown::Block, &Item),
) -> Vec<Item> {
    let dates = dates_of(doc);
    let mut ids = Ids::default();
    let mut out: Vec<Item> = Vec::with_capacity(doc.blocks.len());
    for (i, block) in doc.blocks.iter_mut().enumerate() {
        let item = item_of(f, block, i, &dates, None, &mut ids, today);
        visit(i, block, &item);
        block.body = String::new();
        out.push(item);
    }
    out
}

/// A set of entry ids. An id is 12 hex digits: kept as a number, a million of them take a
/// fifth of the memory, and no string is copied to remember one.
#[derive(Default)]
pub(super) struct Ids {
    numbers: HashSet<u64>,
    other: HashSet<String>,
}

impl Ids {
    /// Add `id`; false when it was there already.
    pub(super) fn insert(&mut self, id: &str) -> bool {
        let hex = id.len() <= 15 && id.bytes().all(|c| matches!(c, b'0'..=b'9' | b'a'..=b'f'));
        match hex.then(|| u64::from_str_radix(id, 16)) {
            // the length in the top bits: `0a` and `a` stay two ids
            Some(Ok(n)) => self.numbers.insert(((id.len() as u64) << 60) | n),
            _ => self.other.insert(id.to_string()),
        }
    }
}

pub(super) fn dates_of(doc: &Doc) -> Vec<Option<NaiveDate>> {
    doc.blocks
        .iter()
        .map(|b| heading_date(&b.heading))
        .collect()
}

/// The item of the `i`th block; `ids` holds the ids given to the blocks before it, `above`
/// the date of the nearest dated block above `dates` (a file read a chunk at a time).
pub(super) fn item_of(
    f: FileKind,
    block: &markdown::Block,
    i: usize,
    dates: &[Option<NaiveDate>],
    above: Option<NaiveDate>,
    ids: &mut Ids,
    today: NaiveDate,
) -> Item {
    let sort_date = dates[i]
        .or_else(|| dates[..i].iter().rev().flatten().next().copied())
        .or(above)
        .or_else(|| dates[i..].iter().flatten().next().copied())
        .unwrap_or(today);
    let (kind, state, body, superseded_by) = match f {
        FileKind::Decisions => match split_marker(&block.body, &SUPERSEDED_PREFIXES) {
            (body, Some(by)) => (EntryKind::Decision, State::Superseded, body, Some(by)),
            _ => match split_marker(&block.body, &RETIRED_PREFIXES) {
                (body, Some(why)) => (EntryKind::Decision, State::Retired, body, Some(why)),
                (body, None) => (EntryKind::Decision, State::Live, body, None),
            },
        },
        FileKind::Archive => (
            EntryKind::Session,
            State::Archived,
            block.body.clone(),
            None,
        ),
        _ => match split_marker(&block.body, &RETIRED_PREFIXES) {
            (body, Some(why)) => (EntryKind::Session, State::Retired, body, Some(why)),
            (body, None) => (EntryKind::Session, State::Live, body, None),
        },
    };
    let body = keep_readable(body);
    // the same entry twice in a file is two entries: the second gets an identity of its own
    let mut id = entry_id(kind, &block.heading, &body);
    let mut copy = 1;
    while !ids.insert(&id) {
        copy += 1;
        id = entry_id(kind, &block.heading, &format!("{body}\u{0}{copy}"));
    }
    Item {
        id,
        kind,
        heading: block.heading.clone(),
        body,
        state,
        superseded_by,
        sort_date,
    }
}

/// A body that would swallow what follows it once entries are re-ordered (an unclosed fence
/// or HTML block at the end of a file) is closed or escaped; every other body is kept as is.
pub(super) fn keep_readable(body: String) -> String {
    if !markdown::may_stay_open(&body) || markdown::reads_back(&body) {
        body
    } else {
        markdown::safe_body(&body)
    }
}

const SUPERSEDED_PREFIXES: [&str; 2] = ["已被取代：", "Superseded by:"];
/// The retired marker: `已失效：YYYY-MM-DD — why` / `Retired: …`.
pub(crate) const RETIRED_PREFIXES: [&str; 2] = ["已失效：", "Retired:"];

/// Split a marker line (the last body line, starting with one of `prefixes`) off a body.
fn split_marker(body: &str, prefixes: &[&str]) -> (String, Option<String>) {
    let (head, last) = match body.rfind('\n') {
        Some(i) => (&body[..i], &body[i + 1..]),
        None => ("", body),
    };
    for p in prefixes {
        if let Some(rest) = last.strip_prefix(p) {
            return (head.trim_end().to_string(), Some(rest.trim().to_string()));
        }
    }
    (body.to_string(), None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::markdown::Block;

    #[test]
    fn superseded_marker_splits_off_the_last_line() {
        assert_eq!(
            split_marker("选择：a\n已被取代：2026-01-02 — b", &SUPERSEDED_PREFIXES),
            ("选择：a".to_string(), Some("2026-01-02 — b".to_string()))
        );
        assert_eq!(
            split_marker("选择：a", &SUPERSEDED_PREFIXES),
            ("选择：a".to_string(), None)
        );
        assert_eq!(
            split_marker("Done: a\nRetired: 2026-01-02 — wrong", &RETIRED_PREFIXES),
            (
                "Done: a".to_string(),
                Some("2026-01-02 — wrong".to_string())
            )
        );
    }

    #[test]
    fn undated_entry_takes_the_date_above_it() {
        let doc = Doc {
            preamble: String::new(),
            blocks: vec![
                Block::new("2026-02-01", "a"),
                Block::new("free note", "b"),
                Block::new("2026-01-01", "c"),
            ],
        };
        let today = NaiveDate::from_ymd_opt(2030, 1, 1).unwrap();
        let items = items_of(FileKind::Sessions, &doc, today);
        assert_eq!(
            items[1].sort_date,
            NaiveDate::from_ymd_opt(2026, 2, 1).unwrap()
        );
    }

    #[test]
    fn ids_are_told_apart_as_the_strings_they_are() {
        let mut ids = Ids::default();
        for id in [
            "0a",
            "a",
            "00a",
            "A",
            "+a",
            "0123456789ab",
            "not hex at all",
        ] {
            assert!(ids.insert(id), "{id} is new");
        }
        for id in ["0a", "a", "A", "+a", "0123456789ab", "not hex at all"] {
            assert!(!ids.insert(id), "{id} was there");
        }
        assert!(ids.insert("0123456789ac"));
    }
}
