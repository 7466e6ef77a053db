//! What a recorded text may be: area names are one name whatever their Unicode spelling.
//! (Control characters and over-long areas in a batch: see the corpus in `tests/files/bad_input.rs`.)

use crate::common;

use common::{Ws, headings};

/// `café` composed (NFC), and as `e` + a combining acute accent (NFD), as macOS file names and
/// some input methods produce it.
const NFC: &str = "caf\u{e9}";
const NFD: &str = "cafe\u{301}";

fn areas(ws: &Ws) -> Vec<(String, u64)> {
    let v = ws.json(&["status"]);
    v["areas"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            (
                a["area"].as_str().unwrap().to_string(),
                a["count"].as_u64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn an_nfd_spelling_of_an_area_is_the_same_area() {
    let ws = Ws::init();
    ws.ok(&["checkpoint", "--session-done", "one; tested", "--area", NFC]);
    ws.ok(&["checkpoint", "--session-done", "two; tested", "--area", NFD]);
    assert_eq!(areas(&ws), [(NFC.to_string(), 2)]);
    let file = ws.read("SESSIONS.md");
    assert!(!file.contains(NFD), "recorded composed: {file}");
    let heading = format!("{} · {NFC}", common::TODAY);
    assert_eq!(headings(&file), [heading.clone(), heading]);
    // reading and searching by either spelling finds both
    for spelling in [NFC, NFD] {
        let v = ws.json(&["read", "SESSIONS.md", "--area", spelling]);
        assert_eq!(v["entries"].as_array().unwrap().len(), 2, "{spelling}: {v}");
        let v = ws.json(&["search", "tested", "--area", spelling]);
        assert_eq!(v["hits"].as_array().unwrap().len(), 2, "{spelling}: {v}");
    }
}

#[test]
fn hand_written_spellings_group_into_one_area_and_stay_as_written() {
    let ws = Ws::init();
    let file = format!(
        "# SESSIONS\n\n## 2026-11-20 · {NFD}\n完成：by hand, decomposed\n\n## 2026-11-19 · {NFC}\n完成：by hand, composed\n"
    );
    ws.write("SESSIONS.md", &file);
    assert_eq!(areas(&ws), [(NFC.to_string(), 2)]);
    assert_eq!(ws.read("SESSIONS.md"), file, "the file keeps its bytes");
    // four more areas fill the set; the NFD spelling is still the known one, not a fifth
    for a in ["a", "b", "c"] {
        ws.ok(&["checkpoint", "--session-done", "x; tested", "--area", a]);
    }
    let out = ws.ok(&["checkpoint", "--session-done", "y; tested", "--area", NFD]);
    assert!(!out.contains("folded"), "{out}");
    let got = areas(&ws);
    assert_eq!(got.len(), 4, "{got:?}");
    assert!(got.contains(&(NFC.to_string(), 3)), "{got:?}");
}
