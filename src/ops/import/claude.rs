//! Claude Code's memory: its auto memory folder (`~/.claude/projects/<project>/memory/`:
//! `MEMORY.md`, the index it loads at session start, one line per memory linking a topic file,
//! `- [Title](file.md) — hook`; each topic file optionally opens with a frontmatter of `name`,
//! `description` and `type: user|feedback|project|reference`), or a `CLAUDE.md` of notes.
//! Format from Anthropic's Claude Code documentation, code.claude.com/docs/en/memory ("auto
//! memory": MEMORY.md as the index, topic files such as debugging.md read on demand), and the
//! typed files Claude Code writes as seen in public repositories' memory folders
//! (`feedback_*.md`, `project_*.md`, `reference_*.md`, `user_*.md`).
//!
//! A `feedback` memory (a rule with its **Why:**) becomes a decision dated by the file; a
//! `project` one goes to 现状 / State, a `reference` one to 东西都在哪 / Where things live, an
//! untyped one by its headings or file name; `user` memories are about the person, not the
//! project, and are left out. MEMORY.md's own lines that link nothing go by their heading
//! (State when none fits). A CLAUDE.md goes by its headings: the introduction to 这是什么 /
//! What this is, commands to Run and test, layout to Where things live, gotchas to Traps;
//! rules for the agent (style, conventions) and headings nothing fits stay in CLAUDE.md,
//! listed as skipped; trilogy's own boot block is skipped.

use std::collections::BTreeSet;
use std::sync::OnceLock;

use regex::Regex;

use super::plan::{DecisionPlan, Fate, Line, Piece, Plan, Target};
use super::reading::{Reading, SourceFile};
use super::route::{self, Route};
use super::text::{self, Chunk, Part};
use crate::error::{Error, Result};
use crate::workspace::{BOOT_END, BOOT_START};

/// Read `file` (a CLAUDE.md) when given, else the auto memory folder at PATH.
pub fn plan(r: &mut Reading, file: Option<&str>) -> Result<Plan> {
    let mut p = Plan::default();
    if let Some(name) = file {
        if let Some(f) = r.read(name)? {
            notes(&f, &mut p);
        }
        return Ok(p);
    }
    let top = r.list("")?;
    if !top.files.iter().any(|f| f == "MEMORY.md") {
        if top.files.iter().any(|f| f == "CLAUDE.md") {
            if let Some(f) = r.read("CLAUDE.md")? {
                notes(&f, &mut p);
            }
            return Ok(p);
        }
        return Err(Error::bad_input(format!(
            "{}: no MEMORY.md (and no CLAUDE.md); give Claude Code's memory folder (~/.claude/projects/<project>/memory) or a CLAUDE.md file",
            r.root().display()
        )));
    }
    let Some(index) = r.read("MEMORY.md")? else {
        return Ok(p);
    };
    let mut linked: Vec<String> = Vec::new();
    for part in text::parts(&index.text, 1) {
        for c in &part.chunks {
            let links = local_links(&c.text);
            if links.is_empty() {
                let slot = match route_of(&part, None) {
                    Some(Route::Slot(s)) => s,
                    _ => 3,
                };
                p.section(at(&index, c), slot, &c.text);
            }
            for l in links {
                if !linked.contains(&l) {
                    linked.push(l);
                }
            }
        }
    }
    let listed: BTreeSet<&String> = linked.iter().collect();
    for f in &top.files {
        if f != "MEMORY.md" && !listed.contains(f) {
            p.skip(f.clone(), "not linked from MEMORY.md: not imported");
        }
    }
    for d in &top.dirs {
        if !linked.iter().any(|l| l.starts_with(&format!("{d}/"))) {
            p.skip(
                d.clone(),
                "a folder nothing in MEMORY.md links into: not read",
            );
        }
    }
    for l in &linked {
        if !l.ends_with(".md") {
            p.skip(
                l.clone(),
                "linked from MEMORY.md but not a Markdown file: not imported",
            );
            continue;
        }
        if let Some(f) = r.read(l)? {
            topic(r, &f, &mut p)?;
        }
    }
    Ok(p)
}

fn link_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"\[[^\]]*\]\(<?([^)\s>]+)>?(?:\s+[^)]*)?\)").expect("the link pattern is valid")
    })
}

/// Targets of the links in `text` that name a file beside MEMORY.md (not a URL, an anchor
/// or an absolute path), without `./`.
fn local_links(text: &str) -> Vec<String> {
    link_re()
        .captures_iter(text)
        .filter_map(|c| {
            let t = c.get(1)?.as_str();
            let t = t.split('#').next().unwrap_or("");
            if t.is_empty() || t.contains("://") || t.starts_with("mailto:") {
                return None;
            }
            Some(t.trim_start_matches("./").to_string())
        })
        .collect()
}

fn at(f: &SourceFile, c: &Chunk) -> String {
    format!("{}:{}", f.rel, c.line)
}

/// A part's route: its heading's, else a parent's, else the fallback (a file name).
fn route_of(part: &Part, fallback: Option<&str>) -> Option<Route> {
    std::iter::once(&part.heading)
        .chain(part.parents.iter().rev())
        .filter(|h| !h.is_empty())
        .find_map(|h| route::route(h))
        .or_else(|| fallback.and_then(route::route))
}

fn is_label(text: &str, labels: &[&str]) -> Option<String> {
    let t = text.trim_start();
    labels.iter().find_map(|l| {
        let rest = t.strip_prefix(l)?;
        Some(rest.trim().to_string())
    })
}

const WHY: [&str; 4] = ["**Why:**", "**Why**:", "Why:", "**为什么：**"];

