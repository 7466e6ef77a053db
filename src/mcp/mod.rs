//! `trilogy mcp`: the stdio MCP server (rmcp). The only module that names rmcp.
//!
//! Stdout carries protocol frames only; logs go to stderr. Tool failures are results with
//! `isError: true` and a message that says how to fix the call; unknown tools and malformed
//! requests are JSON-RPC errors. The store stays open between calls; no transaction is held
//! between requests, so other sessions and CLI commands keep working.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ErrorData,
    Implementation, ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig,
    Tool, ToolAnnotations,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ServerHandler, ServiceExt};
use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::error::{Error, Result};
use crate::index::{ArchiveMode, SearchQuery};
use crate::model::{FileKind, agent_actor};
use crate::ops::{self, EntryFilter, ReadTarget};
use crate::schema;
use crate::workspace::Workspace;

/// How long the server waits for a client to answer its roots request before falling back.
const ROOTS_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(3);

const INSTRUCTIONS: &str = "Project memory for this repository: memory/PROJECT.md (what the project is now), \
memory/DECISIONS.md (why), memory/SESSIONS.md (what happened). It is loaded at session start; \
use memory_search before re-deciding something, memory_read for a whole file or section, and \
memory_checkpoint to record what a future session would otherwise waste time rediscovering.";

const CHECKPOINT_DESC: &str = "Record what this session learned, in one call. Admission test for every line: \
would a future session waste time or repeat a mistake without it? If not, leave it out; recording nothing is fine. \
Routing: `project` = facts that change what the project is or how to run it (a section body via `text`, or one \
`line`, optionally replacing an exact existing line via `replaces`); `decisions` = a settled choice, what it \
rejected (`over`) and the constraint that forced it (`because`), newest on top, `supersedes` names an earlier one; \
`sessions` = what this session did and how it was verified (`done`), what is unfinished (`open`), the one next \
action (`next`), with an `area` from at most four. Dates are stamped by the tool. The only deletions are those \
paired replacements; anything that looks stale, duplicated or wrong goes to `notes` for the user, never deleted. \
Secrets are refused.";
const READ_DESC: &str = "Read the project memory from the store: a whole file (`file`), one PROJECT section \
(`section`, Chinese or English name), or entries filtered by `area`, `since`/`until` and `limit`. The archive \
(SESSIONS-archive.md) is only read here, never injected.";
const SEARCH_DESC: &str = "Search sessions, decisions and PROJECT sections, live and archived, by words in \
Chinese, English or code names (a Chinese phrase with a character missing still matches; `parseSessions` finds \
`parse_sessions`). Returns the best-matching line of each hit.";
const STATUS_DESC: &str = "Workspace, file sizes, entry counts, areas, open reports left by `notes`, files that \
do not parse, staleness of PROJECT.md, and the last write.";

/// A tool's input schema as clients get it: without `$id`, which a client compiling every
/// tool into one validator (Gemini CLI) sees twice and refuses, dropping the validation.
fn schema_object(text: &str) -> Arc<Map<String, Value>> {
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(mut m)) => {
            m.remove("$id");
            Arc::new(m)
        }
        // the schemas are compiled in and checked by tests
        _ => Arc::new(Map::new()),
    }
}

