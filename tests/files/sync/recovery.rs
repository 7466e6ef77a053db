//! What the files and the store come back from: an unparseable file left alone, the store or
//! a memory file deleted, a crash between writing files and commit, and a disk that refuses
//! writes.

use super::*;

#[test]
fn unparseable_file_is_left_untouched_and_writes_to_it_are_refused() {
    let ws = seeded();
    let broken = format!(
        "{}\n<<<<<<< HEAD\nmine\n=======\ntheirs\n>>>>>>> origin/main\n",
        ws.read("SESSIONS.md")
    );
    ws.write("SESSIONS.md", &broken);
    let out = ws.run(&["status"]);
    assert!(out.status.success());
    let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
    let line = broken
        .lines()
        .position(|l| l.starts_with("<<<<<<<"))
        .unwrap()
        + 1;
    assert!(
        all.contains(&format!("SESSIONS.md:{line}")) && all.contains("conflict"),
        "{all}"
    );

    let out = ws.run(&["checkpoint", "--session-done", "new; tested"]);
    assert_eq!(out.status.code(), Some(5), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("SESSIONS.md"));
    assert_eq!(ws.read("SESSIONS.md"), broken, "left byte for byte");

    ws.ok(&["checkpoint", "--decision", "other files keep working"]);
    assert!(ws.read("DECISIONS.md").contains("other files keep working"));
    let out = ws.run(&["read", "SESSIONS.md"]);
    assert_eq!(out.status.code(), Some(5));

    // invalid UTF-8 in PROJECT.md
    let mut bytes = ws.read("PROJECT.md").into_bytes();
    bytes.extend_from_slice(b"\n\xff\xfe\n");
    std::fs::write(ws.path("PROJECT.md"), &bytes).unwrap();
    let out = ws.run(&["checkpoint", "--section", "坑", "--text", "x"]);
    assert_eq!(out.status.code(), Some(5));
    assert!(text(&out.stderr).contains("PROJECT.md") && text(&out.stderr).contains("UTF-8"));
    assert_eq!(std::fs::read(ws.path("PROJECT.md")).unwrap(), bytes);

    // fixed by hand: everything works again
    ws.write(
        "SESSIONS.md",
        &broken.replace(
            "<<<<<<< HEAD\nmine\n=======\ntheirs\n>>>>>>> origin/main\n",
            "",
        ),
    );
    ws.ok(&["checkpoint", "--session-done", "after the fix; tested"]);
    assert!(ws.read("SESSIONS.md").contains("after the fix"));
}

#[test]
fn deleting_the_store_rebuilds_it_byte_identical() {
    let ws = seeded();
    ws.ok(&["checkpoint", "--decision", "keep it", "--over", "drop it"]);
    ws.ok(&[
        "checkpoint",
        "--decision",
        "keep it better",
        "--supersedes",
        "keep it",
    ]);
    let before = ws.snapshot();
    std::fs::remove_dir_all(ws.root().join(".trilogy")).unwrap();
    let st = ws.json(&["status"]);
    assert_eq!(st["sessions_live"], 3);
    assert_eq!(st["decisions"], 2);
    assert_eq!(ws.snapshot(), before);
    let d = ws.json(&["read", "DECISIONS.md", "-n", "5"]);
    assert_eq!(
        d["entries"][1]["state"], "superseded",
        "state rebuilt from the file"
    );
}

#[test]
fn deleted_memory_file_is_re_rendered() {
    let ws = seeded();
    let before = ws.read("SESSIONS.md");
    std::fs::remove_file(ws.path("SESSIONS.md")).unwrap();
    let status = ws.ok(&["status"]);
    assert!(!ws.path("SESSIONS.md").exists(), "a read writes nothing");
    assert!(status.contains("next write"), "{status}");
    ws.ok(&["doctor", "--fix"]);
    assert_eq!(ws.read("SESSIONS.md"), before);
    std::fs::remove_file(ws.path("SESSIONS.md")).unwrap();
    ws.ok(&["checkpoint", "--session-done", "after the loss; tested"]);
    let now = ws.read("SESSIONS.md");
    assert_eq!(headings(&now).len(), headings(&before).len() + 1, "{now}");
    assert!(now.contains("after the loss"));
}