/// One topic file of the auto memory.
fn topic(r: &Reading, f: &SourceFile, p: &mut Plan) -> Result<()> {
    let shown = r.shown(&f.rel);
    let fm = text::front(&f.text, &shown)?;
    let kind = fm.text("type").map(|t| t.to_lowercase());
    let parts = text::parts(&fm.body, fm.body_line);
    let description = fm.text("description");
    match kind.as_deref() {
        Some("user") => {
            p.skip(
                format!("{}:1", f.rel),
                "a `user` memory: about the person, not the project; not imported into a workspace",
            );
        }
        Some("feedback") => {
            let date = match fm.date("date", &shown)? {
                Some(d) => d,
                None => f.mtime.ok_or_else(|| {
                    Error::bad_input(format!(
                        "{shown}: no date and no modification time to date it by"
                    ))
                })?,
            };
            let mut choice: Option<(String, usize)> = None;
            let mut because = None;
            let mut lines = Vec::new();
            for c in parts.iter().flat_map(|p| &p.chunks) {
                if let Some(w) = is_label(&c.text, &WHY) {
                    because = Some(w);
                } else if choice.is_none() && !c.is_fence() {
                    choice = Some((c.plain(), c.line));
                } else {
                    lines.push(Line::Text(c.text.clone()));
                }
            }
            let (choice, line) = match (choice, description) {
                (Some(c), _) => c,
                (None, Some(d)) => (d, fm.line("description")),
                (None, None) => {
                    p.skip(
                        format!("{}:1", f.rel),
                        "an empty feedback memory: nothing to import",
                    );
                    return Ok(());
                }
            };
            p.pieces.push(Piece {
                from: format!("{}:{line}", f.rel),
                target: Target::Decision(DecisionPlan {
                    date,
                    choice,
                    over: None,
                    because,
                    lines,
                    fate: Fate::Live,
                    handle: None,
                }),
            });
        }
        _ => {
            let fixed = match kind.as_deref() {
                Some("project") => Some(3),
                Some("reference") => Some(2),
                _ => None,
            };
            let stem = f
                .rel
                .rsplit('/')
                .next()
                .unwrap_or(&f.rel)
                .trim_end_matches(".md");
            let name = stem.replace(['_', '-'], " ");
            let mut any = false;
            for part in &parts {
                let route = match fixed {
                    Some(s) => Some(Route::Slot(s)),
                    None => route_of(part, Some(&name)),
                };
                match route {
                    Some(Route::Instructions) => {
                        if !part.chunks.is_empty() {
                            p.skip(
                                format!("{}:{}", f.rel, part.line),
                                "rules for the agent: they belong in CLAUDE.md, not project memory",
                            );
                        }
                    }
                    r => {
                        let slot = match r {
                            Some(Route::Slot(s)) => s,
                            _ => 3,
                        };
                        for c in &part.chunks {
                            any = true;
                            p.section(at(f, c), slot, &c.text);
                        }
                    }
                }
            }
            if !any && let (Some(d), Some(slot)) = (description, fixed) {
                p.section(format!("{}:{}", f.rel, fm.line("description")), slot, &d);
            }
        }
    }
    Ok(())
}

/// A CLAUDE.md, by its headings.
pub(super) fn notes(f: &SourceFile, p: &mut Plan) {
    // trilogy's own boot block is a pointer to this memory, not notes about the project
    let mut text = String::new();
    let mut inside = false;
    for (i, line) in f.text.split('\n').enumerate() {
        if i > 0 {
            text.push('\n');
        }
        let t = line.trim();
        if t == BOOT_START {
            inside = true;
            p.skip(
                format!("{}:{}", f.rel, i + 1),
                "trilogy's own boot block: not imported",
            );
        }
        if !inside {
            text.push_str(line);
        }
        if t == BOOT_END {
            inside = false;
        }
    }
    for part in text::parts(&text, 1) {
        let route = if part.level <= 1 && part.parents.is_empty() {
            Some(Route::Slot(0))
        } else {
            route_of(&part, None)
        };
        let chunks: Vec<&Chunk> = part
            .chunks
            .iter()
            .filter(|c| {
                let t = c.text.trim();
                let import = t.starts_with('@') && !t.contains(char::is_whitespace);
                let comment = t.starts_with("<!--") && t.ends_with("-->");
                if import {
                    p.skip(at(f, c), "an @import of another file: not followed");
                }
                !import && !comment
            })
            .collect();
        if chunks.is_empty() {
            continue;
        }
        match route {
            Some(Route::Slot(slot)) => {
                for c in chunks {
                    p.section(at(f, c), slot, &c.text);
                }
            }
            Some(Route::Instructions) => p.skip(
                format!("{}:{}", f.rel, part.line),
                format!(
                    "`{}`: rules for the agent; they stay in {}",
                    part.heading,
                    file_name(f)
                ),
            ),
            None => p.skip(
                format!("{}:{}", f.rel, part.line),
                format!(
                    "`{}`: no PROJECT section fits this heading; it stays in {}",
                    part.heading,
                    file_name(f)
                ),
            ),
        }
    }
}

/// The name of a notes file (`CLAUDE.md`, `GEMINI.md`), as its skips name it.
fn file_name(f: &SourceFile) -> &str {
    f.rel.rsplit('/').next().unwrap_or(&f.rel)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_lines_link_topic_files() {
        assert_eq!(
            local_links(
                "- [Debugging](debugging.md) — flaky test on CI; see also [doc](https://x.y/z.md)"
            ),
            vec!["debugging.md".to_string()]
        );
        assert_eq!(
            local_links("- [Up](./a/b.md#part) x"),
            vec!["a/b.md".to_string()]
        );
        assert!(local_links("no links here").is_empty());
    }
}
