//! Reading use cases: `read` (a file, a section, or entries filtered by area/date/count),
//! `status` and `log`. All served from the store, never by re-reading the files.

use chrono::NaiveDate;
use serde::Serialize;

use crate::error::{Error, Result};
use crate::model::{
    EntryRecord, Event, FileKind, Report, SectionRevision, area_name, is_empty_body, section_key,
    section_names_help,
};
use crate::store::Reader;
use crate::workspace::{Broken, Workspace, Written, render_file};

use super::{AreaCount, EntryView, area_line, area_map};

/// Which part of memory to read.
#[derive(Debug, Clone, PartialEq)]
pub enum ReadTarget {
    /// A whole file as the store renders it.
    File(FileKind),
    /// One PROJECT section by name (either language).
    Section(String),
    /// Entries of one file, filtered.
    Entries(EntryFilter),
}

/// Filters for entry reads.
#[derive(Debug, Clone, PartialEq)]
pub struct EntryFilter {
    pub file: FileKind,
    pub area: Option<String>,
    pub since: Option<NaiveDate>,
    pub until: Option<NaiveDate>,
    pub limit: usize,
    /// Only entries recorded on this git branch (their provenance).
    pub branch: Option<String>,
}

impl Default for EntryFilter {
    fn default() -> EntryFilter {
        EntryFilter {
            file: FileKind::Sessions,
            area: None,
            since: None,
            until: None,
            limit: 15,
            branch: None,
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct FileView {
    pub file: &'static str,
    pub path: String,
    pub content: String,
    pub entries: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct SectionView {
    pub key: String,
    pub heading: String,
    pub text: String,
    pub empty: bool,
    pub revision: u64,
}

/// What `read` returns.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ReadOutput {
    File(FileView),
    Section(SectionView),
    Entries {
        file: &'static str,
        entries: Vec<EntryView>,
    },
}

/// Read part of the memory, as an agent (or a person at the terminal) is given it: a
/// credential written into a file by hand is masked, every line of a key block (the file keeps
/// it, and `status` names it; see [`super::secrets`]).
pub fn read(ws: &Workspace, target: &ReadTarget) -> Result<Written<ReadOutput>> {
    let lang = ws.lang();
    let mut out = ws.read(|r| read_in(r, ws, target, lang))?;
    mask_credentials(&mut out.value);
    let file = match target {
        ReadTarget::File(f) => Some(*f),
        ReadTarget::Section(_) => Some(FileKind::Project),
        ReadTarget::Entries(e) => Some(e.file),
    };
    if let Some(b) = out.report.unparseable.iter().find(|b| Some(b.file) == file) {
        return Err(Error::Unparseable {
            path: b.path.clone().into(),
            line: b.line,
            reason: b.reason.clone(),
        });
    }
    Ok(out)
}

/// Mask what looks like a credential in what `read` returns.
fn mask_credentials(out: &mut ReadOutput) {
    // masks `s` in place; whether it held a credential
    let mask = |s: &mut String| {
        let m = crate::secrets::masked(s);
        let changed = m != *s;
        *s = m;
        changed
    };
    match out {
        ReadOutput::File(f) => {
            mask(&mut f.content);
        }
        ReadOutput::Section(s) => {
            mask(&mut s.heading);
            mask(&mut s.text);
        }
        ReadOutput::Entries { entries, .. } => {
            for e in entries {
                if mask(&mut e.heading) | mask(&mut e.body) {
                    e.fields = crate::model::read_fields(&e.body);
                }
            }
        }
    }
}

/// Read from an open snapshot (also what benchmarks call in-process).
pub fn read_in(
    r: &dyn Reader,
    ws: &Workspace,
    target: &ReadTarget,
    lang: crate::model::Lang,
) -> Result<ReadOutput> {
    Ok(match target {
        ReadTarget::File(f) => ReadOutput::File(FileView {
            file: ws.file_name(*f),
            path: ws.file_path(*f).display().to_string(),
            content: render_file(r, *f, lang)?,
            entries: match f {
                FileKind::Project => r.sections()?.iter().filter(|s| !s.removed).count() as u64,
                _ => r.file_count(*f)?,
            },
        }),
        ReadTarget::Section(name) => {
            let sections = r.sections()?;
            // USER.md's sections are named in either language
            let name = &match ws.is_user() {
                true => crate::user::resolve_section(name, &sections, lang, "section")?,
                false => name.clone(),
            };
            let key = section_key(name);
            let lower = name.trim().to_lowercase();
            let s = r
                .sections()?
                .into_iter()
                .filter(|s| !s.removed)
                .find(|s| s.key == key || s.heading.to_lowercase() == lower)
                .ok_or_else(|| {
                    Error::NotFound(format!(
                        "no section `{}` in PROJECT.md; sections are: {}",
                        name.trim(),
                        section_names_help()
                    ))
                })?;
            ReadOutput::Section(SectionView {
                empty: is_empty_body(&s.body),
                text: s.text().to_string(),
                key: s.key,
                heading: s.heading,
                revision: s.revision,
            })
        }
        ReadTarget::Entries(filter) => ReadOutput::Entries {
            file: filter.file.file_name(),
            entries: filtered(r, filter)?
                .iter()
                .map(|e| {
                    let mut v = EntryView::from(e);
                    v.provenance = super::Provenance::read(ws, r, e)?;
                    Ok(v)
                })
                .collect::<Result<Vec<_>>>()?,
        },
    })
}

fn filtered(r: &dyn Reader, f: &EntryFilter) -> Result<Vec<EntryRecord>> {
    if f.file == FileKind::Project {
        return Err(Error::bad_input(
            "PROJECT.md has sections, not entries: read it whole or pass --section",
        ));
    }
    let area = f.area.as_deref().map(|a| area_name(a).to_lowercase());
    let mut out = Vec::new();
    if f.limit == 0 {
        return Ok(out);
    }
    r.scan_file(f.file, 0, &mut |e| {
        if f.since.is_some_and(|since| e.sort_date < since) {
            return Ok(false);
        }
        let dated_ok = f.until.is_none_or(|u| e.sort_date <= u);
        let area_ok = area.as_ref().is_none_or(|a| e.area().to_lowercase() == *a);
        let branch_ok = (f.branch.as_deref()).is_none_or(|b| e.origin.branch.as_deref() == Some(b));
        if dated_ok && area_ok && branch_ok {
            out.push(e);
        }
        Ok(out.len() < f.limit)
    })?;
    if out.is_empty()
        && let Some(given) = &f.area
    {
        check_area(r, f.file, given)?;
    }
    Ok(out)
}

/// Areas named when an area is not found; a hand-written file may hold thousands.
const KNOWN_AREAS_SHOWN: usize = 20;

/// Nothing matched the area `given`: when no entry of `file` has it at all, say so and name
/// the areas it does have, rather than an empty answer that looks like "nothing recent".
fn check_area(r: &dyn Reader, file: FileKind, given: &str) -> Result<()> {
    let area = area_name(given).to_lowercase();
    let entries = r.file_entries(file, 0, usize::MAX)?;
    let mut known: Vec<String> = entries.iter().map(EntryRecord::area).collect();
    known.sort();
    known.dedup();
    if known.iter().any(|k| k.to_lowercase() == area) {
        return Ok(());
    }
    let names = match known.len() {
        0 => format!("{} has no entries yet", file.file_name()),
        n => {
            let mut s = known
                .iter()
                .take(KNOWN_AREAS_SHOWN)
                .map(|k| format!("`{k}`"))
                .collect::<Vec<_>>()
                .join(", ");
            if n > KNOWN_AREAS_SHOWN {
                s.push_str(&format!(" and {} more", n - KNOWN_AREAS_SHOWN));
            }
            format!("its areas are {s}")
        }
    };
    Err(Error::NotFound(format!(
        "no entry of {} has area `{}`; {names} (`trilogy status` lists them)",
        file.file_name(),
        given.trim()
    )))
}

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
    pub secrets: Vec<super::secrets::Sighting>,
    /// PROJECT.md lagging behind the logs (see `inject::staleness`).
    pub stale: Option<super::inject::Staleness>,
    /// Memory files git left unmerged (its merge driver did not run): `trilogy resolve`.
    pub unmerged: Vec<String>,
    /// Saves made from an older copy, whose missing entries trilogy kept (each shown once).
    pub kept: Vec<Event>,
    /// Lines of a PROJECT.md or USER.md section that a save and another writer changed
    /// differently: both are in the section until a person deletes one.
    pub section_conflicts: Vec<SectionConflict>,
    /// Topics holding more than one live decision (a hand edit or a merge brought them).
    pub topic_conflicts: Vec<crate::ops::truth::topic::TopicConflict>,
    /// Decisions and sections whose review date has come (`trilogy due`).
    pub due: Vec<crate::ops::truth::review::Due>,
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
            project_empty: super::inject::project_is_empty(
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
            stale: super::inject::staleness(r, &ws.config, &|| super::file_date(ws, r))?,
            secrets: super::secrets::in_files(r, ws.lang())?,
            unmerged: Vec::new(),
            kept: (r.events(KEPT_LOOKBACK)?.into_iter())
                .filter(|e| e.op == "kept")
                .collect(),
            section_conflicts: section_conflicts(ws, r)?,
            topic_conflicts: crate::ops::truth::topic::conflicts(r)?,
            due: crate::ops::truth::review::due(r, today)?,
            siblings: Vec::new(),
            last_event: r.events(1)?.into_iter().next(),
        })
    })?;
    let mut status = out.value;
    status.kept = kept_unshown(ws, std::mem::take(&mut status.kept));
    status.unparseable = out.report.unparseable;
    status.unclosed = unclosed_fences(ws)?;
    status.unmerged = super::gitmerge::unmerged(ws);
    status.siblings = crate::ops::sibling::list(ws);
    if !ws.is_user() {
        status.section_conflicts.extend(user_conflicts(ws));
    }
    status.area_line = area_line(&status.areas, ws.lang());
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

