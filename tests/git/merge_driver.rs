//! Git as the way memory travels: the merge driver with a real git, a fresh clone rebuilding
//! the store, and a driverless textual merge repaired by the next command.

use crate::common;

use std::path::Path;
use std::process::Command;

use common::{Ws, headings, text};

fn git(dir: &Path, args: &[&str]) -> std::process::Output {
    let bin_dir = Path::new(&assert_cmd::cargo::cargo_bin("trilogy"))
        .parent()
        .unwrap()
        .display()
        .to_string();
    let path = format!("{bin_dir}:{}", std::env::var("PATH").unwrap_or_default());
    git_with_path(dir, args, &path)
}

/// A PATH where git is found and trilogy is not (git started from a GUI, an IDE, cron).
const PATH_WITHOUT_TRILOGY: &str = "/usr/local/bin:/usr/bin:/bin";

fn git_with_path(dir: &Path, args: &[&str], path: &str) -> std::process::Output {
    Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.invalid")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.invalid")
        .env("PATH", path)
        .output()
        .expect("git is needed for these tests (apt-get install git)")
}

fn ok(dir: &Path, args: &[&str]) -> String {
    let out = git(dir, args);
    assert!(out.status.success(), "git {args:?}: {}", text(&out.stderr));
    text(&out.stdout)
}

fn repo(driver: bool) -> Ws {
    let ws = Ws::init();
    ok(ws.root(), &["init", "-q", "-b", "main"]);
    std::fs::write(ws.root().join(".gitignore"), "no-user-config.toml\n").unwrap();
    if driver {
        ws.ok(&["install", "git"]);
        let attrs = std::fs::read_to_string(ws.root().join(".gitattributes")).unwrap();
        assert!(attrs.contains("memory/SESSIONS.md merge=trilogy"));
    }
    ws.ok(&[
        "checkpoint",
        "--session-done",
        "base entry; tested",
        "--decision",
        "base decision",
    ]);
    ok(ws.root(), &["add", "-A"]);
    ok(ws.root(), &["commit", "-q", "-m", "base"]);
    ws
}

