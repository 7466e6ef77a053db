//! `trilogy hook cursor <event>`: Cursor's hooks (cursor.com/docs/hooks), answered in Cursor's
//! format with the session rules every host shares. Cursor's input is snake_case: every event
//! carries `conversation_id` (the session; `sessionStart` and `sessionEnd` also send it as
//! `session_id`) and `workspace_roots`; `cwd` is absent at `sessionStart` and may be empty.
//!
//! | Cursor event | CLI name | what it does | answer |
//! |---|---|---|---|
//! | `sessionStart` | `session-start` | the block, once per session | `{"additional_context": …}` |
//! | `beforeSubmitPrompt` | `user-prompt-submit` | a new turn starts | `{"continue": true}` |
//! | `postToolUse` | `post-tool-use` | work or a record noted; what a prompt would get (reminder, notice of changes made elsewhere, the block when `sessionStart` was missed) | `{"additional_context": …}` or `{}` |
//! | `stop` | `stop` | a turn that worked and recorded nothing owes a reminder | `{}` |
//! | `sessionEnd` | `session-end` | the session is closed | `{}` |
//!
//! Cursor's `beforeSubmitPrompt` answer holds only `continue` and `user_message`: it cannot
//! give the model context, so what Claude Code's prompt hook appends comes with the turn's
//! first tool result instead. `stop` never answers a `followup_message`: that would submit a
//! message in the user's name (an extra turn). Whatever goes wrong, nothing is printed and a
//! line goes to `.trilogy/hooks.log`; Cursor then goes on (its hooks fail open).

use std::path::PathBuf;

use serde_json::{Value, json};

use super::{Reply, open_session, ready, str_field, tool_kind};
use crate::error::{Error, Result};
use crate::model::host::Host;
use crate::ops::agent::{self, Source, ToolKind};

/// The host's name in session records, the event log and the CLI.
const HOST: &str = Host::Cursor.as_str();

/// Events, by the names the CLI takes, and Cursor's own names for them.
pub const EVENTS: [(&str, &str); 5] = [
    ("session-start", "sessionStart"),
    ("user-prompt-submit", "beforeSubmitPrompt"),
    ("post-tool-use", "postToolUse"),
    ("stop", "stop"),
    ("session-end", "sessionEnd"),
];

/// The CLI name of `event` (Cursor's names are taken too).
fn event_name(event: &str) -> Option<&'static str> {
    EVENTS
        .iter()
        .find(|(ours, theirs)| *ours == event || *theirs == event)
        .map(|(ours, _)| *ours)
}

/// What a Cursor tool call means. Cursor's own tools are `Shell`, `Write`, `Read`, `Grep`, …;
/// an MCP tool is named by its tool name, so `memory_checkpoint` (ours, or the original
/// plugin's) is a record. Anything else is classified as every host's tools are.
fn cursor_tool(name: &str, input: &Value) -> ToolKind {
    let bare = name.rsplit([':', '_']).next().unwrap_or(name);
    if name.ends_with("memory_checkpoint") || bare == "checkpoint" && name.contains("trilogy") {
        return ToolKind::Record;
    }
    match name {
        "Shell" => tool_kind("Bash", input),
        "Write" | "Edit" | "StrReplace" | "MultiEdit" | "Delete" | "EditNotebook" => ToolKind::Work,
        _ => tool_kind(name, input),
    }
}

/// Run one Cursor hook event. Never fails: problems become a log line.
pub fn run(event: &str, stdin: &str, env: &[(String, String)], overrides: &[String]) -> Reply {
    let mut reply = Reply::default();
    if let Err(e) = handle(event, stdin, env, overrides, &mut reply) {
        reply.stdout.clear();
        if !matches!(e, Error::NoProject(_)) {
            reply.log = Some(format!("{HOST} {event}: {e}"));
        }
    }
    reply
}

fn context(text: Option<String>) -> String {
    match text {
        Some(t) => json!({ "additional_context": t }).to_string(),
        None => "{}".into(),
    }
}

