//! Hand edits absorbed: an entry added in the middle, a body edited or deleted (restorably),
//! a copy saved after trilogy wrote, a project line as a new revision, an emptied file never
//! read as delete-everything, and a same-size save in the same clock tick.

use super::*;

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
