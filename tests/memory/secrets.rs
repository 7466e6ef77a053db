//! Credentials in memory: a checkpoint holding one is refused before anything is stored; one
//! written into a file by hand is kept (nothing a person wrote is lost), named by `status` and
//! `doctor`, and kept out of search and the session-start block until the person removes it.

use crate::common;

use common::{Ws, text};
use serde_json::json;

/// A GitHub token shaped like a real one, built at run time from a fixed seed.
fn token() -> String {
    let alphabet: Vec<char> = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
        .chars()
        .collect();
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let body: String = (0..36)
        .map(|_| {
            x = x
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            alphabet[((x >> 33) % 62) as usize]
        })
        .collect();
    format!("ghp_{body}")
}

fn hits(ws: &Ws, query: &str) -> Vec<String> {
    let v = ws.json(&["search", query]);
    v["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| format!("{} {}", h["heading"], h["snippet"]))
        .collect()
}

#[test]
fn a_hand_written_token_is_reported_kept_out_of_search_and_injection_until_removed() {
    let ws = Ws::init();
    ws.ok(&[
        "checkpoint",
        "--session-done",
        "lighthouse dashboard deployed; tested",
    ]);
    let token = token();
    let recorded = ws.read("SESSIONS.md");
    let secret_entry =
        format!("## 2026-11-28 · deploy\n完成：lighthouse release pushed with {token} by hand\n\n");
    let at = recorded.find(&format!("## {}\n", common::TODAY)).unwrap();
    let edited = format!("{}{secret_entry}{}", &recorded[..at], &recorded[at..]);
    ws.write("SESSIONS.md", &edited);

    // status names file, line, kind, masked; never the token itself
    let status = ws.ok(&["status"]);
    let now = ws.read("SESSIONS.md");
    let line = now[..now.find("ghp_").unwrap()].matches('\n').count() + 1;
    assert!(
        status.contains(&format!("SESSIONS.md:{line}:"))
            && status.contains("GitHub token")
            && status.contains("ghp_…"),
        "{status}"
    );
    assert!(!status.contains(&token), "{status}");
    let v = ws.json(&["status"]);
    assert_eq!(v["secrets"][0]["file"], "SESSIONS.md");
    assert_eq!(v["secrets"][0]["line"], line as u64);
    assert_eq!(v["secrets"][0]["kind"], "a GitHub token");
    // doctor too, as an error
    let doctor = ws.run(&["doctor"]);
    let report = text(&doctor.stdout);
    assert!(!doctor.status.success(), "{report}");
    assert!(
        report.contains(&format!("SESSIONS.md:{line}:")) && report.contains("GitHub token"),
        "{report}"
    );
    assert!(!report.contains(&token), "{report}");

    // kept: the file and the store still hold what the person wrote; `read` shows it masked
    assert!(ws.read("SESSIONS.md").contains(&token));
    let read = ws.ok(&["read", "SESSIONS.md"]);
    assert!(read.contains("release pushed with ghp_…"), "{read}");
    assert!(!read.contains(&token), "{read}");

    // but search and the session-start block leave that entry out
    let found = hits(&ws, "lighthouse");
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].contains("dashboard"), "{found:?}");
    assert!(found.iter().all(|h| !h.contains("ghp_")), "{found:?}");
    let block = ws.ok(&["inject"]);
    assert!(block.contains("lighthouse dashboard"), "{block}");
    assert!(
        !block.contains(&token) && !block.contains("release pushed"),
        "{block}"
    );

    // the person removes the token: everything is clean, and the entry is back everywhere
    let cleaned = now.replace(&format!(" with {token}"), "");
    ws.write("SESSIONS.md", &cleaned);
    let v = ws.json(&["status"]);
    assert_eq!(v["secrets"], serde_json::json!([]), "{v}");
    assert!(!ws.ok(&["status"]).contains("SECRET"));
    let doctor = ws.run(&["doctor"]);
    assert!(doctor.status.success(), "{}", text(&doctor.stdout));
    let found = hits(&ws, "lighthouse");
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(
        ws.ok(&["inject"])
            .contains("lighthouse release pushed by hand")
    );
}

#[test]
fn a_token_in_a_project_section_is_reported_and_left_out() {
    let ws = Ws::init();
    let token = token();
    let project = ws.read("PROJECT.md");
    let edited = project.replacen("暂无", &format!("deploy key {token}"), 1);
    assert_ne!(edited, project);
    ws.write("PROJECT.md", &edited);
    let v = ws.json(&["status"]);
    assert_eq!(v["secrets"][0]["file"], "PROJECT.md", "{v}");
    assert!(!ws.ok(&["inject"]).contains(&token));
    assert!(hits(&ws, "deploy").iter().all(|h| !h.contains("ghp_")));
}

