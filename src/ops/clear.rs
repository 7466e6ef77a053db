//! `clear`: empty a workspace's memory, as the original's panel did. The four files are deleted
//! (the memory folder too when nothing else is left in it) and the boot block is taken out when
//! it is ours; the next session (or `init`) starts the files again from the templates and offers
//! the bootstrap again.
//!
//! Unlike the original, nothing is lost: the clear is recorded in the store first (one
//! transaction: every entry and section tombstoned, with the actor), so `trilogy log` shows it
//! and `trilogy restore` brings any entry back.

use std::path::Path;

use serde::Serialize;

use crate::error::Result;
use crate::model::FileKind;
use crate::workspace::{BOOT_START, Workspace, remove_region};

/// What a clear did.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ClearOutcome {
    /// Memory files deleted.
    pub cleared: Vec<String>,
    /// The boot block was ours and was taken out of the instruction file.
    pub boot_block_removed: bool,
    /// Entries tombstoned in the store (restorable by id).
    pub entries: usize,
    /// PROJECT sections tombstoned (restorable by revision).
    pub sections: usize,
    /// The `clear` event, when the store held memory to clear: `trilogy restore --clear N`
    /// and the panel's "restore everything" undo it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub event: Option<u64>,
}

/// Clear the memory of `ws`. `instruction_file` is the file holding the boot block (default:
/// the config's `boot_block_file`).
pub fn clear(ws: &Workspace, instruction_file: Option<&Path>, actor: &str) -> Result<ClearOutcome> {
    let any_file = FileKind::ALL
        .iter()
        .any(|f| ws.file_path(*f).symlink_metadata().is_ok());
    let mut out = ClearOutcome {
        cleared: Vec::new(),
        boot_block_removed: false,
        entries: 0,
        sections: 0,
        event: None,
    };
    // a store that never held this memory, or already cleared, has nothing to tombstone
    let store_holds = ws.store_path().exists() && !ws.cleared()?;
    if any_file || store_holds {
        let done = ws.write(actor, |tx| tx.clear_memory())?;
        out.entries = done.value.entries;
        out.sections = done.value.sections;
        out.event = Some(done.value.event);
        out.cleared = done
            .report
            .written
            .iter()
            .filter(|n| FileKind::from_name(n).is_some())
            .cloned()
            .collect();
    }
    // the folder goes only when nothing else is in it
    let dir = ws.memory_dir();
    if dir.is_dir() && std::fs::read_dir(&dir).is_ok_and(|mut d| d.next().is_none()) {
        let _ = std::fs::remove_dir(&dir);
    }
    let file = instruction_file
        .map(Path::to_path_buf)
        .unwrap_or_else(|| super::regions::boot_file(ws));
    let path = super::regions::target(ws, &file)?;
    let text = crate::workspace::read_file(&path, crate::workspace::MAX_FILE_BYTES)?;
    if text.is_some_and(|t| String::from_utf8_lossy(&t).contains(BOOT_START)) {
        out.boot_block_removed = remove_region(&path, BOOT_START, crate::workspace::BOOT_END)?;
    }
    Ok(out)
}
