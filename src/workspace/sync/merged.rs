//! Where an entry that arrived by a merge was recorded. An entry first read from a version of
//! its file git holds was recorded in another clone or work tree; when that is a sibling work
//! tree of this repository on this machine, its store still knows the entry's provenance
//! (branch, agent session, actor), and the entry takes it from there. The sibling stores are
//! opened read-only — never written, never waited on — only when such an entry arrives, and a
//! store that is missing, a link, damaged or of another schema is passed over. An entry no
//! sibling knows keeps the mark of its arrival (`MERGED`), with the author of the commit that
//! added it when git's recent history has one (`git-merge:NAME <EMAIL>`): the teammate whose
//! clone recorded it. That history is read once per write, with one `git log` of the live files.

use std::collections::HashMap;

use crate::model::{EntryRecord, FileKind, Origin};
use crate::store::{Reader, Store};

use super::{Tx, gitop};

impl Tx<'_> {
    /// The provenance the sibling store that recorded entry `id` holds for it: (origin, actor).
    pub(super) fn sibling_provenance(&mut self, id: &str) -> Option<(Origin, String)> {
        let stores = self
            .sibling_stores
            .get_or_insert_with(|| open_siblings(self.ws));
        stores.iter().find_map(|s| {
            let rec: EntryRecord = s.read().ok()?.entry(id).ok()??;
            Some((rec.origin, rec.actor))
        })
    }
}

/// The first line of an entry's body → the author of the oldest recent commit adding that line.
pub(super) type Committers = HashMap<String, String>;

/// Commits looked through for who added an entry, at most: the newest of those the last merge
/// or pull brought, merges passed over (the commit that added an entry is on the side it came
/// from). This runs while trilogy holds git's index, so it is kept short.
const COMMITS: &str = "200";

/// `^ORIG_HEAD`: what the last merge, pull or reset started from is left out, so only what it
/// brought is read (nothing when there is no `ORIG_HEAD`).
fn since_last_merge(root: &std::path::Path) -> Vec<&'static str> {
    match gitop::git_dir(root).is_some_and(|d| d.join("ORIG_HEAD").is_file()) {
        true => vec!["^ORIG_HEAD"],
        false => Vec::new(),
    }
}

impl Tx<'_> {
    /// The actor of an entry that arrived with git and no sibling knows: [`super::MERGED`],
    /// with the author of the commit that added it when there is one.
    pub(super) fn merged_actor(&mut self, rec: &EntryRecord) -> String {
        let committers = self.committers.get_or_insert_with(|| committers(self.ws));
        match first_line(&rec.body).and_then(|l| committers.get(l)) {
            Some(who) => format!("{}:{who}", super::MERGED),
            None => super::MERGED.to_string(),
        }
    }
}

fn first_line(body: &str) -> Option<&str> {
    body.lines().map(str::trim).find(|l| !l.is_empty())
}

/// Who added the lines of the live files in the recent commits: one `git log -p` with no
/// context lines. Lines, not entries: entries of one day and area share a heading, and a diff
/// may pair a new entry's heading with an old one's, so an entry is found by its first body
/// line (what it says). Empty outside a repository or when git does not answer.
fn committers(ws: &crate::workspace::Workspace) -> Committers {
    let mut out = Committers::new();
    let paths: Vec<_> = [FileKind::Sessions, FileKind::Decisions]
        .into_iter()
        .filter_map(|f| ws.memory_file(f).ok())
        .filter_map(|p| p.strip_prefix(&ws.root).ok().map(|p| p.to_path_buf()))
        .collect();
    if paths.is_empty() || gitop::git_dir(&ws.root).is_none() {
        return out;
    }
    let Ok(o) = std::process::Command::new("git")
        .arg("-C")
        .arg(&ws.root)
        .args([
            "-c",
            "core.fsmonitor=false",
            "log",
            "-n",
            COMMITS,
            "--no-merges",
        ])
        .args(since_last_merge(&ws.root))
        .args(["--no-color", "--no-ext-diff", "--no-renames", "-U0", "-p"])
        .args(["--format=%x01%an <%ae>", "HEAD", "--"])
        .args(&paths)
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
    else {
        return out;
    };
    if !o.status.success() {
        return out;
    }
    let mut who = "";
    // newest commit first: an older commit adding the same line takes it over
    let text = String::from_utf8_lossy(&o.stdout);
    for line in text.lines() {
        if let Some(author) = line.strip_prefix('\u{1}') {
            who = author.trim();
        } else if let Some(added) = line.strip_prefix('+')
            && !line.starts_with("+++")
            && !added.starts_with("## ")
            && !added.trim().is_empty()
        {
            out.insert(added.trim().to_string(), who.to_string());
        }
    }
    out
}

/// The stores of this repository's other work trees, opened read-only.
fn open_siblings(ws: &crate::workspace::Workspace) -> Vec<Store> {
    if !ws.config.sibling_worktrees {
        return Vec::new();
    }
    gitop::worktrees(&ws.root)
        .into_iter()
        .filter_map(|(root, _)| {
            let path = root.join(".trilogy").join("store.redb");
            // a regular file only: a link or a FIFO planted in a sibling is never followed
            let meta = std::fs::symlink_metadata(&path).ok()?;
            let dir = std::fs::symlink_metadata(root.join(".trilogy")).ok()?;
            if !meta.is_file() || !dir.is_dir() {
                return None;
            }
            Store::open_read_only(&path).ok()
        })
        .collect()
}
