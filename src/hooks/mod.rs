//! Host hooks: `trilogy hook claude|codex|gemini <event>` reads the host's JSON on stdin and
//! answers in the host's format. A hook never blocks the user and never breaks the host:
//! whatever goes wrong, it exits 0 with nothing on stdout and leaves one line in
//! `.trilogy/hooks.log`.
//!
//! The events, by the names the CLI takes and the hosts' own: `session-start` (SessionStart
//! everywhere), `user-prompt-submit` (UserPromptSubmit; Gemini's BeforeAgent),
//! `post-tool-use` (PostToolUse; Gemini's AfterTool), `stop` (Stop; Gemini's AfterAgent) and
//! `session-end` (SessionEnd). Gemini has no event after a compression (its PreCompress fires
//! before every compression check, compressed or not), so there the block does not come back
//! after one; and a Gemini session resumed does not hold the context its first SessionStart
//! gave (measured with 0.61.0), so a resume gets the whole block again.
//!
//! Cursor speaks its own format (snake_case input, camelCase events, flat answers): it has
//! its own adapter, [`cursor`], on the same session rules.

pub mod cursor;
pub mod dsh;
pub mod input;
mod transcript;

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::error::{Error, Result};
use crate::model::host::Host;
use crate::ops::agent::{self, Source, ToolKind};
use crate::workspace::Workspace;

mod pinned;

/// The host's name for the event whose context an answer carries.
fn event_name(host: Host, event: &str) -> &'static str {
    match (host, event) {
        (_, "session-start") => "SessionStart",
        (Host::Gemini, _) => "BeforeAgent",
        _ => "UserPromptSubmit",
    }
}

/// Hook events, by the names the CLI takes.
pub const EVENTS: [&str; 5] = [
    "session-start",
    "user-prompt-submit",
    "post-tool-use",
    "stop",
    "session-end",
];

/// What a hook run printed and logged.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reply {
    /// Exactly what goes to stdout (empty: nothing).
    pub stdout: String,
    /// A line for the hook log, when something was off.
    pub log: Option<String>,
    /// Workspace root, when one was found (where the log goes).
    pub root: Option<PathBuf>,
}

fn context_json(event: &str, text: &str) -> String {
    serde_json::json!({
        "hookSpecificOutput": {
            "hookEventName": event,
            "additionalContext": text,
        }
    })
    .to_string()
}

/// Classify a tool call for work detection. MCP tools are `mcp__<server>__<tool>` in Claude
/// Code, Codex and DeepSeek Harness, `mcp_<server>_<tool>` in Gemini CLI; DeepSeek Harness's
/// own tools are lowercase (`edit`, `write`, `bash`, `str_replace_editor`; `read`, `grep`,
/// `glob` and the web tools change nothing).
pub fn tool_kind(name: &str, input: &Value) -> ToolKind {
    let ours = name.starts_with("mcp_") && name.contains("trilogy");
    if ours && name.ends_with("memory_checkpoint") {
        return ToolKind::Record;
    }
    match name {
        "Bash" | "bash" | "PowerShell" | "shell" | "exec_command" | "run_shell_command" => {
            let cmd = input
                .get("command")
                .map(|c| c.to_string())
                .unwrap_or_default();
            if cmd.contains("trilogy checkpoint") || cmd.contains("trilogy\",\"checkpoint") {
                ToolKind::Record
            } else {
                ToolKind::Work
            }
        }
        "Edit" | "Write" | "NotebookEdit" | "MultiEdit" | "apply_patch" | "write_file"
        | "replace" | "edit" | "write" | "str_replace_editor" => ToolKind::Work,
        _ => ToolKind::Other,
    }
}

fn str_field<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str).filter(|s| !s.is_empty())
}

