//! Git and trilogy never write a memory file at the same time: trilogy holds git's index lock
//! while it reads and swaps memory files (a git command started then fails cleanly, changing
//! nothing), clears a lock of its own left by a killed process, waits out a stash saving the
//! work tree (which reads it without the lock), and reads an older copy git put back (a stash,
//! a merge that rewound the work tree after failing) as that copy, keeping what was recorded
//! after it.

use crate::common;

use std::path::Path;
use std::process::Stdio;

use common::{Ws, git_output, text, wait_for};

fn git(ws: &Ws, args: &[&str]) -> std::process::Output {
    git_output(ws.root(), args)
}

fn git_ok(ws: &Ws, args: &[&str]) -> String {
    let o = git(ws, args);
    assert!(o.status.success(), "git {args:?}: {}", text(&o.stderr));
    text(&o.stdout)
}

/// A workspace in a git repository with its memory committed.
fn repo() -> Ws {
    let ws = Ws::init();
    git_ok(&ws, &["init", "-q", "-b", "main"]);
    std::fs::write(ws.root().join(".gitignore"), "no-user-config.toml\n").unwrap();
    ws.ok(&["checkpoint", "--session-done", "committed; tested"]);
    git_ok(&ws, &["add", "-A"]);
    git_ok(&ws, &["commit", "-qm", "memory"]);
    ws
}

fn index_lock(ws: &Ws) -> std::path::PathBuf {
    ws.root().join(".git/index.lock")
}

/// A checkpoint started in the background that stops for `ms` right after swapping its first
/// file in (git's lock held), having announced the pause in `mark`.
fn paused_checkpoint(ws: &Ws, mark: &Path, ms: u64, line: &str) -> std::process::Child {
    ws.std_cmd()
        .env("TRILOGY_PAUSE_AT", format!("after-swap:{ms}"))
        .env("TRILOGY_PAUSE_MARK", mark)
        .args(["checkpoint", "--session-done", line])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// A checkpoint killed (`kill -9`) while it holds git's index lock.
fn killed_holding_the_lock(ws: &Ws) {
    let mark = ws.state.path().join("paused");
    let mut child = paused_checkpoint(ws, &mark, 60_000, "killed mid-write; tested");
    wait_for(&mark, "the checkpoint never reached its write");
    child.kill().unwrap();
    child.wait().unwrap();
}

#[test]
fn a_git_command_run_while_trilogy_swaps_a_file_in_fails_cleanly_and_runs_after() {
    let ws = repo();
    let mark = ws.state.path().join("paused");
    let mut child = paused_checkpoint(&ws, &mark, 1500, "written under the lock; tested");
    wait_for(&mark, "the checkpoint never reached its write");
    let lock = std::fs::read_to_string(index_lock(&ws)).expect("trilogy holds git's index lock");
    assert!(
        lock.starts_with(&format!("trilogy {} ", child.id())),
        "{lock}"
    );
    // git is refused, and changes nothing
    let head = git_ok(&ws, &["rev-parse", "HEAD"]);
    let refused = git(&ws, &["commit", "-qam", "while trilogy writes"]);
    assert!(!refused.status.success());
    assert!(
        text(&refused.stderr).contains("index.lock"),
        "{}",
        text(&refused.stderr)
    );
    assert_eq!(git_ok(&ws, &["rev-parse", "HEAD"]), head);
    assert!(child.wait().unwrap().success());
    // the lock is let go with the write: git runs, and commits trilogy's whole file
    assert!(!index_lock(&ws).exists());
    git_ok(&ws, &["commit", "-qam", "after trilogy wrote"]);
    let committed = git_ok(&ws, &["show", "HEAD:memory/SESSIONS.md"]);
    assert!(committed.contains("written under the lock"), "{committed}");
    assert_eq!(git_ok(&ws, &["status", "--porcelain"]), "");
}

#[test]
fn trilogy_killed_holding_gits_lock_leaves_it_to_its_next_command() {
    let ws = repo();
    killed_holding_the_lock(&ws);
    assert!(index_lock(&ws).exists(), "the kill left the lock");
    assert!(!git(&ws, &["commit", "-qam", "x"]).status.success());
    // doctor names it; any command clears it
    let out = ws.run(&["doctor", "--json"]);
    assert_eq!(out.status.code(), Some(9), "an error-level finding");
    let d: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let findings = d["findings"].as_array().unwrap();
    assert!(
        findings
            .iter()
            .any(|f| f["check"] == "git" && f["message"].as_str().unwrap().contains("index.lock")),
        "{d}"
    );
    ws.ok(&["status"]);
    assert!(!index_lock(&ws).exists(), "status cleared the lock");
    git_ok(&ws, &["add", "-A"]);
    git_ok(&ws, &["commit", "-qm", "after the kill"]);
}

#[test]
fn doctor_fix_removes_a_lock_trilogy_left_and_never_gits_own() {
    let ws = repo();
    killed_holding_the_lock(&ws);
    let fixed = ws.json(&["doctor", "--fix"]);
    assert!(
        fixed["fixed"]
            .as_array()
            .unwrap()
            .iter()
            .any(|l| l.as_str().unwrap().contains("index.lock")),
        "{fixed}"
    );
    assert!(!index_lock(&ws).exists());
    // git's own lock (a git command running) is left alone, whatever trilogy runs
    std::fs::write(index_lock(&ws), b"DIRC").unwrap();
    ws.ok(&["doctor", "--fix"]);
    ws.ok(&[
        "checkpoint",
        "--session-done",
        "while git holds the index; tested",
    ]);
    assert_eq!(std::fs::read(index_lock(&ws)).unwrap(), b"DIRC");
    std::fs::remove_file(index_lock(&ws)).unwrap();
    // the entry waited in the store, and the next command writes it
    ws.ok(&["checkpoint", "--session-done", "after git; tested"]);
    assert!(ws.read("SESSIONS.md").contains("while git holds the index"));
}

/// The `git` found first on `PATH`.
#[cfg(unix)]
fn real_git() -> std::path::PathBuf {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|d| d.join("git"))
        .find(|g| g.is_file())
        .expect("git is on PATH")
}

