//! Which copy a save was made from (DESIGN §3, absorb). A program that read a memory file,
//! changed it and wrote it back saves a copy of the version it read, not of the one on disk
//! when it writes: entries recorded in between are missing from its save without its writer
//! ever having seen them. Absorbing such a save as a two-way diff against the store would
//! remove them.
//!
//! So trilogy keeps, per entry file, the recent versions it wrote or read (the store's
//! `versions` table: entry ids and a hash of each entry's rendered block), and merges a save
//! three ways against the version it was most likely made from — the one it shares the most
//! entries with, and of those the one holding the fewest entries it lacks (a save identical
//! to an older version is read as made from that version: keeping data wins a tie). What the
//! save changed relative to that base is taken; entries recorded after it, which its writer
//! never saw, are kept. A writer that says which version it read (the panel) is merged
//! against exactly that one. A save that matches no kept version keeps every entry recorded
//! after the newest entry it holds.
//!
//! PROJECT.md (and USER.md) keeps its versions the same way, as the lines of its sections
//! (`lines`), and a save of it is merged section by section, line by line, against the version
//! chosen by the same rule.
//!
//! Children: `three_way` reads a save against its base, `pair` tells an edited entry from a
//! new one, `lines` gives a version of PROJECT.md its prints and reads them back.

use std::collections::{HashMap, HashSet};

use crate::error::Result;
use crate::model::{EntryRecord, FileKind, Lang};
use crate::store::{Print, Reader, VersionRecord};

use super::Tx;

pub(super) mod lines;
pub(super) mod pair;
mod three_way;

pub(super) use three_way::Kept;

/// Versions kept per file: at least the last this many…
const KEEP: u64 = 64;
/// …and every one of the last hour, up to this many.
const KEEP_MAX: u64 = 512;
const HOUR_MS: u64 = 3_600_000;
/// Every this many versions one is stored whole (the others as deltas).
const WHOLE_EVERY: u64 = 16;

/// The entries of a version: id key → block hash.
pub(super) type Prints = HashMap<u64, u32>;

/// Whether `f`'s versions are kept (the files a person saves; PROJECT.md's, and USER.md's, as
/// the lines of their sections: see `lines`), unless a bench turns the history off to measure
/// what it costs ([`crate::base::fault::versions_off`]).
pub(super) fn kept_for(f: FileKind) -> bool {
    matches!(
        f,
        FileKind::Sessions | FileKind::Decisions | FileKind::Project
    ) && !crate::base::fault::versions_off()
}

/// An entry id as a version stores it.
pub(super) fn id_key(id: &str) -> u64 {
    match (id.len() <= 16)
        .then(|| u64::from_str_radix(id, 16).ok())
        .flatten()
    {
        Some(k) => k,
        None => fnv64(id.as_bytes()),
    }
}

/// A stable hash of an entry's rendered block.
pub(super) fn block_hash(text: &str) -> u32 {
    let h = fnv64(text.as_bytes());
    (h ^ (h >> 32)) as u32
}

fn fnv64(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// The print of a stored entry, as its block renders.
pub(super) fn print_of(rec: &EntryRecord, lang: Lang) -> Print {
    (
        id_key(&rec.id),
        block_hash(&crate::markdown::entry_block(rec, lang).text()),
    )
}

/// A hash of the entries a save holds (by id, in any order).
pub(super) fn set_hash(prints: &Prints) -> u64 {
    let mut ids: Vec<u64> = prints.keys().copied().collect();
    ids.sort_unstable();
    let bytes: Vec<u8> = ids.iter().flat_map(|k| k.to_le_bytes()).collect();
    fnv64(&bytes)
}

fn next_key(f: FileKind) -> String {
    format!("version_next:{}", f.file_name())
}

impl Tx<'_> {
    /// Whether any version of `f` was ever recorded (a store made before its versions were
    /// kept has none).
    pub(super) fn versions_begun(&self, f: FileKind) -> Result<bool> {
        Ok(self.store.meta(&next_key(f))? > 0)
    }
}

