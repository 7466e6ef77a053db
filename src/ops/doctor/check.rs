//! The read-only look of `doctor`: git, the folders, the store, the files, the index, leftovers,
//! hosts, managed regions and the write lock, one step each, in that order. It changes nothing;
//! repairs are `doctor --fix`'s (the parent module).

use std::path::Path;
use std::time::Duration;

use crate::error::{Error, Result};
use crate::index::SearchIndex;
use crate::markdown;
use crate::model::FileKind;
use crate::store::{Reader, Store};
use crate::workspace::{BOOT_END, BOOT_START, Workspace, render_file};

use super::super::regions::{BLOCK_END, BLOCK_START};
use super::{
    FIX_DAMAGED, Finding, Level, NEWER, StoreState, fence, finding, hosts, state_dir_findings,
    store_state, temp_files,
};

/// Every finding about the workspace's memory, in the order a reader meets them.
pub(super) fn check(ws: &Workspace, env: &[(String, String)]) -> Result<Vec<Finding>> {
    let mut out = Vec::new();
    let unmerged = git_findings(ws, &mut out);
    let store_path = ws.store_path();
    fence::folder_findings(ws, &mut out);
    state_dir_findings(ws, &mut out);
    // memory files that are not readable files (read before any store is needed)
    let unreadable = unreadable_files(ws, &mut out);
    let Some(store) = usable_store(ws, &store_path, &mut out) else {
        return Ok(out);
    };
    let r = store.read()?;
    let version = r.meta("schema_version")?;
    layout_findings(version, &mut out);
    topic_findings(&r, &mut out)?;
    counter_findings(&r, version == crate::store::SCHEMA_VERSION, &mut out)?;
    // a file git left unmerged is told of once, above, with what git did
    let skipped: Vec<FileKind> = (FileKind::ALL.into_iter())
        .filter(|f| {
            unreadable.contains(f)
                || unmerged
                    .iter()
                    .any(|u| Path::new(u).ends_with(ws.file_name(*f)))
        })
        .collect();
    file_findings(ws, &r, &skipped, &mut out)?;
    for b in super::super::query::unclosed_fences(ws)? {
        out.push(finding(
            Level::Warn,
            "files",
            format!("{}:{}: {}", b.path, b.line, b.reason),
            "close the fence (or delete its opening line); the file reads and records meanwhile",
        ));
    }
    index_findings(ws, &r, &mut out)?;
    leftover_findings(ws, &mut out);
    // hosts that load memory of their own into the same sessions
    out.extend(
        (crate::ops::native::check(ws, env).into_iter())
            .map(|w| finding(Level::Warn, "native-memory", w.message, w.action)),
    );
    // hosts whose settings call a trilogy that does not run here
    let home = crate::base::dirs::home(env);
    out.extend(hosts::check(
        &ws.root,
        home.as_deref(),
        crate::base::env::var(env, "PATH"),
    ));
    region_findings(ws, &mut out);
    // another process holding the write lock right now
    drop(r);
    drop(store);
    lock_finding(&store_path, &mut out);
    Ok(out)
}

