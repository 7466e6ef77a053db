//! A Claude Code session through its hooks: the whole sequence, a folder beside the workspace,
//! wrong input, nothing injected twice, changes elsewhere as one notice, and the session's own
//! writes not announced back.

use super::*;

#[test]
fn host_sequence_start_prompt_tool_stop_prompt_compact() {
    let ws = Ws::new();
    let bin = assert_cmd::cargo::cargo_bin("trilogy");
    ws.ok(&["install", "claude", "--command", bin.to_str().unwrap()]);
    let settings: Value = serde_json::from_str(
        &std::fs::read_to_string(ws.root().join(".claude/settings.json")).unwrap(),
    )
    .unwrap();
    // run exactly the commands the host would run
    let run = |event: &str, extra: Value| -> String {
        let cmd = settings["hooks"][event][0]["hooks"][0]["command"]
            .as_str()
            .unwrap();
        let mut child = std::process::Command::new("sh")
            .args(["-c", cmd])
            .current_dir(ws.root())
            .env("TRILOGY_TODAY", common::TODAY)
            .env("TRILOGY_CONFIG", ws.root().join("none.toml"))
            // as Claude Code runs hooks: in the project, which it names
            .env("CLAUDE_PROJECT_DIR", ws.root())
            .env("XDG_STATE_HOME", ws.state.path())
            .env("XDG_DATA_HOME", ws.data_home())
            .env(common::CEILING, common::ceiling())
            .envs(common::LOCALE)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(payload(&ws, "sess-1", extra).as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success());
        text(&out.stdout)
    };

    let start = context(
        &run("SessionStart", json!({"source": "startup"})),
        "SessionStart",
    );
    assert!(start.starts_with("===== 项目记忆"), "{start}");
    assert!(
        start.contains("项目记忆还是空的"),
        "bootstrap while PROJECT is empty"
    );
    assert!(
        start.contains("宿主单条上限 10000 字符"),
        "the ledger names the host cap"
    );
    assert!(
        ws.path("PROJECT.md").exists(),
        "the first session scaffolds memory"
    );
    assert!(
        std::fs::read_to_string(ws.root().join("CLAUDE.md"))
            .unwrap()
            .contains("memory/PROJECT.md")
    );

    assert_eq!(
        run("UserPromptSubmit", json!({"prompt": "fix the bug"})),
        ""
    );
    assert_eq!(
        run(
            "PostToolUse",
            json!({"tool_name": "Edit", "tool_input": {"file_path": "/x"}})
        ),
        ""
    );
    assert_eq!(
        run("Stop", json!({"stop_hook_active": false})),
        "",
        "Stop answers nothing"
    );
    let nudge = context(
        &run("UserPromptSubmit", json!({"prompt": "next"})),
        "UserPromptSubmit",
    );
    assert!(
        nudge.contains("memory_checkpoint") && nudge.contains("什么都不用记"),
        "{nudge}"
    );
    assert_eq!(nudge.lines().count(), 1, "one line");

    // the agent records through the CLI as its own session: not echoed back
    ws.ok(&[
        "checkpoint",
        "--agent-session",
        "sess-1",
        "--section",
        "这是什么",
        "--text",
        "a CLI for dotfiles",
    ]);
    assert_eq!(run("UserPromptSubmit", json!({"prompt": "more"})), "");

    // a person edits the file: the next prompt hears about it, once
    let s = ws.read("SESSIONS.md");
    ws.write(
        "SESSIONS.md",
        &format!("{s}\n## 2026-11-28 · ops\n完成：hand-written, checked by eye\n"),
    );
    let notice = context(
        &run("UserPromptSubmit", json!({"prompt": "again"})),
        "UserPromptSubmit",
    );
    assert!(
        notice.contains("2026-11-28 · ops")
            && notice.contains("完成：hand-written, checked by eye")
            && notice.len() <= 2000,
        "{notice}"
    );
    assert_eq!(
        run("UserPromptSubmit", json!({"prompt": "and again"})),
        "",
        "announced once"
    );

    // compaction loses the block: it comes back whole, with the new content
    let again = context(
        &run("SessionStart", json!({"source": "compact"})),
        "SessionStart",
    );
    assert!(again.contains("a CLI for dotfiles") && again.contains("hand-written"));
    assert!(!again.contains("项目记忆还是空的"));
    // a resume with nothing new injects nothing
    assert_eq!(run("SessionStart", json!({"source": "resume"})), "");
    let shown = ws.json(&["sessions", "show", "sess-1"]);
    assert_eq!(shown["injections"], 2);
    assert_eq!(shown["source"], "compact");
}

