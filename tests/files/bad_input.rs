//! A corpus of hostile memory files (`tests/bad_input/<case>.<FILE>.md`): each one is either
//! refused with its file and line, left byte for byte, with the other files still working —
//! or absorbed, re-rendered once, and stable from then on. Beside them, hostile checkpoint
//! batches (`tests/bad_input/<case>.batch.json`): each is refused with the field named, and
//! nothing is written.

use crate::common;

use std::path::Path;

use common::{Ws, headings, text};

enum Expect {
    /// Left untouched and reported at this line, with this reason.
    Refused(usize, &'static str),
    /// Absorbed, and left as it is by reads; the check runs on the file once a repair
    /// (`doctor --fix`) has written what the store would.
    Recovered(fn(&str)),
    /// Read and recorded as usual, with the unclosed fence at this line named by `status`.
    Unclosed(usize),
}

fn none(_: &str) {}

const CASES: [(&str, Expect); 32] = [
    ("invalid_utf8.SESSIONS.md", Expect::Refused(7, "UTF-8")),
    ("conflict_block.SESSIONS.md", Expect::Refused(6, "conflict")),
    (
        "half_conflict_start.SESSIONS.md",
        Expect::Refused(7, "conflict"),
    ),
    (
        "half_conflict_end.SESSIONS.md",
        Expect::Refused(7, "conflict"),
    ),
    ("unclosed_fence_swallowing.SESSIONS.md", Expect::Unclosed(6)),
    ("unclosed_html_comment.SESSIONS.md", Expect::Unclosed(6)),
    (
        "nul_bytes.SESSIONS.md",
        Expect::Recovered(|s| assert!(s.contains("完成：a\0b"))),
    ),
    (
        "crlf_mixed.SESSIONS.md",
        Expect::Recovered(|s| assert!(!s.contains('\r') && s.contains("完成：crlf\n"))),
    ),
    (
        "bom.SESSIONS.md",
        Expect::Recovered(|s| assert!(s.starts_with("\u{feff}# SESSIONS"))),
    ),
    (
        "heading_in_fence.SESSIONS.md",
        Expect::Recovered(|s| {
            assert!(
                s.contains("```\n## not an entry\n```") && s.matches("## 2026-01-02").count() == 1
            )
        }),
    ),
    (
        "heading_in_tilde_fence.SESSIONS.md",
        Expect::Recovered(|s| assert!(s.contains("~~~md\n## not an entry\n~~~"))),
    ),
    (
        "unclosed_fence_at_end.SESSIONS.md",
        // kept as written: at the end of the file it hides nothing
        Expect::Recovered(|s| assert!(s.ends_with("```\nnever closed\n"))),
    ),
    (
        "setext_in_body.SESSIONS.md",
        Expect::Recovered(|s| assert!(s.contains("完成：a line\n---\nmore"))),
    ),
    (
        "empty_heading.SESSIONS.md",
        Expect::Recovered(|s| assert!(s.contains("完成：no title"))),
    ),
    (
        "only_prose.SESSIONS.md",
        Expect::Recovered(|s| assert!(s.contains("No headings at all."))),
    ),
    (
        "empty_file.SESSIONS.md",
        Expect::Recovered(|s| assert!(s.starts_with("# SESSIONS\n"), "rendered again: {s}")),
    ),
    ("only_whitespace.SESSIONS.md", Expect::Recovered(none)),
    (
        "duplicate_entries.SESSIONS.md",
        // two entries written alike are two entries: both stay
        Expect::Recovered(|s| assert_eq!(s.matches("完成：same").count(), 2)),
    ),
    (
        "pointer_in_middle.SESSIONS.md",
        // a person's text, kept where it stands; only the pointer trilogy keeps at the end
        // is re-counted, and only when the archive changes
        Expect::Recovered(|s| {
            assert!(s.contains("完成：a\n> 更早的会话条目已归档到 3 条（old）。\n\n## 2026-01-02"))
        }),
    ),
    (
        "legacy_pointer.SESSIONS.md",
        Expect::Recovered(|s| {
            assert!(s.contains("Done: legacy") && s.ends_with("归档到 `SESSIONS-archive.md`\n"))
        }),
    ),
    (
        "english_labels.SESSIONS.md",
        Expect::Recovered(|s| assert!(s.contains("Done: english\nOpen: more\nNext: go"))),
    ),
    (
        "undated_headings.SESSIONS.md",
        Expect::Recovered(|s| {
            assert_eq!(
                headings(s),
                ["2026-01-03", "a note without a date", "2026-01-01"]
            )
        }),
    ),
    (
        "deep_quotes.SESSIONS.md",
        Expect::Recovered(|s| assert!(s.contains(" deep"))),
    ),
    (
        "tabs_trailing_spaces.SESSIONS.md",
        Expect::Recovered(|s| assert!(s.contains("完成：tabs\there  \n\tindented"))),
    ),
    (
        "html_block.SESSIONS.md",
        Expect::Recovered(|s| assert!(s.contains("<details>"))),
    ),
    (
        "heading_levels.SESSIONS.md",
        Expect::Recovered(|s| assert!(s.contains("### sub\n#### subsub"))),
    ),
    (
        "long_line.SESSIONS.md",
        Expect::Recovered(|s| assert!(s.len() > 900_000)),
    ),
    (
        "same_date_many.SESSIONS.md",
        Expect::Recovered(|s| {
            let first = s.find("完成：entry 0\n").unwrap();
            let last = s.find("完成：entry 9999\n").unwrap();
            assert!(first < last, "file order kept within one date");
            assert_eq!(headings(s).len(), 10_000);
        }),
    ),
    (
        "duplicate_sections.PROJECT.md",
        Expect::Recovered(|s| assert!(s.contains("first") && s.contains("second"))),
    ),
    (
        "unknown_sections_only.PROJECT.md",
        Expect::Recovered(|s| assert!(s.contains("## Goals\n\nship it"))),
    ),
    (
        "legacy_english.PROJECT.md",
        Expect::Recovered(|s| {
            assert!(s.contains("## 这是什么\n\nA thing.") && s.contains("## 现状\n\nnone yet"))
        }),
    ),
    (
        "superseded_marker.DECISIONS.md",
        Expect::Recovered(|s| assert!(s.contains("已被取代：2026-01-02 — new"))),
    ),
];

fn target(name: &str) -> &str {
    let stem = name.strip_suffix(".md").unwrap();
    let kind = stem.rsplit('.').next().unwrap();
    match kind {
        "SESSIONS" => "SESSIONS.md",
        "PROJECT" => "PROJECT.md",
        "DECISIONS" => "DECISIONS.md",
        other => panic!("unknown target {other}"),
    }
}

/// Checkpoint batches that must be refused, with what the error must say.
const BATCHES: [(&str, &str); 8] = [
    (
        "nul_in_done.batch.json",
        "sessions[0].done: holds a NUL character (U+0000) at column 15; remove it",
    ),
    (
        "escape_in_choice.batch.json",
        "decisions[0].choice: holds an escape character (U+001B) at column 16",
    ),
    (
        "lone_cr_in_section.batch.json",
        "project[0].text: holds a carriage return that is not part of a CRLF line ending (U+000D) at column 11",
    ),
    (
        "bell_in_area.batch.json",
        "sessions[0].area: holds a control character (U+0007) at column 3",
    ),
    (
        "next_line_in_notes.batch.json",
        "notes: holds a control character (U+0085) at column 12",
    ),
    (
        "delete_in_open.batch.json",
        "sessions[0].open: holds a delete character (U+007F) at line 2 column 5",
    ),
    (
        "huge_area.batch.json",
        "sessions[0].area is 12000 characters long; the limit is 64: an area is a short name like `deploy`",
    ),
    (
        "long_decision_area.batch.json",
        "decisions[0].area is 65 characters long; the limit is 64",
    ),
];

fn corpus(dir: &Path, suffix: &str) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(suffix))
        .collect()
}

