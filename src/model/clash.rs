//! A clash in a section: a save of PROJECT.md (or USER.md) and another writer changed the same
//! lines of one section since the copy the save was made from. Both versions are kept in the
//! section (the files never hold conflict markers) and `status` shows the clash while both still
//! stand there: deleting the one that is no longer true settles it.

use serde::{Deserialize, Serialize};

/// Lines of one section that two writers changed differently.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SectionClash {
    /// The section's key (see `section_key`).
    pub key: String,
    pub heading: String,
    /// When the save was taken in (RFC 3339).
    pub at: String,
    /// What the save put in place of the changed lines.
    pub saved: Vec<String>,
    /// What the other writer had put there (lines the save's writer never saw).
    pub other: Vec<String>,
}

impl SectionClash {
    /// Whether both versions still stand in `body`, the section's text now.
    pub fn stands_in(&self, body: &str) -> bool {
        let lines: Vec<&str> = body.lines().collect();
        let has = |l: &String| lines.contains(&l.as_str());
        self.saved.iter().any(has) && self.other.iter().any(has)
    }
}
