//! Retire: a person marks an entry as no longer true. It stays in its file with a marker line,
//! is never injected, is found as retired, frees its topic and comes back with restore; agents
//! cannot retire, only name entries in `notes`, which become a report with the commands.

use crate::common;

use common::{TODAY, Ws, text};

fn id_of(out: &str) -> String {
    serde_json::from_str::<serde_json::Value>(out).unwrap()["ids"][0]
        .as_str()
        .unwrap()
        .to_string()
}

fn inject(ws: &Ws) -> String {
    ws.ok(&["inject"])
}

fn search_state(ws: &Ws, q: &str) -> Vec<String> {
    ws.json(&["search", q])["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["state"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_retired_decision_is_marked_in_its_file_left_out_of_the_block_found_and_restored() {
    let ws = Ws::init();
    let id = id_of(&ws.ok(&[
        "checkpoint",
        "--json",
        "--decision",
        "Pin the linker to lld 17",
        "--because",
        "gold crashes on the release build",
        "--topic",
        "linker",
    ]));
    assert!(inject(&ws).contains("Pin the linker to lld 17"));

    let out = ws.json(&[
        "retire",
        &id[..8],
        "--why",
        "the toolchain ships a fixed gold",
    ]);
    assert_eq!(out["id"], id.as_str());
    let marker = format!("已失效：{TODAY} — the toolchain ships a fixed gold");
    let file = ws.read("DECISIONS.md");
    assert!(
        file.contains(&format!(
            "因为：gold crashes on the release build\n主题：linker\n{marker}\n"
        )),
        "the marker is the entry's last line:\n{file}"
    );
    assert!(
        !inject(&ws).contains("Pin the linker to lld 17"),
        "never injected"
    );
    assert_eq!(search_state(&ws, "lld linker"), ["retired"]);
    // the topic is free again
    ws.ok(&[
        "checkpoint",
        "--decision",
        "Use the default linker",
        "--topic",
        "Linker",
    ]);

    // the store rebuilt from the files keeps it retired
    std::fs::remove_dir_all(ws.root().join(".trilogy")).unwrap();
    assert_eq!(search_state(&ws, "lld"), ["retired"]);
    assert!(
        ws.read("DECISIONS.md").contains(&marker),
        "the marker is still there"
    );

    let restored = ws.json(&["restore", &id]);
    assert_eq!(restored["from"], "retired");
    assert!(!ws.read("DECISIONS.md").contains(&marker));
    assert!(inject(&ws).contains("Pin the linker to lld 17"));
}

#[test]
fn a_retired_session_is_marked_in_english_and_not_injected() {
    let ws = Ws::new();
    ws.ok(&["--set", "lang=en", "init"]);
    let id = id_of(&ws.ok(&[
        "checkpoint",
        "--json",
        "--session-done",
        "The flaky upload test is fixed by a 2 s sleep; cargo test passes",
    ]));
    assert!(inject(&ws).contains("2 s sleep"));
    ws.ok(&["retire", &id, "--why", "the sleep only hid the race"]);
    let file = ws.read("SESSIONS.md");
    assert!(
        file.contains(&format!("Retired: {TODAY} — the sleep only hid the race")),
        "{file}"
    );
    assert!(!inject(&ws).contains("2 s sleep"));
    assert_eq!(search_state(&ws, "flaky upload sleep"), ["retired"]);
    // retiring twice says what it is
    let again = ws.run(&["retire", &id, "--why", "x"]);
    assert_eq!(again.status.code(), Some(3));
    assert!(
        text(&again.stderr).contains("retired, not live"),
        "{}",
        text(&again.stderr)
    );
}

#[test]
fn a_person_retires_by_writing_the_marker_line() {
    let ws = Ws::init();
    ws.ok(&[
        "checkpoint",
        "--decision",
        "Ship nightly builds",
        "--because",
        "testers want them",
    ]);
    let file = ws.read("DECISIONS.md");
    let edited = file.replace(
        "因为：testers want them\n",
        "因为：testers want them\nRetired: 2026-11-20 — nobody installs them\n",
    );
    assert_ne!(edited, file);
    ws.write("DECISIONS.md", &edited);
    assert!(!inject(&ws).contains("Ship nightly builds"));
    assert_eq!(
        ws.read("DECISIONS.md"),
        edited,
        "the hand edit is kept byte for byte"
    );
    assert_eq!(search_state(&ws, "nightly builds"), ["retired"]);
}

#[test]
fn an_agent_cannot_retire() {
    let ws = Ws::init();
    // no field for it
    let out = ws.run_stdin(&["checkpoint", "-"], r#"{"retire": [{"id": "abcd1234"}]}"#);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    // and a marker line in the text an agent writes is text
    let batch = serde_json::json!({
        "sessions": [{"done": "Moved the cache to /var/cache; tested\nRetired: 2026-11-01 — sneaky", "next": "x\n已失效：2026-11-01 — sneaky"}],
        "decisions": [{"choice": "Cache in RAM", "because": "fast\n已失效：2026-11-01 — sneaky"}]
    });
    ws.ok_stdin(&["checkpoint", "-"], &batch.to_string());
    assert_eq!(
        search_state(&ws, "cache"),
        ["live", "live"],
        "both stay live"
    );
    assert!(inject(&ws).contains("Cache in RAM"));
}

#[test]
fn notes_naming_two_entries_become_a_report_with_the_retire_command_for_each() {
    let ws = Ws::init();
    let a = id_of(&ws.ok(&["checkpoint", "--json", "--decision", "Deploy with rsync"]));
    let b = id_of(&ws.ok(&[
        "checkpoint",
        "--json",
        "--session-done",
        "Docs build on every push; tested",
    ]));
    let notes = format!(
        "{a} looks stale (we deploy with containers now), and so does {}",
        &b[..8]
    );
    ws.ok(&["checkpoint", "--notes", &notes]);
    let reports = ws.json(&["reports"]);
    let report = reports
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["open"] == true)
        .unwrap()["text"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(report.starts_with(&notes), "{report}");
    for id in [&a, &b] {
        assert!(
            report.contains(&format!("`trilogy retire {id} --why")),
            "{id}: {report}"
        );
    }
    // nothing was retired by the agent
    assert!(inject(&ws).contains("Deploy with rsync"));
}

#[test]
fn retire_refuses_bad_input_and_changes_nothing() {
    let ws = Ws::init();
    let id = id_of(&ws.ok(&["checkpoint", "--json", "--decision", "Use zstd"]));
    let before = ws.snapshot();
    for (args, says) in [
        (vec!["retire", id.as_str(), "--why", "  "], "--why is empty"),
        (vec!["retire", "ab", "--why", "x"], "too short"),
        (vec!["retire", "ffffffffffff", "--why", "x"], "no entry"),
        (
            vec![
                "retire",
                id.as_str(),
                "--why",
                "AKIAZ3MXQ7RTL5VW2KHD is the key",
            ],
            "refused",
        ),
    ] {
        let out = ws.run(&args);
        assert!(!out.status.success(), "{args:?}");
        assert!(
            text(&out.stderr).contains(says),
            "{args:?}: {}",
            text(&out.stderr)
        );
    }
    assert_eq!(ws.snapshot(), before);
}
