//! The MCP server driven by a real client (rmcp over stdio), by a raw newline-delimited
//! transcript as hosts send it, and by several writers at once.

use crate::common;

use std::io::{BufRead, BufReader, Write};
use std::process::Stdio;

use common::Ws;
use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::transport::TokioChildProcess;
use serde_json::{Map, Value, json};

mod elicit;
mod paging;
mod real_client;
mod resources;

fn server_cmd(ws: &Ws) -> tokio::process::Command {
    let mut c = tokio::process::Command::new(assert_cmd::cargo::cargo_bin("trilogy"));
    c.arg("--root")
        .arg(ws.root())
        .arg("mcp")
        .env("TRILOGY_TODAY", common::TODAY)
        .env("TRILOGY_CONFIG", ws.root().join("none.toml"))
        .envs(common::private_env(ws.state.path()))
        .stderr(Stdio::null());
    c
}

fn obj(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => panic!("arguments must be an object"),
    }
}

fn call(name: &str, args: Value) -> CallToolRequestParams {
    CallToolRequestParams::new(name.to_string()).with_arguments(obj(args))
}

fn result_text(r: &CallToolResult) -> String {
    serde_json::to_value(&r.content).unwrap().to_string()
}

#[tokio::test(flavor = "current_thread")]
async fn bad_calls_are_tool_errors_with_precise_messages_and_write_nothing() {
    let ws = Ws::init();
    let before = ws.snapshot();
    let client = ().serve(TokioChildProcess::new(server_cmd(&ws)).unwrap()).await.unwrap();
    let cases = [
        (
            "memory_checkpoint",
            json!({"sessions": [{"done": 5}]}),
            "invalid type",
        ),
        (
            "memory_checkpoint",
            json!({"sessions": [{"done": "x", "colour": "red"}]}),
            "colour",
        ),
        (
            "memory_checkpoint",
            json!({"project": [{"section": "Status", "text": "x"}]}),
            "这是什么 / What this is",
        ),
        (
            "memory_checkpoint",
            json!({"sessions": [{"done": "x".repeat(20_000)}]}),
            "16384",
        ),
        (
            "memory_checkpoint",
            json!({"decisions": [{"choice": "use key AKIAZ3MXQ7RTL5VW2KHD"}]}),
            "AWS access key",
        ),
        (
            "memory_checkpoint",
            json!({"sessions": [{"done": "ran it\u{0} tested"}]}),
            "sessions[0].done: holds a NUL character (U+0000) at column 7",
        ),
        (
            "memory_read",
            json!({"file": "secrets.txt"}),
            "PROJECT.md, DECISIONS.md",
        ),
        ("memory_read", json!({"section": "Nope"}), "sections are"),
        ("memory_read", json!({"since": "yesterday"}), "YYYY-MM-DD"),
        ("memory_search", json!({"query": ""}), "empty"),
        (
            "memory_search",
            json!({"query": "x", "archive": "maybe"}),
            "include, exclude or only",
        ),
        ("memory_status", json!({"extra": 1}), "extra"),
    ];
    for (tool, args, needle) in cases {
        let r = client.call_tool(call(tool, args.clone())).await.unwrap();
        assert_eq!(r.is_error, Some(true), "{tool} {args}");
        let t = result_text(&r);
        assert!(t.contains(needle), "{tool} {args}: {t}");
    }
    let unknown = client.call_tool(call("memory_delete", json!({}))).await;
    assert!(unknown.is_err(), "an unknown tool is a protocol error");
    client.cancel().await.unwrap();
    assert_eq!(ws.snapshot(), before, "nothing was written");
}

#[tokio::test(flavor = "current_thread")]
async fn a_memory_file_that_does_not_parse_tells_the_agent_to_retry_and_not_to_edit_it() {
    let ws = Ws::init();
    let mut bytes = ws.read("SESSIONS.md").into_bytes();
    bytes.extend_from_slice(b"\n## 2026-11-29\n\xff broken\n");
    std::fs::write(ws.path("SESSIONS.md"), &bytes).unwrap();
    let client = ().serve(TokioChildProcess::new(server_cmd(&ws)).unwrap()).await.unwrap();
    let r = client
        .call_tool(call(
            "memory_checkpoint",
            json!({"sessions": [{"done": "x; tested"}]}),
        ))
        .await
        .unwrap();
    assert_eq!(r.is_error, Some(true));
    let t = result_text(&r);
    assert!(t.contains("SESSIONS.md"), "{t}");
    assert!(t.contains("retry this call in a few seconds"), "{t}");
    assert!(
        t.contains("Do not edit or repair the memory file yourself"),
        "{t}"
    );
    client.cancel().await.unwrap();
    assert_eq!(std::fs::read(ws.path("SESSIONS.md")).unwrap(), bytes);
}

