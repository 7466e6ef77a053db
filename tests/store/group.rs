//! Group commit across processes, through the real binary: writers that arrive while another
//! process leads are applied in its transaction and each told its own outcome; a leader killed
//! before or after its commit loses no acknowledged batch and acknowledges none that did not
//! land; sixteen MCP servers writing at once lose and duplicate nothing.
//!
//! The leader is stopped at named points by `TRILOGY_GROUP_GATE=<dir>`: at each it creates
//! `<dir>/<point>.ready` and waits for `<dir>/<point>.go` (`drain`: before it claims the
//! waiting batches; `commit`: inside the transaction, every batch applied; `outcomes`: after
//! the commit, before any writer is answered).
//!
//! A running MCP server that drains the queue for short-lived writers is tested beside
//! (`drain.rs`), with the helpers here.

use crate::common;

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use common::{Ws, text};
use serde_json::{Value, json};

/// Wait (at most two minutes: a stuck test fails instead of hanging) until `cond` holds.
pub(super) fn wait_for(what: &str, mut cond: impl FnMut() -> bool) {
    let start = Instant::now();
    while !cond() {
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "gave up waiting for {what}"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

pub(super) fn queue(ws: &Ws) -> PathBuf {
    ws.root().join(".trilogy/queue")
}

pub(super) fn count(dir: &Path, suffix: &str) -> usize {
    std::fs::read_dir(dir).map_or(0, |rd| {
        rd.flatten()
            .filter(|e| e.file_name().to_string_lossy().ends_with(suffix))
            .count()
    })
}

/// A checkpoint of `batch` (JSON on stdin), spawned; `gate` stops it at the leader's points.
pub(super) fn spawn_checkpoint(ws: &Ws, batch: &Value, gate: Option<&Path>) -> Child {
    let mut c = ws.std_cmd();
    c.args(["checkpoint", "--json"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(g) = gate {
        c.env("TRILOGY_GROUP_GATE", g);
    }
    let mut child = c.spawn().unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(batch.to_string().as_bytes())
        .unwrap();
    child
}

pub(super) fn session(done: &str) -> Value {
    json!({"sessions": [{"done": done, "area": "group"}]})
}

/// Every memory file's text, sessions and archive together.
pub(super) fn all_sessions(ws: &Ws) -> String {
    let mut s = ws.read("SESSIONS.md");
    if ws.path("SESSIONS-archive.md").exists() {
        s.push_str(&ws.read("SESSIONS-archive.md"));
    }
    s
}

#[test]
fn a_bad_batch_fails_alone_and_a_repeated_batch_lands_once_inside_one_group() {
    let ws = Ws::init();
    let gate = tempfile::tempdir().unwrap();
    std::fs::write(gate.path().join("outcomes.go"), "").unwrap();
    let leader = spawn_checkpoint(
        &ws,
        &session("leader A wrote this; tested"),
        Some(gate.path()),
    );
    wait_for("the leader at its drain point", || {
        gate.path().join("drain.ready").exists()
    });
    let bad = json!({"project": [{"section": "现状", "line": "new state", "replaces": "a line nobody wrote"}]});
    let b = spawn_checkpoint(&ws, &bad, None);
    let c = spawn_checkpoint(&ws, &session("writer C grouped; tested"), None);
    wait_for("C spooled", || count(&queue(&ws), ".batch") == 3);
    // the same batch again: a retry that lands in the same group
    let d = spawn_checkpoint(&ws, &session("writer C grouped; tested"), None);
    wait_for("every batch spooled", || count(&queue(&ws), ".batch") == 4);
    std::fs::write(gate.path().join("drain.go"), "").unwrap();
    wait_for("the leader at its commit point", || {
        gate.path().join("commit.ready").exists()
    });
    // one group: the leader claimed all four
    assert_eq!(count(&queue(&ws), ".claimed"), 4);
    std::fs::write(gate.path().join("commit.go"), "").unwrap();

    let out = |c: Child| c.wait_with_output().unwrap();
    let (a, b, c, d) = (out(leader), out(b), out(c), out(d));
    assert!(a.status.success(), "{}", text(&a.stderr));
    assert!(c.status.success(), "{}", text(&c.stderr));
    assert!(d.status.success(), "{}", text(&d.stderr));
    assert!(!b.status.success(), "the bad batch was refused");
    assert!(
        text(&b.stderr).contains("project[0].replaces: no line of"),
        "the bad batch is told its own error: {}",
        text(&b.stderr)
    );
    let cv: Value = serde_json::from_slice(&c.stdout).unwrap();
    let dv: Value = serde_json::from_slice(&d.stdout).unwrap();
    let written = |v: &Value| v["written"].as_array().map_or(0, Vec::len);
    assert_eq!(
        written(&cv) + written(&dv),
        1,
        "one of the two identical batches wrote, the other wrote nothing new: {cv} {dv}"
    );
    let s = all_sessions(&ws);
    assert_eq!(s.matches("writer C grouped; tested").count(), 1, "{s}");
    assert_eq!(s.matches("leader A wrote this; tested").count(), 1, "{s}");
    assert!(!ws.read("PROJECT.md").contains("new state"));
    assert_eq!(
        count(&queue(&ws), ".batch") + count(&queue(&ws), ".claimed"),
        0
    );
    assert_eq!(count(&queue(&ws), ".done"), 0, "every outcome was taken");
}

/// Start a gated leader, let `n` writers spool behind it, release it into its transaction and
/// stop it at `point`; returns the leader and the writers with their texts.
fn leader_with_writers(
    ws: &Ws,
    gate: &Path,
    point: &str,
    n: usize,
) -> (Child, Vec<(Child, String)>) {
    let leader = spawn_checkpoint(ws, &session("the leader's own batch; tested"), Some(gate));
    wait_for("the leader at its drain point", || {
        gate.join("drain.ready").exists()
    });
    let mut writers = Vec::new();
    for i in 0..n {
        let t = format!("waiting writer {i}; tested");
        writers.push((spawn_checkpoint(ws, &session(&t), None), t));
    }
    wait_for("every batch spooled", || {
        count(&queue(ws), ".batch") == n + 1
    });
    for p in ["drain", "commit", "outcomes"] {
        if p != point {
            std::fs::write(gate.join(format!("{p}.go")), "").unwrap();
        }
    }
    wait_for("the leader at its stop", || {
        gate.join(format!("{point}.ready")).exists()
    });
    (leader, writers)
}

fn kill_and_check(ws: &Ws, mut leader: Child, writers: Vec<(Child, String)>) {
    leader.kill().unwrap(); // SIGKILL
    leader.wait().unwrap();
    let mut acked = Vec::new();
    for (c, t) in writers {
        let o = c.wait_with_output().unwrap();
        assert!(
            o.status.success(),
            "a waiting writer fails with its leader: {}",
            text(&o.stderr)
        );
        // told its own outcome: its entry was recorded (not "nothing new", as a second
        // application would say)
        let v: Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(v["written"].as_array().map_or(0, Vec::len), 1, "{t}: {v}");
        acked.push(t);
    }
    let s = all_sessions(ws);
    for t in &acked {
        assert_eq!(
            s.matches(t.as_str()).count(),
            1,
            "{t} acknowledged: present once\n{s}"
        );
    }
    // the dead leader's own batch was never acknowledged; it lands at most once
    assert!(s.matches("the leader's own batch; tested").count() <= 1);
    // and the store agrees with the files
    let before = ws.snapshot();
    ws.ok(&["status"]);
    assert_eq!(ws.snapshot(), before);
    let q = queue(ws);
    assert_eq!(
        count(&q, ".batch") + count(&q, ".claimed"),
        0,
        "nothing left behind"
    );
}

/// A leader with three writers behind it killed at `point`; its own batch is then in the files
/// `own` times.
fn leader_killed_at(point: &str, own: usize) {
    let ws = Ws::init();
    let gate = tempfile::tempdir().unwrap();
    let (leader, writers) = leader_with_writers(&ws, gate.path(), point, 3);
    kill_and_check(&ws, leader, writers);
    assert_eq!(
        all_sessions(&ws)
            .matches("the leader's own batch; tested")
            .count(),
        own
    );
}

#[test]
fn a_leader_killed_before_its_commit_loses_no_waiting_batch() {
    // killed before its commit, unanswered: its own batch recorded nothing
    leader_killed_at("commit", 0);
}

#[test]
fn a_leader_killed_after_its_commit_applies_nothing_twice() {
    // committed before it died: its own batch is there, once
    leader_killed_at("outcomes", 1);
}

/// The MCP handshake with a server on `stdin`/`reader`: initialize, its answer, initialized.
pub(super) fn handshake(stdin: &mut impl Write, reader: &mut impl BufRead) {
    writeln!(stdin, "{}", json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}})).unwrap();
    let mut line = String::new();
    reader.read_line(&mut line).unwrap();
    writeln!(
        stdin,
        "{}",
        json!({"jsonrpc":"2.0","method":"notifications/initialized"})
    )
    .unwrap();
}

#[test]
fn sixteen_mcp_servers_writing_at_once_lose_and_duplicate_nothing() {
    let ws = Ws::init();
    // a small live cap: sessions move into the archive while the servers write
    std::fs::write(
        ws.root().join("trilogy.toml"),
        "sessions_max_entries = 20\n",
    )
    .unwrap();
    let per = 6;
    let servers: Vec<_> = (0..16)
        .map(|k| {
            let root = ws.root().to_path_buf();
            let home = ws.state.path().to_path_buf();
            std::thread::spawn(move || {
                let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("trilogy"))
                    .arg("--root")
                    .arg(&root)
                    .arg("mcp")
                    .env("TRILOGY_CONFIG", root.join("none.toml"))
                    .envs(common::private_env(&home))
                    .env("TRILOGY_TODAY", common::TODAY)
                    .stdin(Stdio::piped())
                    .stdout(Stdio::piped())
                    .stderr(Stdio::null())
                    .spawn()
                    .unwrap();
                let mut stdin = child.stdin.take().unwrap();
                let mut reader = BufReader::new(child.stdout.take().unwrap());
                handshake(&mut stdin, &mut reader);
                let mut send = |v: Value| writeln!(stdin, "{v}").unwrap();
                let mut line = String::new();
                let mut acked = Vec::new();
                for i in 0..per {
                    let t = format!("server {k} write {i}; tested");
                    send(json!({"jsonrpc":"2.0","id":i + 1,"method":"tools/call","params":{"name":"memory_checkpoint","arguments":{"sessions":[{"done": t}]}}}));
                    line.clear();
                    reader.read_line(&mut line).unwrap();
                    let v: Value = serde_json::from_str(&line).unwrap();
                    if v["result"]["isError"] == false {
                        acked.push(t);
                    }
                }
                drop(stdin);
                child.wait().unwrap();
                acked
            })
        })
        .collect();
    let acked: Vec<String> = servers
        .into_iter()
        .flat_map(|s| s.join().unwrap())
        .collect();
    assert_eq!(acked.len(), 16 * per, "every write was acknowledged");
    let s = all_sessions(&ws);
    for t in &acked {
        assert_eq!(s.matches(t.as_str()).count(), 1, "{t}: present once");
    }
    let before = ws.snapshot();
    ws.ok(&["status"]);
    assert_eq!(ws.snapshot(), before);
}

