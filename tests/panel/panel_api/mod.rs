//! The panel's view of what the agents see and its fixes in place, over real HTTP against a
//! real `trilogy serve`: `/injection` is `trilogy inject` byte for byte and says why each
//! entry is in or out; `POST /entry` and `POST /section` write through the store as `panel`,
//! refuse a stale version with 409 and what is there now, and refuse a request without the
//! token; `/change` moves with a CLI write; `/attention`, `/review`, a clear undone whole.

use crate::common;
use crate::common::web;

use common::Ws;
use serde_json::{Value, json};
use web::{Server, enc, root};

mod cards;
mod views;

fn checkpoint_on(ws: &Ws, date: &str, batch: Value) {
    ws.cmd()
        .args(["checkpoint", "--json"])
        .env("TRILOGY_TODAY", date)
        .write_stdin(batch.to_string())
        .assert()
        .success();
}

/// Entries of an `/injection` answer by heading fragment.
fn seen_entry<'a>(v: &'a Value, heading_part: &str) -> &'a Value {
    v["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["heading"].as_str().unwrap().contains(heading_part))
        .unwrap_or_else(|| panic!("no entry {heading_part:?} in {v}"))
}

/// The card of `heading_part` in `file`'s first page.
fn card(s: &Server, ws: &Ws, file: &str, heading_part: &str) -> Value {
    let v = s
        .get(&format!(
            "/trilogy/entries?root={}&file={file}",
            enc(&root(ws))
        ))
        .json();
    v["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| {
            e["heading"].as_str().unwrap().contains(heading_part)
                || e["body"].as_str().unwrap().contains(heading_part)
        })
        .cloned()
        .unwrap_or_else(|| panic!("no card {heading_part:?} in {v}"))
}

fn last_event(ws: &Ws) -> Value {
    ws.json(&["log", "--limit", "1"])["events"][0].clone()
}
