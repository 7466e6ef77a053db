//! What the sibling work trees' files held when last read, kept in this workspace's state
//! folder (`.trilogy/siblings.json`, written whole): a session start parses a
//! sibling's file only when its size or modification time moved, so eight siblings cost a few
//! stats, not eight parses. Losing or damaging the cache costs one parse, never memory.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

/// Largest cache read.
const MAX_CACHE_BYTES: u64 = 4 << 20;

/// One entry of a sibling's file: id, heading, body, date.
pub type Recent = (String, String, String, NaiveDate);

#[derive(Debug, Default, Serialize, Deserialize)]
pub struct Cache {
    files: BTreeMap<String, Cached>,
    #[serde(skip)]
    dirty: bool,
}

#[derive(Debug, Serialize, Deserialize)]
struct Cached {
    len: u64,
    /// Nanoseconds, as a string (JSON numbers lose them).
    mtime_ns: String,
    ino: u64,
    /// The oldest date the entries were kept from.
    since: NaiveDate,
    entries: Vec<Recent>,
}

fn file(state: &Path) -> PathBuf {
    state.join("siblings.json")
}

impl Cache {
    /// The cache in `state` (empty when missing or unreadable).
    pub fn load(state: &Path) -> Cache {
        crate::base::fence::read_small_text(&file(state), MAX_CACHE_BYTES)
            .and_then(|text| serde_json::from_str(&text).ok())
            .unwrap_or_default()
    }

    /// The recent entries of the file at `path`, from the cache when the file is as it was
    /// then, else from `read` (and remembered).
    pub fn entries(
        &mut self,
        path: &Path,
        since: NaiveDate,
        read: impl FnOnce() -> Option<Vec<Recent>>,
    ) -> Option<Vec<Recent>> {
        let meta = std::fs::symlink_metadata(path)
            .ok()
            .filter(|m| m.is_file())?;
        let key = path.display().to_string();
        let mtime_ns = crate::base::stat::mtime_ns(&meta).to_string();
        if let Some(c) = self.files.get(&key)
            && c.len == meta.len()
            && c.mtime_ns == mtime_ns
            && c.ino == crate::base::stat::inode(path, &meta)
            && c.since == since
        {
            return Some(c.entries.clone());
        }
        let entries = read()?;
        self.files.insert(
            key,
            Cached {
                len: meta.len(),
                mtime_ns,
                ino: crate::base::stat::inode(path, &meta),
                since,
                entries: entries.clone(),
            },
        );
        self.dirty = true;
        Some(entries)
    }

    /// Keep only the files in `paths`, and write the cache when it changed (best effort).
    pub fn save(mut self, state: &Path, paths: &[PathBuf]) {
        let keep: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
        let before = self.files.len();
        self.files.retain(|k, _| keep.contains(k));
        if !(self.dirty || self.files.len() != before) || !state.is_dir() {
            return;
        }
        if let Ok(text) = serde_json::to_vec(&self) {
            let _ = crate::workspace::write_atomic(&file(state), &text);
        }
    }
}
