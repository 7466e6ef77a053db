//! Topics: one live decision per topic. A new decision on a topic that has one is refused
//! unless it supersedes it; the topic is a field line of the entry, so the rule holds after a
//! rebuild and in a fresh clone; two live ones brought by a hand edit are kept and reported.

use crate::common;

use common::{Ws, git_output, text};

fn decide(ws: &Ws, batch: serde_json::Value) -> std::process::Output {
    ws.run_stdin(&["checkpoint", "--json", "-"], &batch.to_string())
}

#[test]
fn a_second_live_decision_on_a_topic_is_refused_naming_the_first_and_accepted_when_it_supersedes() {
    let ws = Ws::init();
    let first = decide(
        &ws,
        serde_json::json!({"decisions": [{"choice": "Store memory in redb", "because": "pure Rust, transactions", "topic": "Storage engine"}]}),
    );
    assert!(first.status.success(), "{}", text(&first.stderr));
    let first_id = serde_json::from_slice::<serde_json::Value>(&first.stdout).unwrap()["ids"][0]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        ws.read("DECISIONS.md").contains("\n主题：Storage engine"),
        "the topic is a field line of the entry:\n{}",
        ws.read("DECISIONS.md")
    );

    // another decision on the same topic, written differently (case, spaces): refused, named
    let before = ws.snapshot();
    let refused = decide(
        &ws,
        serde_json::json!({"decisions": [{"choice": "Store memory in sqlite", "topic": "  storage   ENGINE "}]}),
    );
    assert_eq!(refused.status.code(), Some(3), "{}", text(&refused.stderr));
    let err = text(&refused.stderr);
    assert!(err.contains(&first_id), "names the live one's id: {err}");
    assert!(
        err.contains("2026-") && err.contains("Store memory in redb"),
        "its date and title: {err}"
    );
    assert!(err.contains("supersedes"), "says how: {err}");
    assert_eq!(ws.snapshot(), before, "nothing was written");

    // the same call again (a retry of the first) is no collision
    let again = decide(
        &ws,
        serde_json::json!({"decisions": [{"choice": "Store memory in redb", "because": "pure Rust, transactions", "topic": "Storage engine"}]}),
    );
    assert!(again.status.success(), "{}", text(&again.stderr));

    // with supersedes: accepted, the old one marked
    let ok = decide(
        &ws,
        serde_json::json!({"decisions": [{"choice": "Store memory in sqlite", "topic": "storage engine", "supersedes": first_id}]}),
    );
    assert!(ok.status.success(), "{}", text(&ok.stderr));
    let read = ws.json(&["read", "DECISIONS.md", "-n", "50"]);
    let entries = read["entries"].as_array().unwrap();
    let old = entries
        .iter()
        .find(|e| e["id"] == first_id.as_str())
        .unwrap();
    assert_eq!(old["state"], "superseded", "{old}");
    let new = entries
        .iter()
        .find(|e| {
            e["heading"]
                .as_str()
                .unwrap()
                .ends_with("Store memory in sqlite")
        })
        .unwrap();
    assert_eq!(new["fields"]["topic"], "storage engine", "{new}");
}

