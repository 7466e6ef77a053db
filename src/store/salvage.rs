//! Recovery from a damaged store file: read back what history can still be read (table by
//! table, from both ends of each table when a page in its middle is damaged) and fold it into a
//! store rebuilt from the Markdown. The damaged file itself is only read, never changed.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use redb::{
    ConcurrencyMode, Database, ReadableDatabase, ReadableTable, ReadableTableMetadata,
    TableDefinition,
};
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::tables::{
    ENTRIES, EVENTS, PROPOSALS, REPORTS, SECTION_HISTORY, SECTIONS, encode, history_key,
};
use super::{Reader, WriteTx, damage, store_err};
use crate::error::Result;
use crate::model::{EntryRecord, Event, Proposal, Report, SectionRecord, SectionRevision, State};

/// What could be read back from a damaged store file.
#[derive(Debug, Default)]
pub struct Salvage {
    pub entries: Vec<EntryRecord>,
    pub sections: Vec<SectionRecord>,
    pub section_history: Vec<SectionRevision>,
    pub events: Vec<Event>,
    pub reports: Vec<Report>,
    /// Proposals waiting for a person (or decided), which the Markdown never holds.
    pub proposals: Vec<Proposal>,
    /// What could not be read, one line per table or range.
    pub lost: Vec<String>,
}

/// What [`WriteTx::merge_salvage`] brought back.
#[derive(Debug, Default, Clone, serde::Serialize)]
pub struct Merged {
    /// Entries the Markdown no longer shows (removed, replaced, deleted by hand), restorable.
    pub entries: usize,
    pub section_revisions: usize,
    pub events: usize,
    pub reports: usize,
    pub proposals: usize,
    /// Entries the Markdown still shows whose provenance (when first seen, by whom, from which
    /// agent session and branch) came back from the damaged store.
    pub provenance: usize,
}

/// Read what can be read from the store file at `path`. The reading is done on a copy at
/// `scratch` (deleted afterwards), padded with zeros so that a file cut short reads as pages
/// that are damaged rather than as an end of file that stops every later read; each table is
/// read through a handle of its own, so damage met in one does not stop the others.
pub fn salvage(path: &Path, scratch: &Path) -> Salvage {
    let mut out = Salvage::default();
    let copied = std::fs::copy(path, scratch).and_then(|len| {
        let f = std::fs::OpenOptions::new().write(true).open(scratch)?;
        f.set_len(len.max(1 << 20) * 2)
    });
    // a header whose start is gone is given back what redb needs to read the rest
    let copied = copied.and_then(|()| damage::mend_header(scratch).map(drop));
    if let Err(e) = copied {
        out.lost.push(format!(
            "nothing could be read from the damaged store: copying it to {} failed: {e}",
            scratch.display()
        ));
        let _ = std::fs::remove_file(scratch);
        return out;
    }
    let read_only = || -> Result<Box<dyn ReadableDatabase>> {
        damage::guard(scratch, || {
            Database::builder()
                .set_concurrency_mode(ConcurrencyMode::MultiWriter)
                .open_read_only(scratch)
                .map(|d| Box::new(d) as Box<dyn ReadableDatabase>)
                .map_err(|e| store_err(path, e))
        })
    };
    let readable = read_only().map(drop).or_else(|_| {
        // opening for writing repairs what redb can (the copy only)
        damage::guard(scratch, || {
            Database::builder()
                .set_concurrency_mode(ConcurrencyMode::MultiWriter)
                .create(scratch)
                .map(drop)
                .map_err(|e| store_err(path, e))
        })?;
        read_only().map(drop)
    });
    match readable {
        Ok(()) => read_all(&read_only, path, &mut out),
        Err(crate::error::Error::StoreDamaged { detail, .. }) => out.lost.push(format!(
            "nothing could be read from the damaged store ({detail})"
        )),
        Err(e) => out.lost.push(format!(
            "nothing could be read from the damaged store ({e})"
        )),
    }
    let _ = std::fs::remove_file(scratch);
    out
}

