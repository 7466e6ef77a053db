//! DeepSeek Harness: `trilogy hook dsh <event>`, the contract the DeepSeek Harness plugin (`templates/dsh/`) speaks,
//! one JSON object on stdin and one on stdout (`schema/dsh-hook.json`). The plugin reports
//! what it sees — the session, its working directory, the routed model's window, the copies
//! of the block on the surface, the tool calls since its last call — and does what the
//! answer says; every decision is made here, by the session rules every host shares.
//!
//! Events: `pre-step` (every model step, [`Event::Step`]; answers the messages to append and
//! the stale copies to replace), `turn-stopping` (the turn's end, [`Event::Stop`]: the reminder
//! for the next step) and `session-end`. Whatever goes wrong, the answer is `{}` and a line in `.trilogy/hooks.log`:
//! the harness awaits the pre-step, and a failure there must never cost the user's message.

use std::path::PathBuf;

use serde::Deserialize;
use serde_json::Value;

use crate::error::{Error, Result};
use crate::hooks::{Event, tool_kind};
use crate::ops::agent::ToolKind;
use crate::ops::surface::Surface;

use super::{Call, Dialect, Said, StepReport, Turn};

pub(super) struct Dsh;

/// Events, by the names the CLI takes.
const EVENTS: [(&str, Event); 3] = [
    ("pre-step", Event::Step),
    ("turn-stopping", Event::Stop),
    ("session-end", Event::SessionEnd),
];

impl Dialect for Dsh {
    fn event(&self, name: &str) -> Option<Event> {
        EVENTS.iter().find(|(n, _)| *n == name).map(|(_, e)| *e)
    }

    fn events(&self) -> String {
        EVENTS.map(|(n, _)| n).join(", ")
    }

    fn read(
        &self,
        _event: Event,
        stdin: &str,
        _env: &[(String, String)],
        extra: &[String],
    ) -> Result<Call> {
        let req: Request = serde_json::from_str(stdin)
            .map_err(|e| Error::bad_input(format!("stdin is not the plugin's JSON: {e}")))?;
        let mut call = Call::new(&req.session_id, req.cwd, &overrides(&req.config, extra));
        call.tools = Ok(kinds(&req.tools));
        call.turn = Turn::Reported {
            subagent: req.subagent,
        };
        call.window_tokens = req.context_window;
        call.step = Some(StepReport {
            turn: req.turn,
            step: req.step,
            subagent: req.subagent,
            surface: req.surface,
        });
        Ok(call)
    }

    fn answer(&self, _event: Event, said: Said) -> Result<String> {
        let answer = match said {
            Said::Step(answer) => {
                serde_json::to_value(answer).map_err(|e| Error::Internal(e.to_string()))?
            }
            Said::NudgeOwed(owed) => serde_json::json!({ "nudgeOwed": owed }),
            _ => serde_json::json!({}),
        };
        Ok(answer.to_string())
    }

    /// The harness awaits the pre-step: a failure answers `{}`.
    fn failed(&self) -> &'static str {
        "{}"
    }
}

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
