//! Behaviours users of the original plugin rely on: an oversized newest decision, resumed
//! sessions, the window when the host gives none, staleness that survives a clone, long
//! PROJECT sections.

use crate::common;

use common::{TODAY, Ws, git_output, text};

fn git(root: &std::path::Path, args: &[&str]) {
    let out = git_output(root, args);
    assert!(out.status.success(), "git {args:?}: {}", text(&out.stderr));
}

#[test]
fn an_oversized_newest_decision_is_cut_and_the_older_one_still_fits() {
    let ws = Ws::init();
    ws.ok(&[
        "checkpoint",
        "--decision",
        "small older choice",
        "--because",
        "it was simple",
    ]);
    // written by hand: a person's long write-up of one decision
    let huge = "因为这个决定牵涉很多细节，需要写下来。\n".repeat(800);
    assert!(huge.len() > 44_000);
    let d = ws.read("DECISIONS.md");
    let at = d.find("\n## ").unwrap() + 1;
    ws.write(
        "DECISIONS.md",
        &format!(
            "{}## {TODAY} — the big newest choice\n选择：big\n因为：\n{huge}\n{}",
            &d[..at],
            &d[at..]
        ),
    );
    let v = ws.json(&["inject", "--window-tokens", "128000"]);
    let block = v["block"]["text"].as_str().unwrap();
    let ledger = &v["block"]["ledger"];
    assert_eq!(ledger["budget_bytes"], 20_480);
    assert!(block.len() <= 20_480, "{}", block.len());
    assert!(block.contains("the big newest choice"), "newest present");
    assert!(block.contains("注入上限"), "cut with its marker: {block}");
    assert!(block.contains("small older choice"), "older injected too");
    assert_eq!(ledger["decisions_shown"], 2);
    assert_eq!(ledger["decisions_live"], 2);
    assert_eq!(ledger["decision_cut"], true);
    assert!(block.contains("DECISIONS.md 2/2 条"), "{block}");
    assert!(
        block.contains("最新一条超出其份额"),
        "the footer says what was cut"
    );
    assert!(
        !block.contains("较早的"),
        "no older decision is said to be left out"
    );
}

#[test]
fn a_resumed_session_is_told_what_changed_not_given_the_block_again() {
    let ws = Ws::init();
    ws.ok(&["checkpoint", "--session-done", "first; tested"]);
    let first = ws.ok(&["inject", "--session", "s1", "--source", "startup"]);
    assert!(first.contains("first; tested"), "{first}");
    // memory changes elsewhere while the session is away
    ws.ok(&[
        "checkpoint",
        "--session-done",
        "meanwhile elsewhere; tested",
    ]);
    let resumed = ws.ok(&["inject", "--session", "s1", "--source", "resume"]);
    assert!(
        !resumed.contains("first; tested") && resumed.len() < 600,
        "a short notice, not the block: {resumed}"
    );
    assert!(resumed.contains("项目记忆有更新"), "{resumed}");
    // the same through the SessionStart hook
    let payload = serde_json::json!({
        "session_id": "s1", "hook_event_name": "SessionStart", "source": "resume",
        "cwd": ws.root().display().to_string(), "transcript_path": "/nonexistent",
    });
    ws.ok(&["checkpoint", "--session-done", "again elsewhere; tested"]);
    let hook = ws.ok_stdin(&["hook", "claude", "session-start"], &payload.to_string());
    assert!(
        hook.contains("项目记忆有更新") && !hook.contains("first; tested"),
        "{hook}"
    );
    // compacted: the context lost the block, so it comes whole
    let compacted = ws.ok(&["inject", "--session", "s1", "--source", "compact"]);
    assert!(compacted.contains("first; tested"), "{compacted}");
    // a session never seen before gets the whole block, even when it says resume
    let other = ws.ok(&["inject", "--session", "s2", "--source", "resume"]);
    assert!(other.contains("first; tested"), "{other}");
}

#[test]
fn the_configured_window_sizes_the_block_when_the_host_gives_none() {
    let ws = Ws::init();
    for i in 0..40 {
        let done = format!(
            "entry {i}: {}; tested",
            "a long line of work notes ".repeat(80)
        );
        ws.ok(&["checkpoint", "--session-done", &done]);
    }
    let v = ws.json(&["inject", "--set", "window_tokens=128000"]);
    assert_eq!(v["block"]["ledger"]["budget_bytes"], 20_480);
    // the managed block for hosts without hooks follows it too
    let file = ws.root().join("DSH.md");
    ws.ok(&[
        "block",
        "--file",
        file.to_str().unwrap(),
        "--set",
        "window_tokens=128000",
    ]);
    let with_window = std::fs::read_to_string(&file).unwrap();
    assert!(with_window.len() <= 20_480 + 200, "{}", with_window.len());
    std::fs::remove_file(&file).unwrap();
    ws.ok(&["block", "--file", file.to_str().unwrap()]);
    let without = std::fs::read_to_string(&file).unwrap();
    assert!(without.len() > 20_480 + 200, "{}", without.len());
    // a host's own window still wins
    let v = ws.json(&[
        "inject",
        "--set",
        "window_tokens=128000",
        "--window-tokens",
        "200000",
    ]);
    assert_eq!(v["block"]["ledger"]["budget_bytes"], 32_000);
}