type Opener<'a> = dyn Fn() -> Result<Box<dyn ReadableDatabase>> + 'a;

fn read_all(db: &Opener, path: &Path, out: &mut Salvage) {
    out.entries = records(db, path, ENTRIES, "entries", &mut out.lost);
    out.sections = records(db, path, SECTIONS, "sections", &mut out.lost);
    out.section_history = records(db, path, SECTION_HISTORY, "section history", &mut out.lost);
    out.events = records(db, path, EVENTS, "events", &mut out.lost);
    out.reports = records(db, path, REPORTS, "reports", &mut out.lost);
    out.proposals = records(db, path, PROPOSALS, "proposals", &mut out.lost);
}

/// The records of one table: read forwards until a damaged page, then backwards from the end
/// until one; what lies between is reported lost, as are records that do not decode.
fn records<K: redb::Key + 'static, T: DeserializeOwned>(
    open: &Opener,
    path: &Path,
    def: TableDefinition<K, &[u8]>,
    name: &str,
    lost: &mut Vec<String>,
) -> Vec<T> {
    let total = damage::guard(path, || {
        let db = open()?;
        let txn = db.begin_read().map_err(|e| store_err(path, e))?;
        match txn.open_table(def) {
            Ok(t) => Ok(Some(t.len().map_err(|e| store_err(path, e))?)),
            Err(redb::TableError::TableDoesNotExist(_)) => Ok(None),
            Err(e) => Err(store_err(path, e)),
        }
    });
    let total = match total {
        Ok(None) => return Vec::new(),
        Ok(Some(n)) => Some(n),
        Err(_) => None,
    };
    let mut seen: BTreeSet<Vec<u8>> = BTreeSet::new();
    let mut failed = None;
    for backwards in [false, true] {
        let mut batch = Vec::new();
        let r = damage::guard(path, || {
            let db = open()?;
            let txn = db.begin_read().map_err(|e| store_err(path, e))?;
            let t = txn.open_table(def).map_err(|e| store_err(path, e))?;
            let iter = t.iter().map_err(|e| store_err(path, e))?;
            let mut step = |item: std::result::Result<_, redb::StorageError>| -> Result<()> {
                let (_, v): (_, redb::AccessGuard<&[u8]>) = item.map_err(|e| store_err(path, e))?;
                batch.push(v.value().to_vec());
                Ok(())
            };
            if backwards {
                for item in iter.rev() {
                    step(item)?;
                }
            } else {
                for item in iter {
                    step(item)?;
                }
            }
            Ok(())
        });
        seen.extend(batch);
        match r {
            Ok(()) => {
                // this pass reached the other end: nothing lies unread
                failed = None;
                break;
            }
            Err(e) => failed = Some(e),
        }
    }
    let mut out = Vec::new();
    let mut undecodable = 0usize;
    for bytes in &seen {
        match damage::guard(path, || super::tables::decode_at(path, bytes)) {
            Ok(v) => out.push(v),
            Err(_) => undecodable += 1,
        }
    }
    if let Some(e) = failed {
        let why = match e {
            crate::error::Error::StoreDamaged { detail, .. } => detail,
            e => e.to_string(),
        };
        let what = match total {
            Some(n) => format!(
                "{} of {n} records could not be read",
                (n as usize).saturating_sub(seen.len())
            ),
            None if seen.is_empty() => "the table could not be read".to_string(),
            None => format!("{} records read, the rest could not be", seen.len()),
        };
        lost.push(format!("{name}: {what} ({why})"));
    }
    if undecodable > 0 {
        lost.push(format!("{name}: {undecodable} records do not decode"));
    }
    out
}

