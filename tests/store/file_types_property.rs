//! Random file types and link targets where trilogy's files belong, and every kind of command
//! run on them: each command ends, writes nothing outside the workspace and trilogy's own
//! user-level folders, and leaves the outside files byte for byte as they were.

use crate::common;

use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::Ws;
use proptest::prelude::*;

/// Where a hostile thing is put, relative to the workspace root.
const PLACES: [&str; 9] = [
    "memory/PROJECT.md",
    "memory/DECISIONS.md",
    "memory/SESSIONS.md",
    "memory/SESSIONS-archive.md",
    "AGENTS.md",
    "trilogy.toml",
    ".trilogy/store.redb",
    ".trilogy/queue",
    ".trilogy/displaced",
];

/// What is put there.
#[derive(Debug, Clone, Copy)]
enum Thing {
    Fifo,
    LinkToOutsideFile,
    LinkToOutsideDir,
    LinkToDevZero,
    LinkToNothing,
    Dir,
    Garbage,
    HardLinkToOutside,
}

fn thing() -> impl Strategy<Value = Thing> {
    prop_oneof![
        Just(Thing::Fifo),
        Just(Thing::LinkToOutsideFile),
        Just(Thing::LinkToOutsideDir),
        Just(Thing::LinkToDevZero),
        Just(Thing::LinkToNothing),
        Just(Thing::Dir),
        Just(Thing::Garbage),
        Just(Thing::HardLinkToOutside),
    ]
}

/// The commands run on the workspace, one of each kind of surface.
const COMMANDS: [&[&str]; 8] = [
    &["status"],
    &["read", "SESSIONS.md"],
    &["checkpoint", "--session-done", "a plover run; tested"],
    &["search", "plover"],
    &["inject"],
    &["doctor"],
    &["doctor", "--fix"],
    &["hook", "claude", "session-start"],
];

/// Every file under `dir` with its bytes (links as their targets), sorted.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            let meta = std::fs::symlink_metadata(&p).unwrap();
            if meta.is_dir() {
                stack.push(p.clone());
                out.push((p, b"<dir>".to_vec()));
            } else if meta.file_type().is_symlink() {
                let to = std::fs::read_link(&p).unwrap();
                out.push((p, to.display().to_string().into_bytes()));
            } else if meta.is_file() {
                out.push((p.clone(), std::fs::read(&p).unwrap()));
            } else {
                out.push((p, b"<special>".to_vec()));
            }
        }
    }
    out.sort();
    out
}

fn put(ws: &Ws, outside: &Path, place: &str, what: Thing) {
    let p = ws.root().join(place);
    if let Some(d) = p.parent() {
        std::fs::create_dir_all(d).unwrap();
    }
    let _ = std::fs::remove_file(&p);
    let _ = std::fs::remove_dir_all(&p);
    match what {
        Thing::Fifo => assert!(Command::new("mkfifo").arg(&p).status().unwrap().success()),
        Thing::LinkToOutsideFile => symlink(outside.join("secret.txt"), &p).unwrap(),
        Thing::LinkToOutsideDir => symlink(outside.join("folder"), &p).unwrap(),
        Thing::LinkToDevZero => symlink("/dev/zero", &p).unwrap(),
        Thing::LinkToNothing => symlink(outside.join("gone"), &p).unwrap(),
        Thing::Dir => std::fs::create_dir(&p).unwrap(),
        Thing::Garbage => std::fs::write(&p, b"\xff\xfe\x00garbage <<<<<<< x\n").unwrap(),
        Thing::HardLinkToOutside => std::fs::hard_link(outside.join("linked.txt"), &p).unwrap(),
    }
}

/// Run `args`, killing it (and failing) only past a generous guard.
fn run_ends(ws: &Ws, args: &[&str]) -> Result<(), String> {
    let mut child = ws
        .std_cmd()
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(30) {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("{args:?} did not end"));
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn hostile_files_never_hang_a_command_or_change_anything_outside(
        hostile in proptest::collection::vec((0..PLACES.len(), thing()), 1..3),
    ) {
        let ws = Ws::init();
        ws.ok(&["checkpoint", "--session-done", "first kestrel run; tested"]);
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret.txt"), "-----BEGIN KEY-----\nx\n").unwrap();
        std::fs::write(outside.path().join("linked.txt"), "an outside file\n").unwrap();
        std::fs::create_dir(outside.path().join("folder")).unwrap();
        for (i, what) in &hostile {
            put(&ws, outside.path(), PLACES[*i], *what);
        }
        let before = snapshot(outside.path());
        for args in COMMANDS {
            prop_assert_eq!(run_ends(&ws, args), Ok(()));
            prop_assert_eq!(&snapshot(outside.path()), &before, "{:?} with {:?}", args, hostile);
        }
    }
}