/// Regression: a session whose working directory a host reported as `<ws>/../beside` was
/// given `<ws>`'s memory (the walk up went through `<ws>/..` to `<ws>`).
#[test]
fn a_session_in_a_folder_beside_the_workspace_is_not_given_its_memory() {
    let parent = tempfile::tempdir().unwrap();
    let ws = Ws {
        dir: tempfile::Builder::new()
            .prefix("ws-")
            .tempdir_in(parent.path())
            .unwrap(),
        ..Ws::new()
    };
    ws.ok(&["init"]);
    ws.ok(&[
        "checkpoint",
        "--session-done",
        "OWL-ENTRY of this workspace; tested",
    ]);
    std::fs::create_dir(parent.path().join("beside")).unwrap();
    let start = |session: &str, cwd: String| {
        let p = json!({"session_id": session, "hook_event_name": "SessionStart", "source": "startup",
            "cwd": cwd, "transcript_path": "/nonexistent"});
        let (out, code) = hook(&ws, "claude", "session-start", &p.to_string(), &[]);
        assert_eq!(code, 0, "hooks always exit 0");
        out
    };
    let root = ws.root().display().to_string();
    let beside = start("s-beside", format!("{root}/../beside"));
    assert!(!beside.contains("OWL-ENTRY"), "{beside}");
    // through a `.` or a `..` that comes back, it is the workspace
    let here = start("s-here", format!("{root}/./memory/.."));
    assert!(here.contains("OWL-ENTRY"), "{here}");
}

#[test]
fn hook_input_that_is_wrong_exits_zero_prints_nothing_and_writes_nothing() {
    let ws = Ws::new();
    let root = ws.root().display().to_string();
    let cases = [
        ("session-start", "not json".to_string()),
        ("session-start", "[1,2]".to_string()),
        ("session-start", "{}".to_string()),
        ("session-start", json!({"session_id": "s"}).to_string()),
        (
            "session-start",
            json!({"session_id": "s", "cwd": "/nonexistent/dir"}).to_string(),
        ),
        (
            "post-tool-use",
            json!({"session_id": "s", "cwd": root}).to_string(),
        ),
        (
            "user-prompt-submit",
            json!({"session_id": 7, "cwd": root}).to_string(),
        ),
        (
            "no-such-event",
            json!({"session_id": "s", "cwd": root}).to_string(),
        ),
        ("stop", "".to_string()),
    ];
    for (event, input) in cases {
        let (out, code) = hook(&ws, "claude", event, &input, &[]);
        assert_eq!((out.as_str(), code), ("", 0), "{event} {input}");
        assert!(
            !ws.root().join("memory").exists(),
            "{event} {input}: nothing scaffolded"
        );
    }
    let (out, code) = hook(&ws, "gemini", "stop", "{}", &[]);
    assert_eq!((out.as_str(), code), ("", 0));
}

