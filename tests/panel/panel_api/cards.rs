//! Cards and sections edited through the panel's API: edit, remove, retire, supersede and
//! restore an entry through the store, section revisions with a stale version refused, and a
//! proposal accepted on its card.

use super::*;

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
