//! The laws of the projection, over hostile text: `parse(render(d)) == d`, rendering is
//! idempotent, a store rebuilt from its own files renders them byte for byte, and absorbing
//! unedited files changes nothing.

use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;
use proptest::test_runner::TestCaseError;

use trilogy::config::Config;
use trilogy::markdown::{Block, Doc, POINTER_PREFIXES, parse, render, safe_body};
use trilogy::model::FileKind;
use trilogy::ops::{self, CheckpointInput, DecisionInput, ProjectInput, SessionInput};
use trilogy::workspace::{Clock, Workspace};

fn fragment() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("## looks like a heading".to_string()),
        Just("##".to_string()),
        Just("# h1".to_string()),
        Just("```".to_string()),
        Just("```rust".to_string()),
        Just("~~~".to_string()),
        Just("---".to_string()),
        Just("===".to_string()),
        Just("text under".to_string()),
        Just("\r\n".to_string()),
        Just("\r".to_string()),
        Just("\n".to_string()),
        Just("\n\n".to_string()),
        Just("沙箱禁止命名管道".to_string()),
        Just("😀 emoji".to_string()),
        Just("".to_string()),
        Just("  ".to_string()),
        Just("> quoted".to_string()),
        Just(format!("{} 3 条", POINTER_PREFIXES[0])),
        Just("<!-- open comment".to_string()),
        Just("<div>".to_string()),
        Just("<<<<<<< HEAD".to_string()),
        Just(">>>>>>> theirs".to_string()),
        Just("- item".to_string()),
        Just("    indented code".to_string()),
        Just("完成：fake label".to_string()),
        Just("已被取代：fake marker".to_string()),
        "[a-zA-Z0-9 *_`#>-]{0,12}",
        "[一-龥]{1,6}",
    ]
}

fn hostile() -> impl Strategy<Value = String> {
    prop::collection::vec(
        (
            fragment(),
            prop_oneof![Just(""), Just("\n"), Just(" "), Just("\r\n")],
        ),
        0..8,
    )
    .prop_map(|parts| {
        parts
            .into_iter()
            .map(|(f, sep)| format!("{f}{sep}"))
            .collect()
    })
}

/// Hostile text a checkpoint accepts: a carriage return outside a CRLF is refused there (see
/// `tests/files/bad_input.rs`), so here it becomes a line feed.
fn recordable() -> impl Strategy<Value = String> {
    hostile().prop_map(|s| {
        let mut out = String::with_capacity(s.len());
        let mut chars = s.chars().peekable();
        while let Some(c) = chars.next() {
            out.push(if c == '\r' && chars.peek() != Some(&'\n') {
                '\n'
            } else {
                c
            });
        }
        out
    })
}

fn doc() -> impl Strategy<Value = Doc> {
    let preamble = prop_oneof![
        Just(String::new()),
        Just("# SESSIONS\n\n> 只往最上面加\n>\n> ```\n> ## YYYY-MM-DD\n> ```".to_string()),
        Just("# PROJECT\n\nfree prose".to_string()),
    ];
    let block = (hostile(), hostile(), any::<bool>()).prop_map(|(h, b, gap)| {
        let heading = trilogy::markdown::one_line(&h);
        let body = safe_body(&b);
        let body = if gap && !body.is_empty() {
            format!("\n{body}")
        } else {
            body
        };
        Block::new(heading, body)
    });
    (preamble, prop::collection::vec(block, 0..6))
        .prop_map(|(preamble, blocks)| Doc { preamble, blocks })
}

