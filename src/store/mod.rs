//! The store: the source of truth, in redb. The only module that names redb.
//!
//! Every process opens the database in redb's multi-process mode; writes are serialised by
//! redb's write lock, waited for up to a deadline. Values are bincode-encoded model records.
//! Tables:
//! - `meta`: schema version, sequence counters, per-file entry counts;
//! - `entries`: id → [`EntryRecord`](crate::model::EntryRecord); `order`: (file, date, seq) → id, the render order;
//! - `near`: the same key → the record, for SESSIONS.md and DECISIONS.md (read together);
//! - `sections` / `section_history`: PROJECT.md sections and every revision of them;
//! - `preambles`: text above the first entry of each file;
//! - `files`: stamp of what was last written to (or absorbed from) each file, and the clashes
//!   found in PROJECT.md's sections that may still stand;
//! - `events`: the append-only log; `reports`: `notes` left for the user;
//! - `versions`: the recent versions of SESSIONS.md and DECISIONS.md, as entry ids, and of
//!   PROJECT.md, as the lines of its sections.
//!
//! Layout: `tables` (definitions, keys, encoding), `reader` (reads and the read snapshot),
//! `write` (the write transaction), `bulk` (new entries written in key order), `migrate` (older layouts), `born` (a new store file, made
//! whole before it is published), `damage` (damage told from refusals and from a newer
//! trilogy's file), `salvage` (what a damaged file still gives).

mod born;
mod bulk;
mod damage;
mod layout;
mod migrate;
mod reader;
mod salvage;
mod tables;
mod versions;
mod write;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use redb::{ConcurrencyMode, Database, ReadOnlyDatabase, ReadableDatabase, TransactionError};

use crate::error::{Error, Result};

pub use reader::{BytesTable, LogTable, ReadTx, Reader, ScanStart};
pub use salvage::{Merged, Salvage, salvage, verify};
pub use versions::{Print, VersionRecord};
pub use write::WriteTx;

/// Version of the table layout; bump with a migration in [`migrate`].
pub const SCHEMA_VERSION: u64 = 6;

/// What one handle may keep of the file in memory: pages read, and the pages a write
/// transaction has dirtied (redb writes those beyond half of this to the file before the commit,
/// so a large transaction such as a rebuild from the Markdown does not hold them all). Larger
/// than a 1k store, a fraction of a 100k one (≈ 35 MB).
const CACHE_BYTES: usize = 16 << 20;

/// An open store.
pub struct Store {
    db: Db,
    path: PathBuf,
}

enum Db {
    Rw(Database),
    Ro(ReadOnlyDatabase),
}

/// A store path must be a regular file (or nothing yet): a FIFO or a device there would hang
/// the open.
fn regular_or_absent(path: &Path) -> Result<()> {
    match std::fs::metadata(path) {
        Ok(m) if !m.is_file() => Err(Error::Io {
            path: path.to_path_buf(),
            message: "the store is not a regular file (a FIFO, a device or a folder); move it aside and run `trilogy doctor --fix`".into(),
        }),
        _ => Ok(()),
    }
}

/// How every handle opens the store: multi-process, with [`CACHE_BYTES`] of cache.
fn builder() -> redb::Builder {
    let mut b = Database::builder();
    b.set_concurrency_mode(ConcurrencyMode::MultiWriter)
        .set_cache_size(CACHE_BYTES);
    b
}

/// The least time an open of the store is given, whatever the lock timeout says.
const OPEN_FLOOR: Duration = Duration::from_secs(1);

impl Store {
    /// Open for reading and writing, creating the store whole when missing (see [`born`]);
    /// waits at most `timeout` when another process is inside a write transaction. The open
    /// itself is given at least [`OPEN_FLOOR`]: a timeout of zero means "do not wait for
    /// others", not "fail at once".
    pub fn open(path: &Path, timeout: Duration) -> Result<Store> {
        regular_or_absent(path)?;
        let timeout = timeout.max(OPEN_FLOOR);
        let (tx, rx) = std::sync::mpsc::channel();
        let p = path.to_path_buf();
        std::thread::spawn(move || {
            let r = damage::guard(&p, || born::open_or_create(&p, &builder));
            let _ = tx.send(r);
        });
        match rx.recv_timeout(timeout) {
            Ok(Ok(db)) => Ok(Store {
                db: Db::Rw(db),
                path: path.to_path_buf(),
            }),
            Ok(Err(e)) => Err(e),
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => Err(Error::Internal(format!(
                "opening {} ended without an answer",
                path.display()
            ))),
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => Err(Error::Busy {
                path: path.to_path_buf(),
                waited_ms: timeout.as_millis() as u64,
            }),
        }
    }

