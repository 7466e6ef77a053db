//! The merge driver for the whole team: a teammate's clone, where only `.gitattributes`
//! arrives, gets the driver from its first trilogy command and merges a pull by entry; a clone
//! that pulled before any trilogy command is told what git really did; and paths that are not
//! memory files, sent to the driver by `* merge=trilogy`, get git's own text merge.

use super::*;

/// A bare repository in `dir` and a first clone of it, initialised by trilogy and pushed.
fn origin_and_first_clone(dir: &Path) -> (std::path::PathBuf, Ws) {
    let origin = dir.join("origin.git");
    ok(
        dir,
        &[
            "init",
            "-q",
            "--bare",
            "-b",
            "main",
            origin.to_str().unwrap(),
        ],
    );
    let a = Ws::new();
    ok(
        dir,
        &[
            "clone",
            "-q",
            origin.to_str().unwrap(),
            a.root().to_str().unwrap(),
        ],
    );
    std::fs::write(a.root().join(".gitignore"), "no-user-config.toml\n").unwrap();
    let out = a.ok(&["init"]);
    assert!(
        out.contains("merge.trilogy.driver"),
        "init sets the driver up: {out}"
    );
    let attrs = std::fs::read_to_string(a.root().join(".gitattributes")).unwrap();
    assert!(
        attrs.contains("memory/SESSIONS.md merge=trilogy"),
        "{attrs}"
    );
    a.ok(&["checkpoint", "--session-done", "base entry; tested"]);
    ok(a.root(), &["add", "-A"]);
    ok(a.root(), &["commit", "-q", "-m", "memory"]);
    ok(a.root(), &["push", "-q", "origin", "main"]);
    (origin, a)
}

fn clone_of(dir: &Path, origin: &Path) -> Ws {
    let b = Ws::new();
    ok(
        dir,
        &[
            "clone",
            "-q",
            origin.to_str().unwrap(),
            b.root().to_str().unwrap(),
        ],
    );
    b
}

fn driver_config(ws: &Ws) -> String {
    let out = git(
        ws.root(),
        &["config", "--local", "--get", "merge.trilogy.driver"],
    );
    text(&out.stdout)
}

fn write_and_commit(ws: &Ws, day: &str, done: &str) {
    let out = ws
        .cmd()
        .env("TRILOGY_TODAY", day)
        .args(["checkpoint", "--session-done", done])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    ok(ws.root(), &["add", "-A"]);
    ok(ws.root(), &["commit", "-q", "-m", done]);
}

