//! Host hooks: `trilogy hook <host> <event>` reads the host's JSON on stdin and answers in the
//! host's format. A hook never blocks the user and never breaks the host: whatever goes
//! wrong, it exits 0 with nothing on stdout (DeepSeek Harness: `{}`) and leaves one line in
//! `.trilogy/hooks.log`.
//!
//! One set of session rules ([`session`]) serves every host, event by event ([`Event`]: by
//! the names the CLI takes, `session-start`, `user-prompt-submit`, `post-tool-use`, `stop`,
//! `session-end`, `pre-compact`, and DeepSeek Harness's model step). How a host's JSON reads and how it
//! wants its answer is its dialect, one file each in [`dialect`] (Claude Code, Codex, Gemini
//! CLI, Cursor, DeepSeek Harness): adding a host is adding its [`Host`] variant and one
//! dialect file. This module only parses the event and turns failures into log lines; it
//! decides nothing about a session.

mod dialect;
pub mod input;
mod pinned;
mod session;
mod transcript;

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::error::Error;
use crate::model::host::Host;
use crate::ops::agent::ToolKind;

/// A hook event, as the session rules see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    /// A session starts, resumes, was cleared or compacted: the block.
    SessionStart,
    /// The user submitted a prompt: a new turn, and what it is owed (the reminder, notices).
    UserPromptSubmit,
    /// A tool call finished: work or a record noted.
    PostToolUse,
    /// The turn ended: a turn that worked and recorded nothing owes a reminder.
    Stop,
    /// The session ended.
    SessionEnd,
    /// The session's context is about to be compacted.
    PreCompact,
    /// A model step, for a host that reports each (DeepSeek Harness's `pre-step`).
    Step,
}

impl Event {
    /// The hook events, by the names the CLI takes, in their order.
    pub const HOOKS: [Event; 6] = [
        Event::SessionStart,
        Event::UserPromptSubmit,
        Event::PostToolUse,
        Event::Stop,
        Event::SessionEnd,
        Event::PreCompact,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Event::SessionStart => "session-start",
            Event::UserPromptSubmit => "user-prompt-submit",
            Event::PostToolUse => "post-tool-use",
            Event::Stop => "stop",
            Event::SessionEnd => "session-end",
            Event::PreCompact => "pre-compact",
            Event::Step => "pre-step",
        }
    }

    /// One of [`Event::HOOKS`] by its CLI name.
    pub fn parse(name: &str) -> Option<Event> {
        Event::HOOKS.into_iter().find(|e| e.as_str() == name)
    }
}

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

/// Run event `event` (as the command line names it) of `host` with the environment `env` and
/// the `key=value` config `overrides` of the command line (`--set`). Never fails: problems
/// become a log line.
pub fn run(
    host: Host,
    event: &str,
    stdin: &str,
    env: &[(String, String)],
    overrides: &[String],
) -> Reply {
    let mut reply = Reply::default();
    let Some(dialect) = dialect::of(host) else {
        reply.log = Some(format!("{} {event}: no hooks for this host", host.as_str()));
        return reply;
    };
    let answered = dialect
        .event(event)
        .ok_or_else(|| {
            Error::bad_input(format!(
                "unknown event `{event}`; events: {}",
                dialect.events()
            ))
        })
        .and_then(|e| {
            let call = dialect.read(e, stdin, env, overrides)?;
            let said = session::serve(host, dialect, e, call, env, &mut reply)?;
            dialect.answer(e, said)
        });
    match answered {
        Ok(answer) => reply.stdout = answer,
        Err(e) => {
            reply.stdout = dialect.failed().to_string();
            // a user-level hook that ran outside any project (the home folder): nothing to say
            if !matches!(e, Error::NoProject(_)) {
                reply.log = Some(format!("{} {event}: {e}", host.as_str()));
            }
        }
    }
    reply
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

    #[test]
    fn bad_cursor_input_prints_nothing_and_logs() {
        for (event, stdin) in [
            ("sessionStart", "not json"),
            ("sessionStart", "[]"),
            ("sessionStart", r#"{"workspace_roots":["/"]}"#),
            (
                "nonsense",
                r#"{"conversation_id":"c","workspace_roots":["/"]}"#,
            ),
        ] {
            let r = run(Host::Cursor, event, stdin, &[], &[]);
            assert_eq!(r.stdout, "", "{event} {stdin}");
            assert!(r.log.is_some(), "{event} {stdin}");
        }
    }

    #[test]
    fn an_unknown_event_names_the_hosts_own_list() {
        let stdin = r#"{"session_id":"s","conversation_id":"c","cwd":"/"}"#;
        for (host, list, out) in [
            (
                Host::Claude,
                "session-start, user-prompt-submit, post-tool-use, stop, session-end, pre-compact",
                "",
            ),
            (
                Host::Gemini,
                "session-start, user-prompt-submit, post-tool-use, stop, session-end, pre-compact",
                "",
            ),
            (
                Host::Cursor,
                "session-start (sessionStart), user-prompt-submit (beforeSubmitPrompt), post-tool-use (postToolUse), stop (stop), session-end (sessionEnd)",
                "",
            ),
            (Host::Dsh, "pre-step, turn-stopping, session-end", "{}"),
        ] {
            let r = run(host, "nonsense", stdin, &[], &[]);
            let want = format!(
                "{} nonsense: unknown event `nonsense`; events: {list}",
                host.as_str()
            );
            assert_eq!(r.log.as_deref(), Some(want.as_str()), "{host:?}");
            assert_eq!(r.stdout, out, "{host:?}");
        }
    }
}
