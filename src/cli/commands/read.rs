//! `trilogy read`: a memory file, one PROJECT (or USER.md) section, or entries filtered by
//! area, date, branch and count.

use clap::Args;

use crate::error::Result;
use crate::ops::{
    self,
    read::{Asker, Request},
};

use super::super::{Context, format};
use super::parse_date;

#[derive(Args, Debug)]
pub struct ReadArgs {
    /// PROJECT.md, DECISIONS.md, SESSIONS.md, SESSIONS-archive.md, or USER.md (your own memory
    /// across projects) (default: the three main files)
    file: Option<String>,
    /// One section, by name in either language: of PROJECT.md, or of USER.md when that is
    /// the file named
    #[arg(long, value_name = "NAME")]
    section: Option<String>,
    /// Entries of this area only
    #[arg(long)]
    area: Option<String>,
    /// Entries dated on or after (YYYY-MM-DD)
    #[arg(long, value_name = "DATE")]
    since: Option<String>,
    /// Entries dated on or before (YYYY-MM-DD)
    #[arg(long, value_name = "DATE")]
    until: Option<String>,
    /// At most this many entries (newest first); implies entry mode
    #[arg(long, short = 'n')]
    limit: Option<usize>,
    /// Only entries recorded on this git branch (their provenance); implies entry mode
    #[arg(long, value_name = "BRANCH")]
    branch: Option<String>,
}

pub fn run(ctx: &Context, a: ReadArgs) -> Result<()> {
    let request = Request {
        since: parse_date("since", &a.since)?,
        until: parse_date("until", &a.until)?,
        file: a.file,
        section: a.section,
        area: a.area,
        limit: a.limit,
        branch: a.branch,
        asker: Asker::Person,
        ..Request::default()
    };
    let mut outs = Vec::new();
    for out in ops::read::run(&ctx.ws, &request)? {
        format::warn_sync(&out.report);
        outs.push(out.value);
    }
    match outs.len() {
        1 => format::print(ctx, &outs[0], format::read),
        _ => format::print(ctx, &outs, |o: &Vec<ops::ReadOutput>| {
            o.iter().map(format::read).collect::<Vec<_>>().join("\n")
        }),
    }
}
