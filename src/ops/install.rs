//! `install` / `uninstall`: merge trilogy's hooks into an agent host's settings without touching
//! anything else, idempotently; and keep the pointer to the memory in `CLAUDE.md`.
//!
//! Our handlers are recognised by their command (`… trilogy hook <host> <event>`), so other
//! hooks, even on the same events, are left exactly as they were.

use std::path::{Path, PathBuf};

use jsonc_parser::ParseOptions;
use jsonc_parser::cst::{CstArray, CstInputValue, CstNode, CstObject, CstRootNode};
use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::error::{Error, Result};
use crate::workspace::{BOOT_END, BOOT_START, ensure_region, remove_region, write_atomic};

/// Hosts `install` knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    Claude,
    Codex,
}

impl Target {
    pub fn parse(s: &str) -> Option<Target> {
        match s {
            "claude" => Some(Target::Claude),
            "codex" => Some(Target::Codex),
            _ => None,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Target::Claude => "claude",
            Target::Codex => "codex",
        }
    }
}

/// Where the settings go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// The repository (`.claude/settings.json`, `.codex/hooks.json`), committable.
    Project,
    /// The user's home (`~/.claude/settings.json`, `~/.codex/hooks.json`), all projects.
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
    /// The boot block `install claude` keeps in `CLAUDE.md` (see `Workspace::boot_block_text`).
    pub boot_block: String,
}

/// One file `install` looked at.
#[derive(Debug, Clone, Serialize)]
pub struct FileChange {
    pub path: String,
    /// `created`, `updated`, `unchanged`, `removed`.
    pub action: &'static str,
}

struct HookSpec {
    event: &'static str,
    matcher: Option<&'static str>,
    arg: &'static str,
    timeout: u64,
}

fn specs(target: Target) -> Vec<HookSpec> {
    let tools = match target {
        Target::Claude => "Edit|Write|NotebookEdit|MultiEdit|Bash|PowerShell|mcp__trilogy__.*",
        Target::Codex => "Bash|apply_patch|Edit|Write|mcp__trilogy__.*",
    };
    let mut v = vec![
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
            matcher: Some(tools),
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
    if target == Target::Claude {
        v.push(HookSpec {
            event: "SessionEnd",
            matcher: None,
            arg: "session-end",
            timeout: 5,
        });
    }
    v
}

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

fn group(opts: &InstallOptions, spec: &HookSpec) -> Value {
    let handler = json!({
        "type": "command",
        "command": format!("{} hook {} {}", shell_quote(&opts.command), opts.target.name(), spec.arg),
        "timeout": spec.timeout,
    });
    let mut g = Map::new();
    if let Some(m) = spec.matcher {
        g.insert("matcher".into(), Value::String(m.into()));
    }
    g.insert("hooks".into(), Value::Array(vec![handler]));
    Value::Object(g)
}

/// Is this handler one of ours (for this host)?
fn is_ours(handler: &Value, target: Target) -> bool {
    let Some(cmd) = handler.get("command").and_then(Value::as_str) else {
        return false;
    };
    let marker = format!(" hook {} ", target.name());
    let Some(pos) = cmd.find(&marker) else {
        return false;
    };
    let program = cmd[..pos].trim().trim_matches(|c| c == '\'' || c == '"');
    Path::new(program)
        .file_name()
        .is_some_and(|n| n == "trilogy")
}

/// A file inside the project is written only through the workspace fence (a cloned repository
/// may commit `.claude/settings.json` as a link to a file elsewhere); user files are the user's.
fn confine(opts: &InstallOptions, path: PathBuf) -> Result<PathBuf> {
    if crate::workspace::is_under(&opts.root, &path) {
        crate::workspace::beneath(&opts.root, &path)
    } else {
        Ok(path)
    }
}

fn settings_path(opts: &InstallOptions) -> PathBuf {
    let base = match opts.scope {
        Scope::Project => opts.root.clone(),
        Scope::User => opts.home.clone(),
    };
    match opts.target {
        Target::Claude => base.join(".claude").join("settings.json"),
        Target::Codex => base.join(".codex").join("hooks.json"),
    }
}

/// A settings file edited in place: only the nodes trilogy adds or removes change, every other
/// byte (order, spacing, comments) stays as the user wrote it.
struct Settings {
    path: PathBuf,
    original: Option<String>,
    root: CstRootNode,
}

fn parse_error(path: &Path, reason: String) -> Error {
    Error::Unparseable {
        path: path.to_path_buf(),
        line: 1,
        reason: format!("{reason}; nothing was changed"),
    }
}

impl Settings {
    fn load(path: PathBuf) -> Result<Settings> {
        let original = match std::fs::read_to_string(&path) {
            Ok(t) => Some(t),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return Err(Error::io(&path, e)),
        };
        let text = original
            .as_deref()
            .filter(|t| !t.trim().is_empty())
            .unwrap_or("{}\n");
        let root = CstRootNode::parse(text, &ParseOptions::default())
            .map_err(|e| parse_error(&path, format!("not valid JSON ({e})")))?;
        Ok(Settings {
            path,
            original,
            root,
        })
    }

    fn object(&self) -> Result<CstObject> {
        self.root
            .object_value_or_create()
            .ok_or_else(|| parse_error(&self.path, "the settings are not a JSON object".into()))
    }

    fn save(self) -> Result<&'static str> {
        let text = self.root.to_string();
        let text = if text.ends_with('\n') {
            text
        } else {
            format!("{text}\n")
        };
        if self.original.as_deref() == Some(text.as_str()) {
            return Ok("unchanged");
        }
        if let Some(dir) = self.path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        }
        write_atomic(&self.path, text.as_bytes())?;
        Ok(if self.original.is_some() {
            "updated"
        } else {
            "created"
        })
    }
}

