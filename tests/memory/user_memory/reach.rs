//! Where the user's own lines go: the blocks of every workspace first and within the cap, a
//! section over the cap cut with a marker, proposals until accepted, reads and searches with
//! the workspace, bundles, and a session that started before the user memory existed.

use super::*;

#[test]
fn a_persons_lines_reach_the_blocks_of_two_workspaces_first_and_within_the_cap() {
    let shared = tempfile::tempdir().unwrap();
    let (zh, en) = pair(shared.path());
    // nothing is made until it is first used
    assert!(!zh.user_md().exists());
    assert!(!zh.ok(&["inject"]).contains("USER.md"));

    let out = zh.ok(&[
        "user",
        "add",
        "--section",
        "Preferences",
        "--line",
        "answer with the conclusion first",
    ]);
    assert!(out.contains("USER.md: 偏好"), "{out}");
    // made from the template of the workspace it was first used in, headings in its language
    let file = user_file(&zh);
    for h in ["## 偏好", "## 环境", "## 约定", "## 教训"] {
        assert!(file.contains(h), "{file}");
    }
    assert!(file.contains("answer with the conclusion first"), "{file}");
    en.ok(&[
        "user",
        "add",
        "--section",
        "Environment",
        "--line",
        "rg is at /usr/bin/rg",
    ]);

    for ws in [&zh, &en] {
        let block = ws.ok(&["inject"]);
        let part = user_part(&block);
        assert!(part.contains("answer with the conclusion first"), "{part}");
        assert!(part.contains("rg is at /usr/bin/rg"), "{part}");
        // right after the ledger: header, ledger lines, then the user memory
        let ledger_end = block.find("\n\n").unwrap();
        assert!(
            block[ledger_end..].trim_start().starts_with("--- USER.md"),
            "{block}"
        );
        // its headings stay as the file has them, in an English workspace too
        assert!(
            part.contains("## 偏好") && part.contains("## 环境"),
            "{part}"
        );
        // empty sections are not injected
        assert!(!part.contains("## 约定"), "{part}");
        let ledger = block.lines().nth(1).unwrap();
        assert!(ledger.contains("USER.md"), "{ledger}");
    }
    let v = en.json(&["inject"]);
    let shown = v["block"]["ledger"]["user_bytes_shown"].as_u64().unwrap();
    assert!(shown > 0 && shown <= 2048, "{v}");
    assert_eq!(v["block"]["ledger"]["user_sections_cut"], json!([]));

    // the copies written into committed files never hold it
    en.ok(&["block", "--file", "AGENTS.local.md"]);
    let copy = std::fs::read_to_string(en.root().join("AGENTS.local.md")).unwrap();
    assert!(
        copy.contains("--- PROJECT.md ---") && !copy.contains("USER.md"),
        "{copy}"
    );
    assert!(!copy.contains("/usr/bin/rg"), "{copy}");
}

#[test]
fn a_section_over_the_cap_is_cut_at_a_line_end_with_a_marker_and_the_ledger_says_so() {
    let ws = Ws::init();
    for i in 0..60 {
        let line =
            format!("lesson {i:02}: keep the build cache warm before the release branch is cut");
        ws.ok(&["user", "add", "--section", "教训", "--line", &line]);
    }
    ws.ok(&[
        "user",
        "add",
        "--section",
        "环境",
        "--line",
        "pnpm at ~/.local/bin/pnpm",
    ]);
    let v = ws.json(&["inject"]);
    let block = v["block"]["text"].as_str().unwrap();
    let part = user_part(block);
    assert!(part.len() <= 2048 + 2, "{} bytes:\n{part}", part.len());
    assert!(part.contains("[本节超出用户记忆的注入上限"), "{part}");
    // cut at a line end: every line shown is whole
    for l in part.lines().filter(|l| l.starts_with("lesson ")) {
        assert!(l.ends_with("is cut"), "{l}");
    }
    assert!(
        v["block"]["ledger"]["user_sections_cut"]
            .as_array()
            .unwrap()
            .contains(&json!("教训")),
        "{v}"
    );
    let ledger = block.lines().nth(1).unwrap();
    assert!(
        ledger.contains("USER.md") && ledger.contains("有删节"),
        "{ledger}"
    );
    assert!(
        block.contains("USER.md 中超出用户记忆上限的部分（教训"),
        "{block}"
    );
    // a smaller cap of the person's own shrinks it
    let small = ws
        .cmd()
        .args(["--set", "user_memory_max_bytes=600", "inject", "--json"])
        .output()
        .unwrap();
    let small: Value = serde_json::from_slice(&small.stdout).unwrap();
    assert!(
        small["block"]["ledger"]["user_bytes_shown"]
            .as_u64()
            .unwrap()
            <= 600,
        "{small}"
    );
    // and inject_user_memory = false leaves it out
    let off = ws
        .cmd()
        .args(["--set", "inject_user_memory=false", "inject"])
        .output()
        .unwrap();
    assert!(
        !text(&off.stdout).contains("USER.md"),
        "{}",
        text(&off.stdout)
    );
}

