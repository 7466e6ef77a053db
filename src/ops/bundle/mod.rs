//! Bundles: a workspace's four memory files in one JSON object, in the original plugin's
//! shape (`kind: "dsh-trilogy/memory-bundle"`), so the original can import ours and we can
//! import the bundles people already exported.
//!
//! An import is validated whole before anything is touched (kind, files, every known file must
//! parse, no secret anywhere): a bad bundle changes nothing. Into an empty workspace the files
//! are taken byte for byte; into one with memory they merge by entry like the git merge driver
//! (entries the workspace does not know are added; a PROJECT section that differs keeps the
//! current text, the bundle's is kept as a restorable revision and a report says so). With
//! [`ImportMode::Replace`] the bundle's files are taken wholesale; what they displace stays in
//! the store, restorable.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::{Error, Result};
use crate::markdown::{self, Doc};
use crate::model::{
    FileKind, SectionRecord, is_empty_body, section_heading, section_key, section_slot,
};
use crate::store::Reader;
use crate::workspace::{
    MAX_FILE_BYTES, SyncReport, Tx, Workspace, entry_ids, read_text_file, render_file,
};

/// The `kind` of a bundle.
pub const BUNDLE_KIND: &str = "dsh-trilogy/memory-bundle";
/// The `version` written.
pub const BUNDLE_VERSION: u64 = 1;

/// A workspace's memory files, as `export` writes them.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Bundle {
    pub kind: String,
    pub version: u64,
    /// RFC 3339 UTC, e.g. `2026-05-01T09:30:00.000Z`.
    #[serde(rename = "exportedAt")]
    pub exported_at: String,
    /// The workspace root it was exported from (ignored on import).
    pub root: String,
    /// File name → full text; only the files that exist.
    pub files: BTreeMap<String, String>,
    /// The store's proposals (`review_mode` = `propose`), in any state: they live in the
    /// store, not in the files. Optional: a bundle without it (the original plugin's) reads the
    /// same, and `version` stays 1.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub proposals: Vec<crate::model::Proposal>,
}

/// How an import meets memory that is already there.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ImportMode {
    /// Add what the workspace lacks; nothing already there is overwritten.
    Merge,
    /// Take the bundle's files wholesale; what they displace stays restorable.
    Replace,
}

impl ImportMode {
    /// `merge` or `replace` (the panel's `mode`).
    pub fn parse(name: &str) -> Option<ImportMode> {
        match name {
            "merge" => Some(ImportMode::Merge),
            "replace" => Some(ImportMode::Replace),
            _ => None,
        }
    }
}

/// What an import did.
#[derive(Debug, Clone, Serialize)]
pub struct ImportOutcome {
    pub root: String,
    /// (`memoryDir`, as the original's `/import` answered)
    #[serde(rename = "memoryDir")]
    pub memory_dir: String,
    /// `empty` (the files taken byte for byte), `merge` or `replace`.
    pub mode: &'static str,
    /// Memory files written.
    pub written: Vec<String>,
    /// Entries added to the workspace.
    pub added: usize,
    /// Entries of the bundle the workspace already knows (live, archived, or removed: a removed
    /// one comes back only with `trilogy restore`).
    pub already_present: usize,
    /// PROJECT sections the bundle brought that the workspace lacked (or had empty).
    pub sections_added: Vec<String>,
    /// PROJECT sections where the current text was kept; the bundle's is a restorable revision.
    pub sections_kept: Vec<KeptSection>,
    /// Names in the bundle that are not memory files (ignored).
    pub ignored: Vec<String>,
    /// Proposals the bundle carried that this store lacked.
    pub proposals_added: usize,
    #[serde(skip_serializing_if = "sync_is_quiet")]
    pub sync: SyncReport,
}

