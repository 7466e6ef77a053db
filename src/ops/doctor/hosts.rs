//! Installed hosts: each agent host's settings that call trilogy (hooks, the MCP server) must
//! name a program that runs — a bare `trilogy` has to resolve on `PATH`, an absolute path has
//! to exist — or every hook fails silently in the host. A hook's command line is read the way
//! the host's shell reads it on this system ([`Shell::of_hooks`]): one written for another
//! shell (a POSIX-quoted path that PowerShell would take for a string) runs nothing here.

use std::path::Path;

use super::{Finding, Level, finding};
use crate::model::host::Host;
use crate::ops::install::shell::{self, Os, Shell};

/// Settings files, relative to the project root and to the home folder, where hosts keep the
/// commands they run, with the host whose hooks a file holds (`None`: MCP entries only).
const SETTINGS: [(&str, Option<Host>); 5] = [
    (".claude/settings.json", Some(Host::Claude)),
    (".codex/hooks.json", Some(Host::Codex)),
    (".codex/config.toml", None),
    (".gemini/settings.json", Some(Host::Gemini)),
    (".mcp.json", None),
];

/// What a settings file runs for trilogy.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Run {
    /// A program named `trilogy`: an MCP entry's `command`, or the first word of a hook's
    /// command line as its shell reads it.
    Program(String),
    /// A hook command line of ours the shell cannot read a program from.
    Unreadable(String),
}

/// What a settings file (JSON with comments, or TOML) runs for trilogy: every `command` value
/// that names a `trilogy` binary. A `command` beside `args` is a program started without a
/// shell; any other is a hook's command line, read as `shell` reads it.
pub(super) fn programs(text: &str, shell: Option<Shell>) -> Vec<Run> {
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
        walk(&v, shell, &mut out);
    }
    out
}

fn walk(v: &serde_json::Value, shell: Option<Shell>, out: &mut Vec<Run>) {
    match v {
        serde_json::Value::Object(m) => {
            if let Some(cmd) = m.get("command").and_then(|c| c.as_str())
                && let Some(run) = run_of(cmd, m.contains_key("args"), shell)
                && !out.contains(&run)
            {
                out.push(run);
            }
            m.values().for_each(|x| walk(x, shell, out));
        }
        serde_json::Value::Array(a) => a.iter().for_each(|x| walk(x, shell, out)),
        _ => {}
    }
}

/// What one `command` runs for trilogy, if it runs trilogy.
fn run_of(cmd: &str, has_args: bool, shell: Option<Shell>) -> Option<Run> {
    let program = match (shell, has_args) {
        // a program named beside its arguments is named whole, spaces and all
        (_, true) => cmd.to_string(),
        (Some(sh), false) => match sh.program(cmd) {
            Some(p) => p,
            None if is_our_hook(cmd) => return Some(Run::Unreadable(cmd.to_string())),
            None => return None,
        },
        (None, false) => cmd.split_whitespace().next()?.to_string(),
    };
    if shell::is_trilogy(&program) {
        Some(Run::Program(program))
    } else if shell.is_some() && !has_args && is_our_hook(cmd) {
        Some(Run::Unreadable(cmd.to_string()))
    } else {
        None
    }
}

/// Does the command line look like one of ours (`… trilogy hook …`), whatever shell it was
/// written for?
fn is_our_hook(cmd: &str) -> bool {
    cmd.find(" hook ")
        .is_some_and(|pos| shell::runs_trilogy(&cmd[..pos]))
}

/// Whether `program` runs: an absolute path that exists, or a name found on `path`.
pub fn resolves(program: &str, path: Option<&str>) -> bool {
    resolves_on(program, path, Os::HOST)
}

/// [`resolves`] as `os` looks a program up: Windows also finds `name.exe` for a bare name.
fn resolves_on(program: &str, path: Option<&str>, os: Os) -> bool {
    let p = Path::new(program);
    if p.is_absolute() || program.contains(['/', '\\']) {
        return p.is_file();
    }
    let exe = format!("{program}.exe");
    let names = match os {
        Os::Windows if p.extension().is_none() => vec![program, exe.as_str()],
        _ => vec![program],
    };
    names
        .into_iter()
        .any(|n| crate::base::env::on_path(path, n).any(|p| p.is_file()))
}

