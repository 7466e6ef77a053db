//! `trilogy serve`: the memory panel over HTTP (axum), bound to 127.0.0.1 only. The only
//! module that names axum.
//!
//! Every request passes the fence first ([`fence::check`]); then `/` and `/trilogy` redirect to
//! the page, `/trilogy/` is the page and its assets ([`assets`]), `/favicon.ico` its icon, and
//! the other `/trilogy/<name>` paths are the JSON endpoints: the original plugin's ([`api`],
//! [`writes`]) and ours ([`extra`]; the cards and fixes in place, [`cards`]; what the agents
//! see and what waits for a person, [`seen`]; recall's index, [`recall`]). Answers are JSON
//! with `cache-control: no-store`; errors are `{ "error": "…" }` with the original's statuses,
//! in the language of the workspace asked about ([`said`]), or the status of the failure's
//! kind ([`crate::ErrorKind::http_status`]). Handlers run on the blocking pool and go through
//! `ops` for every read and write, as every surface does (what only the panel asks is
//! [`crate::ops::panel`]); no transaction is held between requests.

mod api;
mod assets;
mod cards;
mod extra;
pub mod fence;
mod recall;
mod said;
mod seen;
mod writes;

use std::collections::HashMap;
use std::net::{Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use axum::body::Bytes;
use axum::extract::{ConnectInfo, DefaultBodyLimit, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use serde_json::Value;

use crate::error::{Error, Result};
use crate::model::Lang;
use crate::workspace::Workspace;
pub(crate) use said::{Said, says};

/// The largest request body (an imported bundle with a large archive).
const BODY_LIMIT: usize = 256 << 20;

/// How `trilogy serve` was asked to run.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// 0 = any free port.
    pub port: u16,
    /// `--set KEY=VALUE` overrides, applied to every workspace opened.
    pub overrides: Vec<String>,
}

/// What a launched server tells its caller to print.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Launch {
    pub url: String,
    pub port: u16,
    pub token: String,
    /// Where the token is kept for scripts (mode 0600), when it could be written.
    #[serde(rename = "tokenFile")]
    pub token_file: Option<String>,
}

/// What the status chip shows for a workspace the server itself is writing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Phase {
    Recording,
    Done,
}

/// The server's state, shared by every request.
pub(crate) struct App {
    pub port: u16,
    pub token: String,
    /// Where `trilogy serve` ran (the page's status chip asks about it).
    pub cwd: PathBuf,
    pub env: Vec<(String, String)>,
    pub overrides: Vec<String>,
    /// Workspaces opened so far, by root: their stores stay open between requests.
    workspaces: Mutex<HashMap<PathBuf, Arc<Workspace>>>,
    /// Writes this server made, by root: (phase, Unix ms).
    activity: Mutex<HashMap<String, (Phase, i64)>>,
    /// PROJECT.md's lag per root, judged again only when the store or the file moved.
    pub lags: crate::ops::panel::Lags,
    /// `doctor`'s findings per root (judged in the background: at 100k entries it takes a
    /// second or two).
    pub doctors: Doctors,
    /// Recall's indexing per root, started from the page.
    pub indexings: recall::Indexings,
}

/// See [`App::doctors`].
pub(crate) type Doctors = Arc<Mutex<HashMap<PathBuf, Doctored>>>;

/// One workspace's doctor findings for the panel.
pub(crate) struct Doctored {
    /// The change token they were judged at, and when.
    pub token: String,
    pub at: std::time::Instant,
    /// `None` while the judgement runs.
    pub value: Option<Value>,
}

impl App {
    /// The workspace at `root` (an absolute folder that exists), opened once.
    pub fn workspace(&self, root: &Path) -> Result<Arc<Workspace>> {
        let mut held = self.workspaces.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(ws) = held.get(root) {
            return Ok(ws.clone());
        }
        let (ws, _) = crate::workspace::open_workspace(root, &self.env, &self.overrides)?;
        let ws = Arc::new(ws);
        held.insert(root.to_path_buf(), ws.clone());
        Ok(ws)
    }

    /// The language of the workspace `serve` ran in (its settings as they are now; the
    /// default's outside any), as `GET /info` reports it.
    pub fn server_lang(&self) -> Lang {
        let wanted = crate::workspace::Wanted {
            cwd: Some(&self.cwd),
            ..Default::default()
        };
        crate::workspace::open_located(&wanted, &self.env, &self.overrides)
            .map_or(Lang::default(), |(ws, _, _)| ws.lang())
    }

