//! VS Code (GitHub Copilot agent mode): the MCP server in `.vscode/mcp.json`, under the
//! top-level `servers` with `"type": "stdio"` (code.visualstudio.com/docs/copilot/reference/
//! mcp-configuration), and — Copilot runs no hooks of ours — the session-start block in
//! `.github/copilot-instructions.md`, which Copilot adds to every chat request. Project scope
//! only: VS Code keeps user-level servers in its profile (`code --add-mcp`).

use serde_json::{Value, json};

use super::plan::Plan;
use super::record::Record;
use super::settings::{self, Settings};
use super::{InstallOptions, rules, server};
use crate::error::Result;

/// The rules file Copilot reads in every chat of the workspace.
pub(super) const RULES_FILE: &str = ".github/copilot-instructions.md";

const SERVERS: &str = "servers";

/// Our server entry.
fn entry(opts: &InstallOptions) -> Value {
    json!({"type": "stdio", "command": opts.command, "args": ["mcp"]})
}

pub(super) fn install(opts: &InstallOptions, rec: &mut Record, plan: &mut Plan) -> Result<()> {
    let path = settings::confine(opts, opts.root.join(".vscode").join("mcp.json"))?;
    let mut s = Settings::load(plan, path)?;
    server::add(opts, &mut s, SERVERS, &entry(opts), rec)?;
    s.save(plan, rec);
    rules::add_block(opts, RULES_FILE, "", rec, plan)
}

pub(super) fn uninstall(opts: &InstallOptions, rec: &Record, plan: &mut Plan) -> Result<()> {
    let path = opts.root.join(".vscode").join("mcp.json");
    server::uninstall(opts, plan, path, SERVERS, &entry(opts), rec)?;
    rules::remove_block(opts, RULES_FILE, "", true, rec, plan)
}