fn handle(
    event: &str,
    stdin: &str,
    env: &[(String, String)],
    overrides: &[String],
    reply: &mut Reply,
) -> Result<()> {
    let Some(event) = event_name(event) else {
        let names: Vec<String> = EVENTS
            .iter()
            .map(|(ours, theirs)| format!("{ours} ({theirs})"))
            .collect();
        return Err(Error::bad_input(format!(
            "unknown event `{event}`; events: {}",
            names.join(", ")
        )));
    };
    let input: Value = serde_json::from_str(stdin)
        .map_err(|e| Error::bad_input(format!("stdin is not Cursor's hook JSON: {e}")))?;
    if !input.is_object() {
        return Err(Error::bad_input("stdin is not a JSON object"));
    }
    let id = str_field(&input, "conversation_id")
        .or_else(|| str_field(&input, "session_id"))
        .ok_or_else(|| Error::bad_input("no conversation_id in the hook input"))?;
    let root = input
        .get("workspace_roots")
        .and_then(Value::as_array)
        .and_then(|r| r.iter().find_map(Value::as_str))
        .filter(|r| !r.is_empty())
        .or_else(|| str_field(&input, "cwd"))
        .map(PathBuf::from)
        .or_else(|| crate::base::env::var(env, "CURSOR_PROJECT_DIR").map(PathBuf::from));
    let (ws, may_scaffold) = open_session(HOST, id, root, env, overrides, reply)?;
    if !ws.config.enabled {
        return Ok(());
    }
    match event {
        "session-start" => {
            if !ready(&ws, may_scaffold)? {
                return Ok(());
            }
            crate::registry::touch_quietly(env, &ws, false);
            if !ws.config.inject_on_session_start {
                return Ok(());
            }
            // Cursor says nothing of why a session starts: each one is a new conversation
            let inj = agent::inject(&ws, HOST, Some(id), Source::Startup, Host::Cursor.limits())?;
            reply.stdout = context(if inj.injected {
                Some(inj.block.text)
            } else {
                inj.notice
            });
        }
        "user-prompt-submit" => {
            if ws.has_memory() {
                agent::turn_began(&ws, HOST, id)?;
            }
            reply.stdout = json!({ "continue": true }).to_string();
        }
        "post-tool-use" => {
            if !ws.has_memory() {
                return Ok(());
            }
            let name = str_field(&input, "tool_name")
                .ok_or_else(|| Error::bad_input("no tool_name in postToolUse input"))?;
            let kind = cursor_tool(name, input.get("tool_input").unwrap_or(&Value::Null));
            agent::tool_used(&ws, HOST, id, kind)?;
            let owed = if ws.config.inject_on_session_start {
                agent::context_owed(&ws, HOST, id, Host::Cursor.limits())?
            } else {
                None
            };
            reply.stdout = context(owed);
        }
        "stop" => {
            if ws.has_memory() {
                agent::turn_ended(&ws, HOST, id, None)?;
            }
            reply.stdout = "{}".into();
        }
        "session-end" => {
            if ws.has_memory() {
                agent::session_ended(&ws, HOST, id)?;
            }
            reply.stdout = "{}".into();
        }
        _ => unreachable!("checked against EVENTS"),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursor_tools_are_classified() {
        let none = Value::Null;
        assert_eq!(cursor_tool("Write", &none), ToolKind::Work);
        assert_eq!(cursor_tool("StrReplace", &none), ToolKind::Work);
        assert_eq!(cursor_tool("Read", &none), ToolKind::Other);
        assert_eq!(cursor_tool("Grep", &none), ToolKind::Other);
        assert_eq!(cursor_tool("memory_checkpoint", &none), ToolKind::Record);
        assert_eq!(
            cursor_tool("MCP:memory_checkpoint", &none),
            ToolKind::Record
        );
        assert_eq!(cursor_tool("memory_search", &none), ToolKind::Other);
        let ls = json!({"command": "ls", "cwd": ""});
        assert_eq!(cursor_tool("Shell", &ls), ToolKind::Work);
        let rec = json!({"command": "trilogy checkpoint --session-done x"});
        assert_eq!(cursor_tool("Shell", &rec), ToolKind::Record);
    }

    #[test]
    fn both_spellings_of_an_event_are_taken() {
        assert_eq!(event_name("sessionStart"), Some("session-start"));
        assert_eq!(event_name("session-start"), Some("session-start"));
        assert_eq!(event_name("beforeSubmitPrompt"), Some("user-prompt-submit"));
        assert_eq!(event_name("preToolUse"), None);
    }

    #[test]
    fn bad_input_prints_nothing_and_logs() {
        for (event, stdin) in [
            ("sessionStart", "not json"),
            ("sessionStart", "[]"),
            ("sessionStart", r#"{"workspace_roots":["/"]}"#),
            (
                "nonsense",
                r#"{"conversation_id":"c","workspace_roots":["/"]}"#,
            ),
        ] {
            let r = run(event, stdin, &[], &[]);
            assert_eq!(r.stdout, "", "{event} {stdin}");
            assert!(r.log.is_some(), "{event} {stdin}");
        }
    }
}
