//! The day PROJECT.md was committed: learnt once by a fresh clone, and from the file's mtime
//! when git does not hold it.

use super::*;

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
