//! Session-start injection, host hooks and the nudge, driven the way a host drives them: the
//! real binary, JSON on stdin, the commands `install` wrote into the host's settings.

use crate::common;

use std::io::Write;
use std::process::Stdio;

use common::{Ws, text};
use serde_json::{Value, json};

/// Run `trilogy hook <host> <event>` with `payload` on stdin: (stdout, exit code).
fn hook(
    ws: &Ws,
    host: &str,
    event: &str,
    payload: &str,
    extra_env: &[(&str, &str)],
) -> (String, i32) {
    let mut c = ws.std_cmd();
    c.args(["hook", host, event])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in extra_env {
        c.env(k, v);
    }
    let mut child = c.spawn().unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(payload.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    (text(&out.stdout), out.status.code().unwrap_or(-1))
}

fn payload(ws: &Ws, session: &str, extra: Value) -> String {
    let mut v = json!({"session_id": session, "cwd": ws.root().display().to_string(), "transcript_path": "/nonexistent"});
    if let (Some(o), Value::Object(e)) = (v.as_object_mut(), extra) {
        o.extend(e);
    }
    v.to_string()
}

fn context(stdout: &str, event: &str) -> String {
    let v: Value =
        serde_json::from_str(stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {stdout:?}"));
    assert_eq!(v["hookSpecificOutput"]["hookEventName"], event);
    v["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap()
        .to_string()
}

fn claude(ws: &Ws, event: &str, session: &str, extra: Value) -> String {
    let (out, code) = hook(ws, "claude", event, &payload(ws, session, extra), &[]);
    assert_eq!(code, 0, "hooks always exit 0");
    out
}

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

fn turn(ws: &Ws, session: &str, now_ms: i64, work: bool, record: bool) -> String {
    let env = [("TRILOGY_NOW_MS", &*now_ms.to_string())];
    let p = |extra: Value| payload(ws, session, extra);
    let (out, _) = hook(
        ws,
        "claude",
        "user-prompt-submit",
        &p(json!({"prompt": "go"})),
        &env,
    );
    if work {
        hook(
            ws,
            "claude",
            "post-tool-use",
            &p(json!({"tool_name": "Bash", "tool_input": {"command": "cargo build"}})),
            &env,
        );
    } else {
        hook(
            ws,
            "claude",
            "post-tool-use",
            &p(json!({"tool_name": "Read", "tool_input": {}})),
            &env,
        );
    }
    if record {
        hook(
            ws,
            "claude",
            "post-tool-use",
            &p(json!({"tool_name": "mcp__trilogy__memory_checkpoint", "tool_input": {}})),
            &env,
        );
    }
    let (stop, code) = hook(
        ws,
        "claude",
        "stop",
        &p(json!({"stop_hook_active": false})),
        &env,
    );
    assert_eq!((stop.as_str(), code), ("", 0), "Stop never blocks");
    out
}

#[test]
fn nudge_follows_work_cooldown_maximum_and_resets_on_record() {
    let ws = Ws::init();
    std::fs::write(
        ws.root().join("trilogy.toml"),
        "nudge_max_per_session = 2\nnudge_cooldown_ms = 600000\n",
    )
    .unwrap();
    claude(&ws, "session-start", "s", json!({"source": "startup"}));
    let min = 60_000;
    let t0 = 1_800_000_000_000i64;
    assert_eq!(
        turn(&ws, "s", t0, true, false),
        "",
        "no reminder on the first prompt"
    );
    let next = turn(&ws, "s", t0 + min, true, false);
    assert!(
        next.contains("记忆提醒"),
        "work without record → reminder on the next prompt: {next}"
    );
    assert_eq!(
        turn(&ws, "s", t0 + 2 * min, true, false),
        "",
        "the nudge of the previous turn fell in the cooldown"
    );
    let later = turn(&ws, "s", t0 + 13 * min, true, false);
    assert!(
        later.is_empty(),
        "delivered only one per owed turn: {later}"
    );
    let second = turn(&ws, "s", t0 + 30 * min, false, false);
    assert!(
        second.contains("记忆提醒"),
        "after the cooldown the second reminder: {second}"
    );
    assert_eq!(
        turn(&ws, "s", t0 + 60 * min, true, false),
        "",
        "a turn with no work owes nothing"
    );
    assert_eq!(
        turn(&ws, "s", t0 + 90 * min, true, false),
        "",
        "maximum of 2 reached"
    );
    // a recording turn resets the count
    turn(&ws, "s", t0 + 91 * min, true, true);
    turn(&ws, "s", t0 + 92 * min, true, false);
    let after_reset = turn(&ws, "s", t0 + 93 * min, false, false);
    assert!(after_reset.contains("记忆提醒"), "{after_reset}");
}

#[test]
fn transcript_is_the_fallback_when_no_tool_hook_reported() {
    let ws = Ws::init();
    claude(&ws, "session-start", "t", json!({"source": "startup"}));
    let tr = ws.root().join("t.jsonl");
    std::fs::write(
        &tr,
        [
            r#"{"type":"user","message":{"role":"user","content":"please fix"}}"#,
            r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"1","name":"Write","input":{"file_path":"/a"}}]}}"#,
        ]
        .join("\n"),
    )
    .unwrap();
    claude(
        &ws,
        "user-prompt-submit",
        "t",
        json!({"prompt": "please fix"}),
    );
    claude(
        &ws,
        "stop",
        "t",
        json!({"transcript_path": tr.display().to_string()}),
    );
    let n = claude(&ws, "user-prompt-submit", "t", json!({"prompt": "next"}));
    assert!(context(&n, "UserPromptSubmit").contains("记忆提醒"));
}

