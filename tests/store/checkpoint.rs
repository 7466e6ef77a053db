//! Recording through `trilogy checkpoint`: routes, order, areas, idempotence, errors, secrets,
//! notes, supersedes, and the archive.

use crate::common;

use common::{Ws, headings, text};

#[test]
fn scaffold_zh_matches_snapshot() {
    let ws = Ws::init();
    insta::assert_snapshot!("scaffold_zh_project", ws.read("PROJECT.md"));
    insta::assert_snapshot!("scaffold_zh_decisions", ws.read("DECISIONS.md"));
    insta::assert_snapshot!("scaffold_zh_sessions", ws.read("SESSIONS.md"));
    insta::assert_snapshot!(
        "scaffold_zh_agents",
        std::fs::read_to_string(ws.root().join("AGENTS.md")).unwrap()
    );
    assert_eq!(ws.read("PROJECT.md").matches("暂无").count(), 5);
}

#[test]
fn scaffold_en_matches_snapshot() {
    let ws = Ws::new();
    ws.ok(&["--set", "lang=en", "init"]);
    insta::assert_snapshot!("scaffold_en_project", ws.read("PROJECT.md"));
    insta::assert_snapshot!("scaffold_en_decisions", ws.read("DECISIONS.md"));
    insta::assert_snapshot!("scaffold_en_sessions", ws.read("SESSIONS.md"));
    insta::assert_snapshot!(
        "scaffold_en_agents",
        std::fs::read_to_string(ws.root().join("AGENTS.md")).unwrap()
    );
}

#[test]
fn init_twice_overwrites_nothing_and_keeps_one_boot_block() {
    let ws = Ws::init();
    ws.ok(&["checkpoint", "--section", "现状", "--text", "it runs"]);
    let before = ws.snapshot();
    let out = ws.ok(&["init"]);
    assert!(out.contains("already here; not overwritten"), "{out}");
    assert_eq!(ws.snapshot(), before);
    let agents = std::fs::read_to_string(ws.root().join("AGENTS.md")).unwrap();
    assert_eq!(agents.matches("<!-- trilogy:start -->").count(), 1);
}

const BATCH: &str = r#"{
  "sessions": [
    {"done": "first item, topmost; cargo test passes", "area": "store", "next": "bench it"},
    {"done": "second item", "open": "half done"}
  ],
  "decisions": [{"choice": "redb as the truth", "over": "plain files", "because": "many writers"}],
  "project": [
    {"section": "State", "text": "it runs\nslowly"},
    {"section": "怎么跑和怎么测", "line": "`cargo test`"}
  ],
  "notes": "README still mentions the old flag"
}"#;

#[test]
fn checkpoint_writes_all_three_routes() {
    let ws = Ws::init();
    let out = ws.ok_stdin(&["checkpoint"], BATCH);
    assert!(out.contains("Recorded 5 item(s)"), "{out}");
    insta::assert_snapshot!("after_checkpoint_project", ws.read("PROJECT.md"));
    insta::assert_snapshot!("after_checkpoint_decisions", ws.read("DECISIONS.md"));
    insta::assert_snapshot!("after_checkpoint_sessions", ws.read("SESSIONS.md"));
    let s = ws.read("SESSIONS.md");
    let h = headings(&s);
    assert_eq!(
        h,
        ["2026-11-29 · store", "2026-11-29"],
        "sessions[0] is topmost"
    );
    assert!(
        s.contains("完成：second item（未验证）"),
        "unverified claim is marked"
    );
    assert!(
        ws.read("PROJECT.md")
            .contains("## 现状\n\nit runs\nslowly\n"),
        "legacy name edits the zh section"
    );
}

#[test]
fn retried_identical_call_writes_nothing_new() {
    let ws = Ws::init();
    ws.ok_stdin(&["checkpoint"], BATCH);
    let files = ws.snapshot();
    let events = ws.event_count();
    let v: serde_json::Value =
        serde_json::from_str(&ws.ok_stdin(&["checkpoint", "--json"], BATCH)).unwrap();
    assert_eq!(v["written"].as_array().unwrap().len(), 0, "{v}");
    assert!(v["warnings"].to_string().contains("identical entry"), "{v}");
    assert_eq!(ws.snapshot(), files);
    assert_eq!(ws.event_count(), events);
    let st = ws.json(&["status"]);
    assert_eq!(
        st["open_reports"].as_array().unwrap().len(),
        1,
        "one report, not two"
    );
}