#[test]
fn a_writer_that_waits_past_its_timeout_takes_its_batch_back_and_changes_nothing() {
    let ws = Ws::init();
    let gate = tempfile::tempdir().unwrap();
    let leader = spawn_checkpoint(
        &ws,
        &session("the leader's batch; tested"),
        Some(gate.path()),
    );
    wait_for("the leader at its drain point", || {
        gate.path().join("drain.ready").exists()
    });
    // the leader holds the lock until it is let go: this writer's short timeout runs out
    let mut c = ws.std_cmd();
    c.args(["checkpoint", "--session-done", "given up on; tested"])
        .env("TRILOGY_LOCK_TIMEOUT_MS", "200");
    let out = c.output().unwrap();
    assert_eq!(out.status.code(), Some(6), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("workspace busy"),
        "{}",
        text(&out.stderr)
    );
    for p in ["drain", "commit", "outcomes"] {
        std::fs::write(gate.path().join(format!("{p}.go")), "").unwrap();
    }
    let a = leader.wait_with_output().unwrap();
    assert!(a.status.success(), "{}", text(&a.stderr));
    let s = all_sessions(&ws);
    assert!(s.contains("the leader's batch; tested"));
    assert!(
        !s.contains("given up on; tested"),
        "a writer told busy changed nothing"
    );
    assert_eq!(
        count(&queue(&ws), ".batch") + count(&queue(&ws), ".claimed"),
        0
    );
}

