//! The version of one memory as a reader saw it, and the check that a change is still made on
//! what they saw. Fixing an entry from the panel, retiring it, restoring it: each names the
//! version it was looking at, and the write refuses with a conflict when the memory changed
//! since (an agent's checkpoint, a hand edit, another panel), instead of overwriting it.
//!
//! An entry's version is its id and state: the id hashes the entry's kind, heading and body,
//! so any change to its text gives it another id, and a change of state (retired,
//! superseded, archived) shows in the state. A version is per entry on purpose: a checkpoint
//! that adds other entries does not make the person's view of this one stale. A section's
//! version is its key and revision. This module only reads; the use cases that check a
//! version write inside the same transaction.

use crate::error::{Error, Result};
use crate::model::{EntryRecord, SectionRecord};
use crate::store::Reader;

/// The version of an entry as a reader saw it.
pub fn entry_version(e: &EntryRecord) -> String {
    format!("e:{}:{}", e.id, e.state.as_str())
}

/// The version of a section as a reader saw it.
pub fn section_version(s: &SectionRecord) -> String {
    format!("s:{}:{}", s.key, s.revision)
}

/// The conflict a stale version meets.
pub(super) fn stale(what: &str, seen: &str, now: &str) -> Error {
    Error::Conflict(format!(
        "{what} changed since it was read (version {seen}, now {now}): nothing was written; read it again and make the change on what it says now"
    ))
}

/// The entry with exactly this id, checked against `version`.
pub(super) fn current(r: &dyn Reader, id: &str, version: &str) -> Result<EntryRecord> {
    let rec = r.entry(id.trim())?.ok_or_else(|| {
        Error::NotFound(format!(
            "no entry with id `{}`; `trilogy log` lists ids",
            id.trim()
        ))
    })?;
    let now = entry_version(&rec);
    if version != now {
        return Err(stale(
            &format!("entry {} ({})", rec.id, rec.heading),
            version,
            &now,
        ));
    }
    Ok(rec)
}

/// Refuse with a conflict when entry `id` is no longer as `version` saw it (the retire and
/// restore paths call this inside their own transactions).
pub fn check_entry(r: &dyn Reader, id: &str, version: Option<&str>) -> Result<()> {
    match version {
        Some(v) => current(r, id, v).map(|_| ()),
        None => Ok(()),
    }
}
