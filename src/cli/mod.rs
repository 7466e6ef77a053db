//! The command line: parse arguments (clap), build the [`Context`] once for a command that
//! works on a workspace, and run the verb (`commands/<verb>.rs`: its arguments and its `run`,
//! which calls `ops` and hands the result to `format`). The only module that names clap; the
//! only place (with `main`) that prints.

mod commands;
mod context;
mod format;
mod help;
mod parse;
mod progress;
mod style;

use std::ffi::OsString;
use std::path::PathBuf;

use clap::{Args, ColorChoice, CommandFactory, Parser, Subcommand};

use crate::error::{Error, Exit, Result};

use commands::{
    block, checkpoint, clear, completions, config, demo, doctor, due, export, hook, import, init,
    inject, install, log, man, mcp, merge_driver, read, recall, reindex, reports, resolve, restore,
    retire, review, search, serve, sessions, status, uninstall, user,
};
pub(crate) use context::Context;

/// Project memory for AI coding agents: three Markdown files kept by a transactional store.
///
/// trilogy keeps memory/PROJECT.md (what the project is now), memory/DECISIONS.md (why) and
/// memory/SESSIONS.md (what happened). The files are rendered from a redb store in .trilogy/;
/// edit them by hand whenever you like: the next command absorbs the edit.
#[derive(Parser, Debug)]
#[command(name = "trilogy", version, after_help = help::after_help())]
struct Cli {
    #[command(flatten)]
    g: Globals,
    #[command(subcommand)]
    command: Command,
}

/// The options every command takes.
#[derive(Args, Debug, Clone)]
struct Globals {
    /// Workspace root (default: the current directory, or the nearest marker with
    /// project_root_strategy = "marker")
    #[arg(long, global = true, value_name = "DIR")]
    root: Option<PathBuf>,
    /// Print machine-readable JSON
    #[arg(long, global = true)]
    json: bool,
    /// Override a config key for this command (repeatable), e.g. --set lang=en
    #[arg(long = "set", global = true, value_name = "KEY=VALUE")]
    set: Vec<String>,
    /// Colour the output: auto (only on a terminal, and not when NO_COLOR is set), always, never
    #[arg(long, global = true, value_name = "WHEN", default_value_t = ColorChoice::Auto)]
    color: ColorChoice,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Create memory/ from templates (never overwriting) and the boot block in AGENTS.md
    #[command(after_help = init::HELP)]
    Init(init::InitArgs),
    /// Record sessions, decisions and PROJECT edits (JSON batch on stdin or a file, or flags)
    #[command(after_help = checkpoint::HELP)]
    Checkpoint(Box<checkpoint::CheckpointArgs>),
    /// Print a memory file, one PROJECT section, or entries filtered by area, date and count
    Read(read::ReadArgs),
    /// Show files, counts, areas, open reports and files that do not parse
    Status,
    /// Show the event log (every change, who made it), or a section's revisions
    Log(log::LogArgs),
    /// Bring back an archived, removed, replaced or superseded entry, or an old section revision
    Restore(restore::RestoreArgs),
    /// Mark a decision or a session as no longer true (a person's act): kept, marked, not injected
    #[command(after_help = retire::HELP)]
    Retire(retire::RetireArgs),
    /// List the decisions and PROJECT sections whose review date has come
    #[command(after_help = due::HELP)]
    Due(due::DueArgs),
    /// Check the store, the files, the index and the managed blocks; --fix repairs what is safe
    Doctor(doctor::DoctorArgs),
    /// What agents proposed (review_mode = propose) and the reports they left: accept, reject
    #[command(after_help = review::HELP)]
    Review(review::ReviewArgs),
    /// What was said in this project's agent sessions, found in the hosts' transcripts
    #[command(after_help = recall::HELP)]
    Recall(recall::RecallArgs),
    /// Your own memory across projects (USER.md): show it, add a line, edit it
    #[command(after_help = user::USER_HELP)]
    User(user::UserArgs),
    /// List the reports left by checkpoint `notes` (things that look stale or wrong), or close one
    Reports(reports::ReportsArgs),
    /// Show the effective configuration and where each value came from
    Config,
    /// Build a throwaway workspace and walk through recording, hand edits and reading
    Demo(demo::DemoArgs),
    /// Merge three versions of a memory file by entry (git runs this: `%O %A %B %P`)
    #[command(name = "merge-driver")]
    MergeDriver(merge_driver::MergeDriverArgs),
    /// Merge memory files git left unmerged (its merge driver did not run) and stage them
    Resolve(resolve::ResolveArgs),
    #[command(about = crate::mcp::about())]
    Mcp(mcp::McpArgs),
    /// Serve the memory panel on 127.0.0.1 (prints its URL with a per-launch token)
    Serve(serve::ServeArgs),
    /// Search entries and PROJECT sections in Chinese, English or code names
    Search(search::SearchArgs),
    /// Rebuild the search index from the store
    Reindex,
    /// Print the session-start block an agent sees, with its ledger
    Inject(inject::InjectArgs),
    /// Show what trilogy remembers about agent sessions (list, show ID)
    Sessions(sessions::SessionsArgs),
    /// Answer an agent host's hook: reads the host's JSON on stdin (run by the installed hooks)
    Hook(hook::HookArgs),
    /// Add trilogy's hooks and MCP server to an agent host's settings
    #[command(long_about = install::HELP)]
    Install(install::InstallArgs),
    /// Take out what `install` added, giving each file back as it was
    Uninstall(install::InstallArgs),
    /// The boot block in AGENTS.md (status, remove, rewrite), or the session-start block in a
    /// managed region of a file for hosts without hooks (--file F)
    #[command(long_about = block::HELP)]
    Block(block::BlockArgs),
    /// Write the memory files as one JSON bundle (the original plugin's format)
    #[command(long_about = export::HELP)]
    Export(export::ExportArgs),
    /// Load a bundle (merged by entry, or --replace), or another tool's memory with --from
    #[command(long_about = import::HELP)]
    Import(import::ImportArgs),
    /// Delete the memory files and the boot block (every entry stays restorable); needs --yes
    #[command(long_about = clear::HELP)]
    Clear(clear::ClearArgs),
    /// Print the shell completion script (bash, zsh, fish, powershell or elvish)
    Completions(completions::CompletionsArgs),
    /// Print the man page (roff)
    Man,
}