/// A `git stash create` (what a merge, pull or rebase with `--autostash` runs) stopped where
/// it has made its own index and let go of git's index lock, just before it reads the changed
/// files into the stash (`git update-index`, run as a `git` found on git's exec path: here a
/// script that writes `<dir>/saving` and waits for `<dir>/go`, a minute at most, then runs
/// the real git).
#[cfg(unix)]
fn stash_stopped_before_saving(ws: &Ws, dir: &Path) -> std::process::Child {
    use std::os::unix::fs::PermissionsExt;
    std::fs::create_dir_all(dir).unwrap();
    let script = format!(
        "#!/bin/sh\nif [ \"$1\" = update-index ]; then\n  : > '{d}/saving'\n  n=0\n  while [ ! -e '{d}/go' ] && [ $n -lt 3000 ]; do sleep 0.02; n=$((n+1)); done\nfi\nexec '{git}' \"$@\"\n",
        d = dir.display(),
        git = real_git().display()
    );
    let wrapper = dir.join("git");
    std::fs::write(&wrapper, script).unwrap();
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::process::Command::new(real_git())
        .arg("-C")
        .arg(ws.root())
        .args(["stash", "create"])
        .env("GIT_EXEC_PATH", dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

#[cfg(unix)]
#[test]
fn a_file_is_not_swapped_in_while_a_stash_saves_the_work_tree() {
    // git's stash reads each changed file without the index lock, taking its size before it
    // opens it: a version swapped in between would be saved cut at the old one's length
    let ws = repo();
    ws.ok(&["checkpoint", "--session-done", "before the stash; tested"]);
    let before = std::fs::read(ws.path("SESSIONS.md")).unwrap();
    let dir = ws.state.path().join("git-exec");
    let stash = stash_stopped_before_saving(&ws, &dir);
    wait_for(&dir.join("saving"), "the stash never reached its save");
    let own_index = std::fs::read_dir(ws.root().join(".git"))
        .unwrap()
        .flatten()
        .any(|e| e.file_name().to_string_lossy().starts_with("index.stash."));
    assert!(own_index, "the stash keeps its own index while it saves");
    assert!(!index_lock(&ws).exists(), "and holds no index lock");
    ws.ok(&["checkpoint", "--session-done", "while git stashes; tested"]);
    // the file stays as the stash is about to read it
    let during = std::fs::read(ws.path("SESSIONS.md")).unwrap();
    std::fs::write(dir.join("go"), "").unwrap();
    let out = stash.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&during), text(&before));
    let id = text(&out.stdout).trim().to_string();
    let saved = git(
        &ws,
        &["cat-file", "blob", &format!("{id}:memory/SESSIONS.md")],
    );
    assert_eq!(text(&saved.stdout), text(&before));
    // the entry waited in the store; the next command writes it
    ws.ok(&["checkpoint", "--session-done", "after the stash; tested"]);
    let file = ws.read("SESSIONS.md");
    assert!(file.contains("while git stashes; tested"), "{file}");
}

