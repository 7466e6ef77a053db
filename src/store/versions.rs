//! The recent versions of SESSIONS.md and DECISIONS.md as trilogy last wrote or read them: for
//! each, the entries it held (an entry's id and a hash of its rendered block), so a save made
//! from an older copy can be merged against the copy it was made from (DESIGN §3). PROJECT.md's
//! (and USER.md's) are kept the same way, a print per line of its sections (see
//! `workspace::sync::base::lines`).
//!
//! Versions are numbered per file. Every sixteenth is stored whole, the others as the entries
//! added and dropped since the one before, so recording a version of a file with thousands of
//! entries costs a few records, not thousands. A version is read by replaying from the whole
//! one at or below it.

use redb::ReadableTable;
use serde::{Deserialize, Serialize};

use super::tables::{VERSIONS, decode_at, encode};
use super::{WriteTx, damage};
use crate::error::Result;
use crate::model::FileKind;

/// An entry as a version holds it: its id (48 bits) and a hash of its block as rendered.
pub type Print = (u64, u32);

/// One stored version of a file.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct VersionRecord {
    /// When it was written or read (milliseconds since the epoch).
    pub at_ms: u64,
    /// SHA-1 of the file's bytes.
    pub sha1: String,
    /// `add` holds every entry of the version (else the ones added since the one before).
    pub full: bool,
    pub add: Vec<Print>,
    /// Ids dropped since the version before (or whose block changed: dropped and added again).
    pub del: Vec<u64>,
}

fn key(file: FileKind, n: u64) -> [u8; 9] {
    let mut k = [0u8; 9];
    k[0] = file.code();
    k[1..].copy_from_slice(&n.to_be_bytes());
    k
}

/// Where the entries last kept against a save of `file` are stored (beside its versions).
fn kept_key(file: FileKind) -> [u8; 1] {
    [0x80 | file.code()]
}

impl WriteTx {
    /// The entries trilogy last kept against a save of `file` that lacked them: (a hash of the
    /// save's entries, their ids).
    pub fn kept_last(&self, file: FileKind) -> Result<(u64, Vec<u64>)> {
        damage::guard(&self.path, || {
            let t = self.txn.open_table(VERSIONS).map_err(self.w())?;
            match t.get(&kept_key(file)[..]).map_err(self.w())? {
                Some(v) => decode_at(&self.path, v.value()),
                None => Ok((0, Vec::new())),
            }
        })
    }

    /// Remember (or, `ids` empty, forget) the entries kept against the last save of `file`,
    /// whose entries hash to `save`.
    pub fn set_kept_last(&self, file: FileKind, save: u64, ids: &[u64]) -> Result<()> {
        damage::guard(&self.path, || {
            let mut t = self.txn.open_table(VERSIONS).map_err(self.w())?;
            if ids.is_empty() {
                t.remove(&kept_key(file)[..]).map_err(self.w())?;
            } else {
                let bytes = encode(&(save, ids.to_vec()))?;
                t.insert(&kept_key(file)[..], bytes.as_slice())
                    .map_err(self.w())?;
            }
            Ok(())
        })
    }

    /// The stored versions of `file` numbered `from` or more, oldest first.
    pub fn versions_from(&self, file: FileKind, from: u64) -> Result<Vec<(u64, VersionRecord)>> {
        damage::guard(&self.path, || {
            let t = self.txn.open_table(VERSIONS).map_err(self.w())?;
            let lo = key(file, from);
            let hi = key(file, u64::MAX);
            let mut out = Vec::new();
            for row in t.range(&lo[..]..=&hi[..]).map_err(self.w())? {
                let (k, v) = row.map_err(self.w())?;
                let n = u64::from_be_bytes(k.value()[1..9].try_into().unwrap_or_default());
                out.push((n, decode_at(&self.path, v.value())?));
            }
            Ok(out)
        })
    }

    /// Store version `n` of `file`, and drop every version below `keep_from`.
    pub fn put_version(
        &self,
        file: FileKind,
        n: u64,
        rec: &VersionRecord,
        keep_from: u64,
    ) -> Result<()> {
        damage::guard(&self.path, || {
            let bytes = encode(rec)?;
            let mut t = self.txn.open_table(VERSIONS).map_err(self.w())?;
            t.insert(&key(file, n)[..], bytes.as_slice())
                .map_err(self.w())?;
            let lo = key(file, 0);
            let hi = key(file, keep_from);
            let mut old = Vec::new();
            for row in t.range(&lo[..]..&hi[..]).map_err(self.w())? {
                old.push(row.map_err(self.w())?.0.value().to_vec());
            }
            for k in old {
                t.remove(k.as_slice()).map_err(self.w())?;
            }
            Ok(())
        })
    }
}
