//! Faithful files: a memory folder written by hand (or by the original plugin) is read without
//! a byte changing, the store rebuilt from it renders it byte for byte, and a checkpoint's diff
//! is the entry it records and nothing else.

use crate::common;

use std::path::Path;
use std::time::{Duration, SystemTime};

use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;

use common::{TODAY, Ws, headings, session_start_payload, text};

/// A file as generated: its bytes, the byte offset of its first entry heading (the insertion
/// point of a new entry), and its line ending.
#[derive(Debug, Clone)]
struct Hand {
    bytes: String,
    first_entry: Option<usize>,
    nl: &'static str,
}

fn gap() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("\n\n".to_string()),
        Just("\n".to_string()),
        Just("\n\n\n\n".to_string()),
        Just("  \n\n".to_string()),
        Just("\n \n\t\n".to_string()),
    ]
}

fn body_line() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("完成：did the thing".to_string()),
        Just("Done: wired the loader".to_string()),
        Just("未完成：Windows paths".to_string()),
        Just("下一步：ship it".to_string()),
        Just("free prose, no label at all".to_string()),
        Just("a hard break follows  ".to_string()),
        Just("  ## indented, so body text".to_string()),
        Just("```\n## inside a fence\n```".to_string()),
        Just("~~~md\n## in a tilde fence\n~~~".to_string()),
        Just("> quoted line".to_string()),
        Just("- item one\n- item two".to_string()),
        Just(String::new()),
        "[a-z]{1,8}( [a-z]{1,8}){0,4}",
        "[数据库迁移测试同步冲突]{2,8}",
    ]
}

fn heading(decision: bool) -> impl Strategy<Value = String> {
    let date = (1u32..13, 1u32..29).prop_map(|(m, d)| format!("2026-{m:02}-{d:02}"));
    if decision {
        prop_oneof![
            4 => (date, "[a-z]{2,8}").prop_map(|(d, c)| format!("{d} — use {c}")).boxed(),
            1 => Just("an undated choice".to_string()).boxed(),
        ]
        .boxed()
    } else {
        prop_oneof![
            3 => date.clone().boxed(),
            2 => date.prop_map(|d| format!("{d} · 网络")).boxed(),
            1 => Just("a note without a date".to_string()).boxed(),
            1 => Just("2026-02-02 — legacy title style".to_string()).boxed(),
        ]
        .boxed()
    }
}

fn entry(decision: bool) -> impl Strategy<Value = (String, Vec<String>)> {
    (
        heading(decision),
        prop::collection::vec(body_line(), 0..4),
        prop_oneof![Just("## "), Just("##  "), Just("##\t")],
    )
        .prop_map(|(h, lines, mark)| (format!("{mark}{h}"), lines))
}

/// The parts every generated file shares: BOM, line ending, preamble, entries (with copies),
/// gaps, an unclosed fence somewhere or not, and what ends the file.
#[allow(clippy::type_complexity)]
fn hand_file(
    preambles: &'static [&'static str],
    decision: bool,
    pointers: &'static [&'static str],
) -> impl Strategy<Value = Hand> {
    (
        any::<bool>(),
        any::<bool>(),
        prop::sample::select(preambles),
        prop::collection::vec((entry(decision), gap(), 0usize..4), 1..6),
        prop::option::weighted(0.2, 0usize..6),
        prop::sample::select(pointers),
        prop_oneof![Just("\n"), Just("\n\n"), Just("")],
    )
        .prop_map(
            move |(bom, crlf, preamble, entries, unclosed, pointer, end)| {
                let mut out = String::from(preamble);
                let mut first_entry = None;
                let mut written: Vec<String> = Vec::new();
                let n = entries.len();
                for (i, ((head, lines), gap, copy)) in entries.into_iter().enumerate() {
                    if !out.is_empty() {
                        out.push_str(if out.ends_with('\n') { "\n" } else { "\n\n" });
                    }
                    // now and then the same entry twice
                    let block = match written.get(copy) {
                        Some(prev) if copy % 2 == 1 => prev.clone(),
                        _ => {
                            let mut b = head.clone();
                            for l in &lines {
                                b.push('\n');
                                b.push_str(l);
                            }
                            if unclosed == Some(i) {
                                b.push_str("\n```\nnever closed\n## 2020-01-01\nhidden");
                            }
                            b
                        }
                    };
                    if first_entry.is_none() {
                        first_entry = Some(out.len());
                    }
                    out.push_str(&block);
                    written.push(block);
                    if i + 1 < n {
                        out.push_str(&gap);
                    }
                }
                if !pointer.is_empty() {
                    out.push_str("\n\n");
                    out.push_str(pointer);
                }
                out.push_str(end);
                let nl = if crlf { "\r\n" } else { "\n" };
                let mut bytes = out.replace('\n', nl);
                let shift = if bom { 3 } else { 0 };
                if bom {
                    bytes.insert(0, '\u{feff}');
                }
                let first_entry = first_entry.map(|o| {
                    let before = out[..o].matches('\n').count();
                    o + before * (nl.len() - 1) + shift
                });
                Hand {
                    bytes,
                    first_entry,
                    nl,
                }
            },
        )
}

