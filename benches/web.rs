//! Panel latency over HTTP, measured from a client in the same run, beside the MCP
//! `memory_read` figure.
//!
//! For each scale (1k and 100k entries, from `benches/gen`), the bench starts the binary as
//! `trilogy serve --port 0 --json` in the workspace (its registry in a scratch folder) and as
//! `trilogy --root <ws> mcp`, then times, client side, one fresh TCP connection per request
//! (`connection: close`, as a first page load has no connection to reuse):
//! - the floor: `GET /trilogy/panel.css` (a static asset: connect, fence, framing, no work);
//! - `GET /trilogy/files?root=` alone (the four files' text, `staleness`, the instruction
//!   file): at 100k the archive dominates;
//! - the page load: `GET /trilogy/` then the first `/files`, back to back;
//! - MCP `memory_read {"section":"现状"}` over stdio, and MCP `ping` (its floor);
//! - the workspace open of the reworked page: its seven requests back to back (the page,
//!   `/info`, `/workspaces`, `/attention`, `/injection`, the first 50 cards, `/files` without
//!   the archive's text), and `/injection` alone.
//!
//! Every figure is p50/p90/p99 over many iterations, and the summary gives each as a ratio to
//! its floor. This is a plain program (`harness = false`): `cargo bench --bench web`. Knobs
//! (env): `BENCH_WEB_SCALES` (default `1000,100000`), `BENCH_WEB_ITERS` (200; the 100k `/files`
//! and page load use a fifth of it), `BENCH_WEB_BIN` (a trilogy binary to use instead).
//! Without `--bench` (e.g. `cargo test --benches`) it is a smoke run: 1k, 5 iterations.

#[path = "gen/mod.rs"]
mod r#gen;

use r#gen::fmt_duration as fmt;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

struct Stats {
    name: String,
    samples: Vec<Duration>,
}

impl Stats {
    fn new(name: impl Into<String>) -> Stats {
        Stats {
            name: name.into(),
            samples: Vec::new(),
        }
    }

    fn pct(&self, p: f64) -> Duration {
        let mut s = self.samples.clone();
        s.sort();
        r#gen::percentile(&s, p)
    }

    fn p50(&self) -> Duration {
        self.pct(50.0)
    }

    fn line(&self) -> String {
        format!(
            "{:<40} n={:<4} p50 {:>10} p90 {:>10} p99 {:>10}",
            self.name,
            self.samples.len(),
            fmt(self.p50()),
            fmt(self.pct(90.0)),
            fmt(self.pct(99.0)),
        )
    }
}

fn ratio(a: Duration, b: Duration) -> f64 {
    a.as_secs_f64() / b.as_secs_f64().max(1e-12)
}

/// Environment of a spawned trilogy: no TRILOGY_* settings of the caller's, no host.
fn clean(cmd: &mut Command, scratch: &Path) {
    for (k, _) in std::env::vars_os() {
        let k = k.to_string_lossy().into_owned();
        if k.starts_with("TRILOGY_") || k == "CLAUDE_PROJECT_DIR" {
            cmd.env_remove(k);
        }
    }
    cmd.env("XDG_CONFIG_HOME", scratch.join("cfg"))
        .env("XDG_DATA_HOME", scratch.join("data"))
        .env("XDG_STATE_HOME", scratch.join("state"))
        .env("DSH_HOME", scratch.join("dsh"));
}

/// One HTTP request on a fresh connection; returns (status, body bytes).
fn http(port: u16, path: &str) -> (u16, usize) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    let req = format!("GET {path} HTTP/1.1\r\nhost: 127.0.0.1:{port}\r\nconnection: close\r\n\r\n");
    s.write_all(req.as_bytes()).unwrap();
    let mut raw = Vec::with_capacity(1 << 16);
    s.read_to_end(&mut raw).unwrap();
    let head_end = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("an HTTP head");
    let status = std::str::from_utf8(&raw[9..12]).unwrap().parse().unwrap();
    (status, raw.len() - head_end - 4)
}

fn timed(port: u16, path: &str) -> (Duration, usize) {
    let t = Instant::now();
    let (status, bytes) = http(port, path);
    let d = t.elapsed();
    assert_eq!(status, 200, "GET {path}");
    (d, bytes)
}

struct Mcp {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    id: u64,
}

impl Mcp {
    fn start(bin: &Path, root: &Path, scratch: &Path) -> Mcp {
        let mut cmd = Command::new(bin);
        cmd.arg("--root").arg(root).arg("mcp");
        clean(&mut cmd, scratch);
        let mut child = cmd
            .current_dir(root)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn trilogy mcp");
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let mut m = Mcp {
            child,
            stdin,
            stdout,
            id: 0,
        };
        m.request(
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "trilogy-web-bench", "version": "0"}}),
        );
        m.stdin
            .write_all(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n")
            .unwrap();
        m
    }

    fn request(&mut self, method: &str, params: Value) -> (Duration, Value) {
        self.id += 1;
        let mut req = json!({"jsonrpc": "2.0", "id": self.id, "method": method});
        if !params.is_null() {
            req["params"] = params;
        }
        let mut line = serde_json::to_vec(&req).unwrap();
        line.push(b'\n');
        let t = Instant::now();
        self.stdin.write_all(&line).unwrap();
        loop {
            let mut reply = String::new();
            assert!(self.stdout.read_line(&mut reply).unwrap() > 0, "mcp closed");
            let v: Value = serde_json::from_str(&reply).unwrap();
            if v.get("id") == Some(&json!(self.id)) && v.get("method").is_none() {
                return (t.elapsed(), v);
            }
            if let (Some(_), Some(rid)) = (v.get("method"), v.get("id")) {
                let err = json!({"jsonrpc":"2.0","id":rid,"error":{"code":-32601,"message":"no"}});
                let mut b = serde_json::to_vec(&err).unwrap();
                b.push(b'\n');
                self.stdin.write_all(&b).unwrap();
            }
        }
    }
}

