//! Entries written on top of the archive are absorbed without reading it whole; every edit,
//! whether that way or the full way (`TRILOGY_WITHOUT=grown-archive`), leaves the same store
//! and the same files.

use crate::common;

use common::{Ws, text};

const FULL: (&str, &str) = ("TRILOGY_WITHOUT", "grown-archive");

fn day(k: usize) -> String {
    let d = chrono::NaiveDate::from_ymd_opt(2026, 1, 1).unwrap() + chrono::Days::new(k as u64);
    d.format("%Y-%m-%d").to_string()
}

fn run(ws: &Ws, full: bool, args: &[&str]) -> String {
    let mut cmd = ws.cmd();
    cmd.env("TRILOGY_TODAY", day(40));
    if full {
        cmd.env(FULL.0, FULL.1);
    }
    let out = cmd.args(args).output().unwrap();
    assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
    text(&out.stdout)
}

/// A workspace whose archive holds entries (moved there in batches).
fn with_archive() -> Ws {
    with_sessions_of(&(0..12).collect::<Vec<_>>())
}

/// A workspace where a session was recorded on each of `days`, the older ones archived.
fn with_sessions_of(days: &[usize]) -> Ws {
    let ws = Ws::init();
    std::fs::write(
        ws.root().join("trilogy.toml"),
        "sessions_max_entries = 3\nsessions_archive_batch = 2\n",
    )
    .unwrap();
    for (n, k) in days.iter().enumerate() {
        let out = ws
            .cmd()
            .env("TRILOGY_TODAY", day(*k))
            .args([
                "checkpoint",
                "--session-done",
                &format!("entry {n}; tested"),
            ])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", text(&out.stderr));
    }
    ws
}

/// What the store holds, as the commands show it: the files, the status, the log without
/// its times.
fn state(ws: &Ws) -> Vec<String> {
    let mut out: Vec<String> = ["SESSIONS.md", "SESSIONS-archive.md", "DECISIONS.md"]
        .iter()
        .map(|f| std::fs::read_to_string(ws.path(f)).unwrap_or_default())
        .collect();
    let root = ws.root().display().to_string();
    out.push(ws.json(&["status"]).to_string().replace(&root, "ROOT"));
    let log = ws.json(&["log", "-n", "1000"]);
    let events = (log.as_array().or_else(|| log["events"].as_array()))
        .cloned()
        .unwrap_or_default();
    assert!(events.len() > 12, "the log holds every checkpoint: {log}");
    out.extend(
        events
            .iter()
            .map(|e| format!("{} {} {} {}", e["op"], e["ids"], e["detail"], e["actor"])),
    );
    out
}

/// Apply `edit` to the archive of two copies of one memory, absorb it the grown way in one
/// (when it can) and the full way in the other, then record one more session in both: the
/// store and the files agree at each step.
fn both_ways(edit: impl Fn(&str) -> String) -> Vec<String> {
    let fast = with_archive();
    let full = with_archive();
    let before = std::fs::read_to_string(fast.path("SESSIONS-archive.md")).unwrap();
    assert_eq!(
        before,
        std::fs::read_to_string(full.path("SESSIONS-archive.md")).unwrap()
    );
    let edited = edit(&before);
    assert_ne!(edited, before, "the edit changes the archive");
    absorbed_alike(&fast, &full, &[("SESSIONS-archive.md", &edited)])
}

/// Write `files` into both copies, absorb them the grown way in `fast` (when it can) and the
/// full way in `full`, then record one more session in both: the store and the files agree at
/// each step, and a read leaves the archive as written. What the commands then show.
fn absorbed_alike(fast: &Ws, full: &Ws, files: &[(&str, &str)]) -> Vec<String> {
    for ws in [fast, full] {
        for (name, text) in files {
            std::fs::write(ws.path(name), text).unwrap();
        }
    }
    run(fast, false, &["status"]);
    run(full, true, &["status"]);
    assert_eq!(state(fast), state(full), "absorbed alike: {files:?}");
    let archive = files.iter().find(|(n, _)| *n == "SESSIONS-archive.md");
    for ws in [fast, full] {
        assert_eq!(
            std::fs::read_to_string(ws.path("SESSIONS-archive.md")).unwrap(),
            archive.unwrap().1,
            "a read leaves the archive as written"
        );
    }
    for (ws, whole) in [(fast, false), (full, true)] {
        run(
            ws,
            whole,
            &["checkpoint", "--session-done", "after; tested"],
        );
    }
    let after = state(fast);
    assert_eq!(after, state(full), "and the next write too: {files:?}");
    after
}

