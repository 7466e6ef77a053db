//! Hostile inputs that are not links: settings that would turn the boot block onto a memory
//! file or the settings themselves, a lock timeout of zero, credentials in URLs and log names,
//! a secret brought back by a restore. Each is refused with a message naming what to change,
//! and changes nothing.

use crate::common;

use common::{Ws, text};

fn refused(ws: &Ws, args: &[&str], code: i32, says: &str) {
    let before = ws.snapshot();
    let out = ws.run(args);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(code), "{args:?}: {err}");
    assert!(err.contains(says), "{args:?} says `{says}`: {err}");
    assert_eq!(ws.snapshot(), before, "{args:?} changed nothing");
}

#[test]
fn a_boot_block_file_naming_a_memory_file_or_the_settings_is_refused() {
    let ws = Ws::init();
    ws.ok(&["checkpoint", "--session-done", "first kestrel run; tested"]);
    for (line, says) in [
        (
            "boot_block_file = \"memory/SESSIONS.md\"",
            "memory file SESSIONS.md",
        ),
        (
            "boot_block_file = \"Memory/Decisions.md\"",
            "memory file DECISIONS.md",
        ),
        ("boot_block_file = \"trilogy.toml\"", "keeps for itself"),
        ("memory_dir_name = \".GIT\"", "never writes"),
        ("memory_dir_name = \".Trilogy\"", "never writes"),
    ] {
        std::fs::write(ws.root().join("trilogy.toml"), format!("{line}\n")).unwrap();
        refused(
            &ws,
            &["checkpoint", "--session-done", "second heron run; tested"],
            3,
            says,
        );
        let err = text(&ws.run(&["status"]).stderr);
        assert!(err.contains("trilogy.toml"), "the file is named: {err}");
    }
    let log = ws.read("SESSIONS.md");
    assert!(
        !log.contains("second heron") && !log.contains("<!-- trilogy"),
        "{log}"
    );
}

#[test]
fn a_settings_file_that_is_not_utf8_is_a_settings_error() {
    let ws = Ws::init();
    std::fs::write(ws.root().join("trilogy.toml"), b"lang = \"\xff\xfe\"\n").unwrap();
    refused(&ws, &["status"], 3, "UTF-8");
}

#[test]
fn a_lock_timeout_of_zero_still_writes_when_no_one_holds_the_lock() {
    let ws = Ws::init();
    std::fs::write(ws.root().join("trilogy.toml"), "lock_timeout_ms = 0\n").unwrap();
    for n in 0..3 {
        ws.ok(&[
            "checkpoint",
            "--session-done",
            &format!("plover run {n}; tested"),
        ]);
    }
    let log = ws.read("SESSIONS.md");
    assert!(log.contains("plover run 2"), "{log}");
}

#[test]
fn passwords_in_any_url_and_shared_access_signatures_are_refused() {
    let ws = Ws::init();
    for secret in [
        "https://deploy:pa55w0rd-x@git.example.com/acme/app.git",
        "redis://:s3cretpassw@cache.example.com:6379",
        "https://acct.blob.core.windows.net/c/f.zip?sv=2022-11-02&sr=b&sig=Zk3vQ9xLmP2tR8wYc5nB7dF1gH4jK6sA0eU2iO9pQ3w%3D",
    ] {
        refused(
            &ws,
            &[
                "checkpoint",
                "--session-done",
                &format!("uses {secret}; tested"),
            ],
            3,
            "refused",
        );
    }
    // the local defaults every quick-start holds are no secret
    ws.ok(&[
        "checkpoint",
        "--session-done",
        "dev db at postgres://postgres:postgres@localhost/app; tested",
    ]);
}

#[test]
fn an_actor_or_agent_session_holding_a_secret_or_spaces_is_refused() {
    let ws = Ws::init();
    let token = format!("ghp_{}", "Zk3vQ9xLmP2tR8wYc5nB7dF1gH4jK6sA0eU2");
    for args in [
        vec!["--actor", token.as_str()],
        vec!["--agent-session", token.as_str()],
        vec!["--actor", "two words"],
        vec!["--actor", "a\u{1b}[31mred"],
    ] {
        let mut all = vec!["checkpoint", "--session-done", "egret run; tested"];
        all.extend(args.iter().copied());
        refused(&ws, &all, 3, args[0]);
    }
    let long = "x".repeat(200);
    refused(
        &ws,
        &[
            "checkpoint",
            "--session-done",
            "egret run; tested",
            "--actor",
            &long,
        ],
        3,
        "at most 128",
    );
    let log = ws.ok(&["log", "-n", "50", "--color", "never"]);
    assert!(!log.contains("ghp_"), "{log}");
}

#[test]
fn a_restore_never_writes_a_secret_back() {
    let ws = Ws::init();
    ws.ok(&["checkpoint", "--session-done", "first kestrel run; tested"]);
    // a person pastes a token by hand; it is absorbed (the store keeps what people write),
    // then deleted from the file again
    let clean = ws.read("SESSIONS.md");
    let top = clean.find("\n## ").unwrap() + 1;
    let token = format!("ghp_{}", "Zk3vQ9xLmP2tR8wYc5nB7dF1gH4jK6sA0eU2");
    ws.write(
        "SESSIONS.md",
        &format!(
            "{}## 2026-11-29\n\n完成：deploy with {token}\n\n{}",
            &clean[..top],
            &clean[top..]
        ),
    );
    ws.ok(&["checkpoint", "--session-done", "second heron run; tested"]);
    let now = ws.read("SESSIONS.md");
    assert!(now.contains(&token), "absorbed as written: {now}");
    let line = format!("## 2026-11-29\n\n完成：deploy with {token}\n\n");
    ws.write("SESSIONS.md", &now.replace(&line, ""));
    ws.ok(&["status"]);
    let v = ws.json(&["log", "-n", "50"]);
    let removed = (v["events"].as_array().unwrap().iter())
        .find(|e| e["op"] == "remove")
        .unwrap_or_else(|| panic!("the removal is logged: {v}"));
    let id = removed["ids"][0].as_str().unwrap().to_string();
    refused(&ws, &["restore", &id], 3, "GitHub token");
    assert!(!ws.read("SESSIONS.md").contains("ghp_"));
}

#[test]
fn a_hook_whose_stdin_stays_open_and_empty_gives_up_silently() {
    let ws = Ws::init();
    let mut child = ws
        .std_cmd()
        .args(["hook", "claude", "session-start"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let held = child.stdin.take();
    let started = std::time::Instant::now();
    // a generous guard: the hook's own wait is five seconds
    while child.try_wait().unwrap().is_none() {
        assert!(
            started.elapsed() < std::time::Duration::from_secs(60),
            "the hook still waits"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let out = child.wait_with_output().unwrap();
    drop(held);
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stdout.is_empty(), "{}", text(&out.stdout));
}
