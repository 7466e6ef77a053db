//! `doctor`: check the store, the files, the index and the managed blocks without changing
//! anything; with `fix`, repair what is safe (absorb and re-render, rebuild the index, sweep
//! temp files) and say what is left for the user.

use std::path::Path;
use std::time::Duration;

use serde::Serialize;

use crate::error::{Error, Result};
use crate::model::FileKind;
use crate::store::{Reader, Store};
use crate::workspace::Workspace;

mod check;
mod fence;
mod hosts;

pub use hosts::resolves;
mod repair;
mod user;

use check::check;
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