#[test]
fn notes_become_an_open_report_in_status() {
    let ws = Ws::init();
    ws.ok_stdin(&["checkpoint"], BATCH);
    let st = ws.json(&["status"]);
    let reports = st["open_reports"].as_array().unwrap();
    assert_eq!(reports[0]["text"], "README still mentions the old flag");
    let human = ws.ok(&["status"]);
    assert!(
        human.contains("open reports (1)") && human.contains("README still mentions"),
        "{human}"
    );
    let n = reports[0]["seq"].as_u64().unwrap().to_string();
    assert!(ws.ok(&["reports"]).contains("README still mentions"));
    ws.ok(&["reports", "--close", &n]);
    assert!(ws.ok(&["reports"]).contains("no open reports"));
    assert!(ws.ok(&["reports", "--all"]).contains("closed"));
    assert_eq!(
        ws.json(&["status"])["open_reports"]
            .as_array()
            .unwrap()
            .len(),
        0
    );
}

#[test]
fn areas_fold_into_the_closed_set() {
    let ws = Ws::init();
    for a in ["插件", "部署", "Net", "docs"] {
        ws.ok(&[
            "checkpoint",
            "--session-done",
            &format!("{a} work; tested"),
            "--area",
            a,
        ]);
    }
    let v: serde_json::Value = serde_json::from_str(&ws.ok(&[
        "checkpoint",
        "--json",
        "--session-done",
        "fifth area; tested",
        "--area",
        "ui",
    ]))
    .unwrap();
    assert!(v["warnings"].to_string().contains("folded"), "{v}");
    ws.ok(&[
        "checkpoint",
        "--session-done",
        "reuse; tested",
        "--area",
        "  net ",
    ]);
    ws.ok(&[
        "checkpoint",
        "--session-done",
        "explicit catch-all; tested",
        "--area",
        "通用",
    ]);
    let h = headings(&ws.read("SESSIONS.md"));
    assert_eq!(h[0], "2026-11-29", "通用 is never written");
    assert_eq!(
        h[1], "2026-11-29 · Net",
        "case-insensitive reuse keeps the first spelling"
    );
    assert_eq!(h[2], "2026-11-29", "the fifth area folded into 通用");
    assert!(!ws.read("SESSIONS.md").contains("· ui"));
    assert!(!ws.read("SESSIONS.md").contains("· 通用"));
}

#[test]
fn replaces_that_matches_nothing_lists_the_lines_and_changes_nothing() {
    let ws = Ws::init();
    ws.ok(&[
        "checkpoint",
        "--section",
        "坑",
        "--text",
        "line one\nline two",
    ]);
    let before = ws.snapshot();
    let out = ws.run(&[
        "checkpoint",
        "--section",
        "坑",
        "--line",
        "new",
        "--replaces",
        "line three",
    ]);
    assert_eq!(out.status.code(), Some(3));
    let err = text(&out.stderr);
    assert!(
        err.contains("line one") && err.contains("line two") && err.contains("line three"),
        "{err}"
    );
    assert_eq!(ws.snapshot(), before);
    let v: serde_json::Value = serde_json::from_str(&ws.ok(&[
        "checkpoint",
        "--json",
        "--section",
        "Traps",
        "--line",
        "line 2",
        "--replaces",
        "line two",
    ]))
    .unwrap();
    assert_eq!(v["dropped_lines"][0], "line two");
    assert!(ws.read("PROJECT.md").contains("line one\nline 2\n"));
    let hist = ws.json(&["log", "--section", "坑"]);
    assert!(
        hist["revisions"].to_string().contains("line two"),
        "dropped line kept in history"
    );
    // the same replacement again (a retry): nothing changes, and the output says why
    let before = ws.snapshot();
    let again: serde_json::Value = serde_json::from_str(&ws.ok(&[
        "checkpoint",
        "--json",
        "--section",
        "坑",
        "--line",
        "line 2",
        "--replaces",
        "line two",
    ]))
    .unwrap();
    assert_eq!(ws.snapshot(), before);
    assert!(
        again["warnings"]
            .to_string()
            .contains("already has `line 2`"),
        "{again}"
    );
}

#[test]
fn secrets_are_refused_with_location_and_nothing_is_stored() {
    let ws = Ws::init();
    let before = ws.snapshot();
    let events = ws.event_count();
    let batch = r#"{"sessions":[{"done":"ok"},{"done":"deployed\nkey -----BEGIN RSA PRIVATE KEY-----\nMIIE"}]}"#;
    let out = ws.run_stdin(&["checkpoint"], batch);
    assert_eq!(out.status.code(), Some(3));
    let err = text(&out.stderr);
    assert!(
        err.contains("sessions[1].done line 2") && err.contains("private key"),
        "{err}"
    );
    let out = ws.run(&["checkpoint", "--decision", "use key AKIAZ3MXQ7RTL5VW2KHD"]);
    assert_eq!(out.status.code(), Some(3));
    assert!(text(&out.stderr).contains("AWS access key"));
    assert!(
        !text(&out.stderr).contains("AKIAZ3MXQ7RTL5VW2KHD"),
        "the secret is not echoed"
    );
    assert_eq!(ws.snapshot(), before);
    assert_eq!(ws.event_count(), events);
}