/// Findings for the settings under `root` and `home`.
pub(super) fn check(root: &Path, home: Option<&Path>, path: Option<&str>) -> Vec<Finding> {
    let mut out = Vec::new();
    for base in std::iter::once(root).chain(home) {
        for (rel, host) in SETTINGS {
            let file = base.join(rel);
            let Some(text) =
                crate::base::fence::read_small_text(&file, crate::workspace::MAX_FILE_BYTES)
            else {
                continue;
            };
            let shell = host.map(|h| Shell::of_hooks(h, Os::HOST));
            out.extend(host.and_then(|h| missing_hooks(&file, &text, h)));
            for run in programs(&text, shell) {
                match run {
                    Run::Program(program) if !resolves(&program, path) => {
                        out.push(unresolved(&file, &program));
                    }
                    Run::Program(_) => {}
                    Run::Unreadable(line) => {
                        let host = host.map_or("<host>", |h| h.as_str());
                        out.push(finding(
                            Level::Error,
                            "hosts",
                            format!(
                                "{} runs `{line}`, written for another shell than the one {host} runs hooks with on this system: the hooks fail",
                                file.display()
                            ),
                            format!(
                                "run `trilogy install {host}` again (with the same --scope and --command): it writes the command line for this system"
                            ),
                        ));
                    }
                }
            }
        }
    }
    out
}

/// The warning for a settings `file` that runs some of trilogy's hooks for `host` but not every
/// one this trilogy installs: an install by an older trilogy, whose sessions that end or are
/// compacted leave no draft.
fn missing_hooks(file: &Path, text: &str, host: Host) -> Option<Finding> {
    let args = crate::ops::install::hook_args(host);
    let missing: Vec<&str> = (args.iter().copied())
        .filter(|arg| !text.contains(&format!("hook {} {arg}", host.as_str())))
        .collect();
    // none missing, or none of ours at all
    if missing.is_empty() || missing.len() == args.len() {
        return None;
    }
    Some(finding(
        Level::Warn,
        "hosts",
        format!(
            "{} runs trilogy's hooks for {} but not `{}`: set up by an older trilogy, its sessions that end or are compacted leave no draft",
            file.display(),
            host.as_str(),
            missing.join("`, `")
        ),
        format!(
            "run `trilogy install {}` again (with the same --scope and --command): it adds what is missing and keeps the rest",
            host.as_str()
        ),
    ))
}

