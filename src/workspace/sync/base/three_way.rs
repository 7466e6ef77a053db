//! The three-way reading of a save of an entry file: against its base, which entries its
//! writer removed or edited (and into what), which ones it never saw (kept), and — when the
//! writer named its base — whether it changed something that was changed since (a conflict,
//! nothing written).

use std::collections::{HashMap, HashSet};

use super::pair::{Side, Sure, pair};
use super::{Base, BaseBy, Held, Prints, id_key, print_of, set_hash};
use crate::error::{Error, Result};
use crate::model::{EntryRecord, FileKind};
use crate::store::{Print, Reader};

use super::super::Tx;
use super::super::items::Item;

/// What a save of one file means against its base.
pub(in crate::workspace::sync) struct Reading {
    pub base: Option<Base>,
    pub theirs: Prints,
    /// (id, replaced by): entries the writer removed, or edited into another.
    pub gone: Vec<(String, Option<String>)>,
    pub kept: Option<Kept>,
}

/// Entries a save lacked whose writer never saw them: they stay.
pub(in crate::workspace::sync) struct Kept {
    ids: Vec<String>,
    found: BaseBy,
}

impl Tx<'_> {
    /// Read the save `items` (with their `prints`) of `f` against its base; `entries` are the
    /// store's for the file, in file order.
    pub(in crate::workspace::sync) fn found_base(
        &mut self,
        f: FileKind,
        items: &[Item],
        entries: &[EntryRecord],
        prints: &[Print],
    ) -> Result<Reading> {
        let theirs: Prints = prints.iter().copied().collect();
        let mut reading = Reading {
            base: None,
            theirs,
            gone: Vec::new(),
            kept: None,
        };
        // with nothing stored for the file (a fresh import) nothing can have left it
        if entries.is_empty() {
            return Ok(reading);
        }
        let held: HashSet<&str> = items.iter().map(|i| i.id.as_str()).collect();
        let in_file: HashSet<&str> = entries.iter().map(|e| e.id.as_str()).collect();
        // the entries the save added (ones the store has never seen), with the entry above each
        let mut added_sides = Vec::new();
        if entries.iter().any(|e| !held.contains(e.id.as_str())) {
            let mut above = None;
            for i in items {
                if in_file.contains(i.id.as_str()) {
                    above = Some(i.id.as_str());
                } else if self.store.entry(&i.id)?.is_none() {
                    added_sides.push(Side {
                        id: &i.id,
                        heading: &i.heading,
                        body: &i.body,
                        above,
                    });
                }
            }
        }
        let sides = |keep: &dyn Fn(&EntryRecord) -> bool| {
            let mut above = None;
            let mut out = Vec::new();
            for e in entries {
                if held.contains(e.id.as_str()) {
                    above = Some(e.id.as_str());
                } else if keep(e) {
                    out.push(Side {
                        id: &e.id,
                        heading: &e.heading,
                        body: &e.body,
                        above,
                    });
                }
            }
            out
        };
        let decisions = f == FileKind::Decisions;
        // an entry the save plainly edited was seen by its writer: it counts as held when the
        // base is chosen
        let mut scored = reading.theirs.clone();
        if !self.git.same_as_index.contains(&f) {
            let edited = pair(&sides(&|_| true), &added_sides, Sure::Words, decisions);
            scored.extend(edited.keys().map(|id| (id_key(id), 0)));
        }
        // a version git wrote (or one taken whole on purpose) is meant as it is: every entry
        // it lacks goes, but those git kept from being written. An older copy git put back
        // (outside a branch switch, which has its own rule) is merged against itself: what was
        // recorded after it stays, as with any save made from an old copy
        let base = match self.git.same_as_index.contains(&f) {
            true => self.put_back_of_git(f)?,
            false => {
                let named = self.files.named.get(&f).cloned();
                match self.base_of(f, &scored, &Held::Entries(entries), named.as_deref())? {
                    Some(b) => Some(b),
                    None => {
                        return Err(Error::Conflict(format!(
                            "{}: the copy this save was made from is no longer known to trilogy (it was read too long ago, or changed before trilogy saw it); nothing was saved: read the file again and make the change there",
                            self.ws.file_name(f)
                        )));
                    }
                }
            }
        };
        let pending = self.git.pending.get(&f).copied();
        let mut removed: Vec<&EntryRecord> = Vec::new();
        let mut kept = Vec::new();
        // asked only when a version git wrote lacks an entry (see `overwritten`)
        let mut merge = None;
        for e in entries.iter().filter(|e| !held.contains(e.id.as_str())) {
            let seen = base
                .as_ref()
                .is_none_or(|b| b.prints.contains_key(&id_key(&e.id)));
            let unwritten = pending.is_some_and(|since| e.seq >= since);
            let mut overwritten = || {
                (merge.get_or_insert_with(|| self.last_merge(f)).as_ref())
                    .is_some_and(|m| m.overwrote(e))
            };
            if seen && !unwritten && !overwritten() {
                removed.push(e);
            } else {
                kept.push(e.id.clone());
            }
        }
        if let Some(b) = base.as_ref().filter(|b| b.found == BaseBy::Named) {
            self.check_clashes(f, b, items, entries, &reading.theirs, &removed)?;
        }
        // which removed entries were edited, and into which added one
        let gone_ids: HashSet<&str> = removed.iter().map(|e| e.id.as_str()).collect();
        let removed_sides = sides(&|e| gone_ids.contains(e.id.as_str()));
        let pairs = pair(&removed_sides, &added_sides, Sure::Place, decisions);
        reading.gone = (removed.iter())
            .map(|e| (e.id.clone(), pairs.get(&e.id).cloned()))
            .collect();
        // a deletion made again after trilogy kept what it removed is honoured once: either
        // way, what was kept last is forgotten
        if base.is_some() && kept.is_empty() && !self.store.kept_last(f)?.1.is_empty() {
            self.store.set_kept_last(f, 0, &[])?;
        }
        if !kept.is_empty() {
            let keys: Vec<u64> = kept.iter().map(|id| id_key(id)).collect();
            self.store
                .set_kept_last(f, set_hash(&reading.theirs), &keys)?;
            reading.kept = Some(Kept {
                ids: kept,
                found: base.as_ref().map_or(BaseBy::Likeliest, |b| b.found),
            });
        }
        reading.base = base;
        Ok(reading)
    }

    /// A save against the version its writer named: refused when it removes, edits or marks an
    /// entry that was changed since that version.
    fn check_clashes(
        &self,
        f: FileKind,
        base: &Base,
        items: &[Item],
        entries: &[EntryRecord],
        theirs: &Prints,
        removed: &[&EntryRecord],
    ) -> Result<()> {
        let lang = self.lang();
        let now: HashMap<u64, &EntryRecord> = entries.iter().map(|e| (id_key(&e.id), e)).collect();
        let changed_since = |k: u64| match now.get(&k) {
            Some(e) => base.prints.get(&k) != Some(&print_of(e, lang).1),
            None => true,
        };
        let mut clashes: Vec<&str> = Vec::new();
        for e in removed {
            if changed_since(id_key(&e.id)) {
                clashes.push(&e.heading);
            }
        }
        for i in items {
            let k = id_key(&i.id);
            let marked = base
                .prints
                .get(&k)
                .is_some_and(|b| theirs.get(&k) != Some(b));
            if marked && changed_since(k) {
                clashes.push(&i.heading);
            }
        }
        if clashes.is_empty() {
            return Ok(());
        }
        Err(Error::Conflict(format!(
            "{}: changed by someone else since this copy was read: {}; nothing was saved: read the file again and make the change there",
            self.ws.file_name(f),
            clashes.join("; ")
        )))
    }

    /// Log what a save of `f` left out without having seen it.
    pub(in crate::workspace::sync) fn log_kept(&mut self, f: FileKind, k: &Kept) -> Result<()> {
        let n = k.ids.len();
        let (entries, them) = if n == 1 {
            ("entry", "it")
        } else {
            ("entries", "them")
        };
        let why = match k.found {
            BaseBy::PutBack => {
                " (git put an older copy of the file back: a checkout, reset or stash of it, or a merge that rewound the work tree; edit the file to remove them)"
                    .to_string()
            }
            BaseBy::NewestHeld => {
                " (the save matched no recent version: every entry newer than the newest it holds stays)"
                    .to_string()
            }
            _ => format!(" (a save that lacks {them} again removes {them})"),
        };
        let detail = format!(
            "{n} {entries} in {} recorded after the copy this save was made from{why}",
            self.ws.file_name(f)
        );
        self.log("kept", k.ids.clone(), &detail)?;
        Ok(())
    }
}
