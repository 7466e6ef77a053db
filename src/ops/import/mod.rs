//! Bringing memory from other tools: `trilogy import --from SOURCE PATH [--dry-run]`.
//!
//! One file per source reads its format into a [`plan::Plan`] — pieces of the source, each
//! with the PROJECT section, decision or session it becomes, and what is left out and why.
//! The plan is weighed against the store by one routine for the preview and the write alike,
//! so `--dry-run` shows exactly what the import does and changes no byte.
//!
//! Every import is idempotent: PROJECT text is added only when the section lacks it, and
//! entries are dated by the source (a frontmatter or heading date, else the file's mtime),
//! never by today, so their content ids match on any later run. Entries are recorded with the
//! actor `import:<source>`. The source is read defensively ([`reading`]): nothing outside
//! PATH, no special files, capped sizes; a credential or unreadable input anywhere is an
//! error naming file and line, and nothing is written.
//!
//! This room must not write outside the workspace, and never touches the source.

mod basic_memory;
mod claude;
mod cline;
mod codex;
mod delta;
mod gemini;
pub mod plan;
pub mod reading;
mod route;
pub mod text;

use std::path::Path;

use serde::Serialize;

use crate::error::Result;
use crate::workspace::{SyncReport, Workspace};

pub use plan::{Item, Skip};

/// A tool whose memory can be imported.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Source {
    /// Claude Code's auto memory (MEMORY.md and its topic files) or a CLAUDE.md.
    Claude,
    /// A Cline (or Roo) memory bank.
    Cline,
    /// A dsh-memory-delta store.
    Delta,
    /// A basic-memory project.
    BasicMemory,
    /// Gemini CLI's GEMINI.md, with the facts its `save_memory` keeps.
    Gemini,
    /// Codex's memories folder (its MEMORY.md), the blocks about this workspace.
    Codex,
}

impl Source {
    pub const ALL: [Source; 6] = [
        Source::Claude,
        Source::Cline,
        Source::Delta,
        Source::BasicMemory,
        Source::Gemini,
        Source::Codex,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Source::Claude => "claude",
            Source::Cline => "cline",
            Source::Delta => "delta",
            Source::BasicMemory => "basic-memory",
            Source::Gemini => "gemini",
            Source::Codex => "codex",
        }
    }

    pub fn parse(name: &str) -> Option<Source> {
        Source::ALL.into_iter().find(|s| s.name() == name.trim())
    }

    /// The actor recorded on what it imports.
    pub fn actor(self) -> String {
        format!("import:{}", self.name())
    }
}

/// What an import did, or (with `dry_run`) would do.
#[derive(Debug, Clone, Serialize)]
pub struct Outcome {
    pub source: Source,
    /// PATH, resolved.
    pub path: String,
    pub dry_run: bool,
    /// Every piece of the source, where it goes, and whether it is new.
    pub items: Vec<Item>,
    /// What was left out, and why.
    pub skipped: Vec<Skip>,
    /// Pieces new to the workspace (added, or that would be).
    pub added: usize,
    /// Pieces the workspace already holds.
    pub present: usize,
    /// Memory files written (empty on a dry run).
    pub written: Vec<String>,
    #[serde(skip_serializing_if = "sync_is_quiet")]
    pub sync: SyncReport,
}

fn sync_is_quiet(r: &SyncReport) -> bool {
    r.absorbed.is_empty() && r.unparseable.is_empty() && r.files_deferred.is_none()
}

/// Read `path` as `source` into a plan for the workspace at `project` (which only a source
/// holding several projects' memory reads, to take this one's).
pub fn plan(source: Source, path: &Path, project: &Path) -> Result<(String, plan::Plan)> {
    // a file as PATH: a CLAUDE.md, GEMINI.md or MEMORY.md, read from the folder it is in
    let file = std::fs::metadata(path).is_ok_and(|m| m.is_file());
    let (mut r, name) = match (file, path.file_name(), path.parent()) {
        (true, Some(name), Some(dir))
            if matches!(source, Source::Claude | Source::Gemini | Source::Codex) =>
        {
            let dir = if dir.as_os_str().is_empty() {
                Path::new(".")
            } else {
                dir
            };
            (
                reading::Reading::new(dir)?,
                Some(name.to_string_lossy().into_owned()),
            )
        }
        (true, ..) => {
            return Err(crate::error::Error::bad_input(format!(
                "{}: a file; --from {} reads a folder (give the folder that holds it)",
                path.display(),
                source.name()
            )));
        }
        _ => (reading::Reading::new(path)?, None),
    };
    let mut p = match source {
        Source::Claude => claude::plan(&mut r, name.as_deref())?,
        Source::Cline => cline::plan(&mut r)?,
        Source::Delta => delta::plan(&mut r)?,
        Source::BasicMemory => basic_memory::plan(&mut r)?,
        Source::Gemini => gemini::plan(&mut r, name.as_deref())?,
        Source::Codex => codex::plan(&mut r, name.as_deref(), project)?,
    };
    let mut skipped = std::mem::take(&mut r.skipped);
    skipped.append(&mut p.skipped);
    // a file both listed and read is noted once
    let mut seen = std::collections::BTreeSet::new();
    skipped.retain(|s| seen.insert((s.from.clone(), s.reason.clone())));
    p.skipped = skipped;
    let shown = match &name {
        Some(n) => r.root().join(n).display().to_string(),
        None => r.root().display().to_string(),
    };
    Ok((shown, p))
}

/// Import `path` as `source` into `ws`; with `dry_run`, only say what would happen.
pub fn import(ws: &Workspace, source: Source, path: &Path, dry_run: bool) -> Result<Outcome> {
    let (shown, plan) = plan(source, path, &ws.root)?;
    let lang = ws.lang();
    let outcome = |items: Vec<Item>, written, sync| {
        let added = items.iter().filter(|i| i.status == "add").count();
        Outcome {
            source,
            path: shown.clone(),
            dry_run,
            present: items.len() - added,
            added,
            items,
            skipped: plan.skipped.clone(),
            written,
            sync,
        }
    };
    if dry_run && !ws.has_memory() {
        let (items, _) = plan::weigh(None, &plan, lang)?;
        return Ok(outcome(items, Vec::new(), SyncReport::default()));
    }
    if ws.has_memory() {
        // weighed on a read first: an import that adds nothing opens no write at all
        let done = ws.read(|r| plan::weigh(Some(r), &plan, lang))?;
        let (items, changes) = done.value;
        if dry_run || changes.is_empty() {
            return Ok(outcome(items, Vec::new(), done.report));
        }
    }
    if ws.config.auto_scaffold && !ws.has_memory() {
        ws.scaffold()?;
    }
    ws.require_memory()?;
    let done = ws.write(&source.actor(), |tx| {
        let (items, changes) = plan::weigh(Some(tx.store()), &plan, lang)?;
        plan::apply(tx, &changes)?;
        Ok(items)
    })?;
    let written = done.report.written.clone();
    Ok(outcome(done.value, written, done.report))
}
