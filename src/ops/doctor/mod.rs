//! `doctor`: check the store, the files, the index and the managed blocks without changing
//! anything; with `fix`, repair what is safe (absorb and re-render, rebuild the index, sweep
//! temp files) and say what is left for the user.

use std::path::Path;
use std::time::Duration;

use serde::Serialize;

use crate::error::{Error, Result};
use crate::index::SearchIndex;
use crate::markdown;
use crate::model::FileKind;
use crate::store::{Reader, Store};
use crate::workspace::{BOOT_END, BOOT_START, Workspace, render_file};

use super::block::{BLOCK_END, BLOCK_START};

mod fence;
mod hosts;

pub use hosts::resolves;
mod repair;
mod user;

use repair::{fix_damaged, set_aside};

/// How bad a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Ok,
    Warn,
    Error,
}

#[derive(Debug, Clone, Serialize)]
pub struct Finding {
    pub level: Level,
    pub check: &'static str,
    pub message: String,
    /// The one thing to do first (empty when nothing is needed).
    pub action: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub findings: Vec<Finding>,
    /// What `--fix` did.
    pub fixed: Vec<String>,
}

impl Report {
    pub fn worst(&self) -> Level {
        self.findings
            .iter()
            .map(|f| f.level)
            .max()
            .unwrap_or(Level::Ok)
    }
}

fn finding(
    level: Level,
    check: &'static str,
    message: impl Into<String>,
    action: impl Into<String>,
) -> Finding {
    Finding {
        level,
        check,
        message: message.into(),
        action: action.into(),
    }
}

/// The action for a store a newer trilogy wrote.
const NEWER: &str = "upgrade trilogy: this one leaves the store as it is (doctor --fix too), so what only it holds is kept for the trilogy that wrote it";

/// The action for a damaged store.
const FIX_DAMAGED: &str = "run `trilogy doctor --fix`: it keeps the damaged file aside (store.redb.damaged-<time>), rebuilds the store from the Markdown and recovers what history it can";

fn temp_files(dir: &Path) -> Vec<std::path::PathBuf> {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    rd.filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(".trilogy-") && n.ends_with(".tmp"))
        })
        .filter(|p| {
            std::fs::metadata(p)
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| t.elapsed().ok())
                .is_some_and(|age| age > Duration::from_secs(60))
        })
        .collect()
}

/// The store file, as far as a read-only look can tell.
enum StoreState {
    Missing,
    /// Cut short, pages overwritten, records that do not decode: `--fix` sets it aside.
    Damaged(String),
    /// Written by a newer trilogy: left as it is, for that trilogy (`--fix` never sets it aside).
    Newer(String),
    /// redb marks a file whose last commit failed or was cut short; opening it for writing
    /// repairs it, which a read-only look cannot do.
    NeedsRepair(String),
    /// Not damaged, but not usable either (permissions, a directory in its place).
    Unusable(String, String),
    Healthy(Store),
}

