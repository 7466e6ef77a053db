//! `trilogy resolve`: memory files git left unmerged, merged by entry and staged; the
//! unparseable exit when conflict markers stay.

use clap::Args;

use crate::error::{Exit, Result};
use crate::ops;

use super::super::{Context, format};

#[derive(Args, Debug)]
pub struct ResolveArgs {
    /// Only these files (paths as `git status` shows them); default: every unmerged memory file
    files: Vec<String>,
}

pub fn run(ctx: &Context, a: ResolveArgs) -> Result<()> {
    let done = ops::gitmerge::resolve(&ctx.ws, &a.files)?;
    format::print(ctx, &done, |d| format::resolved(d))?;
    if done.iter().any(|r| r.conflicts > 0) {
        // the markers left make the file one that does not parse
        std::process::exit(Exit::Unparseable.code());
    }
    Ok(())
}