#[test]
fn a_session_start_on_an_up_to_date_workspace_leaves_the_store_untouched() {
    let ws = Ws::init();
    ws.ok(&["checkpoint", "--session-done", "something to show; tested"]);
    let run = |id: &str| {
        let mut c = ws.std_cmd();
        c.args(["hook", "claude", "session-start"])
            .env("CLAUDE_PROJECT_DIR", ws.root())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped());
        let mut child = c.spawn().unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(common::session_start_payload(&ws, id).as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success());
        text(&out.stdout)
    };
    // the first hook after a write may settle what the write left; from then on a hook only
    // reads the store
    assert!(run("first").contains("something to show"));
    let store = ws.root().join(".trilogy/store.redb");
    let stat = |p: &Path| {
        let m = std::fs::metadata(p).unwrap();
        (m.len(), m.modified().unwrap())
    };
    let before = (stat(&store), std::fs::read(&store).unwrap());
    let block = run("second");
    assert!(block.contains("something to show"), "{block}");
    assert_eq!(
        (stat(&store), std::fs::read(&store).unwrap()),
        before,
        "the store was written"
    );
    // what the session was shown is remembered: the same block is not injected twice
    assert_eq!(run("second"), "", "the same block came twice");
}

/// A checkpoint of `batch` recorded for agent session `id`, spawned.
fn spawn_agent_checkpoint(ws: &Ws, id: &str, batch: &Value) -> Child {
    let mut c = ws.std_cmd();
    c.args(["checkpoint", "--json", "--agent-session", id])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = c.spawn().unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(batch.to_string().as_bytes())
        .unwrap();
    child
}

