//! The original plugin's endpoints under `/trilogy/`, with its request and response shapes,
//! statuses and Chinese error texts (reference §7): `workspaces`, `init`, `boot`, `restore`,
//! `export`, `import`, `files`, `save`, `status`, `clear`, `forget`.
//!
//! `root` is an absolute workspace root, the registry's key. Endpoints that change a workspace
//! the original required to be registered still do (`未记录的工作区：…`).

use std::path::{Path, PathBuf};

use axum::http::Method;
use serde_json::{Value, json};

use super::{ApiError, ApiResult, App, Phase, Request, now_ms, says, wrong_method};
use crate::model::{FileKind, SECTIONS, heading_date};
use crate::registry;
use crate::workspace::{BootOutcome, Workspace};

/// The three main files, in the original's order.
const MAIN: [FileKind; 3] = [FileKind::Project, FileKind::Decisions, FileKind::Sessions];

/// How long after a write the chip says `done`.
const DONE_MS: i64 = 8000;

const ENDPOINTS: [&str; 5] = ["workspaces", "init", "files", "status", "forget"];

pub fn is_endpoint(name: &str) -> bool {
    ENDPOINTS.contains(&name)
}

/// Answer `req` when it names one of these endpoints.
pub fn route(app: &App, req: &Request) -> Option<ApiResult> {
    let get = req.method == Method::GET;
    let post = req.method == Method::POST;
    Some(match req.name.as_str() {
        "workspaces" if get => workspaces(app),
        "init" if post => init(app, req),
        "files" if get => files(app, req),
        "status" if get => status(app, req),
        "forget" if post => forget(app, req),
        "workspaces" | "files" | "status" => Err(wrong_method(req, "GET")),
        "init" | "forget" => Err(wrong_method(req, "POST")),
        _ => return None,
    })
}

/// Record the workspace `trilogy serve` was started in, when it holds memory, so the list is
/// never empty for the person who just ran it there.
pub fn seed(app: &App) {
    let wanted = crate::workspace::Wanted {
        cwd: Some(&app.cwd),
        ..Default::default()
    };
    if let Ok((ws, _, _)) = crate::workspace::open_located(&wanted, &app.env, &app.overrides)
        && ws.has_memory()
    {
        registry::touch_quietly(&app.env, &ws, false);
    }
}

/// The `root` of a query or a body, which must be an absolute path.
pub(super) fn root_of(req: &Request) -> Result<PathBuf, ApiError> {
    let root = req
        .param("root")
        .or_else(|| req.str_field("root"))
        .ok_or_else(|| ApiError::bad(says("缺少 root 参数", "missing the root parameter")))?;
    let p = PathBuf::from(root);
    if !p.is_absolute() {
        return Err(ApiError::bad(says(
            format!("root 必须是绝对路径：{root}"),
            format!("root must be an absolute path: {root}"),
        )));
    }
    // `/w/x/` and `/w/./x` name the registry's `/w/x`
    Ok(p.components().collect())
}

/// The workspace at `root` (which must be a folder).
pub(super) fn open(app: &App, root: &Path) -> Result<std::sync::Arc<Workspace>, ApiError> {
    if !root.is_dir() {
        return Err(ApiError::bad(says(
            format!("没有这个文件夹：{}", root.display()),
            format!("no such folder: {}", root.display()),
        )));
    }
    Ok(app.workspace(root)?)
}

/// The registered workspace at `root`, for a GET, which changes nothing: no `.trilogy/` is
/// created and no registry row written. With `need_store`, one without a store yet is refused
/// (reading it would create one).
pub(super) fn open_to_read(
    app: &App,
    root: &Path,
    need_store: bool,
) -> Result<std::sync::Arc<Workspace>, ApiError> {
    registered(app, root)?;
    let ws = open(app, root)?;
    if need_store && !ws.store_path().exists() {
        return Err(ApiError::new(
            409,
            says(
                format!(
                    "{} 还没有存储：在那里运行任意 trilogy 命令（如 trilogy status）后再看",
                    root.display()
                ),
                format!(
                    "{} has no store yet: run any trilogy command there (trilogy status) and look again",
                    root.display()
                ),
            ),
        ));
    }
    Ok(ws)
}

