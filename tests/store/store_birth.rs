//! A store is born whole. The first command on a fresh clone (or the first `user add`) makes
//! the store; killed at any step of that, it leaves no store or a whole one — never a file
//! without its header — and the next command or `doctor --fix` gives a working store with every
//! entry of the Markdown. Two first commands racing never overwrite each other's store.
//! Real processes throughout: killed at the fault points `TRILOGY_CRASH_AT` names.

use crate::common;

use std::os::unix::fs::MetadataExt;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};

use common::{Ws, text};

/// The steps of making a store, in order (see `store::born`).
const STEPS: [&str; 5] = [
    "store-born-named",
    "store-born-created",
    "store-born-committed",
    "store-born-synced",
    "store-born-published",
];

/// What SIGABRT is: a fault point dies of it, as a `kill -9` would, running nothing more.
const ABORTED: i32 = 6;

/// A workspace with entries in every file, and no store: a fresh clone of a repository whose
/// memory was written elsewhere.
fn fresh_clone() -> Ws {
    let ws = Ws::init();
    for i in 0..5 {
        ws.ok(&[
            "checkpoint",
            "--session-done",
            &format!("session {i} on the osprey{i} parser; tested"),
        ]);
    }
    ws.ok(&[
        "checkpoint",
        "--decision",
        "keep the store beside the files",
        "--because",
        "a clone rebuilds it",
    ]);
    ws.ok(&["checkpoint", "--section", "现状", "--text", "osprey ships"]);
    std::fs::remove_dir_all(ws.root().join(".trilogy")).unwrap();
    ws
}

