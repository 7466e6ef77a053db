//! Claude Code: hooks and the allow rule for our tools in `.claude/settings.json`, the MCP
//! server in `.mcp.json` (`--scope user`: `~/.claude/settings.json`, `~/.claude.json`), and the
//! pointer in `CLAUDE.md`, which Claude Code reads (it does not read `AGENTS.md`).

use std::path::PathBuf;

use serde_json::{Value, json};

use super::plan::Plan;
use super::record::Record;
use super::settings::{self, HookSpec, Settings};
use super::shell::Shell;
use super::{InstallOptions, MCP_SERVER_NAME, Scope, server};
use crate::error::Result;
use crate::model::host::Host;

/// The permission rule that lets every tool of our server run without a prompt (they only
/// read and write the memory files).
fn rule() -> String {
    format!("mcp__{MCP_SERVER_NAME}")
}

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
        matcher: Some("Edit|Write|NotebookEdit|MultiEdit|Bash|PowerShell|mcp__trilogy__.*"),
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

fn base(opts: &InstallOptions) -> PathBuf {
    match opts.scope {
        Scope::Project => opts.root.clone(),
        Scope::User => opts.home.clone(),
    }
}

fn settings_path(opts: &InstallOptions) -> PathBuf {
    base(opts).join(".claude").join("settings.json")
}

fn mcp_path(opts: &InstallOptions) -> PathBuf {
    match opts.scope {
        Scope::Project => opts.root.join(".mcp.json"),
        Scope::User => opts.home.join(".claude.json"),
    }
}

/// Our handler for one event. On Windows Claude Code runs a command through Git Bash when it
/// finds one and PowerShell otherwise: the handler names PowerShell, which every Windows has.
pub(super) fn handler(opts: &InstallOptions, spec: &HookSpec) -> Value {
    let mut h = json!({
        "type": "command",
        "command": super::hook_line(opts, Host::Claude, spec.arg),
        "timeout": spec.timeout,
    });
    if Shell::of_hooks(Host::Claude, opts.os) == Shell::PowerShell {
        h["shell"] = json!("powershell");
    }
    h
}

/// Our server entry.
fn entry(opts: &InstallOptions) -> Value {
    json!({"type": "stdio", "command": opts.command, "args": ["mcp"]})
}

pub(super) fn install(opts: &InstallOptions, rec: &mut Record, plan: &mut Plan) -> Result<()> {
    let s = Settings::load(plan, settings::confine(opts, settings_path(opts))?)?;
    let groups: Vec<_> = SPECS
        .iter()
        .map(|spec| (spec, settings::group(spec, handler(opts, spec))))
        .collect();
    settings::add_hooks(&s, Host::Claude, &groups, rec)?;
    settings::allow(&s, &rule(), rec)?;
    s.save(plan, rec);
    let mut mcp = Settings::load(plan, settings::confine(opts, mcp_path(opts))?)?;
    server::add(opts, &mut mcp, "mcpServers", &entry(opts), rec)?;
    mcp.save(plan, rec);
    if opts.scope == Scope::Project {
        super::add_pointer(opts, "CLAUDE.md", rec, plan)?;
        if local_settings_tracked_by_git(opts) {
            let block = format!("{IGNORE_START}\n{LOCAL_SETTINGS}\n{IGNORE_END}\n");
            let markers = (IGNORE_START, IGNORE_END);
            super::add_region(opts, ".gitignore", markers, &block, rec, plan)?;
        }
    }
    Ok(())
}

/// The file Claude Code writes into the project when a person approves its MCP servers: that
/// person's choices, never the team's.
const LOCAL_SETTINGS: &str = ".claude/settings.local.json";
const IGNORE_START: &str = "# trilogy:start";
const IGNORE_END: &str = "# trilogy:end";

/// In a git work tree whose ignore rules (the project's, the user's) do not yet ignore
/// [`LOCAL_SETTINGS`]; outside one, or without git, nothing is said.
fn local_settings_tracked_by_git(opts: &InstallOptions) -> bool {
    let ask = |args: &[&str]| {
        std::process::Command::new("git")
            .arg("-C")
            .arg(&opts.root)
            .args(args)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()
            .ok()
            .and_then(|s| s.code())
    };
    ask(&["rev-parse", "--is-inside-work-tree"]) == Some(0)
        && ask(&["check-ignore", "-q", "--no-index", LOCAL_SETTINGS]) == Some(1)
}

pub(super) fn uninstall(opts: &InstallOptions, rec: &Record, plan: &mut Plan) -> Result<()> {
    let s = Settings::load(plan, settings::confine(opts, settings_path(opts))?)?;
    if s.original.is_some() {
        settings::remove_hooks(&s, Host::Claude, &SPECS, rec)?;
        settings::disallow(&s, &rule(), rec)?;
    }
    s.finish(plan, rec)?;
    server::uninstall(opts, plan, mcp_path(opts), "mcpServers", &entry(opts), rec)?;
    if opts.scope == Scope::Project {
        super::remove_pointer(opts, "CLAUDE.md", true, rec, plan)?;
        let markers = (IGNORE_START, IGNORE_END);
        super::remove_region(opts, ".gitignore", markers, false, rec, plan)?;
    }
    Ok(())
}
