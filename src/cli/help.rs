//! `trilogy help <topic>`: the reference manual inside the binary. Each topic is a page written
//! in `templates/help/<topic>.md` and compiled in; the tables that list what the code knows —
//! every config key with its default, every exit code — are generated here into their pages,
//! so a new key or code shows up by itself. Also the text clap prints after the top-level help:
//! the exit codes, the environment, the topics.
//!
//! A topic page wins over a command of the same name (`trilogy help config`, as `git help
//! config`); every other `trilogy help …` and every `trilogy <command> --help` is clap's, as it
//! always was. This module must not change how commands parse.

use std::ffi::OsString;

use serde_json::Value;

use crate::config::Config;
use crate::error::Exit;

/// One page of the manual.
#[derive(Debug)]
pub(super) struct Topic {
    /// What follows `trilogy help`.
    pub name: &'static str,
    /// One line for the list of topics.
    pub summary: &'static str,
    /// The page as written, with its generated tables still to fill in.
    text: &'static str,
}

/// Every topic, in the order `trilogy help` lists them.
pub(super) const TOPICS: [Topic; 16] = [
    Topic {
        name: "saves",
        summary: "sync and saves: how edits are parsed back, concurrent writers, what is never lost",
        text: include_str!("../../templates/help/saves.md"),
    },
    Topic {
        name: "git",
        summary: "sharing memory through git: the merge driver, pulls, branch switches, work trees",
        text: include_str!("../../templates/help/git.md"),
    },
    Topic {
        name: "hosts",
        summary: "what `trilogy install <host>` sets up for each agent host, and the MCP server",
        text: include_str!("../../templates/help/hosts.md"),
    },
    Topic {
        name: "hooks",
        summary: "what a session is given at its start, the change notices and the reminder",
        text: include_str!("../../templates/help/hooks.md"),
    },
    Topic {
        name: "workspace",
        summary: "which folder's memory a command, a hook or the MCP server uses",
        text: include_str!("../../templates/help/workspace.md"),
    },
    Topic {
        name: "config",
        summary: "settings: the layers, and every key with its default",
        text: include_str!("../../templates/help/config.md"),
    },
    Topic {
        name: "rules",
        summary: "what a write must satisfy: areas, limits, credentials, files that do not parse",
        text: include_str!("../../templates/help/rules.md"),
    },
    Topic {
        name: "decisions",
        summary: "one truth per topic, retiring what is no longer true, review dates",
        text: include_str!("../../templates/help/decisions.md"),
    },
    Topic {
        name: "proposals",
        summary: "a person's gate: agents propose, a person accepts or rejects",
        text: include_str!("../../templates/help/proposals.md"),
    },
    Topic {
        name: "user-memory",
        summary: "USER.md: what is true of you in every project",
        text: include_str!("../../templates/help/user-memory.md"),
    },
    Topic {
        name: "recall",
        summary: "searching what was said in past sessions, in the hosts' transcripts",
        text: include_str!("../../templates/help/recall.md"),
    },
    Topic {
        name: "search-ranking",
        summary: "how `trilogy search` and memory_search find and rank entries",
        text: include_str!("../../templates/help/search-ranking.md"),
    },
    Topic {
        name: "panel",
        summary: "the memory panel in the browser (`trilogy serve`) and its JSON",
        text: include_str!("../../templates/help/panel.md"),
    },
    Topic {
        name: "bundles",
        summary: "export, import and clear; bringing memory from other tools",
        text: include_str!("../../templates/help/bundles.md"),
    },
    Topic {
        name: "safety",
        summary: "a cloned repository is input, not instructions: what trilogy refuses",
        text: include_str!("../../templates/help/safety.md"),
    },
    Topic {
        name: "exit-codes",
        summary: "what each exit code of trilogy means",
        text: include_str!("../../templates/help/exit-codes.md"),
    },
];

/// Where a page takes the table of every config key.
const CONFIG_KEYS: &str = "{{config-keys}}";
/// Where a page takes the table of every exit code.
const EXIT_CODES: &str = "{{exit-codes}}";

const ENVIRONMENT: &str = "\
Environment:
  TRILOGY_<KEY>   any config key, e.g. TRILOGY_LANG=en, TRILOGY_SESSIONS_MAX_ENTRIES=50
  TRILOGY_TODAY   pin the date stamped on new entries (YYYY-MM-DD), for scripts and tests
  TRILOGY_CONFIG  path of the user config file (default ~/.config/trilogy/config.toml)
  TRILOGY_CEILING_DIRECTORIES  folders (colon-separated) the search for memory and .git never
                  enters, as git's GIT_CEILING_DIRECTORIES";

