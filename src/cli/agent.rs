//! Agent-facing commands: `inject`, `sessions`, `hook`, `install`, `uninstall`, `block`.

use clap::{Args, Subcommand};

use crate::error::{Error, Exit, Result};
use crate::hooks;
use crate::model::host::{Host, HostLimits, Install};
use crate::ops::agent::{self, Source};
use crate::ops::install::{self, InstallOptions, Scope, Target};

use super::{Env, format};

#[derive(Args, Debug)]
pub struct InjectArgs {
    /// Agent session id: the block is printed only when that session does not have it yet
    #[arg(long)]
    session: Option<String>,
    /// Why the block is asked for: startup, resume, clear or compact (compact and clear always re-inject)
    #[arg(long, default_value = "startup")]
    source: String,
    /// The model's context window in tokens (the budget is at most 16% of it)
    #[arg(long, value_name = "N")]
    window_tokens: Option<u64>,
    /// Characters the host keeps of the block (Claude Code keeps 10000)
    #[arg(long, value_name = "N")]
    max_chars: Option<usize>,
    /// Host name recorded for the session; claude, codex and gemini also get that host's cap
    /// on the block (Claude Code keeps 10000 characters, Codex 10000 bytes)
    #[arg(long, default_value = "cli")]
    host: String,
}

#[derive(Args, Debug)]
pub struct SessionsArgs {
    #[command(subcommand)]
    cmd: Option<SessionsCmd>,
}

#[derive(Subcommand, Debug)]
enum SessionsCmd {
    /// List the agent sessions trilogy has served
    List,
    /// What one session was injected, what the caps dropped, its nudge state
    Show {
        /// The host's session id
        id: String,
    },
}

#[derive(Args, Debug)]
pub struct HookArgs {
    /// claude, codex, gemini, cursor or dsh
    pub host: Option<String>,
    /// session-start, user-prompt-submit, post-tool-use, stop or session-end (cursor also
    /// takes its own names: sessionStart, beforeSubmitPrompt, postToolUse, stop, sessionEnd;
    /// dsh: pre-step, turn-stopping or session-end, JSON in and out as in schema/dsh-hook.json)
    pub event: Option<String>,
}

/// `trilogy install --help`: what each host gets, and where.
pub const INSTALL_HELP: &str = "\
Add trilogy's hooks and MCP server to an agent host's settings, merged without touching \
anything else; run it twice and the files stay as after once. Every file is checked before \
any is written: a file that cannot be merged, or is read-only, leaves all of them as they were. \
A `trilogy` server entry you wrote yourself is kept (`--force` replaces it). `trilogy uninstall \
HOST` gives each file back as it was before, byte for byte (a file or folder install created \
goes; a user-level server another project still uses stays).

  claude    hooks + allow rule in .claude/settings.json, server in .mcp.json, pointer in CLAUDE.md
  codex     hooks in .codex/hooks.json, server in .codex/config.toml, pointer in AGENTS.md
  gemini    hooks + server in .gemini/settings.json, pointer in GEMINI.md
  cursor    server in .cursor/mcp.json, hooks in .cursor/hooks.json (the block comes from
            sessionStart); --rules: the block in .cursor/rules/trilogy.mdc instead of hooks
  vscode    server in .vscode/mcp.json (`servers`), the block in .github/copilot-instructions.md
  windsurf  server in ~/.codeium/windsurf/mcp_config.json (user only), the block in .windsurfrules
  zed       context server in .zed/settings.json (comments kept), the block in .rules
  dsh       the DeepSeek Harness plugin, added to --profile
  git       the merge driver for the memory files

--scope user writes the home folder's settings instead (~/.claude, ~/.codex, ~/.gemini, \
~/.cursor, ~/.config/zed). Hosts without hooks (vscode, windsurf, zed) read the block from \
their rules file; the MCP server refreshes it after every write.

Examples:
  trilogy install cursor
  trilogy install zed --scope user
  trilogy install claude --command \"$(command -v trilogy)\"
  trilogy uninstall vscode";