fn store_state(ws: &Workspace, path: &Path) -> StoreState {
    if !path.exists() {
        return StoreState::Missing;
    }
    if let Some((message, action)) = fence::file_problem(ws, path, true) {
        return StoreState::Unusable(message, action);
    }
    // an empty file is no store yet (an older trilogy stopped before growing it): any command
    // makes the store in it
    if std::fs::metadata(path).is_ok_and(|m| m.len() == 0) {
        return StoreState::Missing;
    }
    if let Some(newer) = crate::store::newer_format(path) {
        return StoreState::Newer(newer);
    }
    let store = match Store::open_read_only(path) {
        Ok(s) => s,
        Err(Error::StoreDamaged { detail, .. }) => return StoreState::Damaged(detail),
        Err(e) if e.to_string().to_lowercase().contains("repair") => {
            return StoreState::NeedsRepair(e.to_string());
        }
        Err(e) if e.to_string().contains("Permission denied") => {
            return StoreState::Unusable(
                format!("{} is unreadable — permission denied", path.display()),
                format!(
                    "give the user read and write access (chmod u+rw {})",
                    path.display()
                ),
            );
        }
        Err(e) => {
            return StoreState::Unusable(
                format!("the store does not open: {e}"),
                "run doctor --fix when the cause is gone".into(),
            );
        }
    };
    match store.read().and_then(|r| r.meta("schema_version")) {
        Ok(v) if v > crate::store::SCHEMA_VERSION => {
            return StoreState::Newer(format!(
                "the store was written by a newer trilogy (layout {v}, this one writes {})",
                crate::store::SCHEMA_VERSION
            ));
        }
        Ok(_) => {}
        Err(Error::StoreDamaged { detail, .. }) => return StoreState::Damaged(detail),
        Err(e) => return StoreState::Damaged(e.to_string()),
    }
    match crate::store::verify(path) {
        Ok(()) => StoreState::Healthy(store),
        Err(Error::StoreDamaged { detail, .. }) => StoreState::Damaged(detail),
        Err(e) => StoreState::Damaged(e.to_string()),
    }
}

/// Paths inside `.trilogy/` that must be directories.
fn state_dir_findings(ws: &Workspace, out: &mut Vec<Finding>) {
    for (dir, what) in [
        (ws.state_dir(), "trilogy's state directory"),
        (ws.index_dir(), "the search index directory"),
    ] {
        if dir.exists() && !dir.is_dir() {
            out.push(finding(
                Level::Error,
                if what.contains("index") { "index" } else { "store" },
                format!("{} is a file where {what} should be", dir.display()),
                "run doctor --fix: it moves the file aside (as <name>.damaged-<time>) and rebuilds what belongs there",
            ));
        }
    }
}