/// The text after the top-level help (`trilogy --help`, `trilogy help`): the exit codes, the
/// environment, and the topics `trilogy help <topic>` shows.
pub(super) fn after_help() -> String {
    let mut out = Exit::help_text();
    out.push('\n');
    out.push_str(ENVIRONMENT);
    out.push_str("\n\nHelp topics (trilogy help <topic>):\n");
    let width = TOPICS.iter().map(|t| t.name.len()).max().unwrap_or(0);
    for t in &TOPICS {
        out.push_str(&format!("  {:<width$}  {}\n", t.name, t.summary));
    }
    out.truncate(out.trim_end().len());
    out
}

/// The topic `args` ask for: `trilogy [global options] help <topic>`, nothing else. Any other
/// `help …` (a command, a command's subcommand, a typo) is left to clap.
pub(super) fn asked(args: &[OsString]) -> Option<&'static Topic> {
    let mut words = Vec::new();
    let mut it = args.iter().skip(1);
    while let Some(a) = it.next() {
        let a = a.to_str()?;
        match super::parse::global_option(a) {
            Some(super::parse::GlobalOption::Whole) => {}
            Some(super::parse::GlobalOption::WithValue) => {
                it.next()?;
            }
            None => words.push(a),
        }
    }
    match words.as_slice() {
        ["help", name] => TOPICS.iter().find(|t| t.name == *name),
        _ => None,
    }
}

/// The page of `topic`, its generated tables filled in, without a final newline.
pub(super) fn page(topic: &Topic) -> String {
    let mut text = topic.text.to_string();
    if text.contains(CONFIG_KEYS) {
        text = text.replace(CONFIG_KEYS, config_keys().trim_end());
    }
    if text.contains(EXIT_CODES) {
        text = text.replace(EXIT_CODES, Exit::markdown_table().trim_end());
    }
    text.truncate(text.trim_end().len());
    text
}

/// Every key of the config type in its order, with its built-in default and what it means
/// (the key's `description` in `schema/config.json`), as a Markdown table.
fn config_keys() -> String {
    let defaults = serde_json::to_value(Config::default()).unwrap_or_default();
    let schema: Value = serde_json::from_str(crate::schema::CONFIG).unwrap_or_default();
    let mut out = String::from("| key | default | meaning |\n|---|---|---|\n");
    for (key, default) in defaults.as_object().into_iter().flatten() {
        let meaning = schema["properties"][key]["description"]
            .as_str()
            .unwrap_or_default();
        out.push_str(&format!(
            "| `{key}` | {} | {meaning} |\n",
            toml_value(default)
        ));
    }
    out
}