    /// Open an existing store read-only: never blocked by writers, follows their commits.
    pub fn open_read_only(path: &Path) -> Result<Store> {
        regular_or_absent(path)?;
        if let Some(detail) = damage::cut_short(path) {
            return Err(damage::damaged(path, detail));
        }
        let db = damage::guard(path, || {
            builder()
                .open_read_only(path)
                .map_err(|e| store_err(path, e))
        })?;
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
        let txn = damage::guard(&self.path, || {
            match &self.db {
                Db::Rw(db) => db.begin_read(),
                Db::Ro(db) => db.begin_read(),
            }
            .map_err(|e| store_err(&self.path, e))
        })?;
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
            match damage::guard(&self.path, || Ok(db.try_begin_write()))? {
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
            new_entries: Default::default(),
        };
        damage::guard(&self.path, || migrate::migrate(&w))?;
        Ok(w)
    }
}

/// What a newer trilogy's store file says of itself, when the store file at `path` is one:
/// a later file format than this trilogy reads. (A later table layout is found by the first
/// write, see [`migrate`].) Such a store is never damage: it is for the newer trilogy.
pub fn newer_format(path: &Path) -> Option<String> {
    damage::newer_format(path).map(|v| {
        format!(
            "the store was written by a newer trilogy (file format {v}, this one reads {})",
            damage::FORMAT
        )
    })
}

/// Whether another handle (in this or another process) has the store file at `path` open:
/// such a store is in use, and never set aside. Every handle on a redb store holds a record
/// lock on it while it is open (this process must hold none on it).
pub fn held_open(path: &Path) -> bool {
    crate::base::lock::held_elsewhere(path)
}

