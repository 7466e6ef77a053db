//! Install and uninstall as they run on Windows, checked on any system: the command lines are
//! written for the shell each host runs hooks with there, a path with spaces and backslashes
//! survives JSON and TOML, our handlers are still recognised, and every file comes back byte
//! for byte.

use std::path::Path;

use serde_json::Value;

use super::shell::{Os, Shell};
use super::*;

const EXE: &str = r"C:\Program Files\trilogy\trilogy.exe";

fn windows(dir: &Path, host: Host) -> InstallOptions {
    InstallOptions {
        target: host,
        command: EXE.into(),
        os: Os::Windows,
        ..super::tests::opts(dir)
    }
}

/// The host's settings files as a user had them, written under `dir`.
fn seed(dir: &Path, host: Host) {
    for (rel, text) in files(host) {
        let p = dir.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, text).unwrap();
    }
}

/// The settings files of each host, with what a user had in them before install.
fn files(host: Host) -> Vec<(&'static str, &'static str)> {
    const JSON: &str = "{\r\n  \"theme\": \"dark\"\r\n}\r\n";
    const TOML: &str = "model = \"o3\"\n";
    match host {
        Host::Claude => vec![(".claude/settings.json", JSON), (".mcp.json", JSON)],
        Host::Codex => vec![(".codex/hooks.json", JSON), (".codex/config.toml", TOML)],
        Host::Gemini => vec![(".gemini/settings.json", JSON)],
        Host::Cursor => vec![(".cursor/hooks.json", JSON), (".cursor/mcp.json", JSON)],
        _ => unreachable!("a host with hooks"),
    }
}

