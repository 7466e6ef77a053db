//! What a hit holds and how hits rank: the whole entry (long ones cut and marked), words and
//! pairs against single characters, weak hits, ties, questions, and the same text counted once.

use super::*;

/// The hits of `query` (`--json`), asserting the same answer twice in a row.
fn hits(ws: &Ws, args: &[&str]) -> Vec<Value> {
    let mut a = vec!["search"];
    a.extend_from_slice(args);
    let v = ws.json(&a);
    assert_eq!(v, ws.json(&a), "the same search answers the same");
    v["hits"].as_array().unwrap().clone()
}

#[test]
fn a_hit_carries_its_whole_entry_not_only_the_matching_line() {
    let ws = Ws::init();
    let batch = json!({"sessions": [{
        "done": "wired the loader to the new parser; cargo test passes",
        "open": "Windows paths with backslashes still fail",
        "next": "normalise separators in the loader",
        "area": "parser"
    }]});
    ws.ok_stdin(&["checkpoint"], &batch.to_string());
    for pass in ["pending", "indexed"] {
        let hits = hits(&ws, &["backslashes"]);
        assert_eq!(hits.len(), 1, "{pass}: {hits:?}");
        let h = &hits[0];
        assert_eq!(
            h["snippet"], "未完成：Windows paths with backslashes still fail",
            "{pass}: the matching line stays named"
        );
        assert_eq!(
            h["text"],
            format!(
                "## {} · parser\n完成：wired the loader to the new parser; cargo test passes\n\
                 未完成：Windows paths with backslashes still fail\n\
                 下一步：normalise separators in the loader",
                common::TODAY
            ),
            "{pass}"
        );
        assert_eq!(h["weak"], false);
        ws.ok(&["reindex"]);
    }
    // the human output shows the whole entry under the hit line, the matching line marked
    let out = ws.ok(&["search", "backslashes"]);
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].starts_with("SESSIONS.md · "), "{out}");
    assert_eq!(
        lines[1..],
        [
            format!("    ## {} · parser", common::TODAY).as_str(),
            "    完成：wired the loader to the new parser; cargo test passes",
            "  > 未完成：Windows paths with backslashes still fail",
            "    下一步：normalise separators in the loader",
        ],
        "{out}"
    );
}

#[test]
fn a_long_entry_comes_back_cut_at_about_two_kilobytes_and_marked() {
    let ws = Ws::init();
    let section: String = (0..300)
        .map(|i| format!("第 {i} 行：ocelot 配置说明，写满一行\n"))
        .collect();
    let session = format!("ocelot {} tested", "很长的一行没有换行".repeat(400));
    assert!(section.len() > 10_000 && session.len() > 10_000);
    let batch = json!({
        "project": [{"section": "坑", "text": section}],
        "sessions": [{"done": session}],
    });
    ws.ok_stdin(&["checkpoint"], &batch.to_string());
    let marker = trilogy::ops::search::cut_marker(trilogy::model::Lang::Zh);
    let hits = hits(&ws, &["ocelot"]);
    assert_eq!(hits.len(), 2, "{hits:?}");
    for h in &hits {
        let text = h["text"].as_str().unwrap();
        assert!(
            text.len() <= trilogy::ops::search::HIT_TEXT_BYTES && text.len() > 1500,
            "{} bytes",
            text.len()
        );
        let (kept, last) = text.rsplit_once('\n').unwrap();
        assert_eq!(last, marker, "the cut is marked");
        match h["kind"].as_str().unwrap() {
            // cut at a line end: whole lines only
            "section" => assert!(section.starts_with(&format!("{kept}\n")), "{kept}"),
            // one long line: cut inside it, at a character
            _ => {
                let body = kept.split_once('\n').unwrap().1;
                let body = body.strip_suffix('…').unwrap();
                assert!(format!("完成：{session}").starts_with(body), "{body}");
            }
        }
    }
}

