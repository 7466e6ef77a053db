//! Drafts left by the hooks: a session that did work and recorded nothing leaves, at its end,
//! before a compaction or once its reminders are spent, one draft of its entry made from its
//! own transcript — proposed for a person unless the user's own config says otherwise.

use super::*;

/// Run `event` of `host`'s hooks for session `id` in `ws` with `transcript`, and require it
/// answered as hooks do (exit 0).
fn hook(ws: &Ws, host: &str, event: &str, id: &str, transcript: &Path) -> String {
    let payload = json!({
        "session_id": id,
        "hook_event_name": event,
        "cwd": root(ws),
        "transcript_path": transcript,
        "reason": "exit",
        "trigger": "auto",
    });
    ws.ok_stdin(&["hook", host, event], &payload.to_string())
}

fn proposals(ws: &Ws) -> Vec<Value> {
    let v = ws.json(&["review", "list", "--all"]);
    v["proposals"].as_array().unwrap().clone()
}

fn hook_log(ws: &Ws) -> String {
    std::fs::read_to_string(ws.root().join(".trilogy/hooks.log")).unwrap_or_default()
}

/// A Claude Code session that edited `src/flags.rs` and ran the tests, recording nothing.
fn unrecorded(ws: &Ws) -> Vec<Value> {
    let r = root(ws);
    vec![
        json!({"type": "user", "message": {"role": "user", "content": "rename the flag"}}),
        json!({"type": "assistant", "message": {"content": [
            {"type": "tool_use", "id": "t1", "name": "Edit", "input": {"file_path": format!("{r}/src/flags.rs")}},
            {"type": "tool_use", "id": "t2", "name": "Bash", "input": {"command": "cargo test -q"}}]}}),
        json!({"type": "user", "message": {"content": [
            {"type": "tool_result", "tool_use_id": "t2", "is_error": false, "content": "ok"}]}}),
        json!({"type": "assistant", "message": {"content": [
            {"type": "text", "text": "Renamed; next I will update the docs."}]}}),
    ]
}

fn jsonl(lines: &[Value]) -> String {
    lines.iter().map(|l| format!("{l}\n")).collect()
}

#[test]
fn a_session_that_recorded_nothing_leaves_one_draft_for_a_person_and_the_next_is_told() {
    let ws = Ws::init();
    let file = write(&claude_file(&ws), jsonl(&unrecorded(&ws)).as_bytes());
    let sessions_before = ws.read("SESSIONS.md");
    assert_eq!(hook(&ws, "claude", "session-end", "s-1", &file), "");
    let p = proposals(&ws);
    assert_eq!(p.len(), 1, "{p:?}");
    assert_eq!(p[0]["kind"], "session");
    assert_eq!(p[0]["state"], "pending");
    assert_eq!(
        p[0]["session"], "s-1",
        "the draft names its session: {}",
        p[0]
    );
    let text = p[0]["text"].as_str().unwrap();
    for part in [
        "（草稿",
        "`src/flags.rs`",
        "`cargo test -q` 通过",
        "（未验证）",
        "Renamed; next I will update the docs.",
    ] {
        assert!(text.contains(part), "{part} in {text}");
    }
    assert_eq!(
        ws.read("SESSIONS.md"),
        sessions_before,
        "proposed, never written"
    );
    // the same end told again (a host that retries its hook) leaves no second draft
    hook(&ws, "claude", "session-end", "s-1", &file);
    let again = proposals(&ws);
    assert_eq!(again.len(), 1, "{again:?}");
    assert_eq!(again[0]["count"], 1);
    // the next session is told a draft waits
    let out = ws.ok_stdin(
        &["hook", "claude", "session-start"],
        &common::session_start_payload(&ws, "s-2"),
    );
    let block = common::hook_context(&out);
    assert!(
        block.contains("其中 1 条是之前会话没有记录、由其会话记录整理的草稿"),
        "{block}"
    );
    assert_eq!(hook_log(&ws), "", "nothing went wrong");
    // a person accepts it: the entry is written as drafted, marked unverified
    let id = p[0]["id"].as_str().unwrap();
    ws.ok(&["review", "accept", id]);
    let sessions = ws.read("SESSIONS.md");
    assert!(
        sessions.contains("（草稿：由会话记录整理，未经确认）"),
        "{sessions}"
    );
}

