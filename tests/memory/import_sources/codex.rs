//! Importing Codex's memories: of MEMORY.md's task groups only those about this workspace
//! (their `cwd=`), reusable knowledge to State and failures to Traps; another folder's group,
//! the user's preferences and Codex's own task index are listed as skipped.

use super::*;

/// The fixture's memories folder, its MEMORY.md saying its first group is about `root`.
fn memories(root: &Path) -> (tempfile::TempDir, PathBuf) {
    let (d, fixture_root) = fixture("codex");
    let dir = fixture_root.join("memories");
    let md = dir.join("MEMORY.md");
    let root = root.canonicalize().unwrap();
    let t = std::fs::read_to_string(&md).unwrap();
    std::fs::write(&md, t.replace("@WORKSPACE@", &root.display().to_string())).unwrap();
    (d, dir)
}

#[test]
fn codex_groups_about_this_workspace_go_to_state_and_traps_and_the_rest_is_named() {
    let ws = Ws::init();
    let (_d, dir) = memories(ws.root());
    let before = tree(ws.root());
    let preview = import(&ws, "codex", &dir, &["--dry-run"]);
    assert_same(&before, &tree(ws.root()), "a dry run");
    assert_eq!(preview["added"], 3, "{preview:#}");
    assert_eq!(item(&preview, "MEMORY.md:16")["to"], "PROJECT.md › 现状");
    assert_eq!(item(&preview, "MEMORY.md:15")["to"], "PROJECT.md › 现状");
    assert_eq!(item(&preview, "MEMORY.md:19")["to"], "PROJECT.md › 坑");
    assert!(
        skipped(&preview, "MEMORY.md:12").contains("a user preference"),
        "{preview:#}"
    );
    assert!(
        skipped(&preview, "MEMORY.md:5").contains("Codex's index"),
        "{preview:#}"
    );
    assert!(
        skipped(&preview, "MEMORY.md:21").contains("another folder (cwd=/home/me/dotfiles)"),
        "{preview:#}"
    );
    assert!(
        skipped(&preview, "memory_summary.md").contains("summary"),
        "{preview:#}"
    );
    let v = import(&ws, "codex", &dir, &[]);
    assert_eq!(v["added"], 3, "{v:#}");
    let state = section(&ws, "现状");
    assert!(
        state.contains("- `make release` tags and pushes; it refuses to run off main\n"),
        "the `[Task 1]` mark is dropped: {state}"
    );
    let traps = section(&ws, "坑");
    assert!(traps.contains("run with APP_PORT=0"), "{traps}");
    let all = format!("{state}{traps}");
    assert!(
        !all.contains("zshenv") && !all.contains("changelog"),
        "{all}"
    );
    assert!(actors(&ws).iter().any(|a| a == "import:codex"));
    // again, by the file itself: nothing new
    second_import_changes_nothing(&ws, "codex", &dir.join("MEMORY.md"));
}

#[test]
fn codex_memories_about_no_folder_here_add_nothing_and_say_why() {
    let ws = Ws::init();
    let other = tempfile::tempdir().unwrap();
    let (_d, dir) = memories(other.path());
    let before = tree(ws.root());
    let v = import(&ws, "codex", &dir, &[]);
    assert_eq!(v["added"], 0, "{v:#}");
    assert!(
        skipped(&v, "MEMORY.md:1").contains("about another folder"),
        "{v:#}"
    );
    assert_same(&before, &tree(ws.root()), "an import that takes nothing");
}
