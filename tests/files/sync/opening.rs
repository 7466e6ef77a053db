//! Opening and writing a folder: the original formats kept and stable, two processes writing
//! at once, a file linked outside the root, an unknown key, a root without write permission,
//! and reading before `init`.

use super::*;

#[test]
fn folder_in_the_original_formats_opens_keeps_content_and_is_stable() {
    let ws = Ws::new();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/original/memory");
    copy_dir(&fixture, &ws.root().join("memory"));
    ws.ok(&["status"]);
    let first = ws.snapshot();
    // every line of content survives (headings may be renamed, the pointer is regenerated)
    for (name, bytes) in &first {
        let orig = std::fs::read_to_string(fixture.join(name)).unwrap();
        let now = String::from_utf8(bytes.clone()).unwrap();
        for line in orig.lines() {
            let renamed = [
                "What this is",
                "Run and test",
                "Where things live",
                "State",
                "Traps",
            ]
            .iter()
            .any(|h| line == format!("## {h}"));
            if renamed || line.starts_with("> 更早的会话条目已归档到") {
                continue;
            }
            assert!(
                now.contains(line),
                "{name} lost the line {line:?}\n---\n{now}"
            );
        }
    }
    // opened as it is: not a byte changed by reading
    for (name, bytes) in &first {
        assert_eq!(
            bytes,
            &std::fs::read(fixture.join(name)).unwrap(),
            "{name} as written"
        );
    }
    let s = ws.read("SESSIONS.md");
    assert_eq!(s.matches("更早的会话条目已归档到").count(), 1);
    let a = headings(&ws.read("SESSIONS-archive.md"));
    assert_eq!(
        a,
        ["2026-02-01", "2026-01-10", "2026-02-10 · 同步"],
        "archive in the order it was written"
    );
    let sessions = ws.json(&["read", "SESSIONS.md", "-n", "10"]);
    assert_eq!(
        sessions["entries"][2]["fields"]["done"],
        "migrated config loader"
    );
    assert_eq!(sessions["entries"][2]["fields"]["next"], "test on Windows");
    let decisions = ws.json(&["read", "DECISIONS.md", "-n", "10"]);
    assert_eq!(decisions["entries"][1]["fields"]["chose"], "Use Go");

    // running again changes nothing; rebuilding from the files changes nothing
    ws.ok(&["status"]);
    assert_eq!(ws.snapshot(), first);
    std::fs::remove_dir_all(ws.root().join(".trilogy")).unwrap();
    ws.ok(&["read"]);
    assert_eq!(ws.snapshot(), first);
    // and a checkpoint on top keeps the hand-written entries verbatim
    ws.ok(&[
        "checkpoint",
        "--session-done",
        "opened with trilogy; tested",
    ]);
    assert!(ws.read("SESSIONS.md").contains(
        "Hand-written entry with a blank line after the heading\nand free prose, no labels at all."
    ));
    // the first write renames the legacy headings, the bodies as written
    let p = ws.read("PROJECT.md");
    assert!(
        p.contains("## 这是什么\n\nA CLI that syncs dotfiles"),
        "{p}"
    );
    assert!(p.contains("## 现状\n\nSync works"));
    assert!(
        p.contains("none yet"),
        "legacy empty marker kept as written"
    );
    assert!(p.contains("## Custom section a person added\n\nKept as an unknown section."));
}

#[test]
fn two_processes_writing_at_once_both_land() {
    let ws = Ws::init();
    let mut children = Vec::new();
    for i in 0..6 {
        let mut c = std::process::Command::new(assert_cmd::cargo::cargo_bin("trilogy"));
        c.arg("--root")
            .arg(ws.root())
            .env("TRILOGY_TODAY", common::TODAY)
            .env("TRILOGY_CONFIG", ws.root().join("none.toml"))
            .envs(common::private_env(ws.state.path()))
            .args([
                "checkpoint",
                "--session-done",
                &format!("writer {i}; tested"),
                "--area",
                "concurrency",
            ]);
        children.push(c.spawn().unwrap());
    }
    for mut ch in children {
        assert!(ch.wait().unwrap().success());
    }
    let s = ws.read("SESSIONS.md");
    for i in 0..6 {
        assert!(
            s.contains(&format!("writer {i}; tested")),
            "writer {i} lost:\n{s}"
        );
    }
    assert_eq!(headings(&s).len(), 6);
    let before = ws.snapshot();
    ws.ok(&["status"]);
    assert_eq!(ws.snapshot(), before, "files equal what the store renders");
}

