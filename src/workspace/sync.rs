//! The sync protocol (DESIGN §3): inside one write transaction, absorb what changed in the
//! files, apply the operation, project the affected files, commit.
//!
//! Crash safety comes from the order: files are written (atomically) before the commit, and
//! absorbing compares each file with the store's own rendering of it, so after a crash at any
//! point the next command either finds the files equal to the store or absorbs the newer file
//! content; ids are content hashes, so nothing is duplicated.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use chrono::NaiveDate;
use similar::{Algorithm, DiffOp, capture_diff_slices};

use crate::error::{Error, Result};
use crate::markdown::{self, Block, Doc, ParseError, Parsed};
use crate::model::{
    self, EntryKind, EntryRecord, FileKind, Lang, Origin, SectionRecord, State, entry_id,
    heading_date, section_heading, section_key, section_slot, sha1_hex,
};
use crate::store::{Reader, WriteTx};

use super::{Workspace, fsio, scaffold};

/// The operation's view of the open write transaction.
pub struct Tx<'w> {
    pub ws: &'w Workspace,
    store: WriteTx,
    /// Who is writing: `cli`, `mcp`, `file-edit`, `hook:<session>`.
    pub actor: String,
    /// RFC 3339 time of this command.
    pub now: String,
    /// Date stamped on new entries (local clock).
    pub today: NaiveDate,
    /// Extra store-only metadata for entries this command writes.
    pub origin: Origin,
    dirty: BTreeSet<FileKind>,
    broken: BTreeMap<FileKind, ParseError>,
    /// Files found empty moments after they were modified: another program is most likely
    /// between truncating and writing them, so this command neither absorbs nor replaces them.
    deferred: BTreeSet<FileKind>,
    /// SHA-1 of each file as absorb saw it (`None`: missing).
    seen: HashMap<FileKind, Option<String>>,
    /// Entries moved between files in this transaction: (from, to).
    moves: BTreeSet<(FileKind, FileKind)>,
    /// Entries that entered the archive in this transaction, and whether anything else about
    /// the archive changed: when only entries entered, and they are its newest, the archive is
    /// written by splicing them onto the file instead of rendering it whole.
    archive_added: Vec<String>,
    archive_other: bool,
    changed: bool,
    report: SyncReport,
}

/// What the protocol did around the operation.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct SyncReport {
    /// One line per change absorbed from the files (hand edits, pulls, crash leftovers).
    pub absorbed: Vec<String>,
    /// Files rewritten.
    pub written: Vec<String>,
    /// Files left untouched because they do not parse.
    pub unparseable: Vec<Broken>,
}

/// A memory file that does not parse.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Broken {
    pub file: FileKind,
    pub path: String,
    pub line: usize,
    pub reason: String,
}

impl std::fmt::Display for Broken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}:{}: {}; left untouched until fixed by hand",
            self.path, self.line, self.reason
        )
    }
}

/// A result plus the sync report.
#[derive(Debug, Clone)]
pub struct Written<R> {
    pub value: R,
    pub report: SyncReport,
}

