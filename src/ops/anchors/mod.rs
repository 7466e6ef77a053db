//! Entries that cite code come due when the code moves on. A live decision or a PROJECT
//! section whose text names a path the repository holds (`` `src/parse.rs` ``, or a plain
//! `dir/file.ext`) is anchored to it at the commit its line was added in (`git blame` of the
//! memory file: the same in every clone and on every branch; a line not yet committed is
//! anchored at `HEAD`). When a later commit renames or deletes the path, or changes more than a
//! fifth of its lines, the entry is due: `trilogy due` and `status` list it with the commits
//! and paths that moved, and the session-start block names it. A person settles it by editing
//! the line (a new blame), superseding or retiring it, or `trilogy due --still-true ID`, which
//! anchors it at `HEAD` again.
//!
//! Worked out from git's history when `HEAD` or memory changed since the last time, by the
//! command that asks (`due`, `status`, `memory_status`), and kept in `.trilogy/anchors.json`;
//! the session-start hook only reads what the last look kept for it.
//!
//! Must not: run git on the session-start path, write a memory file, or call anything due from
//! a history it could not read (unknown is never due).

mod history;
mod paths;

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::model::{FileKind, State};
use crate::store::Reader;
use crate::workspace::Workspace;

/// More than this share of a file's lines changed (added and removed) makes it moved on.
const SHARE_DIVISOR: u64 = 5;
/// Fewer changed lines than this never do, however small the file.
const MIN_LINES: u64 = 3;
/// Commits named per moved path.
const COMMITS: usize = 3;
/// Moved entries kept for the session-start block (as many as it lists of what is due).
pub const TOP: usize = 5;

/// How one anchored path moved since its entry named it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Drift {
    pub path: String,
    /// The commit the entry's line was anchored at (short).
    pub since: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub renamed_to: Option<String>,
    pub deleted: bool,
    /// Lines added and removed since, and the lines it had then.
    pub changed_lines: u64,
    pub lines_then: u64,
    /// The commits that moved it, newest first (short id and subject).
    pub commits: Vec<(String, String)>,
}

/// An entry whose code moved on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Moved {
    /// `decision` or `section` (which says its file).
    pub kind: String,
    /// The decision's id or the section's key.
    pub id: String,
    pub heading: String,
    pub drift: Vec<Drift>,
}

/// What was worked out at one `HEAD`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct Cache {
    head: String,
    /// The store's change sequence and the settled file's digest it was worked out at.
    seq: u64,
    settled: String,
    /// Entries anchored to at least one path.
    anchored: usize,
    moved: Vec<Moved>,
}

/// What the anchors say now.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Report {
    /// The commit worked out at (none outside a repository).
    pub head: Option<String>,
    pub anchored: usize,
    pub moved: Vec<Moved>,
}

/// What the session-start block needs of the last look, kept apart so the hook reads a few
/// items, however many moved.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct Top {
    total: usize,
    top: Vec<Moved>,
}

fn top_path(ws: &Workspace) -> Result<PathBuf> {
    ws.inside(&ws.state_dir().join("anchors-top.json"))
}

fn cache_path(ws: &Workspace) -> Result<PathBuf> {
    ws.inside(&ws.state_dir().join("anchors.json"))
}

fn settled_path(ws: &Workspace) -> Result<PathBuf> {
    ws.inside(&ws.state_dir().join("anchors-settled.json"))
}

fn read_json<T: for<'de> Deserialize<'de> + Default>(path: &Path) -> T {
    crate::workspace::read_file(path, 16 << 20)
        .ok()
        .flatten()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default()
}

fn write_json<T: Serialize>(ws: &Workspace, path: &Path, v: &T) -> Result<()> {
    ws.ensure_state_dir()?;
    let bytes = serde_json::to_vec(v).map_err(|e| Error::Internal(e.to_string()))?;
    use crate::base::write::{Whole, write_whole};
    write_whole(path, &bytes, Whole::Private).map_err(|e| Error::io(path, e))
}

/// The first entries the last look found moved (as many as the session-start block lists),
/// and how many it found in all, without asking git.
pub fn cached(ws: &Workspace) -> (Vec<Moved>, usize) {
    let t: Top = top_path(ws).map(|p| read_json(&p)).unwrap_or_default();
    (t.top, t.total)
}

