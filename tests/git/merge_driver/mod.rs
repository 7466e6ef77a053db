//! Git as the way memory travels: the merge driver with a real git, a fresh clone rebuilding
//! the store, and a driverless textual merge repaired by the next command.

use crate::common;

use std::path::Path;
use std::process::Command;

use common::{Ws, headings, text};

mod commit_day;
mod team_clones;
mod with_driver;
mod without_driver;

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