#[test]
fn every_corpus_batch_is_refused_with_its_field_and_writes_nothing() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/bad_input");
    assert_eq!(
        corpus(&dir, ".batch.json").len(),
        BATCHES.len(),
        "every corpus batch has an expectation"
    );
    let ws = Ws::init();
    ws.ok(&["checkpoint", "--session-done", "before; tested"]);
    let before = ws.snapshot();
    let events = ws.event_count();
    for (name, needle) in BATCHES {
        let batch = std::fs::read_to_string(dir.join(name)).unwrap();
        let out = ws.run_stdin(&["checkpoint"], &batch);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(3), "{name}: {err}");
        assert!(err.contains(needle), "{name}: {err}");
        assert!(err.len() < 1000, "{name}: the error stays short: {err}");
        assert_eq!(ws.snapshot(), before, "{name}: no file changed");
        assert_eq!(ws.event_count(), events, "{name}: nothing was stored");
    }
    for f in ["SESSIONS.md", "DECISIONS.md", "PROJECT.md"] {
        assert!(
            !std::fs::read(ws.path(f)).unwrap().contains(&0),
            "{f} stays text for git"
        );
    }
}

#[test]
fn every_corpus_file_is_refused_precisely_or_absorbed_stably() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/bad_input");
    let on_disk = corpus(&dir, ".md").len();
    assert_eq!(on_disk, CASES.len(), "every corpus file has an expectation");
    for (name, expect) in CASES {
        let ws = Ws::init();
        let file = target(name);
        let bytes = std::fs::read(dir.join(name)).unwrap();
        std::fs::write(ws.path(file), &bytes).unwrap();
        // saved a while ago (a file emptied moments ago is left alone: see tests/files/sync.rs)
        let saved = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
        std::fs::File::options()
            .write(true)
            .open(ws.path(file))
            .unwrap()
            .set_modified(saved)
            .unwrap();
        let out = ws.run(&["status"]);
        assert!(out.status.success(), "{name}: {}", text(&out.stderr));
        match expect {
            Expect::Refused(line, reason) => {
                let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
                assert!(
                    all.contains(&format!("{file}:{line}:")) && all.contains(reason),
                    "{name}: {all}"
                );
                assert_eq!(
                    std::fs::read(ws.path(file)).unwrap(),
                    bytes,
                    "{name}: left byte for byte"
                );
                let args: &[&str] = match file {
                    "SESSIONS.md" => &["checkpoint", "--session-done", "x; tested"],
                    "PROJECT.md" => &["checkpoint", "--section", "坑", "--text", "x"],
                    _ => &["checkpoint", "--decision", "x"],
                };
                let w = ws.run(args);
                assert_eq!(w.status.code(), Some(5), "{name}: a write to it is refused");
                assert_eq!(
                    std::fs::read(ws.path(file)).unwrap(),
                    bytes,
                    "{name}: still untouched"
                );
                let other = if file == "DECISIONS.md" {
                    &["checkpoint", "--session-done", "y; tested"][..]
                } else {
                    &["checkpoint", "--decision", "y"][..]
                };
                assert!(
                    ws.run(other).status.success(),
                    "{name}: the other files keep working"
                );
            }
            Expect::Unclosed(line) => {
                let all = text(&out.stdout);
                assert!(
                    all.contains(&format!("{file}:{line}:")) && all.contains("never closed"),
                    "{name}: {all}"
                );
                assert_eq!(
                    std::fs::read(ws.path(file)).unwrap(),
                    bytes,
                    "{name}: read only"
                );
                ws.ok(&["checkpoint", "--session-done", "on top; tested"]);
                let old = String::from_utf8(bytes.clone()).unwrap();
                let now = ws.read(file);
                let first = old.find("\n## ").unwrap() + 1;
                let (above, below) = old.split_at(first);
                assert!(
                    now.starts_with(above)
                        && now.ends_with(below)
                        && now.contains("on top; tested"),
                    "{name}: the new entry goes on top and nothing else moves:\n{now}"
                );
                assert_eq!(
                    headings(&now[..now.len() - below.len()]).len(),
                    1,
                    "{name}: {now}"
                );
            }
            Expect::Recovered(check) => {
                assert_eq!(
                    std::fs::read(ws.path(file)).unwrap(),
                    bytes,
                    "{name}: a read leaves the file as it is"
                );
                let fixed = ws.run(&["doctor", "--fix"]);
                eprintln!(
                    "{name}: doctor --fix: {}{}",
                    text(&fixed.stdout),
                    text(&fixed.stderr)
                );
                let rendered = ws.read(file);
                check(&rendered);
                let first = ws.snapshot();
                ws.ok(&["status"]);
                assert_eq!(ws.snapshot(), first, "{name}: stable after one pass");
                std::fs::remove_dir_all(ws.root().join(".trilogy")).unwrap();
                ws.ok(&["status"]);
                assert_eq!(
                    ws.snapshot(),
                    first,
                    "{name}: a rebuild renders the same bytes"
                );
            }
        }
    }
}