/// The live decisions in DECISIONS.md: (heading, topic).
fn live(ws: &Ws) -> Vec<(String, String)> {
    let read = ws.json(&["read", "DECISIONS.md", "-n", "50"]);
    (read["entries"].as_array().unwrap().iter())
        .filter(|e| e["state"] == "live")
        .map(|e| {
            (
                e["heading"].as_str().unwrap().to_string(),
                e["fields"]["topic"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string(),
            )
        })
        .collect()
}

#[test]
fn a_decision_never_supersedes_itself() {
    let ws = Ws::init();
    let choice = serde_json::json!({"choice": "Keep the cache in memory", "because": "restarts are rare", "topic": "cache"});
    let first = decide(&ws, serde_json::json!({"decisions": [choice]}));
    assert!(first.status.success(), "{}", text(&first.stderr));
    let id = serde_json::from_slice::<serde_json::Value>(&first.stdout).unwrap()["ids"][0]
        .as_str()
        .unwrap()
        .to_string();
    let heading = live(&ws)[0].0.clone();
    // the same decision naming itself, by id, heading or choice: refused, nothing written
    for needle in [id.as_str(), heading.as_str(), "keep the cache in memory"] {
        let before = ws.snapshot();
        let mut d = choice.clone();
        d["supersedes"] = needle.into();
        let out = decide(&ws, serde_json::json!({"decisions": [d]}));
        assert_eq!(
            out.status.code(),
            Some(3),
            "{needle}: {}",
            text(&out.stdout)
        );
        let err = text(&out.stderr);
        assert!(err.contains("cannot supersede itself"), "{needle}: {err}");
        assert_eq!(ws.snapshot(), before, "{needle}: nothing was written");
        assert_eq!(
            live(&ws).len(),
            1,
            "{needle}: the decision is still in force"
        );
    }
    // a new decision naming its own choice when no other decision has it: refused as well
    let out = decide(
        &ws,
        serde_json::json!({"decisions": [{"choice": "Log to stderr", "supersedes": "Log to stderr"}]}),
    );
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stdout));
    assert!(text(&out.stderr).contains("cannot supersede itself"));

    // a new decision of the same choice, better argued, supersedes the first; its retry is a
    // no-op that leaves the new one in force
    let mut better = choice.clone();
    better["because"] = "restarts are rare and the data is rebuilt in a second".into();
    better["supersedes"] = "Keep the cache in memory".into();
    for attempt in 0..2 {
        let out = decide(&ws, serde_json::json!({"decisions": [better.clone()]}));
        assert!(
            out.status.success(),
            "attempt {attempt}: {}",
            text(&out.stderr)
        );
        let now = live(&ws);
        assert_eq!(now.len(), 1, "attempt {attempt}: {now:?}");
        assert_eq!(now[0].1, "cache");
    }
    assert!(ws.read("DECISIONS.md").contains("rebuilt in a second"));
}

#[test]
fn invisible_characters_or_full_width_letters_do_not_open_a_second_decision_on_a_topic() {
    let ws = Ws::init();
    let first = decide(
        &ws,
        serde_json::json!({"decisions": [{"choice": "Use redb", "topic": "Storage engine"}]}),
    );
    assert!(first.status.success(), "{}", text(&first.stderr));
    for (i, topic) in [
        "Storage\u{200B} engine",
        "Sto\u{200D}rage engine",
        "Stor\u{AD}age engine",
        "\u{200F}Storage engine\u{202C}",
        "\u{FEFF}Storage engine",
        "Ｓｔｏｒａｇｅ　ｅｎｇｉｎｅ",
    ]
    .iter()
    .enumerate()
    {
        let out = decide(
            &ws,
            serde_json::json!({"decisions": [{"choice": format!("Use sqlite {i}"), "topic": topic}]}),
        );
        assert_eq!(
            out.status.code(),
            Some(3),
            "{topic:?}: {}",
            text(&out.stdout)
        );
        assert!(text(&out.stderr).contains("Use redb"), "{topic:?}");
    }
    assert_eq!(live(&ws).len(), 1, "{:?}", live(&ws));
}

#[test]
fn one_call_cannot_hold_two_live_decisions_on_one_topic() {
    let ws = Ws::init();
    let out = decide(
        &ws,
        serde_json::json!({"decisions": [
            {"choice": "Retry three times", "topic": "重试策略"},
            {"choice": "Retry five times", "topic": "重试策略"}
        ]}),
    );
    assert_eq!(out.status.code(), Some(3));
    let err = text(&out.stderr);
    assert!(
        err.contains("decisions[0]") && err.contains("decisions[1]"),
        "{err}"
    );
    assert_eq!(ws.json(&["status"])["decisions"], 0);
}

