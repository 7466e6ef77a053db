//! A running MCP server drains the checkpoint queue for short-lived writers (`ops::checkpoint::
//! drain`): it announces a mailbox on the loopback interface, a CLI writer wakes it there, and
//! it applies the CLI's batch with its open store. The server alone is stopped at the group
//! commit's points (`TRILOGY_GROUP_GATE`, as in `group.rs`), so reaching one proves it leads.

use crate::common;

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::Duration;

use common::{Ws, text};
use serde_json::{Value, json};

use super::group::{all_sessions, count, handshake, queue, session, spawn_checkpoint, wait_for};

/// A real MCP server on `ws` (its leader stopped at the points of `gate`), past its handshake
/// and one tool call, so it knows its workspace; returned once it announces its drain.
fn drain_server(ws: &Ws, gate: &Path) -> (Child, std::process::ChildStdin) {
    let served = mcp_server(ws, gate);
    let drain = queue(ws).join("drain");
    wait_for("the server's drain announcement", || count(&drain, "") == 1);
    served
}

/// A real MCP server on `ws`, past its handshake and one tool call (it knows its workspace).
fn mcp_server(ws: &Ws, gate: &Path) -> (Child, std::process::ChildStdin) {
    let mut c = ws.std_cmd();
    c.arg("mcp")
        .env("TRILOGY_GROUP_GATE", gate)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    let mut child = c.spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut reader = BufReader::new(child.stdout.take().unwrap());
    handshake(&mut stdin, &mut reader);
    writeln!(stdin, "{}", json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"memory_status","arguments":{}}})).unwrap();
    let mut line = String::new();
    reader.read_line(&mut line).unwrap();
    assert!(line.contains("\"id\":1"), "{line}");
    // the rest of its output is not read: keep the pipe drained so it never blocks
    std::thread::spawn(move || std::io::copy(&mut reader, &mut std::io::sink()));
    (child, stdin)
}

#[test]
fn a_cli_checkpoint_is_applied_by_a_running_mcp_server_with_its_open_store() {
    let ws = Ws::init();
    let gate = tempfile::tempdir().unwrap();
    let (mut server, stdin) = drain_server(&ws, gate.path());
    // only the server has the gate: its `drain` point is reached only if it leads for the CLI
    let cli = spawn_checkpoint(&ws, &session("applied by the server; tested"), None);
    wait_for("the server to lead", || {
        gate.path().join("drain.ready").exists()
    });
    assert_eq!(
        count(&queue(&ws), ".batch"),
        1,
        "the CLI's batch waits, unclaimed"
    );
    for p in ["drain", "commit", "outcomes"] {
        std::fs::write(gate.path().join(format!("{p}.go")), b"").unwrap();
    }
    let o = cli.wait_with_output().unwrap();
    assert!(o.status.success(), "{}", text(&o.stderr));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["written"].as_array().map_or(0, Vec::len), 1, "{v}");
    assert_eq!(
        all_sessions(&ws).matches("applied by the server").count(),
        1
    );
    // a server that stops takes its announcement back and closes its store cleanly
    drop(stdin);
    assert!(server.wait().unwrap().success());
    assert_eq!(count(&queue(&ws).join("drain"), ""), 0);
    let before = ws.snapshot();
    ws.ok(&["status"]);
    assert_eq!(ws.snapshot(), before);
    let doctor = ws.run(&["doctor"]);
    assert!(doctor.status.success(), "{}", text(&doctor.stdout));
}

