//! A save of PROJECT.md (or USER.md), merged by section and by line against the version it was
//! made from (chosen as for the entry files, see `base`): a section the save did not change
//! keeps what was written into it since; lines the save changed are taken; where the save and
//! another writer changed the same lines differently both are kept and the clash is recorded
//! for `status`. A section the save lacks goes only when its writer saw it as it is now.
//!
//! A save taken as it is — the first import, a version git holds, a text taken whole on
//! purpose — has no base: it is the section's new text.

use std::collections::HashMap;

use crate::error::{Error, Result};
use crate::markdown::{self, line_counts, line_hash, line_hashes, merge_lines, take_line};
use crate::model::{FileKind, SectionClash, SectionRecord, empty_marker, is_empty_body};
use crate::store::{Print, Reader};

use super::Tx;
use super::base::lines::{
    body_lines, edited_lines, lines_in, printed_lines, section_prints, sections_of,
};
use super::base::{Held, Prints, set_hash};
use super::items::keep_readable;

/// Clashes kept for `status` at most (the newest).
const CLASHES_KEPT: usize = 64;

/// The version a save of PROJECT.md was made from, by section: key hash → its lines' hashes.
pub(super) struct SectionBase {
    sections: HashMap<u32, Vec<u32>>,
    /// What the merge kept that the save lacked, and clashes found, in this save.
    kept: Vec<String>,
    clashes: Vec<SectionClash>,
}

impl SectionBase {
    /// Whether the save's writer saw section `cur` as it is now (it may then delete it).
    pub(super) fn saw(&self, cur: &SectionRecord) -> bool {
        let now = line_hashes(&body_lines(&cur.body));
        lines_in(&self.sections, &cur.key) == Some(now.as_slice())
    }

    /// Count `lines` of section `heading` as kept against the save.
    pub(super) fn kept_lines<'a>(&mut self, heading: &str, lines: impl Iterator<Item = &'a str>) {
        self.kept.extend(lines.map(|l| format!("{heading}: {l}")));
    }
}

