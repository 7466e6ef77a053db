//! One function per use case. Surfaces parse their input, call these, and format the result;
//! nothing here prints or parses command lines.

pub mod agent;
pub mod anchors;
pub mod bundle;
mod checkpoint;
pub mod claim;
pub mod clear;
pub mod doctor;
pub mod drafts;
pub mod fix;
pub mod gitmerge;
pub mod import;
pub mod install;
pub mod native;
pub mod panel;
pub mod proposals;
mod query;
pub mod read;
pub mod regions;
pub mod restore;
pub mod save;
pub mod search;
pub mod secrets;
pub mod seen;
pub mod session_block;
pub mod sibling;
pub mod surface;
pub mod truth;
pub mod user;
pub mod version;

use chrono::NaiveDate;
use serde::Serialize;

use crate::error::Result;
use crate::model::{CATCH_ALL_AREA, EntryRecord, Fields, FileKind, read_fields};
use crate::store::Reader;
use crate::workspace::{Scaffolded, SyncReport, Workspace};

pub use checkpoint::drain;
pub use checkpoint::{
    CheckpointInput, CheckpointOutcome, DecisionInput, MAX_BATCH_BYTES, MAX_FIELD_BYTES,
    MAX_SECTION_BYTES, ProjectInput, SessionInput, archive_overflow, checkpoint, parse_input,
    proposal_id, proposed_from, validate,
};
pub(crate) use checkpoint::{apply_direct, user_lines};
pub use query::{
    EntryFilter, FileView, LogQuery, LogView, MIN_PAGE_BYTES, PageAsk, Paging, ReadOutput,
    ReadTarget, SectionView, Status, close_report, json_len, log, read, read_in, reports, status,
};
pub use restore::{
    ClearRestored, RestoreOutcome, restore_cleared, restore_entry, restore_section, restore_text,
};

/// An area with its number of live entries.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct AreaCount {
    pub area: String,
    pub count: usize,
    /// Attention weight: Σ 0.5^(age_days / 14) over the area's entries.
    pub weight: f64,
}

/// Areas of SESSIONS.md, heaviest first, then by name.
pub fn area_map(r: &dyn Reader, today: NaiveDate) -> Result<Vec<AreaCount>> {
    Ok(area_map_of(
        &r.file_entries(FileKind::Sessions, 0, usize::MAX)?,
        today,
    ))
}

/// [`area_map`] of sessions already read (SESSIONS.md's entries).
pub fn area_map_of(sessions: &[crate::model::EntryRecord], today: NaiveDate) -> Vec<AreaCount> {
    let mut map: std::collections::BTreeMap<String, (usize, f64)> = Default::default();
    for e in sessions {
        let w = match e.date() {
            Some(d) => 0.5f64.powf(((today - d).num_days().max(0)) as f64 / 14.0),
            None => 1.0,
        };
        let slot = map.entry(e.area()).or_default();
        slot.0 += 1;
        slot.1 += w;
    }
    let mut v: Vec<AreaCount> = map
        .into_iter()
        .map(|(area, (count, weight))| AreaCount {
            area,
            count,
            weight,
        })
        .collect();
    v.sort_by(|a, b| {
        b.weight
            .total_cmp(&a.weight)
            .then_with(|| a.area.cmp(&b.area))
    });
    v
}

/// Areas named in the area line; hand-written files may hold thousands.
const AREA_LINE_MAX_AREAS: usize = 8;
/// Characters of one area name shown in the area line.
const AREA_LINE_MAX_NAME: usize = 32;

