//! The store: the source of truth, in redb. The only module that names redb.
//!
//! Every process opens the database in redb's multi-process mode; writes are serialised by
//! redb's write lock, waited for up to a deadline. Values are bincode-encoded model records.
//! Tables:
//! - `meta`: schema version, sequence counters, per-file entry counts;
//! - `entries`: id → [`EntryRecord`]; `order`: (file, date, seq) → id, the render order;
//! - `sections` / `section_history`: PROJECT.md sections and every revision of them;
//! - `preambles`: text above the first entry of each file;
//! - `files`: stamp of what was last written to (or absorbed from) each file;
//! - `events`: the append-only log; `reports`: `notes` left for the user.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use chrono::{Datelike, NaiveDate};
use redb::{
    ConcurrencyMode, Database, ReadOnlyDatabase, ReadTransaction, ReadableDatabase, ReadableTable,
    TableDefinition, TransactionError, WriteTransaction,
};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::error::{Error, Result};
use crate::model::{
    AgentSession, EntryRecord, Event, FileKind, FileStamp, Report, SectionRecord, SectionRevision,
};

/// Version of the table layout; bump with a migration in [`migrate`].
pub const SCHEMA_VERSION: u64 = 3;

const META: TableDefinition<&str, u64> = TableDefinition::new("meta");
const ENTRIES: TableDefinition<&str, &[u8]> = TableDefinition::new("entries");
const ORDER: TableDefinition<&[u8], &str> = TableDefinition::new("order");
const SECTIONS: TableDefinition<&str, &[u8]> = TableDefinition::new("sections");
const SECTION_HISTORY: TableDefinition<&str, &[u8]> = TableDefinition::new("section_history");
const PREAMBLES: TableDefinition<&str, &str> = TableDefinition::new("preambles");
const FILES: TableDefinition<&str, &[u8]> = TableDefinition::new("files");
const EVENTS: TableDefinition<u64, &[u8]> = TableDefinition::new("events");
const REPORTS: TableDefinition<u64, &[u8]> = TableDefinition::new("reports");
const AGENT_SESSIONS: TableDefinition<&str, &[u8]> = TableDefinition::new("agent_sessions");
/// Change sequence → what changed (`e:<entry id>` or `s:<section key>`), for derived indexes.
const CHANGES: TableDefinition<u64, &str> = TableDefinition::new("changes");

fn encode<T: Serialize>(v: &T) -> Result<Vec<u8>> {
    bincode::serde::encode_to_vec(v, bincode::config::standard())
        .map_err(|e| Error::Internal(format!("encode: {e}")))
}

fn decode<T: DeserializeOwned>(bytes: &[u8]) -> Result<T> {
    bincode::serde::decode_from_slice(bytes, bincode::config::standard())
        .map(|(v, _)| v)
        .map_err(|e| Error::Internal(format!("decode a store record: {e}")))
}

fn order_key(file: FileKind, date: NaiveDate, seq: u64) -> [u8; 13] {
    let mut k = [0u8; 13];
    k[0] = file.code();
    let days = (date.num_days_from_ce() as i64 + (1i64 << 31)) as u32;
    k[1..5].copy_from_slice(&days.to_be_bytes());
    k[5..13].copy_from_slice(&seq.to_be_bytes());
    k
}

/// Meta key: number of live decisions.
const LIVE_DECISIONS: &str = "count:live_decisions";

fn live_decision(rec: &EntryRecord) -> bool {
    rec.file() == Some(FileKind::Decisions) && rec.state == crate::model::State::Live
}

fn count_key(file: FileKind) -> String {
    format!("count:{}", file.code())
}

/// An open store.
pub struct Store {
    db: Db,
    path: PathBuf,
}

enum Db {
    Rw(Database),
    Ro(ReadOnlyDatabase),
}

