//! Each host's dialect: which event a command-line name is, how the host's JSON reads into a
//! [`Call`], and how it wants the rules' answer ([`Said`]) written back. A dialect decides
//! nothing about the session: that is [`super::session`]'s, the same for every host.

mod claude;
mod codex;
mod cursor;
mod dsh;
mod gemini;

use std::path::PathBuf;

use crate::error::Result;
use crate::model::host::Host;
use crate::ops::agent::{Source, ToolKind};
use crate::ops::surface::{Answer, Surface};

use super::Event;

/// What a host reported with one event, read out of its JSON.
#[derive(Debug)]
pub(super) struct Call {
    /// The host's session id.
    pub id: String,
    /// The session's working directory, as the host names it.
    pub cwd: Option<PathBuf>,
    /// `key=value` config overrides (the command line's `--set`, and what the host's own
    /// configuration adds).
    pub overrides: Vec<String>,
    /// Why the session starts.
    pub source: Source,
    /// The tool calls that finished: the one of a tool hook, or those since the host's last
    /// call. Read lazily: a tool hook without its tool's name is wrong only where it counts.
    pub tools: Result<Vec<ToolKind>>,
    /// How the turn's end is told.
    pub turn: Turn,
    /// A model step (DeepSeek Harness): where it is, and what is on its surface.
    pub step: Option<StepReport>,
    /// The model's context window in tokens, when the host says.
    pub window_tokens: Option<u64>,
    /// The host's transcript of the session, where it names one (a path from the payload:
    /// read only through the fence, as a regular file and within a cap).
    pub transcript: Option<PathBuf>,
    /// The entries a memory tool's answer says it wrote (a tool hook's `tool_response`).
    pub written: Vec<String>,
}

impl Call {
    /// A call of session `id` in `cwd` that reports nothing else.
    pub fn new(id: &str, cwd: Option<PathBuf>, overrides: &[String]) -> Call {
        Call {
            id: id.to_string(),
            cwd,
            overrides: overrides.to_vec(),
            source: Source::Startup,
            tools: Ok(Vec::new()),
            turn: Turn::Hooked { transcript: None },
            step: None,
            window_tokens: None,
            transcript: None,
            written: Vec::new(),
        }
    }
}

/// How a host tells what a turn did.
#[derive(Debug)]
pub(super) enum Turn {
    /// Its tool hooks reported each call; the transcript at this path (Claude Code's) may say
    /// what they missed.
    Hooked { transcript: Option<PathBuf> },
    /// It reports the turn's last tool calls at the turn's end ([`Call::tools`]), and whether
    /// the session is a subagent's (whose parent records).
    Reported { subagent: bool },
}

/// One model step, as DeepSeek Harness's plugin reports it.
#[derive(Debug)]
pub(super) struct StepReport {
    /// The turn's number and the step's in it (1 and 1 at a session's first step).
    pub turn: u64,
    pub step: u64,
    pub subagent: bool,
    pub surface: Surface,
}

/// What the session rules say to an event.
#[derive(Debug)]
pub(super) enum Said {
    /// trilogy is turned off here (`enabled = false`): the host is owed no answer.
    Disabled,
    /// The event did nothing: no memory here, or the block is turned off.
    Skipped,
    /// Done; nothing for the model.
    Nothing,
    /// Text for the model's context.
    Context(String),
    /// What a model step gets (DeepSeek Harness).
    Step(Answer),
    /// Whether the turn that ended owes a reminder (DeepSeek Harness).
    NudgeOwed(bool),
}

/// How one host speaks.
pub(super) trait Dialect {
    /// The event a command-line name stands for.
    fn event(&self, name: &str) -> Option<Event>;
    /// The events it takes, for the message about an unknown one.
    fn events(&self) -> String;
    /// Read the host's JSON for `event`; `env` is the process's environment and `overrides`
    /// the command line's.
    fn read(
        &self,
        event: Event,
        stdin: &str,
        env: &[(String, String)],
        overrides: &[String],
    ) -> Result<Call>;
    /// The host's answer to what the rules said (empty: print nothing).
    fn answer(&self, event: Event, said: Said) -> Result<String>;
    /// What is printed when the event failed.
    fn failed(&self) -> &'static str {
        ""
    }
    /// Whether the host's prompt hook can give the model context. A host whose cannot gets
    /// what a prompt is owed with the turn's first tool call instead.
    fn prompt_context(&self) -> bool {
        true
    }
}

/// The dialect of `host`, when trilogy answers its hooks.
pub(super) fn of(host: Host) -> Option<&'static dyn Dialect> {
    let d: &'static dyn Dialect = match host {
        Host::Claude => &claude::CLAUDE,
        Host::Codex => &codex::CODEX,
        Host::Gemini => &gemini::GEMINI,
        Host::Cursor => &cursor::Cursor,
        Host::Dsh => &dsh::Dsh,
        Host::Vscode | Host::Windsurf | Host::Zed => return None,
    };
    Some(d)
}

/// The text of a non-empty string field.
fn str_field<'a>(v: &'a serde_json::Value, key: &str) -> Option<&'a str> {
    v.get(key)
        .and_then(serde_json::Value::as_str)
        .filter(|s| !s.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_host_with_hooks_has_a_dialect() {
        for h in Host::ALL {
            assert_eq!(of(h).is_some(), h.has_hooks(), "{h:?}");
        }
    }
}
