//! Stores written by older schemas read as before and gain what is new, and doctor finds
//! near records that disagree with the entries.

use super::*;

#[test]
fn a_schema_2_store_gains_the_live_decision_count() {
    use trilogy::store::{Reader, Store};
    let ws = Ws::init();
    ws.ok(&["checkpoint", "--decision", "use sqlite"]);
    ws.ok(&[
        "checkpoint",
        "--decision",
        "use redb",
        "--supersedes",
        "use sqlite",
    ]);
    ws.ok(&["checkpoint", "--decision", "keep markdown"]);
    let path = ws.root().join(".trilogy/store.redb");
    {
        // what a schema 2 store looks like: no counter
        let store = Store::open(&path, std::time::Duration::from_secs(5)).unwrap();
        let w = store.write(std::time::Duration::from_secs(5)).unwrap();
        w.set_meta("schema_version", 2).unwrap();
        w.set_meta("count:live_decisions", 0).unwrap();
        w.commit().unwrap();
    }
    ws.ok(&["status"]);
    let store = Store::open_read_only(&path).unwrap();
    let r = store.read().unwrap();
    assert_eq!(
        r.meta("schema_version").unwrap(),
        trilogy::store::SCHEMA_VERSION
    );
    assert_eq!(r.live_decisions().unwrap(), 2);
    drop(r);
    drop(store);
    let doctor = ws.run(&["doctor"]);
    assert!(doctor.status.success(), "{}", text(&doctor.stdout));
    // and it follows later writes
    ws.ok(&["checkpoint", "--decision", "one more"]);
    let store = Store::open_read_only(&path).unwrap();
    assert_eq!(store.read().unwrap().live_decisions().unwrap(), 3);
}

/// The store file opened with redb itself, as trilogy opens it, to shape it as an older or a
/// damaged store would be.
fn raw_store(path: &std::path::Path) -> redb::Database {
    redb::Database::builder()
        .set_concurrency_mode(redb::ConcurrencyMode::MultiWriter)
        .create(path)
        .unwrap()
}

/// Take the first row out of a table of the store at `path`, as damage would.
fn lose_first_row<K: redb::Key + 'static, V: redb::Value + 'static>(
    path: &std::path::Path,
    table: redb::TableDefinition<K, V>,
) {
    let db = raw_store(path);
    let w = db.begin_write().unwrap();
    {
        let mut t = w.open_table(table).unwrap();
        assert!(t.pop_first().unwrap().is_some(), "the table has a row");
    }
    w.commit().unwrap();
}

/// `doctor` fails saying `says`; `doctor --fix` mends it and `doctor` passes again.
fn doctor_finds_then_fix_mends(ws: &Ws, says: &str) {
    let doctor = ws.run(&["doctor"]);
    assert!(!doctor.status.success(), "{}", text(&doctor.stdout));
    let said = format!("{}{}", text(&doctor.stdout), text(&doctor.stderr));
    assert!(said.contains(says), "{said}");
    ws.ok(&["doctor", "--fix"]);
    let doctor = ws.run(&["doctor"]);
    assert!(doctor.status.success(), "{}", text(&doctor.stdout));
}

#[test]
fn a_schema_3_store_reads_as_before_and_gains_the_near_records() {
    use redb::TableDefinition;
    use trilogy::store::Store;
    let ws = Ws::init();
    for i in 0..6 {
        ws.ok(&["checkpoint", "--session-done", &format!("step {i}; tested")]);
    }
    ws.ok(&["checkpoint", "--decision", "use redb"]);
    ws.ok(&["checkpoint", "--decision", "keep markdown"]);
    let block = ws.ok(&["inject"]);
    let path = ws.root().join(".trilogy/store.redb");
    {
        // what a schema 3 store looks like: no table of near records
        let db = raw_store(&path);
        let w = db.begin_write().unwrap();
        let near: TableDefinition<&[u8], &[u8]> = TableDefinition::new("near");
        assert!(
            w.delete_table(near).unwrap(),
            "a schema 4 store keeps the near records"
        );
        w.open_table(TableDefinition::<&str, u64>::new("meta"))
            .unwrap()
            .insert("schema_version", 3)
            .unwrap();
        w.commit().unwrap();
    }
    // read-only, the old layout is read through the entries table
    assert_eq!(ws.ok(&["inject"]), block);
    let files = || {
        ["PROJECT.md", "DECISIONS.md", "SESSIONS.md"]
            .map(|f| std::fs::read_to_string(ws.root().join("memory").join(f)).unwrap())
    };
    let before = files();
    ws.ok(&["checkpoint", "--session-done", "after the upgrade; tested"]);
    let store = Store::open_read_only(&path).unwrap();
    let r = store.read().unwrap();
    assert_eq!(
        trilogy::store::Reader::meta(&r, "schema_version").unwrap(),
        trilogy::store::SCHEMA_VERSION
    );
    let sessions =
        trilogy::store::Reader::file_entries(&r, trilogy::model::FileKind::Sessions, 0, usize::MAX)
            .unwrap();
    assert_eq!(sessions.len(), 7);
    assert!(
        sessions[0].body.contains("after the upgrade"),
        "{:?}",
        sessions[0]
    );
    drop(r);
    drop(store);
    let after = files();
    assert_eq!(after[0], before[0]);
    assert_eq!(after[1], before[1]);
    assert!(after[2].contains("after the upgrade") && after[2].contains("step 0; tested"));
    let doctor = ws.run(&["doctor"]);
    assert!(doctor.status.success(), "{}", text(&doctor.stdout));
}