#[derive(Args, Debug)]
pub struct InstallArgs {
    /// claude, codex, gemini, cursor, vscode, windsurf, zed, dsh or git (the merge driver)
    host: String,
    /// project: this repository's settings (committable); user: your home's settings.
    /// Default: project, except windsurf, whose MCP servers are only ever the user's
    #[arg(long, value_parser = ["project", "user"])]
    scope: Option<String>,
    /// cursor: no hooks; keep the block in .cursor/rules/trilogy.mdc (`alwaysApply: true`),
    /// refreshed by the MCP server after every write — for Cursor versions without hooks
    #[arg(long)]
    rules: bool,
    /// How the host runs trilogy (default: `trilogy`, found on PATH; for git, this binary's
    /// absolute path, since git run from a GUI, an IDE or cron may not have it on PATH)
    #[arg(long)]
    command: Option<String>,
    /// Replace a `trilogy` server entry you wrote yourself (install otherwise leaves it and
    /// says so); uninstall gives yours back
    #[arg(long)]
    force: bool,
    /// dsh: the DeepSeek Harness profile to add the plugin to (web, tui, headless, …)
    #[arg(long, default_value = "web")]
    profile: String,
    /// dsh: no plugin; keep a static copy of the block in AGENTS.local.md, refreshed by the
    /// MCP server after every write (no reminder, no notices, no per-step injection)
    #[arg(long = "static")]
    static_block: bool,
}

impl InstallArgs {
    /// The command hooks and MCP entries run.
    fn command(&self) -> String {
        self.command.clone().unwrap_or_else(|| "trilogy".into())
    }
}

pub fn inject(env: &Env, a: InjectArgs) -> Result<()> {
    let source = Source::parse(&a.source).ok_or_else(|| {
        Error::bad_input(format!(
            "--source `{}`: use startup, resume, clear or compact",
            a.source
        ))
    })?;
    env.ws.require_memory()?;
    // a host with hooks gets the block as its hooks would give it (its caps; --max-chars
    // takes the place of its character cap, and a byte cap stays)
    let host = Host::parse(&a.host).map(Host::limits).unwrap_or_default();
    let limits = HostLimits {
        window_tokens: a.window_tokens,
        char_cap: a.max_chars.or(host.char_cap),
        ..host
    };
    let inj = agent::inject(&env.ws, &a.host, a.session.as_deref(), source, limits)?;
    format::print(env, &inj, |i| {
        if i.injected {
            i.block.text.clone()
        } else {
            i.notice.clone().unwrap_or_default()
        }
    })
}

pub fn sessions(env: &Env, a: SessionsArgs) -> Result<()> {
    match a.cmd.unwrap_or(SessionsCmd::List) {
        SessionsCmd::List => {
            let list = agent::list_sessions(&env.ws)?;
            format::print(env, &list, |l| {
                if l.is_empty() {
                    return "(no agent sessions yet)".into();
                }
                l.iter()
                    .map(|s| {
                        format!(
                            "{}  {:<7} injected {}× (last {} at {})  nudges {}{}",
                            s.id,
                            s.host,
                            s.injections,
                            s.source.as_deref().unwrap_or("-"),
                            s.injected_at.as_deref().unwrap_or("-"),
                            s.nudges,
                            if s.ended_at.is_some() { "  ended" } else { "" }
                        )
                    })
                    .collect::<Vec<_>>()
                    .join("\n")
            })
        }
        SessionsCmd::Show { id } => {
            let v = agent::show_session(&env.ws, &id)?;
            format::print(env, &v, |v| {
                let s = &v.session;
                let recorded: String = (v.recorded.iter())
                    .map(|e| {
                        let on = e.branch.as_deref().map(|b| format!(" (on {b})"));
                        format!(
                            "\n          {} {} [{}]{}",
                            e.kind,
                            e.heading,
                            &e.id[..12.min(e.id.len())],
                            on.unwrap_or_default()
                        )
                    })
                    .collect();
                let recorded = match recorded.is_empty() {
                    true => " none".to_string(),
                    false => recorded,
                };
                format!(
                    "session   {}\nhost      {}\nstarted   {}\ninjected  {}× · last {} ({})\ndigest    {}\nentries   {}\ndropped   sections {:?} · decisions {} · sessions {:?}\nnotices   {} change(s) announced\nnudge     owed {} · given {}\nrecorded {}",
                    s.id,
                    s.host,
                    s.started_at,
                    s.injections,
                    s.injected_at.as_deref().unwrap_or("-"),
                    s.source.as_deref().unwrap_or("-"),
                    s.digest.as_deref().unwrap_or("-"),
                    s.injected_ids.join(", "),
                    s.dropped.sections_cut,
                    match &s.dropped.decisions_from {
                        Some(from) => format!("{} (from {from} down)", s.dropped.decisions),
                        None => s.dropped.decisions.to_string(),
                    },
                    s.dropped.sessions,
                    s.announced,
                    s.nudge_owed,
                    s.nudges,
                    recorded
                )
            })
        }
    }
}

