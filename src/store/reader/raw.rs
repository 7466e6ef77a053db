//! The read code of both transaction types, written once (their table types differ): each
//! `raw_*` method of [`Reader`] over redb's tables, and the read snapshot [`ReadTx`].

use std::path::{Path, PathBuf};

use chrono::NaiveDate;
use redb::{ReadTransaction, ReadableTable, TableDefinition};

use super::super::tables::{
    CHANGES, ENTRIES, MARKS, META, NEAR, ORDER, PREAMBLES, decode_at, near, order_key_date,
};
use super::super::write::WriteTx;
use super::super::{damage, store_err};
use super::{BytesTable, LogTable, Reader, ScanStart};
use crate::error::Result;
use crate::model::{EntryRecord, FileKind};

/// The same read code for both transaction types (their table types differ).
macro_rules! impl_reader {
    ($ty:ty) => {
        impl Reader for $ty {
            fn path(&self) -> &Path {
                &self.path
            }
            fn raw_meta(&self, key: &str) -> Result<Option<u64>> {
                damage::guard(&self.path, || {
                    if let Some(v) = self.cached_meta(key) {
                        return Ok(Some(v));
                    }
                    let Some(t) = self.table(META)? else {
                        return Ok(None);
                    };
                    Ok(t.get(key).map_err(|e| self.err(&e))?.map(|g| g.value()))
                })
            }
            fn raw_get(&self, table: BytesTable, key: &str) -> Result<Option<Vec<u8>>> {
                damage::guard(&self.path, || {
                    let Some(t) = self.table(table.def())? else {
                        return Ok(None);
                    };
                    Ok(t.get(key)
                        .map_err(|e| self.err(&e))?
                        .map(|g| g.value().to_vec()))
                })
            }
            fn raw_marks(&self, prefix: &str) -> Result<Vec<String>> {
                damage::guard(&self.path, || {
                    let Some(t) = self.table(MARKS)? else {
                        return Ok(Vec::new());
                    };
                    let mut out = Vec::new();
                    for item in t.range::<&str>(prefix..).map_err(|e| self.err(&e))? {
                        let (k, _) = item.map_err(|e| self.err(&e))?;
                        let Some(rest) = k.value().strip_prefix(prefix) else {
                            break;
                        };
                        out.push(rest.to_string());
                    }
                    Ok(out)
                })
            }
            fn raw_scan_each(
                &self,
                table: BytesTable,
                prefix: &str,
                visit: &mut dyn FnMut(&[u8]) -> Result<bool>,
            ) -> Result<()> {
                let mut escaped = None;
                let scanned = damage::guard(&self.path, || {
                    let Some(t) = self.table(table.def())? else {
                        return Ok(());
                    };
                    for item in t.range::<&str>(prefix..).map_err(|e| self.err(&e))? {
                        let (k, v) = item.map_err(|e| self.err(&e))?;
                        if !k.value().starts_with(prefix) {
                            break;
                        }
                        // the visitor is trilogy's code: its panics are bugs, not damage
                        match damage::unguarded(|| visit(v.value())) {
                            Ok(Ok(true)) => {}
                            Ok(Ok(false)) => break,
                            Ok(Err(e)) => return Err(e),
                            Err(panic) => {
                                escaped = Some(panic);
                                break;
                            }
                        }
                    }
                    Ok(())
                });
                damage::resume(escaped);
                scanned
            }
            fn raw_preamble(&self, key: &str) -> Result<Option<String>> {
                damage::guard(&self.path, || {
                    let Some(t) = self.table(PREAMBLES)? else {
                        return Ok(None);
                    };
                    Ok(t.get(key)
                        .map_err(|e| self.err(&e))?
                        .map(|g| g.value().to_string()))
                })
            }
            fn raw_last(&self, table: LogTable, limit: usize) -> Result<Vec<Vec<u8>>> {
                damage::guard(&self.path, || {
                    let Some(t) = self.table(table.def())? else {
                        return Ok(Vec::new());
                    };
                    let mut out = Vec::new();
                    for item in t.iter().map_err(|e| self.err(&e))?.rev().take(limit) {
                        let (_, v) = item.map_err(|e| self.err(&e))?;
                        out.push(v.value().to_vec());
                    }
                    Ok(out)
                })
            }
            fn raw_changes(&self, after: u64) -> Result<Vec<(u64, String)>> {
                damage::guard(&self.path, || {
                    let Some(t) = self.table(CHANGES)? else {
                        return Ok(Vec::new());
                    };
                    let mut out = Vec::new();
                    for item in t.range((after + 1)..).map_err(|e| self.err(&e))? {
                        let (k, v) = item.map_err(|e| self.err(&e))?;
                        out.push((k.value(), v.value().to_string()));
                    }
                    Ok(out)
                })
            }
            fn raw_dates_after(
                &self,
                file: FileKind,
                after: NaiveDate,
            ) -> Result<(Option<NaiveDate>, usize)> {
                damage::guard(&self.path, || {
                    let Some(order) = self.table(ORDER)? else {
                        return Ok((None, 0));
                    };
                    let lo = [file.code()];
                    let hi = [file.code() + 1];
                    let range = order
                        .range::<&[u8]>(&lo[..]..&hi[..])
                        .map_err(|e| self.err(&e))?;
                    let (mut newest, mut n) = (None, 0);
                    for item in range.rev() {
                        let (k, _) = item.map_err(|e| self.err(&e))?;
                        let Some(d) = order_key_date(k.value()) else {
                            continue;
                        };
                        newest = newest.max(Some(d));
                        if d <= after {
                            break;
                        }
                        n += 1;
                    }
                    Ok((newest, n))
                })
            }
            fn raw_scan_file(
                &self,
                file: FileKind,
                start: ScanStart<'_>,
                through_near: bool,
                visit: &mut dyn FnMut(EntryRecord) -> Result<bool>,
            ) -> Result<()> {
                use std::ops::Bound;
                let mut escaped = None;
                let scanned = damage::guard(&self.path, || {
                    let lo = [file.code()];
                    let hi = [file.code() + 1];
                    // newest first: from the top of the file, or from one entry's key down
                    let (top, skip) = match start {
                        ScanStart::Skip(n) => (Bound::Excluded(&hi[..]), n),
                        ScanStart::At(k) => (Bound::Included(k), 0),
                    };
                    let bounds = (Bound::Included(&lo[..]), top);
                    // the visitor is trilogy's code: its panics are bugs, not damage
                    let mut step = |rec: EntryRecord| match damage::unguarded(|| visit(rec)) {
                        Ok(more) => more,
                        Err(panic) => {
                            escaped = Some(panic);
                            Ok(false)
                        }
                    };
                    // from schema 4 the live files' records are kept in file order, together
                    if through_near
                        && near(file)
                        && self.raw_meta("schema_version")?.unwrap_or(0) >= 4
                    {
                        let Some(t) = self.table(NEAR)? else {
                            return Ok(());
                        };
                        let range = t.range::<&[u8]>(bounds).map_err(|e| self.err(&e))?;
                        for item in range.rev().skip(skip) {
                            let (_, raw) = item.map_err(|e| self.err(&e))?;
                            if !step(decode_at(&self.path, raw.value())?)? {
                                break;
                            }
                        }
                        return Ok(());
                    }
                    let Some(order) = self.table(ORDER)? else {
                        return Ok(());
                    };
                    let Some(entries) = self.table(ENTRIES)? else {
                        return Ok(());
                    };
                    let range = order.range::<&[u8]>(bounds).map_err(|e| self.err(&e))?;
                    for item in range.rev().skip(skip) {
                        let (_, id) = item.map_err(|e| self.err(&e))?;
                        let id = id.value();
                        let raw = entries.get(id).map_err(|e| self.err(&e))?.ok_or_else(|| {
                            damage::damaged(
                                &self.path,
                                format!("the render order names a missing entry {id}"),
                            )
                        })?;
                        if !step(decode_at(&self.path, raw.value())?)? {
                            break;
                        }
                    }
                    Ok(())
                });
                damage::resume(escaped);
                scanned
            }
        }
    };
}

/// A read snapshot.
pub struct ReadTx {
    pub(in crate::store) txn: ReadTransaction,
    pub(in crate::store) path: PathBuf,
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

impl_reader!(WriteTx);
