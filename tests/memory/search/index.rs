//! The search index kept true: fresh after writes, hand edits, archive and restore; rebuilt
//! after a kill, corruption, deletion or another store; clear errors for bad queries; the tail
//! scanned when the writer is held elsewhere.

use super::*;

#[test]
fn results_are_fresh_after_writes_hand_edits_archive_and_restore() {
    let ws = fixture();
    ws.ok(&["search", "warmup"]);
    ws.ok(&[
        "checkpoint",
        "--session-done",
        "新增了 zebrafish 基准测试，跑通",
    ]);
    assert_eq!(
        ws.json(&["search", "zebrafish"])["hits"]
            .as_array()
            .unwrap()
            .len(),
        1,
        "a write is seen without reindex"
    );

    let s = ws.read("SESSIONS.md");
    ws.write("SESSIONS.md", &s.replace("zebrafish", "narwhal"));
    assert_eq!(
        ws.json(&["search", "zebrafish"])["hits"]
            .as_array()
            .unwrap()
            .len(),
        0,
        "the old text is gone"
    );
    assert_eq!(
        ws.json(&["search", "narwhal"])["hits"]
            .as_array()
            .unwrap()
            .len(),
        1,
        "the hand edit is found"
    );

    std::fs::write(
        ws.root().join("trilogy.toml"),
        "sessions_max_entries = 5\nsessions_archive_batch = 0\n",
    )
    .unwrap();
    ws.ok(&["checkpoint", "--session-done", "one more; tested"]);
    let v = ws.json(&["search", "指针行"]);
    assert_eq!(v["hits"][0]["state"], "archived");
    assert_eq!(v["hits"][0]["file"], "SESSIONS-archive.md");
    let id = v["hits"][0]["id"].as_str().unwrap().to_string();
    let live = ws.json(&["search", "指针行", "--archive", "exclude"]);
    assert!(
        live["hits"]
            .as_array()
            .unwrap()
            .iter()
            .all(|h| h["id"] != id.as_str()),
        "{live}"
    );
    ws.ok(&["restore", &id]);
    let v = ws.json(&["search", "指针行", "--archive", "exclude"]);
    assert_eq!(v["hits"][0]["id"], id.as_str());
    assert_eq!(v["hits"][0]["state"], "live");
}

#[test]
fn a_process_killed_while_indexing_leaves_a_correct_index() {
    let ws = fixture();
    let out = ws
        .cmd()
        .env("TRILOGY_CRASH_AT", "index-before-commit")
        .args(["reindex"])
        .output()
        .unwrap();
    assert!(!out.status.success(), "the process died mid-indexing");
    let found = |ws: &Ws| {
        let v = ws.json(&["search", "沙箱禁管道"]);
        assert!(
            v["hits"][0]["snippet"]
                .as_str()
                .unwrap()
                .contains("沙箱禁止命名管道"),
            "{v}"
        );
        v["unindexed"].as_u64().unwrap()
    };
    found(&ws);
    // and indexing again completes
    ws.ok(&["reindex"]);
    assert_eq!(found(&ws), 0);
}

#[test]
fn a_corrupt_or_deleted_index_is_rebuilt() {
    let ws = fixture();
    ws.ok(&["reindex"]);
    let dir = ws.root().join(".trilogy/index");
    // a broken segment under an intact meta.json, then everything broken
    let segments: Vec<std::path::PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "idx" || x == "term"))
        .collect();
    assert!(!segments.is_empty());
    for p in &segments {
        std::fs::write(p, b"garbage").unwrap();
    }
    let v = ws.json(&["search", "render_sessions"]);
    assert!(!v["hits"].as_array().unwrap().is_empty(), "{v}");
    ws.ok(&["reindex"]);
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_file() {
            std::fs::write(&p, b"garbage").unwrap();
        }
    }
    let v = ws.json(&["search", "parseSessions"]);
    assert!(!v["hits"].as_array().unwrap().is_empty(), "{v}");
    std::fs::remove_dir_all(&dir).unwrap();
    let v = ws.json(&["search", "倒排索引"]);
    assert!(
        v["hits"]
            .as_array()
            .unwrap()
            .iter()
            .any(|h| h["snippet"].as_str().unwrap().contains("倒排索引")),
        "{v}"
    );
    let out = ws.ok(&["reindex"]);
    assert!(out.contains("indexed"), "{out}");
}

