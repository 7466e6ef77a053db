//! Absorbing parsed files into the store: the three-way comparison of a file's entries with the
//! store's, entries that left a file marked (never dropped), PROJECT sections by revision (a
//! section's save merged line by line, see `sections`).

use std::collections::{BTreeMap, HashMap, HashSet};

use crate::error::Result;
use crate::markdown::{self, Doc, Parsed};
use crate::model::{
    EntryRecord, FileKind, Lang, Origin, SectionRecord, State, section_heading, section_key,
    section_slot,
};
use crate::store::Reader;

use super::Tx;
use super::base::lines::{body_lines, printed_lines};
use super::base::{Base, Kept, Prints, block_hash, id_key};
use super::items::{Item, items_drain, keep_readable};
use super::stream::{Changed, Fresh, LOT, Shaped, Source, parse_archive};
use crate::store::Print;

/// What reading the changed files gathered, applied once all of them are read.
#[derive(Default)]
struct Gathered {
    /// Per file, its items bottom-up (kept whole: one list of 100k items is 11 MB).
    present: Vec<(FileKind, Vec<Item>)>,
    /// How each file is laid out: its shape, and per unit (key, text read, store's text).
    shapes: Vec<Shaped>,
    /// Files whose entries are in date order (newest first) and how many: a fresh import of
    /// such a file renders it as it reads (checked at the end, without rendering it).
    in_date_order: HashMap<FileKind, usize>,
    /// (id, replaced by): entries the saves' writers removed or edited.
    gone: Vec<(String, Option<String>)>,
    switch_gone: HashSet<String>,
    /// Per file, the version each save is merged against, and the save's own prints.
    bases: HashMap<FileKind, Base>,
    theirs_prints: HashMap<FileKind, Prints>,
    /// Per file, what its save left out without its writer having seen it.
    kept: Vec<(FileKind, Kept)>,
}

