//! What the panel shows: the injection as `inject` prints it with why each entry is out, the
//! change counter and attention, an undone clear, and paged lists.

use super::*;

#[test]
fn injection_is_what_inject_prints_and_says_why_each_entry_is_out() {
    let ws = Ws::init();
    std::fs::write(
        ws.root().join("trilogy.toml"),
        "session_entries_injected = 3\n",
    )
    .unwrap();
    // one older session in area b, then four newer in area a: three slots, and the area
    // allocation gives b one of them, so one of the three newest is out by the area quota
    checkpoint_on(
        &ws,
        "2026-11-01",
        json!({"sessions": [{"done": "b work one", "area": "b"}]}),
    );
    for (i, d) in ["2026-11-02", "2026-11-03", "2026-11-04", "2026-11-05"]
        .iter()
        .enumerate()
    {
        checkpoint_on(
            &ws,
            d,
            json!({"sessions": [{"done": format!("a work {i}"), "area": "a"}]}),
        );
    }
    checkpoint_on(
        &ws,
        "2026-11-05",
        json!({"decisions": [{"choice": "keep the cache warm", "because": "cold starts hurt"}]}),
    );
    let s = Server::start(&ws);
    let r = root(&ws);
    for (query, args) in [
        ("", vec!["inject"]),
        ("&window=20000", vec!["inject", "--window-tokens", "20000"]),
        ("&host=codex", vec!["inject", "--host", "codex"]),
    ] {
        let v = s
            .get(&format!("/trilogy/injection?root={}{query}", enc(&r)))
            .json();
        let printed = ws.ok(&args);
        assert_eq!(
            format!("{}\n", v["text"].as_str().unwrap()),
            printed,
            "/injection{query} is `trilogy {}`",
            args.join(" ")
        );
        assert!(
            printed.contains(v["ledger_line"].as_str().unwrap()),
            "the ledger line is the block's: {}",
            v["ledger_line"]
        );
        let files: Vec<&str> = (v["files"].as_array().unwrap().iter())
            .map(|f| f["file"].as_str().unwrap())
            .collect();
        assert_eq!(files, ["PROJECT.md", "DECISIONS.md", "SESSIONS.md"]);
        for f in v["files"].as_array().unwrap() {
            assert!(
                f["bytes_shown"].as_u64().unwrap() <= f["share"].as_u64().unwrap(),
                "{f}"
            );
        }
    }
    let codex = s
        .get(&format!("/trilogy/injection?root={}&host=codex", enc(&r)))
        .json();
    assert_eq!(codex["budget"]["bytes"], 10_000, "Codex keeps 10,000 bytes");
    let v = s
        .get(&format!("/trilogy/injection?root={}", enc(&r)))
        .json();
    assert_eq!(seen_entry(&v, "keep the cache warm")["reason"], "shown");
    let b = seen_entry(&v, "· b");
    assert_eq!(
        (b["shown"].clone(), b["reason"].clone()),
        (json!(true), json!("shown"))
    );
    let quota: Vec<&Value> = (v["entries"].as_array().unwrap().iter())
        .filter(|e| e["reason"] == "area_quota")
        .collect();
    assert_eq!(
        quota.len(),
        1,
        "one of the three newest is out by area: {v}"
    );
    assert_eq!(quota[0]["shown"], false);
    assert!(
        quota[0]["heading"].as_str().unwrap().contains("2026-11-03"),
        "{}",
        quota[0]
    );
    let capped = seen_entry(&v, "2026-11-02");
    assert_eq!(capped["reason"], "count_cap");
    // nobody was injected yet; one agent session start counts for what its block held
    assert_eq!(seen_entry(&v, "keep the cache warm")["injected_count"], 0);
    ws.ok(&["inject", "--session", "agent-1", "--host", "codex"]);
    let v = s
        .get(&format!("/trilogy/injection?root={}", enc(&r)))
        .json();
    assert_eq!(v["sessions_counted"], 1);
    let d = seen_entry(&v, "keep the cache warm");
    assert_eq!(d["injected_count"], 1);
    assert!(d["last_injected"].is_string());
    assert_eq!(capped["injected_count"], 0);
    // bad input is named
    let bad = s.get(&format!("/trilogy/injection?root={}&host=nope", enc(&r)));
    assert_eq!(bad.status, 400);
    assert!(bad.error().contains("host `nope`"), "{}", bad.error());
    let bad = s.get(&format!("/trilogy/injection?root={}&window=lots", enc(&r)));
    assert_eq!(bad.status, 400);
}

