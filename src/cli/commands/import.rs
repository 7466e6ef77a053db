//! `trilogy import`: a bundle loaded (merged by entry, or `--replace`), or another tool's
//! memory mapped into entries with `--from`.

use std::io::BufReader;
use std::path::PathBuf;

use clap::Args;

use crate::error::{Error, Result, printable};
use crate::ops::bundle::{self, ImportMode, ImportOutcome};
use crate::ops::import::{Outcome as SourceOutcome, Source};

use super::super::{Context, format};

pub const HELP: &str = "\
Load a bundle written by `trilogy export` or by the original plugin's panel. The whole bundle
is checked first (its kind, its files, that each parses, that none holds a credential); a bad
one changes nothing.

Into a workspace without memory (or with untouched templates) the files are written byte for
byte. Into one with memory the bundle merges by entry, like the git merge driver: entries the
workspace does not know are added, nothing is overwritten; a PROJECT section that differs
keeps the current text, and the bundle's is kept as a section revision with a report
(`trilogy reports`). With --replace the bundle's files are taken whole; everything they
displace stays in the store (`trilogy log`, then `trilogy restore ID` or
`trilogy restore --section NAME --revision N`).

With --from SOURCE, PATH is another tool's memory, mapped into entries:
  claude        Claude Code's auto memory folder (~/.claude/projects/<project>/memory:
                MEMORY.md and the topic files it links), or a CLAUDE.md file
  cline         a Cline or Roo memory bank (memory-bank/ with projectbrief.md,
                productContext.md, techContext.md, systemPatterns.md, activeContext.md,
                progress.md)
  delta         a dsh-memory-delta store (facts/, decisions/, archive/)
  basic-memory  a basic-memory project's notes (observations and relations)
  gemini        Gemini CLI's GEMINI.md: its notes by heading, and the facts save_memory
                keeps under `## Gemini Added Memories` (to State), or a folder holding one
  codex         Codex's memories folder (~/.codex/memories) or its MEMORY.md: of the task
                groups about this workspace (their `cwd=`), reusable knowledge to State and
                failures to Traps; groups about other folders, and user preferences, are skipped
PROJECT text goes into the section it belongs to (only what the section lacks); decisions and
sessions take the source's own dates, so importing again, on any day, adds nothing. Entries
are recorded as `import:<source>`. --dry-run lists every piece, where it goes and what is
skipped and why, and writes nothing. The source is only read: symbolic links are not
followed, special files and files over 1 MiB are skipped (and listed), and a credential
anywhere in it refuses the whole import, naming file and line.

Examples:
  trilogy import memory.json
  curl -s http://host/bundle.json | trilogy import -
  trilogy import --replace memory.json
  trilogy import --from cline memory-bank --dry-run
  trilogy import --from claude ~/.claude/projects/-home-me-app/memory
  trilogy import --from claude CLAUDE.md --json --dry-run
  trilogy import --from gemini ~/.gemini/GEMINI.md --dry-run
  trilogy import --from codex ~/.codex/memories --dry-run";

#[derive(Args, Debug)]
pub struct ImportArgs {
    /// The bundle file, or `-` for stdin; with --from, the other tool's folder (or CLAUDE.md,
    /// GEMINI.md, MEMORY.md)
    #[arg(value_name = "BUNDLE|PATH")]
    file: String,
    /// Take the bundle's files whole instead of merging (what they displace stays restorable)
    #[arg(long, conflicts_with = "from")]
    replace: bool,
    /// Read another tool's memory at PATH instead of a bundle
    #[arg(long, value_name = "SOURCE", value_parser = ["claude", "cline", "delta", "basic-memory", "gemini", "codex"])]
    from: Option<String>,
    /// With --from: list what would go where and what is skipped, and write nothing
    #[arg(long, requires = "from")]
    dry_run: bool,
    /// Into your user memory (a bundle written by `trilogy export --user`)
    #[arg(long, conflicts_with = "from")]
    user: bool,
}

