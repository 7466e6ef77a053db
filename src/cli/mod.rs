//! The command line: parse arguments (clap), build the workspace, call `ops`, format output.
//! The only module that names clap; the only place (with `main`) that prints.

mod agent;
mod bundle;
mod checkpoint;
mod commands;
mod demo;
mod format;
mod help;
mod progress;
mod recall;
mod review;
mod shell;
mod style;
mod user;

use std::ffi::OsString;
use std::path::PathBuf;

use clap::{Args, ColorChoice, CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};

use crate::config;
use crate::error::{Error, Exit, Result};
use crate::ops;
use crate::workspace::Workspace;

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
#[derive(Args, Debug)]
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
    Init,
    /// Record sessions, decisions and PROJECT edits (JSON batch on stdin or a file, or flags)
    #[command(after_help = checkpoint::CHECKPOINT_HELP)]
    Checkpoint(Box<checkpoint::CheckpointArgs>),
    /// Print a memory file, one PROJECT section, or entries filtered by area, date and count
    Read(ReadArgs),
    /// Show files, counts, areas, open reports and files that do not parse
    Status,
    /// Show the event log (every change, who made it), or a section's revisions
    Log(LogArgs),
    /// Bring back an archived, removed, replaced or superseded entry, or an old section revision
    Restore(RestoreArgs),
    /// Mark a decision or a session as no longer true (a person's act): kept, marked, not injected
    #[command(after_help = RETIRE_HELP)]
    Retire(RetireArgs),
    /// List the decisions and PROJECT sections whose review date has come
    #[command(after_help = DUE_HELP)]
    Due(DueArgs),
    /// Check the store, the files, the index and the managed blocks; --fix repairs what is safe
    Doctor(DoctorArgs),
    /// What agents proposed (review_mode = propose) and the reports they left: accept, reject
    #[command(after_help = review::REVIEW_HELP)]
    Review(review::ReviewArgs),
    /// What was said in this project's agent sessions, found in the hosts' transcripts
    #[command(after_help = recall::RECALL_HELP)]
    Recall(recall::RecallArgs),
    /// Your own memory across projects (USER.md): show it, add a line, edit it
    #[command(after_help = user::USER_HELP)]
    User(user::UserArgs),
    /// List the reports left by checkpoint `notes` (things that look stale or wrong), or close one
    Reports(ReportsArgs),
    /// Show the effective configuration and where each value came from
    Config,
    /// Build a throwaway workspace and walk through recording, hand edits and reading
    Demo(DemoArgs),
    /// Merge three versions of a memory file by entry (git runs this: `%O %A %B %P`)
    #[command(name = "merge-driver")]
    MergeDriver(MergeDriverArgs),
    /// Merge memory files git left unmerged (its merge driver did not run) and stage them
    Resolve(ResolveArgs),
    /// Serve the MCP tools (memory_checkpoint, memory_read, memory_search, memory_status) on stdio
    Mcp(McpArgs),
    /// Serve the memory panel on 127.0.0.1 (prints its URL with a per-launch token)
    Serve(ServeArgs),
    /// Search entries and PROJECT sections in Chinese, English or code names
    Search(agent::SearchArgs),
    /// Rebuild the search index from the store
    Reindex,
    /// Print the session-start block an agent sees, with its ledger
    Inject(agent::InjectArgs),
    /// Show what trilogy remembers about agent sessions (list, show ID)
    Sessions(agent::SessionsArgs),
    /// Answer an agent host's hook: reads the host's JSON on stdin (run by the installed hooks)
    Hook(agent::HookArgs),
    /// Add trilogy's hooks and MCP server to an agent host's settings
    #[command(long_about = agent::INSTALL_HELP)]
    Install(agent::InstallArgs),
    /// Take out what `install` added, giving each file back as it was
    Uninstall(agent::InstallArgs),
    /// The boot block in AGENTS.md (status, remove, rewrite), or the session-start block in a
    /// managed region of a file for hosts without hooks (--file F)
    #[command(long_about = bundle::BLOCK_HELP)]
    Block(bundle::BlockArgs),
    /// Write the memory files as one JSON bundle (the original plugin's format)
    #[command(long_about = bundle::EXPORT_HELP)]
    Export(bundle::ExportArgs),
    /// Load a bundle (merged by entry, or --replace), or another tool's memory with --from
    #[command(long_about = bundle::IMPORT_HELP)]
    Import(bundle::ImportArgs),
    /// Delete the memory files and the boot block (every entry stays restorable); needs --yes
    #[command(long_about = bundle::CLEAR_HELP)]
    Clear(bundle::ClearArgs),
    /// Print the shell completion script (bash, zsh, fish, powershell or elvish)
    Completions(shell::CompletionsArgs),
    /// Print the man page (roff)
    Man,
}

