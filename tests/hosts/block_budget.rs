//! The session-start block always ends and always fits: any budget from zero upward, a header
//! that alone is too big, areas by the thousand or thousands of characters long.

use crate::common;

use std::fmt::Write as _;
use std::time::Duration;

use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;

use common::Ws;
use trilogy::config::Config;
use trilogy::ops::session_block::{Budget, assemble};
use trilogy::ops::{self, CheckpointInput, DecisionInput, ProjectInput, SessionInput};
use trilogy::workspace::{Clock, Workspace};

fn today() -> chrono::NaiveDate {
    chrono::NaiveDate::from_ymd_opt(2026, 11, 29).unwrap()
}

/// A workspace with every part of the block present: sections, decisions, sessions in areas.
fn seeded(dir: &std::path::Path) -> Workspace {
    let ws = Workspace::new(
        dir.to_path_buf(),
        Config::default(),
        Clock {
            today: Some(today()),
            now_ms: None,
        },
    );
    ops::init(&ws).unwrap();
    let input = CheckpointInput {
        sessions: (0..6)
            .map(|i| SessionInput {
                done: format!("session {i} 完成了部署脚本; tested"),
                area: Some(["部署", "plugin", "docs"][i % 3].into()),
                open: Some("windows paths".into()),
                next: None,
            })
            .collect(),
        decisions: (0..3)
            .map(|i| DecisionInput {
                choice: format!("choice {i}"),
                over: Some("the other way".into()),
                because: Some("it is simpler".into()),
                ..Default::default()
            })
            .collect(),
        project: vec![ProjectInput {
            section: "State".into(),
            text: Some("the engine works; ".repeat(40)),
            ..Default::default()
        }],
        ..Default::default()
    };
    ops::checkpoint(&ws, "test", &input).unwrap();
    ws
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 64,
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(
            "tests/proptest-regressions/budget.txt",
        ))),
        ..ProptestConfig::default()
    })]

    /// `assemble` returns for every budget, and what it returns fits it (bytes and characters).
    #[test]
    fn the_block_fits_every_budget_from_zero_up(bytes in 0usize..6_000, chars in prop::option::of(0usize..3_000)) {
        let dir = tempfile::tempdir().unwrap();
        let ws = seeded(dir.path());
        let budget = Budget { bytes, chars };
        let block = ws.read(|r| assemble(r, &ws.config, today(), budget, &|| None, &[])).unwrap().value;
        prop_assert!(block.text.len() <= bytes, "{} bytes over a {bytes}-byte budget", block.text.len());
        if let Some(c) = chars {
            prop_assert!(block.text.chars().count() <= c, "{} chars over a {c}-char cap", block.text.chars().count());
        }
    }
}

/// Entries of sibling work trees: `n` of them, each with a body of about `body` bytes (mixed
/// Chinese and English, so bytes and characters differ).
fn siblings(n: usize, body: usize) -> Vec<trilogy::ops::sibling::SiblingEntry> {
    (0..n)
        .map(|i| trilogy::ops::sibling::SiblingEntry {
            branch: Some(format!("feat-{}", i % 4)),
            worktree: format!("/w/feat-{}", i % 4),
            kind: if i % 3 == 0 { "decision" } else { "session" },
            id: format!("{i:012x}"),
            heading: format!("2026-11-{:02} · 部署 {i}", i % 28 + 1),
            body: (0..body.div_ceil(48))
                .map(|k| format!("完成：第 {k} 行 line of sibling entry {i}"))
                .collect::<Vec<_>>()
                .join("\n"),
            date: today(),
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 48,
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(
            "tests/proptest-regressions/budget.txt",
        ))),
        ..ProptestConfig::default()
    })]

    /// Whatever the siblings recorded, and however much: the block still fits its budget, the
    /// sibling section stays within its share, and the ledger counts what it names.
    #[test]
    fn sibling_entries_never_push_the_block_over_its_budget(
        n in 0usize..80,
        body in 0usize..5_000,
        bytes in 0usize..24_000,
        chars in prop::option::of(0usize..12_000),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let ws = seeded(dir.path());
        let budget = Budget { bytes, chars };
        let sib = siblings(n, body);
        let block = ws.read(|r| assemble(r, &ws.config, today(), budget, &|| None, &sib)).unwrap().value;
        prop_assert!(block.text.len() <= bytes, "{} bytes over a {bytes}-byte budget", block.text.len());
        if let Some(c) = chars {
            prop_assert!(block.text.chars().count() <= c, "{} chars over a {c}-char cap", block.text.chars().count());
        }
        let share = bytes.min(chars.unwrap_or(usize::MAX)) / 10;
        prop_assert!(block.ledger.sibling_bytes <= share, "{} sibling bytes over a {share}-byte share", block.ledger.sibling_bytes);
        prop_assert!(block.ledger.sibling_entries <= n);
        if block.ledger.sibling_entries > 0 {
            prop_assert!(block.text.contains("[feat-"), "counted but not shown");
        }
    }
}