fn live(ws: &Ws, file: &str) -> Vec<String> {
    ws.json(&["read", file, "-n", "1000"])["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["state"] == "live")
        .map(|e| e["heading"].as_str().unwrap().to_string())
        .collect()
}

/// Names in `dir` a store's maker keeps private until it publishes the store.
fn private_files(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .map(|rd| {
            rd.map(|e| e.unwrap().path())
                .filter(|p| {
                    let n = p.file_name().unwrap().to_string_lossy().into_owned();
                    n.contains(".born-")
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Run `args` in `ws` with the fault point `step` armed; it must die there.
fn killed_at(ws: &Ws, step: &str, args: &[&str]) {
    let out = ws
        .cmd()
        .env("TRILOGY_CRASH_AT", step)
        .args(args)
        .output()
        .unwrap();
    assert_eq!(
        out.status.signal(),
        Some(ABORTED),
        "{step}: {args:?} died at the fault point ({:?}): {}",
        out.status,
        text(&out.stderr)
    );
}

/// Before it is published, a store being made is only a private file; published, it is whole.
fn assert_none_or_whole(store: &Path, step: &str) {
    if step == "store-born-published" {
        let head = std::fs::read(store).unwrap();
        assert_eq!(&head[..4], b"redb", "{step}: published whole");
    } else {
        assert!(
            !store.exists(),
            "{step}: nothing at the store's name before it is whole"
        );
    }
}

#[test]
fn a_first_command_killed_at_each_step_of_making_the_store_leaves_none_or_a_whole_one() {
    for step in STEPS {
        for then in ["checkpoint", "status", "doctor --fix"] {
            let ws = fresh_clone();
            let files = ws.snapshot();
            killed_at(
                &ws,
                step,
                &[
                    "checkpoint",
                    "--session-done",
                    "killed first command; tested",
                ],
            );
            let state = ws.root().join(".trilogy");
            assert_none_or_whole(&state.join("store.redb"), step);
            assert_eq!(ws.snapshot(), files, "{step}: no file was written");

            let mut want = 5;
            if then == "checkpoint" {
                ws.ok(&["checkpoint", "--session-done", "after the kill; tested"]);
                want += 1;
            } else if then == "status" {
                ws.ok(&["status"]);
                assert_eq!(ws.snapshot(), files, "{step}: a read writes no file");
            } else {
                let fixed = ws.run(&["doctor", "--fix"]);
                assert!(
                    fixed.status.success(),
                    "{step}: {}{}",
                    text(&fixed.stdout),
                    text(&fixed.stderr)
                );
                assert_eq!(ws.snapshot(), files, "{step}: rebuilt byte for byte");
            }
            // every entry of the Markdown is in the store
            let now = live(&ws, "SESSIONS.md");
            assert_eq!(now.len(), want, "{step} then {then}: {now:?}");
            assert_eq!(live(&ws, "DECISIONS.md").len(), 1, "{step} then {then}");
            let hits = ws.json(&["search", "osprey3"]);
            assert!(
                hits["hits"].to_string().contains("osprey3"),
                "{step} then {then}: {hits}"
            );
            let doctor = ws.run(&["doctor"]);
            assert!(
                doctor.status.success(),
                "{step} then {then}: {}",
                text(&doctor.stdout)
            );
            assert_eq!(
                private_files(&state),
                Vec::<PathBuf>::new(),
                "{step} then {then}: the killed maker's private file is swept"
            );
        }
    }
}

#[test]
fn a_first_user_add_killed_at_each_step_leaves_none_or_a_whole_user_store() {
    let shared = tempfile::tempdir().unwrap();
    let ws = Ws::sharing_user(shared.path());
    ws.ok(&["init"]);
    let lines = ["uses fish", "builds with cargo", "proxy on 7890"];
    for line in lines {
        ws.ok(&["user", "add", "--section", "环境", "--line", line]);
    }
    let state = shared.path().join(".trilogy");
    for step in STEPS {
        for then in ["user add", "doctor --fix"] {
            std::fs::remove_dir_all(&state).unwrap();
            let file = std::fs::read(ws.user_md()).unwrap();
            killed_at(
                &ws,
                step,
                &["user", "add", "--section", "教训", "--line", "killed"],
            );
            assert_none_or_whole(&state.join("store.redb"), step);
            assert_eq!(std::fs::read(ws.user_md()).unwrap(), file, "{step}");
            if then == "user add" {
                let line = format!("after {step}");
                ws.ok(&["user", "add", "--section", "教训", "--line", &line]);
            } else {
                let fixed = ws.run(&["doctor", "--fix"]);
                assert!(fixed.status.success(), "{step}: {}", text(&fixed.stdout));
            }
            let shown = ws.json(&["user", "show"]).to_string();
            for line in lines {
                assert!(shown.contains(line), "{step} then {then}: {shown}");
            }
            assert!(!shown.contains("\"killed\""), "{step} then {then}: {shown}");
            assert_eq!(
                private_files(&state),
                Vec::<PathBuf>::new(),
                "{step} then {then}"
            );
        }
    }
}

#[test]
fn a_first_command_publishing_second_opens_the_store_published_first() {
    use nix::sys::signal::{Signal, kill};
    use nix::unistd::Pid;
    let ws = fresh_clone();
    let store = ws.root().join(".trilogy/store.redb");
    let mark = ws.state.path().join("whole-not-published");
    // the first command (a read, as a session start's) stops with its store whole but not yet
    // published
    let first = ws
        .std_cmd()
        .env("TRILOGY_PAUSE_AT", "store-born-synced:5000")
        // stopped below while the other runs: its open is given time for that
        .env("TRILOGY_LOCK_TIMEOUT_MS", "60000")
        .env("TRILOGY_PAUSE_MARK", &mark)
        .args(["status", "--json"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    common::wait_for(&mark, "the first command reached its publish");
    let pid = Pid::from_raw(first.id() as i32);
    kill(pid, Signal::SIGSTOP).unwrap();
    assert!(
        !store.exists(),
        "the first command was stopped before it published"
    );
    // the second makes its own store, publishes it and commits to it meanwhile
    ws.ok(&["checkpoint", "--session-done", "second of two; tested"]);
    let published = std::fs::metadata(&store).unwrap().ino();
    let events = ws.event_count();
    kill(pid, Signal::SIGCONT).unwrap();
    let out = first.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let status: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(status.is_object(), "{status}");
    assert_eq!(
        std::fs::metadata(&store).unwrap().ino(),
        published,
        "the store the second committed to is never replaced"
    );
    // what only the store held (its event log) is all still there
    assert_eq!(ws.event_count(), events);
    assert_eq!(
        live(&ws, "SESSIONS.md").len(),
        6,
        "five from the clone, one new"
    );
    assert!(ws.read("SESSIONS.md").contains("second of two"));
    assert_eq!(
        private_files(&ws.root().join(".trilogy")),
        Vec::<PathBuf>::new()
    );
}

#[test]
fn first_commands_started_together_all_land_in_one_store() {
    let ws = fresh_clone();
    // checkpoints queue behind one another; reads make the store on their own
    let children: Vec<_> = (0..6)
        .map(|i| {
            let done = format!("racer {i} landed; tested");
            let args = match i % 2 {
                0 => vec!["checkpoint", "--session-done", done.as_str()],
                _ => vec!["status"],
            };
            ws.std_cmd()
                .args(args)
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for c in children {
        let out = c.wait_with_output().unwrap();
        assert!(out.status.success(), "{}", text(&out.stderr));
    }
    let all = ws.read("SESSIONS.md");
    for i in [0, 2, 4] {
        assert_eq!(
            all.matches(&format!("racer {i} landed")).count(),
            1,
            "{all}"
        );
    }
    assert_eq!(live(&ws, "SESSIONS.md").len(), 8);
    let state = ws.root().join(".trilogy");
    assert_eq!(private_files(&state), Vec::<PathBuf>::new());
    assert!(ws.run(&["doctor"]).status.success());
}

#[test]
fn an_empty_store_file_an_older_trilogy_left_is_made_into_the_store() {
    for then in ["status", "doctor --fix"] {
        let ws = fresh_clone();
        let state = ws.root().join(".trilogy");
        std::fs::create_dir_all(&state).unwrap();
        std::fs::write(state.join("store.redb"), b"").unwrap();
        let doctor = ws.run(&["doctor"]);
        assert!(
            text(&doctor.stdout).contains("no store at"),
            "{then}: {}",
            text(&doctor.stdout)
        );
        let args: Vec<&str> = then.split(' ').collect();
        let out = ws.run(&args);
        assert!(out.status.success(), "{then}: {}", text(&out.stderr));
        assert_eq!(live(&ws, "SESSIONS.md").len(), 5, "{then}");
        assert!(ws.run(&["doctor"]).status.success(), "{then}");
    }
}
