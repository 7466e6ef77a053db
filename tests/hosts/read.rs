//! Reading: files, sections, filtered entries, root discovery, and JSON shapes.

use crate::common;

use common::Ws;

fn dated(ws: &Ws, day: &str, done: &str, area: &str) {
    let out = ws
        .cmd()
        .env("TRILOGY_TODAY", day)
        .args(["checkpoint", "--session-done", done, "--area", area])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", common::text(&out.stderr));
}

#[test]
fn entries_filter_by_area_date_and_count() {
    let ws = Ws::init();
    dated(&ws, "2026-10-01", "a1; tested", "api");
    dated(&ws, "2026-10-05", "b1; tested", "build");
    dated(&ws, "2026-10-09", "a2; tested", "API");
    dated(&ws, "2026-10-12", "a3; tested", "api");
    let heads = |v: serde_json::Value| -> Vec<String> {
        v["entries"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["heading"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(
        heads(ws.json(&["read", "--area", "api"])),
        ["2026-10-12 · api", "2026-10-09 · api", "2026-10-01 · api"]
    );
    assert_eq!(
        heads(ws.json(&["read", "--since", "2026-10-05", "--until", "2026-10-09"])),
        ["2026-10-09 · api", "2026-10-05 · build"]
    );
    assert_eq!(heads(ws.json(&["read", "-n", "1"])), ["2026-10-12 · api"]);
    let e = &ws.json(&["read", "-n", "1"])["entries"][0];
    assert_eq!(e["fields"]["done"], "a3; tested");
    assert_eq!(e["area"], "api");
    let out = ws.run(&["read", "--since", "October"]);
    assert_eq!(out.status.code(), Some(3));
    assert!(common::text(&out.stderr).contains("YYYY-MM-DD"));
}

#[test]
fn file_and_section_reads_come_from_the_store() {
    let ws = Ws::init();
    let batch = ws.root().join("batch.json");
    std::fs::write(
        &batch,
        r#"{"project":[{"section":"What this is","text":"a test"}]}"#,
    )
    .unwrap();
    ws.ok(&["checkpoint", batch.to_str().unwrap()]);
    let v = ws.json(&["read", "PROJECT.md"]);
    assert_eq!(v["content"], ws.read("PROJECT.md"));
    assert!(v["path"].as_str().unwrap().ends_with("memory/PROJECT.md"));
    let s = ws.json(&["read", "--section", "这是什么"]);
    assert_eq!(s["text"], "a test");
    assert_eq!(s["empty"], false);
    assert_eq!(ws.json(&["read", "--section", "Traps"])["empty"], true);
    let out = ws.run(&["read", "--section", "Nope"]);
    assert_eq!(out.status.code(), Some(4));
    assert!(common::text(&out.stderr).contains("坑 / Traps"));
    let all = ws.ok(&["read"]);
    assert!(
        all.contains("PROJECT.md <==")
            && all.contains("DECISIONS.md <==")
            && all.contains("SESSIONS.md <==")
    );
}

#[test]
fn marker_strategy_climbs_to_the_repository_root() {
    let ws = Ws::new();
    std::fs::create_dir_all(ws.root().join(".git")).unwrap();
    let nested = ws.root().join("crates/inner");
    std::fs::create_dir_all(&nested).unwrap();
    let mut c = assert_cmd::Command::cargo_bin("trilogy").unwrap();
    let out = c
        .current_dir(&nested)
        .env("TRILOGY_CONFIG", ws.root().join("none.toml"))
        .envs(common::private_env(ws.state.path()))
        .env("TRILOGY_PROJECT_ROOT_STRATEGY", "marker")
        .arg("init")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", common::text(&out.stderr));
    assert!(ws.root().join("memory/PROJECT.md").exists());
    assert!(!nested.join("memory").exists());
    // the default strategy finds the memory above the folder, up to the repository root,
    // and creates none in the subfolder
    let mut c = assert_cmd::Command::cargo_bin("trilogy").unwrap();
    let out = c
        .current_dir(&nested)
        .env("TRILOGY_CONFIG", ws.root().join("none.toml"))
        .envs(common::private_env(ws.state.path()))
        .args(["init", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", common::text(&out.stderr));
    assert!(common::text(&out.stdout).contains(&ws.root().display().to_string()));
    assert!(!nested.join("memory").exists());
    // and an explicit root is used as it is
    let mut c = assert_cmd::Command::cargo_bin("trilogy").unwrap();
    c.current_dir(&nested)
        .env("TRILOGY_CONFIG", ws.root().join("none.toml"))
        .envs(common::private_env(ws.state.path()))
        .args(["--root", "."])
        .arg("init")
        .assert()
        .success();
    assert!(nested.join("memory/PROJECT.md").exists());
}
