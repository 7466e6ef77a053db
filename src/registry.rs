//! The workspace registry: which workspaces trilogy has seen (`init`, a session-start hook,
//! an MCP server, the panel's init and import), for the panel's list. Never memory: a lost or
//! corrupt registry loses only the list, so it reads as empty and is rewritten whole (temp file
//! then rename, no fsync) on the next write. A write holds the registry's lock file
//! (`registry.json.lock` beside it) from its read to its rename, so writers at once merge.
//!
//! Ours lives at `$TRILOGY_REGISTRY`, else `$XDG_DATA_HOME/trilogy/registry.json`, else
//! `~/.local/share/trilogy/registry.json`. The original plugin's (`$DSH_HOME/trilogy/
//! registry.json`, `DSH_HOME` defaulting to `~/.dsh`) is read too, and written only by
//! [`forget`], so a forgotten row does not come back from it. Both have the original's v1 shape:
//! `{ "version": 1, "workspaces": { "<abs root>": { memoryDir, bootBlockFile, firstSeen,
//! lastSeen } } }`, pretty JSON with a trailing newline.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// How long a row's `lastSeen` stays fresh enough that a session start does not rewrite it.
pub const REFRESH_AFTER_MS: i64 = 10 * 60 * 1000;

/// One workspace.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Row {
    pub memory_dir: String,
    pub boot_block_file: String,
    /// ISO-8601.
    pub first_seen: String,
    /// ISO-8601.
    pub last_seen: String,
}

/// A registry file's content.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Registry {
    pub version: u32,
    pub workspaces: BTreeMap<String, Row>,
}

/// A row and which file it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    pub root: String,
    pub row: Row,
    /// True when only the original plugin's registry has it.
    pub original_only: bool,
}

/// Our registry file.
pub fn path(env: &[(String, String)]) -> Option<PathBuf> {
    if let Some(p) = crate::base::env::var(env, "TRILOGY_REGISTRY") {
        return Some(PathBuf::from(p));
    }
    Some(crate::base::dirs::data(env)?.join("registry.json"))
}

/// The original plugin's registry file, in DeepSeek Harness's home (`$DSH_HOME`, else
/// `~/.dsh`; each an absolute path, as every folder from the environment).
pub fn original_path(env: &[(String, String)]) -> Option<PathBuf> {
    let home = crate::base::env::folder(env, "DSH_HOME")
        .or_else(|| crate::base::dirs::home(env).map(|h| h.join(".dsh")))?;
    Some(home.join("trilogy").join("registry.json"))
}

/// Read a registry file; missing, unreadable or corrupt reads as empty.
pub fn load(path: &Path) -> Registry {
    let Some(text) = crate::base::fence::read_small_text(path, crate::workspace::MAX_FILE_BYTES)
    else {
        return Registry::default();
    };
    let Ok(value) = serde_json::from_str::<serde_json::Value>(&text) else {
        return Registry::default();
    };
    let mut out = Registry {
        version: 1,
        workspaces: BTreeMap::new(),
    };
    // a row that does not have the shape is skipped, the others kept
    if let Some(rows) = value.get("workspaces").and_then(|w| w.as_object()) {
        for (root, row) in rows {
            let s = |k: &str| row.get(k).and_then(|v| v.as_str()).map(str::to_string);
            let Some(last) = s("lastSeen") else { continue };
            out.workspaces.insert(
                root.clone(),
                Row {
                    memory_dir: s("memoryDir")
                        .unwrap_or_else(|| Path::new(root).join("memory").display().to_string()),
                    boot_block_file: s("bootBlockFile").unwrap_or_else(|| "AGENTS.md".into()),
                    first_seen: s("firstSeen").unwrap_or_else(|| last.clone()),
                    last_seen: last,
                },
            );
        }
    }
    out
}

