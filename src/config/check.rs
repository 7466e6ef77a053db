//! What a setting's value may be beyond its type: paths that stay inside the workspace and
//! need no escaping, bounded numbers. A repository's `trilogy.toml` is untrusted input; this
//! module judges values handed to it and never reads a file.

use super::{Config, recall, user};

/// Longest lock wait a setting may ask for: a hook waits at most this long for another writer.
const MAX_LOCK_TIMEOUT_MS: i64 = 600_000;

/// Checks beyond the type. A repository's `trilogy.toml` is untrusted input (hooks run in any
/// repository an agent opens), so every path it names must stay inside the workspace and hold
/// nothing that could break out of the text it is written into.
pub(super) fn check_value(key: &str, v: &toml::Value) -> std::result::Result<(), String> {
    if let Some(checked) = user::check_value(key, v) {
        return checked;
    }
    if key == "recall_hosts"
        && let Some(checked) = recall::check_hosts(v)
    {
        return checked;
    }
    match (key, v) {
        ("memory_dir_name" | "boot_block_file" | "templates_dir", toml::Value::String(s)) => {
            check_rel_path(s)
        }
        ("project_root_markers", toml::Value::Array(items)) => items
            .iter()
            .filter_map(toml::Value::as_str)
            .try_for_each(check_rel_path),
        ("sibling_days", toml::Value::Integer(n)) if *n > 365 => Err(format!(
            "{n} days: sibling work trees are shown for at most 365 days back; use a smaller value"
        )),
        ("mcp_read_bytes", toml::Value::Integer(n)) if !(2048..=4_194_304).contains(n) => {
            Err(format!(
                "{n} bytes: a memory_read answer holds from 2048 to 4194304 bytes; use a value in that range"
            ))
        }
        ("lock_timeout_ms", toml::Value::Integer(n)) if *n > MAX_LOCK_TIMEOUT_MS => Err(format!(
            "{n} ms is longer than the {MAX_LOCK_TIMEOUT_MS} ms a session start may wait; use a smaller value"
        )),
        _ => Ok(()),
    }
}

/// A relative path inside the workspace, written with characters that need no escaping in the
/// Markdown and the git attribute lines it is substituted into.
pub(super) fn check_rel_path(s: &str) -> std::result::Result<(), String> {
    let shown = s.escape_debug();
    if s.is_empty() {
        return Err("empty; give a relative path inside the project, e.g. \"memory\"".into());
    }
    if s.chars().any(char::is_control) {
        return Err(format!(
            "\"{shown}\" holds a control character (newline, tab, …); use a plain relative path"
        ));
    }
    if s.starts_with('/') || s.starts_with('\\') || s.contains(':') {
        return Err(format!(
            "\"{shown}\" is absolute; it must be a relative path inside the project"
        ));
    }
    let allowed = |c: char| c.is_alphanumeric() || matches!(c, '.' | '_' | '-' | '/');
    if let Some(c) = s.chars().find(|c| !allowed(*c)) {
        return Err(format!(
            "\"{shown}\" holds `{c}`; use letters, digits, `.`, `_`, `-` and `/`"
        ));
    }
    for part in s.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                return Err(format!(
                    "\"{shown}\" climbs out of the project with `..`; it must stay inside it"
                ));
            }
            _ if part.eq_ignore_ascii_case(".git") || part.eq_ignore_ascii_case(".trilogy") => {
                return Err(format!(
                    "\"{shown}\" points into `{part}/`, which trilogy never writes to; choose another folder"
                ));
            }
            _ => {}
        }
    }
    if s.split('/').all(|p| p.is_empty() || p == ".") {
        return Err(format!(
            "\"{shown}\" names the project folder itself; give a path inside it"
        ));
    }
    Ok(())
}

/// A path with `.` parts and repeated slashes gone, lower-cased: how two settings are
/// compared (a case-insensitive file system takes `Memory/sessions.MD` for the log itself).
fn normal(path: &str) -> String {
    (path.split('/'))
        .filter(|p| !p.is_empty() && *p != ".")
        .collect::<Vec<_>>()
        .join("/")
        .to_lowercase()
}

/// Checks across keys: the boot block never goes into a file trilogy keeps otherwise (a memory
/// file, the archive, `trilogy.toml`), and the memory folder is never one of those files.
pub(super) fn check_paths(c: &Config) -> std::result::Result<(), (&'static str, String)> {
    let dir = normal(&c.memory_dir_name);
    let block = normal(&c.boot_block_file);
    let kept = [
        "PROJECT.md",
        "DECISIONS.md",
        "SESSIONS.md",
        "SESSIONS-archive.md",
    ];
    if block == "trilogy.toml" || block == dir {
        return Err((
            "boot_block_file",
            format!(
                "\"{}\" is a file trilogy keeps for itself; name the instructions file your agents read, e.g. \"AGENTS.md\"",
                c.boot_block_file
            ),
        ));
    }
    if let Some(f) = kept
        .iter()
        .find(|f| block == format!("{dir}/{}", f.to_lowercase()))
    {
        return Err((
            "boot_block_file",
            format!(
                "\"{}\" is the memory file {f}; name the instructions file your agents read, e.g. \"AGENTS.md\"",
                c.boot_block_file
            ),
        ));
    }
    if dir == "trilogy.toml" {
        return Err((
            "memory_dir_name",
            format!(
                "\"{}\" is a file trilogy keeps for itself; name a folder, e.g. \"memory\"",
                c.memory_dir_name
            ),
        ));
    }
    Ok(())
}
