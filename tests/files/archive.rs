//! The archive at scale: sessions move to `SESSIONS-archive.md` in batches (SESSIONS.md may
//! hold up to `sessions_max_entries + sessions_archive_batch`), every entry stays in exactly one
//! of the two files, newest first across both, with the pointer counting the archive; and a
//! fresh clone of a large memory folder reads back the same entries.

use crate::common;

use common::{Ws, headings, text};

/// `sessions_max_entries = cap`, `sessions_archive_batch = batch`.
fn with_batches(cap: usize, batch: usize) -> Ws {
    let ws = Ws::init();
    std::fs::write(
        ws.root().join("trilogy.toml"),
        format!("sessions_max_entries = {cap}\nsessions_archive_batch = {batch}\n"),
    )
    .unwrap();
    ws
}

fn day(k: usize) -> String {
    let d = chrono::NaiveDate::from_ymd_opt(2026, 1, 1).unwrap() + chrono::Days::new(k as u64);
    d.format("%Y-%m-%d").to_string()
}

fn checkpoint_on(ws: &Ws, date: &str, done: &str) {
    let out = ws
        .cmd()
        .env("TRILOGY_TODAY", date)
        .args(["checkpoint", "--session-done", done])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
}

/// The archive's entry count as the pointer line at the end of SESSIONS.md states it.
fn pointer_count(sessions: &str) -> Option<usize> {
    let last = sessions.trim_end().lines().last()?;
    let rest = last.strip_prefix("> 更早的会话条目已归档到 ")?;
    rest.split(' ').next()?.parse().ok()
}

/// Every session heading, SESSIONS.md first, then the archive.
fn all_headings(ws: &Ws) -> (Vec<String>, Vec<String>) {
    let live = headings(&ws.read("SESSIONS.md"));
    let archived = std::fs::read_to_string(ws.path("SESSIONS-archive.md"))
        .map(|a| headings(&a))
        .unwrap_or_default();
    (live, archived)
}

#[test]
fn sessions_move_to_the_archive_in_batches_and_none_is_lost() {
    let (cap, batch) = (3, 2);
    let ws = with_batches(cap, batch);
    let mut archive_versions = Vec::new();
    let n = 20;
    for k in 0..n {
        checkpoint_on(&ws, &day(k), &format!("entry {k}; tested"));
        let (live, archived) = all_headings(&ws);
        // SESSIONS.md holds cap..=cap+batch; the write that would make it cap+batch+1 moves
        // the oldest down to cap
        let recorded = k + 1;
        let expected_live = if recorded <= cap + batch {
            recorded
        } else {
            cap + (recorded - cap) % (batch + 1)
        };
        assert_eq!(live.len(), expected_live, "after {recorded} checkpoints");
        assert_eq!(live.len() + archived.len(), recorded);
        // newest first across both files, each entry once
        let mut want: Vec<String> = (0..recorded).rev().map(day).collect();
        let mut got: Vec<String> = live.iter().chain(&archived).cloned().collect();
        assert_eq!(got, want, "newest first across SESSIONS.md and the archive");
        got.dedup();
        want.dedup();
        assert_eq!(got.len(), recorded);
        let s = ws.read("SESSIONS.md");
        match archived.len() {
            0 => assert_eq!(pointer_count(&s), None, "no pointer before any archiving"),
            a => assert_eq!(
                pointer_count(&s),
                Some(a),
                "the pointer counts the archive:\n{s}"
            ),
        }
        assert_eq!(
            s.matches("> 更早的会话条目已归档到").count(),
            archived.len().min(1)
        );
        if let Ok(a) = std::fs::read(ws.path("SESSIONS-archive.md"))
            && archive_versions.last() != Some(&a)
        {
            archive_versions.push(a);
        }
    }
    // moves at checkpoints 6, 9, 12, 15, 18: the archive was written five times in twenty
    assert_eq!(archive_versions.len(), (n - cap) / (batch + 1));
    let st = ws.json(&["status"]);
    assert_eq!(st["sessions_live"], cap + (n - cap) % (batch + 1));
    assert_eq!(st["sessions_archived"], n - (cap + (n - cap) % (batch + 1)));
    assert_eq!(st["restorable"], 0);
}

