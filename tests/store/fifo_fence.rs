//! A FIFO where trilogy expects a file it reads or writes — a memory file, the boot block's
//! `AGENTS.md`, a host's rules file, a host's settings — never makes a command wait: each one
//! answers promptly, naming the file. Run through the real binary with a time limit, so a hang
//! fails the test instead of blocking it.

use crate::common;

use std::path::Path;
use std::process::{Command, Output};
use std::time::Duration;

use common::{Ws, text};
use serde_json::json;

/// Far more than any of these commands needs; only a hang reaches it.
const LIMIT: Duration = Duration::from_secs(60);

fn mkfifo(path: &Path) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let _ = std::fs::remove_file(path);
    let made = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(made.success(), "mkfifo {}", path.display());
}

/// Run `args` in `ws`, failing the test when the command had to be stopped.
fn prompt(ws: &Ws, args: &[&str]) -> Output {
    let out = ws.cmd().args(args).timeout(LIMIT).output().unwrap();
    assert!(
        out.status.code().is_some(),
        "trilogy {args:?} hung on a FIFO (stopped after {LIMIT:?})"
    );
    out
}

/// A refusal that names `name` and says what is wrong with it.
fn refused(out: &Output, args: &[&str], name: &str) {
    let err = text(&out.stderr);
    assert!(!out.status.success(), "{args:?} succeeded: {err}");
    assert!(
        err.contains(name) && err.contains("not a regular file"),
        "{args:?}: {err}"
    );
}

#[test]
fn export_refuses_a_fifo_memory_file_by_name() {
    let ws = Ws::init();
    mkfifo(&ws.path("DECISIONS.md"));
    let args = ["export"];
    refused(&prompt(&ws, &args), &args, "DECISIONS.md");
}

#[test]
fn block_status_refuses_a_fifo_agents_md_by_name() {
    let ws = Ws::init();
    mkfifo(&ws.root().join("AGENTS.md"));
    let args = ["block", "status"];
    refused(&prompt(&ws, &args), &args, "AGENTS.md");
}

/// The rules files the block is refreshed in after every write.
const RULES: [&str; 5] = [
    ".rules",
    "AGENTS.local.md",
    ".windsurfrules",
    ".github/copilot-instructions.md",
    ".cursor/rules/trilogy.mdc",
];

#[test]
fn a_checkpoint_commits_and_warns_of_each_fifo_rules_file_by_name() {
    let ws = Ws::init();
    for f in RULES {
        mkfifo(&ws.root().join(f));
    }
    let args = [
        "checkpoint",
        "--session-done",
        "rules files are FIFOs; tested",
    ];
    let out = prompt(&ws, &args);
    let err = text(&out.stderr);
    assert!(out.status.success(), "{err}");
    for f in RULES {
        assert!(
            err.lines()
                .any(|l| l.contains(f) && l.contains("not a regular file")),
            "{f}: {err}"
        );
    }
    assert!(ws.read("SESSIONS.md").contains("rules files are FIFOs"));
}

#[test]
fn the_mcp_server_answers_every_checkpoint_with_fifo_rules_files() {
    let ws = Ws::init();
    for f in RULES {
        mkfifo(&ws.root().join(f));
    }
    let call = |id: u64, done: &str| json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":{"name":"memory_checkpoint","arguments":{"sessions":[{"done":done}]}}});
    let lines = [
        json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"host","version":"1"}}}),
        json!({"jsonrpc":"2.0","method":"notifications/initialized"}),
        call(2, "first with FIFO rules files; tested"),
        call(3, "second with FIFO rules files; tested"),
        json!({"jsonrpc":"2.0","id":4,"method":"ping"}),
    ];
    let input: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let out = ws
        .cmd()
        .arg("mcp")
        .write_stdin(input)
        .timeout(LIMIT)
        .output()
        .unwrap();
    assert!(out.status.code().is_some(), "the MCP server hung");
    let frames: Vec<serde_json::Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    for id in [2, 3, 4] {
        let f = frames.iter().find(|f| f["id"] == id);
        assert!(
            f.is_some_and(|f| f.get("result").is_some() && f["result"]["isError"] != true),
            "no answer to {id}: {frames:?}"
        );
    }
    let sessions = ws.read("SESSIONS.md");
    assert!(sessions.contains("first with FIFO") && sessions.contains("second with FIFO"));
}

#[test]
fn install_refuses_each_fifo_settings_or_rules_file_by_name() {
    for (host, file) in [
        ("vscode", ".vscode/mcp.json"),
        ("zed", ".rules"),
        ("claude", "CLAUDE.md"),
        ("codex", ".codex/config.toml"),
    ] {
        let ws = Ws::init();
        mkfifo(&ws.root().join(file));
        let args = ["install", host];
        refused(&prompt(&ws, &args), &args, file);
    }
}
