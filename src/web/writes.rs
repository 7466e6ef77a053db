//! The original's endpoints that act on one workspace's files: `boot` (GET state, POST remove or
//! rewrite), `restore`, `export`, `import`, `save`, `clear`. The request is checked here with the
//! original's texts and order; the operation is `ops`' (which checks again, in English), run
//! as the actor `panel` through the store like any other writer.

use std::path::Path;

use axum::http::Method;
use serde_json::{Value, json};

use super::api::{instruction_name, open, open_to_read, registered, root_of};
use super::{ApiError, ApiResult, App, Request, says, to_json, wrong_method};
use crate::error::ErrorKind;
use crate::ops;
use crate::ops::bundle::{BUNDLE_KIND, ImportMode};

/// Who the event log names for the panel's writes.
const ACTOR: &str = "panel";

const ENDPOINTS: [&str; 6] = ["boot", "restore", "export", "import", "save", "clear"];

/// The memory files a save may write, besides the workspace's instruction file.
const SAVABLE: [&str; 3] = ["PROJECT.md", "DECISIONS.md", "SESSIONS.md"];

pub fn is_endpoint(name: &str) -> bool {
    ENDPOINTS.contains(&name)
}

pub fn route(app: &App, req: &Request) -> Option<ApiResult> {
    let get = req.method == Method::GET;
    let post = req.method == Method::POST;
    Some(match req.name.as_str() {
        "boot" if get => boot_state(app, req),
        "boot" if post => boot_action(app, req),
        "export" if get => export(app, req),
        "restore" if post => restore(app, req),
        "import" if post => import(app, req),
        "save" if post => save(app, req),
        "clear" if post => clear(app, req),
        "boot" => Err(wrong_method(req, "GET|POST")),
        "export" => Err(wrong_method(req, "GET")),
        "restore" | "import" | "save" | "clear" => Err(wrong_method(req, "POST")),
        _ => return None,
    })
}

/// `GET /boot?root=`: `{ file, exists, fileExists, current, block }`.
fn boot_state(app: &App, req: &Request) -> ApiResult {
    let root = root_of(req)?;
    let ws = open_to_read(app, &root, false)?;
    let name = instruction_name(app, &ws);
    to_json(&ops::regions::boot_state(&ws, Path::new(&name))?)
}

/// `POST /boot {root, action}`: `remove` → `{removed: true}`, `rewrite` → `{rewritten: true}`.
fn boot_action(app: &App, req: &Request) -> ApiResult {
    let root = root_of(req)?;
    registered(app, &root)?;
    let action = req.str_field("action").unwrap_or("");
    if action != "remove" && action != "rewrite" {
        return Err(ApiError::bad(says(
            "action 必须是 rewrite 或 remove",
            "action must be rewrite or remove",
        )));
    }
    let ws = open(app, &root)?;
    let name = instruction_name(app, &ws);
    if action == "remove" {
        ops::regions::remove_block(&ws, Path::new(&name))?;
        Ok(json!({ "removed": true }))
    } else {
        let done = ops::regions::rewrite_block(&ws, Path::new(&name))?;
        Ok(json!({ "rewritten": true, "outcome": done.outcome }))
    }
}

/// `POST /restore {root, text}` (the original's: by the archived entry's text),
/// `{root, id, version?}` (any restorable entry, from `/history`), or `{root, clear}`
/// (everything one clear took out, by the `clear_id` its answer gave).
fn restore(app: &App, req: &Request) -> ApiResult {
    let root = root_of(req)?;
    let id = req.str_field("id");
    let text = req.str_field("text");
    if let Some(seq) = req.field("clear") {
        let seq = seq.as_u64().ok_or_else(|| {
            ApiError::bad(says(
                "clear 必须是清空时给出的 clear_id（一个整数）",
                "clear must be the clear_id the clear answered with (a whole number)",
            ))
        })?;
        registered(app, &root)?;
        let ws = open(app, &root)?;
        let key = root.display().to_string();
        let done = app.writing(&key, || ops::restore_cleared(&ws, ACTOR, seq))?;
        return to_json(&done.value);
    }
    if id.is_none() && text.is_none() {
        return Err(ApiError::bad(says(
            "缺少 text 参数",
            "missing the text parameter",
        )));
    }
    registered(app, &root)?;
    let ws = open(app, &root)?;
    let key = root.display().to_string();
    let out = if let Some(id) = id {
        app.writing(&key, || {
            ops::restore_entry(&ws, ACTOR, id, req.str_field("version"))
        })?
    } else {
        let text = text.unwrap_or_default();
        match app.writing(&key, || ops::restore_text(&ws, text, ACTOR)) {
            Err(e) if e.kind() == ErrorKind::NotFound => {
                return Err(ApiError::bad(says(
                    "归档里找不到这条",
                    "the archive holds no such entry",
                )));
            }
            r => r?,
        }
    };
    let v = out.value;
    // files are in date order: say where it landed, never "at the top"
    let at = to_json(&ops::panel::place(&ws, &v.id)?)?;
    Ok(json!({ "restored": true, "id": v.id, "heading": v.heading, "from": v.from, "where": at }))
}