fn fixture(ws: &Ws) {
    let mut sessions = Vec::new();
    for i in 0..40 {
        let area = ["插件", "部署", "网络", "docs"][i % 4];
        sessions.push(json!({"done": format!("第 {i} 条：修好了第 {i} 个问题，cargo test 通过。{}", "细节 ".repeat(20)), "area": area, "next": "继续"}));
    }
    let decisions: Vec<Value> = (0..10)
        .map(|i| json!({"choice": format!("选择 {i}"), "over": "另一个方案", "because": "约束 ".repeat(30)}))
        .collect();
    let batch = json!({
        "sessions": sessions,
        "decisions": decisions,
        "project": [
            {"section": "这是什么", "text": "一个用来演示注入预算的项目。"},
            {"section": "怎么跑和怎么测", "text": "`cargo test`"},
            {"section": "现状", "text": "能跑。".repeat(50)},
        ]
    });
    ws.ok_stdin(&["checkpoint"], &batch.to_string());
}

#[test]
fn block_never_exceeds_the_budget_footer_included() {
    let ws = Ws::init();
    fixture(&ws);
    for budget in [2000usize, 4000, 20480, 160_000] {
        let v = ws.json(&["--set", &format!("inject_budget_bytes={budget}"), "inject"]);
        let text = v["block"]["text"].as_str().unwrap();
        assert!(
            text.len() <= budget,
            "budget {budget}: {} bytes",
            text.len()
        );
        assert_eq!(v["block"]["ledger"]["bytes"], text.len());
        assert!(
            !text.contains("SESSIONS-archive.md 的"),
            "the archive is never injected"
        );
        if budget < 20480 {
            assert!(
                text.contains("--- 未注入"),
                "budget {budget} names what was left out"
            );
        }
    }
    let v = ws.json(&["inject", "--max-chars", "3000"]);
    assert!(v["block"]["text"].as_str().unwrap().chars().count() <= 3000);
    insta::assert_snapshot!("block_full", ws.ok(&["inject"]));
    insta::assert_snapshot!(
        "block_degraded_2000",
        ws.ok(&["--set", "inject_budget_bytes=2000", "inject"])
    );
}

#[test]
fn oversized_section_is_cut_with_the_marker_and_its_sibling_survives() {
    let ws = Ws::init();
    // 40,000 CJK characters is over the checkpoint field limit: a person pasted it by hand
    let huge = "长".repeat(40_000);
    let p = ws.read("PROJECT.md");
    ws.write(
        "PROJECT.md",
        &p.replacen("## 现状\n\n暂无", &format!("## 现状\n\n{huge}"), 1)
            .replacen("## 坑\n\n暂无", "## 坑\n\n小节：完整保留", 1),
    );
    let v = ws.json(&["--set", "inject_budget_bytes=20480", "inject"]);
    let text = v["block"]["text"].as_str().unwrap();
    assert!(text.contains("[本节超出"), "{}", &text[..300]);
    assert!(text.contains("## 坑\n\n小节：完整保留"));
    assert!(!text.contains(&huge));
    assert_eq!(v["block"]["ledger"]["sections_cut"][0], "现状");
}

