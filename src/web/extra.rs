//! Endpoints beyond the original's: `info` (where the server runs, its language), `search`
//! (`memory_search`'s ranking, whole entries), `events` (who changed what), `sessions` (what
//! each agent session was injected and what its caps dropped), `given` (what one session was
//! given word for word: its blocks and notices), `history` (restorable
//! entries) and `weeks` (sessions per ISO week by area, for the page's chart). All read-only;
//! their JSON is the CLI's `--json` for the same question.

use axum::http::Method;
use serde_json::json;

use super::api::{open_to_read, root_of};
use super::{ApiError, ApiResult, App, Request, says, to_json, wrong_method};
use crate::index::{ArchiveMode, SearchQuery};

const ENDPOINTS: [&str; 7] = [
    "info", "search", "events", "sessions", "given", "history", "weeks",
];

pub fn is_endpoint(name: &str) -> bool {
    ENDPOINTS.contains(&name)
}

pub fn route(app: &App, req: &Request) -> Option<ApiResult> {
    if !is_endpoint(&req.name) {
        return None;
    }
    if req.method != Method::GET {
        return Some(Err(wrong_method(req, "GET")));
    }
    Some(match req.name.as_str() {
        "info" => info(app),
        "search" => search(app, req),
        "events" => events(app, req),
        "sessions" => sessions(app, req),
        "given" => given(app, req),
        "history" => history(app, req),
        _ => weeks(app, req),
    })
}

/// `GET /info`: `{ cwd, lang, version, registry }`.
fn info(app: &App) -> ApiResult {
    let wanted = crate::workspace::Wanted {
        cwd: Some(&app.cwd),
        ..Default::default()
    };
    let located = crate::workspace::open_located(&wanted, &app.env, &app.overrides).ok();
    let lang = located
        .as_ref()
        .map_or("zh", |(ws, _, _)| ws.lang().as_str());
    // the workspace the panel opens on: the one `serve` ran in, when it holds memory
    let cwd_root = (located.as_ref())
        .filter(|(ws, _, _)| ws.has_memory())
        .map(|(ws, _, _)| ws.root.display().to_string());
    Ok(json!({
        "cwd": app.cwd.display().to_string(),
        "cwd_root": cwd_root,
        // the server's today (it honours TRILOGY_TODAY), where the weekly chart ends
        "today": located.as_ref().map(|(ws, _, _)| ws.clock.today().to_string()),
        "lang": lang,
        "version": env!("CARGO_PKG_VERSION"),
        "registry": crate::registry::path(&app.env).map(|p| p.display().to_string()),
    }))
}

/// `GET /search?root=&q=&limit=`.
fn search(app: &App, req: &Request) -> ApiResult {
    let root = root_of(req)?;
    let q = req
        .param("q")
        .ok_or_else(|| ApiError::bad(says("缺少 q 参数", "missing the q parameter")))?;
    let limit = req.number("limit", 5, 1..=20)?;
    let ws = open_to_read(app, &root, true)?;
    let out = crate::ops::search::search(
        &ws,
        SearchQuery {
            text: q.to_string(),
            limit,
            archive: ArchiveMode::Include,
            ..Default::default()
        },
    )?;
    to_json(&out)
}

/// `GET /events?root=&limit=&offset=`: the event log, newest first, `limit` events after
/// the newest `offset`.
fn events(app: &App, req: &Request) -> ApiResult {
    let root = root_of(req)?;
    let limit = req.number("limit", 50, 1..=10_000)?;
    let offset = req.number("offset", 0, 0..=usize::MAX)?.min(100_000);
    let ws = open_to_read(app, &root, true)?;
    let mut view = crate::ops::log(
        &ws,
        &crate::ops::LogQuery {
            limit: offset + limit,
            ..Default::default()
        },
    )?;
    // a page further back: the newest `offset` events are the pages already shown
    if let crate::ops::LogView::Events { events } = &mut view {
        events.drain(..offset.min(events.len()));
    }
    to_json(&view)
}

/// `GET /sessions?root=`.
fn sessions(app: &App, req: &Request) -> ApiResult {
    let root = root_of(req)?;
    let ws = open_to_read(app, &root, true)?;
    to_json(&crate::ops::agent::list_sessions(&ws)?)
}

/// `GET /given?root=&id=`: `{id, items}`, what agent session `id` was given word for word,
/// oldest first: each block (`kind: "block"`, with its `source`) and each notice.
fn given(app: &App, req: &Request) -> ApiResult {
    let root = root_of(req)?;
    let id = req.param("id").ok_or_else(|| {
        ApiError::bad(says(
            "缺少 id 参数（会话的 id）",
            "missing the id parameter (a session's id)",
        ))
    })?;
    let ws = open_to_read(app, &root, true)?;
    let items = crate::ops::agent::given_to(&ws, id)?;
    Ok(json!({ "id": id, "items": to_json(&items)? }))
}

/// `GET /history?root=&offset=&limit=`: entries in no live place (archived, removed,
/// replaced, superseded), newest first, a page at a time (200 unless `limit` says), with
/// their `total`; each restorable with `POST /restore {root, id}`.
fn history(app: &App, req: &Request) -> ApiResult {
    let root = root_of(req)?;
    let ws = open_to_read(app, &root, true)?;
    let (offset, limit) = (
        req.number("offset", 0, 0..=usize::MAX)?,
        req.number("limit", 200, 1..=10_000)?,
    );
    to_json(&crate::ops::panel::history(&ws, offset, limit)?)
}

/// `GET /weeks?root=`: `{ weeks: [{ week: "YYYY-Www", areas: { area: count } }] }`, oldest
/// week first, live and archived sessions.
fn weeks(app: &App, req: &Request) -> ApiResult {
    let root = root_of(req)?;
    let ws = open_to_read(app, &root, true)?;
    Ok(json!({ "weeks": to_json(&crate::ops::panel::weeks(&ws)?)? }))
}
