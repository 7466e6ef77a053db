//! Sibling worktrees, with real `git worktree`s: what one work tree's agent records is in the
//! next session block of the others, with its branch, and nowhere in their files or stores.

use crate::common;

use std::path::Path;
use std::process::Output;

use assert_cmd::Command;
use common::{TODAY, git_output, private_env, text};

fn tri(dir: &Path, state: &Path, args: &[&str]) -> Output {
    Command::cargo_bin("trilogy")
        .unwrap()
        .arg("--root")
        .arg(dir)
        .args(args)
        .envs(private_env(state))
        .env("TRILOGY_TODAY", TODAY)
        .env("TRILOGY_CONFIG", state.join("no-user-config.toml"))
        .env_remove("TRILOGY_LANG")
        .output()
        .unwrap()
}

fn ok(dir: &Path, state: &Path, args: &[&str]) -> String {
    let out = tri(dir, state, args);
    assert!(
        out.status.success(),
        "trilogy {args:?} in {}: {}",
        dir.display(),
        text(&out.stderr)
    );
    text(&out.stdout)
}

fn git(dir: &Path, args: &[&str]) {
    let o = git_output(dir, args);
    assert!(o.status.success(), "git {args:?}: {}", text(&o.stderr));
}

/// A repository at `main` (branch `main`, memory initialised and committed) with a linked
/// work tree per `(path, branch)`.
fn repo(main: &Path, state: &Path, trees: &[(&Path, &str)]) {
    std::fs::create_dir(main).unwrap();
    git(main, &["init", "-q", "-b", "main"]);
    ok(main, state, &["init"]);
    git(main, &["add", "-A"]);
    git(main, &["commit", "-qm", "memory"]);
    for (path, branch) in trees {
        git(
            main,
            &[
                "worktree",
                "add",
                "-q",
                path.to_str().unwrap(),
                "-b",
                branch,
            ],
        );
    }
}

