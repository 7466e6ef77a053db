//! The fallbacks of a system that cannot exchange two names in one step or rename without
//! replacing (Windows), run here by pretending Linux lacks both (`TRILOGY_WITHOUT`, a fault
//! point): a store is still born once (published by a hard link), and a reindex rebuilt in the
//! index's own folder, in one commit, leaves every search running meanwhile a whole answer.

use crate::common;

use common::{Ws, text};

const WITHOUT: &str = "exchange,no-replace";

fn run(ws: &Ws, args: &[&str]) -> std::process::Output {
    ws.cmd()
        .env("TRILOGY_WITHOUT", WITHOUT)
        .args(args)
        .output()
        .unwrap()
}

fn ok(ws: &Ws, args: &[&str]) -> String {
    let o = run(ws, args);
    assert!(o.status.success(), "trilogy {args:?}: {}", text(&o.stderr));
    text(&o.stdout)
}

#[test]
fn without_exchange_a_store_is_born_once_and_a_reindex_leaves_every_search_an_answer() {
    let ws = Ws::new();
    // four processes race to make the store: each publishes by hard link, one store results
    let racers: Vec<_> = (0..4)
        .map(|i| {
            ws.std_cmd()
                .env("TRILOGY_WITHOUT", WITHOUT)
                .args(["checkpoint", "--session-done"])
                .arg(format!("racer {i} lighthouse keeper; tested"))
                .spawn()
                .unwrap()
        })
        .collect();
    for mut r in racers {
        assert!(r.wait().unwrap().success());
    }
    let sessions = ok(&ws, &["read", "SESSIONS.md"]);
    for i in 0..4 {
        assert!(
            sessions.contains(&format!("racer {i} lighthouse")),
            "{sessions}"
        );
    }
    let store_dir = ws.root().join(".trilogy");
    let left: Vec<_> = std::fs::read_dir(&store_dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".private") || n.ends_with(".tmp"))
        .collect();
    assert!(left.is_empty(), "private stores left behind: {left:?}");

    // searches in other processes while the index is rebuilt again and again, in its folder
    ok(&ws, &["search", "lighthouse"]);
    let index = store_dir.join("index");
    let identity =
        |p: &std::path::Path| trilogy::base::stat::inode(p, &std::fs::metadata(p).unwrap());
    let before = identity(&index);
    let searching = std::sync::atomic::AtomicBool::new(true);
    std::thread::scope(|s| {
        let searcher = s.spawn(|| {
            let mut answered = 0;
            while searching.load(std::sync::atomic::Ordering::Acquire) || answered < 5 {
                let hits: serde_json::Value =
                    serde_json::from_str(&ok(&ws, &["search", "lighthouse", "--json"])).unwrap();
                let n = hits["hits"].as_array().map_or(0, Vec::len);
                assert_eq!(n, 4, "a search during a reindex found {n} of 4: {hits}");
                answered += 1;
            }
            answered
        });
        for _ in 0..8 {
            ok(&ws, &["reindex"]);
        }
        searching.store(false, std::sync::atomic::Ordering::Release);
        assert!(searcher.join().unwrap() >= 5);
    });
    assert_eq!(
        identity(&index),
        before,
        "the index folder was replaced, not rebuilt in place"
    );
    // nothing of the rebuilds is left beside the index, and doctor finds the store whole
    let beside: Vec<_> = std::fs::read_dir(&store_dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".build-") || n.contains(".old-"))
        .collect();
    assert!(beside.is_empty(), "left beside the index: {beside:?}");
    let doctor = run(&ws, &["doctor"]);
    assert!(doctor.status.success(), "{}", text(&doctor.stdout));
}