#[test]
fn words_and_pairs_found_nowhere_find_nothing_even_when_a_character_matches() {
    // regression: `boot block 重复` returned an entry holding only 重
    let ws = Ws::init();
    ws.ok(&[
        "checkpoint",
        "--session-done",
        "修复了重启后丢条目的问题，测试通过",
    ]);
    ws.ok(&[
        "checkpoint",
        "--session-done",
        "restart storm tamed: backoff doubles; tested",
    ]);
    for pass in ["pending", "indexed"] {
        assert!(
            hits(&ws, &["boot block 重复"]).is_empty(),
            "{pass}: no word and no pair of the query occurs"
        );
        assert!(hits(&ws, &["重复"]).is_empty(), "{pass}");
        let found = hits(&ws, &["重启 丢条目"]);
        assert_eq!(found.len(), 1, "{pass}: {found:?}");
        assert!(found[0]["text"].as_str().unwrap().contains("重启后丢条目"));
        assert_eq!(found[0]["weak"], false);
        // a word found elsewhere wins over a character the query holds by itself
        let found = hits(&ws, &["重 restart"]);
        assert_eq!(found.len(), 1, "{pass}: {found:?}");
        assert!(found[0]["text"].as_str().unwrap().contains("restart storm"));
        assert_eq!(found[0]["weak"], false);
        ws.ok(&["reindex"]);
    }
}

#[test]
fn a_single_character_query_finds_its_entry_marked_weak() {
    let ws = Ws::init();
    ws.ok(&[
        "checkpoint",
        "--session-done",
        "修复了重启后丢条目的问题，测试通过",
    ]);
    ws.ok(&["checkpoint", "--session-done", "unrelated work; tested"]);
    for pass in ["pending", "indexed"] {
        // a character by itself, alone or beside words found nowhere: the best there is
        for q in ["重", "boot 重"] {
            let found = hits(&ws, &[q]);
            assert_eq!(found.len(), 1, "{pass} {q}: {found:?}");
            assert!(found[0]["text"].as_str().unwrap().contains("重启后丢条目"));
            assert_eq!(found[0]["weak"], true, "{pass} {q}");
        }
        let out = ws.ok(&["search", "重"]);
        assert!(out.lines().next().unwrap().contains("weak"), "{out}");
        ws.ok(&["reindex"]);
    }
}

#[test]
fn equal_scores_rank_live_before_archived_then_newest_first() {
    let ws = Ws::init();
    // the same words but one, which the query does not hold: equal scores, different texts
    // (identical texts would be folded into one hit)
    let write = |day: &str, area: &str| {
        let done = format!(
            "quasar alignment drift fixed; tested on {}{area}",
            day.replace('-', "")
        );
        let out = ws
            .cmd()
            .env("TRILOGY_TODAY", day)
            .args(["checkpoint", "--session-done", &done, "--area", area])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", text(&out.stderr));
    };
    // two of one date, the gamma one written later
    write("2026-11-01", "alpha");
    write("2026-11-02", "alpha");
    write("2026-11-03", "alpha");
    write("2026-11-03", "gamma");
    write("2026-11-04", "alpha");
    // the two oldest go to the archive, then the oldest comes back: an old live entry and a
    // newer archived one
    std::fs::write(
        ws.root().join("trilogy.toml"),
        "sessions_max_entries = 4\nsessions_archive_batch = 0\n",
    )
    .unwrap();
    ws.ok(&["checkpoint", "--session-done", "unrelated filler; tested"]);
    let oldest = hits(&ws, &["quasar", "-n", "10"])
        .into_iter()
        .find(|h| h["heading"] == "2026-11-01 · alpha")
        .unwrap();
    assert_eq!(oldest["state"], "archived");
    ws.ok(&["restore", oldest["id"].as_str().unwrap()]);
    for pass in ["pending", "indexed"] {
        let found = hits(&ws, &["quasar", "-n", "10"]);
        let scores: HashSet<String> = found.iter().map(|h| h["score"].to_string()).collect();
        assert_eq!(scores.len(), 1, "{pass}: the scores tie: {found:?}");
        let order: Vec<String> = found
            .iter()
            .map(|h| format!("{} {}", h["heading"].as_str().unwrap(), h["state"]))
            .collect();
        assert_eq!(
            order,
            [
                "2026-11-04 · alpha \"live\"",
                "2026-11-03 · gamma \"live\"",
                "2026-11-03 · alpha \"live\"",
                "2026-11-01 · alpha \"live\"",
                "2026-11-02 · alpha \"archived\"",
            ],
            "{pass}"
        );
        ws.ok(&["reindex"]);
    }
}

