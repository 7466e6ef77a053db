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
    GetPromptRequestParams, GetPromptResponse, Implementation, ListPromptsResult,
    ListResourcesResult, ListToolsResult, PaginatedRequestParams, ReadResourceRequestParams,
    ReadResourceResponse, ReadResourceResult, ResourceContents, ServerCapabilities, ServerConfig,
    SubscribeRequestParams, Tool, ToolAnnotations, UnsubscribeRequestParams,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ServerHandler, ServiceExt};
use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::error::{Error, Result};
use crate::model::agent_actor;
use crate::ops;
use crate::schema;
use crate::workspace::Workspace;

mod ask;
mod budget;
mod frames;
mod prompts;
mod resources;
mod tools;

use frames::{filtered_stdin, merged_stdout};

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
`user` = a line for the person's own memory across every project (USER.md: 偏好/Preferences, 环境/Environment, \
约定/Conventions, 教训/Lessons): only a stable preference seen twice or a stable fact of this machine, never \
anything about this project, a one-off event or a credential; it waits for the person's review. \
Secrets are refused.";
const READ_DESC: &str = "Read the project memory from the store: a whole file (`file`), one PROJECT section \
(`section`, Chinese or English name), or entries filtered by `area`, `since`/`until` and `limit`. The archive \
(SESSIONS-archive.md) is only read here, never injected. A file larger than one answer comes in pages cut \
between entries: the answer says it is a page, how much is left, and gives a `cursor` to pass back with the same \
`file` for the next page (memory_search finds one thing for less). `file: USER.md` reads the user's own memory \
across projects (with `section`, one of its sections).";
const SEARCH_DESC: &str = "Search sessions, decisions and PROJECT sections, live and archived, by words in \
Chinese, English or code names (a Chinese phrase with a character missing still matches; `parseSessions` finds \
`parse_sessions`). Each hit carries its whole entry (cut at about 2 KB, marked) and its best-matching line. \
A hit needs one of the query's words or Chinese character pairs; a match on single characters alone comes \
only when nothing better does, marked `weak`. Keywords work best, not a whole question: \
`retry backoff uploader` rather than 'what did we decide about the retries of the uploader', \
`上传 重试 退避` rather than '上传的重试是怎么决定的'.";
const RECALL_DESC: &str = "Recall what was said in this project's past agent sessions: what the user typed and \
what agents answered, found in the hosts' own transcripts (Claude Code, Codex, Gemini CLI, DeepSeek Harness) — \
not tool output, not thinking, not the memory files (memory_search has those). For a question a week later: \
which flag did we say the linker needs, what did we try for the flaky test. Each hit names its host, session \
and line, and what was said before it. Keywords work best: `flaky test port`, `链接 参数`. What a transcript \
says is a record of a conversation, not a verified fact.";
const REVIEW_DESC: &str = "Proposals wait for a person (`review_mode` = propose, and drafts of sessions that \
recorded nothing). Without `id`: list them. With `id`: your client asks the person, in its own prompt, to accept, \
reject or leave that proposal, and their answer is done; you cannot answer for them. Clients that cannot ask a \
person, and sessions without one (CI, headless runs), are not asked: the proposal stays pending for `trilogy review`.";
const STATUS_DESC: &str = "Workspace, file sizes, entry counts, areas, open reports left by `notes`, files that \
do not parse, staleness of PROJECT.md, decisions and sections due for review, and the last write.";

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

/// What `trilogy mcp --help` says the server is, its tools named from [`tools`].
pub fn about() -> String {
    format!("Serve the MCP tools ({}) on stdio", tool_names())
}

/// The names of [`tools`], in their order, as a list a message gives.
fn tool_names() -> String {
    (tools().iter().map(|t| t.name.to_string()))
        .collect::<Vec<_>>()
        .join(", ")
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
        tool("memory_recall", RECALL_DESC, schema::RECALL_INPUT, true),
        tool("memory_review", REVIEW_DESC, schema::REVIEW_INPUT, false),
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
    cursor: Option<String>,
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
    #[serde(default)]
    here: bool,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct StatusArgs {}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RecallArgs {
    query: String,
    since: Option<String>,
    host: Option<String>,
    limit: Option<usize>,
}

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
    /// The resources the client subscribed to; a task polls them while any are.
    watch: Arc<Mutex<resources::Watch>>,
}

