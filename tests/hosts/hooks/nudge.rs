//! The reminder to record: when it comes, its cooldown and maximum, the transcript as the
//! fallback, and a stop hook that answers promptly whatever the transcript path holds.

use super::*;

#[test]
fn nudge_follows_work_cooldown_maximum_and_resets_on_record() {
    let ws = Ws::init();
    std::fs::write(
        ws.root().join("trilogy.toml"),
        "nudge_max_per_session = 2\nnudge_cooldown_ms = 600000\n",
    )
    .unwrap();
    claude(&ws, "session-start", "s", json!({"source": "startup"}));
    let min = 60_000;
    let t0 = 1_800_000_000_000i64;
    assert_eq!(
        turn(&ws, "s", t0, true, false),
        "",
        "no reminder on the first prompt"
    );
    let next = turn(&ws, "s", t0 + min, true, false);
    assert!(
        next.contains("记忆提醒"),
        "work without record → reminder on the next prompt: {next}"
    );
    assert_eq!(
        turn(&ws, "s", t0 + 2 * min, true, false),
        "",
        "the nudge of the previous turn fell in the cooldown"
    );
    let later = turn(&ws, "s", t0 + 13 * min, true, false);
    assert!(
        later.is_empty(),
        "delivered only one per owed turn: {later}"
    );
    let second = turn(&ws, "s", t0 + 30 * min, false, false);
    assert!(
        second.contains("记忆提醒"),
        "after the cooldown the second reminder: {second}"
    );
    assert_eq!(
        turn(&ws, "s", t0 + 60 * min, true, false),
        "",
        "a turn with no work owes nothing"
    );
    assert_eq!(
        turn(&ws, "s", t0 + 90 * min, true, false),
        "",
        "maximum of 2 reached"
    );
    // a recording turn resets the count
    turn(&ws, "s", t0 + 91 * min, true, true);
    turn(&ws, "s", t0 + 92 * min, true, false);
    let after_reset = turn(&ws, "s", t0 + 93 * min, false, false);
    assert!(after_reset.contains("记忆提醒"), "{after_reset}");
}

#[test]
fn transcript_is_the_fallback_when_no_tool_hook_reported() {
    let ws = Ws::init();
    claude(&ws, "session-start", "t", json!({"source": "startup"}));
    let tr = ws.root().join("t.jsonl");
    std::fs::write(
        &tr,
        [
            r#"{"type":"user","message":{"role":"user","content":"please fix"}}"#,
            r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"1","name":"Write","input":{"file_path":"/a"}}]}}"#,
        ]
        .join("\n"),
    )
    .unwrap();
    claude(
        &ws,
        "user-prompt-submit",
        "t",
        json!({"prompt": "please fix"}),
    );
    claude(
        &ws,
        "stop",
        "t",
        json!({"transcript_path": tr.display().to_string()}),
    );
    let n = claude(&ws, "user-prompt-submit", "t", json!({"prompt": "next"}));
    assert!(context(&n, "UserPromptSubmit").contains("记忆提醒"));
}

#[cfg(unix)]
#[test]
fn stop_hook_with_dev_zero_as_transcript_answers_promptly() {
    let ws = Ws::init();
    claude(&ws, "session-start", "z", json!({"source": "startup"}));
    let got = stop_with_transcript(&ws, "z", std::path::Path::new("/dev/zero"));
    assert_eq!(got, (String::new(), 0));
    // the largest resident size of any process this test binary has waited for, in KiB: every
    // hook (this one included) stays far below what reading /dev/zero to its limit takes
    let peak_kib = nix::sys::resource::getrusage(nix::sys::resource::UsageWho::RUSAGE_CHILDREN)
        .unwrap()
        .max_rss();
    assert!(peak_kib < 256 * 1024, "a hook held {peak_kib} KiB");
}

#[test]
fn stop_hook_with_a_fifo_as_transcript_answers_promptly() {
    let ws = Ws::init();
    claude(&ws, "session-start", "f", json!({"source": "startup"}));
    let fifo = ws.root().join("t.fifo");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    // nobody ever opens the writing end
    let got = stop_with_transcript(&ws, "f", &fifo);
    assert_eq!(got, (String::new(), 0));
}

#[test]
fn stop_hook_reads_only_the_tail_of_a_huge_sparse_transcript() {
    let ws = Ws::init();
    claude(&ws, "session-start", "h", json!({"source": "startup"}));
    let tr = ws.root().join("huge.jsonl");
    let mut f = std::fs::File::create(&tr).unwrap();
    f.set_len(64 << 30).unwrap();
    use std::io::Seek;
    f.seek(std::io::SeekFrom::End(0)).unwrap();
    let turn = [
        r#"{"type":"user","message":{"role":"user","content":"please fix"}}"#,
        r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"1","name":"Write","input":{"file_path":"/a"}}]}}"#,
    ];
    writeln!(f, "\n{}", turn.join("\n")).unwrap();
    drop(f);
    claude(
        &ws,
        "user-prompt-submit",
        "h",
        json!({"prompt": "please fix"}),
    );
    assert_eq!(stop_with_transcript(&ws, "h", &tr), (String::new(), 0));
    // the tail was read: the edit it records earns the nudge
    let n = claude(&ws, "user-prompt-submit", "h", json!({"prompt": "next"}));
    assert!(context(&n, "UserPromptSubmit").contains("记忆提醒"), "{n}");
}

#[test]
fn stop_hook_with_a_directory_as_transcript_answers_promptly() {
    let ws = Ws::init();
    claude(&ws, "session-start", "d", json!({"source": "startup"}));
    let got = stop_with_transcript(&ws, "d", ws.root());
    assert_eq!(got, (String::new(), 0));
}