    /// The language to answer in: that of the registered workspace `root` names, else the
    /// server's. Never opens a folder that is not a registered workspace.
    pub fn lang_for(&self, root: Option<&str>) -> Lang {
        let Some(root) = root.map(PathBuf::from).filter(|p| p.is_absolute()) else {
            return self.server_lang();
        };
        let root: PathBuf = root.components().collect();
        let key = root.display().to_string();
        if !root.is_dir() || crate::registry::find(&self.env, &key).is_none() {
            return self.server_lang();
        }
        (self.workspace(&root)).map_or_else(|_| self.server_lang(), |ws| ws.lang())
    }

    pub fn mark(&self, root: &str, phase: Phase) {
        self.activity
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(root.to_string(), (phase, now_ms()));
    }

    pub fn activity(&self, root: &str) -> Option<(Phase, i64)> {
        self.activity
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(root)
            .copied()
    }

    /// Run a write of the panel's on `root`, with the status chip showing it.
    pub fn writing<T>(&self, root: &str, f: impl FnOnce() -> Result<T>) -> Result<T> {
        self.mark(root, Phase::Recording);
        let out = f();
        self.mark(root, Phase::Done);
        out
    }
}

pub(crate) fn now_ms() -> i64 {
    crate::base::clock::wall_ms() as i64
}

/// A failed request: status and the `{ error }` text.
#[derive(Debug)]
pub(crate) struct ApiError {
    pub status: u16,
    pub message: Said,
    /// More fields for the answer beside `error` (a conflict's `current`).
    pub extra: Option<serde_json::Map<String, Value>>,
}

impl ApiError {
    pub fn new(status: u16, message: impl Into<Said>) -> ApiError {
        ApiError {
            status,
            message: message.into(),
            extra: None,
        }
    }

    pub fn bad(message: impl Into<Said>) -> ApiError {
        ApiError::new(400, message)
    }
}

impl From<Error> for ApiError {
    fn from(e: Error) -> ApiError {
        ApiError::new(e.kind().http_status(), e.to_string())
    }
}

pub(crate) type ApiResult = std::result::Result<Value, ApiError>;

/// A JSON answer with the headers every answer carries.
fn json(status: u16, value: &Value) -> Response {
    let body = serde_json::to_string(value).unwrap_or_else(|_| "{}".into());
    let mut r = (
        StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
        body,
    )
        .into_response();
    let h = r.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json; charset=utf-8"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    r
}

fn error(status: u16, message: &str) -> Response {
    json(status, &serde_json::json!({ "error": message }))
}

/// A request as the endpoints see it.
pub(crate) struct Request {
    pub method: Method,
    /// The name after `/trilogy/`.
    pub name: String,
    pub query: HashMap<String, String>,
    pub body: Value,
}

impl Request {
    pub fn param(&self, key: &str) -> Option<&str> {
        self.query
            .get(key)
            .map(String::as_str)
            .filter(|v| !v.is_empty())
    }

    pub fn field(&self, key: &str) -> Option<&Value> {
        self.body.get(key).filter(|v| !v.is_null())
    }

    /// A whole-number query parameter in `range` (`default` when absent), or a 400 naming it.
    pub fn number(
        &self,
        key: &str,
        default: usize,
        range: std::ops::RangeInclusive<usize>,
    ) -> std::result::Result<usize, ApiError> {
        let Some(v) = self.param(key) else {
            return Ok(default);
        };
        match v.parse::<usize>() {
            Ok(n) if range.contains(&n) => Ok(n),
            _ if *range.end() == usize::MAX => Err(ApiError::bad(says(
                format!("{key} 必须是不小于 {} 的整数：{v}", range.start()),
                format!(
                    "{key} must be a whole number of at least {}: {v}",
                    range.start()
                ),
            ))),
            _ => Err(ApiError::bad(says(
                format!(
                    "{key} 必须是 {} 到 {} 之间的整数：{v}",
                    range.start(),
                    range.end()
                ),
                format!(
                    "{key} must be a whole number from {} to {}: {v}",
                    range.start(),
                    range.end()
                ),
            ))),
        }
    }

    pub fn str_field(&self, key: &str) -> Option<&str> {
        self.field(key)
            .and_then(Value::as_str)
            .filter(|v| !v.trim().is_empty())
    }
}

fn parse_query(query: Option<&str>) -> HashMap<String, String> {
    let mut out = HashMap::new();
    for kv in query.unwrap_or("").split('&').filter(|s| !s.is_empty()) {
        let (k, v) = kv.split_once('=').unwrap_or((kv, ""));
        let decode = |s: &str| {
            let s = s.replace('+', " ");
            percent_encoding::percent_decode_str(&s)
                .decode_utf8_lossy()
                .into_owned()
        };
        out.entry(decode(k)).or_insert_with(|| decode(v));
    }
    out
}

