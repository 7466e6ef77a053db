//! What `install` created, so that `uninstall` takes out exactly that and leaves what was
//! there before: a file, a folder, a settings key (`hooks`, `hooks.Stop`, `mcpServers`,
//! `mcpServers.trilogy`, …), a permission rule, a pointer region; each file's bytes before
//! install ([`Snapshot`]), and a user's own server entry that `--force` replaced. Kept outside
//! any project, in `$XDG_STATE_HOME/trilogy/installs/` (private: the snapshots are copies of
//! the user's settings), one small JSON file per host, scope and folder.
//!
//! Without a record (trilogy was installed on another machine, or the state was cleared)
//! `uninstall` falls back to a rule per item, given by its caller: containers our entries
//! leave empty go, shared files keep their regions.
//!
//! A file the records of two projects hold (Windsurf's user-level server, which every project
//! installs) is given back only by the last uninstall: an earlier one leaves the file and hands
//! what it knows of it to a record that still holds it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::InstallOptions;
use crate::error::{Error, Result};
use crate::model::host::Host;

/// One item `install` made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Made {
    /// A file that did not exist.
    File,
    /// A folder that did not exist.
    Dir,
    /// A key (a dotted path inside the file) that was not there, or our server entry.
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

/// A file as it was before install first changed it, and what install left in it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub(super) struct Snapshot {
    /// The bytes before install; `None`: the file did not exist.
    pub before: Option<String>,
    /// Digest of what install wrote.
    pub after: String,
    /// Digest of what install wrote with ours taken out again: a file that comes to this
    /// shape at uninstall changed only where we wrote (a refreshed block), and gets `before`.
    pub bare: String,
    /// When it was taken (ms since the epoch): of two records' snapshots, the older is the
    /// user's file.
    pub at: u64,
}

/// The record as kept on disk.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct Data {
    #[serde(default)]
    made: BTreeSet<String>,
    /// Path → the file before install.
    #[serde(default)]
    files: BTreeMap<String, Snapshot>,
    /// `path\tkey` → the user's own entry (JSON) that `--force` replaced.
    #[serde(default)]
    replaced: BTreeMap<String, serde_json::Value>,
    /// Path → the whitespace the file ended with before a region was appended to it.
    #[serde(default)]
    tails: BTreeMap<String, String>,
}

/// An older trilogy kept only the list of items.
#[derive(Deserialize)]
#[serde(untagged)]
enum OnDisk {
    Data(Data),
    Items(Vec<String>),
}

/// The record of one host, scope and folder.
#[derive(Debug, Clone, Default)]
pub(super) struct Record {
    path: Option<PathBuf>,
    data: Data,
    /// A record was on disk: `uninstall` trusts it instead of the fallback.
    found: bool,
    /// It was kept by an older trilogy, which noted no server entry.
    legacy: bool,
}

fn item(kind: Made, path: &Path, key: &str) -> String {
    format!("{}\t{}\t{key}", kind.tag(), path.display())
}

/// The path an item names.
fn item_path(item: &str) -> &str {
    item.split('\t').nth(1).unwrap_or_default()
}

/// Digest of a file's content; `None` (no file) has its own.
pub(super) fn digest(text: Option<&str>) -> String {
    match text {
        Some(t) => crate::base::hex::sha1_prefix(t.as_bytes(), 10),
        None => "-".into(),
    }
}

use crate::base::clock::wall_ms as now_ms;

fn read_data(path: &Path) -> Result<Option<Data>> {
    Ok(read_on_disk(path)?.map(|(d, _)| d))
}

/// The record at `path`, and whether an older trilogy kept it.
fn read_on_disk(path: &Path) -> Result<Option<(Data, bool)>> {
    let Some(text) = crate::workspace::read_text_file(path, crate::workspace::MAX_FILE_BYTES)?
    else {
        return Ok(None);
    };
    let parsed = serde_json::from_str::<OnDisk>(&text).map_err(|e| Error::Unparseable {
        path: path.to_path_buf(),
        line: 1,
        reason: format!("not an install record ({e}); delete it to go on"),
    })?;
    Ok(Some(match parsed {
        OnDisk::Data(d) => (d, false),
        OnDisk::Items(items) => {
            let made = items.into_iter().collect();
            (
                Data {
                    made,
                    ..Data::default()
                },
                true,
            )
        }
    }))
}

