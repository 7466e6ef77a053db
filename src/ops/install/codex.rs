//! Codex CLI: hooks in `.codex/hooks.json`, the MCP server as `[mcp_servers.trilogy]` in
//! `.codex/config.toml` with its tools approved (they only read and write the memory files;
//! `codex exec` never asks, so without it a checkpoint would always be refused), and the
//! pointer in `AGENTS.md`, which Codex reads (`--scope user`: `~/.codex/`). Codex runs project
//! hooks only in trusted projects, after the user reviews them once (`/hooks`).

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::plan::Plan;
use super::record::{Made, Record};
use super::server::{self, Decision};
use super::settings::{self, HookSpec, Settings};
use super::{InstallOptions, MCP_SERVER_NAME, Scope};
use crate::error::Result;
use crate::model::host::Host;

pub(super) const SPECS: [HookSpec; 6] = [
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
    HookSpec {
        event: "SessionEnd",
        matcher: None,
        arg: "session-end",
        timeout: 5,
    },
    HookSpec {
        event: "PreCompact",
        matcher: None,
        arg: "pre-compact",
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
        "command": super::hook_line(opts, Host::Codex, spec.arg),
        "timeout": spec.timeout,
    })
}

pub(super) fn install(opts: &InstallOptions, rec: &mut Record, plan: &mut Plan) -> Result<()> {
    let s = Settings::load(plan, settings::confine(opts, dir(opts).join("hooks.json"))?)?;
    let groups: Vec<_> = SPECS
        .iter()
        .map(|spec| (spec, settings::group(spec, handler(opts, spec))))
        .collect();
    settings::add_hooks(&s, Host::Codex, &groups, rec)?;
    s.save(plan, rec);
    add_config(opts, rec, plan)?;
    if opts.scope == Scope::Project {
        super::add_pointer(opts, "AGENTS.md", rec, plan)?;
    }
    Ok(())
}

pub(super) fn uninstall(opts: &InstallOptions, rec: &Record, plan: &mut Plan) -> Result<()> {
    remove_config(opts, rec, plan)?;
    let s = Settings::load(plan, settings::confine(opts, dir(opts).join("hooks.json"))?)?;
    if s.original.is_some() {
        settings::remove_hooks(&s, Host::Codex, &SPECS, rec)?;
    }
    s.finish(plan, rec)?;
    // AGENTS.md is also where a new project's memory pointer goes: without a record, it stays
    if opts.scope == Scope::Project {
        super::remove_pointer(opts, "AGENTS.md", false, rec, plan)?;
    }
    Ok(())
}

/// The table of servers in `config.toml`.
const SERVERS: &str = "mcp_servers";

/// Our `[mcp_servers.trilogy]`, as JSON (how [`server`] compares entries).
fn entry(opts: &InstallOptions) -> Value {
    json!({
        "command": opts.command,
        "args": ["mcp"],
        "default_tools_approval_mode": "approve",
    })
}

fn parse(path: &Path, text: Option<&str>) -> Result<toml_edit::DocumentMut> {
    text.unwrap_or("")
        .parse()
        .map_err(|e| settings::parse_error(path, format!("not valid TOML ({e})")))
}

/// Set `[mcp_servers.trilogy]` in `config.toml` (a user's own entry stays without `--force`).
fn add_config(opts: &InstallOptions, rec: &mut Record, plan: &mut Plan) -> Result<()> {
    let path = settings::confine(opts, dir(opts).join("config.toml"))?;
    let original = plan.read(&path)?;
    let crlf = original.as_deref().is_some_and(settings::is_crlf);
    let mut doc = parse(&path, original.as_deref())?;
    if doc.get(SERVERS).is_none() {
        rec.note(Made::Key, &path, SERVERS);
    }
    let servers = doc
        .entry(SERVERS)
        .or_insert_with(|| {
            let mut t = toml_edit::Table::new();
            t.set_implicit(true);
            toml_edit::Item::Table(t)
        })
        .as_table_like_mut()
        .ok_or_else(|| settings::parse_error(&path, "`mcp_servers` is not a table".into()))?;
    let existing = servers.get(MCP_SERVER_NAME).map(toml_json);
    let desired = entry(opts);
    let mut note = None;
    match server::decide(opts, rec, &path, SERVERS, existing.as_ref(), &desired) {
        Decision::Leave => {}
        Decision::Keep => note = Some(server::kept_note(SERVERS)),
        Decision::Write => {
            servers.insert(MCP_SERVER_NAME, json_table(&desired));
        }
    }
    let text = settings::line_ends(doc.to_string(), crlf);
    plan.put(&path, original, Some(text), rec);
    if let Some(n) = note {
        plan.note(n);
    }
    Ok(())
}

