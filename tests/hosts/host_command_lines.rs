//! The command lines `install` writes for a host's hooks, as `doctor` reads them back: a path
//! with spaces is one program, checked whole, and a path that exists runs clean.

use crate::common;

use common::{Ws, text};

fn doctor(ws: &Ws) -> (bool, String) {
    let out = ws
        .cmd()
        .env("HOME", ws.state.path())
        .args(["doctor"])
        .output()
        .unwrap();
    (out.status.success(), text(&out.stdout))
}

#[test]
fn doctor_checks_a_quoted_program_path_whole() {
    let ws = Ws::init();
    let missing = ws.root().join("no such folder/trilogy");
    ws.ok(&["install", "codex", "--command", missing.to_str().unwrap()]);
    let hooks = std::fs::read_to_string(ws.root().join(".codex/hooks.json")).unwrap();
    assert!(
        hooks.contains(&format!("'{}' hook codex", missing.display())),
        "{hooks}"
    );
    let (ok, report) = doctor(&ws);
    assert!(!ok, "{report}");
    assert!(
        report.contains(&format!(
            "runs `{}`, which does not resolve",
            missing.display()
        )),
        "{report}"
    );

    // the same folder name with the program in it: nothing to report
    let folder = ws.root().join("with space");
    std::fs::create_dir_all(&folder).unwrap();
    let bin = folder.join("trilogy");
    std::fs::copy(assert_cmd::cargo::cargo_bin("trilogy"), &bin).unwrap();
    ws.ok(&["install", "codex", "--command", bin.to_str().unwrap()]);
    let (_, report) = doctor(&ws);
    assert!(!report.contains("does not resolve"), "{report}");
    assert!(!report.contains("another shell"), "{report}");
}
