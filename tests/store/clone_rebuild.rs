//! A fresh clone: the store rebuilt from the Markdown alone holds what the store that wrote the
//! files held (every entry, in the same order, the same counts), and the search index built
//! from it finds the same entries.

use crate::common;

use common::Ws;
use serde_json::Value;

/// A batch of `n` sessions and a few decisions, every text numbered from `from`.
fn batch(from: usize, n: usize) -> String {
    let sessions: Vec<Value> = (from..from + n)
        .map(|k| {
            let area = ["store", "cli", "sync"][k % 3];
            serde_json::json!({
                "done": format!("step {k} of the clone check, verified by test {k}"),
                "area": area,
            })
        })
        .collect();
    let decisions: Vec<Value> = (from..from + n / 10)
        .map(|k| {
            serde_json::json!({
                "choice": format!("choice {k} for the clone check"),
                "over": "the other way",
                "because": format!("measured in run {k}"),
                "topic": format!("clone topic {k}"),
            })
        })
        .collect();
    serde_json::json!({"sessions": sessions, "decisions": decisions}).to_string()
}

/// The ids a search finds (at most 10), in id order.
fn found(ws: &Ws, query: &str) -> Vec<String> {
    let v = ws.json(&["search", query, "--limit", "10"]);
    let mut ids: Vec<String> = (v["hits"].as_array().unwrap().iter())
        .map(|h| h["id"].as_str().unwrap_or_default().to_string())
        .collect();
    ids.sort();
    ids
}

/// Each memory file's name and bytes.
type Files = Vec<(String, Vec<u8>)>;

/// What a store shows of its entries: each file's text, the status counts, what searches find.
fn shown(ws: &Ws) -> (Files, Value, Vec<Vec<String>>) {
    let st = ws.json(&["status"]);
    let counts = [
        "sessions_live",
        "sessions_archived",
        "decisions",
        "restorable",
        "areas",
    ]
    .map(|k| st[k].clone());
    let counts = Value::from(counts.to_vec());
    // each number is in a few entries' text (a session's, a decision's): every hit is listed,
    // so the sets compare whatever the ranking of equal scores
    let searches = ["17", "42", "150", "199", "3"]
        .iter()
        .map(|q| found(ws, q))
        .collect();
    (ws.snapshot(), counts, searches)
}

#[test]
fn a_store_rebuilt_from_the_markdown_holds_what_the_writing_store_held() {
    let ws = Ws::init();
    // few live sessions: most of them go to the archive, the file a clone rebuilds most of
    std::fs::write(
        ws.root().join("trilogy.toml"),
        "sessions_max_entries = 12\nsessions_archive_batch = 0\n",
    )
    .unwrap();
    for round in 0..4 {
        ws.ok_stdin(&["checkpoint"], &batch(round * 50, 50));
    }
    let before = shown(&ws);
    assert!(before.1[1].as_u64() > Some(150), "{}", before.1);
    assert!(
        before.2.iter().all(|ids| !ids.is_empty() && ids.len() < 10),
        "{:?}",
        before.2
    );

    // a clone: the files without the store or the index beside them
    std::fs::remove_dir_all(ws.root().join(".trilogy")).unwrap();
    let after = shown(&ws);
    assert_eq!(after.0, before.0, "the files are left as they were");
    assert_eq!(after.1, before.1, "the same counts");
    assert_eq!(after.2, before.2, "the index finds the same entries");

    // and a reindex of the rebuilt store finds them again
    ws.ok(&["reindex"]);
    assert_eq!(shown(&ws).2, before.2);
}