#[derive(Args, Debug)]
struct ReadArgs {
    /// PROJECT.md, DECISIONS.md, SESSIONS.md, SESSIONS-archive.md, or USER.md (your own memory
    /// across projects) (default: the three main files)
    file: Option<String>,
    /// One section, by name in either language: of PROJECT.md, or of USER.md when that is
    /// the file named
    #[arg(long, value_name = "NAME")]
    section: Option<String>,
    /// Entries of this area only
    #[arg(long)]
    area: Option<String>,
    /// Entries dated on or after (YYYY-MM-DD)
    #[arg(long, value_name = "DATE")]
    since: Option<String>,
    /// Entries dated on or before (YYYY-MM-DD)
    #[arg(long, value_name = "DATE")]
    until: Option<String>,
    /// At most this many entries (newest first); implies entry mode
    #[arg(long, short = 'n')]
    limit: Option<usize>,
    /// Only entries recorded on this git branch (their provenance); implies entry mode
    #[arg(long, value_name = "BRANCH")]
    branch: Option<String>,
}

#[derive(Args, Debug)]
struct LogArgs {
    /// Number of events (newest first)
    #[arg(long, short = 'n', default_value_t = 20)]
    limit: usize,
    /// Only events about this entry id (prefix)
    #[arg(long)]
    id: Option<String>,
    /// Show the revisions of this PROJECT section instead
    #[arg(long, value_name = "NAME")]
    section: Option<String>,
}

#[derive(Args, Debug)]
#[command(after_help = "Examples:
  trilogy restore 3fa9c2            # an entry, by id (see `trilogy log`)
  trilogy restore --text \"部署脚本\"  # the archived entry containing this text
  trilogy restore --section 现状 --revision 3")]
struct RestoreArgs {
    /// Entry id (or a unique prefix of at least 4 characters)
    #[arg(required_unless_present_any = ["section", "text", "clear"])]
    id: Option<String>,
    /// Bring back everything one `trilogy clear` took out: the number of its `clear` event
    /// (`trilogy log` shows it; the clear printed it)
    #[arg(long, value_name = "EVENT", conflicts_with_all = ["id", "section", "text"])]
    clear: Option<u64>,
    /// Restore the archived entry whose text contains this (`-` reads it from stdin)
    #[arg(long, value_name = "TEXT", conflicts_with_all = ["id", "section"])]
    text: Option<String>,
    /// Restore a PROJECT section instead (with --revision)
    #[arg(
        long,
        value_name = "NAME",
        requires = "revision",
        conflicts_with = "id"
    )]
    section: Option<String>,
    /// Section revision to bring back (see `trilogy log --section NAME`)
    #[arg(long)]
    revision: Option<u64>,
}

const RETIRE_HELP: &str =
    "The entry stays in its file with a last line `已失效：YYYY-MM-DD — why` (or
`Retired: …`), which you can also write by hand. A retired entry is never injected,
is still found by search (marked retired), frees its topic for a new decision, and comes back
with `trilogy restore ID`. A decision that has a successor is superseded instead: record the
new one with `supersedes`.

