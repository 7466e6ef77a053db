//! Raw arguments to a [`Cli`]: the `--color` choice found before clap prints anything, and the
//! often-run commands parsed by a tree holding only them. It parses; it runs nothing.

use std::ffi::OsString;

use clap::{Args, ColorChoice, CommandFactory, FromArgMatches, ValueEnum};

use super::commands::{hook, inject, read, recall, search};
use super::{Cli, Globals};

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

pub(super) fn parse(args: Vec<OsString>) -> std::result::Result<Cli, clap::Error> {
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
        "search" => search::SearchArgs::augment_args(clap::Command::new("search")),
        "read" => read::ReadArgs::augment_args(clap::Command::new("read")),
        "inject" => inject::InjectArgs::augment_args(clap::Command::new("inject")),
        "status" => clap::Command::new("status"),
        "hook" => hook::HookArgs::augment_args(clap::Command::new("hook")),
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
pub(super) enum GlobalOption {
    /// The whole option in one argument (`--json`, `--root=DIR`).
    Whole,
    /// The option whose value is the next argument (`--root DIR`).
    WithValue,
}

/// Whether `arg` is one of the global options, and how its value is given.
pub(super) fn global_option(arg: &str) -> Option<GlobalOption> {
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
