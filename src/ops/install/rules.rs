//! The session-start block in the rules file of a host that loads no hook output
//! (`.github/copilot-instructions.md`, `.windsurfrules`, `.rules`, `.cursor/rules/trilogy.mdc`),
//! as a managed region between the block markers of [`crate::ops::regions`]. Install writes the
//! region, the MCP server refreshes it after every write that changes memory, uninstall takes
//! it out. The rest of the file is the user's and is never touched; a file install created
//! goes when nothing but what install put there is left.

use super::plan::Plan;
use super::record::{Made, Record};
use super::{InstallOptions, settings};
use crate::error::Result;
use crate::ops::regions::{BLOCK_END, BLOCK_START};
use crate::workspace::{BootOutcome, with_region, without_region};

/// The record's key for the block region (the boot pointer's region has none).
const KEY: &str = "block";

/// Keep the block in `rel` (a path under the project root). A file that does not exist is
/// created holding `head` (front matter the host needs, or nothing) and the region.
pub(super) fn add_block(
    opts: &InstallOptions,
    rel: &str,
    head: &str,
    rec: &mut Record,
    plan: &mut Plan,
) -> Result<()> {
    let path = settings::confine(opts, opts.root.join(rel))?;
    let text = plan.read(&path)?;
    let (new, made) = match text.as_deref() {
        None => (format!("{head}{}", opts.memory_block), true),
        Some(t) => {
            let block = &opts.memory_block;
            let (new, outcome) = with_region(&path, Some(t), BLOCK_START, BLOCK_END, block)?;
            (new, outcome == BootOutcome::Appended)
        }
    };
    if made {
        rec.note_region(&path, KEY, text.as_deref());
    }
    plan.put(&path, text, Some(new), rec);
    Ok(())
}

/// Take the block out of `rel` when install put it there (without a record: `fallback`).
/// The file goes when install created it and only `head` is left.
pub(super) fn remove_block(
    opts: &InstallOptions,
    rel: &str,
    head: &str,
    fallback: bool,
    rec: &Record,
    plan: &mut Plan,
) -> Result<()> {
    let path = settings::confine(opts, opts.root.join(rel))?;
    if !rec.undo(Made::Region, &path, KEY, fallback) {
        return Ok(());
    }
    let Some(text) = plan.read(&path)? else {
        return Ok(());
    };
    let tail = rec.tail(&path);
    let Some(rest) = without_region(&path, &text, BLOCK_START, BLOCK_END, tail)? else {
        return Ok(());
    };
    let only_head = rest.trim().is_empty() || rest.trim() == head.trim();
    let gone = only_head && rec.undo(Made::File, &path, "", true);
    plan.change(&path, Some(text), Some(rest).filter(|_| !gone));
    Ok(())
}