#[test]
fn change_moves_with_a_cli_write_and_attention_counts_what_waits() {
    let ws = Ws::init();
    ws.ok(&["checkpoint", "--session-done", "first; tested"]);
    let s = Server::start(&ws);
    let r = root(&ws);
    let change = || s.get(&format!("/trilogy/change?root={}", enc(&r))).json()["change"].clone();
    let before = change();
    assert_eq!(change(), before, "reading changes nothing");
    ws.ok(&["checkpoint", "--session-done", "second; tested"]);
    assert_ne!(change(), before, "a checkpoint moves it");
    let before = change();
    let mut text = ws.read("SESSIONS.md");
    text.push_str("\n## 2026-11-30 | hand\n- Done: typed in an editor\n");
    ws.write("SESSIONS.md", &text);
    assert_ne!(change(), before, "a hand edit moves it");

    let a = s
        .get(&format!("/trilogy/attention?root={}", enc(&r)))
        .json();
    assert_eq!(a["reports_open"], 0);
    assert!(
        a["ledger_line"].as_str().unwrap().starts_with("本次注入"),
        "{a}"
    );
    // doctor is judged on a thread of its own; asked again, its findings come
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let doctor = loop {
        let a = s
            .get(&format!("/trilogy/attention?root={}", enc(&r)))
            .json();
        if a["doctor"]["pending"] != true {
            break a["doctor"].clone();
        }
        assert!(
            std::time::Instant::now() < deadline,
            "doctor never judged: {a}"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    };
    assert_eq!(doctor["errors"], 0, "{doctor}");
    ws.ok_stdin(
        &["checkpoint"],
        &json!({"notes": "the hand entry looks wrong"}).to_string(),
    );
    let a = s
        .get(&format!("/trilogy/attention?root={}", enc(&r)))
        .json();
    assert_eq!(a["reports_open"], 1, "{a}");
    let rv = s.get(&format!("/trilogy/review?root={}", enc(&r))).json();
    let n = rv["reports"][0]["n"].clone();
    let closed = s.post(
        "/trilogy/review",
        &json!({"root": r, "id": n, "action": "close"}),
    );
    assert_eq!(closed.status, 200, "{}", closed.body);
    let a = s
        .get(&format!("/trilogy/attention?root={}", enc(&r)))
        .json();
    assert_eq!(a["reports_open"], 0);
}

#[test]
fn a_clear_is_undone_whole_and_the_badge_and_the_opening_workspace_are_true() {
    let ws = Ws::init();
    // two sessions with a cap of one: the older goes to the archive
    for text in [
        "archived before the clear; tested",
        "kept through a clear; tested",
    ] {
        ws.cmd()
            .args(["checkpoint", "--session-done", text])
            .env("TRILOGY_SESSIONS_MAX_ENTRIES", "1")
            .env("TRILOGY_SESSIONS_ARCHIVE_BATCH", "0")
            .assert()
            .success();
    }
    assert!(
        ws.read("SESSIONS-archive.md")
            .contains("archived before the clear")
    );
    ws.ok(&[
        "checkpoint",
        "--decision",
        "survive the clear",
        "--because",
        "undo",
    ]);
    ws.ok_stdin(
        &["checkpoint"],
        &json!({"project": [{"section": "现状", "text": "Real state text that matters"}]})
            .to_string(),
    );
    let s = Server::start(&ws);
    let r = root(&ws);
    let info = s.get("/trilogy/info").json();
    assert_eq!(info["cwd_root"], r, "the panel opens where serve ran");
    let row = |s: &Server| {
        s.get("/trilogy/workspaces").json()["workspaces"]
            .as_array()
            .unwrap()
            .iter()
            .find(|w| w["root"] == r)
            .cloned()
            .unwrap()
    };
    assert_eq!(row(&s)["empty"], false, "recorded sessions: not empty");
    let v = s.post("/trilogy/clear", &json!({"root": r})).json();
    assert_eq!(v["undoable"], true, "{v}");
    let id = v["clear_id"].clone();
    assert!(!ws.path("SESSIONS.md").exists());
    let back = s.post("/trilogy/restore", &json!({"root": r, "clear": id}));
    assert_eq!(back.status, 200, "{}", back.body);
    let back = back.json();
    assert_eq!(back["entries"], 3, "{back}");
    assert_eq!(back["left"], json!([]), "{back}");
    assert_eq!(back["sections"], 1, "the one section with text: {back}");
    let sessions = ws.read("SESSIONS.md");
    assert!(sessions.contains("kept through a clear"));
    assert!(
        !sessions.contains("archived before the clear"),
        "the archive's entry stays archived"
    );
    assert!(
        ws.read("SESSIONS-archive.md")
            .contains("archived before the clear")
    );
    assert!(ws.read("DECISIONS.md").contains("survive the clear"));
    assert!(
        ws.read("PROJECT.md")
            .contains("Real state text that matters")
    );
    // a clear with nothing left to clear is not offered as undoable
    let v = s.post("/trilogy/clear", &json!({"root": r})).json();
    let again = s.post("/trilogy/clear", &json!({"root": r})).json();
    assert_eq!(again["undoable"], false, "{again} after {v}");
    assert_eq!(again["clear_id"], Value::Null);
    let wrong = s.post("/trilogy/restore", &json!({"root": r, "clear": 1}));
    assert_eq!(wrong.status, 404, "{}", wrong.body);
}

#[test]
fn lists_are_paged() {
    let ws = Ws::init();
    for i in 0..7 {
        ws.ok(&[
            "checkpoint",
            "--session-done",
            &format!("entry number {i}; tested"),
        ]);
    }
    let s = Server::start(&ws);
    let r = root(&ws);
    let page = |offset: usize| {
        s.get(&format!(
            "/trilogy/entries?root={}&file=SESSIONS.md&offset={offset}&limit=3",
            enc(&r)
        ))
        .json()
    };
    let (p0, p2) = (page(0), page(6));
    assert_eq!(p0["total"], 7);
    assert_eq!(p0["entries"].as_array().unwrap().len(), 3);
    assert_eq!(p2["entries"].as_array().unwrap().len(), 1);
    assert!(
        p0["entries"][0]["body"]
            .as_str()
            .unwrap()
            .contains("entry number 6"),
        "newest first"
    );
    assert!(p0["entries"][0]["version"].is_string());
    let q = s
        .get(&format!(
            "/trilogy/entries?root={}&file=SESSIONS.md&q=NUMBER%203",
            enc(&r)
        ))
        .json();
    assert_eq!(q["total"], 1, "{q}");
    let ev = |offset: usize| {
        s.get(&format!(
            "/trilogy/events?root={}&limit=2&offset={offset}",
            enc(&r)
        ))
        .json()["events"]
            .clone()
    };
    let (a, b) = (ev(0), ev(2));
    assert_eq!(a.as_array().unwrap().len(), 2);
    assert!(
        a[1]["seq"].as_u64().unwrap() > b[0]["seq"].as_u64().unwrap(),
        "{a} {b}"
    );
    let bad = s.get(&format!("/trilogy/entries?root={}&file=NOTES.md", enc(&r)));
    assert_eq!(bad.status, 400);
}