/// A default as it is written in `trilogy.toml` (`unset` for a key with none).
fn toml_value(v: &Value) -> String {
    fn inline(v: &Value) -> String {
        match v {
            Value::Null => String::new(),
            Value::Array(items) => {
                let items: Vec<String> = items.iter().map(inline).collect();
                format!("[{}]", items.join(", "))
            }
            Value::Object(map) => {
                let pairs: Vec<String> = map
                    .iter()
                    .map(|(k, v)| format!("{k} = {}", inline(v)))
                    .collect();
                format!("{{ {} }}", pairs.join(", "))
            }
            other => other.to_string(),
        }
    }
    match v {
        Value::Null => "unset".into(),
        other => format!("`{}`", inline(other)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn os(line: &str) -> Vec<OsString> {
        line.split(' ').map(OsString::from).collect()
    }

    #[test]
    fn a_topic_is_asked_only_as_help_and_its_name() {
        let name = |line: &str| asked(&os(line)).map(|t| t.name);
        assert_eq!(name("trilogy help config"), Some("config"));
        assert_eq!(name("trilogy --color never help saves"), Some("saves"));
        assert_eq!(
            name("trilogy help --root /w exit-codes"),
            Some("exit-codes")
        );
        assert_eq!(name("trilogy --json help recall"), Some("recall"));
        // clap prints a command's help whatever `--color` says, and a page likewise
        assert_eq!(
            name("trilogy --color sometimes help config"),
            Some("config")
        );
        for line in [
            "trilogy help",
            "trilogy help status",
            "trilogy help review list",
            "trilogy help config extra",
            "trilogy help nothing-of-the-kind",
            "trilogy config",
            "trilogy config help",
            "trilogy recall help",
            "trilogy help config --help",
            "trilogy --root help",
        ] {
            assert_eq!(name(line), None, "{line}");
        }
    }

    #[test]
    fn topic_names_are_unique_and_every_page_is_filled_in() {
        let mut names: Vec<&str> = TOPICS.iter().map(|t| t.name).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), TOPICS.len());
        for t in &TOPICS {
            let page = page(t);
            assert!(
                page.starts_with("# "),
                "{}: a page opens with its title",
                t.name
            );
            assert!(!page.contains("{{"), "{}: a table left unfilled", t.name);
            assert!(!t.summary.ends_with('.'), "{}", t.name);
        }
    }

    /// The config page holds a row for every key the config type has, and the schema names
    /// no key it lacks: a key added to either without the other fails here.
    #[test]
    fn the_config_page_has_every_key_with_its_default_and_meaning() {
        let page = page(TOPICS.iter().find(|t| t.name == "config").unwrap());
        let defaults = serde_json::to_value(Config::default()).unwrap();
        let schema: Value = serde_json::from_str(crate::schema::CONFIG).unwrap();
        let described = schema["properties"].as_object().unwrap();
        let keys: Vec<&String> = defaults.as_object().unwrap().keys().collect();
        assert_eq!(keys.len(), crate::config::KEYS.len());
        for key in &keys {
            let meaning = described[key.as_str()]["description"]
                .as_str()
                .unwrap_or_else(|| panic!("{key}: no description in schema/config.json"));
            let row = format!(
                "| `{key}` | {} | {meaning} |",
                toml_value(&defaults[key.as_str()])
            );
            assert!(page.lines().any(|l| l == row), "{row}\n{page}");
        }
        for (key, _) in described {
            assert!(
                keys.contains(&key),
                "{key}: in the schema, not in the config type"
            );
        }
        assert!(page.contains("| `lang` | `\"zh\"` |"), "{page}");
        assert!(page.contains("| `window_tokens` | unset |"), "{page}");
        assert!(
            page.contains(
                "| `review_mode` | `{ decisions = \"direct\", project = \"direct\", sessions = \"direct\", user = \"propose\" }` |"
            ),
            "{page}"
        );
    }

    #[test]
    fn the_exit_codes_page_and_the_help_text_have_every_code() {
        let page = page(TOPICS.iter().find(|t| t.name == "exit-codes").unwrap());
        let after = after_help();
        for e in Exit::ALL {
            let row = format!("| `{}` | `{}` | {} |", e.code(), e.name(), e.meaning());
            assert!(page.lines().any(|l| l == row), "{row}\n{page}");
            let line = format!("  {:>2}  {}", e.code(), e.meaning());
            assert!(after.lines().any(|l| l == line), "{line}\n{after}");
        }
    }

    /// Every host the code knows by name (one enum: hooks, install, recall's transcripts)
    /// and git, the other thing `install` takes. The match has no wildcard, so a host added
    /// to the enum fails to compile here until it is listed, and then the page must name it.
    fn known_hosts() -> Vec<&'static str> {
        use crate::model::host::Host;
        use crate::ops::install::Target;
        for h in Host::ALL {
            match h {
                Host::Claude
                | Host::Codex
                | Host::Gemini
                | Host::Cursor
                | Host::Vscode
                | Host::Windsurf
                | Host::Zed
                | Host::Dsh => {}
            }
        }
        let mut names: Vec<&str> = Host::ALL.iter().map(|h| h.as_str()).collect();
        names.push(Target::Git.name());
        names
    }

    #[test]
    fn the_hosts_page_names_every_host_the_code_knows_with_its_install_command() {
        let page = page(TOPICS.iter().find(|t| t.name == "hosts").unwrap());
        for host in known_hosts() {
            let install = format!("`trilogy install {host}");
            assert!(
                page.lines()
                    .any(|l| l.starts_with('|') && l.contains(&install)),
                "{host}: no row of the host table runs {install}`\n{page}"
            );
        }
    }

    #[test]
    fn the_recall_page_names_every_transcript_source() {
        let page = page(TOPICS.iter().find(|t| t.name == "recall").unwrap());
        for h in crate::model::host::Host::recalled() {
            assert!(page.contains(&format!("`{}`", h.as_str())), "{h:?}\n{page}");
        }
    }

    #[test]
    fn the_top_level_help_lists_every_topic_after_the_exit_codes() {
        let text = after_help();
        let codes = text.find("Exit codes:").unwrap();
        let topics = text.find("Help topics (trilogy help <topic>):").unwrap();
        assert!(codes < topics, "{text}");
        for t in &TOPICS {
            let line = text
                .lines()
                .find(|l| l.trim_start().starts_with(&format!("{} ", t.name)))
                .unwrap_or_else(|| panic!("{}: not listed\n{text}", t.name));
            assert!(line.ends_with(t.summary), "{line}");
        }
    }
}
