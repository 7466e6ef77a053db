//! `install` / `uninstall`: merge trilogy's hooks and MCP server entry into an agent host's
//! settings without touching anything else, idempotently, and keep the host's pointer to the
//! memory (`CLAUDE.md`, `AGENTS.md`, `GEMINI.md`). One file per host says where and what.
//! Hosts that load no hook output (VS Code, Windsurf, Zed; Cursor with `--rules`) get the
//! session-start block itself in the rules file they read, as a managed region ([`rules`]).
//!
//! A hook's command line is written for the shell the host runs it with on the system
//! ([`shell`]: POSIX shells on Linux and macOS; PowerShell or cmd on Windows).
//!
//! Our handlers are recognised by their command (`… trilogy hook <host> <event>`), so other
//! hooks, even on the same events, are left exactly as they were; a `trilogy` server entry the
//! user wrote stays theirs ([`server`]). What install created — a file, a folder, a key, a
//! rule, a region — and each file's bytes before it are recorded ([`record`]), and `uninstall`
//! gives every file back byte for byte, or, in a file changed since, takes out that and nothing
//! else: a user's own empty `"hooks": {}` or `{"mcpServers":{}}` stays, a folder install made
//! goes when it is empty. Files keep their line ends (CRLF stays CRLF).
//!
//! Both work out every file first and write none until all are checked ([`plan`]); the record
//! is kept before the first write, so a killed install leaves nothing uninstall cannot undo.

mod claude;
mod codex;
mod cursor;
pub mod dsh;
mod gemini;
mod plan;
mod record;
mod rules;
mod server;
mod settings;
pub mod shell;
#[cfg(test)]
mod tests;
mod vscode;
#[cfg(test)]
mod windows_tests;
mod windsurf;
mod zed;

use std::path::PathBuf;

use serde::Serialize;

use crate::error::Result;
use crate::model::host::{Host, Install};
use crate::workspace::{BOOT_END, BOOT_START, BootOutcome};
use plan::Plan;
use record::{Made, Record, digest};

/// What `trilogy install` takes: an agent host, or git (the merge driver for the memory files).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    Host(Host),
    Git,
}

impl Target {
    pub fn parse(s: &str) -> Option<Target> {
        match s {
            "git" => Some(Target::Git),
            _ => Host::parse(s).map(Target::Host),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Target::Host(h) => h.as_str(),
            Target::Git => "git",
        }
    }
}

/// The rules file that holds the block, for a host that loads no hook output (`rules`:
/// Cursor was asked for its rules file instead of hooks). Zed's user scope has none.
pub fn block_file(host: Host, scope: Scope, rules: bool) -> Option<&'static str> {
    match (host, scope) {
        (Host::Vscode, _) => Some(vscode::RULES_FILE),
        (Host::Windsurf, _) => Some(windsurf::RULES_FILE),
        (Host::Zed, Scope::Project) => Some(zed::RULES_FILE),
        (Host::Cursor, Scope::Project) if rules => Some(cursor::RULES_FILE),
        _ => None,
    }
}

