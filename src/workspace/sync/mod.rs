//! The sync protocol (DESIGN §3): inside one write transaction, absorb what changed in the
//! files, apply the operation, project the affected files, commit.
//!
//! Crash safety comes from the order: files are written (atomically) before the commit, and
//! absorbing compares each file with the store's own rendering of it, so after a crash at any
//! point the next command either finds the files equal to the store or absorbs the newer file
//! content; ids are content hashes, so nothing is duplicated.
//!
//! Children: `apply` turns parsed files into store changes, `render` projects the store back
//! into file bytes, `project` writes the files and commits (steps 4 and 5), `late` keeps what
//! a writer saved into a file after trilogy replaced it, `sections` merges a save of PROJECT.md
//! (or USER.md) by section and line.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::error::{Error, Result};
use crate::markdown::ParseError;
use crate::model::{
    EntryKind, EntryRecord, FileKind, Lang, SectionRecord, State, entry_id, heading_date,
};
use crate::store::{Reader, WriteTx};

use super::{Workspace, fsio};

mod absorb;
mod apply;
mod author;
mod base;
pub(crate) mod gitlock;
pub(crate) mod gitop;
mod grown;
mod items;
pub(in crate::workspace) mod late;
mod merged;
mod overwritten;
mod project;
mod render;
mod sections;
mod stream;
mod switch;
mod wholesale;

pub use author::Author;
pub use render::{file_head, render_file};
pub use stream::check_in_chunks;
pub(crate) use wholesale::{CLEAR_ARCHIVE, CLEARED};
pub use wholesale::{ClearedCounts, entry_ids, live_entries};

/// How long absorbing waits for a file someone is writing to go quiet before leaving it for a
/// later command.
const QUIET_LIMIT: std::time::Duration = std::time::Duration::from_millis(500);

/// How long a file that ends mid-line must have gone unwritten before it is read as a save.
const MID_LINE_QUIET: std::time::Duration = std::time::Duration::from_millis(300);

/// The operation's view of the open write transaction.
pub struct Tx<'w> {
    pub ws: &'w Workspace,
    store: WriteTx,
    /// Who writes, when, for which session: stamped on what is recorded (see `author`).
    author: Author,
    /// Where git stands: the head, a branch switch, its index lock.
    git: GitView,
    /// Sibling work trees' stores, opened (read-only) once an entry arrives by a merge.
    sibling_stores: Option<Vec<crate::store::Store>>,
    /// Who committed the entries git's recent commits added (see `merged`), read once.
    committers: Option<merged::Committers>,
    dirty: BTreeSet<FileKind>,
    /// What the memory files held when this transaction looked at them.
    files: FilesSeen,
    /// Whether this transaction writes the files (a read of a read-only folder only absorbs).
    pub(super) project: bool,
    /// Entries moved between files in this transaction: (from, to).
    moves: BTreeSet<(FileKind, FileKind)>,
    /// What entered the archive (see [`ArchiveAdds`]).
    archive: ArchiveAdds,
    changed: bool,
    /// This transaction clears the memory: the files are deleted instead of written.
    clearing: bool,
    report: SyncReport,
}

/// Where git stands for one transaction.
#[derive(Default)]
struct GitView {
    /// The git head of the work tree now (see `gitop::head`).
    head: Option<String>,
    /// The head the files were last looked at under, when a branch switch came between: the
    /// files follow the checkout, and what they lack now is `elsewhere`, not removed.
    switched_from: Option<String>,
    moves_of_switch: switch::Moves,
    /// Git's index lock, taken once a file must be read or written (see `gitlock`).
    lock: GitHold,
    /// Files whose writing a git operation deferred, with the first sequence number recorded
    /// since (entries from it on were never in the file, so their absence is not a removal).
    pending: HashMap<FileKind, u64>,
    /// The sequence number the first entry recorded in this transaction gets (or later).
    seq_floor: u64,
    /// Files found exactly as git's index has them.
    same_as_index: BTreeSet<FileKind>,
    /// Of those, the ones absorb read (not a whole-file write taken as meant): what they bring
    /// that the store lacks came with git.
    absorbed_from_index: BTreeSet<FileKind>,
}

