//! Zed: the MCP server as a context server in `.zed/settings.json` (`--scope user`:
//! `~/.config/zed/settings.json`) under `context_servers`, in the flat stdio shape of Zed's
//! `ContextServerSettingsContent` (`command`, `args` — required, even empty — `env`;
//! `"source": "custom"` kept for Zed versions whose enum was tagged by it). Zed's settings are
//! JSON with comments: the file is edited in place through the same concrete syntax tree as
//! every JSON host, so comments, trailing commas and spacing stay as they were.
//!
//! Zed's agent runs no hooks of ours: the session-start block goes into `.rules` at the
//! project root, the first of the names Zed's agent looks for (`.rules`, `.cursorrules`,
//! `.windsurfrules`, `.clinerules`, `.github/copilot-instructions.md`, `CLAUDE.md`,
//! `AGENT.md`, `AGENTS.md`, `GEMINI.md`; it reads only the first that exists — Zed's
//! `crates/agent/src/agent.rs`, `RULES_FILE_NAMES`). The user scope writes no rules file.

use std::path::PathBuf;

use serde_json::{Value, json};

use super::plan::Plan;
use super::record::Record;
use super::settings::{self, Settings};
use super::{InstallOptions, Scope, rules, server};
use crate::error::Result;

/// The rules file Zed's agent reads first.
pub(super) const RULES_FILE: &str = ".rules";

/// The other files Zed's agent would read, in its order: `.rules` takes their place.
pub const SHADOWED: [&str; 8] = [
    ".cursorrules",
    ".windsurfrules",
    ".clinerules",
    ".github/copilot-instructions.md",
    "CLAUDE.md",
    "AGENT.md",
    "AGENTS.md",
    "GEMINI.md",
];

const SERVERS: &str = "context_servers";

fn settings_path(opts: &InstallOptions) -> PathBuf {
    match opts.scope {
        Scope::Project => opts.root.join(".zed").join("settings.json"),
        Scope::User => opts.home.join(".config").join("zed").join("settings.json"),
    }
}

/// Our server entry.
fn entry(opts: &InstallOptions) -> Value {
    json!({
        "source": "custom",
        "command": opts.command,
        "args": ["mcp"],
        "env": {},
    })
}

pub(super) fn install(opts: &InstallOptions, rec: &mut Record, plan: &mut Plan) -> Result<()> {
    let mut s = Settings::load(plan, settings::confine(opts, settings_path(opts))?)?;
    server::add(opts, &mut s, SERVERS, &entry(opts), rec)?;
    s.save(plan, rec);
    if opts.scope == Scope::Project {
        rules::add_block(opts, RULES_FILE, "", rec, plan)?;
    }
    Ok(())
}

pub(super) fn uninstall(opts: &InstallOptions, rec: &Record, plan: &mut Plan) -> Result<()> {
    server::uninstall(opts, plan, settings_path(opts), SERVERS, &entry(opts), rec)?;
    if opts.scope == Scope::Project {
        rules::remove_block(opts, RULES_FILE, "", true, rec, plan)?;
    }
    Ok(())
}
