//! `trilogy read`: a memory file, one PROJECT (or USER.md) section, or entries filtered by
//! area, date, branch and count.

use clap::Args;

use crate::error::{Error, Result};
use crate::model::FileKind;
use crate::ops::{self, EntryFilter, ReadTarget};

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
    if a.file.as_deref().is_some_and(crate::user::is_file) {
        let target = match a.section {
            Some(s) => ReadTarget::Section(s),
            None => ReadTarget::File(FileKind::Project),
        };
        let out = ops::read(crate::user::ready(&ctx.ws)?, &target)?;
        format::warn_sync(&out.report);
        return format::print(ctx, &out.value, format::read);
    }
    if a.section.is_some()
        && let Some(f) = a
            .file
            .as_deref()
            .filter(|f| FileKind::from_name(f) != Some(FileKind::Project))
    {
        return Err(Error::bad_input(format!(
            "--section reads a section of PROJECT.md or USER.md, not of {f}; drop the file name, or name one of those two"
        )));
    }
    let file = a
        .file
        .as_deref()
        .map(|f| {
            FileKind::from_name(f).ok_or_else(|| {
                Error::bad_input(format!(
                    "unknown file `{f}`; choose PROJECT.md, DECISIONS.md, SESSIONS.md, SESSIONS-archive.md or USER.md"
                ))
            })
        })
        .transpose()?;
    let entry_mode = a.area.is_some()
        || a.since.is_some()
        || a.until.is_some()
        || a.limit.is_some()
        || a.branch.is_some();
    let targets: Vec<ReadTarget> = if let Some(s) = a.section {
        vec![ReadTarget::Section(s)]
    } else if entry_mode {
        vec![ReadTarget::Entries(EntryFilter {
            file: file.unwrap_or(FileKind::Sessions),
            area: a.area,
            since: parse_date("since", &a.since)?,
            until: parse_date("until", &a.until)?,
            limit: a.limit.unwrap_or(usize::MAX),
            branch: a.branch,
        })]
    } else if let Some(f) = file {
        vec![ReadTarget::File(f)]
    } else {
        [FileKind::Project, FileKind::Decisions, FileKind::Sessions]
            .into_iter()
            .map(ReadTarget::File)
            .collect()
    };
    let mut outs = Vec::new();
    for t in &targets {
        let out = ops::read(&ctx.ws, t)?;
        format::warn_sync(&out.report);
        outs.push(out.value);
    }
    if outs.len() == 1 {
        format::print(ctx, &outs[0], format::read)
    } else {
        format::print(ctx, &outs, |o: &Vec<ops::ReadOutput>| {
            o.iter().map(format::read).collect::<Vec<_>>().join("\n")
        })
    }
}