#[test]
fn doctor_finds_near_records_that_disagree_with_the_entries_and_fix_rebuilds_them() {
    use redb::TableDefinition;
    let ws = Ws::init();
    for i in 0..3 {
        ws.ok(&["checkpoint", "--session-done", &format!("kept {i}; tested")]);
    }
    let path = ws.root().join(".trilogy/store.redb");
    // one near record lost: the files and the render order still hold the entry
    lose_first_row(&path, TableDefinition::<&[u8], &[u8]>::new("near"));
    doctor_finds_then_fix_mends(&ws, "disagree with the entries table");
    let s = ws.read("SESSIONS.md");
    for i in 0..3 {
        assert_eq!(s.matches(&format!("kept {i}; tested")).count(), 1, "{s}");
    }
}

/// What `status` finds through the store's marks: two live decisions on one topic, what is
/// due, a credential written in by hand (its line moves as sessions are added above it).
fn findings(ws: &Ws) -> serde_json::Value {
    let mut v = ws.json(&["status"]);
    for s in v["secrets"].as_array_mut().unwrap() {
        s.as_object_mut().unwrap().remove("line");
    }
    serde_json::json!([v["topic_conflicts"], v["due"], v["secrets"]])
}

#[test]
fn a_schema_4_store_finds_topics_reviews_and_credentials_before_and_after_it_gains_the_marks() {
    use redb::TableDefinition;
    let ws = Ws::init();
    ws.ok(&[
        "checkpoint",
        "--decision",
        "Deploy on Fridays",
        "--topic",
        "Deploy day",
        "--review",
        "2026-01-01",
    ]);
    ws.ok(&["checkpoint", "--session-done", "dashboard deployed; tested"]);
    // by hand: a second decision on the topic, and a session holding a token
    let file = ws.read("DECISIONS.md");
    let at = file.find("\n## ").unwrap() + 1;
    let hand = "## 2026-11-28 — Deploy on Mondays\nChose: Deploy on Mondays\nTopic: deploy day\n\n";
    ws.write(
        "DECISIONS.md",
        &format!("{}{hand}{}", &file[..at], &file[at..]),
    );
    let token = format!("ghp_{}", "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8");
    let file = ws.read("SESSIONS.md");
    let at = file.find("\n## ").unwrap() + 1;
    let hand = format!("## 2026-11-28 · deploy\n完成：pushed with {token} by hand\n\n");
    ws.write(
        "SESSIONS.md",
        &format!("{}{hand}{}", &file[..at], &file[at..]),
    );
    let found = findings(&ws);
    assert_eq!(found[0].as_array().unwrap().len(), 1, "{found}");
    assert_eq!(found[1].as_array().unwrap().len(), 1, "{found}");
    assert_eq!(found[2].as_array().unwrap().len(), 1, "{found}");

    let path = ws.root().join(".trilogy/store.redb");
    {
        // what a schema 4 store looks like: no marks
        let db = raw_store(&path);
        let w = db.begin_write().unwrap();
        let marks: TableDefinition<&str, ()> = TableDefinition::new("marks");
        assert!(
            w.delete_table(marks).unwrap(),
            "a schema 5 store keeps marks"
        );
        w.open_table(TableDefinition::<&str, u64>::new("meta"))
            .unwrap()
            .insert("schema_version", 4)
            .unwrap();
        w.commit().unwrap();
    }
    // read before any write upgrades it, the marks are worked out from the entries
    assert_eq!(findings(&ws), found);
    ws.ok(&["checkpoint", "--session-done", "after the upgrade; tested"]);
    let store = trilogy::store::Store::open_read_only(&path).unwrap();
    let r = store.read().unwrap();
    assert_eq!(
        trilogy::store::Reader::meta(&r, "schema_version").unwrap(),
        trilogy::store::SCHEMA_VERSION
    );
    assert_eq!(
        trilogy::store::Reader::marks(&r, "").unwrap().len(),
        4,
        "two decisions on a topic, a review day and a credential are marked"
    );
    drop(r);
    drop(store);
    assert_eq!(findings(&ws), found);
}

#[test]
fn doctor_finds_a_lost_topic_mark_and_fix_brings_back_the_one_live_decision_rule() {
    use redb::TableDefinition;
    let ws = Ws::init();
    ws.ok(&[
        "checkpoint",
        "--decision",
        "Deploy on Fridays",
        "--topic",
        "Deploy day",
    ]);
    let path = ws.root().join(".trilogy/store.redb");
    lose_first_row(&path, TableDefinition::<&str, ()>::new("marks"));
    doctor_finds_then_fix_mends(&ws, "marks kept for topics");
    let again = ws.run(&[
        "checkpoint",
        "--decision",
        "Deploy on Mondays",
        "--topic",
        "deploy day",
    ]);
    assert_eq!(again.status.code(), Some(3), "{}", text(&again.stderr));
}