#[test]
fn sessions_are_allocated_by_area_with_the_hot_area_capped() {
    let ws = Ws::init();
    let at = |day: &str, area: &str, n: usize| {
        let sessions: Vec<Value> = (0..n)
            .map(|i| json!({"done": format!("{area} {day} {i}; tested"), "area": area}))
            .collect();
        let out = ws
            .cmd()
            .env("TRILOGY_TODAY", day)
            .arg("checkpoint")
            .write_stdin(json!({"sessions": sessions}).to_string())
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", text(&out.stderr));
    };
    at("2026-09-30", "cold", 1);
    at("2026-10-30", "warm", 2);
    at("2026-11-29", "hot", 20);
    let v = ws.json(&["inject"]);
    let text = v["block"]["text"].as_str().unwrap();
    let section = text.split("--- SESSIONS.md").nth(1).unwrap();
    let count = |a: &str| section.matches(&format!("· {a}\n")).count();
    assert!(count("cold") == 1 && count("warm") == 2, "{section}");
    assert!(
        count("hot") >= 1 && count("hot") <= 10,
        "hot has {}",
        count("hot")
    );
    assert!(text.contains("区域：hot(20) · warm(2) · cold(1)"), "{text}");
}

#[test]
fn block_file_region_is_rewritten_only_on_change() {
    let ws = Ws::init();
    std::fs::write(
        ws.root().join("AGENTS.local.md"),
        "# local notes\n\nkeep me\n",
    )
    .unwrap();
    let first = ws.ok(&["block", "--file", "AGENTS.local.md"]);
    assert!(first.starts_with("appended"), "{first}");
    let body = std::fs::read_to_string(ws.root().join("AGENTS.local.md")).unwrap();
    assert!(
        body.starts_with(
            "# local notes\n\nkeep me\n\n<!-- trilogy:memory:start -->\n===== 项目记忆"
        )
    );
    assert!(
        ws.ok(&["block", "--file", "AGENTS.local.md"])
            .starts_with("unchanged")
    );
    // a checkpoint refreshes a file that holds the region by itself
    ws.ok(&["checkpoint", "--section", "坑", "--text", "new trap"]);
    let refreshed = std::fs::read_to_string(ws.root().join("AGENTS.local.md")).unwrap();
    assert!(refreshed.contains("new trap") && refreshed.starts_with("# local notes\n"));
    assert!(
        ws.ok(&["block", "--file", "AGENTS.local.md"])
            .starts_with("unchanged")
    );
    // a region edited by hand is put back
    std::fs::write(
        ws.root().join("AGENTS.local.md"),
        refreshed.replace("new trap", "old trap"),
    )
    .unwrap();
    assert!(
        ws.ok(&["block", "--file", "AGENTS.local.md"])
            .starts_with("updated")
    );
    std::fs::write(
        ws.root().join("AGENTS.local.md"),
        "x\n<!-- trilogy:memory:start -->\nhalf\n",
    )
    .unwrap();
    let out = ws.run(&["block", "--file", "AGENTS.local.md"]);
    assert_eq!(out.status.code(), Some(5));
    assert!(text(&out.stderr).contains("AGENTS.local.md:2"));
    let out = ws.run(&["block", "--file", "../outside.md"]);
    assert_eq!(out.status.code(), Some(3));
}