#[tokio::test(flavor = "current_thread")]
async fn memory_search_answers_with_whole_entries_and_marks_weak_hits() {
    let ws = Ws::init();
    let batch = json!({"sessions": [{
        "done": "wired the loader to the new parser; cargo test passes",
        "open": "Windows paths with backslashes still fail",
        "next": "normalise separators in the loader",
        "area": "parser"
    }, {
        "done": "修复了重启后丢条目的问题，测试通过"
    }]});
    ws.ok_stdin(&["checkpoint"], &batch.to_string());
    let client = ().serve(TokioChildProcess::new(server_cmd(&ws)).unwrap()).await.unwrap();
    let search = |q: &'static str| {
        let client = &client;
        async move {
            let r = client
                .call_tool(call("memory_search", json!({"query": q})))
                .await
                .unwrap();
            assert_ne!(r.is_error, Some(true), "{}", result_text(&r));
            let text = r.content[0].as_text().unwrap().text.clone();
            (r.structured_content.unwrap()["hits"].clone(), text)
        }
    };
    let whole = [
        "完成：wired the loader to the new parser; cargo test passes",
        "未完成：Windows paths with backslashes still fail",
        "下一步：normalise separators in the loader",
    ];
    let (hits, text) = search("backslashes").await;
    assert_eq!(hits.as_array().unwrap().len(), 1, "{hits}");
    assert_eq!(hits[0]["snippet"], whole[1]);
    assert_eq!(hits[0]["weak"], false);
    for line in whole {
        assert!(
            hits[0]["text"].as_str().unwrap().contains(line),
            "{line}: {hits}"
        );
        assert!(text.contains(line), "the text result holds {line}: {text}");
    }
    assert!(!text.contains("weak"), "{text}");

    let (hits, _) = search("boot block 重复").await;
    assert_eq!(hits.as_array().unwrap().len(), 0, "{hits}");
    let (hits, text) = search("重").await;
    assert_eq!(hits.as_array().unwrap().len(), 1, "{hits}");
    assert_eq!(hits[0]["weak"], true);
    assert!(
        text.contains("weak") && text.contains("重启后丢条目"),
        "{text}"
    );
    client.cancel().await.unwrap();
}