impl Store {
    /// Open (creating if missing) for reading and writing; waits at most `timeout` when
    /// another process is inside a write transaction.
    pub fn open(path: &Path, timeout: Duration) -> Result<Store> {
        let (tx, rx) = std::sync::mpsc::channel();
        let p = path.to_path_buf();
        std::thread::spawn(move || {
            let r = Database::builder()
                .set_concurrency_mode(ConcurrencyMode::MultiWriter)
                .create(&p);
            let _ = tx.send(r);
        });
        match rx.recv_timeout(timeout) {
            Ok(Ok(db)) => Ok(Store {
                db: Db::Rw(db),
                path: path.to_path_buf(),
            }),
            Ok(Err(e)) => Err(store_err(path, e)),
            Err(_) => Err(Error::Busy {
                path: path.to_path_buf(),
                waited_ms: timeout.as_millis() as u64,
            }),
        }
    }

    /// Open an existing store read-only: never blocked by writers, follows their commits.
    pub fn open_read_only(path: &Path) -> Result<Store> {
        let db = Database::builder()
            .set_concurrency_mode(ConcurrencyMode::MultiWriter)
            .open_read_only(path)
            .map_err(|e| store_err(path, e))?;
        Ok(Store {
            db: Db::Ro(db),
            path: path.to_path_buf(),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Begin a read transaction (a consistent snapshot).
    pub fn read(&self) -> Result<ReadTx> {
        let txn = match &self.db {
            Db::Rw(db) => db.begin_read(),
            Db::Ro(db) => db.begin_read(),
        }
        .map_err(|e| store_err(&self.path, e))?;
        Ok(ReadTx {
            txn,
            path: self.path.clone(),
        })
    }

    /// Begin the write transaction, waiting for other writers until `timeout`.
    pub fn write(&self, timeout: Duration) -> Result<WriteTx> {
        let Db::Rw(db) = &self.db else {
            return Err(Error::Internal("write on a read-only store handle".into()));
        };
        let start = Instant::now();
        let txn = loop {
            match db.try_begin_write() {
                Ok(t) => break t,
                Err(TransactionError::WouldBlock) if start.elapsed() < timeout => {
                    std::thread::sleep(Duration::from_millis(2));
                }
                Err(TransactionError::WouldBlock) => {
                    return Err(Error::Busy {
                        path: self.path.clone(),
                        waited_ms: start.elapsed().as_millis() as u64,
                    });
                }
                Err(e) => return Err(store_err(&self.path, e)),
            }
        };
        let w = WriteTx {
            txn,
            path: self.path.clone(),
            meta_cache: Default::default(),
            migrated: Default::default(),
        };
        migrate(&w)?;
        Ok(w)
    }
}

fn store_err(path: &Path, e: impl std::fmt::Display) -> Error {
    let msg = e.to_string();
    let message = if msg.contains("lock protocol") || msg.contains("LockProtocol") {
        format!("{msg}: another version of trilogy has this store open; stop it or upgrade it")
    } else if msg.contains("already open") {
        format!("{msg}: another program holds this store exclusively")
    } else {
        msg
    };
    Error::Store {
        path: path.to_path_buf(),
        message,
    }
}

/// Bring the store to [`SCHEMA_VERSION`]; refuse a store written by a newer trilogy.
fn migrate(w: &WriteTx) -> Result<()> {
    let v = w.meta("schema_version")?;
    match v {
        0 => {
            set_store_id(w)?;
            w.set_meta("schema_version", SCHEMA_VERSION)
        }
        SCHEMA_VERSION => Ok(()),
        newer if newer > SCHEMA_VERSION => Err(Error::Store {
            path: w.path.clone(),
            message: format!(
                "schema {newer} is newer than this trilogy understands ({SCHEMA_VERSION}); upgrade trilogy, or delete .trilogy/ to rebuild it from the Markdown"
            ),
        }),
        older => {
            // one step per version
            if older < 2 {
                migrate_v1_dates(w)?;
            }
            if older < 3 {
                count_live_decisions(w)?;
                set_store_id(w)?;
            }
            w.migrated.set(true);
            w.set_meta("schema_version", SCHEMA_VERSION)
        }
    }
}

/// A random identity for this store file, so derived caches (the search index) can tell a
/// store rebuilt from scratch (its change sequence restarts) from an older snapshot of theirs.
fn set_store_id(w: &WriteTx) -> Result<()> {
    let mut h = std::hash::DefaultHasher::new();
    std::hash::Hash::hash(&std::time::SystemTime::now(), &mut h);
    std::hash::Hash::hash(&std::process::id(), &mut h);
    std::hash::Hash::hash(&w.path, &mut h);
    let id = std::hash::BuildHasher::hash_one(
        &std::collections::hash_map::RandomState::new(),
        std::hash::Hasher::finish(&h),
    );
    w.set_meta("store_id", id.max(1))
}

/// Schema 3 keeps a count of live decisions (the injection ledger needs it without reading
/// every decision).
fn count_live_decisions(w: &WriteTx) -> Result<()> {
    let mut n = 0u64;
    w.scan_file(FileKind::Decisions, 0, &mut |rec| {
        n += u64::from(rec.state == crate::model::State::Live);
        Ok(true)
    })?;
    w.set_meta(LIVE_DECISIONS, n)
}

/// Schema 1 stored `sort_date` as a date string; schema 2 stores days since 0001-01-01.
fn migrate_v1_dates(w: &WriteTx) -> Result<()> {
    #[derive(serde::Deserialize)]
    struct V1 {
        id: String,
        kind: crate::model::EntryKind,
        heading: String,
        body: String,
        state: crate::model::State,
        seq: u64,
        sort_date: NaiveDate,
        superseded_by: Option<String>,
        replaced_by: Option<String>,
        created_at: String,
        actor: String,
        origin: crate::model::Origin,
    }
    let mut t = w.txn.open_table(ENTRIES).map_err(w.w())?;
    let mut rewritten = Vec::new();
    for item in t.iter().map_err(w.w())? {
        let (_, v) = item.map_err(w.w())?;
        let old: V1 = decode(v.value())?;
        let rec = EntryRecord {
            id: old.id,
            kind: old.kind,
            heading: old.heading,
            body: old.body,
            state: old.state,
            seq: old.seq,
            sort_date: old.sort_date,
            superseded_by: old.superseded_by,
            replaced_by: old.replaced_by,
            created_at: old.created_at,
            actor: old.actor,
            origin: old.origin,
        };
        rewritten.push((rec.id.clone(), encode(&rec)?));
    }
    for (id, bytes) in &rewritten {
        t.insert(id.as_str(), bytes.as_slice()).map_err(w.w())?;
    }
    drop(t);
    // schema 1 kept no change log: announce everything once, so derived indexes build fully
    for (id, _) in &rewritten {
        w.note_change(&format!("e:{id}"))?;
    }
    for s in w.sections()? {
        w.note_change(&format!("s:{}", s.key))?;
    }
    Ok(())
}

/// Reads shared by read and write transactions.
pub trait Reader {
    #[doc(hidden)]
    fn path(&self) -> &Path;
    #[doc(hidden)]
    fn raw_meta(&self, key: &str) -> Result<Option<u64>>;
    #[doc(hidden)]
    fn raw_get(&self, table: BytesTable, key: &str) -> Result<Option<Vec<u8>>>;
    #[doc(hidden)]
    fn raw_scan(&self, table: BytesTable, prefix: &str) -> Result<Vec<Vec<u8>>>;
    #[doc(hidden)]
    fn raw_preamble(&self, key: &str) -> Result<Option<String>>;
    #[doc(hidden)]
    fn raw_last(&self, table: LogTable, limit: usize) -> Result<Vec<Vec<u8>>>;
    #[doc(hidden)]
    fn raw_scan_file(
        &self,
        file: FileKind,
        skip: usize,
        visit: &mut dyn FnMut(EntryRecord) -> Result<bool>,
    ) -> Result<()>;
    #[doc(hidden)]
    fn raw_changes(&self, after: u64) -> Result<Vec<(u64, String)>>;

    fn err(&self, e: &dyn std::fmt::Display) -> Error {
        store_err(self.path(), e)
    }

    /// A counter or setting in `meta` (0 when unset).
    fn meta(&self, key: &str) -> Result<u64> {
        Ok(self.raw_meta(key)?.unwrap_or(0))
    }

    fn entry(&self, id: &str) -> Result<Option<EntryRecord>> {
        self.raw_get(BytesTable::Entries, id)?
            .map(|b| decode(&b))
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
        self.raw_scan_file(file, skip, visit)
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
            .map(|b| decode(b))
            .collect()
    }

    /// PROJECT sections (removed ones included), in file order.
    fn sections(&self) -> Result<Vec<SectionRecord>> {
        let mut v: Vec<SectionRecord> = self
            .raw_scan(BytesTable::Sections, "")?
            .iter()
            .map(|b| decode(b))
            .collect::<Result<_>>()?;
        v.sort_by(|a, b| a.order.cmp(&b.order).then_with(|| a.key.cmp(&b.key)));
        Ok(v)
    }

    /// Every revision of the section `key`, oldest first.
    fn section_history(&self, key: &str) -> Result<Vec<SectionRevision>> {
        self.raw_scan(BytesTable::SectionHistory, &format!("{key}\u{0}"))?
            .iter()
            .map(|b| decode(b))
            .collect()
    }

    fn preamble(&self, file: FileKind) -> Result<Option<String>> {
        self.raw_preamble(file.file_name())
    }

    fn stamp(&self, file: FileKind) -> Result<Option<FileStamp>> {
        self.raw_get(BytesTable::Files, file.file_name())?
            .map(|b| decode(&b))
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
            .map(|b| decode(b))
            .collect()
    }

    /// What trilogy remembers about agent session `id`.
    fn agent_session(&self, id: &str) -> Result<Option<AgentSession>> {
        // session state is a cache of what a host was shown: a record from an older layout
        // is treated as unknown (the session then gets the whole block again)
        Ok(self
            .raw_get(BytesTable::AgentSessions, id)?
            .and_then(|b| decode(&b).ok()))
    }

    /// Every agent session known.
    fn agent_sessions(&self) -> Result<Vec<AgentSession>> {
        Ok(self
            .raw_scan(BytesTable::AgentSessions, "")?
            .iter()
            .filter_map(|b| decode(b).ok())
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

    /// All reports, newest first.
    fn reports(&self) -> Result<Vec<Report>> {
        self.raw_last(LogTable::Reports, usize::MAX)?
            .iter()
            .map(|b| decode(b))
            .collect()
    }
}

#[doc(hidden)]
#[derive(Clone, Copy)]
pub enum BytesTable {
    Entries,
    Sections,
    SectionHistory,
    Files,
    AgentSessions,
}

impl BytesTable {
    fn def(self) -> TableDefinition<'static, &'static str, &'static [u8]> {
        match self {
            BytesTable::Entries => ENTRIES,
            BytesTable::Sections => SECTIONS,
            BytesTable::SectionHistory => SECTION_HISTORY,
            BytesTable::Files => FILES,
            BytesTable::AgentSessions => AGENT_SESSIONS,
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

/// The same read code for both transaction types (their table types differ).
macro_rules! impl_reader {
    ($ty:ty) => {
        impl Reader for $ty {
            fn path(&self) -> &Path {
                &self.path
            }
            fn raw_meta(&self, key: &str) -> Result<Option<u64>> {
                if let Some(v) = self.cached_meta(key) {
                    return Ok(Some(v));
                }
                let Some(t) = self.table(META)? else {
                    return Ok(None);
                };
                Ok(t.get(key).map_err(|e| self.err(&e))?.map(|g| g.value()))
            }
            fn raw_get(&self, table: BytesTable, key: &str) -> Result<Option<Vec<u8>>> {
                let Some(t) = self.table(table.def())? else {
                    return Ok(None);
                };
                Ok(t.get(key)
                    .map_err(|e| self.err(&e))?
                    .map(|g| g.value().to_vec()))
            }
            fn raw_scan(&self, table: BytesTable, prefix: &str) -> Result<Vec<Vec<u8>>> {
                let Some(t) = self.table(table.def())? else {
                    return Ok(Vec::new());
                };
                let mut out = Vec::new();
                for item in t.range::<&str>(prefix..).map_err(|e| self.err(&e))? {
                    let (k, v) = item.map_err(|e| self.err(&e))?;
                    if !k.value().starts_with(prefix) {
                        break;
                    }
                    out.push(v.value().to_vec());
                }
                Ok(out)
            }
            fn raw_preamble(&self, key: &str) -> Result<Option<String>> {
                let Some(t) = self.table(PREAMBLES)? else {
                    return Ok(None);
                };
                Ok(t.get(key)
                    .map_err(|e| self.err(&e))?
                    .map(|g| g.value().to_string()))
            }
            fn raw_last(&self, table: LogTable, limit: usize) -> Result<Vec<Vec<u8>>> {
                let Some(t) = self.table(table.def())? else {
                    return Ok(Vec::new());
                };
                let mut out = Vec::new();
                for item in t.iter().map_err(|e| self.err(&e))?.rev().take(limit) {
                    let (_, v) = item.map_err(|e| self.err(&e))?;
                    out.push(v.value().to_vec());
                }
                Ok(out)
            }
            fn raw_changes(&self, after: u64) -> Result<Vec<(u64, String)>> {
                let Some(t) = self.table(CHANGES)? else { return Ok(Vec::new()) };
                let mut out = Vec::new();
                for item in t.range((after + 1)..).map_err(|e| self.err(&e))? {
                    let (k, v) = item.map_err(|e| self.err(&e))?;
                    out.push((k.value(), v.value().to_string()));
                }
                Ok(out)
            }
            fn raw_scan_file(
                &self,
                file: FileKind,
                skip: usize,
                visit: &mut dyn FnMut(EntryRecord) -> Result<bool>,
            ) -> Result<()> {
                let Some(order) = self.table(ORDER)? else {
                    return Ok(());
                };
                let Some(entries) = self.table(ENTRIES)? else {
                    return Ok(());
                };
                let lo = [file.code()];
                let hi = [file.code() + 1];
                let range = order.range::<&[u8]>(&lo[..]..&hi[..]).map_err(|e| self.err(&e))?;
                for item in range.rev().skip(skip) {
                    let (_, id) = item.map_err(|e| self.err(&e))?;
                    let id = id.value();
                    let raw = entries.get(id).map_err(|e| self.err(&e))?.ok_or_else(|| {
                        self.err(&format!(
                            "order index names a missing entry {id}; delete .trilogy/ to rebuild from the Markdown"
                        ))
                    })?;
                    if !visit(decode(raw.value())?)? {
                        break;
                    }
                }
                Ok(())
            }
        }
    };
}

/// A read snapshot.
pub struct ReadTx {
    txn: ReadTransaction,
    path: PathBuf,
}

impl ReadTx {
    fn table<K: redb::Key + 'static, V: redb::Value + 'static>(
        &self,
        def: TableDefinition<K, V>,
    ) -> Result<Option<redb::ReadOnlyTable<K, V>>> {
        match self.txn.open_table(def) {
            Ok(t) => Ok(Some(t)),
            Err(redb::TableError::TableDoesNotExist(_)) => Ok(None),
            Err(e) => Err(store_err(&self.path, e)),
        }
    }
}

impl ReadTx {
    fn cached_meta(&self, _key: &str) -> Option<u64> {
        None
    }
}

impl_reader!(ReadTx);

/// The one write transaction. Dropping it without [`WriteTx::commit`] aborts.
pub struct WriteTx {
    txn: WriteTransaction,
    path: PathBuf,
    /// Counters written in this transaction, flushed to `meta` at commit (bulk imports bump
    /// them once per entry).
    meta_cache: std::cell::RefCell<std::collections::BTreeMap<String, u64>>,
    /// The layout was migrated: the transaction must commit even if nothing else changes.
    migrated: std::cell::Cell<bool>,
}

impl WriteTx {
    fn table<K: redb::Key + 'static, V: redb::Value + 'static>(
        &self,
        def: TableDefinition<K, V>,
    ) -> Result<Option<redb::Table<'_, K, V>>> {
        self.txn
            .open_table(def)
            .map(Some)
            .map_err(|e| store_err(&self.path, e))
    }
}

impl WriteTx {
    fn cached_meta(&self, key: &str) -> Option<u64> {
        self.meta_cache.borrow().get(key).copied()
    }
}

impl_reader!(WriteTx);

impl WriteTx {
    fn w<E: std::fmt::Display>(&self) -> impl Fn(E) -> Error + '_ {
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

    fn note_change(&self, what: &str) -> Result<()> {
        let seq = self.bump("change_seq", 1)?;
        let mut t = self.txn.open_table(CHANGES).map_err(self.w())?;
        t.insert(seq, what).map_err(self.w())?;
        Ok(())
    }

    /// Insert or update an entry, keeping the render order and the per-file counts in step.
    pub fn put_entry(&self, rec: &EntryRecord) -> Result<()> {
        let old = self.entry(&rec.id)?;
        self.put_entry_over(rec, old)
    }

    /// [`WriteTx::put_entry`] when the caller already holds the stored record (`old`).
    pub fn put_entry_over(&self, rec: &EntryRecord, old: Option<EntryRecord>) -> Result<()> {
        self.note_change(&format!("e:{}", rec.id))?;
        {
            let mut order = self.txn.open_table(ORDER).map_err(self.w())?;
            if let Some(old) = &old
                && let Some(f) = old.file()
            {
                order
                    .remove(&order_key(f, old.sort_date, old.seq)[..])
                    .map_err(self.w())?;
            }
            if let Some(f) = rec.file() {
                order
                    .insert(&order_key(f, rec.sort_date, rec.seq)[..], rec.id.as_str())
                    .map_err(self.w())?;
            }
        }
        if old.is_none() {
            self.bump("count:total", 1)?;
        }
        if let Some(f) = old.as_ref().and_then(|o| o.file()) {
            self.bump(&count_key(f), -1)?;
        }
        if let Some(f) = rec.file() {
            self.bump(&count_key(f), 1)?;
        }
        let was_live = old.as_ref().is_some_and(live_decision);
        if was_live != live_decision(rec) {
            self.bump(LIVE_DECISIONS, if was_live { -1 } else { 1 })?;
        }
        let bytes = encode(rec)?;
        let mut t = self.txn.open_table(ENTRIES).map_err(self.w())?;
        t.insert(rec.id.as_str(), bytes.as_slice())
            .map_err(self.w())?;
        Ok(())
    }

    /// Write a section; a changed body or heading becomes a new revision in the history.
    pub fn put_section(&self, rec: &SectionRecord, at: &str, actor: &str) -> Result<()> {
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
        let hk = format!("{}\u{0}{:020}", rec.key, rec.revision);
        let bytes = encode(&rev)?;
        let mut h = self.txn.open_table(SECTION_HISTORY).map_err(self.w())?;
        h.insert(hk.as_str(), bytes.as_slice()).map_err(self.w())?;
        Ok(())
    }

    pub fn set_preamble(&self, file: FileKind, text: &str) -> Result<()> {
        let mut t = self.txn.open_table(PREAMBLES).map_err(self.w())?;
        t.insert(file.file_name(), text).map_err(self.w())?;
        Ok(())
    }

    pub fn set_stamp(&self, file: FileKind, stamp: &FileStamp) -> Result<()> {
        // the time the stamp was taken (before its I/O), else now
        let now_ms = match stamp.taken_ms {
            0 => std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_millis() as u64),
            taken => taken,
        };
        self.set_meta(&format!("stamped_at:{}", file.code()), now_ms)?;
        let bytes = encode(stamp)?;
        let mut t = self.txn.open_table(FILES).map_err(self.w())?;
        t.insert(file.file_name(), bytes.as_slice())
            .map_err(self.w())?;
        Ok(())
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
        let bytes = encode(r)?;
        let mut t = self.txn.open_table(REPORTS).map_err(self.w())?;
        t.insert(r.seq, bytes.as_slice()).map_err(self.w())?;
        Ok(())
    }

    pub fn put_agent_session(&self, s: &AgentSession) -> Result<()> {
        let bytes = encode(s)?;
        let mut t = self.txn.open_table(AGENT_SESSIONS).map_err(self.w())?;
        t.insert(s.id.as_str(), bytes.as_slice())
            .map_err(self.w())?;
        Ok(())
    }

    /// True when opening the transaction migrated the store (it must be committed).
    pub fn migrated(&self) -> bool {
        self.migrated.get()
    }

    /// Make everything durable. Dropping the transaction instead aborts it.
    pub fn commit(self) -> Result<()> {
        {
            let mut t = self.txn.open_table(META).map_err(self.w())?;
            for (k, v) in self.meta_cache.borrow().iter() {
                t.insert(k.as_str(), *v).map_err(self.w())?;
            }
        }
        let path = self.path.clone();
        self.txn.commit().map_err(|e| store_err(&path, e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{EntryKind, Origin, State};

    fn rec(id: &str, date: &str, seq: u64, state: State) -> EntryRecord {
        EntryRecord {
            id: id.into(),
            kind: EntryKind::Session,
            heading: date.into(),
            body: "x".into(),
            state,
            seq,
            sort_date: NaiveDate::parse_from_str(date, "%Y-%m-%d").unwrap(),
            superseded_by: None,
            replaced_by: None,
            created_at: String::new(),
            actor: "t".into(),
            origin: Origin::default(),
        }
    }

    #[test]
    fn order_index_follows_state_changes_and_counts() {
        let dir = tempfile::tempdir().unwrap();
        let s = Store::open(&dir.path().join("s.redb"), Duration::from_secs(5)).unwrap();
        let w = s.write(Duration::from_secs(1)).unwrap();
        w.put_entry(&rec("a", "2026-01-01", 1, State::Live))
            .unwrap();
        w.put_entry(&rec("b", "2026-01-02", 2, State::Live))
            .unwrap();
        w.put_entry(&rec("c", "2026-01-02", 3, State::Live))
            .unwrap();
        w.put_entry(&rec("a", "2026-01-01", 1, State::Archived))
            .unwrap();
        w.commit().unwrap();
        let r = s.read().unwrap();
        let live: Vec<String> = r
            .file_entries(FileKind::Sessions, 0, 10)
            .unwrap()
            .into_iter()
            .map(|e| e.id)
            .collect();
        assert_eq!(live, ["c", "b"]);
        assert_eq!(r.file_count(FileKind::Sessions).unwrap(), 2);
        assert_eq!(r.file_count(FileKind::Archive).unwrap(), 1);
        assert_eq!(r.meta("schema_version").unwrap(), SCHEMA_VERSION);
    }

    #[test]
    fn second_writer_gets_busy_after_the_deadline() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("s.redb");
        let a = Store::open(&p, Duration::from_secs(5)).unwrap();
        let b = Store::open(&p, Duration::from_secs(5)).unwrap();
        let _held = a.write(Duration::from_secs(1)).unwrap();
        let e = b.write(Duration::from_millis(50)).err().expect("busy");
        assert!(e.to_string().contains("workspace busy"), "{e}");
    }
}
