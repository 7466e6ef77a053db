//! Memory follows the project, not the agent's working directory: one location rule for the
//! CLI, the hooks and the MCP server (percent-encoded client roots, `cd` into a subfolder, a
//! hook run outside any project, a mistyped `--root`).

use crate::common;

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::Stdio;

use common::mcp_peer::McpPeer;
use common::{Ws, git_output, text};
use serde_json::{Value, json};

/// Run a Claude hook the way Claude Code does: from `cwd`, naming the project when given.
fn hook(ws: &Ws, event: &str, payload: &Value, cwd: &Path, project: Option<&Path>) -> String {
    let mut c = std::process::Command::new(assert_cmd::cargo::cargo_bin("trilogy"));
    c.args(["hook", "claude", event])
        .current_dir(cwd)
        .env("TRILOGY_TODAY", common::TODAY)
        .env("TRILOGY_CONFIG", ws.root().join("none.toml"))
        .env("XDG_STATE_HOME", ws.state.path())
        .envs(common::private_env(ws.state.path()))
        .env("HOME", ws.state.path())
        .env_remove("CLAUDE_PROJECT_DIR")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(p) = project {
        c.env("CLAUDE_PROJECT_DIR", p);
    }
    let mut child = c.spawn().unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(payload.to_string().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "hooks exit 0: {}", text(&out.stderr));
    text(&out.stdout)
}

/// The binary with the test environment and no `--root`.
fn bare(ws: &Ws) -> std::process::Command {
    let mut c = std::process::Command::new(assert_cmd::cargo::cargo_bin("trilogy"));
    c.env("TRILOGY_TODAY", common::TODAY)
        .env("TRILOGY_CONFIG", ws.root().join("none.toml"))
        .env("XDG_STATE_HOME", ws.state.path())
        .envs(common::private_env(ws.state.path()));
    c
}

fn start(session: &str, cwd: &Path, source: &str) -> Value {
    json!({"session_id": session, "hook_event_name": "SessionStart", "source": source,
           "cwd": cwd.display().to_string(), "transcript_path": "/nonexistent"})
}

#[test]
fn a_cd_into_a_subfolder_keeps_the_projects_memory() {
    let ws = Ws::init();
    assert!(git_output(ws.root(), &["init", "-q"]).status.success());
    ws.ok(&[
        "checkpoint",
        "--session-done",
        "the project's own entry; tested",
    ]);
    let sub = ws.root().join("src/deep");
    std::fs::create_dir_all(&sub).unwrap();
    let first = hook(
        &ws,
        "session-start",
        &start("s-cd", ws.root(), "startup"),
        ws.root(),
        None,
    );
    assert!(first.contains("the project's own entry"), "{first}");
    // the agent ran `cd src/deep`; Claude Code now reports that cwd, and /compact asks again
    let again = hook(
        &ws,
        "session-start",
        &start("s-cd", &sub, "compact"),
        &sub,
        None,
    );
    assert!(again.contains("the project's own entry"), "{again}");
    assert!(!sub.join("memory").exists() && !ws.root().join("src/memory").exists());
    assert!(!sub.join(".trilogy").exists());
    // a new session started in the subfolder finds the memory above it
    let fresh = hook(
        &ws,
        "session-start",
        &start("s-sub", &sub, "startup"),
        &sub,
        None,
    );
    assert!(fresh.contains("the project's own entry"), "{fresh}");
    // and a session keeps its workspace even when its cwd leaves the project
    let elsewhere = tempfile::tempdir().unwrap();
    let away = hook(
        &ws,
        "session-start",
        &start("s-cd", elsewhere.path(), "compact"),
        elsewhere.path(),
        None,
    );
    assert!(away.contains("the project's own entry"), "{away}");
    assert!(
        std::fs::read_dir(elsewhere.path())
            .unwrap()
            .next()
            .is_none()
    );
}

#[test]
fn a_host_started_in_a_subfolder_gets_the_projects_memory() {
    let ws = Ws::init();
    assert!(git_output(ws.root(), &["init", "-q"]).status.success());
    ws.ok(&["checkpoint", "--session-done", "the root entry; tested"]);
    let sub = ws.root().join("pkg/deep");
    std::fs::create_dir_all(&sub).unwrap();
    // Claude Code and Gemini CLI name the folder they were started in as the project
    let out = hook(
        &ws,
        "session-start",
        &start("s-sub-host", &sub, "startup"),
        &sub,
        Some(&sub),
    );
    assert!(out.contains("the root entry"), "{out}");
    assert!(!sub.join("memory").exists() && !sub.join(".trilogy").exists());
}

