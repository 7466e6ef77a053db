//! Saves made from an older copy of a memory file, by real processes: a script's
//! read-modify-write that lands after an agent recorded something, a save still being written
//! while a checkpoint runs, a person's deletion right after a checkpoint, a file restored from
//! git's history. Nothing recorded is erased by a save that never saw it; what a save's writer
//! meant to remove goes.

use crate::common;

use std::io::Write;
use std::time::Duration;

use common::{Ws, git_output, text};
use serde_json::Value;

/// The events of the log, oldest first: (op, detail).
fn events(ws: &Ws) -> Vec<(String, String)> {
    let log = ws.json(&["log", "-n", "1000"]);
    let mut out: Vec<(String, String)> = log["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["op"].as_str().unwrap().to_string(),
                e["detail"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    out.reverse();
    out
}

/// `text` with `block` inserted above its first entry.
fn on_top(text: &str, block: &str) -> String {
    let i = text.find("\n## ").map_or(text.len(), |i| i + 1);
    format!("{}{block}{}", &text[..i], &text[i..])
}

fn without(text: &str, block: &str) -> String {
    assert!(text.contains(block), "{block:?} not in:\n{text}");
    text.replacen(block, "", 1)
}

fn record(ws: &Ws, done: &str) {
    ws.ok(&["checkpoint", "--session-done", done]);
}

#[test]
fn a_copy_written_back_with_a_new_entry_on_top_keeps_what_was_recorded_meanwhile() {
    let ws = Ws::init();
    record(&ws, "first entry; tested");
    // a script reads the file…
    let copy = ws.read("SESSIONS.md");
    // …an agent records…
    record(&ws, "CLI-X; tested");
    std::thread::sleep(Duration::from_millis(300));
    // …and the script writes its copy back with its own entry on top, under the same date
    let mine = "## 2026-11-29\n完成：the person's entry, checked by eye\n\n";
    ws.write("SESSIONS.md", &on_top(&copy, mine));
    record(&ws, "after the save; tested");
    let file = ws.read("SESSIONS.md");
    for s in [
        "CLI-X",
        "the person's entry",
        "first entry",
        "after the save",
    ] {
        assert!(file.contains(s), "{s} lost:\n{file}");
    }
    let ev = events(&ws);
    assert!(
        !ev.iter().any(|(op, _)| op == "replace" || op == "remove"),
        "{ev:?}"
    );
    let kept: Vec<_> = ev.iter().filter(|(op, _)| op == "kept").collect();
    assert_eq!(kept.len(), 1, "{ev:?}");
    assert!(
        kept[0]
            .1
            .contains("1 entry in SESSIONS.md recorded after the copy this save was made from"),
        "{kept:?}"
    );
    // status says so once
    let st = ws.ok(&["status"]);
    assert!(st.contains("KEPT:"), "{st}");
    let st = ws.ok(&["status"]);
    assert!(!st.contains("KEPT:"), "{st}");
    // the agents are not told a person removed anything
    let live = ws.json(&["read", "SESSIONS.md", "-n", "100"]);
    let n = live["entries"].as_array().unwrap().len();
    assert_eq!(n, 4, "{live}");
}

#[test]
fn a_script_that_edits_an_entry_of_its_copy_edits_it_and_keeps_the_newer_entry() {
    let ws = Ws::init();
    record(&ws, "the parser reads fences; tested");
    let copy = ws.read("SESSIONS.md");
    record(&ws, "CLI-X; tested");
    std::thread::sleep(Duration::from_millis(100));
    ws.write(
        "SESSIONS.md",
        &copy.replace("reads fences", "reads fences and tables"),
    );
    record(&ws, "later; tested");
    let file = ws.read("SESSIONS.md");
    assert!(file.contains("CLI-X"), "{file}");
    assert!(file.contains("reads fences and tables"), "{file}");
    assert!(!file.contains("reads fences; tested"), "{file}");
    let ev = events(&ws);
    assert!(ev.iter().any(|(op, _)| op == "replace"), "{ev:?}");
}

#[test]
fn a_save_still_being_written_makes_a_concurrent_checkpoint_wait_not_fail() {
    let ws = Ws::init();
    record(&ws, "before the save; tested");
    let mut whole = ws.read("SESSIONS.md");
    whole = on_top(
        &whole,
        "## 2026-11-29 · 手写\n完成：一条很长的中文记录，保存分两次写完\n\n",
    );
    // cut inside a Chinese character: the half is not even UTF-8
    let cut = whole.find("很长").unwrap() + 1;
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .truncate(true)
        .open(ws.path("SESSIONS.md"))
        .unwrap();
    f.write_all(&whole.as_bytes()[..cut]).unwrap();
    f.flush().unwrap();
    let mut c = ws.std_cmd();
    c.args(["checkpoint", "--session-done", "recorded mid-save; tested"]);
    let child = c
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(500));
    f.write_all(&whole.as_bytes()[cut..]).unwrap();
    f.flush().unwrap();
    drop(f);
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let file = ws.read("SESSIONS.md");
    for s in ["保存分两次写完", "recorded mid-save", "before the save"] {
        assert!(file.contains(s), "{s} lost:\n{file}");
    }
}

#[test]
fn a_file_that_stays_unparseable_is_refused_with_words_for_a_person() {
    let ws = Ws::init();
    record(&ws, "before; tested");
    let mut bytes = ws.read("SESSIONS.md").into_bytes();
    bytes.extend_from_slice(b"## 2026-11-29\n\xff\xfe broken\n");
    std::fs::write(ws.path("SESSIONS.md"), &bytes).unwrap();
    let out = ws.run(&["checkpoint", "--session-done", "refused; tested"]);
    assert_eq!(out.status.code(), Some(5), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(err.contains("SESSIONS.md"), "{err}");
    assert!(err.contains("still saving it"), "{err}");
    assert!(err.contains("fix the file by hand"), "{err}");
    assert_eq!(std::fs::read(ws.path("SESSIONS.md")).unwrap(), bytes);
}

#[test]
fn a_deletion_right_after_a_checkpoint_is_kept_and_said_then_honoured_when_made_again() {
    let ws = Ws::init();
    record(&ws, "older entry; tested");
    record(&ws, "the agent's wrong entry; tested");
    let block = "## 2026-11-29\n完成：the agent's wrong entry; tested\n\n";
    std::thread::sleep(Duration::from_millis(100));
    // the file without the newest entry is exactly the version before it: a person's
    // deletion, or a copy read before that entry was written; trilogy keeps it and says so
    ws.write("SESSIONS.md", &without(&ws.read("SESSIONS.md"), block));
    record(&ws, "next; tested");
    assert!(ws.read("SESSIONS.md").contains("wrong entry"));
    let ev = events(&ws);
    assert!(
        ev.iter()
            .any(|(op, d)| op == "kept" && d.contains("a save that lacks it again removes it")),
        "{ev:?}"
    );
    // the same deletion made again is meant
    std::thread::sleep(Duration::from_millis(100));
    ws.write("SESSIONS.md", &without(&ws.read("SESSIONS.md"), block));
    record(&ws, "after; tested");
    let file = ws.read("SESSIONS.md");
    assert!(!file.contains("wrong entry"), "{file}");
    for s in ["older entry", "next;", "after;"] {
        assert!(file.contains(s), "{s} lost:\n{file}");
    }
    let ev = events(&ws);
    assert!(ev.iter().any(|(op, _)| op == "remove"), "{ev:?}");
}

#[test]
fn a_deletion_of_an_older_entry_right_after_a_checkpoint_is_honoured_at_once() {
    let ws = Ws::init();
    record(&ws, "unwanted entry; tested");
    record(&ws, "newest entry; tested");
    std::thread::sleep(Duration::from_millis(100));
    let block = "## 2026-11-29\n完成：unwanted entry; tested\n\n";
    let t = ws.read("SESSIONS.md");
    let t = if t.contains(block) {
        without(&t, block)
    } else {
        without(&t, "\n\n## 2026-11-29\n完成：unwanted entry; tested\n") + "\n"
    };
    ws.write("SESSIONS.md", &t);
    record(&ws, "next; tested");
    let file = ws.read("SESSIONS.md");
    assert!(!file.contains("unwanted"), "{file}");
    assert!(file.contains("newest entry"), "{file}");
    assert!(!events(&ws).iter().any(|(op, _)| op == "kept"));
}

/// A repository whose memory has been committed after each of four checkpoints.
fn committed() -> Ws {
    let ws = Ws::init();
    let git = |args: &[&str]| {
        let out = git_output(ws.root(), args);
        assert!(out.status.success(), "git {args:?}: {}", text(&out.stderr));
    };
    git(&["init", "-q"]);
    git(&["config", "user.email", "t@example.com"]);
    git(&["config", "user.name", "t"]);
    for i in 1..=4 {
        record(&ws, &format!("committed entry {i}; tested"));
        git(&["add", "-A", "memory"]);
        git(&["commit", "-qm", &format!("memory {i}")]);
    }
    ws
}

#[test]
fn a_file_checked_out_from_history_is_a_deliberate_revert() {
    let ws = committed();
    let out = git_output(
        ws.root(),
        &["checkout", "HEAD~3", "--", "memory/SESSIONS.md"],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    record(&ws, "after the revert; tested");
    let file = ws.read("SESSIONS.md");
    assert!(file.contains("committed entry 1"), "{file}");
    for i in 2..=4 {
        assert!(!file.contains(&format!("committed entry {i}")), "{file}");
    }
    assert!(file.contains("after the revert"), "{file}");
    // restorable, as every removal
    let st: Value = ws.json(&["status"]);
    assert_eq!(st["restorable"], 3, "{st}");
}

#[test]
fn a_file_restored_from_history_into_the_work_tree_alone_is_a_deliberate_revert() {
    let ws = committed();
    let out = git_output(
        ws.root(),
        &["restore", "--source=HEAD~2", "--", "memory/SESSIONS.md"],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    record(&ws, "after the restore; tested");
    let file = ws.read("SESSIONS.md");
    assert!(file.contains("committed entry 2"), "{file}");
    assert!(!file.contains("committed entry 3"), "{file}");
    assert!(!file.contains("committed entry 4"), "{file}");
}

#[test]
fn a_stale_copy_that_is_no_version_git_holds_keeps_what_was_recorded_meanwhile() {
    let ws = committed();
    let copy = ws.read("SESSIONS.md");
    record(&ws, "uncommitted entry; tested");
    ws.write(
        "SESSIONS.md",
        &on_top(&copy, "## 2026-11-29\n完成：hand entry\n\n"),
    );
    record(&ws, "next; tested");
    let file = ws.read("SESSIONS.md");
    assert!(file.contains("uncommitted entry"), "{file}");
    assert!(file.contains("hand entry"), "{file}");
}
