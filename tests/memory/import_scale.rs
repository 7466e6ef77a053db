//! Importing large sources gives the right entries: a dsh-memory-delta entry whose frontmatter
//! runs to tens of thousands of lines, and basic-memory notes of tens of thousands of
//! observations (each read and weighed once, however many there are).

use crate::common;

use std::fmt::Write as _;
use std::path::Path;

use common::Ws;
use serde_json::Value;

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn import(ws: &Ws, source: &str, path: &Path, extra: &[&str]) -> Value {
    let mut args = vec!["import", "--from", source, path.to_str().unwrap()];
    args.extend_from_slice(extra);
    ws.json(&args)
}

fn statuses(v: &Value, status: &str) -> usize {
    v["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["status"] == status)
        .count()
}

#[test]
fn a_delta_entry_with_a_frontmatter_of_tens_of_thousands_of_lines_is_imported_whole() {
    let src = tempfile::tempdir().unwrap();
    // fields of their own whose names start with a dash, a long block list of tags, then
    // the fields that matter
    let mut fm = "---\nid: long\ntype: decision\nstatus: active\ndate: 2025-03-01\n".to_string();
    for k in 0..20_000 {
        let _ = writeln!(fm, "-x{k}:");
    }
    fm.push_str("tags:\n");
    for k in 0..5_000 {
        let _ = writeln!(fm, "  - t{k}");
    }
    fm.push_str("key: storage-engine\nverify_when: after the next release\n---\n");
    write(
        &src.path().join("decisions/long.md"),
        &format!("{fm}\n## 结论\nKeep redb for the store.\n\n## 理由\nMeasured it.\n"),
    );
    write(
        &src.path().join("facts/short.md"),
        "---\nid: short\ntype: fact\nstatus: active\ndate: 2025-03-02\n---\n\n## 结论\nCI runs on two cores.\n",
    );
    let ws = Ws::init();
    let v = import(&ws, "delta", src.path(), &[]);
    assert_eq!(v["added"], 2, "{v:#}");
    let decisions = ws.read("DECISIONS.md");
    let tags: Vec<String> = (0..5_000).map(|k| format!("t{k}")).collect();
    let long = format!(
        "## 2025-03-01 — Keep redb for the store.\n选择：Keep redb for the store.\n因为：Measured it.\n主题：storage-engine\n标签：{}\n复核时机：after the next release\n",
        tags.join(", ")
    );
    assert!(
        decisions.contains(&long),
        "{}",
        &decisions[..2000.min(decisions.len())]
    );
    assert!(decisions.contains("## 2025-03-02 — CI runs on two cores.\n"));
    // the same source again adds nothing
    let again = import(&ws, "delta", src.path(), &[]);
    assert_eq!(
        (again["added"].as_u64(), again["present"].as_u64()),
        (Some(0), Some(2))
    );
}

#[test]
fn basic_memory_notes_of_thirty_thousand_observations_are_weighed_one_by_one() {
    let src = tempfile::tempdir().unwrap();
    // two notes of 15,000 observations each: decisions, and PROJECT text that the second
    // note repeats (already there once the first note's is weighed)
    for note in 0..2 {
        let mut s = format!(
            "---\ntitle: note {note}\ncreated: 2025-04-0{}\n---\n\n# Note {note}\n\n",
            note + 1
        );
        for k in 0..15_000 {
            if k % 10 == 0 {
                let _ = writeln!(s, "- [issue] flaky step {k} #ci");
            } else {
                let _ = writeln!(
                    s,
                    "- [decision] choice {k} of note {note} #t{} (measured {k})",
                    k % 7
                );
            }
        }
        write(&src.path().join(format!("note{note}.md")), &s);
    }
    let ws = Ws::init();
    let v = import(&ws, "basic-memory", src.path(), &["--dry-run"]);
    assert_eq!(v["items"].as_array().unwrap().len(), 30_000);
    // 27,000 decisions and the first note's 1,500 issues are new; the second note's 1,500
    // issues are the same text
    assert_eq!(
        (statuses(&v, "add"), statuses(&v, "present")),
        (28_500, 1_500),
        "{}",
        v["added"]
    );
    let first = v["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["from"] == "note0.md:9")
        .unwrap();
    assert_eq!(first["to"], "DECISIONS.md");
    assert_eq!(first["text"], "2025-04-01 — choice 1 of note 0");
    let issue = v["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["from"] == "note1.md:18")
        .unwrap();
    assert_eq!(issue["status"], "present", "{issue}");
    assert!(
        issue["to"].as_str().unwrap().starts_with("PROJECT.md"),
        "{issue}"
    );
    assert_eq!(issue["text"], "- [issue] flaky step 10 #ci");
}
