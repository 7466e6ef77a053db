//! `export`, `import`, `clear` and `block status|remove|rewrite`: the panel's operations on
//! the command line.

use std::io::Read;
use std::path::PathBuf;

use clap::{Args, Subcommand};

use crate::error::{Error, Result, printable};
use crate::ops::bundle::{self, ImportMode, ImportOutcome};
use crate::ops::clear::ClearOutcome;
use crate::ops::import::{Outcome as SourceOutcome, Source};

use super::{Env, format};

pub const EXPORT_HELP: &str = "\
Write the workspace's memory files as one JSON bundle, in the original dsh-trilogy plugin's
shape: {\"kind\": \"dsh-trilogy/memory-bundle\", \"version\": 1, \"exportedAt\", \"root\",
\"files\": {\"PROJECT.md\": \"…\", …}}. Only files that exist are included (the archive too).
The original plugin imports it, and so does `trilogy import`.

Examples:
  trilogy export > memory.json
  trilogy export --out ../backup/app-memory-2026-05-01.json";

pub const IMPORT_HELP: &str = "\
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
  trilogy import --from claude CLAUDE.md --json --dry-run";

pub const CLEAR_HELP: &str = "\
Delete the four memory files (PROJECT.md, DECISIONS.md, SESSIONS.md, SESSIONS-archive.md; the
memory folder too when nothing else is in it) and take the boot block out of the boot block
file when it is ours. The next session, or `trilogy init`, starts the files again from the
templates and asks the agent to fill PROJECT.md in.

Nothing is lost: every entry and section stays in the store, marked removed. `trilogy log`
shows the clear with the ids it covered; `trilogy restore ID` brings an entry back and
`trilogy restore --section NAME --revision N` a section.

Example:
  trilogy clear --yes";

pub const BLOCK_HELP: &str = "\
With a subcommand, manage the boot block: the short pointer to the memory that `init` puts in
the boot block file (boot_block_file, default AGENTS.md), between <!-- trilogy:start --> and
<!-- trilogy:end -->.
  status   whether the file holds it, ours or the original plugin's (<!-- dsh-trilogy -->)
  remove   take it out, keeping the rest of the file (an emptied file is deleted)
  rewrite  write it again: created, appended, refreshed, or replacing the original plugin's

Without a subcommand, `trilogy block --file F` keeps the whole session-start block in a managed
region of F, for hosts without hooks (DeepSeek Harness reads AGENTS.local.md).

Examples:
  trilogy block status
  trilogy block remove --file CLAUDE.md
  trilogy block rewrite
  trilogy block --file AGENTS.local.md";

#[derive(Args, Debug)]
pub struct ExportArgs {
    /// Write the bundle to this file (atomically) instead of stdout
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Your user memory (USER.md and its proposals) instead of the workspace's; a workspace
    /// bundle never holds it
    #[arg(long)]
    user: bool,
}

#[derive(Args, Debug)]
pub struct ImportArgs {
    /// The bundle file, or `-` for stdin; with --from, the other tool's folder (or CLAUDE.md)
    #[arg(value_name = "BUNDLE|PATH")]
    file: String,
    /// Take the bundle's files whole instead of merging (what they displace stays restorable)
    #[arg(long, conflicts_with = "from")]
    replace: bool,
    /// Read another tool's memory at PATH instead of a bundle
    #[arg(long, value_name = "SOURCE", value_parser = ["claude", "cline", "delta", "basic-memory"])]
    from: Option<String>,
    /// With --from: list what would go where and what is skipped, and write nothing
    #[arg(long, requires = "from")]
    dry_run: bool,
    /// Into your user memory (a bundle written by `trilogy export --user`)
    #[arg(long, conflicts_with = "from")]
    user: bool,
}

#[derive(Args, Debug)]
pub struct ClearArgs {
    /// Go ahead (the memory files are deleted; every entry stays restorable in the store)
    #[arg(long)]
    yes: bool,
}

#[derive(Args, Debug)]
#[command(args_conflicts_with_subcommands = true)]
pub struct BlockArgs {
    #[command(subcommand)]
    action: Option<BlockAction>,
    /// Without a subcommand: the file to keep the session-start block in (e.g. AGENTS.local.md)
    #[arg(long, value_name = "FILE")]
    file: Option<PathBuf>,
}

#[derive(Subcommand, Debug)]
enum BlockAction {
    /// Show whether the boot block file holds the boot block (ours, or the original plugin's)
    Status(BootFileArgs),
    /// Take the boot block out of the file, keeping the rest (an emptied file is deleted)
    Remove(BootFileArgs),
    /// Write the boot block again (created, appended, refreshed, or replacing a legacy one)
    Rewrite(BootFileArgs),
}

#[derive(Args, Debug)]
struct BootFileArgs {
    /// The file holding the boot block, inside the workspace (default: boot_block_file)
    #[arg(long, value_name = "FILE")]
    file: Option<PathBuf>,
}

