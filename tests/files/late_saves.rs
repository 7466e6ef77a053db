//! Saves that land after trilogy replaced the file: an editor holds SESSIONS.md open, writes the
//! first part of its save, trilogy absorbs that part (and replaces the file, keeping the
//! version it displaced), then the editor writes the rest into the displaced version. What the
//! rest holds is live again for every command after it: reads as well as writes, and a write
//! whose transaction has to start over because another save landed meanwhile.

use crate::common;

use std::io::Write;
use std::time::Duration;

use common::Ws;

/// A workspace with two recorded sessions, and an editor holding SESSIONS.md open after saving
/// only its top part (a hand entry and the newest session): the older session is missing from
/// the file. Returns the open file and the part of the save still to write.
fn half_saved() -> (Ws, std::fs::File, String) {
    let ws = Ws::init();
    ws.ok(&["checkpoint", "--session-done", "older kestrel run; tested"]);
    ws.ok(&["checkpoint", "--session-done", "newer heron run; tested"]);
    let s = ws.read("SESSIONS.md");
    let top = s.find("\n## ").unwrap() + 1;
    let whole = format!(
        "{}## 2026-11-29\n\n完成：a hand note on plovers, checked by eye\n\n{}",
        &s[..top],
        &s[top..]
    );
    // the cut falls before the older session's heading: the first part parses on its own
    let older = whole.find("older kestrel").unwrap();
    let cut = whole[..older].rfind("\n## ").unwrap() + 1;
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .truncate(true)
        .open(ws.path("SESSIONS.md"))
        .unwrap();
    f.write_all(&whole.as_bytes()[..cut]).unwrap();
    let rest = whole[cut..].to_string();
    (ws, f, rest)
}

/// The live session texts the store holds.
fn live(ws: &Ws) -> String {
    let v = ws.json(&["read", "SESSIONS.md", "-n", "1000"]);
    (v["entries"].as_array().unwrap().iter())
        .filter(|e| e["state"] == "live")
        .filter_map(|e| e["body"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

/// A command that records absorbs the first part (the older session looks deleted) and
/// replaces the file; the editor's rest lands in the displaced version.
fn absorb_first_part_then_finish(ws: &Ws, mut f: std::fs::File, rest: &str) {
    ws.ok(&["checkpoint", "--session-done", "middle egret run; tested"]);
    assert!(
        !ws.read("SESSIONS.md").contains("older kestrel"),
        "the first part was taken as it is"
    );
    f.write_all(rest.as_bytes()).unwrap();
    drop(f);
}

#[test]
fn a_read_sees_what_a_late_save_brought_back() {
    let (ws, f, rest) = half_saved();
    absorb_first_part_then_finish(&ws, f, &rest);
    // no command that records runs: a read alone must take the late save
    let now = live(&ws);
    for t in [
        "older kestrel",
        "newer heron",
        "middle egret",
        "a hand note on plovers",
    ] {
        assert!(now.contains(t), "`{t}` is live: {now}");
    }
    let log = ws.ok(&["log", "-n", "50", "--color", "never"]);
    assert!(
        log.contains("saved after trilogy replaced the file"),
        "the log says where it came from: {log}"
    );
}

#[test]
fn a_late_save_taken_by_a_write_that_starts_over_is_kept() {
    let (ws, f, rest) = half_saved();
    absorb_first_part_then_finish(&ws, f, &rest);
    // a recording command takes the late save, then finds the file changed under it before it
    // writes (another save landed): it starts over, and must take the late save again
    let mut c = ws.std_cmd();
    c.args(["checkpoint", "--session-done", "last curlew run; tested"])
        .env("TRILOGY_PAUSE_AT", "before-write:1500");
    let child = c
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(600));
    let path = ws.path("SESSIONS.md");
    let s = std::fs::read_to_string(&path).unwrap();
    let top = s.find("\n## ").unwrap() + 1;
    let saved = format!(
        "{}## 2026-11-29\n\n完成：a second hand note on avocets, checked by eye\n\n{}",
        &s[..top],
        &s[top..]
    );
    let tmp = ws.path(".SESSIONS.md.new");
    std::fs::write(&tmp, saved).unwrap();
    std::fs::rename(&tmp, &path).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", common::text(&out.stderr));
    let now = live(&ws);
    for t in [
        "older kestrel",
        "last curlew",
        "a hand note on plovers",
        "a second hand note on avocets",
    ] {
        assert!(now.contains(t), "`{t}` is live: {now}");
    }
    let file = ws.read("SESSIONS.md");
    assert!(file.contains("older kestrel"), "and in the file: {file}");
    let doctor = ws.run(&["doctor"]);
    assert!(doctor.status.success(), "{}", common::text(&doctor.stdout));
}
