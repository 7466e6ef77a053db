//! One read request for both surfaces: what `trilogy read` and `memory_read` give where a
//! person and an agent are meant to differ (an unbounded read), and that they agree elsewhere.

use crate::common;

use common::Ws;
use serde_json::{Value, json};

/// A workspace holding `n` sessions of area `a`, one batch.
fn with_sessions(n: usize) -> Ws {
    let ws = Ws::init();
    let sessions: Vec<Value> = (0..n)
        .map(|i| json!({"done": format!("step {i} done; tested"), "area": "a"}))
        .collect();
    let batch = json!({ "sessions": sessions }).to_string();
    ws.ok_stdin(&["checkpoint"], &batch);
    ws
}

fn entries(v: &Value) -> usize {
    v["entries"].as_array().map_or(0, Vec::len)
}

#[test]
fn a_person_naming_nothing_gets_the_three_files_and_an_agent_the_newest_sessions() {
    let ws = with_sessions(20);
    let cli = ws.json(&["read"]);
    let files: Vec<&str> = (cli.as_array().unwrap().iter())
        .map(|f| f["file"].as_str().unwrap())
        .collect();
    assert_eq!(files, ["PROJECT.md", "DECISIONS.md", "SESSIONS.md"]);
    let mcp = ws.mcp_tool("s1", "memory_read", json!({}));
    let answer = &mcp["structuredContent"];
    assert_eq!(answer["kind"], "entries", "{mcp}");
    assert_eq!(answer["file"], "SESSIONS.md");
    assert_eq!(entries(answer), 15);
}

#[test]
fn an_entry_read_is_every_match_for_a_person_and_fifteen_for_an_agent() {
    let ws = with_sessions(20);
    assert_eq!(entries(&ws.json(&["read", "--area", "a"])), 20);
    let mcp = ws.mcp_tool("s1", "memory_read", json!({"area": "a"}));
    assert_eq!(entries(&mcp["structuredContent"]), 15);
    let mcp = ws.mcp_tool("s1", "memory_read", json!({"area": "a", "limit": 18}));
    assert_eq!(entries(&mcp["structuredContent"]), 18);
    assert_eq!(entries(&ws.json(&["read", "--area", "a", "-n", "18"])), 18);
}

#[test]
fn a_section_of_another_file_than_project_is_refused_on_both_surfaces() {
    let ws = Ws::init();
    let out = ws.run(&["read", "DECISIONS.md", "--section", "State"]);
    assert!(!out.status.success());
    let err = common::text(&out.stderr);
    assert!(err.contains("not of DECISIONS.md"), "{err}");
    let mcp = ws.mcp_tool(
        "s1",
        "memory_read",
        json!({"file": "DECISIONS.md", "section": "State"}),
    );
    assert_eq!(mcp["isError"], true, "{mcp}");
    assert!(mcp.to_string().contains("not of DECISIONS.md"), "{mcp}");
}
