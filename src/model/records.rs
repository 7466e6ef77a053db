//! The store's other records: a line of the event log, a report left for the person, a file's
//! stamp as last written, and what each cap of the session block left out.

use serde::{Deserialize, Serialize};

/// One line of the append-only event log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Event {
    pub seq: u64,
    /// RFC 3339.
    pub at: String,
    /// `cli`, `file-edit`, `mcp`, `hook:<session>`, …
    pub actor: String,
    /// `add`, `remove`, `replace`, `archive`, `restore`, `supersede`, `section`, `import`, …
    pub op: String,
    pub ids: Vec<String>,
    /// One human line: heading or section name.
    pub detail: String,
}

/// A `notes` report left for the user by a checkpoint.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Report {
    pub seq: u64,
    pub at: String,
    pub actor: String,
    pub text: String,
    pub open: bool,
}

/// Stat and hash of a file as trilogy last wrote (or absorbed) it.
#[derive(Debug, Clone, Eq, Serialize, Deserialize, Default)]
pub struct FileStamp {
    pub sha1: String,
    pub len: u64,
    pub mtime_ns: i128,
    pub ino: u64,
    /// Unix milliseconds read from the clock before the bytes were read or written (not
    /// stored: the store keeps it as the stamp's time). A stamp vouches for the file only when
    /// this is past the racy window of its mtime; a clock read *before* the I/O can only err
    /// towards distrust, however long the process is descheduled afterwards.
    #[serde(skip)]
    pub taken_ms: u64,
}

/// Two stamps describe the same file state whenever they were taken.
impl PartialEq for FileStamp {
    fn eq(&self, other: &FileStamp) -> bool {
        self.sha1 == other.sha1
            && self.len == other.len
            && self.mtime_ns == other.mtime_ns
            && self.ino == other.ino
    }
}

/// What each injection cap left out.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Dropped {
    pub sections_cut: Vec<String>,
    /// Live decisions left out: the block shows the newest ones whole, so these are the
    /// newest live decision not shown (`decisions_from`) and every live decision older than it.
    pub decisions: u64,
    pub decisions_from: Option<String>,
    pub sessions: Vec<String>,
}