#[test]
fn a_session_that_recorded_after_its_work_or_did_none_leaves_no_draft() {
    let ws = Ws::init();
    let mut lines = unrecorded(&ws);
    lines.push(json!({"type": "assistant", "message": {"content": [
        {"type": "tool_use", "id": "t3", "name": "mcp__trilogy__memory_checkpoint", "input": {"sessions": [{"done": "renamed"}]}}]}}));
    lines.push(json!({"type": "user", "message": {"content": [
        {"type": "tool_result", "tool_use_id": "t3", "is_error": false, "content": "recorded"}]}}));
    let file = write(&claude_file(&ws), jsonl(&lines).as_bytes());
    hook(&ws, "claude", "session-end", "s-rec", &file);
    // only talk, no edit and no command
    let talk = write(
        &ws.home().join("t/talk.jsonl"),
        jsonl(&unrecorded(&ws)[..1]).as_bytes(),
    );
    hook(&ws, "claude", "session-end", "s-talk", &talk);
    // a transcript path that names nothing (the host has not written it yet)
    hook(
        &ws,
        "claude",
        "session-end",
        "s-none",
        &ws.home().join("t/gone.jsonl"),
    );
    assert_eq!(proposals(&ws), Vec::<Value>::new());
    assert_eq!(hook_log(&ws), "");
}

#[test]
fn codex_and_gemini_sessions_leave_drafts_from_their_own_transcripts() {
    let ws = Ws::init();
    for (host, file, name) in [
        ("codex", codex_file(&ws), "codex.jsonl"),
        ("gemini", gemini_file(&ws), "gemini.jsonl"),
    ] {
        let file = write(&file, placed(&ws, name).as_bytes());
        hook(&ws, host, "session-end", &format!("s-{host}"), &file);
    }
    let p = proposals(&ws);
    assert_eq!(p.len(), 2, "{p:?}");
    for (p, host) in p.iter().zip(["codex", "gemini"]) {
        assert_eq!(p["session"], format!("s-{host}"), "{p}");
        let text = p["text"].as_str().unwrap();
        assert!(
            text.contains("`mkdir -p sub && cd sub && pwd`"),
            "{host}: {text}"
        );
        assert!(text.contains("CDSUB please"), "{host}: {text}");
    }
}

#[test]
fn a_later_draft_of_the_same_session_replaces_the_one_still_waiting() {
    let ws = Ws::init();
    let mut lines = unrecorded(&ws);
    let file = write(&claude_file(&ws), jsonl(&lines).as_bytes());
    hook(&ws, "claude", "pre-compact", "s-1", &file);
    let first = proposals(&ws);
    assert_eq!(first.len(), 1, "{first:?}");
    // after the compaction the session goes on working, then ends
    lines.push(json!({"type": "assistant", "message": {"content": [
        {"type": "tool_use", "id": "t9", "name": "Write", "input": {"file_path": format!("{}/docs/flags.md", root(&ws))}}]}}));
    write(&file, jsonl(&lines).as_bytes());
    hook(&ws, "claude", "session-end", "s-1", &file);
    let p = proposals(&ws);
    assert_eq!(p.len(), 2, "{p:?}");
    let (old, new) = match p[0]["id"] == first[0]["id"] {
        true => (&p[0], &p[1]),
        false => (&p[1], &p[0]),
    };
    assert_eq!(new["state"], "pending");
    assert!(
        new["text"].as_str().unwrap().contains("`docs/flags.md`"),
        "{new}"
    );
    assert_eq!(old["state"], "rejected", "{old}");
    let why = old["why"].as_str().unwrap();
    assert!(why.contains(new["id"].as_str().unwrap()), "{why}");
}

#[test]
fn spent_reminders_leave_a_draft_at_the_turns_end() {
    let ws = Ws::init();
    let file = write(&claude_file(&ws), jsonl(&unrecorded(&ws)).as_bytes());
    let tool = json!({
        "session_id": "s-1", "hook_event_name": "PostToolUse", "cwd": root(&ws),
        "tool_name": "Edit", "tool_input": {"file_path": "src/flags.rs"}, "transcript_path": file,
    });
    let spent = ["--set", "nudge_max_per_session=0"];
    let run = |event: &str, payload: &Value| {
        let mut args = spent.to_vec();
        args.extend(["hook", "claude", event]);
        ws.ok_stdin(&args, &payload.to_string())
    };
    run("post-tool-use", &tool);
    assert_eq!(
        proposals(&ws),
        Vec::<Value>::new(),
        "nothing before the turn ends"
    );
    let stop = json!({"session_id": "s-1", "hook_event_name": "Stop", "cwd": root(&ws), "transcript_path": file});
    run("stop", &stop);
    assert_eq!(proposals(&ws).len(), 1);
    // with reminders left, the turn's end owes a reminder, not a draft
    let ws2 = Ws::init();
    let file2 = write(&claude_file(&ws2), jsonl(&unrecorded(&ws2)).as_bytes());
    let at = |v: &Value| {
        let mut v = v.clone();
        v["cwd"] = json!(root(&ws2));
        v["transcript_path"] = json!(file2);
        v.to_string()
    };
    ws2.ok_stdin(&["hook", "claude", "post-tool-use"], &at(&tool));
    ws2.ok_stdin(&["hook", "claude", "stop"], &at(&stop));
    assert_eq!(proposals(&ws2), Vec::<Value>::new());
}

