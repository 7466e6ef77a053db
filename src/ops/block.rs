//! `block`: for hosts without hooks (DeepSeek Harness reads `AGENTS.md` / `AGENTS.local.md`),
//! keep the session-start block in a managed region of a file of the user's choice, rewritten
//! only when its content changes.

use std::path::{Component, Path, PathBuf};

use serde::Serialize;

use crate::error::{Error, Result};
use crate::workspace::{BootOutcome, Workspace, ensure_region};

use super::inject::{Budget, assemble};

/// Markers around the managed block (distinct from the boot block's).
pub const BLOCK_START: &str = "<!-- trilogy:memory:start -->";
pub const BLOCK_END: &str = "<!-- trilogy:memory:end -->";

#[derive(Debug, Clone, Serialize)]
pub struct BlockOutcome {
    pub path: String,
    pub outcome: BootOutcome,
    pub bytes: usize,
}

/// The file, which must stay inside the workspace root.
fn target(ws: &Workspace, file: &Path) -> Result<PathBuf> {
    let escapes = file.components().any(|c| matches!(c, Component::ParentDir));
    let path = if file.is_absolute() {
        file.to_path_buf()
    } else {
        ws.root.join(file)
    };
    if escapes || !path.starts_with(&ws.root) {
        return Err(Error::bad_input(format!(
            "{}: the block file must be inside the workspace {}",
            file.display(),
            ws.root.display()
        )));
    }
    // a link out of the workspace is refused, not followed
    ws.inside(&path)
}

/// Write (or refresh) the block in `file`.
pub fn write_block(ws: &Workspace, file: &Path) -> Result<BlockOutcome> {
    ws.require_memory()?;
    let path = target(ws, file)?;
    let budget = Budget::effective(&ws.config, None, None);
    let block = ws
        .read(|r| {
            assemble(r, &ws.config, ws.clock.today(), budget, &|| {
                super::file_date(ws, r)
            })
        })?
        .value;
    let region = format!("{BLOCK_START}\n{}\n{BLOCK_END}\n", block.text);
    let outcome = ensure_region(&path, BLOCK_START, BLOCK_END, &region)?;
    Ok(BlockOutcome {
        path: path.display().to_string(),
        outcome,
        bytes: block.text.len(),
    })
}

/// The file hosts without hooks read (DeepSeek Harness: `AGENTS.local.md`).
pub const DEFAULT_BLOCK_FILE: &str = "AGENTS.local.md";

/// Refresh the block in `file` only when that file already holds our region (the user opted
/// in with `trilogy block` or `trilogy install dsh`). Returns whether it was rewritten.
pub fn refresh_if_present(ws: &Workspace, file: &Path) -> Result<bool> {
    let path = target(ws, file)?;
    let Ok(text) = std::fs::read_to_string(&path) else {
        return Ok(false);
    };
    if !text.contains(BLOCK_START) {
        return Ok(false);
    }
    Ok(write_block(ws, file)?.outcome != BootOutcome::Unchanged)
}

/// The `dsh-mcp-client` entry for a DeepSeek Harness profile (`cordis.yml`).
pub fn dsh_snippet(command: &str) -> String {
    format!(
        "- id: mcp-trilogy\n  name: '@deepseek-ai/dsh-mcp-client'\n  config:\n    serverName: trilogy\n    transport: stdio\n    command: {command}\n    args: ['mcp']\n    toolCallTimeoutMs: 60000\n"
    )
}
