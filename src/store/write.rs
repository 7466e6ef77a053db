//! The one write transaction: every change to the store goes through [`WriteTx`].

use std::path::PathBuf;

use redb::{ReadableTable, TableDefinition, WriteTransaction};

use super::Reader;
use super::tables::{
    AGENT_SESSIONS, BATCHES, CHANGES, ENTRIES, EVENTS, FILES, LIVE_DECISIONS, MARKS, META, NEAR,
    ORDER, PREAMBLES, REPORTS, SECTION_HISTORY, SECTIONS, count_key, encode, history_key,
    live_decision, near, order_key,
};
use super::{damage, store_err};
use crate::error::{Error, Result};
use crate::model::{
    AgentSession, EntryRecord, Event, FileKind, FileStamp, Report, SectionRecord, SectionRevision,
    State,
};

/// The one write transaction. Dropping it without [`WriteTx::commit`] aborts.
pub struct WriteTx {
    pub(super) txn: WriteTransaction,
    pub(super) path: PathBuf,
    /// Counters written in this transaction, flushed to `meta` at commit (bulk imports bump
    /// them once per entry).
    pub(super) meta_cache: std::cell::RefCell<std::collections::BTreeMap<String, u64>>,
    /// The layout was migrated: the transaction must commit even if nothing else changes.
    pub(super) migrated: std::cell::Cell<bool>,
    /// Records of entries new to the store, written to the entries table in id order before
    /// it is next opened (see [`super::bulk`]).
    pub(super) new_entries: std::cell::RefCell<super::bulk::NewEntries>,
}

impl WriteTx {
    pub(super) fn table<K: redb::Key + 'static, V: redb::Value + 'static>(
        &self,
        def: TableDefinition<K, V>,
    ) -> Result<Option<redb::Table<'_, K, V>>> {
        if redb::TableHandle::name(&def) == redb::TableHandle::name(&ENTRIES) {
            self.settle_entries()?;
        }
        self.txn
            .open_table(def)
            .map(Some)
            .map_err(|e| store_err(&self.path, e))
    }
}

impl WriteTx {
    pub(super) fn cached_meta(&self, key: &str) -> Option<u64> {
        self.meta_cache.borrow().get(key).copied()
    }
}