impl<'w> Tx<'w> {
    pub(super) fn new(ws: &'w Workspace, store: WriteTx, actor: &str) -> Tx<'w> {
        Tx {
            ws,
            store,
            actor: actor.to_string(),
            now: ws.clock.now(),
            today: ws.clock.today(),
            origin: Origin::default(),
            dirty: BTreeSet::new(),
            broken: BTreeMap::new(),
            deferred: BTreeSet::new(),
            seen: HashMap::new(),
            moves: BTreeSet::new(),
            archive_added: Vec::new(),
            archive_other: false,
            changed: false,
            report: SyncReport::default(),
        }
    }

    /// Read access to the store inside this transaction.
    pub fn store(&self) -> &WriteTx {
        &self.store
    }

    pub fn lang(&self) -> Lang {
        self.ws.config.lang
    }

    /// Declare that `file` will be re-rendered; refused when the file does not parse.
    pub fn touch(&mut self, file: FileKind) -> Result<()> {
        if let Some(e) = self.broken.get(&file) {
            return Err(Error::WouldOverwrite {
                path: self.ws.file_path(file),
                line: e.line,
                reason: e.reason.clone(),
            });
        }
        self.dirty.insert(file);
        self.changed = true;
        Ok(())
    }

    /// Insert or update an entry; the files it leaves and enters are re-rendered.
    pub fn put_entry(&mut self, rec: &EntryRecord) -> Result<()> {
        let old = self.store.entry(&rec.id)?;
        if let Some(old) = &old
            && let Some(f) = old.file()
        {
            self.touch(f)?;
            if let Some(to) = rec.file()
                && to != f
            {
                self.moves.insert((f, to));
            }
        }
        if let Some(f) = rec.file() {
            self.touch(f)?;
        }
        let was = old.as_ref().and_then(|o| o.file()) == Some(FileKind::Archive);
        let is = rec.file() == Some(FileKind::Archive);
        if is && !was {
            self.archive_added.push(rec.id.clone());
        } else if is || was {
            self.archive_other = true;
        }
        self.store.put_entry_over(rec, old)
    }

    /// A new live record (not yet stored) dated by its heading, or today.
    pub fn new_entry(&self, kind: EntryKind, heading: String, body: String) -> Result<EntryRecord> {
        Ok(EntryRecord {
            id: entry_id(kind, &heading, &body),
            kind,
            sort_date: heading_date(&heading).unwrap_or(self.today),
            heading,
            body,
            state: State::Live,
            seq: self.store.next_seq()?,
            superseded_by: None,
            replaced_by: None,
            created_at: self.now.clone(),
            actor: self.actor.clone(),
            origin: self.origin.clone(),
        })
    }

    /// Write a section as a new revision (PROJECT.md is re-rendered).
    pub fn put_section(&mut self, rec: &SectionRecord) -> Result<()> {
        self.touch(FileKind::Project)?;
        self.store.put_section(rec, &self.now, &self.actor)
    }

    /// Append to the event log.
    pub fn log(&mut self, op: &str, ids: Vec<String>, detail: &str) -> Result<()> {
        self.changed = true;
        if self.actor == "file-edit" {
            self.report.absorbed.push(format!("{op} {detail}"));
        }
        self.store.log(&self.now, &self.actor, op, ids, detail)?;
        Ok(())
    }

    /// Update a report (closing it).
    pub fn put_report(&mut self, r: &crate::model::Report) -> Result<()> {
        self.changed = true;
        self.store.put_report(r)
    }

    /// Store a `notes` report for the user.
    pub fn add_report(&mut self, text: &str) -> Result<u64> {
        self.changed = true;
        self.store.add_report(&self.now, &self.actor, text)
    }

    /// Save what trilogy remembers about an agent session.
    pub fn put_agent_session(&mut self, s: &crate::model::AgentSession) -> Result<()> {
        self.changed = true;
        self.store.put_agent_session(s)
    }

    /// Mark a change that touches no file (reports, settings) so the transaction commits.
    pub fn mark_changed(&mut self) {
        self.changed = true;
    }

    /// Files that do not parse right now.
    pub fn broken(&self) -> &BTreeMap<FileKind, ParseError> {
        &self.broken
    }

    // ---- protocol steps -------------------------------------------------------------------

    /// Step 2: absorb every file whose bytes differ from what the store renders.
    /// `trust_stat`: skip reading a file whose stat matches its stamp (false on a retry, so a
    /// change the stat cannot show is still found).
    pub(super) fn absorb(&mut self, files: &[FileKind], trust_stat: bool) -> Result<()> {
        let fresh = self.store.meta("absorbed_once")? == 0;
        let mut changed_docs: Vec<(FileKind, Parsed)> = Vec::new();
        for &f in files {
            let path = fsio::resolve_inside(&self.ws.root, &self.ws.file_path(f))?;
            let stamp = self.store.stamp(f)?;
            let stamped_at = self.store.stamped_at(f)?;
            if let Some(s) = &stamp
                && trust_stat
                && fsio::stat_matches(&path, s, stamped_at)
            {
                self.seen.insert(f, Some(s.sha1.clone()));
                continue;
            }
            let read = fsio::read_stamped(&path)?;
            self.seen
                .insert(f, read.as_ref().map(|(_, st)| st.sha1.clone()));
            // a missing file, and an empty one, is rendered again from the store: an empty
            // file is never read as "delete everything". Editors and tools truncate before they
            // write: a file emptied moments ago is left alone until that write is done (or two
            // seconds pass)
            let missing = match &read {
                None => true,
                Some((bytes, st)) if bytes.is_empty() => {
                    if fsio::is_fresh(st) {
                        self.deferred.insert(f);
                        continue;
                    }
                    true
                }
                Some(_) => false,
            };
            if missing {
                let wanted =
                    f != FileKind::Archive || self.store.file_count(FileKind::Archive)? > 0;
                if wanted {
                    self.dirty.insert(f);
                    self.changed = true;
                }
                continue;
            }
            let Some((bytes, disk_stamp)) = read else {
                continue;
            };
            if let Some(s) = &stamp
                && s.sha1 == disk_stamp.sha1
            {
                // a new stat, or a racy stamp that can now be trusted: record it again
                let settled = fsio::is_racy(s, stamped_at) && fsio::settles_now(&disk_stamp);
                if disk_stamp != *s || settled {
                    self.store.set_stamp(f, &disk_stamp)?;
                    self.changed = true;
                }
                continue;
            }
            // differs from the last write, or never written: compare with the store's rendering
            let rendered = render_file(&self.store, f, self.lang())?;
            if rendered.as_bytes() == bytes.as_slice() {
                self.store.set_stamp(f, &disk_stamp)?;
                self.changed = true;
                continue;
            }
            let strip = matches!(f, FileKind::Sessions | FileKind::Archive);
            match markdown::parse_bytes(&bytes, strip) {
                Ok(p) => changed_docs.push((f, p)),
                Err(e) => {
                    self.report.unparseable.push(Broken {
                        file: f,
                        path: path.display().to_string(),
                        line: e.line,
                        reason: e.reason.clone(),
                    });
                    self.broken.insert(f, e);
                }
            }
        }
        if fresh {
            self.store.set_meta("absorbed_once", 1)?;
            self.changed = true;
        }
        if changed_docs.is_empty() {
            return Ok(());
        }
        let saved_actor = std::mem::replace(&mut self.actor, "file-edit".to_string());
        let result = self.apply_docs(changed_docs, fresh);
        self.actor = saved_actor;
        result
    }

    fn apply_docs(&mut self, mut docs: Vec<(FileKind, Parsed)>, fresh: bool) -> Result<()> {
        // sequence numbers follow age: the archive's entries are older than the live ones
        docs.sort_by_key(|(f, _)| match f {
            FileKind::Archive => 0,
            FileKind::Sessions => 1,
            FileKind::Decisions => 2,
            FileKind::Project => 3,
        });
        let mut present: Vec<(FileKind, Item)> = Vec::new();
        let mut gone: Vec<(String, Option<String>)> = Vec::new();
        for (f, parsed) in docs {
            self.dirty.insert(f);
            self.changed = true;
            if f == FileKind::Archive {
                self.archive_other = true;
            }
            let old_pre = self.store.preamble(f)?;
            if old_pre.as_deref() != Some(parsed.doc.preamble.as_str()) {
                self.store.set_preamble(f, &parsed.doc.preamble)?;
                if old_pre.is_some() {
                    self.log("preamble", vec![], f.file_name())?;
                }
            }
            if f == FileKind::Project {
                self.apply_project(&parsed.doc, fresh)?;
                continue;
            }
            let items = items_of(f, &parsed.doc, self.today);
            let current: Vec<String> = self
                .store
                .file_entries(f, 0, usize::MAX)?
                .into_iter()
                .map(|e| e.id)
                .collect();
            let theirs: Vec<String> = items.iter().map(|i| i.id.clone()).collect();
            for op in capture_diff_slices(Algorithm::Myers, &current, &theirs) {
                match op {
                    DiffOp::Delete {
                        old_index, old_len, ..
                    } => {
                        for id in &current[old_index..old_index + old_len] {
                            gone.push((id.clone(), None));
                        }
                    }
                    DiffOp::Replace {
                        old_index,
                        old_len,
                        new_index,
                        new_len,
                    } => {
                        for k in 0..old_len {
                            let by = (k < new_len).then(|| theirs[new_index + k].clone());
                            gone.push((current[old_index + k].clone(), by));
                        }
                    }
                    _ => {}
                }
            }
            // allocate sequence numbers bottom-up so the upper of two same-date entries is newer
            for item in items.into_iter().rev() {
                present.push((f, item));
            }
        }
        let present_ids: HashSet<String> = present.iter().map(|(_, i)| i.id.clone()).collect();
        // entries that left the files go first, so an edited entry can take its old place
        let mut replaced: HashMap<String, EntryRecord> = HashMap::new();
        for (id, by) in gone {
            if present_ids.contains(&id) {
                continue;
            }
            let Some(mut rec) = self.store.entry(&id)? else {
                continue;
            };
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
            self.log(op, ids, &rec.heading)?;
            if let Some(new_id) = by {
                replaced.insert(new_id, rec);
            }
        }
        let mut imported: BTreeMap<FileKind, usize> = BTreeMap::new();
        let mut inserted: HashSet<String> = HashSet::new();
        for (f, item) in present {
            // a fresh store holds no entries yet: skip the lookups (a bulk import is 100k of them)
            let existing = if fresh {
                if !inserted.insert(item.id.clone()) {
                    continue;
                }
                None
            } else {
                self.store.entry(&item.id)?
            };
            match existing {
                None => {
                    let mut rec =
                        self.new_entry(item.kind, item.heading.clone(), item.body.clone())?;
                    rec.sort_date = item.sort_date;
                    rec.state = item.state;
                    rec.superseded_by = item.superseded_by.clone();
                    rec.origin = Origin::default();
                    if let Some(old) = replaced.get(&rec.id)
                        && old.sort_date == rec.sort_date
                    {
                        // a corrected entry keeps its place among entries of its date
                        rec.seq = old.seq;
                        rec.origin = old.origin.clone();
                    }
                    if fresh {
                        self.touch(f)?;
                        self.store.put_entry_over(&rec, None)?;
                    } else {
                        self.put_entry(&rec)?;
                    }
                    if fresh {
                        *imported.entry(f).or_default() += 1;
                    } else if !replaced.contains_key(&rec.id) {
                        self.log(
                            "add",
                            vec![rec.id.clone()],
                            &format!("{}: {}", f.file_name(), rec.heading),
                        )?;
                    }
                }
                Some(mut rec)
                    if rec.state != item.state || rec.superseded_by != item.superseded_by =>
                {
                    let from = rec.state;
                    rec.state = item.state;
                    rec.superseded_by = item.superseded_by.clone();
                    rec.replaced_by = None;
                    self.put_entry(&rec)?;
                    self.log(
                        "state",
                        vec![rec.id.clone()],
                        &format!(
                            "{}: {} → {}: {}",
                            f.file_name(),
                            from.as_str(),
                            rec.state.as_str(),
                            rec.heading
                        ),
                    )?;
                }
                Some(_) => {}
            }
        }
        for (f, n) in imported {
            self.log(
                "import",
                vec![],
                &format!("{n} entries from {}", f.file_name()),
            )?;
        }
        Ok(())
    }

    fn apply_project(&mut self, doc: &Doc, fresh: bool) -> Result<()> {
        let lang = self.lang();
        let current: HashMap<String, SectionRecord> = self
            .store
            .sections()?
            .into_iter()
            .map(|s| (s.key.clone(), s))
            .collect();
        let mut seen: HashSet<String> = HashSet::new();
        for (i, block) in doc.blocks.iter().enumerate() {
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
            let order = i as u32;
            match current.get(&key) {
                None => {
                    let rec = SectionRecord {
                        key: key.clone(),
                        heading: heading.clone(),
                        body: body.clone(),
                        order,
                        removed: false,
                        revision: 1,
                    };
                    self.put_section(&rec)?;
                    if !fresh {
                        self.log("section-add", vec![key], &heading)?;
                    }
                }
                Some(cur) if cur.removed || cur.heading != heading || cur.body != body => {
                    let rec = SectionRecord {
                        heading: heading.clone(),
                        body: body.clone(),
                        order,
                        removed: false,
                        revision: cur.revision + 1,
                        key: key.clone(),
                    };
                    self.put_section(&rec)?;
                    self.log("section", vec![key], &heading)?;
                }
                Some(cur) if cur.order != order => {
                    let mut rec = cur.clone();
                    rec.order = order;
                    self.put_section(&rec)?;
                }
                Some(_) => {}
            }
        }
        for (key, cur) in current {
            if !seen.contains(&key) && !cur.removed {
                let mut rec = cur.clone();
                rec.removed = true;
                rec.revision += 1;
                self.put_section(&rec)?;
                self.log("section-remove", vec![key], &rec.heading)?;
            }
        }
        Ok(())
    }

    /// The order files are written in: a file gaining entries before the file losing them,
    /// so a crash between the two leaves the entry in both (absorbed as a move), never in none.
    fn write_order(&self) -> Vec<FileKind> {
        use FileKind::*;
        let to_archive = self.moves.contains(&(Sessions, Archive));
        let from_archive = self.moves.contains(&(Archive, Sessions));
        let mut order = vec![Project, Decisions, Sessions, Archive];
        if to_archive && !from_archive {
            order = vec![Project, Decisions, Archive, Sessions];
        }
        order.retain(|f| self.dirty.contains(f) && !self.broken.contains_key(f));
        order
    }

    /// Steps 4 and 5: render the affected files, write the changed ones, commit. `Ok(None)`
    /// when a file changed on disk after it was absorbed: nothing has been written and the
    /// caller starts over with a fresh transaction.
    pub(super) fn finish(mut self) -> Result<Option<SyncReport>> {
        if self.dirty.contains(&FileKind::Archive) && !self.broken.contains_key(&FileKind::Sessions)
        {
            // the pointer line counts the archive
            self.dirty.insert(FileKind::Sessions);
        }
        if self.dirty.iter().any(|f| self.deferred.contains(f)) {
            // a file this command must write is being written by someone else: wait for it
            return Ok(None);
        }
        pause_point("before-write");
        let mut plan = Vec::new();
        for f in self.write_order() {
            let path = fsio::resolve_inside(&self.ws.root, &self.ws.file_path(f))?;
            let now = fsio::read_stamped(&path)?;
            if self.seen.get(&f) != Some(&now.as_ref().map(|(_, st)| st.sha1.clone())) {
                return Ok(None);
            }
            let text = match self.spliced_archive(f, now.as_ref())? {
                Some(t) => t,
                None => render_file(&self.store, f, self.lang())?,
            };
            plan.push((f, path, now, text));
        }
        let rescue_dir = self.ws.state_dir().join("rescued");
        // swap each changed file in; the bytes displaced must be the ones absorbed, else a
        // concurrent writer got in between: put everything back and start over
        let mut swapped: Vec<(FileKind, fsio::Swapped)> = Vec::new();
        let mut changed_files = Vec::new();
        for (f, path, now, text) in plan {
            let unchanged = now
                .as_ref()
                .is_some_and(|(bytes, _)| bytes.as_slice() == text.as_bytes());
            if let (true, Some((_, disk_stamp))) = (unchanged, now) {
                changed_files.push((f, disk_stamp));
            } else {
                if let Some(dir) = path.parent() {
                    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
                }
                let sw = fsio::swap_in(&path, text.as_bytes())?;
                let displaced = sw.previous_bytes()?;
                let expected = self.seen.get(&f).cloned().flatten();
                let intact = match (&displaced, &sw.previous) {
                    (Some(b), _) => Some(sha1_hex(b)) == expected,
                    (None, None) => true,
                    (None, Some(_)) => false,
                };
                changed_files.push((f, sw.stamp.clone()));
                swapped.push((f, sw));
                if !intact {
                    // put everything back (a save that landed in a swapped-in version is kept
                    // and absorbed by the retry), drop the transaction, start over
                    for (f, sw) in swapped.into_iter().rev() {
                        let expected = self.seen.get(&f).cloned().flatten();
                        match sw.undo(expected.as_deref(), &rescue_dir)? {
                            fsio::Undone::Restored | fsio::Undone::KeptTheirSave => {}
                            fsio::Undone::Rescued(to) => tracing::warn!(
                                "{}: two saves raced with trilogy's write; the older one was kept at {} (merge it by hand, then delete it)",
                                f.file_name(),
                                to.display()
                            ),
                        }
                    }
                    return Ok(None);
                }
                crash_point("after-first-write");
                pause_point("after-swap");
                self.report.written.push(f.file_name().to_string());
            }
        }
        for (_, sw) in swapped {
            sw.keep()?;
        }
        for (f, stamp) in changed_files {
            self.store.set_stamp(f, &stamp)?;
            self.changed = true;
        }
        let report = std::mem::take(&mut self.report);
        if self.changed || self.store.migrated() {
            crash_point("before-commit");
            self.store.commit()?;
        }
        Ok(Some(report))
    }
}

impl Tx<'_> {
    /// The archive with this transaction's new entries spliced on top of the file, when that
    /// is what rendering it whole would give: nothing else about the archive changed, the file
    /// is exactly the store's last rendering of it, and the new entries are its newest. At
    /// 100k entries this turns a full re-render into a copy. `None`: render it whole.
    fn spliced_archive(
        &self,
        f: FileKind,
        now: Option<&(Vec<u8>, crate::model::FileStamp)>,
    ) -> Result<Option<String>> {
        if f != FileKind::Archive || self.archive_other || self.archive_added.is_empty() {
            return Ok(None);
        }
        let Some((bytes, disk)) = now else {
            return Ok(None);
        };
        if self.store.stamp(f)?.is_none_or(|s| s.sha1 != disk.sha1) {
            return Ok(None);
        }
        let Ok(old) = std::str::from_utf8(bytes) else {
            return Ok(None);
        };
        let k = self.archive_added.len();
        let top = self.store.file_entries(f, 0, k)?;
        let added: HashSet<&str> = self.archive_added.iter().map(String::as_str).collect();
        if top.len() != k || top.iter().any(|e| !added.contains(e.id.as_str())) {
            return Ok(None);
        }
        let preamble = match self.store.preamble(f)? {
            Some(p) => p,
            None => scaffold::template_preamble(f, self.lang()),
        };
        let head = markdown::render(
            &Doc {
                preamble: preamble.clone(),
                blocks: top.iter().map(|e| entry_block(e, self.lang())).collect(),
            },
            None,
        );
        let prefix = markdown::render(
            &Doc {
                preamble,
                blocks: Vec::new(),
            },
            None,
        );
        // the file is `prefix` alone (no entries yet), or the old entries after `prefix` (less
        // its newline) and a blank line; an empty preamble renders as "\n" and no prefix
        let rest = if old == prefix {
            None
        } else if prefix == "\n" {
            Some(old)
        } else {
            let p = prefix.strip_suffix('\n').unwrap_or(&prefix);
            match old.strip_prefix(p).and_then(|r| r.strip_prefix("\n\n")) {
                Some(r) => Some(r),
                None => return Ok(None),
            }
        };
        let text = match rest {
            None => head,
            Some(rest) => format!("{}\n\n{rest}", head.strip_suffix('\n').unwrap_or(&head)),
        };
        debug_assert_eq!(
            text,
            render_file(&self.store, f, self.lang())?,
            "the spliced archive equals the full rendering"
        );
        Ok(Some(text))
    }
}

