//! Importing Cline's memory bank: the dry run, where each piece goes, escaped names, a second
//! import on a later day, secrets, and English section names.

use super::*;

// ---- cline --------------------------------------------------------------------------------

#[test]
fn cline_dry_run_lists_where_each_file_goes_and_writes_nothing() {
    let (_d, root) = fixture("cline");
    let (_ws, v) = dry_run_changes_nothing("cline", &root.join("memory-bank"));
    assert_eq!(item(&v, "projectbrief.md:3")["to"], "PROJECT.md › 这是什么");
    assert_eq!(
        item(&v, "productContext.md:4")["to"],
        "PROJECT.md › 这是什么"
    );
    assert_eq!(
        item(&v, "techContext.md:4")["to"],
        "PROJECT.md › 东西都在哪"
    );
    assert_eq!(
        item(&v, "techContext.md:8")["to"],
        "PROJECT.md › 怎么跑和怎么测"
    );
    assert_eq!(
        item(&v, "systemPatterns.md:4")["to"],
        "PROJECT.md › 东西都在哪"
    );
    let d = item(&v, "systemPatterns.md:7");
    assert_eq!(d["to"], "DECISIONS.md");
    assert_eq!(d["text"], format!("{MTIME_DAY} — Redux Toolkit for state"));
    let s = item(&v, "activeContext.md + progress.md");
    assert_eq!(s["to"], "SESSIONS.md");
    assert_eq!(s["status"], "add");
    assert!(
        skipped(&v, "notes-from-call.md").contains("not one of the memory bank's six core files")
    );
}

/// Regression: a source file named with terminal escape sequences drove the terminal of the
/// person previewing the import; its name is printed with them escaped.
#[test]
fn a_source_file_name_with_terminal_escapes_is_printed_escaped() {
    let (_dir, root) = fixture("cline");
    let bank = root.join("memory-bank");
    let odd = "notes\u{1b}]0;owned\u{7}\u{1b}[2J.md";
    std::fs::rename(bank.join("notes-from-call.md"), bank.join(odd)).unwrap();
    let ws = Ws::init();
    let out = ws.run(&[
        "import",
        "--from",
        "cline",
        bank.to_str().unwrap(),
        "--dry-run",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let shown = text(&out.stdout);
    assert!(
        !shown.contains('\u{1b}') && !shown.contains('\u{7}'),
        "raw escapes printed: {shown:?}"
    );
    assert!(
        shown.contains("notes\\u{1b}]0;owned\\u{7}\\u{1b}[2J.md"),
        "the name, escaped: {shown}"
    );
    // the JSON keeps the name as it is (JSON escapes it itself)
    let v = import(&ws, "cline", &bank, &["--dry-run"]);
    assert!(v.to_string().contains("notes\\u001b]0;owned"), "{v}");
}

#[test]
fn cline_import_puts_each_piece_where_the_mapping_says() {
    let (_d, root) = fixture("cline");
    let ws = Ws::init();
    // the project folder holding memory-bank/ is accepted too
    let v = import(&ws, "cline", &root, &[]);
    assert_eq!(v["added"], 13, "{v:#}");
    let what = section(&ws, "这是什么");
    assert!(
        what.contains("Stockroom is a web app for small warehouses"),
        "{what}"
    );
    assert!(
        what.contains("- Scan a barcode to look up or add an item\n- Track stock levels"),
        "{what}"
    );
    assert!(
        what.contains("lose count when two people edit at once"),
        "{what}"
    );
    assert!(!what.contains("暂无"), "{what}");
    let run = section(&ws, "怎么跑和怎么测");
    assert!(
        run.contains("- `npm install` then `npm run dev`\n- `npm test` runs Jest"),
        "{run}"
    );
    let place = section(&ws, "东西都在哪");
    assert!(place.contains("- React 18 with TypeScript"), "{place}");
    assert!(place.contains("Screens live in `src/screens/`"), "{place}");
    assert!(
        !place.contains("Redux"),
        "a decision went into a section: {place}"
    );
    assert_eq!(
        entry(
            &ws,
            "DECISIONS.md",
            &format!("{MTIME_DAY} — Redux Toolkit for state")
        ),
        format!(
            "## {MTIME_DAY} — Redux Toolkit for state\n选择：Redux Toolkit for state\n放弃：React Context\n因为：many screens share the cart\n"
        )
    );
    assert!(
        entry(
            &ws,
            "DECISIONS.md",
            &format!("{MTIME_DAY} — Barcode decoding in a Web Worker")
        )
        .contains("放弃：on the main thread")
    );
    let s = entry(&ws, "SESSIONS.md", MTIME_DAY);
    assert!(
        s.contains("完成：Finished the Firestore sync; `npm test` passes; Item list and search"),
        "{s}"
    );
    assert!(
        s.contains(
            "未完成：Barcode scanner component; Reports per location; Scanner is slow on iOS Safari"
        ),
        "{s}"
    );
    assert!(s.contains("下一步：Handle damaged barcodes"), "{s}");
    assert!(actors(&ws).iter().any(|a| a == "import:cline"));
}

#[test]
fn cline_second_import_changes_nothing_on_any_later_day() {
    let (_d, root) = fixture("cline");
    let ws = Ws::init();
    import(&ws, "cline", &root.join("memory-bank"), &[]);
    second_import_changes_nothing(&ws, "cline", &root.join("memory-bank"));
}

#[test]
fn cline_secret_in_the_source_is_refused_with_its_location() {
    secret_is_refused("cline", "", "memory-bank/techContext.md");
}

#[test]
fn cline_in_english_uses_the_english_section_names() {
    let (_d, root) = fixture("cline");
    let ws = Ws::new();
    std::fs::write(ws.root().join("trilogy.toml"), "lang = \"en\"\n").unwrap();
    ws.ok(&["init"]);
    let v = import(&ws, "cline", &root, &[]);
    assert_eq!(
        item(&v, "memory-bank/techContext.md:8")["to"],
        "PROJECT.md › Run and test"
    );
    let run = section(&ws, "Run and test");
    assert!(run.contains("`npm test` runs Jest"), "{run}");
    let d = entry(
        &ws,
        "DECISIONS.md",
        &format!("{MTIME_DAY} — Redux Toolkit for state"),
    );
    assert!(d.contains("Chose: Redux Toolkit for state\nOver: React Context\nBecause: many screens share the cart"), "{d}");
}
