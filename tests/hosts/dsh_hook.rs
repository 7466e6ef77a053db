//! `trilogy hook dsh <event>` driven directly with the plugin's JSON (`schema/dsh-hook.json`):
//! every branch of the per-step decision — the block when the surface lacks it, silence while
//! it is there and unchanged, a notice of others' changes and not of the session's own, the
//! whole block after a compaction, stand-ins for stale copies, the reminder (never for a
//! subagent), the profile's keys and the model's window — and bad input answering `{}`.

use crate::common;

use std::io::Write;
use std::process::Stdio;

use common::Ws;
use serde_json::{Value, json};
use sha1::{Digest, Sha1};

fn sha1(text: &str) -> String {
    Sha1::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn call(ws: &Ws, event: &str, payload: &str) -> (Value, i32) {
    let mut c = ws.std_cmd();
    c.args(["hook", "dsh", event])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = c.spawn().unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(payload.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let v = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout:?}"));
    (v, out.status.code().unwrap_or(-1))
}

/// One pre-step of session `id` with the copies `blocks` (seq, text) on the surface.
fn step(ws: &Ws, id: &str, step: u64, blocks: &[(u64, &str)], extra: Value) -> Value {
    let mut req = json!({
        "sessionId": id,
        "cwd": ws.root().display().to_string(),
        "turn": 1,
        "step": step,
        "surface": {"known": true, "blocks": blocks.iter().map(|(seq, t)| json!({"seq": seq, "digest": sha1(t)})).collect::<Vec<_>>()},
    });
    for (k, v) in extra.as_object().unwrap() {
        req[k] = v.clone();
    }
    let (v, code) = call(ws, "pre-step", &req.to_string());
    assert_eq!(code, 0);
    v
}

fn forms(answer: &Value) -> Vec<&str> {
    answer["append"]
        .as_array()
        .map(|a| a.iter().map(|m| m["form"].as_str().unwrap()).collect())
        .unwrap_or_default()
}

fn block_text(answer: &Value) -> String {
    answer["append"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["form"] == "trilogy")
        .expect("the whole block")["text"]
        .as_str()
        .unwrap()
        .to_string()
}

#[test]
fn dsh_step_gives_the_block_once_and_notices_only_others_changes() {
    let ws = Ws::init();
    ws.ok(&["checkpoint", "--session-done", "first entry, tested"]);
    let first = step(&ws, "s1", 1, &[], json!({}));
    assert_eq!(forms(&first), ["trilogy"]);
    assert_eq!(first["append"][0]["baseline"], true);
    let block = block_text(&first);
    assert!(block.contains("first entry"), "{block}");
    // the session's first step lists the workspace where the original plugin's panel looks too
    let registry: Value = serde_json::from_str(
        &std::fs::read_to_string(ws.dsh_home().join("trilogy/registry.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(registry["version"], 1);
    let root = ws.root().display().to_string();
    assert!(
        registry["workspaces"][&root]["firstSeen"].is_string(),
        "{registry}"
    );

    // the block is on the surface and memory is unchanged: nothing, at any step
    for s in [2, 3] {
        let a = step(&ws, "s1", s, &[(9, &block)], json!({}));
        assert_eq!(forms(&a), Vec::<&str>::new(), "step {s}");
        assert_eq!(a["replace"], json!([]));
    }
    // a surface that cannot be read, for a session that was given the block: nothing
    let a = step(&ws, "s1", 4, &[], json!({"surface": {"known": false}}));
    assert_eq!(forms(&a), Vec::<&str>::new());

    // the session's own write through the MCP server, reported as its tool call: not echoed
    ws.ok_stdin(
        &["mcp"],
        &[
            json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"dsh","version":"1"}}}),
            json!({"jsonrpc":"2.0","method":"notifications/initialized"}),
            json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"memory_checkpoint","arguments":{"sessions":[{"done":"own write, tested"}]}}}),
        ]
        .iter()
        .map(|l| format!("{l}\n"))
        .collect::<String>(),
    );
    let own = json!({"tools": [{"name": "mcp__trilogy__memory_checkpoint", "isError": false}]});
    let a = step(&ws, "s1", 5, &[(9, &block)], own);
    assert_eq!(forms(&a), Vec::<&str>::new(), "{a}");

    // another process records: one short notice, the block left where it is
    ws.ok(&[
        "checkpoint",
        "--session-done",
        "someone else's entry, tested",
    ]);
    let a = step(&ws, "s1", 6, &[(9, &block)], json!({}));
    assert_eq!(forms(&a), ["trilogy-update"]);
    assert!(a["append"][0]["text"].as_str().unwrap().chars().count() <= 200);
    assert_eq!(a["replace"], json!([]));
    // told once
    let a = step(&ws, "s1", 7, &[(9, &block)], json!({}));
    assert_eq!(forms(&a), Vec::<&str>::new());
}