#[test]
fn an_agents_line_is_a_proposal_until_accepted_then_every_workspace_has_it() {
    let shared = tempfile::tempdir().unwrap();
    let (zh, en) = pair(shared.path());
    // made first from the Chinese workspace: its headings stay Chinese whoever writes
    zh.ok(&["user"]);
    // a live Claude Code session in the Chinese workspace
    let started = zh.run_stdin(
        &["hook", "claude", "session-start"],
        &session_start_payload(&zh, "s-zh"),
    );
    assert!(started.status.success(), "{}", text(&started.stderr));

    // an agent in the English workspace proposes a line over MCP
    let r = en.mcp_tool(
        "s-en",
        "memory_checkpoint",
        json!({"user":[{"section":"Conventions","line":"use pnpm, never npm"}]}),
    );
    assert_ne!(r["isError"], true, "{r}");
    let id = r["structuredContent"]["proposed"][0]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        r["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("proposed"),
        "{r}"
    );
    assert!(!user_file(&zh).contains("pnpm"));
    assert!(!en.ok(&["inject"]).contains("use pnpm"));
    // not memory yet: no notice, but the ledger counts it as waiting
    assert_eq!(next_prompt(&zh, "s-zh"), "");
    assert!(zh.ok(&["inject"]).contains("待人审：1 条提议"));

    // every workspace's review lists it, beside its own
    for ws in [&zh, &en] {
        let l = ws.json(&["review", "list"]);
        let p = &l["proposals"][0];
        assert_eq!(
            (p["id"].as_str(), p["kind"].as_str()),
            (Some(id.as_str()), Some("user")),
            "{l}"
        );
        assert!(
            p["text"]
                .as_str()
                .unwrap()
                .contains(&en.root().display().to_string()),
            "{p}"
        );
    }
    zh.ok(&["review", "accept", &id]);
    let file = user_file(&zh);
    assert!(file.contains("## 约定\n\nuse pnpm, never npm\n"), "{file}");
    for ws in [&zh, &en] {
        assert!(user_part(&ws.ok(&["inject"])).contains("use pnpm, never npm"));
    }
    // the live session in the other workspace hears of it once
    let notice = next_prompt(&zh, "s-zh");
    assert!(
        notice.contains("USER.md") && notice.contains("use pnpm, never npm"),
        "{notice}"
    );
    assert_eq!(next_prompt(&zh, "s-zh"), "");

    // a rejected line stays out and the agent is told why when it proposes it again
    let r = en.mcp_tool(
        "s-en",
        "memory_checkpoint",
        json!({"user":[{"section":"偏好","line":"always use tabs"}]}),
    );
    let id = r["structuredContent"]["proposed"][0]
        .as_str()
        .unwrap()
        .to_string();
    en.ok(&["review", "reject", &id, "--why", "I use spaces"]);
    let again = en.mcp_tool(
        "s-en2",
        "memory_checkpoint",
        json!({"user":[{"section":"偏好","line":"always use tabs"}]}),
    );
    let warnings = again["structuredContent"]["warnings"].to_string();
    assert!(warnings.contains("I use spaces"), "{again}");
    assert!(!user_file(&zh).contains("tabs"));
}

