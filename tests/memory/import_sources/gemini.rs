//! Importing Gemini CLI's memory: a GEMINI.md's notes by heading, and the facts its
//! `save_memory` keeps, each a line of State; the dry run, a second import, the folder form.

use super::*;

#[test]
fn gemini_saved_facts_go_to_state_and_the_notes_by_their_headings() {
    let (_d, root) = fixture("gemini");
    let md = root.join("GEMINI.md");
    let (_ws, preview) = dry_run_changes_nothing("gemini", &md);
    assert_eq!(item(&preview, "GEMINI.md:14")["to"], "PROJECT.md › 现状");
    assert_eq!(item(&preview, "GEMINI.md:15")["to"], "PROJECT.md › 现状");
    assert_eq!(
        item(&preview, "GEMINI.md:7")["to"],
        "PROJECT.md › 怎么跑和怎么测"
    );
    assert!(
        skipped(&preview, "GEMINI.md:9")
            .contains("`Style`: rules for the agent; they stay in GEMINI.md"),
        "{preview:#}"
    );
    let ws = Ws::init();
    let v = import(&ws, "gemini", &md, &[]);
    assert!(v["added"].as_u64().unwrap() >= 3, "{v:#}");
    let state = section(&ws, "现状");
    assert!(
        state.contains("- The staging database is db-2, not db-1."),
        "{state}"
    );
    assert!(state.contains("- Deploys go out on Tuesdays"), "{state}");
    assert!(section(&ws, "怎么跑和怎么测").contains("make test"));
    assert!(actors(&ws).iter().any(|a| a == "import:gemini"));
    // again, and by its folder: nothing new
    let before = tree(ws.root());
    let again = import(&ws, "gemini", &root, &[]);
    assert_eq!(again["added"], 0, "{again:#}");
    assert_same(&before, &tree(ws.root()), "a second import");
}

#[test]
fn a_folder_without_gemini_md_is_named_and_nothing_is_written() {
    let ws = Ws::init();
    let empty = tempfile::tempdir().unwrap();
    let before = tree(ws.root());
    let out = ws.run(&["import", "--from", "gemini", empty.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(4), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("no GEMINI.md here"),
        "{}",
        text(&out.stderr)
    );
    assert_same(&before, &tree(ws.root()), "a refused import");
}
