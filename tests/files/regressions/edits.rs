//! Hand edits and saves that once lost or moved text: an edit during a checkpoint, an
//! unclosed fence, a retried checkpoint, indentation, typo fixes, pointer-like prose, a closed
//! stdout, file modes, a file swapped in before a conflict, and an entry shown beside its
//! correction.

use super::*;

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

#[cfg(unix)]
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