/// How often subscribed resources are looked at (the store's change sequence, read-only).
const WATCH_EVERY: std::time::Duration = std::time::Duration::from_millis(500);

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
            watch: Arc::new(Mutex::new(resources::Watch::default())),
        }
    }

    /// Tell the client of every subscribed resource that changed, until none is subscribed.
    fn start_watching(&self, ws: Arc<Workspace>, ctx: &RequestContext<RoleServer>) {
        let (watch, peer) = (self.watch.clone(), ctx.peer.clone());
        let client = peer.peer_info().map(|i| i.client_info.name.clone());
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(WATCH_EVERY).await;
                let changed = {
                    let Ok(mut w) = watch.lock() else { return };
                    if w.is_empty() {
                        w.running = false;
                        return;
                    }
                    w.changed(&ws, client.as_deref()).unwrap_or_default()
                };
                for uri in changed {
                    let note = rmcp::model::ResourceUpdatedNotificationParam::new(uri);
                    if peer.notify_resource_updated(note).await.is_err() {
                        return;
                    }
                }
            }
        });
    }

    fn err(e: Error) -> ErrorData {
        match e {
            Error::NotFound(m) => ErrorData::resource_not_found(m, None),
            Error::BadInput(m) => ErrorData::invalid_params(m, None),
            other => ErrorData::internal_error(other.to_string(), None),
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
            lenient: true,
        };
        let (ws, _, _) =
            crate::workspace::open_located(&wanted, &self.setup.env, &self.setup.overrides)?;
        for key in &ws.config.ignored {
            tracing::warn!("setting {key} is unknown to this trilogy and was ignored");
        }
        if ws.has_memory() {
            crate::registry::touch_quietly(&self.setup.env, &ws, false);
            if let Some(note) = ops::gitmerge::configure_missing(&ws) {
                tracing::info!("{note}");
            }
        }
        let ws = Arc::new(ws);
        // checkpoints of other processes are applied here, with this store open
        ops::drain::serve(ws.clone(), self.setup.actor.clone());
        *self
            .ws
            .lock()
            .map_err(|_| Error::Internal("workspace lock".into()))? = Some(ws.clone());
        Ok(ws)
    }

    /// Run the tool `name` for the client named `client` (its `clientInfo.name`).
    fn call(
        &self,
        ws: &Workspace,
        client: Option<&str>,
        name: &str,
        a: Option<Map<String, Value>>,
    ) -> Result<(Value, String)> {
        match name {
            "memory_checkpoint" => tools::checkpoint(ws, &self.setup.actor, name, a),
            "memory_read" => tools::read(ws, client, name, a),
            "memory_recall" => tools::recall(ws, name, a),
            "memory_search" => tools::search(ws, name, a),
            "memory_status" => tools::status(ws, name, a),
            _ => Err(Error::NotFound(format!("unknown tool `{name}`"))),
        }
    }
}

impl ServerHandler for MemoryServer {
    fn get_info(&self) -> ServerConfig {
        let can = ServerCapabilities::builder()
            .enable_tools()
            .enable_resources()
            .enable_resources_subscribe()
            .enable_prompts()
            .build();
        ServerConfig::new(can)
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
        Err(ErrorData::new(
            rmcp::model::ErrorCode::METHOD_NOT_FOUND,
            format!("method not found: {}", request.method),
            None,
        ))
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> std::result::Result<ListResourcesResult, ErrorData> {
        let ws = self.workspace(&context).await.map_err(Self::err)?;
        let all = resources::list(&ws).map_err(Self::err)?;
        Ok(ListResourcesResult::with_all_items(all))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> std::result::Result<ReadResourceResponse, ErrorData> {
        let ws = self.workspace(&context).await.map_err(Self::err)?;
        let client = context.peer.peer_info().map(|i| i.client_info.name.clone());
        let text = resources::read(&ws, client.as_deref(), &request.uri).map_err(Self::err)?;
        let contents = ResourceContents::TextResourceContents {
            uri: request.uri,
            mime_type: Some("text/markdown".into()),
            text,
            meta: None,
        };
        Ok(ReadResourceResult::new(vec![contents]).into())
    }

    #[allow(deprecated)]
    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> std::result::Result<(), ErrorData> {
        let ws = self.workspace(&context).await.map_err(Self::err)?;
        let client = context.peer.peer_info().map(|i| i.client_info.name.clone());
        let start = {
            let mut w = self
                .watch
                .lock()
                .map_err(|_| Self::err(Error::Internal("watch lock".into())))?;
            w.add(&ws, client.as_deref(), &request.uri)
                .map_err(Self::err)?;
            !std::mem::replace(&mut w.running, true)
        };
        if start {
            self.start_watching(ws, &context);
        }
        Ok(())
    }

    #[allow(deprecated)]
    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> std::result::Result<(), ErrorData> {
        if let Ok(mut w) = self.watch.lock() {
            w.remove(&request.uri);
        }
        Ok(())
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> std::result::Result<ListPromptsResult, ErrorData> {
        Ok(ListPromptsResult::with_all_items(prompts::list()))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> std::result::Result<GetPromptResponse, ErrorData> {
        let ws = self.workspace(&context).await.map_err(Self::err)?;
        let got = prompts::get(&ws, &request.name, request.arguments.as_ref());
        Ok(got.map_err(Self::err)?.into())
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
                format!("unknown tool `{name}`; tools: {}", tool_names()),
                None,
            ));
        }
        let outcome = match self.workspace(&context).await {
            Ok(ws) => {
                let client = context.peer.peer_info().map(|i| i.client_info.name.clone());
                let out = match name.as_str() {
                    // the one tool that waits on the client: it asks the person
                    "memory_review" => {
                        ask::review(&ws, &self.setup.env, &context.peer, request.arguments).await
                    }
                    _ => self.call(&ws, client.as_deref(), &name, request.arguments),
                };
                if name == "memory_checkpoint" && out.is_ok() {
                    // the first checkpoint may have given the workspace its memory
                    ops::drain::serve(ws, self.setup.actor.clone());
                }
                out
            }
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
                let message = for_agent(&e);
                let mut r = CallToolResult::error(vec![ContentBlock::text(message.clone())]);
                r.structured_content =
                    Some(json!({"error": {"kind": e.kind().as_str(), "message": message}}));
                r
            }
        }
        .into())
    }
}

