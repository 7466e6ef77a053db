//! The panel against hostile requests: a GET changes nothing and serves only registered
//! workspaces, a body is capped before it is read (and refused without the token before any of
//! it is buffered), the home folder is never a workspace, an instruction file is saved without
//! secrets, and SIGTERM stops the server within a second even with a request hanging.

use crate::common;
use crate::common::web;

use std::io::Write;
use std::net::TcpStream;
use std::time::{Duration, Instant};

use common::Ws;
use serde_json::json;
use web::{Server, enc, root};

/// Every path under `dir`, `.trilogy/` included.
fn names(dir: &std::path::Path) -> Vec<String> {
    let mut out: Vec<String> = walk(dir)
        .into_iter()
        .map(|p| p.strip_prefix(dir).unwrap().display().to_string())
        .collect();
    out.sort();
    out
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        }
        out.push(p);
    }
    out
}

#[test]
fn a_get_of_an_unregistered_folder_is_refused_and_creates_nothing() {
    let ws = Ws::init();
    let s = Server::start(&ws);
    // a folder with memory/ the panel was never told about (a cloned repository, say)
    let other = tempfile::tempdir().unwrap();
    std::fs::create_dir(other.path().join("memory")).unwrap();
    std::fs::write(other.path().join("memory/SESSIONS.md"), "# SESSIONS\n").unwrap();
    let before = names(other.path());
    let key = other.path().display().to_string();
    for path in [
        format!("/trilogy/files?root={}", enc(&key)),
        format!("/trilogy/events?root={}", enc(&key)),
        format!("/trilogy/search?root={}&q=x", enc(&key)),
        format!("/trilogy/history?root={}", enc(&key)),
        format!("/trilogy/export?root={}", enc(&key)),
        format!("/trilogy/boot?root={}", enc(&key)),
    ] {
        let r = s.get(&path);
        assert_eq!(r.status, 400, "{path}: {}", r.body);
        assert!(r.error().contains("未记录的工作区"), "{path}: {}", r.body);
    }
    assert_eq!(names(other.path()), before, "no .trilogy/, nothing at all");
    let listed = s.get("/trilogy/workspaces").json();
    assert!(
        !listed.to_string().contains(&key),
        "not registered: {listed}"
    );
}

#[test]
fn a_get_of_a_registered_workspace_without_a_store_creates_none() {
    let ws = Ws::init();
    let s = Server::start(&ws);
    let files = s.get(&format!("/trilogy/files?root={}", enc(&root(&ws))));
    assert_eq!(files.status, 200, "{}", files.body);
    std::fs::remove_dir_all(ws.root().join(".trilogy")).unwrap();
    let r = s.get(&format!("/trilogy/files?root={}", enc(&root(&ws))));
    assert_eq!(
        r.status, 200,
        "the files are served as they are: {}",
        r.body
    );
    assert!(r.json()["files"]["SESSIONS.md"]["text"].is_string());
    let r = s.get(&format!("/trilogy/events?root={}", enc(&root(&ws))));
    assert_eq!(r.status, 409, "{}", r.body);
    assert!(!ws.root().join(".trilogy").exists(), "no store was created");
}

#[test]
fn the_home_folder_is_never_made_a_workspace_by_the_panel() {
    let ws = Ws::init();
    let home = tempfile::tempdir().unwrap();
    let mut c = ws.std_cmd();
    c.env("HOME", home.path());
    let s = Server::start_with(&ws, c);
    let key = home.path().display().to_string();
    for (endpoint, body) in [
        ("/trilogy/init", json!({ "root": key })),
        (
            "/trilogy/import",
            json!({ "root": key, "bundle": { "kind": "dsh-trilogy/memory-bundle", "version": 1, "files": { "SESSIONS.md": "# SESSIONS\n" } } }),
        ),
    ] {
        let r = s.post(endpoint, &body);
        assert!(
            r.status == 400 || r.status == 409,
            "{endpoint}: {} {}",
            r.status,
            r.body
        );
    }
    assert_eq!(
        names(home.path()),
        Vec::<String>::new(),
        "nothing in the home folder"
    );
}

