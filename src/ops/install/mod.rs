//! `install` / `uninstall`: merge trilogy's hooks and MCP server entry into an agent host's
//! settings without touching anything else, idempotently, and keep the host's pointer to the
//! memory (`CLAUDE.md`, `AGENTS.md`, `GEMINI.md`). One file per host says where and what.
//! Hosts that load no hook output (VS Code, Windsurf, Zed; Cursor with `--rules`) get the
//! session-start block itself in the rules file they read, as a managed region ([`rules`]).
//!
//! Our handlers are recognised by their command (`… trilogy hook <host> <event>`), so other
//! hooks, even on the same events, are left exactly as they were. What install created — a
//! file, a folder, a key, a rule, a region — is recorded ([`record`]), and `uninstall` takes
//! out that and nothing else: a user's own empty `"hooks": {}` or `{"mcpServers":{}}` stays,
//! a folder install made goes when it is empty. Files keep their line ends (CRLF stays CRLF).

mod claude;
mod codex;
mod cursor;
pub mod dsh;
mod gemini;
mod record;
mod rules;
mod settings;
#[cfg(test)]
mod tests;
mod vscode;
mod windsurf;
mod zed;

use std::path::PathBuf;

use serde::Serialize;

use crate::error::Result;
use crate::workspace::{BOOT_END, BOOT_START, BootOutcome};
use record::{Made, Record};

/// Hosts `install` knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    Claude,
    Codex,
    Gemini,
    Cursor,
    Vscode,
    Windsurf,
    Zed,
}

impl Target {
    pub fn parse(s: &str) -> Option<Target> {
        match s {
            "claude" => Some(Target::Claude),
            "codex" => Some(Target::Codex),
            "gemini" => Some(Target::Gemini),
            "cursor" => Some(Target::Cursor),
            "vscode" => Some(Target::Vscode),
            "windsurf" => Some(Target::Windsurf),
            "zed" => Some(Target::Zed),
            _ => None,
        }
    }

    pub(crate) fn name(self) -> &'static str {
        match self {
            Target::Claude => "claude",
            Target::Codex => "codex",
            Target::Gemini => "gemini",
            Target::Cursor => "cursor",
            Target::Vscode => "vscode",
            Target::Windsurf => "windsurf",
            Target::Zed => "zed",
        }
    }

    /// The rules file that holds the block, for a host that loads no hook output (`rules`:
    /// Cursor was asked for its rules file instead of hooks). Zed's user scope has none.
    pub fn block_file(self, scope: Scope, rules: bool) -> Option<&'static str> {
        match (self, scope) {
            (Target::Vscode, _) => Some(vscode::RULES_FILE),
            (Target::Windsurf, _) => Some(windsurf::RULES_FILE),
            (Target::Zed, Scope::Project) => Some(zed::RULES_FILE),
            (Target::Cursor, Scope::Project) if rules => Some(cursor::RULES_FILE),
            _ => None,
        }
    }

    /// Why this host cannot be installed with `scope`, and what to do instead.
    pub fn refuses(self, scope: Scope, rules: bool) -> Option<String> {
        match (self, scope) {
            (Target::Windsurf, Scope::Project) => Some(
                "Windsurf reads MCP servers only from the user file ~/.codeium/windsurf/mcp_config.json, \
                 never from a project: run `trilogy install windsurf` without --scope (the block still \
                 goes into this project's .windsurfrules)"
                    .into(),
            ),
            (Target::Vscode, Scope::User) => Some(
                "VS Code keeps user-level MCP servers in its profile, not in a file trilogy edits: \
                 install per project (`trilogy install vscode`), or add the server for every \
                 workspace with `code --add-mcp '{\"name\":\"trilogy\",\"command\":\"trilogy\",\"args\":[\"mcp\"]}'`"
                    .into(),
            ),
            (Target::Cursor, Scope::User) if rules => Some(
                "--rules writes .cursor/rules/trilogy.mdc, which belongs to a project: leave out \
                 --scope user, or drop --rules to install the hooks in ~/.cursor/hooks.json"
                    .into(),
            ),
            _ => None,
        }
    }
}

/// Where the settings go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// The repository (`.claude/`, `.codex/`, `.gemini/`), committable.
    Project,
    /// The user's home (`~/.claude/`, `~/.codex/`, `~/.gemini/`), all projects.
    User,
}

