//! Importing Claude Code's memory: the dry run, where each piece goes, `CLAUDE.md` notes by
//! heading, a second import on a later day, and secrets.

use super::*;

// ---- claude -------------------------------------------------------------------------------

#[test]
fn claude_dry_run_lists_where_each_memory_goes_and_writes_nothing() {
    let (_d, root) = fixture("claude");
    let (_ws, v) = dry_run_changes_nothing("claude", &root.join("memory"));
    assert_eq!(item(&v, "feedback_pnpm.md")["to"], "DECISIONS.md");
    assert_eq!(item(&v, "project_release.md")["to"], "PROJECT.md › 现状");
    assert_eq!(
        item(&v, "reference_dashboards.md")["to"],
        "PROJECT.md › 东西都在哪"
    );
    assert_eq!(item(&v, "debugging.md")["to"], "PROJECT.md › 坑");
    assert_eq!(item(&v, "MEMORY.md:10")["to"], "PROJECT.md › 现状");
    assert!(skipped(&v, "user_profile.md").contains("about the person"));
    assert!(skipped(&v, "scratch.md").contains("not linked from MEMORY.md"));
}

#[test]
fn claude_import_puts_each_piece_where_the_mapping_says() {
    let (_d, root) = fixture("claude");
    let ws = Ws::init();
    let v = import(&ws, "claude", &root.join("memory"), &[]);
    assert_eq!(v["added"], 5, "{v:#}");
    let heading = format!("{MTIME_DAY} — Use pnpm for every install and script, never npm.");
    let d = entry(&ws, "DECISIONS.md", &heading);
    assert!(
        d.contains("选择：Use pnpm for every install and script, never npm."),
        "{d}"
    );
    assert!(
        d.contains("因为：the repository commits pnpm-lock.yaml and npm install rewrites it."),
        "{d}"
    );
    assert!(d.contains("**How to apply:** run `pnpm install`"), "{d}");
    assert!(section(&ws, "现状").contains("v2 ships on the 1st of each month"));
    assert!(section(&ws, "现状").contains("Postgres 16 in Docker, port 5433"));
    assert!(section(&ws, "东西都在哪").contains("grafana.internal/d/api-latency"));
    assert!(section(&ws, "坑").contains("port 8081 is taken"));
    for f in ["PROJECT.md", "DECISIONS.md"] {
        assert!(
            !ws.read(f).contains("terse answers"),
            "a user memory was imported into {f}"
        );
    }
    assert!(actors(&ws).iter().any(|a| a == "import:claude"));
}

#[test]
fn claude_md_notes_go_by_their_headings_and_the_rules_stay() {
    let (_d, root) = fixture("claude");
    let ws = Ws::init();
    let md = root.join("CLAUDE.md");
    let preview = import(&ws, "claude", &md, &["--dry-run"]);
    assert!(skipped(&preview, "CLAUDE.md:13").contains("`Code Style`: rules for the agent"));
    assert!(skipped(&preview, "CLAUDE.md:5").contains("@import"));
    assert!(skipped(&preview, "CLAUDE.md:19").contains("boot block"));
    let v = import(&ws, "claude", &md, &[]);
    assert_eq!(v["added"], 4, "{v:#}");
    assert!(
        section(&ws, "这是什么").contains("imports bank statements into a double-entry ledger")
    );
    assert!(section(&ws, "怎么跑和怎么测").contains("`cargo test` runs the suite"));
    assert!(section(&ws, "东西都在哪").contains("`src/parse/` holds one parser per bank"));
    assert!(section(&ws, "坑").contains("day-first"));
    let all = ws.ok(&["read"]);
    assert!(!all.contains("Errors are lowercase"), "{all}");
    assert!(!all.contains("keeps its memory in memory/"), "{all}");
    second_import_changes_nothing(&ws, "claude", &md);
}

#[test]
fn claude_second_import_changes_nothing_on_any_later_day() {
    let (_d, root) = fixture("claude");
    let ws = Ws::init();
    import(&ws, "claude", &root.join("memory"), &[]);
    second_import_changes_nothing(&ws, "claude", &root.join("memory"));
}

#[test]
fn claude_secret_in_the_source_is_refused_with_its_location() {
    secret_is_refused("claude", "memory", "debugging.md");
}
