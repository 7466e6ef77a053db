//! The sync protocol seen from outside: hand edits absorbed, unparseable files left alone,
//! rebuilds from the Markdown, folders in the original plugin's formats, concurrent writers,
//! and the filesystem fences.

use crate::common;

use std::path::Path;

use common::{Ws, headings, text};

mod hand_edits;
mod opening;
mod recovery;

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
    }
}

fn ids_by_heading(ws: &Ws, file: &str) -> Vec<(String, String, String)> {
    let v = ws.json(&["read", file, "-n", "1000"]);
    v["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["heading"].as_str().unwrap().to_string(),
                e["id"].as_str().unwrap().to_string(),
                e["body"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn seeded() -> Ws {
    let ws = Ws::init();
    for (day, text) in [
        ("2026-11-20", "oldest; tested"),
        ("2026-11-24", "middle; tested"),
        ("2026-11-28", "newest; tested"),
    ] {
        let out = ws
            .cmd()
            .env("TRILOGY_TODAY", day)
            .args(["checkpoint", "--session-done", text])
            .output()
            .unwrap();
        assert!(out.status.success());
    }
    ws.ok(&["checkpoint", "--section", "现状", "--text", "alpha\nbeta"]);
    ws
}
