//! Sibling worktrees: what the agents in this repository's other work trees recorded lately,
//! for this work tree's agents to see before the branches merge.
//!
//! The siblings are found from git's own files (`worktrees/*/gitdir` in the common git folder,
//! and the main work tree), no git process. Their memory files are read — small regular files
//! only, through the same caps as this workspace's, never written and never locked, so a
//! sibling in the middle of a long write delays nothing: the files are the projection its
//! store writes whole. What they held is cached in this workspace's state folder (`cache`), so
//! a session start re-reads only the files that moved. An entry counts when it is live there, dated within `sibling_days`,
//! and not held by this workspace's store (in any state); an entry holding a credential is left
//! out. Sibling entries go into the session-start block only — never into this work tree's
//! files, nor into the copies of the block written into `AGENTS.md` or a rules file.

mod cache;

use std::collections::HashSet;
use std::path::PathBuf;

use chrono::{Days, NaiveDate};
use serde::Serialize;

use crate::base::fence::read_small_text;
use crate::error::Result;
use crate::model::{EntryKind, FileKind, heading_date};
use crate::store::Reader;
use crate::workspace::{Workspace, live_entries, worktrees};

/// Largest sibling memory file read: a session start reads every sibling's files.
const MAX_SIBLING_FILE: u64 = 16 << 20;

/// An entry a sibling work tree recorded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SiblingEntry {
    pub branch: Option<String>,
    pub worktree: String,
    pub kind: &'static str,
    pub id: String,
    pub heading: String,
    pub body: String,
    pub date: NaiveDate,
}

/// A sibling work tree, for `status`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Sibling {
    pub worktree: String,
    pub branch: Option<String>,
    /// Live decisions and sessions its files hold.
    pub decisions: usize,
    pub sessions: usize,
}

/// The sibling work trees with their memory, when `sibling_worktrees` is on.
pub fn list(ws: &Workspace) -> Vec<Sibling> {
    if !ws.config.sibling_worktrees {
        return Vec::new();
    }
    let today = ws.clock.today();
    worktrees(&ws.root)
        .into_iter()
        .filter_map(|(root, branch)| {
            let memory = root.join(&ws.config.memory_dir_name);
            let count = |f: FileKind| entries(&memory, f, today).map(|v| v.len());
            let (decisions, sessions) = (count(FileKind::Decisions), count(FileKind::Sessions));
            (decisions.is_some() || sessions.is_some()).then(|| Sibling {
                worktree: root.display().to_string(),
                branch,
                decisions: decisions.unwrap_or(0),
                sessions: sessions.unwrap_or(0),
            })
        })
        .collect()
}

/// What the siblings recorded in the last `sibling_days` days that this store does not hold:
/// decisions first, then sessions, each newest first.
pub fn recent(ws: &Workspace, r: &dyn Reader) -> Result<Vec<SiblingEntry>> {
    if !ws.config.sibling_worktrees {
        return Ok(Vec::new());
    }
    let today = ws.clock.today();
    let since = today
        .checked_sub_days(Days::new(ws.config.sibling_days))
        .unwrap_or(NaiveDate::MIN);
    let state = ws.state_dir();
    let mut cache = cache::Cache::load(&state);
    let mut seen: Vec<PathBuf> = Vec::new();
    let mut out: Vec<SiblingEntry> = Vec::new();
    // ids already taken: an entry several siblings hold is named once (a set, not a scan of
    // `out`: tens of thousands of recent entries merge in linear time)
    let mut taken: HashSet<String> = HashSet::new();
    for (root, branch) in worktrees(&ws.root) {
        let memory = root.join(&ws.config.memory_dir_name);
        for f in [FileKind::Decisions, FileKind::Sessions] {
            let path = memory.join(f.file_name());
            let found = cache.entries(&path, since, || {
                Some(
                    entries(&memory, f, today)?
                        .into_iter()
                        .filter_map(|(id, heading, body)| {
                            let date = heading_date(&heading).filter(|d| *d >= since)?;
                            // an entry holding a credential never leaves its work tree
                            crate::secrets::find(&format!("{heading}\n{body}"))
                                .is_none()
                                .then_some((id, heading, body, date))
                        })
                        .collect(),
                )
            });
            seen.push(path);
            for (id, heading, body, date) in found.unwrap_or_default() {
                if taken.contains(&id) || r.entry(&id)?.is_some() {
                    continue;
                }
                taken.insert(id.clone());
                out.push(SiblingEntry {
                    branch: branch.clone(),
                    worktree: root.display().to_string(),
                    kind: match f {
                        FileKind::Decisions => EntryKind::Decision.as_str(),
                        _ => EntryKind::Session.as_str(),
                    },
                    id,
                    heading,
                    body,
                    date,
                });
            }
        }
    }
    cache.save(&state, &seen);
    out.sort_by(|a, b| {
        (a.kind != "decision")
            .cmp(&(b.kind != "decision"))
            .then(b.date.cmp(&a.date))
    });
    Ok(out)
}