/// Run one hook event with the environment `env` and the `key=value` config `overrides` of
/// the command line (`--set`). Never fails: problems become a log line.
pub fn run(
    host: Host,
    event: &str,
    stdin: &str,
    env: &[(String, String)],
    overrides: &[String],
) -> Reply {
    match host {
        Host::Cursor => return cursor::run(event, stdin, env, overrides),
        Host::Dsh => return dsh::run(event, stdin, env, overrides),
        _ => {}
    }
    let mut reply = Reply::default();
    if let Err(e) = handle(host, event, stdin, env, overrides, &mut reply) {
        reply.stdout.clear();
        // a user-level hook that ran outside any project (the home folder): nothing to say
        if !matches!(e, Error::NoProject(_)) {
            reply.log = Some(format!("{} {event}: {e}", host.as_str()));
        }
    }
    reply
}

fn handle(
    host: Host,
    event: &str,
    stdin: &str,
    env: &[(String, String)],
    overrides: &[String],
    reply: &mut Reply,
) -> Result<()> {
    if !EVENTS.contains(&event) {
        return Err(Error::bad_input(format!(
            "unknown event `{event}`; events: {}",
            EVENTS.join(", ")
        )));
    }
    let input: Value = serde_json::from_str(stdin)
        .map_err(|e| Error::bad_input(format!("stdin is not the host's JSON: {e}")))?;
    if !input.is_object() {
        return Err(Error::bad_input("stdin is not a JSON object"));
    }
    let id = str_field(&input, "session_id")
        .ok_or_else(|| Error::bad_input("no session_id in the hook input"))?;
    let (ws, may_scaffold) = open_session(
        host.as_str(),
        id,
        str_field(&input, "cwd").map(PathBuf::from),
        env,
        overrides,
        reply,
    )?;
    if !ws.config.enabled {
        return Ok(());
    }
    let limits = host.limits();
    let h = host.as_str();
    match event {
        "session-start" => {
            if !ready(&ws, may_scaffold)? {
                return Ok(());
            }
            crate::registry::touch_quietly(env, &ws, false);
            if !ws.config.inject_on_session_start {
                return Ok(());
            }
            let source = str_field(&input, "source")
                .and_then(Source::parse)
                .unwrap_or(Source::Startup);
            let inj = agent::inject(&ws, h, Some(id), source, limits)?;
            let name = event_name(host, event);
            if inj.injected {
                reply.stdout = context_json(name, &inj.block.text);
            } else if let Some(notice) = &inj.notice {
                reply.stdout = context_json(name, notice);
            }
        }
        "user-prompt-submit" => {
            if !ws.has_memory() || !ws.config.inject_on_session_start {
                return Ok(());
            }
            if let Some(text) = agent::prompt_submitted(&ws, h, id, limits)? {
                reply.stdout = context_json(event_name(host, event), &text);
            }
        }
        "post-tool-use" => {
            if !ws.has_memory() {
                return Ok(());
            }
            let name = str_field(&input, "tool_name")
                .ok_or_else(|| Error::bad_input("no tool_name in PostToolUse input"))?;
            let kind = tool_kind(name, input.get("tool_input").unwrap_or(&Value::Null));
            agent::tool_used(&ws, h, id, kind)?;
        }
        "stop" => {
            if !ws.has_memory() {
                return Ok(());
            }
            let facts = match (host, str_field(&input, "transcript_path")) {
                (Host::Claude, Some(p)) => transcript::last_turn(Path::new(p)),
                _ => None,
            };
            agent::turn_ended(&ws, h, id, facts)?;
        }
        "session-end" => {
            if ws.has_memory() {
                agent::session_ended(&ws, h, id)?;
            }
        }
        _ => unreachable!("checked against EVENTS"),
    }
    Ok(())
}