#[test]
fn the_rule_survives_a_rebuild_of_the_store_and_a_fresh_clone() {
    let ws = Ws::init();
    ws.ok(&[
        "checkpoint",
        "--decision",
        "Use tabs",
        "--topic",
        "Indentation",
    ]);
    // the store is rebuilt from the files
    std::fs::remove_dir_all(ws.root().join(".trilogy")).unwrap();
    let out = ws.run(&[
        "checkpoint",
        "--decision",
        "Use spaces",
        "--topic",
        "indentation",
    ]);
    assert_eq!(
        out.status.code(),
        Some(3),
        "after a rebuild: {}",
        text(&out.stderr)
    );
    assert!(text(&out.stderr).contains("Use tabs"));

    // a fresh clone has only the files
    for args in [
        &["init", "-q"][..],
        &["add", "-A"],
        &["commit", "-qm", "memory"],
    ] {
        let o = git_output(ws.root(), args);
        assert!(o.status.success(), "git {args:?}: {}", text(&o.stderr));
    }
    let clone = Ws::new();
    // git clones into an empty folder
    let o = git_output(
        clone.root(),
        &["clone", "-q", ws.root().to_str().unwrap(), "."],
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(
        !clone.root().join(".trilogy/store.redb").exists(),
        "the store is not committed"
    );
    let out = clone.run(&[
        "checkpoint",
        "--decision",
        "Use spaces",
        "--topic",
        "INDENTATION",
    ]);
    assert_eq!(
        out.status.code(),
        Some(3),
        "in the clone: {}",
        text(&out.stderr)
    );
}

#[test]
fn two_live_decisions_brought_by_a_hand_edit_are_kept_reported_and_block_the_topic() {
    let ws = Ws::init();
    ws.ok(&[
        "checkpoint",
        "--decision",
        "Deploy on Fridays",
        "--topic",
        "Deploy day",
    ]);
    // a person adds a second decision on the topic by hand, with the English labels
    let file = ws.read("DECISIONS.md");
    let at = file.find("\n## ").unwrap() + 1;
    let hand = "## 2026-11-30 — Deploy on Mondays\nChose: Deploy on Mondays\nTopic: deploy day\n\n";
    let edited = format!("{}{hand}{}", &file[..at], &file[at..]);
    ws.write("DECISIONS.md", &edited);

    let status = ws.json(&["status"]);
    assert_eq!(
        ws.read("DECISIONS.md"),
        edited,
        "the hand edit is kept byte for byte"
    );
    let conflicts = status["topic_conflicts"].as_array().unwrap();
    assert_eq!(conflicts.len(), 1, "{status}");
    assert_eq!(conflicts[0]["decisions"].as_array().unwrap().len(), 2);
    let human = ws.ok(&["status"]);
    assert!(
        human.contains("TOPIC")
            && human.contains("Deploy on Mondays")
            && human.contains("Deploy on Fridays"),
        "{human}"
    );

    let doctor = ws.run(&["doctor", "--json"]);
    let report: serde_json::Value = serde_json::from_slice(&doctor.stdout).unwrap();
    let topic = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["check"] == "topics")
        .unwrap_or_else(|| panic!("doctor names the topic: {report}"));
    assert_eq!(topic["level"], "warn");
    assert!(topic["action"].as_str().unwrap().contains("trilogy retire"));

    // the next decision on the topic is refused, naming both, even when it supersedes one
    let fridays = conflicts[0]["decisions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_str().unwrap())
        .find(|d| d.contains("Fridays"))
        .unwrap()
        .split(' ')
        .next()
        .unwrap()
        .to_string();
    let out = ws.run(&[
        "checkpoint",
        "--decision",
        "Deploy any day",
        "--topic",
        "Deploy Day",
        "--supersedes",
        &fridays,
    ]);
    assert_eq!(out.status.code(), Some(3));
    let err = text(&out.stderr);
    assert!(err.contains("Mondays") && err.contains("Fridays"), "{err}");
    // a decision on another topic is not held up
    ws.ok(&[
        "checkpoint",
        "--decision",
        "Use squash merges",
        "--topic",
        "Merge style",
    ]);
}

#[test]
fn a_topic_is_one_short_line() {
    let ws = Ws::init();
    let long = "x".repeat(81);
    for bad in [long.as_str(), "two\nlines"] {
        let out = decide(
            &ws,
            serde_json::json!({"decisions": [{"choice": "c", "topic": bad}]}),
        );
        assert_eq!(out.status.code(), Some(3));
        assert!(
            text(&out.stderr).contains("decisions[0].topic"),
            "{}",
            text(&out.stderr)
        );
    }
}

/// Without a topic, a decision that nearly repeats a live one is recorded with a warning that
/// names the older one; decisions that only share a common word get none.
#[test]
fn a_near_duplicate_decision_is_recorded_with_a_warning_naming_the_older_one() {
    let ws = Ws::init();
    let warnings = |choice: &str| -> (String, Vec<String>) {
        let v = ws.json(&["checkpoint", "--decision", choice]);
        let w = v["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| w.as_str().unwrap().to_string())
            .collect();
        (v["ids"][0].as_str().unwrap().to_string(), w)
    };
    for (first, second) in [
        ("Store memory in redb", "Store memory in sqlite"),
        ("记忆存在 redb 里", "记忆存在 sqlite 里"),
    ] {
        let (old, w) = warnings(first);
        assert!(w.is_empty(), "{first}: {w:?}");
        let (_, w) = warnings(second);
        assert_eq!(w.len(), 1, "{second}: {w:?}");
        assert!(
            w[0].contains(&old) && w[0].contains("--supersedes"),
            "{w:?}"
        );
    }
    for (a, b) in [
        ("Use redb for the store", "Use tabs for indentation"),
        ("Run CI on every push", "Run the linter on every commit"),
        ("发布前跑完整测试", "发布说明用中文写"),
        (
            "Cache thumbnails in Redis",
            "Cache the session tokens in memory",
        ),
        ("日志保留 30 天", "备份保留 30 天"),
    ] {
        let fresh = Ws::init();
        fresh.ok(&["checkpoint", "--decision", a]);
        let v = fresh.json(&["checkpoint", "--decision", b]);
        assert_eq!(v["warnings"], serde_json::json!([]), "{a} / {b}");
    }
}

/// The whole decision is compared: a choice worded otherwise over the same alternative for the
/// same reason is the same decision again; one sharing only its alternative and reason with
/// another is not.
#[test]
fn a_near_duplicate_is_judged_on_the_whole_decision() {
    let decide = |ws: &Ws, choice: &str, over: &str, because: &str| -> serde_json::Value {
        ws.json(&[
            "checkpoint",
            "--decision",
            choice,
            "--over",
            over,
            "--because",
            because,
        ])
    };
    let ws = Ws::init();
    let live = decide(&ws, "store in sqlite", "redb", "tooling");
    let old = live["ids"][0].as_str().unwrap();
    let again = decide(&ws, "keep memory in sqlite files", "redb", "tooling again");
    let w = again["warnings"].as_array().unwrap();
    assert_eq!(w.len(), 1, "{again}");
    assert!(w[0].as_str().unwrap().contains(old), "{again}");

    let fresh = Ws::init();
    decide(&fresh, "Use ruff", "flake8", "faster");
    let other = decide(&fresh, "Use uv", "pip", "faster");
    assert_eq!(other["warnings"], serde_json::json!([]), "{other}");
}

/// Field lines a person writes — topic, review, retired, in either label set, with or without
/// a space after the colon — are read back and the file is left byte for byte.
#[test]
fn hand_written_topic_review_and_retired_lines_round_trip() {
    let ws = Ws::init();
    let file = "# DECISIONS\n\n\
## 2026-11-20 — Use redb\n选择：Use redb\n主题：存储引擎\n复核：2027-01-01\n\n\
## 2026-11-10 — Tabs\nChose: Tabs\nTopic:indentation\nReview:  when the team grows\n\n\
## 2026-11-01 — Nightly builds\nChose: Nightly builds\nRetired: 2026-11-25 — nobody installs them\n";
    ws.write("DECISIONS.md", file);
    let v = ws.json(&["read", "DECISIONS.md", "-n", "10"]);
    assert_eq!(ws.read("DECISIONS.md"), file, "byte for byte");
    let entries = v["entries"].as_array().unwrap();
    assert_eq!(entries[0]["fields"]["topic"], "存储引擎");
    assert_eq!(entries[0]["fields"]["review"], "2027-01-01");
    assert_eq!(entries[1]["fields"]["topic"], "indentation");
    assert_eq!(entries[1]["fields"]["review"], "when the team grows");
    assert_eq!(entries[2]["state"], "retired");
    // and they act: the topic holds, the review is due, the retired one is not injected
    let out = ws.run(&[
        "checkpoint",
        "--decision",
        "Use sqlite",
        "--topic",
        "存储引擎",
    ]);
    assert_eq!(out.status.code(), Some(3));
    let due = ws
        .cmd()
        .env("TRILOGY_TODAY", "2027-01-02")
        .args(["due", "--json"])
        .output()
        .unwrap();
    let due: serde_json::Value = serde_json::from_slice(&due.stdout).unwrap();
    assert_eq!(due.as_array().unwrap().len(), 1, "{due}");
    assert!(!ws.ok(&["inject"]).contains("Nightly builds"));
    assert_eq!(ws.read("DECISIONS.md"), file, "still byte for byte");
}

/// A `Topic:` line inside another field's text is the topic the stored entry reads back, so it
/// is held to the same rule.
#[test]
fn a_topic_line_smuggled_into_the_text_is_held_to_the_rule() {
    let ws = Ws::init();
    ws.ok(&["checkpoint", "--decision", "Use redb", "--topic", "storage"]);
    let before = ws.snapshot();
    let out = decide(
        &ws,
        serde_json::json!({"decisions": [{"choice": "Use sqlite", "because": "smaller\n主题：storage"}]}),
    );
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("Use redb"));
    assert_eq!(ws.snapshot(), before);
}
