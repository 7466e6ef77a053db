//! The panel's entries as cards, and fixing one in place: `entries` (one file's entries, a
//! page at a time, each with its version, provenance and the reports that name it),
//! `sections` and `revisions` (PROJECT.md), `POST entry` (edit, remove, retire, supersede,
//! restore) and `POST section` (edit, restore a revision). Every write names the version the
//! person saw ([`crate::ops::version`]); a stale one is answered 409 with what is there now.

use axum::http::Method;
use serde_json::{Value, json};

use super::api::{open, open_to_read, registered, root_of};
use super::{ApiError, ApiResult, App, Request, says, to_json, wrong_method};
use crate::error::{Error, ErrorKind};
use crate::model::FileKind;
use crate::ops::{self, fix};
use crate::workspace::Workspace;

/// Who the event log names for the panel's writes.
const ACTOR: &str = "panel";

const ENDPOINTS: [&str; 5] = ["entries", "sections", "revisions", "entry", "section"];

/// The largest page of cards.
const MAX_PAGE: usize = 500;

pub fn is_endpoint(name: &str) -> bool {
    ENDPOINTS.contains(&name)
}

pub fn route(app: &App, req: &Request) -> Option<ApiResult> {
    let get = req.method == Method::GET;
    let post = req.method == Method::POST;
    Some(match req.name.as_str() {
        "entries" if get => entries(app, req),
        "sections" if get => sections(app, req),
        "revisions" if get => revisions(app, req),
        "entry" if post => entry(app, req),
        "section" if post => section(app, req),
        "entries" | "sections" | "revisions" => Err(wrong_method(req, "GET")),
        "entry" | "section" => Err(wrong_method(req, "POST")),
        _ => return None,
    })
}

/// The file a `file` parameter names: DECISIONS.md, SESSIONS.md or the archive.
fn entry_file(ws: &Workspace, name: &str) -> Result<FileKind, ApiError> {
    [FileKind::Decisions, FileKind::Sessions, FileKind::Archive]
        .into_iter()
        .find(|f| f.file_name() == name || ws.file_name(*f) == name)
        .ok_or_else(|| {
            ApiError::bad(says(
                format!(
                    "file 必须是 DECISIONS.md、SESSIONS.md 或 {}：{name}",
                    FileKind::Archive.file_name()
                ),
                format!(
                    "file must be DECISIONS.md, SESSIONS.md or {}: {name}",
                    FileKind::Archive.file_name()
                ),
            ))
        })
}

/// `GET /entries?root=&file=&offset=&limit=&q=`: one file's entries in file order (newest
/// first), a page at a time; `q` keeps those whose text holds it (case-insensitive).
fn entries(app: &App, req: &Request) -> ApiResult {
    let root = root_of(req)?;
    let ws = open_to_read(app, &root, true)?;
    let f = entry_file(&ws, req.param("file").unwrap_or("SESSIONS.md"))?;
    let offset = req.number("offset", 0, 0..=usize::MAX)?;
    let limit = req.number("limit", 50, 0..=MAX_PAGE)?.max(1);
    let q = req.param("q").map(|q| q.trim().to_lowercase());
    to_json(&ops::panel::entries(&ws, f, offset, limit, q.as_deref())?)
}

/// `GET /sections?root=`: PROJECT.md's prose and sections, each with its version.
fn sections(app: &App, req: &Request) -> ApiResult {
    let root = root_of(req)?;
    let ws = open_to_read(app, &root, true)?;
    to_json(&ops::panel::sections(&ws)?)
}

/// `GET /revisions?root=&key=`: every revision of one section, newest first.
fn revisions(app: &App, req: &Request) -> ApiResult {
    let root = root_of(req)?;
    let key = req
        .param("key")
        .ok_or_else(|| ApiError::bad(says("缺少 key 参数", "missing the key parameter")))?;
    let ws = open_to_read(app, &root, true)?;
    to_json(&ops::panel::revisions(&ws, key)?)
}

/// A conflict's answer: 409, with the entry as it is now (following replacements).
fn conflict(ws: &Workspace, id: &str, e: Error) -> ApiError {
    let mut err = ApiError::from(e);
    let now = (ops::panel::current(ws, id).ok().flatten())
        .and_then(|card| to_json(&card).ok())
        .unwrap_or(Value::Null);
    let mut extra = serde_json::Map::new();
    extra.insert("current".into(), now);
    err.extra = Some(extra);
    err
}