impl WriteTx {
    pub(super) fn w<E: std::fmt::Display>(&self) -> impl Fn(E) -> Error + '_ {
        move |e| store_err(&self.path, e)
    }

    pub fn set_meta(&self, key: &str, value: u64) -> Result<()> {
        self.meta_cache.borrow_mut().insert(key.to_string(), value);
        Ok(())
    }

    fn bump(&self, key: &str, delta: i64) -> Result<u64> {
        let v = (self.meta(key)? as i64 + delta).max(0) as u64;
        self.set_meta(key, v)?;
        Ok(v)
    }

    /// The next insertion sequence number.
    pub fn next_seq(&self) -> Result<u64> {
        self.bump("next_seq", 1)
    }

    /// Take `n` insertion sequence numbers at once (`n` > 0): the first of them.
    pub fn take_seqs(&self, n: u64) -> Result<u64> {
        Ok(self.bump("next_seq", n as i64)? + 1 - n)
    }

    pub(super) fn note_change(&self, what: &str) -> Result<()> {
        damage::guard(&self.path, || {
            let seq = self.bump("change_seq", 1)?;
            let mut t = self.txn.open_table(CHANGES).map_err(self.w())?;
            t.insert(seq, what).map_err(self.w())?;
            Ok(())
        })
    }

    /// Insert or update an entry, keeping the render order and the per-file counts in step.
    pub fn put_entry(&self, rec: &EntryRecord) -> Result<()> {
        let old = self.entry(&rec.id)?;
        self.put_entry_over(rec, old)
    }

    /// [`WriteTx::put_entry`] when the caller already holds the stored record (`old`).
    pub fn put_entry_over(&self, rec: &EntryRecord, old: Option<EntryRecord>) -> Result<()> {
        let Some(old) = old else {
            return self.put_new_entries(std::slice::from_ref(rec));
        };
        damage::guard(&self.path, || {
            self.note_change(&format!("e:{}", rec.id))?;
            let bytes = encode(rec)?;
            {
                let mut order = self.txn.open_table(ORDER).map_err(self.w())?;
                let mut near_t = self.txn.open_table(NEAR).map_err(self.w())?;
                if let Some(f) = old.file() {
                    let k = order_key(f, old.sort_date, old.seq);
                    order.remove(&k[..]).map_err(self.w())?;
                    if near(f) {
                        near_t.remove(&k[..]).map_err(self.w())?;
                    }
                }
                if let Some(f) = rec.file() {
                    let k = order_key(f, rec.sort_date, rec.seq);
                    order.insert(&k[..], rec.id.as_str()).map_err(self.w())?;
                    if near(f) {
                        near_t.insert(&k[..], bytes.as_slice()).map_err(self.w())?;
                    }
                }
            }
            if let Some(f) = old.file() {
                self.bump(&count_key(f), -1)?;
            }
            if let Some(f) = rec.file() {
                self.bump(&count_key(f), 1)?;
            }
            let was_away = old.state == State::Elsewhere;
            if was_away != (rec.state == State::Elsewhere) {
                self.bump(super::tables::ELSEWHERE, if was_away { -1 } else { 1 })?;
            }
            self.remark(Some(&old), Some(rec))?;
            let was_live = live_decision(&old);
            if was_live != live_decision(rec) {
                self.bump(LIVE_DECISIONS, if was_live { -1 } else { 1 })?;
            }
            self.settle_entries()?;
            let mut t = self.txn.open_table(ENTRIES).map_err(self.w())?;
            t.insert(rec.id.as_str(), bytes.as_slice())
                .map_err(self.w())?;
            Ok(())
        })
    }

    /// [`WriteTx::put_entry_over`] for records the store does not hold yet, many at once (a
    /// fresh import): each table is opened once for the lot, not once per entry. A new entry's
    /// record waits to be written in id order with the others.
    pub fn put_new_entries(&self, recs: &[EntryRecord]) -> Result<()> {
        damage::guard(&self.path, || {
            let mut changes = self.txn.open_table(CHANGES).map_err(self.w())?;
            let mut order = self.txn.open_table(ORDER).map_err(self.w())?;
            let mut near_t = self.txn.open_table(NEAR).map_err(self.w())?;
            let mut marks = self.txn.open_table(MARKS).map_err(self.w())?;
            let mut new_entries = self.new_entries.borrow_mut();
            let spill = self.spill_dir();
            let mut counts = [0i64; 4];
            let (mut away, mut live) = (0, 0);
            for rec in recs {
                let seq = self.bump("change_seq", 1)?;
                changes
                    .insert(seq, format!("e:{}", rec.id).as_str())
                    .map_err(self.w())?;
                let bytes = encode(rec)?;
                if let Some(f) = rec.file() {
                    let k = order_key(f, rec.sort_date, rec.seq);
                    order.insert(&k[..], rec.id.as_str()).map_err(self.w())?;
                    if near(f) {
                        near_t.insert(&k[..], bytes.as_slice()).map_err(self.w())?;
                    }
                    counts[FileKind::ALL.iter().position(|x| *x == f).unwrap_or(0)] += 1;
                }
                away += i64::from(rec.state == State::Elsewhere);
                live += i64::from(live_decision(rec));
                for m in crate::model::marks::of(rec) {
                    marks.insert(m.as_str(), ()).map_err(self.w())?;
                }
                new_entries.push(&spill, &rec.id, bytes)?;
            }
            self.bump("count:total", recs.len() as i64)?;
            for (f, n) in FileKind::ALL.iter().zip(counts) {
                if n > 0 {
                    self.bump(&count_key(*f), n)?;
                }
            }
            if away > 0 {
                self.bump(super::tables::ELSEWHERE, away)?;
            }
            if live > 0 {
                self.bump(LIVE_DECISIONS, live)?;
            }
            Ok(())
        })
    }

    /// Where records of new entries wait when there are many: beside the store file.
    fn spill_dir(&self) -> PathBuf {
        match self.path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        }
    }

    /// Write the records of new entries kept so far to the entries table, in id order.
    pub(super) fn settle_entries(&self) -> Result<()> {
        if self.new_entries.borrow().is_empty() {
            return Ok(());
        }
        let mut kept = std::mem::take(&mut *self.new_entries.borrow_mut());
        let mut t = self.txn.open_table(ENTRIES).map_err(self.w())?;
        kept.drain(&self.spill_dir(), &mut |id, record| {
            t.insert(id, record).map(drop).map_err(self.w())
        })
    }

    /// Keep the marks in step with an entry going from `old` to `new` (either may be absent).
    pub(super) fn remark(
        &self,
        old: Option<&EntryRecord>,
        new: Option<&EntryRecord>,
    ) -> Result<()> {
        let before = old.map(crate::model::marks::of).unwrap_or_default();
        let after = new.map(crate::model::marks::of).unwrap_or_default();
        if before == after {
            return Ok(());
        }
        let mut t = self.txn.open_table(MARKS).map_err(self.w())?;
        for gone in before.iter().filter(|m| !after.contains(m)) {
            t.remove(gone.as_str()).map_err(self.w())?;
        }
        for came in after.iter().filter(|m| !before.contains(m)) {
            t.insert(came.as_str(), ()).map_err(self.w())?;
        }
        Ok(())
    }

    /// Write a section; a changed body or heading becomes a new revision in the history.
    pub fn put_section(&self, rec: &SectionRecord, at: &str, actor: &str) -> Result<()> {
        damage::guard(&self.path, || {
            self.note_change(&format!("s:{}", rec.key))?;
            let bytes = encode(rec)?;
            let mut t = self.txn.open_table(SECTIONS).map_err(self.w())?;
            t.insert(rec.key.as_str(), bytes.as_slice())
                .map_err(self.w())?;
            let rev = SectionRevision {
                key: rec.key.clone(),
                revision: rec.revision,
                heading: rec.heading.clone(),
                body: rec.body.clone(),
                at: at.to_string(),
                actor: actor.to_string(),
            };
            let hk = history_key(&rec.key, rec.revision);
            let bytes = encode(&rev)?;
            let mut h = self.txn.open_table(SECTION_HISTORY).map_err(self.w())?;
            h.insert(hk.as_str(), bytes.as_slice()).map_err(self.w())?;
            Ok(())
        })
    }

    pub fn set_preamble(&self, file: FileKind, text: &str) -> Result<()> {
        damage::guard(&self.path, || {
            let mut t = self.txn.open_table(PREAMBLES).map_err(self.w())?;
            t.insert(file.file_name(), text).map_err(self.w())?;
            Ok(())
        })?;
        // the prose in it is searchable
        self.note_change(&format!("p:{}", file.file_name()))
    }

    /// Keep `clashes` as the sections' clashes that may still stand (none: forget them).
    pub fn set_section_clashes(&self, clashes: &[crate::model::SectionClash]) -> Result<()> {
        damage::guard(&self.path, || {
            let mut t = self.txn.open_table(FILES).map_err(self.w())?;
            if clashes.is_empty() {
                t.remove(super::tables::CLASHES).map_err(self.w())?;
            } else {
                let bytes = encode(&clashes)?;
                t.insert(super::tables::CLASHES, bytes.as_slice())
                    .map_err(self.w())?;
            }
            Ok(())
        })
    }

    /// Remember the git head the files were last looked at under (see `Reader::git_head`).
    pub fn set_git_head(&self, head: &str) -> Result<()> {
        damage::guard(&self.path, || {
            let mut t = self.txn.open_table(FILES).map_err(self.w())?;
            t.insert(super::tables::GIT_HEAD, head.as_bytes())
                .map_err(self.w())?;
            Ok(())
        })
    }

    pub fn set_stamp(&self, file: FileKind, stamp: &FileStamp) -> Result<()> {
        damage::guard(&self.path, || {
            // the time the stamp was taken (before its I/O), else now
            let now_ms = match stamp.taken_ms {
                0 => crate::base::clock::wall_ms(),
                taken => taken,
            };
            self.set_meta(&format!("stamped_at:{}", file.code()), now_ms)?;
            let bytes = encode(stamp)?;
            let mut t = self.txn.open_table(FILES).map_err(self.w())?;
            t.insert(file.file_name(), bytes.as_slice())
                .map_err(self.w())?;
            Ok(())
        })
    }

    /// Append to the event log; returns the event's sequence number.
    pub fn log(
        &self,
        at: &str,
        actor: &str,
        op: &str,
        ids: Vec<String>,
        detail: &str,
    ) -> Result<u64> {
        damage::guard(&self.path, || {
            let seq = self.bump("next_event", 1)?;
            let ev = Event {
                seq,
                at: at.to_string(),
                actor: actor.to_string(),
                op: op.to_string(),
                ids,
                detail: detail.to_string(),
            };
            let bytes = encode(&ev)?;
            let mut t = self.txn.open_table(EVENTS).map_err(self.w())?;
            t.insert(seq, bytes.as_slice()).map_err(self.w())?;
            Ok(seq)
        })
    }

    /// Store a `notes` report; returns its number.
    pub fn add_report(&self, at: &str, actor: &str, text: &str) -> Result<u64> {
        let seq = self.bump("next_report", 1)?;
        self.put_report(&Report {
            seq,
            at: at.to_string(),
            actor: actor.to_string(),
            text: text.to_string(),
            open: true,
        })?;
        Ok(seq)
    }

    pub fn put_report(&self, r: &Report) -> Result<()> {
        damage::guard(&self.path, || {
            let bytes = encode(r)?;
            let mut t = self.txn.open_table(REPORTS).map_err(self.w())?;
            t.insert(r.seq, bytes.as_slice()).map_err(self.w())?;
            Ok(())
        })
    }

    pub fn put_agent_session(&self, s: &AgentSession) -> Result<()> {
        damage::guard(&self.path, || {
            let bytes = encode(s)?;
            let mut t = self.txn.open_table(AGENT_SESSIONS).map_err(self.w())?;
            t.insert(s.id.as_str(), bytes.as_slice())
                .map_err(self.w())?;
            Ok(())
        })
    }

    /// Store a proposal (new or changed); the pending count follows its state.
    pub fn put_proposal(&self, p: &crate::model::Proposal) -> Result<()> {
        use crate::model::ProposalState::Pending;
        let was = self.proposal(&p.id)?.is_some_and(|o| o.state == Pending);
        if was != (p.state == Pending) {
            self.bump(super::tables::PENDING, if was { -1 } else { 1 })?;
        }
        damage::guard(&self.path, || {
            let bytes = encode(p)?;
            let mut t = self
                .txn
                .open_table(super::tables::PROPOSALS)
                .map_err(self.w())?;
            t.insert(p.id.as_str(), bytes.as_slice())
                .map_err(self.w())?;
            Ok(())
        })
    }

    /// The outcome recorded for group-commit ticket `ticket`, when a leader applied it.
    pub fn batch_outcome(&self, ticket: &str) -> Result<Option<Vec<u8>>> {
        damage::guard(&self.path, || {
            let t = self.txn.open_table(BATCHES).map_err(self.w())?;
            Ok(t.get(ticket).map_err(self.w())?.map(|g| g.value().to_vec()))
        })
    }

    /// Record the outcome of group-commit ticket `ticket` (committed with the batch).
    pub fn put_batch_outcome(&self, ticket: &str, outcome: &[u8]) -> Result<()> {
        damage::guard(&self.path, || {
            let mut t = self.txn.open_table(BATCHES).map_err(self.w())?;
            t.insert(ticket, outcome).map_err(self.w())?;
            Ok(())
        })
    }

    /// Forget the outcomes of tickets ordered before `before` (their writers are long gone).
    pub fn prune_batch_outcomes(&self, before: &str) -> Result<()> {
        damage::guard(&self.path, || {
            let mut t = self.txn.open_table(BATCHES).map_err(self.w())?;
            t.retain_in::<&str, _>(..before, |_, _| false)
                .map_err(self.w())?;
            Ok(())
        })
    }

    /// True when opening the transaction migrated the store (it must be committed).
    pub fn migrated(&self) -> bool {
        self.migrated.get()
    }

    /// Make everything durable. Dropping the transaction instead aborts it.
    pub fn commit(self) -> Result<()> {
        damage::guard(&self.path, || {
            self.settle_entries()?;
            let mut t = self.txn.open_table(META).map_err(self.w())?;
            for (k, v) in self.meta_cache.borrow().iter() {
                t.insert(k.as_str(), *v).map_err(self.w())?;
            }
            Ok(())
        })?;
        let path = self.path.clone();
        damage::guard(&path, || self.txn.commit().map_err(|e| store_err(&path, e)))
    }
}