/// Write a registry file whole: a temporary file beside it, then a rename (no fsync: it is an
/// index, and a crash at worst loses the newest rows).
pub fn save(path: &Path, reg: &Registry) -> Result<()> {
    let dir = path.parent().ok_or_else(|| {
        Error::bad_input(format!("registry path {} has no folder", path.display()))
    })?;
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let mut text = serde_json::to_string_pretty(&Registry {
        version: 1,
        workspaces: reg.workspaces.clone(),
    })
    .map_err(|e| Error::Internal(format!("registry json: {e}")))?;
    text.push('\n');
    use crate::base::write::{Whole, write_whole};
    write_whole(path, text.as_bytes(), Whole::Private).map_err(|e| Error::io(path, e))
}

/// Now as the original wrote it: `2026-11-30T21:54:46.123Z`.
pub fn now_iso() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

fn age_ms(iso: &str) -> Option<i64> {
    let at = chrono::DateTime::parse_from_rfc3339(iso).ok()?;
    Some(chrono::Utc::now().timestamp_millis() - at.timestamp_millis())
}

/// Record that `root` was seen. With `always` false (a session start), a row seen within
/// [`REFRESH_AFTER_MS`] is left as it is and nothing is written. Returns whether it wrote.
pub fn touch(
    env: &[(String, String)],
    root: &Path,
    memory_dir: &Path,
    boot_block_file: &str,
    always: bool,
) -> Result<bool> {
    let Some(path) = path(env) else {
        return Ok(false);
    };
    touch_at(&path, root, memory_dir, boot_block_file, always)
}

/// Hold the lock of the registry at `path` (`registry.json.lock` beside it) while `f` reads,
/// changes and writes it: processes recording workspaces at once (twenty `init`s) each add
/// their row to what the one before wrote, none writes over another's.
fn locked<T>(path: &Path, f: impl FnOnce() -> Result<T>) -> Result<T> {
    let dir = path.parent().ok_or_else(|| {
        Error::bad_input(format!("registry path {} has no folder", path.display()))
    })?;
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".lock");
    let lock_path = dir.join(name);
    let lock = crate::workspace::open_lock_file(&lock_path)?;
    lock.lock().map_err(|e| Error::io(&lock_path, e))?;
    // the lock is let go when `lock` is closed, on return or on a panic
    f()
}

/// [`touch`] in the registry at `path`.
fn touch_at(
    path: &Path,
    root: &Path,
    memory_dir: &Path,
    boot_block_file: &str,
    always: bool,
) -> Result<bool> {
    locked(path, || {
        touch_locked(path, root, memory_dir, boot_block_file, always)
    })
}

/// [`touch_at`] with the registry's lock held.
fn touch_locked(
    path: &Path,
    root: &Path,
    memory_dir: &Path,
    boot_block_file: &str,
    always: bool,
) -> Result<bool> {
    let path = path.to_path_buf();
    let mut reg = load(&path);
    let key = root.display().to_string();
    let now = now_iso();
    let row = Row {
        memory_dir: memory_dir.display().to_string(),
        boot_block_file: boot_block_file.to_string(),
        first_seen: now.clone(),
        last_seen: now.clone(),
    };
    match reg.workspaces.get_mut(&key) {
        Some(old) => {
            let same =
                old.memory_dir == row.memory_dir && old.boot_block_file == row.boot_block_file;
            let fresh = age_ms(&old.last_seen).is_some_and(|a| (0..REFRESH_AFTER_MS).contains(&a));
            if !always && same && fresh {
                return Ok(false);
            }
            old.memory_dir = row.memory_dir;
            old.boot_block_file = row.boot_block_file;
            old.last_seen = now;
        }
        None => {
            reg.workspaces.insert(key, row);
        }
    }
    save(&path, &reg)?;
    Ok(true)
}

/// [`touch`] for a surface that must not fail because of the registry (hooks, MCP): a
/// failure is logged and ignored.
pub fn touch_quietly(env: &[(String, String)], ws: &crate::workspace::Workspace, always: bool) {
    if let Err(e) = touch(
        env,
        &ws.root,
        &ws.memory_dir(),
        &ws.config.boot_block_file,
        always,
    ) {
        tracing::warn!(error = %e, "could not record the workspace in the registry");
    }
}

