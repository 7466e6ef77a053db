//! `trilogy hook dsh <event>`: the contract the DeepSeek Harness plugin (`templates/dsh/`) speaks,
//! one JSON object on stdin and one on stdout (`schema/dsh-hook.json`). The plugin reports
//! what it sees — the session, its working directory, the routed model's window, the copies
//! of the block on the surface, the tool calls since its last call — and does what the
//! answer says; every decision is made here, by the session rules every host shares.
//!
//! Events: `pre-step` (every model step; answers the messages to append and the stale
//! copies to replace), `turn-stopping` (the turn's end: the reminder for the next step) and
//! `session-end`. Whatever goes wrong, the answer is `{}` and a line in `.trilogy/hooks.log`:
//! the harness awaits the pre-step, and a failure there must never cost the user's message.

use std::path::PathBuf;

use serde::Deserialize;
use serde_json::Value;

use crate::error::{Error, Result};
use crate::model::host::{Host, HostLimits};
use crate::ops::agent::ToolKind;
use crate::ops::surface::{self, Step, Surface};

use super::{Reply, open_session, ready, tool_kind};

/// The host's name in session records and the event log.
const HOST: &str = Host::Dsh.as_str();

/// Events, by the names the CLI takes.
pub const EVENTS: [&str; 3] = ["pre-step", "turn-stopping", "session-end"];

/// One tool call the plugin saw finish.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Tool {
    name: String,
    #[serde(default)]
    input: Value,
    #[serde(default)]
    is_error: bool,
}

/// What the plugin sends, for every event (fields an event does not use may be absent).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Request {
    session_id: String,
    cwd: Option<PathBuf>,
    #[serde(default)]
    turn: u64,
    #[serde(default)]
    step: u64,
    #[serde(default)]
    subagent: bool,
    context_window: Option<u64>,
    /// The profile's `id: trilogy` row: the original's camelCase keys (others are the
    /// plugin's own and ignored here).
    #[serde(default)]
    config: serde_json::Map<String, Value>,
    #[serde(default)]
    surface: Surface,
    #[serde(default)]
    tools: Vec<Tool>,
}

/// The configuration keys of the profile's row, as `key=value` overrides.
fn overrides(config: &serde_json::Map<String, Value>, extra: &[String]) -> Vec<String> {
    let mut out: Vec<String> = config
        .iter()
        .filter(|(k, v)| crate::config::canonical_key(k).is_some() && !v.is_null())
        .map(|(k, v)| match v {
            Value::String(s) => format!("{k}={s}"),
            other => format!("{k}={other}"),
        })
        .collect();
    out.extend(extra.iter().cloned());
    out
}

fn kinds(tools: &[Tool]) -> Vec<ToolKind> {
    tools
        .iter()
        .map(|t| match tool_kind(&t.name, &t.input) {
            // a refused checkpoint recorded nothing; it was still work of a kind
            ToolKind::Record if t.is_error => ToolKind::Other,
            k => k,
        })
        .collect()
}

/// Run one event. Never fails: problems become a log line and the answer `{}`.
pub fn run(event: &str, stdin: &str, env: &[(String, String)], extra: &[String]) -> Reply {
    let mut reply = Reply::default();
    match handle(event, stdin, env, extra, &mut reply) {
        Ok(answer) => reply.stdout = answer.to_string(),
        Err(e) => {
            reply.stdout = "{}".into();
            if !matches!(e, crate::error::Error::NoProject(_)) {
                reply.log = Some(format!("{HOST} {event}: {e}"));
            }
        }
    }
    reply
}

fn handle(
    event: &str,
    stdin: &str,
    env: &[(String, String)],
    extra: &[String],
    reply: &mut Reply,
) -> Result<Value> {
    if !EVENTS.contains(&event) {
        return Err(Error::bad_input(format!(
            "unknown event `{event}`; events: {}",
            EVENTS.join(", ")
        )));
    }
    let req: Request = serde_json::from_str(stdin)
        .map_err(|e| Error::bad_input(format!("stdin is not the plugin's JSON: {e}")))?;
    let id = req.session_id.as_str();
    let (ws, may_scaffold) = open_session(
        HOST,
        id,
        req.cwd.clone(),
        env,
        &overrides(&req.config, extra),
        reply,
    )?;
    if !ws.config.enabled {
        return Ok(serde_json::json!({}));
    }
    match event {
        "pre-step" => {
            if !ready(&ws, may_scaffold)? {
                return Ok(serde_json::json!({}));
            }
            if req.step <= 1 && req.turn <= 1 {
                crate::registry::touch_both_quietly(env, &ws);
            }
            let step = Step {
                step: req.step,
                subagent: req.subagent,
                limits: HostLimits {
                    window_tokens: req.context_window,
                    ..HostLimits::default()
                },
                surface: req.surface,
                tools: kinds(&req.tools),
            };
            let answer = surface::step(&ws, HOST, id, &step)?;
            serde_json::to_value(answer).map_err(|e| Error::Internal(e.to_string()))
        }
        "turn-stopping" => {
            if !ws.has_memory() {
                return Ok(serde_json::json!({}));
            }
            let owed = surface::turn_stopping(&ws, HOST, id, &kinds(&req.tools), req.subagent)?;
            Ok(serde_json::json!({ "nudgeOwed": owed }))
        }
        "session-end" => {
            if ws.has_memory() {
                crate::ops::agent::session_ended(&ws, HOST, id)?;
            }
            Ok(serde_json::json!({}))
        }
        _ => unreachable!("checked against EVENTS"),
    }
}