fn store_err(path: &Path, e: impl std::fmt::Display) -> Error {
    let msg = e.to_string();
    if damage::is_damage(&msg) {
        if let Some(newer) = newer_format(path) {
            return Error::Store {
                path: path.to_path_buf(),
                message: format!("{newer}: upgrade trilogy to use it"),
            };
        }
        return damage::damaged(path, msg);
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::NaiveDate;

    use crate::model::{EntryKind, EntryRecord, FileKind, Origin, State};

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
    fn dates_after_reads_the_render_order_newest_first() {
        let dir = tempfile::tempdir().unwrap();
        let s = Store::open(&dir.path().join("s.redb"), Duration::from_secs(5)).unwrap();
        let w = s.write(Duration::from_secs(1)).unwrap();
        for (id, date, seq) in [
            ("a", "1999-12-31", 1),
            ("b", "2026-01-01", 2),
            ("c", "2026-01-03", 3),
            ("d", "2026-01-03", 4),
        ] {
            w.put_entry(&rec(id, date, seq, State::Live)).unwrap();
        }
        w.put_entry(&rec("e", "2027-01-01", 5, State::Archived))
            .unwrap();
        w.commit().unwrap();
        let r = s.read().unwrap();
        let day = |d: &str| NaiveDate::parse_from_str(d, "%Y-%m-%d").unwrap();
        let newest = Some(day("2026-01-03"));
        assert_eq!(
            r.dates_after(FileKind::Sessions, day("2026-01-01"))
                .unwrap(),
            (newest, 2)
        );
        assert_eq!(
            r.dates_after(FileKind::Sessions, day("1900-01-01"))
                .unwrap(),
            (newest, 4)
        );
        assert_eq!(
            r.dates_after(FileKind::Sessions, day("2030-01-01"))
                .unwrap(),
            (newest, 0)
        );
        assert_eq!(
            r.dates_after(FileKind::Decisions, day("2000-01-01"))
                .unwrap(),
            (None, 0)
        );
    }

    #[test]
    fn many_new_entries_in_one_transaction_are_all_stored_whatever_their_id_order() {
        let dir = tempfile::tempdir().unwrap();
        let s = Store::open(&dir.path().join("s.redb"), Duration::from_secs(5)).unwrap();
        let w = s.write(Duration::from_secs(1)).unwrap();
        // ids scrambled, records large enough that they go through runs on disk
        let n: u64 = 24_000;
        let id = |k: u64| format!("{:016x}", k.wrapping_mul(0x9e37_79b9_7f4a_7c15));
        let body = "b".repeat(400);
        for k in 0..n {
            let mut r = rec(&id(k), "2026-01-01", k + 1, State::Archived);
            r.body = format!("{k} {body}");
            w.put_entry_over(&r, None).unwrap();
            if k == n / 2 {
                // a read in the middle sees what was put before it
                assert_eq!(w.entry(&id(3)).unwrap().unwrap().seq, 4);
            }
        }
        // a put over a new entry still waiting replaces it
        let mut again = rec(&id(n - 1), "2026-01-01", n, State::Live);
        again.body = "changed".into();
        w.put_entry(&again).unwrap();
        w.commit().unwrap();
        let r = s.read().unwrap();
        assert_eq!(r.file_count(FileKind::Archive).unwrap(), n - 1);
        assert_eq!(r.file_count(FileKind::Sessions).unwrap(), 1);
        assert_eq!(r.meta("count:total").unwrap(), n);
        let mut seen: Vec<String> = Vec::new();
        r.scan_entries(&mut |e| {
            let k = e.seq - 1;
            assert_eq!(e.id, id(k));
            if k == n - 1 {
                assert_eq!(e.body, "changed");
            } else {
                assert_eq!(e.body, format!("{k} {body}"));
            }
            seen.push(e.id);
            Ok(true)
        })
        .unwrap();
        assert_eq!(seen.len() as u64, n);
        assert!(seen.windows(2).all(|w| w[0] < w[1]), "in id order");
        let archived = r.file_entries(FileKind::Archive, 0, 3).unwrap();
        assert_eq!(
            archived.iter().map(|e| e.seq).collect::<Vec<_>>(),
            [n - 1, n - 2, n - 3]
        );
        // nothing is left beside the store once committed
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(left.len(), 1, "{left:?}");
    }

    #[test]
    fn a_panicking_visitor_is_a_bug_not_damage() {
        let dir = tempfile::tempdir().unwrap();
        let s = Store::open(&dir.path().join("s.redb"), Duration::from_secs(5)).unwrap();
        let w = s.write(Duration::from_secs(1)).unwrap();
        w.put_entry(&rec("a", "2026-01-01", 1, State::Live))
            .unwrap();
        w.commit().unwrap();
        let r = s.read().unwrap();
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            r.scan_file(FileKind::Sessions, 0, &mut |_| {
                panic!("a bug in the visitor")
            })
        }));
        assert!(
            caught.is_err(),
            "the panic went through, not turned into an error"
        );
        // and the store reads on
        assert_eq!(r.file_entries(FileKind::Sessions, 0, 10).unwrap().len(), 1);
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

    #[test]
    fn a_scan_from_an_entry_starts_there_in_either_file_and_refuses_one_gone() {
        let dir = tempfile::tempdir().unwrap();
        let s = Store::open(&dir.path().join("s.redb"), Duration::from_secs(5)).unwrap();
        let w = s.write(Duration::from_secs(1)).unwrap();
        for (id, date, seq, state) in [
            ("a", "2026-01-01", 1, State::Live),
            ("b", "2026-01-02", 2, State::Live),
            ("c", "2026-01-02", 3, State::Live),
            ("d", "2026-01-03", 4, State::Live),
            ("p", "2025-01-01", 5, State::Archived),
            ("q", "2025-01-02", 6, State::Archived),
            ("r", "2025-01-03", 7, State::Archived),
        ] {
            w.put_entry(&rec(id, date, seq, state)).unwrap();
        }
        w.commit().unwrap();
        let r = s.read().unwrap();
        let from = |file: FileKind, id: &str, most: usize| {
            let mut seen = Vec::new();
            let found = r
                .scan_file_from(file, id, &mut |e| {
                    seen.push(e.id);
                    Ok(seen.len() < most)
                })
                .unwrap();
            (found, seen)
        };
        assert_eq!(
            from(FileKind::Sessions, "c", 9),
            (true, vec!["c".into(), "b".into(), "a".into()])
        );
        assert_eq!(
            from(FileKind::Sessions, "d", 2),
            (true, vec!["d".into(), "c".into()])
        );
        assert_eq!(
            from(FileKind::Archive, "q", 9),
            (true, vec!["q".into(), "p".into()])
        );
        // an entry of another file, and one the store never had
        assert_eq!(from(FileKind::Sessions, "q", 9), (false, vec![]));
        assert_eq!(from(FileKind::Archive, "zz", 9), (false, vec![]));
    }
}