#[test]
fn an_older_copy_git_puts_back_keeps_what_was_recorded_after_it() {
    // what a `git merge` refused for local changes does: it stashes the work tree, tries,
    // then rewinds (`read-tree --reset -u HEAD`) and applies the stash; an entry trilogy
    // recorded between the stash and the rewind is in no copy git wrote back
    let ws = repo();
    ws.ok(&["checkpoint", "--session-done", "before the stash; tested"]);
    let stash = git_ok(&ws, &["stash", "create"]).trim().to_string();
    assert!(!stash.is_empty());
    ws.ok(&[
        "checkpoint",
        "--session-done",
        "between stash and rewind; tested",
    ]);
    git_ok(&ws, &["read-tree", "--reset", "-u", "HEAD"]);
    git_ok(&ws, &["stash", "apply", "--quiet", &stash]);
    let put_back = ws.read("SESSIONS.md");
    assert!(!put_back.contains("between stash and rewind"), "{put_back}");
    let s = ws.json(&["status"]);
    assert_eq!(s["restorable"], 0, "nothing removed: {s}");
    ws.ok(&["checkpoint", "--session-done", "later; tested"]);
    let file = ws.read("SESSIONS.md");
    for e in [
        "committed",
        "before the stash",
        "between stash and rewind",
        "later",
    ] {
        assert!(file.contains(e), "{e} lost: {file}");
    }
    let log = ws.json(&["log", "-n", "100"]);
    let kept = log["events"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["op"] == "kept")
        .expect("the kept entry is logged");
    assert!(
        kept["detail"]
            .as_str()
            .unwrap()
            .contains("git put an older copy"),
        "{kept}"
    );
}

#[test]
fn a_reset_of_the_file_to_what_head_holds_stays_a_persons_removal() {
    let ws = repo();
    ws.ok(&["checkpoint", "--session-done", "uncommitted; tested"]);
    git_ok(&ws, &["checkout", "--", "memory/SESSIONS.md"]);
    let s = ws.json(&["status"]);
    assert_eq!(s["restorable"], 1, "{s}");
    assert!(!ws.read("SESSIONS.md").contains("uncommitted"));
    // the log names git as what took it out, not a person's edit
    let log = ws.json(&["log", "-n", "100"]);
    let gone = (log["events"].as_array().unwrap().iter())
        .find(|e| e["op"] == "remove")
        .expect("the removal is logged");
    assert_eq!(gone["actor"], "git", "{gone}");
}

#[test]
fn entries_recorded_while_a_merge_puts_the_work_tree_back_stay() {
    // a merge whose strategy gives up (git 2.38 on) resets the work tree to HEAD, then
    // reapplies what it stashed when it began: for a moment the file is HEAD's version, and an
    // entry recorded after the stash is in no version at all. The same steps by hand, with
    // ORIG_HEAD written as a merge writes it first, and trilogy reading in that moment
    let ws = repo();
    ws.ok(&["checkpoint", "--session-done", "before the merge; tested"]);
    git_ok(&ws, &["update-ref", "ORIG_HEAD", "HEAD"]);
    let stash = git_ok(&ws, &["stash", "create"]).trim().to_string();
    assert!(!stash.is_empty());
    merge_puts_back(&ws, &stash, "during the merge", &["before the merge"]);
}

/// The rest of a merge that gave up, its stash `stash` taken (empty: nothing to stash): `during`
/// is recorded, git puts the work tree back to HEAD, trilogy reads it, git reapplies the stash,
/// one more entry is recorded. Nothing may be lost or counted as removed; `also` must stay too.
fn merge_puts_back(ws: &Ws, stash: &str, during: &str, also: &[&str]) {
    ws.ok(&["checkpoint", "--session-done", &format!("{during}; tested")]);
    git_ok(ws, &["read-tree", "--reset", "-u", "HEAD"]);
    ws.ok(&["status"]);
    if !stash.is_empty() {
        git_ok(ws, &["stash", "apply", "--quiet", stash]);
    }
    ws.ok(&["checkpoint", "--session-done", "after the merge; tested"]);
    let file = ws.read("SESSIONS.md");
    for t in [during, "after the merge"].iter().chain(also) {
        assert!(file.contains(t), "{t} lost: {file}");
    }
    let log = ws.json(&["log", "-n", "100"]);
    let removed: Vec<_> = (log["events"].as_array().unwrap().iter())
        .filter(|e| e["op"] == "remove")
        .collect();
    assert!(removed.is_empty(), "nothing was removed: {removed:?}");
}

