//! `trilogy help <topic>`, driven through the real binary: the manual's pages, each held to the
//! code it describes (every exit code, every config key, every host), the README's tables held
//! to the same, and clap's own help left as it was for every command that is not a topic.

use crate::common;

use std::collections::BTreeSet;

use common::{Ws, text};
use trilogy::Exit;
use trilogy::config::{Config, KEYS};
use trilogy::model::host::Host;

fn readme() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap()
}

/// The topics `trilogy help` lists under "Help topics".
fn listed_topics(ws: &Ws) -> Vec<String> {
    let help = ws.ok(&["help"]);
    let (_, topics) = help
        .split_once("Help topics (trilogy help <topic>):\n")
        .unwrap_or_else(|| panic!("no topics listed:\n{help}"));
    topics
        .lines()
        .take_while(|l| l.starts_with("  "))
        .map(|l| l.split_whitespace().next().unwrap().to_string())
        .collect()
}

/// The commands clap lists under "Commands:" in the top-level help.
fn listed_commands(ws: &Ws) -> Vec<String> {
    let help = ws.ok(&["help"]);
    let (_, rest) = help.split_once("Commands:\n").unwrap();
    rest.lines()
        .take_while(|l| !l.is_empty())
        .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
        .map(|l| l.split_whitespace().next().unwrap().to_string())
        .collect()
}

/// The table rows (lines starting `|`) of `page` that name `trilogy install <host>`: the hosts.
fn install_hosts(page: &str) -> BTreeSet<String> {
    let re = regex::Regex::new(r"`trilogy install ([a-z]+)").unwrap();
    page.lines()
        .filter(|l| l.starts_with('|'))
        .flat_map(|l| {
            re.captures_iter(l)
                .map(|c| c[1].to_string())
                .collect::<Vec<_>>()
        })
        .collect()
}

#[test]
fn help_without_a_topic_is_the_top_level_help_and_lists_commands_and_topics() {
    let ws = Ws::new();
    let help = ws.ok(&["help"]);
    assert_eq!(
        help,
        ws.ok(&["--help"]),
        "`help` and `--help` stay one text"
    );
    let commands = listed_commands(&ws);
    for c in ["init", "checkpoint", "config", "recall", "install", "help"] {
        assert!(commands.iter().any(|l| l == c), "{c}: {commands:?}");
    }
    let topics = listed_topics(&ws);
    for t in [
        "saves",
        "config",
        "hosts",
        "recall",
        "panel",
        "git",
        "exit-codes",
    ] {
        assert!(topics.iter().any(|l| l == t), "{t}: {topics:?}");
    }
    for t in &topics {
        let page = ws.ok(&["help", t]);
        assert!(page.starts_with("# "), "{t}: {page}");
        assert!(!page.contains("{{"), "{t}: a generated table was left out");
        assert!(page.ends_with('\n') && !page.ends_with("\n\n"), "{t}");
    }
}

#[test]
fn help_for_a_command_that_is_no_topic_is_that_commands_own_help() {
    let ws = Ws::new();
    let topics = listed_topics(&ws);
    let commands = listed_commands(&ws);
    let mut checked = 0;
    for c in commands
        .iter()
        .filter(|c| !topics.contains(c) && *c != "help")
    {
        let by_help = ws.run(&["help", c]);
        assert_eq!(by_help.status.code(), Some(0), "help {c}");
        assert_eq!(
            text(&by_help.stdout),
            ws.ok(&[c.as_str(), "--help"]),
            "`trilogy help {c}` is `trilogy {c} --help`"
        );
        checked += 1;
    }
    assert!(checked >= 25, "{checked} commands checked");
    assert_eq!(
        ws.ok(&["help", "review", "list"]),
        ws.ok(&["review", "list", "--help"])
    );
    assert_eq!(
        ws.ok(&["help", "user", "add"]),
        ws.ok(&["user", "add", "--help"])
    );
}

#[test]
fn a_topic_wins_over_the_command_of_the_same_name_and_the_commands_help_stays() {
    let ws = Ws::new();
    let page = ws.ok(&["help", "config"]);
    assert!(page.starts_with("# Configuration\n"), "{page}");
    let own = ws.ok(&["config", "--help"]);
    assert!(
        own.starts_with("Show the effective configuration and where each value came from"),
        "{own}"
    );
    assert_ne!(page, own);
    let recall = ws.ok(&["help", "recall"]);
    assert!(recall.starts_with("# Recall"), "{recall}");
    assert!(
        ws.ok(&["recall", "--help"])
            .contains("Usage: trilogy recall")
    );
    // global options anywhere around the topic are taken as they are by any command
    assert_eq!(ws.ok(&["--color", "never", "help", "config"]), page);
    assert_eq!(ws.ok(&["help", "--json", "config"]), page);
}

