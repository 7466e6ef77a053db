//! A real MCP client (rmcp) against `trilogy mcp`: every tool listed with its schema and
//! called, writes through the tools read back by the CLI and the other way round, and the
//! server's open index finding what other writers wrote.

use super::*;

/// A connected MCP client of `trilogy mcp`.
type Client = rmcp::service::RunningService<rmcp::RoleClient, ()>;

#[tokio::test(flavor = "current_thread")]
async fn a_real_client_lists_and_calls_every_tool() {
    let ws = Ws::init();
    let client = ().serve(TokioChildProcess::new(server_cmd(&ws)).unwrap()).await.unwrap();
    let info = client.peer_info().unwrap();
    assert_eq!(info.server_info.as_ref().unwrap().name, "trilogy");

    let tools = client.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(
        names,
        [
            "memory_checkpoint",
            "memory_read",
            "memory_search",
            "memory_status",
            "memory_recall",
            "memory_review"
        ]
    );
    for (name, schema) in [
        ("memory_checkpoint", trilogy::schema::CHECKPOINT_INPUT),
        ("memory_read", trilogy::schema::READ_INPUT),
        ("memory_search", trilogy::schema::SEARCH_INPUT),
        ("memory_status", trilogy::schema::STATUS_INPUT),
        ("memory_recall", trilogy::schema::RECALL_INPUT),
        ("memory_review", trilogy::schema::REVIEW_INPUT),
    ] {
        let t = tools.iter().find(|t| t.name == name).unwrap();
        let mut expected: Value = serde_json::from_str(schema).unwrap();
        // served without `$id`: Gemini CLI compiles every tool into one validator and refuses
        // an `$id` it sees twice
        expected.as_object_mut().unwrap().remove("$id");
        assert_eq!(
            Value::Object((*t.input_schema).clone()),
            expected,
            "{name} schema is the one in schema/, less its $id"
        );
        assert_eq!(expected["type"], "object");
    }
    assert!(
        tools[0]
            .description
            .as_deref()
            .unwrap()
            .contains("waste time")
    );

    tool_writes_are_read_back_by_the_cli(&client, &ws).await;
    cli_writes_are_read_back_by_the_tools(&client, &ws).await;
    the_open_index_finds_other_writers_text(&client, &ws).await;

    client.cancel().await.unwrap();
}

/// Writes through the tools, read back through the CLI.
async fn tool_writes_are_read_back_by_the_cli(client: &Client, ws: &Ws) {
    // write through the tool, read back through the CLI
    let r = client
        .call_tool(call(
            "memory_checkpoint",
            json!({
                "sessions": [{"done": "接入了 MCP 服务器，集成测试通过", "area": "mcp"}],
                "decisions": [{"choice": "serve MCP with rmcp", "over": "a hand-rolled loop", "because": "dual-era protocol support"}],
                "project": [{"section": "现状", "text": "MCP tools work"}],
                "notes": "README lacks the MCP setup"
            }),
        ))
        .await
        .unwrap();
    assert_ne!(r.is_error, Some(true), "{}", result_text(&r));
    let structured = r.structured_content.clone().unwrap();
    assert_eq!(
        structured["written"].as_array().unwrap().len(),
        3,
        "{structured}"
    );
    assert!(structured["area_line"].as_str().unwrap().contains("mcp(1)"));
    assert!(ws.read("SESSIONS.md").contains("接入了 MCP 服务器"));
    assert!(
        ws.ok(&["read", "--section", "State"])
            .contains("MCP tools work")
    );
    assert_eq!(
        ws.json(&["status"])["open_reports"][0]["text"],
        "README lacks the MCP setup"
    );
    let log = ws.json(&["log", "-n", "5"]);
    assert!(
        log["events"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["actor"] == "mcp")
    );
}

/// Writes through the CLI, read back through the tools.
async fn cli_writes_are_read_back_by_the_tools(client: &Client, ws: &Ws) {
    // write through the CLI, read back through the tools
    ws.ok(&[
        "checkpoint",
        "--session-done",
        "written by a person on the CLI; tested",
        "--area",
        "cli",
    ]);
    let r = client
        .call_tool(call("memory_read", json!({"file": "SESSIONS.md"})))
        .await
        .unwrap();
    assert!(result_text(&r).contains("written by a person on the CLI"));
    let r = client
        .call_tool(call("memory_read", json!({"section": "现状"})))
        .await
        .unwrap();
    assert_eq!(r.structured_content.unwrap()["text"], "MCP tools work");
    let r = client
        .call_tool(call("memory_read", json!({"area": "cli", "limit": 5})))
        .await
        .unwrap();
    assert_eq!(
        r.structured_content.unwrap()["entries"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    let r = client
        .call_tool(call("memory_search", json!({"query": "MCP 服务器"})))
        .await
        .unwrap();
    let hits = r.structured_content.unwrap()["hits"].clone();
    assert!(
        hits[0]["snippet"]
            .as_str()
            .unwrap()
            .contains("接入了 MCP 服务器"),
        "{hits}"
    );
}

/// The server keeps its index open: a write by another process, then by a person, is found
/// by the next search, the old text no longer; the status counts both.
async fn the_open_index_finds_other_writers_text(client: &Client, ws: &Ws) {
    // the server keeps its index open: a write by another process, then by a person, is
    // found by the next search all the same, and the old text no longer is
    ws.ok(&[
        "checkpoint",
        "--decision",
        "采用 zstd 压缩归档 for the archive",
    ]);
    let search = |q: &'static str| {
        let client = &client;
        async move {
            let r = client
                .call_tool(call("memory_search", json!({"query": q})))
                .await
                .unwrap();
            r.structured_content.unwrap()["hits"].clone()
        }
    };
    let hits = search("zstd 压缩").await;
    assert!(
        hits[0]["heading"].as_str().unwrap().contains("zstd"),
        "{hits}"
    );
    let d = ws.read("DECISIONS.md");
    ws.write("DECISIONS.md", &d.replace("zstd 压缩归档", "lz4 压缩归档"));
    let hits = search("lz4").await;
    assert!(
        hits[0]["heading"].as_str().unwrap().contains("lz4"),
        "{hits}"
    );
    assert_eq!(search("zstd").await.as_array().unwrap().len(), 0);
    let r = client
        .call_tool(call("memory_status", json!({})))
        .await
        .unwrap();
    let st = r.structured_content.unwrap();
    assert_eq!(st["sessions_live"], 2);
    assert_eq!(st["decisions"], 2);
}