#[test]
fn hand_edits_between_batches_are_kept_through_the_next_move() {
    let (cap, batch) = (3, 3);
    let ws = with_batches(cap, batch);
    for k in 0..5 {
        checkpoint_on(&ws, &day(k), &format!("entry {k}; tested"));
    }
    // a person deletes entry 1, corrects entry 2 and adds one of their own on top
    let s = ws.read("SESSIONS.md");
    let s = s
        .replace(&format!("## {}\n完成：entry 1; tested\n\n", day(1)), "")
        .replace("entry 2; tested", "entry 2, corrected by hand; tested")
        .replacen(
            &format!("## {}\n", day(4)),
            &format!("## {}\n完成：written by hand\n\n## {}\n", day(4), day(4)),
            1,
        );
    ws.write("SESSIONS.md", &s);
    ws.ok(&["status"]);
    // five more checkpoints: the hand-written entry makes six live, the first of these
    // makes seven (past cap + batch) and moves four
    for k in 5..10 {
        checkpoint_on(&ws, &day(k), &format!("entry {k}; tested"));
    }
    let live = ws.read("SESSIONS.md");
    let archive = ws.read("SESSIONS-archive.md");
    let all = format!("{live}\n{archive}");
    for k in (0..10).filter(|k| *k != 1) {
        let want = if k == 2 {
            "entry 2, corrected by hand; tested".to_string()
        } else {
            format!("entry {k}; tested")
        };
        assert_eq!(all.matches(&want).count(), 1, "{want} once:\n{all}");
    }
    assert_eq!(all.matches("written by hand").count(), 1, "{all}");
    assert!(
        !all.contains("entry 1; tested"),
        "the deleted entry stays out"
    );
    assert_eq!(all.matches("entry 2; tested").count(), 0, "{all}");
    let (l, a) = all_headings(&ws);
    assert_eq!(l.len() + a.len(), 10, "nine recorded + one by hand");
    assert_eq!(pointer_count(&live), Some(a.len()));
    let mut dates: Vec<String> = l.iter().chain(&a).cloned().collect();
    let sorted = {
        let mut d = dates.clone();
        d.sort_by(|x, y| y.cmp(x));
        d
    };
    assert_eq!(dates, sorted, "newest first across both files");
    dates.dedup();
    let st = ws.json(&["status"]);
    assert_eq!(
        st["restorable"], 2,
        "the deleted entry and the corrected text"
    );
    assert_eq!(st["sessions_archived"], a.len());
}

/// A memory folder with `live` sessions in SESSIONS.md and `archived` in the archive, written
/// as a person (or another machine) would have committed it.
fn write_large_memory(ws: &Ws, live: usize, archived: usize) {
    let total = live + archived;
    let entry = |k: usize| {
        let d = chrono::NaiveDate::from_ymd_opt(2026, 6, 30).unwrap()
            - chrono::Days::new((k / 4) as u64);
        let area = ["存储", "cli", "同步"][k % 3];
        format!(
            "## {} · {area}\n完成：第 {k} 次会话 fixed `parse_{k}`; tested\n下一步：item {k}",
            d.format("%Y-%m-%d")
        )
    };
    let mut s = String::from("# SESSIONS\n");
    for k in 0..live {
        s.push('\n');
        s.push_str(&entry(k));
        s.push('\n');
    }
    s.push_str(&format!(
        "\n> 更早的会话条目已归档到 {archived} 条（见 `SESSIONS-archive.md`，不会自动注入，需要时用 `memory_read` 读取）。\n"
    ));
    ws.write("SESSIONS.md", &s);
    let mut a = String::from("# SESSIONS ARCHIVE\n");
    for k in live..total {
        a.push('\n');
        a.push_str(&entry(k));
        a.push('\n');
    }
    ws.write("SESSIONS-archive.md", &a);
}

