//! Reads: the [`Reader`] trait shared by read and write transactions, and the read snapshot.
//! Layout: `raw` (the trait's table reads, for both transaction types).

pub(super) mod layout;
mod raw;

pub use raw::ReadTx;

use std::path::Path;

use chrono::NaiveDate;
use redb::TableDefinition;

use super::store_err;
use super::tables::{
    AGENT_SESSIONS, ENTRIES, EVENTS, FILES, LIVE_DECISIONS, REPORTS, SECTION_HISTORY, SECTIONS,
    count_key, decode_at, order_key,
};
use crate::error::{Error, Result};
use crate::model::{
    AgentSession, EntryRecord, Event, FileKind, FileStamp, Report, SectionRecord, SectionRevision,
};

/// Reads shared by read and write transactions.
pub trait Reader {
    #[doc(hidden)]
    fn path(&self) -> &Path;
    #[doc(hidden)]
    fn raw_meta(&self, key: &str) -> Result<Option<u64>>;
    #[doc(hidden)]
    fn raw_get(&self, table: BytesTable, key: &str) -> Result<Option<Vec<u8>>>;
    #[doc(hidden)]
    fn raw_scan_each(
        &self,
        table: BytesTable,
        prefix: &str,
        visit: &mut dyn FnMut(&[u8]) -> Result<bool>,
    ) -> Result<()>;
    #[doc(hidden)]
    fn raw_marks(&self, prefix: &str) -> Result<Vec<String>>;
    #[doc(hidden)]
    fn raw_preamble(&self, key: &str) -> Result<Option<String>>;
    #[doc(hidden)]
    fn raw_last(&self, table: LogTable, limit: usize) -> Result<Vec<Vec<u8>>>;
    #[doc(hidden)]
    fn raw_scan_file(
        &self,
        file: FileKind,
        start: ScanStart<'_>,
        through_near: bool,
        visit: &mut dyn FnMut(EntryRecord) -> Result<bool>,
    ) -> Result<()>;
    #[doc(hidden)]
    fn raw_changes(&self, after: u64) -> Result<Vec<(u64, String)>>;
    #[doc(hidden)]
    fn raw_dates_after(
        &self,
        file: FileKind,
        after: NaiveDate,
    ) -> Result<(Option<NaiveDate>, usize)>;

    /// The newest date `file`'s entries sort by, and how many sort after `after`: read from the
    /// render order alone, newest first, so it costs what the entries after `after` cost.
    fn dates_after(&self, file: FileKind, after: NaiveDate) -> Result<(Option<NaiveDate>, usize)> {
        self.raw_dates_after(file, after)
    }

    #[doc(hidden)]
    fn raw_scan(&self, table: BytesTable, prefix: &str) -> Result<Vec<Vec<u8>>> {
        let mut out = Vec::new();
        self.raw_scan_each(table, prefix, &mut |v| {
            out.push(v.to_vec());
            Ok(true)
        })?;
        Ok(out)
    }

    fn err(&self, e: &dyn std::fmt::Display) -> Error {
        store_err(self.path(), e)
    }

    /// A counter or setting in `meta` (0 when unset).
    fn meta(&self, key: &str) -> Result<u64> {
        Ok(self.raw_meta(key)?.unwrap_or(0))
    }

    fn entry(&self, id: &str) -> Result<Option<EntryRecord>> {
        self.raw_get(BytesTable::Entries, id)?
            .map(|b| decode_at(self.path(), &b))
            .transpose()
    }

    /// Entries rendered into `file`, newest first (file order), skipping `skip`, at most `limit`.
    fn file_entries(&self, file: FileKind, skip: usize, limit: usize) -> Result<Vec<EntryRecord>> {
        let mut out = Vec::with_capacity(limit.min(256));
        if limit == 0 {
            return Ok(out);
        }
        self.scan_file(file, skip, &mut |rec| {
            out.push(rec);
            Ok(out.len() < limit)
        })?;
        Ok(out)
    }

    /// Visit the entries of `file` in file order (newest first) after skipping `skip`, until
    /// `visit` returns false. One pass over the order index, however far it goes.
    fn scan_file(
        &self,
        file: FileKind,
        skip: usize,
        visit: &mut dyn FnMut(EntryRecord) -> Result<bool>,
    ) -> Result<()> {
        self.raw_scan_file(file, ScanStart::Skip(skip), true, visit)
    }

    /// [`Reader::scan_file`] from the entry `id` on, that entry first: it costs what it visits,
    /// however deep in the file `id` is. `Ok(false)`, having visited nothing: `id` is no entry of
    /// `file` (it is gone, or now rendered into another file).
    fn scan_file_from(
        &self,
        file: FileKind,
        id: &str,
        visit: &mut dyn FnMut(EntryRecord) -> Result<bool>,
    ) -> Result<bool> {
        let Some(rec) = self.entry(id)? else {
            return Ok(false);
        };
        if rec.file() != Some(file) {
            return Ok(false);
        }
        let key = order_key(file, rec.sort_date, rec.seq);
        self.raw_scan_file(file, ScanStart::At(&key), true, visit)?;
        Ok(true)
    }

