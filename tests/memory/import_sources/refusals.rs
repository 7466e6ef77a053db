//! What every import refuses or skips whatever the source: links out, FIFOs and huge files,
//! a folder that is not the source, and a bundle without `--from`.

use super::*;

// ---- hostile sources ----------------------------------------------------------------------

#[cfg(unix)]
#[test]
fn links_out_fifos_and_huge_files_are_skipped_with_a_note_and_never_read() {
    let (_d, root) = fixture("claude");
    let mem = root.join("memory");
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(
        outside.path().join("elsewhere.md"),
        "- SECRET-OUTSIDE text\n",
    )
    .unwrap();
    // a topic "file" that is a link out of PATH, a FIFO and an oversized file, all linked
    std::os::unix::fs::symlink(outside.path().join("elsewhere.md"), mem.join("linked.md")).unwrap();
    let fifo = std::process::Command::new("mkfifo")
        .arg(mem.join("pipe.md"))
        .status()
        .unwrap();
    assert!(fifo.success());
    let big = std::fs::File::create(mem.join("big.md")).unwrap();
    big.set_len(2 * 1024 * 1024).unwrap();
    let mut index = std::fs::read_to_string(mem.join("MEMORY.md")).unwrap();
    index.push_str("- [Out](linked.md) — x\n- [Pipe](pipe.md) — x\n- [Big](big.md) — x\n- [Up](../../../etc/passwd.md) — x\n");
    std::fs::write(mem.join("MEMORY.md"), index).unwrap();
    let ws = Ws::init();
    let v = import(&ws, "claude", &mem, &["--dry-run"]);
    assert!(skipped(&v, "linked.md").contains("symbolic link"));
    assert!(skipped(&v, "pipe.md").contains("FIFO"));
    assert!(skipped(&v, "big.md").contains("limit"));
    assert!(skipped(&v, "../../../etc/passwd.md").contains("outside PATH"));
    let v = import(&ws, "claude", &mem, &[]);
    assert_eq!(v["added"], 5, "{v:#}");
    assert!(!ws.ok(&["read"]).contains("SECRET-OUTSIDE"));
}

#[test]
fn a_folder_that_is_not_the_source_is_refused_and_nothing_changes() {
    let ws = Ws::init();
    let empty = tempfile::tempdir().unwrap();
    let before = tree(ws.root());
    for (source, says) in [
        ("claude", "no MEMORY.md"),
        ("cline", "none of the memory bank's core files"),
        ("delta", "not a dsh-memory-delta store"),
        ("basic-memory", "no Markdown notes"),
    ] {
        let out = ws.run(&["import", "--from", source, empty.path().to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(3), "{source}");
        assert!(
            text(&out.stderr).contains(says),
            "{source}: {}",
            text(&out.stderr)
        );
    }
    let out = ws.run(&["import", "--from", "cline", "/nonexistent/memory-bank"]);
    assert!(
        text(&out.stderr).contains("no such file or folder"),
        "{}",
        text(&out.stderr)
    );
    assert_same(&before, &tree(ws.root()), "a refused import");
}

#[test]
fn a_bundle_still_imports_without_from_and_dry_run_needs_from() {
    let ws = Ws::init();
    let out = ws.run(&["import", "x.json", "--dry-run"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    let a = Ws::init();
    ws.ok(&[
        "checkpoint",
        "--decision",
        "用 redb 存状态",
        "--because",
        "多进程",
    ]);
    let bundle = a.root().join("b.json");
    ws.ok(&["export", "--out", bundle.to_str().unwrap()]);
    let v = a.json(&["import", bundle.to_str().unwrap()]);
    assert_eq!(v["mode"], "empty");
    assert!(a.read("DECISIONS.md").contains("用 redb 存状态"));
}