#[test]
fn entries_recorded_while_a_second_merge_from_the_same_head_puts_the_work_tree_back_stay() {
    // the merge before gave up from the same HEAD: `ORIG_HEAD` already names HEAD's commit, so
    // git leaves it unwritten, and its time is the first merge's, long past. HEAD last moved
    // long before the entry was recorded (the commit's reflog line is dated in the past), so
    // neither the time of ORIG_HEAD nor that of HEAD's last move can tell this merge is under
    // way; that ORIG_HEAD names HEAD's own commit does
    let ws = repo();
    let o = std::process::Command::new("git")
        .current_dir(ws.root())
        .args(["commit", "-q", "--allow-empty", "-m", "long ago"])
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_DATE", "2020-01-01T00:00:00Z")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o.stderr));
    git_ok(&ws, &["update-ref", "ORIG_HEAD", "HEAD"]);
    let orig = std::fs::File::options()
        .write(true)
        .open(ws.root().join(".git/ORIG_HEAD"))
        .unwrap();
    let hour_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    orig.set_modified(hour_ago).unwrap();
    drop(orig);
    let stash = git_ok(&ws, &["stash", "create"]).trim().to_string();
    merge_puts_back(&ws, &stash, "during the second merge", &["committed"]);
}

#[test]
fn an_older_copy_of_project_md_git_puts_back_keeps_the_lines_written_after_it() {
    let ws = repo();
    let line = |text: &str| ws.ok(&["checkpoint", "--section", "现状", "--line", text]);
    line("before the stash");
    let stash = git_ok(&ws, &["stash", "create"]).trim().to_string();
    assert!(!stash.is_empty());
    line("between stash and rewind");
    git_ok(&ws, &["read-tree", "--reset", "-u", "HEAD"]);
    git_ok(&ws, &["stash", "apply", "--quiet", &stash]);
    assert!(!ws.read("PROJECT.md").contains("between stash and rewind"));
    line("later");
    let file = ws.read("PROJECT.md");
    for l in ["before the stash", "between stash and rewind", "later"] {
        assert!(file.contains(l), "{l} lost: {file}");
    }
}

#[test]
fn an_entry_a_merge_wrote_over_before_git_knew_it_stays() {
    // git merge checks the work tree clean, lets go of the index, takes it again and writes
    // its result without looking again: an entry trilogy swapped in between is written over.
    // The same end state, made by hand: the entry is in the store, the merged file (a version
    // git holds) lacks it, and neither the commit the merge started from nor any other has it
    let a = repo();
    let origin = tempfile::tempdir().unwrap();
    let url = origin.path().to_str().unwrap();
    let o = git_output(origin.path(), &["init", "-q", "--bare", "-b", "main"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    a.ok(&["install", "git"]);
    git_ok(&a, &["add", "-A"]);
    git_ok(&a, &["commit", "-qm", "driver"]);
    git_ok(&a, &["remote", "add", "origin", url]);
    git_ok(&a, &["push", "-q", "-u", "origin", "main"]);
    let b = Ws::new();
    git_ok(&b, &["clone", "-q", url, "."]);
    b.ok(&["install", "git"]);
    b.ok(&[
        "checkpoint",
        "--session-done",
        "from the other clone; tested",
    ]);
    git_ok(&b, &["add", "-A", "memory"]);
    git_ok(&b, &["commit", "-qm", "b"]);
    git_ok(&b, &["push", "-q", "origin", "main"]);

    a.ok(&[
        "checkpoint",
        "--session-done",
        "written over by the merge; tested",
    ]);
    let recorded = a.read("SESSIONS.md");
    git_ok(&a, &["checkout", "--", "memory/SESSIONS.md"]);
    git_ok(
        &a,
        &["pull", "-q", "--no-rebase", "--no-edit", "origin", "main"],
    );
    assert!(!a.read("SESSIONS.md").contains("written over by the merge"));
    assert!(recorded.contains("written over by the merge"));

    let s = a.ok(&["checkpoint", "--session-done", "after the pull; tested"]);
    let file = a.read("SESSIONS.md");
    for kept in [
        "written over by the merge",
        "from the other clone",
        "after the pull",
    ] {
        assert!(file.contains(kept), "{kept} lost ({s}): {file}");
    }
    let log = a.json(&["log", "-n", "100"]);
    assert!(
        !(log["events"].as_array().unwrap().iter())
            .any(|e| e["op"] == "remove" && e["actor"] == "git"),
        "nothing counts as removed by git: {log}"
    );
}
