//! Clearing a workspace and the boot block: every entry stays restorable, the next command
//! starts from the templates, a clear that dies loses nothing, files brought back are read
//! again, and `block status`, `remove` and `rewrite`.

use super::*;

#[test]
fn clear_deletes_the_files_and_the_block_keeps_every_entry_restorable_and_the_next_session_starts_over()
 {
    let ws = Ws::init();
    let templates: Vec<(String, Vec<u8>)> = ws.snapshot();
    assert!(
        ws.root().join("AGENTS.md").exists(),
        "init writes the boot block"
    );
    session(&ws, "清空前的记录；测过", "构建");
    ws.ok(&[
        "checkpoint",
        "--section",
        "现状",
        "--text",
        "清空前的现状。",
    ]);

    let before = tree(ws.root());
    let refused = ws.run(&["clear"]);
    assert_eq!(refused.status.code(), Some(3));
    assert!(
        text(&refused.stderr).contains("restorable"),
        "{}",
        text(&refused.stderr)
    );
    assert_eq!(tree(ws.root()), before, "without --yes nothing changes");

    let v = ws.json(&["clear", "--yes"]);
    assert_eq!(v["bootBlockRemoved"], true, "{v}");
    assert_eq!(v["cleared"].as_array().unwrap().len(), 3, "{v}");
    assert!(
        !ws.root().join("memory").exists(),
        "the emptied folder goes"
    );
    assert!(
        !ws.root().join("AGENTS.md").exists(),
        "it held only the block"
    );

    // reading commands leave the files missing; nothing reads as lost or comes back
    ws.ok(&["status"]);
    let log = ws.json(&["log", "-n", "5"]);
    assert_eq!(log["events"][0]["op"], "clear", "{log}");
    assert_eq!(log["events"][0]["actor"], "cli");
    ws.ok(&["read"]);
    assert!(!ws.root().join("memory").exists());

    // the next session starts again from the templates and asks for the bootstrap
    let mut cmd = ws.std_cmd();
    cmd.args(["hook", "claude", "session-start"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(session_start_payload(&ws, "after-clear").as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        text(&out.stdout).contains("项目记忆还是空的"),
        "{}",
        text(&out.stdout)
    );
    assert_eq!(ws.snapshot(), templates, "the templates, byte for byte");
    assert!(ws.root().join("AGENTS.md").exists());

    // and every entry is still there to restore
    let id = log["events"][0]["ids"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i.as_str().unwrap())
        .find(|i| i.len() > 6)
        .unwrap()
        .to_string();
    ws.ok(&["restore", &id]);
    assert!(ws.read("SESSIONS.md").contains("清空前的记录"));
    let revs = ws.json(&["log", "--section", "现状"]);
    assert!(revs.to_string().contains("清空前的现状。"), "{revs}");
}

#[test]
fn a_command_that_records_after_a_clear_starts_from_the_templates() {
    let ws = Ws::init();
    let templates = ws.snapshot();
    session(&ws, "旧的；测过", "构建");
    ws.ok(&["clear", "--yes"]);
    session(&ws, "清空后的第一条；测过", "构建");
    let s = ws.read("SESSIONS.md");
    assert_eq!(headings(&s).len(), 1, "{s}");
    assert!(s.contains("清空后的第一条") && !s.contains("旧的"), "{s}");
    let project = &templates.iter().find(|(n, _)| n == "PROJECT.md").unwrap().1;
    assert_eq!(ws.read("PROJECT.md").as_bytes(), project.as_slice());
}

#[test]
fn block_status_remove_and_rewrite_manage_the_boot_block() {
    let ws = Ws::init();
    let agents = ws.root().join("AGENTS.md");
    let block = std::fs::read_to_string(&agents).unwrap();
    std::fs::write(&agents, format!("# Agents\n\nBe kind.\n\n{block}")).unwrap();
    let s = ws.json(&["block", "status"]);
    assert_eq!(s["exists"], true);
    assert_eq!(s["current"], true);
    assert_eq!(s["fileExists"], true);
    assert!(
        s["block"]
            .as_str()
            .unwrap()
            .contains("<!-- trilogy:start -->")
    );

    let r = ws.json(&["block", "remove"]);
    assert_eq!(r["removed"], true);
    assert_eq!(
        std::fs::read_to_string(&agents).unwrap(),
        "# Agents\n\nBe kind.\n"
    );
    assert_eq!(ws.json(&["block", "status"])["exists"], false);
    assert_eq!(ws.json(&["block", "remove"])["removed"], false);

    ws.ok(&["block", "rewrite"]);
    let t = std::fs::read_to_string(&agents).unwrap();
    assert!(
        t.starts_with("# Agents\n\nBe kind.\n\n<!-- trilogy:start -->"),
        "{t}"
    );
    assert_eq!(ws.json(&["block", "status"])["current"], true);

    // the original plugin's block: there, but old; rewrite replaces it, remove takes it out
    let legacy = ws.root().join("OLD.md");
    std::fs::write(
        &legacy,
        "mine\n\n<!-- dsh-trilogy -->\n\n## Memory\n\n旧的说明\n",
    )
    .unwrap();
    let s = ws.json(&["block", "status", "--file", "OLD.md"]);
    assert_eq!(
        (s["exists"].clone(), s["current"].clone()),
        (json!(true), json!(false))
    );
    ws.ok(&["block", "remove", "--file", "OLD.md"]);
    assert_eq!(std::fs::read_to_string(&legacy).unwrap(), "mine\n");
    std::fs::write(&legacy, "<!-- dsh-trilogy -->\n\n## Memory\n\n旧的说明\n").unwrap();
    ws.ok(&["block", "rewrite", "--file", "OLD.md"]);
    let t = std::fs::read_to_string(&legacy).unwrap();
    assert!(
        t.starts_with("<!-- trilogy:start -->") && !t.contains("dsh-trilogy"),
        "{t}"
    );
    ws.ok(&["block", "remove", "--file", "OLD.md"]);
    assert!(!legacy.exists(), "a file left empty is deleted");

    // a missing file, and a path out of the workspace
    let s = ws.json(&["block", "status", "--file", "NONE.md"]);
    assert_eq!(s["fileExists"], false);
    assert_eq!(
        ws.run(&["block", "remove", "--file", "../x.md"])
            .status
            .code(),
        Some(3)
    );
    // the managed memory region still works as before
    ws.ok(&["block", "--file", "AGENTS.local.md"]);
    assert!(
        std::fs::read_to_string(ws.root().join("AGENTS.local.md"))
            .unwrap()
            .contains("<!-- trilogy:memory:start -->")
    );
}

#[test]
fn restore_by_text_brings_back_the_archived_entry_that_holds_it() {
    let ws = Ws::init();
    std::fs::write(
        ws.root().join("trilogy.toml"),
        "sessions_max_entries = 2\nsessions_archive_batch = 0\n",
    )
    .unwrap();
    session(&ws, "修好了时区换算；cargo test 通过", "时间");
    session(&ws, "第二条；测过", "构建");
    session(&ws, "第三条；测过", "构建");
    session(&ws, "第四条；测过", "构建");
    assert!(ws.read("SESSIONS-archive.md").contains("时区换算"));
    let missing = ws.run(&["restore", "--text", "从没写过的话"]);
    assert_eq!(missing.status.code(), Some(4));
    assert!(text(&missing.stderr).contains("no archived entry contains that text"));
    let v = ws.json(&["restore", "--text", "  修好了时区换算  "]);
    assert_eq!(v["from"], "archived");
    assert!(ws.read("SESSIONS.md").contains("时区换算"));
    assert!(!ws.read("SESSIONS-archive.md").contains("时区换算"));
    // the whole entry as the original's panel sends it (a stale pointer line inside), on stdin
    let archive = ws.read("SESSIONS-archive.md");
    let part = archive
        .split("\n## ")
        .find(|p| p.contains("第二条"))
        .unwrap()
        .trim();
    let sent = format!("## {part}\n> 更早的会话条目已归档到 1 条（见 `SESSIONS-archive.md`）。\n");
    ws.ok_stdin(&["restore", "--text", "-"], &sent);
    assert!(ws.read("SESSIONS.md").contains("第二条"));
}

#[test]
fn a_clear_that_dies_before_its_commit_loses_nothing() {
    let ws = Ws::init();
    session(&ws, "崩溃前的记录；测过", "构建");
    let before = ws.snapshot();
    let out = ws
        .cmd()
        .args(["clear", "--yes"])
        .env("TRILOGY_CRASH_AT", "before-commit")
        .output()
        .unwrap();
    assert!(!out.status.success(), "the process died");
    // the store never recorded the clear: the next command writes the files back as they were
    ws.ok(&["init"]);
    assert_eq!(ws.snapshot(), before);
    let log = ws.json(&["log", "-n", "3"]);
    assert!(
        log["events"]
            .as_array()
            .unwrap()
            .iter()
            .all(|e| e["op"] != "clear"),
        "{log}"
    );
}

#[test]
fn files_brought_back_after_a_clear_are_read_again() {
    let ws = Ws::init();
    session(&ws, "清空前写下的；测过", "构建");
    let kept = ws.snapshot();
    ws.ok(&["clear", "--yes"]);
    // a checkout puts the old files back
    std::fs::create_dir_all(ws.root().join("memory")).unwrap();
    for (name, bytes) in &kept {
        std::fs::write(ws.path(name), bytes).unwrap();
    }
    session(&ws, "之后又写的；测过", "构建");
    let s = ws.read("SESSIONS.md");
    assert!(
        s.contains("清空前写下的") && s.contains("之后又写的"),
        "{s}"
    );
    let v = ws.json(&["read", "SESSIONS.md", "-n", "10"]);
    assert_eq!(v["entries"].as_array().unwrap().len(), 2, "{v}");
}