/// Sleep at a named point when `TRILOGY_PAUSE_AT=<name>:<ms>` names it, so the race tests can
/// change a file while a real process is between absorbing and writing.
fn pause_point(name: &str) {
    if let Some(v) = std::env::var_os("TRILOGY_PAUSE_AT")
        && let Some((n, ms)) = v.to_string_lossy().split_once(':')
        && n == name
        && let Ok(ms) = ms.parse::<u64>()
    {
        std::thread::sleep(std::time::Duration::from_millis(ms));
    }
}

/// Die like `kill -9` at a named point when `TRILOGY_CRASH_AT` names it: the crash tests use
/// this to stop a real process between writing the files and committing the store.
pub fn crash_point(name: &str) {
    if std::env::var_os("TRILOGY_CRASH_AT").is_some_and(|v| v == name) {
        std::process::abort();
    }
}

/// An entry as found in a file.
struct Item {
    id: String,
    kind: EntryKind,
    heading: String,
    body: String,
    state: State,
    superseded_by: Option<String>,
    sort_date: NaiveDate,
}

/// Entries of a parsed entry file; an undated entry takes the date of the nearest dated entry
/// above it (else below it, else today), so it keeps its place. Duplicates collapse.
fn items_of(f: FileKind, doc: &Doc, today: NaiveDate) -> Vec<Item> {
    let dates: Vec<Option<NaiveDate>> = doc
        .blocks
        .iter()
        .map(|b| heading_date(&b.heading))
        .collect();
    let mut out: Vec<Item> = Vec::with_capacity(doc.blocks.len());
    let mut ids = HashSet::new();
    for (i, block) in doc.blocks.iter().enumerate() {
        let sort_date = dates[i]
            .or_else(|| dates[..i].iter().rev().flatten().next().copied())
            .or_else(|| dates[i..].iter().flatten().next().copied())
            .unwrap_or(today);
        let (kind, state, body, superseded_by) = match f {
            FileKind::Decisions => {
                let (body, by) = split_superseded(&block.body);
                let state = if by.is_some() {
                    State::Superseded
                } else {
                    State::Live
                };
                (EntryKind::Decision, state, body, by)
            }
            FileKind::Archive => (
                EntryKind::Session,
                State::Archived,
                block.body.clone(),
                None,
            ),
            _ => (EntryKind::Session, State::Live, block.body.clone(), None),
        };
        let body = keep_readable(body);
        let id = entry_id(kind, &block.heading, &body);
        if !ids.insert(id.clone()) {
            continue;
        }
        out.push(Item {
            id,
            kind,
            heading: block.heading.clone(),
            body,
            state,
            superseded_by,
            sort_date,
        });
    }
    out
}

