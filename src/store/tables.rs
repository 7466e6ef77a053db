//! Table definitions, key layouts and the record encoding: what the bytes in the file mean.

use chrono::{Datelike, NaiveDate};
use redb::TableDefinition;
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::error::{Error, Result};
use crate::model::{EntryRecord, FileKind};

pub(super) const META: TableDefinition<&str, u64> = TableDefinition::new("meta");
pub(super) const ENTRIES: TableDefinition<&str, &[u8]> = TableDefinition::new("entries");
pub(super) const ORDER: TableDefinition<&[u8], &str> = TableDefinition::new("order");
/// The records of the entries in SESSIONS.md and DECISIONS.md again, under their `order` key:
/// reading a live file reads consecutive pages, not one page per entry scattered among 100k
/// (schema 4).
pub(super) const NEAR: TableDefinition<&[u8], &[u8]> = TableDefinition::new("near");
/// What entries are found by besides their id (see [`crate::model::marks`]): a key per mark,
/// kept in step with the entry by every write (schema 5).
pub(super) const MARKS: TableDefinition<&str, ()> = TableDefinition::new("marks");
pub(super) const SECTIONS: TableDefinition<&str, &[u8]> = TableDefinition::new("sections");
pub(super) const SECTION_HISTORY: TableDefinition<&str, &[u8]> =
    TableDefinition::new("section_history");
pub(super) const PREAMBLES: TableDefinition<&str, &str> = TableDefinition::new("preambles");
pub(super) const FILES: TableDefinition<&str, &[u8]> = TableDefinition::new("files");
pub(super) const EVENTS: TableDefinition<u64, &[u8]> = TableDefinition::new("events");
pub(super) const REPORTS: TableDefinition<u64, &[u8]> = TableDefinition::new("reports");
pub(super) const AGENT_SESSIONS: TableDefinition<&str, &[u8]> =
    TableDefinition::new("agent_sessions");
/// Proposals waiting for (or decided by) a person, by id.
pub(super) const PROPOSALS: TableDefinition<&str, &[u8]> = TableDefinition::new("proposals");
/// Meta key: how many proposals are pending.
pub(super) const PENDING: &str = "count:proposals_pending";
/// Group commit: ticket of a batch applied by a group leader → its outcome (JSON), committed
/// with the batch, so a leader that dies after the commit never has a batch applied twice.
pub(super) const BATCHES: TableDefinition<&str, &[u8]> = TableDefinition::new("batches");
/// Change sequence → what changed (`e:<entry id>` or `s:<section key>`), for derived indexes.
pub(super) const CHANGES: TableDefinition<u64, &str> = TableDefinition::new("changes");

/// (file, version number) → the entries of that version of the file (`versions`).
pub(super) const VERSIONS: TableDefinition<&[u8], &[u8]> = TableDefinition::new("versions");

pub(super) fn encode<T: Serialize>(v: &T) -> Result<Vec<u8>> {
    bincode::serde::encode_to_vec(v, bincode::config::standard())
        .map_err(|e| Error::Internal(format!("encode: {e}")))
}

/// Decode a record read from the store at `path`; one that does not decode is damage.
pub(super) fn decode_at<T: DeserializeOwned>(path: &std::path::Path, bytes: &[u8]) -> Result<T> {
    bincode::serde::decode_from_slice(bytes, bincode::config::standard())
        .map(|(v, _)| v)
        .map_err(|e| super::damage::damaged(path, format!("a record does not decode: {e}")))
}

/// Decode what a record starts with (a layout's top, say): the value and how many bytes it took.
pub(super) fn decode_prefix<T: DeserializeOwned>(
    path: &std::path::Path,
    bytes: &[u8],
) -> Result<(T, usize)> {
    bincode::serde::decode_from_slice(bytes, bincode::config::standard())
        .map_err(|e| super::damage::damaged(path, format!("a record does not decode: {e}")))
}

/// Whether `file`'s records are also kept in [`NEAR`] (every file but the archive).
pub(super) fn near(file: FileKind) -> bool {
    file != FileKind::Archive
}

