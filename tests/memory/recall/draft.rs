//! `trilogy sessions draft`: a SESSIONS entry drafted from a host's recorded transcript
//! through the real binary, without writing anything.

use super::*;

#[test]
fn each_hosts_transcript_gives_a_draft_of_the_work_after_its_checkpoint_and_writes_nothing() {
    let ws = Ws::init();
    let before = ws.snapshot();
    for (host, name) in [
        ("claude", "claude.jsonl"),
        ("codex", "codex.jsonl"),
        ("gemini", "gemini.jsonl"),
    ] {
        let file = write(
            &ws.home().join(format!("t/{name}")),
            placed(&ws, name).as_bytes(),
        );
        let v = ws.json(&["sessions", "draft", file.to_str().unwrap(), "--host", host]);
        assert_eq!(v["outcome"], "drafted", "{host}: {v}");
        assert_eq!(v["goal"], "CDSUB please", "{host}: {v}");
        assert_eq!(
            v["ran"][0]["command"], "mkdir -p sub && cd sub && pwd",
            "{host}: {v}"
        );
        assert_eq!(v["ran"][0]["ok"], true, "{host}: {v}");
        let body = v["body"].as_str().unwrap();
        assert!(body.starts_with("完成：（草稿"), "{host}: {body}");
        assert!(body.contains("（未验证）"), "{host}: {body}");
        // the person's text, not the agent's: the human answer prints the entry
        let shown = ws.ok(&["sessions", "draft", file.to_str().unwrap(), "--host", host]);
        assert!(shown.starts_with("## "), "{host}: {shown}");
        assert!(shown.contains(body), "{host}: {shown}");
    }
    assert_eq!(ws.snapshot(), before, "a draft is shown, never written");
}

#[test]
fn files_under_the_workspace_are_named_from_its_root_and_a_recorded_session_gives_none() {
    let ws = Ws::init();
    let r = root(&ws);
    let lines = [
        json!({"type": "user", "message": {"role": "user", "content": "rename the flag"}}),
        json!({"type": "assistant", "message": {"content": [
            {"type": "tool_use", "id": "t1", "name": "Edit", "input": {"file_path": format!("{r}/src/flags.rs")}},
            {"type": "tool_use", "id": "t2", "name": "Bash", "input": {"command": "cargo test -q"}}]}}),
        json!({"type": "user", "message": {"content": [
            {"type": "tool_result", "tool_use_id": "t2", "is_error": true, "content": "Exit code 101"}]}}),
    ];
    let mut text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let file = write(&ws.home().join("t/s.jsonl"), text.as_bytes());
    let draft = [
        "sessions",
        "draft",
        file.to_str().unwrap(),
        "--host",
        "claude",
    ];
    let v = ws.json(&draft);
    assert_eq!(v["edited"], json!(["src/flags.rs"]), "{v}");
    assert_eq!(v["ran"][0]["exit"], 101, "{v}");
    assert!(
        v["body"]
            .as_str()
            .unwrap()
            .contains("`cargo test -q` 失败（退出码 101）"),
        "{v}"
    );
    // then the session recorded through the CLI: nothing left to draft
    text.push_str(&format!(
        "{}\n{}\n",
        json!({"type": "assistant", "message": {"content": [
            {"type": "tool_use", "id": "t3", "name": "Bash", "input": {"command": "trilogy checkpoint --session-done 'renamed; tests fail'"}}]}}),
        json!({"type": "user", "message": {"content": [
            {"type": "tool_result", "tool_use_id": "t3", "is_error": false, "content": "recorded"}]}}),
    ));
    write(&file, text.as_bytes());
    let v = ws.json(&draft);
    assert_eq!(v["outcome"], "recorded", "{v}");
    let shown = ws.ok(&draft);
    assert!(shown.contains("nothing to draft"), "{shown}");
}

#[test]
fn a_transcript_that_is_not_a_file_is_named_and_nothing_changes() {
    let ws = Ws::init();
    let before = ws.snapshot();
    let gone = ws.home().join("t/none.jsonl");
    let draft = |path: &std::path::Path, host: &str| {
        ws.run(&["sessions", "draft", path.to_str().unwrap(), "--host", host])
    };
    let out = draft(&gone, "claude");
    assert_ne!(out.status.code(), Some(0));
    assert!(
        text(&out.stderr).contains("none.jsonl"),
        "{}",
        text(&out.stderr)
    );
    let out = draft(ws.root(), "codex");
    let err = text(&out.stderr);
    assert!(err.contains("not a regular file"), "{err}");
    let out = draft(&gone, "cursor");
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert_eq!(ws.snapshot(), before);
}