    /// [`Reader::scan_file`] through the render order and the entries table, never the near
    /// records (what a check compares them with).
    fn scan_file_by_order(
        &self,
        file: FileKind,
        visit: &mut dyn FnMut(EntryRecord) -> Result<bool>,
    ) -> Result<()> {
        self.raw_scan_file(file, ScanStart::Skip(0), false, visit)
    }

    /// The marks starting with `prefix` (see [`crate::model::marks`]), in key order, each
    /// without the prefix: what a topic, a review day or a credential finds, without reading
    /// the entries.
    fn marks(&self, prefix: &str) -> Result<Vec<String>> {
        if self.meta("schema_version")? >= 5 {
            return self.raw_marks(prefix);
        }
        // an older store read before a write brought it to schema 5: the marks are worked out
        let mut all = Vec::new();
        for f in [FileKind::Decisions, FileKind::Sessions] {
            self.scan_file(f, 0, &mut |rec| {
                all.extend(crate::model::marks::of(&rec));
                Ok(true)
            })?;
        }
        all.sort();
        Ok((all.into_iter())
            .filter_map(|m| m.strip_prefix(prefix).map(str::to_string))
            .collect())
    }

    /// Number of entries rendered into `file`.
    fn file_count(&self, file: FileKind) -> Result<u64> {
        self.meta(&count_key(file))
    }

    /// Number of live decisions (DECISIONS.md also shows superseded ones).
    fn live_decisions(&self) -> Result<u64> {
        self.meta(LIVE_DECISIONS)
    }

    /// Every entry in any state (for log, restore and status).
    fn all_entries(&self) -> Result<Vec<EntryRecord>> {
        self.raw_scan(BytesTable::Entries, "")?
            .iter()
            .map(|b| decode_at(self.path(), b))
            .collect()
    }

    /// Visit every entry in any state, in id order, until `visit` returns false: one pass over
    /// the entries table in key order, one record in memory at a time.
    fn scan_entries(&self, visit: &mut dyn FnMut(EntryRecord) -> Result<bool>) -> Result<()> {
        let path = self.path().to_path_buf();
        self.raw_scan_each(BytesTable::Entries, "", &mut |v| {
            visit(decode_at(&path, v)?)
        })
    }

    /// PROJECT sections (removed ones included), in file order.
    fn sections(&self) -> Result<Vec<SectionRecord>> {
        let mut v: Vec<SectionRecord> = self
            .raw_scan(BytesTable::Sections, "")?
            .iter()
            .map(|b| decode_at(self.path(), b))
            .collect::<Result<_>>()?;
        v.sort_by(|a, b| a.order.cmp(&b.order).then_with(|| a.key.cmp(&b.key)));
        Ok(v)
    }

    /// Every revision of the section `key`, oldest first.
    fn section_history(&self, key: &str) -> Result<Vec<SectionRevision>> {
        self.raw_scan(BytesTable::SectionHistory, &format!("{key}\u{0}"))?
            .iter()
            .map(|b| decode_at(self.path(), b))
            .collect()
    }

    fn preamble(&self, file: FileKind) -> Result<Option<String>> {
        self.raw_preamble(file.file_name())
    }

    /// How `file` was laid out when last read or written, when that is not the canonical
    /// rendering (see [`crate::markdown::Layout`]).
    fn layout(&self, file: FileKind) -> Result<Option<crate::markdown::Layout>> {
        layout::read(self, file)
    }

    /// The top of file `file`'s layout (its units not read): see [`crate::markdown::LayoutTop`].
    fn layout_top(&self, file: FileKind) -> Result<Option<crate::markdown::LayoutTop>> {
        self.raw_get(BytesTable::Files, &super::tables::layout_key(file))?
            .map(|b| super::tables::decode_prefix(self.path(), &b).map(|(top, _)| top))
            .transpose()
    }

    /// The git head (`ref: refs/heads/NAME`, or a commit id) the files were last looked at
    /// under; `None` before the first look, or outside a repository.
    fn git_head(&self) -> Result<Option<String>> {
        Ok(self
            .raw_get(BytesTable::Files, super::tables::GIT_HEAD)?
            .and_then(|b| String::from_utf8(b).ok()))
    }

    /// The clashes found in the sections' lines that may still stand, oldest first (see
    /// [`SectionClash`](crate::model::SectionClash)).
    fn section_clashes(&self) -> Result<Vec<crate::model::SectionClash>> {
        Ok(self
            .raw_get(BytesTable::Files, super::tables::CLASHES)?
            .map(|b| decode_at(self.path(), &b))
            .transpose()?
            .unwrap_or_default())
    }

