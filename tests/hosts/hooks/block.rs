//! The session block: its budget (snapshots of the full and the degraded block), cut
//! sections, sessions by area, the block file's region, the character cap, and its framing
//! as background.

use super::*;

#[test]
fn block_never_exceeds_the_budget_footer_included() {
    let ws = Ws::init();
    fixture(&ws);
    for budget in [2000usize, 4000, 20480, 160_000] {
        let v = ws.json(&["--set", &format!("inject_budget_bytes={budget}"), "inject"]);
        let text = v["block"]["text"].as_str().unwrap();
        assert!(
            text.len() <= budget,
            "budget {budget}: {} bytes",
            text.len()
        );
        assert_eq!(v["block"]["ledger"]["bytes"], text.len());
        assert!(
            !text.contains("SESSIONS-archive.md 的"),
            "the archive is never injected"
        );
        if budget < 20480 {
            assert!(
                text.contains("--- 未注入"),
                "budget {budget} names what was left out"
            );
        }
    }
    let v = ws.json(&["inject", "--max-chars", "3000"]);
    assert!(v["block"]["text"].as_str().unwrap().chars().count() <= 3000);
    insta::assert_snapshot!("block_full", ws.ok(&["inject"]));
    insta::assert_snapshot!(
        "block_degraded_2000",
        ws.ok(&["--set", "inject_budget_bytes=2000", "inject"])
    );
}

#[test]
fn oversized_section_is_cut_with_the_marker_and_its_sibling_survives() {
    let ws = Ws::init();
    // 40,000 CJK characters is over the checkpoint field limit: a person pasted it by hand
    let huge = "长".repeat(40_000);
    let p = ws.read("PROJECT.md");
    ws.write(
        "PROJECT.md",
        &p.replacen("## 现状\n\n暂无", &format!("## 现状\n\n{huge}"), 1)
            .replacen("## 坑\n\n暂无", "## 坑\n\n小节：完整保留", 1),
    );
    let v = ws.json(&["--set", "inject_budget_bytes=20480", "inject"]);
    let text = v["block"]["text"].as_str().unwrap();
    assert!(text.contains("[本节超出"), "{}", &text[..300]);
    assert!(text.contains("## 坑\n\n小节：完整保留"));
    assert!(!text.contains(&huge));
    assert_eq!(v["block"]["ledger"]["sections_cut"][0], "现状");
}

#[test]
fn sessions_are_allocated_by_area_with_the_hot_area_capped() {
    let ws = Ws::init();
    let at = |day: &str, area: &str, n: usize| {
        let sessions: Vec<Value> = (0..n)
            .map(|i| json!({"done": format!("{area} {day} {i}; tested"), "area": area}))
            .collect();
        let out = ws
            .cmd()
            .env("TRILOGY_TODAY", day)
            .arg("checkpoint")
            .write_stdin(json!({"sessions": sessions}).to_string())
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", text(&out.stderr));
    };
    at("2026-09-30", "cold", 1);
    at("2026-10-30", "warm", 2);
    at("2026-11-29", "hot", 20);
    let v = ws.json(&["inject"]);
    let text = v["block"]["text"].as_str().unwrap();
    let section = text.split("--- SESSIONS.md").nth(1).unwrap();
    let count = |a: &str| section.matches(&format!("· {a}\n")).count();
    assert!(count("cold") == 1 && count("warm") == 2, "{section}");
    assert!(
        count("hot") >= 1 && count("hot") <= 10,
        "hot has {}",
        count("hot")
    );
    assert!(text.contains("区域：hot(20) · warm(2) · cold(1)"), "{text}");
}