fn input_value(v: &Value) -> CstInputValue {
    match v {
        Value::Null => CstInputValue::Null,
        Value::Bool(b) => CstInputValue::Bool(*b),
        Value::Number(n) => CstInputValue::Number(n.to_string()),
        Value::String(s) => CstInputValue::String(s.clone()),
        Value::Array(a) => CstInputValue::Array(a.iter().map(input_value).collect()),
        Value::Object(o) => {
            CstInputValue::Object(o.iter().map(|(k, v)| (k.clone(), input_value(v))).collect())
        }
    }
}

/// Remove our handlers from the groups of one event; a group left empty by that goes too.
fn strip_ours(groups: &CstArray, target: Target) {
    for group in groups.elements() {
        let Some(handlers) = group.as_object().and_then(|g| g.array_value("hooks")) else {
            continue;
        };
        let all = handlers.elements();
        let ours: Vec<CstNode> = all
            .iter()
            .filter(|h| h.to_serde_value().is_some_and(|v| is_ours(&v, target)))
            .cloned()
            .collect();
        if !ours.is_empty() && ours.len() == all.len() {
            group.remove();
        } else {
            ours.into_iter().for_each(CstNode::remove);
        }
    }
}

/// The file that registers MCP servers for the host and scope.
fn mcp_path(opts: &InstallOptions) -> PathBuf {
    match (opts.target, opts.scope) {
        (Target::Claude, Scope::Project) => opts.root.join(".mcp.json"),
        (Target::Claude, Scope::User) => opts.home.join(".claude.json"),
        (Target::Codex, Scope::Project) => opts.root.join(".codex").join("config.toml"),
        (Target::Codex, Scope::User) => opts.home.join(".codex").join("config.toml"),
    }
}

/// Name of our MCP server entry (tools appear as `mcp__trilogy__memory_*`).
pub const MCP_SERVER_NAME: &str = "trilogy";

