//! `memory_review`: a proposal put to the person through the client's own prompt (MCP
//! elicitation), over a real `trilogy mcp` process. The person's answer is what is done —
//! accepted with the client named, rejected with the reason kept, or left — and a client that
//! cannot ask, or a session with no person (CI, a headless Claude Code), is never asked.

use super::*;

use common::mcp_peer::McpPeer;

/// A decision proposed where decisions wait for a person: its id.
fn proposed(ws: &Ws) -> String {
    ws.ok(&[
        "--set",
        "review_mode.decisions=propose",
        "checkpoint",
        "--decision",
        "keep thumbnails on disk",
        "--because",
        "memory is short",
    ]);
    let listed = ws.json(&["review", "list"]);
    listed["proposals"][0]["id"].as_str().unwrap().to_string()
}

/// What one `memory_review` call did: the elicitation requests the server sent (each answered
/// with `answer`, when given) and the call's result.
struct Review {
    asked: Vec<Value>,
    result: Value,
}

fn review(
    ws: &Ws,
    capabilities: Value,
    env: &[(&str, &str)],
    args: Value,
    answer: Option<Value>,
) -> Review {
    let mut cmd = ws.std_cmd();
    cmd.arg("mcp")
        .env_remove("CI")
        .env_remove("CLAUDE_CODE_ENTRYPOINT")
        .envs(env.iter().copied());
    let mut server = McpPeer::spawn(cmd);
    server.send(
        json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":capabilities,"clientInfo":{"name":"test-client","version":"7"}}}),
    );
    server.send(json!({"jsonrpc":"2.0","method":"notifications/initialized"}));
    server.send(
        json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"memory_review","arguments":args}}),
    );
    let mut asked = Vec::new();
    loop {
        let v = server.next();
        if v["method"] == "elicitation/create" {
            asked.push(v["params"].clone());
            if let Some(a) = &answer {
                server.send(json!({"jsonrpc":"2.0","id":v["id"],"result":a}));
            }
            continue;
        }
        if v["id"] == 2 {
            server.finish();
            return Review {
                asked,
                result: v["result"].clone(),
            };
        }
    }
}

fn elicits() -> Value {
    json!({"elicitation": {"form": {}}})
}

fn state(ws: &Ws, id: &str) -> Value {
    let all = ws.json(&["review", "list", "--all"]);
    (all["proposals"].as_array().unwrap().iter())
        .find(|p| p["id"] == id)
        .unwrap()
        .clone()
}

#[test]
fn the_person_accepts_a_proposal_in_the_clients_prompt_and_the_client_is_named() {
    let ws = Ws::init();
    let id = proposed(&ws);
    // without an id: what waits
    let listed = review(&ws, elicits(), &[], json!({}), None);
    assert!(listed.asked.is_empty());
    let pending = &listed.result["structuredContent"]["pending"];
    assert_eq!(pending[0]["id"], id.as_str(), "{pending}");
    assert_eq!(pending[0]["kind"], "decision");
    let accept = json!({"action": "accept", "content": {"decision": "accept"}});
    let r = review(&ws, elicits(), &[], json!({"id": id}), Some(accept));
    assert_eq!(r.asked.len(), 1);
    let message = r.asked[0]["message"].as_str().unwrap();
    assert!(message.contains("keep thumbnails on disk"), "{message}");
    assert!(
        message.contains(&id) && message.contains("DECISIONS.md"),
        "{message}"
    );
    let schema = &r.asked[0]["requestedSchema"];
    assert_eq!(schema["required"], json!(["decision"]), "{schema}");
    let out = &r.result["structuredContent"];
    assert_eq!(out["decision"], "accepted", "{out}");
    assert_eq!(out["by"], "elicit:test-client");
    let p = state(&ws, &id);
    assert_eq!(p["state"], "accepted");
    assert_eq!(p["decided_by"], "elicit:test-client");
    assert!(ws.read("DECISIONS.md").contains("keep thumbnails on disk"));
}

#[test]
fn a_rejection_keeps_the_reason_and_a_declined_or_empty_answer_decides_nothing() {
    let ws = Ws::init();
    let id = proposed(&ws);
    for answer in [
        json!({"action": "decline"}),
        json!({"action": "cancel"}),
        json!({"action": "accept"}),
        json!({"action": "accept", "content": {"decision": "leave"}}),
    ] {
        let r = review(&ws, elicits(), &[], json!({"id": id}), Some(answer.clone()));
        assert_eq!(r.asked.len(), 1);
        assert_eq!(
            r.result["structuredContent"]["decision"], "left",
            "{answer}"
        );
        assert_eq!(state(&ws, &id)["state"], "pending", "{answer}");
    }
    let reject =
        json!({"action": "accept", "content": {"decision": "reject", "why": "RAM is fine now"}});
    let r = review(&ws, elicits(), &[], json!({"id": id}), Some(reject));
    assert_eq!(r.result["structuredContent"]["decision"], "rejected");
    let p = state(&ws, &id);
    assert_eq!(p["state"], "rejected");
    assert_eq!(p["why"], "RAM is fine now");
    assert!(!ws.read("DECISIONS.md").contains("keep thumbnails on disk"));
}

#[test]
fn no_person_is_asked_through_a_client_that_cannot_ask_or_where_none_can_answer() {
    let ws = Ws::init();
    let id = proposed(&ws);
    let accept = json!({"action": "accept", "content": {"decision": "accept"}});
    for (caps, env) in [
        (json!({}), &[][..]),
        (elicits(), &[("CI", "true")][..]),
        (elicits(), &[("CLAUDE_CODE_ENTRYPOINT", "sdk-cli")][..]),
    ] {
        let r = review(
            &ws,
            caps.clone(),
            env,
            json!({"id": id}),
            Some(accept.clone()),
        );
        assert!(r.asked.is_empty(), "{caps} {env:?}: asked");
        let out = &r.result["structuredContent"];
        assert_eq!(out["asked"], false, "{out}");
        let text = r.result["content"][0]["text"].as_str().unwrap();
        assert!(text.contains("trilogy review"), "{text}");
    }
    // no argument stands in for the person's answer
    let forged = review(
        &ws,
        json!({}),
        &[],
        json!({"id": id, "decision": "accept"}),
        None,
    );
    assert_eq!(forged.result["isError"], true, "{}", forged.result);
    assert_eq!(state(&ws, &id)["state"], "pending");
}