fn memory(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<_> = std::fs::read_dir(dir.join("memory"))
        .unwrap()
        .map(|e| e.unwrap())
        .map(|e| {
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect();
    v.sort();
    v
}

#[test]
fn a_decision_in_one_worktree_is_in_the_others_block_with_its_branch_and_in_none_of_their_files() {
    let base = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let (main, a, b) = (
        base.path().join("main"),
        base.path().join("feat-a"),
        base.path().join("feat-b"),
    );
    repo(&main, state.path(), &[(&a, "feat-a"), (&b, "feat-b")]);

    ok(
        &a,
        state.path(),
        &[
            "checkpoint",
            "--decision",
            "Feature A parses with the streaming reader",
            "--because",
            "the input files are huge",
        ],
    );
    let (a_files, main_files) = (memory(&a), memory(&main));
    let b_before = memory(&b);

    let block = ok(&b, state.path(), &["inject"]);
    assert!(
        block.contains("[feat-a] ## 2026-11-29 — Feature A parses with the streaming reader"),
        "{block}"
    );
    assert!(block.contains("因为：the input files are huge"), "{block}");
    // after SESSIONS
    let sessions = block.find("--- SESSIONS.md").unwrap_or(0);
    assert!(block.find("[feat-a]").unwrap() > sessions);

    // nothing of it is written anywhere but where it was recorded
    assert_eq!(memory(&b), b_before, "feat-b's files");
    assert_eq!(memory(&main), main_files, "main's files");
    assert_eq!(memory(&a), a_files, "feat-a's files");
    let held = ok(
        &b,
        state.path(),
        &["read", "DECISIONS.md", "-n", "50", "--json"],
    );
    assert!(!held.contains("streaming reader"), "feat-b's store: {held}");
    let agents = std::fs::read_to_string(b.join("AGENTS.md")).unwrap();
    assert!(
        !agents.contains("streaming reader"),
        "the committed boot block"
    );

    // feat-b's search finds it, flagged with its branch and work tree; --here leaves it out
    let found: serde_json::Value = serde_json::from_str(&ok(
        &b,
        state.path(),
        &["search", "--json", "streaming reader"],
    ))
    .unwrap();
    let hit = &found["hits"][0];
    assert_eq!(hit["branch"], "feat-a", "{found}");
    assert_eq!(hit["worktree"], a.display().to_string());
    assert!(
        hit["text"]
            .as_str()
            .unwrap()
            .contains("the input files are huge")
    );
    let here: serde_json::Value = serde_json::from_str(&ok(
        &b,
        state.path(),
        &["search", "--json", "--here", "streaming reader"],
    ))
    .unwrap();
    assert_eq!(here["hits"], serde_json::json!([]), "{here}");

    // status names the siblings
    let status: serde_json::Value =
        serde_json::from_str(&ok(&b, state.path(), &["status", "--json"])).unwrap();
    let siblings = status["siblings"].as_array().unwrap();
    let fa = siblings
        .iter()
        .find(|s| s["branch"] == "feat-a")
        .unwrap_or_else(|| panic!("{status}"));
    assert_eq!(fa["decisions"], 1);
    assert!(siblings.iter().any(|s| s["branch"] == "main"), "{status}");

    // switched off, no section
    let off = ok(
        &b,
        state.path(),
        &["--set", "sibling_worktrees=false", "inject"],
    );
    assert!(!off.contains("[feat-a]"), "{off}");

    // merged into main: there once, as main's own
    git(&a, &["add", "-A"]);
    git(&a, &["commit", "-qm", "feature a"]);
    git(&main, &["merge", "-q", "feat-a"]);
    let main_block = ok(&main, state.path(), &["inject"]);
    assert_eq!(
        main_block
            .matches("## 2026-11-29 — Feature A parses with the streaming reader")
            .count(),
        1,
        "{main_block}"
    );
    assert!(
        !main_block.contains("[feat-a]"),
        "held by main now: {main_block}"
    );
    // with the provenance feat-a's store holds for it
    let read: serde_json::Value = serde_json::from_str(&ok(
        &main,
        state.path(),
        &["read", "DECISIONS.md", "-n", "50", "--json"],
    ))
    .unwrap();
    let merged = read["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["heading"].as_str().unwrap().contains("streaming reader"))
        .unwrap_or_else(|| panic!("{read}"));
    assert_eq!(merged["provenance"]["branch"], "feat-a", "{merged}");
    assert_eq!(merged["provenance"]["via"], "cli", "{merged}");
}

#[test]
fn a_sibling_inside_a_long_write_delays_neither_the_hook_nor_a_merge() {
    let base = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let (main, a) = (base.path().join("main"), base.path().join("feat-a"));
    repo(&main, state.path(), &[(&a, "feat-a")]);
    ok(
        &a,
        state.path(),
        &["checkpoint", "--decision", "Decided before the long write"],
    );
    git(&a, &["commit", "-qam", "feature a"]);
    // feat-a's next write holds its store's write lock for a minute
    let mark = base.path().join("paused");
    let mut slow = std::process::Command::new(assert_cmd::cargo::cargo_bin("trilogy"))
        .arg("--root")
        .arg(&a)
        .args(["checkpoint", "--decision", "The long write"])
        .envs(private_env(state.path()))
        .env("TRILOGY_TODAY", TODAY)
        .env("TRILOGY_CONFIG", state.path().join("no-user-config.toml"))
        .env("TRILOGY_PAUSE_AT", "before-write:60000")
        .env("TRILOGY_PAUSE_MARK", &mark)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    while !mark.exists() {
        assert!(
            slow.try_wait().unwrap().is_none(),
            "the slow write ended early"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let block = ok(&main, state.path(), &["inject"]);
    assert!(
        block.contains("[feat-a] ## 2026-11-29 — Decided before the long write"),
        "{block}"
    );
    git(&main, &["merge", "-q", "feat-a"]);
    let read = ok(
        &main,
        state.path(),
        &["read", "DECISIONS.md", "-n", "5", "--json"],
    );
    assert!(read.contains("\"branch\": \"feat-a\""), "{read}");
    // both answered while feat-a was still inside its write
    assert!(
        slow.try_wait().unwrap().is_none(),
        "the sibling's write ended first"
    );
    slow.kill().unwrap();
    slow.wait().unwrap();
}

#[test]
fn an_entry_merged_from_a_clone_no_store_here_knows_is_marked_as_arrived_by_merge() {
    let base = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let (main, other) = (base.path().join("main"), base.path().join("clone"));
    repo(&main, state.path(), &[]);
    git(
        base.path(),
        &[
            "clone",
            "-q",
            main.to_str().unwrap(),
            other.to_str().unwrap(),
        ],
    );
    git(&other, &["checkout", "-qb", "far"]);
    ok(
        &other,
        state.path(),
        &["checkpoint", "--decision", "Recorded in another clone"],
    );
    git(&other, &["commit", "-qam", "far"]);
    git(
        &main,
        &["pull", "-q", "--no-rebase", other.to_str().unwrap(), "far"],
    );
    let read: serde_json::Value = serde_json::from_str(&ok(
        &main,
        state.path(),
        &["read", "DECISIONS.md", "-n", "50", "--json"],
    ))
    .unwrap();
    let e = &read["entries"][0];
    assert!(
        e["heading"].as_str().unwrap().contains("another clone"),
        "{read}"
    );
    assert_eq!(e["provenance"]["via"], "merge", "{e}");
    assert_eq!(e["provenance"]["branch"], serde_json::Value::Null, "{e}");
}

#[test]
fn outside_a_repository_or_alone_there_is_no_sibling_section() {
    let ws = common::Ws::init();
    let block = ws.ok(&["inject"]);
    assert!(!block.contains("其他工作树"), "{block}");
    let status = ws.json(&["status"]);
    assert_eq!(status["siblings"], serde_json::json!([]));
}

/// A live session in one work tree hears, at its next prompt, what a sibling recorded meanwhile
/// — once.
#[test]
fn a_live_session_hears_what_a_sibling_recorded_since_it_started() {
    let base = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let (main, a) = (base.path().join("main"), base.path().join("feat-a"));
    repo(&main, state.path(), &[(&a, "feat-a")]);

    let hook = |event: &str, hook_event: &str| -> String {
        let payload = serde_json::json!({
            "session_id": "live-main", "hook_event_name": hook_event, "source": "startup",
            "prompt": "go on", "cwd": main.display().to_string(), "transcript_path": "/nonexistent",
        });
        let out = Command::cargo_bin("trilogy")
            .unwrap()
            .arg("--root")
            .arg(&main)
            .args(["hook", "claude", event])
            .envs(private_env(state.path()))
            .env("TRILOGY_TODAY", TODAY)
            .env("TRILOGY_CONFIG", state.path().join("no-user-config.toml"))
            .write_stdin(payload.to_string())
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", text(&out.stderr));
        common::hook_context(&text(&out.stdout))
    };
    let block = hook("session-start", "SessionStart");
    assert!(!block.contains("[feat-a]"), "nothing there yet");
    assert_eq!(hook("user-prompt-submit", "UserPromptSubmit"), "");

    ok(
        &a,
        state.path(),
        &[
            "checkpoint",
            "--decision",
            "Cache parsed files in feat-a",
            "--because",
            "parsing dominates",
        ],
    );
    let n = hook("user-prompt-submit", "UserPromptSubmit");
    assert!(
        n.contains("[feat-a]")
            && n.contains("Cache parsed files in feat-a")
            && n.contains("因为：parsing dominates"),
        "{n}"
    );
    assert!(n.len() <= 2000);
    assert_eq!(
        hook("user-prompt-submit", "UserPromptSubmit"),
        "",
        "told once"
    );
}

#[test]
fn a_dsh_session_hears_a_sibling_at_its_next_step() {
    let base = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let (main, a) = (base.path().join("main"), base.path().join("feat-a"));
    repo(&main, state.path(), &[(&a, "feat-a")]);
    let step = |n: u64, blocks: &[&str]| -> serde_json::Value {
        use sha1::{Digest, Sha1};
        let digests: Vec<serde_json::Value> = (blocks.iter().enumerate())
            .map(|(i, t)| {
                let d: String = Sha1::digest(t.as_bytes())
                    .iter()
                    .map(|b| format!("{b:02x}"))
                    .collect();
                serde_json::json!({"seq": i + 1, "digest": d})
            })
            .collect();
        let req = serde_json::json!({
            "sessionId": "dsh-main", "cwd": main.display().to_string(), "turn": 1, "step": n,
            "surface": {"known": true, "blocks": digests},
        });
        let out = Command::cargo_bin("trilogy")
            .unwrap()
            .arg("--root")
            .arg(&main)
            .args(["hook", "dsh", "pre-step"])
            .envs(private_env(state.path()))
            .env("TRILOGY_TODAY", TODAY)
            .env("TRILOGY_CONFIG", state.path().join("no-user-config.toml"))
            .write_stdin(req.to_string())
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", text(&out.stderr));
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let first = step(1, &[]);
    let block = first["append"][0]["text"].as_str().unwrap().to_string();
    assert_eq!(first["append"][0]["form"], "trilogy", "{first}");
    assert_eq!(step(2, &[&block])["append"], serde_json::json!([]));
    ok(
        &a,
        state.path(),
        &["checkpoint", "--decision", "Stream the upload in feat-a"],
    );
    let next = step(3, &[&block]);
    let notices: Vec<&str> = (next["append"].as_array().unwrap().iter())
        .filter(|m| m["form"] == "trilogy-update")
        .map(|m| m["text"].as_str().unwrap())
        .collect();
    assert_eq!(notices.len(), 1, "{next}");
    assert!(
        notices[0].contains("[feat-a]") && notices[0].contains("Stream the upload"),
        "{next}"
    );
    assert!(notices[0].chars().count() <= 2000);
    let again = step(4, &[&block]);
    assert!(
        again["append"].as_array().is_none_or(|a| a.is_empty()),
        "told once: {again}"
    );
}

/// Sibling entries by the ten thousand, most of them in two work trees at once: each is
/// named once in the block (shown, by heading, or in the count of the rest).
#[test]
fn ten_thousand_sibling_entries_held_twice_are_named_once_each() {
    use std::fmt::Write as _;
    let base = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let (main, a, b) = (
        base.path().join("main"),
        base.path().join("feat-a"),
        base.path().join("feat-b"),
    );
    repo(&main, state.path(), &[(&a, "feat-a"), (&b, "feat-b")]);
    let mut shared = String::new();
    for k in 0..10_000 {
        let _ = write!(
            shared,
            "\n## 2026-11-28 · cli\n完成：shared session {k} of the merge（已验证）\n"
        );
    }
    for (tree, own) in [(&a, "only in feat-a"), (&b, "only in feat-b")] {
        let path = tree.join("memory/SESSIONS.md");
        let head = std::fs::read_to_string(&path).unwrap();
        let text = format!(
            "{}\n\n## 2026-11-29 · cli\n完成：{own}（已验证）\n{shared}",
            head.trim_end()
        );
        std::fs::write(&path, text).unwrap();
    }
    let block = ok(&main, state.path(), &["inject"]);
    let named = block
        .lines()
        .filter(|l| l.starts_with("[feat-") || l.starts_with("- [feat-"))
        .count();
    let rest: usize = block
        .lines()
        .find_map(|l| l.strip_prefix("另有 ")?.split(' ').next()?.parse().ok())
        .unwrap_or(0);
    assert_eq!(named + rest, 10_002, "{block}");
    assert!(
        block.contains("only in feat-a") && block.contains("only in feat-b"),
        "{block}"
    );
}