impl WriteTx {
    /// Fold history salvaged from a damaged store into this (rebuilt) store: entries the
    /// Markdown no longer shows come back as removed (restorable), the entries it shows get
    /// their provenance back, old section revisions come before the rebuilt ones, old events and
    /// reports before the new ones, and proposals come back as they were.
    pub fn merge_salvage(&self, s: &Salvage) -> Result<Merged> {
        let mut merged = Merged::default();
        for old in &s.entries {
            if let Some(mut rebuilt) = self.entry(&old.id)? {
                // the same text: what the store alone knew of it is the old record's
                if (&rebuilt.created_at, &rebuilt.actor, &rebuilt.origin)
                    != (&old.created_at, &old.actor, &old.origin)
                {
                    rebuilt.created_at = old.created_at.clone();
                    rebuilt.actor = old.actor.clone();
                    rebuilt.origin = old.origin.clone();
                    self.put_entry(&rebuilt)?;
                    merged.provenance += 1;
                }
                continue;
            }
            let mut rec = old.clone();
            if rec.file().is_some() {
                // shown by the damaged store, gone from the Markdown: deleted by hand
                rec.state = State::Removed;
            }
            // a fresh sequence number: the old one may be taken in the rebuilt order
            rec.seq = self.next_seq()?;
            self.put_entry(&rec)?;
            merged.entries += 1;
        }
        merged.section_revisions = self.merge_sections(s)?;
        merged.events = self.merge_events(&s.events)?;
        merged.reports = self.merge_reports(&s.reports)?;
        for p in &s.proposals {
            if self.proposal(&p.id)?.is_none() {
                self.put_proposal(p)?;
                merged.proposals += 1;
            }
        }
        Ok(merged)
    }

    fn merge_sections(&self, s: &Salvage) -> Result<usize> {
        let mut old: BTreeMap<&str, Vec<&SectionRevision>> = BTreeMap::new();
        for r in &s.section_history {
            old.entry(r.key.as_str()).or_default().push(r);
        }
        let mut n = 0;
        damage::guard(&self.path, || {
            let mut sections = self.txn.open_table(SECTIONS).map_err(self.w())?;
            let mut history = self.txn.open_table(SECTION_HISTORY).map_err(self.w())?;
            for (key, mut revs) in old {
                revs.sort_by_key(|r| r.revision);
                let last = revs.last().map_or(0, |r| r.revision);
                // the rebuilt revisions of this section, to be numbered after the old ones
                let prefix = format!("{key}\u{0}");
                let mut rebuilt: Vec<SectionRevision> = Vec::new();
                for item in history.range::<&str>(prefix.as_str()..).map_err(self.w())? {
                    let (k, v) = item.map_err(self.w())?;
                    if !k.value().starts_with(&prefix) {
                        break;
                    }
                    rebuilt.push(super::tables::decode_at(&self.path, v.value())?);
                }
                for r in &rebuilt {
                    history
                        .remove(history_key(key, r.revision).as_str())
                        .map_err(self.w())?;
                }
                for r in &revs {
                    history
                        .insert(
                            history_key(key, r.revision).as_str(),
                            encode(*r)?.as_slice(),
                        )
                        .map_err(self.w())?;
                    n += 1;
                }
                let mut next = last;
                let same = |a: &SectionRevision, b: &SectionRevision| {
                    a.heading == b.heading && a.body == b.body
                };
                for (i, mut r) in rebuilt.into_iter().enumerate() {
                    if i == 0 && revs.last().is_some_and(|l| same(l, &r)) {
                        continue;
                    }
                    next += 1;
                    r.revision = next;
                    history
                        .insert(history_key(key, next).as_str(), encode(&r)?.as_slice())
                        .map_err(self.w())?;
                }
                let current = sections
                    .get(key)
                    .map_err(self.w())?
                    .map(|g| super::tables::decode_at::<SectionRecord>(&self.path, g.value()))
                    .transpose()?;
                let rec = match current {
                    Some(mut c) => {
                        c.revision = next;
                        c
                    }
                    // gone from PROJECT.md: kept as a removed section, restorable
                    None => match s.sections.iter().find(|x| x.key == key) {
                        Some(x) => SectionRecord {
                            removed: true,
                            revision: next,
                            ..x.clone()
                        },
                        None => continue,
                    },
                };
                sections
                    .insert(key, encode(&rec)?.as_slice())
                    .map_err(self.w())?;
            }
            Ok(())
        })?;
        Ok(n)
    }

