//! `trilogy block`: the boot block in the boot block file (`status`, `remove`, `rewrite`), or
//! with `--file F` the whole session-start block in a managed region of F, for hosts without
//! hooks.

use std::path::PathBuf;

use clap::{Args, Subcommand};

use crate::error::{Error, Result};

use super::super::{Context, format};

pub const HELP: &str = "\
With a subcommand, manage the boot block: the short pointer to the memory that `init` puts in
the boot block file (boot_block_file, default AGENTS.md), between <!-- trilogy:start --> and
<!-- trilogy:end -->.
  status   whether the file holds it, ours or the original plugin's (<!-- dsh-trilogy -->)
  remove   take it out, keeping the rest of the file (an emptied file is deleted)
  rewrite  write it again: created, appended, refreshed, or replacing the original plugin's

Without a subcommand, `trilogy block --file F` keeps the whole session-start block in a managed
region of F, for hosts without hooks (DeepSeek Harness reads AGENTS.local.md).

Examples:
  trilogy block status
  trilogy block remove --file CLAUDE.md
  trilogy block rewrite
  trilogy block --file AGENTS.local.md";

#[derive(Args, Debug)]
#[command(args_conflicts_with_subcommands = true)]
pub struct BlockArgs {
    #[command(subcommand)]
    action: Option<BlockAction>,
    /// Without a subcommand: the file to keep the session-start block in (e.g. AGENTS.local.md)
    #[arg(long, value_name = "FILE")]
    file: Option<PathBuf>,
}

#[derive(Subcommand, Debug)]
enum BlockAction {
    /// Show whether the boot block file holds the boot block (ours, or the original plugin's)
    Status(BootFileArgs),
    /// Take the boot block out of the file, keeping the rest (an emptied file is deleted)
    Remove(BootFileArgs),
    /// Write the boot block again (created, appended, refreshed, or replacing a legacy one)
    Rewrite(BootFileArgs),
}

#[derive(Args, Debug)]
struct BootFileArgs {
    /// The file holding the boot block, inside the workspace (default: boot_block_file)
    #[arg(long, value_name = "FILE")]
    file: Option<PathBuf>,
}

pub fn run(ctx: &Context, a: BlockArgs) -> Result<()> {
    use crate::ops::regions;
    let file = |f: Option<PathBuf>| f.unwrap_or_else(|| regions::boot_file(&ctx.ws));
    match a.action {
        None => {
            let Some(f) = a.file else {
                return Err(Error::bad_input(
                    "give a subcommand (status, remove, rewrite) for the boot block, or --file F to keep the session-start block in F; `trilogy block --help` explains both",
                ));
            };
            session_block(ctx, &f)
        }
        Some(BlockAction::Status(b)) => {
            let s = regions::boot_state(&ctx.ws, &file(b.file))?;
            format::print(ctx, &s, |s| {
                let state = match (s.file_exists, s.exists, s.current) {
                    (false, _, _) => "the file does not exist",
                    (true, false, _) => "no boot block",
                    (true, true, true) => "the boot block is written",
                    (true, true, false) => {
                        "an old boot block (the original plugin's): `trilogy block rewrite` replaces it"
                    }
                };
                format!("{}: {state}", s.file)
            })
        }
        Some(BlockAction::Remove(b)) => {
            let f = file(b.file);
            let removed = regions::remove_block(&ctx.ws, &f)?;
            let v = serde_json::json!({ "removed": removed, "file": f.display().to_string() });
            format::print(ctx, &v, |_| match removed {
                true => format!("took the boot block out of {}", f.display()),
                false => format!("{}: no boot block to take out", f.display()),
            })
        }
        Some(BlockAction::Rewrite(b)) => {
            let out = regions::rewrite_block(&ctx.ws, &file(b.file))?;
            format::print(ctx, &out, |o| {
                let mut s = format!("{} {}", o.outcome.word(), o.file);
                if let Some(r) = &o.rescued {
                    s.push_str(&format!(" (the old block's text is kept at {r})"));
                }
                s
            })
        }
    }
}

/// `trilogy block --file F`: the session-start block in a managed region of F.
fn session_block(ctx: &Context, file: &std::path::Path) -> Result<()> {
    let out = crate::ops::regions::write_block(&ctx.ws, file)?;
    format::print(ctx, &out, |o| {
        format!(
            "{} {} ({} bytes of memory)",
            o.outcome.word(),
            o.path,
            o.bytes
        )
    })
}