#[test]
fn supersedes_marks_the_old_decision_and_unknown_is_an_error() {
    let ws = Ws::init();
    ws.ok(&[
        "checkpoint",
        "--decision",
        "use sqlite",
        "--because",
        "simple",
    ]);
    let out = ws.run(&[
        "checkpoint",
        "--decision",
        "use redb",
        "--supersedes",
        "use postgres",
    ]);
    assert_eq!(out.status.code(), Some(3));
    assert!(
        text(&out.stderr).contains("use sqlite"),
        "lists live decisions"
    );
    ws.ok(&[
        "checkpoint",
        "--decision",
        "use redb",
        "--supersedes",
        "use sqlite",
    ]);
    let d = ws.read("DECISIONS.md");
    assert!(
        d.contains("选择：use sqlite\n因为：simple\n已被取代：2026-11-29 — use redb"),
        "{d}"
    );
    let st = ws.json(&["read", "DECISIONS.md", "-n", "10"]);
    let states: Vec<&str> = st["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["state"].as_str().unwrap())
        .collect();
    assert_eq!(states, ["live", "superseded"]);
}

#[test]
fn archive_keeps_the_cap_with_one_pointer_and_restore_returns_by_date() {
    let ws = Ws::init();
    std::fs::write(
        ws.root().join("trilogy.toml"),
        "sessions_max_entries = 5\nsessions_archive_batch = 0\n",
    )
    .unwrap();
    for i in 0..12 {
        let out = ws
            .cmd()
            .env("TRILOGY_TODAY", format!("2026-01-{:02}", i + 1))
            .args([
                "checkpoint",
                "--session-done",
                &format!("entry {i}; tested"),
            ])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", text(&out.stderr));
    }
    let s = ws.read("SESSIONS.md");
    let a = ws.read("SESSIONS-archive.md");
    assert_eq!(headings(&s).len(), 5);
    assert_eq!(headings(&a).len(), 7);
    assert_eq!(headings(&s)[0], "2026-01-12");
    assert_eq!(s.matches("> 更早的会话条目已归档到").count(), 1);
    assert!(
        s.trim_end()
            .lines()
            .last()
            .unwrap()
            .starts_with("> 更早的会话条目已归档到 7 条")
    );
    let ah = headings(&a);
    let mut sorted = ah.clone();
    sorted.sort_by(|x, y| y.cmp(x));
    assert_eq!(ah, sorted, "archive newest first across rounds");
    assert!(a.starts_with("# SESSIONS ARCHIVE"));
    assert_eq!(a.matches("# SESSIONS ARCHIVE").count(), 1);

    let entries = ws.json(&["read", "SESSIONS-archive.md", "-n", "100"]);
    let third = entries["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["heading"] == "2026-01-03")
        .unwrap();
    ws.ok(&["restore", third["id"].as_str().unwrap()]);
    let s = ws.read("SESSIONS.md");
    assert_eq!(
        headings(&s).last().unwrap(),
        "2026-01-03",
        "restored at its date position"
    );
    assert!(
        s.contains("> 更早的会话条目已归档到 6 条"),
        "pointer follows the restore"
    );
    assert!(!ws.read("SESSIONS-archive.md").contains("## 2026-01-03"));
}

#[test]
fn malformed_and_invalid_batches_are_clear_errors() {
    let ws = Ws::init();
    let before = ws.snapshot();
    let cases: [(&str, &str); 5] = [
        ("{\"sessions\": [", "line"),
        (
            "{\"sessions\":[{\"done\":\"\"}]}",
            "sessions[0].done is empty",
        ),
        (
            "{\"project\":[{\"section\":\"Status\",\"text\":\"x\"}]}",
            "这是什么 / What this is",
        ),
        ("{\"sesions\":[]}", "sesions"),
        ("{\"project\":[{\"section\":\"坑\"}]}", "missing `text`"),
    ];
    for (batch, needle) in cases {
        let out = ws.run_stdin(&["checkpoint"], batch);
        assert_eq!(out.status.code(), Some(3), "{batch}");
        let err = text(&out.stderr);
        assert!(err.contains(needle), "{batch}: {err}");
    }
    let big = format!("{{\"sessions\":[{{\"done\":\"{}\"}}]}}", "x".repeat(20_000));
    let out = ws.run_stdin(&["checkpoint"], &big);
    assert_eq!(out.status.code(), Some(3));
    assert!(text(&out.stderr).contains("16384 bytes"));
    assert_eq!(ws.snapshot(), before);
    let out = ws.run_stdin(&["checkpoint", "--json"], "{");
    let v: serde_json::Value = serde_json::from_str(&text(&out.stdout)).unwrap();
    assert_eq!(v["error"]["kind"], "bad_input");
}