/// What one transaction found in the memory files, and what absorbing them recorded.
#[derive(Default)]
struct FilesSeen {
    /// SHA-1 of each file as absorb saw it (`None`: missing).
    seen: HashMap<FileKind, Option<String>>,
    broken: BTreeMap<FileKind, ParseError>,
    /// Files found empty moments after they were modified: another program is most likely
    /// between truncating and writing them, so this command neither absorbs nor replaces them.
    deferred: BTreeSet<FileKind>,
    /// Files a fresh import found exactly as the store renders them, untouched since.
    as_read: BTreeSet<FileKind>,
    /// Per file, the SHA-1 of the version a whole-file writer says its text was made from.
    named: HashMap<FileKind, String>,
    /// A save of PROJECT.md being merged: a hash of its lines, and the store's lines it lacks.
    section_save: Option<(u64, Vec<u64>)>,
    /// Per file parsed by the last `apply_docs`, its entries as read.
    prints: HashMap<FileKind, Vec<crate::store::Print>>,
    /// Versions found on disk and absorbed: (file, SHA-1, entries), recorded at the end.
    versions: Vec<(FileKind, String, Vec<crate::store::Print>)>,
    /// Stamps of the files absorbed (parsed) in this transaction.
    stamps: HashMap<FileKind, crate::model::FileStamp>,
    /// Displaced versions whose late saves this transaction took, with the name each gets
    /// once the transaction is committed (see `late`): renamed earlier, a transaction dropped
    /// and run again would take them for unchanged and lose what they added.
    late_taken: Vec<(std::path::PathBuf, std::path::PathBuf)>,
}

/// Entries that entered the archive in one transaction, and whether anything else about the
/// archive changed: when only entries entered, and they are its newest, the archive is
/// written by splicing them onto the file instead of rendering it whole.
#[derive(Default)]
struct ArchiveAdds {
    added: Vec<String>,
    other: bool,
}

/// Git's index lock in a transaction.
#[derive(Debug, Default)]
enum GitHold {
    #[default]
    Unasked,
    /// Held until this is replaced or dropped.
    Held {
        _lock: gitlock::IndexLock,
    },
    Busy,
    NoRepo,
}

/// What the protocol did around the operation.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct SyncReport {
    /// One line per change absorbed from the files (hand edits, pulls, crash leftovers).
    pub absorbed: Vec<String>,
    /// Files rewritten.
    pub written: Vec<String>,
    /// Files left untouched because they do not parse.
    pub unparseable: Vec<Broken>,
    /// Why the files were not written although the store changed (a git operation under way,
    /// a read-only memory folder); the first command able to write them does.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub files_deferred: Option<String>,
}

/// A memory file that does not parse.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
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

/// What a read or a write of the memory gives: its result, and what bringing the files and
/// the store together around it did (hand edits absorbed, files written or deferred).
#[derive(Debug, Clone)]
pub struct Synced<R> {
    pub value: R,
    pub report: SyncReport,
}