/// A PROJECT section whose bundle text was kept aside.
#[derive(Debug, Clone, Serialize)]
pub struct KeptSection {
    pub section: String,
    /// The revision holding the bundle's text (`trilogy restore --section S --revision N`).
    pub revision: u64,
    /// The report that says so (`trilogy reports`).
    pub report: u64,
}

fn sync_is_quiet(r: &SyncReport) -> bool {
    r.absorbed.is_empty() && r.unparseable.is_empty() && r.files_deferred.is_none()
}

/// The four files, in the order a bundle lists them.
const BUNDLE_FILES: [FileKind; 4] = [
    FileKind::Project,
    FileKind::Decisions,
    FileKind::Sessions,
    FileKind::Archive,
];

/// The workspace's memory files as a bundle (only those that exist).
pub fn export(ws: &Workspace) -> Result<Bundle> {
    let mut files = BTreeMap::new();
    for f in BUNDLE_FILES.into_iter().filter(|f| ws.files().contains(f)) {
        let path = ws.memory_file(f)?;
        // through the fence: a FIFO or a device in its place is refused, never waited on
        if let Some(text) = read_text_file(&path, MAX_FILE_BYTES)? {
            files.insert(ws.file_name(f).to_string(), text);
        }
    }
    let proposals = ws.read(|r| r.proposals())?.value;
    Ok(Bundle {
        kind: BUNDLE_KIND.to_string(),
        version: BUNDLE_VERSION,
        exported_at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
        root: ws.root.display().to_string(),
        files,
        proposals,
    })
}

/// A bundle checked whole: its memory files (in bundle order) and the names it ignores.
#[derive(Debug, Clone)]
pub struct Checked<'a> {
    /// Each known file's text, as the bundle holds it (never copied: an archive may be large).
    pub files: Vec<(FileKind, &'a str)>,
    pub ignored: Vec<String>,
    /// Its proposals, when it carries any.
    pub proposals: Vec<crate::model::Proposal>,
}

/// Check a bundle without touching anything: the kind, the files, that every known file parses
/// (no conflict marker, no unclosed fence hiding headings) and holds no secret.
pub fn check(bundle: &Value) -> Result<Checked<'_>> {
    let names: Vec<(FileKind, &str)> = BUNDLE_FILES.iter().map(|f| (*f, f.file_name())).collect();
    check_names(bundle, &names)
}

/// [`check`] for the scope of `ws`: the user memory's bundles hold USER.md alone, and a
/// workspace's never do.
pub fn check_for<'a>(ws: &Workspace, bundle: &'a Value) -> Result<Checked<'a>> {
    let names: Vec<(FileKind, &str)> = (BUNDLE_FILES.iter())
        .filter(|f| ws.files().contains(f))
        .map(|f| (*f, ws.file_name(*f)))
        .collect();
    check_names(bundle, &names)
}