/// The entries whose code moved on, worked out again when `HEAD`, memory or what was
/// settled changed since the last look.
pub fn refresh(ws: &Workspace) -> Result<Report> {
    let Some(root) = ws.git().map(Path::to_path_buf) else {
        return Ok(Report::default());
    };
    let Some(head) = history::head(&root) else {
        return Ok(Report::default());
    };
    let settled: BTreeMap<String, String> = read_json(&settled_path(ws)?);
    let settled_key = crate::base::hex::sha1_prefix(
        serde_json::to_string(&settled)
            .unwrap_or_default()
            .as_bytes(),
        12,
    );
    let seq = ws.read(|r| r.change_seq())?.value;
    let path = cache_path(ws)?;
    let old: Cache = read_json(&path);
    if old.head == head && old.seq == seq && old.settled == settled_key {
        return Ok(Report {
            head: Some(head),
            anchored: old.anchored,
            moved: old.moved,
        });
    }
    let items = ws.read(|r| items(r))?.value;
    let (anchored, moved) = work_out(ws, &root, &head, &items, &settled);
    let cache = Cache {
        head: head.clone(),
        seq,
        settled: settled_key,
        anchored,
        moved: moved.clone(),
    };
    // a cache that cannot be kept costs the next look its git commands, nothing else; the
    // block's few go first, so a hook never reads a list the old look left beside a new one
    let top = Top {
        total: moved.len(),
        top: moved.iter().take(TOP).cloned().collect(),
    };
    if let Ok(p) = top_path(ws) {
        let _ = write_json(ws, &p, &top);
    }
    let _ = write_json(ws, &path, &cache);
    Ok(Report {
        head: Some(head),
        anchored,
        moved,
    })
}

/// Entry `id` (a decision's id or prefix, or a section's key or heading) still holds at
/// `HEAD`: anchored there again. Returns its heading.
pub fn still_true(ws: &Workspace, id: &str) -> Result<String> {
    let none = || {
        Error::bad_input(
            "no git commit here (not a git repository, or nothing committed yet): nothing is anchored to code",
        )
    };
    let root = ws.git().ok_or_else(none)?;
    let head = history::head(root).ok_or_else(none)?;
    let items = ws.read(|r| items(r))?.value;
    let want = id.trim();
    let hits: Vec<&Item> = (items.iter())
        .filter(|i| {
            i.id == want || (want.len() >= 4 && i.id.starts_with(want)) || i.heading == want
        })
        .collect();
    let item = match hits.as_slice() {
        [one] => *one,
        [] => {
            return Err(Error::NotFound(format!(
                "no live decision or PROJECT section `{want}`; `trilogy due` lists what came due, with ids"
            )));
        }
        _ => {
            return Err(Error::bad_input(format!(
                "`{want}` names {} entries; give more of the id",
                hits.len()
            )));
        }
    };
    let path = settled_path(ws)?;
    let mut settled: BTreeMap<String, String> = read_json(&path);
    settled.insert(item.id.clone(), head);
    write_json(ws, &path, &settled)?;
    Ok(item.heading.clone())
}

/// A live decision or a present PROJECT section, as anchoring reads it.
#[derive(Debug, Clone)]
struct Item {
    kind: &'static str,
    id: String,
    heading: String,
    file: FileKind,
    body: String,
}

fn items(r: &dyn Reader) -> Result<Vec<Item>> {
    let mut out: Vec<Item> = (r
        .file_entries(FileKind::Decisions, 0, usize::MAX)?
        .into_iter())
    .filter(|e| e.state == State::Live)
    .map(|e| Item {
        kind: "decision",
        id: e.id,
        heading: e.heading,
        file: FileKind::Decisions,
        body: e.body,
    })
    .collect();
    out.extend(
        (r.sections()?.into_iter())
            .filter(|s| !s.removed)
            .map(|s| Item {
                kind: "section",
                body: s.text().to_string(),
                id: s.key,
                heading: s.heading,
                file: FileKind::Project,
            }),
    );
    Ok(out)
}

/// One path an item names, and the commit its line was anchored at.
struct Anchor {
    item: usize,
    path: String,
    since: String,
}