/// A body that would swallow what follows it once entries are re-ordered (an unclosed fence
/// or HTML block at the end of a file) is closed or escaped; every other body is kept as is.
fn keep_readable(body: String) -> String {
    let risky = body.contains('`') || body.contains('~') || body.contains('<');
    if !risky || markdown::reads_back(&body) {
        body
    } else {
        markdown::safe_body(&body)
    }
}

const SUPERSEDED_PREFIXES: [&str; 2] = ["已被取代：", "Superseded by:"];

/// Split the superseded marker (last body line) off a decision body.
fn split_superseded(body: &str) -> (String, Option<String>) {
    let (head, last) = match body.rfind('\n') {
        Some(i) => (&body[..i], &body[i + 1..]),
        None => ("", body),
    };
    for p in SUPERSEDED_PREFIXES {
        if let Some(rest) = last.strip_prefix(p) {
            return (head.trim_end().to_string(), Some(rest.trim().to_string()));
        }
    }
    (body.to_string(), None)
}

/// The block of a stored entry as it appears in its file.
pub fn entry_block(rec: &EntryRecord, lang: Lang) -> Block {
    let mut body = rec.body.clone();
    if rec.state == State::Superseded {
        let by = rec.superseded_by.as_deref().unwrap_or("");
        if !body.is_empty() {
            body.push('\n');
        }
        body.push_str(model::labels(lang).superseded);
        body.push_str(by);
        body.truncate(body.trim_end().len());
    }
    Block::new(rec.heading.clone(), body)
}