#[test]
fn a_user_scope_hook_outside_any_project_creates_nothing() {
    let ws = Ws::new();
    let home = ws.root();
    let out = hook(
        &ws,
        "session-start",
        &start("s-home", home, "startup"),
        home,
        None,
    );
    assert_eq!(out, "", "no block where there is no project");
    let made: Vec<_> = std::fs::read_dir(home)
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert!(
        made.is_empty(),
        "nothing created in a folder that is no project: {made:?}"
    );
    // the same folder named by the host as its project gets memory
    let out = hook(
        &ws,
        "session-start",
        &start("s-proj", home, "startup"),
        home,
        Some(home),
    );
    assert!(ws.path("SESSIONS.md").exists(), "{out}");
    // and a repository root gets memory too
    let repo = Ws::new();
    assert!(git_output(repo.root(), &["init", "-q"]).status.success());
    let sub = repo.root().join("pkg");
    std::fs::create_dir_all(&sub).unwrap();
    hook(
        &repo,
        "session-start",
        &start("s-repo", &sub, "startup"),
        &sub,
        None,
    );
    assert!(repo.path("SESSIONS.md").exists(), "at the repository root");
    assert!(!sub.join("memory").exists(), "never in the subfolder");
}

#[test]
fn a_mistyped_root_is_an_error_and_no_folder_appears() {
    let ws = Ws::init();
    let typo = ws.root().join("no-such-project");
    let out = bare(&ws)
        .arg("--root")
        .arg(&typo)
        .args(["checkpoint", "--session-done", "x; tested"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("no such folder"),
        "{}",
        text(&out.stderr)
    );
    assert!(!typo.exists());
}

/// Drive `trilogy mcp` (no `--root`) as a host that announces `roots`: answer the server's
/// `roots/list` with `roots` (or never, when `None`) and return `memory_status`'s root.
fn mcp_root_with(ws: &Ws, cwd: &Path, roots: Option<Value>) -> String {
    let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("trilogy"));
    cmd.arg("mcp")
        .current_dir(cwd)
        .env("TRILOGY_CONFIG", ws.root().join("none.toml"))
        .envs(common::private_env(ws.state.path()))
        .env(common::CEILING, common::ceiling())
        .env_remove("CLAUDE_PROJECT_DIR");
    let mut server = McpPeer::spawn(cmd);
    server.send(
        json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"roots":{"listChanged":false}},"clientInfo":{"name":"host","version":"1"}}}),
    );
    server.next();
    server.send(json!({"jsonrpc":"2.0","method":"notifications/initialized"}));
    server.send(
        json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"memory_status","arguments":{}}}),
    );
    loop {
        let v = server.next();
        if v["method"] == "roots/list" {
            if let Some(r) = &roots {
                server.send(json!({"jsonrpc":"2.0","id":v["id"],"result":{"roots":r}}));
            }
            continue;
        }
        if v["id"] == 1 {
            server.finish();
            return v["result"]["structuredContent"]["root"]
                .as_str()
                .or_else(|| v["result"]["content"][0]["text"].as_str())
                .unwrap_or_default()
                .to_string();
        }
    }
}

#[test]
fn percent_encoded_client_roots_reach_the_real_folder() {
    let parent = tempfile::tempdir().unwrap();
    let project = parent.path().join("my proj 项目");
    std::fs::create_dir_all(&project).unwrap();
    let ws = Ws::new();
    let out = bare(&ws)
        .arg("--root")
        .arg(&project)
        .arg("init")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let mut uri = String::from("file://");
    for b in project.display().to_string().bytes() {
        if b.is_ascii_alphanumeric() || b"/-_.".contains(&b) {
            uri.push(b as char);
        } else {
            uri.push_str(&format!("%{b:02X}"));
        }
    }
    let elsewhere = tempfile::tempdir().unwrap();
    let root = mcp_root_with(
        &ws,
        elsewhere.path(),
        Some(json!([{"uri": uri, "name": "p"}])),
    );
    assert!(root.contains("my proj 项目"), "{root}");
    let leaked: Vec<_> = std::fs::read_dir(parent.path())
        .unwrap()
        .flatten()
        .collect();
    assert_eq!(leaked.len(), 1, "no folder named with the escapes appears");
    assert!(
        std::fs::read_dir(elsewhere.path())
            .unwrap()
            .next()
            .is_none()
    );
}

#[test]
fn a_client_that_never_answers_roots_does_not_hang_the_server() {
    let ws = Ws::init();
    let root = mcp_root_with(&ws, ws.root(), None);
    assert!(root.contains(&ws.root().display().to_string()), "{root}");
}

