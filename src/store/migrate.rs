//! Layout migrations: bring a store written by an older trilogy to [`SCHEMA_VERSION`], and
//! refuse one written by a newer one.

use chrono::NaiveDate;
use redb::ReadableTable;

use super::tables::{ENTRIES, LIVE_DECISIONS, NEAR, decode_at, encode, near, order_key};
use super::{Reader, SCHEMA_VERSION, WriteTx};
use crate::error::{Error, Result};
use crate::model::{EntryRecord, FileKind};

/// Bring the store to [`SCHEMA_VERSION`]; refuse a store written by a newer trilogy.
pub(super) fn migrate(w: &WriteTx) -> Result<()> {
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
                "the store was written by a newer trilogy (schema {newer}, this one understands {SCHEMA_VERSION}): upgrade trilogy to use it"
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
            if older < 4 {
                fill_near(w)?;
            }
            if older < 5 {
                fill_marks(w)?;
            }
            // 6: a layout's older units may sit in segments of their own (`layout`); a
            // layout written whole before reads as it did, so nothing is rewritten

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

/// Schema 4 keeps the records of the live files' entries beside their order key too.
fn fill_near(w: &WriteTx) -> Result<()> {
    let mut rows = Vec::new();
    for f in FileKind::ALL.into_iter().filter(|f| near(*f)) {
        w.scan_file_by_order(f, &mut |rec| {
            rows.push((order_key(f, rec.sort_date, rec.seq), encode(&rec)?));
            Ok(true)
        })?;
    }
    let mut t = w.txn.open_table(NEAR).map_err(w.w())?;
    for (k, v) in rows {
        t.insert(&k[..], v.as_slice()).map_err(w.w())?;
    }
    Ok(())
}

/// Schema 5 keeps what entries are found by (topics, review days, credentials) as marks.
fn fill_marks(w: &WriteTx) -> Result<()> {
    let mut held = Vec::new();
    for f in [FileKind::Decisions, FileKind::Sessions] {
        w.scan_file_by_order(f, &mut |rec| {
            held.push(rec);
            Ok(true)
        })?;
    }
    for rec in &held {
        w.remark(None, Some(rec))?;
    }
    Ok(())
}

/// Schema 3 keeps a count of live decisions (the injection ledger needs it without reading
/// every decision).
fn count_live_decisions(w: &WriteTx) -> Result<()> {
    let mut n = 0u64;
    w.scan_file_by_order(FileKind::Decisions, &mut |rec| {
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
        let old: V1 = decode_at(&w.path, v.value())?;
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
