//! Codex CLI: hooks in `.codex/hooks.json`, the MCP server as `[mcp_servers.trilogy]` in
//! `.codex/config.toml` with its tools approved (they only read and write the memory files;
//! `codex exec` never asks, so without it a checkpoint would always be refused), and the
//! pointer in `AGENTS.md`, which Codex reads (`--scope user`: `~/.codex/`). Codex runs project
//! hooks only in trusted projects, after the user reviews them once (`/hooks`).

use std::path::PathBuf;

use serde_json::{Value, json};

use super::record::{Made, Record};
use super::settings::{self, HookSpec, Settings};
use super::{FileChange, InstallOptions, MCP_SERVER_NAME, Scope, Target, shell_quote};
use crate::error::Result;

pub(super) const SPECS: [HookSpec; 4] = [
    HookSpec {
        event: "SessionStart",
        matcher: Some("startup|resume|clear|compact"),
        arg: "session-start",
        timeout: 10,
    },
    HookSpec {
        event: "UserPromptSubmit",
        matcher: None,
        arg: "user-prompt-submit",
        timeout: 10,
    },
    HookSpec {
        event: "PostToolUse",
        matcher: Some("Bash|apply_patch|Edit|Write|mcp__trilogy__.*"),
        arg: "post-tool-use",
        timeout: 10,
    },
    HookSpec {
        event: "Stop",
        matcher: None,
        arg: "stop",
        timeout: 10,
    },
];

fn dir(opts: &InstallOptions) -> PathBuf {
    match opts.scope {
        Scope::Project => opts.root.join(".codex"),
        Scope::User => opts.home.join(".codex"),
    }
}

fn handler(opts: &InstallOptions, spec: &HookSpec) -> Value {
    json!({
        "type": "command",
        "command": format!("{} hook codex {}", shell_quote(&opts.command), spec.arg),
        "timeout": spec.timeout,
    })
}

pub(super) fn install(
    opts: &InstallOptions,
    rec: &mut Record,
    changes: &mut Vec<FileChange>,
) -> Result<()> {
    let s = Settings::load(settings::confine(opts, dir(opts).join("hooks.json"))?)?;
    let groups: Vec<_> = SPECS
        .iter()
        .map(|spec| (spec, settings::group(spec, handler(opts, spec))))
        .collect();
    settings::add_hooks(&s, Target::Codex, &groups, rec)?;
    changes.push(s.save(rec)?);
    changes.extend(config(opts, rec, false)?);
    if opts.scope == Scope::Project {
        changes.push(super::add_pointer(opts, "AGENTS.md", rec)?);
    }
    Ok(())
}

pub(super) fn uninstall(
    opts: &InstallOptions,
    rec: &mut Record,
    changes: &mut Vec<FileChange>,
) -> Result<()> {
    changes.extend(config(opts, rec, true)?);
    let s = Settings::load(settings::confine(opts, dir(opts).join("hooks.json"))?)?;
    if s.original.is_some() {
        settings::remove_hooks(&s, Target::Codex, &SPECS, rec)?;
    }
    changes.extend(s.finish(rec)?);
    // AGENTS.md is also where a new project's memory pointer goes: without a record, it stays
    if opts.scope == Scope::Project {
        changes.extend(super::remove_pointer(opts, "AGENTS.md", false, rec)?);
    }
    Ok(())
}

/// The `[mcp_servers.trilogy]` table of `config.toml`: set, or taken out (`remove`).
fn config(opts: &InstallOptions, rec: &mut Record, remove: bool) -> Result<Option<FileChange>> {
    let path = settings::confine(opts, dir(opts).join("config.toml"))?;
    let original = settings::read_optional(&path)?;
    if remove && original.is_none() {
        return Ok(None);
    }
    let crlf = original.as_deref().is_some_and(settings::is_crlf);
    let mut doc: toml_edit::DocumentMut = original
        .as_deref()
        .unwrap_or("")
        .parse()
        .map_err(|e| settings::parse_error(&path, format!("not valid TOML ({e})")))?;
    if remove {
        if let Some(t) = doc
            .get_mut("mcp_servers")
            .and_then(|i| i.as_table_like_mut())
        {
            t.remove(MCP_SERVER_NAME);
            if t.is_empty() && rec.undo(Made::Key, &path, "mcp_servers", true) {
                doc.remove("mcp_servers");
            }
        }
    } else {
        if doc.get("mcp_servers").is_none() {
            rec.note(Made::Key, &path, "mcp_servers");
        }
        let servers = doc
            .entry("mcp_servers")
            .or_insert_with(|| {
                let mut t = toml_edit::Table::new();
                t.set_implicit(true);
                toml_edit::Item::Table(t)
            })
            .as_table_like_mut()
            .ok_or_else(|| settings::parse_error(&path, "`mcp_servers` is not a table".into()))?;
        let mut entry = toml_edit::Table::new();
        entry.insert("command", toml_edit::value(opts.command.as_str()));
        let mut args = toml_edit::Array::new();
        args.push("mcp");
        entry.insert("args", toml_edit::value(args));
        entry.insert("default_tools_approval_mode", toml_edit::value("approve"));
        let same = servers
            .get(MCP_SERVER_NAME)
            .and_then(|i| i.as_table_like())
            .is_some_and(|t| {
                let s = |k: &str| t.get(k).and_then(|v| v.as_str());
                s("command") == Some(opts.command.as_str())
                    && s("default_tools_approval_mode") == Some("approve")
                    && t.get("args").and_then(|v| v.as_array()).is_some_and(|a| {
                        a.iter().map(|v| v.as_str()).collect::<Vec<_>>() == vec![Some("mcp")]
                    })
            });
        if !same {
            servers.insert(MCP_SERVER_NAME, toml_edit::Item::Table(entry));
        }
    }
    let text = settings::line_ends(doc.to_string(), crlf);
    let change = if remove {
        let original = original.as_deref().unwrap_or_default();
        settings::write_or_remove(&path, original, &text, text.trim().is_empty(), rec)?
    } else {
        FileChange {
            action: settings::write_text(&path, original.as_deref(), &text, rec)?,
            path: path.display().to_string(),
        }
    };
    Ok(Some(change))
}