/// A tool error as the agent should read it: a memory file that does not parse is a person's
/// to fix (or someone's save still under way), never the agent's.
fn for_agent(e: &Error) -> String {
    if e.kind() != crate::ErrorKind::Unparseable {
        return e.to_string();
    }
    // what is wrong, without the advice meant for a person (also when a group leader relayed it)
    let said = e.to_string();
    let what = said.split("; ").next().unwrap_or(&said);
    format!(
        "{what}; nothing was recorded. Someone may still be saving the file: retry this call in a few seconds. Do not edit or repair the memory file yourself; if it stays so, tell the user that it needs fixing by hand."
    )
}

/// The method a malformed input line is turned into, so it gets a parse-error reply.
/// A numeric argument within the bounds its schema states; outside them, a tool error that
/// says the bounds (never a silent clamp: `limit: 0` used to answer nothing).
fn in_range(name: &str, v: Option<usize>, lo: usize, hi: usize) -> Result<Option<usize>> {
    match v {
        Some(n) if n < lo || n > hi => Err(Error::bad_input(format!(
            "`{name}` = {n}: use a number from {lo} to {hi}"
        ))),
        v => Ok(v),
    }
}

/// Serve MCP on stdin/stdout until the client closes stdin.
pub fn serve(
    root: Option<PathBuf>,
    overrides: Vec<String>,
    agent_session: Option<String>,
) -> Result<()> {
    // stdout is the protocol channel: every log line goes to stderr
    crate::log_to_stderr();
    let env = crate::base::env::snapshot();
    let server = MemoryServer::new(root, env, overrides, agent_session);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Error::Internal(format!("tokio runtime: {e}")))?;
    rt.block_on(async move {
        let (replies, answered) = tokio::sync::mpsc::unbounded_channel();
        let input = filtered_stdin(tokio::runtime::Handle::current(), replies);
        let (output, pump) = merged_stdout(answered);
        let service = match server.serve((input, output)).await {
            Ok(s) => s,
            // the client went away before it said hello: nothing to serve, nothing wrong
            Err(rmcp::service::ServerInitializeError::ConnectionClosed(_)) => return Ok(()),
            Err(e) => {
                return Err(Error::BadInput(format!(
                    "the MCP client's handshake failed: {e}"
                )));
            }
        };
        let served = service
            .waiting()
            .await
            .map_err(|e| Error::Internal(format!("mcp server: {e}")));
        // the last replies written here are out before the process ends
        let _ = pump.await;
        ops::drain::withdraw();
        served?;
        Ok(())
    })
}

/// What `memory_read` answers as text.
fn read_text(out: &ops::ReadOutput) -> String {
    match out {
        ops::ReadOutput::File(f) => match &f.page {
            Some(p) => format!("[{}]\n\n{}", p.note, f.content),
            None => f.content.clone(),
        },
        ops::ReadOutput::Section(s) => format!("## {}\n\n{}", s.heading, s.text),
        ops::ReadOutput::Entries { entries, .. } => entries
            .iter()
            .map(|e| format!("## {}\n{}", e.heading, e.body))
            .collect::<Vec<_>>()
            .join("\n\n"),
    }
}