/// A fresh English workspace holds five PROJECT sections that say only "None yet": a question
/// starting with "What" finds the entry that answers it, and no empty section at all.
#[test]
fn a_question_finds_the_entry_and_never_an_empty_template_section() {
    let ws = Ws::new();
    std::fs::write(ws.root().join("trilogy.toml"), "lang = \"en\"\n").unwrap();
    ws.ok(&["init"]);
    ws.ok(&[
        "checkpoint",
        "--session-done",
        "the parser now streams tables row by row; tested with the 80 MB fixture",
    ]);
    let found = hits(&ws, &["What is this parser doing"]);
    assert!(!found.is_empty(), "the entry is found");
    assert!(
        found[0]["text"]
            .as_str()
            .unwrap()
            .contains("streams tables"),
        "the entry first: {found:?}"
    );
    assert!(
        !found
            .iter()
            .any(|h| h["text"].as_str().unwrap().contains("None yet")),
        "no empty section: {found:?}"
    );
}

/// A whole question is searched by the words that carry its subject: the entries full of
/// "what", "did", "we", "the" (or 我们、怎么、的) do not outrank the one about the subject.
#[test]
fn question_words_and_function_words_do_not_decide_the_ranking() {
    let ws = Ws::init();
    for done in [
        "what did we do to the build? we asked what the team did and what the docs say; tested",
        "we did what the review said: the docs of the CLI were fixed; tested",
        "the uploader retries with exponential backoff capped at 30 s; tested with a fault proxy",
        "我们怎么做的：我们的文档改了，怎么写的都记下了；测试过",
        "上传器的重试改成指数退避，最多 30 秒；用故障代理测试过",
    ] {
        ws.ok(&["checkpoint", "--session-done", done]);
    }
    let first = |q: &str| hits(&ws, &[q])[0]["text"].as_str().unwrap().to_string();
    let en = first("What did we decide about the retry backoff for the uploader?");
    assert!(en.contains("exponential backoff"), "{en}");
    let zh = first("我们的上传重试是怎么退避的");
    assert!(zh.contains("指数退避"), "{zh}");
    // a query of nothing but such words still searches them
    assert!(!hits(&ws, &["what did we do"]).is_empty());
}

/// The same Done line recorded in several sessions is one hit, with a count: the top five
/// show five different answers.
#[test]
fn the_same_text_in_many_sessions_is_one_hit_with_a_count() {
    let ws = Ws::init();
    for n in 0..4 {
        ws.ok(&[
            "checkpoint",
            "--session-done",
            &format!("kestrel import run {n}; tested"),
        ]);
    }
    // another day each time: the same text under other headings
    for day in 1..=6 {
        ws.cmd()
            .args([
                "checkpoint",
                "--session-done",
                "kestrel nightly sync green; tested",
            ])
            .env("TRILOGY_TODAY", format!("2026-11-0{day}"))
            .assert()
            .success();
    }
    let found = hits(&ws, &["kestrel", "-n", "5"]);
    let texts: Vec<&str> = found.iter().map(|h| h["text"].as_str().unwrap()).collect();
    let nightly: Vec<&Value> = (found.iter())
        .filter(|h| h["text"].as_str().unwrap().contains("nightly sync"))
        .collect();
    assert_eq!(nightly.len(), 1, "{texts:?}");
    assert!(
        nightly[0]["also"].as_u64().unwrap_or(0) >= 1,
        "{:?}",
        nightly[0]
    );
    assert_eq!(found.len(), 5, "five different answers: {texts:?}");
}
