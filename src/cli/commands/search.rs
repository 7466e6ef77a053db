//! `trilogy search`: entries and PROJECT sections found in Chinese, English or code names.

use clap::Args;

use crate::error::Result;

use super::super::{Context, format};
use super::parse_date;

#[derive(Args, Debug)]
pub struct SearchArgs {
    /// Words, a phrase, or a code name (`沙箱禁管道`, `why did we drop sqlite`, `parseSessions`)
    #[arg(required = true, num_args = 1..)]
    query: Vec<String>,
    /// Only this kind: session, decision, section, prose (text written outside entries), or
    /// user (your USER.md)
    #[arg(long, value_parser = ["session", "decision", "section", "prose", "user"])]
    kind: Option<String>,
    /// Only sessions of this area
    #[arg(long)]
    area: Option<String>,
    /// Entries dated on or after (YYYY-MM-DD)
    #[arg(long, value_name = "DATE")]
    since: Option<String>,
    /// Entries dated on or before (YYYY-MM-DD)
    #[arg(long, value_name = "DATE")]
    until: Option<String>,
    /// The archive: include (default), exclude, or only
    #[arg(long, default_value = "include", value_parser = ["include", "exclude", "only"])]
    archive: String,
    /// Number of results (default 5, at most 20)
    #[arg(long, short = 'n', default_value_t = 5)]
    limit: usize,
    /// This work tree only: leave out what sibling git work trees recorded lately
    #[arg(long)]
    here: bool,
}

pub fn run(ctx: &Context, a: SearchArgs) -> Result<()> {
    use crate::index::{ArchiveMode, SearchQuery};
    let q = SearchQuery {
        text: a.query.join(" "),
        limit: a.limit,
        kind: a.kind,
        area: a.area,
        since: parse_date("since", &a.since)?,
        until: parse_date("until", &a.until)?,
        archive: match a.archive.as_str() {
            "exclude" => ArchiveMode::Exclude,
            "only" => ArchiveMode::Only,
            _ => ArchiveMode::Include,
        },
        here: a.here,
    };
    let out = crate::ops::search::search(&ctx.ws, q)?;
    format::print(ctx, &out, format::search)
}