/// The tools, in a stable order.
pub fn tools() -> Vec<Tool> {
    let tool = |name: &'static str, desc: &'static str, schema: &str, read_only: bool| {
        let mut t = Tool::new(name, desc, schema_object(schema));
        let mut a = ToolAnnotations::default();
        a.read_only_hint = Some(read_only);
        a.destructive_hint = Some(false);
        a.idempotent_hint = Some(true);
        t.annotations = Some(a);
        t
    };
    vec![
        tool(
            "memory_checkpoint",
            CHECKPOINT_DESC,
            schema::CHECKPOINT_INPUT,
            false,
        ),
        tool("memory_read", READ_DESC, schema::READ_INPUT, true),
        tool("memory_search", SEARCH_DESC, schema::SEARCH_INPUT, true),
        tool("memory_status", STATUS_DESC, schema::STATUS_INPUT, true),
    ]
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ReadArgs {
    file: Option<String>,
    section: Option<String>,
    area: Option<String>,
    since: Option<String>,
    until: Option<String>,
    limit: Option<usize>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct SearchArgs {
    query: String,
    limit: Option<usize>,
    kind: Option<String>,
    area: Option<String>,
    since: Option<String>,
    until: Option<String>,
    archive: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct StatusArgs {}

fn args<T: for<'de> Deserialize<'de>>(tool: &str, a: Option<Map<String, Value>>) -> Result<T> {
    serde_json::from_value(Value::Object(a.unwrap_or_default())).map_err(|e| {
        Error::bad_input(format!(
            "{tool}: invalid arguments: {e}; see the tool's input schema"
        ))
    })
}

fn date(field: &str, v: &Option<String>) -> Result<Option<chrono::NaiveDate>> {
    v.as_deref()
        .map(|s| crate::model::parse_day(&format!("`{field}` ="), s))
        .transpose()
}

/// Where the server finds its workspace, and who it writes as.
struct Setup {
    root: Option<PathBuf>,
    env: Vec<(String, String)>,
    overrides: Vec<String>,
    actor: String,
}

/// The server.
#[derive(Clone)]
pub struct MemoryServer {
    setup: Arc<Setup>,
    ws: Arc<Mutex<Option<Arc<Workspace>>>>,
}

impl MemoryServer {
    pub fn new(
        root: Option<PathBuf>,
        env: Vec<(String, String)>,
        overrides: Vec<String>,
        agent_session: Option<String>,
    ) -> MemoryServer {
        let actor = agent_session
            .or_else(|| {
                env.iter()
                    .find(|(k, _)| k == "TRILOGY_AGENT_SESSION")
                    .map(|(_, v)| v.clone())
            })
            .map_or_else(|| "mcp".to_string(), |id| agent_actor(&id));
        MemoryServer {
            setup: Arc::new(Setup {
                root,
                env,
                overrides,
                actor,
            }),
            ws: Arc::new(Mutex::new(None)),
        }
    }

    /// The workspace, by the one rule (`workspace::locate`): `--root`, else the client's roots
    /// (the one holding memory) and the host's project directory, else memory found above the
    /// working directory. (Roots are deprecated by the newest protocol but are what hosts send
    /// today.)
    #[allow(deprecated)]
    async fn workspace(&self, ctx: &RequestContext<RoleServer>) -> Result<Arc<Workspace>> {
        if let Some(ws) = self
            .ws
            .lock()
            .map_err(|_| Error::Internal("workspace lock".into()))?
            .clone()
        {
            return Ok(ws);
        }
        // the client's roots (file URIs, percent-encoded), then the host's project directory
        let mut host: Vec<PathBuf> = Vec::new();
        if self.setup.root.is_none() {
            let wants_roots = ctx
                .peer
                .peer_info()
                .is_some_and(|info| info.capabilities.roots.is_some());
            if wants_roots {
                // a client that announces roots but never answers must not hang every call
                let asked = tokio::time::timeout(ROOTS_TIMEOUT, ctx.peer.list_roots()).await;
                if let Ok(Ok(roots)) = asked {
                    host.extend(
                        roots
                            .roots
                            .iter()
                            .filter_map(|r| crate::workspace::path_of_uri(&r.uri)),
                    );
                }
            }
        }
        host.extend(crate::workspace::host_dirs(&self.setup.env));
        let wanted = crate::workspace::Wanted {
            explicit: self.setup.root.as_deref(),
            host,
            cwd: None,
        };
        let (ws, _, _) =
            crate::workspace::open_located(&wanted, &self.setup.env, &self.setup.overrides)?;
        let ws = Arc::new(ws);
        *self
            .ws
            .lock()
            .map_err(|_| Error::Internal("workspace lock".into()))? = Some(ws.clone());
        Ok(ws)
    }

    fn call(
        &self,
        ws: &Workspace,
        name: &str,
        a: Option<Map<String, Value>>,
    ) -> Result<(Value, String)> {
        match name {
            "memory_checkpoint" => {
                let input: ops::CheckpointInput = args(name, a)?;
                let out = ops::checkpoint(ws, &self.setup.actor, &input)?.value;
                if !out.written.is_empty() {
                    // hosts without hooks re-read this file every turn
                    let file = std::path::Path::new(ops::block::DEFAULT_BLOCK_FILE);
                    if let Err(e) = ops::block::refresh_if_present(ws, file) {
                        tracing::warn!(error = %e, "could not refresh the memory block");
                    }
                }
                let text = out.summary.clone();
                Ok((serde_json::to_value(&out).unwrap_or(Value::Null), text))
            }
            "memory_read" => {
                let r: ReadArgs = args(name, a)?;
                let file = r
                    .file
                    .as_deref()
                    .map(|f| {
                        FileKind::from_name(f).ok_or_else(|| {
                            Error::bad_input(format!(
                                "`file` = `{f}`: use PROJECT.md, DECISIONS.md, SESSIONS.md or SESSIONS-archive.md"
                            ))
                        })
                    })
                    .transpose()?;
                let filtered =
                    r.area.is_some() || r.since.is_some() || r.until.is_some() || r.limit.is_some();
                let target = if let Some(s) = r.section {
                    ReadTarget::Section(s)
                } else if filtered || file.is_none() {
                    ReadTarget::Entries(EntryFilter {
                        file: file.unwrap_or(FileKind::Sessions),
                        area: r.area,
                        since: date("since", &r.since)?,
                        until: date("until", &r.until)?,
                        limit: r.limit.unwrap_or(15).min(200),
                    })
                } else {
                    ReadTarget::File(file.unwrap_or(FileKind::Project))
                };
                let out = ops::read(ws, &target)?.value;
                let text = match &out {
                    ops::ReadOutput::File(f) => f.content.clone(),
                    ops::ReadOutput::Section(s) => format!("## {}\n\n{}", s.heading, s.text),
                    ops::ReadOutput::Entries { entries, .. } => entries
                        .iter()
                        .map(|e| format!("## {}\n{}", e.heading, e.body))
                        .collect::<Vec<_>>()
                        .join("\n\n"),
                };
                Ok((serde_json::to_value(&out).unwrap_or(Value::Null), text))
            }
            "memory_search" => {
                let s: SearchArgs = args(name, a)?;
                let q = SearchQuery {
                    text: s.query,
                    limit: s.limit.unwrap_or(0),
                    kind: s.kind,
                    area: s.area,
                    since: date("since", &s.since)?,
                    until: date("until", &s.until)?,
                    archive: match s.archive.as_deref() {
                        None | Some("include") => ArchiveMode::Include,
                        Some("exclude") => ArchiveMode::Exclude,
                        Some("only") => ArchiveMode::Only,
                        Some(x) => {
                            return Err(Error::bad_input(format!(
                                "`archive` = `{x}`: use include, exclude or only"
                            )));
                        }
                    },
                };
                let out = ops::search::search(ws, q)?;
                let text = if out.hits.is_empty() {
                    "no match".to_string()
                } else {
                    out.hits
                        .iter()
                        .map(|h| format!("{} · {}\n{}", h.file, h.heading, h.snippet))
                        .collect::<Vec<_>>()
                        .join("\n\n")
                };
                Ok((serde_json::to_value(&out).unwrap_or(Value::Null), text))
            }
            "memory_status" => {
                let _: StatusArgs = args(name, a)?;
                let s = ops::status(ws)?;
                let text = format!(
                    "{} · sessions {} live, {} archived · decisions {} · open reports {}{}",
                    s.root,
                    s.sessions_live,
                    s.sessions_archived,
                    s.decisions,
                    s.open_reports.len(),
                    if s.unparseable.is_empty() {
                        ""
                    } else {
                        " · a memory file does not parse"
                    }
                ) + if s.stale.is_some() {
                    " · PROJECT.md may be stale"
                } else {
                    ""
                };
                Ok((serde_json::to_value(&s).unwrap_or(Value::Null), text))
            }
            _ => Err(Error::NotFound(format!("unknown tool `{name}`"))),
        }
    }
}

impl ServerHandler for MemoryServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("trilogy", env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> std::result::Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(tools()))
    }

    async fn on_custom_request(
        &self,
        request: rmcp::model::CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> std::result::Result<rmcp::model::CustomResult, ErrorData> {
        if request.method == PARSE_ERROR_METHOD {
            return Err(ErrorData::new(
                rmcp::model::ErrorCode::PARSE_ERROR,
                "parse error: a line was not a JSON-RPC message; send one JSON object per line",
                request.params,
            ));
        }
        if request.method == INVALID_PARAMS_METHOD {
            return Err(ErrorData::new(
                rmcp::model::ErrorCode::INVALID_PARAMS,
                "invalid params: a string holds a lone UTF-16 surrogate (a \\ud800–\\udfff escape without its pair); send valid Unicode text",
                request.params,
            ));
        }
        Err(ErrorData::new(
            rmcp::model::ErrorCode::METHOD_NOT_FOUND,
            format!("method not found: {}", request.method),
            None,
        ))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        tools().into_iter().find(|t| t.name == name)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> std::result::Result<CallToolResponse, ErrorData> {
        let name = request.name.to_string();
        if !tools().iter().any(|t| t.name == name) {
            return Err(ErrorData::invalid_params(
                format!(
                    "unknown tool `{name}`; tools: memory_checkpoint, memory_read, memory_search, memory_status"
                ),
                None,
            ));
        }
        let outcome = match self.workspace(&context).await {
            Ok(ws) => self.call(&ws, &name, request.arguments),
            Err(e) => Err(e),
        };
        Ok(match outcome {
            Ok((structured, text)) => {
                let mut r = CallToolResult::structured(structured);
                r.content = vec![ContentBlock::text(text)];
                r
            }
            Err(e) => {
                tracing::warn!(tool = %name, error = %e, "tool call failed");
                let mut r = CallToolResult::error(vec![ContentBlock::text(e.to_string())]);
                r.structured_content =
                    Some(json!({"error": {"kind": e.kind().as_str(), "message": e.to_string()}}));
                r
            }
        }
        .into())
    }
}

/// The method a malformed input line is turned into, so it gets a parse-error reply.
const PARSE_ERROR_METHOD: &str = "trilogy/parse-error";

/// The method a request holding a lone UTF-16 surrogate is turned into, so it gets an
/// invalid-params reply under its own id.
const INVALID_PARAMS_METHOD: &str = "trilogy/invalid-params";

/// `text` with every `\uXXXX` escape of a lone UTF-16 surrogate (one not in a high–low pair)
/// replaced by `\ufffd`; `None` when there is none. serde_json refuses such strings, so a
/// request holding one could not otherwise be read far enough to find its id.
fn replace_lone_surrogates(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let hex = |at: usize| -> Option<u16> {
        let h = text.get(at..at + 4)?;
        h.bytes()
            .all(|c| c.is_ascii_hexdigit())
            .then(|| u16::from_str_radix(h, 16).ok())
            .flatten()
    };
    let (mut out, mut copied, mut i) = (String::new(), 0, 0);
    while i < bytes.len() {
        if bytes[i] != b'\\' {
            i += 1;
            continue;
        }
        // an escape: `\\` and `\"` are skipped whole, so an escaped backslash is never read as
        // the start of `\u`
        let Some(unit) = (bytes.get(i + 1) == Some(&b'u'))
            .then(|| hex(i + 2))
            .flatten()
        else {
            i += 2;
            continue;
        };
        let end = i + 6;
        let paired = (0xD800..=0xDBFF).contains(&unit)
            && text.get(end..end + 2) == Some("\\u")
            && hex(end + 2).is_some_and(|low| (0xDC00..=0xDFFF).contains(&low));
        if paired {
            i = end + 6;
        } else if (0xD800..=0xDFFF).contains(&unit) {
            out.push_str(&text[copied..i]);
            out.push_str("\\ufffd");
            copied = end;
            i = end;
        } else {
            i = end;
        }
    }
    if copied == 0 {
        return None;
    }
    out.push_str(&text[copied..]);
    Some(out)
}

/// For a line that is JSON but for lone surrogates: `Some(Some(frame))` asking for an
/// invalid-params reply under the request's id, `Some(None)` for a notification (nothing to
/// answer), `None` when the line is not a request even so.
fn lone_surrogate_frame(line: &str) -> Option<Option<String>> {
    let v: Value = serde_json::from_str(&replace_lone_surrogates(line)?).ok()?;
    let method = v.get("method")?.as_str()?.to_string();
    match v.get("id") {
        None => Some(None),
        Some(id) if id.is_string() || id.is_number() => Some(Some(
            json!({"jsonrpc": "2.0", "id": id, "method": INVALID_PARAMS_METHOD, "params": {"method": method}})
                .to_string(),
        )),
        Some(_) => None,
    }
}

/// Read stdin line by line on a thread and pass each frame on; a line that is not JSON becomes
/// a request for [`PARSE_ERROR_METHOD`], so the client hears about it and the server lives on,
/// and a request that is JSON but for a lone surrogate becomes one for [`INVALID_PARAMS_METHOD`]
/// under its own id.
fn filtered_stdin(handle: tokio::runtime::Handle) -> tokio::io::DuplexStream {
    use std::io::BufRead;
    use tokio::io::AsyncWriteExt;
    let (mut tx, rx) = tokio::io::duplex(1 << 20);
    std::thread::spawn(move || {
        let mut stdin = std::io::stdin().lock();
        let mut buf = Vec::new();
        let mut bad = 0u64;
        loop {
            buf.clear();
            match stdin.read_until(b'\n', &mut buf) {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
            let line = String::from_utf8_lossy(&buf);
            let trimmed = line.trim();
            if trimmed.is_empty() {
                continue;
            }
            let utf8 = std::str::from_utf8(&buf).is_ok();
            let frame = if utf8 && serde_json::from_str::<Value>(trimmed).is_ok() {
                trimmed.to_string()
            } else if let Some(answer) = utf8.then(|| lone_surrogate_frame(trimmed)).flatten() {
                match answer {
                    Some(frame) => frame,
                    None => {
                        tracing::warn!("ignoring a notification holding a lone surrogate");
                        continue;
                    }
                }
            } else {
                bad += 1;
                tracing::warn!("ignoring a line that is not JSON");
                let shown: String = trimmed.chars().take(200).collect();
                json!({"jsonrpc": "2.0", "id": format!("trilogy-parse-error-{bad}"), "method": PARSE_ERROR_METHOD, "params": {"line": shown}})
                    .to_string()
            };
            let sent = handle.block_on(async {
                tx.write_all(frame.as_bytes()).await?;
                tx.write_all(b"\n").await
            });
            if sent.is_err() {
                break;
            }
        }
        let _ = handle.block_on(tx.shutdown());
    });
    rx
}

/// Serve MCP on stdin/stdout until the client closes stdin.
pub fn serve(
    root: Option<PathBuf>,
    overrides: Vec<String>,
    agent_session: Option<String>,
) -> Result<()> {
    // stdout is the protocol channel: every log line goes to stderr
    let filter = tracing_subscriber::EnvFilter::try_from_env("TRILOGY_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    let _ = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(filter)
        .try_init();
    let env: Vec<(String, String)> = std::env::vars().collect();
    let server = MemoryServer::new(root, env, overrides, agent_session);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Error::Internal(format!("tokio runtime: {e}")))?;
    rt.block_on(async move {
        let input = filtered_stdin(tokio::runtime::Handle::current());
        let service = server
            .serve((input, tokio::io::stdout()))
            .await
            .map_err(|e| Error::Internal(format!("mcp handshake: {e}")))?;
        service
            .waiting()
            .await
            .map_err(|e| Error::Internal(format!("mcp server: {e}")))?;
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_lone_surrogates_are_replaced() {
        let r = |t: &str| replace_lone_surrogates(t);
        assert_eq!(r(r#"{"a":"\ud800"}"#).as_deref(), Some(r#"{"a":"\ufffd"}"#));
        assert_eq!(
            r(r#"["\udc00x\ud83d"]"#).as_deref(),
            Some(r#"["\ufffdx\ufffd"]"#)
        );
        // a pair, an escaped backslash before `ud800`, and plain escapes stay
        assert_eq!(r(r#"["\ud83d\ude00","\\ud800","\u0041\n"]"#), None);
        assert_eq!(r(r#"["\\\ud800"]"#).as_deref(), Some(r#"["\\\ufffd"]"#));
        // a truncated escape is left to the JSON parser
        assert_eq!(r(r#"["\ud8"#), None);
    }
}