#[test]
fn a_large_body_without_the_token_is_refused_before_it_is_read() {
    let ws = Ws::init();
    let s = Server::start(&ws);
    // announce a large body and send only the head: the answer comes without the body,
    // refused by the fence without the token (250 MB) and by the announced length over the
    // 256 MiB cap with it (300 MB)
    for (token, size, status) in [
        (None, 250u64 << 20, "403"),
        (Some(s.token.as_str()), 300u64 << 20, "413"),
    ] {
        let mut conn = TcpStream::connect(("127.0.0.1", s.port)).unwrap();
        let head = format!(
            "POST /trilogy/import HTTP/1.1\r\nhost: {}\r\ncontent-type: application/json\r\n{}content-length: {}\r\nconnection: close\r\n\r\n",
            s.host(),
            token.map_or(String::new(), |t| format!("x-trilogy-token: {t}\r\n")),
            size
        );
        conn.write_all(head.as_bytes()).unwrap();
        conn.set_read_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        let mut answer = [0u8; 12];
        std::io::Read::read_exact(&mut conn, &mut answer).unwrap();
        let answer = String::from_utf8_lossy(&answer).into_owned();
        assert_eq!(answer, format!("HTTP/1.1 {status}"));
    }
}

#[test]
fn an_instruction_file_saved_from_the_panel_is_refused_with_a_secret() {
    let ws = Ws::init();
    let s = Server::start(&ws);
    let before = std::fs::read(ws.root().join("AGENTS.md")).unwrap();
    let token = format!("ghp_{}", "Zk3vQ9xLmP2tR8wYc5nB7dF1gH4jK6sA0eU2");
    let r = s.post(
        "/trilogy/save",
        &json!({ "root": root(&ws), "file": "AGENTS.md", "text": format!("# Agents\n\nuse {token}\n") }),
    );
    assert_eq!(r.status, 400, "{}", r.body);
    assert!(r.error().contains("GitHub token"), "{}", r.body);
    assert_eq!(std::fs::read(ws.root().join("AGENTS.md")).unwrap(), before);
}

#[test]
fn sigterm_stops_the_server_within_a_second_with_a_request_hanging() {
    let ws = Ws::init();
    let mut s = Server::start(&ws);
    // a client that sends half a request and waits
    let mut conn = TcpStream::connect(("127.0.0.1", s.port)).unwrap();
    conn.write_all(
        format!("GET /trilogy/workspaces HTTP/1.1\r\nhost: {}\r\n", s.host()).as_bytes(),
    )
    .unwrap();
    std::thread::sleep(Duration::from_millis(200));
    let pid = s.child.id().to_string();
    assert!(
        std::process::Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .unwrap()
            .success()
    );
    let asked = Instant::now();
    // a generous guard: the server's own limit is one second
    let exited = loop {
        if let Some(st) = s.child.try_wait().unwrap() {
            break Some(st);
        }
        if asked.elapsed() > Duration::from_secs(20) {
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(exited.is_some(), "serve still running 20 s after SIGTERM");
    drop(conn);
}

#[test]
fn a_panel_whose_working_folder_was_deleted_still_serves_its_workspaces() {
    let ws = Ws::init();
    let gone = tempfile::tempdir().unwrap();
    let mut c = ws.std_cmd();
    c.current_dir(gone.path());
    // registered by a command in the workspace itself
    ws.ok(&["checkpoint", "--session-done", "first kestrel run; tested"]);
    let s = Server::start_in(c);
    drop(gone);
    let r = s.get(&format!("/trilogy/files?root={}", enc(&root(&ws))));
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(r.body.contains("first kestrel"), "{}", r.body);
}