#[test]
fn user_lines_are_read_and_searched_with_the_workspace_but_here_leaves_them_out() {
    let ws = Ws::init();
    ws.ok(&[
        "user",
        "add",
        "--section",
        "环境",
        "--line",
        "代理在 127.0.0.1:7890",
    ]);
    ws.ok_stdin(
        &["checkpoint", "-"],
        r#"{"sessions":[{"done":"代理配置改好了，测试通过","area":"网络"}]}"#,
    );
    let hits = ws.json(&["search", "代理"]);
    let kinds: Vec<&str> = hits["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["kind"].as_str().unwrap())
        .collect();
    assert!(
        kinds.contains(&"user") && kinds.contains(&"session"),
        "{hits}"
    );
    let user_hit = hits["hits"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["kind"] == "user")
        .unwrap();
    assert_eq!(user_hit["file"], "USER.md");
    let only = ws.json(&["search", "代理", "--kind", "user"]);
    assert_eq!(only["hits"].as_array().unwrap().len(), 1, "{only}");
    let here = ws.json(&["search", "代理", "--here"]);
    assert!(
        here["hits"]
            .as_array()
            .unwrap()
            .iter()
            .all(|h| h["kind"] != "user"),
        "{here}"
    );

    let r = ws.mcp_tool(
        "s1",
        "memory_read",
        json!({"file":"USER.md","section":"Environment"}),
    );
    assert!(
        r["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("127.0.0.1:7890"),
        "{r}"
    );
    let one = ws.ok(&["read", "USER.md", "--section", "Environment"]);
    assert!(
        one.contains("127.0.0.1:7890") && !one.contains("## 偏好"),
        "{one}"
    );
    let wrong = ws.run(&["read", "SESSIONS.md", "--section", "State"]);
    assert!(
        !wrong.status.success() && text(&wrong.stderr).contains("--section"),
        "{}",
        text(&wrong.stderr)
    );
    let whole = ws.ok(&["read", "USER.md"]);
    assert!(
        whole.contains("## 偏好") && whole.contains("127.0.0.1:7890"),
        "{whole}"
    );
    let show = ws.json(&["user", "show"]);
    assert_eq!(show["sections"][1]["heading"], "环境");
    assert_eq!(
        show["sections"][1]["lines"],
        json!(["代理在 127.0.0.1:7890"])
    );
    let path = ws.json(&["user", "path"]);
    assert_eq!(
        path["path"].as_str().unwrap(),
        ws.user_md().display().to_string()
    );
}

#[test]
fn user_bundles_carry_user_md_and_workspace_bundles_never_do() {
    let ws = Ws::init();
    ws.ok(&[
        "user",
        "add",
        "--section",
        "约定",
        "--line",
        "commit messages in English",
    ]);
    let workspace = ws.ok(&["export"]);
    assert!(
        !workspace.contains("USER.md") && !workspace.contains("commit messages"),
        "{workspace}"
    );
    let user = ws.ok(&["export", "--user"]);
    let b: Value = serde_json::from_str(&user).unwrap();
    assert!(
        b["files"]["USER.md"]
            .as_str()
            .unwrap()
            .contains("commit messages in English"),
        "{b}"
    );
    assert!(b["files"].get("PROJECT.md").is_none(), "{b}");

    let other = Ws::init();
    let out = other.ok_stdin(&["import", "--user", "-"], &user);
    assert!(out.contains("USER.md"), "{out}");
    assert!(user_file(&other).contains("commit messages in English"));
    // a workspace bundle is not a user bundle
    let wrong = other.run_stdin(&["import", "--user", "-"], &workspace);
    assert!(
        !wrong.status.success() && text(&wrong.stderr).contains("USER.md"),
        "{}",
        text(&wrong.stderr)
    );
}

#[test]
fn a_session_started_before_the_user_memory_existed_hears_of_its_first_lines() {
    let ws = Ws::init();
    let started = ws.run_stdin(
        &["hook", "claude", "session-start"],
        &session_start_payload(&ws, "s1"),
    );
    assert!(started.status.success());
    ws.ok(&["user", "add", "--section", "偏好", "--line", "先给结论"]);
    let notice = next_prompt(&ws, "s1");
    assert!(
        notice.contains("USER.md") && notice.contains("+ 先给结论"),
        "{notice}"
    );
    // the template's placeholder is no change to tell
    assert!(!notice.contains("暂无"), "{notice}");
    assert_eq!(next_prompt(&ws, "s1"), "");
}