#[test]
fn a_decisions_area_is_its_own_field_and_filters() {
    let ws = Ws::init();
    let batch = json!({"decisions": [{"choice": "use redb", "because": "multi-process writes", "area": "infra"}]});
    ws.ok_stdin(&["checkpoint"], &batch.to_string());
    let v = ws.json(&["read", "DECISIONS.md", "--area", "infra"]);
    let entries = v["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 1, "{v}");
    assert_eq!(entries[0]["fields"]["because"], "multi-process writes");
    assert_eq!(entries[0]["fields"]["area"], "infra");
}

#[test]
fn the_language_chosen_at_init_stays_the_workspaces() {
    let ws = Ws::new();
    ws.ok(&["init", "--set", "lang=en"]);
    let toml = std::fs::read_to_string(ws.root().join("trilogy.toml")).unwrap();
    assert!(toml.contains("lang = \"en\""), "{toml}");
    ws.ok(&["checkpoint", "--session-done", "later entry; tested"]);
    let s = ws.read("SESSIONS.md");
    assert!(s.contains("Done: later entry; tested"), "{s}");
    // a project that already chose keeps its choice
    let zh = Ws::new();
    std::fs::write(zh.root().join("trilogy.toml"), "lang = \"zh\"\n").unwrap();
    zh.ok(&["init", "--set", "lang=en"]);
    assert_eq!(
        std::fs::read_to_string(zh.root().join("trilogy.toml")).unwrap(),
        "lang = \"zh\"\n"
    );
}

#[test]
fn hooks_exit_zero_on_a_missing_event_and_input_that_is_not_utf8() {
    let ws = Ws::init();
    let out = bare(&ws)
        .args(["hook", "claude"])
        .current_dir(ws.root())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("no event"),
        "{}",
        text(&out.stderr)
    );
    let mut child = bare(&ws)
        .args(["hook", "claude", "session-start"])
        .current_dir(ws.root())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"{\"session_id\":\"\xff\"}")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(
        text(&out.stderr).contains("not UTF-8"),
        "{}",
        text(&out.stderr)
    );
    let log = std::fs::read_to_string(ws.root().join(".trilogy/hooks.log")).unwrap();
    assert!(log.contains("not UTF-8") && !log.contains("EOF"), "{log}");
}

#[test]
fn the_mcp_server_rejects_out_of_range_limits_and_exits_0_when_the_client_leaves_early() {
    let ws = Ws::init();
    // stdin closed before any handshake
    let out = bare(&ws)
        .arg("--root")
        .arg(ws.root())
        .arg("mcp")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let mut child = bare(&ws)
        .arg("--root")
        .arg(ws.root())
        .arg("mcp")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut reader = BufReader::new(child.stdout.take().unwrap());
    let mut send = |v: Value| writeln!(stdin, "{v}").unwrap();
    send(
        json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"host","version":"1"}}}),
    );
    let mut line = String::new();
    reader.read_line(&mut line).unwrap();
    send(json!({"jsonrpc":"2.0","method":"notifications/initialized"}));
    for (i, (tool, args)) in [
        ("memory_read", json!({"limit": 0})),
        ("memory_read", json!({"limit": 201})),
        ("memory_search", json!({"query": "x", "limit": 21})),
    ]
    .into_iter()
    .enumerate()
    {
        send(
            json!({"jsonrpc":"2.0","id":i + 1,"method":"tools/call","params":{"name":tool,"arguments":args}}),
        );
        line.clear();
        reader.read_line(&mut line).unwrap();
        let v: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(v["result"]["isError"], true, "{line}");
        assert!(line.contains("use a number from 1 to"), "{line}");
    }
    drop(stdin);
    assert!(child.wait().unwrap().success());
}

#[test]
fn doctor_names_host_settings_that_call_a_trilogy_that_does_not_run() {
    let ws = Ws::init();
    std::fs::create_dir_all(ws.root().join(".claude")).unwrap();
    std::fs::write(
        ws.root().join(".claude/settings.json"),
        r#"{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"/nowhere/bin/trilogy hook claude session-start"}]}]}}"#,
    )
    .unwrap();
    let out = ws
        .cmd()
        .env("HOME", ws.state.path())
        .args(["doctor"])
        .output()
        .unwrap();
    let report = text(&out.stdout);
    assert!(!out.status.success(), "{report}");
    assert!(
        report.contains("/nowhere/bin/trilogy") && report.contains("does not resolve"),
        "{report}"
    );
    // installed with the absolute path of a trilogy that exists, all is well
    std::fs::remove_file(ws.root().join(".claude/settings.json")).unwrap();
    let bin = assert_cmd::cargo::cargo_bin("trilogy");
    ws.ok(&["install", "claude", "--command", bin.to_str().unwrap()]);
    let out = ws
        .cmd()
        .env("HOME", ws.state.path())
        .args(["doctor"])
        .output()
        .unwrap();
    assert!(
        !text(&out.stdout).contains("does not resolve"),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn install_says_when_the_command_would_not_run_and_what_codex_still_needs() {
    let ws = Ws::init();
    let out = ws.run(&["install", "claude", "--command", "/nowhere/trilogy"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(
        err.contains("not on PATH") && err.contains("--command /"),
        "{err}"
    );
    let bin = assert_cmd::cargo::cargo_bin("trilogy");
    let out = ws.run(&["install", "claude", "--command", bin.to_str().unwrap()]);
    assert!(
        !text(&out.stderr).contains("not on PATH"),
        "{}",
        text(&out.stderr)
    );
    let out = ws.run(&["install", "codex", "--command", bin.to_str().unwrap()]);
    let err = text(&out.stderr);
    assert!(err.contains("trust") && err.contains("/hooks"), "{err}");
}