/// How a save's base was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum BaseBy {
    /// The version its writer named.
    Named,
    /// The kept version it shares the most with.
    Likeliest,
    /// No kept version fits: the entries up to the newest one it holds.
    NewestHeld,
    /// The newest of the likeliest: the save repeats a deletion trilogy undid and reported.
    Repeated,
    /// An older copy git put back (a checkout or reset of the file, a stash, a merge that
    /// rewound the work tree after failing): the very bytes of a kept version.
    PutBack,
}

/// The version a save is merged against.
pub(super) struct Base {
    pub prints: Prints,
    pub found: BaseBy,
}

/// The kept versions of a file replayed oldest first: `visit(n, record, entries, added,
/// dropped)` sees each version's entries after its record is applied, and stops the replay by
/// answering false. Returns the entries of the version it stopped at (the newest, unstopped).
fn replay(
    records: &[(u64, VersionRecord)],
    mut visit: impl FnMut(u64, &VersionRecord, &Prints, &[Print], &[(u64, u32)]) -> bool,
) -> Prints {
    let mut state: Prints = HashMap::new();
    for (n, rec) in records {
        let mut dropped: Vec<(u64, u32)> = Vec::new();
        if rec.full {
            dropped.extend(state.drain());
        } else {
            for id in &rec.del {
                if let Some(h) = state.remove(id) {
                    dropped.push((*id, h));
                }
            }
        }
        for (id, h) in &rec.add {
            state.insert(*id, *h);
        }
        if !visit(*n, rec, &state, &rec.add, &dropped) {
            break;
        }
    }
    state
}

/// What a file holds now, as the base of a save of it is chosen.
pub(super) enum Held<'a> {
    /// The store's entries of an entry file, in file order.
    Entries(&'a [EntryRecord]),
    /// The prints of the lines of PROJECT.md's sections (see `lines`): lines have no age.
    Lines(&'a Prints),
}

impl Held<'_> {
    /// The keys of what it holds.
    fn keys(&self) -> HashSet<u64> {
        match self {
            Held::Entries(current) => current.iter().map(|e| id_key(&e.id)).collect(),
            Held::Lines(prints) => prints.keys().copied().collect(),
        }
    }

    /// Its prints, of those no newer than the newest the save `theirs` holds (every one with
    /// `None`, and every line: lines have no age).
    fn prints(&self, lang: Lang, theirs: Option<&Prints>) -> Prints {
        match self {
            Held::Entries(current) => {
                let newest = theirs.map_or(u64::MAX, |t| newest_held(current, t));
                (current.iter())
                    .filter(|e| e.seq <= newest)
                    .map(|e| print_of(e, lang))
                    .collect()
            }
            Held::Lines(prints) => (*prints).clone(),
        }
    }

    /// The keys of what is newer than everything the save `theirs` holds.
    fn newer_than(&self, theirs: &Prints) -> Vec<u64> {
        match self {
            Held::Entries(current) => {
                let newest = newest_held(current, theirs);
                (current.iter())
                    .filter(|e| e.seq > newest)
                    .map(|e| id_key(&e.id))
                    .collect()
            }
            Held::Lines(_) => Vec::new(),
        }
    }
}

/// The sequence number of the newest entry of `current` the save holds (0: none).
fn newest_held(current: &[EntryRecord], theirs: &Prints) -> u64 {
    (current.iter())
        .filter(|e| theirs.contains_key(&id_key(&e.id)))
        .map(|e| e.seq)
        .max()
        .unwrap_or(0)
}

/// The kept records, starting at a whole one.
fn usable(mut records: Vec<(u64, VersionRecord)>) -> Vec<(u64, VersionRecord)> {
    match records.iter().position(|(_, r)| r.full) {
        Some(i) => records.split_off(i),
        None => Vec::new(),
    }
}