/// Why this host cannot be installed with `scope`, and what to do instead.
pub fn refuses(host: Host, scope: Scope, rules: bool) -> Option<String> {
    match (host, scope) {
        (Host::Windsurf, Scope::Project) => Some(
            "Windsurf reads MCP servers only from the user file ~/.codeium/windsurf/mcp_config.json, \
             never from a project: run `trilogy install windsurf` without --scope (the block still \
             goes into this project's .windsurfrules)"
                .into(),
        ),
        (Host::Vscode, Scope::User) => Some(
            "VS Code keeps user-level MCP servers in its profile, not in a file trilogy edits: \
             install per project (`trilogy install vscode`), or add the server for every \
             workspace with `code --add-mcp '{\"name\":\"trilogy\",\"command\":\"trilogy\",\"args\":[\"mcp\"]}'`"
                .into(),
        ),
        (Host::Cursor, Scope::User) if rules => Some(
            "--rules writes .cursor/rules/trilogy.mdc, which belongs to a project: leave out \
             --scope user, or drop --rules to install the hooks in ~/.cursor/hooks.json"
                .into(),
        ),
        _ => None,
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
    /// A host installed through its settings or rules files ([`Install::Settings`],
    /// [`Install::Rules`]).
    pub target: Host,
    pub scope: Scope,
    /// How hosts run trilogy: `trilogy` when it is on PATH, or an absolute path.
    pub command: String,
    /// The system the hosts run on: it picks the shell a hook's command line is written for.
    pub os: shell::Os,
    pub root: PathBuf,
    pub home: PathBuf,
    /// The boot block kept in the host's pointer file (see `Workspace::boot_block_text`).
    pub boot_block: String,
    /// trilogy's state folder (`$XDG_STATE_HOME/trilogy`), where install records what it
    /// made; `None` keeps no record.
    pub state: Option<PathBuf>,
    /// The session-start block, between its markers, for hosts that read it from a rules
    /// file (see [`block_file`]); empty otherwise.
    pub memory_block: String,
    /// Cursor: the always-applied rules file `.cursor/rules/trilogy.mdc` instead of hooks,
    /// for Cursor versions without hooks.
    pub rules: bool,
    /// Replace a `trilogy` server entry the user wrote (kept to give back at uninstall).
    pub force: bool,
}

/// One file `install` looked at.
#[derive(Debug, Clone, Serialize)]
pub struct FileChange {
    pub path: String,
    /// `created`, `updated`, `unchanged`, `removed`.
    pub action: &'static str,
    /// What install left alone in it, and why (a user's own server entry).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// Files Zed's agent would read that `.rules`, the first of its names, takes the place of.
pub use zed::SHADOWED as ZED_SHADOWED;

/// The hook events `install` sets for `host`, as the argument after `trilogy hook <host>`
/// (empty for a host whose hooks are not settings entries): `doctor` finds those an older
/// install left out.
pub fn hook_args(host: Host) -> Vec<&'static str> {
    let specs: &[settings::HookSpec] = match host {
        Host::Claude => &claude::SPECS,
        Host::Codex => &codex::SPECS,
        Host::Gemini => &gemini::SPECS,
        _ => &[],
    };
    specs.iter().map(|s| s.arg).collect()
}

/// Name of our MCP server entry (tools appear as `mcp__trilogy__memory_*`).
pub const MCP_SERVER_NAME: &str = "trilogy";

/// The line a host runs for our hook `event`, in the shell it runs hooks with on `opts.os`.
fn hook_line(opts: &InstallOptions, host: Host, event: &str) -> String {
    shell::Shell::of_hooks(host, opts.os)
        .command_line(&opts.command, &["hook", host.as_str(), event])
}

/// Merge our hooks, MCP server entry and pointer for the host: every file is worked out and
/// checked before any is written, and the record is kept before the first write.
pub fn install(opts: &InstallOptions) -> Result<Vec<FileChange>> {
    if let Some(why) = refuses(opts.target, opts.scope, opts.rules) {
        return Err(crate::error::Error::bad_input(why));
    }
    let mut rec = Record::load(opts)?;
    let old = rec.clone();
    let mut plan = Plan::default();
    plan_install(opts, &mut rec, &mut plan)?;
    let targets = plan.check()?;
    keep_snapshots(opts, &old, &mut rec, &plan);
    rec.save()?;
    plan.apply(&targets).inspect_err(|_| old.put_back())
}

/// Take our hooks, MCP entry and pointer out again, giving each file back as it was.
pub fn uninstall(opts: &InstallOptions) -> Result<Vec<FileChange>> {
    if let Some(why) = refuses(opts.target, opts.scope, false) {
        return Err(crate::error::Error::bad_input(why));
    }
    let rec = Record::load(opts)?;
    let mut plan = Plan::default();
    plan_uninstall(opts, &rec, &mut plan)?;
    give_back(&rec, &mut plan)?;
    plan.drop_dirs = rec.dirs();
    let targets = plan.check()?;
    let changes = plan.apply(&targets)?;
    rec.forget();
    Ok(changes)
}

fn plan_install(opts: &InstallOptions, rec: &mut Record, plan: &mut Plan) -> Result<()> {
    match opts.target {
        Host::Claude => claude::install(opts, rec, plan),
        Host::Codex => codex::install(opts, rec, plan),
        Host::Gemini => gemini::install(opts, rec, plan),
        Host::Cursor => cursor::install(opts, rec, plan),
        Host::Vscode => vscode::install(opts, rec, plan),
        Host::Windsurf => windsurf::install(opts, rec, plan),
        Host::Zed => zed::install(opts, rec, plan),
        Host::Dsh => Err(plugin_only()),
    }
}

fn plan_uninstall(opts: &InstallOptions, rec: &Record, plan: &mut Plan) -> Result<()> {
    match opts.target {
        Host::Claude => claude::uninstall(opts, rec, plan),
        Host::Codex => codex::uninstall(opts, rec, plan),
        Host::Gemini => gemini::uninstall(opts, rec, plan),
        Host::Cursor => cursor::uninstall(opts, rec, plan),
        Host::Vscode => vscode::uninstall(opts, rec, plan),
        Host::Windsurf => windsurf::uninstall(opts, rec, plan),
        Host::Zed => zed::uninstall(opts, rec, plan),
        Host::Dsh => Err(plugin_only()),
    }
}

/// DeepSeek Harness is reached through its plugin ([`dsh`]), never through settings files.
fn plugin_only() -> crate::error::Error {
    debug_assert_eq!(Host::Dsh.install(), Install::Plugin);
    crate::error::Error::bad_input("dsh installs as a plugin (`trilogy install dsh`)")
}

/// Does the file (`now`, and `bare`: it with ours taken out) hold only what install wrote, so
/// that the bytes from before install can come back?
fn still_as_left(snap: &record::Snapshot, now: Option<&str>, bare: Option<&str>) -> bool {
    digest(now) == snap.after || digest(bare) == snap.bare
}

/// Keep, for every file this install changes, its bytes before the first install (a
/// snapshot taken earlier holds while the file changed only where we write; else the file as
/// it is now without what an earlier install left in it) and the digests uninstall checks
/// them by.
fn keep_snapshots(opts: &InstallOptions, old: &Record, rec: &mut Record, plan: &Plan) {
    let mut probe = Plan::default();
    let probed = plan_uninstall(opts, old, &mut probe).is_ok();
    // the file now, with what the last install left in it taken out
    let bare_now = |step: &plan::Step| match probe.steps.iter().find(|p| p.path == step.path) {
        Some(p) => p.after.clone(),
        None => step.before.clone(),
    };
    for step in &plan.steps {
        if let Some(snap) = old.snapshot(&step.path)
            && !(probed && still_as_left(snap, step.before.as_deref(), bare_now(step).as_deref()))
        {
            rec.drop_snapshot(&step.path);
        }
    }
    rec.settle();
    let mut undone = Plan::over(plan);
    let undone_ok = plan_uninstall(opts, rec, &mut undone).is_ok();
    for step in plan.steps.iter().filter(|s| s.before != s.after) {
        let before = match (old.found(), probed) {
            (false, _) => step.before.clone(),
            (true, true) => bare_now(step),
            // what an earlier install left cannot be told apart: uninstall takes ours out
            (true, false) => continue,
        };
        let bare = undone.steps.iter().find(|p| p.path == step.path);
        let bare = bare.map_or(step.after.as_deref(), |p| p.after.as_deref());
        // a text uninstall cannot work out matches no file
        let bare = if undone_ok {
            digest(bare)
        } else {
            String::new()
        };
        let after = digest(step.after.as_deref());
        rec.take_snapshot(&step.path, before.as_deref(), &after, &bare);
    }
}

/// Give back the bytes from before install of every file that holds only what install wrote;
/// a file another project's install still uses stays as it is, left to that project's record.
fn give_back(rec: &Record, plan: &mut Plan) -> Result<()> {
    for path in rec.snapshot_paths() {
        if !plan.steps.iter().any(|s| s.path == path)
            && let Some(now) = plan.read(&path)?
        {
            plan.change(&path, Some(now.clone()), Some(now));
        }
    }
    for step in &mut plan.steps {
        if let Some(snap) = rec.snapshot(&step.path)
            && still_as_left(snap, step.before.as_deref(), step.after.as_deref())
        {
            step.after = snap.before.clone();
        }
    }
    let mut kept = Vec::new();
    for step in &plan.steps {
        if step.before != step.after && rec.hand_over(&step.path)? {
            kept.push(step.path.clone());
        }
    }
    plan.steps.retain(|s| !kept.contains(&s.path));
    Ok(())
}

/// Keep the boot block in the host's pointer file `name` at the project root.
fn add_pointer(opts: &InstallOptions, name: &str, rec: &mut Record, plan: &mut Plan) -> Result<()> {
    add_region(
        opts,
        name,
        (BOOT_START, BOOT_END),
        &opts.boot_block,
        rec,
        plan,
    )
}

/// Put `block` (between `markers`) into the project's file `name`, recorded so uninstall takes
/// it out again.
fn add_region(
    opts: &InstallOptions,
    name: &str,
    markers: (&str, &str),
    block: &str,
    rec: &mut Record,
    plan: &mut Plan,
) -> Result<()> {
    let md = settings::confine(opts, opts.root.join(name))?;
    let text = plan.read(&md)?;
    let (start, end) = markers;
    let (new, outcome) = crate::workspace::with_region(&md, text.as_deref(), start, end, block)?;
    if matches!(outcome, BootOutcome::Created | BootOutcome::Appended) {
        rec.note_region(&md, "", text.as_deref());
    }
    plan.put(&md, text, Some(new), rec);
    Ok(())
}

/// Take the boot block out of `name` when install put it there (without a record:
/// `fallback`); the file goes when nothing else is left in it.
fn remove_pointer(
    opts: &InstallOptions,
    name: &str,
    fallback: bool,
    rec: &Record,
    plan: &mut Plan,
) -> Result<()> {
    remove_region(opts, name, (BOOT_START, BOOT_END), fallback, rec, plan)
}

/// Take the region between `markers` out of `name` when install put it there (without a
/// record: `fallback`); the file goes when nothing else is left in it.
fn remove_region(
    opts: &InstallOptions,
    name: &str,
    markers: (&str, &str),
    fallback: bool,
    rec: &Record,
    plan: &mut Plan,
) -> Result<()> {
    let md = settings::confine(opts, opts.root.join(name))?;
    if !rec.undo(Made::Region, &md, "", fallback) {
        return Ok(());
    }
    let Some(text) = plan.read(&md)? else {
        return Ok(());
    };
    let tail = rec.tail(&md);
    let (start, end) = markers;
    if let Some(rest) = crate::workspace::without_region(&md, &text, start, end, tail)? {
        let gone = rest.trim().is_empty() && rec.undo(Made::File, &md, "", true);
        plan.change(&md, Some(text), Some(rest).filter(|_| !gone));
    }
    Ok(())
}