fn write_data(path: &Path, data: &Data) -> Result<()> {
    if let Some(dir) = path.parent() {
        crate::base::write::private_dir(dir).map_err(|e| Error::io(dir, e))?;
    }
    let text = serde_json::to_string_pretty(data).unwrap_or_default();
    crate::workspace::write_atomic(path, format!("{text}\n").as_bytes())?;
    crate::base::write::set_mode(path, 0o600).map_err(|e| Error::io(path, e))
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
            opts.target.as_str(),
            opts.scope,
            base.display()
        );
        // Windsurf's server entry is the user's, its rules file the project's: one record
        // per project
        if opts.target == Host::Windsurf {
            who = format!("{who}\n{}", opts.root.display());
        }
        let path = state
            .join("installs")
            .join(format!("{}.json", digest(Some(who.as_str()))));
        let data = read_on_disk(&path)?;
        Ok(Record {
            found: data.is_some(),
            legacy: data.as_ref().is_some_and(|d| d.1),
            data: data.map(|d| d.0).unwrap_or_default(),
            path: Some(path),
        })
    }

    pub fn note(&mut self, kind: Made, path: &Path, key: &str) {
        self.data.made.insert(item(kind, path, key));
    }

    /// Note the region `key` appended to `path`, which held `before`: uninstall ends the file
    /// with the whitespace it ended with then.
    pub fn note_region(&mut self, path: &Path, key: &str, before: Option<&str>) {
        self.note(Made::Region, path, key);
        if let Some(t) = before {
            let tail = &t[t.trim_end().len()..];
            let name = path.display().to_string();
            self.data
                .tails
                .entry(name)
                .or_insert_with(|| tail.to_string());
        }
    }

    /// The whitespace `path` ended with before install appended a region to it.
    pub fn tail(&self, path: &Path) -> Option<&str> {
        self.data
            .tails
            .get(&path.display().to_string())
            .map(String::as_str)
    }

    /// May `uninstall` take this out? What the record says, else `fallback`.
    pub fn undo(&self, kind: Made, path: &Path, key: &str, fallback: bool) -> bool {
        if self.found {
            self.noted(kind, path, key)
        } else {
            fallback
        }
    }

    /// May `uninstall` take out our server entry `key` of `path`? What the record says; an
    /// older trilogy's record, or none, says nothing of it: then `fallback`.
    pub fn undo_entry(&self, path: &Path, key: &str, fallback: bool) -> bool {
        if self.found && !self.legacy {
            self.noted(Made::Key, path, key)
        } else {
            fallback
        }
    }

    /// `looks`, when an older trilogy kept this record (it noted no server entry, so one
    /// that looks like ours is taken for ours); else false.
    pub fn legacy_looks(&self, looks: bool) -> bool {
        self.found && self.legacy && looks
    }

    /// Was a record on disk?
    pub fn found(&self) -> bool {
        self.found
    }

    /// Does the record hold this item?
    pub fn noted(&self, kind: Made, path: &Path, key: &str) -> bool {
        self.data.made.contains(&item(kind, path, key))
    }

    /// The folders install made, deepest first.
    pub fn dirs(&self) -> Vec<PathBuf> {
        let mut dirs: Vec<PathBuf> = self
            .data
            .made
            .iter()
            .filter(|i| i.starts_with("dir\t"))
            .map(|i| PathBuf::from(item_path(i)))
            .collect();
        dirs.sort_by_key(|d| std::cmp::Reverse(d.components().count()));
        dirs
    }

    /// Keep the user's own entry `key` of `path` that `--force` replaces (the first one only:
    /// a later install replaces our own).
    pub fn keep_replaced(&mut self, path: &Path, key: &str, entry: serde_json::Value) {
        let k = format!("{}\t{key}", path.display());
        self.data.replaced.entry(k).or_insert(entry);
    }

    /// The user's own entry `key` of `path` that install replaced.
    pub fn replaced(&self, path: &Path, key: &str) -> Option<&serde_json::Value> {
        self.data
            .replaced
            .get(&format!("{}\t{key}", path.display()))
    }

    /// The snapshot of `path`, if the record holds one.
    pub fn snapshot(&self, path: &Path) -> Option<&Snapshot> {
        self.data.files.get(&path.display().to_string())
    }

    /// The files the record holds snapshots of.
    pub fn snapshot_paths(&self) -> Vec<PathBuf> {
        self.data.files.keys().map(PathBuf::from).collect()
    }

    /// Forget the snapshot of `path`: the file changed since in ways we did not make, so
    /// uninstall takes ours out of it rather than giving back the old bytes.
    pub fn drop_snapshot(&mut self, path: &Path) {
        self.data.files.remove(&path.display().to_string());
    }

    /// Keep `before` as what `path` held before install (unless a snapshot is kept already),
    /// with what install writes now and that text's shape without us.
    pub fn take_snapshot(&mut self, path: &Path, before: Option<&str>, after: &str, bare: &str) {
        let entry = self
            .data
            .files
            .entry(path.display().to_string())
            .or_insert_with(|| Snapshot {
                before: before.map(str::to_string),
                after: String::new(),
                bare: String::new(),
                at: now_ms(),
            });
        entry.after = after.to_string();
        entry.bare = bare.to_string();
    }

    /// From now on the record is what this trilogy keeps (as if read back from disk): what
    /// uninstall would do is worked out from it, not from the fallback.
    pub fn settle(&mut self) {
        self.found = self.path.is_some();
        self.legacy = false;
    }

    /// Put the record back as it was loaded: kept again, or gone when there was none.
    pub fn put_back(&self) {
        if self.found {
            let _ = self.save();
        } else {
            self.forget();
        }
    }

    /// Keep the record (before any file is written, so a killed install leaves one).
    pub fn save(&self) -> Result<()> {
        match &self.path {
            Some(path) => write_data(path, &self.data),
            None => Ok(()),
        }
    }

    /// Drop the record after `uninstall` (best effort).
    pub fn forget(&self) {
        if let Some(path) = &self.path {
            let _ = std::fs::remove_file(path);
        }
    }

    /// The other records beside this one, with their paths.
    fn others(&self) -> Vec<(PathBuf, Data)> {
        let Some(dir) = self.path.as_deref().and_then(Path::parent) else {
            return Vec::new();
        };
        let Ok(list) = std::fs::read_dir(dir) else {
            return Vec::new();
        };
        let mut out: Vec<(PathBuf, Data)> = list
            .flatten()
            .map(|e| e.path())
            .filter(|p| Some(p.as_path()) != self.path.as_deref())
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .filter_map(|p| read_data(&p).ok().flatten().map(|d| (p, d)))
            .collect();
        out.sort_by(|a, b| a.0.cmp(&b.0));
        out
    }

    /// Does another record hold `path` (a user-level file another project installed into)?
    pub fn held_elsewhere(&self, kind: Made, path: &Path, key: &str) -> bool {
        let it = item(kind, path, key);
        self.others().iter().any(|(_, d)| d.made.contains(&it))
    }

    /// Leave `path` to another record that holds it: that record gets what this one knows of
    /// the file (its items, folders, the older snapshot, a replaced entry). Returns whether
    /// one did; the file is then left as it is.
    pub fn hand_over(&self, path: &Path) -> Result<bool> {
        let name = path.display().to_string();
        let Some((other_path, mut other)) = self
            .others()
            .into_iter()
            .find(|(_, d)| d.made.iter().any(|i| item_path(i) == name))
        else {
            return Ok(false);
        };
        let ours = |i: &&String| {
            let p = Path::new(item_path(i));
            item_path(i) == name || (i.starts_with("dir\t") && path.starts_with(p))
        };
        other
            .made
            .extend(self.data.made.iter().filter(ours).cloned());
        if let Some(mine) = self.snapshot(path) {
            let older = other.files.get(&name).is_none_or(|s| s.at > mine.at);
            if older {
                other.files.insert(name.clone(), mine.clone());
            }
        }
        let prefix = format!("{name}\t");
        for (k, v) in &self.data.replaced {
            if k.starts_with(&prefix) {
                other.replaced.entry(k.clone()).or_insert_with(|| v.clone());
            }
        }
        write_data(&other_path, &other)?;
        Ok(true)
    }
}
