//! `trilogy log`: the event log (every change, who made it), or a section's revisions.

use clap::Args;

use crate::error::Result;
use crate::ops::{self, LogQuery};

use super::super::{Context, format};

#[derive(Args, Debug)]
pub struct LogArgs {
    /// Number of events (newest first)
    #[arg(long, short = 'n', default_value_t = 20)]
    limit: usize,
    /// Only events about this entry id (prefix)
    #[arg(long)]
    id: Option<String>,
    /// Show the revisions of this PROJECT section instead
    #[arg(long, value_name = "NAME")]
    section: Option<String>,
}

pub fn run(ctx: &Context, a: LogArgs) -> Result<()> {
    let view = ops::log(
        &ctx.ws,
        &LogQuery {
            limit: a.limit,
            id: a.id,
            section: a.section,
        },
    )?;
    format::print(ctx, &view, format::log)
}