/// The registry row of `root`, or the original's 400.
pub(super) fn registered(app: &App, root: &Path) -> Result<registry::Row, ApiError> {
    let key = root.display().to_string();
    registry::find(&app.env, &key).ok_or_else(|| {
        ApiError::bad(says(
            format!("未记录的工作区：{key}"),
            format!("not a recorded workspace: {key}"),
        ))
    })
}

fn millis(meta: &std::fs::Metadata) -> Option<i64> {
    Some(crate::base::clock::unix_ms(meta.modified().ok()?) as i64)
}

/// Reference §2.8: a missing file, or one whose known sections hold only `暂无` / `none yet`,
/// is empty; a file without any known section is not.
pub(super) fn project_text_is_empty(text: Option<&str>) -> bool {
    let Some(text) = text else { return true };
    let known = |h: &str| {
        let h = h.trim().to_lowercase();
        SECTIONS
            .iter()
            .any(|(zh, en)| h == *zh || h == en.to_lowercase())
    };
    let (mut saw_known, mut in_known, mut fence) = (false, false, false);
    for line in text.lines() {
        let t = line.trim();
        if t.starts_with("```") || t.starts_with("~~~") {
            if !fence && in_known {
                return false;
            }
            fence = !fence;
            continue;
        }
        if fence {
            continue;
        }
        if let Some(h) = line.strip_prefix("## ") {
            in_known = known(h);
            saw_known |= in_known;
            continue;
        }
        if line.starts_with('#') && line.trim_start_matches('#').starts_with(' ') {
            in_known = false;
            continue;
        }
        let lower = t.to_lowercase();
        if in_known && !t.is_empty() && lower != "暂无" && lower != "none yet" {
            return false;
        }
    }
    saw_known
}

/// `GET /workspaces`.
fn workspaces(app: &App) -> ApiResult {
    let mut list = Vec::new();
    for l in registry::list(&app.env) {
        let mem = PathBuf::from(&l.row.memory_dir);
        let mut files = serde_json::Map::new();
        let mut exists = false;
        for f in MAIN {
            let meta = std::fs::metadata(mem.join(f.file_name()))
                .ok()
                .filter(|m| m.is_file());
            exists |= meta.is_some();
            files.insert(
                f.file_name().into(),
                meta.map_or(Value::Null, |m| json!({ "bytes": m.len() })),
            );
        }
        let project = crate::base::fence::read_small_text(
            &mem.join("PROJECT.md"),
            crate::workspace::MAX_FILE_BYTES,
        );
        // empty means all three: a PROJECT.md still at its template beside recorded sessions
        // is not an empty memory
        let has_entries = ["DECISIONS.md", "SESSIONS.md"].iter().any(|f| {
            use std::io::BufRead;
            // read up to the first entry's heading only (a log can be megabytes)
            let max = crate::workspace::MAX_FILE_BYTES;
            crate::base::fence::open_regular(&mem.join(f), max).is_ok_and(|(file, _)| {
                std::io::BufReader::new(file)
                    .lines()
                    .map_while(std::result::Result::ok)
                    .any(|l| l.starts_with("## "))
            })
        });
        list.push(json!({
            "root": l.root,
            "memoryDir": l.row.memory_dir,
            "firstSeen": l.row.first_seen,
            "lastSeen": l.row.last_seen,
            "exists": exists,
            "empty": project_text_is_empty(project.as_deref()) && !has_entries,
            "files": files,
        }));
    }
    Ok(json!({
        "workspaces": list,
        "registry": registry::path(&app.env).map(|p| p.display().to_string()),
    }))
}

