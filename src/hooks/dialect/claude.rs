//! Claude Code's hook JSON, which Codex and Gemini CLI speak too: snake_case input
//! (`session_id`, `cwd`, `source`, `tool_name`, `tool_input`, `transcript_path`) and an
//! answer of `{"hookSpecificOutput": {"hookEventName", "additionalContext"}}`, or nothing.
//! Claude Code's own part: its transcript tells a turn's tools when no tool hook did.

use std::path::PathBuf;

use serde_json::Value;

use crate::error::{Error, Result};
use crate::ops::agent::Source;

use super::{Call, Dialect, Said, Turn, str_field};
use crate::hooks::{Event, tool_kind};

pub(super) static CLAUDE: Kin = Kin {
    prompt_event: "UserPromptSubmit",
    stop_reads_transcript: true,
};

/// A host that speaks Claude Code's hook JSON: Claude Code itself, and Codex and Gemini CLI,
/// each named in its own file with the event its prompt's context is answered under.
pub(super) struct Kin {
    /// The `hookEventName` a prompt's context is answered under.
    pub(super) prompt_event: &'static str,
    /// Claude Code's own part: at a stop, its transcript tells the turn's tools when no tool
    /// hook did.
    pub(super) stop_reads_transcript: bool,
}

impl Dialect for Kin {
    fn event(&self, name: &str) -> Option<Event> {
        Event::parse(name)
    }

    fn events(&self) -> String {
        hook_events()
    }

    fn read(
        &self,
        event: Event,
        stdin: &str,
        _env: &[(String, String)],
        overrides: &[String],
    ) -> Result<Call> {
        let (input, mut call) = read(event, stdin, overrides)?;
        call.transcript = str_field(&input, "transcript_path").map(PathBuf::from);
        if self.stop_reads_transcript && event == Event::Stop {
            call.turn = Turn::Hooked {
                transcript: call.transcript.clone(),
            };
        }
        Ok(call)
    }

    fn answer(&self, event: Event, said: Said) -> Result<String> {
        Ok(answer(event, self.prompt_event, said))
    }
}

/// The hook events, by their command-line names.
pub(super) fn hook_events() -> String {
    Event::HOOKS.map(Event::as_str).join(", ")
}

/// The call in Claude Code's hook JSON, and the JSON itself.
pub(super) fn read(event: Event, stdin: &str, overrides: &[String]) -> Result<(Value, Call)> {
    let input: Value = serde_json::from_str(stdin)
        .map_err(|e| Error::bad_input(format!("stdin is not the host's JSON: {e}")))?;
    if !input.is_object() {
        return Err(Error::bad_input("stdin is not a JSON object"));
    }
    let id = str_field(&input, "session_id")
        .ok_or_else(|| Error::bad_input("no session_id in the hook input"))?;
    let mut call = Call::new(id, str_field(&input, "cwd").map(PathBuf::from), overrides);
    call.source = str_field(&input, "source")
        .and_then(Source::parse)
        .unwrap_or(Source::Startup);
    if event == Event::PostToolUse {
        call.tools = str_field(&input, "tool_name")
            .map(|name| {
                vec![tool_kind(
                    name,
                    input.get("tool_input").unwrap_or(&Value::Null),
                )]
            })
            .ok_or_else(|| Error::bad_input("no tool_name in PostToolUse input"));
        if let Some(answer) = input.get("tool_response") {
            written_ids(answer, 0, &mut call.written);
        }
    }
    Ok((input, call))
}

/// The entry ids a checkpoint's answer names (`ids`), wherever the host put that answer: as
/// the JSON itself, its text in a content block, or Gemini CLI's `llmContent`.
fn written_ids(v: &Value, depth: u8, out: &mut Vec<String>) {
    if depth > 6 || out.len() >= 256 {
        return;
    }
    match v {
        Value::Object(m) => {
            if let Some(Value::Array(ids)) = m.get("ids") {
                let ok = |s: &&str| s.len() <= 64 && s.bytes().all(|b| b.is_ascii_alphanumeric());
                out.extend(
                    ids.iter()
                        .filter_map(Value::as_str)
                        .filter(ok)
                        .map(String::from),
                );
            }
            m.values().for_each(|x| written_ids(x, depth + 1, out));
        }
        Value::Array(items) => items.iter().for_each(|x| written_ids(x, depth + 1, out)),
        Value::String(s) if s.trim_start().starts_with('{') && s.len() <= 1 << 20 => {
            if let Ok(inner) = serde_json::from_str::<Value>(s) {
                written_ids(&inner, depth + 1, out);
            }
        }
        _ => {}
    }
}

/// The answer carrying context, under the host's name for the event (`prompt`: its name for
/// the prompt's event); nothing when there is no context to give.
pub(super) fn answer(event: Event, prompt: &str, said: Said) -> String {
    let Said::Context(text) = said else {
        return String::new();
    };
    let name = match event {
        Event::SessionStart => "SessionStart",
        _ => prompt,
    };
    serde_json::json!({
        "hookSpecificOutput": {
            "hookEventName": name,
            "additionalContext": text,
        }
    })
    .to_string()
}
