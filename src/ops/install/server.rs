//! Our `trilogy` server entry in a host's table of servers (`mcpServers`, VS Code's `servers`,
//! Zed's `context_servers`, Codex's `[mcp_servers]`), and whose it is. An entry install wrote
//! (its record says so, or another project's record holds it in a shared user file) is ours to
//! replace and to take out. Any other entry under our name is the user's own — their path,
//! arguments, environment: install leaves it and says so, or with `--force` replaces it and
//! keeps it in the record, and uninstall gives it back.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::plan::Plan;
use super::record::{Made, Record};
use super::settings::{Settings, confine, input_value, parse_error};
use super::{InstallOptions, MCP_SERVER_NAME};
use crate::error::Result;

/// What install does with the entry it finds under our name.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Decision {
    /// Write ours (there was none, or it was ours, or `--force`).
    Write,
    /// It is already what we would write.
    Leave,
    /// It is the user's own: leave it, and say so.
    Keep,
}

/// The record's key of our entry in the table `key`.
pub(super) fn entry_key(key: &str) -> String {
    format!("{key}.{MCP_SERVER_NAME}")
}

/// What the report says beside a file whose own `trilogy` entry install kept.
pub(super) fn kept_note(key: &str) -> String {
    format!(
        "kept your own `{MCP_SERVER_NAME}` entry in `{key}`, which install did not write: \
         `--force` replaces it, and uninstall then gives yours back"
    )
}

/// Decide about the entry `existing` of the table `key` in `path`, noting in `rec` what
/// becomes ours (and the user's entry `--force` replaces).
pub(super) fn decide(
    opts: &InstallOptions,
    rec: &mut Record,
    path: &Path,
    key: &str,
    existing: Option<&Value>,
    desired: &Value,
) -> Decision {
    let id = entry_key(key);
    let ours = rec.noted(Made::Key, path, &id)
        || rec.legacy_looks(existing.is_some_and(|v| looks_ours(v, desired)))
        || rec.held_elsewhere(Made::Key, path, &id);
    match existing {
        Some(v) if v == desired => {
            if ours {
                rec.note(Made::Key, path, &id);
            }
            Decision::Leave
        }
        Some(v) if !ours => {
            if !opts.force {
                return Decision::Keep;
            }
            rec.keep_replaced(path, &id, v.clone());
            rec.note(Made::Key, path, &id);
            Decision::Write
        }
        _ => {
            rec.note(Made::Key, path, &id);
            Decision::Write
        }
    }
}

/// May uninstall take the entry `existing` out of the table `key` (or put the user's back)?
pub(super) fn ours_to_undo(
    rec: &Record,
    path: &Path,
    key: &str,
    existing: &Value,
    desired: &Value,
) -> bool {
    rec.undo_entry(path, &entry_key(key), looks_ours(existing, desired))
}

/// Without a record: an entry of the shape install writes — its keys, `args: ["mcp"]`, a
/// command that runs a `trilogy` — is taken for ours.
fn looks_ours(v: &Value, desired: &Value) -> bool {
    let (Some(have), Some(want)) = (v.as_object(), desired.as_object()) else {
        return false;
    };
    let runs_trilogy = have
        .get("command")
        .and_then(Value::as_str)
        .is_some_and(super::shell::is_trilogy);
    runs_trilogy
        && have.get("args") == want.get("args")
        && have.keys().all(|k| want.contains_key(k))
}

/// Set our entry in the table `key` of a JSON settings file, leaving the other servers (and a
/// user's own entry, without `--force`) as they are.
pub(super) fn add(
    opts: &InstallOptions,
    s: &mut Settings,
    key: &str,
    desired: &Value,
    rec: &mut Record,
) -> Result<()> {
    let obj = s.object()?;
    if obj.get(key).is_none() {
        rec.note(Made::Key, &s.path, key);
    }
    let servers = obj.object_value_or_create(key).ok_or_else(|| {
        parse_error(
            &s.path,
            format!("`{key}` is not an object (it maps server names to their settings)"),
        )
    })?;
    let prop = servers.get(MCP_SERVER_NAME);
    let existing = prop
        .as_ref()
        .and_then(|p| p.value())
        .and_then(|v| v.to_serde_value());
    match decide(opts, rec, &s.path, key, existing.as_ref(), desired) {
        Decision::Leave => {}
        Decision::Keep => s.note = Some(kept_note(key)),
        Decision::Write => match prop {
            Some(p) => p.set_value(input_value(desired)),
            None => {
                servers.append(MCP_SERVER_NAME, input_value(desired));
            }
        },
    }
    Ok(())
}

/// Take our entry out of the table `key` (or put back the user's entry `--force` replaced);
/// the table goes when install made it and it is empty.
pub(super) fn remove(s: &Settings, key: &str, desired: &Value, rec: &Record) -> Result<()> {
    let obj = s.object()?;
    let Some(servers) = obj.object_value(key) else {
        return Ok(());
    };
    if let Some(p) = servers.get(MCP_SERVER_NAME)
        && let Some(v) = p.value().and_then(|v| v.to_serde_value())
        && ours_to_undo(rec, &s.path, key, &v, desired)
    {
        match rec.replaced(&s.path, &entry_key(key)) {
            Some(users) => p.set_value(input_value(users)),
            None => p.remove(),
        }
    }
    if servers.properties().is_empty()
        && rec.undo(Made::Key, &s.path, key, true)
        && let Some(p) = obj.get(key)
    {
        p.remove();
    }
    Ok(())
}

/// Plan taking our entry out of the table `key` of the settings file at `path` (confined like
/// every write), and the file back to what it was before install when nothing else changed.
pub(super) fn uninstall(
    opts: &InstallOptions,
    plan: &mut Plan,
    path: PathBuf,
    key: &str,
    desired: &Value,
    rec: &Record,
) -> Result<()> {
    let s = Settings::load(plan, confine(opts, path)?)?;
    if s.original.is_some() {
        remove(&s, key, desired, rec)?;
    }
    s.finish(plan, rec)
}