/// Run the CLI; returns how the process exits.
pub fn run() -> Exit {
    let args: Vec<OsString> = std::env::args_os().collect();
    // a topic page wins over the command of the same name, as `git help config` does
    if let Some(topic) = help::asked(&args) {
        format::emit(&help::page(topic));
        return Exit::Ok;
    }
    let cli = match parse::parse(args) {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() {
                Exit::Usage
            } else {
                Exit::Ok
            };
        }
    };
    let json = cli.g.json;
    match dispatch(cli) {
        Ok(()) => Exit::Ok,
        Err(e) => {
            if json {
                let v = serde_json::json!({"error": {"kind": e.kind().as_str(), "message": e.to_string()}});
                format::emit(&v.to_string());
            }
            eprintln!("trilogy: error: {e}");
            e.kind().exit()
        }
    }
}

/// Run one command: those that need no workspace with the global options they use, the
/// others in a [`Context`] built once, as [`Reach`] says.
fn dispatch(cli: Cli) -> Result<()> {
    let Cli { g, command } = cli;
    let json = g.json;
    match command {
        Command::Demo(a) => demo::run(a, &g.set, style::Style::stdout(g.color)),
        Command::Completions(a) => completions::run(a, Cli::command()),
        Command::Man => man::run(Cli::command()),
        Command::Hook(a) => std::process::exit(hook::run(&a, &g.set).code()),
        // git's merge-driver protocol, not trilogy's exit table: 0 merged, non-zero conflicted
        Command::MergeDriver(a) => std::process::exit(merge_driver::run(&a)),
        Command::Mcp(a) => mcp::run(a, g.root, g.set),
        Command::Serve(a) => serve::run(a, g.set, json),
        Command::User(a) => in_context(&g, Reach::UserAnywhere, |ctx| user::run(ctx, a)),
        Command::Review(a) => in_context(&g, Reach::UserOutside, |ctx| review::run(ctx, a)),
        Command::Config => in_context(&g, Reach::EvenDisabled, config::run),
        Command::Init(a) => {
            let g = Globals {
                set: init::overrides(&a, &g.set),
                ..g.clone()
            };
            in_context(&g, Reach::Project, |ctx| init::run(ctx, &a))
        }
        Command::Checkpoint(a) => in_context(&g, Reach::Project, |ctx| checkpoint::run(ctx, *a)),
        Command::Read(a) => in_context(&g, Reach::Project, |ctx| read::run(ctx, a)),
        Command::Status => in_context(&g, Reach::Project, status::run),
        Command::Log(a) => in_context(&g, Reach::Project, |ctx| log::run(ctx, a)),
        Command::Restore(a) => in_context(&g, Reach::Project, |ctx| restore::run(ctx, a)),
        Command::Retire(a) => in_context(&g, Reach::Project, |ctx| retire::run(ctx, a)),
        Command::Due(a) => in_context(&g, Reach::Project, |ctx| due::run(ctx, a)),
        Command::Doctor(a) => in_context(&g, Reach::Project, |ctx| doctor::run(ctx, a)),
        Command::Recall(a) => in_context(&g, Reach::Project, |ctx| recall::run(ctx, a)),
        Command::Reports(a) => in_context(&g, Reach::Project, |ctx| reports::run(ctx, a)),
        Command::Resolve(a) => in_context(&g, Reach::Project, |ctx| resolve::run(ctx, a)),
        Command::Search(a) => in_context(&g, Reach::Project, |ctx| search::run(ctx, a)),
        Command::Reindex => in_context(&g, Reach::Project, reindex::run),
        Command::Inject(a) => in_context(&g, Reach::Project, |ctx| inject::run(ctx, a)),
        Command::Sessions(a) => in_context(&g, Reach::Project, |ctx| sessions::run(ctx, a)),
        Command::Install(a) => in_context(&g, Reach::Project, |ctx| install::run(ctx, a)),
        Command::Uninstall(a) => in_context(&g, Reach::Project, |ctx| uninstall::run(ctx, a)),
        Command::Block(a) => in_context(&g, Reach::Project, |ctx| block::run(ctx, a)),
        Command::Export(a) => in_context(&g, Reach::Project, |ctx| export::run(ctx, a)),
        Command::Import(a) => in_context(&g, Reach::Project, |ctx| import::run(ctx, a)),
        Command::Clear(a) => in_context(&g, Reach::Project, |ctx| clear::run(ctx, a)),
    }
}