/// How long after a command recorded a workspace ([`seen_quietly`]) the next one leaves the
/// registry alone.
pub const SEEN_EVERY: std::time::Duration = std::time::Duration::from_secs(24 * 60 * 60);

/// The marker whose mtime says when a command last recorded `root`:
/// `$XDG_STATE_HOME/trilogy/seen/<digest of the root>` (else `~/.local/state/trilogy/seen/`).
fn seen_marker(env: &[(String, String)], root: &Path) -> Option<PathBuf> {
    let base = crate::base::dirs::state(env)?;
    let name = crate::base::hex::sha1_prefix(root.as_os_str().as_encoded_bytes(), 10);
    Some(base.join("seen").join(name))
}

/// Record a workspace a command opened, at most once per [`SEEN_EVERY`]: the usual case
/// costs one `stat` of its marker. A failure is logged at debug level only (the list is a
/// convenience, and a command's output stays its own) and the marker is left old, so the next
/// command tries again.
pub fn seen_quietly(env: &[(String, String)], ws: &crate::workspace::Workspace) {
    let Some(marker) = seen_marker(env, &ws.root) else {
        return;
    };
    let fresh = std::fs::metadata(&marker)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.elapsed().ok())
        .is_some_and(|age| age < SEEN_EVERY);
    if fresh {
        return;
    }
    if let Err(e) = touch(
        env,
        &ws.root,
        &ws.memory_dir(),
        &ws.config.boot_block_file,
        false,
    ) {
        tracing::debug!(error = %e, "could not record the workspace in the registry");
        return;
    }
    let written = marker
        .parent()
        .map_or(Ok(()), std::fs::create_dir_all)
        .and_then(|()| std::fs::write(&marker, format!("{}\n", ws.root.display())));
    if let Err(e) = written {
        tracing::debug!(error = %e, path = %marker.display(), "could not mark the workspace as recorded");
    }
}

/// [`touch_quietly`] into both registries: a DeepSeek Harness session's first step records
/// its workspace where the original plugin's panel looks too (`$DSH_HOME/trilogy/`).
pub fn touch_both_quietly(env: &[(String, String)], ws: &crate::workspace::Workspace) {
    touch_quietly(env, ws, false);
    if let Some(path) = original_path(env)
        && let Err(e) = touch_at(
            &path,
            &ws.root,
            &ws.memory_dir(),
            &ws.config.boot_block_file,
            false,
        )
    {
        tracing::warn!(error = %e, "could not record the workspace in the original registry");
    }
}

/// Every workspace of both registries (ours wins for a root in both), most recently seen
/// first.
pub fn list(env: &[(String, String)]) -> Vec<Listed> {
    let ours = path(env).map(|p| load(&p)).unwrap_or_default();
    let theirs = original_path(env).map(|p| load(&p)).unwrap_or_default();
    let mut out: Vec<Listed> = ours
        .workspaces
        .into_iter()
        .map(|(root, row)| Listed {
            root,
            row,
            original_only: false,
        })
        .collect();
    for (root, row) in theirs.workspaces {
        if !out.iter().any(|l| l.root == root) {
            out.push(Listed {
                root,
                row,
                original_only: true,
            });
        }
    }
    out.sort_by(|a, b| {
        b.row
            .last_seen
            .cmp(&a.row.last_seen)
            .then(a.root.cmp(&b.root))
    });
    out
}

/// The row of `root`, from either registry.
pub fn find(env: &[(String, String)], root: &str) -> Option<Row> {
    list(env)
        .into_iter()
        .find(|l| l.root == root)
        .map(|l| l.row)
}