impl Tx<'_> {
    /// The base a save of PROJECT.md whose sections print as `saved` is merged against;
    /// `None` when the save is taken as it is.
    pub(super) fn section_base(
        &mut self,
        saved: &[(Print, Option<&str>)],
        fresh: bool,
    ) -> Result<Option<SectionBase>> {
        let f = FileKind::Project;
        let sections = self.store.sections()?;
        if fresh || sections.iter().all(|s| s.removed) {
            return Ok(None);
        }
        if self.git.same_as_index.contains(&f) {
            // a version git wrote is taken as it is, but an older copy git put back (a stash, a
            // merge that rewound the work tree), which keeps the lines written after it
            return Ok(self.put_back_of_git(f)?.map(|base| SectionBase {
                sections: sections_of(&base.prints),
                kept: Vec::new(),
                clashes: Vec::new(),
            }));
        }
        let stored = printed_lines(
            (sections.iter())
                .filter(|s| !s.removed)
                .map(|s| (s.key.as_str(), s.body.as_str())),
        );
        let ours: Prints = stored.iter().map(|(p, _)| *p).collect();
        let theirs: Prints = saved.iter().map(|(p, _)| *p).collect();
        // a line the save plainly edited was seen by its writer: held, when the base is chosen
        let mut scored = theirs.clone();
        scored.extend(edited_lines(&stored, saved).into_iter().map(|k| (k, 0)));
        let named = self.files.named.get(&f).cloned();
        let Some(base) = self.base_of(f, &scored, &Held::Lines(&ours), named.as_deref())? else {
            return Err(Error::Conflict(format!(
                "{}: the copy this save was made from is no longer known to trilogy (it was read too long ago, or changed before trilogy saw it); nothing was saved: read the file again and make the change there",
                self.ws.file_name(f)
            )));
        };
        // what this save lacks of the store's lines: when trilogy keeps some of them, the same
        // save made again is a deletion meant (see `base_of`)
        let lacked: Vec<u64> = (ours.keys())
            .filter(|k| !theirs.contains_key(k))
            .copied()
            .collect();
        self.files.section_save = Some((set_hash(&theirs), lacked));
        Ok(Some(SectionBase {
            sections: sections_of(&base.prints),
            kept: Vec::new(),
            clashes: Vec::new(),
        }))
    }

    /// A store that has kept no version of PROJECT.md yet (made before they were kept) keeps
    /// the one on disk now, untouched since trilogy wrote it, before anything changes it: an
    /// editor may hold a copy of it, and its save is then merged against it.
    pub(super) fn begin_section_versions(&mut self) -> Result<()> {
        let f = FileKind::Project;
        // the file must be the store's own rendering: not read in this transaction (it
        // changed), not broken, not owed a write
        let changed = self.files.stamps.contains_key(&f)
            || self.files.broken.contains_key(&f)
            || self.files.deferred.contains(&f)
            || self.git.pending.contains_key(&f);
        if changed || !super::base::kept_for(f) || self.versions_begun(f)? {
            return Ok(());
        }
        let Some(Some(sha1)) = self.files.seen.get(&f).cloned() else {
            return Ok(());
        };
        let sections = self.store.sections()?;
        let prints = section_prints(
            (sections.iter())
                .filter(|s| !s.removed)
                .map(|s| (s.key.as_str(), s.body.as_str())),
        );
        self.files.versions.push((f, sha1, prints));
        Ok(())
    }

    /// The body of section `cur` once the save's text of it, `theirs`, is merged in.
    pub(super) fn merge_section(
        &mut self,
        base: &mut SectionBase,
        cur: &SectionRecord,
        heading: &str,
        theirs: &str,
    ) -> String {
        if cur.body == theirs {
            return theirs.to_string();
        }
        let (ours_lines, theirs_lines) = (body_lines(&cur.body), body_lines(theirs));
        let from = lines_in(&base.sections, &cur.key).unwrap_or_default();
        let m = merge_lines(from, &ours_lines, &theirs_lines);
        let mut body = m.lines.join("\n");
        body.truncate(body.trim_end().len());
        if is_empty_body(&body) {
            body = match (is_empty_body(theirs), is_empty_body(&cur.body)) {
                (true, _) => theirs.to_string(),
                (false, true) => cur.body.clone(),
                (false, false) => format!("\n{}", empty_marker(self.lang())),
            };
        }
        base.kept_lines(heading, m.kept.iter().map(String::as_str));
        base.clashes
            .extend(m.clashes.into_iter().map(|c| SectionClash {
                key: cur.key.clone(),
                heading: heading.to_string(),
                at: self.author.now.clone(),
                saved: c.theirs,
                other: c.ours,
            }));
        keep_readable(body)
    }

    /// Take in what a late save of PROJECT.md (one written into the version trilogy replaced,
    /// see `late`) added against the version it was made from: its new lines, each after the
    /// line it follows there. Nothing is removed on its evidence. Returns how many lines.
    pub(super) fn absorb_late_sections(&mut self, doc: &markdown::Doc) -> Result<usize> {
        let saved = self.saved_sections(doc)?;
        let printed = printed_lines(saved.iter().map(|s| (s.key.as_str(), s.body.as_str())));
        let from = match self.section_base(&printed, false)? {
            Some(b) => b.sections,
            None => HashMap::new(),
        };
        self.files.section_save = None;
        let current: HashMap<String, SectionRecord> = (self.store.sections()?.into_iter())
            .map(|s| (s.key.clone(), s))
            .collect();
        let mut taken = 0;
        for s in &saved {
            let theirs = body_lines(&s.body);
            let mut base = line_counts(lines_in(&from, &s.key).unwrap_or_default());
            let cur = current.get(&s.key).filter(|c| !c.removed);
            let ours = cur.map_or_else(Vec::new, |c| body_lines(&c.body));
            let mut in_ours = line_counts(&line_hashes(&ours));
            // the save's lines the store has, and the ones it added, in the save's order: merged
            // against those it shares with the store, every line of the store's stays
            let (mut kept, mut common, mut added) = (Vec::new(), Vec::new(), 0);
            for l in &theirs {
                let h = line_hash(l);
                if take_line(&mut in_ours, h) {
                    kept.push(*l);
                    common.push(h);
                } else if !take_line(&mut base, h) && !l.trim().is_empty() {
                    kept.push(*l);
                    added += 1;
                }
            }
            if added == 0 {
                continue;
            }
            let m = merge_lines(&common, &ours, &kept);
            let mut body = m.lines.join("\n");
            body.truncate(body.trim_end().len());
            if !body.starts_with('\n') {
                // a section's body starts under a blank line
                body.insert(0, '\n');
            }
            let rec = SectionRecord {
                key: s.key.clone(),
                heading: cur.map_or_else(|| s.heading.clone(), |c| c.heading.clone()),
                body: keep_readable(body),
                order: cur.map_or(current.len() as u32, |c| c.order),
                removed: false,
                revision: current.get(&s.key).map_or(1, |c| c.revision + 1),
            };
            self.put_section(&rec)?;
            self.log(
                "section",
                vec![s.key.clone()],
                &format!("{}{}", rec.heading, super::late::LATE),
            )?;
            taken += added;
        }
        Ok(taken)
    }

    /// Log what the merge of a save kept and the clashes it found, and keep the clashes that
    /// still stand for `status`.
    pub(super) fn settle_sections(&mut self, base: Option<SectionBase>) -> Result<()> {
        let f = FileKind::Project;
        let file = self.ws.file_name(f);
        let save = self.files.section_save.take();
        if let Some(b) = &base {
            match (&save, b.kept.is_empty()) {
                (Some((hash, lacked)), false) => self.store.set_kept_last(f, *hash, lacked)?,
                _ if !self.store.kept_last(f)?.1.is_empty() => {
                    self.store.set_kept_last(f, 0, &[])?
                }
                _ => {}
            }
        }
        let Some(b) = base else {
            return Ok(());
        };
        if !b.kept.is_empty() {
            let n = b.kept.len();
            let what = if n == 1 { "line" } else { "lines" };
            let detail = format!(
                "{n} {what} in {file} written after the copy this save was made from: {}",
                b.kept.join(" · ")
            );
            self.log("kept", Vec::new(), &detail)?;
        }
        for c in &b.clashes {
            let detail = format!(
                "{file} `{}`: a save and another writer changed the same line; both kept: {} (the save) and {} (the other writer)",
                c.heading,
                c.saved.join(" / "),
                c.other.join(" / ")
            );
            self.log("section-conflict", vec![c.key.clone()], &detail)?;
        }
        let sections: HashMap<String, SectionRecord> = (self.store.sections()?.into_iter())
            .filter(|s| !s.removed)
            .map(|s| (s.key.clone(), s))
            .collect();
        let mut all = self.store.section_clashes()?;
        all.extend(b.clashes);
        all.retain(|c| sections.get(&c.key).is_some_and(|s| c.stands_in(&s.body)));
        let drop = all.len().saturating_sub(CLASHES_KEPT);
        all.drain(..drop);
        if all != self.store.section_clashes()? {
            self.store.set_section_clashes(&all)?;
            self.mark_changed();
        }
        Ok(())
    }
}