fn check(ws: &Workspace, env: &[(String, String)]) -> Result<Vec<Finding>> {
    let mut out = Vec::new();
    for f in super::gitmerge::unmerged(ws) {
        out.push(finding(
            Level::Error,
            "git",
            format!(
                "{f} is unmerged: git could not run the merge driver and kept one side only; committing it now drops the other branch's entries"
            ),
            "run `trilogy resolve` (it merges the file by entry and stages it); then `trilogy install git` records this binary's path so git finds the driver",
        ));
    }
    if let Some(lock) = ws.git().and_then(crate::workspace::stale_git_lock) {
        out.push(finding(
            Level::Error,
            "git",
            format!(
                "{} was left by a trilogy process that is gone: git refuses every command that needs the index while it is there",
                lock.display()
            ),
            "run `trilogy doctor --fix` (or any trilogy command): it removes a lock of trilogy's whose process is gone, never git's own",
        ));
    }
    let store_path = ws.store_path();
    fence::folder_findings(ws, &mut out);
    state_dir_findings(ws, &mut out);
    // memory files that are not readable files (read before any store is needed)
    let mut unreadable = Vec::new();
    for f in FileKind::ALL {
        let path = ws.file_path(f);
        if let Some((message, action)) = fence::file_problem(ws, &path, false) {
            out.push(finding(Level::Error, "files", message, action));
            unreadable.push(f);
        }
    }
    let store = match store_state(ws, &store_path) {
        StoreState::Healthy(s) => s,
        StoreState::Missing => {
            out.push(finding(
                Level::Warn,
                "store",
                format!("no store at {} yet", store_path.display()),
                "run any trilogy command (or doctor --fix): it rebuilds the store from the Markdown",
            ));
            return Ok(out);
        }
        StoreState::Damaged(detail) => {
            out.push(finding(
                Level::Error,
                "store",
                format!("{} is damaged: {detail}", store_path.display()),
                FIX_DAMAGED,
            ));
            return Ok(out);
        }
        StoreState::Newer(message) => {
            out.push(finding(
                Level::Error,
                "store",
                format!("{}: {message}", store_path.display()),
                NEWER,
            ));
            return Ok(out);
        }
        StoreState::NeedsRepair(e) => {
            out.push(finding(
                Level::Error,
                "store",
                format!("the store needs a repair after a failed or interrupted write ({e})"),
                "run doctor --fix (any trilogy command that writes repairs it too)",
            ));
            return Ok(out);
        }
        StoreState::Unusable(message, action) => {
            out.push(finding(Level::Error, "store", message, action));
            return Ok(out);
        }
    };
    let r = store.read()?;
    let version = r.meta("schema_version")?;
    if version != crate::store::SCHEMA_VERSION {
        out.push(finding(
            Level::Warn,
            "store",
            format!(
                "store layout {version}, this trilogy writes {}",
                crate::store::SCHEMA_VERSION
            ),
            "run any trilogy command: it migrates the store",
        ));
    }
    // one live decision per topic (a hand edit or a merge can bring a second)
    for c in crate::ops::truth::topic::conflicts(&r)? {
        out.push(finding(
            Level::Warn,
            "topics",
            format!(
                "topic `{}` has {} live decisions: {}",
                c.topic,
                c.decisions.len(),
                c.decisions.join("; ")
            ),
            "keep one: `trilogy retire ID --why \"…\"` the others (or record the decision that holds with \"supersedes\"); a new decision on this topic is refused until then",
        ));
    }
    // the render order and the counters agree
    let only_current = version == crate::store::SCHEMA_VERSION;
    for f in [FileKind::Decisions, FileKind::Sessions, FileKind::Archive] {
        let mut n = 0u64;
        let mut live = 0u64;
        let scanned = r.scan_file(f, 0, &mut |rec| {
            n += 1;
            live += u64::from(rec.state == crate::model::State::Live);
            Ok(true)
        });
        if f == FileKind::Decisions
            && scanned.is_ok()
            && only_current
            && live != r.live_decisions()?
        {
            out.push(finding(
                Level::Error,
                "store",
                format!(
                    "DECISIONS.md: {live} live decisions, the counter says {}",
                    r.live_decisions()?
                ),
                FIX_DAMAGED,
            ));
        }
        match scanned {
            Err(e) => out.push(finding(
                Level::Error,
                "store",
                format!("{}: {e}", f.file_name()),
                FIX_DAMAGED,
            )),
            Ok(()) if n != r.file_count(f)? => out.push(finding(
                Level::Error,
                "store",
                format!(
                    "{}: {n} entries in the render order, the counter says {}",
                    f.file_name(),
                    r.file_count(f)?
                ),
                FIX_DAMAGED,
            )),
            Ok(()) => {}
        }
    }
    // files equal what the store renders
    let cleared = r.meta(crate::workspace::CLEARED)? == 1;
    if cleared {
        out.push(finding(
            Level::Ok,
            "files",
            "the memory was cleared (`trilogy clear`); the next session, `trilogy init` or `doctor --fix` starts the files again from the templates".to_string(),
            "",
        ));
    }
    for f in FileKind::ALL {
        if unreadable.contains(&f) {
            continue;
        }
        let path = ws.file_path(f);
        let disk = match crate::workspace::read_file(&path, crate::workspace::MAX_FILE_BYTES) {
            Ok(b) => b,
            Err(e) => {
                out.push(finding(
                    Level::Error,
                    "files",
                    format!("cannot be read: {e}"),
                    "make it a readable file again",
                ));
                continue;
            }
        };
        let want = render_file(&r, f, ws.lang())?;
        for x in super::secrets::in_text(f, &want) {
            out.push(finding(
                Level::Error,
                "secrets",
                x.to_string(),
                super::secrets::ACTION,
            ));
        }
        match disk {
            None if f == FileKind::Archive && r.file_count(f)? == 0 => {}
            None if cleared => {}
            None => out.push(finding(
                Level::Warn,
                "files",
                format!("{} is missing", path.display()),
                "run doctor --fix: it renders the file again",
            )),
            Some(bytes) if bytes == want.as_bytes() => {}
            Some(_) if r.meta(&crate::workspace::pending_key(f))? > 0 => out.push(finding(
                Level::Ok,
                "files",
                format!(
                    "{} is read; the store's version of it (a renamed heading, an entry recorded while git was busy) is written by the next command that records something",
                    path.display()
                ),
                "nothing, or run doctor --fix to write it now",
            )),
            Some(bytes) => match markdown::parse_bytes(
                &bytes,
                matches!(f, FileKind::Sessions | FileKind::Archive),
            ) {
                Err(e) => out.push(finding(
                    Level::Error,
                    "files",
                    format!("{}:{}: {}", path.display(), e.line, e.reason),
                    "fix the file by hand; trilogy leaves it untouched until then",
                )),
                Ok(_) => out.push(finding(
                    Level::Warn,
                    "files",
                    format!(
                        "{} has changes the store has not absorbed yet",
                        path.display()
                    ),
                    "run doctor --fix (or any trilogy command): it absorbs them",
                )),
            },
        }
    }
    for b in super::query::unclosed_fences(ws)? {
        out.push(finding(
            Level::Warn,
            "files",
            format!("{}:{}: {}", b.path, b.line, b.reason),
            "close the fence (or delete its opening line); the file reads and records meanwhile",
        ));
    }
    // the search index
    let dir = ws.index_dir();
    if dir.is_dir() && dir.join("meta.json").exists() {
        match SearchIndex::open_existing(&dir) {
            Ok(idx) if idx.watermark() < r.change_seq()? => out.push(finding(
                Level::Ok,
                "index",
                format!(
                    "the search index is {} change(s) behind",
                    r.change_seq()? - idx.watermark()
                ),
                "nothing: the next search catches up",
            )),
            Ok(_) => {}
            Err(e) => out.push(finding(
                Level::Warn,
                "index",
                format!("the search index is unreadable: {e}"),
                "run doctor --fix (or trilogy reindex)",
            )),
        }
    }
    // leftovers of interrupted writes
    let temps = temp_files(&ws.memory_dir());
    if !temps.is_empty() {
        out.push(finding(
            Level::Warn,
            "temp files",
            format!(
                "{} leftover temp file(s) in {}",
                temps.len(),
                ws.memory_dir().display()
            ),
            "run doctor --fix: it deletes them",
        ));
    }
    // saves that raced with a write and could not stay in their file (see fsio::Swapped::undo)
    let rescued: Vec<String> = std::fs::read_dir(ws.state_dir().join("rescued"))
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .map(|e| e.path().display().to_string())
                .collect()
        })
        .unwrap_or_default();
    if !rescued.is_empty() {
        out.push(finding(
            Level::Warn,
            "rescued saves",
            format!(
                "{} save(s) raced with a trilogy write and were kept aside: {}",
                rescued.len(),
                rescued.join(", ")
            ),
            "compare each with its memory file, copy over what is missing, then delete it",
        ));
    }
    // hosts whose settings call a trilogy that does not run here
    let home = crate::base::dirs::home(env);
    out.extend(hosts::check(
        &ws.root,
        home.as_deref(),
        crate::base::env::var(env, "PATH"),
    ));
    // managed regions must have both markers
    for (file, start, end) in [
        (ws.config.boot_block_file.as_str(), BOOT_START, BOOT_END),
        ("CLAUDE.md", BOOT_START, BOOT_END),
        ("GEMINI.md", BOOT_START, BOOT_END),
        (super::block::DEFAULT_BLOCK_FILE, BLOCK_START, BLOCK_END),
    ] {
        let path = ws.root.join(file);
        if let Some(text) = fence::read_instructions(ws, &path, &mut out)
            && text.contains(start) != text.contains(end)
        {
            out.push(finding(
                Level::Error,
                "managed block",
                format!("{} has only one of `{start}` / `{end}`", path.display()),
                "add the missing marker where the trilogy block ends, or delete the other one",
            ));
        }
    }
    // another process holding the write lock right now
    drop(r);
    drop(store);
    if let Ok(s) = Store::open(&store_path, Duration::from_millis(200))
        && let Err(Error::Busy { .. }) = s.write(Duration::from_millis(50))
    {
        out.push(finding(
            Level::Ok,
            "lock",
            "another trilogy process is writing right now",
            "nothing, unless this stays",
        ));
    }
    Ok(out)
}

