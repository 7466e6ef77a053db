//! `trilogy due`: the decisions and PROJECT sections whose review date has come.

use clap::Args;

use crate::error::{Error, Result};

use super::super::{Context, format};

pub const HELP: &str =
    "A decision carries its review date as a line `复核：2027-03-01` (`Review: …`), a PROJECT
section as its last line; record one with `--review` or `\"review\"` in the batch (a date, or
`3 months`, `2 weeks`, `3个月后`, `2周后`, `立即`, written down as the date). A phrase like
`when we change machines` is kept and never comes due. Superseding or retiring the decision,
or editing the date, settles it. The session-start block lists what is due, a few lines.

A live decision or PROJECT section that names a file of the repository (`src/parse.rs` in
backticks, or a plain dir/file.ext) comes due as well when a commit after its line renames or
deletes that file or changes more than a fifth of its lines: listed with the commits that did.
Editing the line, superseding or retiring the entry settles it, and so does `--still-true ID`
after a look (anchored at HEAD again). Worked out from git when HEAD or memory changed, by this
command and `status` (and an agent's `memory_status`); the session-start hook reads what they
found.

Examples:
  trilogy due                 # due today or earlier (TRILOGY_TODAY pins today)
  trilogy due --within 30     # and in the next 30 days
  trilogy due --still-true 3f2a9c   # the code moved, the decision still holds
  trilogy due --json";

#[derive(Args, Debug)]
pub struct DueArgs {
    /// Also what comes due within this many days
    #[arg(long, value_name = "DAYS", default_value_t = 0)]
    within: u64,
    /// An entry whose cited code moved on still holds: anchor it at HEAD again (its id, or a
    /// section's heading)
    #[arg(long, value_name = "ID")]
    still_true: Option<String>,
}

pub fn run(ctx: &Context, a: DueArgs) -> Result<()> {
    if let Some(id) = &a.still_true {
        ctx.ws.require_memory()?;
        let heading = crate::ops::anchors::still_true(&ctx.ws, id)?;
        let v = serde_json::json!({"still_true": heading});
        return format::print(ctx, &v, |_| format!("anchored at HEAD again: {heading}"));
    }
    let until = ctx
        .ws
        .clock
        .today()
        .checked_add_days(chrono::Days::new(a.within))
        .ok_or_else(|| Error::bad_input("--within: too many days"))?;
    let due = crate::ops::truth::due::due_in(&ctx.ws, until)?;
    format::print(ctx, &due, |d| format::due(d))
}