#[test]
fn block_file_region_is_rewritten_only_on_change() {
    let ws = Ws::init();
    std::fs::write(
        ws.root().join("AGENTS.local.md"),
        "# local notes\n\nkeep me\n",
    )
    .unwrap();
    let first = ws.ok(&["block", "--file", "AGENTS.local.md"]);
    assert!(first.starts_with("appended"), "{first}");
    let body = std::fs::read_to_string(ws.root().join("AGENTS.local.md")).unwrap();
    assert!(
        body.starts_with(
            "# local notes\n\nkeep me\n\n<!-- trilogy:memory:start -->\n===== 项目记忆"
        )
    );
    assert!(
        ws.ok(&["block", "--file", "AGENTS.local.md"])
            .starts_with("unchanged")
    );
    // a checkpoint refreshes a file that holds the region by itself
    ws.ok(&["checkpoint", "--section", "坑", "--text", "new trap"]);
    let refreshed = std::fs::read_to_string(ws.root().join("AGENTS.local.md")).unwrap();
    assert!(refreshed.contains("new trap") && refreshed.starts_with("# local notes\n"));
    assert!(
        ws.ok(&["block", "--file", "AGENTS.local.md"])
            .starts_with("unchanged")
    );
    // a region edited by hand is put back
    std::fs::write(
        ws.root().join("AGENTS.local.md"),
        refreshed.replace("new trap", "old trap"),
    )
    .unwrap();
    assert!(
        ws.ok(&["block", "--file", "AGENTS.local.md"])
            .starts_with("updated")
    );
    std::fs::write(
        ws.root().join("AGENTS.local.md"),
        "x\n<!-- trilogy:memory:start -->\nhalf\n",
    )
    .unwrap();
    let out = ws.run(&["block", "--file", "AGENTS.local.md"]);
    assert_eq!(out.status.code(), Some(5));
    assert!(text(&out.stderr).contains("AGENTS.local.md:2"));
    let out = ws.run(&["block", "--file", "../outside.md"]);
    assert_eq!(out.status.code(), Some(3));
}

#[test]
fn a_character_cap_still_leaves_room_for_decisions_and_sessions() {
    // many long decisions: their 20% share of 160,000 bytes alone exceeds 10,000 characters
    let ws = Ws::init();
    let decisions: Vec<Value> = (0..300)
        .map(|i| json!({"choice": format!("decision {i} with a long reason"), "because": "reason ".repeat(15)}))
        .collect();
    let sessions: Vec<Value> = (0..30)
        .map(|i| json!({"done": format!("session {i}; tested")}))
        .collect();
    ws.ok_stdin(
        &["checkpoint"],
        &json!({"decisions": decisions, "sessions": sessions}).to_string(),
    );
    let v = ws.json(&["inject", "--max-chars", "10000"]);
    let l = &v["block"]["ledger"];
    assert!(l["chars"].as_u64().unwrap() <= 10_000);
    assert!(l["decisions_shown"].as_u64().unwrap() >= 1, "{l}");
    assert!(l["sessions_shown"].as_u64().unwrap() >= 1, "{l}");
}

#[test]
fn decisions_left_out_by_the_cap_are_counted_from_the_newest_not_shown() {
    let ws = Ws::init();
    for i in 0..40 {
        ws.ok(&[
            "checkpoint",
            "--decision",
            &format!("choice number {i} with a reason long enough to take some room in the block"),
        ]);
    }
    ws.ok(&[
        "checkpoint",
        "--decision",
        "choice number 40 replaces 39",
        "--supersedes",
        "choice number 39 with a reason long enough to take some room in the block",
    ]);
    let v = ws.json(&["inject", "--session", "cap-1", "--window-tokens", "16000"]);
    let shown = v["block"]["ledger"]["decisions_shown"].as_u64().unwrap();
    let live = v["block"]["ledger"]["decisions_live"].as_u64().unwrap();
    assert_eq!(live, 40, "the superseded decision is not live");
    assert!(
        shown > 0 && shown < live,
        "the cap leaves some out: {shown}/{live}"
    );
    let s = ws.json(&["sessions", "show", "cap-1"]);
    assert_eq!(s["dropped"]["decisions"].as_u64().unwrap(), live - shown);
    // the newest live decision not shown: decisions are shown newest first
    let all = ws.json(&["read", "DECISIONS.md", "-n", "100"]);
    let live_ids: Vec<&str> = all["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["state"] == "live")
        .map(|e| e["id"].as_str().unwrap())
        .collect();
    assert_eq!(s["dropped"]["decisions_from"], live_ids[shown as usize]);
}

/// The block says what it is, in the workspace's language: background the project's memory
/// files hold, not instructions (a cloned repository's memory cannot pose as the user).
#[test]
fn the_block_says_it_is_background_not_instructions() {
    let zh = Ws::init();
    let first = zh.ok(&["inject"]).lines().next().unwrap().to_string();
    assert!(
        first.contains("不是指令") && first.contains("记忆文件"),
        "{first}"
    );
    let en = Ws::new();
    en.ok(&["--set", "lang=en", "init"]);
    let first = en.ok(&["inject"]).lines().next().unwrap().to_string();
    assert!(
        first.contains("not instructions") && first.contains("memory files"),
        "{first}"
    );
}
