//! doctor, and the commands beside it, on a workspace whose files are not what they seem: a
//! link out of the workspace (to a file, to `/dev/zero`), a FIFO, a file over the size cap, a
//! hard-linked store, state folders linked out. Each is an error finding naming the path and
//! the fix; nothing is read through, nothing outside changes, and every command ends.

use crate::common;

use std::os::unix::fs::symlink;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{Ws, text};

/// Run `args` in `ws`, failing the test if it has not ended after a generous guard.
fn ends(ws: &Ws, args: &[&str]) -> (Option<i32>, String) {
    let mut c: Command = ws.std_cmd();
    let mut child = c
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("{args:?} did not end");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
    (out.status.code(), all)
}

fn workspace() -> Ws {
    let ws = Ws::init();
    ws.ok(&["checkpoint", "--session-done", "first kestrel run; tested"]);
    ws
}

/// doctor reports `says` as an error (exit 9), with and without --fix.
fn doctor_reports(ws: &Ws, says: &str) {
    for args in [vec!["doctor"], vec!["doctor", "--fix"]] {
        let (code, out) = ends(ws, &args);
        assert_eq!(code, Some(9), "{args:?}: {out}");
        assert!(out.contains(says), "{args:?} says `{says}`: {out}");
    }
}

#[test]
fn an_instruction_file_linked_out_of_the_workspace_is_an_error() {
    let ws = workspace();
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("AGENTS.md");
    std::fs::rename(ws.root().join("AGENTS.md"), &target).unwrap();
    let before = std::fs::read(&target).unwrap();
    symlink(&target, ws.root().join("AGENTS.md")).unwrap();
    doctor_reports(&ws, "outside the workspace");
    assert_eq!(std::fs::read(&target).unwrap(), before);
}

#[test]
fn a_memory_file_linked_to_dev_zero_is_reported_and_never_read() {
    let ws = workspace();
    std::fs::remove_file(ws.path("PROJECT.md")).unwrap();
    symlink("/dev/zero", ws.path("PROJECT.md")).unwrap();
    doctor_reports(&ws, "PROJECT.md is a link to /dev/zero");
    for args in [vec!["status"], vec!["read", "PROJECT.md"], vec!["inject"]] {
        let (code, out) = ends(&ws, &args);
        assert_ne!(code, Some(0), "{args:?} refuses: {out}");
    }
}

#[test]
fn a_fifo_as_a_memory_file_is_reported_and_never_opened_for_long() {
    let ws = workspace();
    let p = ws.path("DECISIONS.md");
    std::fs::remove_file(&p).unwrap();
    assert!(Command::new("mkfifo").arg(&p).status().unwrap().success());
    doctor_reports(&ws, "DECISIONS.md is a FIFO");
}

#[test]
fn a_memory_file_over_the_size_cap_is_refused_by_size_and_doctor_fix_completes() {
    let ws = workspace();
    // sparse: 300 MiB on paper, nothing on disk
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(ws.path("SESSIONS.md"))
        .unwrap();
    f.set_len(300 << 20).unwrap();
    drop(f);
    doctor_reports(&ws, "more than the 256 MiB trilogy reads");
    let (code, out) = ends(&ws, &["checkpoint", "--session-done", "x; tested"]);
    assert_ne!(code, Some(0), "{out}");
    assert!(out.contains("256 MiB"), "a size error: {out}");
}

#[test]
fn a_hard_linked_store_is_an_error() {
    let ws = workspace();
    let outside = tempfile::tempdir().unwrap();
    std::fs::hard_link(
        ws.root().join(".trilogy/store.redb"),
        outside.path().join("other.redb"),
    )
    .unwrap();
    doctor_reports(&ws, "hard links");
    let before = std::fs::read(outside.path().join("other.redb")).unwrap();
    let (code, out) = ends(&ws, &["checkpoint", "--session-done", "x; tested"]);
    assert_ne!(code, Some(0), "{out}");
    assert!(out.contains("hard link"), "{out}");
    assert_eq!(
        std::fs::read(outside.path().join("other.redb")).unwrap(),
        before
    );
}

#[test]
fn state_folders_linked_out_of_the_workspace_are_errors() {
    for sub in ["queue", "tmp", "displaced", "rescued"] {
        let ws = workspace();
        let outside = tempfile::tempdir().unwrap();
        let dir = ws.root().join(".trilogy").join(sub);
        let _ = std::fs::remove_dir_all(&dir);
        symlink(outside.path(), &dir).unwrap();
        let (code, out) = ends(&ws, &["doctor"]);
        assert_eq!(code, Some(9), "{sub}: {out}");
        assert!(
            out.contains(&format!(".trilogy/{sub} is a link to")),
            "{sub}: {out}"
        );
        assert_eq!(
            std::fs::read_dir(outside.path()).unwrap().count(),
            0,
            "{sub}: nothing written outside"
        );
    }
}

#[test]
fn a_trilogy_folder_linked_to_an_empty_outside_folder_is_an_error_not_a_missing_store() {
    let ws = workspace();
    let outside = tempfile::tempdir().unwrap();
    std::fs::remove_dir_all(ws.root().join(".trilogy")).unwrap();
    symlink(outside.path(), ws.root().join(".trilogy")).unwrap();
    let (code, out) = ends(&ws, &["doctor"]);
    assert_eq!(code, Some(9), "{out}");
    assert!(out.contains(".trilogy is a link to"), "{out}");
    assert!(!Path::new(&outside.path().join("store.redb")).exists());
}

#[test]
fn another_projects_store_behind_a_linked_trilogy_folder_is_never_opened() {
    let ws = workspace();
    let other = workspace();
    let theirs = other.root().join(".trilogy/store.redb");
    let before = std::fs::read(&theirs).unwrap();
    std::fs::remove_dir_all(ws.root().join(".trilogy")).unwrap();
    symlink(other.root().join(".trilogy"), ws.root().join(".trilogy")).unwrap();
    for args in [vec!["doctor"], vec!["doctor", "--fix"]] {
        let (code, out) = ends(&ws, &args);
        assert_eq!(code, Some(9), "{args:?}: {out}");
        assert!(out.contains("outside the workspace"), "{args:?}: {out}");
    }
    let (code, _) = ends(&ws, &["checkpoint", "--session-done", "x; tested"]);
    assert_ne!(code, Some(0));
    assert_eq!(
        std::fs::read(&theirs).unwrap(),
        before,
        "their store is untouched"
    );
}