#[test]
fn a_teammates_clone_gets_the_driver_from_its_first_command_and_a_pull_merges_by_entry() {
    let dir = tempfile::tempdir().unwrap();
    let (origin, a) = origin_and_first_clone(dir.path());
    let b = clone_of(dir.path(), &origin);
    assert_eq!(
        driver_config(&b),
        "",
        "git's config does not travel with a clone"
    );

    // the teammate's agent records: its first command sets the driver up, saying so
    let out = b
        .cmd()
        .env("TRILOGY_TODAY", "2026-11-30")
        .args(["checkpoint", "--session-done", "teammate's side; tested"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("set up trilogy's merge driver in this clone"),
        "{}",
        text(&out.stderr)
    );
    let line = driver_config(&b);
    let exe = assert_cmd::cargo::cargo_bin("trilogy");
    assert!(line.contains(exe.to_str().unwrap()) && line.contains("merge-driver %O %A %B %P"));
    ok(b.root(), &["add", "-A"]);
    ok(b.root(), &["commit", "-q", "-m", "teammate"]);

    // meanwhile the first clone pushes a change to the same place in SESSIONS.md
    write_and_commit(&a, "2026-11-30", "first clone's side; tested");
    ok(a.root(), &["push", "-q", "origin", "main"]);

    // the teammate pulls: merged by entry, no conflict, nothing to do by hand
    let pulled = git(
        b.root(),
        &["pull", "-q", "--no-rebase", "--no-edit", "origin", "main"],
    );
    assert!(
        pulled.status.success(),
        "{}{}",
        text(&pulled.stdout),
        text(&pulled.stderr)
    );
    assert_eq!(ok(b.root(), &["ls-files", "--unmerged"]), "");
    let sessions = b.read("SESSIONS.md");
    for side in [
        "teammate's side; tested",
        "first clone's side; tested",
        "base entry; tested",
    ] {
        assert_eq!(sessions.matches(side).count(), 1, "{sessions}");
    }
    assert!(!sessions.contains("<<<<<<<"), "{sessions}");
    let doctor = b.run(&["doctor"]);
    assert!(
        !text(&doctor.stdout).contains("[git]"),
        "{}",
        text(&doctor.stdout)
    );
}

#[test]
fn a_pull_before_any_command_is_told_as_git_did_it_and_doctor_names_the_missing_driver() {
    let dir = tempfile::tempdir().unwrap();
    let (origin, a) = origin_and_first_clone(dir.path());
    let b = clone_of(dir.path(), &origin);
    // the person edits by hand and commits, never running trilogy: git line-merges the pull
    let path = b.path("SESSIONS.md");
    let text_now = std::fs::read_to_string(&path).unwrap();
    let at = text_now.find("\n## ").unwrap();
    let edited = format!(
        "{}\n## 2026-11-30 · by hand\n\n完成：a hand-written entry\n{}",
        &text_now[..at],
        &text_now[at..]
    );
    std::fs::write(&path, edited).unwrap();
    ok(b.root(), &["commit", "-q", "-am", "by hand"]);
    write_and_commit(&a, "2026-11-30", "first clone's side; tested");
    ok(a.root(), &["push", "-q", "origin", "main"]);
    let pulled = git(
        b.root(),
        &["pull", "-q", "--no-rebase", "--no-edit", "origin", "main"],
    );
    assert!(!pulled.status.success(), "git's line merge conflicts here");

    let doctor = b.run(&["doctor"]);
    let found = text(&doctor.stdout);
    assert!(
        found.contains("memory/SESSIONS.md is unmerged: git merged it line by line"),
        "{found}"
    );
    assert!(found.contains("has no trilogy merge driver"), "{found}");
    assert!(
        !found.contains("unresolved merge conflict marker"),
        "the unmerged file is told of once: {found}"
    );
    let status = b.ok(&["status"]);
    assert!(
        status.contains("UNMERGED: memory/SESSIONS.md: git merged it line by line"),
        "{status}"
    );
    // git's config is not written while git's merge is under way
    assert_eq!(driver_config(&b), "");
    b.ok(&["resolve"]);
    assert_eq!(ok(b.root(), &["ls-files", "--unmerged"]), "");
    let sessions = b.read("SESSIONS.md");
    assert!(sessions.contains("a hand-written entry") && sessions.contains("first clone's side"));
    assert!(!sessions.contains("<<<<<<<"), "{sessions}");
    ok(b.root(), &["commit", "-q", "--no-edit"]);
    // once the merge is concluded, the next command sets the driver up
    b.ok(&["status"]);
    assert!(driver_config(&b).contains("merge-driver"));
}

#[test]
fn paths_that_are_not_memory_files_get_gits_own_text_merge() {
    let ws = repo(true);
    std::fs::write(ws.root().join(".gitattributes"), "* merge=trilogy\n").unwrap();
    std::fs::create_dir_all(ws.root().join("docs")).unwrap();
    let lines = "one\ntwo\nthree\nfour\nfive\nsix\nseven\n";
    std::fs::write(ws.root().join("notes.txt"), lines).unwrap();
    // a file named like a memory file outside the memory folder is no memory file
    let decisions = "# Design notes\n\n## 2026-01-02 · b\nsecond\n\n## 2026-01-01 · a\nfirst\n";
    std::fs::write(ws.root().join("docs/DECISIONS.md"), decisions).unwrap();
    ok(ws.root(), &["add", "-A"]);
    ok(ws.root(), &["commit", "-q", "-m", "notes"]);
    ok(ws.root(), &["branch", "feature"]);
    let edit = |file: &str, from: &str, to: &str| {
        let p = ws.root().join(file);
        let t = std::fs::read_to_string(&p).unwrap().replacen(from, to, 1);
        std::fs::write(p, t).unwrap();
    };
    ok(ws.root(), &["checkout", "-q", "feature"]);
    edit("notes.txt", "two\n", "two on feature\n");
    edit("docs/DECISIONS.md", "first\n", "first, on feature\n");
    ok(ws.root(), &["commit", "-q", "-am", "feature"]);
    ok(ws.root(), &["checkout", "-q", "main"]);
    edit("notes.txt", "six\n", "six on main\n");
    edit(
        "docs/DECISIONS.md",
        "## 2026-01-01 · a\n",
        "## 2026-01-03 · c\nthird\n\n## 2026-01-01 · a\n",
    );
    ok(ws.root(), &["commit", "-q", "-am", "main"]);
    ok(ws.root(), &["merge", "-q", "--no-edit", "feature"]);
    let notes = std::fs::read_to_string(ws.root().join("notes.txt")).unwrap();
    assert_eq!(
        notes,
        "one\ntwo on feature\nthree\nfour\nfive\nsix on main\nseven\n"
    );
    let merged = std::fs::read_to_string(ws.root().join("docs/DECISIONS.md")).unwrap();
    assert_eq!(
        merged,
        "# Design notes\n\n## 2026-01-02 · b\nsecond\n\n## 2026-01-03 · c\nthird\n\n## 2026-01-01 · a\nfirst, on feature\n",
        "line by line, in the file's own order"
    );

    // both sides changing one line: git's markers, both sides kept, the merge stopped
    ok(ws.root(), &["checkout", "-q", "-b", "other"]);
    edit("notes.txt", "four\n", "four (other)\n");
    ok(ws.root(), &["commit", "-q", "-am", "other"]);
    ok(ws.root(), &["checkout", "-q", "main"]);
    edit("notes.txt", "four\n", "four (main)\n");
    ok(ws.root(), &["commit", "-q", "-am", "main again"]);
    let out = git(ws.root(), &["merge", "-q", "--no-edit", "other"]);
    assert!(!out.status.success());
    let notes = std::fs::read_to_string(ws.root().join("notes.txt")).unwrap();
    assert!(
        notes.contains("<<<<<<<")
            && notes.contains("four (main)")
            && notes.contains("four (other)"),
        "{notes}"
    );
}
