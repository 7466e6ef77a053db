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

fn check(ws: &Workspace) -> Result<Vec<Finding>> {
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
    let store_path = ws.store_path();
    if !store_path.exists() {
        out.push(finding(
            Level::Warn,
            "store",
            format!("no store at {} yet", store_path.display()),
            "run any trilogy command (or doctor --fix): it rebuilds the store from the Markdown",
        ));
        return Ok(out);
    }
    let store = match Store::open_read_only(&store_path) {
        Ok(s) => s,
        Err(e) if e.to_string().to_lowercase().contains("repair") => {
            // redb marks a file whose last commit failed or was cut short; opening it for
            // writing repairs it, which a read-only look cannot do
            out.push(finding(
                Level::Error,
                "store",
                format!("the store needs a repair after a failed or interrupted write ({e})"),
                "run doctor --fix (any trilogy command that writes repairs it too)",
            ));
            return Ok(out);
        }
        Err(e) => {
            out.push(finding(
                Level::Error,
                "store",
                format!("the store does not open: {e}"),
                "run doctor --fix; if it still fails, delete .trilogy/ (the Markdown rebuilds it)",
            ));
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
                "delete .trilogy/ to rebuild the store from the Markdown",
            ));
        }
        match scanned {
            Err(e) => out.push(finding(
                Level::Error,
                "store",
                format!("{}: {e}", f.file_name()),
                "delete .trilogy/ to rebuild the store from the Markdown",
            )),
            Ok(()) if n != r.file_count(f)? => out.push(finding(
                Level::Error,
                "store",
                format!(
                    "{}: {n} entries in the render order, the counter says {}",
                    f.file_name(),
                    r.file_count(f)?
                ),
                "delete .trilogy/ to rebuild the store from the Markdown",
            )),
            Ok(()) => {}
        }
    }
    // files equal what the store renders
    for f in FileKind::ALL {
        let path = ws.file_path(f);
        let disk = std::fs::read(&path).ok();
        let want = render_file(&r, f, ws.lang())?;
        match disk {
            None if f == FileKind::Archive && r.file_count(f)? == 0 => {}
            None => out.push(finding(
                Level::Warn,
                "files",
                format!("{} is missing", path.display()),
                "run doctor --fix: it renders the file again",
            )),
            Some(bytes) if bytes == want.as_bytes() => {}
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
    // the search index
    let dir = ws.index_dir();
    if dir.join("meta.json").exists() {
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
    // managed regions must have both markers
    for (file, start, end) in [
        (ws.config.boot_block_file.as_str(), BOOT_START, BOOT_END),
        ("CLAUDE.md", BOOT_START, BOOT_END),
        (super::block::DEFAULT_BLOCK_FILE, BLOCK_START, BLOCK_END),
    ] {
        let path = ws.root.join(file);
        if let Ok(text) = std::fs::read_to_string(&path)
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

/// Check the workspace; with `fix`, repair what is safe and check again.
pub fn doctor(ws: &Workspace, fix: bool) -> Result<Report> {
    ws.require_memory()?;
    let findings = check(ws)?;
    if !fix {
        return Ok(Report {
            findings,
            fixed: Vec::new(),
        });
    }
    let mut fixed = Vec::new();
    for t in temp_files(&ws.memory_dir()) {
        if std::fs::remove_file(&t).is_ok() {
            fixed.push(format!("deleted {}", t.display()));
        }
    }
    let synced = ws.write("doctor", |_| Ok(()))?;
    for w in &synced.report.written {
        fixed.push(format!("rendered {w}"));
    }
    for a in &synced.report.absorbed {
        fixed.push(format!("absorbed: {a}"));
    }
    if findings
        .iter()
        .any(|f| f.check == "index" && f.level > Level::Ok)
    {
        let mut quiet = |_: usize, _: usize| {};
        super::search::reindex(ws, &mut quiet)?;
        fixed.push("rebuilt the search index".into());
    }
    Ok(Report {
        findings: check(ws)?,
        fixed,
    })
}