/// The pointer line left at the end of SESSIONS.md.
pub fn pointer_line(count: u64, lang: Lang) -> String {
    match lang {
        Lang::Zh => format!(
            "{} {count} 条（见 `SESSIONS-archive.md`，不会自动注入，需要时用 `memory_read` 读取）。",
            markdown::POINTER_PREFIXES[0]
        ),
        Lang::En => format!(
            "{}: {count} in `SESSIONS-archive.md` (never injected automatically; read it with `memory_read`).",
            markdown::POINTER_PREFIXES[1]
        ),
    }
}

/// Render one file from the store: deterministic, byte for byte.
pub fn render_file(r: &dyn Reader, f: FileKind, lang: Lang) -> Result<String> {
    let preamble = match r.preamble(f)? {
        Some(p) => p,
        None => scaffold::template_preamble(f, lang),
    };
    let mut doc = Doc {
        preamble,
        blocks: Vec::new(),
    };
    let mut trailer = None;
    match f {
        FileKind::Project => {
            doc.blocks = r
                .sections()?
                .into_iter()
                .filter(|s| !s.removed)
                .map(|s| Block::new(s.heading, s.body))
                .collect();
        }
        _ => {
            doc.blocks = r
                .file_entries(f, 0, usize::MAX)?
                .iter()
                .map(|e| entry_block(e, lang))
                .collect();
            if f == FileKind::Sessions {
                let archived = r.file_count(FileKind::Archive)?;
                if archived > 0 {
                    trailer = Some(pointer_line(archived, lang));
                }
            }
        }
    }
    Ok(markdown::render(&doc, trailer.as_deref()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn superseded_marker_splits_off_the_last_line() {
        assert_eq!(
            split_superseded("选择：a\n已被取代：2026-01-02 — b"),
            ("选择：a".to_string(), Some("2026-01-02 — b".to_string()))
        );
        assert_eq!(split_superseded("选择：a"), ("选择：a".to_string(), None));
    }

    #[test]
    fn undated_entry_takes_the_date_above_it() {
        let doc = Doc {
            preamble: String::new(),
            blocks: vec![
                Block::new("2026-02-01", "a"),
                Block::new("free note", "b"),
                Block::new("2026-01-01", "c"),
            ],
        };
        let today = NaiveDate::from_ymd_opt(2030, 1, 1).unwrap();
        let items = items_of(FileKind::Sessions, &doc, today);
        assert_eq!(
            items[1].sort_date,
            NaiveDate::from_ymd_opt(2026, 2, 1).unwrap()
        );
    }
}
