//! What waking a running MCP server costs a short-lived writer, and what a session start costs,
//! this build against a baseline binary in the same run.
//!
//! For each binary (this build's release `trilogy`, and `BENCH_BASELINE_BIN`, e.g. the previous
//! release built from git), a workspace of its own is made (`init`, 50 sessions), and a real MCP
//! server is started on it (handshake and one tool call, so it serves its drain). Then, in
//! turns A, B, A, B… (so a busy moment of a shared machine weighs on both):
//! - `checkpoint --session-done …` from the CLI, unique text each time: the server is woken
//!   and applies the batch with its open store (the writer finds it announced, sends its ticket,
//!   waits for the word);
//! - `hook claude session-start` with Claude Code's payload (a new session id each time).
//!
//! A sample is the wall time of the whole process. Reported: each median and the ratio of this
//! build to the baseline; at the end every checkpoint is looked for in SESSIONS.md.
//!
//! A plain program (`harness = false`): `BENCH_BASELINE_BIN=/path/to/old/trilogy cargo bench
//! --bench wake`. Without a baseline it measures this build alone and says so. Knob:
//! `BENCH_WAKE_ITERS` (100). Without `--bench` (as `cargo test --benches` runs it) it makes 3
//! turns, to prove the bench runs.

// only the binary's path, the scratch folders and the knobs are used here
#[allow(dead_code)]
#[path = "gen/mod.rs"]
mod r#gen;

