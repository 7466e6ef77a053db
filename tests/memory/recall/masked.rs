//! Recall over MCP and the secrets it masks, a pasted private key line by line.

use super::*;

#[test]
fn memory_recall_answers_over_mcp_and_masks_secrets() {
    let ws = Ws::init();
    let cwd = root(&ws);
    let token = "ghp_aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6";
    let line = json!({"type":"user","cwd":cwd,"sessionId":"m1","message":{"content":format!("deploy with token {token} to staging")}});
    write(
        &claude_file(&ws).with_file_name("m1.jsonl"),
        format!("{line}\n").as_bytes(),
    );
    let r = ws.mcp_tool("s1", "memory_recall", json!({"query":"deploy staging"}));
    assert_ne!(r["isError"], true, "{r}");
    let hit = &r["structuredContent"]["hits"][0];
    assert_eq!(
        (
            hit["host"].as_str(),
            hit["session"].as_str(),
            hit["line"].as_u64()
        ),
        (Some("claude"), Some("m1"), Some(1))
    );
    let shown = r.to_string();
    assert!(
        !shown.contains(token) && shown.contains("ghp_"),
        "masked: {shown}"
    );
    let bad = ws.mcp_tool("s1", "memory_recall", json!({"query":"x","host":"vim"}));
    assert_eq!(bad["isError"], true, "{bad}");
}

#[test]
fn every_line_of_a_pasted_private_key_is_masked_in_recall() {
    let ws = Ws::init();
    let cwd = root(&ws);
    let body: Vec<String> = (0..6)
        .map(|i| {
            format!("b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ{i}AAAAAAAABAAAAMwAAAAtzc2gtZW")
        })
        .collect();
    let key = format!(
        "-----BEGIN OPENSSH PRIVATE KEY-----\n{}\n-----END OPENSSH PRIVATE KEY-----",
        body.join("\n")
    );
    // a key pasted whole, then the rest of one whose BEGIN line went in an earlier message
    let lines = [
        json!({"type":"user","cwd":cwd,"sessionId":"k1","message":{"content":format!("the deploy key for walrus staging is\n{key}\nuse it once")}}),
        json!({"type":"user","cwd":cwd,"sessionId":"k1","message":{"content":format!("and the walrus backup key ends with\n{}\n-----END OPENSSH PRIVATE KEY-----", body[2..].join("\n"))}}),
        json!({"type":"user","cwd":cwd,"sessionId":"k1","message":{"content":"walrus rotation is due"}}),
    ];
    let transcript: String = lines.iter().map(|l| format!("{l}\n")).collect();
    write(
        &claude_file(&ws).with_file_name("k1.jsonl"),
        transcript.as_bytes(),
    );
    let leaked = |shown: &str| {
        body.iter().any(|l| shown.contains(l.as_str())) || shown.contains("-----END OPENSSH")
    };
    let hits = recall(&ws, &["walrus", "--limit", "10"]);
    assert_eq!(hits.len(), 3, "{hits:?}");
    let json = Value::Array(hits).to_string();
    assert!(!leaked(&json), "--json: {json}");
    assert!(
        json.contains("use it once") && json.contains("rotation is due"),
        "{json}"
    );
    let human = ws.ok(&["recall", "walrus", "--limit", "10"]);
    assert!(!leaked(&human), "{human}");
    assert!(
        human.contains("the deploy key for walrus staging is"),
        "{human}"
    );
    let r = ws.mcp_tool("s1", "memory_recall", json!({"query":"walrus","limit":10}));
    assert_ne!(r["isError"], true, "{r}");
    assert!(!leaked(&r.to_string()), "memory_recall: {r}");
}