fn config() -> ProptestConfig {
    ProptestConfig {
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(
            "tests/proptest-regressions/roundtrip.txt",
        ))),
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn parse_inverts_render(d in doc()) {
        let text = render(&d, None);
        let parsed = parse(&text, true).expect("rendered text parses");
        prop_assert_eq!(&parsed.doc, &d, "text was:\n{}", text);
        prop_assert!(parsed.stripped.is_empty());
    }

    #[test]
    fn render_is_idempotent_and_canonical(d in doc()) {
        let text = render(&d, Some("> 更早的会话条目已归档到 2 条。"));
        prop_assert!(text.ends_with('\n') && !text.ends_with("\n\n"));
        prop_assert!(!text.contains('\r'));
        let parsed = parse(&text, true).unwrap();
        prop_assert_eq!(parsed.stripped.len(), 1);
        prop_assert_eq!(render(&parsed.doc, Some("> 更早的会话条目已归档到 2 条。")), text);
    }

    #[test]
    fn safe_body_keeps_every_visible_character(t in hostile()) {
        let b = safe_body(&t);
        let visible = |s: &str| s.chars().filter(|c| !c.is_whitespace() && *c != '\\' && *c != '`').collect::<String>();
        prop_assert!(visible(&b).contains(&visible(&trilogy::markdown::normalize_newlines(&t))));
    }
}

fn store_config() -> ProptestConfig {
    ProptestConfig {
        cases: 12,
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(
            "tests/proptest-regressions/roundtrip_store.txt",
        ))),
        ..ProptestConfig::default()
    }
}

fn snapshot(ws: &Workspace) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<(String, Vec<u8>)> = FileKind::ALL
        .iter()
        .filter_map(|f| {
            std::fs::read(ws.file_path(*f))
                .ok()
                .map(|b| (f.file_name().to_string(), b))
        })
        .collect();
    v.sort();
    v
}

proptest! {
    #![proptest_config(store_config())]

    #[test]
    fn store_rebuilt_from_its_files_renders_them_byte_for_byte(
        sessions in prop::collection::vec((recordable(), recordable(), prop::option::of("[a-z]{1,3}")), 1..6),
        choice in recordable(),
        section_text in recordable(),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let config = Config { sessions_max_entries: 3, sessions_archive_batch: 0, ..Config::default() };
        let ws = Workspace::new(dir.path().to_path_buf(), config.clone(), Clock { today: Some(chrono::NaiveDate::from_ymd_opt(2026, 11, 29).unwrap()), now_ms: None });
        ops::init(&ws).unwrap();
        let input = CheckpointInput {
            sessions: sessions
                .iter()
                .map(|(d, n, a)| SessionInput { done: format!("x{d}"), next: Some(n.clone()), area: a.clone(), open: None })
                .collect(),
            decisions: vec![DecisionInput { choice: format!("c {choice}"), because: Some(choice.clone()), ..Default::default() }],
            project: vec![ProjectInput { section: "现状".into(), text: Some(section_text.clone()), ..Default::default() }],
            notes: None,
            user: Vec::new(),
        };
        ops::checkpoint(&ws, "test", &input).unwrap();
        let before = snapshot(&ws);

        // absorbing unedited files is a no-op
        let again = ws.write("test", |_| Ok(())).unwrap();
        prop_assert!(again.report.written.is_empty() && again.report.absorbed.is_empty());
        prop_assert_eq!(snapshot(&ws), before.clone());

        // a fresh store built from the Markdown alone renders the same bytes
        drop(ws);
        std::fs::remove_dir_all(dir.path().join(".trilogy")).unwrap();
        let ws = Workspace::new(dir.path().to_path_buf(), config, Clock::default());
        ws.write("test", |_| Ok(())).unwrap();
        prop_assert_eq!(snapshot(&ws), before);
    }
}

fn raw_input() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        prop::collection::vec(any::<u8>(), 0..300),
        prop::collection::vec(
            prop_oneof![
                fragment().prop_map(String::into_bytes),
                Just(b"## 2026-01-02\n".to_vec()),
                Just(b"\n## heading\n".to_vec()),
                Just(b"\x00".to_vec()),
                Just(b"\xef\xbb\xbf".to_vec()),
                Just(b"\xff".to_vec()),
            ],
            0..20
        )
        .prop_map(|parts| parts.concat()),
    ]
}