const SESSION_PREAMBLES: &[&str] = &[
    "# SESSIONS",
    "# SESSIONS\n\n> 只追加，最新在最上。\n>\n> ```\n> ## YYYY-MM-DD\n> 完成：…\n> ```",
    "",
    "# Sessions\nIMPORTANT: read the last entry first",
];
const DECISION_PREAMBLES: &[&str] = &["# DECISIONS", "# DECISIONS\n\n> append only", ""];
const POINTERS: &[&str] = &[
    "",
    "",
    "> 更早的会话条目已归档到 3 条（`SESSIONS-archive.md`，不会自动注入，可用 `memory_read` 读取）。",
    "> 更早的会话条目已归档到 `SESSIONS-archive.md`",
    "> Older session entries archived: 2 in `SESSIONS-archive.md` (never injected automatically; read it with `memory_read`).",
];

fn project_file() -> impl Strategy<Value = String> {
    let section = prop_oneof![
        Just("## 这是什么\n\nA CLI that syncs dotfiles."),
        Just("## What this is\n\nA thing, in English."),
        Just("## 现状\n\n暂无"),
        Just("## State\n\nnone yet"),
        Just("## Overview\nCustom section, kept."),
        Just("## Build\n\n```sh\nmake test  \n```"),
        Just("## 坑\n\n- never run migrations on prod"),
    ];
    (
        any::<bool>(),
        prop::sample::select(
            &[
                "# PROJECT",
                "# PROJECT\n\nIMPORTANT: never run migrations on prod",
                "",
            ][..],
        ),
        prop::collection::vec((section, gap()), 0..5),
    )
        .prop_map(|(crlf, pre, sections)| {
            let mut out = pre.to_string();
            for (s, g) in sections {
                if !out.is_empty() {
                    out.push_str("\n\n");
                }
                out.push_str(s);
                out.push_str(&g);
                out.truncate(out.trim_end_matches([' ', '\t']).len());
            }
            if !out.ends_with('\n') {
                out.push('\n');
            }
            if crlf { out.replace('\n', "\r\n") } else { out }
        })
}

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 20,
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(
            "tests/proptest-regressions/faithful.txt",
        ))),
        ..ProptestConfig::default()
    }
}

/// Bytes and mtime of a file.
fn state(path: &Path) -> (Vec<u8>, SystemTime) {
    let bytes = std::fs::read(path).unwrap();
    let mtime = std::fs::metadata(path).unwrap().modified().unwrap();
    (bytes, mtime)
}

/// Write a file as saved an hour ago (a person's save, long settled).
fn put(ws: &Ws, file: &str, bytes: &str) {
    let path = ws.path(file);
    std::fs::write(&path, bytes).unwrap();
    let an_hour_ago = SystemTime::now() - Duration::from_secs(3600);
    std::fs::File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_modified(an_hour_ago)
        .unwrap();
}

const FILES: [&str; 3] = ["SESSIONS.md", "DECISIONS.md", "PROJECT.md"];

