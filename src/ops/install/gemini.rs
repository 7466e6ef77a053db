//! Gemini CLI: hooks and the MCP server in one file, `.gemini/settings.json`
//! (`--scope user`: `~/.gemini/settings.json`), and the pointer in `GEMINI.md`, Gemini's
//! context file. Gemini's timeouts are milliseconds, its handlers carry a `name`, a lifecycle
//! matcher is one exact value (so SessionStart has none: every source), and the server is
//! `trust`ed: its tools only read and write the memory files, and `gemini -p` cannot ask.

use std::path::PathBuf;

use serde_json::{Value, json};

use super::plan::Plan;
use super::record::Record;
use super::settings::{self, HookSpec, Settings};
use super::{InstallOptions, Scope, server};
use crate::error::Result;
use crate::model::host::Host;

/// Gemini's events and the ones `trilogy hook` takes. Not `PreCompress`: Gemini CLI fires it
/// before every compression check, whether or not it then compresses, so it cannot tell that
/// the block was lost (and Gemini has no SessionStart after a compression).
pub(super) const SPECS: [HookSpec; 5] = [
    HookSpec {
        event: "SessionStart",
        matcher: None,
        arg: "session-start",
        timeout: 10,
    },
    HookSpec {
        event: "BeforeAgent",
        matcher: None,
        arg: "user-prompt-submit",
        timeout: 10,
    },
    HookSpec {
        event: "AfterTool",
        matcher: Some("run_shell_command|write_file|replace|mcp_trilogy_.*"),
        arg: "post-tool-use",
        timeout: 10,
    },
    HookSpec {
        event: "AfterAgent",
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
];

fn settings_path(opts: &InstallOptions) -> PathBuf {
    let base = match opts.scope {
        Scope::Project => &opts.root,
        Scope::User => &opts.home,
    };
    base.join(".gemini").join("settings.json")
}

fn handler(opts: &InstallOptions, spec: &HookSpec) -> Value {
    json!({
        "name": format!("trilogy-{}", spec.arg),
        "type": "command",
        "command": super::hook_line(opts, Host::Gemini, spec.arg),
        "timeout": spec.timeout * 1000,
    })
}

/// Our server entry.
fn entry(opts: &InstallOptions) -> Value {
    json!({"command": opts.command, "args": ["mcp"], "trust": true})
}

pub(super) fn install(opts: &InstallOptions, rec: &mut Record, plan: &mut Plan) -> Result<()> {
    let mut s = Settings::load(plan, settings::confine(opts, settings_path(opts))?)?;
    let groups: Vec<_> = SPECS
        .iter()
        .map(|spec| (spec, settings::group(spec, handler(opts, spec))))
        .collect();
    settings::add_hooks(&s, Host::Gemini, &groups, rec)?;
    server::add(opts, &mut s, "mcpServers", &entry(opts), rec)?;
    s.save(plan, rec);
    if opts.scope == Scope::Project {
        super::add_pointer(opts, "GEMINI.md", rec, plan)?;
    }
    Ok(())
}

pub(super) fn uninstall(opts: &InstallOptions, rec: &Record, plan: &mut Plan) -> Result<()> {
    let s = Settings::load(plan, settings::confine(opts, settings_path(opts))?)?;
    if s.original.is_some() {
        settings::remove_hooks(&s, Host::Gemini, &SPECS, rec)?;
        server::remove(&s, "mcpServers", &entry(opts), rec)?;
    }
    s.finish(plan, rec)?;
    if opts.scope == Scope::Project {
        super::remove_pointer(opts, "GEMINI.md", true, rec, plan)?;
    }
    Ok(())
}