use std::io::{BufRead, BufReader, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;

struct Side {
    name: &'static str,
    bin: PathBuf,
    _scratch: tempfile::TempDir,
    root: PathBuf,
    server: Child,
    checkpoint: Vec<Duration>,
    session_start: Vec<Duration>,
    written: Vec<String>,
}

fn command(bin: &Path, root: &Path) -> Command {
    let mut c = Command::new(bin);
    c.arg("--root").arg(root);
    for (k, _) in std::env::vars_os() {
        let k = k.to_string_lossy().into_owned();
        if k.starts_with("TRILOGY_") || k.starts_with("XDG_") {
            c.env_remove(k);
        }
    }
    // the user's folders beside the project, never above it
    let user = root.with_file_name("user");
    c.env("HOME", user.join("home"))
        .env("XDG_STATE_HOME", user.join("state"))
        .env("XDG_CONFIG_HOME", user.join("config"))
        .env("XDG_DATA_HOME", user.join("data"))
        .env("XDG_CACHE_HOME", user.join("cache"));
    c
}

fn ok(mut c: Command, stdin: Option<&str>) -> Duration {
    c.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let t = Instant::now();
    let mut child = c.spawn().expect("spawn trilogy");
    if let Some(s) = stdin {
        child.stdin.take().unwrap().write_all(s.as_bytes()).unwrap();
    }
    let out = child.wait_with_output().unwrap();
    let took = t.elapsed();
    assert!(
        out.status.success(),
        "{:?}: {}",
        c,
        String::from_utf8_lossy(&out.stderr)
    );
    took
}

/// A real MCP server on `root`, past its handshake and one tool call (it knows its workspace
/// and serves its drain); returned once it announced itself.
fn serve(bin: &Path, root: &Path) -> Child {
    let mut c = command(bin, root);
    c.arg("mcp")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    let mut child = c.spawn().expect("spawn trilogy mcp");
    let mut stdin = child.stdin.take().unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    let init = json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{
        "protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}});
    writeln!(stdin, "{init}").unwrap();
    out.read_line(&mut line).unwrap();
    writeln!(
        stdin,
        "{}",
        json!({"jsonrpc":"2.0","method":"notifications/initialized"})
    )
    .unwrap();
    let status = json!({"jsonrpc":"2.0","id":2,"method":"tools/call",
        "params":{"name":"memory_status","arguments":{}}});
    writeln!(stdin, "{status}").unwrap();
    line.clear();
    out.read_line(&mut line).unwrap();
    assert!(line.contains("\"id\":2"), "{line}");
    // keep its output drained; its stdin stays open while the bench runs
    std::thread::spawn(move || std::io::copy(&mut out, &mut std::io::sink()));
    std::mem::forget(stdin);
    let drain = root.join(".trilogy/queue/drain");
    let t = Instant::now();
    while std::fs::read_dir(&drain).map_or(0, |d| d.count()) == 0 {
        assert!(
            t.elapsed() < Duration::from_secs(60),
            "the server never announced itself"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    child
}

fn side(name: &'static str, bin: PathBuf) -> Side {
    let scratch = r#gen::scratch_dir(&format!("wake-{name}"));
    let root = scratch.path().join("project");
    std::fs::create_dir_all(&root).unwrap();
    let mut init = command(&bin, &root);
    init.arg("init");
    ok(init, None);
    for i in 0..50 {
        let mut c = command(&bin, &root);
        c.args(["checkpoint", "--session-done"]).arg(format!(
            "history {i}: the wake bench's setup; tested by the bench"
        ));
        ok(c, None);
    }
    let server = serve(&bin, &root);
    Side {
        name,
        bin,
        _scratch: scratch,
        root,
        server,
        checkpoint: Vec::new(),
        session_start: Vec::new(),
        written: Vec::new(),
    }
}

fn turn(s: &mut Side, i: usize) {
    let text = format!(
        "turn {i} of {}: woke the server; tested by the bench",
        s.name
    );
    let mut c = command(&s.bin, &s.root);
    c.args(["checkpoint", "--session-done", &text]);
    s.checkpoint.push(ok(c, None));
    s.written.push(text);
    let payload = json!({
        "session_id": format!("bench-{i}"),
        "transcript_path": s.root.join("t.jsonl"),
        "cwd": &s.root,
        "hook_event_name": "SessionStart",
        "source": "startup",
    })
    .to_string();
    let mut c = command(&s.bin, &s.root);
    c.args(["hook", "claude", "session-start"]);
    s.session_start.push(ok(c, Some(&payload)));
}

fn median(v: &[Duration]) -> Duration {
    let mut v = v.to_vec();
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    let iters = if full {
        r#gen::env_usize("BENCH_WAKE_ITERS", 100)
    } else {
        3
    };
    let mut sides = vec![side("this", r#gen::trilogy_bin(None))];
    match std::env::var_os("BENCH_BASELINE_BIN") {
        Some(b) => sides.push(side("baseline", PathBuf::from(b))),
        None => eprintln!("[wake] no BENCH_BASELINE_BIN: this build alone, no ratio"),
    }
    for i in 0..iters {
        for s in sides.iter_mut() {
            turn(s, i);
        }
    }
    for s in sides.iter_mut() {
        let sessions = std::fs::read_to_string(s.root.join("memory/SESSIONS.md")).unwrap();
        let lost = s
            .written
            .iter()
            .filter(|t| !sessions.contains(t.as_str()))
            .count();
        assert_eq!(lost, 0, "{}: {lost} checkpoints lost", s.name);
        let _ = s.server.kill();
        let _ = s.server.wait();
    }
    println!("wake: {iters} turns, medians of the whole process's wall time");
    for s in &sides {
        println!(
            "  {:<8} checkpoint beside a server {:>9}   session-start hook {:>9}   ({})",
            s.name,
            r#gen::fmt_duration(median(&s.checkpoint)),
            r#gen::fmt_duration(median(&s.session_start)),
            s.bin.display()
        );
    }
    if let [this, base] = &sides[..] {
        let r = |a: &[Duration], b: &[Duration]| median(a).as_secs_f64() / median(b).as_secs_f64();
        println!(
            "  ratio this/baseline: checkpoint beside a server {:.3}x (target <= 1.1), session-start hook {:.3}x (target <= 1.05)",
            r(&this.checkpoint, &base.checkpoint),
            r(&this.session_start, &base.session_start)
        );
    }
}