/// Every read command, run once.
fn every_read(ws: &Ws) {
    ws.ok(&["status"]);
    ws.ok(&["read"]);
    ws.ok(&["read", "SESSIONS.md", "-n", "3", "--json"]);
    ws.run(&["read", "--section", "现状"]);
    ws.ok(&["search", "thing"]);
    ws.ok(&["inject"]);
    ws.ok(&["log"]);
    ws.ok(&["sessions"]);
    ws.run(&["doctor"]);
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn hand_written_files_are_read_as_they_are_rebuilt_byte_for_byte_and_grow_only_by_what_is_recorded(
        sessions in hand_file(SESSION_PREAMBLES, false, POINTERS),
        decisions in hand_file(DECISION_PREAMBLES, true, &[""]),
        project in project_file(),
    ) {
        let ws = Ws::init();
        put(&ws, "SESSIONS.md", &sessions.bytes);
        put(&ws, "DECISIONS.md", &decisions.bytes);
        put(&ws, "PROJECT.md", &project);
        let before: Vec<_> = FILES.iter().map(|f| state(&ws.path(f))).collect();

        // (a) reads leave every byte and every mtime as it was
        every_read(&ws);
        let after: Vec<_> = FILES.iter().map(|f| state(&ws.path(f))).collect();
        for (i, f) in FILES.iter().enumerate() {
            prop_assert!(before[i] == after[i], "{} changed on a read:\n{:?}\n---\n{:?}", f, text(&before[i].0), text(&after[i].0));
        }

        // (b) the store rebuilt from the files alone renders them byte for byte
        std::fs::remove_dir_all(ws.root().join(".trilogy")).unwrap();
        every_read(&ws);
        let rebuilt: Vec<_> = FILES.iter().map(|f| state(&ws.path(f))).collect();
        prop_assert!(rebuilt == before, "a rebuild changed a file");
        for f in ["SESSIONS.md", "DECISIONS.md"] {
            let v = ws.json(&["read", f]);
            let content = v["content"].as_str().unwrap_or_default().to_string();
            let disk = std::fs::read(ws.path(f)).unwrap();
            prop_assert_eq!(content.as_bytes(), disk.as_slice(), "{} as the store renders it", f);
        }

        // (c) a checkpoint's diff is the entry it records, at the insertion point
        ws.ok(&["checkpoint", "--session-done", "faithful write; tested"]);
        let old = &sessions.bytes;
        let now = ws.read("SESSIONS.md");
        let at = sessions.first_entry.unwrap();
        let (above, below) = old.split_at(at);
        prop_assert!(now.starts_with(above) && now.ends_with(below), "only the new entry is added:\n{:?}\n---\n{:?}", old, now);
        let added = &now[above.len()..now.len() - below.len()];
        // a file without a single line break shows no line ending to keep: new lines are LF
        let nl = if old.contains('\n') { sessions.nl } else { "\n" };
        prop_assert!(added.starts_with(&format!("## {TODAY}")) && added.ends_with(&format!("{0}{0}", nl)), "{:?}", added);
        prop_assert!(added.contains("faithful write; tested") && headings(added).len() == 1, "{:?}", added);
        prop_assert_eq!(std::fs::read(ws.path("DECISIONS.md")).unwrap(), decisions.bytes.as_bytes(), "DECISIONS.md untouched");
        // PROJECT.md: at most its legacy English headings take their Chinese names
        let p_now = ws.read("PROJECT.md");
        let p_old: Vec<&str> = project.split('\n').collect();
        let p_new: Vec<&str> = p_now.split('\n').collect();
        prop_assert_eq!(p_old.len(), p_new.len(), "{:?}", p_now);
        for (a, b) in p_old.iter().zip(&p_new) {
            prop_assert!(a == b || (a.starts_with("## ") && b.starts_with("## ")), "{:?} became {:?}", a, b);
        }
    }
}

fn fixture() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/original/memory")
}