/// Open the workspace of session `id` of `host`, whose working directory is `cwd`, and say
/// whether memory may be scaffolded there. A session keeps the workspace of its first hook:
/// an agent that `cd`s elsewhere does not move its memory.
pub(crate) fn open_session(
    host: &str,
    id: &str,
    cwd: Option<PathBuf>,
    env: &[(String, String)],
    overrides: &[String],
    reply: &mut Reply,
) -> Result<(Workspace, bool)> {
    let host_dirs = crate::workspace::host_dirs(env);
    // `<ws>/../other` is `other`, whatever folders its parts name on the way
    let cwd = cwd
        .or_else(|| host_dirs.first().cloned())
        .map(|c| crate::workspace::lexical(&c))
        .ok_or_else(|| Error::bad_input("no cwd in the hook input"))?;
    let fixed = pinned::root(env, host, id);
    if fixed.is_none() && !cwd.is_dir() {
        return Err(Error::bad_input(format!(
            "cwd {} is not a directory",
            cwd.display()
        )));
    }
    let wanted = crate::workspace::Wanted {
        explicit: fixed.as_deref(),
        host: host_dirs,
        cwd: Some(&cwd),
        lenient: true,
    };
    let (ws, _, located) = crate::workspace::open_located(&wanted, env, overrides)?;
    reply.root = Some(ws.root.clone());
    let home = crate::base::dirs::home(env);
    let may_scaffold = located.may_scaffold(home.as_deref());
    if fixed.is_none() && (ws.has_memory() || may_scaffold) {
        pinned::pin(env, host, id, &ws.root);
    }
    Ok((ws, may_scaffold))
}

/// Make sure the workspace has memory, scaffolding it when configured and when the folder is
/// a project's root (never a folder a user-scope hook happened to run in, such as `$HOME`).
pub(crate) fn ready(ws: &Workspace, may_scaffold: bool) -> Result<bool> {
    if ws.has_memory() {
        return Ok(true);
    }
    if !ws.config.auto_scaffold || !may_scaffold {
        return Ok(false);
    }
    crate::ops::init(ws)?;
    Ok(true)
}

/// Append a line to the workspace's hook log (best effort).
pub fn write_log(root: Option<&Path>, line: &str) {
    use std::io::Write;
    let Some(root) = root else { return };
    // the log is never written through a link out of the workspace (a cloned repository could
    // commit `.trilogy/hooks.log → ~/.bashrc`), nor through any link at its last step
    let Ok(log) = crate::workspace::beneath(root, &root.join(".trilogy").join("hooks.log")) else {
        return;
    };
    if !log.parent().is_some_and(Path::is_dir) {
        return;
    }
    let stamp = chrono::Local::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, false);
    // never waiting on a FIFO left there, and writing into nothing but a regular file
    if let Ok(mut f) = crate::base::fence::open_append_here(&log) {
        let _ = writeln!(f, "{stamp} {line}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tools_are_classified() {
        let none = Value::Null;
        assert_eq!(tool_kind("Edit", &none), ToolKind::Work);
        assert_eq!(tool_kind("apply_patch", &none), ToolKind::Work);
        assert_eq!(tool_kind("Read", &none), ToolKind::Other);
        assert_eq!(
            tool_kind("mcp__trilogy__memory_checkpoint", &none),
            ToolKind::Record
        );
        assert_eq!(
            tool_kind("mcp__plugin_trilogy_memory__memory_checkpoint", &none),
            ToolKind::Record
        );
        assert_eq!(
            tool_kind("mcp__trilogy__memory_search", &none),
            ToolKind::Other
        );
        assert_eq!(
            tool_kind("mcp_trilogy_memory_checkpoint", &none),
            ToolKind::Record
        );
        assert_eq!(tool_kind("mcp_trilogy_memory_read", &none), ToolKind::Other);
        assert_eq!(tool_kind("write_file", &none), ToolKind::Work);
        assert_eq!(
            tool_kind("run_shell_command", &serde_json::json!({"command": "ls"})),
            ToolKind::Work
        );
        let cmd = serde_json::json!({"command": "trilogy checkpoint --session-done x"});
        assert_eq!(tool_kind("Bash", &cmd), ToolKind::Record);
        assert_eq!(
            tool_kind("Bash", &serde_json::json!({"command": "cargo test"})),
            ToolKind::Work
        );
    }

    #[test]
    fn bad_input_prints_nothing_and_logs() {
        for (event, stdin) in [
            ("session-start", "not json"),
            ("session-start", "[]"),
            ("session-start", "{}"),
            ("session-start", r#"{"session_id":"s"}"#),
            ("nonsense", r#"{"session_id":"s","cwd":"/"}"#),
        ] {
            let r = run(Host::Claude, event, stdin, &[], &[]);
            assert_eq!(r.stdout, "", "{event} {stdin}");
            assert!(r.log.is_some(), "{event} {stdin}");
        }
    }
}
