//! Codex's memories: the folder Codex keeps them in (`~/.codex/memories/`, or under
//! `$CODEX_HOME`), of which `MEMORY.md` is the handbook and the only file read. Its memories
//! are the user's, across every folder Codex ran in, one block per task group:
//!
//! ```text
//! # Task Group: <name>
//! scope: <what it covers>
//! applies_to: cwd=<folder>; reuse_rule=<…>
//! ## Task 1: <task, outcome>
//! ### rollout_summary_files
//! - rollout_summaries/<file>.md (cwd=<folder>, updated_at=<time>, …)
//! ### keywords
//! ## User preferences          ## Reusable knowledge          ## Failures and how to do differently
//! ```
//!
//! Format from the consolidation instructions Codex 0.171 carries for writing MEMORY.md. Only
//! blocks whose `cwd=` (in `applies_to` or a task's rollout files) lies in this workspace are
//! taken: their reusable knowledge goes to 现状 / State and their failures to 坑 / Traps, a
//! bullet each; the `[Task 1]` marks that point into Codex's own sections are dropped. User
//! preferences are about the person, task lists are Codex's index into its own rollouts, and
//! blocks about other folders are other projects': all are listed as skipped.

use std::path::Path;

use super::plan::Plan;
use super::reading::Reading;
use crate::error::{Error, Result};

/// PROJECT's 现状 / State and 坑 / Traps sections.
const STATE: usize = 3;
const TRAPS: usize = 4;

/// Read `file` (a MEMORY.md) when given, else the `MEMORY.md` in the memories folder at
/// PATH; only blocks about a folder inside `project` are taken.
pub fn plan(r: &mut Reading, file: Option<&str>, project: &Path) -> Result<Plan> {
    let name = file.unwrap_or("MEMORY.md");
    let f = r.read(name)?.ok_or_else(|| {
        Error::NotFound(format!(
            "{}: no {name} here; give Codex's memories folder (~/.codex/memories, or memories/ under $CODEX_HOME)",
            r.root().display()
        ))
    })?;
    let mut p = Plan::default();
    if file.is_none() && r.list("")?.files.iter().any(|f| f == "memory_summary.md") {
        p.skip(
            "memory_summary.md",
            "Codex's summary of MEMORY.md and of the person: what it indexes is read from MEMORY.md",
        );
    }
    for block in blocks(&f.text) {
        let at = |line: usize| format!("{}:{line}", f.rel);
        if !block.cwds.iter().any(|c| inside(c, project)) {
            let about = match block.cwds.first() {
                Some(c) => format!("about another folder (cwd={c}), not this workspace"),
                None => "names no folder (no `cwd=`), so it may be any project's".to_string(),
            };
            p.skip(
                at(block.line),
                format!("task group `{}`: {about}", block.name),
            );
            continue;
        }
        for (line, section, text) in block.bullets {
            match section {
                Section::Knowledge => p.section(at(line), STATE, &format!("- {text}")),
                Section::Failures => p.section(at(line), TRAPS, &format!("- {text}")),
                Section::Preferences => p.skip(
                    at(line),
                    "a user preference: about the person, not the project; not imported into a workspace",
                ),
                Section::Tasks | Section::Other => {}
            }
        }
        for line in block.tasks {
            p.skip(
                at(line),
                "a task and its rollout files: Codex's index into its own sessions",
            );
        }
    }
    Ok(p)
}