/// The area map as one line: `区域：插件(21) · 部署(14) · 通用(27)`. Bounded whatever the files
/// hold: at most eight areas (the largest), each name cut to 32 characters, then how many more.
pub fn area_line(areas: &[AreaCount], lang: crate::model::Lang) -> String {
    let (label, more) = match lang {
        crate::model::Lang::Zh => ("区域：", "另有 {n} 个区域"),
        crate::model::Lang::En => ("Areas: ", "{n} more areas"),
    };
    let mut shown: Vec<&AreaCount> = areas.iter().collect();
    if shown.len() > AREA_LINE_MAX_AREAS {
        // keep the largest, in their original order
        let mut by_size: Vec<usize> = (0..shown.len()).collect();
        by_size.sort_by(|a, b| shown[*b].count.cmp(&shown[*a].count).then(a.cmp(b)));
        let mut keep: Vec<usize> = by_size[..AREA_LINE_MAX_AREAS].to_vec();
        keep.sort_unstable();
        shown = keep.into_iter().map(|i| &areas[i]).collect();
    }
    let mut items: Vec<String> = shown
        .iter()
        .map(|a| {
            let name = if a.area.chars().count() > AREA_LINE_MAX_NAME {
                let cut: String = a.area.chars().take(AREA_LINE_MAX_NAME - 1).collect();
                format!("{cut}…")
            } else {
                a.area.clone()
            };
            format!("{name}({})", a.count)
        })
        .collect();
    if areas.len() > shown.len() {
        items.push(more.replace("{n}", &(areas.len() - shown.len()).to_string()));
    }
    format!("{label}{}", items.join(" · "))
}

/// An entry as the reading commands show it.
#[derive(Debug, Clone, Serialize)]
pub struct EntryView {
    pub id: String,
    pub kind: &'static str,
    pub state: &'static str,
    pub heading: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub date: Option<NaiveDate>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub area: Option<String>,
    pub fields: Fields,
    pub body: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub superseded_by: Option<String>,
    pub created_at: String,
    pub actor: String,
    pub provenance: Provenance,
}

/// Where an entry came from: store-only metadata, never in the files.
#[derive(Debug, Clone, Default, Serialize, PartialEq, Eq)]
pub struct Provenance {
    /// The git branch checked out when it was recorded (none: detached HEAD, no repository,
    /// or recorded before trilogy kept it).
    pub branch: Option<String>,
    /// The agent session that recorded it.
    pub agent_session: Option<String>,
    /// The host of that session (`claude`, `codex`, …), when the store knows the session.
    pub host: Option<String>,
    /// How it arrived: `cli`, `mcp`, `agent` (a session's own write, through the CLI or MCP),
    /// `files` (read from the memory files: a person's edit, a fresh clone), `merge` (first
    /// read from a version git holds: recorded in another clone or work tree, brought by a merge
    /// or a pull), `checkout` (first read after a branch switch), or the writer's own name
    /// (`import:<source>`, …).
    pub via: String,
    /// For an entry that arrived by a merge or a pull: the author of the commit that added it
    /// (`NAME <EMAIL>`, the teammate whose clone recorded it), when git's recent history has it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub arrived_from: Option<String>,
}

impl Provenance {
    pub fn of(e: &EntryRecord) -> Provenance {
        let merged_by = (e.actor.strip_prefix(crate::workspace::MERGED))
            .and_then(|rest| rest.strip_prefix(':'))
            .map(str::to_string);
        let via = match e.actor.as_str() {
            "file-edit" => "files".to_string(),
            _ if merged_by.is_some() => "merge".to_string(),
            crate::workspace::MERGED => "merge".to_string(),
            crate::workspace::CHECKOUT => "checkout".to_string(),
            a if a.starts_with("agent:") => "agent".to_string(),
            a => a.to_string(),
        };
        Provenance {
            branch: e.origin.branch.clone(),
            agent_session: e.origin.agent_session.clone(),
            host: None,
            via,
            arrived_from: merged_by,
        }
    }

    /// [`Provenance::of`], with the host of the session looked up in what trilogy remembers
    /// about agent sessions.
    pub fn read(ws: &Workspace, r: &dyn Reader, e: &EntryRecord) -> Result<Provenance> {
        let mut p = Provenance::of(e);
        if let Some(id) = &p.agent_session {
            p.host = crate::workspace::agents::load(ws, r, id)?.map(|s| s.host);
        }
        Ok(p)
    }
}

