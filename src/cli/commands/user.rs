//! `trilogy user`: the user memory (USER.md) — what holds for you and this machine in every
//! project — written by you directly, looked at, or opened in `$EDITOR`.

use clap::{Args, Subcommand};

use crate::error::{Error, Result};
use crate::model::user::UserLine;
use crate::ops::user;
use crate::workspace::user as scope;

use super::super::{Context, format};

pub const USER_HELP: &str = "\
USER.md lives in your data folder ($XDG_DATA_HOME/trilogy/user/USER.md, or
user_memory_dir in your own config file), not in any repository. Every session-start block,
in every workspace and host, carries it right after the ledger (at most 2 KB and a tenth of the
budget; inject_user_memory = false turns that off). The copies of the block written into
committed files (AGENTS.md, rules files) never hold it.

You write it directly; an agent's memory_checkpoint `user` lines are proposals you accept or
reject with `trilogy review` (unless your own config says [review_mode] user = \"direct\").
What belongs here: stable preferences, this machine's paths and tools, conventions across
your projects, lessons learnt. Never a password, token or key: they are refused.

Examples:
  trilogy user                                         show it
  trilogy user add --section Preferences --line \"answer with the conclusion first\"
  trilogy user add --section 环境 --line \"rg 在 /usr/bin/rg\"
  trilogy user add --section Environment --line \"proxy 127.0.0.1:7890\" --replaces \"proxy 127.0.0.1:1080\"
  trilogy user edit                                    open it in $EDITOR
  trilogy user log --section Environment               that section's revisions
  trilogy user restore --section Environment --revision 2
  trilogy user path                                    where it is";

#[derive(Args, Debug, Clone)]
pub struct UserArgs {
    #[command(subcommand)]
    cmd: Option<UserCmd>,
}

#[derive(Subcommand, Debug, Clone)]
enum UserCmd {
    /// Show USER.md's sections (made from its template on first use)
    Show,
    /// Add a line to a section, or put it in place of a line (--replaces)
    Add {
        /// Preferences / 偏好, Environment / 环境, Conventions / 约定, Lessons / 教训, or
        /// another heading USER.md has
        #[arg(long)]
        section: String,
        /// The line
        #[arg(long)]
        line: String,
        /// A line of the section, exactly as it is, that --line replaces (kept in its history)
        #[arg(long)]
        replaces: Option<String>,
    },
    /// Open USER.md in $EDITOR (else vi); what you save is taken in
    Edit,
    /// Print where USER.md is
    Path,
    /// What changed in USER.md (with --section: that section's revisions)
    Log {
        #[arg(long)]
        section: Option<String>,
        /// At most this many
        #[arg(long, default_value_t = 20)]
        limit: usize,
    },
    /// Put a section back as it was at a revision (`trilogy user log --section S` lists them)
    Restore {
        #[arg(long)]
        section: String,
        #[arg(long)]
        revision: u64,
    },
}

/// Run `trilogy user`: in a workspace (whose language a new USER.md takes when your config
/// names none), or anywhere else with your own settings alone.
pub fn run(ctx: &Context, a: UserArgs) -> Result<()> {
    match a.cmd.unwrap_or(UserCmd::Show) {
        UserCmd::Show => {
            let s = user::show(&ctx.ws)?;
            format::print(ctx, &s, shown)
        }
        UserCmd::Add {
            section,
            line,
            replaces,
        } => {
            let w = user::add(
                &ctx.ws,
                "cli",
                &UserLine {
                    section,
                    line,
                    replaces,
                },
            )?;
            format::warn_sync(&w.report);
            format::print(ctx, &w.value, |o| {
                let mut out = match o.written.is_empty() {
                    true => vec!["USER.md: nothing new (the line is there already)".to_string()],
                    false => o.written.iter().map(|w| format!("wrote {w}")).collect(),
                };
                out.extend(o.dropped_lines.iter().map(|l| {
                    format!("replaced `{l}` (kept in the section's history: trilogy log --section)")
                }));
                out.extend(o.warnings.iter().map(|w| format!("warning: {w}")));
                out.join("\n")
            })
        }
        UserCmd::Edit => {
            let path = scope::ready(&ctx.ws)?.file_path(crate::model::FileKind::Project);
            super::review::run_editor(
                &path,
                &format!("edit {} yourself", path.display()),
                "whatever it saved is taken in by the next trilogy command",
            )?;
            let s = user::show(&ctx.ws)?;
            if let Some(why) = &s.unparseable {
                return Err(Error::bad_input(format!(
                    "{}: {why}; nothing of it was taken in (its last good version stays): fix it and run `trilogy user` again",
                    s.path
                )));
            }
            format::print(ctx, &s, shown)
        }
        UserCmd::Log { section, limit } => {
            let u = scope::ready(&ctx.ws)?;
            let section = section.map(|s| heading(u, &s)).transpose()?;
            let view = crate::ops::log(
                u,
                &crate::ops::LogQuery {
                    limit,
                    id: None,
                    section,
                },
            )?;
            format::print(ctx, &view, format::log)
        }
        UserCmd::Restore { section, revision } => {
            let u = scope::ready(&ctx.ws)?;
            let out =
                crate::ops::restore_section(u, "cli", &heading(u, &section)?, revision, None)?;
            format::warn_sync(&out.report);
            format::print(ctx, &out.value, format::restore)
        }
        UserCmd::Path => {
            let path = scope::path(&ctx.ws)?;
            let v =
                serde_json::json!({ "path": path.display().to_string(), "exists": path.exists() });
            format::print(ctx, &v, |_| path.display().to_string())
        }
    }
}

/// The heading of USER.md a `--section` names (either language).
fn heading(u: &crate::workspace::Workspace, name: &str) -> Result<String> {
    crate::ops::read::user_heading(u, name, "--section")
}

fn shown(s: &user::Shown) -> String {
    let mut out = vec![format!("{} ({} bytes)", s.path, s.bytes)];
    if let Some(why) = &s.unparseable {
        out.push(format!(
            "warning: the file does not parse ({why}); shown as it last did"
        ));
    }
    for h in &s.withheld {
        out.push(format!(
            "warning: § {h} holds what looks like a credential: it is left out of every block until you remove it"
        ));
    }
    for sec in &s.sections {
        out.push(format!("\n## {}", sec.heading));
        match sec.lines.is_empty() {
            true => out.push("  (nothing yet)".into()),
            false => out.extend(sec.lines.iter().map(|l| format!("  {l}"))),
        }
    }
    if s.pending > 0 {
        out.push(format!(
            "\n{} line(s) proposed by agents wait for you: trilogy review list",
            s.pending
        ));
    }
    out.join("\n")
}