/// Take `[mcp_servers.trilogy]` out of `config.toml` (or put back the user's entry `--force`
/// replaced); the file goes when install made it and nothing is left.
fn remove_config(opts: &InstallOptions, rec: &Record, plan: &mut Plan) -> Result<()> {
    let path = settings::confine(opts, dir(opts).join("config.toml"))?;
    let Some(original) = plan.read(&path)? else {
        return Ok(());
    };
    let crlf = settings::is_crlf(&original);
    let mut doc = parse(&path, Some(&original))?;
    if let Some(t) = doc.get_mut(SERVERS).and_then(|i| i.as_table_like_mut()) {
        let existing = t.get(MCP_SERVER_NAME).map(toml_json);
        if let Some(v) = existing
            && server::ours_to_undo(rec, &path, SERVERS, &v, &entry(opts))
        {
            match rec.replaced(&path, &server::entry_key(SERVERS)) {
                Some(users) => {
                    t.insert(MCP_SERVER_NAME, json_table(users));
                }
                None => {
                    t.remove(MCP_SERVER_NAME);
                }
            }
        }
        if t.is_empty() && rec.undo(Made::Key, &path, SERVERS, true) {
            doc.remove(SERVERS);
        }
    }
    let text = settings::line_ends(doc.to_string(), crlf);
    let empty = text.trim().is_empty();
    settings::plan_removal(plan, &path, Some(original), text, empty, rec);
    Ok(())
}

/// A TOML item as JSON.
fn toml_json(item: &toml_edit::Item) -> Value {
    match item {
        toml_edit::Item::Value(v) => value_json(v),
        toml_edit::Item::Table(t) => Value::Object(
            t.iter()
                .map(|(k, i)| (k.to_string(), toml_json(i)))
                .collect(),
        ),
        toml_edit::Item::ArrayOfTables(a) => Value::Array(
            a.iter()
                .map(|t| {
                    Value::Object(
                        t.iter()
                            .map(|(k, i)| (k.to_string(), toml_json(i)))
                            .collect(),
                    )
                })
                .collect(),
        ),
        toml_edit::Item::None => Value::Null,
    }
}

fn value_json(v: &toml_edit::Value) -> Value {
    use toml_edit::Value as T;
    match v {
        T::String(s) => Value::String(s.value().clone()),
        T::Integer(i) => json!(*i.value()),
        T::Float(f) => json!(*f.value()),
        T::Boolean(b) => json!(*b.value()),
        T::Datetime(d) => Value::String(d.value().to_string()),
        T::Array(a) => Value::Array(a.iter().map(value_json).collect()),
        T::InlineTable(t) => Value::Object(
            t.iter()
                .map(|(k, v)| (k.to_string(), value_json(v)))
                .collect(),
        ),
    }
}

/// A JSON object as a TOML table (objects inside it as inline tables).
fn json_table(v: &Value) -> toml_edit::Item {
    let mut t = toml_edit::Table::new();
    for (k, x) in v.as_object().into_iter().flatten() {
        t.insert(k, toml_edit::Item::Value(json_value(x)));
    }
    toml_edit::Item::Table(t)
}

fn json_value(v: &Value) -> toml_edit::Value {
    match v {
        Value::Bool(b) => (*b).into(),
        Value::Number(n) => match n.as_i64() {
            Some(i) => i.into(),
            None => n.as_f64().unwrap_or_default().into(),
        },
        Value::String(s) => s.as_str().into(),
        Value::Array(a) => toml_edit::Value::Array(a.iter().map(json_value).collect()),
        Value::Object(o) => toml_edit::Value::InlineTable(
            o.iter().map(|(k, x)| (k.clone(), json_value(x))).collect(),
        ),
        Value::Null => "".into(),
    }
}