#[test]
fn crash_between_writing_files_and_commit_loses_and_duplicates_nothing() {
    for point in ["after-first-write", "before-commit"] {
        let ws = seeded();
        let out = ws
            .cmd()
            .env("TRILOGY_CRASH_AT", point)
            .args([
                "checkpoint",
                "--session-done",
                "written just before the crash; tested",
                "--decision",
                "crash-proof",
            ])
            .output()
            .unwrap();
        assert!(!out.status.success(), "{point}: the process was killed");
        // the next command finds the files newer than the store and absorbs them once
        ws.ok(&["status"]);
        let s = ws.read("SESSIONS.md");
        let d = ws.read("DECISIONS.md");
        let written = s.matches("written just before the crash").count()
            + d.matches("## 2026-11-29 — crash-proof").count();
        // what reached the files is absorbed exactly once; a retry completes the rest
        let expected = if point == "before-commit" { 2 } else { 1 };
        assert_eq!(
            written, expected,
            "{point}: files written before the crash are absorbed\n{s}\n{d}"
        );
        ws.ok(&[
            "checkpoint",
            "--session-done",
            "written just before the crash; tested",
            "--decision",
            "crash-proof",
        ]);
        let s = ws.read("SESSIONS.md");
        let d = ws.read("DECISIONS.md");
        assert_eq!(
            s.matches("written just before the crash").count(),
            1,
            "{point} ({written} landed before the retry)"
        );
        assert_eq!(
            d.matches("## 2026-11-29 — crash-proof").count(),
            1,
            "{point}"
        );
        assert_eq!(
            headings(&s).len(),
            4,
            "{point}: the three seeded entries plus one"
        );
        let before = ws.snapshot();
        ws.ok(&["status"]);
        assert_eq!(
            ws.snapshot(),
            before,
            "{point}: files equal the store's rendering"
        );
    }
}

#[test]
fn a_disk_that_refuses_writes_changes_nothing_and_the_next_command_works() {
    // a full disk, simulated without privileges: the writer runs with a file-size limit
    // (RLIMIT_FSIZE, SIGXFSZ ignored), so growing any file past 64 KiB fails with EFBIG
    let ws = seeded();
    let big: String = (0..2500)
        .map(|i| {
            format!(
                "## 2025-01-{:02}\n完成：padding entry number {i}, long enough to weigh\n\n",
                i % 28 + 1
            )
        })
        .collect();
    let s = ws.read("SESSIONS.md");
    let at = s.find("\n## ").unwrap() + 1;
    ws.write("SESSIONS.md", &format!("{}{big}{}", &s[..at], &s[at..]));
    ws.ok(&["status"]);
    assert!(ws.read("SESSIONS.md").len() > 128 * 1024);
    let before = ws.snapshot();
    let events = ws.json(&["log", "-n", "1"])["events"][0]["seq"].clone();
    let bin = assert_cmd::cargo::cargo_bin("trilogy");
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg("trap '' XFSZ; ulimit -f 64; exec \"$0\" \"$@\"")
        .arg(&bin)
        .arg("--root")
        .arg(ws.root())
        .args([
            "checkpoint",
            "--session-done",
            "written to a full disk; tested",
        ])
        .env("TRILOGY_TODAY", common::TODAY)
        .env("TRILOGY_CONFIG", ws.root().join("no-user-config.toml"))
        .envs(common::private_env(ws.state.path()))
        .output()
        .expect("sh is needed");
    assert!(!out.status.success(), "the write cannot succeed");
    let err = text(&out.stderr);
    assert!(err.contains("large") || err.contains("space"), "{err}");
    assert_eq!(ws.snapshot(), before, "the files are as they were");
    assert_eq!(
        ws.json(&["log", "-n", "1"])["events"][0]["seq"],
        events,
        "nothing was recorded"
    );
    assert!(
        !ws.ok(&["read", "-n", "3"])
            .contains("written to a full disk"),
        "the refused entry is not in the store"
    );
    // a store left mid-write is named as such, and repaired by the first command that writes
    let doctor = ws.run(&["doctor"]);
    if !doctor.status.success() {
        assert!(
            text(&doctor.stdout).contains("repair"),
            "{}",
            text(&doctor.stdout)
        );
    }
    let doctor = ws.run(&["doctor", "--fix"]);
    assert!(doctor.status.success(), "{}", text(&doctor.stdout));
    ws.ok(&[
        "checkpoint",
        "--session-done",
        "after space was freed; tested",
    ]);
    assert!(ws.read("SESSIONS.md").contains("after space was freed"));
    let doctor = ws.run(&["doctor"]);
    assert!(doctor.status.success(), "{}", text(&doctor.stdout));
}