#[test]
fn same_content_is_not_injected_twice_and_own_writes_are_not_echoed() {
    let ws = Ws::init();
    let first = claude(&ws, "session-start", "a", json!({"source": "startup"}));
    assert!(!first.is_empty());
    assert_eq!(
        claude(&ws, "session-start", "a", json!({"source": "startup"})),
        ""
    );
    assert!(
        !claude(&ws, "session-start", "b", json!({"source": "startup"})).is_empty(),
        "another session gets its own"
    );
    ws.ok(&[
        "checkpoint",
        "--agent-session",
        "a",
        "--session-done",
        "mine; tested",
    ]);
    assert_eq!(
        claude(&ws, "user-prompt-submit", "a", json!({"prompt": "x"})),
        ""
    );
    let n = context(
        &claude(&ws, "user-prompt-submit", "b", json!({"prompt": "x"})),
        "UserPromptSubmit",
    );
    assert!(
        n.contains("mine; tested") || n.contains("2026-11-29"),
        "{n}"
    );
    // a session the hooks never saw start (installed mid-session) gets the whole block once
    let late = context(
        &claude(&ws, "user-prompt-submit", "late", json!({"prompt": "x"})),
        "UserPromptSubmit",
    );
    assert!(late.starts_with("===== 项目记忆"));
}

#[test]
fn many_changes_elsewhere_become_one_notice_under_its_cap() {
    let ws = Ws::init();
    claude(&ws, "session-start", "a", json!({"source": "startup"}));
    for i in 0..3 {
        ws.ok(&[
            "checkpoint",
            "--session-done",
            &format!("same day {i}; tested"),
        ]);
    }
    let n = context(
        &claude(&ws, "user-prompt-submit", "a", json!({"prompt": "x"})),
        "UserPromptSubmit",
    );
    // each change with its text: the three sessions' Done lines
    for i in 0..3 {
        assert!(n.contains(&format!("完成：same day {i}")), "{n}");
    }
    assert!(n.contains("新增 SESSIONS.md: 2026-11-29"), "{n}");
    assert!(n.len() <= 2000, "{} bytes: {n}", n.len());
    for i in 0..40 {
        ws.ok(&[
            "checkpoint",
            "--decision",
            &format!("decision number {i} taken in another session"),
        ]);
    }
    let n = context(
        &claude(&ws, "user-prompt-submit", "a", json!({"prompt": "x"})),
        "UserPromptSubmit",
    );
    // the newest changes' content up to the cap, then headings, then a count: under 2000 bytes
    assert!(n.len() <= 2000, "{} bytes: {n}", n.len());
    assert!(
        n.contains("选择：decision number 0 taken in another session"),
        "the first ones with their text: {n}"
    );
    let more: usize = n
        .lines()
        .last()
        .and_then(|l| l.strip_prefix("另有 "))
        .and_then(|l| l.split(' ').next())
        .and_then(|k| k.parse().ok())
        .unwrap_or_else(|| panic!("ends with a count: {n}"));
    let listed = n.lines().filter(|l| l.starts_with("- ")).count();
    assert_eq!(listed + more, 40, "every change listed or counted: {n}");
}

#[test]
fn writes_through_the_sessions_own_mcp_server_are_not_announced_back() {
    let ws = Ws::init();
    claude(&ws, "session-start", "own", json!({"source": "startup"}));
    claude(&ws, "session-start", "other", json!({"source": "startup"}));
    claude(
        &ws,
        "user-prompt-submit",
        "own",
        json!({"prompt": "record it"}),
    );
    // the MCP server writes as `mcp` (it cannot know the host's session id) …
    ws.ok(&[
        "checkpoint",
        "--actor",
        "mcp",
        "--session-done",
        "via the server; tested",
    ]);
    // … and the host reports the tool call to the hooks
    claude(
        &ws,
        "post-tool-use",
        "own",
        json!({"tool_name": "mcp__trilogy__memory_checkpoint", "tool_input": {}}),
    );
    claude(&ws, "stop", "own", json!({}));
    assert_eq!(
        claude(&ws, "user-prompt-submit", "own", json!({"prompt": "next"})),
        ""
    );
    let n = context(
        &claude(&ws, "user-prompt-submit", "other", json!({"prompt": "x"})),
        "UserPromptSubmit",
    );
    assert!(
        n.contains("2026-11-29"),
        "another session hears about it: {n}"
    );
}