/// What `log` shows.
#[derive(Debug, Clone, Default)]
pub struct LogQuery {
    pub limit: usize,
    /// Only events naming this entry id (or id prefix).
    pub id: Option<String>,
    /// The revision history of this PROJECT section instead of events.
    pub section: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum LogView {
    Events {
        events: Vec<LoggedEvent>,
    },
    History {
        key: String,
        revisions: Vec<SectionRevision>,
    },
}

/// An event with the branch its entry was recorded on (provenance, from the store).
#[derive(Debug, Clone, Serialize)]
pub struct LoggedEvent {
    #[serde(flatten)]
    pub event: Event,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
}

pub fn log(ws: &Workspace, q: &LogQuery) -> Result<LogView> {
    Ok(ws
        .read(|r| {
            if let Some(name) = &q.section {
                let key = find_section(&r.sections()?, name)?.key;
                let mut revisions = r.section_history(&key)?;
                revisions.reverse();
                revisions.truncate(q.limit);
                // as `read` shows the section: a credential in it masked
                for v in &mut revisions {
                    v.body = crate::secrets::masked(&v.body);
                }
                return Ok(LogView::History { key, revisions });
            }
            let events = match &q.id {
                None => r.events(q.limit)?,
                Some(id) => r
                    .events(usize::MAX)?
                    .into_iter()
                    .filter(|e| e.ids.iter().any(|x| x.starts_with(id.as_str())))
                    .take(q.limit)
                    .collect(),
            };
            let events = (events.into_iter())
                .map(|event| {
                    let branch = match event.ids.first() {
                        Some(id) => r.entry(id)?.and_then(|e| e.origin.branch),
                        None => None,
                    };
                    Ok(LoggedEvent { event, branch })
                })
                .collect::<Result<Vec<_>>>()?;
            Ok(LogView::Events { events })
        })?
        .value)
}

/// The `notes` reports, newest first; closed ones only when asked.
pub fn reports(ws: &Workspace, include_closed: bool) -> Result<Vec<Report>> {
    Ok(ws
        .read(|r| r.reports())?
        .value
        .into_iter()
        .filter(|x| include_closed || x.open)
        .collect())
}

/// Mark report `seq` as dealt with (it stays in the store).
pub fn close_report(ws: &Workspace, actor: &str, seq: u64) -> Result<Report> {
    ws.require_memory()?;
    Ok(ws
        .write(actor, |tx| {
            let mut r = tx
                .store()
                .reports()?
                .into_iter()
                .find(|x| x.seq == seq)
                .ok_or_else(|| {
                    Error::NotFound(format!(
                        "no report #{seq}; `trilogy reports --all` lists them"
                    ))
                })?;
            if r.open {
                r.open = false;
                tx.put_report(&r)?;
                tx.log("report-closed", vec![], &format!("report #{seq}"))?;
            }
            Ok(r)
        })?
        .value)
}

/// The section `name` names (by key or heading, either language), removed ones included.
pub(crate) fn find_section(
    sections: &[crate::model::SectionRecord],
    name: &str,
) -> Result<crate::model::SectionRecord> {
    let key = section_key(name);
    let lower = name.trim().to_lowercase();
    sections
        .iter()
        .find(|s| s.key == key || s.heading.to_lowercase() == lower)
        .cloned()
        .ok_or_else(|| {
            Error::NotFound(format!(
                "no section `{}`; sections are: {}",
                name.trim(),
                section_names_help()
            ))
        })
}

/// Largest archive that `status` and `doctor` read to look for an unclosed fence (the live
/// files are always read).
const FENCE_SCAN_LIMIT: u64 = 4 << 20;

/// Unclosed fences in the memory files, with the line each opens on.
pub fn unclosed_fences(ws: &Workspace) -> Result<Vec<Broken>> {
    let mut out = Vec::new();
    for f in FileKind::ALL {
        // a file behind a link out, a FIFO or one over the cap is reported elsewhere (status,
        // doctor); it is not read here
        let Ok(path) = ws.memory_file(f) else {
            continue;
        };
        let Ok(meta) = std::fs::metadata(&path) else {
            continue;
        };
        if !meta.is_file() || meta.len() > crate::workspace::MAX_FILE_BYTES {
            continue;
        }
        if f == FileKind::Archive && meta.len() > FENCE_SCAN_LIMIT {
            continue;
        }
        let Ok(Some(bytes)) = crate::workspace::read_file(&path, crate::workspace::MAX_FILE_BYTES)
        else {
            continue;
        };
        let strip = matches!(f, FileKind::Sessions | FileKind::Archive);
        if let Ok(p) = crate::markdown::parse_bytes(&bytes, strip)
            && let Some(u) = p.unclosed
        {
            out.push(Broken {
                file: f,
                path: path.display().to_string(),
                line: u.line,
                reason: u.to_string(),
            });
        }
    }
    Ok(out)
}
