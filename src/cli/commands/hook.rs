//! `trilogy hook`: a host's hook answered. Reads the host's JSON on stdin, runs the session
//! rules and prints the host's answer; always exits 0, so a host never fails the agent's turn
//! because of trilogy.

use clap::Args;

use crate::error::Exit;
use crate::hooks;
use crate::model::host::Host;

use super::super::format;

#[derive(Args, Debug)]
pub struct HookArgs {
    /// claude, codex, gemini, cursor or dsh
    pub host: Option<String>,
    /// session-start, user-prompt-submit, post-tool-use, stop or session-end (cursor also
    /// takes its own names: sessionStart, beforeSubmitPrompt, postToolUse, stop, sessionEnd;
    /// dsh: pre-step, turn-stopping or session-end, JSON in and out as in schema/dsh-hook.json)
    pub event: Option<String>,
}

/// Run a hook with the `--set` overrides. Always exits 0: a hook must never block the user or
/// break the host.
pub fn run(a: &HookArgs, overrides: &[String]) -> Exit {
    // hooks always exit 0: a host must never fail the agent's turn because of trilogy
    let Some(input) = hooks::input::read(std::io::stdin(), hooks::input::WAIT) else {
        // stdin stayed open and held no whole payload, or more than a payload can be: nothing
        // to answer
        return Exit::Ok;
    };
    let env = crate::base::env::snapshot();
    let host_name = a.host.as_deref().unwrap_or_default();
    let Some(host) = Host::parse(host_name).filter(|h| h.has_hooks()) else {
        eprintln!(
            "trilogy hook: unknown host `{host_name}` (claude, codex, gemini, cursor or dsh); nothing done"
        );
        return Exit::Ok;
    };
    let Some(event) = a.event.as_deref() else {
        eprintln!("trilogy hook {host_name}: no event given (e.g. session-start); nothing done");
        return Exit::Ok;
    };
    let stdin = match String::from_utf8(input) {
        Ok(s) => s,
        Err(e) => {
            let line = format!(
                "{host_name} {event}: the hook input is not UTF-8 (at byte {}); nothing done",
                e.utf8_error().valid_up_to()
            );
            eprintln!("trilogy hook: {line}");
            if let Ok(cwd) = std::env::current_dir() {
                hooks::write_log(Some(&cwd), &line);
            }
            return Exit::Ok;
        }
    };
    let reply = hooks::run(host, event, &stdin, &env, overrides);
    if let Some(line) = &reply.log {
        eprintln!("trilogy hook: {line}");
        // hosts run hooks in the session's directory: log there when the input named none
        let root = reply.root.clone().or_else(|| std::env::current_dir().ok());
        hooks::write_log(root.as_deref(), line);
    }
    if !reply.stdout.is_empty() {
        format::emit(&reply.stdout);
    }
    Exit::Ok
}