#[cfg(unix)]
#[test]
fn memory_file_symlinked_outside_the_root_is_refused() {
    let ws = Ws::init();
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("SESSIONS.md");
    std::fs::write(&target, "# SESSIONS\n").unwrap();
    std::fs::remove_file(ws.path("SESSIONS.md")).unwrap();
    std::os::unix::fs::symlink(&target, ws.path("SESSIONS.md")).unwrap();
    let out = ws.run(&["checkpoint", "--session-done", "x; tested"]);
    assert_eq!(out.status.code(), Some(7));
    let err = text(&out.stderr);
    assert!(
        err.contains("symlink") && err.contains("outside the workspace"),
        "{err}"
    );
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "# SESSIONS\n");
}

#[test]
fn unknown_config_key_is_a_warning_naming_file_key_and_the_nearest_known_one() {
    // a repository's trilogy.toml may come from a teammate's newer trilogy: its unknown key is
    // skipped with a warning, and the command goes on
    let ws = Ws::init();
    std::fs::write(ws.root().join("trilogy.toml"), "sessions_max = 5\n").unwrap();
    let out = ws.run(&["checkpoint", "--session-done", "x; tested"]);
    assert_eq!(out.status.code(), Some(0));
    let err = text(&out.stderr);
    assert!(
        err.contains("trilogy.toml")
            && err.contains("`sessions_max`")
            && err.contains("sessions_max_entries"),
        "{err}"
    );
    assert!(ws.read("SESSIONS.md").contains("x; tested"));
    std::fs::write(
        ws.root().join("trilogy.toml"),
        "sessionsMaxEntries = 5\nlang = \"en\"\n",
    )
    .unwrap();
    let cfg = ws.ok(&["config"]);
    assert!(
        cfg.contains("sessions_max_entries") && cfg.contains("trilogy.toml"),
        "{cfg}"
    );
    let v = ws.json(&["config"]);
    assert_eq!(v["config"]["sessions_max_entries"], 5);
    assert_eq!(v["sources"]["lock_timeout_ms"], "default");
}

#[cfg(unix)]
#[test]
fn root_without_write_permission_is_a_clear_error() {
    let ws = Ws::new();
    let ro = ws.root().join("ro");
    std::fs::create_dir(&ro).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(ws.root(), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o555)).unwrap();
    let bin = assert_cmd::cargo::cargo_bin("trilogy");
    // root ignores permission bits: run as an unprivileged user then
    let is_root = std::process::Command::new("id")
        .arg("-u")
        .output()
        .map(|o| text(&o.stdout).trim() == "0")
        .unwrap();
    let mut c = if is_root {
        let mut c = std::process::Command::new("setpriv");
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(&bin);
        c
    } else {
        std::process::Command::new(&bin)
    };
    let out = c
        .arg("--root")
        .arg(&ro)
        .arg("init")
        .env("TRILOGY_CONFIG", "/nonexistent/config.toml")
        .env("HOME", "/nonexistent")
        .output()
        .expect("run trilogy (needs setpriv from util-linux when tests run as root)");
    assert_eq!(out.status.code(), Some(7), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    let memory_dir = ro.join("memory").display().to_string();
    assert!(
        err.contains("permission denied") && err.contains(&memory_dir),
        "{err}"
    );
    assert_eq!(
        std::fs::read_dir(&ro).unwrap().count(),
        0,
        "nothing created"
    );
}

#[test]
fn reading_before_init_says_how_to_start() {
    let ws = Ws::new();
    let out = ws.run(&["read"]);
    assert_eq!(out.status.code(), Some(4));
    assert!(text(&out.stderr).contains("trilogy init"));
    assert!(
        !ws.root().join(".trilogy").exists(),
        "a read creates nothing"
    );
}
