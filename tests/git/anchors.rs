//! Entries that cite code come due when the code moves on: a decision naming `src/a.rs` is
//! anchored at the commit its line came in, and a later commit that rewrites, renames or
//! deletes the file makes it due — in a fresh clone too, and following the branch checked out.

use crate::common;

use common::{Ws, git_output, text};
use serde_json::Value;

fn git(ws: &Ws, args: &[&str]) {
    let o = git_output(ws.root(), args);
    assert!(o.status.success(), "git {args:?}: {}", text(&o.stderr));
}

fn commit(ws: &Ws, message: &str) {
    git(ws, &["add", "-A"]);
    git(ws, &["commit", "-q", "-m", message]);
}

fn write(ws: &Ws, path: &str, text: &str) {
    let p = ws.root().join(path);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

fn lines(n: usize, tag: &str) -> String {
    (0..n).map(|i| format!("fn {tag}_{i}() {{}}\n")).collect()
}

/// How one cited path moved: (path, renamed to, deleted, the newest commit's subject).
type Drift = (String, Option<String>, bool, String);

/// What `trilogy due` lists as moved: each entry's heading and how its paths moved.
fn moved(ws: &Ws) -> Vec<(String, Vec<Drift>)> {
    let v = ws.json(&["due"]);
    (v.as_array().unwrap().iter())
        .filter(|d| d.get("moved").is_some())
        .map(|d| {
            let drift = (d["moved"].as_array().unwrap().iter())
                .map(|m| {
                    (
                        m["path"].as_str().unwrap().to_string(),
                        m["renamed_to"].as_str().map(String::from),
                        m["deleted"].as_bool().unwrap(),
                        m["commits"][0][1].as_str().unwrap_or_default().to_string(),
                    )
                })
                .collect();
            (d["heading"].as_str().unwrap().to_string(), drift)
        })
        .collect()
}

/// A repository with `src/a.rs` (40 lines), `src/c.rs` and `README.md`, and two decisions
/// citing them, all committed on `main`.
fn repo() -> Ws {
    let ws = Ws::new();
    git(&ws, &["init", "-q", "-b", "main"]);
    ws.ok(&["init"]);
    write(&ws, "src/a.rs", &lines(40, "a"));
    write(&ws, "src/c.rs", &lines(10, "c"));
    write(&ws, "README.md", "# demo\n");
    ws.ok(&[
        "checkpoint",
        "--decision",
        "keep the parser in `src/a.rs` hand-written",
        "--because",
        "errors name the line",
    ]);
    ws.ok(&[
        "checkpoint",
        "--decision",
        "helpers live in src/c.rs, not in a crate",
        "--because",
        "one build",
    ]);
    commit(&ws, "start");
    ws
}

#[test]
fn a_commit_rewriting_a_cited_file_makes_its_decision_due_naming_the_commit() {
    let ws = repo();
    assert_eq!(moved(&ws), vec![], "nothing moved yet");
    // a commit to other files, and a small change to the cited one: not due
    write(&ws, "README.md", "# demo\n\nmore\n");
    let mut a = lines(40, "a");
    a.push_str("fn one_more() {}\n");
    write(&ws, "src/a.rs", &a);
    commit(&ws, "docs and one line");
    assert_eq!(moved(&ws), vec![]);
    // a rewrite of most of it: due, with the commit
    let mut a = lines(10, "a");
    a.push_str(&lines(30, "rewritten"));
    write(&ws, "src/a.rs", &a);
    commit(&ws, "rewrite the parser");
    let m = moved(&ws);
    assert_eq!(m.len(), 1, "{m:?}");
    assert!(m[0].0.contains("2026"), "{m:?}");
    assert_eq!(
        m[0].1,
        vec![("src/a.rs".into(), None, false, "rewrite the parser".into())]
    );
    // status counts it; the next session's block names it (the hook reads what due found)
    let status = ws.json(&["status"]);
    assert!(
        status["due"]
            .as_array()
            .unwrap()
            .iter()
            .any(|d| d.get("moved").is_some()),
        "{status}"
    );
    let out = ws.ok_stdin(
        &["hook", "claude", "session-start"],
        &common::session_start_payload(&ws, "s-1"),
    );
    let block = common::hook_context(&out);
    assert!(block.contains("`src/a.rs` 改了"), "{block}");
    assert!(block.contains("rewrite the parser"), "{block}");
    // a person looked: it still holds
    let id = ws.json(&["due"])[0]["id"].as_str().unwrap().to_string();
    ws.ok(&["due", "--still-true", &id]);
    assert_eq!(moved(&ws), vec![]);
}

#[test]
fn a_rename_or_a_delete_is_due_with_the_new_path_in_a_fresh_clone_and_per_branch() {
    let ws = repo();
    git(&ws, &["checkout", "-q", "-b", "side"]);
    git(&ws, &["mv", "src/c.rs", "src/helpers.rs"]);
    commit(&ws, "rename the helpers");
    let m = moved(&ws);
    assert_eq!(m.len(), 1, "{m:?}");
    assert_eq!(
        m[0].1,
        vec![(
            "src/c.rs".into(),
            Some("src/helpers.rs".into()),
            false,
            "rename the helpers".into()
        )]
    );
    // a fresh clone of `side` anchors the same lines at the same commits
    let clone = Ws::new();
    let o = git_output(
        clone.root(),
        &[
            "clone",
            "-q",
            "-b",
            "side",
            ws.root().to_str().unwrap(),
            ".",
        ],
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(moved(&clone), m);
    // back on main nothing moved; on side again it is due
    git(&ws, &["checkout", "-q", "main"]);
    assert_eq!(moved(&ws), vec![]);
    git(&ws, &["checkout", "-q", "side"]);
    assert_eq!(moved(&ws), m);
    // deleted on main
    git(&ws, &["checkout", "-q", "main"]);
    git(&ws, &["rm", "-q", "src/a.rs"]);
    commit(&ws, "drop the parser");
    let m = moved(&ws);
    assert_eq!(m.len(), 1, "{m:?}");
    assert_eq!(
        m[0].1,
        vec![("src/a.rs".into(), None, true, "drop the parser".into())]
    );
    // editing the decision's line settles it: the line is anchored where it changed
    let decisions = std::fs::read_to_string(ws.path("DECISIONS.md")).unwrap();
    let edited = decisions.replace(
        "keep the parser in `src/a.rs` hand-written",
        "keep the parser in `src/parse.rs` hand-written",
    );
    std::fs::write(ws.path("DECISIONS.md"), edited).unwrap();
    commit(&ws, "the decision names the new file");
    assert_eq!(moved(&ws), Vec::<(String, Vec<_>)>::new());
}

#[test]
fn outside_git_or_before_a_commit_nothing_is_anchored_and_nothing_fails() {
    let ws = Ws::init();
    ws.ok(&[
        "checkpoint",
        "--decision",
        "keep `src/a.rs`",
        "--because",
        "x",
    ]);
    assert_eq!(moved(&ws), vec![]);
    let v: Value = ws.json(&["status"]);
    assert!(v["due"].as_array().unwrap().is_empty(), "{v}");
    let out = ws.run(&["due", "--still-true", "whatever"]);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(err.contains("not a git repository"), "{err}");
}