/// Run a hook with the `--set` overrides. Always exits 0: a hook must never block the user or
/// break the host.
pub fn hook(a: &HookArgs, overrides: &[String]) -> Exit {
    // hooks always exit 0: a host must never fail the agent's turn because of trilogy
    let Some(input) = hooks::input::read(std::io::stdin(), hooks::input::WAIT) else {
        // stdin stayed open and held no whole payload, or more than a payload can be: nothing
        // to answer
        return Exit::Ok;
    };
    let env = crate::base::env::snapshot();
    let host_name = a.host.as_deref().unwrap_or_default();
    let Some(host) = Host::parse(host_name).filter(|h| h.has_hooks()) else {
        eprintln!(
            "trilogy hook: unknown host `{host_name}` (claude, codex, gemini, cursor or dsh); nothing done"
        );
        return Exit::Ok;
    };
    let Some(event) = a.event.as_deref() else {
        eprintln!("trilogy hook {host_name}: no event given (e.g. session-start); nothing done");
        return Exit::Ok;
    };
    let stdin = match String::from_utf8(input) {
        Ok(s) => s,
        Err(e) => {
            let line = format!(
                "{host_name} {event}: the hook input is not UTF-8 (at byte {}); nothing done",
                e.utf8_error().valid_up_to()
            );
            eprintln!("trilogy hook: {line}");
            if let Ok(cwd) = std::env::current_dir() {
                hooks::write_log(Some(&cwd), &line);
            }
            return Exit::Ok;
        }
    };
    let reply = hooks::run(host, event, &stdin, &env, overrides);
    if let Some(line) = &reply.log {
        eprintln!("trilogy hook: {line}");
        // hosts run hooks in the session's directory: log there when the input named none
        let root = reply.root.clone().or_else(|| std::env::current_dir().ok());
        hooks::write_log(root.as_deref(), line);
    }
    if !reply.stdout.is_empty() {
        format::emit(&reply.stdout);
    }
    Exit::Ok
}

fn install_options(
    env: &Env,
    a: &InstallArgs,
    target: Host,
    remove: bool,
) -> Result<InstallOptions> {
    if a.rules && target != Host::Cursor {
        return Err(Error::bad_input(format!(
            "--rules is for cursor; {} gets its rules file without it",
            a.host
        )));
    }
    let scope = match a.scope.as_deref() {
        Some("user") => Scope::User,
        Some(_) => Scope::Project,
        None if target == Host::Windsurf => Scope::User,
        None => Scope::Project,
    };
    let home = crate::base::dirs::home(&env.vars).ok_or_else(|| {
        Error::bad_input("HOME is not set to an absolute path; it locates the user settings")
    })?;
    // where install records what it made, beside the pinned sessions
    let state = crate::base::dirs::state(&env.vars)
        .ok_or_else(|| Error::Internal("no state folder under an absolute HOME".into()))?;
    // hosts without hooks read the block itself from their rules file
    let memory_block = match install::block_file(target, scope, a.rules) {
        Some(file) if !remove && install::refuses(target, scope, a.rules).is_none() => {
            if !env.ws.has_memory() {
                crate::ops::init(&env.ws)?;
            }
            crate::ops::block::region(&env.ws, std::path::Path::new(file))?.0
        }
        _ => String::new(),
    };
    Ok(InstallOptions {
        target,
        scope,
        memory_block,
        rules: a.rules,
        force: a.force,
        command: a.command(),
        root: env.ws.root.clone(),
        home,
        // removing needs only the markers: a broken template must not stand in the way
        boot_block: if remove {
            String::new()
        } else {
            env.ws.boot_block_text()?
        },
        state: Some(state),
    })
}

