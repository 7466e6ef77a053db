//! The session rules every host shares: which workspace a session's hooks serve, when memory
//! is scaffolded, and what each [`Event`] does to the session and gives the model. A host's
//! dialect reads its JSON into a [`Call`] and writes [`Said`] back in its own form; nothing
//! here knows how a host spells anything.

use std::path::PathBuf;

use crate::error::{Error, Result};
use crate::model::host::Host;
use crate::ops::surface;
use crate::ops::{agent, drafts};
use crate::workspace::Workspace;

use super::dialect::{Call, Dialect, Said, StepReport, Turn};
use super::{Event, Reply, pinned, transcript};

/// Serve `event` of `host` (speaking `dialect`) for `call`.
pub(super) fn serve(
    host: Host,
    dialect: &dyn Dialect,
    event: Event,
    call: Call,
    env: &[(String, String)],
    reply: &mut Reply,
) -> Result<Said> {
    let h = host.as_str();
    let (ws, may_scaffold) =
        open_session(h, &call.id, call.cwd.clone(), env, &call.overrides, reply)?;
    if !ws.config.enabled {
        return Ok(Said::Disabled);
    }
    let id = call.id.as_str();
    let limits = crate::model::host::HostLimits {
        window_tokens: call.window_tokens,
        ..host.limits()
    };
    match event {
        Event::SessionStart => {
            if !ready(&ws, may_scaffold)? {
                return Ok(Said::Skipped);
            }
            crate::registry::touch_quietly(env, &ws, false);
            if let Some(note) = crate::ops::gitmerge::configure_missing(&ws) {
                super::write_log(Some(&ws.root), &note);
            }
            if !ws.config.inject_on_session_start {
                return Ok(Said::Skipped);
            }
            let inj = agent::inject(&ws, h, Some(id), call.source, limits)?;
            Ok(match (inj.injected, inj.notice) {
                (true, _) => Said::Context(inj.block.text),
                (false, Some(notice)) => Said::Context(notice),
                (false, None) => Said::Nothing,
            })
        }
        Event::UserPromptSubmit if !dialect.prompt_context() => {
            // a new turn starts; what it is owed comes with its first tool call
            if ws.has_memory() {
                agent::turn_began(&ws, h, id)?;
            }
            Ok(Said::Nothing)
        }
        Event::UserPromptSubmit => {
            if !ws.has_memory() || !ws.config.inject_on_session_start {
                return Ok(Said::Skipped);
            }
            Ok(context(agent::prompt_submitted(&ws, h, id, limits)?))
        }
        Event::PostToolUse => {
            if !ws.has_memory() {
                return Ok(Said::Skipped);
            }
            let tools = call.tools?;
            for kind in &tools {
                agent::tool_used(&ws, h, id, *kind)?;
            }
            if tools.contains(&agent::ToolKind::Record) {
                crate::ops::claim::claim(&ws, h, id, &call.written)?;
            }
            if dialect.prompt_context() || !ws.config.inject_on_session_start {
                return Ok(Said::Nothing);
            }
            Ok(context(agent::context_owed(&ws, h, id, limits)?))
        }
        Event::Stop => turn_ended(&ws, host, call, env),
        Event::SessionEnd => {
            if ws.has_memory() {
                agent::session_ended(&ws, h, id)?;
                leave_draft(&ws, host, &call, env)?;
            }
            Ok(Said::Nothing)
        }
        Event::PreCompact => {
            if ws.has_memory() {
                leave_draft(&ws, host, &call, env)?;
            }
            Ok(Said::Nothing)
        }
        Event::Step => step(&ws, h, may_scaffold, call, limits, env),
    }
}

fn context(text: Option<String>) -> Said {
    text.map_or(Said::Nothing, Said::Context)
}

/// The turn ended: a turn that worked and recorded nothing owes a reminder, and once every
/// reminder is spent, a draft.
fn turn_ended(ws: &Workspace, host: Host, call: Call, env: &[(String, String)]) -> Result<Said> {
    if !ws.has_memory() {
        return Ok(Said::Skipped);
    }
    let (h, id) = (host.as_str(), call.id.as_str());
    match &call.turn {
        Turn::Hooked { transcript } => {
            let facts = transcript.as_deref().and_then(transcript::last_turn);
            if agent::turn_ended(ws, h, id, facts)? == agent::Closed::Spent {
                leave_draft(ws, host, &call, env)?;
            }
            Ok(Said::Nothing)
        }
        Turn::Reported { subagent } => {
            let tools = call.tools?;
            let owed = surface::turn_stopping(ws, h, id, &tools, *subagent)?;
            Ok(Said::NudgeOwed(owed))
        }
    }
}

/// Leave a draft of the session's entry when it owes one, as the user's `auto_draft` says
/// (proposed for a person by default; recorded; or none).
fn leave_draft(ws: &Workspace, host: Host, call: &Call, env: &[(String, String)]) -> Result<()> {
    use crate::config::AutoDraft;
    let Some(transcript) = call.transcript.as_deref() else {
        return Ok(());
    };
    if ws.config.auto_draft == AutoDraft::Off {
        return Ok(());
    }
    let due = match drafts::due(ws, host, &call.id, transcript)? {
        drafts::Owed::Draft(due) => due,
        drafts::Owed::Recorded => return drafts::withdraw(ws, host, &call.id).map(|_| ()),
        drafts::Owed::Nothing => return Ok(()),
    };
    let proposing;
    let via = match ws.config.auto_draft {
        AutoDraft::Record => ws,
        AutoDraft::Propose | AutoDraft::Off => {
            // the same settings, with sessions proposed whatever `review_mode` says
            let mut overrides = call.overrides.clone();
            overrides.push("review_mode.sessions=propose".into());
            let wanted = crate::workspace::Wanted {
                explicit: Some(&ws.root),
                host: Vec::new(),
                cwd: None,
                lenient: true,
            };
            proposing = crate::workspace::open_located(&wanted, env, &overrides)?.0;
            &proposing
        }
    };
    drafts::leave(ws, via, host, &call.id, due)?;
    Ok(())
}

/// One model step: the block once, notices of changes made elsewhere, the reminder owed.
fn step(
    ws: &Workspace,
    host: &str,
    may_scaffold: bool,
    call: Call,
    limits: crate::model::host::HostLimits,
    env: &[(String, String)],
) -> Result<Said> {
    if !ready(ws, may_scaffold)? {
        return Ok(Said::Skipped);
    }
    let Some(StepReport {
        turn,
        step,
        subagent,
        surface,
    }) = call.step
    else {
        return Err(Error::bad_input("no model step in the hook input"));
    };
    if step <= 1 && turn <= 1 {
        crate::registry::touch_both_quietly(env, ws);
    }
    let input = surface::Step {
        step,
        subagent,
        limits,
        surface,
        tools: call.tools?,
    };
    Ok(Said::Step(surface::step(ws, host, &call.id, &input)?))
}

/// Open the workspace of session `id` of `host`, whose working directory is `cwd`, and say
/// whether memory may be scaffolded there. A session keeps the workspace of its first hook:
/// an agent that `cd`s elsewhere does not move its memory.
fn open_session(
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
fn ready(ws: &Workspace, may_scaffold: bool) -> Result<bool> {
    if ws.has_memory() {
        return Ok(true);
    }
    if !ws.config.auto_scaffold || !may_scaffold {
        return Ok(false);
    }
    crate::ops::init(ws)?;
    Ok(true)
}
