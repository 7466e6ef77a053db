//! A dsh-memory-delta store: one Markdown file per entry under `facts/`, `decisions/` and
//! `archive/`, each a flat frontmatter (`id`, `type: fact|decision`, `scope`, `key`, `tags`,
//! `status: active|superseded|expired`, `date`, `source`, `supersedes`, `superseded_by`,
//! `verify_when`) over a body of `## 结论` (the conclusion) and `## 理由` (the reason).
//! Format as its CLI writes and reads it: lpf20200901/dsh-memory-delta, `bin/mem.mjs`
//! (`createEntry`, `parseFrontmatter`, `promoteEntry`) and `docs/design.md` §六.
//!
//! Both facts and decisions become decisions (the conclusion is the choice, the reason the
//! because); `key` becomes a topic line, `tags` a tags line, `verify_when` a line of text.
//! Superseded entries stay superseded, linked to what replaced them; expired ones are
//! archived (in the store, restorable, not in the file). The inbox holds candidates nobody
//! confirmed and is left out, as are the journal, the index and the settings.

use super::plan::{DecisionPlan, Fate, Line, Piece, Plan, Target};
use super::reading::{Reading, SourceFile};
use super::text::{self, Front};
use crate::error::{Error, Result};

const ENTRY_DIRS: [&str; 3] = ["facts", "decisions", "archive"];

pub fn plan(r: &mut Reading) -> Result<Plan> {
    let top = r.list("")?;
    if !top.dirs.iter().any(|d| ENTRY_DIRS.contains(&d.as_str())) {
        return Err(Error::bad_input(format!(
            "{}: no facts/, decisions/ or archive/ folder, so not a dsh-memory-delta store; give the store's folder (`mem init` makes it, by default the workspace's memory/)",
            r.root().display()
        )));
    }
    let mut p = Plan::default();
    for f in &top.files {
        let why = match f.as_str() {
            "journal.md" => "its journal: a running log, not entries (it stays there)",
            "index.md" => "an index `mem index` derives from the entries",
            "memory.config.json" => "its settings",
            "README.md" => "the store's own README",
            _ => "not in an entry folder",
        };
        p.skip(f.clone(), why);
    }
    let mut entries = Vec::new();
    for d in &top.dirs {
        let listing = r.list(d)?;
        for sub in &listing.dirs {
            p.skip(sub.clone(), "a folder inside an entry folder: not read");
        }
        if d == "inbox" {
            for f in listing.files {
                p.skip(f, "a candidate in the inbox, never promoted: not imported");
            }
            continue;
        }
        if !ENTRY_DIRS.contains(&d.as_str()) {
            p.skip(d.clone(), "not an entry folder: not read");
            continue;
        }
        for f in listing.files {
            if !f.ends_with(".md") {
                p.skip(f, "not a Markdown entry");
                continue;
            }
            if let Some(file) = r.read(&f)? {
                entries.push(entry(r, d, &file)?);
            }
        }
    }
    // oldest first, then by id: a stable order whatever the listing gave
    entries.sort_by(|a, b| (a.1.date, &a.0).cmp(&(b.1.date, &b.0)));
    for (from, d) in entries {
        p.pieces.push(Piece {
            from,
            target: Target::Decision(d),
        });
    }
    Ok(p)
}

fn entry(r: &Reading, dir: &str, f: &SourceFile) -> Result<(String, DecisionPlan)> {
    let shown = r.shown(&f.rel);
    let fm = text::front(&f.text, &shown)?;
    if !fm.present {
        return Err(Error::bad_input(format!(
            "{shown}: line 1: no frontmatter; a dsh-memory-delta entry opens with `---` and its fields (id, type, status, date); fix or move the file (nothing was imported)"
        )));
    }
    let stem = f
        .rel
        .rsplit('/')
        .next()
        .unwrap_or(&f.rel)
        .trim_end_matches(".md");
    let id = fm.text("id").unwrap_or_else(|| stem.to_string());
    let bad = |key: &str, what: String| {
        Error::bad_input(format!(
            "{shown}: line {}: field `{key}`: {what}; fix it in the source (nothing was imported)",
            fm.line(key)
        ))
    };
    match fm.text("type").as_deref() {
        None | Some("fact") | Some("decision") => {}
        Some(t) => {
            return Err(bad(
                "type",
                format!("`{t}` is neither `fact` nor `decision`"),
            ));
        }
    }
    let status = fm.text("status").unwrap_or_else(|| {
        if dir == "archive" {
            "superseded"
        } else {
            "active"
        }
        .into()
    });
    let fate = match status.as_str() {
        "active" => Fate::Live,
        "superseded" => Fate::Superseded(fm.text("superseded_by")),
        "expired" => Fate::Archived,
        s => {
            return Err(bad(
                "status",
                format!("`{s}` is not one of active, superseded, expired"),
            ));
        }
    };
    let date = match fm.date("date", &shown)? {
        Some(d) => d,
        None => f.mtime.ok_or_else(|| {
            bad(
                "date",
                "missing, and the file has no modification time".into(),
            )
        })?,
    };
    let (conclusion, reason, rest) = body(&fm);
    let Some(conclusion) = conclusion else {
        return Err(Error::bad_input(format!(
            "{shown}: line {}: no conclusion (a `## 结论` section or a first paragraph); fix it in the source (nothing was imported)",
            fm.body_line
        )));
    };
    let mut lines = Vec::new();
    if let Some(k) = fm.text("key") {
        lines.push(Line::Topic(k));
    }
    let tags = fm.list("tags");
    if !tags.is_empty() {
        lines.push(Line::Tags(tags));
    }
    if let Some(v) = fm.text("verify_when") {
        lines.push(Line::VerifyWhen(v));
    }
    lines.extend(rest.into_iter().map(Line::Text));
    Ok((
        format!("{}:1", f.rel),
        DecisionPlan {
            date,
            choice: conclusion,
            over: None,
            because: reason,
            lines,
            fate,
            handle: Some(id),
        },
    ))
}

/// The conclusion, the reason, and any other text of an entry body.
fn body(fm: &Front) -> (Option<String>, Option<String>, Vec<String>) {
    let mut conclusion = None;
    let mut reason = None;
    let mut rest = Vec::new();
    let mut first = None;
    for part in text::parts(&fm.body, fm.body_line) {
        let joined = part
            .chunks
            .iter()
            .map(|c| c.text.as_str())
            .collect::<Vec<_>>()
            .join("\n");
        let h = part.heading.to_lowercase();
        if h == "结论" || h == "conclusion" {
            conclusion = Some(joined);
        } else if h == "理由" || h == "reason" {
            // the CLI's placeholder for a reason not given yet
            if !joined.trim().is_empty() && joined.trim() != "（待补充）" {
                reason = Some(joined);
            }
        } else {
            for c in &part.chunks {
                if first.is_none() && part.level <= 1 {
                    first = Some(c.text.clone());
                } else {
                    rest.push(c.text.clone());
                }
            }
        }
    }
    match conclusion.filter(|c| !c.trim().is_empty()) {
        Some(c) => {
            if let Some(f) = first {
                rest.insert(0, f);
            }
            (Some(c), reason, rest)
        }
        None => (first, reason, rest),
    }
}