async fn dispatch(
    State(app): State<Arc<App>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: axum::body::Body,
) -> Response {
    if let Err(refusal) = fence::check(peer.ip(), &headers, &method, app.port, &app.token) {
        return error(403, &refusal.message(app.port).text(app.server_lang()));
    }
    // the body is read only once the fence let the request in, and never past the cap
    let said = (headers.get(header::CONTENT_LENGTH))
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if said.is_some_and(|n| n > BODY_LIMIT as u64) {
        return too_large(app.server_lang());
    }
    let body: Bytes = match axum::body::to_bytes(body, BODY_LIMIT).await {
        Ok(b) => b,
        Err(_) => return too_large(app.server_lang()),
    };
    let path = uri.path();
    if path == "/" || path == "/trilogy" {
        return assets::redirect("/trilogy/");
    }
    if path == "/favicon.ico" && matches!(method, Method::GET | Method::HEAD) {
        return assets::favicon();
    }
    let unknown = |path: &str| {
        let said = says(
            format!("未知端点：{path}"),
            format!("no such endpoint: {path}"),
        );
        error(404, &said.text(app.server_lang()))
    };
    let Some(name) = path.strip_prefix("/trilogy/") else {
        return unknown(path);
    };
    if matches!(method, Method::GET | Method::HEAD) {
        if name.is_empty() {
            return assets::page(uri.query(), &app.token);
        }
        if let Some(r) = assets::asset(name) {
            return r;
        }
    }
    if !api::is_endpoint(name)
        && !writes::is_endpoint(name)
        && !extra::is_endpoint(name)
        && !cards::is_endpoint(name)
        && !seen::is_endpoint(name)
        && !recall::is_endpoint(name)
    {
        return unknown(path);
    }
    let body = if body.iter().all(u8::is_ascii_whitespace) {
        Value::Object(Default::default())
    } else {
        match serde_json::from_slice::<Value>(&body) {
            Ok(v) => v,
            Err(e) => {
                let said = says(
                    format!("请求体不是 JSON：{e}"),
                    format!("the request body is not JSON: {e}"),
                );
                return error(400, &said.text(app.server_lang()));
            }
        }
    };
    let req = Request {
        method,
        name: name.to_string(),
        query: parse_query(uri.query()),
        body,
    };
    let app2 = app.clone();
    let answered = tokio::task::spawn_blocking(move || {
        let app = app2;
        let answer = api::route(&app, &req)
            .or_else(|| writes::route(&app, &req))
            .or_else(|| extra::route(&app, &req))
            .or_else(|| cards::route(&app, &req))
            .or_else(|| seen::route(&app, &req))
            .or_else(|| recall::route(&app, &req))
            .unwrap_or_else(|| {
                Err(ApiError::new(
                    404,
                    says(
                        format!("未知端点：/trilogy/{}", req.name),
                        format!("no such endpoint: /trilogy/{}", req.name),
                    ),
                ))
            });
        // an error is said in the language of the workspace the request names
        let lang = answer
            .is_err()
            .then(|| app.lang_for(req.param("root").or_else(|| req.str_field("root"))));
        (answer, lang.unwrap_or_default())
    })
    .await;
    match answered {
        Ok((Ok(v), _)) => json(200, &v),
        Ok((Err(e), lang)) => {
            let mut body = e.extra.unwrap_or_default();
            body.insert("error".into(), Value::String(e.message.text(lang)));
            json(e.status, &Value::Object(body))
        }
        Err(e) => error(500, &format!("internal error: {e}")),
    }
}

/// A body over [`BODY_LIMIT`].
fn too_large(lang: Lang) -> Response {
    let mib = BODY_LIMIT >> 20;
    let said = says(
        format!("请求体超过 {mib} MiB：请分批导入"),
        format!("the request body is over {mib} MiB: import in parts"),
    );
    error(413, &said.text(lang))
}

/// A method an endpoint does not take.
/// `allowed` is `GET`, `POST` or both as `GET|POST`.
pub(crate) fn wrong_method(req: &Request, allowed: &str) -> ApiError {
    let (zh, en) = match allowed.split_once('|') {
        Some((a, b)) => (format!("{a} 或 {b}"), format!("{a} or {b}")),
        None => (allowed.to_string(), allowed.to_string()),
    };
    ApiError::new(
        405,
        says(
            format!(
                "/trilogy/{} 只接受 {zh} 请求（收到 {}）",
                req.name, req.method
            ),
            format!(
                "/trilogy/{} takes only {en} requests (got {})",
                req.name, req.method
            ),
        ),
    )
}