#[test]
fn an_unknown_topic_or_extra_words_are_clap_usage_errors_as_before() {
    let ws = Ws::new();
    for args in [
        &["help", "nothing-of-the-kind"][..],
        &["help", "config", "extra"],
    ] {
        let out = ws.run(args);
        assert_eq!(out.status.code(), Some(Exit::Usage.code()), "{args:?}");
        assert!(
            text(&out.stderr).contains("unrecognized subcommand"),
            "{args:?}: {}",
            text(&out.stderr)
        );
        assert!(out.stdout.is_empty(), "{args:?}");
    }
}

#[test]
fn a_topic_page_reads_no_workspace_and_writes_nothing() {
    let ws = Ws::new();
    let out = ws
        .cmd()
        .args(["--root", "/nowhere/at/all", "help", "saves"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).starts_with("# Sync and saves"));
    assert_eq!(std::fs::read_dir(ws.root()).unwrap().count(), 0);
}

#[test]
fn the_exit_codes_page_and_the_top_level_help_have_every_code() {
    let ws = Ws::new();
    let page = ws.ok(&["help", "exit-codes"]);
    let help = ws.ok(&["--help"]);
    for e in Exit::ALL {
        let row = format!("| `{}` | `{}` | {} |", e.code(), e.name(), e.meaning());
        assert!(page.lines().any(|l| l == row), "{row}\n{page}");
        let words: Vec<&str> = e.meaning().split_whitespace().collect();
        let flat: Vec<&str> = help.split_whitespace().collect();
        let at = flat
            .windows(words.len() + 1)
            .any(|w| w[0] == e.code().to_string() && w[1..] == words[..]);
        assert!(at, "{}: not in --help\n{help}", e.code());
    }
    assert!(page.contains("Hooks always exit 0"), "{page}");
}

/// The README's host table names the hosts the hosts page names.
#[test]
fn the_readmes_host_table_names_every_host_of_the_hosts_page() {
    let ws = Ws::new();
    let on_page = install_hosts(&ws.ok(&["help", "hosts"]));
    assert_eq!(install_hosts(&readme()), on_page, "README.md's host table");
}

/// The README's exit-code table is the table of `Exit`: every code, its name and the same
/// meaning words, and no code `Exit` lacks.
#[test]
fn the_readmes_exit_code_table_is_the_exit_table() {
    let readme = readme();
    let rows: Vec<&str> = readme
        .lines()
        .filter(|l| {
            l.strip_prefix("| `")
                .and_then(|r| r.split('`').next())
                .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
        })
        .collect();
    let want: Vec<String> = Exit::ALL
        .iter()
        .map(|e| format!("| `{}` | `{}` | {} |", e.code(), e.name(), e.meaning()))
        .collect();
    assert_eq!(rows, want, "README.md's exit-code table");
}

#[test]
fn the_config_page_lists_every_key_with_its_default() {
    let ws = Ws::new();
    let page = ws.ok(&["help", "config"]);
    let defaults = serde_json::to_value(Config::default()).unwrap();
    let rows: Vec<&str> = page.lines().filter(|l| l.starts_with("| `")).collect();
    assert_eq!(rows.len(), KEYS.len(), "one row per key:\n{page}");
    for (key, camel) in KEYS {
        let row = rows
            .iter()
            .find(|r| r.starts_with(&format!("| `{key}` |")))
            .unwrap_or_else(|| panic!("{key} ({camel}) is not on the config page"));
        let default = match &defaults[key] {
            serde_json::Value::Null => "unset".to_string(),
            serde_json::Value::String(s) => format!("`\"{s}\"`"),
            v @ (serde_json::Value::Bool(_) | serde_json::Value::Number(_)) => format!("`{v}`"),
            _ => continue,
        };
        assert!(
            row.starts_with(&format!("| `{key}` | {default} | ")),
            "{row}"
        );
        let meaning = row.rsplit(" | ").next().unwrap().trim_end_matches(" |");
        assert!(meaning.len() > 10, "{key} has no meaning: {row}");
    }
    assert!(page.contains("| `recall_hosts` | `[\"claude\", \"codex\", \"gemini\", \"dsh\"]` |"));
}

/// The hosts page names hosts `trilogy install` takes, and among them every host whose hooks
/// or transcripts trilogy reads.
#[test]
fn the_hosts_page_names_every_host() {
    let ws = Ws::new();
    let on_page = install_hosts(&ws.ok(&["help", "hosts"]));
    for host in &on_page {
        assert!(
            trilogy::ops::install::Target::parse(host).is_some(),
            "{host} is not a host `trilogy install` takes"
        );
    }
    for host in Host::ALL
        .into_iter()
        .filter(|h| h.has_hooks() || h.transcripts().is_some())
    {
        assert!(on_page.contains(host.as_str()), "{host:?}: {on_page:?}");
    }
    let err = text(&ws.run(&["install", "nothing-of-the-kind"]).stderr);
    for host in &on_page {
        assert!(
            err.contains(host.as_str()),
            "{host}: install's own list: {err}"
        );
    }
}

#[test]
fn the_recall_page_names_every_host_whose_transcripts_it_reads() {
    let ws = Ws::new();
    let page = ws.ok(&["help", "recall"]);
    for host in Host::recalled().map(Host::as_str) {
        assert!(page.contains(&format!("`{host}`")), "{host}\n{page}");
    }
}
