//! A branch switch is a checkout, not an edit: in one work tree, `git checkout other` and back
//! leaves the store as it was — no `remove` events, no restorable entries, no notice to a live
//! session — while a reset on the same branch stays an edit whose removals count.

use crate::common;

use common::{Ws, git_output, next_prompt, text};
use serde_json::Value;

fn git(ws: &Ws, args: &[&str]) {
    let o = git_output(ws.root(), args);
    assert!(o.status.success(), "git {args:?}: {}", text(&o.stderr));
}

/// A workspace in a git repository on `main`, its memory committed, and a branch `side`
/// checked out that holds one more session and one more decision, committed.
fn with_side() -> Ws {
    let ws = Ws::new();
    git(&ws, &["init", "-q", "-b", "main"]);
    ws.ok(&["init"]);
    ws.ok(&["checkpoint", "--session-done", "on main; tested"]);
    git(&ws, &["add", "-A"]);
    git(&ws, &["commit", "-qm", "memory"]);
    git(&ws, &["checkout", "-qb", "side"]);
    ws.ok(&[
        "checkpoint",
        "--session-done",
        "on side; tested",
        "--decision",
        "side: keep the cache per user",
    ]);
    git(&ws, &["commit", "-qam", "side memory"]);
    ws
}

/// Every entry's id and state, sorted: what the store holds.
fn states(ws: &Ws) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = ["SESSIONS.md", "DECISIONS.md"]
        .iter()
        .flat_map(|f| {
            let r = ws.json(&["read", f, "-n", "1000"]);
            r["entries"]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| {
                    (
                        e["id"].as_str().unwrap().to_string(),
                        e["state"].as_str().unwrap().to_string(),
                    )
                })
                .collect::<Vec<_>>()
        })
        .collect();
    v.sort();
    v
}

/// Delete, by hand, the session whose text holds `needle` from SESSIONS.md.
fn drop_session(ws: &Ws, needle: &str) {
    let text = ws.read("SESSIONS.md");
    let cut: String = text
        .split("\n## ")
        .filter(|part| !part.contains(needle))
        .collect::<Vec<_>>()
        .join("\n## ");
    ws.write("SESSIONS.md", &cut);
}

fn events(ws: &Ws) -> Vec<Value> {
    ws.json(&["log", "-n", "1000"])["events"]
        .as_array()
        .unwrap()
        .clone()
}

fn restorable(ws: &Ws) -> u64 {
    ws.json(&["status"])["restorable"].as_u64().unwrap()
}

#[test]
fn checkout_and_back_removes_nothing_counts_nothing_and_tells_no_one() {
    let ws = with_side();
    ws.ok_stdin(
        &["hook", "claude", "session-start"],
        &common::session_start_payload(&ws, "live"),
    );
    assert_eq!(next_prompt(&ws, "live"), "");
    let before = states(&ws);
    let events_before = events(&ws).len();
    assert_eq!(restorable(&ws), 0);

    git(&ws, &["checkout", "-q", "main"]);
    let on_main = ws.json(&["status"]);
    assert_eq!(on_main["sessions_live"], 1, "{on_main}");
    assert_eq!(on_main["decisions"], 0, "{on_main}");
    assert_eq!(on_main["restorable"], 0, "a checkout is not a deletion");
    assert_eq!(on_main["elsewhere"], 2, "{on_main}");
    assert!(!ws.read("SESSIONS.md").contains("on side"));
    let block = ws.ok(&["inject"]);
    assert!(!block.contains("keep the cache per user"), "{block}");
    assert_eq!(next_prompt(&ws, "live"), "", "a checkout is no news");

    git(&ws, &["checkout", "-q", "side"]);
    assert_eq!(
        states(&ws),
        before,
        "the same live set after the round trip"
    );
    assert_eq!(restorable(&ws), 0);
    assert_eq!(next_prompt(&ws, "live"), "", "nor is the way back");
    let log = events(&ws);
    assert!(
        !log.iter()
            .any(|e| e["op"] == "remove" || e["op"] == "replace"),
        "{log:#?}"
    );
    assert!(
        log[..log.len() - events_before]
            .iter()
            .all(|e| e["actor"] == "git-checkout"),
        "every change is the checkout's: {log:#?}"
    );
    // the files are git's: nothing for git to see
    let st = git_output(ws.root(), &["status", "--porcelain"]);
    assert_eq!(text(&st.stdout), "", "trilogy rewrote a checked-out file");
}

