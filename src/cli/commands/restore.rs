//! `trilogy restore`: an entry, a section's revision, pasted text, or everything one `clear`
//! took out, brought back.

use clap::Args;

use crate::error::{Error, Result};
use crate::ops;

use super::super::{Context, format};

#[derive(Args, Debug)]
#[command(after_help = "Examples:
  trilogy restore 3fa9c2            # an entry, by id (see `trilogy log`)
  trilogy restore --text \"部署脚本\"  # the archived entry containing this text
  trilogy restore --section 现状 --revision 3")]
pub struct RestoreArgs {
    /// Entry id (or a unique prefix of at least 4 characters)
    #[arg(required_unless_present_any = ["section", "text", "clear"])]
    id: Option<String>,
    /// Bring back everything one `trilogy clear` took out: the number of its `clear` event
    /// (`trilogy log` shows it; the clear printed it)
    #[arg(long, value_name = "EVENT", conflicts_with_all = ["id", "section", "text"])]
    clear: Option<u64>,
    /// Restore the archived entry whose text contains this (`-` reads it from stdin)
    #[arg(long, value_name = "TEXT", conflicts_with_all = ["id", "section"])]
    text: Option<String>,
    /// Restore a PROJECT section instead (with --revision)
    #[arg(
        long,
        value_name = "NAME",
        requires = "revision",
        conflicts_with = "id"
    )]
    section: Option<String>,
    /// Section revision to bring back (see `trilogy log --section NAME`)
    #[arg(long)]
    revision: Option<u64>,
}

pub fn run(ctx: &Context, a: RestoreArgs) -> Result<()> {
    if let Some(clear) = a.clear {
        return restore_cleared(ctx, clear);
    }
    let out = match (&a.id, &a.section, a.revision) {
        _ if a.text.is_some() => {
            let text = match a.text.as_deref() {
                Some("-") => {
                    let mut s = String::new();
                    std::io::Read::read_to_string(&mut std::io::stdin(), &mut s)
                        .map_err(|e| Error::io("<stdin>", e))?;
                    s
                }
                t => t.unwrap_or_default().to_string(),
            };
            ops::restore_text(&ctx.ws, &text, "cli")?
        }
        (Some(id), _, _) => ops::restore_entry(&ctx.ws, "cli", id, None)?,
        (None, Some(s), Some(r)) => ops::restore_section(&ctx.ws, "cli", s, r, None)?,
        _ => {
            return Err(Error::bad_input(
                "give an entry id, or --section NAME --revision N",
            ));
        }
    };
    format::warn_sync(&out.report);
    format::print(ctx, &out.value, format::restore)
}

/// `--clear N`: everything the clear numbered N took out.
fn restore_cleared(ctx: &Context, clear: u64) -> Result<()> {
    let out = ops::restore_cleared(&ctx.ws, "cli", clear)?;
    format::warn_sync(&out.report);
    format::print(ctx, &out.value, |o| {
        let mut lines = vec![format!(
            "brought back {} entries and {} sections from clear #{}",
            o.entries, o.sections, o.clear
        )];
        lines.extend(o.left.iter().map(|l| format!("left as it is: {l}")));
        lines.join("\n")
    })
}