impl Drop for Mcp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

struct Serve(Child);

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn run_scale(n: usize, bin: &Path, iters: usize) -> Vec<Stats> {
    let scratch = r#gen::scratch_dir(&format!("web-{n}"));
    let root = scratch.path().join("ws");
    let t = Instant::now();
    drop(r#gen::generate(&root, n));
    eprintln!("[setup] {n} entries generated in {:.1?}", t.elapsed());

    let mut cmd = Command::new(bin);
    cmd.args(["serve", "--port", "0", "--json"]);
    clean(&mut cmd, scratch.path());
    let mut child = cmd
        .current_dir(&root)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn trilogy serve");
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    let _serve = Serve(child);
    let launch: Value = serde_json::from_str(&first).expect("the launch line");
    let port = launch["port"].as_u64().unwrap() as u16;
    let r = root.display().to_string().replace(' ', "%20");
    let files = format!("/trilogy/files?root={r}");
    // what the reworked page asks for when a workspace opens: the ledger and attention
    // strip, what the agent sees, the first page of cards, the files without the archive
    let opening = [
        "/trilogy/".to_string(),
        "/trilogy/info".to_string(),
        "/trilogy/workspaces".to_string(),
        format!("/trilogy/attention?root={r}"),
        format!("/trilogy/injection?root={r}"),
        format!("/trilogy/entries?root={r}&file=SESSIONS.md&limit=50"),
        format!("/trilogy/files?root={r}&archive=0"),
    ];

    let heavy = if n >= 10_000 {
        (iters / 5).max(3)
    } else {
        iters
    };
    let label = if n.is_multiple_of(1000) {
        format!("{}k", n / 1000)
    } else {
        n.to_string()
    };
    let mut floor = Stats::new(format!("{label} GET panel.css (floor)"));
    let mut files_s = Stats::new(format!("{label} GET /files"));
    let mut page = Stats::new(format!("{label} page load (/ + first /files)"));
    let mut open = Stats::new(format!("{label} workspace open (7 requests)"));
    let mut seen = Stats::new(format!("{label} GET /injection"));
    let mut parts: Vec<Stats> = (opening.iter())
        .map(|p| {
            Stats::new(format!(
                "{label}   of which {}",
                p.split('?').next().unwrap_or(p)
            ))
        })
        .collect();
    let (d, bytes) = timed(port, &files);
    eprintln!(
        "[first] {label} /files {} ({bytes} bytes, opens the store)",
        fmt(d)
    );
    for _ in 0..iters {
        floor.samples.push(timed(port, "/trilogy/panel.css").0);
    }
    for _ in 0..heavy {
        files_s.samples.push(timed(port, &files).0);
        let t = Instant::now();
        let _ = timed(port, "/trilogy/");
        let _ = timed(port, &files);
        page.samples.push(t.elapsed());
        let t = Instant::now();
        for (path, each) in opening.iter().zip(parts.iter_mut()) {
            let at = Instant::now();
            let (status, _) = http(port, path);
            assert_eq!(status, 200, "{path}");
            each.samples.push(at.elapsed());
        }
        open.samples.push(t.elapsed());
        seen.samples.push(timed(port, &opening[4]).0);
    }

    let mut mcp = Mcp::start(bin, &root, scratch.path());
    let mut ping = Stats::new(format!("{label} MCP ping (floor)"));
    let mut read = Stats::new(format!("{label} MCP memory_read 现状"));
    let args = json!({"name": "memory_read", "arguments": {"section": "现状"}});
    let (_, v) = mcp.request("tools/call", args.clone());
    assert!(v["result"]["isError"] != json!(true), "memory_read: {v}");
    for _ in 0..iters {
        ping.samples.push(mcp.request("ping", Value::Null).0);
        read.samples.push(mcp.request("tools/call", args.clone()).0);
    }
    let mut all = vec![floor, files_s, page, ping, read, open, seen];
    all.extend(parts);
    all
}

fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    let iters = r#gen::env_usize("BENCH_WEB_ITERS", if full { 200 } else { 5 }).max(1);
    let scales: Vec<usize> = std::env::var("BENCH_WEB_SCALES")
        .unwrap_or_else(|_| if full { "1000,100000" } else { "1000" }.into())
        .split(',')
        .map(|s| s.trim().parse().expect("BENCH_WEB_SCALES: numbers"))
        .collect();
    let bin_dir = r#gen::scratch_dir("web-bin");
    let bin = r#gen::trilogy_bin_copy("BENCH_WEB_BIN", bin_dir.path());
    let mut all = Vec::new();
    for &n in &scales {
        all.push(run_scale(n, &bin, iters));
    }
    println!("\n== panel over HTTP and MCP over stdio: client latency (this run) ==");
    for scale in &all {
        for s in scale {
            println!("{}", s.line());
        }
        let (floor, files, page, ping, read) =
            (&scale[0], &scale[1], &scale[2], &scale[3], &scale[4]);
        println!(
            "  ratios (p50): /files {:.1}× the HTTP floor, page load {:.1}×; memory_read {:.1}× the MCP floor; /files {:.1}× memory_read\n",
            ratio(files.p50(), floor.p50()),
            ratio(page.p50(), floor.p50()),
            ratio(read.p50(), ping.p50()),
            ratio(files.p50(), read.p50()),
        );
        let (open, seen) = (&scale[5], &scale[6]);
        println!(
            "  the reworked page's workspace open {:.1}× the old page load; /injection {:.1}× memory_read\n",
            ratio(open.p50(), page.p50()),
            ratio(seen.p50(), read.p50()),
        );
    }
}