    /// Entries a branch switch took out of the files (state `elsewhere`).
    fn elsewhere_count(&self) -> Result<u64> {
        self.meta(super::tables::ELSEWHERE)
    }

    fn stamp(&self, file: FileKind) -> Result<Option<FileStamp>> {
        self.raw_get(BytesTable::Files, file.file_name())?
            .map(|b| decode_at(self.path(), &b))
            .transpose()
    }

    /// When the stamp of `file` was recorded (ms since the epoch; 0: unknown). A stamp whose
    /// mtime is not clearly older than this may hide a second write in the same clock tick.
    fn stamped_at(&self, file: FileKind) -> Result<u64> {
        self.meta(&format!("stamped_at:{}", file.code()))
    }

    /// The newest `limit` events, newest first.
    fn events(&self, limit: usize) -> Result<Vec<Event>> {
        self.raw_last(LogTable::Events, limit)?
            .iter()
            .map(|b| decode_at(self.path(), b))
            .collect()
    }

    /// What trilogy remembers about agent session `id`.
    fn agent_session(&self, id: &str) -> Result<Option<AgentSession>> {
        // session state is a cache of what a host was shown: a record from an older layout
        // is treated as unknown (the session then gets the whole block again)
        Ok(self
            .raw_get(BytesTable::AgentSessions, id)?
            .and_then(|b| decode_at(self.path(), &b).ok()))
    }

    /// Every agent session known.
    fn agent_sessions(&self) -> Result<Vec<AgentSession>> {
        Ok(self
            .raw_scan(BytesTable::AgentSessions, "")?
            .iter()
            .filter_map(|b| decode_at(self.path(), b).ok())
            .collect())
    }

    /// The store's change sequence: bumped by every entry or section write.
    fn change_seq(&self) -> Result<u64> {
        self.meta("change_seq")
    }

    /// This store file's random identity (0: a store from before schema 3, not migrated).
    fn store_id(&self) -> Result<u64> {
        self.meta("store_id")
    }

    /// What changed after `seq`, oldest first: `(seq, "e:<id>" | "s:<key>")`.
    fn changes_since(&self, seq: u64) -> Result<Vec<(u64, String)>> {
        self.raw_changes(seq)
    }

    /// Sequence number of the newest event (0 when none).
    fn last_event_seq(&self) -> Result<u64> {
        self.meta("next_event")
    }

    /// Events after `seq`, oldest first.
    fn events_since(&self, seq: u64) -> Result<Vec<Event>> {
        let last = self.last_event_seq()?;
        if last <= seq {
            return Ok(Vec::new());
        }
        let mut v = self.events((last - seq) as usize)?;
        v.reverse();
        Ok(v)
    }

    /// One proposal by id.
    fn proposal(&self, id: &str) -> Result<Option<crate::model::Proposal>> {
        self.raw_get(BytesTable::Proposals, id)?
            .map(|b| decode_at(self.path(), &b))
            .transpose()
    }

    /// Every proposal, in id order.
    fn proposals(&self) -> Result<Vec<crate::model::Proposal>> {
        self.raw_scan(BytesTable::Proposals, "")?
            .iter()
            .map(|b| decode_at(self.path(), b))
            .collect()
    }

    /// How many proposals wait for a person.
    fn pending_proposals(&self) -> Result<u64> {
        self.meta(super::tables::PENDING)
    }

    /// All reports, newest first.
    fn reports(&self) -> Result<Vec<Report>> {
        self.raw_last(LogTable::Reports, usize::MAX)?
            .iter()
            .map(|b| decode_at(self.path(), b))
            .collect()
    }
}

/// Where a scan of a file's entries (newest first) starts.
#[doc(hidden)]
#[derive(Clone, Copy)]
pub enum ScanStart<'a> {
    /// After this many of the newest.
    Skip(usize),
    /// At the entry with this render-order key, that entry included.
    At(&'a [u8]),
}

#[doc(hidden)]
#[derive(Clone, Copy)]
pub enum BytesTable {
    Entries,
    Sections,
    SectionHistory,
    Files,
    AgentSessions,
    Proposals,
}

impl BytesTable {
    fn def(self) -> TableDefinition<'static, &'static str, &'static [u8]> {
        match self {
            BytesTable::Entries => ENTRIES,
            BytesTable::Sections => SECTIONS,
            BytesTable::SectionHistory => SECTION_HISTORY,
            BytesTable::Files => FILES,
            BytesTable::AgentSessions => AGENT_SESSIONS,
            BytesTable::Proposals => super::tables::PROPOSALS,
        }
    }
}

#[doc(hidden)]
#[derive(Clone, Copy)]
pub enum LogTable {
    Events,
    Reports,
}

impl LogTable {
    fn def(self) -> TableDefinition<'static, u64, &'static [u8]> {
        match self {
            LogTable::Events => EVENTS,
            LogTable::Reports => REPORTS,
        }
    }
}
