//! The user's folders follow one rule: trilogy's state, data, cache and settings folders are
//! under `$XDG_*_HOME` when that is an absolute path, else under `$HOME` (itself absolute). A
//! relative or empty variable is ignored, so nothing lands in whatever folder a command
//! happened to start in.

use crate::common;

use std::path::Path;

use common::Ws;

/// Every file under `dir`, relative to it.
fn files_under(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                todo.push(p);
            } else {
                out.push(p.strip_prefix(dir).unwrap().display().to_string());
            }
        }
    }
    out.sort();
    out
}

#[test]
fn relative_state_and_data_homes_are_ignored_for_the_ones_under_home() {
    let ws = Ws::init();
    let home = ws.home();
    std::fs::create_dir_all(&home).unwrap();
    let out = ws
        .cmd()
        .current_dir(ws.root())
        .env("XDG_STATE_HOME", "rel-state")
        .env("XDG_DATA_HOME", "rel-data")
        .args(["status"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", common::text(&out.stderr));
    // the command recorded that it used the workspace: in the state folder under HOME
    let seen = home.join(".local/state/trilogy/seen");
    assert_eq!(
        std::fs::read_dir(&seen)
            .map(|rd| rd.count())
            .unwrap_or_default(),
        1,
        "one marker in {}",
        seen.display()
    );
    for rel in ["rel-state", "rel-data"] {
        assert!(!ws.root().join(rel).exists(), "{rel} made in the workspace");
    }
}

#[test]
fn a_hook_pins_its_session_under_home_when_the_state_home_is_relative() {
    let ws = Ws::init();
    let home = ws.home();
    std::fs::create_dir_all(&home).unwrap();
    let payload = format!(
        r#"{{"session_id": "s-1", "cwd": "{}", "transcript_path": "/nonexistent"}}"#,
        ws.root().display()
    );
    let out = ws
        .cmd()
        .current_dir(ws.root())
        .env("XDG_STATE_HOME", "rel-state")
        .args(["hook", "claude", "session-start"])
        .write_stdin(payload)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", common::text(&out.stderr));
    assert!(
        !ws.root().join("rel-state").exists(),
        "pinned under a relative state home: {:?}",
        files_under(&ws.root().join("rel-state"))
    );
    let pins = files_under(&home.join(".local/state/trilogy/sessions"));
    assert!(
        pins.iter().any(|p| !p.starts_with('.')),
        "no pin under HOME: {pins:?}"
    );
}

#[test]
fn a_relative_home_gives_no_folder_at_all() {
    let ws = Ws::init();
    let out = ws
        .cmd()
        .current_dir(ws.root())
        .env("HOME", "rel-home")
        .env_remove("XDG_STATE_HOME")
        .env_remove("XDG_DATA_HOME")
        .env_remove("XDG_CACHE_HOME")
        .args(["status"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", common::text(&out.stderr));
    assert!(
        !ws.root().join("rel-home").exists(),
        "folders made under a relative HOME: {:?}",
        files_under(&ws.root().join("rel-home"))
    );
}

#[test]
fn install_records_under_the_state_folder_of_an_absolute_home_only() {
    let ws = Ws::init();
    let home = ws.home();
    std::fs::create_dir_all(&home).unwrap();
    let out = ws
        .cmd()
        .current_dir(ws.root())
        .env("XDG_STATE_HOME", "rel-state")
        .args(["install", "claude"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", common::text(&out.stderr));
    assert!(!ws.root().join("rel-state").exists());
    let records = files_under(&home.join(".local/state/trilogy/installs"));
    assert!(!records.is_empty(), "no install record under HOME");
    // with a relative HOME, install cannot tell where the user settings are
    let out = ws
        .cmd()
        .current_dir(ws.root())
        .env("HOME", "rel-home")
        .args(["install", "claude"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = common::text(&out.stderr);
    assert!(err.contains("HOME"), "{err}");
    assert!(!ws.root().join("rel-home").exists());
}
