//! Installed hooks: other hooks kept byte for byte, Gemini CLI's sequence through its
//! installed hooks, and no second pointer for a Claude-only project.

use super::*;

#[test]
fn install_and_uninstall_keep_other_hooks_byte_for_byte() {
    let ws = Ws::new();
    let settings = ws.root().join(".claude/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    let original = "{\n  \"hooks\": {\n    \"PostToolUse\": [{ \"matcher\": \"Write\", \"hooks\": [{ \"type\": \"command\", \"command\": \"prettier --write\" }] }]\n  },\n  \"env\": { \"A\": \"1\" }\n}\n";
    std::fs::write(&settings, original).unwrap();
    ws.ok(&["install", "claude"]);
    let once = std::fs::read_to_string(&settings).unwrap();
    assert!(once.contains("{ \"matcher\": \"Write\", \"hooks\": [{ \"type\": \"command\", \"command\": \"prettier --write\" }] }"), "{once}");
    assert!(once.contains("\"env\": { \"A\": \"1\" }"));
    assert!(ws.ok(&["install", "claude"]).contains("unchanged"));
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), once);
    ws.ok(&["uninstall", "claude"]);
    let after = std::fs::read_to_string(&settings).unwrap();
    let value = |t: &str| serde_json::from_str::<Value>(t).unwrap();
    assert_eq!(value(&after), value(original), "{after}");
    assert!(after.contains("{ \"matcher\": \"Write\", \"hooks\": [{ \"type\": \"command\", \"command\": \"prettier --write\" }] }"));
    assert!(after.ends_with("  \"env\": { \"A\": \"1\" }\n}\n"));
    // codex: its own file and tool names
    ws.ok(&["install", "codex"]);
    let codex: Value = serde_json::from_str(
        &std::fs::read_to_string(ws.root().join(".codex/hooks.json")).unwrap(),
    )
    .unwrap();
    assert!(
        codex["hooks"]["PostToolUse"][0]["matcher"]
            .as_str()
            .unwrap()
            .contains("apply_patch")
    );
    assert_eq!(
        codex["hooks"]["SessionStart"][0]["hooks"][0]["command"],
        "trilogy hook codex session-start"
    );
}

#[test]
fn gemini_sequence_start_prompt_tool_turn_end_resume() {
    let ws = Ws::new();
    let bin = assert_cmd::cargo::cargo_bin("trilogy");
    ws.ok(&["install", "gemini", "--command", bin.to_str().unwrap()]);
    let settings: Value = serde_json::from_str(
        &std::fs::read_to_string(ws.root().join(".gemini/settings.json")).unwrap(),
    )
    .unwrap();
    let run = |event: &str, extra: Value| -> String {
        let mut p: Value = serde_json::from_str(&payload(&ws, "g-1", extra)).unwrap();
        p["hook_event_name"] = json!(event);
        p["timestamp"] = json!("2026-11-29T10:00:00Z");
        run_installed(&ws, &settings, event, "GEMINI_PROJECT_DIR", &p.to_string())
    };
    let start = context(
        &run("SessionStart", json!({"source": "startup"})),
        "SessionStart",
    );
    assert!(start.starts_with("===== 项目记忆"), "{start}");
    assert!(
        !start.contains("宿主单条上限"),
        "Gemini CLI keeps a hook's context whole: no host cap"
    );
    assert!(
        std::fs::read_to_string(ws.root().join("GEMINI.md"))
            .unwrap()
            .contains("memory/PROJECT.md")
    );
    assert!(
        !ws.root().join("AGENTS.md").exists(),
        "GEMINI.md is Gemini's pointer; no second one"
    );
    assert_eq!(run("BeforeAgent", json!({"prompt": "fix it"})), "");
    assert_eq!(
        run(
            "AfterTool",
            json!({"tool_name": "run_shell_command", "tool_input": {"command": "cargo build"},
                   "tool_response": {"llmContent": "ok"}})
        ),
        ""
    );
    assert_eq!(
        run(
            "AfterAgent",
            json!({"prompt": "fix it", "prompt_response": "done", "stop_hook_active": false})
        ),
        "",
        "AfterAgent answers nothing: it never forces a retry"
    );
    let nudge = context(
        &run("BeforeAgent", json!({"prompt": "next"})),
        "BeforeAgent",
    );
    assert!(nudge.contains("记忆提醒"), "{nudge}");
    // a checkpoint through the server, reported under Gemini's MCP tool name, resets the nudge
    assert_eq!(
        run(
            "AfterTool",
            json!({"tool_name": "mcp_trilogy_memory_checkpoint", "tool_input": {}})
        ),
        ""
    );
    run(
        "AfterAgent",
        json!({"prompt": "next", "prompt_response": "ok"}),
    );
    assert_eq!(run("BeforeAgent", json!({"prompt": "again"})), "");
    // a resumed Gemini session no longer holds its first block: it gets the whole block again
    let back = context(
        &run("SessionStart", json!({"source": "resume"})),
        "SessionStart",
    );
    assert!(back.starts_with("===== 项目记忆"), "{back}");
    assert_eq!(run("BeforeAgent", json!({"prompt": "more"})), "");
    assert_eq!(run("SessionEnd", json!({"reason": "exit"})), "");
    assert!(ws.json(&["sessions", "show", "g-1"])["ended_at"].is_string());
}

#[test]
fn a_claude_only_project_gets_no_second_pointer_in_agents_md() {
    let ws = Ws::new();
    ws.ok(&["install", "claude"]);
    let root = ws.root().display().to_string();
    let (out, _) = hook(
        &ws,
        "claude",
        "session-start",
        &payload(&ws, "c-1", json!({"source": "startup"})),
        &[("CLAUDE_PROJECT_DIR", &root)],
    );
    assert!(context(&out, "SessionStart").starts_with("===== 项目记忆"));
    assert!(ws.path("PROJECT.md").exists(), "memory was scaffolded");
    assert!(
        std::fs::read_to_string(ws.root().join("CLAUDE.md"))
            .unwrap()
            .contains("memory/PROJECT.md")
    );
    assert!(
        !ws.root().join("AGENTS.md").exists(),
        "CLAUDE.md already points at the memory"
    );
    // a project with no host pointer still gets AGENTS.md, and Codex's install keeps its own
    let plain = Ws::new();
    plain.ok(&["init"]);
    assert!(plain.root().join("AGENTS.md").exists());
    ws.ok(&["install", "codex"]);
    assert!(
        std::fs::read_to_string(ws.root().join("AGENTS.md"))
            .unwrap()
            .contains("memory/PROJECT.md")
    );
}