fn register_mcp(opts: &InstallOptions, remove: bool) -> Result<Option<FileChange>> {
    let path = confine(opts, mcp_path(opts))?;
    match opts.target {
        Target::Claude => {
            let settings = Settings::load(path.clone())?;
            if remove && settings.original.is_none() {
                return Ok(None);
            }
            let obj = settings.object()?;
            let servers = obj
                .object_value_or_create("mcpServers")
                .ok_or_else(|| parse_error(&path, "`mcpServers` is not an object".into()))?;
            if remove {
                if let Some(p) = servers.get(MCP_SERVER_NAME) {
                    p.remove();
                }
                if servers.properties().is_empty()
                    && let Some(p) = obj.get("mcpServers")
                {
                    p.remove();
                }
                if obj.properties().is_empty() {
                    std::fs::remove_file(&path).map_err(|e| Error::io(&path, e))?;
                    return Ok(Some(FileChange {
                        path: path.display().to_string(),
                        action: "removed",
                    }));
                }
            } else {
                let desired = json!({"type": "stdio", "command": opts.command, "args": ["mcp"]});
                match servers.get(MCP_SERVER_NAME) {
                    Some(p)
                        if p.value().and_then(|v| v.to_serde_value()).as_ref()
                            == Some(&desired) => {}
                    Some(p) => p.set_value(input_value(&desired)),
                    None => {
                        servers.append(MCP_SERVER_NAME, input_value(&desired));
                    }
                }
            }
            Ok(Some(FileChange {
                action: settings.save()?,
                path: path.display().to_string(),
            }))
        }
        Target::Codex => {
            let original = match std::fs::read_to_string(&path) {
                Ok(t) => Some(t),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
                Err(e) => return Err(Error::io(&path, e)),
            };
            if remove && original.is_none() {
                return Ok(None);
            }
            let mut doc: toml_edit::DocumentMut = original
                .as_deref()
                .unwrap_or("")
                .parse()
                .map_err(|e| parse_error(&path, format!("not valid TOML ({e})")))?;
            if remove {
                if let Some(t) = doc
                    .get_mut("mcp_servers")
                    .and_then(|i| i.as_table_like_mut())
                {
                    t.remove(MCP_SERVER_NAME);
                    if t.is_empty() {
                        doc.remove("mcp_servers");
                    }
                }
            } else {
                let servers = doc
                    .entry("mcp_servers")
                    .or_insert_with(|| {
                        let mut t = toml_edit::Table::new();
                        t.set_implicit(true);
                        toml_edit::Item::Table(t)
                    })
                    .as_table_like_mut()
                    .ok_or_else(|| parse_error(&path, "`mcp_servers` is not a table".into()))?;
                let mut entry = toml_edit::Table::new();
                entry.insert("command", toml_edit::value(opts.command.as_str()));
                let mut args = toml_edit::Array::new();
                args.push("mcp");
                entry.insert("args", toml_edit::value(args));
                let same = servers
                    .get(MCP_SERVER_NAME)
                    .and_then(|i| i.as_table_like())
                    .is_some_and(|t| {
                        t.get("command").and_then(|v| v.as_str()) == Some(opts.command.as_str())
                            && t.get("args").and_then(|v| v.as_array()).is_some_and(|a| {
                                a.iter().map(|v| v.as_str()).collect::<Vec<_>>()
                                    == vec![Some("mcp")]
                            })
                    });
                if !same {
                    servers.insert(MCP_SERVER_NAME, toml_edit::Item::Table(entry));
                }
            }
            let text = doc.to_string();
            let action = if original.as_deref() == Some(text.as_str()) {
                "unchanged"
            } else {
                if let Some(dir) = path.parent() {
                    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
                }
                write_atomic(&path, text.as_bytes())?;
                if original.is_some() {
                    "updated"
                } else {
                    "created"
                }
            };
            Ok(Some(FileChange {
                path: path.display().to_string(),
                action,
            }))
        }
    }
}

/// Merge our hooks and MCP server entry (and, for Claude in a project, the `CLAUDE.md` pointer).
pub fn install(opts: &InstallOptions) -> Result<Vec<FileChange>> {
    let settings = Settings::load(confine(opts, settings_path(opts))?)?;
    let obj = settings.object()?;
    let hooks = obj
        .object_value_or_create("hooks")
        .ok_or_else(|| parse_error(&settings.path, "`hooks` is not an object".into()))?;
    for spec in specs(opts.target) {
        let desired = group(opts, &spec);
        let groups = hooks.array_value_or_create(spec.event).ok_or_else(|| {
            parse_error(
                &settings.path,
                format!("`hooks.{}` is not an array", spec.event),
            )
        })?;
        if groups
            .elements()
            .iter()
            .any(|g| g.to_serde_value().as_ref() == Some(&desired))
        {
            continue;
        }
        strip_ours(&groups, opts.target);
        groups.append(input_value(&desired));
    }
    let path = settings.path.display().to_string();
    let mut changes = vec![FileChange {
        action: settings.save()?,
        path,
    }];
    changes.extend(register_mcp(opts, false)?);
    if opts.target == Target::Claude && opts.scope == Scope::Project {
        // Claude Code reads CLAUDE.md, not AGENTS.md
        let md = confine(opts, opts.root.join("CLAUDE.md"))?;
        let outcome = ensure_region(&md, BOOT_START, BOOT_END, &opts.boot_block)?;
        changes.push(FileChange {
            path: md.display().to_string(),
            action: match outcome {
                crate::workspace::BootOutcome::Created => "created",
                crate::workspace::BootOutcome::Unchanged => "unchanged",
                _ => "updated",
            },
        });
    }
    Ok(changes)
}

