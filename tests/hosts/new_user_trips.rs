//! Small things a new user trips over, each pinned by the bug it was: a teammate's newer
//! setting silencing every hook and failing every command, paths printed lower-cased, bundles of unknown versions read as
//! version 1, help that leaves out a search kind, an unknown area answered with silence, and a
//! workspace used only through everyday commands missing from the panel's list.

use crate::common;

use std::time::{Duration, SystemTime};

use common::{Ws, text};
use serde_json::{Value, json};

/// `trilogy hook claude session-start` as Claude Code runs it in `ws`: the block it answers.
fn session_start(ws: &Ws) -> String {
    let out = ws
        .cmd()
        .args(["hook", "claude", "session-start"])
        .env("CLAUDE_PROJECT_DIR", ws.root())
        .write_stdin(common::session_start_payload(ws, "sess-papercut"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "hooks always exit 0");
    common::hook_context(&text(&out.stdout))
}

/// Regression: one key a newer trilogy knows, committed in `trilogy.toml`, made every hook
/// answer nothing (the reason only in `.trilogy/hooks.log`), and then every CLI command exit 3
/// and every MCP checkpoint fail (a key inside `[review_mode]`): a teammate on a newer trilogy
/// broke everyone else's.
#[test]
fn a_newer_key_in_trilogy_toml_is_a_warning_for_the_cli_hooks_and_mcp_never_an_error() {
    let ws = Ws::init();
    ws.ok(&[
        "checkpoint",
        "--session-done",
        "KNOWN-ENTRY shipped the parser",
    ]);
    std::fs::write(
        ws.root().join("trilogy.toml"),
        "session_entries_injected = 5\nmemory_retention = \"forever\"\n[review_mode]\ndecisions = \"propose\"\nprojekt = \"propose\"\n",
    )
    .unwrap();

    let out = ws.run(&["status"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(
        err.contains("`memory_retention` in trilogy.toml")
            && err.contains(
                "`review_mode.projekt` in trilogy.toml (did you mean `review_mode.project`?)"
            ),
        "names each key and the nearest known one: {err}"
    );
    ws.ok(&["checkpoint", "--session-done", "CLI-ENTRY still written"]);
    assert!(ws.read("SESSIONS.md").contains("CLI-ENTRY"));
    // the keys it knows still apply: decisions are proposed
    let r = ws.mcp_tool(
        "s1",
        "memory_checkpoint",
        json!({"sessions":[{"done":"MCP-ENTRY written"}],"decisions":[{"choice":"Keep the parser hand-written"}]}),
    );
    assert_ne!(r["isError"], true, "{r}");
    assert!(ws.read("SESSIONS.md").contains("MCP-ENTRY"));
    assert_eq!(
        r["structuredContent"]["proposed"].as_array().map(Vec::len),
        Some(1),
        "{r}"
    );
    let status = ws.mcp_tool("s1", "memory_status", json!({}));
    let said = status["content"][0]["text"].as_str().unwrap_or_default();
    assert!(
        said.contains("settings ignored") && said.contains("`review_mode.projekt` in trilogy.toml"),
        "memory_status names them: {status}"
    );

    let block = session_start(&ws);
    assert!(
        block.contains("KNOWN-ENTRY"),
        "memory still arrives: {block}"
    );
    let warnings: Vec<&str> = block
        .lines()
        .filter(|l| l.contains("memory_retention"))
        .collect();
    assert_eq!(
        warnings,
        [
            "设置已忽略：`memory_retention` in trilogy.toml、`review_mode.projekt` in trilogy.toml (did you mean `review_mode.project`?)（这个版本的 trilogy 不认识，可能来自更新的版本；其余设置照常生效）"
        ],
        "{block}"
    );

    // a wrong type is still refused, by hooks too: it is not a newer trilogy's key
    std::fs::write(
        ws.root().join("trilogy.toml"),
        "session_entries_injected = \"five\"\n",
    )
    .unwrap();
    let out = ws.run(&["status"]);
    assert!(
        text(&out.stderr).contains("trilogy.toml")
            && text(&out.stderr).contains("session_entries_injected"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(session_start(&ws), "");
}

/// The MCP server, like the hooks, keeps serving a workspace whose `trilogy.toml` holds a key
/// it does not know.
#[test]
fn the_mcp_server_starts_and_answers_despite_an_unknown_key() {
    let ws = Ws::init();
    ws.ok(&[
        "checkpoint",
        "--session-done",
        "KNOWN-ENTRY shipped the parser",
    ]);
    std::fs::write(ws.root().join("trilogy.toml"), "from_the_future = true\n").unwrap();
    let (frames, stdout) = ws.mcp_session(&[
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}).to_string(),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string(),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "memory_read", "arguments": {"file": "SESSIONS.md"}}}).to_string(),
    ]);
    let answer = (frames.iter())
        .find(|v| v["id"] == 2)
        .unwrap_or_else(|| panic!("no answer to 2: {stdout}"))
        .to_string();
    assert!(answer.contains("KNOWN-ENTRY"), "{answer}");
    assert!(!answer.contains("\"isError\":true"), "{answer}");
}