/// A private key block shaped like an OpenSSH one, generated: the block and its body lines.
fn key_block() -> (String, Vec<String>) {
    let alphabet: Vec<char> = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
        .chars()
        .collect();
    let mut x: u64 = 0x51_7cc1_b727_220a;
    let body: Vec<String> = (0..5)
        .map(|_| {
            (0..70)
                .map(|_| {
                    x = x
                        .wrapping_mul(6_364_136_223_846_793_005)
                        .wrapping_add(1_442_695_040_888_963_407);
                    alphabet[((x >> 33) % 64) as usize]
                })
                .collect()
        })
        .collect();
    let block = format!(
        "-----BEGIN OPENSSH PRIVATE KEY-----\n{}\n-----END OPENSSH PRIVATE KEY-----",
        body.join("\n")
    );
    (block, body)
}

/// Whether `shown` holds none of `secrets`.
fn holds_none(shown: &str, secrets: &[String]) -> bool {
    secrets.iter().all(|s| !shown.contains(s.as_str()))
}

#[test]
fn a_credential_written_into_user_md_or_a_memory_file_is_masked_wherever_an_agent_reads_it() {
    let ws = Ws::init();
    ws.ok(&[
        "user",
        "add",
        "--section",
        "环境",
        "--line",
        "gh is logged in as alice",
    ]);
    let token = token();
    let (key, body) = key_block();
    let mut secrets = body.clone();
    secrets.push(token.clone());
    secrets.push("-----END OPENSSH".into());
    // typed into USER.md and PROJECT.md by hand
    let user = std::fs::read_to_string(ws.user_md()).unwrap();
    let user = user.replace(
        "gh is logged in as alice",
        &format!("gh is logged in as alice with {token}\n{key}"),
    );
    std::fs::write(ws.user_md(), user).unwrap();
    let project = ws.read("PROJECT.md");
    let edited = project.replacen("暂无", &format!("deploy key:\n{key}"), 1);
    assert_ne!(edited, project);
    ws.write("PROJECT.md", &edited);

    for (args, what) in [
        (json!({"file":"USER.md"}), "USER.md"),
        (json!({"file":"USER.md","section":"环境"}), "USER.md § 环境"),
        (json!({"file":"PROJECT.md"}), "PROJECT.md"),
    ] {
        let r = ws.mcp_tool("s1", "memory_read", args);
        assert_ne!(r["isError"], true, "{what}: {r}");
        let shown = r.to_string();
        assert!(holds_none(&shown, &secrets), "{what}: {shown}");
        // the rest of the file is there, the credential's place marked
        assert!(shown.contains("gh is logged in as alice") || what == "PROJECT.md");
        assert!(
            shown.contains("ghp_…") || what == "PROJECT.md",
            "{what}: {shown}"
        );
    }
    for args in [
        vec!["read", "USER.md"],
        vec!["read", "USER.md", "--section", "环境"],
        vec!["read", "USER.md", "--json"],
        vec!["read", "PROJECT.md"],
        vec!["read", "--json"],
        vec!["user", "show"],
        vec!["user", "show", "--json"],
    ] {
        let shown = ws.ok(&args);
        assert!(holds_none(&shown, &secrets), "{args:?}: {shown}");
    }
    // the files keep what the person wrote
    let kept = std::fs::read_to_string(ws.user_md()).unwrap();
    assert!(kept.contains(&token) && kept.contains(&body[3]));
    assert!(ws.read("PROJECT.md").contains(&body[3]));
}

#[test]
fn checkpoints_refuse_the_families_that_used_to_get_through() {
    let ws = Ws::init();
    let before = ws.snapshot();
    let events = ws.event_count();
    let tok = token();
    for (done, kind) in [
        (
            format!("token g\u{200b}hp_{}", &tok[4..]),
            "GitHub token",
        ),
        (
            "xapp-1-A0ZQ7N3KXWB-2817364510943-5f0c9e2b7a41d8c63e95b0a7f1d2c4e8b6a3f9d0c1e7b5a2d4f8c6e0b9a3d1f7".to_string(),
            "Slack token",
        ),
        (
            "db at postgres://app:Zq8vN2kLr5TtY7wP@db.internal/app".to_string(),
            "URL with a password",
        ),
        (
            format!("set npm_{} in CI", &tok[4..]),
            "npm token",
        ),
        (
            "curl -H 'Authorization: Bearer 9fQ2mZx81LwK7rT0vBn4YcP6sHd3JgA5'".to_string(),
            "authorization header",
        ),
        (
            "api_key=a8f5f167f44f4964e6c998dee827110c".to_string(),
            "secret assigned",
        ),
    ] {
        let out = ws.run(&["checkpoint", "--session-done", &format!("{done}; tested")]);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(3), "{done}: {err}");
        assert!(err.contains(kind), "{done}: {err}");
    }
    assert_eq!(ws.snapshot(), before);
    assert_eq!(ws.event_count(), events);
}

#[test]
fn placeholders_and_class_names_are_not_secrets() {
    let ws = Ws::init();
    for done in [
        "documented AKIAIOSFODNN7EXAMPLE as the sample key; tested",
        "styled sk-button-primary-large-rounded; tested",
        "templated AKIAXXXXXXXXXXXXXXXX and password=<your-token>; tested",
    ] {
        ws.ok(&["checkpoint", "--session-done", done]);
    }
    assert_eq!(ws.json(&["status"])["secrets"], serde_json::json!([]));
}
