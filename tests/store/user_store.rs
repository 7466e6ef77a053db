//! The user memory's store (beside USER.md in the user's data folder) when its header is gone:
//! torn, its first bytes zeroed, another file's magic. Every command that needs it stops with
//! exit 8 naming `trilogy doctor --fix`; that keeps the damaged file aside, rebuilds the store
//! from USER.md and brings back the proposals only the store held. A newer trilogy's user
//! store is left alone.

use crate::common;

use std::path::{Path, PathBuf};

use common::{Ws, text};

const LINES: [&str; 3] = ["uses fish", "builds with cargo", "proxy on 7890"];

/// A workspace sharing the user memory in `dir`, with three lines of it and one proposal.
fn with_user_memory(dir: &Path) -> Ws {
    let ws = Ws::sharing_user(dir);
    ws.ok(&["init"]);
    for line in LINES {
        ws.ok(&["user", "add", "--section", "环境", "--line", line]);
    }
    // an agent's line waits for the person: only the store holds it
    let r = ws.mcp_tool(
        "s-1",
        "memory_checkpoint",
        serde_json::json!({"user":[{"section":"教训","line":"run the linter before pushing"}]}),
    );
    assert_ne!(r["isError"], true, "{r}");
    assert_eq!(ws.json(&["user", "show"])["pending"], 1);
    ws
}

fn user_store(dir: &Path) -> PathBuf {
    dir.join(".trilogy").join("store.redb")
}

fn aside(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir.join(".trilogy"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| (p.file_name().unwrap().to_string_lossy()).starts_with("store.redb.damaged-"))
        .collect()
}

fn overwrite(path: &Path, at: usize, with: &[u8]) {
    let mut bytes = std::fs::read(path).unwrap();
    bytes[at..at + with.len()].copy_from_slice(with);
    std::fs::write(path, &bytes).unwrap();
}

#[test]
fn a_user_store_without_its_header_is_set_aside_and_rebuilt_from_user_md() {
    for (what, with) in [
        ("first 16 bytes zeroed", vec![0u8; 16]),
        ("wrong magic", b"SQLite format 3\0".to_vec()),
        ("torn header", vec![0xA5; 320]),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let ws = with_user_memory(dir.path());
        let store = user_store(dir.path());
        overwrite(&store, 0, &with);
        let damaged = std::fs::read(&store).unwrap();
        let file = std::fs::read(ws.user_md()).unwrap();
        for args in [
            &["user", "show"][..],
            &[
                "user",
                "add",
                "--section",
                "环境",
                "--line",
                "on a damaged store",
            ],
        ] {
            let out = ws.run(args);
            let err = text(&out.stderr);
            assert_eq!(out.status.code(), Some(8), "{what}: {args:?}: {err}");
            assert!(
                err.contains("trilogy doctor --fix"),
                "{what}: {args:?}: {err}"
            );
        }
        assert_eq!(std::fs::read(ws.user_md()).unwrap(), file, "{what}");
        let doctor = ws.run(&["doctor"]);
        assert_eq!(doctor.status.code(), Some(9), "{what}");
        assert!(
            text(&doctor.stdout).contains("user memory's store"),
            "{what}: {}",
            text(&doctor.stdout)
        );

        let fixed = ws.run(&["doctor", "--fix"]);
        let report = text(&fixed.stdout);
        assert!(fixed.status.success(), "{what}: {report}");
        let kept = aside(dir.path());
        assert_eq!(kept.len(), 1, "{what}: {report}");
        assert_eq!(std::fs::read(&kept[0]).unwrap(), damaged, "{what}");
        assert_eq!(std::fs::read(ws.user_md()).unwrap(), file, "{what}");
        let shown = ws.json(&["user", "show"]);
        for line in LINES {
            assert!(shown.to_string().contains(line), "{what}: {shown}");
        }
        if what != "torn header" {
            // the rest of the file still held the proposal: it is back
            assert_eq!(shown["pending"], 1, "{what}: {report}");
        } else {
            assert!(report.contains("could not recover"), "{what}: {report}");
        }
        ws.ok(&[
            "user",
            "add",
            "--section",
            "环境",
            "--line",
            "after the repair",
        ]);
    }
}

#[test]
fn a_user_store_from_a_newer_trilogy_is_never_set_aside() {
    let dir = tempfile::tempdir().unwrap();
    let ws = with_user_memory(dir.path());
    let store = user_store(dir.path());
    overwrite(&store, 64, &[4]);
    overwrite(&store, 192, &[4]);
    let bytes = std::fs::read(&store).unwrap();
    let out = ws.run(&["user", "show"]);
    assert_eq!(out.status.code(), Some(8));
    assert!(
        text(&out.stderr).contains("newer trilogy"),
        "{}",
        text(&out.stderr)
    );
    let fixed = ws.run(&["doctor", "--fix"]);
    assert_eq!(fixed.status.code(), Some(9), "{}", text(&fixed.stdout));
    assert!(text(&fixed.stdout).contains("upgrade trilogy"));
    assert!(aside(dir.path()).is_empty());
    assert_eq!(std::fs::read(&store).unwrap(), bytes);
}