#[test]
fn a_reset_on_the_same_branch_is_an_edit_and_its_removals_count() {
    let ws = with_side();
    git(&ws, &["reset", "-q", "--hard", "HEAD~1"]);
    let s = ws.json(&["status"]);
    assert_eq!(s["restorable"], 2, "{s}");
    assert_eq!(s["elsewhere"], 0, "{s}");
    assert!(events(&ws).iter().any(|e| e["op"] == "remove"));
}

#[test]
fn an_entry_a_forced_checkout_dropped_is_restorable_once_its_branch_is_back() {
    let ws = with_side();
    ws.ok(&["checkpoint", "--session-done", "never committed; tested"]);
    git(&ws, &["checkout", "-qf", "main"]);
    assert_eq!(ws.json(&["status"])["elsewhere"], 3);
    git(&ws, &["checkout", "-q", "side"]);
    let s = ws.json(&["status"]);
    assert_eq!(s["elsewhere"], 0, "{s}");
    assert_eq!(
        s["restorable"], 1,
        "side's files lack it: removed, restorable: {s}"
    );
    let gone = events(&ws)
        .into_iter()
        .find(|e| e["op"] == "remove")
        .expect("its removal is logged");
    assert!(
        gone["detail"]
            .as_str()
            .unwrap()
            .contains("not in the files of side"),
        "{gone}"
    );
    let id = gone["ids"][0].as_str().unwrap().to_string();
    ws.ok(&["restore", &id]);
    assert!(ws.read("SESSIONS.md").contains("never committed"));
}

#[test]
fn a_merge_brings_the_entry_once_with_the_provenance_of_its_branch() {
    let ws = with_side();
    git(&ws, &["checkout", "-q", "main"]);
    assert_eq!(ws.json(&["status"])["elsewhere"], 2);
    git(&ws, &["merge", "-q", "--no-edit", "side"]);
    let s = ws.json(&["status"]);
    assert_eq!(s["sessions_live"], 2, "{s}");
    assert_eq!(s["decisions"], 1, "{s}");
    assert_eq!(s["elsewhere"], 0, "{s}");
    let d = ws.json(&["read", "DECISIONS.md", "-n", "10"]);
    let e = &d["entries"][0];
    assert_eq!(e["provenance"]["branch"], "side", "{e}");
    assert_eq!(e["provenance"]["via"], "cli", "{e}");
    let text = ws.read("DECISIONS.md");
    let headings = text
        .lines()
        .filter(|l| l.starts_with("## ") && l.contains("keep the cache per user"));
    assert_eq!(headings.count(), 1, "{text}");
}

#[test]
fn a_switch_between_branches_with_equal_files_leaves_later_edits_edits() {
    let ws = with_side();
    git(&ws, &["checkout", "-qb", "copy"]);
    // a read under the new head records it: the person's deletion that follows is an edit
    // (of the older entry: dropping the newest would give back the very bytes of an older copy,
    // which is read as that copy put back, keeping what came after it)
    ws.ok(&["status"]);
    drop_session(&ws, "on main");
    let s = ws.json(&["status"]);
    assert_eq!(s["restorable"], 1, "{s}");
    assert_eq!(s["elsewhere"], 0, "{s}");
}

#[test]
fn commits_on_a_detached_head_leave_a_persons_deletion_a_removal() {
    let ws = with_side();
    git(&ws, &["checkout", "-q", "--detach"]);
    ws.ok(&["status"]);
    drop_session(&ws, "on side");
    git(&ws, &["commit", "-qam", "drop one"]);
    let s = ws.json(&["status"]);
    assert_eq!(s["restorable"], 1, "{s}");
    assert_eq!(s["elsewhere"], 0, "{s}");
}

#[test]
fn an_uncommitted_deletion_carried_across_a_switch_stays_a_removal() {
    let ws = with_side();
    drop_session(&ws, "on main");
    git(&ws, &["switch", "-q", "-c", "feature"]);
    let s = ws.json(&["status"]);
    assert_eq!(s["restorable"], 1, "the person's deletion: {s}");
    assert_eq!(s["elsewhere"], 0, "{s}");
}
