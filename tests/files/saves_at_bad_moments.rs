//! Unlucky timing: a program that saves a memory file in several `write()` calls or holds it
//! open across a trilogy write, git rewriting the work tree while trilogy records, a memory
//! folder that cannot be written. Nothing a person or a writer saved is lost.

use crate::common;

use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::process::Command;
use std::time::Duration;

use common::{Ws, headings, text};

/// A SESSIONS.md with `n` hand-written entries, newest first.
fn hand_sessions(n: usize) -> String {
    let mut s = String::from("# SESSIONS\n\n");
    for i in (0..n).rev() {
        s.push_str(&format!(
            "## 2026-{:02}-{:02}\n\n完成：hand entry {i:03}, checked by eye\n\n",
            11 - (i / 28).min(10),
            1 + i % 28
        ));
    }
    s
}

/// Live SESSIONS entries' bodies, as the store holds them.
fn live_bodies(ws: &Ws) -> Vec<String> {
    let v = ws.json(&["read", "SESSIONS.md", "-n", "100000"]);
    v["entries"]
        .as_array()
        .unwrap_or(&Vec::new())
        .iter()
        .filter(|e| e["state"] == "live")
        .map(|e| e["body"].as_str().unwrap_or_default().to_string())
        .collect()
}

#[test]
fn a_writer_holding_the_file_across_a_trilogy_write_loses_nothing() {
    let ws = Ws::init();
    ws.write("SESSIONS.md", &hand_sessions(40));
    ws.ok(&["status"]);
    // a program rewrites the file through one descriptor, pausing after the first half (at an
    // entry boundary, so the half looks like a whole file)
    let whole = hand_sessions(40);
    let mid = (whole.len() / 2..)
        .find(|i| whole.is_char_boundary(*i))
        .unwrap();
    let cut = whole[..mid].rfind("\n## ").unwrap() + 1;
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .truncate(true)
        .open(ws.path("SESSIONS.md"))
        .unwrap();
    f.write_all(&whole.as_bytes()[..cut]).unwrap();
    f.flush().unwrap();
    // long enough for the half to look finished
    std::thread::sleep(Duration::from_millis(300));
    ws.ok(&["checkpoint", "--session-done", "recorded mid-save; tested"]);
    // the rest goes into the inode trilogy replaced
    f.write_all(&whole.as_bytes()[cut..]).unwrap();
    drop(f);
    ws.ok(&["checkpoint", "--session-done", "the next one; tested"]);
    let live = live_bodies(&ws).join("\n");
    for i in 0..40 {
        assert!(
            live.contains(&format!("hand entry {i:03},")),
            "hand entry {i:03} is not live:\n{live}"
        );
    }
    assert!(live.contains("recorded mid-save") && live.contains("the next one"));
    let file = ws.read("SESSIONS.md");
    assert!(file.contains("hand entry 000,") && file.contains("hand entry 039,"));
    assert!(ws.run(&["doctor"]).status.success());
}