/// Regression: `block --file AGENTS.local.md` printed `appended agents.local.md`.
#[test]
fn block_messages_print_the_path_as_written() {
    let ws = Ws::init();
    let file = ws.root().join("AGENTS.local.md");
    let out = ws.ok(&["block", "--file", "AGENTS.local.md"]);
    assert!(
        out.starts_with(&format!("created {} (", file.display())),
        "{out}"
    );
    let out = ws.ok(&["block", "--file", "AGENTS.local.md"]);
    assert!(
        out.starts_with(&format!("unchanged {} (", file.display())),
        "{out}"
    );
    let out = ws.ok(&["block", "rewrite", "--file", "AGENTS.local.md"]);
    assert!(out.contains("AGENTS.local.md"), "{out}");
    assert!(!out.contains("agents.local.md"), "{out}");
}

/// Regression: `import` read a bundle of version 99, `"banana"` or none at all as version 1.
#[test]
fn import_refuses_a_bundle_version_it_does_not_know_and_writes_nothing() {
    let ws = Ws::init();
    let before = ws.snapshot();
    let sessions = "# SESSIONS\n\n## 2026-01-06 · 导出\n完成：导出 CSV\n";
    for (version, says) in [
        (
            Some(json!(99)),
            "bundle version 99 is not one this trilogy reads",
        ),
        (
            Some(json!("banana")),
            "bundle version \"banana\" is not one this trilogy reads",
        ),
        (None, "the bundle has no \"version\""),
    ] {
        let mut bundle =
            json!({"kind": "dsh-trilogy/memory-bundle", "files": {"SESSIONS.md": sessions}});
        if let Some(v) = version {
            bundle["version"] = v;
        }
        let file = ws.root().join("bundle.json");
        std::fs::write(&file, bundle.to_string()).unwrap();
        let out = ws.run(&["import", file.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
        assert!(text(&out.stderr).contains(says), "{}", text(&out.stderr));
        assert_eq!(ws.snapshot(), before, "nothing was imported");
    }
}

/// Regression: `search --help` listed the kinds without `prose`.
#[test]
fn search_help_lists_every_kind_and_an_unknown_kind_names_them() {
    let ws = Ws::init();
    let help = ws.ok(&["search", "--help"]);
    for kind in ["session", "decision", "section", "prose"] {
        assert!(help.contains(kind), "{kind}: {help}");
    }
    let out = ws.run(&["search", "x", "--kind", "poem"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("prose"), "{}", text(&out.stderr));
}

/// Regression: `read --area nosuch` printed nothing, as if the area had no recent entries.
#[test]
fn reading_an_area_that_does_not_exist_names_the_areas_there_are() {
    let ws = Ws::init();
    let batch = json!({"sessions": [
        {"done": "the parser reads fences", "area": "parser"},
        {"done": "the panel lists workspaces", "area": "panel"}
    ]});
    ws.ok_stdin(&["checkpoint"], &batch.to_string());
    let out = ws.run(&["read", "--area", "nosuch"]);
    assert_eq!(out.status.code(), Some(4), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(
        err.contains("no entry of SESSIONS.md has area `nosuch`")
            && err.contains("`panel`")
            && err.contains("`parser`"),
        "{err}"
    );
    // an area that exists but has nothing in the date range is an empty answer, not an error
    let v = ws.json(&["read", "--area", "Parser", "--since", "2099-01-01"]);
    assert_eq!(v["entries"], json!([]), "{v}");
    let v = ws.json(&["read", "--area", "parser"]);
    assert_eq!(v["entries"].as_array().unwrap().len(), 1, "{v}");
}

fn registered(ws: &Ws) -> bool {
    let Ok(text) = std::fs::read_to_string(ws.registry()) else {
        return false;
    };
    let v: Value = serde_json::from_str(&text).unwrap();
    v["workspaces"]
        .as_object()
        .unwrap()
        .contains_key(&ws.root().display().to_string())
}

/// Regression: a workspace used only through `checkpoint`, `status` or `read` never appeared
/// in the panel's list; now every command records it, at most once a day.
#[test]
fn everyday_commands_record_the_workspace_for_the_panel_once_a_day() {
    let ws = Ws::new();
    std::fs::create_dir_all(ws.root().join("memory")).unwrap();
    ws.write(
        "SESSIONS.md",
        "# SESSIONS\n\n## 2026-11-01\n完成：hand-written\n",
    );
    assert!(!registered(&ws));
    ws.ok(&["read"]);
    assert!(registered(&ws), "the first command records it");

    // within the day the registry is not read or written again
    std::fs::remove_file(ws.registry()).unwrap();
    ws.ok(&["status"]);
    ws.ok(&["checkpoint", "--session-done", "one more step"]);
    assert!(!registered(&ws), "recorded at most once a day");

    // a day later the next command records it again
    let seen = ws.state.path().join("trilogy").join("seen");
    let markers: Vec<_> = std::fs::read_dir(&seen)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(markers.len(), 1, "{markers:?}");
    let day_ago = SystemTime::now() - Duration::from_secs(25 * 60 * 60);
    std::fs::File::options()
        .write(true)
        .open(&markers[0])
        .unwrap()
        .set_modified(day_ago)
        .unwrap();
    ws.ok(&["checkpoint", "--session-done", "the next day"]);
    assert!(registered(&ws));

    // a folder without memory is never recorded
    let empty = Ws::new();
    let _ = empty.run(&["status"]);
    assert!(!registered(&empty));
}

/// Regression: twenty `init`s at once left 13 of their 20 rows in the workspace registry (each
/// read it, added its row, and wrote it whole over the others'); now writers hold its lock.
#[test]
fn twenty_inits_at_once_each_leave_their_row_in_the_registry() {
    let shared = tempfile::tempdir().unwrap();
    let data = shared.path().join("data");
    let workspaces: Vec<Ws> = (0..20).map(|_| Ws::new()).collect();
    let running: Vec<std::process::Child> = (workspaces.iter())
        .map(|ws| {
            let mut c = ws.std_cmd();
            c.env("XDG_DATA_HOME", &data)
                .arg("init")
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::piped());
            c.spawn().unwrap()
        })
        .collect();
    for child in running {
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{}", text(&out.stderr));
    }
    let registry = data.join("trilogy").join("registry.json");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&registry).unwrap()).unwrap();
    let rows = v["workspaces"].as_object().unwrap();
    let missing: Vec<String> = (workspaces.iter())
        .map(|ws| ws.root().display().to_string())
        .filter(|root| !rows.contains_key(root))
        .collect();
    assert!(
        missing.is_empty(),
        "{} of 20 rows missing: {missing:?}",
        missing.len()
    );
    assert_eq!(rows.len(), 20, "{v}");
}
