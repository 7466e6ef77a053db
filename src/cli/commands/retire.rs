//! `trilogy retire`: a decision or a session marked as no longer true, by a person.

use clap::Args;

use crate::error::Result;
use crate::ops;

use super::super::{Context, format};

pub const HELP: &str = "The entry stays in its file with a last line `已失效：YYYY-MM-DD — why` (or
`Retired: …`), which you can also write by hand. A retired entry is never injected,
is still found by search (marked retired), frees its topic for a new decision, and comes back
with `trilogy restore ID`. A decision that has a successor is superseded instead: record the
new one with `supersedes`.

Examples:
  trilogy retire 3fa9c2d1 --why \"upstream fixed the bug; the workaround is gone\"
  trilogy retire 3fa9c2d1 --why \"我们不再用 sqlite\" --json";

#[derive(Args, Debug)]
pub struct RetireArgs {
    /// Entry id (or a unique prefix of at least 4 characters), from `trilogy read --json`,
    /// `trilogy search` or the report that proposes it
    id: String,
    /// Why it is no longer true, one line (written beside the entry)
    #[arg(long, value_name = "TEXT")]
    why: String,
}

pub fn run(ctx: &Context, a: RetireArgs) -> Result<()> {
    let out = ops::truth::retire::retire(&ctx.ws, "cli", &a.id, &a.why, None)?;
    format::warn_sync(&out.report);
    format::print(ctx, &out.value, |o| {
        format!(
            "retired {} ({}) in {}: {}\nit is no longer injected; `trilogy restore {}` brings it back",
            o.id, o.heading, o.file, o.marker, o.id
        )
    })
}