/// DeepSeek Harness: the plugin (`templates/dsh/`), written out and added to a profile with the
/// harness's own `dsh plugin add`, or printed as the command to run when `dsh` is not on PATH.
/// `--static` keeps the older setup: the block in `AGENTS.local.md` and the MCP entry to paste.
fn install_dsh(env: &Env, a: &InstallArgs, remove: bool) -> Result<()> {
    use crate::ops::block::{self, BLOCK_END, BLOCK_START, DEFAULT_BLOCK_FILE};
    use crate::ops::install::dsh;
    let file = env.ws.root.join(DEFAULT_BLOCK_FILE);
    if a.static_block && !remove {
        if !env.ws.has_memory() {
            crate::ops::init(&env.ws)?;
        }
        let out = block::write_block(&env.ws, std::path::Path::new(DEFAULT_BLOCK_FILE))?;
        let snippet = block::dsh_snippet(&a.command());
        let v = serde_json::json!({"block": out, "profile_entry": snippet});
        return format::print(env, &v, |_| {
            format!(
                "{} {}\n\nadd this plugin entry to your DeepSeek Harness profile (cordis.yml), then restart dsh:\n\n{snippet}",
                out.outcome.word(),
                out.path
            )
        });
    }
    let dir = dsh::bundle_dir(&env.vars)?;
    let mut lines = Vec::new();
    let mut static_removed = false;
    if remove {
        static_removed = crate::workspace::remove_region(&file, BLOCK_START, BLOCK_END)?;
        if static_removed {
            lines.push(format!("removed   the block in {}", file.display()));
        }
    } else {
        for p in dsh::write_bundle(&dir, &a.command())? {
            lines.push(format!("wrote     {}", p.display()));
        }
    }
    let argv = dsh::plugin_argv(&a.profile, &dir, remove);
    let shown = argv.join(" ");
    let ran = match which(&env.vars, "dsh") {
        Some(bin) => {
            let out = std::process::Command::new(bin)
                .args(&argv[1..])
                .output()
                .map_err(|e| Error::Internal(format!("cannot run `{shown}`: {e}")))?;
            if !out.status.success() {
                return Err(Error::Internal(format!(
                    "`{shown}` failed ({}): {}",
                    out.status,
                    String::from_utf8_lossy(&out.stderr).trim()
                )));
            }
            lines.push(format!("ran       {shown}"));
            true
        }
        None => {
            lines.push(format!(
                "dsh is not on PATH; to {} the plugin, run:\n\n  {shown}\n",
                if remove { "remove" } else { "add" }
            ));
            false
        }
    };
    if !remove {
        lines.push(format!(
            "restart dsh with --profile {}: each model step then gets the memory block once, \
             notices of changes made elsewhere and the reminder after unrecorded work; the \
             bundle also registers the MCP server (`{} mcp`). Configure it with a \
             `- id: trilogy` row in the profile's cordis.patch.yml (the original plugin's keys)",
            a.profile,
            a.command()
        ));
    }
    let v = serde_json::json!({
        "bundle": dir.display().to_string(),
        "profile": a.profile,
        "command": argv,
        "ran": ran,
        "static_block_removed": static_removed,
    });
    format::print(env, &v, |_| lines.join("\n"))
}

/// The first `name` on the PATH of `vars`.
fn which(vars: &[(String, String)], name: &str) -> Option<std::path::PathBuf> {
    crate::base::env::on_path(crate::base::env::var(vars, "PATH"), name).find(|p| p.is_file())
}

pub fn install(env: &Env, a: InstallArgs, remove: bool) -> Result<()> {
    let target = Target::parse(&a.host).ok_or_else(|| {
        Error::bad_input(format!(
            "unknown host `{}`; choose claude, codex, gemini, cursor, vscode, windsurf, zed, dsh or git",
            a.host
        ))
    })?;
    let host = match target {
        Target::Host(h) if h.install() == Install::Plugin => return install_dsh(env, &a, remove),
        Target::Host(h) => h,
        Target::Git => {
            let command = match (&a.command, std::env::current_exe()) {
                (Some(c), _) => c.clone(),
                (None, Ok(exe)) => exe.display().to_string(),
                (None, Err(_)) => a.command(),
            };
            let done = crate::ops::gitmerge::install_git(
                &env.ws.root,
                &env.ws.config.memory_dir_name,
                &command,
                crate::base::env::var(&env.vars, "PATH"),
                remove,
            )?;
            return format::print(env, &done, |d| d.join("\n"));
        }
    };
    let opts = install_options(env, &a, host, remove)?;
    let changes = if remove {
        install::uninstall(&opts)?
    } else {
        install::install(&opts)?
    };
    if !remove {
        for note in setup_notes(&env.vars, opts.target, &opts.command) {
            eprintln!("note: {note}");
        }
        if opts.target == Host::Zed
            && changes
                .iter()
                .any(|c| c.action == "created" && c.path.ends_with("/.rules"))
            && let Some(other) = install::ZED_SHADOWED
                .iter()
                .find(|f| opts.root.join(f).is_file())
        {
            eprintln!(
                "note: Zed's agent reads only the first rules file it finds, and .rules comes before {other}: Zed no longer reads {other}; copy into .rules what Zed should keep from it"
            );
        }
    }
    format::print(env, &changes, |c| {
        if c.is_empty() {
            return "nothing to change".into();
        }
        c.iter()
            .map(|f| match &f.note {
                Some(note) => format!("{:<9} {} ({note})", f.action, f.path),
                None => format!("{:<9} {}", f.action, f.path),
            })
            .collect::<Vec<_>>()
            .join("\n")
    })
}

