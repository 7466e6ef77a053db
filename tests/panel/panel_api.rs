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
fn cards_edit_remove_retire_supersede_and_restore_through_the_store() {
    let ws = Ws::init();
    ws.ok(&[
        "checkpoint",
        "--session-done",
        "wired the uploader; tested",
        "--area",
        "sync",
    ]);
    ws.ok(&[
        "checkpoint",
        "--session-done",
        "second pass on retries; tested",
        "--area",
        "sync",
    ]);
    ws.ok(&[
        "checkpoint",
        "--decision",
        "retry with backoff",
        "--because",
        "flaky links",
    ]);
    ws.ok(&[
        "checkpoint",
        "--decision",
        "store photos as webp",
        "--because",
        "size",
    ]);
    let s = Server::start(&ws);
    let r = root(&ws);
    let post = |body: Value| s.post("/trilogy/entry", &body);

    // edit: the file holds the new text, the old is restorable, the event is the panel's
    let c = card(&s, &ws, "SESSIONS.md", "wired the uploader");
    let text = format!(
        "## {}\n{}",
        c["heading"].as_str().unwrap(),
        c["body"]
            .as_str()
            .unwrap()
            .replace("wired the uploader", "wired the uploader twice")
    );
    let v = post(
        json!({"root": r, "id": c["id"], "action": "edit", "version": c["version"], "text": text}),
    );
    assert_eq!(v.status, 200, "{}", v.body);
    let v = v.json();
    assert!(v["new_id"].is_string() && v["new_id"] != c["id"]);
    assert_eq!(v["where"]["file"], "SESSIONS.md");
    assert!(ws.read("SESSIONS.md").contains("wired the uploader twice"));
    assert!(
        !ws.read("SESSIONS.md")
            .contains("wired the uploader; tested")
    );
    let ev = last_event(&ws);
    assert_eq!(
        (ev["actor"].clone(), ev["op"].clone()),
        (json!("panel"), json!("replace"))
    );
    let history = s.get(&format!("/trilogy/history?root={}", enc(&r))).json();
    assert!(
        history["entries"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["id"] == c["id"] && e["state"] == "replaced"),
        "the old text is restorable: {history}"
    );

    // the same version again is stale: 409, nothing written, and what is there now
    let before = ws.read("SESSIONS.md");
    let stale = post(
        json!({"root": r, "id": c["id"], "action": "edit", "version": c["version"], "text": "## x\ny"}),
    );
    assert_eq!(stale.status, 409, "{}", stale.body);
    assert_eq!(
        stale.json()["current"]["id"],
        v["new_id"],
        "the conflict shows the entry now"
    );
    assert_eq!(ws.read("SESSIONS.md"), before);

    // an agent's checkpoint of another entry does not make this card stale
    let c2 = card(&s, &ws, "SESSIONS.md", "second pass on retries");
    ws.ok(&[
        "checkpoint",
        "--session-done",
        "meanwhile an agent recorded this; tested",
    ]);
    let v = post(json!({"root": r, "id": c2["id"], "action": "remove", "version": c2["version"]}));
    assert_eq!(v.status, 200, "{}", v.body);
    assert!(!ws.read("SESSIONS.md").contains("second pass on retries"));
    assert!(
        ws.read("SESSIONS.md")
            .contains("meanwhile an agent recorded this")
    );
    assert_eq!(last_event(&ws)["op"], "remove");

    // restore says where it landed
    let v = s.post("/trilogy/restore", &json!({"root": r, "id": c2["id"]}));
    assert_eq!(v.status, 200, "{}", v.body);
    let v = v.json();
    assert_eq!(v["where"]["file"], "SESSIONS.md");
    assert!(v["where"]["position"].as_u64().unwrap() >= 1);
    assert!(ws.read("SESSIONS.md").contains("second pass on retries"));

    // retire needs a reason; with one, the marker line is in the file
    let d = card(&s, &ws, "DECISIONS.md", "retry with backoff");
    let v = post(json!({"root": r, "id": d["id"], "action": "retire", "version": d["version"]}));
    assert_eq!(v.status, 400);
    let v = post(
        json!({"root": r, "id": d["id"], "action": "retire", "version": d["version"], "why": "the links are fine now"}),
    );
    assert_eq!(v.status, 200, "{}", v.body);
    assert!(ws.read("DECISIONS.md").contains("the links are fine now"));
    assert_eq!(last_event(&ws)["actor"], "panel");

    // supersede records the new decision directly and marks the old
    let d = card(&s, &ws, "DECISIONS.md", "store photos as webp");
    let v = post(
        json!({"root": r, "id": d["id"], "action": "supersede", "version": d["version"],
        "decision": {"choice": "store photos as avif", "because": "smaller still"}}),
    );
    assert_eq!(v.status, 200, "{}", v.body);
    let text = ws.read("DECISIONS.md");
    assert!(text.contains("store photos as avif"));
    let old = card(&s, &ws, "DECISIONS.md", "store photos as webp");
    assert_eq!(old["state"], "superseded");

    // without the token nothing is written
    let d = card(&s, &ws, "DECISIONS.md", "store photos as avif");
    let before = ws.read("DECISIONS.md");
    let body =
        json!({"root": r, "id": d["id"], "action": "remove", "version": d["version"]}).to_string();
    let refused = s.raw(
        "POST",
        "/trilogy/entry",
        &[("host", &s.host()), ("content-type", "application/json")],
        &body,
    );
    assert_eq!(refused.status, 403, "{}", refused.body);
    assert_eq!(ws.read("DECISIONS.md"), before);

    // bad input names what is wrong
    let v = post(
        json!({"root": r, "id": d["id"], "action": "edit", "version": d["version"], "text": "no heading here"}),
    );
    assert_eq!(v.status, 400);
    assert!(v.error().contains("one entry"), "{}", v.error());
    let v = post(json!({"root": r, "id": d["id"], "action": "explode", "version": d["version"]}));
    assert_eq!(v.status, 400);
    let v = post(json!({"root": r, "id": d["id"], "action": "remove"}));
    assert_eq!(v.status, 400);
    assert!(v.error().contains("version"), "{}", v.error());
    assert_eq!(ws.read("DECISIONS.md"), before);
}