#[test]
fn auto_draft_is_the_users_alone_and_record_or_off_are_kept() {
    // a repository's trilogy.toml cannot have drafts recorded (and so committed)
    let ws = Ws::init();
    write(
        &ws.root().join("trilogy.toml"),
        b"auto_draft = \"record\"\n",
    );
    let file = write(&claude_file(&ws), jsonl(&unrecorded(&ws)).as_bytes());
    let sessions_before = ws.read("SESSIONS.md");
    hook(&ws, "claude", "session-end", "s-1", &file);
    assert_eq!(proposals(&ws).len(), 1);
    assert_eq!(ws.read("SESSIONS.md"), sessions_before);
    let config = ws.ok(&["config"]);
    assert!(config.contains("`auto_draft` ignored"), "{config}");
    // the user's own config: recorded, marked a draft and unverified
    let ws = Ws::init();
    write(
        &ws.root().join("no-user-config.toml"),
        b"auto_draft = \"record\"\n",
    );
    let file = write(&claude_file(&ws), jsonl(&unrecorded(&ws)).as_bytes());
    hook(&ws, "claude", "session-end", "s-1", &file);
    assert_eq!(proposals(&ws), Vec::<Value>::new());
    let sessions = ws.read("SESSIONS.md");
    assert!(
        sessions.contains("（草稿：由会话记录整理，未经确认）"),
        "{sessions}"
    );
    assert!(sessions.contains("（未验证）"), "{sessions}");
    // again: the same entry is not recorded twice
    hook(&ws, "claude", "session-end", "s-1", &file);
    assert_eq!(ws.read("SESSIONS.md"), sessions);
    // off: none
    let ws = Ws::init();
    write(
        &ws.root().join("no-user-config.toml"),
        b"auto_draft = \"off\"\n",
    );
    let file = write(&claude_file(&ws), jsonl(&unrecorded(&ws)).as_bytes());
    let before = ws.snapshot();
    hook(&ws, "claude", "session-end", "s-1", &file);
    assert_eq!(proposals(&ws), Vec::<Value>::new());
    let after = ws.snapshot();
    let memory = |s: &[(String, Vec<u8>)]| {
        s.iter()
            .filter(|(p, _)| p.starts_with("memory/"))
            .cloned()
            .collect::<Vec<_>>()
    };
    assert_eq!(memory(&after), memory(&before));
}

#[test]
fn a_draft_still_waiting_is_withdrawn_when_its_session_records_its_work_itself() {
    let ws = Ws::init();
    let mut lines = unrecorded(&ws);
    let file = write(&claude_file(&ws), jsonl(&lines).as_bytes());
    // one `codex exec` per turn ends its session each time: the draft comes before the agent
    // had its reminder
    hook(&ws, "claude", "session-end", "s-1", &file);
    assert_eq!(proposals(&ws)[0]["state"], "pending");
    lines.push(json!({"type": "assistant", "message": {"content": [
        {"type": "tool_use", "id": "t3", "name": "Bash", "input": {"command": "trilogy checkpoint --session-done 'renamed the flag; cargo test passes'"}}]}}));
    lines.push(json!({"type": "user", "message": {"content": [
        {"type": "tool_result", "tool_use_id": "t3", "is_error": false, "content": "recorded"}]}}));
    write(&file, jsonl(&lines).as_bytes());
    hook(&ws, "claude", "session-end", "s-1", &file);
    let p = proposals(&ws);
    assert_eq!(p.len(), 1, "{p:?}");
    assert_eq!(p[0]["state"], "rejected", "{}", p[0]);
    assert!(
        p[0]["why"]
            .as_str()
            .unwrap()
            .contains("recorded its work itself")
    );
    assert!(
        !common::hook_context(&ws.ok_stdin(
            &["hook", "claude", "session-start"],
            &common::session_start_payload(&ws, "s-2"),
        ))
        .contains("草稿")
    );
}