/// What the user still has to do for the host to run what `install` wrote.
fn setup_notes(vars: &[(String, String)], host: Host, command: &str) -> Vec<String> {
    let mut notes = Vec::new();
    if !crate::ops::doctor::resolves(command, crate::base::env::var(vars, "PATH")) {
        let exe = std::env::current_exe()
            .map(|p| p.display().to_string())
            .unwrap_or_else(|_| "/absolute/path/to/trilogy".into());
        notes.push(format!(
            "`{command}` is not on PATH here, so the host's hooks and tools would fail: put it on PATH, or run `trilogy install {} --command {exe}`",
            host.as_str()
        ));
    }
    if host == Host::Zed {
        notes.push(
            "Zed starts a project's context servers only in a trusted project: trust this folder when Zed asks (the block is in .rules, which Zed's agent reads at the start of every thread)".into(),
        );
    }
    if host == Host::Cursor {
        notes.push(
            "Cursor runs a project's hooks only in a trusted workspace; check them under Settings → Hooks. If Cursor also loads this project's Claude Code hooks (\"third-party hooks\") and `trilogy install claude` was run here, the block arrives twice: turn one of them off".into(),
        );
    }
    if host == Host::Codex {
        notes.push(
            "Codex reads a project's .codex/ only once the project is trusted: run `codex` here once and trust it, then review the hooks once with `/hooks`; the memory tools are pre-approved (`default_tools_approval_mode`), so `codex exec` can record".into(),
        );
    }
    notes
}

/// `trilogy block --file F`: the session-start block in a managed region of F.
pub fn block(env: &Env, file: &std::path::Path) -> Result<()> {
    let out = crate::ops::block::write_block(&env.ws, file)?;
    format::print(env, &out, |o| {
        format!(
            "{} {} ({} bytes of memory)",
            o.outcome.word(),
            o.path,
            o.bytes
        )
    })
}

#[derive(Args, Debug)]
pub struct SearchArgs {
    /// Words, a phrase, or a code name (`沙箱禁管道`, `why did we drop sqlite`, `parseSessions`)
    #[arg(required = true, num_args = 1..)]
    query: Vec<String>,
    /// Only this kind: session, decision, section, prose (text written outside entries), or
    /// user (your USER.md)
    #[arg(long, value_parser = ["session", "decision", "section", "prose", "user"])]
    kind: Option<String>,
    /// Only sessions of this area
    #[arg(long)]
    area: Option<String>,
    /// Entries dated on or after (YYYY-MM-DD)
    #[arg(long, value_name = "DATE")]
    since: Option<String>,
    /// Entries dated on or before (YYYY-MM-DD)
    #[arg(long, value_name = "DATE")]
    until: Option<String>,
    /// The archive: include (default), exclude, or only
    #[arg(long, default_value = "include", value_parser = ["include", "exclude", "only"])]
    archive: String,
    /// Number of results (default 5, at most 20)
    #[arg(long, short = 'n', default_value_t = 5)]
    limit: usize,
    /// This work tree only: leave out what sibling git work trees recorded lately
    #[arg(long)]
    here: bool,
}

pub fn search(env: &Env, a: SearchArgs) -> Result<()> {
    use crate::index::{ArchiveMode, SearchQuery};
    let q = SearchQuery {
        text: a.query.join(" "),
        limit: a.limit,
        kind: a.kind,
        area: a.area,
        since: super::parse_date("since", &a.since)?,
        until: super::parse_date("until", &a.until)?,
        archive: match a.archive.as_str() {
            "exclude" => ArchiveMode::Exclude,
            "only" => ArchiveMode::Only,
            _ => ArchiveMode::Include,
        },
        here: a.here,
    };
    let out = crate::ops::search::search(&env.ws, q)?;
    format::print(env, &out, format::search)
}

pub fn reindex(env: &Env) -> Result<()> {
    let mut bar = super::progress::Bar::stderr("indexing", env.json);
    let n = crate::ops::search::reindex(&env.ws, &mut |done, total| bar.update(done, total))?;
    drop(bar);
    format::print(env, &serde_json::json!({ "documents": n }), |_| {
        format!("indexed {n} documents")
    })
}