/// `POST /entry {root, id, action, version, text?, why?, decision?}`.
fn entry(app: &App, req: &Request) -> ApiResult {
    let root = root_of(req)?;
    registered(app, &root)?;
    let ws = open(app, &root)?;
    let id = req
        .str_field("id")
        .ok_or_else(|| ApiError::bad(says("缺少 id", "missing id")))?;
    let action = req.str_field("action").unwrap_or("");
    let version = req.str_field("version");
    let need_version = || {
        version.ok_or_else(|| {
            ApiError::bad(says(
                "缺少 version：请把读到这一条时 /entries 给出的 version 一起发回",
                "missing version: send back the version /entries gave with this entry",
            ))
        })
    };
    let text = || {
        req.str_field("text")
            .ok_or_else(|| ApiError::bad(says("缺少 text", "missing text")))
    };
    let key = root.display().to_string();
    let answered: crate::error::Result<(Value, String)> = match action {
        "edit" => {
            let (v, t) = (need_version()?, text()?);
            app.writing(&key, || fix::edit_entry(&ws, ACTOR, id, v, t))
                .map(|w| {
                    let at = w.value.new_id.clone().unwrap_or(w.value.id.clone());
                    (json!(w.value), at)
                })
        }
        "remove" => {
            let v = need_version()?;
            app.writing(&key, || fix::remove_entry(&ws, ACTOR, id, v))
                .map(|w| (json!(w.value), id.to_string()))
        }
        "retire" => {
            let v = need_version()?;
            let why = req
                .str_field("why")
                .ok_or_else(|| ApiError::bad(says(
                    "缺少 why：说一句它为什么不再成立（会写在条目旁）",
                    "missing why: say in a line why it no longer holds (it is written beside the entry)",
                )))?;
            app.writing(&key, || {
                ops::truth::retire::retire(&ws, ACTOR, id, why, Some(v))
            })
            .map(|w| (json!(w.value), w.value.id))
        }
        "supersede" => {
            let v = need_version()?;
            let d = req.field("decision").ok_or_else(|| {
                ApiError::bad(says(
                    "缺少 decision：{choice, because?, over?, area?}",
                    "missing decision: {choice, because?, over?, area?}",
                ))
            })?;
            let d: ops::DecisionInput = serde_json::from_value(d.clone()).map_err(|e| {
                ApiError::bad(says(
                    format!("decision 不对：{e}"),
                    format!("decision is not right: {e}"),
                ))
            })?;
            app.writing(&key, || fix::supersede(&ws, ACTOR, id, v, d))
                .map(|w| {
                    let at = w.value.ids.first().cloned().unwrap_or_default();
                    (json!(w.value), at)
                })
        }
        "restore" => {
            let v = need_version()?;
            app.writing(&key, || ops::restore_entry(&ws, ACTOR, id, Some(v)))
                .map(|w| (json!(w.value), w.value.id))
        }
        _ => {
            return Err(ApiError::bad(says(
                "action 必须是 edit、remove、retire、supersede 或 restore",
                "action must be edit, remove, retire, supersede or restore",
            )));
        }
    };
    match answered {
        Ok((mut v, at)) => {
            v["action"] = json!(action);
            v["where"] = to_json(&ops::panel::place(&ws, &at)?)?;
            Ok(v)
        }
        Err(e) if e.kind() == ErrorKind::Conflict => Err(conflict(&ws, id, e)),
        Err(e) => Err(e.into()),
    }
}

/// `POST /section {root, key, action, version, text?, revision?}`: edit a PROJECT section's
/// body, or put one of its revisions back.
fn section(app: &App, req: &Request) -> ApiResult {
    let root = root_of(req)?;
    registered(app, &root)?;
    let ws = open(app, &root)?;
    let key = req
        .str_field("key")
        .ok_or_else(|| ApiError::bad(says("缺少 key", "missing key")))?;
    let version = req.str_field("version").ok_or_else(|| {
        ApiError::bad(says(
            "缺少 version：请把 /sections 给出的 version 一起发回",
            "missing version: send back the version /sections gave",
        ))
    })?;
    let busy = root.display().to_string();
    match req.str_field("action").unwrap_or("") {
        "edit" => {
            // an empty string empties the section; a missing `text` is a mistake, not that
            let text = (req.field("text").and_then(Value::as_str)).ok_or_else(|| {
                ApiError::bad(says(
                    "缺少 text（段落的新正文，字符串）",
                    "missing text (the section's new body, a string)",
                ))
            })?;
            let done = app.writing(&busy, || fix::edit_section(&ws, ACTOR, key, version, text))?;
            to_json(&done.value)
        }
        "restore" => {
            let revision = req
                .field("revision")
                .and_then(Value::as_u64)
                .ok_or_else(|| {
                    ApiError::bad(says(
                        "缺少 revision（一个修订号）",
                        "missing revision (a revision number)",
                    ))
                })?;
            // restore finds a section by heading (or a person's name for it)
            let heading = ops::panel::section_heading(&ws, key)?.ok_or_else(|| {
                ApiError::new(
                    404,
                    says(
                        format!("没有这个 PROJECT 段：{key}"),
                        format!("PROJECT.md has no such section: {key}"),
                    ),
                )
            })?;
            let done = app.writing(&busy, || {
                ops::restore_section(&ws, ACTOR, &heading, revision, Some(version))
            })?;
            to_json(&done.value)
        }
        _ => Err(ApiError::bad(says(
            "action 必须是 edit 或 restore",
            "action must be edit or restore",
        ))),
    }
}