impl Tx<'_> {
    pub(super) fn apply_docs(
        &mut self,
        mut docs: Vec<(FileKind, Changed<'_>)>,
        fresh: bool,
    ) -> Result<()> {
        // sequence numbers follow age: the archive's entries are older than the live ones
        docs.sort_by_key(|(f, _)| match f {
            FileKind::Archive => 0,
            FileKind::Sessions => 1,
            FileKind::Decisions => 2,
            FileKind::Project => 3,
        });
        let mut g = Gathered::default();
        let mut taken = Fresh::default();
        for (f, doc) in docs {
            let parsed = match doc {
                Changed::Parsed(p) => p,
                // a first import reads the archive a chunk at a time, its entries stored first
                Changed::Archive(text) => {
                    if fresh
                        && self.stream_archive(Source::Text(&text), &mut taken, &mut g.shapes)?
                    {
                        continue;
                    }
                    parse_archive(&text)?
                }
                Changed::ArchiveFile(file) => {
                    if fresh
                        && self.stream_archive(Source::File(&file), &mut taken, &mut g.shapes)?
                    {
                        continue;
                    }
                    parse_archive(&file.read_whole()?)?
                }
            };
            self.gather(f, parsed, fresh, &mut g)?;
        }
        // only an entry that left a file is looked up in it (none on a fresh import: a set of
        // 1M ids spared)
        let present_ids: HashSet<String> = match g.gone.is_empty() {
            true => HashSet::new(),
            false => (g.present.iter())
                .flat_map(|(_, items)| items.iter().map(|i| i.id.clone()))
                .collect(),
        };
        // entries that left the files go first, so an edited entry can take its old place
        let gone = std::mem::take(&mut g.gone);
        let replaced = self.take_gone(gone, &g.switch_gone, &present_ids)?;
        for (f, k) in std::mem::take(&mut g.kept) {
            self.log_kept(f, &k)?;
        }
        let present = std::mem::take(&mut g.present);
        match fresh {
            true => self.take_fresh(present, &mut taken)?,
            false => self.take_present(present, &replaced, &g)?,
        }
        let imported = taken.imported;
        for (f, n) in &imported {
            self.log(
                "import",
                vec![],
                &format!("{n} entries from {}", self.ws.file_name(*f)),
            )?;
        }
        self.set_layouts(g.shapes, &g.in_date_order, &imported)
    }

    /// Read one changed file into `g`: its preamble taken, PROJECT.md's sections absorbed,
    /// another file's items compared with the version its save was made from.
    fn gather(
        &mut self,
        f: FileKind,
        mut parsed: Parsed,
        fresh: bool,
        g: &mut Gathered,
    ) -> Result<()> {
        self.dirty.insert(f);
        self.changed = true;
        if f == FileKind::Archive {
            self.archive.other = true;
        }
        self.take_preamble(f, &parsed.doc.preamble)?;
        let head = parsed.doc.preamble.clone();
        let mut units = Vec::with_capacity(parsed.doc.blocks.len() + 1);
        units.push((String::new(), head.clone(), head));
        if f == FileKind::Project {
            let keyed = self.apply_project(&parsed.doc, fresh)?;
            for (b, (key, text)) in parsed.doc.blocks.iter().zip(keyed) {
                units.push((key, b.text(), text));
            }
            g.shapes.push((f, parsed.shape, units));
            return Ok(());
        }
        let (items, prints) = self.drain_items(f, &mut parsed, &mut units);
        let Parsed { doc, shape, .. } = parsed;
        g.shapes.push((f, shape, units));
        // the items hold what is needed from here on: the parsed text goes before the
        // store's pages pile up (at 100k entries, 15 MB less at the peak)
        drop(doc);
        if fresh && items.windows(2).all(|w| w[0].sort_date >= w[1].sort_date) {
            g.in_date_order.insert(f, items.len());
        }
        let entries = self.store.file_entries(f, 0, usize::MAX)?;
        let found = self.found_base(f, &items, &entries, &prints)?;
        // a switch takes out of the files only what git's version of them lacks
        if self.git.switched_from.is_some() && self.git.absorbed_from_index.contains(&f) {
            g.switch_gone
                .extend(found.gone.iter().map(|(id, _)| id.clone()));
        }
        g.gone.extend(found.gone);
        if let Some(b) = found.base {
            g.bases.insert(f, b);
        }
        g.theirs_prints.insert(f, found.theirs);
        g.kept.extend(found.kept.map(|k| (f, k)));
        self.files.prints.insert(f, prints);
        // allocate sequence numbers bottom-up so the upper of two same-date entries is newer
        let mut items = items;
        items.reverse();
        g.present.push((f, items));
        Ok(())
    }

    /// Record `preamble` as file `f`'s, logged when it replaces another.
    pub(super) fn take_preamble(&mut self, f: FileKind, preamble: &str) -> Result<()> {
        let old_pre = self.store.preamble(f)?;
        if old_pre.as_deref() != Some(preamble) {
            self.store.set_preamble(f, preamble)?;
            if old_pre.is_some() {
                self.log("preamble", vec![], self.ws.file_name(f))?;
            }
        }
        Ok(())
    }

    /// The items of file `f` and their prints; each block's unit of the layout goes to `units`.
    pub(super) fn drain_items(
        &self,
        f: FileKind,
        parsed: &mut Parsed,
        units: &mut Vec<LaidUnit>,
    ) -> (Vec<Item>, Vec<Print>) {
        let lang = self.lang();
        let regions = &parsed.shape.regions;
        // each block's text goes as soon as its item and its unit are made, so the file is
        // never held twice (at 100k entries, 17 MB less at the peak)
        let mut prints: Vec<Print> = Vec::new();
        let items = items_drain(f, &mut parsed.doc, self.author.today, |k, b, item| {
            let read = b.text();
            // an entry with no state line, read as it was written, renders as it reads
            let plain = !matches!(item.state, State::Superseded | State::Retired)
                && item.body == b.body
                && item.heading == b.heading;
            let store = (!plain).then(|| {
                markdown::block_of(
                    &item.heading,
                    &item.body,
                    item.state,
                    item.superseded_by.as_deref(),
                    lang,
                )
                .text()
            });
            let store_text = store.as_deref().unwrap_or(&read);
            prints.push((id_key(&item.id), block_hash(store_text)));
            // a unit written exactly as the store renders it needs neither text in its
            // layout: two empty texts say the same (and spare two copies of a 20 MB archive)
            let as_rendered =
                read == store_text && regions.get(k + 1).is_some_and(|r| r.raw.is_none());
            if as_rendered {
                units.push((item.id.clone(), String::new(), String::new()));
            } else {
                let store = store.unwrap_or_else(|| read.clone());
                units.push((item.id.clone(), read, store));
            }
        });
        (items, prints)
    }

    /// Mark the entries that left the files (not `present` in any): elsewhere when a branch
    /// switch took them out, else removed or replaced. The replaced ones, by their replacement.
    fn take_gone(
        &mut self,
        gone: Vec<(String, Option<String>)>,
        switch_gone: &HashSet<String>,
        present_ids: &HashSet<String>,
    ) -> Result<HashMap<String, EntryRecord>> {
        let mut replaced: HashMap<String, EntryRecord> = HashMap::new();
        for (id, by) in gone {
            if present_ids.contains(&id) {
                continue;
            }
            let Some(mut rec) = self.store.entry(&id)? else {
                continue;
            };
            if let Some(from) = self.git.switched_from.clone()
                && switch_gone.contains(&id)
            {
                // a checkout took it out: it stays with the branch whose file held it
                let (was, file) = (rec.state, rec.file().map_or("", |f| self.ws.file_name(f)));
                rec.state = State::Elsewhere;
                rec.superseded_by = Some(from);
                rec.replaced_by = None;
                self.put_entry(&rec)?;
                let detail = format!("{file}: {} → elsewhere: {}", was.as_str(), rec.heading);
                self.log("elsewhere", vec![id], &detail)?;
                self.git.moves_of_switch.away += 1;
                continue;
            }
            // a version git wrote (a checkout or reset of the file, a pull, a merge) took it
            // out: the log names git, not a person's edit
            let by_git = rec
                .file()
                .is_some_and(|f| self.git.absorbed_from_index.contains(&f));
            let op = if by.is_some() { "replace" } else { "remove" };
            rec.state = if by.is_some() {
                State::Replaced
            } else {
                State::Removed
            };
            rec.replaced_by = by.clone();
            self.put_entry(&rec)?;
            let mut ids = vec![id];
            ids.extend(by.clone());
            let author = match by_git {
                true => self.author.as_actor(super::GIT),
                false => self.author.clone(),
            };
            self.as_author(author, |tx| tx.log(op, ids, &rec.heading))?;
            if let Some(new_id) = by {
                replaced.insert(new_id, rec);
            }
        }
        Ok(replaced)
    }

    /// Record the entries the files hold: new ones added, known ones given the state the file
    /// shows (a fresh import is [`Tx::take_fresh`]).
    fn take_present(
        &mut self,
        present: Vec<(FileKind, Vec<Item>)>,
        replaced: &HashMap<String, EntryRecord>,
        g: &Gathered,
    ) -> Result<()> {
        let present =
            (present.into_iter()).flat_map(|(f, items)| items.into_iter().map(move |i| (f, i)));
        for (f, item) in present {
            match self.store.entry(&item.id)? {
                None => self.add_found(f, &item, replaced)?,
                Some(rec) if rec.state != item.state || rec.superseded_by != item.superseded_by => {
                    // as the save's base had it: its writer left it alone, and what changed it
                    // since in the files (a supersession, the archive) stands. An entry no file
                    // holds (removed, replaced) comes back: a save that shows it is never lost
                    let k = id_key(&rec.id);
                    let left_alone = rec.file().is_some()
                        && g.bases.get(&f).is_some_and(|b| {
                            b.prints.contains_key(&k)
                                && b.prints.get(&k)
                                    == g.theirs_prints.get(&f).and_then(|t| t.get(&k))
                        });
                    if !left_alone {
                        if rec.state == State::Elsewhere {
                            self.git.moves_of_switch.back += 1;
                        }
                        self.take_state(f, rec, &item, "")?;
                    }
                }
                Some(_) => {}
            }
        }
        Ok(())
    }

    /// The entries of a first import, into a store that holds none but what `taken` tells:
    /// each added once (an entry two files hold is the first file's), written a few thousand
    /// at a time.
    fn take_fresh(&mut self, present: Vec<(FileKind, Vec<Item>)>, taken: &mut Fresh) -> Result<()> {
        let Fresh {
            ids: inserted,
            imported,
        } = taken;
        let total: usize = present.iter().map(|(_, items)| items.len()).sum();
        let mut lot: Vec<EntryRecord> = Vec::with_capacity(LOT);
        let mut n = 0;
        for (f, items) in present {
            if !items.is_empty() {
                self.touch(f)?;
            }
            for item in items {
                n += 1;
                if n % 2000 == 0 || n == total {
                    self.ws.progress("reading the memory files", n, total);
                }
                if !inserted.insert(&item.id) {
                    continue;
                }
                let mut rec = self.entry_of(&item)?;
                rec.origin = Origin::default();
                lot.push(rec);
                *imported.entry(f).or_default() += 1;
                if lot.len() == LOT {
                    self.store.put_new_entries(&lot)?;
                    lot.clear();
                }
            }
        }
        self.store.put_new_entries(&lot)?;
        Ok(())
    }

    /// Record an entry of file `f` the store does not hold, and log it (unless it replaces one).
    pub(super) fn add_found(
        &mut self,
        f: FileKind,
        item: &Item,
        replaced: &HashMap<String, EntryRecord>,
    ) -> Result<()> {
        let mut rec = self.entry_of(item)?;
        rec.origin = Origin::default();
        // recorded in another clone or work tree: it came with git (a merge, a pull)
        if self.git.switched_from.is_none() && self.git.absorbed_from_index.contains(&f) {
            match self.sibling_provenance(&rec.id) {
                Some((origin, actor)) => (rec.origin, rec.actor) = (origin, actor),
                None => rec.actor = self.merged_actor(&rec),
            }
        }
        if let Some(old) = replaced.get(&rec.id)
            && old.sort_date == rec.sort_date
        {
            // a corrected entry keeps its place among entries of its date
            rec.seq = old.seq;
            rec.origin = old.origin.clone();
        }
        self.put_entry(&rec)?;
        if !replaced.contains_key(&rec.id) {
            self.log(
                "add",
                vec![rec.id.clone()],
                &format!("{}: {}", self.ws.file_name(f), rec.heading),
            )?;
        }
        Ok(())
    }

    /// Keep each file's layout, or none when the store renders the file as it reads.
    fn set_layouts(
        &mut self,
        shapes: Vec<Shaped>,
        in_date_order: &HashMap<FileKind, usize>,
        imported: &BTreeMap<FileKind, usize>,
    ) -> Result<()> {
        let archived = self.store.file_count(FileKind::Archive)?;
        for (f, shape, units) in shapes {
            let layout = markdown::Layout::of(&shape, units, archived);
            // entries in date order, each imported (none a copy of one in another file), laid
            // out canonically: the store renders this file as it reads, so it needs no layout
            // and no rendering to prove it
            let whole = in_date_order
                .get(&f)
                .is_some_and(|n| imported.get(&f).copied().unwrap_or(0) == *n);
            let pointer = (f == FileKind::Sessions && archived > 0)
                .then(|| markdown::pointer_line(archived, self.lang()));
            let head = self.store.preamble(f)?.unwrap_or_default();
            if whole && f != FileKind::Project && layout.is_canonical(&head, pointer.as_deref()) {
                self.store.set_layout(f, None)?;
                self.files.as_read.insert(f);
            } else {
                self.store.set_layout(f, Some(&layout))?;
            }
        }
        Ok(())
    }

    /// A new record of an entry found in a file (not yet stored).
    pub(super) fn entry_of(&self, item: &Item) -> Result<EntryRecord> {
        let mut rec = self.new_entry(item.kind, item.heading.clone(), item.body.clone())?;
        rec.id = item.id.clone();
        rec.sort_date = item.sort_date;
        rec.state = item.state;
        rec.superseded_by = item.superseded_by.clone();
        Ok(rec)
    }

    /// Give a stored entry the state the file shows for it, and log the change (`note` is
    /// appended to the event's detail).
    pub(super) fn take_state(
        &mut self,
        f: FileKind,
        mut rec: EntryRecord,
        item: &Item,
        note: &str,
    ) -> Result<()> {
        let from = rec.state;
        if from == State::Replaced {
            // its replacement took over its place (sequence number) when it was edited; shown
            // again beside it, it needs a place of its own
            rec.seq = self.store.next_seq()?;
        }
        rec.state = item.state;
        rec.superseded_by = item.superseded_by.clone();
        rec.replaced_by = None;
        self.put_entry(&rec)?;
        self.log(
            "state",
            vec![rec.id.clone()],
            &format!(
                "{}: {} → {}: {}{note}",
                self.ws.file_name(f),
                from.as_str(),
                rec.state.as_str(),
                rec.heading
            ),
        )?;
        Ok(())
    }

    /// Absorb PROJECT.md (merged by section and line against the version it was made from,
    /// see `sections`); returns each block's section key and the store's rendering of it.
    pub(super) fn apply_project(
        &mut self,
        doc: &Doc,
        fresh: bool,
    ) -> Result<Vec<(String, String)>> {
        let mut keyed = Vec::with_capacity(doc.blocks.len());
        let current: HashMap<String, SectionRecord> = self
            .store
            .sections()?
            .into_iter()
            .map(|s| (s.key.clone(), s))
            .collect();
        let saved = self.saved_sections(doc)?;
        let printed = printed_lines(saved.iter().map(|s| (s.key.as_str(), s.body.as_str())));
        let mut base = self.section_base(&printed, fresh)?;
        let prints = printed.into_iter().map(|(p, _)| p).collect();
        self.files.prints.insert(FileKind::Project, prints);
        let mut seen: HashSet<String> = HashSet::new();
        for (order, s) in saved.into_iter().enumerate() {
            let SavedSection {
                key,
                heading,
                body,
                read,
            } = s;
            seen.insert(key.clone());
            let order = order as u32;
            keyed.push((key.clone(), read));
            let Some(cur) = current.get(&key) else {
                let rec = SectionRecord {
                    key: key.clone(),
                    heading: heading.clone(),
                    body,
                    order,
                    removed: false,
                    revision: 1,
                };
                self.put_section(&rec)?;
                if !fresh {
                    self.log("section-add", vec![key], &heading)?;
                }
                continue;
            };
            let body = match &mut base {
                Some(b) if !cur.removed => self.merge_section(b, cur, &heading, &body),
                _ => body,
            };
            if cur.removed || cur.heading != heading || cur.body != body {
                let rec = SectionRecord {
                    heading: heading.clone(),
                    body,
                    order,
                    removed: false,
                    revision: cur.revision + 1,
                    key: key.clone(),
                };
                self.put_section(&rec)?;
                self.log("section", vec![key], &heading)?;
            } else if cur.order != order {
                let mut rec = cur.clone();
                rec.order = order;
                self.put_section(&rec)?;
            }
        }
        for (key, cur) in current {
            if seen.contains(&key) || cur.removed {
                continue;
            }
            // a section its writer never saw as it is now stays (the save lacks what was
            // written into it since)
            if let Some(b) = &mut base
                && !b.saw(&cur)
            {
                let lines = body_lines(&cur.body).into_iter().filter(|l| !l.is_empty());
                b.kept_lines(&cur.heading, lines);
                continue;
            }
            let mut rec = cur.clone();
            rec.removed = true;
            rec.revision += 1;
            self.put_section(&rec)?;
            self.log("section-remove", vec![key], &rec.heading)?;
        }
        self.settle_sections(base)?;
        Ok(keyed)
    }

    /// The sections of a saved PROJECT.md in file order: key (a repeated heading's with `~N`),
    /// heading (a legacy one renamed), body, and the block's text as read.
    pub(super) fn saved_sections(&mut self, doc: &Doc) -> Result<Vec<SavedSection>> {
        let lang = self.lang();
        let mut seen: HashSet<String> = HashSet::new();
        let mut out = Vec::with_capacity(doc.blocks.len());
        for block in &doc.blocks {
            let mut key = section_key(&block.heading);
            let mut n = 2;
            while seen.contains(&key) {
                key = format!("{}~{n}", section_key(&block.heading));
                n += 1;
            }
            seen.insert(key.clone());
            let body = keep_readable(block.body.clone());
            let mut heading = block.heading.clone();
            if lang == Lang::Zh
                && let Some(slot) = section_slot(&heading)
                && heading != section_heading(slot, Lang::Zh)
                && !key.contains('~')
            {
                heading = section_heading(slot, Lang::Zh).to_string();
                self.log(
                    "rename-heading",
                    vec![],
                    &format!("{} → {heading}", block.heading),
                )?;
            }
            // a renamed legacy heading is not how the person wrote it: the file takes the new
            // name the next time it is written
            let read = markdown::Block::new(block.heading.clone(), body.clone()).text();
            out.push(SavedSection {
                key,
                heading,
                body,
                read,
            });
        }
        Ok(out)
    }
}

/// One section of a saved PROJECT.md (see `saved_sections`).
pub(super) struct SavedSection {
    pub key: String,
    pub heading: String,
    pub body: String,
    /// The block's text as read.
    pub read: String,
}

/// A unit of a file for its layout: key, the text the parser read, the store's text.
type LaidUnit = (String, String, String);
