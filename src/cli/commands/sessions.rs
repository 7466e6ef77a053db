//! `trilogy sessions`: what trilogy remembers about agent sessions (list, show ID).

use clap::{Args, Subcommand};

use std::path::PathBuf;

use crate::error::{Error, Result};
use crate::model::host::Host;
use crate::ops::agent;
use crate::recall::draft;

use super::super::{Context, format};

#[derive(Args, Debug)]
pub struct SessionsArgs {
    #[command(subcommand)]
    cmd: Option<SessionsCmd>,
}

#[derive(Subcommand, Debug)]
enum SessionsCmd {
    /// List the agent sessions trilogy has served
    List,
    /// What one session was injected, what the caps dropped, its nudge state
    Show {
        /// The host's session id
        id: String,
    },
    /// Draft a SESSIONS entry from a host's transcript, without writing it: what was asked,
    /// the files edited, the commands run and how each ended, what the agent said last. Only
    /// the work after the session's last checkpoint is drafted; a session that recorded its
    /// work gives none. Example: `trilogy sessions draft ~/.claude/projects/P/S.jsonl --host claude`
    Draft {
        /// The transcript: Claude Code's or Codex's JSONL file, Gemini CLI's log or session file
        transcript: PathBuf,
        /// The host that wrote it
        #[arg(long, value_parser = ["claude", "codex", "gemini"])]
        host: String,
    },
}

pub fn run(ctx: &Context, a: SessionsArgs) -> Result<()> {
    match a.cmd.unwrap_or(SessionsCmd::List) {
        SessionsCmd::Draft { transcript, host } => {
            let host = Host::parse(&host)
                .ok_or_else(|| Error::bad_input(format!("unknown host `{host}`")))?;
            let ws = &ctx.ws;
            let out = draft::draft_file(host, &transcript, &ws.root, ws.clock.today(), ws.lang())?;
            format::print(ctx, &out, |o| match o {
                draft::Outcome::Drafted(d) => format!("## {}\n{}", d.heading, d.body),
                draft::Outcome::Recorded => {
                    "(nothing to draft: the session recorded its work with a checkpoint)".into()
                }
                draft::Outcome::NoWork => {
                    "(nothing to draft: the session edited no file and ran no command)".into()
                }
            })
        }
        SessionsCmd::List => {
            let list = agent::list_sessions(&ctx.ws)?;
            format::print(ctx, &list, |l| {
                if l.is_empty() {
                    return "(no agent sessions yet)".into();
                }
                l.iter()
                    .map(|s| {
                        format!(
                            "{}  {:<7} injected {}× (last {} at {})  nudges {}{}",
                            s.id,
                            s.host,
                            s.injections,
                            s.source.as_deref().unwrap_or("-"),
                            s.injected_at.as_deref().unwrap_or("-"),
                            s.nudges,
                            if s.ended_at.is_some() { "  ended" } else { "" }
                        )
                    })
                    .collect::<Vec<_>>()
                    .join("\n")
            })
        }
        SessionsCmd::Show { id } => {
            let v = agent::show_session(&ctx.ws, &id)?;
            format::print(ctx, &v, |v| {
                let s = &v.session;
                let recorded: String = (v.recorded.iter())
                    .map(|e| {
                        let on = e.branch.as_deref().map(|b| format!(" (on {b})"));
                        format!(
                            "\n          {} {} [{}]{}",
                            e.kind,
                            e.heading,
                            &e.id[..12.min(e.id.len())],
                            on.unwrap_or_default()
                        )
                    })
                    .collect();
                let recorded = match recorded.is_empty() {
                    true => " none".to_string(),
                    false => recorded,
                };
                format!(
                    "session   {}\nhost      {}\nstarted   {}\ninjected  {}× · last {} ({})\ndigest    {}\nentries   {}\ndropped   sections {:?} · decisions {} · sessions {:?}\nnotices   {} change(s) announced\nnudge     owed {} · given {}\nrecorded {}",
                    s.id,
                    s.host,
                    s.started_at,
                    s.injections,
                    s.injected_at.as_deref().unwrap_or("-"),
                    s.source.as_deref().unwrap_or("-"),
                    s.digest.as_deref().unwrap_or("-"),
                    s.injected_ids.join(", "),
                    s.dropped.sections_cut,
                    match &s.dropped.decisions_from {
                        Some(from) => format!("{} (from {from} down)", s.dropped.decisions),
                        None => s.dropped.decisions.to_string(),
                    },
                    s.dropped.sessions,
                    s.announced,
                    s.nudge_owed,
                    s.nudges,
                    recorded
                )
            })
        }
    }
}