/// Whether the folder `cwd` (as Codex wrote it) is `project` or inside it.
fn inside(cwd: &str, project: &Path) -> bool {
    let cwd = Path::new(cwd.trim());
    if !cwd.is_absolute() {
        return false;
    }
    // as written, or as this machine resolves both (a folder reached through a link; one
    // since removed is compared as written)
    let real = |p: &Path| std::fs::canonicalize(p).ok();
    cwd.starts_with(project)
        || real(cwd)
            .zip(real(project))
            .is_some_and(|(c, p)| c.starts_with(p))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Section {
    Tasks,
    Preferences,
    Knowledge,
    Failures,
    Other,
}

/// One `# Task Group` block.
#[derive(Debug, Default)]
struct Block {
    name: String,
    /// Its heading's line, 1-based.
    line: usize,
    /// Every folder it says it is about, in order.
    cwds: Vec<String>,
    /// Bullets of its consolidated sections, with their lines.
    bullets: Vec<(usize, Section, String)>,
    /// Lines of its `## Task` headings.
    tasks: Vec<usize>,
}

fn blocks(text: &str) -> Vec<Block> {
    let mut out: Vec<Block> = Vec::new();
    let mut section = Section::Other;
    for (i, raw) in text.split('\n').enumerate() {
        let line = raw.trim();
        if let Some(name) = line.strip_prefix("# Task Group:") {
            out.push(Block {
                name: name.trim().to_string(),
                line: i + 1,
                ..Block::default()
            });
            section = Section::Other;
            continue;
        }
        let Some(block) = out.last_mut() else {
            continue;
        };
        if let Some(h) = line.strip_prefix("## ") {
            section = heading(h);
            if section == Section::Tasks {
                block.tasks.push(i + 1);
            }
            continue;
        }
        if line.starts_with("applies_to:") || section == Section::Tasks {
            block.cwds.extend(cwds(line));
        }
        if let Some(bullet) = line.strip_prefix("- ") {
            let bullet = untagged(bullet);
            if !bullet.is_empty() && section != Section::Tasks {
                block.bullets.push((i + 1, section, bullet.to_string()));
            }
        }
    }
    out
}

fn heading(h: &str) -> Section {
    let h = h.trim().to_lowercase();
    if h.starts_with("task") {
        Section::Tasks
    } else if h.starts_with("user preference") {
        Section::Preferences
    } else if h.starts_with("reusable knowledge") {
        Section::Knowledge
    } else if h.starts_with("failures") {
        Section::Failures
    } else {
        Section::Other
    }
}

/// The `cwd=` values of a line (`cwd=/a/b;` or `(cwd=/a/b, updated_at=…)`).
fn cwds(line: &str) -> Vec<String> {
    line.match_indices("cwd=")
        .map(|(at, key)| {
            let rest = &line[at + key.len()..];
            let end = rest.find([';', ',', ')']).unwrap_or(rest.len());
            rest[..end].trim().to_string()
        })
        .filter(|c| !c.is_empty())
        .collect()
}

/// A bullet without the `[Task 1][Task 2]` marks it ends with.
fn untagged(bullet: &str) -> &str {
    let mut b = bullet.trim_end();
    while let Some(open) = b.rfind("[Task ") {
        if !b.ends_with(']') || b[open..].matches(']').count() != 1 {
            break;
        }
        b = b[..open].trim_end();
    }
    b.trim()
}

#[cfg(test)]
mod tests {
    use super::*;

    const MEMORY: &str = "# Task Group: app release flow\n\
scope: cutting releases of app\n\
applies_to: cwd=/home/me/app; reuse_rule=safe for this checkout\n\
## Task 1: bumped the version, tests green\n\
### rollout_summary_files\n\
- rollout_summaries/2026-12-01-release.md (cwd=/home/me/app, updated_at=2026-12-01T10:00:00Z)\n\
### keywords\n\
- release, version\n\
## User preferences\n\
- the user asked: \"keep the changelog short\" -> one line per change [Task 1]\n\
## Reusable knowledge\n\
- `make release` tags and pushes; run it from main [Task 1]\n\
## Failures and how to do differently\n\
- tests hang under sandbox -> the port is taken -> set APP_PORT=0 [Task 1][Task 2]\n\
\n\
# Task Group: dotfiles\n\
scope: shell setup\n\
applies_to: cwd=/home/me/dotfiles; reuse_rule=only there\n\
## Reusable knowledge\n\
- zsh loads .zshenv first\n";

    #[test]
    fn blocks_give_their_folders_sections_and_bullets_without_task_marks() {
        let b = blocks(MEMORY);
        assert_eq!(b.len(), 2);
        assert_eq!(b[0].name, "app release flow");
        assert_eq!(b[0].cwds, vec!["/home/me/app", "/home/me/app"]);
        assert_eq!(b[0].tasks, vec![4]);
        assert_eq!(
            b[0].bullets,
            vec![
                (
                    10,
                    Section::Preferences,
                    "the user asked: \"keep the changelog short\" -> one line per change"
                        .to_string()
                ),
                (
                    12,
                    Section::Knowledge,
                    "`make release` tags and pushes; run it from main".to_string()
                ),
                (
                    14,
                    Section::Failures,
                    "tests hang under sandbox -> the port is taken -> set APP_PORT=0".to_string()
                ),
            ]
        );
        assert_eq!(b[1].cwds, vec!["/home/me/dotfiles"]);
    }

    #[test]
    fn a_folder_counts_only_inside_the_project() {
        let d = tempfile::tempdir().unwrap();
        let project = d.path().join("app");
        std::fs::create_dir_all(project.join("crates/core")).unwrap();
        std::fs::create_dir_all(d.path().join("app2")).unwrap();
        let at = |rel: &str| d.path().join(rel).display().to_string();
        assert!(inside(&at("app"), &project));
        assert!(inside(&at("app/crates/core"), &project));
        // a folder this machine does not have is compared as written
        assert!(inside(&at("app/gone"), &project));
        assert!(!inside(&at("app2"), &project));
        assert!(!inside(&d.path().display().to_string(), &project));
        assert!(!inside("app", &project));
    }

    #[test]
    fn a_bracket_that_is_not_a_task_mark_stays() {
        assert_eq!(untagged("use arr[0] [Task 3]"), "use arr[0]");
        assert_eq!(untagged("see [Task list] first"), "see [Task list] first");
    }
}
