//! Cursor's hooks (cursor.com/docs/hooks): `trilogy hook cursor <event>`, answered in Cursor's
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

use crate::error::{Error, Result};
use crate::hooks::{Event, tool_kind};
use crate::ops::agent::ToolKind;

use super::{Call, Dialect, Said, str_field};

pub(super) struct Cursor;

/// Events, by the names the CLI takes, and Cursor's own names for them.
const EVENTS: [(Event, &str); 5] = [
    (Event::SessionStart, "sessionStart"),
    (Event::UserPromptSubmit, "beforeSubmitPrompt"),
    (Event::PostToolUse, "postToolUse"),
    (Event::Stop, "stop"),
    (Event::SessionEnd, "sessionEnd"),
];

impl Dialect for Cursor {
    /// Cursor's names are taken too.
    fn event(&self, name: &str) -> Option<Event> {
        EVENTS
            .iter()
            .find(|(ours, theirs)| ours.as_str() == name || *theirs == name)
            .map(|(ours, _)| *ours)
    }

    fn events(&self) -> String {
        let names: Vec<String> = EVENTS
            .iter()
            .map(|(ours, theirs)| format!("{} ({theirs})", ours.as_str()))
            .collect();
        names.join(", ")
    }

    fn read(
        &self,
        event: Event,
        stdin: &str,
        env: &[(String, String)],
        overrides: &[String],
    ) -> Result<Call> {
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
        // Cursor says nothing of why a session starts: each one is a new conversation
        let mut call = Call::new(id, root, overrides);
        if event == Event::PostToolUse {
            call.tools = str_field(&input, "tool_name")
                .map(|name| {
                    vec![cursor_tool(
                        name,
                        input.get("tool_input").unwrap_or(&Value::Null),
                    )]
                })
                .ok_or_else(|| Error::bad_input("no tool_name in postToolUse input"));
        }
        Ok(call)
    }

    fn answer(&self, event: Event, said: Said) -> Result<String> {
        let context = |text: Option<String>| match text {
            Some(t) => json!({ "additional_context": t }).to_string(),
            None => "{}".into(),
        };
        Ok(match (said, event) {
            (Said::Disabled, _) => String::new(),
            (_, Event::UserPromptSubmit) => json!({ "continue": true }).to_string(),
            (_, Event::Stop | Event::SessionEnd) => "{}".into(),
            (Said::Skipped, _) => String::new(),
            (Said::Context(text), _) => context(Some(text)),
            (_, _) => context(None),
        })
    }

    /// Its `beforeSubmitPrompt` answer holds only `continue` and `user_message`.
    fn prompt_context(&self) -> bool {
        false
    }
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
        assert_eq!(Cursor.event("sessionStart"), Some(Event::SessionStart));
        assert_eq!(Cursor.event("session-start"), Some(Event::SessionStart));
        assert_eq!(
            Cursor.event("beforeSubmitPrompt"),
            Some(Event::UserPromptSubmit)
        );
        assert_eq!(Cursor.event("preToolUse"), None);
    }

    #[test]
    fn answers_keep_cursors_forms() {
        let a = |e, s| Cursor.answer(e, s).unwrap();
        // off: nothing at all, even where Cursor waits for `continue`
        assert_eq!(a(Event::UserPromptSubmit, Said::Disabled), "");
        assert_eq!(a(Event::Stop, Said::Disabled), "");
        // the prompt always goes on; stop and the session's end always answer
        assert_eq!(
            a(Event::UserPromptSubmit, Said::Skipped),
            r#"{"continue":true}"#
        );
        assert_eq!(a(Event::Stop, Said::Skipped), "{}");
        assert_eq!(a(Event::SessionEnd, Said::Nothing), "{}");
        // no memory, or the block turned off: nothing; nothing to give: an empty answer
        assert_eq!(a(Event::SessionStart, Said::Skipped), "");
        assert_eq!(a(Event::PostToolUse, Said::Skipped), "");
        assert_eq!(a(Event::SessionStart, Said::Nothing), "{}");
        assert_eq!(a(Event::PostToolUse, Said::Nothing), "{}");
        assert_eq!(
            a(Event::PostToolUse, Said::Context("x".into())),
            r#"{"additional_context":"x"}"#
        );
    }
}
