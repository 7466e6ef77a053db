//! Cursor's installed hooks at work: the block once at session start, the reminder after a
//! turn that worked without recording, changes made elsewhere, and bad input.

use super::*;

// ----- Cursor's hooks -------------------------------------------------------------------

/// A `sessionStart` payload as Cursor sends it (the recorded shape: no `cwd`, the session in
/// both `conversation_id` and `session_id`, the project in `workspace_roots`).
fn session_start(ws: &Ws, id: &str) -> Value {
    json!({
        "conversation_id": id,
        "generation_id": id,
        "model": "claude-4.5-sonnet",
        "is_background_agent": false,
        "composer_mode": "agent",
        "session_id": id,
        "hook_event_name": "sessionStart",
        "cursor_version": "2.1.32",
        "workspace_roots": [ws.root().display().to_string()],
        "user_email": null,
        "transcript_path": null,
    })
}

fn payload(ws: &Ws, id: &str, event: &str, extra: Value) -> Value {
    let mut v = json!({
        "conversation_id": id,
        "generation_id": format!("{id}-g"),
        "model": "claude-4.5-sonnet",
        "hook_event_name": event,
        "cursor_version": "2.1.32",
        "workspace_roots": [ws.root().display().to_string()],
        "user_email": null,
        "transcript_path": null,
    });
    for (k, val) in extra.as_object().unwrap() {
        v[k] = val.clone();
    }
    v
}

/// Run `trilogy hook cursor <event>` from outside the project, as Cursor does (the project
/// is named only by the payload); the answer must be one JSON object.
fn hook(ws: &Ws, event: &str, input: &Value) -> Value {
    let out = ws
        .cmd()
        .env("HOME", home(ws))
        .current_dir(ws.state.path())
        .args(["hook", "cursor", event])
        .write_stdin(input.to_string())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    serde_json::from_str(stdout.trim())
        .unwrap_or_else(|e| panic!("{event}: not one JSON object ({e}): {stdout:?}"))
}

#[test]
fn cursor_session_start_answers_the_block_as_additional_context_once() {
    let ws = with_memory();
    let a = hook(&ws, "sessionStart", &session_start(&ws, "conv-1"));
    let block = a["additional_context"]
        .as_str()
        .unwrap_or_else(|| panic!("{a}"));
    assert!(block.contains("wired the editor hosts"), "{block}");
    assert_eq!(a.as_object().unwrap().len(), 1, "only Cursor's field: {a}");
    // the CLI's name for the event is the same event; the same session does not get it twice
    let again = hook(&ws, "session-start", &session_start(&ws, "conv-1"));
    assert_eq!(again, json!({}));
    let other = hook(&ws, "sessionStart", &session_start(&ws, "conv-2"));
    assert!(other["additional_context"].is_string(), "{other}");
}

#[test]
fn cursor_turn_that_worked_without_recording_gets_the_reminder_after_the_next_tool_call() {
    let ws = with_memory();
    let id = "conv-work";
    hook(&ws, "sessionStart", &session_start(&ws, id));
    let prompt = payload(
        &ws,
        id,
        "beforeSubmitPrompt",
        json!({"prompt": "fix it", "attachments": []}),
    );
    assert_eq!(
        hook(&ws, "beforeSubmitPrompt", &prompt),
        json!({"continue": true})
    );
    let write = payload(
        &ws,
        id,
        "postToolUse",
        json!({
            "tool_name": "Write",
            "tool_input": {"file_path": ws.root().join("x.rs").display().to_string(), "content": "fn main() {}\n"},
            "tool_output": "{\"success\":true}",
            "tool_use_id": "t1",
            "cwd": "",
            "duration": 12,
        }),
    );
    assert_eq!(
        hook(&ws, "postToolUse", &write),
        json!({}),
        "nothing owed yet"
    );
    let stop = payload(
        &ws,
        id,
        "stop",
        json!({"status": "completed", "loop_count": 0}),
    );
    assert_eq!(
        hook(&ws, "stop", &stop),
        json!({}),
        "never a follow-up message"
    );
    // the next turn: the prompt hook cannot carry context, the first tool result does
    assert_eq!(
        hook(&ws, "beforeSubmitPrompt", &prompt),
        json!({"continue": true})
    );
    let read_tool = payload(
        &ws,
        id,
        "postToolUse",
        json!({"tool_name": "Read", "tool_input": {"file_path": "/x"}, "tool_output": "{}", "cwd": ""}),
    );
    let owed = hook(&ws, "postToolUse", &read_tool);
    let text = owed["additional_context"]
        .as_str()
        .unwrap_or_else(|| panic!("{owed}"));
    assert!(text.contains("memory_checkpoint"), "the reminder: {text}");
    assert_eq!(
        hook(&ws, "postToolUse", &read_tool),
        json!({}),
        "given once"
    );
    let end = payload(
        &ws,
        id,
        "sessionEnd",
        json!({"session_id": id, "reason": "user_close", "duration_ms": 4000, "is_background_agent": false, "final_status": "completed"}),
    );
    assert_eq!(hook(&ws, "sessionEnd", &end), json!({}));
    let s = ws.json(&["sessions", "show", id]);
    assert_eq!(s["host"], "cursor");
    assert!(s["ended_at"].is_string(), "{s}");
}

#[test]
fn cursor_session_is_told_of_changes_made_elsewhere_and_a_recording_turn_owes_nothing() {
    let ws = with_memory();
    let id = "conv-notice";
    hook(&ws, "sessionStart", &session_start(&ws, id));
    ws.ok(&[
        "checkpoint",
        "--session-done",
        "done by a colleague; tested",
    ]);
    let prompt = payload(&ws, id, "beforeSubmitPrompt", json!({"prompt": "go on"}));
    hook(&ws, "beforeSubmitPrompt", &prompt);
    let shell = payload(
        &ws,
        id,
        "postToolUse",
        json!({"tool_name": "Shell", "tool_input": {"command": "cargo test", "cwd": ""}, "tool_output": "{\"exitCode\":0}"}),
    );
    let n = hook(&ws, "postToolUse", &shell);
    let notice = n["additional_context"]
        .as_str()
        .unwrap_or_else(|| panic!("{n}"));
    assert!(notice.contains("2026-11-29"), "{notice}");
    // the turn records through our MCP tool: no reminder after it
    let record = payload(
        &ws,
        id,
        "postToolUse",
        json!({"tool_name": "memory_checkpoint", "tool_input": {"sessions": [{"done": "x"}]}, "tool_output": "{}"}),
    );
    hook(&ws, "postToolUse", &record);
    hook(
        &ws,
        "stop",
        &payload(
            &ws,
            id,
            "stop",
            json!({"status": "completed", "loop_count": 0}),
        ),
    );
    hook(&ws, "beforeSubmitPrompt", &prompt);
    assert_eq!(hook(&ws, "postToolUse", &shell), json!({}));
}

#[test]
fn cursor_hook_on_bad_input_prints_nothing_and_exits_zero() {
    let ws = with_memory();
    for (event, stdin) in [("sessionStart", "not json"), ("preToolUse", "{}")] {
        let out = ws
            .cmd()
            .args(["hook", "cursor", event])
            .write_stdin(stdin)
            .output()
            .unwrap();
        assert!(out.status.success());
        assert_eq!(text(&out.stdout), "", "{event}");
    }
}
