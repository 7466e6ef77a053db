//! trilogy in a repository when no `git` is on PATH (a host started from a desktop on Windows,
//! an IDE with a bare environment, Wine): what git's own files say — the branch, a switch, an
//! operation under way — is read from `.git` directly, so absorbing and rendering hold; what
//! needs git's object store goes to the safe side. A copy git put back is merged as any outside
//! write (nothing lost), `resolve` says git is missing and changes nothing, and the merge driver
//! (which git itself runs) needs no git.

use crate::common;

use common::{Ws, git_output, text};

fn git(ws: &Ws, args: &[&str]) {
    let o = git_output(ws.root(), args);
    assert!(o.status.success(), "git {args:?}: {}", text(&o.stderr));
}

/// `trilogy args` with a PATH that holds no git (an empty folder of its own).
fn without_git(ws: &Ws, args: &[&str]) -> std::process::Output {
    let bare = tempfile::tempdir().unwrap();
    ws.cmd()
        .env("PATH", bare.path())
        .args(args)
        .output()
        .unwrap()
}

fn ok_without_git(ws: &Ws, args: &[&str]) -> String {
    let o = without_git(ws, args);
    assert!(o.status.success(), "trilogy {args:?}: {}", text(&o.stderr));
    text(&o.stdout)
}

/// A repository whose memory is committed, with a session recorded after the commit.
fn committed() -> Ws {
    let ws = Ws::init();
    git(&ws, &["init", "-q", "-b", "main"]);
    ws.ok(&["checkpoint", "--session-done", "first, committed; tested"]);
    git(&ws, &["add", "-A"]);
    git(&ws, &["commit", "-qm", "memory"]);
    ok_without_git(
        &ws,
        &[
            "checkpoint",
            "--session-done",
            "second, after the commit; tested",
        ],
    );
    ws
}

#[test]
fn hand_edits_are_absorbed_and_a_copy_git_put_back_loses_nothing() {
    let ws = committed();
    // a person's edit, absorbed by the next command that runs without git
    let edited = ws.read("SESSIONS.md").replace(
        "second, after the commit; tested",
        "second, after the commit, edited by hand; tested",
    );
    ws.write("SESSIONS.md", &edited);
    let sessions = ok_without_git(&ws, &["read", "SESSIONS.md"]);
    assert!(sessions.contains("edited by hand"), "{sessions}");
    // git (run by the person, who has it) puts back the committed copy, which lacks the second
    // entry: trilogy, without git, cannot tell it is git's; it merges it as an outside write
    git(&ws, &["checkout", "--", "memory/SESSIONS.md"]);
    let after = ok_without_git(&ws, &["read", "SESSIONS.md"]);
    assert!(after.contains("first, committed"), "{after}");
    assert!(
        after.contains("edited by hand"),
        "an entry recorded after the commit was lost:\n{after}"
    );
    let doctor = without_git(&ws, &["doctor", "--json"]);
    assert!(doctor.status.success(), "{}", text(&doctor.stdout));
}

#[test]
fn a_branch_switch_is_read_from_git_files_without_git() {
    let ws = committed();
    git(&ws, &["add", "-A"]);
    git(&ws, &["commit", "-qm", "second"]);
    git(&ws, &["switch", "-q", "-c", "other"]);
    ok_without_git(
        &ws,
        &[
            "checkpoint",
            "--session-done",
            "on the other branch; tested",
        ],
    );
    let status = ok_without_git(&ws, &["status", "--json"]);
    assert!(status.contains("\"files\""), "{status}");
    git(&ws, &["add", "-A"]);
    git(&ws, &["commit", "-qm", "other"]);
    git(&ws, &["switch", "-q", "main"]);
    // the checkout put back main's copy: the other branch's entry is that branch's, not lost
    // and not resurrected into main's file by a command that cannot ask git
    let main = ok_without_git(&ws, &["read", "SESSIONS.md"]);
    assert!(main.contains("second, after the commit"), "{main}");
    let o = git_output(ws.root(), &["status", "--porcelain"]);
    assert!(o.status.success());
}

#[test]
fn resolve_says_git_is_missing_and_changes_nothing() {
    let ws = committed();
    let before = ws.snapshot();
    let o = without_git(&ws, &["resolve"]);
    let err = text(&o.stderr);
    assert!(!o.status.success(), "resolve ran without git: {err}");
    assert!(err.contains("git did not answer"), "{err}");
    assert_eq!(ws.snapshot(), before, "resolve changed something");
}

#[test]
fn the_merge_driver_needs_no_git() {
    let ws = committed();
    let base = ws.read("SESSIONS.md");
    let title = "# SESSIONS\n";
    assert!(base.starts_with(title), "{base}");
    let entry = |day: u32, what: &str| {
        format!("\n## 2026-12-0{day} · merge · {what}\n\n- **done**: {what}; tested\n")
    };
    let dir = tempfile::tempdir().unwrap();
    let files = [
        ("O", base.clone()),
        (
            "A",
            base.replacen(title, &format!("{title}{}", entry(5, "ours")), 1),
        ),
        (
            "B",
            base.replacen(title, &format!("{title}{}", entry(4, "theirs")), 1),
        ),
    ];
    for (name, body) in &files {
        std::fs::write(dir.path().join(name), body).unwrap();
    }
    let p = |n: &str| dir.path().join(n).display().to_string();
    ok_without_git(
        &ws,
        &[
            "merge-driver",
            &p("O"),
            &p("A"),
            &p("B"),
            "memory/SESSIONS.md",
        ],
    );
    let merged = std::fs::read_to_string(dir.path().join("A")).unwrap();
    assert!(
        merged.contains("ours") && merged.contains("theirs"),
        "{merged}"
    );
}
