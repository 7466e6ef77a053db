//! Merges the driver did not run: a union merge repaired by the next command, the merge
//! reported and resolved into the union, and markers left where both sides changed a section.

use super::*;

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