/// `v` as a JSON answer.
pub(crate) fn to_json<T: serde::Serialize>(v: &T) -> ApiResult {
    serde_json::to_value(v).map_err(|e| ApiError::new(500, format!("internal error: json: {e}")))
}

/// A random per-launch token: 32 hex digits from the system's random source.
fn new_token() -> Result<String> {
    let bytes = crate::base::random::bytes::<16>().map_err(|e| Error::io("/dev/urandom", e))?;
    Ok(crate::base::hex::lower(&bytes))
}

/// Bind 127.0.0.1:`port`, call `announce` with the URL (the caller prints it), and serve
/// until Ctrl-C or SIGTERM.
pub fn serve(opts: Options, announce: impl FnOnce(&Launch) -> Result<()>) -> Result<()> {
    crate::log_to_stderr();
    let env = crate::base::env::snapshot();
    let cwd = std::env::current_dir().map_err(|e| Error::io(".", e))?;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Error::Internal(format!("tokio runtime: {e}")))?;
    let out = rt.block_on(async move {
        // loopback only, never every interface
        let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, opts.port));
        let listener = tokio::net::TcpListener::bind(addr).await.map_err(|e| {
            Error::bad_input(format!(
                "cannot listen on {addr}: {e}; choose another port with --port (0 picks a free one)"
            ))
        })?;
        let port = listener
            .local_addr()
            .map_err(|e| Error::Internal(format!("listener address: {e}")))?
            .port();
        let token = new_token()?;
        // listening for Ctrl-C and SIGTERM before the server says it is up: a stop sent the
        // moment it announced itself is a clean stop
        let stop_requested = crate::base::signal::stop_requests();
        let app = Arc::new(App {
            port,
            token: token.clone(),
            cwd,
            env,
            overrides: opts.overrides,
            workspaces: Mutex::new(HashMap::new()),
            activity: Mutex::new(HashMap::new()),
            lags: Default::default(),
            doctors: Arc::default(),
            indexings: Arc::default(),
        });
        api::seed(&app);
        let token_file = keep_token(&app.env, port, &token);
        announce(&Launch {
            url: format!("http://127.0.0.1:{port}/trilogy/?token={token}"),
            port,
            token,
            token_file: token_file.as_ref().map(|p| p.display().to_string()),
        })?;
        let router = axum::Router::new()
            .fallback(dispatch)
            .layer(DefaultBodyLimit::disable())
            .with_state(app);
        // on Ctrl-C or SIGTERM, requests under way get a second to finish, then the server
        // stops whatever a client is still doing
        let (stop, stopping) = tokio::sync::watch::channel(false);
        let mut stopped = stopping.clone();
        let mut cut = stopping;
        tokio::spawn(async move {
            stop_requested.await;
            let _ = stop.send(true);
        });
        let graceful = axum::serve(
            listener,
            router.into_make_service_with_connect_info::<SocketAddr>(),
        )
        .with_graceful_shutdown(async move {
            let _ = stopped.wait_for(|s| *s).await;
        });
        let served = tokio::select! {
            r = graceful => r.map_err(|e| Error::Internal(format!("http server: {e}"))),
            _ = async {
                let _ = cut.wait_for(|s| *s).await;
                tokio::time::sleep(std::time::Duration::from_secs(1)).await;
            } => Ok(()),
        };
        if let Some(f) = token_file {
            let _ = std::fs::remove_file(f);
        }
        served
    });
    // a request stuck in a blocking read does not hold the process past its stop
    rt.shutdown_timeout(std::time::Duration::from_millis(100));
    out
}

/// Keep the token where only this user can read it, for scripts on this machine
/// (`$XDG_STATE_HOME/trilogy/serve-<port>.token`, mode 0600), removed when the server stops.
/// Best effort: without a state folder, the printed URL is the only copy.
fn keep_token(env: &[(String, String)], port: u16, token: &str) -> Option<PathBuf> {
    let dir = crate::base::dirs::state(env)?;
    std::fs::create_dir_all(&dir).ok()?;
    let path = dir.join(format!("serve-{port}.token"));
    // private even over a file an earlier server on this port left
    use crate::base::write::{Whole, write_whole};
    write_whole(&path, format!("{token}\n").as_bytes(), Whole::Private).ok()?;
    Some(path)
}