/// Where a command that needs a [`Context`] may run.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Reach {
    /// A project where trilogy is enabled.
    Project,
    /// A project, enabled or not (`config` shows where `enabled = false` was set).
    EvenDisabled,
    /// A project, or outside any project the user memory alone, whose proposals are still
    /// yours to review.
    UserOutside,
    /// The user memory: in a project (whose language a new USER.md takes), or anywhere else
    /// with your own settings alone; never refused, never recorded for the panel.
    UserAnywhere,
}

/// Build the [`Context`] once and run `command` in it; the panel then lists the workspace, as
/// it lists every workspace a command used, not only those a hook or `init` saw.
fn in_context(
    g: &Globals,
    reach: Reach,
    command: impl FnOnce(&Context) -> Result<()>,
) -> Result<()> {
    let opened = Context::open(g.root.as_deref(), &g.set, g.json);
    let ctx = match (reach, opened) {
        (Reach::UserAnywhere, Ok(ctx)) => return command(&ctx),
        (Reach::UserAnywhere, Err(_)) => return command(&Context::user_only(&g.set, g.json)?),
        (Reach::UserOutside, Err(Error::NoProject(_))) => Context::user_only(&g.set, g.json)?,
        (_, opened) => opened?,
    };
    if !ctx.loaded.config.enabled && reach != Reach::EvenDisabled {
        return Err(Error::bad_input(
            "trilogy is disabled here (enabled = false); `trilogy config` shows where that was set",
        ));
    }
    let result = command(&ctx);
    if ctx.ws.has_memory() {
        crate::registry::seen_quietly(&ctx.vars, &ctx.ws);
        // a teammate's clone: the committed `.gitattributes` asks for a driver it lacks
        if let Some(note) = crate::ops::gitmerge::configure_missing(&ctx.ws) {
            eprintln!("trilogy: {note}");
        }
    }
    result
}
