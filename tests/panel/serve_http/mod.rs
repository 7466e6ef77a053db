//! `trilogy serve` over real HTTP: one real server process per test (`--port 0`, its URL read
//! from the first stdout line), the original plugin's endpoint shapes, statuses and Chinese
//! error texts (reference §9.1 checks 24–38, 45–47, 62, 64–68), the fence, the endpoints beyond
//! the original, and the panel saving while CLI writers record.

use crate::common;
use crate::common::web;

use std::io::{BufRead, BufReader};

use std::path::Path;
use std::process::Stdio;

use common::Ws;
use serde_json::{Value, json};
use web::{Server, enc, root};

mod beside_writers;
mod endpoints;
mod fence;
mod workspaces;

/// Every file under `dir`, with its bytes (the `.trilogy` store aside).
fn tree(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            let p = e.path();
            if p.file_name().is_some_and(|n| n == ".trilogy") {
                continue;
            }
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push((p.display().to_string(), std::fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

/// A workspace whose log has two entries and an archive of one (at most one live session).
fn with_archive() -> Ws {
    let ws = Ws::init();
    for (text, area) in [
        ("first thing done; tested", "web"),
        ("second thing done; tested", "cli"),
    ] {
        ws.cmd()
            .args(["checkpoint", "--session-done", text, "--area", area])
            .env("TRILOGY_SESSIONS_MAX_ENTRIES", "1")
            .env("TRILOGY_SESSIONS_ARCHIVE_BATCH", "0")
            .assert()
            .success();
    }
    assert!(ws.read("SESSIONS-archive.md").contains("first thing done"));
    ws
}

/// `/files`' text of `file` and the version it was served with (`null` from a server that
/// names none).
fn served(s: &Server, ws: &Ws, file: &str) -> (String, Value) {
    let files = s
        .get(&format!("/trilogy/files?root={}", enc(&root(ws))))
        .json();
    (
        files["files"][file]["text"].as_str().unwrap().to_string(),
        files["version"].clone(),
    )
}
