//! Merges through the driver: branches adding entries and editing sections, one section
//! edited on both sides, a fresh clone without the store, the binary's path recorded at
//! install, and a batch archived on one branch.

use super::*;

#[test]
fn branches_adding_entries_and_editing_different_sections_merge_cleanly() {
    let ws = repo(true);
    ok(ws.root(), &["branch", "feature"]);
    on_branch(
        &ws,
        "feature",
        "2026-11-30",
        &[
            "checkpoint",
            "--session-done",
            "feature work; tested",
            "--decision",
            "feature decision",
            "--section",
            "坑",
            "--text",
            "feature trap",
        ],
    );
    on_branch(
        &ws,
        "main",
        "2026-12-01",
        &[
            "checkpoint",
            "--session-done",
            "main work; tested",
            "--decision",
            "main decision",
            "--section",
            "现状",
            "--text",
            "main state",
        ],
    );
    let out = git(ws.root(), &["merge", "-q", "--no-edit", "feature"]);
    assert!(
        out.status.success(),
        "clean merge expected: {}",
        text(&out.stderr)
    );
    let s = ws.read("SESSIONS.md");
    assert_eq!(
        headings(&s),
        ["2026-12-01", "2026-11-30", "2026-11-29"],
        "{s}"
    );
    let d = ws.read("DECISIONS.md");
    assert!(
        d.contains("main decision")
            && d.contains("feature decision")
            && d.contains("base decision")
    );
    let p = ws.read("PROJECT.md");
    assert!(p.contains("## 现状\n\nmain state") && p.contains("## 坑\n\nfeature trap"));
    assert!(!p.contains("<<<<<<<"));
    // the next command absorbs the merge; the files are already what the store renders
    ws.ok(&["status"]);
    let before = ws.snapshot();
    ws.ok(&["status"]);
    assert_eq!(ws.snapshot(), before);
    assert_eq!(ws.json(&["status"])["sessions_live"], 3);
}