fn on_branch(ws: &Ws, branch: &str, day: &str, args: &[&str]) {
    ok(ws.root(), &["checkout", "-q", branch]);
    let out = ws
        .cmd()
        .env("TRILOGY_TODAY", day)
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    ok(ws.root(), &["add", "-A"]);
    ok(ws.root(), &["commit", "-q", "-m", branch]);
}

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
fn driverless_union_merge_is_repaired_by_the_next_command() {
    let ws = repo(false);
    std::fs::write(
        ws.root().join(".gitattributes"),
        "memory/*.md merge=union\n",
    )
    .unwrap();
    ok(ws.root(), &["add", "-A"]);
    ok(ws.root(), &["commit", "-q", "-m", "union"]);
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
        "2026-11-30",
        &["checkpoint", "--session-done", "main side; tested"],
    );
    ok(ws.root(), &["merge", "-q", "--no-edit", "feature"]);
    ws.ok(&["status"]);
    let s = ws.read("SESSIONS.md");
    assert_eq!(s.matches("feature side; tested").count(), 1);
    assert_eq!(s.matches("main side; tested").count(), 1);
    assert_eq!(
        s.matches("base entry; tested").count(),
        1,
        "duplicates collapse:\n{s}"
    );
    let before = ws.snapshot();
    ws.ok(&["status"]);
    assert_eq!(ws.snapshot(), before, "re-rendered to the canonical form");
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
fn merge_the_driver_did_not_run_is_reported_and_resolve_makes_the_union() {
    let ws = repo(false);
    // a bare command name, as older trilogy wrote it: git finds it only when it is on PATH
    let out = ws
        .cmd()
        .env("PATH", PATH_WITHOUT_TRILOGY)
        .args(["install", "git", "--command", "trilogy"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("`trilogy` is not on PATH"),
        "{}",
        text(&out.stdout)
    );
    ok(ws.root(), &["add", "-A"]);
    ok(ws.root(), &["commit", "-q", "-m", "driver"]);
    ok(ws.root(), &["branch", "feature"]);
    on_branch(
        &ws,
        "feature",
        "2026-11-30",
        &[
            "checkpoint",
            "--session-done",
            "feature side; tested",
            "--decision",
            "feature decision",
        ],
    );
    on_branch(
        &ws,
        "main",
        "2026-12-01",
        &[
            "checkpoint",
            "--session-done",
            "main side; tested",
            "--decision",
            "main decision",
        ],
    );
    let out = git_with_path(
        ws.root(),
        &["merge", "-q", "--no-edit", "feature"],
        PATH_WITHOUT_TRILOGY,
    );
    assert!(!out.status.success(), "git cannot run the driver");
    // git kept our side only, without markers: it reads as a healthy file
    assert!(!ws.read("SESSIONS.md").contains("feature side; tested"));
    let unmerged = ["memory/DECISIONS.md", "memory/SESSIONS.md"];

    let status = ws.ok(&["status"]);
    for f in unmerged {
        assert!(status.contains(&format!("UNMERGED: {f}")), "{status}");
    }
    assert!(status.contains("trilogy resolve"), "{status}");
    assert_eq!(
        ws.json(&["status"])["unmerged"],
        serde_json::json!(unmerged)
    );
    let doctor = ws.run(&["doctor"]);
    assert_eq!(doctor.status.code(), Some(9), "{}", text(&doctor.stdout));
    let findings = text(&doctor.stdout);
    assert!(
        findings.contains("memory/SESSIONS.md is unmerged") && findings.contains("trilogy resolve"),
        "{findings}"
    );

    let out = ws.run(&["resolve"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("merged memory/SESSIONS.md by entry and staged it"),
        "{}",
        text(&out.stdout)
    );
    assert_eq!(ok(ws.root(), &["ls-files", "--unmerged"]), "");
    let s = ws.read("SESSIONS.md");
    assert_eq!(
        headings(&s),
        ["2026-12-01", "2026-11-30", "2026-11-29"],
        "the union, newest first:\n{s}"
    );
    let d = ws.read("DECISIONS.md");
    assert!(
        d.contains("feature decision")
            && d.contains("main decision")
            && d.contains("base decision")
    );
    ok(ws.root(), &["commit", "-q", "--no-edit"]);
    assert!(!ws.ok(&["status"]).contains("UNMERGED"));
    assert_eq!(ws.json(&["status"])["sessions_live"], 3);
    assert!(ws.run(&["doctor"]).status.success());
}

#[test]
fn resolve_leaves_markers_where_both_sides_changed_a_section_and_does_not_stage_it() {
    let ws = repo(false);
    ws.ok(&["install", "git", "--command", "/nonexistent/trilogy"]);
    ok(ws.root(), &["add", "-A"]);
    ok(ws.root(), &["commit", "-q", "-m", "driver"]);
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
        ],
    );
    assert!(
        !git(ws.root(), &["merge", "-q", "--no-edit", "feature"])
            .status
            .success()
    );
    assert_eq!(
        ws.json(&["status"])["unmerged"],
        serde_json::json!(["memory/PROJECT.md"])
    );
    let out = ws.run(&["resolve", "memory/PROJECT.md"]);
    assert_eq!(out.status.code(), Some(5), "{}", text(&out.stdout));
    assert!(text(&out.stdout).contains("resolve the markers, then `git add memory/PROJECT.md`"));
    let p = ws.read("PROJECT.md");
    assert_eq!(p.matches("<<<<<<< ours").count(), 1, "{p}");
    assert!(p.contains("theirs says this") && p.contains("ours says that"));
    assert!(
        !ok(ws.root(), &["ls-files", "--unmerged"]).is_empty(),
        "left unstaged"
    );
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

#[test]
fn a_fresh_clone_learns_project_md_commit_day_once_and_needs_git_no_more() {
    let ws = repo(false);
    // PROJECT.md as committed long ago
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(ws.root())
        .args(["commit", "-q", "--amend", "--no-edit"])
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_DATE", "2026-01-01T12:00:00+00:00")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    std::fs::remove_dir_all(ws.root().join(".trilogy")).unwrap();
    // the first command reads PROJECT.md and asks git when it was committed
    ws.ok(&["status"]);
    // later ones know it without git (none on PATH here): the logs are far ahead of it
    let out = ws
        .cmd()
        .env("PATH", "/nonexistent")
        .args(["status", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let st: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let behind = st["stale"]["behind_days"].as_i64().unwrap_or(0);
    assert!(behind >= 300, "dated by its commit, not by the clone: {st}");
}

#[test]
fn a_project_md_git_does_not_hold_is_dated_by_its_mtime_without_asking_git_again() {
    use trilogy::store::{Reader, Store};
    let ws = repo(false);
    let day = || {
        let store = Store::open_read_only(&ws.root().join(".trilogy/store.redb")).unwrap();
        let r = store.read().unwrap();
        r.meta(trilogy::workspace::PROJECT_DAY_KEY).unwrap()
    };
    // committed as absorbed: the day of its commit is kept
    std::fs::write(
        ws.path("PROJECT.md"),
        ws.read("PROJECT.md").replace("暂无", "A CLI"),
    )
    .unwrap();
    ok(ws.root(), &["commit", "-q", "-am", "project"]);
    ws.ok(&["status"]);
    assert!(day() >= 2, "the commit's day is kept: {}", day());
    // edited and not committed: no commit day of its own, its mtime tells (1), so session
    // starts do not run `git log` over the whole history for a commit that never touched it
    std::fs::write(
        ws.path("PROJECT.md"),
        ws.read("PROJECT.md").replace("A CLI", "A CLI and a panel"),
    )
    .unwrap();
    ws.ok(&["status"]);
    assert_eq!(day(), 1);
    // a store that kept no day (older trilogy, same edit) learns it with its next write
    {
        let store = Store::open(
            &ws.root().join(".trilogy/store.redb"),
            std::time::Duration::from_secs(5),
        )
        .unwrap();
        let w = store.write(std::time::Duration::from_secs(5)).unwrap();
        w.set_meta(trilogy::workspace::PROJECT_DAY_KEY, 0).unwrap();
        w.commit().unwrap();
    }
    assert_eq!(day(), 0);
    ws.ok(&["checkpoint", "--session-done", "after the upgrade; tested"]);
    assert_eq!(day(), 1);
}