#[test]
fn dsh_step_restores_the_block_after_compaction_and_replaces_stale_copies() {
    let ws = Ws::init();
    let first = step(&ws, "s1", 1, &[], json!({}));
    let block = block_text(&first);
    // compacted away: the whole block again, nothing to replace
    let a = step(&ws, "s1", 1, &[], json!({}));
    assert_eq!(forms(&a), ["trilogy"]);
    assert_eq!(a["replace"], json!([]));

    // two copies and a change: the older becomes a stand-in, the newer stays, one notice
    ws.ok(&["checkpoint", "--session-done", "a change, tested"]);
    let a = step(&ws, "s1", 2, &[(9, &block), (40, &block)], json!({}));
    assert_eq!(forms(&a), ["trilogy-update"]);
    assert_eq!(a["replace"].as_array().unwrap().len(), 1);
    assert_eq!(a["replace"][0]["seq"], 9);
    assert_eq!(a["replace"][0]["form"], "trilogy-superseded");

    // a copy this session's record does not account for (a new session id on an old
    // surface): the whole block, the old copy replaced
    let a = step(&ws, "s2", 1, &[(9, "an older block")], json!({}));
    assert_eq!(forms(&a), ["trilogy"]);
    assert_eq!(a["replace"][0]["seq"], 9);
    // a resumed session whose surface already holds the identical block: nothing
    let now = block_text(&step(&ws, "s3", 1, &[], json!({})));
    let a = step(&ws, "s4", 1, &[(12, &now)], json!({}));
    assert_eq!(forms(&a), Vec::<&str>::new(), "{a}");
}

#[test]
fn dsh_reminder_follows_work_never_reaches_a_subagent() {
    let ws = Ws::init();
    let work = json!({"tools": [{"name": "edit", "input": {}}]});
    for (id, subagent) in [("parent", false), ("child", true)] {
        let extra = json!({"subagent": subagent});
        step(&ws, id, 1, &[], extra.clone());
        let mut req = json!({"sessionId": id, "cwd": ws.root().display().to_string(), "turn": 1, "subagent": subagent});
        req["tools"] = work["tools"].clone();
        let (owed, code) = call(&ws, "turn-stopping", &req.to_string());
        assert_eq!(code, 0);
        assert_eq!(owed["nudgeOwed"], !subagent, "{id}");
        let a = step(
            &ws,
            id,
            1,
            &[(9, "x")],
            json!({"subagent": subagent, "surface": {"known": false}}),
        );
        let nudged = forms(&a).contains(&"trilogy-nudge");
        assert_eq!(nudged, !subagent, "{id}: {a}");
        if nudged {
            assert_eq!(forms(&a)[0], "trilogy-nudge", "the reminder comes first");
        }
    }
    // a turn that recorded owes nothing
    step(&ws, "p2", 1, &[], json!({}));
    let req = json!({"sessionId": "p2", "cwd": ws.root().display().to_string(), "tools": [{"name": "bash", "input": {"command": "cargo test"}}, {"name": "bash", "input": {"command": "trilogy checkpoint --session-done done"}}]});
    ws.ok(&[
        "checkpoint",
        "--session-done",
        "recorded through the shell, tested",
    ]);
    let (owed, _) = call(&ws, "turn-stopping", &req.to_string());
    assert_eq!(owed["nudgeOwed"], false);
}

#[test]
fn dsh_profile_keys_and_the_model_window_shape_the_block() {
    let ws = Ws::init();
    let batch = json!({"sessions": (0..30).map(|i| json!({"done": format!("entry {i}: {}", "padding text ".repeat(40))})).collect::<Vec<_>>()});
    ws.ok_stdin(&["checkpoint"], &batch.to_string());
    let roomy = block_text(&step(&ws, "a", 1, &[], json!({})));
    // a 20,000-token model: 16 % of its window, 3,200 bytes
    let small = block_text(&step(&ws, "b", 1, &[], json!({"contextWindow": 20000})));
    assert!(
        small.len() <= 3200 && roomy.len() > 3200,
        "{} {}",
        small.len(),
        roomy.len()
    );
    // the profile row's camelCase keys reach the configuration; the plugin's own are ignored
    let three = block_text(&step(
        &ws,
        "c",
        1,
        &[],
        json!({"config": {"sessionEntriesInjected": 3, "command": "/x/trilogy", "timeoutMs": 1}}),
    ));
    assert!(three.contains("SESSIONS.md 3/30 条"), "{}", &three[..400]);
    // injection off: nothing, at any step
    let a = step(
        &ws,
        "d",
        1,
        &[],
        json!({"config": {"injectOnSessionStart": false}}),
    );
    assert_eq!(forms(&a), Vec::<&str>::new());
}

#[test]
fn dsh_bad_input_answers_nothing_and_exits_zero() {
    let ws = Ws::init();
    let before = ws.snapshot();
    for (event, payload) in [
        ("pre-step", "not json".to_string()),
        ("pre-step", "[]".to_string()),
        ("pre-step", json!({"cwd": "/"}).to_string()),
        (
            "pre-step",
            json!({"sessionId": "s", "cwd": "/nonexistent/dir"}).to_string(),
        ),
        ("nonsense", json!({"sessionId": "s"}).to_string()),
    ] {
        let (v, code) = call(&ws, event, &payload);
        assert_eq!((v, code), (json!({}), 0), "{event} {payload}");
    }
    assert_eq!(
        ws.snapshot(),
        before,
        "bad input changed nothing in the workspace"
    );
}