#[test]
fn the_original_plugins_folder_opens_with_zero_bytes_changed() {
    let ws = Ws::new();
    std::fs::create_dir_all(ws.root().join("memory")).unwrap();
    let names = [
        "PROJECT.md",
        "DECISIONS.md",
        "SESSIONS.md",
        "SESSIONS-archive.md",
    ];
    for n in names {
        put(&ws, n, &std::fs::read_to_string(fixture().join(n)).unwrap());
    }
    let before: Vec<_> = names.iter().map(|f| state(&ws.path(f))).collect();
    for args in [
        &["status"][..],
        &["read"],
        &["read", "SESSIONS-archive.md"],
        &["search", "同步"],
        &["inject"],
    ] {
        ws.ok(args);
        let now: Vec<_> = names.iter().map(|f| state(&ws.path(f))).collect();
        assert!(now == before, "`trilogy {}` changed a file", args.join(" "));
    }
    // the first write renames the legacy headings: only those lines change
    let project = std::fs::read_to_string(fixture().join("PROJECT.md")).unwrap();
    let sessions = std::fs::read_to_string(fixture().join("SESSIONS.md")).unwrap();
    ws.ok(&["checkpoint", "--session-done", "first write; tested"]);
    let p = ws.read("PROJECT.md");
    let changed: Vec<(&str, &str)> = project
        .lines()
        .zip(p.lines())
        .filter(|(a, b)| a != b)
        .collect();
    assert_eq!(project.lines().count(), p.lines().count(), "{p}");
    assert!(!changed.is_empty(), "legacy headings renamed: {p}");
    for (a, b) in changed {
        assert!(
            a.starts_with("## ") && b.starts_with("## "),
            "{a:?} → {b:?}"
        );
    }
    let s = ws.read("SESSIONS.md");
    let at = sessions.find("\n## ").unwrap() + 1;
    assert!(
        s.starts_with(&sessions[..at]) && s.ends_with(&sessions[at..]),
        "{s}"
    );
    assert_eq!(
        std::fs::read_to_string(ws.path("DECISIONS.md")).unwrap(),
        std::fs::read_to_string(fixture().join("DECISIONS.md")).unwrap()
    );
}