/// Check the workspace (the hosts' settings found from `env`'s `HOME` and `PATH`); with `fix`,
/// repair what is safe and check again.
pub fn doctor(ws: &Workspace, env: &[(String, String)], fix: bool) -> Result<Report> {
    ws.require_memory()?;
    let mut findings = check(ws, env)?;
    findings.extend(user::check(ws));
    if !fix {
        return Ok(Report {
            findings,
            fixed: Vec::new(),
        });
    }
    let mut fixed = Vec::new();
    if let Some(lock) = ws.git().and_then(crate::workspace::clear_stale_git_lock) {
        fixed.push(format!(
            "removed {}, left by a trilogy process that is gone",
            lock.display()
        ));
    }
    for t in temp_files(&ws.memory_dir()) {
        if std::fs::remove_file(&t).is_ok() {
            fixed.push(format!("deleted {}", t.display()));
        }
    }
    // a file where trilogy's state directory belongs: kept aside, the store is rebuilt
    let state_dir = ws.state_dir();
    if state_dir.exists() && !state_dir.is_dir() {
        let aside = set_aside(&state_dir)?;
        fixed.push(format!(
            "moved {} (a file where trilogy's state directory belongs) to {}",
            state_dir.display(),
            aside.display()
        ));
    }
    // a file where the search index directory belongs: kept aside, the index is rebuilt
    let index_dir = ws.index_dir();
    if index_dir.exists() && !index_dir.is_dir() {
        let aside = set_aside(&index_dir)?;
        fixed.push(format!(
            "moved {} (a file where the search index belongs) to {}",
            index_dir.display(),
            aside.display()
        ));
    }
    let store_path = ws.store_path();
    // a newer trilogy's store, or one that cannot be used as it is, is left for the person
    let usable = match store_state(ws, &store_path) {
        StoreState::Damaged(_) => {
            let (done, usable) = fix_damaged(ws, &store_path)?;
            fixed.extend(done);
            usable
        }
        StoreState::Healthy(_) | StoreState::Missing | StoreState::NeedsRepair(_) => true,
        StoreState::Newer(_) | StoreState::Unusable(..) => false,
    };
    // a memory file that must not be read (a link out, a FIFO, over the size cap) is left for
    // the person: the findings say what to do, and nothing is read or written through it
    let fenced = (FileKind::ALL.iter())
        .any(|f| fence::file_problem(ws, &ws.file_path(*f), false).is_some())
        || fence::file_problem(ws, &store_path, true).is_some()
        || !usable;
    if !fenced {
        let synced = ws.write("doctor", |_| Ok(()))?;
        for w in &synced.report.written {
            fixed.push(format!("rendered {w}"));
        }
        for a in &synced.report.absorbed {
            fixed.push(format!("absorbed: {a}"));
        }
    }
    if findings
        .iter()
        .any(|f| f.check == "index" && f.level > Level::Ok)
    {
        let mut quiet = |_: usize, _: usize| {};
        super::search::reindex(ws, &mut quiet)?;
        fixed.push("rebuilt the search index".into());
    }
    fixed.extend(user::fix(ws)?);
    let mut findings = check(ws, env)?;
    findings.extend(user::check(ws));
    Ok(Report { findings, fixed })
}