/// Take our hooks, MCP entry and the `CLAUDE.md` pointer out again.
pub fn uninstall(opts: &InstallOptions) -> Result<Vec<FileChange>> {
    let settings = Settings::load(confine(opts, settings_path(opts))?)?;
    let mut changes: Vec<FileChange> = register_mcp(opts, true)?.into_iter().collect();
    if settings.original.is_some() {
        let obj = settings.object()?;
        if let Some(hooks) = obj.object_value("hooks") {
            for spec in specs(opts.target) {
                if let Some(groups) = hooks.array_value(spec.event) {
                    strip_ours(&groups, opts.target);
                    if groups.elements().is_empty()
                        && let Some(p) = hooks.get(spec.event)
                    {
                        p.remove();
                    }
                }
            }
            if hooks.properties().is_empty()
                && let Some(p) = obj.get("hooks")
            {
                p.remove();
            }
        }
        let path = settings.path.clone();
        let action = if obj.properties().is_empty() {
            std::fs::remove_file(&path).map_err(|e| Error::io(&path, e))?;
            "removed"
        } else {
            settings.save()?
        };
        changes.push(FileChange {
            path: path.display().to_string(),
            action,
        });
    }
    if opts.target == Target::Claude && opts.scope == Scope::Project {
        let md = confine(opts, opts.root.join("CLAUDE.md"))?;
        if remove_region(&md, BOOT_START, BOOT_END)? {
            changes.push(FileChange {
                path: md.display().to_string(),
                action: if md.exists() { "updated" } else { "removed" },
            });
        }
    }
    Ok(changes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(dir: &Path) -> InstallOptions {
        InstallOptions {
            target: Target::Claude,
            scope: Scope::Project,
            command: "trilogy".into(),
            root: dir.to_path_buf(),
            home: dir.join("home"),
            boot_block: crate::workspace::boot_block(crate::model::Lang::En, "memory"),
        }
    }

    const FOREIGN: &str = r#"{
  "permissions": {
    "allow": ["Bash(cargo test)"]
  },
  "hooks": {
    "Stop": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "notify-send done"
          }
        ]
      }
    ]
  },
  "model": "opus"
}
"#;

    #[test]
    fn install_keeps_foreign_settings_and_is_idempotent() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join(".claude/settings.json");
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, FOREIGN).unwrap();
        let o = opts(dir.path());
        install(&o).unwrap();
        let once = std::fs::read_to_string(&p).unwrap();
        let v: Value = serde_json::from_str(&once).unwrap();
        assert_eq!(v["permissions"]["allow"][0], "Bash(cargo test)");
        assert_eq!(v["model"], "opus");
        let stop = v["hooks"]["Stop"].as_array().unwrap();
        assert_eq!(stop.len(), 2, "the foreign Stop hook stays, ours is added");
        assert_eq!(stop[0]["hooks"][0]["command"], "notify-send done");
        assert_eq!(
            v["hooks"]["SessionStart"][0]["hooks"][0]["command"],
            "trilogy hook claude session-start"
        );
        // key order of the original is kept
        assert!(once.find("\"permissions\"").unwrap() < once.find("\"hooks\"").unwrap());
        assert!(once.find("\"hooks\"").unwrap() < once.find("\"model\"").unwrap());
        let again = install(&o).unwrap();
        assert_eq!(again[0].action, "unchanged");
        assert_eq!(std::fs::read_to_string(&p).unwrap(), once);
        assert!(
            std::fs::read_to_string(dir.path().join("CLAUDE.md"))
                .unwrap()
                .contains("<!-- trilogy:start -->")
        );

        uninstall(&o).unwrap();
        assert_eq!(
            std::fs::read_to_string(&p).unwrap(),
            FOREIGN,
            "uninstall restores the original bytes"
        );
        assert!(!dir.path().join("CLAUDE.md").exists());
    }

    #[test]
    fn changed_command_replaces_our_handler_only() {
        let dir = tempfile::tempdir().unwrap();
        let mut o = opts(dir.path());
        install(&o).unwrap();
        o.command = "/opt/my tools/trilogy".into();
        install(&o).unwrap();
        let v: Value = serde_json::from_str(
            &std::fs::read_to_string(dir.path().join(".claude/settings.json")).unwrap(),
        )
        .unwrap();
        let groups = v["hooks"]["SessionStart"].as_array().unwrap();
        assert_eq!(groups.len(), 1);
        assert_eq!(
            groups[0]["hooks"][0]["command"],
            "'/opt/my tools/trilogy' hook claude session-start"
        );
    }

    #[test]
    fn broken_settings_are_refused_untouched() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join(".claude/settings.json");
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, "{ \"hooks\": [1, }").unwrap();
        let e = install(&opts(dir.path())).unwrap_err();
        assert!(e.to_string().contains("settings.json"), "{e}");
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "{ \"hooks\": [1, }");
    }
}