#[test]
fn raw_transcript_every_stdout_byte_is_a_frame() {
    let ws = Ws::init();
    let lines = [
        json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"host","version":"1"}}}).to_string(),
        json!({"jsonrpc":"2.0","method":"notifications/initialized"}).to_string(),
        json!({"jsonrpc":"2.0","id":2,"method":"tools/list"}).to_string(),
        json!({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"memory_status","arguments":{}}}).to_string(),
        json!({"jsonrpc":"2.0","id":4,"method":"no/such/method"}).to_string(),
        "{this is not json".to_string(),
        json!({"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"memory_read","arguments":{"file":"PROJECT.md"}}}).to_string(),
    ];
    let (frames, stdout) = ws.mcp_session(&lines);
    assert!(frames.iter().all(|f| f["jsonrpc"] == "2.0"));
    let by_id = |id: i64| {
        frames
            .iter()
            .find(|f| f["id"] == id)
            .unwrap_or_else(|| panic!("no reply to {id}: {stdout}"))
    };
    assert_eq!(
        by_id(1)["result"]["protocolVersion"],
        "2025-06-18",
        "the requested version is echoed"
    );
    assert_eq!(by_id(1)["result"]["serverInfo"]["name"], "trilogy");
    assert_eq!(by_id(2)["result"]["tools"].as_array().unwrap().len(), 6);
    assert_eq!(by_id(3)["result"]["isError"], false);
    assert_eq!(by_id(4)["error"]["code"], -32601);
    let parse_error = frames
        .iter()
        .find(|f| f["error"]["code"] == -32700)
        .unwrap_or_else(|| panic!("no parse error reply: {stdout}"));
    assert!(
        parse_error["error"]["message"]
            .as_str()
            .unwrap()
            .contains("not a JSON-RPC message")
    );
    assert!(
        by_id(5)["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("# PROJECT"),
        "the server survived the bad line"
    );
    assert!(stdout.ends_with('\n'));
}

/// A 64 MB line, a batch, a document nested 200,000 deep and `arguments` that are not an
/// object: each gets a JSON-RPC error under its id (`null` where none can be read), and the
/// requests after them are served.
#[test]
fn oversized_deep_batched_and_misshapen_requests_get_errors_and_the_server_goes_on() {
    let ws = Ws::init();
    let huge = format!(
        r#"{{"jsonrpc":"2.0","id":77,"method":"tools/call","params":{{"name":"memory_search","arguments":{{"query":"{}"}}}}}}"#,
        "a".repeat(64 << 20)
    );
    let deep = format!(
        r#"{{"jsonrpc":"2.0","id":"deep","method":"ping","params":{{"x":{}1{}}}}}"#,
        "[".repeat(200_000),
        "]".repeat(200_000)
    );
    let lines = [
        json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"host","version":"1"}}}).to_string(),
        json!({"jsonrpc":"2.0","method":"notifications/initialized"}).to_string(),
        huge,
        json!([{"jsonrpc":"2.0","id":2,"method":"tools/list"}]).to_string(),
        deep,
        json!({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"memory_status","arguments":"all"}}).to_string(),
        json!({"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"memory_status","arguments":{}}}).to_string(),
    ];
    let (frames, stdout) = ws.mcp_session(&lines);
    let by_id = |id: Value| {
        frames
            .iter()
            .find(|f| f["id"] == id)
            .unwrap_or_else(|| panic!("no reply to {id}: {stdout}"))
    };
    assert_eq!(by_id(json!(77))["error"]["code"], -32600, "{stdout}");
    assert!(
        (by_id(json!(77))["error"]["message"].as_str().unwrap()).contains("longer than 16 MiB")
    );
    assert_eq!(by_id(json!("deep"))["error"]["code"], -32600);
    assert_eq!(by_id(json!(3))["error"]["code"], -32602);
    let batch = by_id(Value::Null);
    assert!(
        batch["error"]["message"]
            .as_str()
            .unwrap()
            .contains("batches"),
        "{batch}"
    );
    assert_eq!(
        by_id(json!(4))["result"]["isError"],
        false,
        "served after them"
    );
    assert_eq!(frames.len(), 6, "one reply each: {stdout}");
}

