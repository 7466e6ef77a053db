//! `trilogy install` and `trilogy uninstall`: trilogy's hooks and MCP server added to an agent
//! host's settings, or taken out giving each file back as it was.

use clap::Args;

use crate::error::{Error, Result};
use crate::model::host::{Host, Install};
use crate::ops::install::{self, InstallOptions, Scope, Target};

use super::super::{Context, format};

/// `trilogy install --help`: what each host gets, and where.
pub const HELP: &str = "\
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

pub fn run(ctx: &Context, a: InstallArgs) -> Result<()> {
    apply(ctx, a, false)
}

fn install_options(
    ctx: &Context,
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
    let home = crate::base::dirs::home(&ctx.vars).ok_or_else(|| {
        Error::bad_input("HOME is not set to an absolute path; it locates the user settings")
    })?;
    // where install records what it made, beside the pinned sessions
    let state = crate::base::dirs::state(&ctx.vars)
        .ok_or_else(|| Error::Internal("no state folder under an absolute HOME".into()))?;
    // hosts without hooks read the block itself from their rules file
    let memory_block = match install::block_file(target, scope, a.rules) {
        Some(file) if !remove && install::refuses(target, scope, a.rules).is_none() => {
            if !ctx.ws.has_memory() {
                crate::ops::init(&ctx.ws)?;
            }
            crate::ops::regions::region(&ctx.ws, std::path::Path::new(file))?.0
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
        os: install::shell::Os::HOST,
        root: ctx.ws.root.clone(),
        home,
        // removing needs only the markers: a broken template must not stand in the way
        boot_block: if remove {
            String::new()
        } else {
            ctx.ws.boot_block_text()?
        },
        state: Some(state),
    })
}

/// DeepSeek Harness: the plugin (`templates/dsh/`), written out and added to a profile with the
/// harness's own `dsh plugin add`, or printed as the command to run when `dsh` is not on PATH.
/// `--static` keeps the older setup: the block in `AGENTS.local.md` and the MCP entry to paste.
fn install_dsh(ctx: &Context, a: &InstallArgs, remove: bool) -> Result<()> {
    use crate::ops::install::dsh;
    use crate::ops::regions::{self, BLOCK_END, BLOCK_START, DEFAULT_BLOCK_FILE};
    let file = ctx.ws.root.join(DEFAULT_BLOCK_FILE);
    if a.static_block && !remove {
        if !ctx.ws.has_memory() {
            crate::ops::init(&ctx.ws)?;
        }
        let out = regions::write_block(&ctx.ws, std::path::Path::new(DEFAULT_BLOCK_FILE))?;
        let snippet = regions::dsh_snippet(&a.command());
        let v = serde_json::json!({"block": out, "profile_entry": snippet});
        return format::print(ctx, &v, |_| {
            format!(
                "{} {}\n\nadd this plugin entry to your DeepSeek Harness profile (cordis.yml), then restart dsh:\n\n{snippet}",
                out.outcome.word(),
                out.path
            )
        });
    }
    let dir = dsh::bundle_dir(&ctx.vars)?;
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
    let ran = match which(&ctx.vars, "dsh") {
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
    format::print(ctx, &v, |_| lines.join("\n"))
}

/// The first `name` on the PATH of `vars`.
fn which(vars: &[(String, String)], name: &str) -> Option<std::path::PathBuf> {
    crate::base::env::on_path(crate::base::env::var(vars, "PATH"), name).find(|p| p.is_file())
}

pub(super) fn apply(ctx: &Context, a: InstallArgs, remove: bool) -> Result<()> {
    let target = Target::parse(&a.host).ok_or_else(|| {
        Error::bad_input(format!(
            "unknown host `{}`; choose claude, codex, gemini, cursor, vscode, windsurf, zed, dsh or git",
            a.host
        ))
    })?;
    let host = match target {
        Target::Host(h) if h.install() == Install::Plugin => return install_dsh(ctx, &a, remove),
        Target::Host(h) => h,
        Target::Git => {
            let command = (a.command.clone()).unwrap_or_else(crate::ops::gitmerge::own_command);
            let done = crate::ops::gitmerge::install_git(
                &ctx.ws.root,
                &ctx.ws.config.memory_dir_name,
                &command,
                crate::base::env::var(&ctx.vars, "PATH"),
                remove,
            )?;
            return format::print(ctx, &done, |d| d.join("\n"));
        }
    };
    let opts = install_options(ctx, &a, host, remove)?;
    let changes = if remove {
        install::uninstall(&opts)?
    } else {
        install::install(&opts)?
    };
    if !remove {
        for note in setup_notes(&ctx.vars, opts.target, &opts.command) {
            eprintln!("note: {note}");
        }
        // the merge driver, so this clone's pulls merge memory files by entry
        let path = crate::base::env::var(&ctx.vars, "PATH");
        for line in crate::ops::gitmerge::set_up(&ctx.ws, path) {
            eprintln!("git: {line}");
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
    format::print(ctx, &changes, |c| {
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
