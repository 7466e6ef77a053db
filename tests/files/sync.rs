//! The sync protocol seen from outside: hand edits absorbed, unparseable files left alone,
//! rebuilds from the Markdown, folders in the original plugin's formats, concurrent writers,
//! and the filesystem fences.

use crate::common;

use std::path::Path;

use common::{Ws, headings, text};

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
    }
}

fn ids_by_heading(ws: &Ws, file: &str) -> Vec<(String, String, String)> {
    let v = ws.json(&["read", file, "-n", "1000"]);
    v["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["heading"].as_str().unwrap().to_string(),
                e["id"].as_str().unwrap().to_string(),
                e["body"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn seeded() -> Ws {
    let ws = Ws::init();
    for (day, text) in [
        ("2026-11-20", "oldest; tested"),
        ("2026-11-24", "middle; tested"),
        ("2026-11-28", "newest; tested"),
    ] {
        let out = ws
            .cmd()
            .env("TRILOGY_TODAY", day)
            .args(["checkpoint", "--session-done", text])
            .output()
            .unwrap();
        assert!(out.status.success());
    }
    ws.ok(&["checkpoint", "--section", "现状", "--text", "alpha\nbeta"]);
    ws
}

#[test]
fn entry_added_by_hand_in_the_middle_is_absorbed() {
    let ws = seeded();
    let s = ws.read("SESSIONS.md");
    let edited = s.replace(
        "## 2026-11-24\n",
        "## 2026-11-26 · ops\n完成：hand-written, verified by eye\n\n## 2026-11-24\n",
    );
    ws.write("SESSIONS.md", &edited);
    let log = ws.ok(&["log", "-n", "3"]);
    assert!(
        log.contains("file-edit") && log.contains("add") && log.contains("2026-11-26 · ops"),
        "{log}"
    );
    let h = headings(&ws.read("SESSIONS.md"));
    assert_eq!(
        h,
        ["2026-11-28", "2026-11-26 · ops", "2026-11-24", "2026-11-20"]
    );
    assert_eq!(
        ws.read("SESSIONS.md"),
        edited,
        "already canonical: kept byte for byte"
    );
    let before = ws.snapshot();
    ws.ok(&["status"]);
    ws.ok(&["status"]);
    assert_eq!(ws.snapshot(), before, "re-rendering is deterministic");
}

#[test]
fn body_edit_replaces_and_deletion_removes_restorably() {
    let ws = seeded();
    let before = ids_by_heading(&ws, "SESSIONS.md");
    let middle_id = before
        .iter()
        .find(|e| e.0 == "2026-11-24")
        .unwrap()
        .1
        .clone();
    let newest_id = before
        .iter()
        .find(|e| e.0 == "2026-11-28")
        .unwrap()
        .1
        .clone();

    let s = ws.read("SESSIONS.md");
    ws.write(
        "SESSIONS.md",
        &s.replace(
            "完成：middle; tested",
            "完成：middle, corrected by hand; tested",
        ),
    );
    let log = ws.json(&["log", "-n", "5"]);
    let ev = &log["events"][0];
    assert_eq!(ev["op"], "replace");
    assert_eq!(ev["actor"], "file-edit");
    assert_eq!(ev["ids"][0], middle_id.as_str());
    let after = ids_by_heading(&ws, "SESSIONS.md");
    assert!(after.iter().any(|e| e.2.contains("corrected by hand")));

    // a deletion of the newest entry is taken as the person's once trilogy's last write is more
    // than a second old (sooner, it may be a copy read before that write: see the test below)
    std::thread::sleep(std::time::Duration::from_millis(1_100));
    let s = ws.read("SESSIONS.md");
    let start = s.find("## 2026-11-28").unwrap();
    let end = s.find("## 2026-11-24").unwrap();
    ws.write("SESSIONS.md", &format!("{}{}", &s[..start], &s[end..]));
    let st = ws.json(&["status"]);
    assert_eq!(st["sessions_live"], 2);
    assert_eq!(st["restorable"], 2, "the replaced and the removed entry");
    let log = ws.json(&["log", "-n", "1"]);
    assert_eq!(log["events"][0]["op"], "remove");
    assert!(!ws.read("SESSIONS.md").contains("newest"));

    ws.ok(&["restore", &newest_id[..8]]);
    let h = headings(&ws.read("SESSIONS.md"));
    assert_eq!(h[0], "2026-11-28", "restored at its date position");
}

#[test]
fn a_copy_read_before_trilogy_wrote_and_saved_after_removes_nothing() {
    let ws = seeded();
    // a script reads the file, trilogy records an entry, the script writes its copy back
    // (with an entry of its own, or unchanged as `git stash` puts a file back)
    for own in [true, false] {
        let copy = ws.read("SESSIONS.md");
        let tag = format!("recorded between read and write {own}");
        ws.ok(&["checkpoint", "--session-done", &format!("{tag}; tested")]);
        let saved = if own {
            let pos = copy.find("\n## ").unwrap() + 1;
            format!(
                "{}## 2026-11-29\n\n完成：the script's own entry\n\n{}",
                &copy[..pos],
                &copy[pos..]
            )
        } else {
            copy
        };
        ws.write("SESSIONS.md", &saved);
        ws.ok(&["status"]);
        assert!(ws.ok(&["read", "SESSIONS.md"]).contains(&tag));
        ws.ok(&["doctor", "--fix"]);
        let file = ws.read("SESSIONS.md");
        assert!(file.contains(&tag), "{file}");
        assert!(!own || file.contains("the script's own entry"), "{file}");
    }
    let log = ws.json(&["log", "-n", "20"]).to_string();
    assert!(!log.contains("\"remove\""), "{log}");
}

#[test]
fn project_line_edited_by_hand_is_a_new_revision() {
    let ws = seeded();
    let p = ws.read("PROJECT.md");
    ws.write("PROJECT.md", &p.replace("beta", "beta, edited by hand"));
    let sec = ws.json(&["read", "--section", "State"]);
    assert_eq!(sec["text"], "alpha\nbeta, edited by hand");
    let hist = ws.json(&["log", "--section", "现状"]);
    let revs = hist["revisions"].as_array().unwrap();
    assert_eq!(revs[0]["actor"], "file-edit");
    assert!(
        revs.iter()
            .any(|r| r["body"].as_str().unwrap().contains("beta")
                && !r["body"].as_str().unwrap().contains("edited"))
    );
    ws.ok(&[
        "restore",
        "--section",
        "现状",
        "--revision",
        &revs[1]["revision"].to_string(),
    ]);
    assert!(!ws.read("PROJECT.md").contains("edited by hand"));
}

#[test]
fn unparseable_file_is_left_untouched_and_writes_to_it_are_refused() {
    let ws = seeded();
    let broken = format!(
        "{}\n<<<<<<< HEAD\nmine\n=======\ntheirs\n>>>>>>> origin/main\n",
        ws.read("SESSIONS.md")
    );
    ws.write("SESSIONS.md", &broken);
    let out = ws.run(&["status"]);
    assert!(out.status.success());
    let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
    let line = broken
        .lines()
        .position(|l| l.starts_with("<<<<<<<"))
        .unwrap()
        + 1;
    assert!(
        all.contains(&format!("SESSIONS.md:{line}")) && all.contains("conflict"),
        "{all}"
    );

    let out = ws.run(&["checkpoint", "--session-done", "new; tested"]);
    assert_eq!(out.status.code(), Some(5), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("SESSIONS.md"));
    assert_eq!(ws.read("SESSIONS.md"), broken, "left byte for byte");

    ws.ok(&["checkpoint", "--decision", "other files keep working"]);
    assert!(ws.read("DECISIONS.md").contains("other files keep working"));
    let out = ws.run(&["read", "SESSIONS.md"]);
    assert_eq!(out.status.code(), Some(5));

    // invalid UTF-8 in PROJECT.md
    let mut bytes = ws.read("PROJECT.md").into_bytes();
    bytes.extend_from_slice(b"\n\xff\xfe\n");
    std::fs::write(ws.path("PROJECT.md"), &bytes).unwrap();
    let out = ws.run(&["checkpoint", "--section", "坑", "--text", "x"]);
    assert_eq!(out.status.code(), Some(5));
    assert!(text(&out.stderr).contains("PROJECT.md") && text(&out.stderr).contains("UTF-8"));
    assert_eq!(std::fs::read(ws.path("PROJECT.md")).unwrap(), bytes);

    // fixed by hand: everything works again
    ws.write(
        "SESSIONS.md",
        &broken.replace(
            "<<<<<<< HEAD\nmine\n=======\ntheirs\n>>>>>>> origin/main\n",
            "",
        ),
    );
    ws.ok(&["checkpoint", "--session-done", "after the fix; tested"]);
    assert!(ws.read("SESSIONS.md").contains("after the fix"));
}

#[test]
fn deleting_the_store_rebuilds_it_byte_identical() {
    let ws = seeded();
    ws.ok(&["checkpoint", "--decision", "keep it", "--over", "drop it"]);
    ws.ok(&[
        "checkpoint",
        "--decision",
        "keep it better",
        "--supersedes",
        "keep it",
    ]);
    let before = ws.snapshot();
    std::fs::remove_dir_all(ws.root().join(".trilogy")).unwrap();
    let st = ws.json(&["status"]);
    assert_eq!(st["sessions_live"], 3);
    assert_eq!(st["decisions"], 2);
    assert_eq!(ws.snapshot(), before);
    let d = ws.json(&["read", "DECISIONS.md", "-n", "5"]);
    assert_eq!(
        d["entries"][1]["state"], "superseded",
        "state rebuilt from the file"
    );
}

#[test]
fn deleted_memory_file_is_re_rendered() {
    let ws = seeded();
    let before = ws.read("SESSIONS.md");
    std::fs::remove_file(ws.path("SESSIONS.md")).unwrap();
    let status = ws.ok(&["status"]);
    assert!(!ws.path("SESSIONS.md").exists(), "a read writes nothing");
    assert!(status.contains("next write"), "{status}");
    ws.ok(&["doctor", "--fix"]);
    assert_eq!(ws.read("SESSIONS.md"), before);
    std::fs::remove_file(ws.path("SESSIONS.md")).unwrap();
    ws.ok(&["checkpoint", "--session-done", "after the loss; tested"]);
    let now = ws.read("SESSIONS.md");
    assert_eq!(headings(&now).len(), headings(&before).len() + 1, "{now}");
    assert!(now.contains("after the loss"));
}

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

#[test]
fn crash_between_writing_files_and_commit_loses_and_duplicates_nothing() {
    for point in ["after-first-write", "before-commit"] {
        let ws = seeded();
        let out = ws
            .cmd()
            .env("TRILOGY_CRASH_AT", point)
            .args([
                "checkpoint",
                "--session-done",
                "written just before the crash; tested",
                "--decision",
                "crash-proof",
            ])
            .output()
            .unwrap();
        assert!(!out.status.success(), "{point}: the process was killed");
        // the next command finds the files newer than the store and absorbs them once
        ws.ok(&["status"]);
        let s = ws.read("SESSIONS.md");
        let d = ws.read("DECISIONS.md");
        let written = s.matches("written just before the crash").count()
            + d.matches("## 2026-11-29 — crash-proof").count();
        // what reached the files is absorbed exactly once; a retry completes the rest
        let expected = if point == "before-commit" { 2 } else { 1 };
        assert_eq!(
            written, expected,
            "{point}: files written before the crash are absorbed\n{s}\n{d}"
        );
        ws.ok(&[
            "checkpoint",
            "--session-done",
            "written just before the crash; tested",
            "--decision",
            "crash-proof",
        ]);
        let s = ws.read("SESSIONS.md");
        let d = ws.read("DECISIONS.md");
        assert_eq!(
            s.matches("written just before the crash").count(),
            1,
            "{point} ({written} landed before the retry)"
        );
        assert_eq!(
            d.matches("## 2026-11-29 — crash-proof").count(),
            1,
            "{point}"
        );
        assert_eq!(
            headings(&s).len(),
            4,
            "{point}: the three seeded entries plus one"
        );
        let before = ws.snapshot();
        ws.ok(&["status"]);
        assert_eq!(
            ws.snapshot(),
            before,
            "{point}: files equal the store's rendering"
        );
    }
}

#[test]
fn an_emptied_file_is_never_read_as_delete_everything() {
    let ws = seeded();
    let before = ws.read("SESSIONS.md");
    // emptied moments ago: another program is between truncating and writing it. A reading
    // command leaves it alone; a checkpoint waits for that write and lands on top of it
    ws.write("SESSIONS.md", "");
    let t0 = std::time::Instant::now();
    ws.ok(&["read", "-n", "1"]);
    if t0.elapsed() < std::time::Duration::from_millis(1500) {
        // (the file counts as fresh for two seconds; on a machine too loaded to start the
        // command within that time it is treated as emptied on purpose, covered below)
        assert_eq!(
            ws.read("SESSIONS.md"),
            "",
            "a fresh empty file is left alone"
        );
    }
    // emptied again just now (mtime a little ahead, as from a clock that runs fast: the file
    // stays fresh long enough for a slow machine to start the command)
    ws.write("SESSIONS.md", "");
    std::fs::File::options()
        .write(true)
        .open(ws.path("SESSIONS.md"))
        .unwrap()
        .set_modified(std::time::SystemTime::now() + std::time::Duration::from_millis(1500))
        .unwrap();
    let child = ws
        .std_cmd()
        .args(["checkpoint", "--session-done", "while empty; tested"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(300));
    ws.write(
        "SESSIONS.md",
        &before.replace(
            "## 2026-11-24\n",
            "## 2026-11-25\n完成：landed after the truncation\n\n## 2026-11-24\n",
        ),
    );
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let s = ws.read("SESSIONS.md");
    for want in [
        "landed after the truncation",
        "while empty; tested",
        "oldest; tested",
        "newest; tested",
    ] {
        assert!(s.contains(want), "{want}:\n{s}");
    }
    // an empty file that stays empty is rendered again from the store, nothing removed
    ws.write("SESSIONS.md", "");
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(60);
    std::fs::File::options()
        .write(true)
        .open(ws.path("SESSIONS.md"))
        .unwrap()
        .set_modified(old)
        .unwrap();
    let log_before = ws.ok(&["log", "-n", "1"]);
    ws.ok(&["status"]);
    assert_eq!(ws.read("SESSIONS.md"), "", "a read writes nothing");
    ws.ok(&["doctor", "--fix"]);
    assert_eq!(ws.read("SESSIONS.md"), s, "rendered again, nothing removed");
    assert_eq!(
        ws.ok(&["log", "-n", "1"]),
        log_before,
        "no event: nothing changed"
    );
    // emptied and never written again: a checkpoint waits two seconds at most, then renders
    ws.write("SESSIONS.md", "");
    ws.ok(&["checkpoint", "--session-done", "after the wait; tested"]);
    let s2 = ws.read("SESSIONS.md");
    assert!(
        s2.contains("after the wait; tested") && s2.contains("landed after the truncation"),
        "{s2}"
    );
}

#[test]
fn a_same_size_save_in_the_same_clock_tick_as_a_write_is_still_absorbed() {
    // git's "racily clean" case: the stat of a file saved right after trilogy wrote it can be
    // identical (same inode, size, and mtime on a coarse clock); the stamp must not vouch for it
    let ws = seeded();
    // trilogy writes SESSIONS.md, and the save below lands in the same tick: nothing of
    // trilogy's runs in between, so the outcome cannot depend on how busy the machine is
    ws.ok(&["checkpoint", "--session-done", "the write; tested"]);
    let path = ws.path("SESSIONS.md");
    let mtime = std::fs::metadata(&path).unwrap().modified().unwrap();
    let s = ws.read("SESSIONS.md");
    let edited = s.replace("oldest; tested", "OLDEST; tested");
    assert_eq!(edited.len(), s.len());
    let mut f = std::fs::File::options().write(true).open(&path).unwrap();
    std::io::Write::write_all(&mut f, edited.as_bytes()).unwrap();
    f.set_modified(mtime).unwrap();
    drop(f);
    // past the window in which any stat is distrusted anyway
    std::thread::sleep(std::time::Duration::from_millis(2100));
    let read = ws.ok(&["read", "SESSIONS.md"]);
    assert!(read.contains("OLDEST; tested"), "{read}");
    ws.ok(&["status"]);
    assert_eq!(ws.read("SESSIONS.md"), edited);
}

#[test]
fn a_disk_that_refuses_writes_changes_nothing_and_the_next_command_works() {
    // a full disk, simulated without privileges: the writer runs with a file-size limit
    // (RLIMIT_FSIZE, SIGXFSZ ignored), so growing any file past 64 KiB fails with EFBIG
    let ws = seeded();
    let big: String = (0..2500)
        .map(|i| {
            format!(
                "## 2025-01-{:02}\n完成：padding entry number {i}, long enough to weigh\n\n",
                i % 28 + 1
            )
        })
        .collect();
    let s = ws.read("SESSIONS.md");
    let at = s.find("\n## ").unwrap() + 1;
    ws.write("SESSIONS.md", &format!("{}{big}{}", &s[..at], &s[at..]));
    ws.ok(&["status"]);
    assert!(ws.read("SESSIONS.md").len() > 128 * 1024);
    let before = ws.snapshot();
    let events = ws.json(&["log", "-n", "1"])["events"][0]["seq"].clone();
    let bin = assert_cmd::cargo::cargo_bin("trilogy");
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg("trap '' XFSZ; ulimit -f 64; exec \"$0\" \"$@\"")
        .arg(&bin)
        .arg("--root")
        .arg(ws.root())
        .args([
            "checkpoint",
            "--session-done",
            "written to a full disk; tested",
        ])
        .env("TRILOGY_TODAY", common::TODAY)
        .env("TRILOGY_CONFIG", ws.root().join("no-user-config.toml"))
        .envs(common::private_env(ws.state.path()))
        .output()
        .expect("sh is needed");
    assert!(!out.status.success(), "the write cannot succeed");
    let err = text(&out.stderr);
    assert!(err.contains("large") || err.contains("space"), "{err}");
    assert_eq!(ws.snapshot(), before, "the files are as they were");
    assert_eq!(
        ws.json(&["log", "-n", "1"])["events"][0]["seq"],
        events,
        "nothing was recorded"
    );
    assert!(
        !ws.ok(&["read", "-n", "3"])
            .contains("written to a full disk"),
        "the refused entry is not in the store"
    );
    // a store left mid-write is named as such, and repaired by the first command that writes
    let doctor = ws.run(&["doctor"]);
    if !doctor.status.success() {
        assert!(
            text(&doctor.stdout).contains("repair"),
            "{}",
            text(&doctor.stdout)
        );
    }
    let doctor = ws.run(&["doctor", "--fix"]);
    assert!(doctor.status.success(), "{}", text(&doctor.stdout));
    ws.ok(&[
        "checkpoint",
        "--session-done",
        "after space was freed; tested",
    ]);
    assert!(ws.read("SESSIONS.md").contains("after space was freed"));
    let doctor = ws.run(&["doctor"]);
    assert!(doctor.status.success(), "{}", text(&doctor.stdout));
}