fn check_names<'a>(bundle: &'a Value, names: &[(FileKind, &str)]) -> Result<Checked<'a>> {
    let obj = bundle.as_object().ok_or_else(|| {
        Error::bad_input("the bundle is not a JSON object; give a file written by `trilogy export`")
    })?;
    let kind = obj.get("kind").and_then(Value::as_str).unwrap_or("");
    if kind != BUNDLE_KIND {
        return Err(Error::bad_input(format!(
            "not a trilogy memory bundle (kind={}); a bundle has \"kind\": \"{BUNDLE_KIND}\" (write one with `trilogy export`)",
            match obj.get("kind") {
                Some(v) => v.to_string(),
                None => "missing".into(),
            }
        )));
    }
    match obj.get("version") {
        Some(v) if v.as_u64() == Some(BUNDLE_VERSION) => {}
        Some(v) => {
            return Err(Error::bad_input(format!(
                "bundle version {v} is not one this trilogy reads (it reads \"version\": {BUNDLE_VERSION}); \
                 import it with the trilogy that wrote it, or upgrade trilogy"
            )));
        }
        None => {
            return Err(Error::bad_input(format!(
                "the bundle has no \"version\"; a bundle written by `trilogy export` has \"version\": {BUNDLE_VERSION}"
            )));
        }
    }
    let files = obj.get("files").and_then(Value::as_object).ok_or_else(|| {
        Error::bad_input(
            "the bundle has no \"files\" object; a bundle maps file names to their text",
        )
    })?;
    let proposals = match obj.get("proposals") {
        None | Some(Value::Null) => Vec::new(),
        Some(v) => serde_json::from_value(v.clone()).map_err(|e| {
            Error::bad_input(format!(
                "bundle \"proposals\": {e}; fix that key or remove it (proposals are optional)"
            ))
        })?,
    };
    let mut out = Vec::new();
    let mut ignored = Vec::new();
    for (name, v) in files {
        if names.iter().all(|(_, n)| n != name) {
            ignored.push(name.clone());
            continue;
        }
        if v.is_null() {
            continue;
        }
        if !v.is_string() {
            return Err(Error::bad_input(format!(
                "bundle file {name}: its value is not text (a string); fix the bundle"
            )));
        }
    }
    for &(f, name) in names {
        let Some(text) = files.get(name).and_then(Value::as_str) else {
            continue;
        };
        check_file(f, name, text)?;
        out.push((f, text));
    }
    if out.is_empty() {
        let wanted: Vec<&str> = names.iter().map(|(_, n)| *n).collect();
        return Err(Error::bad_input(format!(
            "the bundle holds none of {}{}; nothing to import",
            wanted.join(", "),
            if ignored.is_empty() {
                String::new()
            } else {
                format!(" (only {})", ignored.join(", "))
            }
        )));
    }
    Ok(Checked {
        files: out,
        ignored,
        proposals,
    })
}

/// One file of a bundle: it parses, no unclosed fence hides headings, no secret.
fn check_file(f: FileKind, name: &str, text: &str) -> Result<()> {
    let strip = matches!(f, FileKind::Sessions | FileKind::Archive);
    let refused = |line: usize, reason: &dyn std::fmt::Display| {
        Error::bad_input(format!(
            "bundle file {name}: line {line}: {reason}; fix it in the bundle (nothing was imported)"
        ))
    };
    // an archive is parsed a chunk at a time, as its import reads it: never whole
    let chunked = (f == FileKind::Archive)
        .then(|| crate::workspace::check_in_chunks(text))
        .flatten();
    match chunked {
        Some(checked) => checked.map_err(|e| refused(e.line, &e.reason))?,
        None => {
            let parsed = markdown::parse(text, strip).map_err(|e| refused(e.line, &e.reason))?;
            if let Some(u) = parsed.unclosed.as_ref().filter(|u| u.hidden > 0) {
                return Err(refused(u.line, u));
            }
        }
    }
    if let Some(s) = crate::secrets::find(text) {
        return Err(Error::bad_input(format!(
            "bundle file {}: line {}: looks like {} ({}); remove it from the bundle (nothing was imported)",
            name, s.line, s.kind, s.masked
        )));
    }
    Ok(())
}