/// Files git left unmerged (returned), a clone whose git lacks the driver `.gitattributes`
/// asks for, and a lock of git's index left by a trilogy that is gone.
fn git_findings(ws: &Workspace, out: &mut Vec<Finding>) -> Vec<String> {
    use super::super::gitmerge::{self, Driver};
    let unmerged = gitmerge::unmerged(ws);
    for f in &unmerged {
        out.push(finding(
            Level::Error,
            "git",
            format!("{f} is unmerged: {}", gitmerge::what_git_did(ws, f)),
            "run `trilogy resolve`: it merges git's three versions by entry, writes the file and stages it (markers stay only where both sides changed one PROJECT section)",
        ));
    }
    if ws.git().map(gitmerge::driver) == Some(Driver::Missing) {
        out.push(finding(
            Level::Warn,
            "git",
            ".gitattributes names merge=trilogy, but this clone's git has no trilogy merge driver: a pull merges memory files line by line and conflicts".to_string(),
            "run any trilogy command here (it sets the driver up in .git/config, running this trilogy), or `trilogy install git`",
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
    unmerged
}

/// The memory files that are not readable files, each with its finding.
fn unreadable_files(ws: &Workspace, out: &mut Vec<Finding>) -> Vec<FileKind> {
    let mut unreadable = Vec::new();
    for f in FileKind::ALL {
        let path = ws.file_path(f);
        if let Some((message, action)) = fence::file_problem(ws, &path, false) {
            out.push(finding(Level::Error, "files", message, action));
            unreadable.push(f);
        }
    }
    unreadable
}

/// The store when it can be looked into; otherwise what is wrong with it, and `None`.
fn usable_store(ws: &Workspace, store_path: &Path, out: &mut Vec<Finding>) -> Option<Store> {
    let problem = match store_state(ws, store_path) {
        StoreState::Healthy(s) => return Some(s),
        StoreState::Missing => finding(
            Level::Warn,
            "store",
            format!("no store at {} yet", store_path.display()),
            "run any trilogy command (or doctor --fix): it rebuilds the store from the Markdown",
        ),
        StoreState::Damaged(detail) => finding(
            Level::Error,
            "store",
            format!("{} is damaged: {detail}", store_path.display()),
            FIX_DAMAGED,
        ),
        StoreState::Newer(message) => finding(
            Level::Error,
            "store",
            format!("{}: {message}", store_path.display()),
            NEWER,
        ),
        StoreState::NeedsRepair(e) => finding(
            Level::Error,
            "store",
            format!("the store needs a repair after a failed or interrupted write ({e})"),
            "run doctor --fix (any trilogy command that writes repairs it too)",
        ),
        StoreState::Unusable(message, action) => finding(Level::Error, "store", message, action),
    };
    out.push(problem);
    None
}

/// A store of an older layout, which the next command migrates.
fn layout_findings(version: u64, out: &mut Vec<Finding>) {
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
}

/// One live decision per topic (a hand edit or a merge can bring a second).
fn topic_findings(r: &dyn Reader, out: &mut Vec<Finding>) -> Result<()> {
    for c in crate::ops::truth::topic::conflicts(r)? {
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
    Ok(())
}

/// The render order and the counters agree (`only_current`: the live-decision counter is
/// checked only in a store of the current layout).
fn counter_findings(r: &dyn Reader, only_current: bool, out: &mut Vec<Finding>) -> Result<()> {
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
    Ok(())
}

/// The files equal what the store renders (the `unreadable` ones are already reported).
fn file_findings(
    ws: &Workspace,
    r: &dyn Reader,
    unreadable: &[FileKind],
    out: &mut Vec<Finding>,
) -> Result<()> {
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
        if f == FileKind::Archive && archive_past_cap(r, &path, out)? {
            continue;
        }
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
        let want = render_file(r, f, ws.lang())?;
        for x in super::super::secrets::in_text(f, &want) {
            out.push(finding(
                Level::Error,
                "secrets",
                x.to_string(),
                super::super::secrets::ACTION,
            ));
        }
        if let Some(found) = file_finding(r, f, &path, disk, &want, cleared)? {
            out.push(found);
        }
    }
    Ok(())
}

/// True when the archive at `path` is past what is read whole: it is then checked by its hash
/// against the version trilogy last wrote or read (a block at a time), never read or rendered
/// whole, and a finding added when it is another.
fn archive_past_cap(r: &dyn Reader, path: &Path, out: &mut Vec<Finding>) -> Result<bool> {
    let cap = crate::base::fault::whole_read_cap(crate::workspace::MAX_FILE_BYTES);
    if std::fs::metadata(path).map_or(0, |m| m.len()) <= cap {
        return Ok(false);
    }
    let disk = crate::workspace::hash_stamped(path)?;
    let known = r.stamp(FileKind::Archive)?;
    if disk.is_some_and(|d| known.is_some_and(|k| k.sha1 == d.sha1)) {
        return Ok(true);
    }
    out.push(finding(
        Level::Warn,
        "files",
        format!(
            "{} is past the {} MiB trilogy reads whole and is not the version it last wrote or \
             read: only entries added on top of that version are read",
            path.display(),
            cap >> 20
        ),
        format!(
            "run any trilogy command to have entries added on top read; for any other change, \
             put back the version trilogy wrote (`git checkout -- {}` when it is committed)",
            path.display()
        ),
    ));
    Ok(true)
}

/// What is wrong with memory file `f` at `path`, whose bytes are `disk` and which the store
/// renders as `want`.
fn file_finding(
    r: &dyn Reader,
    f: FileKind,
    path: &Path,
    disk: Option<Vec<u8>>,
    want: &str,
    cleared: bool,
) -> Result<Option<Finding>> {
    Ok(match disk {
        None if f == FileKind::Archive && r.file_count(f)? == 0 => None,
        None if cleared => None,
        None => Some(finding(
            Level::Warn,
            "files",
            format!("{} is missing", path.display()),
            "run doctor --fix: it renders the file again",
        )),
        Some(bytes) if bytes == want.as_bytes() => None,
        Some(_) if r.meta(&crate::workspace::pending_key(f))? > 0 => Some(finding(
            Level::Ok,
            "files",
            format!(
                "{} is read; the store's version of it (a renamed heading, an entry recorded while git was busy) is written by the next command that records something",
                path.display()
            ),
            "nothing, or run doctor --fix to write it now",
        )),
        Some(bytes) => Some(
            match markdown::parse_bytes(&bytes, matches!(f, FileKind::Sessions | FileKind::Archive))
            {
                Err(e) => finding(
                    Level::Error,
                    "files",
                    format!("{}:{}: {}", path.display(), e.line, e.reason),
                    "fix the file by hand; trilogy leaves it untouched until then",
                ),
                Ok(_) => finding(
                    Level::Warn,
                    "files",
                    format!(
                        "{} has changes the store has not absorbed yet",
                        path.display()
                    ),
                    "run doctor --fix (or any trilogy command): it absorbs them",
                ),
            },
        ),
    })
}

/// The search index: unreadable, or behind the store.
fn index_findings(ws: &Workspace, r: &dyn Reader, out: &mut Vec<Finding>) -> Result<()> {
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
    Ok(())
}

/// Leftovers of interrupted writes, and saves kept aside after racing with a write.
fn leftover_findings(ws: &Workspace, out: &mut Vec<Finding>) {
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
}

/// Managed regions must have both markers.
fn region_findings(ws: &Workspace, out: &mut Vec<Finding>) {
    for (file, start, end) in [
        (ws.config.boot_block_file.as_str(), BOOT_START, BOOT_END),
        ("CLAUDE.md", BOOT_START, BOOT_END),
        ("GEMINI.md", BOOT_START, BOOT_END),
        (
            super::super::regions::DEFAULT_BLOCK_FILE,
            BLOCK_START,
            BLOCK_END,
        ),
    ] {
        let path = ws.root.join(file);
        if let Some(text) = fence::read_instructions(ws, &path, out)
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
}

/// Another process holding the write lock right now (the caller's own read is dropped).
fn lock_finding(store_path: &Path, out: &mut Vec<Finding>) {
    if let Ok(s) = Store::open(store_path, Duration::from_millis(200))
        && let Err(Error::Busy { .. }) = s.write(Duration::from_millis(50))
    {
        out.push(finding(
            Level::Ok,
            "lock",
            "another trilogy process is writing right now",
            "nothing, unless this stays",
        ));
    }
}