/// The finding for a `program` in `file` that does not resolve here.
fn unresolved(file: &Path, program: &str) -> Finding {
    let fix = match std::env::current_exe() {
        Ok(exe) => format!(
            "run `trilogy install <host> --command {}` again (the absolute path of this trilogy; add --force where the entry is one you wrote, which install otherwise keeps), or put `{program}` on PATH",
            exe.display()
        ),
        Err(_) => {
            format!("put `{program}` on PATH, or install with --command <absolute path>")
        }
    };
    finding(
        Level::Error,
        "hosts",
        format!(
            "{} runs `{program}`, which does not resolve here: the host's hooks and tools fail",
            file.display()
        ),
        &fix,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(runs: Vec<Run>) -> Vec<String> {
        runs.into_iter()
            .map(|r| match r {
                Run::Program(p) => p,
                Run::Unreadable(l) => format!("unreadable: {l}"),
            })
            .collect()
    }

    #[test]
    fn hooks_an_older_install_left_out_are_named() {
        let file = Path::new("/p/.claude/settings.json");
        let line = |arg: &str| format!("\"command\":\"/opt/trilogy hook claude {arg}\"");
        let all = crate::ops::install::hook_args(Host::Claude);
        let old: Vec<String> = (all.iter())
            .filter(|a| **a != "pre-compact" && **a != "session-end")
            .map(|a| line(a))
            .collect();
        let f = missing_hooks(file, &old.join(","), Host::Claude).unwrap();
        assert_eq!(f.level, Level::Warn);
        assert!(
            f.message.contains("not `session-end`, `pre-compact`"),
            "{}",
            f.message
        );
        assert!(f.action.contains("trilogy install claude"), "{}", f.action);
        let every: Vec<String> = all.iter().map(|a| line(a)).collect();
        assert!(missing_hooks(file, &every.join(","), Host::Claude).is_none());
        // a settings file with none of trilogy's hooks is not an install of ours
        assert!(missing_hooks(file, "{\"hooks\":{}}", Host::Claude).is_none());
    }

    #[test]
    fn programs_are_found_in_hook_commands_and_mcp_entries() {
        let claude = r#"{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"/opt/bin/trilogy hook claude session-start"}]}]}}"#;
        assert_eq!(
            names(programs(claude, Some(Shell::Posix))),
            ["/opt/bin/trilogy"]
        );
        let mcp = r#"{"mcpServers":{"trilogy":{"command":"trilogy","args":["mcp"]}}}"#;
        assert_eq!(names(programs(mcp, None)), ["trilogy"]);
        assert!(programs(r#"{"hooks":{}}"#, Some(Shell::Posix)).is_empty());
        let toml = "[mcp_servers.trilogy]\ncommand = \"trilogy\"\nargs = [\"mcp\"]\n";
        assert_eq!(names(programs(toml, None)), ["trilogy"]);
    }

    #[test]
    fn a_quoted_path_is_read_whole() {
        let claude = r#"{"hooks":{"Stop":[{"hooks":[{"command":"'/opt/my tools/trilogy' hook claude stop"}]}]}}"#;
        assert_eq!(
            names(programs(claude, Some(Shell::Posix))),
            ["/opt/my tools/trilogy"]
        );
        // an MCP entry names its program whole, spaces and all, beside its arguments
        let mcp = r#"{"mcpServers":{"trilogy":{"command":"C:\\Program Files\\trilogy\\trilogy.exe","args":["mcp"]}}}"#;
        assert_eq!(
            names(programs(mcp, None)),
            [r"C:\Program Files\trilogy\trilogy.exe"]
        );
    }

    #[test]
    fn windows_command_lines_are_read_as_their_shell_reads_them() {
        let gemini = r#"{"hooks":{"AfterAgent":[{"hooks":[{"command":"& 'C:\\Program Files\\trilogy\\trilogy.exe' hook gemini stop"}]}]},
            "mcpServers":{"trilogy":{"command":"C:\\Program Files\\trilogy\\trilogy.exe","args":["mcp"]}}}"#;
        assert_eq!(
            names(programs(gemini, Some(Shell::PowerShell))),
            [r"C:\Program Files\trilogy\trilogy.exe"]
        );
        let codex = r#"{"hooks":{"Stop":[{"hooks":[{"command":"powershell -NoProfile -NonInteractive -Command ^& 'C:\\Program Files\\trilogy\\trilogy.exe' hook codex stop"}]}]}}"#;
        assert_eq!(
            names(programs(codex, Some(Shell::Cmd))),
            [r"C:\Program Files\trilogy\trilogy.exe"]
        );
        // the POSIX form, which PowerShell takes for a string and cmd splits at the space
        let posix = r#"{"hooks":{"Stop":[{"hooks":[{"command":"'C:\\Program Files\\trilogy\\trilogy.exe' hook claude stop"}]}]}}"#;
        assert_eq!(
            names(programs(posix, Some(Shell::PowerShell))),
            [r"unreadable: 'C:\Program Files\trilogy\trilogy.exe' hook claude stop"]
        );
        assert_eq!(
            names(programs(posix, Some(Shell::Cmd))),
            [r"unreadable: 'C:\Program Files\trilogy\trilogy.exe' hook claude stop"]
        );
        // a foreign hook is none of doctor's business
        let other = r#"{"hooks":{"Stop":[{"hooks":[{"command":"'C:\\x\\notify.exe' done"}]}]}}"#;
        assert!(programs(other, Some(Shell::PowerShell)).is_empty());
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
        // a Windows path is a path, never a name to look up
        assert!(!resolves(
            r"C:\Program Files\trilogy\trilogy.exe",
            Some(&path)
        ));
    }

    #[test]
    fn windows_finds_the_exe_for_a_bare_name() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("trilogy.exe"), "").unwrap();
        let path = d.path().display().to_string();
        assert!(resolves_on("trilogy", Some(&path), Os::Windows));
        assert!(!resolves_on("trilogy", Some(&path), Os::Unix));
        assert!(resolves_on("trilogy.exe", Some(&path), Os::Unix));
    }
}