#[test]
fn sections_edit_with_revisions_and_a_stale_version_is_refused() {
    let ws = Ws::init();
    let s = Server::start(&ws);
    let r = root(&ws);
    let v = s.get(&format!("/trilogy/sections?root={}", enc(&r))).json();
    let first = v["sections"][0].clone();
    let key = first["key"].as_str().unwrap().to_string();
    let edit = |version: &Value, text: &str| {
        s.post(
            "/trilogy/section",
            &json!({"root": r, "key": key, "action": "edit", "version": version, "text": text}),
        )
    };
    let done = edit(&first["version"], "A photo sync service for families.");
    assert_eq!(done.status, 200, "{}", done.body);
    assert!(
        ws.read("PROJECT.md")
            .contains("A photo sync service for families.")
    );
    assert_eq!(last_event(&ws)["actor"], "panel");
    // the version seen first is stale now
    let stale = edit(&first["version"], "something else");
    assert_eq!(stale.status, 409, "{}", stale.body);
    assert!(!ws.read("PROJECT.md").contains("something else"));
    let revs = s
        .get(&format!(
            "/trilogy/revisions?root={}&key={}",
            enc(&r),
            enc(&key)
        ))
        .json();
    let list = revs["revisions"].as_array().unwrap();
    assert!(list.len() >= 2, "{revs}");
    let oldest = list.last().unwrap()["revision"].clone();
    let now = s.get(&format!("/trilogy/sections?root={}", enc(&r))).json()["sections"][0].clone();
    let back = s.post(
        "/trilogy/section",
        &json!({"root": r, "key": key, "action": "restore", "version": now["version"], "revision": oldest}),
    );
    assert_eq!(back.status, 200, "{}", back.body);
    assert!(
        !ws.read("PROJECT.md")
            .contains("A photo sync service for families.")
    );
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

#[test]
fn a_proposal_to_supersede_an_entry_sits_on_its_card_and_is_accepted_there() {
    let ws = Ws::init();
    ws.ok(&[
        "checkpoint",
        "--decision",
        "poll every minute",
        "--because",
        "simple",
    ]);
    let s = Server::start(&ws);
    let r = root(&ws);
    let d = card(&s, &ws, "DECISIONS.md", "poll every minute");
    assert_eq!(d["proposals"], json!([]));
    // an agent's decision that would replace it waits for a person
    ws.cmd()
        .args(["--set", "review_mode.decisions=propose", "checkpoint"])
        .write_stdin(
            json!({"decisions": [{"choice": "push on change", "because": "polling wastes battery", "supersedes": d["id"]}]})
                .to_string(),
        )
        .assert()
        .success();
    assert!(!ws.read("DECISIONS.md").contains("push on change"));
    let d = card(&s, &ws, "DECISIONS.md", "poll every minute");
    let ids = d["proposals"].as_array().unwrap().clone();
    assert_eq!(ids.len(), 1, "{d}");
    let a = s
        .get(&format!("/trilogy/attention?root={}", enc(&r)))
        .json();
    assert_eq!(a["proposals_pending"], 1);
    let done = s.post(
        "/trilogy/review",
        &json!({"root": r, "id": ids[0], "action": "accept"}),
    );
    assert_eq!(done.status, 200, "{}", done.body);
    assert!(ws.read("DECISIONS.md").contains("push on change"));
    assert_eq!(
        card(&s, &ws, "DECISIONS.md", "poll every minute")["state"],
        "superseded"
    );
    assert_eq!(last_event(&ws)["actor"], "panel");
}