#[test]
fn staleness_survives_a_fresh_clone() {
    let origin = Ws::init();
    git(origin.root(), &["init", "-q"]);
    origin.write(
        "PROJECT.md",
        "# PROJECT\n\n## 这是什么\n\nA sync tool.\n\n## 现状\n\nWorks.\n",
    );
    git(origin.root(), &["add", "memory"]);
    let old = "2026-09-30T12:00:00+00:00";
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(origin.root())
        .args(["commit", "-qm", "project"])
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .env("GIT_AUTHOR_DATE", old)
        .env("GIT_COMMITTER_DATE", old)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    origin
        .cmd()
        .env("TRILOGY_TODAY", "2026-11-24")
        .args(["checkpoint", "--session-done", "five days ago; tested"])
        .assert()
        .success();
    git(origin.root(), &["add", "memory"]);
    git(origin.root(), &["commit", "-qm", "session"]);

    let clone = Ws::new();
    std::fs::remove_dir(clone.root()).unwrap();
    let out = std::process::Command::new("git")
        .args(["clone", "-q"])
        .arg(origin.root())
        .arg(clone.root())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(!clone.root().join(".trilogy").exists(), "a fresh clone");
    let v = clone.json(&["status"]);
    assert_eq!(
        v["stale"],
        serde_json::json!({"behind_days": 55, "entries_since": 1}),
        "{v}"
    );
    let status = clone.ok(&["status"]);
    assert!(status.contains("STALE: PROJECT.md"), "{status}");
    let block = clone.ok(&["inject"]);
    assert!(block.contains("PROJECT.md 可能过时"), "{block}");
    // recording PROJECT.md through trilogy makes it current
    clone.ok(&[
        "checkpoint",
        "--section",
        "现状",
        "--text",
        "Works, checked today.",
    ]);
    assert_eq!(clone.json(&["status"])["stale"], serde_json::Value::Null);
    assert_eq!(TODAY, "2026-11-29");
}

#[test]
fn a_forty_thousand_character_section_is_accepted_and_cut_at_injection() {
    let ws = Ws::init();
    ws.ok(&[
        "checkpoint",
        "--section",
        "这是什么",
        "--text",
        "一个同步工具。",
    ]);
    let long = "项目现状的详细说明，".repeat(4000);
    assert_eq!(long.chars().count(), 40_000);
    let batch = serde_json::json!({"project": [{"section": "现状", "text": long}]});
    ws.ok_stdin(&["checkpoint"], &batch.to_string());
    assert!(ws.read("PROJECT.md").contains(&long), "stored whole");
    let block = ws.ok(&["inject"]);
    assert!(
        block.contains("## 这是什么\n\n一个同步工具。"),
        "sibling whole"
    );
    assert!(block.contains("本节超出"), "cut with its marker");
    assert!(block.len() < long.len(), "cut");
}

#[test]
fn rebuilding_the_store_from_the_markdown_reports_its_progress() {
    use std::sync::{Arc, Mutex};
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("memory")).unwrap();
    let mut text = String::from("# SESSIONS\n");
    for i in 0..4500 {
        text.push_str(&format!(
            "\n## 2026-01-{:02}\n完成：entry {i}; tested\n",
            i % 28 + 1
        ));
    }
    std::fs::write(dir.path().join("memory/SESSIONS.md"), &text).unwrap();
    let ws = trilogy::workspace::Workspace::new(
        dir.path().to_path_buf(),
        trilogy::config::Config::default(),
        trilogy::workspace::Clock::default(),
    );
    let seen: Arc<Mutex<Vec<(usize, usize)>>> = Arc::default();
    let log = seen.clone();
    ws.on_progress(Box::new(move |_, d, t| log.lock().unwrap().push((d, t))));
    trilogy::ops::status(&ws).unwrap();
    let seen = seen.lock().unwrap();
    assert!(seen.len() >= 3, "{seen:?}");
    assert_eq!(seen.last(), Some(&(4500, 4500)));
    assert!(seen.windows(2).all(|w| w[0].0 < w[1].0), "{seen:?}");
}

#[test]
fn the_first_search_of_a_fresh_clone_reports_building_the_index() {
    use std::sync::{Arc, Mutex};
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("memory")).unwrap();
    let mut text = String::from("# SESSIONS\n");
    for i in 0..4500 {
        text.push_str(&format!(
            "\n## 2026-01-{:02}\n完成：entry {i} narwhal; tested\n",
            i % 28 + 1
        ));
    }
    std::fs::write(dir.path().join("memory/SESSIONS.md"), &text).unwrap();
    let ws = trilogy::workspace::Workspace::new(
        dir.path().to_path_buf(),
        trilogy::config::Config::default(),
        trilogy::workspace::Clock::default(),
    );
    type Reports = Vec<(&'static str, usize, usize)>;
    let seen: Arc<Mutex<Reports>> = Arc::default();
    let log = seen.clone();
    ws.on_progress(Box::new(move |what, d, t| {
        log.lock().unwrap().push((what, d, t))
    }));
    let query = trilogy::index::SearchQuery {
        text: "narwhal".into(),
        limit: 5,
        ..Default::default()
    };
    let hits = trilogy::ops::search::search(&ws, query).unwrap().hits;
    assert!(!hits.is_empty());
    let seen = seen.lock().unwrap();
    let stages: Vec<&str> = seen.iter().map(|(w, _, _)| *w).collect();
    let first_index = stages
        .iter()
        .position(|w| *w == "indexing")
        .expect("indexing reported");
    assert!(
        stages[..first_index]
            .iter()
            .all(|w| *w == "reading the memory files"),
        "the store is rebuilt first: {stages:?}"
    );
    let indexing: Vec<(usize, usize)> = seen
        .iter()
        .filter(|(w, _, _)| *w == "indexing")
        .map(|(_, d, t)| (*d, *t))
        .collect();
    assert!(indexing.len() >= 2, "{indexing:?}");
    let (last, total) = *indexing.last().unwrap();
    assert_eq!(last, total, "it reports the end: {indexing:?}");
    assert!(total >= 4500, "every entry is indexed: {indexing:?}");
}