#[test]
fn each_grouped_batch_is_recorded_as_its_own_writer_and_session() {
    let ws = Ws::init();
    ws.ok_stdin(
        &["hook", "claude", "session-start"],
        &common::session_start_payload(&ws, "sess-9"),
    );
    let gate = tempfile::tempdir().unwrap();
    for point in ["commit", "outcomes"] {
        std::fs::write(gate.path().join(format!("{point}.go")), "").unwrap();
    }
    // the leader is the CLI; the agent's batch arrives while it waits, and joins its group
    let leader = spawn_checkpoint(
        &ws,
        &session("the CLI led this group; tested"),
        Some(gate.path()),
    );
    wait_for("the leader at its drain point", || {
        gate.path().join("drain.ready").exists()
    });
    let agent = spawn_agent_checkpoint(&ws, "sess-9", &session("the agent joined it; tested"));
    wait_for("both batches spooled", || count(&queue(&ws), ".batch") == 2);
    std::fs::write(gate.path().join("drain.go"), "").unwrap();
    for c in [leader, agent] {
        let out = c.wait_with_output().unwrap();
        assert!(out.status.success(), "{}", text(&out.stderr));
    }
    assert!(
        gate.path().join("commit.ready").exists(),
        "the leader applied the group"
    );
    let read = ws.json(&["read", "SESSIONS.md", "-n", "100"]);
    let entry = |needle: &str| {
        (read["entries"].as_array().unwrap().iter())
            .find(|e| e["body"].as_str().unwrap().contains(needle))
            .unwrap_or_else(|| panic!("no entry with {needle}: {read}"))
            .clone()
    };
    let (by_cli, by_agent) = (
        entry("the CLI led this group"),
        entry("the agent joined it"),
    );
    let p = &by_cli["provenance"];
    assert_eq!(p["agent_session"], Value::Null, "{p}");
    assert_eq!(p["via"], "cli", "{p}");
    let p = &by_agent["provenance"];
    assert_eq!(p["agent_session"], "sess-9", "{p}");
    assert_eq!(p["via"], "agent", "{p}");
    // the event log names each batch's own writer, not the leader
    let log = ws.json(&["log", "-n", "50"]);
    let adder = |e: &Value| {
        (log["events"].as_array().unwrap().iter())
            .find(|ev| ev["op"] == "add" && ev["ids"][0] == e["id"])
            .unwrap_or_else(|| panic!("no add event for {e}: {log}"))["actor"]
            .clone()
    };
    assert_eq!(adder(&by_cli), "cli", "{log}");
    assert_eq!(adder(&by_agent), "agent:sess-9", "{log}");
}