proptest! {
    #![proptest_config(config())]

    /// The same property as the cargo-fuzz target in `tests/fuzz/`, run here on every `cargo test`
    /// (the fuzzer itself needs a nightly toolchain).
    #[test]
    fn parser_never_panics_and_what_it_accepts_round_trips(data in raw_input()) {
        for strip in [false, true] {
            if let Ok(p) = trilogy::markdown::parse_bytes(&data, strip) {
                let once = render(&p.doc, None);
                let again = parse(&once, strip).expect("rendered text parses");
                prop_assert_eq!(render(&again.doc, None), once);
            }
        }
    }
}

#[derive(Debug, Clone)]
enum Edit {
    Insert(usize, String),
    Delete(usize),
    Change(usize, String),
    Swap(usize, usize),
}

fn edit() -> impl Strategy<Value = Edit> {
    let line = prop_oneof![
        Just("## 2026-11-20 · hand".to_string()),
        Just("完成：typed by a person".to_string()),
        Just(String::new()),
        Just("free prose".to_string()),
        Just("```".to_string()),
        fragment(),
    ];
    prop_oneof![
        (any::<usize>(), line.clone()).prop_map(|(i, l)| Edit::Insert(i, l)),
        any::<usize>().prop_map(Edit::Delete),
        (any::<usize>(), line).prop_map(|(i, l)| Edit::Change(i, l)),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Edit::Swap(a, b)),
    ]
}

fn apply(text: &str, e: &Edit) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let n = lines.len().max(1);
    match e {
        Edit::Insert(i, l) => lines.insert(i % (lines.len() + 1), l.clone()),
        Edit::Delete(i) if !lines.is_empty() => {
            lines.remove(i % n);
        }
        Edit::Change(i, l) if !lines.is_empty() => lines[i % n] = l.clone(),
        Edit::Swap(a, b) if !lines.is_empty() => lines.swap(a % n, b % n),
        _ => {}
    }
    lines.join("\n") + "\n"
}

fn edit_config() -> ProptestConfig {
    ProptestConfig {
        cases: 16,
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(
            "tests/proptest-regressions/roundtrip_edits.txt",
        ))),
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(edit_config())]

    /// Random line edits to SESSIONS.md between commands: no entry ever leaves the store, and
    /// every entry that leaves the files has an event saying so.
    #[test]
    fn random_hand_edits_never_drop_an_entry_silently(edits in prop::collection::vec(edit(), 1..12)) {
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::new(dir.path().to_path_buf(), Config::default(), Clock { today: Some(chrono::NaiveDate::from_ymd_opt(2026, 11, 29).unwrap()), now_ms: None });
        ops::init(&ws).unwrap();
        let input = CheckpointInput {
            sessions: (0..4).map(|i| SessionInput { done: format!("seeded {i}; tested"), area: None, open: None, next: None }).collect(),
            ..Default::default()
        };
        ops::checkpoint(&ws, "test", &input).unwrap();
        let snapshot = |ws: &Workspace| -> (std::collections::BTreeMap<String, String>, Vec<trilogy::model::Event>) {
            ws.read(|r| {
                let entries = r.all_entries()?.into_iter().map(|e| (e.id, e.state.as_str().to_string())).collect();
                Ok((entries, r.events(usize::MAX)?))
            }).unwrap().value
        };
        let (mut known, _) = snapshot(&ws);
        for e in &edits {
            let path = ws.file_path(FileKind::Sessions);
            let text = std::fs::read_to_string(&path).unwrap();
            std::fs::write(&path, apply(&text, e)).unwrap();
            ws.write("test", |_| Ok(())).unwrap();
            let (now, events) = snapshot(&ws);
            for (id, state) in &known {
                let Some(new_state) = now.get(id) else {
                    return Err(TestCaseError::fail(format!("entry {id} vanished from the store after {e:?}")));
                };
                if new_state != state {
                    let mentioned = events.iter().any(|ev| ev.ids.iter().any(|x| x == id));
                    prop_assert!(mentioned, "entry {} went {} → {} with no event", id, state, new_state);
                }
            }
            known = now;
        }
    }
}