Examples:
  trilogy retire 3fa9c2d1 --why \"upstream fixed the bug; the workaround is gone\"
  trilogy retire 3fa9c2d1 --why \"我们不再用 sqlite\" --json";

const DUE_HELP: &str =
    "A decision carries its review date as a line `复核：2027-03-01` (`Review: …`), a PROJECT
section as its last line; record one with `--review` or `\"review\"` in the batch (a date, or
`3 months`, `2 weeks`, `3个月后`, `2周后`, `立即`, written down as the date). A phrase like
`when we change machines` is kept and never comes due. Superseding or retiring the decision,
or editing the date, settles it. The session-start block lists what is due, a few lines.

Examples:
  trilogy due                 # due today or earlier (TRILOGY_TODAY pins today)
  trilogy due --within 30     # and in the next 30 days
  trilogy due --json";

#[derive(Args, Debug)]
struct DueArgs {
    /// Also what comes due within this many days
    #[arg(long, value_name = "DAYS", default_value_t = 0)]
    within: u64,
}

#[derive(Args, Debug)]
struct RetireArgs {
    /// Entry id (or a unique prefix of at least 4 characters), from `trilogy read --json`,
    /// `trilogy search` or the report that proposes it
    id: String,
    /// Why it is no longer true, one line (written beside the entry)
    #[arg(long, value_name = "TEXT")]
    why: String,
}

#[derive(Args, Debug)]
struct DoctorArgs {
    /// Repair what is safe: absorb and re-render the files, rebuild the index, sweep temp files
    #[arg(long)]
    fix: bool,
}

#[derive(Args, Debug)]
struct ReportsArgs {
    /// Include closed reports
    #[arg(long)]
    all: bool,
    /// Mark report N as dealt with
    #[arg(long, value_name = "N")]
    close: Option<u64>,
}

#[derive(Args, Debug)]
struct MergeDriverArgs {
    /// The common ancestor (%O)
    base: PathBuf,
    /// Our version (%A); the result is written here
    ours: PathBuf,
    /// Their version (%B)
    theirs: PathBuf,
    /// The path in the repository (%P)
    path: String,
}

#[derive(Args, Debug)]
struct ResolveArgs {
    /// Only these files (paths as `git status` shows them); default: every unmerged memory file
    files: Vec<String>,
}

#[derive(Args, Debug)]
struct McpArgs {
    /// The agent session this server belongs to, when the host tells it (its writes are then
    /// not announced back to that session); also read from TRILOGY_AGENT_SESSION
    #[arg(long, value_name = "ID")]
    agent_session: Option<String>,
}

#[derive(Args, Debug)]
struct ServeArgs {
    /// Port on 127.0.0.1 (0 picks a free one)
    #[arg(long, default_value_t = 7788)]
    port: u16,
    /// Open the panel in the default browser
    #[arg(long)]
    open: bool,
}

#[derive(Args, Debug)]
struct DemoArgs {
    /// Keep the demo workspace instead of deleting it at the end
    #[arg(long)]
    keep: bool,
}

/// Everything a command needs from the environment.
struct Env {
    json: bool,
    /// The process environment, taken once.
    vars: Vec<(String, String)>,
    loaded: config::Loaded,
    ws: Workspace,
}

fn build_env(cli: &Cli) -> Result<Env> {
    let env = crate::base::env::snapshot();
    let wanted = crate::workspace::Wanted {
        explicit: cli.g.root.as_deref(),
        host: crate::workspace::host_dirs(&env),
        cwd: None,
        lenient: false,
    };
    let (ws, loaded, _) = crate::workspace::open_located(&wanted, &env, &cli.g.set)?;
    for key in &loaded.config.ignored {
        eprintln!(
            "trilogy: warning: setting {key} is unknown to this trilogy (perhaps from a newer one) and was ignored"
        );
    }
    // a fresh clone's first command rebuilds the store from the Markdown, its first search the
    // index: show how far it is
    let mut bar = progress::Bar::stderr("reading the memory files", cli.g.json);
    ws.on_progress(Box::new(move |what, done, total| {
        bar.update_as(what, done, total)
    }));
    Ok(Env {
        json: cli.g.json,
        vars: env,
        loaded,
        ws,
    })
}