#[test]
fn a_server_killed_while_it_applies_a_cli_checkpoint_leaves_the_cli_to_land_it() {
    let ws = Ws::init();
    let gate = tempfile::tempdir().unwrap();
    let (mut server, _stdin) = drain_server(&ws, gate.path());
    std::fs::write(gate.path().join("drain.go"), b"").unwrap();
    let cli = spawn_checkpoint(&ws, &session("outlived its server; tested"), None);
    // inside the server's transaction, the batch applied, nothing committed
    wait_for("the server's commit point", || {
        gate.path().join("commit.ready").exists()
    });
    server.kill().unwrap(); // SIGKILL
    server.wait().unwrap();
    let o = cli.wait_with_output().unwrap();
    assert!(o.status.success(), "{}", text(&o.stderr));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["written"].as_array().map_or(0, Vec::len), 1, "{v}");
    assert_eq!(all_sessions(&ws).matches("outlived its server").count(), 1);
    // the dead server's announcement is cleared by the next writer, which lands as well
    assert_eq!(count(&queue(&ws).join("drain"), ""), 1);
    ws.ok(&[
        "checkpoint",
        "--session-done",
        "after the server died; tested",
    ]);
    assert_eq!(count(&queue(&ws).join("drain"), ""), 0);
    assert_eq!(
        all_sessions(&ws).matches("after the server died").count(),
        1
    );
    let before = ws.snapshot();
    ws.ok(&["status"]);
    assert_eq!(ws.snapshot(), before);
    let q = queue(&ws);
    assert_eq!(count(&q, ".batch") + count(&q, ".claimed"), 0);
}

#[test]
fn a_server_is_woken_on_the_loopback_port_its_announcement_names() {
    let ws = Ws::init();
    let gate = tempfile::tempdir().unwrap();
    let (mut server, stdin) = drain_server(&ws, gate.path());
    let drain = queue(&ws).join("drain");
    let marker = std::fs::read_dir(&drain).unwrap().next().unwrap().unwrap();
    let name = marker.file_name().to_string_lossy().into_owned();
    let port: u16 = std::fs::read_to_string(marker.path())
        .unwrap()
        .parse()
        .expect("an announcement holds its mailbox's port");
    assert!(port > 0);
    drop(stdin);
    assert!(server.wait().unwrap().success());
    // the same settings announced by a live process (this test's) whose port is a stranger's
    // socket: the writer's word reaches it, nobody answers, and the writer lands its batch
    let stranger = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    stranger
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let (fp, _) = name.rsplit_once('-').unwrap();
    let fake = drain.join(format!("{fp}-{}", std::process::id()));
    std::fs::write(&fake, stranger.local_addr().unwrap().port().to_string()).unwrap();
    let cli = spawn_checkpoint(&ws, &session("landed past a deaf port; tested"), None);
    let mut buf = [0u8; 128];
    let n = stranger.recv(&mut buf).expect("the writer's word");
    let o = cli.wait_with_output().unwrap();
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(n > 0, "the word names the writer's ticket");
    assert_eq!(all_sessions(&ws).matches("past a deaf port").count(), 1);
    // an announcement that names no port is passed over, and kept while its process runs
    std::fs::write(&fake, "not a port").unwrap();
    ws.ok(&[
        "checkpoint",
        "--session-done",
        "past a broken announcement; tested",
    ]);
    assert_eq!(
        all_sessions(&ws)
            .matches("past a broken announcement")
            .count(),
        1
    );
    assert!(fake.exists());
}

#[cfg(unix)]
#[test]
fn a_drain_folder_linked_out_of_the_repository_is_never_written() {
    let ws = Ws::init();
    ws.ok(&["checkpoint", "--session-done", "first; tested"]);
    let outside = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(outside.path(), queue(&ws).join("drain")).unwrap();
    let gate = tempfile::tempdir().unwrap();
    let (mut server, stdin) = mcp_server(&ws, gate.path());
    ws.ok(&[
        "checkpoint",
        "--session-done",
        "beside a hostile link; tested",
    ]);
    assert_eq!(
        all_sessions(&ws).matches("beside a hostile link").count(),
        1
    );
    drop(stdin);
    assert!(server.wait().unwrap().success());
    assert_eq!(
        count(outside.path(), ""),
        0,
        "nothing written outside the workspace"
    );
}
