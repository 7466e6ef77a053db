//! Cursor: the MCP server in `.cursor/mcp.json` under `mcpServers` (`--scope user`:
//! `~/.cursor/mcp.json`), and the hooks in `.cursor/hooks.json` (`~/.cursor/hooks.json`):
//! `{"version": 1, "hooks": {"sessionStart": [{"command": …}], …}}`, camelCase events with a
//! flat list of handlers (cursor.com/docs/hooks). Cursor gives the block to the model from
//! the `sessionStart` answer, so no rules file is written — the block would arrive twice.
//!
//! `--rules`, for Cursor versions without hooks: the block in `.cursor/rules/trilogy.mdc`
//! with `alwaysApply: true` instead of the hooks.

use std::path::PathBuf;

use jsonc_parser::cst::CstInputValue;
use serde_json::{Value, json};

use super::plan::Plan;
use super::record::{Made, Record};
use super::settings::{self, Settings, input_value, is_ours, parse_error};
use super::{InstallOptions, Scope, rules, server};
use crate::error::Result;
use crate::model::host::Host;

/// The rules file `--rules` writes, and the front matter that makes Cursor apply it always.
pub(super) const RULES_FILE: &str = ".cursor/rules/trilogy.mdc";
pub(super) const FRONT_MATTER: &str = "---\ndescription: trilogy project memory (PROJECT, DECISIONS, SESSIONS)\nalwaysApply: true\n---\n\n";

/// Cursor's events and the ones `trilogy hook cursor` takes. `beforeSubmitPrompt` cannot add
/// context (its answer is only `continue`), so what a Claude prompt gets — the reminder, the
/// notice of changes made elsewhere — reaches the model after the turn's first tool call,
/// from `postToolUse`'s `additional_context`.
pub(super) const EVENTS: [(&str, &str); 5] = [
    ("sessionStart", "session-start"),
    ("beforeSubmitPrompt", "user-prompt-submit"),
    ("postToolUse", "post-tool-use"),
    ("stop", "stop"),
    ("sessionEnd", "session-end"),
];

fn dir(opts: &InstallOptions) -> PathBuf {
    match opts.scope {
        Scope::Project => opts.root.join(".cursor"),
        Scope::User => opts.home.join(".cursor"),
    }
}

fn handler(opts: &InstallOptions, arg: &str) -> Value {
    json!({
        "command": super::hook_line(opts, Host::Cursor, arg),
        "timeout": 10,
    })
}

/// Our server entry.
fn entry(opts: &InstallOptions) -> Value {
    json!({"command": opts.command, "args": ["mcp"]})
}

pub(super) fn install(opts: &InstallOptions, rec: &mut Record, plan: &mut Plan) -> Result<()> {
    let mut mcp = Settings::load(plan, settings::confine(opts, dir(opts).join("mcp.json"))?)?;
    server::add(opts, &mut mcp, "mcpServers", &entry(opts), rec)?;
    mcp.save(plan, rec);
    if opts.rules {
        return rules::add_block(opts, RULES_FILE, FRONT_MATTER, rec, plan);
    }
    let s = Settings::load(plan, settings::confine(opts, dir(opts).join("hooks.json"))?)?;
    add_hooks(&s, opts, rec)?;
    s.save(plan, rec);
    Ok(())
}

pub(super) fn uninstall(opts: &InstallOptions, rec: &Record, plan: &mut Plan) -> Result<()> {
    let s = Settings::load(plan, settings::confine(opts, dir(opts).join("hooks.json"))?)?;
    if s.original.is_some() {
        remove_hooks(&s, rec)?;
    }
    s.finish(plan, rec)?;
    if opts.scope == Scope::Project {
        rules::remove_block(opts, RULES_FILE, FRONT_MATTER, true, rec, plan)?;
    }
    let mcp = dir(opts).join("mcp.json");
    server::uninstall(opts, plan, mcp, "mcpServers", &entry(opts), rec)
}

/// Merge our handlers into `hooks.<event>`, replacing an older handler of ours, and set
/// `"version": 1` when the file has no version.
fn add_hooks(s: &Settings, opts: &InstallOptions, rec: &mut Record) -> Result<()> {
    let obj = s.object()?;
    if obj.get("version").is_none() {
        rec.note(Made::Key, &s.path, "version");
        obj.append("version", CstInputValue::Number("1".into()));
    }
    if obj.get("hooks").is_none() {
        rec.note(Made::Key, &s.path, "hooks");
    }
    let hooks = obj.object_value_or_create("hooks").ok_or_else(|| {
        parse_error(
            &s.path,
            "`hooks` is not an object (it maps event names to lists of commands)".into(),
        )
    })?;
    for (event, arg) in EVENTS {
        let desired = handler(opts, arg);
        if hooks.get(event).is_none() {
            rec.note(Made::Key, &s.path, &format!("hooks.{event}"));
        }
        let list = hooks.array_value_or_create(event).ok_or_else(|| {
            parse_error(
                &s.path,
                format!("`hooks.{event}` is not a list of commands"),
            )
        })?;
        let all = list.elements();
        if all
            .iter()
            .any(|h| h.to_serde_value().as_ref() == Some(&desired))
        {
            continue;
        }
        for h in all {
            if h.to_serde_value()
                .is_some_and(|v| is_ours(&v, Host::Cursor))
            {
                h.remove();
            }
        }
        list.append(input_value(&desired));
    }
    Ok(())
}

/// Take our handlers out; the lists, `hooks` and `version` go when install made them and
/// nothing else is left in them.
fn remove_hooks(s: &Settings, rec: &Record) -> Result<()> {
    let obj = s.object()?;
    if let Some(hooks) = obj.object_value("hooks") {
        for (event, _) in EVENTS {
            let Some(list) = hooks.array_value(event) else {
                continue;
            };
            for h in list.elements() {
                if h.to_serde_value()
                    .is_some_and(|v| is_ours(&v, Host::Cursor))
                {
                    h.remove();
                }
            }
            if list.elements().is_empty()
                && rec.undo(Made::Key, &s.path, &format!("hooks.{event}"), true)
                && let Some(p) = hooks.get(event)
            {
                p.remove();
            }
        }
        if hooks.properties().is_empty()
            && rec.undo(Made::Key, &s.path, "hooks", true)
            && let Some(p) = obj.get("hooks")
        {
            p.remove();
        }
    }
    // `version` goes with the hooks it was written for (without a record: when it is all
    // that is left, since alone it says nothing)
    let only_version = obj.properties().iter().all(|p| {
        p.name()
            .and_then(|n| n.decoded_value().ok())
            .is_some_and(|n| n == "version")
    });
    if obj.get("hooks").is_none()
        && rec.undo(Made::Key, &s.path, "version", only_version)
        && let Some(p) = obj.get("version")
    {
        p.remove();
    }
    Ok(())
}