fn on_top(archive: &str, blocks: &str) -> String {
    let at = archive.find("\n## ").unwrap() + 1;
    format!("{}{blocks}{}", &archive[..at], &archive[at..])
}

#[test]
fn entries_on_top_of_the_archive_are_absorbed_as_the_full_read_would() {
    // one entry, newest, as trilogy writes it
    let s = both_ways(|a| on_top(a, &format!("## {}\n完成：added by hand\n\n", day(30))));
    assert!(s[1].contains("added by hand"));
    // two, the same day
    both_ways(|a| {
        let two = format!(
            "## {d}\n完成：first by hand\n\n## {d}\n完成：second by hand\n\n",
            d = day(31)
        );
        on_top(a, &two)
    });
    // the same day as the archive's newest entry
    both_ways(|a| {
        let newest = a[a.find("\n## ").unwrap() + 4..]
            .lines()
            .next()
            .unwrap()
            .to_string();
        on_top(a, &format!("## {newest}\n完成：same day by hand\n\n"))
    });
}

#[test]
fn edits_the_grown_read_cannot_prove_are_absorbed_the_full_way_alike() {
    // older than the archive's newest: its place in the file is not the store's
    both_ways(|a| on_top(a, &format!("## {}\n完成：an old one\n\n", day(0))));
    // not laid out as trilogy writes it
    both_ways(|a| on_top(a, &format!("## {}\n完成：spaced   \n\n\n", day(30))));
    // an entry on top and one further down corrected: the rest is not the last version
    both_ways(|a| {
        on_top(a, &format!("## {}\n完成：on top\n\n", day(30))).replacen(
            "entry 2; tested",
            "entry 2, corrected; tested",
            1,
        )
    });
    // the head changed above the new entry
    both_ways(|a| {
        on_top(a, &format!("## {}\n完成：under a new note\n\n", day(30))).replacen(
            "\n\n## ",
            "\n\na note of mine\n\n## ",
            1,
        )
    });
    // an entry the archive already holds, copied on top
    both_ways(|a| {
        let first = &a[a.find("\n## ").unwrap() + 1..];
        let block = &first[..first.find("\n\n").unwrap() + 2];
        on_top(a, block)
    });
    // the last entry cut short: what looks like the unchanged rest is not
    both_ways(|a| {
        let a = on_top(a, &format!("## {}\n完成：on top again\n\n", day(30)));
        a.replacen("entry 0; tested\n", "entry 0\n", 1)
    });
    // a heading without a date
    both_ways(|a| on_top(a, "## undated by hand\n完成：no date\n\n"));
}

/// Another clone's batch move, as its pull writes both files: SESSIONS.md's oldest `moved`
/// entries go on top of the archive, the pointer line counts them.
#[derive(Default)]
struct Pull {
    /// The days the sessions of both copies were recorded on (default: one a day for 12 days).
    days: Vec<usize>,
    moved: usize,
    /// Entries that clone wrote and moved at once, put above the moved ones (or `under` them).
    extra: String,
    under: bool,
    /// The moved entries in the opposite order (that clone's store had them the other way).
    swap: bool,
    /// The archive edited by hand in an unusual way (and absorbed) before the pull.
    unusual: bool,
}