/// `POST /init {cwd}`: the located root's scaffold, as `trilogy init` there.
fn init(app: &App, req: &Request) -> ApiResult {
    let cwd = req
        .str_field("cwd")
        .ok_or_else(|| ApiError::bad(says("缺少 cwd 参数", "missing the cwd parameter")))?;
    let cwd = PathBuf::from(cwd);
    if !cwd.is_absolute() || !cwd.is_dir() {
        return Err(ApiError::bad(says(
            format!("cwd 不是一个文件夹：{}", cwd.display()),
            format!("cwd is not a folder: {}", cwd.display()),
        )));
    }
    let wanted = crate::workspace::Wanted {
        cwd: Some(&cwd),
        ..Default::default()
    };
    let (_, _, located) = crate::workspace::open_located(&wanted, &app.env, &app.overrides)?;
    let home = crate::base::dirs::home(&app.env);
    let root = located.root.clone();
    // a person asked for memory here; never in `/` or the home folder itself
    if root.parent().is_none() || home.as_deref().is_some_and(|h| h == root) {
        return Err(ApiError::bad(says(
            format!("不在 {} 创建记忆：请在项目文件夹里运行", root.display()),
            format!(
                "no memory is made in {}: run it in a project folder",
                root.display()
            ),
        )));
    }
    let ws = app.workspace(&root)?;
    let key = root.display().to_string();
    let out = app.writing(&key, || crate::ops::init(&ws))?;
    registry::touch(
        &app.env,
        &ws.root,
        &ws.memory_dir(),
        &ws.config.boot_block_file,
        true,
    )?;
    let added = matches!(
        out.scaffolded.boot_block,
        Some(BootOutcome::Created | BootOutcome::Appended | BootOutcome::UpgradedLegacy)
    );
    Ok(json!({
        "root": key,
        "created": out.scaffolded.created,
        "bootBlockAdded": added,
    }))
}

/// The instruction file of a workspace: the registry's `bootBlockFile`, else the config's.
pub(super) fn instruction_name(app: &App, ws: &Workspace) -> String {
    registry::find(&app.env, &ws.root.display().to_string())
        .map(|r| r.boot_block_file)
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| ws.config.boot_block_file.clone())
}

/// `GET /files?root=[&archive=0]`: the memory files, their version, staleness, the instruction
/// file; with `archive=0` the archive without its text.
fn files(app: &App, req: &Request) -> ApiResult {
    let root = root_of(req)?;
    let ws = open_to_read(app, &root, false)?;
    // the store takes in what changed in the files first, so the versions served are ones a
    // save can be merged against (a folder without a store is served as it is)
    if ws.has_memory() && ws.store_path().exists() {
        let _ = crate::ops::panel::take_in_edits(&ws);
    }
    let mut files = serde_json::Map::new();
    let mut shas: Vec<Option<String>> = Vec::new();
    let mut mtimes: [Option<i64>; 3] = [None; 3];
    let mut sessions_text = None;
    // `archive=0`: the archive's size and version without its text (at 100k entries that
    // text is 20 MB; the page shows the archive as cards, a page at a time)
    let archive_text = req.param("archive") != Some("0");
    for f in FileKind::ALL {
        let path = ws.memory_file(f)?;
        if f == FileKind::Archive && !archive_text {
            // its version hashed a block at a time: never held whole, read past the cap too
            let stamp = crate::workspace::hash_stamped(&path).ok().flatten();
            shas.push(stamp.as_ref().map(|s| s.sha1.clone()));
            let mtime = std::fs::metadata(&path).ok().and_then(|m| millis(&m));
            let v = stamp.map_or(
                Value::Null,
                |s| json!({ "text": null, "omitted": true, "bytes": s.len, "mtime": mtime }),
            );
            files.insert(f.file_name().into(), v);
            continue;
        }
        let read = crate::base::fence::open_regular(&path, crate::workspace::MAX_FILE_BYTES)
            .ok()
            .and_then(|(file, m)| {
                use std::io::Read;
                let mut bytes = Vec::with_capacity(m.len() as usize);
                let max = crate::workspace::MAX_FILE_BYTES;
                file.take(max).read_to_end(&mut bytes).ok()?;
                Some((bytes, m))
            });
        let v = match read {
            Some((bytes, meta)) => {
                let mtime = millis(&meta);
                if let Some(i) = MAIN.iter().position(|m| *m == f) {
                    mtimes[i] = mtime;
                }
                shas.push(Some(crate::base::hex::sha1(&bytes)));
                let len = bytes.len();
                // the bytes become the text without a copy (an 80 MB archive is held once)
                let text = String::from_utf8(bytes)
                    .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
                if f == FileKind::Sessions {
                    sessions_text = Some(text.clone());
                }
                json!({ "text": text, "bytes": len, "mtime": mtime })
            }
            None => {
                shas.push(None);
                Value::Null
            }
        };
        files.insert(f.file_name().into(), v);
    }
    let staleness = staleness(app, &ws, mtimes, sessions_text.as_deref())?;
    let name = instruction_name(app, &ws);
    let ipath = ws.root.join(&name);
    let itext = ws
        .inside(&ipath)
        .ok()
        .and_then(|p| crate::workspace::read_file(&p, crate::workspace::MAX_FILE_BYTES).ok()?)
        .map(|b| String::from_utf8_lossy(&b).into_owned());
    Ok(json!({
        "root": ws.root.display().to_string(),
        "memoryDir": ws.memory_dir().display().to_string(),
        "files": files,
        // what a save of these texts sends back as `version`
        "version": crate::ops::save::version_token(&shas),
        "staleness": staleness,
        "instruction": {
            "name": name,
            "path": ipath.display().to_string(),
            "exists": itext.is_some(),
            "bytes": itext.as_ref().map_or(0, |t| t.len()),
            "text": itext,
        },
    }))
}

