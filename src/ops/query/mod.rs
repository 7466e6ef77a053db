//! Reading use cases: `read` (a file, a section, or entries filtered by area/date/count),
//! `status` and `log`. All served from the store, never by re-reading the files.

use chrono::NaiveDate;
use serde::Serialize;

use crate::error::{Error, Result};

use crate::model::{
    EntryRecord, FileKind, area_name, is_empty_body, section_key, section_names_help,
};
use crate::store::Reader;
use crate::workspace::{Synced, Workspace, render_file};

use super::EntryView;

mod fences;
mod log;
mod page;
mod status;

pub use fences::unclosed_fences;
pub use log::{LogQuery, LogView, close_report, log, reports};
pub use page::{MIN_PAGE_BYTES, PageAsk, Paging, json_len};
pub use status::{Status, status};

/// Which part of memory to read.
#[derive(Debug, Clone, PartialEq)]
pub enum ReadTarget {
    /// A whole file as the store renders it.
    File(FileKind),
    /// One PROJECT section by name (either language).
    Section(String),
    /// Entries of one file, filtered.
    Entries(EntryFilter),
    /// A file whole when it fits in a page of `bytes`, else one page of it (an agent's read;
    /// see [`PageAsk`]).
    Page(PageAsk),
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
    /// When `content` is one page of the file: `cursor`, `truncated` and `note` (absent from
    /// the JSON of a file read whole).
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub page: Option<Paging>,
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
pub fn read(ws: &Workspace, target: &ReadTarget) -> Result<Synced<ReadOutput>> {
    let lang = ws.lang();
    let mut out = ws.read(|r| read_in(r, ws, target, lang))?;
    mask_credentials(&mut out.value);
    let file = match target {
        ReadTarget::File(f) => Some(*f),
        ReadTarget::Page(p) => Some(p.file),
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
        // a page's entries were masked one by one before it was measured
        ReadOutput::File(f) if f.page.is_some() => {}
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
            page: None,
        }),
        ReadTarget::Page(ask) => ReadOutput::File(paged(r, ws, ask, lang)?),
        ReadTarget::Section(name) => {
            let sections = r.sections()?;
            // USER.md's sections are named in either language
            let name = &match ws.is_user() {
                true => crate::model::user::resolve_section(name, &sections, lang, "section")?,
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

/// [`ReadTarget::Page`]: the file whole, as [`ReadTarget::File`] reads it, when it fits in one
/// page; else the page the cursor asks for. Only a file that fits is rendered whole.
fn paged(
    r: &dyn Reader,
    ws: &Workspace,
    ask: &PageAsk,
    lang: crate::model::Lang,
) -> Result<FileView> {
    let p = page::page(r, ask, lang)?;
    let mut view = FileView {
        file: ws.file_name(ask.file),
        path: ws.file_path(ask.file).display().to_string(),
        content: p.content,
        entries: r.file_count(ask.file)?,
        page: Some(p.paging),
    };
    if p.whole {
        // as `read` masks it; a file laid out by hand may render longer than its canonical page
        let whole = render_file(r, ask.file, lang)?;
        if json_len(&crate::secrets::masked(&whole)) <= ask.bytes.max(MIN_PAGE_BYTES) {
            (view.content, view.page) = (whole, None);
        }
    }
    Ok(view)
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