    fn merge_events(&self, old: &[Event]) -> Result<usize> {
        self.put_history_first(EVENTS, old, |e| e.seq, |e, n| e.seq = n, "next_event")
    }

    fn merge_reports(&self, old: &[Report]) -> Result<usize> {
        self.put_history_first(REPORTS, old, |r| r.seq, |r, n| r.seq = n, "next_report")
    }

    /// Put `old` (the damaged store's log) back first in `table`, renumbering what the rebuild
    /// already wrote after it; `next` is the meta key counting the table's sequence numbers.
    fn put_history_first<T: Serialize + DeserializeOwned>(
        &self,
        table: TableDefinition<u64, &[u8]>,
        old: &[T],
        seq: fn(&T) -> u64,
        set_seq: fn(&mut T, u64),
        next: &str,
    ) -> Result<usize> {
        if old.is_empty() {
            return Ok(0);
        }
        let last = old.iter().map(seq).max().unwrap_or(0);
        damage::guard(&self.path, || {
            let mut t = self.txn.open_table(table).map_err(self.w())?;
            let mut rebuilt: Vec<T> = Vec::new();
            for item in t.iter().map_err(self.w())? {
                let (_, v) = item.map_err(self.w())?;
                rebuilt.push(super::tables::decode_at(&self.path, v.value())?);
            }
            t.retain(|_, _| false).map_err(self.w())?;
            for o in old {
                t.insert(seq(o), encode(o)?.as_slice()).map_err(self.w())?;
            }
            let mut n = last;
            for mut r in rebuilt {
                n += 1;
                set_seq(&mut r, n);
                t.insert(n, encode(&r)?.as_slice()).map_err(self.w())?;
            }
            self.set_meta(next, n)
        })?;
        Ok(old.len())
    }
}

/// Read every record of the store at `path` (every table, the render order against the
/// entries): `Err` names the first damage found. Opens the file read-only.
pub fn verify(path: &Path) -> Result<()> {
    let store = super::Store::open_read_only(path)?;
    let r = store.read()?;
    r.all_entries()?;
    r.sections()?;
    for bytes in r.raw_scan(super::BytesTable::SectionHistory, "")? {
        super::tables::decode_at::<SectionRevision>(path, &bytes)?;
    }
    r.events(usize::MAX)?;
    r.reports()?;
    r.changes_since(0)?;
    for f in crate::model::FileKind::ALL {
        r.stamp(f)?;
        r.preamble(f)?;
        if !super::tables::near(f) {
            r.scan_file(f, 0, &mut |_| Ok(true))?;
            continue;
        }
        // the near records, where kept, say what the render order and the entries table say
        let mut near = Vec::new();
        r.scan_file(f, 0, &mut |e| {
            near.push(e);
            Ok(true)
        })?;
        let mut k = 0;
        let mut same = true;
        r.scan_file_by_order(f, &mut |e| {
            same = near.get(k) == Some(&e);
            k += 1;
            Ok(same)
        })?;
        if !same || k != near.len() {
            return Err(super::damage::damaged(
                path,
                format!(
                    "the records kept for {} disagree with the entries table",
                    f.file_name()
                ),
            ));
        }
    }
    verify_marks(path, &r)?;
    r.meta("schema_version")?;
    Ok(())
}

/// The marks say what the entries say (a schema 5 store; an older one works them out).
fn verify_marks(path: &Path, r: &super::ReadTx) -> Result<()> {
    let mut expected = Vec::new();
    for f in [
        crate::model::FileKind::Decisions,
        crate::model::FileKind::Sessions,
    ] {
        r.scan_file_by_order(f, &mut |e| {
            expected.extend(crate::model::marks::of(&e));
            Ok(true)
        })?;
    }
    expected.sort();
    if r.marks("")? != expected {
        return Err(super::damage::damaged(
            path,
            "the marks kept for topics, review dates and credentials disagree with the entries",
        ));
    }
    Ok(())
}