/// The `--color` choice among raw arguments (the last one wins), so that clap's own help and
/// errors, printed while parsing, follow it too.
fn color_choice(args: &[OsString]) -> ColorChoice {
    let mut choice = ColorChoice::Auto;
    let mut it = args.iter().skip(1).map(|a| a.to_string_lossy());
    while let Some(a) = it.next() {
        if a == "--" {
            break;
        }
        let value = match a.strip_prefix("--color") {
            Some("") => it.next().map(|v| v.into_owned()),
            Some(rest) => rest.strip_prefix('=').map(str::to_string),
            None => None,
        };
        if let Some(c) = value.and_then(|v| ColorChoice::from_str(&v, true).ok()) {
            choice = c;
        }
    }
    choice
}

fn parse(args: Vec<OsString>) -> std::result::Result<Cli, clap::Error> {
    if let Some(cli) = parse_one(&args) {
        return Ok(cli);
    }
    let matches = Cli::command()
        .color(color_choice(&args))
        .try_get_matches_from(args)?;
    Cli::from_arg_matches(&matches)
}

/// The commands run often (every host runs `hook` at each prompt and tool call), each parsed
/// by a tree holding only it and the global options: building every subcommand first costs
/// about as much as a warm recall's search, or two milliseconds of a hook's six. Anything
/// such a tree refuses (help, a typo, an unknown flag) is parsed again by the whole tree,
/// which gives clap's full message.
fn parse_one(args: &[OsString]) -> Option<Cli> {
    let sub = short_subcommand(&subcommand_name(args)?)?;
    let tree = Globals::augment_args(clap::Command::new("trilogy")).subcommand(sub);
    let matches = tree.try_get_matches_from(args).ok()?;
    Cli::from_arg_matches(&matches).ok()
}

/// The subcommands [`parse_one`] reads, each built alone.
fn short_subcommand(name: &str) -> Option<clap::Command> {
    Some(match name {
        "recall" => recall::RecallArgs::augment_args(clap::Command::new("recall")),
        "search" => agent::SearchArgs::augment_args(clap::Command::new("search")),
        "read" => ReadArgs::augment_args(clap::Command::new("read")),
        "inject" => agent::InjectArgs::augment_args(clap::Command::new("inject")),
        "status" => clap::Command::new("status"),
        "hook" => agent::HookArgs::augment_args(clap::Command::new("hook")),
        _ => return None,
    })
}

/// The subcommand's name: the first argument that is neither a global option nor its value.
fn subcommand_name(args: &[OsString]) -> Option<String> {
    let mut it = args.iter().skip(1);
    while let Some(a) = it.next() {
        let a = a.to_str()?;
        match global_option(a) {
            Some(GlobalOption::Whole) => {}
            Some(GlobalOption::WithValue) => {
                it.next()?;
            }
            None if a.starts_with('-') => return None,
            None => return Some(a.to_string()),
        }
    }
    None
}

/// How a raw argument that is one of [`Globals`] is spelled.
enum GlobalOption {
    /// The whole option in one argument (`--json`, `--root=DIR`).
    Whole,
    /// The option whose value is the next argument (`--root DIR`).
    WithValue,
}

/// Whether `arg` is one of the global options, and how its value is given.
fn global_option(arg: &str) -> Option<GlobalOption> {
    match arg {
        "--json" => Some(GlobalOption::Whole),
        "--root" | "--set" | "--color" => Some(GlobalOption::WithValue),
        _ if ["--root=", "--set=", "--color="]
            .iter()
            .any(|p| arg.starts_with(p)) =>
        {
            Some(GlobalOption::Whole)
        }
        _ => None,
    }
}