/// How many items are anchored, and those whose code moved on.
fn work_out(
    ws: &Workspace,
    root: &Path,
    head: &str,
    items: &[Item],
    settled: &BTreeMap<String, String>,
) -> (usize, Vec<Moved>) {
    let mut blames: HashMap<FileKind, HashMap<String, String>> = HashMap::new();
    let mut anchors: Vec<Anchor> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let named = paths::named(&item.body);
        if named.is_empty() {
            continue;
        }
        let blame = blames.entry(item.file).or_insert_with(|| {
            let file = ws.file_path(item.file);
            let rel = file.strip_prefix(root).unwrap_or(&file);
            // git names paths with `/` on every system
            history::blame(root, &rel.to_string_lossy().replace('\\', "/"))
        });
        for (path, line) in named {
            let since = (settled.get(&item.id).or_else(|| blame.get(&line)))
                .cloned()
                .unwrap_or_else(|| head.to_string());
            anchors.push(Anchor {
                item: i,
                path,
                since,
            });
        }
    }
    // only a path the repository held at the anchor commit is an anchor
    let asks: Vec<(String, String)> = (anchors.iter())
        .map(|a| (a.since.clone(), a.path.clone()))
        .collect();
    let held = history::existing(root, &asks);
    let anchors: Vec<Anchor> = anchors
        .into_iter()
        .zip(held)
        .filter(|(_, h)| *h)
        .map(|(a, _)| a)
        .collect();
    let mut anchored: Vec<usize> = anchors.iter().map(|a| a.item).collect();
    anchored.dedup();
    let mut diffs: HashMap<String, Option<HashMap<String, history::Moved>>> = HashMap::new();
    // the anchors whose path changed since, each with how
    let mut found: Vec<(&Anchor, history::Moved)> = Vec::new();
    for a in anchors.iter().filter(|a| a.since != head) {
        let diff = diffs
            .entry(a.since.clone())
            .or_insert_with(|| history::moved_between(root, &a.since, head));
        if let Some(m) = diff.as_ref().and_then(|d| d.get(&a.path)) {
            found.push((a, m.clone()));
        }
    }
    // the lines each had then, for the share changed: one `git cat-file --batch`
    let asks: Vec<(String, String)> = (found.iter())
        .map(|(a, _)| (a.since.clone(), a.path.clone()))
        .collect();
    let lines = history::lines_at(root, &asks);
    let mut drifts: Vec<(&Anchor, Drift)> = Vec::new();
    for ((a, m), lines) in found.into_iter().zip(lines) {
        let changed = m.added.saturating_add(m.removed);
        let rewritten = changed >= MIN_LINES && changed.saturating_mul(SHARE_DIVISOR) > lines;
        if m.deleted || m.renamed_to.is_some() || rewritten {
            drifts.push((
                a,
                Drift {
                    path: a.path.clone(),
                    since: a.since.chars().take(12).collect(),
                    renamed_to: m.renamed_to,
                    deleted: m.deleted,
                    changed_lines: changed,
                    lines_then: lines,
                    commits: Vec::new(),
                },
            ));
        }
    }
    // the commits that moved them: one `git log` per anchor commit
    let mut by_since: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (a, _) in &drifts {
        by_since
            .entry(a.since.as_str())
            .or_default()
            .push(a.path.as_str());
    }
    let commits: HashMap<&str, history::Touching> = (by_since.into_iter())
        .map(|(since, paths)| {
            (
                since,
                history::commits_touching(root, since, head, &paths, COMMITS),
            )
        })
        .collect();
    let mut moved: BTreeMap<usize, Vec<Drift>> = BTreeMap::new();
    for (a, mut d) in drifts {
        d.commits = (commits.get(a.since.as_str()).and_then(|c| c.get(&a.path)))
            .cloned()
            .unwrap_or_default();
        moved.entry(a.item).or_default().push(d);
    }
    let moved = (moved.into_iter())
        .map(|(i, drift)| {
            let item = &items[i];
            Moved {
                kind: item.kind.to_string(),
                id: item.id.clone(),
                heading: item.heading.clone(),
                drift,
            }
        })
        .collect();
    (anchored.len(), moved)
}

/// One line saying how an entry's code moved: `` `src/a.rs` 40 of 50 lines changed (1a2b3c4
/// subject)``.
pub fn said(drift: &[Drift], zh: bool) -> String {
    let parts: Vec<String> = (drift.iter())
        .map(|d| {
            let how = match (&d.renamed_to, d.deleted, zh) {
                (Some(to), _, true) => format!("改名为 `{to}`"),
                (Some(to), _, false) => format!("renamed to `{to}`"),
                (None, true, true) => "已删除".to_string(),
                (None, true, false) => "deleted".to_string(),
                (None, false, true) => format!("改了 {}/{} 行", d.changed_lines, d.lines_then),
                (None, false, false) => {
                    format!("{} of {} lines changed", d.changed_lines, d.lines_then)
                }
            };
            let by = match d.commits.first() {
                Some((id, subject)) => format!(" ({id} {subject})"),
                None => String::new(),
            };
            format!("`{}` {how}{by}", d.path)
        })
        .collect();
    parts.join(if zh { "；" } else { "; " })
}