/// Import a bundle (see the module header). A bundle that fails [`check`] changes nothing.
pub fn import(
    ws: &Workspace,
    bundle: &Value,
    mode: ImportMode,
    actor: &str,
) -> Result<ImportOutcome> {
    let checked = check_for(ws, bundle)?;
    let done = ws.write(actor, |tx| {
        let empty = is_empty(tx)?;
        let mut out = Tally::default();
        if empty || mode == ImportMode::Replace {
            let files = checked.files.clone();
            // what the workspace knew before, so the answer counts what the files brought
            let known: std::collections::HashSet<String> = match empty {
                true => Default::default(),
                false => (tx.store().all_entries()?.into_iter())
                    .map(|e| e.id)
                    .collect(),
            };
            tx.take_texts(&files, true)?;
            for f in [FileKind::Decisions, FileKind::Sessions, FileKind::Archive] {
                tx.store().scan_file(f, 0, &mut |e| {
                    match known.contains(&e.id) {
                        true => out.present += 1,
                        false => out.added += 1,
                    }
                    Ok(true)
                })?;
            }
            out.sections_added = (tx.store().sections()?.into_iter())
                .filter(|s| {
                    !s.removed
                        && !crate::ops::session_block::project_is_empty(std::slice::from_ref(s), "")
                })
                .map(|s| s.heading)
                .collect();
            out.taken = files
                .iter()
                .map(|(f, _)| tx.ws.file_name(*f).to_string())
                .collect();
        } else {
            for (f, text) in &checked.files {
                if *f == FileKind::Project {
                    merge_project(tx, text, &mut out)?;
                } else {
                    merge_entries_of(tx, *f, text, &mut out)?;
                }
            }
        }
        // proposals the store lacks come as they were (a pending one stays pending)
        for p in &checked.proposals {
            // a proposal is what its item says: one whose id is not its item's, or that a
            // person already decided elsewhere, does not come in
            let own = crate::ops::proposal_id(p.kind, &p.item) == p.id;
            if own
                && p.state == crate::model::ProposalState::Pending
                && tx.store().proposal(&p.id)?.is_none()
            {
                tx.put_proposal(p)?;
                out.proposals += 1;
            }
        }
        Ok((empty, out))
    })?;
    let (empty, tally) = done.value;
    let mode_name = match (empty, mode) {
        (true, _) => "empty",
        (false, ImportMode::Merge) => "merge",
        (false, ImportMode::Replace) => "replace",
    };
    let mut written = done.report.written.clone();
    for t in tally.taken {
        if !written.contains(&t) {
            written.push(t);
        }
    }
    Ok(ImportOutcome {
        root: ws.root.display().to_string(),
        memory_dir: ws.memory_dir().display().to_string(),
        mode: mode_name,
        written,
        added: tally.added,
        already_present: tally.present,
        sections_added: tally.sections_added,
        sections_kept: tally.kept,
        ignored: checked.ignored,
        proposals_added: tally.proposals,
        sync: done.report,
    })
}

#[derive(Default)]
struct Tally {
    proposals: usize,
    taken: Vec<String>,
    added: usize,
    present: usize,
    sections_added: Vec<String>,
    kept: Vec<KeptSection>,
}

/// No entry anywhere and every PROJECT section empty (no memory, or untouched templates).
fn is_empty(tx: &Tx) -> Result<bool> {
    let r = tx.store();
    for f in [FileKind::Decisions, FileKind::Sessions, FileKind::Archive] {
        if r.file_count(f)? > 0 {
            return Ok(false);
        }
    }
    Ok(r.sections()?
        .iter()
        .all(|s| s.removed || is_empty_body(&s.body)))
}

/// Merge a bundle's DECISIONS, SESSIONS or archive into the workspace's: entries it does not
/// know are added (dates descending, like the merge driver), nothing is removed.
fn merge_entries_of(tx: &mut Tx, f: FileKind, text: &str, out: &mut Tally) -> Result<()> {
    let strip = matches!(f, FileKind::Sessions | FileKind::Archive);
    let theirs = parse_checked(f, text, strip)?;
    let ids = entry_ids(f, &theirs, tx.author().today);
    let mut new_blocks = Vec::new();
    for (block, id) in theirs.blocks.iter().zip(&ids) {
        if tx.store().entry(id)?.is_some() {
            out.present += 1;
        } else {
            new_blocks.push(block.clone());
        }
    }
    if new_blocks.is_empty() {
        return Ok(());
    }
    let lang = tx.lang();
    let current = render_file(tx.store(), f, lang)?;
    let mut ours = parse_checked(f, &current, strip)?;
    if f == FileKind::Archive && tx.store().file_count(f)? == 0 {
        // no archive here yet: it starts with the bundle's header
        ours.preamble = theirs.preamble.clone();
    }
    let base = Doc {
        preamble: theirs.preamble.clone(),
        blocks: Vec::new(),
    };
    let news = Doc {
        preamble: theirs.preamble.clone(),
        blocks: new_blocks,
    };
    out.added += news.blocks.len();
    let mut merged = markdown::merge_entries(&base, &ours, &news).doc;
    super::gitmerge::order_by_date(&mut merged);
    tx.take_text(f, &markdown::render(&merged, None), true)
}