/// Run the CLI; returns how the process exits.
pub fn run() -> Exit {
    let args: Vec<OsString> = std::env::args_os().collect();
    // a topic page wins over the command of the same name, as `git help config` does
    if let Some(topic) = help::asked(&args) {
        format::emit(&help::page(topic));
        return Exit::Ok;
    }
    let cli = match parse(args) {
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

fn dispatch(cli: Cli) -> Result<()> {
    match &cli.command {
        Command::Demo(a) => {
            return demo::run(a.keep, &cli.g.set, style::Style::stdout(cli.g.color));
        }
        Command::Completions(a) => return shell::completions(a),
        Command::Man => return shell::man(),
        Command::Hook(a) => std::process::exit(agent::hook(a, &cli.g.set).code()),
        _ => {}
    }
    if let Command::MergeDriver(a) = &cli.command {
        let code = match ops::gitmerge::merge_driver(&a.base, &a.ours, &a.theirs, &a.path) {
            Ok(r) if r.conflicts == 0 => 0,
            Ok(r) => {
                eprintln!(
                    "trilogy: {}: {} section(s) changed on both sides; resolve the markers",
                    a.path, r.conflicts
                );
                1
            }
            Err(e) => {
                eprintln!("trilogy: {}: {e}; falling back to a line merge", a.path);
                ops::gitmerge::fallback_merge(&a.base, &a.ours, &a.theirs)
            }
        };
        // git's merge-driver protocol, not trilogy's exit table: 0 merged, non-zero conflicted
        std::process::exit(code);
    }
    if let Command::Mcp(a) = &cli.command {
        if let Some(id) = &a.agent_session {
            crate::model::check_actor(id).map_err(|why| {
                Error::bad_input(format!("--agent-session {why}; give the host's session id"))
            })?;
        }
        return crate::mcp::serve(
            cli.g.root.clone(),
            cli.g.set.clone(),
            a.agent_session.clone(),
        );
    }
    if let Command::Serve(a) = &cli.command {
        return serve(&cli, a);
    }
    if let Command::User(a) = &cli.command {
        return user::run(&cli, a.clone());
    }
    let env = match build_env(&cli) {
        // outside any project the user memory's proposals are still yours to review
        Err(Error::NoProject(_)) if matches!(cli.command, Command::Review(_)) => {
            user::user_only_env(&cli)?
        }
        env => env?,
    };
    if !env.loaded.config.enabled && !matches!(cli.command, Command::Config) {
        return Err(Error::bad_input(
            "trilogy is disabled here (enabled = false); `trilogy config` shows where that was set",
        ));
    }
    let result = commands::run(cli.command, &env);
    // the panel lists every workspace a command used, not only those a hook or `init` saw
    if env.ws.has_memory() {
        crate::registry::seen_quietly(&env.vars, &env.ws);
    }
    result
}

/// `trilogy serve`: the URL (or `{url, port, token}` with --json) as the first stdout line,
/// flushed at once (scripts and tests read it), then serve until Ctrl-C.
fn serve(cli: &Cli, a: &ServeArgs) -> Result<()> {
    let opts = crate::web::Options {
        port: a.port,
        overrides: cli.g.set.clone(),
    };
    let json = cli.g.json;
    let open = a.open;
    crate::web::serve(opts, |launch| {
        if json {
            let v = serde_json::to_string(launch)
                .map_err(|e| Error::Internal(format!("json output: {e}")))?;
            format::emit(&v);
        } else {
            format::emit(&launch.url);
        }
        use std::io::Write;
        let _ = std::io::stdout().flush();
        if !json {
            eprintln!(
                "trilogy: serving the memory panel on 127.0.0.1:{} (Ctrl-C stops it)",
                launch.port
            );
        }
        if open {
            let opener = if cfg!(target_os = "macos") {
                "open"
            } else {
                "xdg-open"
            };
            let started = std::process::Command::new(opener)
                .arg(&launch.url)
                .stdin(std::process::Stdio::null())
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .spawn();
            if let Err(e) = started {
                eprintln!(
                    "trilogy: could not open a browser with `{opener}` ({e}); open the URL above yourself"
                );
            }
        }
        Ok(())
    })
}

pub(crate) fn parse_date(flag: &str, v: &Option<String>) -> Result<Option<chrono::NaiveDate>> {
    v.as_deref()
        .map(|s| crate::model::parse_day(&format!("--{flag}"), s))
        .transpose()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn choice(args: &[&str]) -> ColorChoice {
        let args: Vec<OsString> = args.iter().map(OsString::from).collect();
        color_choice(&args)
    }

    /// The short trees read what the whole one reads, and take nothing it would refuse.
    #[test]
    fn the_often_run_commands_parse_as_the_whole_tree_parses_them() {
        for line in [
            "trilogy recall flaky port",
            "trilogy --root /w recall flaky --since 2026-11-01 --host codex --limit 3 --json",
            "trilogy recall --status",
            "trilogy --json --set lang=en search 归档 指针 --limit 2",
            "trilogy --color=never read DECISIONS.md",
            "trilogy --root=/w inject --host codex",
            "trilogy status --json",
            "trilogy --set recall_enabled=false --color never status",
            "trilogy hook claude session-start",
            "trilogy hook cursor beforeSubmitPrompt",
            "trilogy --root /x hook claude stop",
            "trilogy hook claude",
        ] {
            let args: Vec<OsString> = line.split(' ').map(OsString::from).collect();
            let short = parse_one(&args).unwrap_or_else(|| panic!("{line}: not taken"));
            let whole = Cli::from_arg_matches(&Cli::command().get_matches_from(args)).unwrap();
            assert_eq!(format!("{short:?}"), format!("{whole:?}"), "{line}");
        }
        for line in [
            "trilogy recall --help",
            "trilogy recall",
            "trilogy recall x --host nowhere",
            "trilogy recall --status --forget",
            "trilogy search",
            "trilogy status --bogus",
            "trilogy --version",
            "trilogy help recall",
            "trilogy init",
            "trilogy --root",
            "trilogy hook claude --help",
            "trilogy hook claude session-start extra",
        ] {
            let args: Vec<OsString> = line.split(' ').map(OsString::from).collect();
            assert!(parse_one(&args).is_none(), "{line}: taken");
        }
        // each short tree's subcommand has the whole tree's arguments
        let ids = |c: &clap::Command| -> Vec<String> {
            let mut v: Vec<String> = (c.get_arguments())
                .map(|a| a.get_id().to_string())
                .collect();
            v.sort();
            v
        };
        let whole = Cli::command();
        for name in ["recall", "search", "read", "inject", "status", "hook"] {
            let short = short_subcommand(name).unwrap();
            assert_eq!(
                ids(&short),
                ids(whole.find_subcommand(name).unwrap()),
                "{name}"
            );
        }
    }

    #[test]
    fn color_choice_is_found_before_parsing_for_clap_own_output() {
        assert_eq!(choice(&["trilogy", "status"]), ColorChoice::Auto);
        assert_eq!(
            choice(&["trilogy", "--color", "never", "--help"]),
            ColorChoice::Never
        );
        assert_eq!(
            choice(&["trilogy", "read", "--color=always"]),
            ColorChoice::Always
        );
        assert_eq!(
            choice(&["trilogy", "--color=never", "--color", "always"]),
            ColorChoice::Always
        );
        assert_eq!(
            choice(&["trilogy", "search", "--", "--color=never"]),
            ColorChoice::Auto
        );
    }

    #[test]
    fn color_is_a_global_option_and_parses_with_any_command() {
        let cli = parse(
            ["trilogy", "status", "--color", "never"]
                .iter()
                .map(OsString::from)
                .collect(),
        )
        .unwrap();
        assert_eq!(cli.g.color, ColorChoice::Never);
        assert!(
            parse(vec![
                "trilogy".into(),
                "--color=sometimes".into(),
                "status".into()
            ])
            .is_err()
        );
    }
}