#[test]
fn bad_queries_are_clear_errors_and_syntax_is_text() {
    let ws = fixture();
    for q in ["", "   "] {
        let out = ws.run(&["search", q]);
        assert_eq!(out.status.code(), Some(3));
        assert!(text(&out.stderr).contains("empty"));
    }
    // the command line caps one argument at 128 KiB; the operation itself gets the 1 MiB query
    let out = ws.run(&["search", &"x".repeat(100_000)]);
    assert_eq!(out.status.code(), Some(3));
    assert!(text(&out.stderr).contains("4096"));
    let big = trilogy::index::SearchQuery {
        text: "字".repeat(350_000),
        ..Default::default()
    };
    let e = trilogy::ops::search::prepare(big).unwrap_err();
    assert!(
        e.to_string().contains("1050000 bytes") && e.to_string().contains("4096"),
        "{e}"
    );
    for q in ["\"unclosed", "title:", "(a OR", "a AND NOT b", "*", "redb)"] {
        let out = ws.run(&["search", q, "--json"]);
        assert!(
            out.status.code() == Some(0) || text(&out.stderr).contains("no searchable"),
            "{q}: {}",
            text(&out.stderr)
        );
    }
    let v = ws.json(&["search", "redb)", "-n", "50"]);
    assert!(
        v["hits"].as_array().unwrap().len() <= 20,
        "the limit is capped at 20"
    );
    let v = ws.json(&["search", "redb", "--kind", "decision"]);
    assert!(
        v["hits"]
            .as_array()
            .unwrap()
            .iter()
            .all(|h| h["kind"] == "decision")
    );
    // a kind the command line does not offer is a usage error naming the kinds there are
    let out = ws.run(&["search", "x", "--kind", "nope"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("session") && err.contains("prose"), "{err}");
}

#[test]
fn writer_held_elsewhere_means_the_tail_is_scanned() {
    // another process holding the index writer: simulated by tantivy's own lock file
    let ws = fixture();
    ws.ok(&["search", "warmup"]);
    let holder = std::process::Command::new("sh")
        .args([
            "-c",
            "exec 9>\"$1/.tantivy-writer.lock\"; flock -x 9; exec sleep 8",
            "sh",
        ])
        .arg(ws.root().join(".trilogy/index"))
        .spawn();
    let Ok(mut holder) = holder else {
        panic!("sh and flock (util-linux) are needed")
    };
    // wait until the holder really has the lock (a slow machine may take a while to start it)
    let lock = ws.root().join(".trilogy/index/.tantivy-writer.lock");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    loop {
        let free = std::process::Command::new("flock")
            .arg("-n")
            .arg(&lock)
            .arg("true")
            .status()
            .expect("flock (util-linux) is needed")
            .success();
        if !free {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the lock holder never took the lock"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    ws.ok(&[
        "checkpoint",
        "--session-done",
        "okapi sighting while the writer was busy; tested",
    ]);
    let v = ws.json(&["search", "okapi"]);
    let _ = holder.kill();
    let _ = holder.wait();
    assert_eq!(v["hits"].as_array().unwrap().len(), 1, "{v}");
    assert!(
        v["unindexed"].as_u64().unwrap() >= 1,
        "the new entry came from the store tail: {v}"
    );
    // once the writer is free it is still found, and indexing it is possible again
    let v = ws.json(&["search", "okapi"]);
    assert_eq!(v["hits"].as_array().unwrap().len(), 1);
    ws.ok(&["reindex"]);
    let v = ws.json(&["search", "okapi"]);
    assert_eq!(v["unindexed"], 0);
    assert_eq!(v["hits"].as_array().unwrap().len(), 1);
}

#[test]
fn an_index_built_from_another_store_is_rebuilt() {
    // the store is rebuilt from the Markdown underneath a kept index: its change sequence
    // starts over and may even pass the index's, so the index must know whose it is
    let ws = fixture();
    ws.ok(&["reindex"]);
    std::fs::remove_file(ws.root().join(".trilogy/store.redb")).unwrap();
    let s = ws.read("SESSIONS.md");
    ws.write(
        "SESSIONS.md",
        &s.replace("沙箱禁止命名管道", "沙箱允许匿名管道"),
    );
    for i in 0..40 {
        ws.ok(&[
            "checkpoint",
            "--session-done",
            &format!("filler {i}; tested"),
        ]);
    }
    let v = ws.json(&["search", "命名管道"]);
    assert!(
        !v["hits"].to_string().contains("沙箱禁止命名管道"),
        "the old text is gone: {v}"
    );
    let v = ws.json(&["search", "匿名管道"]);
    assert!(
        v["hits"][0]["snippet"]
            .as_str()
            .unwrap()
            .contains("沙箱允许匿名管道"),
        "{v}"
    );
}