/// Make the `pull` in two copies of one memory, absorb it the grown way in one (when it can)
/// and the full way in the other, then record one more session in both: the store and the
/// files agree at each step. What the commands then show.
fn pulled_move(pull: Pull) -> Vec<String> {
    let days = match pull.days.is_empty() {
        true => (0..12).collect(),
        false => pull.days.clone(),
    };
    let (fast, full) = (with_sessions_of(&days), with_sessions_of(&days));
    if pull.unusual {
        for (ws, whole) in [(&fast, false), (&full, true)] {
            let a = std::fs::read_to_string(ws.path("SESSIONS-archive.md")).unwrap();
            std::fs::write(
                ws.path("SESSIONS-archive.md"),
                a.replacen("\n\n## ", "\n\n\n\n## ", 2),
            )
            .unwrap();
            run(ws, whole, &["status"]);
        }
    }
    let sessions = std::fs::read_to_string(fast.path("SESSIONS.md")).unwrap();
    let archive = std::fs::read_to_string(fast.path("SESSIONS-archive.md")).unwrap();
    let (head, rest) = sessions.split_at(sessions.find("\n## ").unwrap() + 1);
    let (entries, pointer) = rest.split_at(rest.find("\n> ").unwrap() + 1);
    let blocks: Vec<&str> = entries.split_inclusive("\n\n").collect();
    assert!(
        blocks.len() > pull.moved,
        "SESSIONS.md holds more than the move: {sessions}"
    );
    let (keep, go) = blocks.split_at(blocks.len() - pull.moved);
    let extra = pull.extra.as_str();
    let archived = archive.matches("\n## ").count() + pull.moved + extra.matches("## ").count();
    let mut go = go.to_vec();
    if pull.swap {
        go.reverse();
    }
    let go = go.concat();
    let moving = match pull.under {
        true => format!("{go}{extra}"),
        false => format!("{extra}{go}"),
    };
    let pointer: String = pointer
        .split(|c: char| c.is_ascii_digit())
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join(&archived.to_string());
    let sessions = format!("{head}{}{pointer}", keep.concat());
    let at = archive.find("\n## ").unwrap() + 1;
    let archive = format!("{}{moving}{}", &archive[..at], &archive[at..]);
    absorbed_alike(
        &fast,
        &full,
        &[
            ("SESSIONS.md", &sessions),
            ("SESSIONS-archive.md", &archive),
        ],
    )
}

#[test]
fn a_batch_move_another_clone_made_is_absorbed_as_the_full_read_would() {
    let s = pulled_move(Pull {
        moved: 2,
        ..Pull::default()
    });
    let sessions = std::fs::read_to_string(with_archive().path("SESSIONS.md")).unwrap();
    let live = &sessions[..sessions.rfind("\n> ").unwrap()];
    let oldest = &live[live.rfind("\n## ").unwrap() + 1..];
    let moved = oldest.lines().nth(1).unwrap().to_string();
    assert!(
        s[1].contains(&moved) && !s[0].contains(&moved),
        "{moved} moved: {s:?}"
    );
    // with an entry that clone recorded and moved at once, newer than those it moved
    let s = pulled_move(Pull {
        moved: 2,
        extra: format!("## {}\n完成：theirs, moved at once\n\n", day(39)),
        ..Pull::default()
    });
    assert!(s[1].contains("theirs, moved at once"));
    // below the moved ones, of their day
    pulled_move(Pull {
        moved: 1,
        extra: format!("## {}\n完成：theirs, of the same day\n\n", &oldest[3..13]),
        under: true,
        ..Pull::default()
    });
}

#[test]
fn a_pulled_move_keeps_that_clones_order_and_a_layout_kept_for_the_archive() {
    // entries of one day that clone's store held the other way round
    let s = pulled_move(Pull {
        days: vec![0, 1, 2, 3, 4, 5, 6, 6, 6, 6, 6, 6],
        moved: 2,
        swap: true,
        ..Pull::default()
    });
    assert!(s[1].contains("entry"));
    // an archive a person laid out unusually
    pulled_move(Pull {
        moved: 2,
        unusual: true,
        ..Pull::default()
    });
    // both
    pulled_move(Pull {
        days: vec![0, 1, 2, 3, 4, 5, 6, 6, 6, 6, 6, 6],
        moved: 2,
        swap: true,
        unusual: true,
        extra: format!("## {}\n完成：theirs, on top\n\n", day(39)),
        ..Pull::default()
    });
}