fn parse_checked(f: FileKind, text: &str, strip: bool) -> Result<Doc> {
    markdown::parse(text, strip)
        .map(|p| p.doc)
        .map_err(|e| Error::bad_input(format!("{}: line {}: {}", f.file_name(), e.line, e.reason)))
}

/// Merge a bundle's PROJECT.md section by section: a section the workspace lacks (or has
/// empty) is taken; one that differs keeps the current text, and the bundle's is stored as a
/// revision (restorable) with a report.
fn merge_project(tx: &mut Tx, text: &str, out: &mut Tally) -> Result<()> {
    let theirs = parse_checked(FileKind::Project, text, false)?;
    let lang = tx.lang();
    let mut sections: BTreeMap<String, SectionRecord> = tx
        .store()
        .sections()?
        .into_iter()
        .map(|s| (s.key.clone(), s))
        .collect();
    let mut next_order = sections.values().map(|s| s.order + 1).max().unwrap_or(0);
    for block in &theirs.blocks {
        let key = section_key(&block.heading);
        let body = block.body.clone();
        if is_empty_body(&body) {
            continue;
        }
        let heading = match (lang, section_slot(&block.heading)) {
            (crate::model::Lang::Zh, Some(slot)) => section_heading(slot, lang).to_string(),
            _ => block.heading.clone(),
        };
        match sections.get(&key).cloned() {
            None => {
                let rec = SectionRecord {
                    key: key.clone(),
                    heading: heading.clone(),
                    body,
                    order: next_order,
                    removed: false,
                    revision: 1,
                };
                next_order += 1;
                tx.put_section(&rec)?;
                tx.log("section-add", vec![key.clone()], &heading)?;
                out.sections_added.push(heading);
                sections.insert(key, rec);
            }
            Some(cur) if cur.removed || is_empty_body(&cur.body) => {
                let rec = SectionRecord {
                    body,
                    removed: false,
                    revision: cur.revision + 1,
                    ..cur
                };
                tx.put_section(&rec)?;
                tx.log("section", vec![key.clone()], &rec.heading)?;
                out.sections_added.push(rec.heading.clone());
                sections.insert(key, rec);
            }
            Some(cur) if cur.body.trim() == body.trim() => {}
            Some(cur) => {
                // the bundle's text becomes a revision, then the current text the newest one
                let aside = SectionRecord {
                    body,
                    revision: cur.revision + 1,
                    ..cur.clone()
                };
                tx.put_section(&aside)?;
                let back = SectionRecord {
                    revision: cur.revision + 2,
                    ..cur.clone()
                };
                tx.put_section(&back)?;
                tx.log(
                    "import-kept",
                    vec![key.clone()],
                    &format!(
                        "{}: kept the current text; the bundle's is revision {}",
                        cur.heading, aside.revision
                    ),
                )?;
                let report = tx.add_report(&format!(
                    "import: the bundle's PROJECT section `{h}` differs from this workspace's; the current text was kept and the bundle's is revision {r} (`trilogy restore --section \"{h}\" --revision {r}` takes it, `trilogy log --section \"{h}\"` shows both)",
                    h = cur.heading,
                    r = aside.revision
                ))?;
                out.kept.push(KeptSection {
                    section: cur.heading.clone(),
                    revision: aside.revision,
                    report,
                });
                sections.insert(key, back);
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