/// What to install, and where.
#[derive(Debug, Clone)]
pub struct InstallOptions {
    pub target: Target,
    pub scope: Scope,
    /// How hosts run trilogy: `trilogy` when it is on PATH, or an absolute path.
    pub command: String,
    pub root: PathBuf,
    pub home: PathBuf,
    /// The boot block kept in the host's pointer file (see `Workspace::boot_block_text`).
    pub boot_block: String,
    /// trilogy's state folder (`$XDG_STATE_HOME/trilogy`), where install records what it
    /// made; `None` keeps no record.
    pub state: Option<PathBuf>,
    /// The session-start block, between its markers, for hosts that read it from a rules
    /// file (see [`Target::needs_block`]); empty otherwise.
    pub memory_block: String,
    /// Cursor: the always-applied rules file `.cursor/rules/trilogy.mdc` instead of hooks,
    /// for Cursor versions without hooks.
    pub rules: bool,
}

/// One file `install` looked at.
#[derive(Debug, Clone, Serialize)]
pub struct FileChange {
    pub path: String,
    /// `created`, `updated`, `unchanged`, `removed`.
    pub action: &'static str,
}

/// Files Zed's agent would read that `.rules`, the first of its names, takes the place of.
pub use zed::SHADOWED as ZED_SHADOWED;

/// Name of our MCP server entry (tools appear as `mcp__trilogy__memory_*`).
pub const MCP_SERVER_NAME: &str = "trilogy";

/// `s` as one shell word (quoted only when it needs to be).
pub(crate) fn shell_quote(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+:@".contains(c))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// Merge our hooks, MCP server entry and pointer for the host.
pub fn install(opts: &InstallOptions) -> Result<Vec<FileChange>> {
    if let Some(why) = opts.target.refuses(opts.scope, opts.rules) {
        return Err(crate::error::Error::bad_input(why));
    }
    let mut rec = Record::load(opts)?;
    let mut changes = Vec::new();
    let done = match opts.target {
        Target::Claude => claude::install(opts, &mut rec, &mut changes),
        Target::Codex => codex::install(opts, &mut rec, &mut changes),
        Target::Gemini => gemini::install(opts, &mut rec, &mut changes),
        Target::Cursor => cursor::install(opts, &mut rec, &mut changes),
        Target::Vscode => vscode::install(opts, &mut rec, &mut changes),
        Target::Windsurf => windsurf::install(opts, &mut rec, &mut changes),
        Target::Zed => zed::install(opts, &mut rec, &mut changes),
    };
    // what was made before a failure is recorded too, so uninstall can take it out
    rec.save();
    done.map(|()| changes)
}

/// Take our hooks, MCP entry and pointer out again, restoring what was there.
pub fn uninstall(opts: &InstallOptions) -> Result<Vec<FileChange>> {
    if let Some(why) = opts.target.refuses(opts.scope, false) {
        return Err(crate::error::Error::bad_input(why));
    }
    let mut rec = Record::load(opts)?;
    let mut changes = Vec::new();
    match opts.target {
        Target::Claude => claude::uninstall(opts, &mut rec, &mut changes)?,
        Target::Codex => codex::uninstall(opts, &mut rec, &mut changes)?,
        Target::Gemini => gemini::uninstall(opts, &mut rec, &mut changes)?,
        Target::Cursor => cursor::uninstall(opts, &mut rec, &mut changes)?,
        Target::Vscode => vscode::uninstall(opts, &mut rec, &mut changes)?,
        Target::Windsurf => windsurf::uninstall(opts, &mut rec, &mut changes)?,
        Target::Zed => zed::uninstall(opts, &mut rec, &mut changes)?,
    }
    rec.forget();
    Ok(changes)
}

/// Keep the boot block in the host's pointer file `name` at the project root.
fn add_pointer(opts: &InstallOptions, name: &str, rec: &mut Record) -> Result<FileChange> {
    let md = settings::confine(opts, opts.root.join(name))?;
    let outcome = crate::workspace::ensure_region(&md, BOOT_START, BOOT_END, &opts.boot_block)?;
    let action = match outcome {
        BootOutcome::Created => {
            rec.note(Made::File, &md, "");
            rec.note(Made::Region, &md, "");
            "created"
        }
        BootOutcome::Appended => {
            rec.note(Made::Region, &md, "");
            "updated"
        }
        BootOutcome::Unchanged => "unchanged",
        _ => "updated",
    };
    Ok(FileChange {
        path: md.display().to_string(),
        action,
    })
}

/// Take the boot block out of `name` when install put it there (without a record:
/// `fallback`); the file goes when nothing else is left in it.
fn remove_pointer(
    opts: &InstallOptions,
    name: &str,
    fallback: bool,
    rec: &Record,
) -> Result<Option<FileChange>> {
    let md = settings::confine(opts, opts.root.join(name))?;
    if !rec.undo(Made::Region, &md, "", fallback) {
        return Ok(None);
    }
    if !crate::workspace::remove_region(&md, BOOT_START, BOOT_END)? {
        return Ok(None);
    }
    Ok(Some(FileChange {
        path: md.display().to_string(),
        action: if md.exists() { "updated" } else { "removed" },
    }))
}
