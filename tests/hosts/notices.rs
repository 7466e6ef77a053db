//! What a live session hears when memory changes under it: the changed entries themselves,
//! under the notice's cap, once, and never its own writes.

use crate::common;

use common::{Ws, next_prompt};
use serde_json::Value;

fn start(ws: &Ws, session: &str) {
    ws.ok_stdin(
        &["hook", "claude", "session-start"],
        &common::session_start_payload(ws, session),
    );
    assert_eq!(next_prompt(ws, session), "", "nothing changed yet");
}

fn id(out: &str) -> String {
    serde_json::from_str::<Value>(out).unwrap()["ids"][0]
        .as_str()
        .unwrap()
        .to_string()
}

#[test]
fn each_kind_of_change_by_another_process_reaches_the_next_prompt_with_its_content() {
    let ws = Ws::init();
    start(&ws, "live");

    // a decision: its choice, what it rejected and why
    let old = id(&ws.ok(&[
        "checkpoint",
        "--json",
        "--decision",
        "Store memory in redb",
        "--over",
        "sqlite: a C dependency",
        "--because",
        "one static binary",
    ]));
    let n = next_prompt(&ws, "live");
    for part in [
        "Store memory in redb",
        "放弃：sqlite: a C dependency",
        "因为：one static binary",
    ] {
        assert!(n.contains(part), "{part}: {n}");
    }
    assert_eq!(next_prompt(&ws, "live"), "", "told once");

    // a session: its Done and Next
    ws.ok(&[
        "checkpoint",
        "--session-done",
        "The importer reads Cline banks; tested",
        "--next",
        "add basic-memory",
    ]);
    let n = next_prompt(&ws, "live");
    assert!(
        n.contains("完成：The importer reads Cline banks")
            && n.contains("下一步：add basic-memory"),
        "{n}"
    );

    // a PROJECT line: before and after
    ws.ok(&[
        "checkpoint",
        "--section",
        "现状",
        "--line",
        "beta on staging",
    ]);
    next_prompt(&ws, "live");
    ws.ok(&[
        "checkpoint",
        "--section",
        "现状",
        "--line",
        "live since Monday",
        "--replaces",
        "beta on staging",
    ]);
    let n = next_prompt(&ws, "live");
    assert!(
        n.contains("− beta on staging") && n.contains("+ live since Monday"),
        "{n}"
    );

    // a supersede: which one, by which
    ws.ok(&[
        "checkpoint",
        "--decision",
        "Store memory in sqlite after all",
        "--supersedes",
        &old,
    ]);
    let n = next_prompt(&ws, "live");
    assert!(
        n.contains("取代")
            && n.contains("Store memory in redb")
            && n.contains("Store memory in sqlite after all"),
        "{n}"
    );

    // a retire: which one, and why
    let s = id(&ws.ok(&[
        "checkpoint",
        "--json",
        "--session-done",
        "Windows builds with MSVC; tested",
    ]));
    next_prompt(&ws, "live");
    ws.ok(&["retire", &s, "--why", "the Windows build is gone"]);
    let n = next_prompt(&ws, "live");
    assert!(
        n.contains("已失效") && n.contains("the Windows build is gone"),
        "{n}"
    );
    assert!(n.len() <= 2000, "{} bytes", n.len());

    // the session's own write is not echoed
    ws.ok(&[
        "checkpoint",
        "--agent-session",
        "live",
        "--session-done",
        "mine; tested",
    ]);
    assert_eq!(next_prompt(&ws, "live"), "");
}

#[test]
fn thirty_changes_at_once_stay_under_the_cap_with_a_count() {
    let ws = Ws::init();
    start(&ws, "live");
    for i in 0..30 {
        ws.ok(&[
            "checkpoint",
            "--decision",
            &format!("decision {i}: a fairly long choice about the uploader's retry policy and its limits"),
            "--because",
            "the storage provider throttles bursts and we measured it on staging",
        ]);
    }
    let n = next_prompt(&ws, "live");
    assert!(n.len() <= 2000, "{} bytes: {n}", n.len());
    assert!(
        n.contains("因为：the storage provider throttles"),
        "the first with content: {n}"
    );
    let last = n.lines().last().unwrap();
    let more: usize = last
        .strip_prefix("另有 ")
        .and_then(|l| l.split(' ').next())
        .and_then(|k| k.parse().ok())
        .unwrap_or_else(|| panic!("ends with a count: {n}"));
    let listed = n.lines().filter(|l| l.starts_with("- ")).count();
    assert_eq!(listed + more, 30, "{n}");
    assert!(listed > 0 && more > 0, "{n}");
}