#[test]
fn an_unclosed_fence_is_named_and_the_file_keeps_working() {
    let ws = Ws::init();
    let text_before = "# SESSIONS\n\n## 2026-03-02\n完成：b\n\n## 2026-03-01\n完成：a\n```\nnever closed\n\n## 2026-02-01\n完成：hidden\n";
    put(&ws, "SESSIONS.md", text_before);
    let status = ws.ok(&["status"]);
    assert!(
        status.contains("SESSIONS.md:8:") && status.contains("never closed"),
        "{status}"
    );
    let doctor = text(&ws.run(&["doctor"]).stdout);
    assert!(doctor.contains("SESSIONS.md:8:"), "{doctor}");
    ws.ok(&["checkpoint", "--session-done", "on top; tested"]);
    let now = ws.read("SESSIONS.md");
    assert!(now.starts_with("# SESSIONS\n\n## 2026-11-29\n"), "{now}");
    assert!(
        now.ends_with(&text_before["# SESSIONS\n\n".len()..]),
        "{now}"
    );
    // the session-start block counts the entries that read as entries
    let out = ws
        .cmd()
        .args(["hook", "claude", "session-start"])
        .write_stdin(session_start_payload(&ws, "s-fence"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let block = text(&out.stdout);
    assert!(
        block.contains("on top; tested") && block.contains("完成：b"),
        "{block}"
    );
    let v = ws.json(&["status"]);
    assert_eq!(v["sessions_live"], 3);
}

#[test]
fn duplicates_crlf_and_order_survive_a_write() {
    let ws = Ws::init();
    let text_before = "\u{feff}# SESSIONS\r\n\r\n## 2026-01-01\r\n完成：same\r\n\r\n## 2026-03-01\r\n完成：newer below\r\n\r\n## 2026-01-01\r\n完成：same\r\n";
    put(&ws, "SESSIONS.md", text_before);
    ws.ok(&["status"]);
    assert_eq!(ws.read("SESSIONS.md"), text_before);
    assert_eq!(ws.json(&["status"])["sessions_live"], 3);
    ws.ok(&["checkpoint", "--session-done", "crlf write; tested"]);
    let now = ws.read("SESSIONS.md");
    let expected_tail = &text_before["\u{feff}# SESSIONS\r\n\r\n".len()..];
    assert!(
        now.starts_with("\u{feff}# SESSIONS\r\n\r\n## 2026-11-29\r\n"),
        "{now:?}"
    );
    assert!(now.ends_with(expected_tail), "{now:?}");
    assert!(
        !now.replace("\r\n", "").contains('\n'),
        "new text follows the file's CRLF"
    );
    // deleting one of the copies by hand removes that one only
    let edited = now.replacen("## 2026-01-01\r\n完成：same\r\n\r\n", "", 1);
    put(&ws, "SESSIONS.md", &edited);
    assert_eq!(ws.json(&["status"])["sessions_live"], 3);
}

#[test]
fn prose_outside_entries_is_memory_too() {
    let ws = Ws::init();
    put(
        &ws,
        "PROJECT.md",
        "# PROJECT\n\nIMPORTANT: never run migrations on prod\n\n## 这是什么\n\nA CLI.\n",
    );
    let block = ws.ok(&["inject"]);
    assert!(
        block.contains("IMPORTANT: never run migrations on prod"),
        "{block}"
    );

    // a PROJECT.md with no sections at all is injected whole, and the ledger says so
    put(
        &ws,
        "PROJECT.md",
        "# PROJECT\n\nA tool that keeps dotfiles in sync; run `make test` before pushing.\n",
    );
    let block = ws.ok(&["inject"]);
    assert!(block.contains("run `make test` before pushing"), "{block}");
    assert!(block.contains("PROJECT.md 全文"), "{block}");
    assert!(
        !block.contains("项目记忆还是空的"),
        "prose is not empty: {block}"
    );
    let v = ws.json(&["inject"]);
    assert!(
        v["block"]["ledger"]["project_bytes_shown"]
            .as_u64()
            .unwrap()
            > 0,
        "{v}"
    );

    // DECISIONS.md written as prose: injected within its share, and found by search
    put(
        &ws,
        "DECISIONS.md",
        "# DECISIONS\n\nWe keep permissions in zanzibar-style tuples because audits need them.\n",
    );
    let block = ws.ok(&["inject"]);
    assert!(block.contains("zanzibar-style tuples"), "{block}");
    let hits = ws.json(&["search", "zanzibar"]);
    let first = &hits["hits"][0];
    assert_eq!(first["file"], "DECISIONS.md", "{hits}");
    assert!(
        first["snippet"].as_str().unwrap().contains("zanzibar"),
        "{hits}"
    );
}

#[test]
fn only_the_template_is_empty() {
    let ws = Ws::init();
    assert!(
        ws.ok(&["inject"]).contains("项目记忆还是空的"),
        "the template asks to be filled"
    );
    assert_eq!(ws.json(&["status"])["project_empty"], true);
    put(
        &ws,
        "PROJECT.md",
        "# PROJECT\n\n## Overview\n\nA sync tool.\n\n## Build\n\nmake\n",
    );
    let block = ws.ok(&["inject"]);
    assert!(
        !block.contains("项目记忆还是空的"),
        "custom sections are filled: {block}"
    );
    assert_eq!(ws.json(&["status"])["project_empty"], false);
    put(
        &ws,
        "PROJECT.md",
        "# PROJECT\n\n## 现状\n\n暂无\n\n## Notes\n\nnone yet\n",
    );
    assert_eq!(ws.json(&["status"])["project_empty"], true);
}

#[test]
fn missing_pieces_come_back_in_their_places() {
    // a section the file lacks is inserted where it belongs, not at the end
    for nl in ["\n", "\r\n"] {
        let ws = Ws::init();
        let text_before = "# PROJECT\n\n## 这是什么\n\nA CLI.\n\n## 坑\n\nB.\n".replace('\n', nl);
        put(&ws, "PROJECT.md", &text_before);
        ws.ok(&["checkpoint", "--section", "现状", "--text", "works"]);
        let p = ws.read("PROJECT.md");
        assert_eq!(
            headings(&p.replace('\r', "")),
            ["这是什么", "现状", "坑"],
            "{p:?}"
        );
        assert_eq!(
            p,
            "# PROJECT\n\n## 这是什么\n\nA CLI.\n\n## 现状\n\nworks\n\n## 坑\n\nB.\n"
                .replace('\n', nl)
        );
    }
    // a folder with SESSIONS.md and no PROJECT.md gets PROJECT.md from the template
    let ws = Ws::new();
    std::fs::create_dir_all(ws.root().join("memory")).unwrap();
    put(
        &ws,
        "SESSIONS.md",
        "# SESSIONS\n\n## 2026-01-02\n完成：old work\n",
    );
    ws.ok(&["checkpoint", "--session-done", "new work; tested"]);
    let p = ws.read("PROJECT.md");
    assert_eq!(
        headings(&p),
        ["这是什么", "怎么跑和怎么测", "东西都在哪", "现状", "坑"],
        "{p}"
    );
    assert!(ws.read("SESSIONS.md").contains("完成：old work"));
}