#[test]
fn entries_a_merge_put_among_those_trilogy_last_put_on_top_are_absorbed_as_the_full_read_would() {
    let (fast, full) = (with_archive(), with_archive());
    let archive = std::fs::read_to_string(fast.path("SESSIONS-archive.md")).unwrap();
    // where the archive's first three entries start (the first two: trilogy's last move)
    let next = |from: usize| from + archive[from..].find("\n\n## ").unwrap() + 2;
    let first = archive.find("\n## ").unwrap() + 1;
    let (second, third) = (next(first), next(next(first)));
    let day_of = |at: usize| &archive[at + 3..at + 13];
    let theirs = |at: usize, what: &str| format!("## {}\n完成：theirs, {what}\n\n", day_of(at));
    // another clone's moves, each below the entry of its day
    let merged = format!(
        "{}{}{}{}{}{}",
        &archive[..first],
        &archive[first..second],
        theirs(first, "between"),
        &archive[second..third],
        theirs(second, "below both"),
        &archive[third..]
    );
    let s = absorbed_alike(&fast, &full, &[("SESSIONS-archive.md", &merged)]);
    assert!(s[1].contains("theirs, between") && s[1].contains("theirs, below both"));
    // and with one of trilogy's taken out: the full absorb honours that
    let without = format!("{}{}", &archive[..first], &archive[second..]);
    absorbed_alike(
        &with_archive(),
        &with_archive(),
        &[("SESSIONS-archive.md", &without)],
    );
}

#[test]
fn an_archive_past_what_is_read_whole_is_read_from_the_top_and_left_alone_when_changed_inside() {
    let ws = with_archive();
    let path = ws.path("SESSIONS-archive.md");
    let before = std::fs::read_to_string(&path).unwrap();
    // the archive is past the cap; SESSIONS.md and DECISIONS.md are not
    let capped = |args: &[&str]| {
        let out = (ws.cmd().env("TRILOGY_TODAY", day(40)))
            .env("TRILOGY_WHOLE_READ_CAP", (before.len() / 2).to_string())
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap_or_default()
    };
    let broken = |s: &serde_json::Value| s["unparseable"].as_array().map_or(0, Vec::len);
    let archived = |s: &serde_json::Value| s["sessions_archived"].as_u64().unwrap();
    let at_first = capped(&["status", "--json"]);
    assert_eq!(broken(&at_first), 0, "{at_first}");
    // an entry added on top is read from the top
    let grown = on_top(
        &before,
        &format!("## {}\n完成：added on top; tested\n\n", day(39)),
    );
    std::fs::write(&path, &grown).unwrap();
    let s = capped(&["status", "--json"]);
    assert_eq!(
        (broken(&s), archived(&s)),
        (0, archived(&at_first) + 1),
        "{s}"
    );
    // a change inside is reported, and the archive left as it is while sessions are recorded
    let inside = grown.replacen("entry 1;", "entry one;", 1);
    assert_ne!(inside, grown);
    std::fs::write(&path, &inside).unwrap();
    let s = capped(&["status", "--json"]);
    assert_eq!(broken(&s), 1, "{s}");
    assert!(
        s["unparseable"][0]["reason"]
            .as_str()
            .unwrap()
            .contains("reads whole"),
        "{s}"
    );
    for n in 0..4 {
        capped(&[
            "checkpoint",
            "--session-done",
            &format!("while past the cap {n}; tested"),
        ]);
    }
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        inside,
        "left untouched"
    );
    let sessions = std::fs::read_to_string(ws.path("SESSIONS.md")).unwrap();
    assert_eq!(
        sessions.matches("while past the cap").count(),
        4,
        "{sessions}"
    );
    let doctor = capped(&["doctor", "--json"]).to_string();
    assert!(
        doctor.contains("is past the") && doctor.contains("git checkout --"),
        "{doctor}"
    );
    // put back, it is read again and the sessions waiting move into it
    std::fs::write(&path, &grown).unwrap();
    capped(&["checkpoint", "--session-done", "put back; tested"]);
    let s = capped(&["status", "--json"]);
    assert_eq!(broken(&s), 0, "{s}");
    let doctor = capped(&["doctor", "--json"]).to_string();
    assert!(!doctor.contains("is past the"), "{doctor}");
    let archive = std::fs::read_to_string(&path).unwrap();
    assert!(archive.contains("while past the cap 0"), "{archive}");
    assert!(
        archive.ends_with(&before[before.find("\n## ").unwrap()..]),
        "{archive}"
    );
}