pub fn run(ctx: &Context, a: ImportArgs) -> Result<()> {
    if let Some(from) = &a.from {
        let source = Source::parse(from)
            .ok_or_else(|| Error::bad_input(format!("unknown source `{from}`")))?;
        let out = crate::ops::import::import(&ctx.ws, source, &PathBuf::from(&a.file), a.dry_run)?;
        format::warn_sync(&out.sync);
        return format::print(ctx, &out, source_summary);
    }
    // parsed as it is read: the bundle's bytes are never held beside the value they make
    let (name, parsed) = if a.file == "-" {
        (
            "<stdin>".to_string(),
            serde_json::from_reader(std::io::stdin().lock()),
        )
    } else {
        let p = PathBuf::from(&a.file);
        let f = std::fs::File::open(&p).map_err(|e| Error::io(&p, e))?;
        (
            a.file.clone(),
            serde_json::from_reader(BufReader::with_capacity(1 << 16, f)),
        )
    };
    let value: serde_json::Value = parsed.map_err(|e| match e.is_io() {
        true => Error::io(&name, e.into()),
        false => Error::bad_input(format!(
            "{name}: not JSON (line {}, column {}: {e}); a bundle is the JSON object `trilogy export` writes (nothing was imported)",
            e.line(),
            e.column()
        )),
    })?;
    let mode = if a.replace {
        ImportMode::Replace
    } else {
        ImportMode::Merge
    };
    let into = match a.user {
        true => crate::workspace::user::ready(&ctx.ws)?,
        false => &ctx.ws,
    };
    let out = bundle::import(into, &value, mode, "cli")?;
    format::warn_sync(&out.sync);
    format::print(ctx, &out, import_summary)
}

/// What an import from another tool's files did (or would do): its source files' names are
/// the person's own, printed with their control characters escaped.
fn source_summary(o: &SourceOutcome) -> String {
    let mut lines = vec![format!(
        "{} from {}{}",
        if o.dry_run {
            "would import"
        } else {
            "imported"
        },
        printable(&o.path),
        if o.dry_run {
            " (dry run: nothing written)"
        } else {
            ""
        }
    )];
    for i in &o.items {
        let mark = match i.status {
            "add" => "+",
            "removed-here" => "~",
            _ => "=",
        };
        let state = match i.state {
            Some(s) if s != "live" => format!(" [{s}]"),
            _ => String::new(),
        };
        let note = match i.status {
            "present" => " (already here)",
            "removed-here" => " (removed here: `trilogy restore` brings it back)",
            _ => "",
        };
        lines.push(format!(
            "  {mark} {}: {}{state}{note}  ← {}",
            i.to,
            i.text,
            printable(&i.from)
        ));
    }
    if !o.skipped.is_empty() {
        lines.push("skipped:".into());
        for s in &o.skipped {
            lines.push(format!("  - {}: {}", printable(&s.from), s.reason));
        }
    }
    let tail = if o.dry_run {
        if o.added > 0 {
            "; run again without --dry-run to import".to_string()
        } else {
            String::new()
        }
    } else if o.written.is_empty() {
        "; no file changed".to_string()
    } else {
        format!("; wrote {}", o.written.join(", "))
    };
    lines.push(format!(
        "{} {}, {} already here{tail}",
        o.added,
        if o.dry_run { "to add" } else { "added" },
        o.present
    ));
    lines.join("\n")
}

fn import_summary(o: &ImportOutcome) -> String {
    let mut lines = Vec::new();
    let files = if o.written.is_empty() {
        "no file changed".to_string()
    } else {
        format!("wrote {}", o.written.join(", "))
    };
    lines.push(match o.mode {
        "empty" => format!("imported into an empty workspace: {files}"),
        "replace" => format!(
            "replaced with the bundle's files: {files} (what they displaced is restorable: `trilogy log`)"
        ),
        _ => format!(
            "merged: {} entries added, {} already here; {files}",
            o.added, o.already_present
        ),
    });
    if !o.sections_added.is_empty() {
        lines.push(format!(
            "PROJECT sections taken from the bundle: {}",
            o.sections_added.join(", ")
        ));
    }
    for k in &o.sections_kept {
        lines.push(format!(
            "PROJECT section `{s}` differs: the current text was kept; the bundle's is revision {r} (`trilogy restore --section \"{s}\" --revision {r}` takes it; report #{n})",
            s = k.section,
            r = k.revision,
            n = k.report
        ));
    }
    if !o.ignored.is_empty() {
        lines.push(format!(
            "ignored (not memory files): {}",
            o.ignored.join(", ")
        ));
    }
    lines.join("\n")
}