/// Remove `root` from both registries (no memory file is touched). Returns the row it had.
pub fn forget(env: &[(String, String)], root: &str) -> Result<Option<Row>> {
    let mut found = None;
    for p in [path(env), original_path(env)].into_iter().flatten() {
        if !p.exists() {
            continue;
        }
        let removed = locked(&p, || {
            let mut reg = load(&p);
            let row = reg.workspaces.remove(root);
            if row.is_some() {
                save(&p, &reg)?;
            }
            Ok(row)
        })?;
        found = found.or(removed);
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(dir: &Path) -> Vec<(String, String)> {
        vec![
            (
                "XDG_DATA_HOME".into(),
                dir.join("data").display().to_string(),
            ),
            ("DSH_HOME".into(), dir.join("dsh").display().to_string()),
        ]
    }

    #[test]
    fn a_corrupt_registry_reads_empty_and_is_rewritten_whole() {
        let t = tempfile::tempdir().unwrap();
        let env = env(t.path());
        let p = path(&env).unwrap();
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, "{ not json").unwrap();
        assert!(list(&env).is_empty());
        assert!(
            touch(
                &env,
                Path::new("/w/a"),
                Path::new("/w/a/memory"),
                "AGENTS.md",
                false
            )
            .unwrap()
        );
        let text = std::fs::read_to_string(&p).unwrap();
        assert!(text.ends_with("}\n"), "{text}");
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["version"], 1);
        assert_eq!(v["workspaces"]["/w/a"]["memoryDir"], "/w/a/memory");
        assert_eq!(v["workspaces"]["/w/a"]["bootBlockFile"], "AGENTS.md");
        // a `workspaces` that is not an object reads as empty too
        std::fs::write(&p, r#"{"version":1,"workspaces":[1,2]}"#).unwrap();
        assert!(list(&env).is_empty());
    }

    #[test]
    fn a_fresh_row_is_not_rewritten_at_session_start_and_first_seen_is_kept() {
        let t = tempfile::tempdir().unwrap();
        let env = env(t.path());
        let root = Path::new("/w/a");
        assert!(touch(&env, root, &root.join("memory"), "AGENTS.md", false).unwrap());
        let first = list(&env)[0].row.clone();
        assert!(!touch(&env, root, &root.join("memory"), "AGENTS.md", false).unwrap());
        // an old lastSeen is refreshed; firstSeen stays
        let p = path(&env).unwrap();
        let mut reg = load(&p);
        reg.workspaces.get_mut("/w/a").unwrap().last_seen = "2020-01-01T00:00:00.000Z".into();
        reg.workspaces.get_mut("/w/a").unwrap().first_seen = "2019-01-01T00:00:00.000Z".into();
        save(&p, &reg).unwrap();
        assert!(touch(&env, root, &root.join("memory"), "AGENTS.md", false).unwrap());
        let row = list(&env)[0].row.clone();
        assert_eq!(row.first_seen, "2019-01-01T00:00:00.000Z");
        assert!(row.last_seen >= first.last_seen);
    }

    #[test]
    fn forget_removes_the_row_from_both_registries() {
        let t = tempfile::tempdir().unwrap();
        let env = env(t.path());
        let theirs = original_path(&env).unwrap();
        let mut reg = Registry::default();
        reg.workspaces.insert(
            "/w/old".into(),
            Row {
                memory_dir: "/w/old/memory".into(),
                boot_block_file: "AGENTS.md".into(),
                first_seen: "2025-01-01T00:00:00.000Z".into(),
                last_seen: "2025-01-02T00:00:00.000Z".into(),
            },
        );
        save(&theirs, &reg).unwrap();
        touch(
            &env,
            Path::new("/w/old"),
            Path::new("/w/old/memory"),
            "AGENTS.md",
            true,
        )
        .unwrap();
        touch(
            &env,
            Path::new("/w/new"),
            Path::new("/w/new/memory"),
            "AGENTS.md",
            true,
        )
        .unwrap();
        let l = list(&env);
        assert_eq!(l.len(), 2);
        assert!(
            l.iter().all(|x| !x.original_only),
            "ours wins for a root in both"
        );
        assert!(forget(&env, "/w/old").unwrap().is_some());
        assert_eq!(list(&env).len(), 1);
        assert!(load(&theirs).workspaces.is_empty());
        assert!(forget(&env, "/w/old").unwrap().is_none());
    }
}