/// Reference §4.11's object. `stale`, `behindDays` and `entriesSince` are the store's
/// judgement (`session_block::lag`: PROJECT.md's last real revision against the logs' dates) when the
/// workspace has a store; a folder only the original plugin wrote is judged by mtimes as the
/// original did.
fn staleness(
    app: &App,
    ws: &Workspace,
    mtimes: [Option<i64>; 3],
    sessions: Option<&str>,
) -> Result<Value, ApiError> {
    let threshold = ws.config.project_stale_days;
    let [project, decisions, sessions_m] = mtimes;
    let newest_other = decisions.max(sessions_m);
    let base = |stale: bool, reason: &str, behind: i64, since: usize| {
        json!({
            "stale": stale,
            "reason": reason,
            "projectMtime": project,
            "newestOtherMtime": newest_other,
            "behindDays": behind,
            "entriesSince": since,
            "thresholdDays": threshold,
        })
    };
    let Some(project_ms) = project else {
        return Ok(base(false, "no-memory", 0, 0));
    };
    let Some(other_ms) = newest_other else {
        return Ok(base(false, "no-memory", 0, 0));
    };
    if ws.store_path().exists() {
        // judged again only when the store changed or PROJECT.md was touched (the judgement
        // scans every entry and may ask git for the file's date)
        let lag = crate::ops::panel::lag(ws, &app.lags, project_ms)?;
        let (behind, since) = lag.map_or((0, 0), |l| (l.behind_days, l.entries_since));
        return Ok(base(
            threshold > 0 && behind >= threshold,
            "compared",
            behind,
            since,
        ));
    }
    const DAY: i64 = 86_400_000;
    let behind_ms = (other_ms - project_ms).max(0);
    let since = sessions
        .unwrap_or("")
        .lines()
        .filter_map(|l| l.strip_prefix("## "))
        .filter_map(heading_date)
        .filter(|d| {
            d.and_hms_opt(23, 59, 59)
                .is_some_and(|t| t.and_utc().timestamp_millis() > project_ms)
        })
        .count();
    Ok(base(
        threshold > 0 && behind_ms >= threshold * DAY,
        "compared",
        behind_ms / DAY,
        since,
    ))
}