pub fn export(env: &Env, a: ExportArgs) -> Result<()> {
    let b = match a.user {
        true => bundle::export(crate::user::ready(&env.ws)?)?,
        false => bundle::export(&env.ws)?,
    };
    let text = serde_json::to_string_pretty(&b)
        .map_err(|e| Error::Internal(format!("bundle json: {e}")))?
        + "\n";
    let Some(out) = a.out else {
        format::emit_bytes(text.as_bytes());
        return Ok(());
    };
    crate::workspace::write_atomic(&out, text.as_bytes())?;
    let summary = serde_json::json!({
        "out": out.display().to_string(),
        "files": b.files.keys().collect::<Vec<_>>(),
        "bytes": text.len(),
    });
    format::print(env, &summary, |_| {
        format!(
            "wrote {} ({}; {} bytes)",
            out.display(),
            b.files.keys().cloned().collect::<Vec<_>>().join(", "),
            text.len()
        )
    })
}

pub fn import(env: &Env, a: ImportArgs) -> Result<()> {
    if let Some(from) = &a.from {
        let source = Source::parse(from)
            .ok_or_else(|| Error::bad_input(format!("unknown source `{from}`")))?;
        let out = crate::ops::import::import(&env.ws, source, &PathBuf::from(&a.file), a.dry_run)?;
        format::warn_sync(&out.sync);
        return format::print(env, &out, source_summary);
    }
    let (name, bytes) = if a.file == "-" {
        let mut buf = Vec::new();
        std::io::stdin()
            .read_to_end(&mut buf)
            .map_err(|e| Error::io("<stdin>", e))?;
        ("<stdin>".to_string(), buf)
    } else {
        let p = PathBuf::from(&a.file);
        let b = std::fs::read(&p).map_err(|e| Error::io(&p, e))?;
        (a.file.clone(), b)
    };
    let value: serde_json::Value = serde_json::from_slice(&bytes).map_err(|e| {
        Error::bad_input(format!(
            "{name}: not JSON (line {}, column {}: {e}); a bundle is the JSON object `trilogy export` writes (nothing was imported)",
            e.line(),
            e.column()
        ))
    })?;
    let mode = if a.replace {
        ImportMode::Replace
    } else {
        ImportMode::Merge
    };
    let into = match a.user {
        true => crate::user::ready(&env.ws)?,
        false => &env.ws,
    };
    let out = bundle::import(into, &value, mode, "cli")?;
    format::warn_sync(&out.sync);
    format::print(env, &out, import_summary)
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

pub fn clear(env: &Env, a: ClearArgs) -> Result<()> {
    if !a.yes {
        return Err(Error::bad_input(format!(
            "clear deletes the memory files in {} and the boot block; every entry stays in the store, restorable (`trilogy log` shows the clear, `trilogy restore ID` brings an entry back). Run `trilogy clear --yes` to go ahead",
            env.ws.memory_dir().display()
        )));
    }
    let out = crate::ops::clear::clear(&env.ws, None, "cli")?;
    format::print(env, &out, clear_summary)
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

pub fn block(env: &Env, a: BlockArgs) -> Result<()> {
    use crate::ops::block;
    let file = |f: Option<PathBuf>| f.unwrap_or_else(|| block::boot_file(&env.ws));
    match a.action {
        None => {
            let Some(f) = a.file else {
                return Err(Error::bad_input(
                    "give a subcommand (status, remove, rewrite) for the boot block, or --file F to keep the session-start block in F; `trilogy block --help` explains both",
                ));
            };
            super::agent::block(env, &f)
        }
        Some(BlockAction::Status(b)) => {
            let s = block::boot_state(&env.ws, &file(b.file))?;
            format::print(env, &s, |s| {
                let state = match (s.file_exists, s.exists, s.current) {
                    (false, _, _) => "the file does not exist",
                    (true, false, _) => "no boot block",
                    (true, true, true) => "the boot block is written",
                    (true, true, false) => {
                        "an old boot block (the original plugin's): `trilogy block rewrite` replaces it"
                    }
                };
                format!("{}: {state}", s.file)
            })
        }
        Some(BlockAction::Remove(b)) => {
            let f = file(b.file);
            let removed = block::remove_block(&env.ws, &f)?;
            let v = serde_json::json!({ "removed": removed, "file": f.display().to_string() });
            format::print(env, &v, |_| match removed {
                true => format!("took the boot block out of {}", f.display()),
                false => format!("{}: no boot block to take out", f.display()),
            })
        }
        Some(BlockAction::Rewrite(b)) => {
            let out = block::rewrite_block(&env.ws, &file(b.file))?;
            format::print(env, &out, |o| {
                let mut s = format!("{} {}", o.outcome.word(), o.file);
                if let Some(r) = &o.rescued {
                    s.push_str(&format!(" (the old block's text is kept at {r})"));
                }
                s
            })
        }
    }
}
