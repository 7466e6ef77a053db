//! `status`: what the store holds per file and section, open reports, edits kept aside,
//! sections changed on two sides, and fences left open in the files. It reads the store and
//! the files' text; it never writes.

use serde::Serialize;

use crate::error::Result;
use crate::model::{Event, FileKind, Report, is_empty_body};
use crate::workspace::{Broken, Workspace};

use crate::ops::{AreaCount, area_line, area_map};

#[derive(Debug, Clone, Serialize)]
pub struct FileStatus {
    pub file: &'static str,
    pub path: String,
    pub exists: bool,
    pub bytes: u64,
    pub entries: u64,
    /// The store holds what the file does not show yet (it was deleted, a git operation held
    /// it, a legacy heading was renamed): the next command that records something writes it.
    pub write_owed: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct SectionStatus {
    pub heading: String,
    pub empty: bool,
    pub revision: u64,
}

/// A clash in a section (see [`crate::model::SectionClash`]), as `status` shows it.
#[derive(Debug, Clone, Serialize)]
pub struct SectionConflict {
    /// `PROJECT.md` or `USER.md`.
    pub file: &'static str,
    pub path: String,
    pub section: String,
    /// When the save was taken in.
    pub at: String,
    /// The save's lines.
    pub saved: Vec<String>,
    /// The other writer's lines, which the save's writer never saw.
    pub other: Vec<String>,
}

/// The clashes of `ws`'s sections that still stand.
fn section_conflicts(ws: &Workspace, r: &dyn crate::store::Reader) -> Result<Vec<SectionConflict>> {
    let f = FileKind::Project;
    let sections = r.sections()?;
    Ok((r.section_clashes()?.into_iter())
        .filter(|c| (sections.iter()).any(|s| s.key == c.key && !s.removed && c.stands_in(&s.body)))
        .map(|c| SectionConflict {
            file: ws.file_name(f),
            path: ws.file_path(f).display().to_string(),
            section: c.heading,
            at: c.at,
            saved: c.saved,
            other: c.other,
        })
        .collect())
}

/// The clashes standing in USER.md, when there is a user memory (one that cannot be read now
/// has none to show: `trilogy user` says why).
fn user_conflicts(ws: &Workspace) -> Vec<SectionConflict> {
    let Some(u) = ws.user_scope().filter(|u| u.store_path().exists()) else {
        return Vec::new();
    };
    u.read(|r| section_conflicts(u, r))
        .map(|w| w.value)
        .unwrap_or_default()
}

/// What `status` reports.
#[derive(Debug, Clone, Serialize)]
pub struct Status {
    pub root: String,
    pub memory_dir: String,
    pub store: String,
    pub lang: &'static str,
    pub files: Vec<FileStatus>,
    pub sections: Vec<SectionStatus>,
    pub project_empty: bool,
    pub sessions_live: u64,
    pub sessions_archived: u64,
    pub decisions: u64,
    /// Entries in no file (removed, replaced): restorable with `trilogy restore`.
    pub restorable: u64,
    /// Entries a branch switch took out of the files: they belong to another branch and are
    /// live again when it is checked out (not restorable, not removed).
    pub elsewhere: u64,
    pub areas: Vec<AreaCount>,
    pub area_line: String,
    pub open_reports: Vec<Report>,
    /// Proposals waiting for a person (`review_mode` = `propose`; `trilogy review list`).
    pub proposals_pending: u64,
    pub unparseable: Vec<Broken>,
    /// Fences never closed: the file reads and records, but the `## ` lines below the fence
    /// are text of the entry that opened it.
    pub unclosed: Vec<Broken>,
    /// Credentials written into the files by hand.
    pub secrets: Vec<crate::ops::secrets::Sighting>,
    /// PROJECT.md lagging behind the logs (see `session_block::staleness`).
    pub stale: Option<crate::ops::session_block::Staleness>,
    /// Memory files git left unmerged: `trilogy resolve`.
    pub unmerged: Vec<String>,
    /// What git did with each of `unmerged`, in its order.
    #[serde(skip)]
    pub unmerged_how: Vec<&'static str>,
    /// Saves made from an older copy, whose missing entries trilogy kept (each shown once).
    pub kept: Vec<Event>,
    /// Lines of a PROJECT.md or USER.md section that a save and another writer changed
    /// differently: both are in the section until a person deletes one.
    pub section_conflicts: Vec<SectionConflict>,
    /// Topics holding more than one live decision (a hand edit or a merge brought them).
    pub topic_conflicts: Vec<crate::ops::truth::topic::TopicConflict>,
    /// Decisions and sections whose review date has come (`trilogy due`).
    pub due: Vec<crate::ops::truth::due::Due>,
    /// This repository's other git work trees with memory (read, never written).
    pub siblings: Vec<crate::ops::sibling::Sibling>,
    pub last_event: Option<Event>,
}

pub fn status(ws: &Workspace) -> Result<Status> {
    let today = ws.clock.today();
    let out = ws.read(|r| {
        let mut files = Vec::new();
        for f in FileKind::ALL {
            let path = ws.file_path(f);
            let meta = std::fs::metadata(&path).ok();
            files.push(FileStatus {
                file: f.file_name(),
                path: path.display().to_string(),
                exists: meta.is_some(),
                bytes: meta.map_or(0, |m| m.len()),
                write_owed: r.meta(&crate::workspace::pending_key(f))? > 0,
                entries: match f {
                    FileKind::Project => r.sections()?.iter().filter(|s| !s.removed).count() as u64,
                    _ => r.file_count(f)?,
                },
            });
        }
        let sections: Vec<SectionStatus> = r
            .sections()?
            .into_iter()
            .filter(|s| !s.removed)
            .map(|s| SectionStatus {
                empty: is_empty_body(&s.body),
                heading: s.heading,
                revision: s.revision,
            })
            .collect();
        let in_files: u64 = [FileKind::Decisions, FileKind::Sessions, FileKind::Archive]
            .iter()
            .map(|f| r.file_count(*f))
            .sum::<Result<u64>>()?;
        let elsewhere = r.elsewhere_count()?;
        Ok(Status {
            root: ws.root.display().to_string(),
            memory_dir: ws.memory_dir().display().to_string(),
            store: ws.store_path().display().to_string(),
            lang: ws.lang().as_str(),
            project_empty: crate::ops::session_block::project_is_empty(
                &r.sections()?,
                &crate::markdown::prose(&r.preamble(FileKind::Project)?.unwrap_or_default()),
            ),
            sections,
            files,
            sessions_live: r.file_count(FileKind::Sessions)?,
            sessions_archived: r.file_count(FileKind::Archive)?,
            decisions: r.file_count(FileKind::Decisions)?,
            restorable: (r.meta("count:total")?)
                .saturating_sub(in_files)
                .saturating_sub(elsewhere),
            elsewhere,
            areas: area_map(r, today)?,
            area_line: String::new(),
            open_reports: r.reports()?.into_iter().filter(|x| x.open).collect(),
            proposals_pending: r.pending_proposals()?,
            unparseable: Vec::new(),
            unclosed: Vec::new(),
            stale: crate::ops::session_block::staleness(r, &ws.config, &|| {
                crate::ops::file_date(ws, r)
            })?,
            secrets: crate::ops::secrets::in_files(r, ws.lang())?,
            unmerged: Vec::new(),
            unmerged_how: Vec::new(),
            kept: (r.events(KEPT_LOOKBACK)?.into_iter())
                .filter(|e| e.op == "kept")
                .collect(),
            section_conflicts: section_conflicts(ws, r)?,
            topic_conflicts: crate::ops::truth::topic::conflicts(r)?,
            due: crate::ops::truth::due::due(r, today)?,
            siblings: Vec::new(),
            last_event: r.events(1)?.into_iter().next(),
        })
    })?;
    let mut status = out.value;
    status.kept = kept_unshown(ws, std::mem::take(&mut status.kept));
    status.unparseable = out.report.unparseable;
    status.unclosed = super::unclosed_fences(ws)?;
    status.unmerged = crate::ops::gitmerge::unmerged(ws);
    status.unmerged_how = (status.unmerged.iter())
        .map(|f| crate::ops::gitmerge::what_git_did(ws, f))
        .collect();
    status.siblings = crate::ops::sibling::list(ws);
    if !ws.is_user() {
        status.section_conflicts.extend(user_conflicts(ws));
    }
    status.area_line = area_line(&status.areas, ws.lang());
    // the entries whose cited code moved on, worked out again when HEAD or memory changed
    if !ws.is_user() {
        let moved = crate::ops::anchors::refresh(ws)?.moved;
        crate::ops::truth::due::add_moved(&mut status.due, &moved, ws.clock.today());
    }
    Ok(status)
}

/// How many recent events `status` looks through for saves whose missing entries were kept.
const KEPT_LOOKBACK: usize = 500;

/// The `kept` events `status` has not shown yet (newest first); they count as shown from now
/// on (a marker beside the store, written whole: losing it shows them once more).
fn kept_unshown(ws: &Workspace, kept: Vec<Event>) -> Vec<Event> {
    let marker = ws.state_dir().join("kept-shown");
    let Ok(marker) = ws.inside(&marker) else {
        return kept;
    };
    let shown: u64 = crate::base::fence::read_small_text(&marker, 64)
        .and_then(|t| t.trim().parse().ok())
        .unwrap_or(0);
    let fresh: Vec<Event> = kept.into_iter().filter(|e| e.seq > shown).collect();
    if let Some(newest) = fresh.iter().map(|e| e.seq).max() {
        let _ = crate::workspace::write_atomic(&marker, format!("{newest}\n").as_bytes());
    }
    fresh
}