#[test]
fn install_and_uninstall_keep_other_hooks_byte_for_byte() {
    let ws = Ws::new();
    let settings = ws.root().join(".claude/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    let original = "{\n  \"hooks\": {\n    \"PostToolUse\": [{ \"matcher\": \"Write\", \"hooks\": [{ \"type\": \"command\", \"command\": \"prettier --write\" }] }]\n  },\n  \"env\": { \"A\": \"1\" }\n}\n";
    std::fs::write(&settings, original).unwrap();
    ws.ok(&["install", "claude"]);
    let once = std::fs::read_to_string(&settings).unwrap();
    assert!(once.contains("{ \"matcher\": \"Write\", \"hooks\": [{ \"type\": \"command\", \"command\": \"prettier --write\" }] }"), "{once}");
    assert!(once.contains("\"env\": { \"A\": \"1\" }"));
    assert!(ws.ok(&["install", "claude"]).contains("unchanged"));
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), once);
    ws.ok(&["uninstall", "claude"]);
    let after = std::fs::read_to_string(&settings).unwrap();
    let value = |t: &str| serde_json::from_str::<Value>(t).unwrap();
    assert_eq!(value(&after), value(original), "{after}");
    assert!(after.contains("{ \"matcher\": \"Write\", \"hooks\": [{ \"type\": \"command\", \"command\": \"prettier --write\" }] }"));
    assert!(after.ends_with("  \"env\": { \"A\": \"1\" }\n}\n"));
    // codex: its own file and tool names
    ws.ok(&["install", "codex"]);
    let codex: Value = serde_json::from_str(
        &std::fs::read_to_string(ws.root().join(".codex/hooks.json")).unwrap(),
    )
    .unwrap();
    assert!(
        codex["hooks"]["PostToolUse"][0]["matcher"]
            .as_str()
            .unwrap()
            .contains("apply_patch")
    );
    assert_eq!(
        codex["hooks"]["SessionStart"][0]["hooks"][0]["command"],
        "trilogy hook codex session-start"
    );
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

#[test]
fn a_character_cap_still_leaves_room_for_decisions_and_sessions() {
    // many long decisions: their 20% share of 160,000 bytes alone exceeds 10,000 characters
    let ws = Ws::init();
    let decisions: Vec<Value> = (0..300)
        .map(|i| json!({"choice": format!("decision {i} with a long reason"), "because": "reason ".repeat(15)}))
        .collect();
    let sessions: Vec<Value> = (0..30)
        .map(|i| json!({"done": format!("session {i}; tested")}))
        .collect();
    ws.ok_stdin(
        &["checkpoint"],
        &json!({"decisions": decisions, "sessions": sessions}).to_string(),
    );
    let v = ws.json(&["inject", "--max-chars", "10000"]);
    let l = &v["block"]["ledger"];
    assert!(l["chars"].as_u64().unwrap() <= 10_000);
    assert!(l["decisions_shown"].as_u64().unwrap() >= 1, "{l}");
    assert!(l["sessions_shown"].as_u64().unwrap() >= 1, "{l}");
}

#[test]
fn decisions_left_out_by_the_cap_are_counted_from_the_newest_not_shown() {
    let ws = Ws::init();
    for i in 0..40 {
        ws.ok(&[
            "checkpoint",
            "--decision",
            &format!("choice number {i} with a reason long enough to take some room in the block"),
        ]);
    }
    ws.ok(&[
        "checkpoint",
        "--decision",
        "choice number 40 replaces 39",
        "--supersedes",
        "choice number 39 with a reason long enough to take some room in the block",
    ]);
    let v = ws.json(&["inject", "--session", "cap-1", "--window-tokens", "16000"]);
    let shown = v["block"]["ledger"]["decisions_shown"].as_u64().unwrap();
    let live = v["block"]["ledger"]["decisions_live"].as_u64().unwrap();
    assert_eq!(live, 40, "the superseded decision is not live");
    assert!(
        shown > 0 && shown < live,
        "the cap leaves some out: {shown}/{live}"
    );
    let s = ws.json(&["sessions", "show", "cap-1"]);
    assert_eq!(s["dropped"]["decisions"].as_u64().unwrap(), live - shown);
    // the newest live decision not shown: decisions are shown newest first
    let all = ws.json(&["read", "DECISIONS.md", "-n", "100"]);
    let live_ids: Vec<&str> = all["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["state"] == "live")
        .map(|e| e["id"].as_str().unwrap())
        .collect();
    assert_eq!(s["dropped"]["decisions_from"], live_ids[shown as usize]);
}

/// `trilogy hook claude stop` with `transcript_path` pointing at `path`, under a 2 GiB address
/// space limit (a hook reading without a bound fails instead of eating the machine) and a hang
/// guard: (stdout, exit code).
fn stop_with_transcript(ws: &Ws, session: &str, path: &std::path::Path) -> (String, i32) {
    let inner = ws.std_cmd();
    let mut c = std::process::Command::new("sh");
    c.arg("-c")
        .arg(r#"ulimit -v 2097152 && exec "$0" "$@""#)
        .arg(inner.get_program())
        .args(inner.get_args())
        .args(["hook", "claude", "stop"]);
    for (k, v) in inner.get_envs() {
        match v {
            Some(v) => c.env(k, v),
            None => c.env_remove(k),
        };
    }
    let mut child = c
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let body = payload(
        ws,
        session,
        json!({"transcript_path": path.display().to_string(), "stop_hook_active": false}),
    );
    child
        .stdin
        .take()
        .unwrap()
        .write_all(body.as_bytes())
        .unwrap();
    // a hang guard only: a prompt answer takes well under a second
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    while child.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            child.kill().unwrap();
            let _ = child.wait();
            panic!("the stop hook hung on {}", path.display());
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let out = child.wait_with_output().unwrap();
    (text(&out.stdout), out.status.code().unwrap_or(-1))
}

#[test]
fn stop_hook_with_dev_zero_as_transcript_answers_promptly() {
    let ws = Ws::init();
    claude(&ws, "session-start", "z", json!({"source": "startup"}));
    let got = stop_with_transcript(&ws, "z", std::path::Path::new("/dev/zero"));
    assert_eq!(got, (String::new(), 0));
    // the largest resident size of any process this test binary has waited for, in KiB: every
    // hook (this one included) stays far below what reading /dev/zero to its limit takes
    let peak_kib = nix::sys::resource::getrusage(nix::sys::resource::UsageWho::RUSAGE_CHILDREN)
        .unwrap()
        .max_rss();
    assert!(peak_kib < 256 * 1024, "a hook held {peak_kib} KiB");
}

#[test]
fn stop_hook_with_a_fifo_as_transcript_answers_promptly() {
    let ws = Ws::init();
    claude(&ws, "session-start", "f", json!({"source": "startup"}));
    let fifo = ws.root().join("t.fifo");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    // nobody ever opens the writing end
    let got = stop_with_transcript(&ws, "f", &fifo);
    assert_eq!(got, (String::new(), 0));
}

#[test]
fn stop_hook_reads_only_the_tail_of_a_huge_sparse_transcript() {
    let ws = Ws::init();
    claude(&ws, "session-start", "h", json!({"source": "startup"}));
    let tr = ws.root().join("huge.jsonl");
    let mut f = std::fs::File::create(&tr).unwrap();
    f.set_len(64 << 30).unwrap();
    use std::io::Seek;
    f.seek(std::io::SeekFrom::End(0)).unwrap();
    let turn = [
        r#"{"type":"user","message":{"role":"user","content":"please fix"}}"#,
        r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"1","name":"Write","input":{"file_path":"/a"}}]}}"#,
    ];
    writeln!(f, "\n{}", turn.join("\n")).unwrap();
    drop(f);
    claude(
        &ws,
        "user-prompt-submit",
        "h",
        json!({"prompt": "please fix"}),
    );
    assert_eq!(stop_with_transcript(&ws, "h", &tr), (String::new(), 0));
    // the tail was read: the edit it records earns the nudge
    let n = claude(&ws, "user-prompt-submit", "h", json!({"prompt": "next"}));
    assert!(context(&n, "UserPromptSubmit").contains("记忆提醒"), "{n}");
}

