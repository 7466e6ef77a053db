//! `trilogy clear`: the memory files and the boot block deleted (every entry stays restorable
//! in the store); needs `--yes`.

use clap::Args;

use crate::error::{Error, Result};
use crate::ops::clear::ClearOutcome;

use super::super::{Context, format};

pub const HELP: &str = "\
Delete the four memory files (PROJECT.md, DECISIONS.md, SESSIONS.md, SESSIONS-archive.md; the
memory folder too when nothing else is in it) and take the boot block out of the boot block
file when it is ours. The next session, or `trilogy init`, starts the files again from the
templates and asks the agent to fill PROJECT.md in.

Nothing is lost: every entry and section stays in the store, marked removed. `trilogy log`
shows the clear with the ids it covered; `trilogy restore ID` brings an entry back and
`trilogy restore --section NAME --revision N` a section.

Example:
  trilogy clear --yes";

#[derive(Args, Debug)]
pub struct ClearArgs {
    /// Go ahead (the memory files are deleted; every entry stays restorable in the store)
    #[arg(long)]
    yes: bool,
}

pub fn run(ctx: &Context, a: ClearArgs) -> Result<()> {
    if !a.yes {
        return Err(Error::bad_input(format!(
            "clear deletes the memory files in {} and the boot block; every entry stays in the store, restorable (`trilogy log` shows the clear, `trilogy restore ID` brings an entry back). Run `trilogy clear --yes` to go ahead",
            ctx.ws.memory_dir().display()
        )));
    }
    let out = crate::ops::clear::clear(&ctx.ws, None, "cli")?;
    format::print(ctx, &out, clear_summary)
}

fn clear_summary(o: &ClearOutcome) -> String {
    if o.cleared.is_empty() && o.entries == 0 && o.sections == 0 && !o.boot_block_removed {
        return "nothing to clear: no memory files here".into();
    }
    let mut lines = vec![if o.cleared.is_empty() {
        "no memory file to delete".to_string()
    } else {
        format!("deleted {}", o.cleared.join(", "))
    }];
    if o.boot_block_removed {
        lines.push("took the boot block out".into());
    }
    lines.push(format!(
        "{} entries and {} sections are kept in the store, restorable: `trilogy log` shows the clear, `trilogy restore ID` brings an entry back, `trilogy restore --section NAME --revision N` a section",
        o.entries, o.sections
    ));
    if let Some(n) = o.event {
        lines.push(format!(
            "to undo it whole: `trilogy restore --clear {n}` (the boot block comes back with `trilogy block rewrite`)"
        ));
    }
    lines.push(
        "the next session (or `trilogy init`) starts the files again from the templates".into(),
    );
    lines.join("\n")
}
