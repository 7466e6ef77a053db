//! Review dates: written as absolute dates (relative ones resolved against the entry's date,
//! human phrases kept as written and never due), listed by `due`, counted by `status`, shown
//! once in the session-start block, and settled by editing the date, superseding or retiring.

use crate::common;

use common::{TODAY, Ws, text};

/// A command run on another day.
fn on(ws: &Ws, day: &str, args: &[&str]) -> String {
    let out = ws
        .cmd()
        .env("TRILOGY_TODAY", day)
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
    text(&out.stdout)
}

fn due_ids(ws: &Ws, day: &str, extra: &[&str]) -> Vec<String> {
    let mut args = vec!["due", "--json"];
    args.extend_from_slice(extra);
    let v: serde_json::Value = serde_json::from_str(&on(ws, day, &args)).unwrap();
    v.as_array()
        .unwrap()
        .iter()
        .map(|d| d["id"].as_str().unwrap().to_string())
        .collect()
}

fn decide(ws: &Ws, choice: &str, review: &str) -> String {
    let v = ws.json(&["checkpoint", "--decision", choice, "--review", review]);
    v["ids"][0].as_str().unwrap().to_string()
}

/// A line in PROJECT.md's 现状 with a review date.
fn section_due(ws: &Ws, review: &str) {
    ws.ok(&[
        "checkpoint",
        "--section",
        "现状",
        "--line",
        "beta on staging",
        "--review",
        review,
    ]);
}

#[test]
fn review_dates_are_written_absolute_and_phrases_as_written() {
    assert_eq!(TODAY, "2026-11-29", "the dates below are counted from it");
    let ws = Ws::init();
    decide(&ws, "Pin serde to 1.0.200", "3 months");
    decide(&ws, "Keep the Windows build on MSVC", "2周后");
    decide(
        &ws,
        "Use the proxy on 127.0.0.1:7890",
        "when we change machines",
    );
    decide(&ws, "Vendor the protobuf files", "2027-06-01");
    let file = ws.read("DECISIONS.md");
    for line in [
        "复核：2027-02-28",
        "复核：2026-12-13",
        "复核：when we change machines",
        "复核：2027-06-01",
    ] {
        assert!(file.contains(&format!("\n{line}\n")), "{line}:\n{file}");
    }

    let en = Ws::new();
    en.ok(&["--set", "lang=en", "init"]);
    decide(&en, "Retry uploads three times", "in 10 days");
    decide(&en, "Cache thumbnails for a day", "立即");
    let file = en.read("DECISIONS.md");
    assert!(file.contains("\nReview: 2026-12-09\n"), "{file}");
    assert!(file.contains("\nReview: 2026-11-29\n"), "{file}");
}

