//! Credentials written into the memory files by hand. They were absorbed like any edit (the
//! store never loses what a person wrote), so they are reported here, by file and line, for
//! `status` and `doctor`; the search index and the session-start block leave the entries
//! that hold them out (see [`crate::secrets::in_record`]) until the person removes them.
//!
//! Checkpoints never get this far: their input is refused before anything is stored.

use serde::Serialize;

use crate::error::Result;
use crate::model::{FileKind, Lang};
use crate::store::Reader;
use crate::workspace::render_file;

pub use crate::secrets::{Finding, find, find_all, in_record};

/// A credential in a memory file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Sighting {
    pub file: &'static str,
    /// 1-based line and column in the file.
    pub line: usize,
    pub column: usize,
    /// What it looks like ("a GitHub token", …).
    pub kind: &'static str,
    /// The match with its middle masked.
    pub masked: String,
}

/// What to do about a sighting.
pub const ACTION: &str = "delete it from the file (and revoke it if the file was ever committed); until then its entry is kept out of search and the session-start block";

impl std::fmt::Display for Sighting {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}:{}:{}: looks like {} ({})",
            self.file, self.line, self.column, self.kind, self.masked
        )
    }
}

/// Every credential in `text`, the rendered bytes of `file`.
pub fn in_text(file: FileKind, text: &str) -> Vec<Sighting> {
    find_all(text)
        .into_iter()
        .map(|f| Sighting {
            file: file.file_name(),
            line: f.line,
            column: f.column,
            kind: f.kind,
            masked: f.masked,
        })
        .collect()
}

/// Every credential the live files hold (PROJECT, DECISIONS, SESSIONS), as the store renders
/// them. Entries are checked one by one first, so only a file that holds one is rendered to
/// locate it. The archive (up to 100k entries) is left to `doctor`, which renders every file.
pub fn in_files(r: &dyn Reader, lang: Lang) -> Result<Vec<Sighting>> {
    let mut out = Vec::new();
    for f in [FileKind::Project, FileKind::Decisions, FileKind::Sessions] {
        let mut suspect = r.preamble(f)?.is_some_and(|p| find(&p).is_some());
        if !suspect {
            if f == FileKind::Project {
                suspect = r
                    .sections()?
                    .iter()
                    .any(|s| !s.removed && in_record(s).is_some());
            } else {
                // the store marks the entries that hold one as it writes them
                suspect = !r.marks(&crate::model::marks::secrets_in(f))?.is_empty();
            }
        }
        if suspect {
            out.extend(in_text(f, &render_file(r, f, lang)?));
        }
    }
    Ok(out)
}
