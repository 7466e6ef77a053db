//! Every write knows its session: what a host session records through its MCP server (which
//! the host starts without naming the session) is tied to that session when the host's tool
//! hook reports the call — and nothing else is.

use super::*;

/// One `memory_checkpoint` over MCP from a server that names no session: the call's result.
fn mcp_checkpoint(ws: &Ws, done: &str) -> Value {
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "memory_checkpoint", "arguments": {"sessions": [{"done": done}]}}});
    let (frames, _) = ws.mcp_session(&[
        json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"claude-code","version":"2"}}}).to_string(),
        json!({"jsonrpc":"2.0","method":"notifications/initialized"}).to_string(),
        call.to_string(),
    ]);
    frames.into_iter().find(|f| f["id"] == 2).unwrap()["result"].clone()
}

/// The entry a checkpoint's result says it wrote.
fn written(result: &Value) -> String {
    result["structuredContent"]["ids"][0]
        .as_str()
        .unwrap()
        .to_string()
}

/// `host`'s tool hook reporting session `session`'s checkpoint call, answered with `response`.
fn reported(ws: &Ws, host: &str, session: &str, response: Value) {
    let call = json!({
        "tool_name": "mcp__trilogy__memory_checkpoint", "tool_use_id": "toolu_1",
        "tool_input": {}, "tool_response": response,
    });
    run(ws, host, "post-tool-use", session, call);
}

fn run(ws: &Ws, host: &str, event: &str, session: &str, extra: Value) {
    let (_, code) = hook(ws, host, event, &payload(ws, session, extra), &[]);
    assert_eq!(code, 0);
}

fn recorded(ws: &Ws, session: &str) -> Vec<Value> {
    let v = ws.json(&["sessions", "show", session]);
    v["recorded"].as_array().unwrap().clone()
}

fn provenance(ws: &Ws, id: &str) -> Value {
    let v = ws.json(&["read", "SESSIONS.md", "-n", "100"]);
    (v["entries"].as_array().unwrap().iter())
        .find(|e| e["id"] == id)
        .unwrap_or_else(|| panic!("no entry {id}: {v}"))["provenance"]
        .clone()
}

#[test]
fn a_checkpoint_through_mcp_names_the_session_its_tool_hook_reported() {
    let ws = Ws::init();
    run(
        &ws,
        "claude",
        "session-start",
        "s-1",
        json!({"source": "startup"}),
    );
    run(
        &ws,
        "claude",
        "user-prompt-submit",
        "s-1",
        json!({"prompt": "save it"}),
    );
    let result = mcp_checkpoint(&ws, "renamed the flag; cargo test passes");
    let id = written(&result);
    assert_eq!(
        provenance(&ws, &id)["agent_session"],
        Value::Null,
        "the server cannot name it"
    );
    // the host reports the call with the tool's answer, as Claude Code sends it
    let answer = result["content"].clone();
    reported(&ws, "claude", "s-1", answer);
    let p = provenance(&ws, &id);
    assert_eq!(p["agent_session"], "s-1", "{p}");
    assert_eq!(p["host"], "claude", "{p}");
    assert_eq!(p["via"], "mcp", "{p}");
    let r = recorded(&ws, "s-1");
    assert_eq!(r.len(), 1, "{r:?}");
    assert_eq!(r[0]["id"], id.as_str());
    assert!(
        !ws.read("SESSIONS.md").contains("s-1"),
        "provenance stays out of the files"
    );
    assert_eq!(
        std::fs::read_to_string(ws.root().join(".trilogy/hooks.log")).unwrap_or_default(),
        ""
    );
}

#[test]
fn a_hook_claims_only_mcp_writes_of_its_own_turn_never_a_persons_or_another_sessions() {
    let ws = Ws::init();
    // an MCP write before the session's turn, and one by a person through the CLI
    let before = mcp_checkpoint(&ws, "an earlier write, verified by hand");
    let before = written(&before);
    run(
        &ws,
        "codex",
        "session-start",
        "s-2",
        json!({"source": "startup"}),
    );
    run(
        &ws,
        "codex",
        "user-prompt-submit",
        "s-2",
        json!({"prompt": "go"}),
    );
    let by_cli: Value = ws.json(&["checkpoint", "--session-done", "a person's note, checked"]);
    let by_cli = by_cli["ids"][0].as_str().unwrap().to_string();
    let mine = mcp_checkpoint(&ws, "the session's write, tested");
    let mine = written(&mine);
    // a payload naming every one of them: only the session's own MCP write is tied
    reported(&ws, "codex", "s-2", json!({"ids": [before, by_cli, mine]}));
    assert_eq!(provenance(&ws, &mine)["agent_session"], "s-2");
    assert_eq!(provenance(&ws, &mine)["host"], "codex");
    assert_eq!(provenance(&ws, &before)["agent_session"], Value::Null);
    assert_eq!(provenance(&ws, &by_cli)["agent_session"], Value::Null);
    // another session's hook, later, cannot take it over
    run(
        &ws,
        "claude",
        "user-prompt-submit",
        "s-3",
        json!({"prompt": "x"}),
    );
    reported(&ws, "claude", "s-3", json!({"ids": [mine]}));
    assert_eq!(provenance(&ws, &mine)["agent_session"], "s-2");
    assert_eq!(recorded(&ws, "s-3"), Vec::<Value>::new());
}