#[test]
fn a_truncated_store_is_a_clear_error_and_deleting_it_recovers() {
    let ws = Ws::init();
    ws.ok(&["checkpoint", "--session-done", "before the damage; tested"]);
    let store = ws.root().join(".trilogy/store.redb");
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(&store)
        .unwrap();
    f.set_len(100).unwrap();
    drop(f);
    let out = ws.run(&["status"]);
    assert_eq!(out.status.code(), Some(8), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("store.redb"),
        "{}",
        text(&out.stderr)
    );
    std::fs::remove_dir_all(ws.root().join(".trilogy")).unwrap();
    ws.ok(&["status"]);
    assert!(ws.read("SESSIONS.md").contains("before the damage"));
}

#[test]
fn a_fifty_megabyte_archive_is_absorbed() {
    let ws = Ws::init();
    let mut text = String::from("# SESSIONS ARCHIVE\n\n");
    let line =
        "完成：an old entry with enough text to weigh something, measured and verified by hand\n";
    let mut i = 0;
    while text.len() < 50 * 1024 * 1024 {
        text.push_str(&format!(
            "## 2020-01-{:02}\n{line}{line}{line}{line}\n",
            i % 28 + 1
        ));
        text.push_str(&format!("id {i}\n\n"));
        i += 1;
    }
    std::fs::write(ws.path("SESSIONS-archive.md"), &text).unwrap();
    let out = ws.run(&["status", "--json"]);
    assert!(out.status.success(), "{}", common::text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["sessions_archived"], i as u64);
    // the pointer line counting them is written by the next command that records something
    ws.ok(&["checkpoint", "--session-done", "after the import; tested"]);
    assert!(ws.read("SESSIONS.md").contains(&format!("归档到 {i} 条")));
}
