//! Importing Basic Memory's notes: observations by category, relations skipped, a second
//! import on a later day, and secrets.

use super::*;

// ---- basic-memory -------------------------------------------------------------------------

#[test]
fn basic_memory_dry_run_lists_observations_and_skips_relations_and_writes_nothing() {
    let (_d, root) = fixture("basic-memory");
    let (_ws, v) = dry_run_changes_nothing("basic-memory", &root);
    assert_eq!(
        item(&v, "architecture/search-design.md:15")["to"],
        "DECISIONS.md"
    );
    assert_eq!(
        item(&v, "architecture/search-design.md:16")["to"],
        "PROJECT.md › 东西都在哪"
    );
    assert_eq!(
        item(&v, "architecture/search-design.md:17")["to"],
        "PROJECT.md › 坑"
    );
    assert_eq!(
        item(&v, "architecture/search-design.md:18")["to"],
        "PROJECT.md › 怎么跑和怎么测"
    );
    assert_eq!(
        item(&v, "meetings/kickoff.md:11")["to"],
        "PROJECT.md › 这是什么"
    );
    assert!(skipped(&v, "architecture/search-design.md:22").contains("2 relation(s)"));
    assert!(skipped(&v, "architecture/diagram.png").contains("not a Markdown note"));
}

#[test]
fn basic_memory_import_puts_each_observation_where_its_category_says() {
    let (_d, root) = fixture("basic-memory");
    let ws = Ws::init();
    let v = import(&ws, "basic-memory", &root, &[]);
    assert_eq!(v["added"], 7, "{v:#}");
    assert_eq!(
        entry(
            &ws,
            "DECISIONS.md",
            "2025-10-24 — Use SQLite FTS5 for full-text search"
        ),
        "## 2025-10-24 — Use SQLite FTS5 for full-text search\n选择：Use SQLite FTS5 for full-text search\n因为：no extra server to run\n标签：search\n"
    );
    assert!(
        entry(
            &ws,
            "DECISIONS.md",
            "2025-09-30 — Ship desktop before mobile"
        )
        .contains("因为：the team knows Electron")
    );
    assert!(section(&ws, "坑").contains("- [issue] Tokenizer splits CJK text badly"));
    assert!(section(&ws, "怎么跑和怎么测").contains("- [command] `make reindex` rebuilds"));
    assert!(
        section(&ws, "东西都在哪").contains("- [architecture] The indexer lives in `src/index/`")
    );
    assert!(section(&ws, "这是什么").contains("- [goal] A notes app that works offline first"));
    let all = ws.ok(&["read"]);
    assert!(
        !all.contains("book the room"),
        "a task item was imported: {all}"
    );
    assert!(
        !all.contains("[[Database Schema]]"),
        "a relation was imported: {all}"
    );
    assert!(actors(&ws).iter().any(|a| a == "import:basic-memory"));
}

#[test]
fn basic_memory_second_import_changes_nothing_on_any_later_day() {
    let (_d, root) = fixture("basic-memory");
    let ws = Ws::init();
    import(&ws, "basic-memory", &root, &[]);
    second_import_changes_nothing(&ws, "basic-memory", &root);
}

#[test]
fn basic_memory_secret_in_the_source_is_refused_with_its_location() {
    secret_is_refused("basic-memory", "", "meetings/kickoff.md");
}
