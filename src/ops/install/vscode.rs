//! VS Code (GitHub Copilot agent mode): the MCP server in `.vscode/mcp.json`, under the
//! top-level `servers` with `"type": "stdio"` (code.visualstudio.com/docs/copilot/reference/
//! mcp-configuration), and — Copilot runs no hooks of ours — the session-start block in
//! `.github/copilot-instructions.md`, which Copilot adds to every chat request. Project scope
//! only: VS Code keeps user-level servers in its profile (`code --add-mcp`).

use serde_json::json;

use super::record::Record;
use super::settings::{self, Settings};
use super::{FileChange, InstallOptions, rules};
use crate::error::Result;

/// The rules file Copilot reads in every chat of the workspace.
pub(super) const RULES_FILE: &str = ".github/copilot-instructions.md";

const SERVERS: &str = "servers";

pub(super) fn install(
    opts: &InstallOptions,
    rec: &mut Record,
    changes: &mut Vec<FileChange>,
) -> Result<()> {
    let path = settings::confine(opts, opts.root.join(".vscode").join("mcp.json"))?;
    let s = Settings::load(path)?;
    let entry = json!({"type": "stdio", "command": opts.command, "args": ["mcp"]});
    settings::add_server(&s, SERVERS, &entry, rec)?;
    changes.push(s.save(rec)?);
    changes.push(rules::add_block(opts, RULES_FILE, "", rec)?);
    Ok(())
}

pub(super) fn uninstall(
    opts: &InstallOptions,
    rec: &mut Record,
    changes: &mut Vec<FileChange>,
) -> Result<()> {
    let path = opts.root.join(".vscode").join("mcp.json");
    changes.extend(settings::uninstall_server(opts, path, SERVERS, rec)?);
    changes.extend(rules::remove_block(opts, RULES_FILE, "", true, rec)?);
    Ok(())
}
