//! Regression tests, each named after the bug it pins.

use crate::common;

use std::io::Read;
use std::process::Stdio;

use common::{Ws, headings, text};

#[test]
fn hand_edit_during_a_checkpoint_loses_neither() {
    let ws = Ws::init();
    ws.ok(&["checkpoint", "--session-done", "before; tested"]);
    let child = ws
        .std_cmd()
        .env("TRILOGY_PAUSE_AT", "before-write:600")
        .args(["checkpoint", "--session-done", "acknowledged; tested"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(250));
    let s = ws.read("SESSIONS.md");
    ws.write(
        "SESSIONS.md",
        &format!("{s}\n## 2026-01-01\n完成：written by hand meanwhile\n"),
    );
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("Recorded 1 item(s)"),
        "{}",
        text(&out.stdout)
    );
    let s = ws.read("SESSIONS.md");
    assert!(
        s.contains("acknowledged; tested"),
        "the acknowledged entry is in the file:\n{s}"
    );
    assert!(
        s.contains("written by hand meanwhile"),
        "the hand edit is kept:\n{s}"
    );
    let log = ws.ok(&["log", "-n", "10"]);
    assert!(!log.contains("replace") && !log.contains("remove"), "{log}");
}

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
fn unclosed_fence_in_a_hand_entry_never_swallows_other_entries() {
    let ws = Ws::init();
    ws.cmd()
        .env("TRILOGY_TODAY", "2026-03-01")
        .args(["checkpoint", "--session-done", "old; tested"])
        .assert()
        .success();
    let s = ws.read("SESSIONS.md");
    ws.write(
        "SESSIONS.md",
        &format!("{s}\n## 2026-05-01\n完成：newer\n```\ncode not closed\n"),
    );
    ws.ok(&["status"]);
    let s = ws.read("SESSIONS.md");
    ws.write(
        "SESSIONS.md",
        &s.replacen("# SESSIONS", "# SESSIONS log", 1),
    );
    ws.ok(&["status"]);
    // kept where it was written, last, where its open fence hides nothing
    assert_eq!(
        headings(&ws.read("SESSIONS.md")),
        ["2026-03-01", "2026-05-01"]
    );
    ws.ok(&["checkpoint", "--session-done", "above it; tested"]);
    assert_eq!(
        headings(&ws.read("SESSIONS.md")),
        ["2026-11-29", "2026-03-01", "2026-05-01"]
    );
    assert!(ws.read("SESSIONS.md").ends_with("```\ncode not closed\n"));
    let before = ws.snapshot();
    std::fs::remove_dir_all(ws.root().join(".trilogy")).unwrap();
    ws.ok(&["status"]);
    assert_eq!(ws.snapshot(), before);
    assert_eq!(ws.json(&["status"])["sessions_live"], 3);
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
fn retried_checkpoint_with_supersedes_is_a_no_op() {
    let ws = Ws::init();
    ws.ok(&["checkpoint", "--decision", "use sqlite"]);
    let batch = r#"{"decisions":[{"choice":"use redb","supersedes":"use sqlite"}]}"#;
    ws.ok_stdin(&["checkpoint"], batch);
    let before = ws.snapshot();
    let out = ws.ok_stdin(&["checkpoint"], batch);
    assert!(out.contains("Nothing recorded"), "{out}");
    assert_eq!(ws.snapshot(), before);
}

#[test]
fn line_edit_keeps_the_indentation_of_the_first_line() {
    let ws = Ws::init();
    let p = ws.read("PROJECT.md");
    ws.write(
        "PROJECT.md",
        &p.replacen(
            "## 现状\n\n暂无",
            "## 现状\n\n    cargo run -- serve\n    cargo test\n\nplain line",
            1,
        ),
    );
    ws.ok(&["checkpoint", "--section", "现状", "--line", "added line"]);
    assert!(
        ws.read("PROJECT.md").contains(
            "## 现状\n\n    cargo run -- serve\n    cargo test\n\nplain line\nadded line\n"
        )
    );
    ws.ok(&[
        "checkpoint",
        "--section",
        "现状",
        "--line",
        "    cargo run -- watch",
        "--replaces",
        "    cargo run -- serve",
    ]);
    assert!(
        ws.read("PROJECT.md")
            .contains("## 现状\n\n    cargo run -- watch\n")
    );
}

#[test]
fn fixing_a_typo_by_hand_keeps_the_entry_in_place() {
    let ws = Ws::init();
    for t in ["A first; tested", "B second; tested", "C third; tested"] {
        ws.ok(&["checkpoint", "--session-done", t]);
    }
    let s = ws.read("SESSIONS.md");
    ws.write("SESSIONS.md", &s.replace("A first", "A frist corrected"));
    ws.ok(&["status"]);
    let s = ws.read("SESSIONS.md");
    let order: Vec<usize> = ["C third", "B second", "A frist corrected"]
        .iter()
        .map(|x| s.find(x).unwrap())
        .collect();
    assert!(order[0] < order[1] && order[1] < order[2], "{s}");
    assert!(ws.ok(&["log", "-n", "1"]).contains("replace"));
}

#[test]
fn prose_starting_like_the_pointer_is_kept() {
    let ws = Ws::init();
    let s = ws.read("SESSIONS.md");
    ws.write(
        "SESSIONS.md",
        &format!("{s}\n## 2026-01-01\n完成：x\n> 更早的会话条目已归档到 the old wiki, see there\n"),
    );
    ws.ok(&["status"]);
    assert!(
        ws.read("SESSIONS.md")
            .contains("> 更早的会话条目已归档到 the old wiki, see there")
    );
}

#[test]
fn closed_stdout_pipe_is_not_a_crash() {
    let ws = Ws::init();
    for i in 0..30 {
        ws.ok(&[
            "checkpoint",
            "--session-done",
            &format!("entry {i}; tested"),
        ]);
    }
    let mut child = ws
        .std_cmd()
        .args(["log", "-n", "5000"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let status = child.wait().unwrap();
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(status.code(), Some(0));
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
fn rewritten_files_keep_their_mode_and_new_ones_are_readable() {
    use std::os::unix::fs::PermissionsExt;
    let ws = Ws::init();
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&ws.path("SESSIONS.md")), 0o644);
    std::fs::set_permissions(
        ws.path("SESSIONS.md"),
        std::fs::Permissions::from_mode(0o664),
    )
    .unwrap();
    ws.ok(&["checkpoint", "--session-done", "x; tested"]);
    assert_eq!(mode(&ws.path("SESSIONS.md")), 0o664);
}

#[test]
fn save_into_a_file_swapped_in_before_a_later_conflict_is_kept() {
    // trilogy swaps PROJECT.md in, then finds SESSIONS.md changed and puts things back; a person
    // who saved PROJECT.md in between saved into trilogy's version, and that save must survive
    let ws = Ws::init();
    ws.ok(&["checkpoint", "--session-done", "before; tested"]);
    let child = ws
        .std_cmd()
        .env("TRILOGY_PAUSE_AT", "after-swap:700")
        .args([
            "checkpoint",
            "--section",
            "坑",
            "--line",
            "from trilogy",
            "--session-done",
            "acknowledged; tested",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // wait until PROJECT.md shows trilogy's version (swapped in, not yet kept)
    let t0 = std::time::Instant::now();
    while !ws.read("PROJECT.md").contains("from trilogy") {
        assert!(
            t0.elapsed().as_secs() < 20,
            "PROJECT.md was never swapped in"
        );
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let p = ws.read("PROJECT.md");
    ws.write(
        "PROJECT.md",
        &p.replace("from trilogy\n", "from trilogy\nsaved by hand meanwhile\n"),
    );
    let s = ws.read("SESSIONS.md");
    ws.write(
        "SESSIONS.md",
        &format!("{s}\n## 2026-01-01\n完成：session saved by hand meanwhile\n"),
    );
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    ws.ok(&["status"]);
    let p = ws.read("PROJECT.md");
    assert!(p.contains("saved by hand meanwhile"), "{p}");
    assert_eq!(p.matches("from trilogy").count(), 1, "{p}");
    let s = ws.read("SESSIONS.md");
    assert!(
        s.contains("acknowledged; tested") && s.contains("session saved by hand meanwhile"),
        "{s}"
    );
    assert!(!ws.root().join(".trilogy/rescued").exists());
    let doctor = ws.run(&["doctor"]);
    assert!(doctor.status.success(), "{}", text(&doctor.stdout));
}

#[test]
fn a_schema_2_store_gains_the_live_decision_count() {
    use trilogy::store::{Reader, Store};
    let ws = Ws::init();
    ws.ok(&["checkpoint", "--decision", "use sqlite"]);
    ws.ok(&[
        "checkpoint",
        "--decision",
        "use redb",
        "--supersedes",
        "use sqlite",
    ]);
    ws.ok(&["checkpoint", "--decision", "keep markdown"]);
    let path = ws.root().join(".trilogy/store.redb");
    {
        // what a schema 2 store looks like: no counter
        let store = Store::open(&path, std::time::Duration::from_secs(5)).unwrap();
        let w = store.write(std::time::Duration::from_secs(5)).unwrap();
        w.set_meta("schema_version", 2).unwrap();
        w.set_meta("count:live_decisions", 0).unwrap();
        w.commit().unwrap();
    }
    ws.ok(&["status"]);
    let store = Store::open_read_only(&path).unwrap();
    let r = store.read().unwrap();
    assert_eq!(
        r.meta("schema_version").unwrap(),
        trilogy::store::SCHEMA_VERSION
    );
    assert_eq!(r.live_decisions().unwrap(), 2);
    drop(r);
    drop(store);
    let doctor = ws.run(&["doctor"]);
    assert!(doctor.status.success(), "{}", text(&doctor.stdout));
    // and it follows later writes
    ws.ok(&["checkpoint", "--decision", "one more"]);
    let store = Store::open_read_only(&path).unwrap();
    assert_eq!(store.read().unwrap().live_decisions().unwrap(), 3);
}

/// The store file opened with redb itself, as trilogy opens it, to shape it as an older or a
/// damaged store would be.
fn raw_store(path: &std::path::Path) -> redb::Database {
    redb::Database::builder()
        .set_concurrency_mode(redb::ConcurrencyMode::MultiWriter)
        .create(path)
        .unwrap()
}

#[test]
fn a_schema_3_store_reads_as_before_and_gains_the_near_records() {
    use redb::TableDefinition;
    use trilogy::store::Store;
    let ws = Ws::init();
    for i in 0..6 {
        ws.ok(&["checkpoint", "--session-done", &format!("step {i}; tested")]);
    }
    ws.ok(&["checkpoint", "--decision", "use redb"]);
    ws.ok(&["checkpoint", "--decision", "keep markdown"]);
    let block = ws.ok(&["inject"]);
    let path = ws.root().join(".trilogy/store.redb");
    {
        // what a schema 3 store looks like: no table of near records
        let db = raw_store(&path);
        let w = db.begin_write().unwrap();
        let near: TableDefinition<&[u8], &[u8]> = TableDefinition::new("near");
        assert!(
            w.delete_table(near).unwrap(),
            "a schema 4 store keeps the near records"
        );
        w.open_table(TableDefinition::<&str, u64>::new("meta"))
            .unwrap()
            .insert("schema_version", 3)
            .unwrap();
        w.commit().unwrap();
    }
    // read-only, the old layout is read through the entries table
    assert_eq!(ws.ok(&["inject"]), block);
    let files = || {
        ["PROJECT.md", "DECISIONS.md", "SESSIONS.md"]
            .map(|f| std::fs::read_to_string(ws.root().join("memory").join(f)).unwrap())
    };
    let before = files();
    ws.ok(&["checkpoint", "--session-done", "after the upgrade; tested"]);
    let store = Store::open_read_only(&path).unwrap();
    let r = store.read().unwrap();
    assert_eq!(
        trilogy::store::Reader::meta(&r, "schema_version").unwrap(),
        trilogy::store::SCHEMA_VERSION
    );
    let sessions =
        trilogy::store::Reader::file_entries(&r, trilogy::model::FileKind::Sessions, 0, usize::MAX)
            .unwrap();
    assert_eq!(sessions.len(), 7);
    assert!(
        sessions[0].body.contains("after the upgrade"),
        "{:?}",
        sessions[0]
    );
    drop(r);
    drop(store);
    let after = files();
    assert_eq!(after[0], before[0]);
    assert_eq!(after[1], before[1]);
    assert!(after[2].contains("after the upgrade") && after[2].contains("step 0; tested"));
    let doctor = ws.run(&["doctor"]);
    assert!(doctor.status.success(), "{}", text(&doctor.stdout));
}

#[test]
fn doctor_finds_near_records_that_disagree_with_the_entries_and_fix_rebuilds_them() {
    use redb::{ReadableTable, TableDefinition};
    let ws = Ws::init();
    for i in 0..3 {
        ws.ok(&["checkpoint", "--session-done", &format!("kept {i}; tested")]);
    }
    let path = ws.root().join(".trilogy/store.redb");
    {
        // one near record lost: the files and the render order still hold the entry
        let db = raw_store(&path);
        let w = db.begin_write().unwrap();
        {
            let near: TableDefinition<&[u8], &[u8]> = TableDefinition::new("near");
            let mut t = w.open_table(near).unwrap();
            let key = t
                .iter()
                .unwrap()
                .next()
                .unwrap()
                .unwrap()
                .0
                .value()
                .to_vec();
            t.remove(key.as_slice()).unwrap();
        }
        w.commit().unwrap();
    }
    let doctor = ws.run(&["doctor"]);
    assert!(!doctor.status.success(), "{}", text(&doctor.stdout));
    let said = format!("{}{}", text(&doctor.stdout), text(&doctor.stderr));
    assert!(said.contains("disagree with the entries table"), "{said}");
    ws.ok(&["doctor", "--fix"]);
    let doctor = ws.run(&["doctor"]);
    assert!(doctor.status.success(), "{}", text(&doctor.stdout));
    let s = ws.read("SESSIONS.md");
    for i in 0..3 {
        assert_eq!(s.matches(&format!("kept {i}; tested")).count(), 1, "{s}");
    }
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

#[test]
fn an_edited_entry_shown_again_beside_its_correction_gets_a_place_of_its_own() {
    let ws = Ws::init();
    ws.ok(&["checkpoint", "--session-done", "alpha one; tested"]);
    let original = ws.read("SESSIONS.md");
    // corrected in place: the correction takes the original's place
    ws.write(
        "SESSIONS.md",
        &original.replace("alpha one; tested", "alpha one, corrected; tested"),
    );
    ws.ok(&["status"]);
    // then the original comes back beside it (a late save, a merge, a restored copy)
    let now = ws.read("SESSIONS.md");
    let at = now.find("\n## ").unwrap() + 1;
    ws.write(
        "SESSIONS.md",
        &format!(
            "{}## 2026-11-29\n完成：alpha one; tested\n\n{}",
            &now[..at],
            &now[at..]
        ),
    );
    ws.ok(&["status"]);
    let file = ws.read("SESSIONS.md");
    assert!(
        file.contains("alpha one; tested") && file.contains("alpha one, corrected"),
        "{file}"
    );
    let doctor = ws.run(&["doctor"]);
    assert!(doctor.status.success(), "{}", text(&doctor.stdout));
}
