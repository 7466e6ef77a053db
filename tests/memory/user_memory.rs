//! One person across projects: the user memory (USER.md in the user's data folder) is carried
//! by every workspace's session-start block, written directly by the person and only through
//! proposals by agents, absorbed when edited by hand, and safe under many writers at once.

use crate::common;

use std::path::Path;

use common::{Ws, hook_context, next_prompt, session_start_payload, text};
use serde_json::{Value, json};

/// Two workspaces, one Chinese and one English, sharing the user memory in `dir`.
fn pair(dir: &Path) -> (Ws, Ws) {
    let zh = Ws::sharing_user(dir);
    zh.ok(&["init"]);
    let en = Ws::sharing_user(dir);
    en.ok(&["--set", "lang=en", "init"]);
    (zh, en)
}

/// USER.md as it is on disk.
fn user_file(ws: &Ws) -> String {
    std::fs::read_to_string(ws.user_md()).unwrap()
}

/// The part of a block between the ledger and PROJECT.md.
fn user_part(block: &str) -> &str {
    let start = block
        .find("--- USER.md")
        .unwrap_or_else(|| panic!("no user memory in:\n{block}"));
    let end = block
        .find("--- PROJECT.md ---")
        .expect("PROJECT.md in the block");
    assert!(
        start < end,
        "the user memory comes before PROJECT.md:\n{block}"
    );
    &block[start..end]
}

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
fn a_hand_edit_is_absorbed_and_a_file_that_does_not_parse_is_never_overwritten() {
    let ws = Ws::init();
    ws.ok(&["user", "add", "--section", "偏好", "--line", "先给结论"]);
    let path = ws.user_md();
    let file = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, file.replace("先给结论", "先给结论\n回答用中文")).unwrap();
    assert!(user_part(&ws.ok(&["inject"])).contains("回答用中文"));
    // the replaced line stays in the section's history
    ws.ok(&[
        "user",
        "add",
        "--section",
        "偏好",
        "--line",
        "回答用简体中文",
        "--replaces",
        "回答用中文",
    ]);
    let now = std::fs::read_to_string(&path).unwrap();
    assert!(
        now.contains("回答用简体中文") && !now.contains("回答用中文\n"),
        "{now}"
    );

    let broken = format!("{now}<<<<<<< HEAD\n## 偏好\nx\n=======\n## 偏好\ny\n>>>>>>> other\n");
    std::fs::write(&path, &broken).unwrap();
    let shown = ws.json(&["user", "show"]);
    assert!(
        shown["unparseable"]
            .as_str()
            .unwrap()
            .contains("merge conflict"),
        "{shown}"
    );
    let block = ws.ok(&["inject"]);
    assert!(user_part(&block).contains("无法解析"), "{block}");
    // a write meanwhile is refused, naming the file, and the person's file is left as it is
    let meanwhile = ws.run(&[
        "user",
        "add",
        "--section",
        "教训",
        "--line",
        "先跑测试再推送",
    ]);
    let err = text(&meanwhile.stderr);
    assert!(
        !meanwhile.status.success() && err.contains("USER.md") && err.contains("does not parse"),
        "{err}"
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), broken);
    // fixed by hand: taken in, and writing works again
    std::fs::write(&path, &now).unwrap();
    let fixed = ws.json(&["user", "show"]);
    assert!(fixed["unparseable"].is_null(), "{fixed}");
    assert!(fixed.to_string().contains("回答用简体中文"), "{fixed}");
    ws.ok(&[
        "user",
        "add",
        "--section",
        "教训",
        "--line",
        "先跑测试再推送",
    ]);
    assert!(
        std::fs::read_to_string(&path)
            .unwrap()
            .contains("## 教训\n\n先跑测试再推送\n")
    );
}

/// A GitHub token as a test stand-in (random-looking, so the secret rules take it).
fn token() -> String {
    "ghp_aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6".to_string()
}

