//! Drafts from the hosts' recorded transcripts (the e2e runs' fixtures): the work after the
//! last checkpoint is drafted, a session whose last work was recorded gives none.

use super::*;

/// A recorded transcript of the e2e runs, read when the test runs (never built in).
fn fixture(name: &str) -> String {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/recall");
    std::fs::read_to_string(dir.join(name)).unwrap()
}

fn hosts() -> [(Host, String); 3] {
    [
        (Host::Claude, fixture("claude.jsonl")),
        (Host::Codex, fixture("codex.jsonl")),
        (Host::Gemini, fixture("gemini.jsonl")),
    ]
}

fn day() -> NaiveDate {
    NaiveDate::from_ymd_opt(2026, 12, 6).unwrap()
}

fn drafted(host: Host, text: &str, lang: Lang) -> Draft {
    match draft_of(host, text, Path::new("/ws"), day(), lang) {
        Outcome::Drafted(d) => d,
        other => panic!("{host:?}: {other:?}"),
    }
}

/// `text` up to (not including) the first line holding `mark`.
fn before(text: &str, mark: &str) -> String {
    let at = text.find(mark).unwrap();
    let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    text[..start].to_string()
}

#[test]
fn each_host_drafts_the_work_after_its_last_checkpoint() {
    for (host, text) in hosts() {
        let text = text.as_str();
        let d = drafted(host, text, Lang::En);
        assert_eq!(d.goal.as_deref(), Some("CDSUB please"), "{host:?}: {d:?}");
        // Codex's run goes on to a second piece of work (`WORK in sub`) after it
        assert!(d.ran[0].command.contains("mkdir -p sub"), "{host:?}: {d:?}");
        assert!(d.ran.iter().all(|r| r.ok == Some(true)), "{host:?}: {d:?}");
        assert!(
            d.body.contains("`mkdir -p sub && cd sub && pwd`"),
            "{}",
            d.body
        );
        assert!(
            d.body
                .starts_with("Done: (draft from the session transcript"),
            "{}",
            d.body
        );
        assert!(d.body.contains("(unverified)"), "{}", d.body);
        assert_eq!(d.heading, "2026-12-06");
        // the same transcript, the same draft
        assert_eq!(drafted(host, text, Lang::En), d);
    }
}

#[test]
fn a_session_whose_last_work_was_recorded_gives_no_draft() {
    for (host, text) in hosts() {
        let (text, work) = (text.as_str(), "CDSUB please");
        let upto = before(text, work);
        let got = draft_of(host, &upto, Path::new("/ws"), day(), Lang::En);
        assert_eq!(got, Outcome::Recorded, "{host:?}");
        // before its checkpoint the same session had work to draft: the first request's
        let upto = before(text, "SAVE ");
        let d = drafted(host, &upto, Lang::Zh);
        assert!(
            d.ran
                .iter()
                .any(|r| r.command.contains("echo hello > note.txt")),
            "{host:?}: {d:?}"
        );
        assert!(
            d.body.starts_with("完成：（草稿：由会话记录整理"),
            "{}",
            d.body
        );
        assert!(
            d.body
                .ends_with(&format!("下一步：{}", d.next.clone().unwrap())),
            "{}",
            d.body
        );
        // nothing done at all: nothing drafted
        let idle = before(text, "WORK please");
        assert_eq!(
            draft_of(host, &idle, Path::new("/ws"), day(), Lang::En),
            Outcome::NoWork,
            "{host:?}"
        );
    }
}