/// `GET /export?root=`: the bundle of a registered workspace.
fn export(app: &App, req: &Request) -> ApiResult {
    let root = root_of(req)?;
    let ws = open_to_read(app, &root, true)?;
    to_json(&ops::bundle::export(&ws)?)
}

/// `POST /import {root, bundle, mode?}`: the original's checks, in its order and with its
/// texts, then the store's import (validated whole again; a bad bundle changes nothing).
fn import(app: &App, req: &Request) -> ApiResult {
    let root = root_of(req)?;
    let bundle = req
        .field("bundle")
        .filter(|b| b.is_object())
        .ok_or_else(|| {
            ApiError::bad(says(
                "bundle 必须是一个对象（导出的记忆包）",
                "bundle must be an object (an exported memory bundle)",
            ))
        })?;
    let kind = bundle.get("kind").and_then(Value::as_str).unwrap_or("");
    if kind != BUNDLE_KIND {
        let shown = bundle.get("kind").map_or("undefined".into(), |k| match k {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        });
        return Err(ApiError::bad(says(
            format!("不是本插件导出的记忆包（kind={shown}）"),
            format!("not a memory bundle this panel exported (kind={shown})"),
        )));
    }
    let Some(files) = bundle.get("files").and_then(Value::as_object) else {
        return Err(ApiError::bad(says(
            "记忆包缺少 files 对象",
            "the memory bundle has no files object",
        )));
    };
    let known = [
        "PROJECT.md",
        "DECISIONS.md",
        "SESSIONS.md",
        "SESSIONS-archive.md",
    ];
    if !known
        .iter()
        .any(|n| files.get(*n).is_some_and(Value::is_string))
    {
        return Err(ApiError::bad(says(
            "记忆包里没有可导入的文件（PROJECT.md、DECISIONS.md、SESSIONS.md、SESSIONS-archive.md）",
            "the memory bundle holds no file to import (PROJECT.md, DECISIONS.md, SESSIONS.md, SESSIONS-archive.md)",
        )));
    }
    let mode = match req.str_field("mode") {
        None => ImportMode::Merge,
        Some(m) => ImportMode::parse(m).ok_or_else(|| {
            ApiError::bad(says(
                format!("mode 必须是 merge 或 replace：{m}"),
                format!("mode must be merge or replace: {m}"),
            ))
        })?,
    };
    let ws = open(app, &root)?;
    let key = root.display().to_string();
    let out = app.writing(&key, || ops::bundle::import(&ws, bundle, mode, ACTOR))?;
    crate::registry::touch(
        &app.env,
        &ws.root,
        &ws.memory_dir(),
        &ws.config.boot_block_file,
        true,
    )?;
    to_json(&out)
}

/// `POST /save {root, file, text, version?}`: a whole memory file (a hand edit, absorbed through
/// the store and restorable) or the instruction file; nothing else. `version` is the one
/// `/files` answered with: the save is merged against exactly the files it served, and a change
/// to something changed since is refused with 409.
fn save(app: &App, req: &Request) -> ApiResult {
    let root = root_of(req)?;
    let Some(text) = req.field("text").and_then(Value::as_str) else {
        return Err(ApiError::bad(says(
            "缺少 text 参数",
            "missing the text parameter",
        )));
    };
    registered(app, &root)?;
    let file = req.field("file").and_then(Value::as_str).unwrap_or("");
    let ws = open(app, &root)?;
    let instruction = instruction_name(app, &ws);
    let memory = SAVABLE.contains(&file);
    if !memory && file != instruction {
        return Err(ApiError::bad(says(
            format!("不允许写入 {file}"),
            format!("{file} may not be written here"),
        )));
    }
    let version = match req.field("version") {
        None | Some(Value::Null) => None,
        Some(Value::String(v)) => Some(v.as_str()),
        Some(_) => {
            return Err(ApiError::bad(says(
                "version 必须是 /files 返回的 version 字符串",
                "version must be the version string /files answered with",
            )));
        }
    };
    let key = root.display().to_string();
    let go = || ops::save::save(&ws, file, text, Some(&instruction), ACTOR, version);
    let out = if memory {
        app.writing(&key, go)?
    } else {
        go()?
    };
    to_json(&out)
}

/// `POST /clear {root}`: the four files go (every entry kept restorable in the store), the
/// boot block too when it is ours; the registry row stays.
fn clear(app: &App, req: &Request) -> ApiResult {
    let root = root_of(req)?;
    registered(app, &root)?;
    let ws = open(app, &root)?;
    let instruction = instruction_name(app, &ws);
    let key = root.display().to_string();
    let out = app.writing(&key, || {
        ops::clear::clear(&ws, Some(Path::new(&instruction)), ACTOR)
    })?;
    // the clear's event: `POST /restore {root, clear}` brings back everything it took out
    let clear_id = out.event;
    let mut v = to_json(&out)?;
    v["clear_id"] = json!(clear_id);
    v["undoable"] = json!(clear_id.is_some());
    Ok(v)
}