impl Tx<'_> {
    /// Record that `f` now holds `prints` with bytes hashing to `sha1` (written or read by
    /// this transaction). A version equal to the newest kept one is not recorded again.
    pub(super) fn record_version(
        &mut self,
        f: FileKind,
        sha1: &str,
        prints: Vec<Print>,
    ) -> Result<()> {
        if !kept_for(f) {
            return Ok(());
        }
        let next = self.store.meta(&next_key(f))?;
        // the newest version is replayed from the whole one at or below it (every sixteenth
        // is whole: only a history that lost its start needs reading from its beginning)
        let mut records = self
            .store
            .versions_from(f, (next.saturating_sub(1) / WHOLE_EVERY) * WHOLE_EVERY)?;
        if records.first().is_none_or(|(_, r)| !r.full) {
            records = usable(self.store.versions_from(f, 0)?);
        }
        let newest = replay(&records, |_, _, _, _, _| true);
        let newest_sha = records.last().map(|(_, r)| r.sha1.clone());
        if newest_sha.as_deref() == Some(sha1) {
            return Ok(());
        }
        let now = crate::base::clock::wall_ms();
        let whole = records.is_empty() || next % WHOLE_EVERY == 0;
        let rec = if whole {
            let mut add = prints;
            add.sort_unstable();
            VersionRecord {
                at_ms: now,
                sha1: sha1.to_string(),
                full: true,
                add,
                del: Vec::new(),
            }
        } else {
            let have: Prints = prints.iter().copied().collect();
            let mut add: Vec<Print> = prints
                .into_iter()
                .filter(|(id, h)| newest.get(id) != Some(h))
                .collect();
            add.sort_unstable();
            let mut del: Vec<u64> = (newest.iter())
                .filter(|(id, h)| have.get(id) != Some(h))
                .map(|(id, _)| *id)
                .collect();
            del.sort_unstable();
            VersionRecord {
                at_ms: now,
                sha1: sha1.to_string(),
                full: false,
                add,
                del,
            }
        };
        // keep the last KEEP, and the last hour's up to KEEP_MAX, from a whole version on; the
        // old ones go when a whole one is written
        if whole {
            records = usable(self.store.versions_from(f, 0)?);
        }
        let recent = (records.iter())
            .find(|(_, r)| r.at_ms + HOUR_MS >= now)
            .map_or(next, |(n, _)| *n);
        let from = recent
            .min(next.saturating_sub(KEEP - 1))
            .max(next.saturating_sub(KEEP_MAX - 1));
        let keep_from = match whole {
            true => (records.iter().rev())
                .find(|(n, r)| r.full && *n <= from)
                .map_or(0, |(n, _)| *n),
            false => 0,
        };
        self.store.put_version(f, next, &rec, keep_from)?;
        self.store.set_meta(&next_key(f), next + 1)?;
        self.mark_changed();
        Ok(())
    }

    /// The kept version of `f` whose bytes hash to `sha1`, when a newer one was kept after it
    /// and the version `HEAD` holds (its bytes hashing to `head`) was not: a copy of the file
    /// put back from before what the last commit holds — uncommitted work git rewound — not a
    /// version taken from history on purpose (`git restore --source=HEAD~2`).
    fn put_back(&self, f: FileKind, sha1: &str, head: Option<&str>) -> Result<Option<Base>> {
        if !kept_for(f) {
            return Ok(None);
        }
        let records = usable(self.store.versions_from(f, 0)?);
        let newest = records.last().map(|(n, _)| *n);
        let mut found = None;
        let mut head_after = false;
        replay(&records, |n, rec, state, _, _| {
            if rec.sha1 == sha1 && Some(n) != newest {
                found = Some(state.clone());
                head_after = false;
            } else if found.is_some() && head == Some(rec.sha1.as_str()) {
                head_after = true;
            }
            true
        });
        Ok(found.filter(|_| !head_after).map(|prints| Base {
            prints,
            found: BaseBy::PutBack,
        }))
    }

    /// The kept version a version of `f` git wrote is merged against: an older copy git put
    /// back, neither what the index nor `HEAD` holds, outside a branch switch (see
    /// [`Tx::put_back`]); `None` when git's version is taken as it is.
    pub(super) fn put_back_of_git(&self, f: FileKind) -> Result<Option<Base>> {
        if self.git.switched_from.is_some() {
            return Ok(None);
        }
        let (Some(sha1), Some(root), Ok(path)) = (
            self.files.seen.get(&f).cloned().flatten(),
            self.ws.git(),
            self.ws.memory_file(f),
        ) else {
            return Ok(None);
        };
        let Ok(disk) = std::fs::read(&path) else {
            return Ok(None);
        };
        // what `HEAD` or the index holds is a checkout or reset of the file (or of the branch)
        // a person made, meant as it is
        let head = super::gitop::head_version(root, &path);
        if head.as_deref() == Some(disk.as_slice()) {
            return Ok(None);
        }
        let head = head.map(|b| crate::base::hex::sha1(&b));
        let base = self.put_back(f, &sha1, head.as_deref())?;
        let staged = || super::gitop::staged_version(root, &path, &disk) == Some(true);
        Ok(base.filter(|_| !staged()))
    }

    /// The version the save `theirs` of `f` is merged against: the one named by `named`
    /// (SHA-1 of the bytes its writer read), else the likeliest kept one, else what the file
    /// holds now (`held`) up to the newest entry the save holds. `None` when the named version
    /// is not kept.
    pub(super) fn base_of(
        &self,
        f: FileKind,
        theirs: &Prints,
        held: &Held,
        named: Option<&str>,
    ) -> Result<Option<Base>> {
        let records = match kept_for(f) {
            true => usable(self.store.versions_from(f, 0)?),
            false => Vec::new(),
        };
        if let Some(sha) = named {
            let mut found = None;
            replay(&records, |_, rec, state, _, _| {
                if rec.sha1 == sha {
                    found = Some(state.clone());
                }
                true
            });
            // the very version on disk when this transaction read it, which no version records
            // (a store that only read it, or rebuilt since): the store's entries are its entries
            if found.is_none() && self.files.seen.get(&f).and_then(|s| s.as_deref()) == Some(sha) {
                found = Some(held.prints(self.lang(), None));
            }
            return Ok(found.map(|prints| Base {
                prints,
                found: BaseBy::Named,
            }));
        }
        // what the save lacks counts only while it is in the file: an entry someone removed since
        // is no entry the choice of base could take away
        let live = held.keys();
        // score every kept version in one pass: entries shared with the save, entries it lacks,
        // entries shared block for block
        let (mut shared, mut missing, mut same) = (0i64, 0i64, 0i64);
        let mut scores: Vec<(u64, i64, i64, i64)> = Vec::new();
        replay(&records, |n, rec, _, added, dropped| {
            if rec.full {
                (shared, missing, same) = (0, 0, 0);
            }
            for (id, h) in dropped.iter().filter(|_| !rec.full) {
                match theirs.get(id) {
                    Some(t) => {
                        shared -= 1;
                        same -= i64::from(t == h);
                    }
                    None => missing -= i64::from(live.contains(id)),
                }
            }
            for (id, h) in added {
                match theirs.get(id) {
                    Some(t) => {
                        shared += 1;
                        same += i64::from(t == h);
                    }
                    None => missing += i64::from(live.contains(id)),
                }
            }
            scores.push((n, shared, missing, same));
            true
        });
        let top = scores.iter().map(|s| s.1).max().unwrap_or(0);
        let ties: Vec<&(u64, i64, i64, i64)> = scores.iter().filter(|s| s.1 == top).collect();
        // of those sharing the most, the one lacking the fewest entries keeps the most; then the
        // one whose blocks match, then the oldest (keeping data wins a tie)
        let likeliest = (ties.iter())
            .max_by_key(|(n, _, missing, same)| {
                // lines have no age: of versions alike, the newest knows the most about what
                // the save's writer changed (a line since changed by someone else is a clash)
                let age = match held {
                    Held::Entries(_) => std::cmp::Reverse(*n),
                    Held::Lines(_) => std::cmp::Reverse(u64::MAX - *n),
                };
                (-missing, *same, age)
            })
            .map(|s| (s.0, s.2));
        let oldest = records.first().map(|(n, _)| *n);
        let complete = oldest == Some(0);
        let chosen = likeliest.filter(|(n, missing)| {
            // the oldest kept version, when older ones are gone, may stand for one of those
            top > 0 && (complete || Some(*n) != oldest || *missing == 0)
        });
        if let Some((at, _)) = chosen {
            let newest = ties.iter().map(|s| s.0).max().unwrap_or(at);
            let mut prints = HashMap::new();
            let latest = replay(&records, |n, _, state, _, _| {
                if n == at {
                    prints = state.clone();
                }
                n != newest
            });
            // what taking the newest of them would remove: when trilogy kept those against the
            // last save, and this one holds the very same entries, it is that deletion made
            // again after trilogy said it kept them, and it is honoured
            let again: Vec<u64> = (latest.keys())
                .filter(|k| !prints.contains_key(k) && !theirs.contains_key(k))
                .copied()
                .collect();
            let (save, told) = self.store.kept_last(f)?;
            if !again.is_empty()
                && save == set_hash(theirs)
                && again.iter().all(|k| told.contains(k))
            {
                return Ok(Some(Base {
                    prints: latest,
                    found: BaseBy::Repeated,
                }));
            }
            // older versions are gone: the save may have been made from one of them, so of the
            // entries the chosen one holds, those newer than every entry the save holds stay
            if !complete {
                for k in held.newer_than(theirs) {
                    prints.remove(&k);
                }
            }
            return Ok(Some(Base {
                prints,
                found: BaseBy::Likeliest,
            }));
        }
        Ok(Some(Base {
            prints: held.prints(self.lang(), Some(theirs)),
            found: BaseBy::NewestHeld,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workspace::Workspace;

    fn workspace() -> (tempfile::TempDir, Workspace) {
        crate::workspace::scratch()
    }

    #[test]
    fn versions_are_kept_as_deltas_from_whole_ones_and_the_old_ones_go() {
        let (_dir, ws) = workspace();
        let f = FileKind::Decisions;
        ws.write("cli", |tx| {
            let base = tx.store.meta(&next_key(f))?;
            // version k holds entries 0..=k, entry 3's block changed from version 10 on
            for k in 0..700u64 {
                let prints: Vec<Print> = (0..=k)
                    .map(|i| (i, if i == 3 && k >= 10 { 7 } else { 1 }))
                    .collect();
                tx.record_version(f, &format!("{k:040}"), prints)?;
            }
            // the same bytes again are not a new version
            tx.record_version(f, &format!("{:040}", 699), Vec::new())?;
            assert_eq!(tx.store.meta(&next_key(f))?, base + 700);
            let records = tx.store.versions_from(f, 0)?;
            assert!(
                records.len() as u64 <= KEEP_MAX + WHOLE_EVERY,
                "{}",
                records.len()
            );
            assert!(records[0].1.full);
            let deltas = records.iter().filter(|(_, r)| !r.full).count();
            assert!(deltas > records.len() * 3 / 4);
            // every kept version replays to what was recorded
            replay(&records, |n, _, state, _, _| {
                let k = n - base;
                assert_eq!(state.len() as u64, k + 1, "version {n}");
                assert_eq!(
                    state.get(&3).copied(),
                    (k >= 3).then_some(if k >= 10 { 7 } else { 1 })
                );
                true
            });
            Ok(())
        })
        .unwrap();
    }

    #[test]
    fn the_likeliest_base_shares_the_most_and_lacks_the_fewest() {
        let (_dir, ws) = workspace();
        let f = FileKind::Sessions;
        ws.write("cli", |tx| {
            for k in 1..=5u64 {
                let prints: Vec<Print> = (1..=k).map(|i| (i, 1)).collect();
                tx.record_version(f, &format!("{k:040}"), prints)?;
            }
            // a copy of version 2 with an entry of its own: based on version 2
            let theirs: Prints = [(1, 1), (2, 1), (99, 1)].into_iter().collect();
            let b = tx.base_of(f, &theirs, &Held::Entries(&[]), None)?.unwrap();
            assert_eq!(b.found, BaseBy::Likeliest);
            let mut ids: Vec<u64> = b.prints.keys().copied().collect();
            ids.sort();
            assert_eq!(ids, vec![1, 2]);
            // a copy of version 5 less entry 2: based on version 5
            let theirs: Prints = [(1, 1), (3, 1), (4, 1), (5, 1)].into_iter().collect();
            let b = tx.base_of(f, &theirs, &Held::Entries(&[]), None)?.unwrap();
            assert_eq!(b.prints.len(), 5);
            // a named version is that one, or none
            let b = tx
                .base_of(f, &theirs, &Held::Entries(&[]), Some(&format!("{:040}", 3)))?
                .unwrap();
            assert_eq!((b.found, b.prints.len()), (BaseBy::Named, 3));
            assert!(
                tx.base_of(f, &theirs, &Held::Entries(&[]), Some(&"f".repeat(40)))?
                    .is_none()
            );
            Ok(())
        })
        .unwrap();
    }
}