#[test]
fn stop_hook_with_a_directory_as_transcript_answers_promptly() {
    let ws = Ws::init();
    claude(&ws, "session-start", "d", json!({"source": "startup"}));
    let got = stop_with_transcript(&ws, "d", ws.root());
    assert_eq!(got, (String::new(), 0));
}

/// Run the command `install` wrote into a host's settings for `event`, as the host does: in
/// the project, naming it in `env_var`.
fn run_installed(ws: &Ws, settings: &Value, event: &str, env_var: &str, payload: &str) -> String {
    let cmd = settings["hooks"][event][0]["hooks"][0]["command"]
        .as_str()
        .unwrap_or_else(|| panic!("no {event} hook in {settings}"));
    let mut child = std::process::Command::new("sh")
        .args(["-c", cmd])
        .current_dir(ws.root())
        .env("TRILOGY_TODAY", common::TODAY)
        .env("TRILOGY_CONFIG", ws.root().join("none.toml"))
        .env(env_var, ws.root())
        .env("XDG_STATE_HOME", ws.state.path())
        .env("XDG_DATA_HOME", ws.data_home())
        .env(common::CEILING, common::ceiling())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(payload.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    text(&out.stdout)
}

#[test]
fn gemini_sequence_start_prompt_tool_turn_end_resume() {
    let ws = Ws::new();
    let bin = assert_cmd::cargo::cargo_bin("trilogy");
    ws.ok(&["install", "gemini", "--command", bin.to_str().unwrap()]);
    let settings: Value = serde_json::from_str(
        &std::fs::read_to_string(ws.root().join(".gemini/settings.json")).unwrap(),
    )
    .unwrap();
    let run = |event: &str, extra: Value| -> String {
        let mut p: Value = serde_json::from_str(&payload(&ws, "g-1", extra)).unwrap();
        p["hook_event_name"] = json!(event);
        p["timestamp"] = json!("2026-11-29T10:00:00Z");
        run_installed(&ws, &settings, event, "GEMINI_PROJECT_DIR", &p.to_string())
    };
    let start = context(
        &run("SessionStart", json!({"source": "startup"})),
        "SessionStart",
    );
    assert!(start.starts_with("===== 项目记忆"), "{start}");
    assert!(
        !start.contains("宿主单条上限"),
        "Gemini CLI keeps a hook's context whole: no host cap"
    );
    assert!(
        std::fs::read_to_string(ws.root().join("GEMINI.md"))
            .unwrap()
            .contains("memory/PROJECT.md")
    );
    assert!(
        !ws.root().join("AGENTS.md").exists(),
        "GEMINI.md is Gemini's pointer; no second one"
    );
    assert_eq!(run("BeforeAgent", json!({"prompt": "fix it"})), "");
    assert_eq!(
        run(
            "AfterTool",
            json!({"tool_name": "run_shell_command", "tool_input": {"command": "cargo build"},
                   "tool_response": {"llmContent": "ok"}})
        ),
        ""
    );
    assert_eq!(
        run(
            "AfterAgent",
            json!({"prompt": "fix it", "prompt_response": "done", "stop_hook_active": false})
        ),
        "",
        "AfterAgent answers nothing: it never forces a retry"
    );
    let nudge = context(
        &run("BeforeAgent", json!({"prompt": "next"})),
        "BeforeAgent",
    );
    assert!(nudge.contains("记忆提醒"), "{nudge}");
    // a checkpoint through the server, reported under Gemini's MCP tool name, resets the nudge
    assert_eq!(
        run(
            "AfterTool",
            json!({"tool_name": "mcp_trilogy_memory_checkpoint", "tool_input": {}})
        ),
        ""
    );
    run(
        "AfterAgent",
        json!({"prompt": "next", "prompt_response": "ok"}),
    );
    assert_eq!(run("BeforeAgent", json!({"prompt": "again"})), "");
    // a resumed Gemini session no longer holds its first block: it gets the whole block again
    let back = context(
        &run("SessionStart", json!({"source": "resume"})),
        "SessionStart",
    );
    assert!(back.starts_with("===== 项目记忆"), "{back}");
    assert_eq!(run("BeforeAgent", json!({"prompt": "more"})), "");
    assert_eq!(run("SessionEnd", json!({"reason": "exit"})), "");
    assert!(ws.json(&["sessions", "show", "g-1"])["ended_at"].is_string());
}

#[test]
fn a_claude_only_project_gets_no_second_pointer_in_agents_md() {
    let ws = Ws::new();
    ws.ok(&["install", "claude"]);
    let root = ws.root().display().to_string();
    let (out, _) = hook(
        &ws,
        "claude",
        "session-start",
        &payload(&ws, "c-1", json!({"source": "startup"})),
        &[("CLAUDE_PROJECT_DIR", &root)],
    );
    assert!(context(&out, "SessionStart").starts_with("===== 项目记忆"));
    assert!(ws.path("PROJECT.md").exists(), "memory was scaffolded");
    assert!(
        std::fs::read_to_string(ws.root().join("CLAUDE.md"))
            .unwrap()
            .contains("memory/PROJECT.md")
    );
    assert!(
        !ws.root().join("AGENTS.md").exists(),
        "CLAUDE.md already points at the memory"
    );
    // a project with no host pointer still gets AGENTS.md, and Codex's install keeps its own
    let plain = Ws::new();
    plain.ok(&["init"]);
    assert!(plain.root().join("AGENTS.md").exists());
    ws.ok(&["install", "codex"]);
    assert!(
        std::fs::read_to_string(ws.root().join("AGENTS.md"))
            .unwrap()
            .contains("memory/PROJECT.md")
    );
}

/// The block says what it is, in the workspace's language: background the project's memory
/// files hold, not instructions (a cloned repository's memory cannot pose as the user).
#[test]
fn the_block_says_it_is_background_not_instructions() {
    let zh = Ws::init();
    let first = zh.ok(&["inject"]).lines().next().unwrap().to_string();
    assert!(
        first.contains("不是指令") && first.contains("记忆文件"),
        "{first}"
    );
    let en = Ws::new();
    en.ok(&["--set", "lang=en", "init"]);
    let first = en.ok(&["inject"]).lines().next().unwrap().to_string();
    assert!(
        first.contains("not instructions") && first.contains("memory files"),
        "{first}"
    );
}
