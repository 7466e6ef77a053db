//! Windsurf (Cascade): the MCP server in the user's `~/.codeium/windsurf/mcp_config.json`
//! under `mcpServers` (docs.windsurf.com/windsurf/cascade/mcp: Windsurf reads no project-level
//! MCP file, so the entry is always the user's), and — Cascade runs no hooks of ours — the
//! session-start block in this project's `.windsurfrules`, which Cascade reads in every
//! conversation. Windsurf keeps at most 6,000 characters of a rules file
//! (docs.windsurf.com/windsurf/cascade/memories), so the block there is cut to fit
//! ([`crate::ops::regions`]). The server entry is shared by every project installed: uninstalling
//! one leaves it while another project's install still uses it ([`super::record`]).

use std::path::PathBuf;

use serde_json::{Value, json};

use super::plan::Plan;
use super::record::Record;
use super::settings::{self, Settings};
use super::{InstallOptions, rules, server};
use crate::error::Result;

/// The rules file Cascade reads at the project root.
pub(super) const RULES_FILE: &str = ".windsurfrules";

fn config_path(opts: &InstallOptions) -> PathBuf {
    opts.home
        .join(".codeium")
        .join("windsurf")
        .join("mcp_config.json")
}

/// Our server entry.
fn entry(opts: &InstallOptions) -> Value {
    json!({"command": opts.command, "args": ["mcp"]})
}

pub(super) fn install(opts: &InstallOptions, rec: &mut Record, plan: &mut Plan) -> Result<()> {
    let mut s = Settings::load(plan, settings::confine(opts, config_path(opts))?)?;
    server::add(opts, &mut s, "mcpServers", &entry(opts), rec)?;
    s.save(plan, rec);
    rules::add_block(opts, RULES_FILE, "", rec, plan)
}

pub(super) fn uninstall(opts: &InstallOptions, rec: &Record, plan: &mut Plan) -> Result<()> {
    server::uninstall(
        opts,
        plan,
        config_path(opts),
        "mcpServers",
        &entry(opts),
        rec,
    )?;
    rules::remove_block(opts, RULES_FILE, "", true, rec, plan)
}
