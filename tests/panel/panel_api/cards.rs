//! Cards and sections edited through the panel's API: edit, remove, retire, supersede and
//! restore an entry through the store, section revisions with a stale version refused, and a
//! proposal accepted on its card.

use super::*;

/// `POST /trilogy/entry` with `body`.
fn post_entry(s: &Server, body: Value) -> web::Resp {
    s.post("/trilogy/entry", &body)
}

/// Two session entries in area `sync` and two decisions, for the cards to act on.
fn record_two_sessions_and_two_decisions(ws: &Ws) {
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
}

/// Edit: the file holds the new text, the old is restorable, the event is the panel's. Returns
/// the card as it was and the answer to the edit.
fn edit_keeps_the_old_text_restorable(s: &Server, ws: &Ws) -> (Value, Value) {
    let r = root(ws);
    let c = card(s, ws, "SESSIONS.md", "wired the uploader");
    let text = format!(
        "## {}\n{}",
        c["heading"].as_str().unwrap(),
        c["body"]
            .as_str()
            .unwrap()
            .replace("wired the uploader", "wired the uploader twice")
    );
    let v = post_entry(
        s,
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
    let ev = last_event(ws);
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
    (c, v)
}

/// The version card `c` was edited from is stale now: 409, nothing written, and the answer
/// shows the entry the edit (`edited`) made.
fn the_same_version_again_is_stale(s: &Server, ws: &Ws, c: &Value, edited: &Value) {
    let before = ws.read("SESSIONS.md");
    let stale = post_entry(
        s,
        json!({"root": root(ws), "id": c["id"], "action": "edit", "version": c["version"], "text": "## x\ny"}),
    );
    assert_eq!(stale.status, 409, "{}", stale.body);
    assert_eq!(
        stale.json()["current"]["id"],
        edited["new_id"],
        "the conflict shows the entry now"
    );
    assert_eq!(ws.read("SESSIONS.md"), before);
}

/// An agent's checkpoint of another entry does not make a card stale: its entry is removed,
/// and restored, the answer saying where it landed.
fn remove_beside_an_agents_checkpoint_and_restore(s: &Server, ws: &Ws) {
    let r = root(ws);
    let c2 = card(s, ws, "SESSIONS.md", "second pass on retries");
    ws.ok(&[
        "checkpoint",
        "--session-done",
        "meanwhile an agent recorded this; tested",
    ]);
    let v = post_entry(
        s,
        json!({"root": r, "id": c2["id"], "action": "remove", "version": c2["version"]}),
    );
    assert_eq!(v.status, 200, "{}", v.body);
    assert!(!ws.read("SESSIONS.md").contains("second pass on retries"));
    assert!(
        ws.read("SESSIONS.md")
            .contains("meanwhile an agent recorded this")
    );
    assert_eq!(last_event(ws)["op"], "remove");

    let v = s.post("/trilogy/restore", &json!({"root": r, "id": c2["id"]}));
    assert_eq!(v.status, 200, "{}", v.body);
    let v = v.json();
    assert_eq!(v["where"]["file"], "SESSIONS.md");
    assert!(v["where"]["position"].as_u64().unwrap() >= 1);
    assert!(ws.read("SESSIONS.md").contains("second pass on retries"));
}

/// Retire needs a reason; with one, the marker line is in the file.
fn retire_needs_a_reason(s: &Server, ws: &Ws) {
    let r = root(ws);
    let d = card(s, ws, "DECISIONS.md", "retry with backoff");
    let v = post_entry(
        s,
        json!({"root": r, "id": d["id"], "action": "retire", "version": d["version"]}),
    );
    assert_eq!(v.status, 400);
    let v = post_entry(
        s,
        json!({"root": r, "id": d["id"], "action": "retire", "version": d["version"], "why": "the links are fine now"}),
    );
    assert_eq!(v.status, 200, "{}", v.body);
    assert!(ws.read("DECISIONS.md").contains("the links are fine now"));
    assert_eq!(last_event(ws)["actor"], "panel");
}

/// Supersede records the new decision directly and marks the old.
fn supersede_records_the_new_decision_and_marks_the_old(s: &Server, ws: &Ws) {
    let d = card(s, ws, "DECISIONS.md", "store photos as webp");
    let v = post_entry(
        s,
        json!({"root": root(ws), "id": d["id"], "action": "supersede", "version": d["version"],
        "decision": {"choice": "store photos as avif", "because": "smaller still"}}),
    );
    assert_eq!(v.status, 200, "{}", v.body);
    let text = ws.read("DECISIONS.md");
    assert!(text.contains("store photos as avif"));
    let old = card(s, ws, "DECISIONS.md", "store photos as webp");
    assert_eq!(old["state"], "superseded");
}

/// Without the token nothing is written to card `d`'s file.
fn without_the_token_nothing_is_written(s: &Server, ws: &Ws, d: &Value) {
    let before = ws.read("DECISIONS.md");
    let body =
        json!({"root": root(ws), "id": d["id"], "action": "remove", "version": d["version"]})
            .to_string();
    let refused = s.raw(
        "POST",
        "/trilogy/entry",
        &[("host", &s.host()), ("content-type", "application/json")],
        &body,
    );
    assert_eq!(refused.status, 403, "{}", refused.body);
    assert_eq!(ws.read("DECISIONS.md"), before);
}

/// Bad input on card `d` names what is wrong, and nothing is written.
fn bad_input_names_what_is_wrong(s: &Server, ws: &Ws, d: &Value) {
    let r = root(ws);
    let before = ws.read("DECISIONS.md");
    let v = post_entry(
        s,
        json!({"root": r, "id": d["id"], "action": "edit", "version": d["version"], "text": "no heading here"}),
    );
    assert_eq!(v.status, 400);
    assert!(v.error().contains("one entry"), "{}", v.error());
    let v = post_entry(
        s,
        json!({"root": r, "id": d["id"], "action": "explode", "version": d["version"]}),
    );
    assert_eq!(v.status, 400);
    let v = post_entry(s, json!({"root": r, "id": d["id"], "action": "remove"}));
    assert_eq!(v.status, 400);
    assert!(v.error().contains("version"), "{}", v.error());
    assert_eq!(ws.read("DECISIONS.md"), before);
}

#[test]
fn cards_edit_remove_retire_supersede_and_restore_through_the_store() {
    let ws = Ws::init();
    record_two_sessions_and_two_decisions(&ws);
    let s = Server::start(&ws);
    let (c, edited) = edit_keeps_the_old_text_restorable(&s, &ws);
    the_same_version_again_is_stale(&s, &ws, &c, &edited);
    remove_beside_an_agents_checkpoint_and_restore(&s, &ws);
    retire_needs_a_reason(&s, &ws);
    supersede_records_the_new_decision_and_marks_the_old(&s, &ws);
    let d = card(&s, &ws, "DECISIONS.md", "store photos as avif");
    without_the_token_nothing_is_written(&s, &ws, &d);
    bad_input_names_what_is_wrong(&s, &ws, &d);
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
