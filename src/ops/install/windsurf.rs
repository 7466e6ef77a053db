//! Windsurf (Cascade): the MCP server in the user's `~/.codeium/windsurf/mcp_config.json`
//! under `mcpServers` (docs.windsurf.com/windsurf/cascade/mcp: Windsurf reads no project-level
//! MCP file, so the entry is always the user's), and — Cascade runs no hooks of ours — the
//! session-start block in this project's `.windsurfrules`, which Cascade reads in every
//! conversation. Windsurf keeps at most 6,000 characters of a rules file
//! (docs.windsurf.com/windsurf/cascade/memories), so the block there is cut to fit
//! ([`crate::ops::block`]).

use std::path::PathBuf;

use serde_json::json;

use super::record::Record;
use super::settings::{self, Settings};
use super::{FileChange, InstallOptions, rules};
use crate::error::Result;

/// The rules file Cascade reads at the project root.
pub(super) const RULES_FILE: &str = ".windsurfrules";

fn config_path(opts: &InstallOptions) -> PathBuf {
    opts.home
        .join(".codeium")
        .join("windsurf")
        .join("mcp_config.json")
}

pub(super) fn install(
    opts: &InstallOptions,
    rec: &mut Record,
    changes: &mut Vec<FileChange>,
) -> Result<()> {
    let s = Settings::load(settings::confine(opts, config_path(opts))?)?;
    let entry = json!({"command": opts.command, "args": ["mcp"]});
    settings::add_mcp(&s, &entry, rec)?;
    changes.push(s.save(rec)?);
    changes.push(rules::add_block(opts, RULES_FILE, "", rec)?);
    Ok(())
}

pub(super) fn uninstall(
    opts: &InstallOptions,
    rec: &mut Record,
    changes: &mut Vec<FileChange>,
) -> Result<()> {
    changes.extend(settings::uninstall_server(
        opts,
        config_path(opts),
        "mcpServers",
        rec,
    )?);
    changes.extend(rules::remove_block(opts, RULES_FILE, "", true, rec)?);
    Ok(())
}