/// `GET /status?cwd=`: the composer chip.
fn status(app: &App, req: &Request) -> ApiResult {
    let now = now_ms();
    let none = |workspace: Value| json!({ "phase": "none", "at": null, "workspace": workspace, "lastSyncAt": null, "lastSyncFile": null, "now": now });
    let Some(cwd) = req.param("cwd") else {
        return Ok(none(Value::Null));
    };
    let cwd = PathBuf::from(cwd);
    let wanted = crate::workspace::Wanted {
        cwd: Some(&cwd),
        ..Default::default()
    };
    let (_, _, located) = crate::workspace::open_located(&wanted, &app.env, &app.overrides)?;
    let root = located.root;
    let key = root.display().to_string();
    if !root.is_dir() {
        return Ok(none(json!(key)));
    }
    if registry::find(&app.env, &key).is_none() {
        return Ok(none(json!(key)));
    }
    let ws = app.workspace(&root)?;
    let mut last: Option<(i64, PathBuf)> = None;
    for f in MAIN {
        let path = ws.file_path(f);
        if let Some(ms) = std::fs::metadata(&path).ok().as_ref().and_then(millis)
            && last.as_ref().is_none_or(|(m, _)| ms > *m)
        {
            last = Some((ms, path));
        }
    }
    let Some((sync_at, sync_file)) = last else {
        return Ok(none(json!(key)));
    };
    let (mut phase, mut at) = ("idle", Value::Null);
    match app.activity(&key) {
        Some((Phase::Recording, t)) => (phase, at) = ("recording", json!(t)),
        Some((Phase::Done, t)) if now - t < DONE_MS => (phase, at) = ("done", json!(t)),
        _ => {}
    }
    if phase == "idle"
        && ws.store_path().exists()
        && let Some(t) = last_recorded(&ws)
        && (0..DONE_MS).contains(&(now - t))
    {
        (phase, at) = ("done", json!(t));
    }
    Ok(json!({
        "phase": phase,
        "at": at,
        "workspace": key,
        "lastSyncAt": sync_at,
        "lastSyncFile": sync_file.display().to_string(),
        "now": now,
    }))
}

/// Unix ms of the newest event a writer recorded (a hand edit absorbed is not a recording).
fn last_recorded(ws: &Workspace) -> Option<i64> {
    let query = crate::ops::LogQuery {
        limit: 16,
        ..Default::default()
    };
    let crate::ops::LogView::Events { events } = crate::ops::log(ws, &query).ok()? else {
        return None;
    };
    events
        .iter()
        .find(|e| e.event.actor != "file-edit")
        .and_then(|e| chrono::DateTime::parse_from_rfc3339(&e.event.at).ok())
        .map(|t| t.timestamp_millis())
}

/// `POST /forget {root}`: the registry row only; no file is touched.
fn forget(app: &App, req: &Request) -> ApiResult {
    let root = req
        .str_field("root")
        .ok_or_else(|| ApiError::bad(says("缺少 root", "missing root")))?
        .to_string();
    match registry::forget(&app.env, &root)? {
        Some(row) => Ok(json!({ "forgotten": root, "memoryDir": row.memory_dir })),
        None => Err(ApiError::new(
            404,
            says(
                format!("注册表里没有这个工作区：{root}"),
                format!("the registry holds no such workspace: {root}"),
            ),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn project_emptiness_follows_the_original_scan() {
        assert!(project_text_is_empty(None));
        let template = "# PROJECT\n\n> x\n\n## 这是什么\n\n暂无\n\n## 现状\n\nnone yet\n";
        assert!(project_text_is_empty(Some(template)));
        assert!(!project_text_is_empty(Some(
            "# PROJECT\n\n## 现状\n\n能跑\n"
        )));
        assert!(!project_text_is_empty(Some(
            "# PROJECT\n\n## State\n\nruns\n"
        )));
        // only custom sections: not empty, never nagged
        assert!(!project_text_is_empty(Some(
            "# PROJECT\n\n## Mine\n\ntext\n"
        )));
        // an opening fence under a known section is content
        assert!(!project_text_is_empty(Some("## 坑\n\n```\n暂无\n```\n")));
    }
}