/// The live entries of a sibling's memory file; `None` when it is missing, not a regular
/// file, too large, or does not parse.
fn entries(
    memory: &std::path::Path,
    f: FileKind,
    today: NaiveDate,
) -> Option<Vec<(String, String, String)>> {
    let text = read_small_text(&memory.join(f.file_name()), MAX_SIBLING_FILE)?;
    let parsed = crate::markdown::parse(&text, f == FileKind::Sessions).ok()?;
    Some(live_entries(f, &parsed.doc, today))
}

/// Bytes of a sibling notice's content before it names the rest by heading.
const NOTICE_CONTENT: usize = 1500;

/// What a live session's next prompt hears of sibling work trees: of `now` (what [`recent`]
/// returns), the entries recorded since it last looked (`seen` holds what it has been shown;
/// updated), their text up to [`NOTICE_CONTENT`] bytes, then headings. `None` when nothing is
/// new.
pub fn notice(
    lang: crate::model::Lang,
    now: &[SiblingEntry],
    seen: &mut Vec<String>,
) -> Option<String> {
    let shown: HashSet<&str> = seen.iter().map(String::as_str).collect();
    let new: Vec<&SiblingEntry> = now
        .iter()
        .filter(|e| !shown.contains(e.id.as_str()))
        .collect();
    // what is gone (merged here, or past the window) leaves the list, so it stays small
    *seen = now.iter().map(|e| e.id.clone()).collect();
    if new.is_empty() {
        return None;
    }
    let mut out = match lang {
        crate::model::Lang::Zh => "【其他工作树有新记录】会话开始后，同一仓库的其他工作树记下了：".to_string(),
        crate::model::Lang::En => {
            "[sibling work trees] Recorded since this session started in this repository's other work trees:".to_string()
        }
    };
    let total = new.len();
    for (i, e) in new.into_iter().enumerate() {
        let branch = e.branch.clone().unwrap_or_else(|| e.worktree.clone());
        let body: Vec<&str> = e
            .body
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect();
        let full = format!("\n- [{branch}] {}\n  {}", e.heading, body.join(" · "));
        let bare = format!("\n- [{branch}] {}", e.heading);
        if out.len() + full.len() <= NOTICE_CONTENT {
            out.push_str(&full);
        } else if out.len() + bare.len() + 80 <= crate::ops::truth::notice::NOTICE_MAX {
            out.push_str(&bare);
        } else {
            out.push_str(&match lang {
                crate::model::Lang::Zh => format!("\n另有 {} 条（memory_search 可见）", total - i),
                crate::model::Lang::En => {
                    format!("\n{} more (memory_search finds them)", total - i)
                }
            });
            break;
        }
    }
    Some(out)
}

