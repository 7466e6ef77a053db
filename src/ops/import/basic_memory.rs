//! A basic-memory project: a folder of Markdown notes, each with an optional YAML frontmatter
//! (`title`, `type`, `tags`, `permalink`, `created`, `modified`, custom fields), observations
//! written as list items `- [category] content #tag (context)`, and relations `- relation_type
//! [[Target]]`. Format from basicmachines-co/basic-memory, `docs/NOTE-FORMAT.md` (checkboxes and
//! `[text](url)` links are not observations; `created` falls back to the file's time).
//!
//! An observation goes by its category: `[decision]` becomes a decision (the context in
//! parentheses is its because, the tags a tags line), dated by the note's `created` (else its
//! mtime); the others go, as written, to the PROJECT section their category names (issues and
//! gotchas to Traps, commands and setup to Run and test, structure and tech to Where things
//! live, goals and requirements to What this is), State when none fits. Relations and prose are
//! links and text trilogy has no place for: they are counted and listed as skipped.

use std::sync::OnceLock;

use regex::Regex;

use super::plan::{DecisionPlan, Fate, Line, Piece, Plan, Target};
use super::reading::{Reading, SourceFile};
use super::text;
use crate::error::{Error, Result};

pub fn plan(r: &mut Reading) -> Result<Plan> {
    let mut p = Plan::default();
    let files = r.walk("")?;
    if !files.iter().any(|f| f.ends_with(".md")) {
        return Err(Error::bad_input(format!(
            "{}: no Markdown notes here; give the basic-memory project's folder (by default ~/basic-memory)",
            r.root().display()
        )));
    }
    for f in files {
        if !f.ends_with(".md") {
            p.skip(f, "not a Markdown note: not imported");
            continue;
        }
        if let Some(file) = r.read(&f)? {
            note(r, &file, &mut p)?;
        }
    }
    Ok(p)
}

/// Where an observation's category sends it.
enum Goes {
    Decision,
    Slot(usize),
}

fn goes(category: &str) -> Goes {
    let c = category.trim().to_lowercase();
    let is = |ws: &[&str]| ws.iter().any(|w| c == *w || c.starts_with(w));
    if is(&["decision", "decided", "choice"]) {
        Goes::Decision
    } else if is(&[
        "issue",
        "problem",
        "bug",
        "gotcha",
        "pitfall",
        "warning",
        "caveat",
        "limitation",
        "risk",
        "trap",
        "lesson",
    ]) {
        Goes::Slot(4)
    } else if is(&[
        "command",
        "setup",
        "test",
        "build",
        "run",
        "install",
        "usage",
        "workflow",
        "technique",
        "deploy",
    ]) {
        Goes::Slot(1)
    } else if is(&[
        "location",
        "file",
        "path",
        "structure",
        "architecture",
        "component",
        "module",
        "tech",
        "stack",
        "dependenc",
        "design",
        "config",
        "reference",
    ]) {
        Goes::Slot(2)
    } else if is(&[
        "goal",
        "purpose",
        "requirement",
        "feature",
        "summary",
        "overview",
        "about",
    ]) {
        Goes::Slot(0)
    } else {
        Goes::Slot(3)
    }
}

fn observation_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"^\s{0,3}[-*+]\s+\[([^\[\]()]+)\]\s+(.+)$")
            .expect("the observation pattern is valid")
    })
}

/// An observation line: category, content (tags and context taken out), tags, context.
fn observation(line: &str) -> Option<(String, String, Vec<String>, Option<String>)> {
    let c = observation_re().captures(line)?;
    let category = c.get(1)?.as_str().trim().to_string();
    // a task list item is not an observation
    if matches!(category.as_str(), " " | "x" | "X" | "-") || category.is_empty() {
        return None;
    }
    let mut rest = c.get(2)?.as_str().trim().to_string();
    let mut context = None;
    if rest.ends_with(')')
        && let Some(open) = rest.rfind(" (")
    {
        context = Some(rest[open + 2..rest.len() - 1].trim().to_string());
        rest.truncate(open);
    }
    let mut tags = Vec::new();
    let words: Vec<&str> = rest
        .split(' ')
        .filter(|w| {
            let tag = w.len() > 1 && w.starts_with('#') && !w[1..].starts_with('#');
            if tag {
                tags.push(w[1..].to_string());
            }
            !tag
        })
        .collect();
    Some((category, words.join(" ").trim().to_string(), tags, context))
}

fn note(r: &Reading, f: &SourceFile, p: &mut Plan) -> Result<()> {
    let shown = r.shown(&f.rel);
    let fm = text::front(&f.text, &shown)?;
    let date = match fm.date("created", &shown)? {
        Some(d) => d,
        None => f.mtime.ok_or_else(|| {
            Error::bad_input(format!(
                "{shown}: no `created` date and no modification time to date it by"
            ))
        })?,
    };
    let mut relations: Vec<usize> = Vec::new();
    let mut prose: Vec<usize> = Vec::new();
    for part in text::parts(&fm.body, fm.body_line) {
        for c in &part.chunks {
            let first = c.text.lines().next().unwrap_or("");
            let from = format!("{}:{}", f.rel, c.line);
            match observation(first) {
                Some((category, content, tags, context)) if !c.is_fence() => {
                    match goes(&category) {
                        Goes::Decision => {
                            let mut lines = Vec::new();
                            if !tags.is_empty() {
                                lines.push(Line::Tags(tags));
                            }
                            lines.extend(
                                c.text
                                    .lines()
                                    .skip(1)
                                    .map(|l| Line::Text(l.trim().to_string())),
                            );
                            p.pieces.push(Piece {
                                from,
                                target: Target::Decision(DecisionPlan {
                                    date,
                                    choice: content,
                                    over: None,
                                    because: context,
                                    lines,
                                    fate: Fate::Live,
                                    handle: None,
                                }),
                            });
                        }
                        Goes::Slot(slot) => p.section(from, slot, &c.text),
                    }
                }
                _ if c.text.contains("[[") => relations.push(c.line),
                _ => prose.push(c.line),
            }
        }
    }
    let title = fm.text("title").unwrap_or_else(|| {
        f.rel
            .rsplit('/')
            .next()
            .unwrap_or(&f.rel)
            .trim_end_matches(".md")
            .to_string()
    });
    if let Some(l) = relations.first() {
        p.skip(
            format!("{}:{l}", f.rel),
            format!(
                "`{title}`: {} relation(s) to other notes: trilogy keeps no links between entries",
                relations.len()
            ),
        );
    }
    if let Some(l) = prose.first() {
        p.skip(
            format!("{}:{l}", f.rel),
            format!(
                "`{title}`: {} paragraph(s) of text that are not observations: they stay in the note",
                prose.len()
            ),
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn observations_are_read_and_tasks_and_links_are_not() {
        let (c, t, tags, ctx) = observation(
            "- [decision] Selected bcrypt for passwords #security (based on OWASP audit)",
        )
        .unwrap();
        assert_eq!(c, "decision");
        assert_eq!(t, "Selected bcrypt for passwords");
        assert_eq!(tags, vec!["security".to_string()]);
        assert_eq!(ctx.as_deref(), Some("based on OWASP audit"));
        assert!(observation("- [ ] todo").is_none());
        assert!(observation("- [x] done").is_none());
        assert!(observation("- [text](https://x.y)").is_none());
        assert!(observation("- relates_to [[Other]]").is_none());
    }
}