/// The date an `order` key sorts its entry by.
pub(super) fn order_key_date(k: &[u8]) -> Option<NaiveDate> {
    let days: [u8; 4] = k.get(1..5)?.try_into().ok()?;
    let days = i64::from(u32::from_be_bytes(days)) - (1i64 << 31);
    NaiveDate::from_num_days_from_ce_opt(i32::try_from(days).ok()?)
}

pub(super) fn order_key(file: FileKind, date: NaiveDate, seq: u64) -> [u8; 13] {
    let mut k = [0u8; 13];
    k[0] = file.code();
    let days = (date.num_days_from_ce() as i64 + (1i64 << 31)) as u32;
    k[1..5].copy_from_slice(&days.to_be_bytes());
    k[5..13].copy_from_slice(&seq.to_be_bytes());
    k
}

/// Meta key: number of live decisions.
pub(super) const LIVE_DECISIONS: &str = "count:live_decisions";
/// Meta key: how many entries are `elsewhere` (a branch switch took them out of the files).
pub(super) const ELSEWHERE: &str = "count:elsewhere";
/// `files` key: the git head the files were last looked at under.
pub(super) const GIT_HEAD: &str = "git:head";
/// `files` key: the clashes found in PROJECT.md's (or USER.md's) sections that may still stand.
pub(super) const CLASHES: &str = "section:clashes";

pub(super) fn live_decision(rec: &EntryRecord) -> bool {
    rec.file() == Some(FileKind::Decisions) && rec.state == crate::model::State::Live
}

/// Key in `files` of a file's layout.
pub(super) fn layout_key(file: FileKind) -> String {
    format!("layout:{}", file.file_name())
}

/// The key of segment `n` of `file`'s layout (numbered from the oldest; see `store::layout`).
pub(super) fn layout_segment_key(file: FileKind, n: u64) -> String {
    format!("{}#{n:010}", layout_key(file))
}

/// What the keys of `file`'s layout segments start with.
pub(super) fn layout_segments_prefix(file: FileKind) -> String {
    format!("{}#", layout_key(file))
}

/// Where `file`'s layout segments stand: (the next segment's number, units they hold).
pub(super) fn layout_count_key(file: FileKind) -> String {
    format!("layout-segments:{}", file.file_name())
}

pub(super) fn count_key(file: FileKind) -> String {
    format!("count:{}", file.code())
}

/// Key of revision `revision` of section `key` in `section_history` (revisions sort in order).
pub(super) fn history_key(key: &str, revision: u64) -> String {
    format!("{key}\u{0}{revision:020}")
}

#[cfg(test)]
mod layout_record_tests {
    use super::*;
    use crate::markdown::{Layout, LayoutTop, Piece, Unit};

    fn unit(key: &str, raw: Option<&str>) -> Unit {
        Unit {
            key: key.into(),
            canon: 7,
            raw: raw.map(str::to_string),
            open_end: false,
            gap: "\n\n\n".into(),
        }
    }

    #[test]
    fn a_layouts_top_is_what_its_record_starts_with_and_units_on_top_copy_the_rest() {
        let layout = Layout {
            bom: true,
            crlf: false,
            head: unit("", Some("# Archive  ")),
            units: vec![unit("aaa", None), unit("bbb", Some("## odd  "))],
            archived: 300,
        };
        let bytes = encode(&layout).unwrap();
        let path = std::path::Path::new("store.redb");
        let (top, at): (LayoutTop, usize) = decode_prefix(path, &bytes).unwrap();
        assert_eq!((top.bom, top.crlf, top.units), (true, false, 2));
        assert_eq!(top.head, layout.head);
        let pieces = [Piece {
            key: "ccc".into(),
            text: "## 2026-01-01\nnew".into(),
        }];
        let on = top.put_on_top("# Archive", &pieces).unwrap();
        let mut spliced = encode(&on.top).unwrap();
        for u in &on.units {
            spliced.extend(encode(u).unwrap());
        }
        spliced.extend_from_slice(&bytes[at..]);
        let (_, _, whole) = layout.put_on_top("# Archive", &pieces).unwrap();
        assert_eq!(spliced, encode(&whole).unwrap());
        let back: Layout = decode_at(path, &spliced).unwrap();
        assert_eq!(back, whole);
    }
}
