//! Installed hosts: each agent host's settings that call trilogy (hooks, the MCP server) must
//! name a program that runs — a bare `trilogy` has to resolve on `PATH`, an absolute path has
//! to exist — or every hook fails silently in the host.

use std::path::Path;

use super::{Finding, Level, finding};

/// Settings files, relative to the project root and to the home folder, where hosts keep the
/// commands they run.
const SETTINGS: [&str; 5] = [
    ".claude/settings.json",
    ".codex/hooks.json",
    ".codex/config.toml",
    ".gemini/settings.json",
    ".mcp.json",
];

/// The programs a settings file runs for trilogy: the first word of every `command` value
/// (JSON with comments, or TOML) that names a `trilogy` binary.
pub(super) fn programs(text: &str) -> Vec<String> {
    let value: Option<serde_json::Value> = jsonc_parser::parse_to_ast(
        text,
        &jsonc_parser::CollectOptions::default(),
        &jsonc_parser::ParseOptions::default(),
    )
    .ok()
    .and_then(|r| r.value)
    .map(serde_json::Value::from)
    .or_else(|| {
        toml::from_str::<toml::Value>(text)
            .ok()
            .and_then(|t| serde_json::to_value(t).ok())
    });
    let mut out = Vec::new();
    if let Some(v) = value {
        walk(&v, &mut out);
    }
    out
}

fn walk(v: &serde_json::Value, out: &mut Vec<String>) {
    match v {
        serde_json::Value::Object(m) => {
            for (k, x) in m {
                if k == "command"
                    && let Some(cmd) = x.as_str()
                    && let Some(first) = cmd.split_whitespace().next()
                    && Path::new(first)
                        .file_name()
                        .is_some_and(|n| n.to_string_lossy() == "trilogy")
                    && !out.iter().any(|p| p == first)
                {
                    out.push(first.to_string());
                }
                walk(x, out);
            }
        }
        serde_json::Value::Array(a) => a.iter().for_each(|x| walk(x, out)),
        _ => {}
    }
}

/// Whether `program` runs: an absolute path that exists, or a name found on `path`.
pub fn resolves(program: &str, path: Option<&str>) -> bool {
    let p = Path::new(program);
    if p.is_absolute() || program.contains('/') {
        return p.is_file();
    }
    crate::base::env::on_path(path, program).any(|p| p.is_file())
}

/// Findings for the settings under `root` and `home`.
pub(super) fn check(root: &Path, home: Option<&Path>, path: Option<&str>) -> Vec<Finding> {
    let mut out = Vec::new();
    let running = std::env::current_exe().ok();
    for base in std::iter::once(root).chain(home) {
        for rel in SETTINGS {
            let file = base.join(rel);
            let Some(text) =
                crate::base::fence::read_small_text(&file, crate::workspace::MAX_FILE_BYTES)
            else {
                continue;
            };
            for program in programs(&text) {
                if resolves(&program, path) {
                    continue;
                }
                let fix = match &running {
                    Some(exe) => format!(
                        "run `trilogy install <host> --command {}` again (the absolute path of this trilogy; add --force where the entry is one you wrote, which install otherwise keeps), or put `{program}` on PATH",
                        exe.display()
                    ),
                    None => format!(
                        "put `{program}` on PATH, or install with --command <absolute path>"
                    ),
                };
                out.push(finding(
                    Level::Error,
                    "hosts",
                    format!(
                        "{} runs `{program}`, which does not resolve here: the host's hooks and tools fail",
                        file.display()
                    ),
                    &fix,
                ));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn programs_are_found_in_hook_commands_and_mcp_entries() {
        let claude = r#"{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"/opt/bin/trilogy hook claude session-start"}]}]}}"#;
        assert_eq!(programs(claude), ["/opt/bin/trilogy"]);
        let mcp = r#"{"mcpServers":{"trilogy":{"command":"trilogy","args":["mcp"]}}}"#;
        assert_eq!(programs(mcp), ["trilogy"]);
        assert!(programs(r#"{"hooks":{}}"#).is_empty());
        let toml = "[mcp_servers.trilogy]\ncommand = \"trilogy\"\nargs = [\"mcp\"]\n";
        assert_eq!(programs(toml), ["trilogy"]);
    }

    #[test]
    fn resolving_follows_path_and_absolute_paths() {
        let d = tempfile::tempdir().unwrap();
        let bin = d.path().join("trilogy");
        std::fs::write(&bin, "").unwrap();
        let path = d.path().display().to_string();
        assert!(resolves("trilogy", Some(&path)));
        assert!(!resolves("trilogy", Some("/nonexistent")));
        assert!(resolves(bin.to_str().unwrap(), None));
        assert!(!resolves("/nonexistent/trilogy", Some(&path)));
    }
}