/// The session-start block's section on what sibling work trees recorded, within `cap` bytes:
/// whole entries while they fit, then headings only, then a count; never a line cut. With the
/// number of entries shown whole and the number named in all (`None`: nothing to show, or
/// no room even for its title).
pub fn block_text(
    entries: &[SiblingEntry],
    lang: crate::model::Lang,
    cap: usize,
) -> Option<(String, usize, usize)> {
    use crate::model::Lang;
    if entries.is_empty() {
        return None;
    }
    let title = match lang {
        Lang::Zh => "--- 其他工作树最近记下的（这里还没有；等分支合并才会进本工作树的文件）---",
        Lang::En => {
            "--- Recorded lately in sibling work trees (not here yet; they reach this work tree's files when the branches merge) ---"
        }
    };
    let branch = |e: &SiblingEntry| e.branch.clone().unwrap_or_else(|| e.worktree.clone());
    let mut out = title.to_string();
    let (mut whole, mut named) = (0usize, 0usize);
    let more = |n: usize| match lang {
        Lang::Zh => format!("\n另有 {n} 条（在各自工作树里 memory_search 可见）"),
        Lang::En => format!("\n{n} more (in their own work trees)"),
    };
    // the title and, at worst, the count of everything
    if out.len() + more(entries.len()).len() > cap {
        return None;
    }
    for (i, e) in entries.iter().enumerate() {
        let full = format!("\n[{}] ## {}\n{}", branch(e), e.heading, e.body.trim_end());
        let bare = format!("\n- [{}] {}", branch(e), e.heading);
        let left = entries.len() - i - 1;
        let reserve = if left > 0 { more(left).len() } else { 0 };
        if named == whole && out.len() + full.len() + reserve <= cap {
            out.push_str(&full);
            whole += 1;
        } else if out.len() + bare.len() + reserve <= cap {
            out.push_str(&bare);
        } else {
            out.push_str(&more(entries.len() - i));
            return Some((out, whole, named));
        }
        named += 1;
    }
    Some((out, whole, named))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Lang;

    fn entry(i: usize, body_len: usize) -> SiblingEntry {
        SiblingEntry {
            branch: Some(format!("feat-{}", i % 3)),
            worktree: "/w".into(),
            kind: if i.is_multiple_of(4) {
                "decision"
            } else {
                "session"
            },
            id: format!("{i:012}"),
            heading: format!("2026-11-{:02} · area{}", i % 28 + 1, i % 5),
            body: (0..body_len.div_ceil(40))
                .map(|k| format!("完成：line {k} of entry {i}, some words to fill it"))
                .collect::<Vec<_>>()
                .join("\n"),
            date: NaiveDate::from_ymd_opt(2026, 11, 1).unwrap(),
        }
    }

    /// Over entry counts, entry sizes and caps: the section stays within its cap, every line
    /// it holds is a whole line of an entry (or its title, a heading line, the count), and it
    /// names every entry it does not show, whole or by heading.
    #[test]
    fn the_section_stays_within_its_cap_and_never_cuts_a_line() {
        for n in [1usize, 2, 5, 20, 200] {
            for body in [10usize, 200, 3000] {
                for cap in [0usize, 100, 120, 140, 160, 200, 300, 1000, 5000, 50_000] {
                    let entries: Vec<SiblingEntry> = (0..n).map(|i| entry(i, body)).collect();
                    let Some((text, whole, named)) = block_text(&entries, Lang::Zh, cap) else {
                        continue;
                    };
                    assert!(
                        text.len() <= cap,
                        "{n} entries of {body} B in {cap}: {} B",
                        text.len()
                    );
                    assert!(whole <= named && named <= n);
                    let mut lines = text.lines();
                    lines.next(); // the title
                    for line in lines {
                        let known = line.starts_with("[feat-")
                            || line.starts_with("- [feat-")
                            || line.starts_with("另有 ")
                            || entries.iter().any(|e| e.body.lines().any(|l| l == line));
                        assert!(known, "a cut line: {line:?}");
                    }
                    if named < n {
                        assert!(text.contains(&format!("另有 {} 条", n - named)), "{text}");
                    }
                }
            }
        }
    }
}
