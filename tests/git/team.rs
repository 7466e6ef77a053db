//! A team of clones meeting through git, the short form of `benches/team.py` (which it runs):
//! three clones of one bare repository, two writers in each and a person who commits, pulls
//! with trilogy's merge driver and pushes at random, for 60 seconds; then every clone settles
//! and pulls once more. Every acknowledged entry is in every clone, the clones' memory files
//! are the same bytes, no conflict is left for a person, every clone made its share of writes,
//! and entries that came from a teammate's clone name that teammate (`TRILOGY_TEAM_SECONDS`
//! changes the length).

use crate::common;

use common::{env_or, text};

#[test]
fn three_clones_that_commit_pull_and_push_all_day_end_with_every_entry_and_the_same_files() {
    let seconds: u64 = env_or("TRILOGY_TEAM_SECONDS", 60);
    let dir = tempfile::tempdir().unwrap();
    let report_path = dir.path().join("team.json");
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/team.py");
    let out = std::process::Command::new("python3")
        .arg(&script)
        .args(["--bin", env!("CARGO_BIN_EXE_trilogy")])
        .args(["--clones", "3", "--seconds", &seconds.to_string()])
        .arg("--json")
        .arg(&report_path)
        .output()
        .expect("python3 is missing: the tests need Rust, git and Python");
    let report = std::fs::read_to_string(&report_path).unwrap_or_else(|_| {
        panic!(
            "the simulation wrote no report: {}{}",
            text(&out.stdout),
            text(&out.stderr)
        )
    });
    let v: serde_json::Value = serde_json::from_str(&report).unwrap();
    assert!(v["acknowledged"].as_u64().unwrap() > 0, "{v}");
    assert_eq!(v["missing"], 0, "acknowledged entries missing: {v}");
    assert_eq!(v["differing_clones"], serde_json::json!([]), "{v}");
    assert_eq!(v["conflicts_left"], serde_json::json!([]), "{v}");
    assert_eq!(v["clones_short_of_writes"], serde_json::json!([]), "{v}");
    let writers = v["writers_of_entries_in_first_clone"].as_object().unwrap();
    assert!(
        writers
            .keys()
            .any(|k| k.starts_with("clone01 <") || k.starts_with("clone02 <")),
        "entries from the other clones name who committed them: {v}"
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
}
