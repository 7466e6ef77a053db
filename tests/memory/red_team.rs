//! Only a person makes a proposal live. An agent holds every lever an MCP client or a hook
//! payload gives — each tool with hostile arguments (`memory_review` with an answer of its
//! own, or asking a client that never answers), the prompts and resources, every hook event
//! with fields that name the proposal, a draft's settings in the payload — and the proposal (a
//! decision, and a drafted session) stays pending, the files as they were.

use crate::common;

use common::Ws;
use serde_json::{Value, json};

fn pending(ws: &Ws) -> Vec<String> {
    (ws.json(&["review", "list"])["proposals"]
        .as_array()
        .unwrap()
        .iter())
    .map(|p| p["id"].as_str().unwrap().to_string())
    .collect()
}

/// Every tool, prompt and resource read in one MCP session of agent session `s-agent`.
fn every_mcp_lever(ws: &Ws, id: &str) -> Vec<Value> {
    let mut lines = vec![
        json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"elicitation":{}},"clientInfo":{"name":"claude-code","version":"2"}}}),
        json!({"jsonrpc":"2.0","method":"notifications/initialized"}),
    ];
    let calls = [
        ("memory_checkpoint", json!({"accept": id})),
        (
            "memory_checkpoint",
            json!({"proposals": [{"id": id, "state": "accepted"}]}),
        ),
        (
            "memory_checkpoint",
            json!({"notes": format!("accept proposal {id}")}),
        ),
        (
            "memory_checkpoint",
            json!({"sessions": [{"done": format!("trilogy review accept {id}; tested")}]}),
        ),
        ("memory_read", json!({"file": "DECISIONS.md", "cursor": id})),
        ("memory_search", json!({"query": id})),
        ("memory_status", json!({"accept": id})),
        ("memory_recall", json!({"query": id})),
        ("memory_review", json!({"id": id})),
        ("memory_review", json!({"id": id, "decision": "accept"})),
        (
            "memory_review",
            json!({"id": id, "answer": {"action": "accept"}}),
        ),
        ("memory_accept", json!({"id": id})),
        ("review_accept", json!({"id": id})),
    ];
    for (i, (tool, args)) in calls.iter().enumerate() {
        lines.push(json!({"jsonrpc":"2.0","id": 10 + i,"method":"tools/call","params":{"name": tool,"arguments": args}}));
    }
    for (i, (method, params)) in [
        (
            "prompts/get",
            json!({"name": "review-proposals", "arguments": {"accept": id}}),
        ),
        ("prompts/get", json!({"name": "record-session"})),
        (
            "resources/read",
            json!({"uri": format!("trilogy://proposals/{id}")}),
        ),
        (
            "resources/subscribe",
            json!({"uri": "trilogy://memory/DECISIONS.md"}),
        ),
        ("review/accept", json!({"id": id})),
        (
            "elicitation/create",
            json!({"message": "accept?", "requestedSchema": {}}),
        ),
    ]
    .into_iter()
    .enumerate()
    {
        lines.push(json!({"jsonrpc":"2.0","id": 100 + i,"method": method,"params": params}));
    }
    let lines: Vec<String> = lines.iter().map(Value::to_string).collect();
    ws.mcp_session(&lines).0
}

/// Every hook event of every host with hooks, its payload naming the proposal.
fn every_hook_lever(ws: &Ws, id: &str) {
    let root = ws.root().display().to_string();
    let payload = json!({
        "session_id": "s-agent", "conversation_id": "s-agent", "cwd": root,
        "workspace_roots": [root], "hook_event_name": "PostToolUse", "source": "startup",
        "prompt": format!("trilogy review accept {id}"),
        "tool_name": "mcp__trilogy__memory_checkpoint",
        "tool_input": {"accept": id, "command": format!("trilogy review accept {id}")},
        "tool_response": {"ids": [id], "accepted": [id], "proposed": [id]},
        "accept": id, "auto_draft": "record", "review_mode": {"decisions": "direct"},
        "transcript_path": "/nonexistent",
    })
    .to_string();
    for (host, events) in [
        (
            "claude",
            &[
                "session-start",
                "user-prompt-submit",
                "post-tool-use",
                "stop",
                "session-end",
                "pre-compact",
            ][..],
        ),
        (
            "codex",
            &[
                "session-start",
                "post-tool-use",
                "stop",
                "session-end",
                "pre-compact",
            ][..],
        ),
        (
            "gemini",
            &["session-start", "post-tool-use", "stop", "session-end"][..],
        ),
        (
            "cursor",
            &["sessionStart", "postToolUse", "stop", "sessionEnd"][..],
        ),
        ("dsh", &["pre-step", "turn-stopping", "session-end"][..]),
    ] {
        for event in events {
            let out = ws.run_stdin(&["hook", host, event], &payload);
            assert_eq!(out.status.code(), Some(0), "{host} {event}");
        }
    }
}

#[test]
fn no_tool_call_argument_prompt_resource_or_hook_payload_makes_a_proposal_live() {
    let ws = Ws::init();
    // a decision proposed (the workspace gates decisions) and a drafted session
    let gated = ["--set", "review_mode.decisions=propose"];
    let mut args = gated.to_vec();
    args.extend([
        "checkpoint",
        "--decision",
        "cache thumbnails on disk",
        "--because",
        "slow",
    ]);
    ws.ok(&args);
    let r = ws.root().canonicalize().unwrap().display().to_string();
    let transcript = ws.root().join("t.jsonl");
    let lines = [
        json!({"type": "user", "message": {"role": "user", "content": "fix the cache"}}),
        json!({"type": "assistant", "message": {"content": [
            {"type": "tool_use", "id": "t1", "name": "Edit", "input": {"file_path": format!("{r}/src/cache.rs")}}]}}),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&transcript, text).unwrap();
    let end = json!({"session_id": "s-draft", "cwd": r, "transcript_path": transcript}).to_string();
    ws.ok_stdin(&["hook", "claude", "session-end"], &end);
    let waiting = pending(&ws);
    assert_eq!(waiting.len(), 2, "{waiting:?}");
    let before = ws.snapshot();
    for id in &waiting {
        let frames = every_mcp_lever(&ws, id);
        assert!(frames.len() > 10, "the server answered: {frames:?}");
        every_hook_lever(&ws, id);
    }
    assert_eq!(pending(&ws), waiting, "both still wait for a person");
    let decisions = ws.read("DECISIONS.md");
    assert!(
        !decisions.contains("cache thumbnails on disk"),
        "{decisions}"
    );
    let sessions = ws.read("SESSIONS.md");
    assert!(!sessions.contains("src/cache.rs"), "{sessions}");
    // what the levers did write is the agent's own: sessions and notes, never the proposals
    let after = ws.snapshot();
    assert_eq!(
        after.iter().find(|(p, _)| p.ends_with("DECISIONS.md")),
        before.iter().find(|(p, _)| p.ends_with("DECISIONS.md")),
    );
    // a person can
    ws.ok(&["review", "accept", &waiting[0]]);
    assert_eq!(pending(&ws).len(), 1);
}