#[test]
fn secrets_are_refused_from_every_path() {
    let ws = Ws::init();
    ws.ok(&[
        "user",
        "add",
        "--section",
        "环境",
        "--line",
        "gh is logged in as alice",
    ]);
    let before = std::fs::read(ws.user_md()).unwrap();
    let line = format!("token {}", token());
    let cli = ws.run(&["user", "add", "--section", "环境", "--line", &line]);
    assert!(
        !cli.status.success() && text(&cli.stderr).contains("GitHub token"),
        "{}",
        text(&cli.stderr)
    );
    let batch = json!({"user":[{"section":"环境","line":line}]}).to_string();
    let cp = ws.run_stdin(&["checkpoint", "-"], &batch);
    assert!(
        !cp.status.success() && text(&cp.stderr).contains("refused"),
        "{}",
        text(&cp.stderr)
    );
    let r = ws.mcp_tool(
        "s1",
        "memory_checkpoint",
        json!({"user":[{"section":"环境","line":line}]}),
    );
    assert_eq!(r["isError"], true, "{r}");
    assert!(
        ws.json(&["review", "list"])["proposals"]
            .as_array()
            .unwrap()
            .is_empty()
    );
    assert_eq!(std::fs::read(ws.user_md()).unwrap(), before);
    // written in by hand: never injected (the block says it was left out), never a search
    // hit, and doctor names it
    let hand = String::from_utf8(before)
        .unwrap()
        .replace("gh is logged in as alice", &line);
    std::fs::write(ws.user_md(), hand).unwrap();
    let block = ws.ok(&["inject"]);
    assert!(!block.contains("ghp_"), "{block}");
    assert!(
        user_part(&block).contains("「环境」一节里有像凭据"),
        "{block}"
    );
    let doctor = ws.run(&["doctor", "--json"]);
    let doctor: Value = serde_json::from_slice(&doctor.stdout).unwrap();
    let leak = doctor["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["check"] == "user")
        .unwrap();
    assert_eq!(leak["level"], "error", "{doctor}");
    assert!(
        leak["message"].as_str().unwrap().contains("GitHub token"),
        "{leak}"
    );
    assert!(!leak.to_string().contains(&token()), "masked: {leak}");
    assert_eq!(ws.json(&["user", "show"])["withheld"], json!(["环境"]));
    let hits = ws.ok(&["search", "token", "--json"]);
    assert!(!hits.contains("ghp_"), "{hits}");
    // nor taken from a bundle
    let bundle = json!({"kind":"dsh-trilogy/memory-bundle","version":1,"exportedAt":"x","root":"/x",
        "files":{"USER.md": format!("# USER\n\n## 环境\n\n{line}\n")}});
    let imp = ws.run_stdin(&["import", "--user", "-"], &bundle.to_string());
    assert!(
        !imp.status.success() && text(&imp.stderr).contains("GitHub token"),
        "{}",
        text(&imp.stderr)
    );
}

#[test]
fn a_workspace_trilogy_toml_cannot_move_hide_or_open_the_user_memory() {
    let ws = Ws::init();
    ws.ok(&["user", "add", "--section", "偏好", "--line", "先给结论"]);
    let elsewhere = tempfile::tempdir().unwrap();
    std::fs::write(
        ws.root().join("trilogy.toml"),
        format!(
            "user_memory_dir = \"{}\"\ninject_user_memory = false\nuser_memory_max_bytes = 10\n[review_mode]\nuser = \"direct\"\n",
            elsewhere.path().display()
        ),
    )
    .unwrap();
    let config = ws.json(&["config"]);
    let warnings = config["warnings"].to_string();
    for key in [
        "user_memory_dir",
        "inject_user_memory",
        "user_memory_max_bytes",
        "review_mode.user",
    ] {
        assert!(warnings.contains(key), "{key}: {config}");
    }
    let block = ws.ok(&["inject"]);
    assert!(user_part(&block).contains("先给结论"));
    assert!(
        block.contains("设置未采用：4 项"),
        "the ledger says so: {block}"
    );
    let doctor = ws.json(&["doctor"]);
    let refused = doctor["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["check"] == "config")
        .count();
    assert_eq!(refused, 4, "{doctor}");
    let cp = ws.ok_stdin(
        &["checkpoint", "--json", "-"],
        r#"{"user":[{"section":"偏好","line":"用 pnpm"}]}"#,
    );
    let cp: Value = serde_json::from_str(&cp).unwrap();
    assert_eq!(cp["proposed"].as_array().unwrap().len(), 1, "{cp}");
    assert!(!user_file(&ws).contains("pnpm"));
    assert_eq!(std::fs::read_dir(elsewhere.path()).unwrap().count(), 0);
    // hooks load leniently and are held to the same
    let started = ws.run_stdin(
        &["hook", "claude", "session-start"],
        &session_start_payload(&ws, "s1"),
    );
    assert!(hook_context(&text(&started.stdout)).contains("先给结论"));
    // a value that would be wrong in the person's own file does not stop the workspace
    std::fs::write(
        ws.root().join("trilogy.toml"),
        "userMemoryDir = \"relative/x\"\nuser_memory_max_bytes = 999999\n",
    )
    .unwrap();
    assert!(user_part(&ws.ok(&["inject"])).contains("先给结论"));
    std::fs::remove_file(ws.root().join("trilogy.toml")).unwrap();
    // the person's own settings do open it
    let own = ws.root().join("own.toml");
    std::fs::write(&own, "[review_mode]\nuser = \"direct\"\n").unwrap();
    let direct = ws
        .cmd()
        .env("TRILOGY_CONFIG", &own)
        .args(["checkpoint", "-"])
        .write_stdin(r#"{"user":[{"section":"偏好","line":"用 pnpm"}]}"#)
        .output()
        .unwrap();
    assert!(direct.status.success(), "{}", text(&direct.stderr));
    assert!(user_file(&ws).contains("用 pnpm"));
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
fn eight_processes_in_four_workspaces_write_user_lines_at_once_and_each_lands_once() {
    let shared = tempfile::tempdir().unwrap();
    let spaces: Vec<Ws> = (0..4)
        .map(|_| {
            let w = Ws::sharing_user(shared.path());
            w.ok(&["init"]);
            w
        })
        .collect();
    // each workspace's agent proposes lines, which the person accepts while writing more
    let mut proposals = Vec::new();
    for (i, w) in spaces.iter().enumerate() {
        for k in 0..3 {
            let batch =
                json!({"user":[{"section":"约定","line":format!("proposed {i}-{k}")}]}).to_string();
            let out: Value =
                serde_json::from_str(&w.ok_stdin(&["checkpoint", "--json", "-"], &batch)).unwrap();
            proposals.push((i, out["proposed"][0].as_str().unwrap().to_string()));
        }
    }
    let mut expected: Vec<String> = proposals
        .iter()
        .enumerate()
        .map(|(n, (i, _))| format!("proposed {i}-{}", n % 3))
        .collect();
    for round in 0..3 {
        let mut children = Vec::new();
        for (i, w) in spaces.iter().enumerate() {
            let line = format!("written {i}-{round}");
            expected.push(line.clone());
            children.push(
                w.std_cmd()
                    .args(["user", "add", "--section", "偏好", "--line", &line])
                    .output_async(),
            );
            let id = &proposals[i * 3 + round].1;
            children.push(w.std_cmd().args(["review", "accept", id]).output_async());
        }
        for c in children {
            let out = c.join();
            assert!(out.status.success(), "{}", text(&out.stderr));
        }
    }
    let file = std::fs::read_to_string(spaces[0].user_md()).unwrap();
    for line in &expected {
        assert_eq!(
            file.matches(&format!("{line}\n")).count(),
            1,
            "{line} once in:\n{file}"
        );
    }
    let show = spaces[3].json(&["user", "show"]);
    assert_eq!(show["pending"], 0, "{show}");

    // killed in the middle of a write: the file and the store still agree afterwards
    let killed = spaces[1]
        .cmd()
        .env("TRILOGY_CRASH_AT", "after-first-write")
        .args([
            "user",
            "add",
            "--section",
            "教训",
            "--line",
            "killed mid-write",
        ])
        .output()
        .unwrap();
    assert!(!killed.status.success());
    let after = spaces[2].json(&["user", "show"]);
    let lessons = after["sections"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["heading"] == "教训")
        .unwrap();
    assert_eq!(lessons["lines"], json!(["killed mid-write"]), "{after}");
    let file = std::fs::read_to_string(spaces[0].user_md()).unwrap();
    assert_eq!(file.matches("killed mid-write").count(), 1, "{file}");
    for line in &expected {
        assert!(file.contains(line.as_str()), "{line} kept");
    }
}

/// A spawned process's output, collected on a thread so all of them run at once.
trait Async {
    fn output_async(&mut self) -> Pending;
}

struct Pending(std::thread::JoinHandle<std::process::Output>);

impl Pending {
    fn join(self) -> std::process::Output {
        self.0.join().unwrap()
    }
}

impl Async for std::process::Command {
    fn output_async(&mut self) -> Pending {
        let child = self
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        Pending(std::thread::spawn(move || {
            child.wait_with_output().unwrap()
        }))
    }
}

#[test]
fn revisions_are_listed_and_restorable_and_doctor_looks_at_the_user_memory() {
    let ws = Ws::init();
    // nothing to look at before first use
    assert!(!ws.ok(&["doctor"]).contains("USER.md"));
    ws.ok(&[
        "user",
        "add",
        "--section",
        "Environment",
        "--line",
        "proxy 127.0.0.1:1080",
    ]);
    ws.ok(&[
        "user",
        "add",
        "--section",
        "Environment",
        "--line",
        "proxy 127.0.0.1:7890",
        "--replaces",
        "proxy 127.0.0.1:1080",
    ]);
    let log = ws.json(&["user", "log", "--section", "Environment"]);
    let revisions = log["revisions"]
        .as_array()
        .unwrap_or_else(|| panic!("{log}"));
    assert!(revisions.len() >= 2, "{log}");
    let old = revisions
        .iter()
        .find(|r| r["body"].as_str().unwrap_or_default().contains("1080"))
        .unwrap_or_else(|| panic!("the replaced line is in the history: {log}"));
    let rev = old["revision"].as_u64().unwrap().to_string();
    ws.ok(&["user", "restore", "--section", "环境", "--revision", &rev]);
    let file = user_file(&ws);
    assert!(
        file.contains("proxy 127.0.0.1:1080") && !file.contains("7890"),
        "{file}"
    );

    // a healthy user memory adds nothing to doctor's report
    let report = ws.json(&["doctor"]);
    assert!(!report.to_string().contains("\"user\""), "{report}");
    assert!(ws.ok(&["doctor"]).contains("all checks passed"));
    // a file that does not parse is a warning naming it and the line
    std::fs::write(ws.user_md(), format!("{file}<<<<<<< HEAD\nx\n")).unwrap();
    let report = ws.json(&["doctor"]);
    let f = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["check"] == "user")
        .unwrap()
        .clone();
    assert_eq!(f["level"], "warn", "{report}");
    assert!(
        f["message"].as_str().unwrap().contains("USER.md line"),
        "{f}"
    );
    std::fs::write(ws.user_md(), &file).unwrap();
    // a damaged store is set aside and rebuilt from USER.md by --fix
    let store = ws.user_md().with_file_name(".trilogy").join("store.redb");
    std::fs::write(&store, b"not a redb file at all").unwrap();
    let bad = ws.run(&["doctor", "--json"]);
    let bad: Value = serde_json::from_slice(&bad.stdout).unwrap();
    assert!(
        bad["findings"].to_string().contains("user memory's store"),
        "{bad}"
    );
    let fixed = ws.run(&["doctor", "--fix", "--json"]);
    let fixed: Value = serde_json::from_slice(&fixed.stdout).unwrap();
    assert!(
        fixed["fixed"].to_string().contains("damaged store"),
        "{fixed}"
    );
    assert!(ws.ok(&["user"]).contains("proxy 127.0.0.1:1080"));
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

#[test]
fn the_user_memory_folder_is_never_a_workspace() {
    let ws = Ws::init();
    ws.ok(&["user", "add", "--section", "偏好", "--line", "先给结论"]);
    let dir = ws.user_md().parent().unwrap().to_path_buf();
    for args in [vec!["status"], vec!["init"], vec!["inject"]] {
        let out = std::process::Command::new(assert_cmd::cargo::cargo_bin("trilogy"))
            .arg("--root")
            .arg(&dir)
            .args(&args)
            .env("XDG_DATA_HOME", ws.data_home())
            .env("XDG_STATE_HOME", ws.state.path())
            .env("TRILOGY_CONFIG", ws.root().join("no-user-config.toml"))
            .env_remove("TRILOGY_USER_MEMORY_DIR")
            .output()
            .unwrap();
        let err = text(&out.stderr);
        assert!(
            !out.status.success() && err.contains("user memory"),
            "{args:?}: {err}"
        );
    }
    assert!(!dir.join("memory").exists() && !dir.join("AGENTS.md").exists());
    // and the user memory still works
    ws.ok(&["user", "add", "--section", "偏好", "--line", "回答用中文"]);
    assert!(user_part(&ws.ok(&["inject"])).contains("回答用中文"));
}

#[test]
fn a_checkpoint_that_fails_leaves_no_user_line_behind_and_review_works_outside_a_workspace() {
    let ws = Ws::init();
    let own = ws.root().join("own.toml");
    std::fs::write(&own, "[review_mode]\nuser = \"direct\"\n").unwrap();
    for config in [None, Some(&own)] {
        let mut cmd = ws.cmd();
        if let Some(c) = config {
            cmd.env("TRILOGY_CONFIG", c);
        }
        let bad = json!({"user":[{"section":"偏好","line":"用 pnpm"}],
            "decisions":[{"choice":"x","supersedes":"a decision that does not exist"}]});
        let out = cmd
            .args(["checkpoint", "-"])
            .write_stdin(bad.to_string())
            .output()
            .unwrap();
        assert!(!out.status.success(), "{}", text(&out.stdout));
        assert!(
            ws.json(&["review", "list"])["proposals"]
                .as_array()
                .unwrap()
                .is_empty()
        );
        let file = std::fs::read_to_string(ws.user_md()).unwrap_or_default();
        assert!(!file.contains("pnpm"), "{file}");
    }
    // a user proposal made from a repository that never ran `init`, reviewed from anywhere
    let bare = Ws::sharing_user(ws.user_md().parent().unwrap());
    std::fs::create_dir(bare.root().join(".git")).unwrap();
    let out: Value = serde_json::from_str(&bare.ok_stdin(
        &["checkpoint", "--json", "-"],
        r#"{"user":[{"section":"约定","line":"提交信息用英文"}]}"#,
    ))
    .unwrap();
    let id = out["proposed"][0].as_str().unwrap().to_string();
    let listed = bare.json(&["review", "list"]);
    assert_eq!(listed["proposals"][0]["id"], id.as_str(), "{listed}");
    // accepting refuses text of several lines, as every other path does
    let multi = bare.run(&["review", "accept", &id, "--text", "a\n## 偏好\nb"]);
    assert!(
        !multi.status.success() && text(&multi.stderr).contains("user[0].line"),
        "{}",
        text(&multi.stderr)
    );
    bare.ok(&["review", "accept", &id]);
    assert!(user_file(&ws).contains("提交信息用英文"));
}

#[test]
fn a_writer_holding_the_user_store_never_stalls_a_session_start() {
    let ws = Ws::init();
    ws.ok(&["user", "add", "--section", "偏好", "--line", "先给结论"]);
    let mark = ws.state.path().join("paused");
    let mut writer = ws
        .std_cmd()
        .args(["user", "add", "--section", "教训", "--line", "写到一半停住"])
        .env("TRILOGY_PAUSE_AT", "before-write:4000")
        .env("TRILOGY_PAUSE_MARK", &mark)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    common::wait_for(&mark, "the writer never reached its pause");
    // it holds the user store's write lock now: a session start that could wait one
    // millisecond for it still gets the user memory, read from a snapshot
    let out = ws
        .cmd()
        .env("TRILOGY_LOCK_TIMEOUT_MS", "1")
        .args(["inject"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(user_part(&text(&out.stdout)).contains("先给结论"));
    assert!(writer.wait().unwrap().success());
    assert!(user_part(&ws.ok(&["inject"])).contains("写到一半停住"));
}

#[test]
fn user_edit_opens_the_editor_on_user_md_and_takes_what_it_saved() {
    let ws = Ws::init();
    let script = ws.state.path().join("editor.sh");
    std::fs::write(
        &script,
        "#!/bin/sh\nprintf '\\n## 工具\\n\\nrg 在 /usr/bin/rg\\n' >> \"$1\"\n",
    )
    .unwrap();
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let out = ws
        .cmd()
        .env("EDITOR", &script)
        .args(["user", "edit", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let shown: Value = serde_json::from_slice(&out.stdout).unwrap();
    let tools = shown["sections"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["heading"] == "工具");
    assert_eq!(
        tools.unwrap()["lines"],
        json!(["rg 在 /usr/bin/rg"]),
        "{shown}"
    );
    // a section the person added is one agents can write to, by its heading
    ws.ok(&[
        "user",
        "add",
        "--section",
        "工具",
        "--line",
        "fd 在 /usr/bin/fdfind",
    ]);
    assert!(user_file(&ws).contains("rg 在 /usr/bin/rg\nfd 在 /usr/bin/fdfind\n"));
    // an editor that fails says so and leaves the file as it was
    let failing = ws
        .cmd()
        .env("EDITOR", "false")
        .args(["user", "edit"])
        .output()
        .unwrap();
    assert!(
        !failing.status.success() && text(&failing.stderr).contains("exited"),
        "{}",
        text(&failing.stderr)
    );
}
