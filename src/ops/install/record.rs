//! What `install` created, so that `uninstall` takes out exactly that and leaves what was
//! there before: a file, a folder, a settings key (`hooks`, `hooks.Stop`, `mcpServers`, …), a
//! permission rule, a pointer region. Kept outside any project, in
//! `$XDG_STATE_HOME/trilogy/installs/`, one small JSON file per host, scope and folder.
//!
//! Without a record (trilogy was installed on another machine, or the state was cleared)
//! `uninstall` falls back to a rule per item, given by its caller: containers our entries
//! leave empty go, shared files keep their regions. Writing the record is best effort: a
//! record that cannot be kept only makes a later `uninstall` fall back.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use sha1::{Digest, Sha1};

use super::InstallOptions;
use crate::error::{Error, Result};

/// One item `install` made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Made {
    /// A file that did not exist.
    File,
    /// A folder that did not exist.
    Dir,
    /// A key (a dotted path inside the file) that was not there.
    Key,
    /// An entry of a list (a permission rule) that was not there.
    Entry,
    /// The trilogy region of a Markdown pointer file.
    Region,
}

impl Made {
    fn tag(self) -> &'static str {
        match self {
            Made::File => "file",
            Made::Dir => "dir",
            Made::Key => "key",
            Made::Entry => "entry",
            Made::Region => "region",
        }
    }
}

/// The record of one host, scope and folder.
#[derive(Debug, Default)]
pub(super) struct Record {
    path: Option<PathBuf>,
    made: BTreeSet<String>,
    /// A record was on disk: `uninstall` trusts it instead of the fallback.
    found: bool,
}

fn item(kind: Made, path: &Path, key: &str) -> String {
    format!("{}\t{}\t{key}", kind.tag(), path.display())
}

impl Record {
    /// The record for these options (empty when there is none, or no state folder).
    pub fn load(opts: &InstallOptions) -> Result<Record> {
        let Some(state) = &opts.state else {
            return Ok(Record::default());
        };
        let base = match opts.scope {
            super::Scope::Project => &opts.root,
            super::Scope::User => &opts.home,
        };
        let mut who = format!(
            "{}\n{:?}\n{}",
            opts.target.name(),
            opts.scope,
            base.display()
        );
        // Windsurf's server entry is the user's, its rules file the project's: one record
        // per project
        if opts.target == super::Target::Windsurf {
            who = format!("{who}\n{}", opts.root.display());
        }
        let name: String = Sha1::digest(who.as_bytes())[..10]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        let path = state.join("installs").join(format!("{name}.json"));
        let made = match super::settings::read_optional(&path)? {
            Some(text) => Some(serde_json::from_str::<Vec<String>>(&text).map_err(|e| {
                Error::Unparseable {
                    path: path.clone(),
                    line: 1,
                    reason: format!("not an install record ({e}); delete it to go on"),
                }
            })?),
            None => None,
        };
        Ok(Record {
            found: made.is_some(),
            made: made.unwrap_or_default().into_iter().collect(),
            path: Some(path),
        })
    }

    pub fn note(&mut self, kind: Made, path: &Path, key: &str) {
        self.made.insert(item(kind, path, key));
    }

    /// May `uninstall` take this out? What the record says, else `fallback`.
    pub fn undo(&self, kind: Made, path: &Path, key: &str, fallback: bool) -> bool {
        if self.found {
            self.made.contains(&item(kind, path, key))
        } else {
            fallback
        }
    }

    /// Keep the record after `install` (best effort).
    pub fn save(&self) {
        let Some(path) = &self.path else { return };
        let text = serde_json::to_string_pretty(&self.made).unwrap_or_default();
        let written = path
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .map_err(|e| Error::io(path, e))
            .and_then(|()| crate::workspace::write_atomic(path, format!("{text}\n").as_bytes()));
        if let Err(e) = written {
            tracing::debug!(error = %e, "could not keep the install record");
        }
    }

    /// Drop the record after `uninstall` (best effort).
    pub fn forget(&self) {
        if let Some(path) = &self.path {
            let _ = std::fs::remove_file(path);
        }
    }
}