#[test]
fn both_sides_editing_one_section_conflict_only_there() {
    let ws = repo(true);
    ok(ws.root(), &["branch", "feature"]);
    on_branch(
        &ws,
        "feature",
        "2026-11-30",
        &[
            "checkpoint",
            "--section",
            "现状",
            "--text",
            "theirs says this",
            "--session-done",
            "f; tested",
        ],
    );
    on_branch(
        &ws,
        "main",
        "2026-11-30",
        &[
            "checkpoint",
            "--section",
            "现状",
            "--text",
            "ours says that",
            "--session-done",
            "m; tested",
        ],
    );
    let out = git(ws.root(), &["merge", "-q", "--no-edit", "feature"]);
    assert!(!out.status.success(), "a conflict is expected");
    let p = ws.read("PROJECT.md");
    assert_eq!(p.matches("<<<<<<<").count(), 1, "{p}");
    let sec = &p[p.find("## 现状").unwrap()..p.find("## 坑").unwrap()];
    assert!(
        sec.contains("<<<<<<<")
            && sec.contains("ours says that")
            && sec.contains("theirs says this")
    );
    // sessions merged without conflict on the same run
    let s = ws.read("SESSIONS.md");
    assert!(s.contains("f; tested") && s.contains("m; tested") && !s.contains("<<<<<<<"));
    // while the merge is under way the store records and the files are left to git
    let out = ws.run(&["checkpoint", "--session-done", "while conflicted; tested"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("git merge"),
        "{}",
        text(&out.stderr)
    );
    assert!(!ws.read("SESSIONS.md").contains("while conflicted"));
    let resolved = p
        .replace("<<<<<<< ours\n", "")
        .replace("=======\ntheirs says this\n>>>>>>> theirs\n", "");
    ws.write("PROJECT.md", &resolved);
    ok(ws.root(), &["commit", "-qam", "merged"]);
    // reads leave the files to the next write; the first write after git is done writes what
    // was recorded meanwhile
    ws.ok(&["status"]);
    assert!(!ws.read("SESSIONS.md").contains("while conflicted"));
    ws.ok(&["checkpoint", "--session-done", "after the merge; tested"]);
    assert!(ws.read("SESSIONS.md").contains("while conflicted"));
    assert_eq!(
        ws.json(&["read", "--section", "现状"])["text"],
        "ours says that"
    );
}

#[test]
fn fresh_clone_without_the_store_renders_byte_identically() {
    let ws = repo(true);
    ws.ok(&["checkpoint", "--decision", "superseded later"]);
    ws.ok(&[
        "checkpoint",
        "--decision",
        "the replacement",
        "--supersedes",
        "superseded later",
    ]);
    ok(ws.root(), &["add", "-A"]);
    ok(ws.root(), &["commit", "-q", "-m", "more"]);
    let clone = tempfile::tempdir().unwrap();
    let dest = clone.path().join("c");
    ok(
        clone.path(),
        &[
            "clone",
            "-q",
            ws.root().to_str().unwrap(),
            dest.to_str().unwrap(),
        ],
    );
    assert!(
        !dest.join(".trilogy").exists(),
        ".trilogy/ is never committed"
    );
    let out = Command::new(assert_cmd::cargo::cargo_bin("trilogy"))
        .arg("--root")
        .arg(&dest)
        .arg("status")
        .env("TRILOGY_CONFIG", dest.join("none.toml"))
        .envs(common::private_env(clone.path()))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    for f in ["PROJECT.md", "DECISIONS.md", "SESSIONS.md"] {
        assert_eq!(
            std::fs::read(dest.join("memory").join(f)).unwrap(),
            std::fs::read(ws.path(f)).unwrap(),
            "{f}"
        );
    }
    assert_eq!(
        ok(&dest, &["status", "--porcelain"]),
        "",
        "nothing to commit after the rebuild"
    );
}

#[test]
fn install_git_records_this_binarys_absolute_path() {
    let ws = repo(true);
    let driver = ok(ws.root(), &["config", "merge.trilogy.driver"]);
    let bin = assert_cmd::cargo::cargo_bin("trilogy");
    assert!(
        driver.starts_with(&format!("{} merge-driver", bin.display())) && bin.is_absolute(),
        "{driver}"
    );
    ok(ws.root(), &["branch", "feature"]);
    on_branch(
        &ws,
        "feature",
        "2026-11-30",
        &["checkpoint", "--session-done", "feature side; tested"],
    );
    on_branch(
        &ws,
        "main",
        "2026-12-01",
        &["checkpoint", "--session-done", "main side; tested"],
    );
    // git started without trilogy on PATH still finds the driver
    let out = git_with_path(
        ws.root(),
        &["merge", "-q", "--no-edit", "feature"],
        PATH_WITHOUT_TRILOGY,
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let s = ws.read("SESSIONS.md");
    assert!(s.contains("feature side; tested") && s.contains("main side; tested"));
}

#[test]
fn a_batch_moved_to_the_archive_on_one_branch_merges_to_every_entry_once() {
    let ws = repo(true);
    std::fs::write(
        ws.root().join("trilogy.toml"),
        "sessions_max_entries = 3\nsessions_archive_batch = 2\n",
    )
    .unwrap();
    for d in ["2026-11-01", "2026-11-02"] {
        ws.cmd()
            .env("TRILOGY_TODAY", d)
            .args(["checkpoint", "--session-done", &format!("base {d}; tested")])
            .assert()
            .success();
    }
    ok(ws.root(), &["add", "-A"]);
    ok(ws.root(), &["commit", "-q", "-m", "three live"]);
    ok(ws.root(), &["branch", "feature"]);
    // the feature branch records three: the third makes six live and moves the oldest three
    for d in ["2026-12-01", "2026-12-02", "2026-12-03"] {
        on_branch(
            &ws,
            "feature",
            d,
            &[
                "checkpoint",
                "--session-done",
                &format!("feature {d}; tested"),
            ],
        );
    }
    assert_eq!(headings(&ws.read("SESSIONS-archive.md")).len(), 3);
    // main records one and moves nothing
    on_branch(
        &ws,
        "main",
        "2026-12-04",
        &["checkpoint", "--session-done", "main 2026-12-04; tested"],
    );
    assert_eq!(
        headings(&ws.read("SESSIONS.md")).len(),
        4,
        "main moved nothing"
    );
    let out = git(ws.root(), &["merge", "-q", "--no-edit", "feature"]);
    assert!(out.status.success(), "clean merge: {}", text(&out.stderr));
    let s = ws.read("SESSIONS.md");
    let a = ws.read("SESSIONS-archive.md");
    assert_eq!(
        headings(&s),
        ["2026-12-04", "2026-12-03", "2026-12-02", "2026-12-01"],
        "{s}"
    );
    assert_eq!(
        headings(&a),
        ["2026-11-29", "2026-11-02", "2026-11-01"],
        "{a}"
    );
    let all = format!("{s}\n{a}");
    for t in [
        "base entry",
        "base 2026-11-01",
        "base 2026-11-02",
        "feature 2026-12-01",
        "feature 2026-12-02",
        "feature 2026-12-03",
        "main 2026-12-04",
    ] {
        assert_eq!(all.matches(t).count(), 1, "{t} once:\n{all}");
    }
    // the next write counts the archive in the pointer; the one after moves the next batch
    ws.ok(&["status"]);
    for d in ["2026-12-05", "2026-12-06"] {
        ws.cmd()
            .env("TRILOGY_TODAY", d)
            .args([
                "checkpoint",
                "--session-done",
                &format!("after {d}; tested"),
            ])
            .assert()
            .success();
    }
    let s = ws.read("SESSIONS.md");
    let a = ws.read("SESSIONS-archive.md");
    assert_eq!(
        headings(&s).len(),
        3,
        "six live moved down to the cap:\n{s}"
    );
    assert_eq!(headings(&a).len(), 6);
    assert!(
        s.contains("> 更早的会话条目已归档到 6 条"),
        "the pointer counts the archive:\n{s}"
    );
    let mut dates: Vec<String> = headings(&s).into_iter().chain(headings(&a)).collect();
    let sorted = {
        let mut d = dates.clone();
        d.sort_by(|x, y| y.cmp(x));
        d
    };
    assert_eq!(dates, sorted, "newest first across both files");
    dates.dedup();
    assert_eq!(dates.len(), 9);
}