#[test]
fn due_lists_exactly_what_has_come_and_the_block_carries_it_once() {
    let ws = Ws::init();
    let soon = decide(&ws, "Pin serde to 1.0.200", "2026-12-10");
    let later = decide(&ws, "Vendor the protobuf files", "2027-06-01");
    decide(
        &ws,
        "Use the proxy on 127.0.0.1:7890",
        "when we change machines",
    );
    section_due(&ws, "2027-01-01");

    assert!(due_ids(&ws, TODAY, &[]).is_empty());
    assert_eq!(due_ids(&ws, TODAY, &["--within", "11"]), vec![soon.clone()]);
    assert_eq!(due_ids(&ws, "2026-12-10", &[]), vec![soon.clone()]);
    let key = ws.json(&["read", "--section", "现状"])["key"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(due_ids(&ws, "2027-01-01", &[]), [soon.clone(), key]);
    assert_eq!(due_ids(&ws, "2030-01-01", &[]).len(), 3, "never the phrase");
    assert!(due_ids(&ws, "2030-01-01", &[]).contains(&later));

    // the block lists each once, and its ledger counts them
    let block = on(&ws, "2027-01-01", &["inject"]);
    assert_eq!(block.matches(&soon).count(), 1, "{block}");
    assert!(block.contains("到期复核（2 条"), "{block}");
    assert!(
        block.contains("到期复核 2/2 条"),
        "the ledger counts them: {block}"
    );
    // status and memory_status count them
    let status: serde_json::Value =
        serde_json::from_str(&on(&ws, "2027-01-01", &["status", "--json"])).unwrap();
    assert_eq!(status["due"].as_array().unwrap().len(), 2);
}

#[test]
fn editing_the_date_superseding_or_retiring_settles_it() {
    let ws = Ws::init();
    let a = decide(&ws, "Pin serde to 1.0.200", "2026-12-01");
    let b = decide(&ws, "Vendor the protobuf files", "2026-12-01");
    let c = decide(&ws, "Keep the Windows build on MSVC", "2026-12-01");
    assert_eq!(due_ids(&ws, "2026-12-02", &[]).len(), 3);

    // a person moves one date on by hand: the file stays as written
    let file = ws.read("DECISIONS.md");
    let pos = file
        .find("选择：Pin serde to 1.0.200\n复核：2026-12-01")
        .unwrap();
    let mut edited = file.clone();
    edited.replace_range(
        pos..,
        &file[pos..].replacen("复核：2026-12-01", "复核：2027-12-01", 1),
    );
    ws.write("DECISIONS.md", &edited);
    assert!(!due_ids(&ws, "2026-12-02", &[]).contains(&a));
    assert_eq!(ws.read("DECISIONS.md"), edited, "kept byte for byte");

    ws.ok(&[
        "checkpoint",
        "--decision",
        "Generate the protobuf files in build.rs",
        "--supersedes",
        &b,
    ]);
    ws.ok(&["retire", &c, "--why", "the Windows build is gone"]);
    assert!(due_ids(&ws, "2026-12-02", &[]).is_empty());
}

#[test]
fn a_section_keeps_its_review_line_last() {
    let ws = Ws::init();
    section_due(&ws, "立即");
    ws.ok(&[
        "checkpoint",
        "--section",
        "现状",
        "--line",
        "payments behind a flag",
    ]);
    let section = ws.json(&["read", "--section", "现状"]);
    let text = section["text"]
        .as_str()
        .unwrap_or_else(|| panic!("{section}"));
    assert!(
        text.trim_end().ends_with(&format!("复核：{TODAY}")),
        "{text}"
    );
    assert!(text.contains("payments behind a flag"));
    assert_eq!(due_ids(&ws, TODAY, &[]).len(), 1);
}

#[test]
fn a_review_is_one_short_line() {
    let ws = Ws::init();
    let long = "x".repeat(201);
    for bad in [long.as_str(), "two\nlines"] {
        let batch = serde_json::json!({"decisions": [{"choice": "c", "review": bad}]});
        let out = ws.run_stdin(&["checkpoint", "-"], &batch.to_string());
        assert_eq!(out.status.code(), Some(3));
        assert!(
            text(&out.stderr).contains("decisions[0].review"),
            "{}",
            text(&out.stderr)
        );
    }
}

#[test]
fn a_review_is_checked_for_secrets_like_any_field() {
    let ws = Ws::init();
    for batch in [
        serde_json::json!({"decisions": [{"choice": "c", "review": "AKIAZ3MXQ7RTL5VW2KHD"}]}),
        serde_json::json!({"project": [{"section": "现状", "line": "x", "review": "AKIAZ3MXQ7RTL5VW2KHD"}]}),
    ] {
        let out = ws.run_stdin(&["checkpoint", "-"], &batch.to_string());
        assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
        assert!(
            text(&out.stderr).contains("review"),
            "{}",
            text(&out.stderr)
        );
    }
}

#[test]
fn the_block_shows_the_earliest_due_and_counts_the_rest_as_due_lists_them() {
    let ws = Ws::init();
    // eight decisions due on four days, two a day, and a section due between them
    for k in 0..8 {
        decide(
            &ws,
            &format!("Choice {k} about the cache"),
            &format!("2027-0{}-01", 1 + k / 2),
        );
    }
    section_due(&ws, "2027-01-15");
    let due = due_ids(&ws, "2027-06-01", &[]);
    assert_eq!(due.len(), 9, "{due:?}");
    let block = on(&ws, "2027-06-01", &["inject"]);
    assert!(block.contains("到期复核（9 条"), "{block}");
    assert!(block.contains("另有 4 条：trilogy due"), "{block}");
    assert!(block.contains("到期复核 5/9 条"), "the ledger: {block}");
    // the five `due` lists first, in its order, and none of the rest
    let listed: Vec<&String> = due
        .iter()
        .filter(|id| block.contains(id.as_str()))
        .collect();
    assert_eq!(listed, due.iter().take(5).collect::<Vec<_>>(), "{block}");
}
