//! The archive kept true: a crash while archiving, the pointer count after a hand edit,
//! same-date entries in order after an import, and round after round equal to its rendering.

use super::*;

#[test]
fn crash_while_archiving_leaves_the_entry_archived_not_removed() {
    let ws = Ws::init();
    std::fs::write(
        ws.root().join("trilogy.toml"),
        "sessions_max_entries = 2\nsessions_archive_batch = 0\n",
    )
    .unwrap();
    for (d, t) in [("2026-01-01", "s1; tested"), ("2026-01-02", "s2; tested")] {
        ws.cmd()
            .env("TRILOGY_TODAY", d)
            .args(["checkpoint", "--session-done", t])
            .assert()
            .success();
    }
    let out = ws
        .cmd()
        .env("TRILOGY_TODAY", "2026-01-03")
        .env("TRILOGY_CRASH_AT", "after-first-write")
        .args(["checkpoint", "--session-done", "s3; tested"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    ws.ok(&["status"]);
    let all = format!(
        "{}{}",
        ws.read("SESSIONS.md"),
        std::fs::read_to_string(ws.path("SESSIONS-archive.md")).unwrap_or_default()
    );
    assert!(all.contains("s1; tested"), "s1 is in a file:\n{all}");
    let st = ws.json(&["status"]);
    assert_eq!(st["restorable"], 0, "nothing was marked removed");
}

#[test]
fn pointer_count_follows_a_hand_edit_of_the_archive() {
    let ws = Ws::init();
    std::fs::write(
        ws.root().join("trilogy.toml"),
        "sessions_max_entries = 1\nsessions_archive_batch = 0\n",
    )
    .unwrap();
    for d in ["2026-01-01", "2026-01-02", "2026-01-03"] {
        ws.cmd()
            .env("TRILOGY_TODAY", d)
            .args(["checkpoint", "--session-done", &format!("{d}; tested")])
            .assert()
            .success();
    }
    assert!(ws.read("SESSIONS.md").contains("归档到 2 条"));
    let a = ws.read("SESSIONS-archive.md");
    let cut = a.find("## 2026-01-01").unwrap();
    ws.write("SESSIONS-archive.md", a[..cut].trim_end());
    // a read takes the edit in; the next write re-counts the pointer
    ws.ok(&["status"]);
    assert!(ws.read("SESSIONS.md").contains("归档到 2 条"));
    ws.ok(&["doctor", "--fix"]);
    assert!(
        ws.read("SESSIONS.md").contains("归档到 1 条"),
        "{}",
        ws.read("SESSIONS.md")
    );
}

#[test]
fn archiving_keeps_same_date_entries_in_order_after_an_import() {
    let ws = Ws::init();
    std::fs::write(
        ws.root().join("trilogy.toml"),
        "sessions_max_entries = 3\nsessions_archive_batch = 0\n",
    )
    .unwrap();
    let s = ws.read("SESSIONS.md");
    ws.write(
        "SESSIONS.md",
        &format!(
            "{s}\n## 2026-01-02\n完成：A\n\n## 2026-01-01\n完成：B\n\n## 2026-01-01\n完成：C\n"
        ),
    );
    std::fs::write(
        ws.path("SESSIONS-archive.md"),
        "# SESSIONS ARCHIVE\n\n## 2026-01-01\n完成：D\n\n## 2025-12-31\n完成：E\n",
    )
    .unwrap();
    std::fs::remove_dir_all(ws.root().join(".trilogy")).unwrap();
    ws.cmd()
        .env("TRILOGY_TODAY", "2026-01-03")
        .args(["checkpoint", "--session-done", "new; tested"])
        .assert()
        .success();
    let a = ws.read("SESSIONS-archive.md");
    let pos = |x: &str| {
        a.find(&format!("完成：{x}\n"))
            .unwrap_or_else(|| panic!("{x} missing:\n{a}"))
    };
    assert!(pos("C") < pos("D") && pos("D") < pos("E"), "{a}");
}

#[test]
fn archiving_round_after_round_keeps_the_archive_equal_to_its_rendering() {
    // each round moves the oldest live session into the archive; the archive is then written
    // by splicing onto the file (debug builds assert it equals the full rendering)
    let ws = Ws::init();
    std::fs::write(
        ws.root().join("trilogy.toml"),
        "sessions_max_entries = 2\nsessions_archive_batch = 0\n",
    )
    .unwrap();
    for (i, d) in [
        "2026-01-01",
        "2026-01-02",
        "2026-01-03",
        "2026-01-03",
        "2026-01-05",
        "2026-01-07",
        "2026-01-08",
    ]
    .iter()
    .enumerate()
    {
        ws.cmd()
            .env("TRILOGY_TODAY", d)
            .args([
                "checkpoint",
                "--session-done",
                &format!("round {i}; tested"),
            ])
            .assert()
            .success();
        if i == 4 {
            // a hand edit of the archive in between: the next round renders it whole
            let a = ws.read("SESSIONS-archive.md");
            ws.write(
                "SESSIONS-archive.md",
                &a.replace("round 0; tested", "round 0; tested by hand"),
            );
        }
        let doctor = ws.run(&["doctor"]);
        assert!(
            doctor.status.success(),
            "round {i}: {}",
            text(&doctor.stdout)
        );
    }
    let a = ws.read("SESSIONS-archive.md");
    assert_eq!(
        headings(&a),
        [
            "2026-01-05",
            "2026-01-03",
            "2026-01-03",
            "2026-01-02",
            "2026-01-01"
        ]
    );
    assert!(a.contains("round 0; tested by hand"));
    let before = ws.snapshot();
    std::fs::remove_dir_all(ws.root().join(".trilogy")).unwrap();
    ws.ok(&["status"]);
    assert_eq!(ws.snapshot(), before, "a rebuild renders the same bytes");
}