#[test]
fn lone_surrogate_request_is_answered_invalid_params_under_its_id() {
    let ws = Ws::init();
    let before = ws.snapshot();
    // serde_json cannot write a lone surrogate: put the escape in by hand
    let lone = |v: Value| v.to_string().replace("LONE", "\\ud800");
    let lines = [
        json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"host","version":"1"}}}).to_string(),
        json!({"jsonrpc":"2.0","method":"notifications/initialized"}).to_string(),
        lone(json!({"jsonrpc":"2.0","id":"w-7","method":"tools/call","params":{"name":"memory_checkpoint","arguments":{"sessions":[{"done":"half an emoji LONE; tested"}]}}})),
        lone(json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"LONE"}})),
        lone(json!({"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"memory_search","arguments":{"query":"LONE"}}})),
        json!({"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"memory_status","arguments":{}}}).to_string(),
    ];
    assert!(lines[2].contains(r"\ud800") && !lines[2].contains(r"\\ud800"));
    let (frames, stdout) = ws.mcp_session(&lines);
    let by_id = |id: Value| {
        frames
            .iter()
            .find(|f| f["id"] == id)
            .unwrap_or_else(|| panic!("no reply to {id}: {stdout}"))
    };
    for id in [json!("w-7"), json!(8)] {
        let e = &by_id(id.clone())["error"];
        assert_eq!(e["code"], -32602, "{id}: {stdout}");
        assert!(e["message"].as_str().unwrap().contains("surrogate"), "{e}");
    }
    assert_eq!(
        by_id(json!(9))["result"]["isError"],
        false,
        "the server kept serving"
    );
    assert_eq!(
        frames.len(),
        4,
        "one reply per request, none for the notification: {stdout}"
    );
    assert_eq!(ws.snapshot(), before, "nothing was written");
}

#[test]
fn two_servers_and_a_cli_writer_all_land() {
    let ws = Ws::init();
    let spawn = |tag: &'static str| {
        let ws_root = ws.root().to_path_buf();
        let data_home = ws.data_home();
        std::thread::spawn(move || {
            let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("trilogy"))
                .arg("--root")
                .arg(&ws_root)
                .arg("mcp")
                .env("TRILOGY_CONFIG", ws_root.join("none.toml"))
                .env("XDG_DATA_HOME", &data_home)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::null())
                .spawn()
                .unwrap();
            let mut stdin = child.stdin.take().unwrap();
            let mut reader = BufReader::new(child.stdout.take().unwrap());
            let mut send = |v: Value| writeln!(stdin, "{v}").unwrap();
            send(
                json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":tag,"version":"1"}}}),
            );
            let mut line = String::new();
            reader.read_line(&mut line).unwrap();
            send(json!({"jsonrpc":"2.0","method":"notifications/initialized"}));
            for i in 0..10 {
                send(
                    json!({"jsonrpc":"2.0","id":i + 1,"method":"tools/call","params":{"name":"memory_checkpoint","arguments":{"sessions":[{"done": format!("{tag} write {i}; tested")}]}}}),
                );
                line.clear();
                reader.read_line(&mut line).unwrap();
                let v: Value = serde_json::from_str(&line).unwrap();
                assert_eq!(v["result"]["isError"], false, "{line}");
            }
            drop(stdin);
            child.wait().unwrap();
        })
    };
    let a = spawn("alpha");
    let b = spawn("beta");
    for i in 0..10 {
        ws.ok(&[
            "checkpoint",
            "--session-done",
            &format!("cli write {i}; tested"),
        ]);
    }
    a.join().unwrap();
    b.join().unwrap();
    let s = ws.read("SESSIONS.md");
    for tag in ["alpha", "beta", "cli"] {
        for i in 0..10 {
            assert!(
                s.contains(&format!("{tag} write {i}; tested")),
                "{tag} {i} lost"
            );
        }
    }
    let before = ws.snapshot();
    ws.ok(&["status"]);
    assert_eq!(ws.snapshot(), before);
}

#[test]
fn install_registers_the_server_and_dsh_gets_a_block_the_server_keeps_current() {
    let ws = Ws::init();
    ws.ok(&["install", "claude"]);
    let mcp: Value =
        serde_json::from_str(&std::fs::read_to_string(ws.root().join(".mcp.json")).unwrap())
            .unwrap();
    assert_eq!(mcp["mcpServers"]["trilogy"]["args"][0], "mcp");
    ws.ok(&["install", "codex"]);
    let toml = std::fs::read_to_string(ws.root().join(".codex/config.toml")).unwrap();
    assert!(
        toml.contains("[mcp_servers.trilogy]") && toml.contains("args = [\"mcp\"]"),
        "{toml}"
    );
    ws.ok(&["uninstall", "claude"]);
    assert!(!ws.root().join(".mcp.json").exists());

    let out = ws.ok(&["install", "dsh", "--static"]);
    assert!(
        out.contains("serverName: trilogy") && out.contains("dsh-mcp-client"),
        "{out}"
    );
    let block = || std::fs::read_to_string(ws.root().join("AGENTS.local.md")).unwrap();
    assert!(!block().contains("kingfisher"));
    // a write through the server refreshes the block DeepSeek Harness re-reads every turn
    ws.mcp_session(&[
        json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"dsh","version":"1"}}}).to_string(),
        json!({"jsonrpc":"2.0","method":"notifications/initialized"}).to_string(),
        json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"memory_checkpoint","arguments":{"sessions":[{"done":"kingfisher spotted; tested"}]}}}).to_string(),
    ]);
    assert!(block().contains("kingfisher spotted"), "{}", block());
}