fn json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Every hook command line in a settings file (Claude's, Codex's and Gemini's groups, Cursor's
/// flat lists).
fn hook_lines(v: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for list in v["hooks"].as_object().into_iter().flat_map(|m| m.values()) {
        for entry in list.as_array().into_iter().flatten() {
            let handlers = match entry.get("hooks") {
                Some(h) => h.as_array().cloned().unwrap_or_default(),
                None => vec![entry.clone()],
            };
            for h in handlers {
                out.extend(h["command"].as_str().map(str::to_string));
            }
        }
    }
    out
}

#[test]
fn each_host_gets_the_command_line_its_windows_shell_runs() {
    let expect = [
        (Host::Claude, "settings.json", Shell::PowerShell),
        (Host::Gemini, "settings.json", Shell::PowerShell),
        (Host::Cursor, "hooks.json", Shell::PowerShell),
        (Host::Codex, "hooks.json", Shell::Cmd),
    ];
    for (host, file, shell) in expect {
        let dir = tempfile::tempdir().unwrap();
        let o = windows(dir.path(), host);
        install(&o).unwrap();
        let folder = match host {
            Host::Claude => ".claude",
            Host::Gemini => ".gemini",
            Host::Cursor => ".cursor",
            _ => ".codex",
        };
        let v = json(&dir.path().join(folder).join(file));
        let lines = hook_lines(&v);
        assert!(!lines.is_empty(), "{host:?}: no hooks in {v}");
        for line in &lines {
            assert_eq!(
                shell.program(line).as_deref(),
                Some(EXE),
                "{host:?}: {line}"
            );
            assert!(
                line.contains(&format!(" hook {} ", host.as_str())),
                "{line}"
            );
        }
        let start = lines
            .iter()
            .find(|l| l.ends_with(" session-start"))
            .unwrap();
        let expected = match shell {
            Shell::Cmd => format!(
                r"powershell -NoProfile -NonInteractive -Command ^& 'C:\Program Files\trilogy\trilogy.exe' hook {} session-start",
                host.as_str()
            ),
            _ => format!(
                r"& 'C:\Program Files\trilogy\trilogy.exe' hook {} session-start",
                host.as_str()
            ),
        };
        assert_eq!(start, &expected);
    }
}

#[test]
fn claude_is_told_to_run_the_windows_line_with_powershell() {
    let dir = tempfile::tempdir().unwrap();
    install(&windows(dir.path(), Host::Claude)).unwrap();
    let v = json(&dir.path().join(".claude/settings.json"));
    for group in v["hooks"].as_object().unwrap().values() {
        assert_eq!(group[0]["hooks"][0]["shell"], "powershell", "{group}");
    }
    // and not on Linux or macOS, where the handler stays as it always was
    let dir = tempfile::tempdir().unwrap();
    let mut o = windows(dir.path(), Host::Claude);
    o.os = Os::Unix;
    install(&o).unwrap();
    let v = json(&dir.path().join(".claude/settings.json"));
    assert!(v["hooks"]["Stop"][0]["hooks"][0].get("shell").is_none());
}

#[test]
fn the_windows_path_round_trips_through_json_and_toml() {
    let dir = tempfile::tempdir().unwrap();
    install(&windows(dir.path(), Host::Codex)).unwrap();
    let text = std::fs::read_to_string(dir.path().join(".codex/config.toml")).unwrap();
    let doc: toml::Value = toml::from_str(&text).unwrap();
    assert_eq!(doc["mcp_servers"]["trilogy"]["command"].as_str(), Some(EXE));
    let dir = tempfile::tempdir().unwrap();
    install(&windows(dir.path(), Host::Claude)).unwrap();
    let raw = std::fs::read_to_string(dir.path().join(".mcp.json")).unwrap();
    assert!(
        raw.contains(r#""C:\\Program Files\\trilogy\\trilogy.exe""#),
        "{raw}"
    );
    let v = json(&dir.path().join(".mcp.json"));
    assert_eq!(v["mcpServers"]["trilogy"]["command"], EXE);
    assert_eq!(v["mcpServers"]["trilogy"]["args"][0], "mcp");
}

#[test]
fn install_then_uninstall_gives_every_file_back_byte_for_byte() {
    for host in [Host::Claude, Host::Codex, Host::Gemini, Host::Cursor] {
        let dir = tempfile::tempdir().unwrap();
        seed(dir.path(), host);
        let o = windows(dir.path(), host);
        install(&o).unwrap();
        let once: Vec<String> = files(host)
            .iter()
            .map(|(rel, _)| std::fs::read_to_string(dir.path().join(rel)).unwrap())
            .collect();
        let again = install(&o).unwrap();
        assert!(
            again.iter().all(|c| c.action == "unchanged"),
            "{host:?}: {again:?}"
        );
        for ((rel, before), now) in files(host).iter().zip(&once) {
            assert_ne!(before, now, "{host:?}: install left {rel} as it was");
        }
        uninstall(&o).unwrap();
        for (rel, before) in files(host) {
            let now = std::fs::read_to_string(dir.path().join(rel)).unwrap();
            assert_eq!(now, before, "{host:?}: {rel}");
        }
    }
}

#[test]
fn without_a_record_the_windows_handlers_are_still_ours_to_take_out() {
    for host in [Host::Claude, Host::Codex, Host::Gemini, Host::Cursor] {
        let dir = tempfile::tempdir().unwrap();
        seed(dir.path(), host);
        let mut o = windows(dir.path(), host);
        install(&o).unwrap();
        // installed on another machine: this one has no record
        std::fs::remove_dir_all(dir.path().join("state")).unwrap();
        o.state = None;
        uninstall(&o).unwrap();
        for (rel, _) in files(host) {
            let text = std::fs::read_to_string(dir.path().join(rel)).unwrap();
            assert!(!text.contains("trilogy"), "{host:?}: {rel} keeps {text}");
        }
    }
}

#[test]
fn a_unix_install_moved_to_windows_is_replaced_not_doubled() {
    for host in [Host::Claude, Host::Codex, Host::Gemini, Host::Cursor] {
        let dir = tempfile::tempdir().unwrap();
        let mut o = windows(dir.path(), host);
        o.os = Os::Unix;
        o.command = "/opt/my tools/trilogy".into();
        install(&o).unwrap();
        let mut o = windows(dir.path(), host);
        o.force = true;
        install(&o).unwrap();
        let (rel, _) = files(host)[0];
        let lines = hook_lines(&json(&dir.path().join(rel)));
        let shell = Shell::of_hooks(host, Os::Windows);
        assert!(!lines.is_empty());
        for line in lines {
            assert_eq!(
                shell.program(&line).as_deref(),
                Some(EXE),
                "{host:?}: {line}"
            );
        }
    }
}
