//! Session-start injection, host hooks and the nudge, driven the way a host drives them: the
//! real binary, JSON on stdin, the commands `install` wrote into the host's settings.

use crate::common;

use std::io::Write;
use std::process::Stdio;

use common::{Ws, text};
use serde_json::{Value, json};

mod block;
mod installed;
mod nudge;
mod provenance;
mod sessions;

/// Run `trilogy hook <host> <event>` with `payload` on stdin: (stdout, exit code).
fn hook(
    ws: &Ws,
    host: &str,
    event: &str,
    payload: &str,
    extra_env: &[(&str, &str)],
) -> (String, i32) {
    let mut c = ws.std_cmd();
    c.args(["hook", host, event])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in extra_env {
        c.env(k, v);
    }
    let mut child = c.spawn().unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(payload.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    (text(&out.stdout), out.status.code().unwrap_or(-1))
}

fn payload(ws: &Ws, session: &str, extra: Value) -> String {
    let mut v = json!({"session_id": session, "cwd": ws.root().display().to_string(), "transcript_path": "/nonexistent"});
    if let (Some(o), Value::Object(e)) = (v.as_object_mut(), extra) {
        o.extend(e);
    }
    v.to_string()
}

fn context(stdout: &str, event: &str) -> String {
    let v: Value =
        serde_json::from_str(stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {stdout:?}"));
    assert_eq!(v["hookSpecificOutput"]["hookEventName"], event);
    v["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap()
        .to_string()
}

fn claude(ws: &Ws, event: &str, session: &str, extra: Value) -> String {
    let (out, code) = hook(ws, "claude", event, &payload(ws, session, extra), &[]);
    assert_eq!(code, 0, "hooks always exit 0");
    out
}

fn turn(ws: &Ws, session: &str, now_ms: i64, work: bool, record: bool) -> String {
    let env = [("TRILOGY_NOW_MS", &*now_ms.to_string())];
    let p = |extra: Value| payload(ws, session, extra);
    let (out, _) = hook(
        ws,
        "claude",
        "user-prompt-submit",
        &p(json!({"prompt": "go"})),
        &env,
    );
    if work {
        hook(
            ws,
            "claude",
            "post-tool-use",
            &p(json!({"tool_name": "Bash", "tool_input": {"command": "cargo build"}})),
            &env,
        );
    } else {
        hook(
            ws,
            "claude",
            "post-tool-use",
            &p(json!({"tool_name": "Read", "tool_input": {}})),
            &env,
        );
    }
    if record {
        hook(
            ws,
            "claude",
            "post-tool-use",
            &p(json!({"tool_name": "mcp__trilogy__memory_checkpoint", "tool_input": {}})),
            &env,
        );
    }
    let (stop, code) = hook(
        ws,
        "claude",
        "stop",
        &p(json!({"stop_hook_active": false})),
        &env,
    );
    assert_eq!((stop.as_str(), code), ("", 0), "Stop never blocks");
    out
}

fn fixture(ws: &Ws) {
    let mut sessions = Vec::new();
    for i in 0..40 {
        let area = ["插件", "部署", "网络", "docs"][i % 4];
        sessions.push(json!({"done": format!("第 {i} 条：修好了第 {i} 个问题，cargo test 通过。{}", "细节 ".repeat(20)), "area": area, "next": "继续"}));
    }
    let decisions: Vec<Value> = (0..10)
        .map(|i| json!({"choice": format!("选择 {i}"), "over": "另一个方案", "because": "约束 ".repeat(30)}))
        .collect();
    let batch = json!({
        "sessions": sessions,
        "decisions": decisions,
        "project": [
            {"section": "这是什么", "text": "一个用来演示注入预算的项目。"},
            {"section": "怎么跑和怎么测", "text": "`cargo test`"},
            {"section": "现状", "text": "能跑。".repeat(50)},
        ]
    });
    ws.ok_stdin(&["checkpoint"], &batch.to_string());
}

/// `trilogy hook claude stop` with `transcript_path` pointing at `path`, under a 2 GiB address
/// space limit (a hook reading without a bound fails instead of eating the machine) and a hang
/// guard: (stdout, exit code).
fn stop_with_transcript(ws: &Ws, session: &str, path: &std::path::Path) -> (String, i32) {
    let inner = ws.std_cmd();
    let mut c = std::process::Command::new("sh");
    c.arg("-c")
        .arg(r#"ulimit -v 2097152 && exec "$0" "$@""#)
        .arg(inner.get_program())
        .args(inner.get_args())
        .args(["hook", "claude", "stop"]);
    for (k, v) in inner.get_envs() {
        match v {
            Some(v) => c.env(k, v),
            None => c.env_remove(k),
        };
    }
    let mut child = c
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let body = payload(
        ws,
        session,
        json!({"transcript_path": path.display().to_string(), "stop_hook_active": false}),
    );
    child
        .stdin
        .take()
        .unwrap()
        .write_all(body.as_bytes())
        .unwrap();
    // a hang guard only: a prompt answer takes well under a second
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    while child.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            child.kill().unwrap();
            let _ = child.wait();
            panic!("the stop hook hung on {}", path.display());
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let out = child.wait_with_output().unwrap();
    (text(&out.stdout), out.status.code().unwrap_or(-1))
}

/// Run the command `install` wrote into a host's settings for `event`, as the host does: in
/// the project, naming it in `env_var`.
fn run_installed(ws: &Ws, settings: &Value, event: &str, env_var: &str, payload: &str) -> String {
    let cmd = settings["hooks"][event][0]["hooks"][0]["command"]
        .as_str()
        .unwrap_or_else(|| panic!("no {event} hook in {settings}"));
    let mut child = std::process::Command::new("sh")
        .args(["-c", cmd])
        .current_dir(ws.root())
        .env("TRILOGY_TODAY", common::TODAY)
        .env("TRILOGY_CONFIG", ws.root().join("none.toml"))
        .env(env_var, ws.root())
        .env("XDG_STATE_HOME", ws.state.path())
        .env("XDG_DATA_HOME", ws.data_home())
        .env(common::CEILING, common::ceiling())
        .envs(common::LOCALE)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(payload.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    text(&out.stdout)
}