/// Every budget below the point where the whole block fits, one byte at a time: the search for
/// a fitting block must end for each of them (the old loop stalled once its room reached 7).
#[test]
fn every_small_budget_ends_and_fits() {
    let dir = tempfile::tempdir().unwrap();
    let ws = seeded(dir.path());
    for bytes in 0..1_200 {
        let budget = Budget { bytes, chars: None };
        let block = ws
            .read(|r| assemble(r, &ws.config, today(), budget, &|| None, &[]))
            .unwrap()
            .value;
        assert!(block.text.len() <= bytes, "{bytes}: {}", block.text.len());
    }
}

/// Run the binary with a hang guard: a block that never returns fails the test instead of
/// blocking the suite.
fn run_guarded(mut cmd: std::process::Command, stdin: &str) -> std::process::Output {
    use std::io::Write;
    cmd.stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    let started = std::time::Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            return child.wait_with_output().unwrap();
        }
        if started.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            panic!("trilogy did not return within two minutes: it hangs");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn inject_with_a_tiny_character_cap_returns() {
    let ws = Ws::init();
    ws.ok(&["checkpoint", "--session-done", "wired the hook; tested"]);
    let mut cmd = ws.std_cmd();
    cmd.args(["inject", "--max-chars", "100"]);
    let out = run_guarded(cmd, "");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.trim_end().chars().count() <= 100, "{text}");
}

#[test]
fn ten_thousand_hand_written_areas_keep_the_session_start_short() {
    let ws = Ws::init();
    let mut sessions = String::from("# SESSIONS\n\n");
    for i in 0..10_000 {
        let _ = write!(
            sessions,
            "## 2026-11-{:02} · area number {i} with a long name\n\n完成：thing {i}\n\n",
            1 + i % 28
        );
    }
    ws.write("SESSIONS.md", &sessions);
    let mut cmd = ws.std_cmd();
    cmd.args(["hook", "claude", "session-start"]);
    let out = run_guarded(cmd, &common::session_start_payload(&ws, "s1"));
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!text.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
    // the area line names at most a handful of areas and counts the rest
    assert!(
        text.contains("more areas") || text.contains("个区域"),
        "{}",
        &text[..text.len().min(2_000)]
    );
    assert!(text.len() < 200_000, "{} bytes", text.len());
}

#[test]
fn an_area_of_twelve_thousand_characters_keeps_the_session_start_within_budget() {
    let ws = Ws::init();
    let area = "x".repeat(12_000);
    let batch = serde_json::json!({"sessions": [{"done": "did it; tested", "area": area}]});
    // refused at the checkpoint (a name that long is a mistake) or accepted: either way the
    // next session start must return, and within its budget
    let _ = ws.run_stdin(&["checkpoint", "-"], &batch.to_string());
    let sessions = format!(
        "{}\n## 2026-11-28 · {area}\n\n完成：hand written\n",
        ws.read("SESSIONS.md").trim_end()
    );
    ws.write("SESSIONS.md", &sessions);
    let mut cmd = ws.std_cmd();
    cmd.args(["inject", "--max-chars", "2000"]);
    let out = run_guarded(cmd, "");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).chars().count() <= 2_001);
}
