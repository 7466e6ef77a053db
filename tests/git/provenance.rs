//! Provenance: every entry knows the branch it was recorded on (read from `.git/HEAD`, no git
//! process), the agent session and host that wrote it, and how it arrived — store-only
//! metadata, shown by `read --json` and search hits, never written into the files.

use crate::common;

use common::{Ws, git_output, text};
use serde_json::{Value, json};

fn git(ws: &Ws, args: &[&str]) {
    let o = git_output(ws.root(), args);
    assert!(o.status.success(), "git {args:?}: {}", text(&o.stderr));
}

/// A workspace in a git repository, on branch `side`.
fn on_side() -> Ws {
    let ws = Ws::new();
    git(&ws, &["init", "-q", "-b", "side"]);
    ws.ok(&["init"]);
    ws
}

fn entry(ws: &Ws, file: &str, needle: &str) -> Value {
    let v = ws.json(&["read", file, "-n", "100"]);
    v["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["body"].as_str().unwrap().contains(needle))
        .unwrap_or_else(|| panic!("no entry with {needle}: {v}"))
        .clone()
}

#[test]
fn entries_from_the_cli_an_agent_session_and_mcp_carry_branch_session_and_host() {
    let ws = on_side();
    ws.ok(&["checkpoint", "--session-done", "from the CLI; tested"]);
    let p = &entry(&ws, "SESSIONS.md", "from the CLI")["provenance"];
    assert_eq!(p["branch"], "side", "{p}");
    assert_eq!(p["via"], "cli");
    assert_eq!(p["agent_session"], Value::Null);

    // an agent session the Claude Code hook knows, recording through the CLI
    ws.ok_stdin(
        &["hook", "claude", "session-start"],
        &common::session_start_payload(&ws, "sess-7"),
    );
    ws.ok(&[
        "checkpoint",
        "--agent-session",
        "sess-7",
        "--session-done",
        "from the agent; tested",
    ]);
    let p = &entry(&ws, "SESSIONS.md", "from the agent")["provenance"];
    assert_eq!(p["branch"], "side");
    assert_eq!(p["agent_session"], "sess-7");
    assert_eq!(p["host"], "claude");
    assert_eq!(p["via"], "agent");

    // MCP
    let call = json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"memory_checkpoint","arguments":{"decisions":[{"choice":"decided over MCP"}]}}});
    let (frames, stdout) = ws.mcp_session(&[
        json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"host","version":"1"}}}).to_string(),
        json!({"jsonrpc":"2.0","method":"notifications/initialized"}).to_string(),
        call.to_string(),
    ]);
    assert!(
        frames
            .iter()
            .any(|f| f["id"] == 2 && f["result"]["isError"] != true),
        "{stdout}"
    );
    let p = &entry(&ws, "DECISIONS.md", "decided over MCP")["provenance"];
    assert_eq!(p["branch"], "side");
    assert_eq!(p["via"], "mcp");

    // search hits say the branch; the files hold none of it
    let hits = ws.json(&["search", "decided over MCP"]);
    assert_eq!(hits["hits"][0]["branch"], "side", "{hits}");
    // so do the log and the session's own record
    let log = ws.json(&["log", "-n", "50"]);
    let added: Vec<&Value> = (log["events"].as_array().unwrap().iter())
        .filter(|e| e["op"] == "add")
        .collect();
    assert_eq!(added.len(), 3, "{log}");
    assert!(added.iter().all(|e| e["branch"] == "side"), "{log}");
    let shown = ws.json(&["sessions", "show", "sess-7"]);
    let recorded = shown["recorded"].as_array().unwrap();
    assert_eq!(recorded.len(), 1, "{shown}");
    assert_eq!(recorded[0]["branch"], "side");
    assert!(
        recorded[0]["heading"]
            .as_str()
            .unwrap()
            .starts_with("2026-11-29")
    );
    assert!(ws.ok(&["log"]).contains("(on side)"));
    for f in ["SESSIONS.md", "DECISIONS.md"] {
        assert!(!ws.read(f).contains("side"), "{f}");
    }
}

#[test]
fn a_detached_head_gives_no_branch_and_a_fresh_clone_says_its_entries_came_from_files() {
    let ws = on_side();
    ws.ok(&["checkpoint", "--session-done", "on the branch; tested"]);
    git(&ws, &["add", "-A"]);
    git(&ws, &["commit", "-qm", "memory"]);
    git(&ws, &["checkout", "-q", "--detach"]);
    ws.ok(&["checkpoint", "--session-done", "detached; tested"]);
    let p = &entry(&ws, "SESSIONS.md", "detached")["provenance"];
    assert_eq!(p["branch"], Value::Null, "{p}");
    assert_eq!(
        entry(&ws, "SESSIONS.md", "on the branch")["provenance"]["branch"],
        "side"
    );

    // read --branch filters by provenance
    let side = ws.json(&["read", "SESSIONS.md", "--branch", "side"]);
    let bodies: Vec<&str> = side["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["body"].as_str().unwrap())
        .collect();
    assert_eq!(bodies.len(), 1, "{side}");
    assert!(bodies[0].contains("on the branch"));
    let other = ws.json(&["read", "SESSIONS.md", "--branch", "other"]);
    assert_eq!(other["entries"], json!([]));

    let clone = Ws::new();
    let o = git_output(
        clone.root(),
        &["clone", "-q", ws.root().to_str().unwrap(), "."],
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    let p = &entry(&clone, "SESSIONS.md", "on the branch")["provenance"];
    assert_eq!(p["via"], "files", "{p}");
}

#[test]
fn a_fifo_as_head_does_not_hang_a_write() {
    let ws = on_side();
    let head = ws.root().join(".git/HEAD");
    std::fs::remove_file(&head).unwrap();
    let o = std::process::Command::new("mkfifo")
        .arg(&head)
        .output()
        .unwrap();
    assert!(o.status.success());
    let out = ws
        .cmd()
        .args([
            "checkpoint",
            "--session-done",
            "with a hostile HEAD; tested",
        ])
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let p = &entry(&ws, "SESSIONS.md", "hostile HEAD")["provenance"];
    assert_eq!(p["branch"], Value::Null);
}

#[test]
fn an_entry_pulled_from_a_teammates_clone_names_the_author_of_the_commit_that_added_it() {
    let (_origin, a, b) = crate::property::clones();
    b.ok(&["checkpoint", "--session-done", "from Bea's clone; tested"]);
    git(&b, &["add", "-A", "memory"]);
    git(
        &b,
        &[
            "commit",
            "-qm",
            "memory",
            "--author",
            "Bea <bea@example.com>",
        ],
    );
    git(&b, &["push", "-q", "origin", "main"]);

    a.ok(&["checkpoint", "--session-done", "own work in a; tested"]);
    git(&a, &["add", "-A", "memory"]);
    git(&a, &["commit", "-qm", "memory"]);
    git(
        &a,
        &["pull", "-q", "--no-rebase", "--no-edit", "origin", "main"],
    );
    let p = &entry(&a, "SESSIONS.md", "from Bea's clone")["provenance"];
    assert_eq!(p["via"], "merge", "{p}");
    assert_eq!(p["arrived_from"], "Bea <bea@example.com>", "{p}");
    let own = &entry(&a, "SESSIONS.md", "own work in a")["provenance"];
    assert_eq!(own["via"], "cli", "{own}");
    assert!(own.get("arrived_from").is_none(), "{own}");
}
