//! The session-start block in the rules file of a host that loads no hook output
//! (`.github/copilot-instructions.md`, `.windsurfrules`, `.rules`, `.cursor/rules/trilogy.mdc`),
//! as a managed region between the block markers of [`crate::ops::block`]. Install writes the
//! region, the MCP server refreshes it after every write that changes memory, uninstall takes
//! it out. The rest of the file is the user's and is never touched; a file install created
//! goes when nothing but what install put there is left.

use std::path::{Path, PathBuf};

use super::record::{Made, Record};
use super::{FileChange, InstallOptions, settings};
use crate::error::{Error, Result};
use crate::ops::block::{BLOCK_END, BLOCK_START};
use crate::workspace::{BootOutcome, ensure_region, remove_region, write_atomic};

/// The record's key for the block region (the boot pointer's region has none).
const KEY: &str = "block";

/// Create the folders of `dir` that are missing, noting each one for uninstall.
fn make_dirs(dir: &Path, rec: &mut Record) -> Result<()> {
    let mut missing: Vec<PathBuf> = dir
        .ancestors()
        .take_while(|d| !d.exists())
        .map(Path::to_path_buf)
        .collect();
    missing.reverse();
    for d in missing {
        std::fs::create_dir(&d).map_err(|e| Error::io(&d, e))?;
        rec.note(Made::Dir, &d, "");
    }
    Ok(())
}

/// Keep the block in `rel` (a path under the project root). A file that does not exist is
/// created holding `head` (front matter the host needs, or nothing) and the region.
pub(super) fn add_block(
    opts: &InstallOptions,
    rel: &str,
    head: &str,
    rec: &mut Record,
) -> Result<FileChange> {
    let path = settings::confine(opts, opts.root.join(rel))?;
    let existed = settings::read_optional(&path)?.is_some();
    if !existed {
        if let Some(dir) = path.parent() {
            make_dirs(dir, rec)?;
        }
        write_atomic(&path, format!("{head}{}", opts.memory_block).as_bytes())?;
        rec.note(Made::File, &path, "");
        rec.note(Made::Region, &path, KEY);
        return Ok(FileChange {
            path: path.display().to_string(),
            action: "created",
        });
    }
    let action = match ensure_region(&path, BLOCK_START, BLOCK_END, &opts.memory_block)? {
        BootOutcome::Unchanged => "unchanged",
        BootOutcome::Appended => {
            rec.note(Made::Region, &path, KEY);
            "updated"
        }
        _ => "updated",
    };
    Ok(FileChange {
        path: path.display().to_string(),
        action,
    })
}

/// Take the block out of `rel` when install put it there (without a record: `fallback`).
/// The file goes when install created it and only `head` is left; then the folders install
/// made, when they are empty.
pub(super) fn remove_block(
    opts: &InstallOptions,
    rel: &str,
    head: &str,
    fallback: bool,
    rec: &Record,
) -> Result<Option<FileChange>> {
    let path = settings::confine(opts, opts.root.join(rel))?;
    if !rec.undo(Made::Region, &path, KEY, fallback) {
        return Ok(None);
    }
    if !remove_region(&path, BLOCK_START, BLOCK_END)? {
        return Ok(None);
    }
    if !head.trim().is_empty()
        && settings::read_optional(&path)?.is_some_and(|t| t.trim() == head.trim())
        && rec.undo(Made::File, &path, "", true)
    {
        std::fs::remove_file(&path).map_err(|e| Error::io(&path, e))?;
    }
    let mut dir = path.parent();
    while let Some(d) = dir.filter(|d| rec.undo(Made::Dir, d, "", false)) {
        // fails, as it should, when anything is left in it
        if std::fs::remove_dir(d).is_err() {
            break;
        }
        dir = d.parent();
    }
    Ok(Some(FileChange {
        path: path.display().to_string(),
        action: if path.exists() { "updated" } else { "removed" },
    }))
}