impl From<&EntryRecord> for EntryView {
    fn from(e: &EntryRecord) -> EntryView {
        let area = e.area();
        EntryView {
            id: e.id.clone(),
            kind: e.kind.as_str(),
            state: e.state.as_str(),
            heading: e.heading.clone(),
            date: e.date(),
            area: (e.kind == crate::model::EntryKind::Session && area != CATCH_ALL_AREA)
                .then_some(area),
            fields: read_fields(&e.body),
            body: e.body.clone(),
            superseded_by: e.superseded_by.clone(),
            created_at: e.created_at.clone(),
            actor: e.actor.clone(),
            provenance: Provenance::of(e),
        }
    }
}

/// What `init` did.
#[derive(Debug, Clone, Serialize)]
pub struct InitOutcome {
    pub root: String,
    pub memory_dir: String,
    #[serde(flatten)]
    pub scaffolded: Scaffolded,
    /// The language trilogy writes this workspace's headings and labels in.
    pub lang: &'static str,
    /// `lang` was written into the project's `trilogy.toml` by this `init`.
    pub lang_recorded: bool,
    /// What setting up the merge driver did, in a git work tree (`install git`'s lines).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub git: Vec<String>,
    pub sync: SyncReport,
}

/// Scaffold the memory folder (never overwriting), bring the store in step with it, and keep
/// the workspace's language in its `trilogy.toml` when that does not say it yet, so teammates
/// whose locales differ write the same labels. `switch` replaces the language it says.
pub fn init(ws: &Workspace) -> Result<InitOutcome> {
    init_as(ws, false)
}

/// [`init`], with `switch`: the language `ws` has replaces one `trilogy.toml` already records
/// (`trilogy init --lang`). Entries already written keep their bytes and ids.
pub fn init_as(ws: &Workspace, switch: bool) -> Result<InitOutcome> {
    let scaffolded = ws.scaffold()?;
    let synced = ws.write("cli", |_| Ok(()))?;
    let lang_recorded = !ws.is_user() && record_lang(ws, switch)?;
    Ok(InitOutcome {
        root: ws.root.display().to_string(),
        memory_dir: ws.memory_dir().display().to_string(),
        scaffolded,
        lang: ws.lang().as_str(),
        lang_recorded,
        git: Vec::new(),
        sync: synced.report,
    })
}

/// Write `lang` into the project's `trilogy.toml`, keeping every other byte of it. A file that
/// already says `lang` is left alone unless `replace` (and then only when it says another).
/// Returns whether the file was written.
fn record_lang(ws: &Workspace, replace: bool) -> Result<bool> {
    let path = ws.inside(&ws.root.join("trilogy.toml"))?;
    let text = crate::workspace::read_text_file(&path, crate::workspace::MAX_FILE_BYTES)?
        .unwrap_or_default();
    let mut doc: toml_edit::DocumentMut =
        text.parse().map_err(|e| crate::error::Error::Config {
            source_name: path.display().to_string(),
            message: format!("{e}"),
        })?;
    let says = doc.get("lang").map(|v| v.as_str());
    if says == Some(Some(ws.lang().as_str())) || (says.is_some() && !replace) {
        return Ok(false);
    }
    doc["lang"] = toml_edit::value(ws.lang().as_str());
    crate::workspace::write_atomic(&path, doc.to_string().as_bytes())?;
    Ok(true)
}

/// The date PROJECT.md last changed on disk: its last commit when git tracks it (a fresh clone
/// keeps that), else its modification time. Found once when the file is absorbed and kept in
/// the store, so session starts and `status` spawn no git; a store that has not kept it yet
/// asks git.
pub fn file_date(ws: &Workspace, r: &dyn crate::store::Reader) -> Option<NaiveDate> {
    let path = ws.file_path(FileKind::Project);
    let modified = || {
        let modified = std::fs::metadata(&path).ok()?.modified().ok()?;
        Some(chrono::DateTime::<chrono::Local>::from(modified).date_naive())
    };
    match r.meta(crate::workspace::PROJECT_DAY_KEY).unwrap_or(0) {
        0 => crate::workspace::commit_day(&ws.root, &path).or_else(modified),
        1 => modified(),
        d => NaiveDate::from_num_days_from_ce_opt((d - 2) as i32),
    }
}
