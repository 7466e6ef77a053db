//! The command lines `install` writes for a host's hooks, as `doctor` reads them back: a path
//! with spaces is one program, checked whole, and a path that exists runs clean; hooks an older
//! install left out are named, and installing again adds them.

use crate::common;

use common::{Ws, text};

fn doctor(ws: &Ws) -> (bool, String) {
    let out = ws
        .cmd()
        .env("HOME", ws.state.path())
        .args(["doctor"])
        .output()
        .unwrap();
    (out.status.success(), text(&out.stdout))
}

#[test]
fn doctor_checks_a_quoted_program_path_whole() {
    let ws = Ws::init();
    let missing = ws.root().join("no such folder/trilogy");
    ws.ok(&["install", "codex", "--command", missing.to_str().unwrap()]);
    let hooks = std::fs::read_to_string(ws.root().join(".codex/hooks.json")).unwrap();
    assert!(
        hooks.contains(&format!("'{}' hook codex", missing.display())),
        "{hooks}"
    );
    let (ok, report) = doctor(&ws);
    assert!(!ok, "{report}");
    assert!(
        report.contains(&format!(
            "runs `{}`, which does not resolve",
            missing.display()
        )),
        "{report}"
    );

    // the same folder name with the program in it: nothing to report
    let folder = ws.root().join("with space");
    std::fs::create_dir_all(&folder).unwrap();
    let bin = folder.join("trilogy");
    std::fs::copy(assert_cmd::cargo::cargo_bin("trilogy"), &bin).unwrap();
    ws.ok(&["install", "codex", "--command", bin.to_str().unwrap()]);
    let (_, report) = doctor(&ws);
    assert!(!report.contains("does not resolve"), "{report}");
    assert!(!report.contains("another shell"), "{report}");
}

#[test]
fn doctor_names_the_hooks_an_older_install_left_out_and_install_adds_them() {
    let ws = Ws::init();
    let bin = assert_cmd::cargo::cargo_bin("trilogy");
    ws.ok(&["install", "codex", "--command", bin.to_str().unwrap()]);
    let (_, report) = doctor(&ws);
    assert!(!report.contains("set up by an older trilogy"), "{report}");
    // as an install from before drafts left it: no SessionEnd, no PreCompact
    let path = ws.root().join(".codex/hooks.json");
    let mut hooks: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let events = hooks["hooks"].as_object_mut().unwrap();
    assert!(events.remove("SessionEnd").is_some() && events.remove("PreCompact").is_some());
    std::fs::write(&path, hooks.to_string()).unwrap();
    let (_, report) = doctor(&ws);
    assert!(
        report.contains("not `session-end`, `pre-compact`: set up by an older trilogy"),
        "{report}"
    );
    assert!(report.contains("trilogy install codex"), "{report}");
    ws.ok(&["install", "codex", "--command", bin.to_str().unwrap()]);
    let (_, report) = doctor(&ws);
    assert!(!report.contains("set up by an older trilogy"), "{report}");
}

/// `doctor --json`'s warnings about hosts' own memories, as (host, action).
fn native(ws: &Ws) -> Vec<(String, String)> {
    let out = ws.cmd().args(["doctor", "--json"]).output().unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    (v["findings"].as_array().unwrap().iter())
        .filter(|f| f["check"] == "native-memory")
        .map(|f| {
            let host = f["message"].as_str().unwrap().split(' ').next().unwrap();
            (host.to_string(), f["action"].as_str().unwrap().to_string())
        })
        .collect()
}

fn put(path: &std::path::Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[test]
fn doctor_warns_of_a_hosts_own_memory_loaded_beside_trilogys_where_it_is_installed() {
    let ws = Ws::init();
    let bin = assert_cmd::cargo::cargo_bin("trilogy");
    let home = ws.home();
    let root = ws.root().canonicalize().unwrap();
    let slug: String = (root.display().to_string().chars())
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    put(
        &home
            .join(".claude/projects")
            .join(slug)
            .join("memory/MEMORY.md"),
        "- [Build](build.md) — cargo build --release\n",
    );
    put(
        &home.join(".codex/memories/memory_summary.md"),
        "## User Profile\nlikes tests\n",
    );
    put(
        &home.join(".gemini/GEMINI.md"),
        "# Notes\n\n## Gemini Added Memories\n- the staging server is db-2\n",
    );
    // none of the hosts is installed here: nothing of theirs reaches trilogy's sessions
    assert_eq!(native(&ws), vec![]);
    for host in ["claude", "codex", "gemini"] {
        ws.ok(&["install", host, "--command", bin.to_str().unwrap()]);
    }
    let found = native(&ws);
    let hosts: Vec<&str> = found.iter().map(|(h, _)| h.as_str()).collect();
    assert_eq!(hosts, ["claude", "codex", "gemini"], "{found:?}");
    assert!(
        found[0].1.contains("trilogy import --from claude"),
        "{found:?}"
    );
    assert!(found[0].1.contains("autoMemoryEnabled"), "{found:?}");
    assert!(found[1].1.contains("use_memories = false"), "{found:?}");
    assert!(found[2].1.contains("Gemini Added Memories"), "{found:?}");
    // an empty section is no memory
    put(
        &home.join(".gemini/GEMINI.md"),
        "## Gemini Added Memories\n",
    );
    assert_eq!(native(&ws).len(), 2);
    // a Claude Code session's first block says so, once
    let block = |id: &str| {
        let out = ws.ok_stdin(
            &["hook", "claude", "session-start"],
            &common::session_start_payload(&ws, id),
        );
        common::hook_context(&out)
    };
    let first = block("s-1");
    assert!(first.contains("注意：claude 自己的记忆"), "{first}");
    assert!(first.contains("MEMORY.md"), "{first}");
    assert!(!block("s-2").contains("自己的记忆"));
}
