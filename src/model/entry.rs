//! Entries and their states: an append-only entry's kind, lifecycle and content-addressed id,
//! and the record the store keeps of it with where it came from.

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};
use sha1::{Digest, Sha1};

use super::{CATCH_ALL_AREA, FileKind, area_name, heading_area, heading_date, read_fields};

/// Kind of an append-only entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EntryKind {
    Session,
    Decision,
}

impl EntryKind {
    pub fn as_str(self) -> &'static str {
        match self {
            EntryKind::Session => "session",
            EntryKind::Decision => "decision",
        }
    }
}

/// Lifecycle of an entry. Nothing is physically deleted by normal operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum State {
    /// In SESSIONS.md or DECISIONS.md.
    Live,
    /// Moved to SESSIONS-archive.md.
    Archived,
    /// A decision replaced by a later one: still in DECISIONS.md, marked, not injected.
    Superseded,
    /// An entry edited by hand: the edited text is a new entry, this is the old one.
    Replaced,
    /// Deleted from a file by hand; restorable.
    Removed,
    /// No longer true, by a person's word (`trilogy retire`): still in its file, marked with
    /// the date and why, not injected, restorable.
    Retired,
    /// Taken out of the files by a branch switch: it belongs to the branch whose file last held
    /// it (named in `superseded_by`), is neither live here nor removed, and is live again when
    /// that branch is checked out.
    Elsewhere,
}

impl State {
    pub fn as_str(self) -> &'static str {
        match self {
            State::Live => "live",
            State::Archived => "archived",
            State::Superseded => "superseded",
            State::Replaced => "replaced",
            State::Removed => "removed",
            State::Retired => "retired",
            State::Elsewhere => "elsewhere",
        }
    }

    /// The file an entry of `kind` in this state is rendered into, if any.
    pub fn file(self, kind: EntryKind) -> Option<FileKind> {
        match (kind, self) {
            (EntryKind::Session, State::Live | State::Retired) => Some(FileKind::Sessions),
            (EntryKind::Session, State::Archived) => Some(FileKind::Archive),
            (EntryKind::Decision, State::Live | State::Superseded | State::Retired) => {
                Some(FileKind::Decisions)
            }
            _ => None,
        }
    }
}

/// Short content-addressed id of an entry: SHA-1 of kind, heading and body.
pub fn entry_id(kind: EntryKind, heading: &str, body: &str) -> String {
    let mut h = Sha1::new();
    h.update(kind.as_str().as_bytes());
    h.update(b"\n");
    h.update(heading.as_bytes());
    h.update(b"\n");
    h.update(body.as_bytes());
    let digest = h.finalize();
    crate::base::hex::lower(&digest[..6])
}

/// Where an entry came from, kept in the store only (never rendered).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Origin {
    /// The agent host's session id, when an agent wrote it.
    pub agent_session: Option<String>,
    /// Git branch checked out when it was written.
    pub branch: Option<String>,
}

/// An append-only entry as the store keeps it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EntryRecord {
    pub id: String,
    pub kind: EntryKind,
    /// Heading text after `## `.
    pub heading: String,
    /// Body lines after the heading, verbatim, trailing whitespace trimmed.
    pub body: String,
    pub state: State,
    /// Insertion sequence; orders entries of one date (higher = newer = higher in the file).
    pub seq: u64,
    /// Date used for ordering: the heading's date, or the neighbour's for an undated entry.
    #[serde(with = "super::dates::days_from_ce")]
    pub sort_date: NaiveDate,
    /// For a superseded decision: heading of the decision that replaced it. For a retired
    /// entry: `YYYY-MM-DD — why` (its marker line after the label). For an entry elsewhere:
    /// the git head (`ref: refs/heads/NAME` or a commit id) whose file last held it.
    pub superseded_by: Option<String>,
    /// For a replaced entry: the id of the entry that replaced it.
    pub replaced_by: Option<String>,
    /// RFC 3339 time the store first saw it.
    pub created_at: String,
    pub actor: String,
    pub origin: Origin,
}

impl EntryRecord {
    /// The file this entry is rendered into, if any.
    pub fn file(&self) -> Option<FileKind> {
        self.state.file(self.kind)
    }

    pub fn date(&self) -> Option<NaiveDate> {
        heading_date(&self.heading)
    }

    /// A session's area is in its heading; a decision's in its `区域：` / `Area:` line.
    pub fn area(&self) -> String {
        match self.kind {
            EntryKind::Session => heading_area(&self.heading),
            EntryKind::Decision => read_fields(&self.body)
                .area
                .map(|a| area_name(&a))
                .filter(|a| !a.is_empty())
                .unwrap_or_else(|| CATCH_ALL_AREA.to_string()),
        }
    }
}

impl crate::secrets::Headed for EntryRecord {
    fn heading(&self) -> &str {
        &self.heading
    }
    fn body(&self) -> &str {
        &self.body
    }
}