#[test]
fn a_fresh_clone_of_a_large_archive_reads_back_the_same_entries() {
    let ws = with_batches(200, 100);
    write_large_memory(&ws, 250, 5000);
    ws.ok(&["status"]);
    let original = ws.snapshot();
    let read = |w: &Ws| {
        (
            w.json(&["read", "SESSIONS-archive.md", "-n", "100000"]),
            w.json(&["read", "SESSIONS.md", "-n", "1000"]),
        )
    };
    let entries = read(&ws);
    assert_eq!(entries.0["entries"].as_array().map(Vec::len), Some(5000));

    // the clone: the memory folder and the settings, no .trilogy/
    let clone = Ws::new();
    std::fs::create_dir_all(clone.root().join("memory")).unwrap();
    for (name, bytes) in &original {
        std::fs::write(clone.path(name), bytes).unwrap();
    }
    std::fs::copy(
        ws.root().join("trilogy.toml"),
        clone.root().join("trilogy.toml"),
    )
    .unwrap();
    let st = clone.json(&["status"]);
    assert_eq!(st["sessions_live"], 250);
    assert_eq!(st["sessions_archived"], 5000);
    assert_eq!(
        clone.snapshot(),
        original,
        "the first command writes nothing"
    );
    assert_eq!(read(&clone), entries, "the same entries, in the same order");

    // both record the same session: the move happens at the same point, to the same bytes
    for w in [&ws, &clone] {
        for k in 0..51 {
            checkpoint_on(w, "2026-07-01", &format!("after the clone {k}; tested"));
        }
    }
    assert_eq!(clone.snapshot(), ws.snapshot());
    let st = clone.json(&["status"]);
    assert_eq!(st["sessions_live"], 200, "301 live: the oldest 101 moved");
    assert_eq!(st["sessions_archived"], 5101);
    assert!(
        clone
            .read("SESSIONS.md")
            .contains("> 更早的会话条目已归档到 5101 条")
    );
}

#[test]
fn batch_moves_after_an_unusual_archive_edit_keep_it_as_written() {
    let (cap, batch) = (3, 2);
    let ws = with_batches(cap, batch);
    for k in 0..6 {
        checkpoint_on(&ws, &day(k), &format!("entry {k}; tested"));
    }
    // a person lays the archive out their own way: a note under the title, three blank lines
    // between entries, trailing spaces, Windows line ends
    let archive = ws.read("SESSIONS-archive.md");
    assert!(
        archive.contains(&day(0)),
        "the first move happened:\n{archive}"
    );
    let unusual = archive
        .replacen("\n\n## ", "\n\nkept note under the title\n\n\n\n## ", 1)
        .replace("; tested\n\n## ", "; tested   \n\n\n\n## ")
        .replace('\n', "\r\n");
    std::fs::write(ws.path("SESSIONS-archive.md"), &unusual).unwrap();
    ws.ok(&["status"]);
    let absorbed = std::fs::read_to_string(ws.path("SESSIONS-archive.md")).unwrap();
    assert_eq!(absorbed, unusual, "the edit is kept as written");
    for k in 6..16 {
        checkpoint_on(&ws, &day(k), &format!("entry {k}; tested"));
        let now = std::fs::read_to_string(ws.path("SESSIONS-archive.md")).unwrap();
        // the moved entries go on top, the rest of the file stays byte for byte
        let old_tail = &unusual[unusual.find("\r\n## ").unwrap()..];
        assert!(now.ends_with(old_tail), "after checkpoint {k}:\n{now}");
        assert!(now.contains("kept note under the title\r\n\r\n\r\n\r\n## "));
        assert!(!now.replace("\r\n", "").contains('\n'), "CRLF throughout");
    }
    let (live, archived) = all_headings(&ws);
    let want: Vec<String> = (0..16).rev().map(day).collect();
    let got: Vec<String> = live.iter().chain(&archived).cloned().collect();
    assert_eq!(got, want, "newest first across both files, each once");
    let st = ws.json(&["status"]);
    assert_eq!(st["sessions_archived"], archived.len());
    assert_eq!(st["restorable"], 0);
}

#[test]
fn an_archive_entry_placed_out_of_date_order_stays_in_its_place_through_batch_moves() {
    let (cap, batch) = (3, 2);
    let ws = with_batches(cap, batch);
    for k in 1..7 {
        checkpoint_on(&ws, &day(k), &format!("entry {k}; tested"));
    }
    // a person puts an older entry on top of the archive, laid out as trilogy writes it
    let archive = ws.read("SESSIONS-archive.md");
    let edited = archive.replacen(
        "\n\n## ",
        &format!("\n\n## {}\n完成：placed on top by hand\n\n## ", day(0)),
        1,
    );
    std::fs::write(ws.path("SESSIONS-archive.md"), &edited).unwrap();
    ws.ok(&["status"]);
    for k in 7..13 {
        checkpoint_on(&ws, &day(k), &format!("entry {k}; tested"));
        let now = ws.read("SESSIONS-archive.md");
        let tail = &edited[edited.find("\n## ").unwrap()..];
        assert!(now.ends_with(tail), "after checkpoint {k}:\n{now}");
    }
    let (_, archived) = all_headings(&ws);
    assert_eq!(archived.len(), 10, "nine moved and the one by hand");
    assert_eq!(ws.json(&["status"])["sessions_archived"], 10);
}
