//! Recall's index from the panel: `POST /recall-index {root}` starts bringing the index up to
//! the transcripts (on a thread of its own, one per workspace at a time, so the request comes
//! back at once), and `GET /recall-index?root=` says how far that got and how complete the
//! index is (`trilogy recall --status`'s reading).

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use axum::http::Method;
use serde::Serialize;
use serde_json::json;

use super::api::{open, registered, root_of};
use super::{ApiError, ApiResult, App, Request, says, to_json, wrong_method};

/// Each workspace's indexing, by root.
pub(crate) type Indexings = Arc<Mutex<HashMap<PathBuf, Indexing>>>;

/// One workspace's indexing, as the page shows it.
#[derive(Debug, Clone, Default, Serialize)]
pub(crate) struct Indexing {
    pub running: bool,
    /// Transcripts read so far, of those found.
    pub done: usize,
    pub total: usize,
    /// Why the last indexing failed.
    pub error: Option<String>,
}

pub fn is_endpoint(name: &str) -> bool {
    name == "recall-index"
}

pub fn route(app: &App, req: &Request) -> Option<ApiResult> {
    if !is_endpoint(&req.name) {
        return None;
    }
    Some(match req.method {
        Method::GET => progress(app, req),
        Method::POST => start(app, req),
        _ => Err(wrong_method(req, "GET|POST")),
    })
}

/// The indexing of `root` (none yet: not running, nothing read).
fn reading(app: &App, root: &PathBuf) -> Indexing {
    let held = app.indexings.lock().unwrap_or_else(|p| p.into_inner());
    held.get(root).cloned().unwrap_or_default()
}

/// `GET /recall-index?root=`: `{indexing, status}`.
fn progress(app: &App, req: &Request) -> ApiResult {
    let root = root_of(req)?;
    registered(app, &root)?;
    let ws = open(app, &root)?;
    let status = crate::recall::status(&ws)?;
    Ok(json!({ "indexing": to_json(&reading(app, &root))?, "status": to_json(&status)? }))
}

/// `POST /recall-index {root}`: start indexing (when it is not already running); the indexing
/// as it stands.
fn start(app: &App, req: &Request) -> ApiResult {
    let root = root_of(req)?;
    registered(app, &root)?;
    let ws = open(app, &root)?;
    if ws.config.recall.is_none() || !ws.config.recall_enabled {
        return Err(ApiError::bad(says(
            "这里没有开启召回（recall_enabled），或不知道缓存文件夹在哪",
            "recall is off here (recall_enabled), or no cache folder is known",
        )));
    }
    let cache = app.indexings.clone();
    {
        let mut held = cache.lock().unwrap_or_else(|p| p.into_inner());
        let slot = held.entry(root.clone()).or_default();
        if slot.running {
            return Ok(json!({ "started": false, "indexing": to_json(&slot.clone())? }));
        }
        *slot = Indexing {
            running: true,
            ..Indexing::default()
        };
    }
    let key = root.clone();
    std::thread::spawn(move || {
        let set = |f: &dyn Fn(&mut Indexing)| {
            let mut held = cache.lock().unwrap_or_else(|p| p.into_inner());
            f(held.entry(key.clone()).or_default());
        };
        let out = crate::recall::index_now(&ws, &mut |done, total| {
            set(&|i| {
                i.done = done;
                i.total = total;
            })
        });
        set(&|i| {
            i.running = false;
            i.error = out.as_ref().err().map(|e| e.to_string());
        });
    });
    Ok(json!({ "started": true, "indexing": to_json(&reading(app, &root))? }))
}