#[test]
fn edits_tests_and_credentials_are_said_as_a_person_would_read_them() {
    let lines = [
        r#"{"type":"user","message":{"role":"user","content":"fix the parser; token ghp_R8x2Kq9LmZ4vT7nW1pY6sJ3dF0hG5cB2aE8u is mine"}}"#,
        r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1","name":"Edit","input":{"file_path":"/ws/src/parse.rs"}},{"type":"tool_use","id":"t2","name":"Bash","input":{"command":"cargo test"}}]}}"#,
        r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t2","is_error":true,"content":"Error: Exit code 101\nfailed"}]}}"#,
        r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t3","name":"Write","input":{"file_path":"/elsewhere/notes.md"}},{"type":"tool_use","id":"t4","name":"Bash","input":{"command":"cargo test"}}]}}"#,
        r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t4","is_error":false,"content":"ok"}]}}"#,
        r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t5","name":"Bash","input":{"command":"cargo build --release"}}]}}"#,
        r#"{"type":"assistant","message":{"content":[{"type":"text","text":"Next I will add a test for the empty file."}]}}"#,
    ];
    let text = lines.join("\n") + "\n";
    let d = drafted(Host::Claude, &text, Lang::En);
    assert_eq!(d.edited, ["src/parse.rs", "/elsewhere/notes.md"]);
    // one line per command, as it last ended: the failed run then passed
    assert_eq!(d.ran.len(), 2, "{d:?}");
    assert_eq!(
        (d.ran[0].command.as_str(), d.ran[0].ok, d.ran[0].test),
        ("cargo test", Some(true), true)
    );
    assert_eq!(
        (d.ran[1].ok, d.ran[1].exit),
        (None, None),
        "no result yet: {d:?}"
    );
    assert!(d.body.contains("`cargo test` passed"), "{}", d.body);
    assert!(
        d.body.contains("`cargo build --release` (no result)"),
        "{}",
        d.body
    );
    assert!(
        !d.body.contains("ghp_R8x2Kq9LmZ4vT7nW1pY6sJ3dF0hG5cB2aE8u"),
        "{}",
        d.body
    );
    assert!(
        d.body
            .ends_with("Next: Next I will add a test for the empty file."),
        "{}",
        d.body
    );
    // a failure is said with its code
    let failed = lines[..3].join("\n") + "\n";
    let d = drafted(Host::Claude, &failed, Lang::En);
    assert!(
        d.body.contains("`cargo test` failed (exit 101)"),
        "{}",
        d.body
    );
}

#[test]
fn a_long_session_is_drafted_within_its_bounds() {
    let mut lines = vec![format!(
        r#"{{"type":"user","message":{{"role":"user","content":"{}"}}}}"#,
        "word ".repeat(200)
    )];
    for k in 0..40 {
        lines.push(format!(
            r#"{{"type":"assistant","message":{{"content":[{{"type":"tool_use","id":"e{k}","name":"Edit","input":{{"file_path":"/ws/f{k}.rs"}}}},{{"type":"tool_use","id":"b{k}","name":"Bash","input":{{"command":"step {k}"}}}}]}}}}"#
        ));
    }
    let d = drafted(Host::Claude, &(lines.join("\n") + "\n"), Lang::En);
    assert_eq!(d.edited.len(), 40);
    assert!(d.body.contains("and 32 more"), "{}", d.body);
    assert!(
        d.body.contains("`step 39`") && !d.body.contains("`step 33`"),
        "{}",
        d.body
    );
    assert!(d.body.len() < 1500, "{} bytes", d.body.len());
}

#[test]
fn a_checkpoint_that_failed_leaves_the_work_before_it_to_draft_and_the_request_is_found_above() {
    let user =
        |t: &str| format!(r#"{{"type":"user","message":{{"role":"user","content":"{t}"}}}}"#);
    let call = |id: &str, name: &str, input: &str| {
        format!(
            r#"{{"type":"assistant","message":{{"content":[{{"type":"tool_use","id":"{id}","name":"{name}","input":{input}}}]}}}}"#
        )
    };
    let result = |id: &str, err: bool| {
        format!(
            r#"{{"type":"user","message":{{"content":[{{"type":"tool_result","tool_use_id":"{id}","is_error":{err},"content":"x"}}]}}}}"#
        )
    };
    let failed = [
        user("fix x"),
        call("b1", "Bash", r#"{"command":"cargo test"}"#),
        result("b1", false),
        call("c1", "mcp__trilogy__memory_checkpoint", "{}"),
        result("c1", true),
    ];
    let d = drafted(Host::Claude, &(failed.join("\n") + "\n"), Lang::En);
    assert_eq!(d.goal.as_deref(), Some("fix x"), "{d:?}");
    assert_eq!(d.ran[0].command, "cargo test", "{d:?}");
    // a checkpoint that wrote, then more work with no new request: the request above it
    let after = [
        user("fix y"),
        call("c1", "mcp__trilogy__memory_checkpoint", "{}"),
        result("c1", false),
        call("b2", "Bash", r#"{"command":"ls"}"#),
        result("b2", false),
    ];
    let d = drafted(Host::Claude, &(after.join("\n") + "\n"), Lang::En);
    assert_eq!(d.goal.as_deref(), Some("fix y"), "{d:?}");
    assert_eq!(d.ran.len(), 1, "only the work after the checkpoint: {d:?}");
}