impl<'w> Tx<'w> {
    pub(super) fn new(ws: &'w Workspace, store: WriteTx, actor: &str) -> Tx<'w> {
        let head = ws.git().and_then(gitop::head);
        Tx {
            ws,
            store,
            author: Author::new(actor, &ws.clock, head.as_deref().and_then(gitop::branch_of)),
            git: GitView {
                head,
                seq_floor: 1,
                ..GitView::default()
            },
            sibling_stores: None,
            committers: None,
            dirty: BTreeSet::new(),
            files: FilesSeen::default(),
            project: true,
            moves: BTreeSet::new(),
            archive: ArchiveAdds::default(),
            changed: false,
            clearing: false,
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
        if let Some(e) = self.files.broken.get(&file) {
            return Err(Error::WouldOverwrite {
                path: self.ws.file_path(file),
                line: e.line,
                reason: e.reason.clone(),
            });
        }
        self.dirty.insert(file);
        self.files.as_read.remove(&file);
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
            self.archive.added.push(rec.id.clone());
        } else if is || was {
            self.archive.other = true;
        }
        self.store.put_entry_over(rec, old)
    }

    /// Put `rec`'s provenance (store-only metadata, never in the files) in place of what the
    /// store holds for it; nothing else of the entry may differ, and nothing is re-rendered.
    pub fn put_provenance(&mut self, rec: &EntryRecord) -> Result<()> {
        match self.store.entry(&rec.id)? {
            Some(old)
                if (EntryRecord {
                    origin: rec.origin.clone(),
                    ..old.clone()
                }) == *rec =>
            {
                self.changed = true;
                self.store.put_entry_over(rec, Some(old))
            }
            _ => Err(crate::error::Error::Internal(format!(
                "entry {}: only its provenance may change here",
                rec.id
            ))),
        }
    }

    /// A new live record (not yet stored) dated by its heading, or today.
    pub fn new_entry(&self, kind: EntryKind, heading: String, body: String) -> Result<EntryRecord> {
        Ok(EntryRecord {
            id: entry_id(kind, &heading, &body),
            kind,
            sort_date: heading_date(&heading).unwrap_or(self.author.today),
            heading,
            body,
            state: State::Live,
            seq: self.store.next_seq()?,
            superseded_by: None,
            replaced_by: None,
            created_at: self.author.now.clone(),
            actor: self.author.actor.clone(),
            origin: self.author.origin.clone(),
        })
    }

    /// Write a section as a new revision (PROJECT.md is re-rendered).
    pub fn put_section(&mut self, rec: &SectionRecord) -> Result<()> {
        self.touch(FileKind::Project)?;
        self.store
            .put_section(rec, &self.author.now, &self.author.actor)
    }

    /// Append to the event log; the event's sequence number.
    pub fn log(&mut self, op: &str, ids: Vec<String>, detail: &str) -> Result<u64> {
        self.changed = true;
        if self.author.actor == "file-edit" || self.author.actor == GIT {
            self.report.absorbed.push(format!("{op} {detail}"));
        }
        self.store
            .log(&self.author.now, &self.author.actor, op, ids, detail)
    }

    /// Update a report (closing it).
    pub fn put_report(&mut self, r: &crate::model::Report) -> Result<()> {
        self.changed = true;
        self.store.put_report(r)
    }

    /// Store a `notes` report for the user.
    pub fn add_report(&mut self, text: &str) -> Result<u64> {
        self.changed = true;
        self.store
            .add_report(&self.author.now, &self.author.actor, text)
    }

    /// Store a proposal (see `ops::checkpoint::propose`).
    pub fn put_proposal(&mut self, p: &crate::model::Proposal) -> Result<()> {
        self.changed = true;
        self.store.put_proposal(p)
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
        &self.files.broken
    }

    // ---- protocol steps -------------------------------------------------------------------

    /// Hold git's index lock for the rest of this transaction (taken once); the git operation
    /// under way when it cannot be had, in which case the files are neither read nor written.
    pub(super) fn hold_git(&mut self) -> Option<&'static str> {
        // asked again after git was found busy (the files to write, after absorbing): git may
        // be done by now
        if matches!(self.git.lock, GitHold::Held { .. } | GitHold::NoRepo) {
            return None;
        }
        let Some(root) = self.ws.git() else {
            self.git.lock = GitHold::NoRepo;
            return None;
        };
        match gitlock::take(root) {
            gitlock::Taken::Held(l) => self.git.lock = GitHold::Held { _lock: l },
            gitlock::Taken::NoRepo => self.git.lock = GitHold::NoRepo,
            gitlock::Taken::Busy(why) => {
                self.git.lock = GitHold::Busy;
                return Some(why);
            }
        }
        None
    }

    /// Let go of git's index lock: the files are written (or left for later).
    pub(super) fn release_git(&mut self) {
        if let GitHold::Held { .. } = self.git.lock {
            self.git.lock = GitHold::Unasked;
        }
    }

    /// Record the versions read from disk in this transaction (before any written in their place).
    pub(super) fn record_read_versions(&mut self) -> Result<()> {
        for (f, sha1, prints) in std::mem::take(&mut self.files.versions) {
            self.record_version(f, &sha1, prints)?;
        }
        Ok(())
    }
}

/// The actor of what a branch switch changed: a checkout, not a person's edit (live sessions
/// are not told of it, nothing it takes out of the files counts as removed).
pub(crate) const CHECKOUT: &str = "git-checkout";

/// The actor of an entry first read from a version of its file git holds (not a first import,
/// not a checkout): recorded in another clone or work tree, it arrived by a merge or a pull.
pub(crate) const MERGED: &str = "git-merge";

/// The actor of what a version of a file git wrote took out of it (outside a branch switch):
/// a checkout or reset of the file, a pull or merge.
pub(crate) const GIT: &str = "git";

/// Store meta key: the first sequence number recorded while git kept `f` from being written.
pub fn pending_key(f: FileKind) -> String {
    format!("pending_since:{}", f.file_name())
}

/// Store meta key: 1 when the stamp of `f` is of a version trilogy wrote itself (0: one it
/// read, a person's save).
pub(crate) fn written_key(f: FileKind) -> String {
    format!("written_by_trilogy:{}", f.file_name())
}