#[test]
fn a_save_paused_mid_line_is_not_read_as_removals() {
    let ws = Ws::init();
    ws.write("SESSIONS.md", &hand_sessions(20));
    ws.ok(&["status"]);
    let whole = hand_sessions(20);
    // four writes through one descriptor, each ending mid-line, with pauses longer than a
    // chunked writer's usual gaps
    let cuts: Vec<usize> = [1, 2, 3]
        .iter()
        .map(|q| {
            (whole.len() * q / 4..whole.len())
                .find(|i| whole.is_char_boundary(*i) && whole.as_bytes()[*i - 1] != b'\n')
                .unwrap()
        })
        .collect();
    let path = ws.path("SESSIONS.md");
    let writer = {
        let whole = whole.clone();
        std::thread::spawn(move || {
            let mut f = std::fs::OpenOptions::new()
                .write(true)
                .truncate(true)
                .open(&path)
                .unwrap();
            let mut at = 0;
            for cut in cuts.into_iter().chain([whole.len()]) {
                f.write_all(&whole.as_bytes()[at..cut]).unwrap();
                at = cut;
                std::thread::sleep(Duration::from_millis(150));
            }
        })
    };
    std::thread::sleep(Duration::from_millis(70));
    let out = ws.run(&["read", "--json"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    writer.join().unwrap();
    let live = live_bodies(&ws).join("\n");
    for i in 0..20 {
        assert!(live.contains(&format!("hand entry {i:03},")), "{i}: {live}");
    }
    let log = ws.json(&["log", "-n", "1000"]);
    let ops: Vec<&str> = log["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| e["op"].as_str())
        .collect();
    assert!(!ops.contains(&"remove"), "{ops:?}");
}

#[test]
fn chunked_saves_racing_writers_lose_no_hand_entry_and_remove_no_acknowledged_one() {
    let ws = Ws::init();
    std::fs::write(ws.root().join("trilogy.toml"), "sessions_max_entries = 0\n").unwrap();
    ws.write("SESSIONS.md", &hand_sessions(600));
    ws.ok(&["status"]);
    let root = ws.root().to_path_buf();
    let home = ws.state.path().to_path_buf();
    let bin = assert_cmd::cargo::cargo_bin("trilogy");
    let writer = {
        let (root, bin, home) = (root.clone(), bin.clone(), home.clone());
        std::thread::spawn(move || {
            let mut acked = Vec::new();
            for i in 0..12 {
                let tag = format!("acked {i:02}");
                let out = Command::new(&bin)
                    .arg("--root")
                    .arg(&root)
                    .args(["checkpoint", "--session-done", &format!("{tag}; tested")])
                    .env("TRILOGY_CONFIG", root.join("none.toml"))
                    .envs(common::private_env(&home))
                    .env("TRILOGY_LOCK_TIMEOUT_MS", "60000")
                    .output()
                    .unwrap();
                assert!(out.status.success(), "{}", text(&out.stderr));
                acked.push(tag);
            }
            acked
        })
    };
    // a script that rewrites SESSIONS.md (about 30 KB) in 4 KiB writes 10 ms apart, adding one
    // entry each time
    let mut hand = Vec::new();
    for k in 0..10 {
        let path = root.join("memory/SESSIONS.md");
        let now = std::fs::read_to_string(&path).unwrap();
        let Some(pos) = now.find("\n## ") else {
            continue;
        };
        let entry = format!("## 2026-11-29\n\n完成：chunked save {k}, checked by eye\n\n");
        let new = format!("{}{}{}", &now[..pos + 1], entry, &now[pos + 1..]);
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .truncate(true)
            .open(&path)
            .unwrap();
        for chunk in new.as_bytes().chunks(4096) {
            f.write_all(chunk).unwrap();
            std::thread::sleep(Duration::from_millis(10));
        }
        drop(f);
        hand.push(format!("chunked save {k},"));
        std::thread::sleep(Duration::from_millis(30));
    }
    let acked = writer.join().unwrap();
    ws.ok(&["status"]);
    let live = live_bodies(&ws).join("\n");
    for tag in &acked {
        assert!(live.contains(tag.as_str()), "{tag} is not live");
    }
    // a person's save made with a stale copy may drop an entry recorded in between; what was
    // saved by hand is never lost, and what the files held before is all there
    let all = ws.json(&["log", "-n", "100000"]).to_string();
    for h in &hand {
        assert!(all.contains(h.as_str()) || live.contains(h.as_str()), "{h}");
    }
    for i in 0..60 {
        assert!(
            live.contains(&format!("hand entry {i:03},")),
            "hand entry {i:03}"
        );
    }
    assert!(ws.run(&["doctor"]).status.success());
}

#[test]
fn temp_files_never_appear_in_the_memory_folder() {
    let ws = Ws::init();
    ws.ok(&["checkpoint", "--session-done", "first; tested"]);
    let mut child = ws
        .std_cmd()
        .env("TRILOGY_PAUSE_AT", "after-swap:1500")
        .args([
            "checkpoint",
            "--session-done",
            "paused after the swap; tested",
        ])
        .spawn()
        .unwrap();
    let mut seen = Vec::new();
    while child.try_wait().unwrap().is_none() {
        for e in std::fs::read_dir(ws.root().join("memory")).unwrap() {
            let name = e.unwrap().file_name().to_string_lossy().into_owned();
            if !matches!(
                name.as_str(),
                "PROJECT.md" | "DECISIONS.md" | "SESSIONS.md" | "SESSIONS-archive.md"
            ) {
                seen.push(name);
            }
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    assert!(child.wait().unwrap().success());
    assert!(seen.is_empty(), "in memory/ during a write: {seen:?}");
}

fn git(root: &std::path::Path, args: &[&str]) {
    let out = common::git_output(root, args);
    assert!(out.status.success(), "git {args:?}: {}", text(&out.stderr));
}

#[test]
fn while_git_rewrites_the_tree_the_store_records_and_the_files_wait() {
    let ws = Ws::init();
    git(ws.root(), &["init", "-q"]);
    ws.ok(&["checkpoint", "--session-done", "before the rebase; tested"]);
    let before = ws.read("SESSIONS.md");
    // git is in the middle of a rebase and has just removed the file to check out another
    std::fs::create_dir(ws.root().join(".git/rebase-merge")).unwrap();
    std::fs::remove_file(ws.path("SESSIONS.md")).unwrap();
    let out = ws.json(&["checkpoint", "--session-done", "during the rebase; tested"]);
    assert!(
        out.to_string().contains("cannot") || out.to_string().contains("rebase"),
        "the result says the files wait: {out}"
    );
    assert!(
        !ws.path("SESSIONS.md").exists(),
        "trilogy does not re-create a file git is rewriting"
    );
    // git puts its version back and finishes
    std::fs::write(ws.path("SESSIONS.md"), &before).unwrap();
    std::fs::remove_dir(ws.root().join(".git/rebase-merge")).unwrap();
    ws.ok(&["doctor", "--fix"]);
    let file = ws.read("SESSIONS.md");
    assert!(
        file.contains("during the rebase") && file.contains("before the rebase"),
        "{file}"
    );
    let live = live_bodies(&ws).join("\n");
    assert!(
        live.contains("during the rebase"),
        "never marked removed: {live}"
    );
    assert_eq!(headings(&file).len(), 2);
}

#[test]
fn a_read_only_memory_folder_with_a_hand_edit_still_reads() {
    let ws = Ws::init();
    ws.ok(&["checkpoint", "--session-done", "recorded; tested"]);
    // an older entry on top: trilogy would re-sort the file, which it cannot write
    let s = ws.read("SESSIONS.md");
    let first = s.find("\n## ").unwrap() + 1;
    ws.write(
        "SESSIONS.md",
        &format!(
            "{}## 2026-11-01\n\n完成：hand edit, by eye\n\n{}",
            &s[..first],
            &s[first..]
        ),
    );
    let bin = assert_cmd::cargo::cargo_bin("trilogy");
    let is_root = Command::new("id")
        .arg("-u")
        .output()
        .map(|o| text(&o.stdout).trim() == "0")
        .unwrap();
    let mut c = if is_root {
        // root ignores permission bits: run as nobody, who owns the workspace
        let status = Command::new("chown")
            .args(["-R", "65534:65534"])
            .arg(ws.root())
            .status()
            .unwrap();
        assert!(status.success());
        let mut c = Command::new("setpriv");
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(&bin);
        c
    } else {
        Command::new(&bin)
    };
    let memory = ws.root().join("memory");
    std::fs::set_permissions(&memory, std::fs::Permissions::from_mode(0o555)).unwrap();
    let out = c
        .arg("--root")
        .arg(ws.root())
        .args(["read", "SESSIONS.md", "-n", "10", "--json"])
        .env("TRILOGY_CONFIG", "/nonexistent/config.toml")
        .env("TRILOGY_TODAY", common::TODAY)
        .env("HOME", "/nonexistent")
        .output()
        .expect("run trilogy (needs setpriv from util-linux when tests run as root)");
    std::fs::set_permissions(&memory, std::fs::Permissions::from_mode(0o755)).unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let bodies: Vec<&str> = v["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| e["body"].as_str())
        .collect();
    assert!(bodies.iter().any(|b| b.contains("hand edit")), "{v}");
    assert_eq!(
        std::fs::read_to_string(ws.path("SESSIONS.md"))
            .unwrap()
            .matches("\n## 20")
            .count(),
        2,
        "the file is as the person left it"
    );
}

#[test]
fn a_branch_checked_out_right_after_a_write_brings_its_own_memory() {
    let ws = Ws::init();
    git(ws.root(), &["init", "-q"]);
    git(ws.root(), &["add", "-A"]);
    git(ws.root(), &["commit", "-qm", "start"]);
    git(ws.root(), &["branch", "other"]);
    ws.ok(&[
        "checkpoint",
        "--session-done",
        "only on this branch; tested",
    ]);
    git(ws.root(), &["commit", "-qam", "memory"]);
    // moments after trilogy wrote the file, git puts the other branch's version in its place:
    // that is the branch's memory, not a stale copy
    git(ws.root(), &["checkout", "-q", "other"]);
    ws.ok(&["status"]);
    assert!(!ws.read("SESSIONS.md").contains("only on this branch"));
    assert!(!live_bodies(&ws).join("\n").contains("only on this branch"));
    git(ws.root(), &["checkout", "-q", "-"]);
    ws.ok(&["status"]);
    assert!(live_bodies(&ws).join("\n").contains("only on this branch"));
}
