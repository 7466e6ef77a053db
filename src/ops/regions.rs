//! `block`: for hosts without hooks (DeepSeek Harness reads `AGENTS.md` / `AGENTS.local.md`),
//! keep the session-start block in a managed region of a file of the user's choice, rewritten
//! only when its content changes.
//!
//! Also the boot block (the short pointer to the memory that scaffolding puts in
//! `boot_block_file`, default `AGENTS.md`): its state, removal and rewrite, as the panel's
//! boot buttons and `trilogy block status|remove|rewrite` do them.

use std::path::{Component, Path, PathBuf};

use serde::Serialize;

use crate::error::{Error, Result};
use crate::workspace::{
    BootOutcome, Workspace, boot_presence, ensure_boot_block, ensure_region, remove_boot_block,
};

use super::session_block::{Budget, assemble};

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
pub(crate) fn target(ws: &Workspace, file: &Path) -> Result<PathBuf> {
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

/// Characters Windsurf keeps of a rules file (docs.windsurf.com/windsurf/cascade/memories:
/// "Rules files are limited to 6000 characters"), less room for the markers and a line of
/// the user's own.
pub const WINDSURF_RULES_CHARS: usize = 5_800;

/// The rules files of hosts without hooks that install keeps the block in, refreshed after
/// every write when they hold the region (`install vscode|windsurf|zed`, `install cursor
/// --rules`, `install dsh --static`).
pub const RULES_FILES: [&str; 5] = [
    DEFAULT_BLOCK_FILE,
    ".github/copilot-instructions.md",
    ".windsurfrules",
    ".rules",
    ".cursor/rules/trilogy.mdc",
];

/// The characters the host reading `file` keeps of it, when it keeps only so many.
fn char_cap(file: &Path) -> Option<usize> {
    (file.file_name().is_some_and(|n| n == ".windsurfrules")).then_some(WINDSURF_RULES_CHARS)
}

/// The block and its markers as they go into `file`: the region [`write_block`] keeps.
pub fn region(ws: &Workspace, file: &Path) -> Result<(String, usize)> {
    ws.require_memory()?;
    let budget = Budget::effective(&ws.config, None, char_cap(file));
    let block = ws
        .read(|r| {
            // a block written into a committed file never holds sibling work trees' entries
            assemble(
                r,
                &ws.config,
                ws.clock.today(),
                budget,
                &|| super::file_date(ws, r),
                &[],
            )
        })?
        .value;
    Ok((
        format!("{BLOCK_START}\n{}\n{BLOCK_END}\n", block.text),
        block.text.len(),
    ))
}

/// Write (or refresh) the block in `file`.
pub fn write_block(ws: &Workspace, file: &Path) -> Result<BlockOutcome> {
    let path = target(ws, file)?;
    let (region, bytes) = region(ws, file)?;
    let outcome = ensure_region(&path, BLOCK_START, BLOCK_END, &region)?;
    Ok(BlockOutcome {
        path: path.display().to_string(),
        outcome,
        bytes,
    })
}

/// Refresh the block in every rules file of [`RULES_FILES`] that holds it. Returns the files
/// rewritten; a file that cannot be refreshed does not stop the others.
pub fn refresh_rules_files(ws: &Workspace) -> (Vec<String>, Vec<Error>) {
    let (mut done, mut failed) = (Vec::new(), Vec::new());
    for f in RULES_FILES {
        match refresh_if_present(ws, Path::new(f)) {
            Ok(true) => done.push(f.to_string()),
            Ok(false) => {}
            Err(e) => failed.push(e),
        }
    }
    (done, failed)
}

/// The file hosts without hooks read (DeepSeek Harness: `AGENTS.local.md`).
pub const DEFAULT_BLOCK_FILE: &str = "AGENTS.local.md";

/// Refresh the block in `file` only when that file already holds our region (the user opted
/// in with `trilogy block` or `trilogy install dsh`). Returns whether it was rewritten.
pub fn refresh_if_present(ws: &Workspace, file: &Path) -> Result<bool> {
    let path = target(ws, file)?;
    // a FIFO or a device in its place is an error naming it, never waited on
    let Some(bytes) = crate::workspace::read_file(&path, crate::workspace::MAX_FILE_BYTES)? else {
        return Ok(false);
    };
    // a file that is not text never held the region
    if !String::from_utf8_lossy(&bytes).contains(BLOCK_START) {
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

/// Where the boot block stands in a file (the panel's boot badge).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BootState {
    /// The file's absolute path.
    pub file: String,
    /// The file holds a boot block (ours, or the original plugin's).
    pub exists: bool,
    pub file_exists: bool,
    /// The block is ours, between the current markers (false for a legacy block).
    pub current: bool,
    /// The block trilogy writes.
    pub block: String,
}

/// The boot block file named in the config (`boot_block_file`, default `AGENTS.md`).
pub fn boot_file(ws: &Workspace) -> PathBuf {
    PathBuf::from(&ws.config.boot_block_file)
}

/// The state of the boot block in `file` (relative to the root, or absolute inside it).
pub fn boot_state(ws: &Workspace, file: &Path) -> Result<BootState> {
    let path = target(ws, file)?;
    let p = boot_presence(&path)?;
    Ok(BootState {
        file: path.display().to_string(),
        exists: p.exists,
        file_exists: p.file_exists,
        current: p.current,
        block: ws.boot_block_text()?,
    })
}

/// Take the boot block out of `file` (ours, else a legacy one), keeping the rest of the file;
/// a file left empty is deleted. Returns whether a block was there.
pub fn remove_block(ws: &Workspace, file: &Path) -> Result<bool> {
    let path = target(ws, file)?;
    remove_boot_block(&path)
}

/// What rewriting the boot block did.
#[derive(Debug, Clone, Serialize)]
pub struct Rewritten {
    pub file: String,
    pub outcome: BootOutcome,
    /// Where the text of a replaced legacy block was kept.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rescued: Option<String>,
}

/// Write the boot block into `file`: created, appended, refreshed in place, or replacing a
/// legacy block (whose text is kept under `.trilogy/rescued/`).
pub fn rewrite_block(ws: &Workspace, file: &Path) -> Result<Rewritten> {
    let path = target(ws, file)?;
    let block = ws.boot_block_text()?;
    let rescue_dir = ws.rescue_dir()?;
    let (outcome, rescued) = ensure_boot_block(&path, &block, &rescue_dir)?;
    Ok(Rewritten {
        file: path.display().to_string(),
        outcome,
        rescued: rescued.map(|p| p.display().to_string()),
    })
}
