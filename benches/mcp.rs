//! MCP server latency over stdio, measured from a client in the same run.
//!
//! For each scale (1k and 100k entries, from `benches/gen`), the bench spawns the release
//! binary as `trilogy --root <ws> mcp` and speaks newline-delimited JSON-RPC to it over its
//! stdin/stdout: `initialize` (protocolVersion 2025-11-25), the `notifications/initialized`
//! notification, then timed requests. A sample is the time from writing the request line to
//! having read the whole reply line (client-side round trip, serialization included). The
//! first call of each kind is reported apart (it opens the store, or the search index).
//!
//! Measured, with p50/p90/p99 over many iterations:
//! - `ping` (diagnostic) and `tools/list`: the round-trip floor (stdio, framing, rmcp dispatch);
//! - `memory_read {"section":"现状"}`: target p50 ≤ 200 µs at 100k;
//! - `memory_search {"query":…}`, six Chinese/English/mixed queries round-robin, after one warm
//!   search of each (which checks that every hit carries its whole entry, `text`, and prints
//!   the reply's size): target p50 ≤ 2 ms at 100k;
//! - `memory_checkpoint {"sessions":[{"done":"… tested"}]}`, unique text each time: target
//!   p50 ≤ 3× the fsync floor, measured in the same loop (one floor sample before every
//!   checkpoint): write 4 KiB to a temp file in the workspace directory, fsync, rename.
//!   Past 500 live sessions (the cap plus `sessions_archive_batch`) a checkpoint moves a batch
//!   to the archive, so the bench stats SESSIONS-archive.md around each call (outside timing)
//!   and reports how many calls rewrote it and its size. A `memory_search` right after every checkpoint (index
//!   catch-up) is timed as a diagnostic.
//!
//! At the end every acknowledged checkpoint is looked for in SESSIONS.md and the archive
//! (exactly once), and the server must exit 0 when its stdin closes.
//!
//! This is a plain program (`harness = false`): `cargo bench --bench mcp`. Knobs (env):
//! `BENCH_MCP_SCALES` (default `1000,100000`), `BENCH_MCP_ITERS` (300),
//! `BENCH_MCP_CHECKPOINTS_1K` (200), `BENCH_MCP_CHECKPOINTS_100K` (60),
//! `BENCH_MCP_CHECKPOINTS` (both), `BENCH_MCP_BIN` (a trilogy binary to use instead),
//! `BENCH_MCP_KEEP=1` (keep the workspaces under `target/tmp` and print their paths).
//! Without the `--bench` flag `cargo bench` passes (e.g. under `cargo test --benches`) the
//! defaults shrink to a smoke run: 1k only, 5 iterations, 3 checkpoints.

#[path = "gen/mod.rs"]
mod r#gen;

use r#gen::fmt_duration as fmt;

use std::io::{BufRead, BufReader, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant, SystemTime};

use serde_json::{Value, json};

const PROTOCOL: &str = "2025-11-25";

/// Search queries: Chinese, English and mixed (the generator's vocabulary).
const QUERIES: [&str; 6] = [
    "归档指针",
    "三方合并",
    "第 4242 次会话",
    "redb write lock",
    "regression test",
    "secrets scanner 误报",
];

// ---------------------------------------------------------------------------------------------
// statistics

#[derive(Clone)]
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

    fn push(&mut self, d: Duration) {
        self.samples.push(d);
    }

    fn sorted(&self) -> Vec<Duration> {
        let mut s = self.samples.clone();
        s.sort();
        s
    }

    /// Nearest-rank percentile.
    fn pct(&self, p: f64) -> Duration {
        r#gen::percentile(&self.sorted(), p)
    }

    fn p50(&self) -> Duration {
        self.pct(50.0)
    }

    fn mean(&self) -> Duration {
        if self.samples.is_empty() {
            return Duration::ZERO;
        }
        self.samples.iter().sum::<Duration>() / self.samples.len() as u32
    }

    fn line(&self) -> String {
        let s = self.sorted();
        let (min, max) = (
            s.first().copied().unwrap_or_default(),
            s.last().copied().unwrap_or_default(),
        );
        format!(
            "{:<34} n={:<4} p50 {:>10} p90 {:>10} p99 {:>10} mean {:>10} min {:>10} max {:>10}",
            self.name,
            self.samples.len(),
            fmt(self.p50()),
            fmt(self.pct(90.0)),
            fmt(self.pct(99.0)),
            fmt(self.mean()),
            fmt(min),
            fmt(max)
        )
    }
}

fn ratio(a: Duration, b: Duration) -> f64 {
    a.as_secs_f64() / b.as_secs_f64().max(1e-12)
}

// ---------------------------------------------------------------------------------------------
// fixture

fn label(n: usize) -> String {
    if n.is_multiple_of(1000) {
        format!("{}k", n / 1000)
    } else {
        n.to_string()
    }
}

// ---------------------------------------------------------------------------------------------
// the client

struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
    line: String,
    stderr_path: PathBuf,
}

impl Server {
    fn spawn(bin: &Path, root: &Path, cfg: &Path, stderr_path: &Path) -> Server {
        let mut cmd = Command::new(bin);
        cmd.arg("--root").arg(root).arg("mcp");
        // the server reads every TRILOGY_* variable as config: start from none of them
        for (k, _) in std::env::vars_os() {
            let k = k.to_string_lossy().into_owned();
            if k.starts_with("TRILOGY_") || k == "CLAUDE_PROJECT_DIR" {
                cmd.env_remove(k);
            }
        }
        cmd.env("XDG_CONFIG_HOME", cfg)
            .current_dir(root)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(stderr_path).expect("stderr file"));
        let mut child = cmd.spawn().expect("spawn trilogy mcp");
        let stdin = child.stdin.take();
        let stdout = BufReader::with_capacity(1 << 20, child.stdout.take().unwrap());
        Server {
            child,
            stdin,
            stdout,
            next_id: 1,
            line: String::with_capacity(1 << 16),
            stderr_path: stderr_path.to_path_buf(),
        }
    }

    fn stderr_text(&self) -> String {
        std::fs::read_to_string(&self.stderr_path).unwrap_or_default()
    }

    fn send_line(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).expect("write to the server");
    }

    /// One request; returns the round trip (write → whole reply line read) and the reply.
    fn request(&mut self, method: &str, params: Value) -> (Duration, Value) {
        let id = self.next_id;
        self.next_id += 1;
        let mut req = json!({"jsonrpc": "2.0", "id": id, "method": method});
        if !params.is_null() {
            req["params"] = params;
        }
        let mut bytes = serde_json::to_vec(&req).unwrap();
        bytes.push(b'\n');

        let start = Instant::now();
        self.send_line(&bytes);
        loop {
            self.line.clear();
            let n = self
                .stdout
                .read_line(&mut self.line)
                .expect("read from the server");
            let end = Instant::now();
            if n == 0 {
                panic!(
                    "the server closed stdout while we waited for reply {id} to {method}; stderr:\n{}",
                    self.stderr_text()
                );
            }
            let v: Value = serde_json::from_str(self.line.trim_end())
                .unwrap_or_else(|e| panic!("reply is not one JSON line ({e}): {:?}", self.line));
            if v.get("id") == Some(&json!(id)) && v.get("method").is_none() {
                return (end - start, v);
            }
            if let (Some(m), Some(rid)) = (v.get("method"), v.get("id")) {
                // a request from the server: we implement none
                eprintln!("[client] server request {m} answered with method-not-found");
                let err = json!({"jsonrpc":"2.0","id":rid,"error":{"code":-32601,"message":"not supported"}});
                let mut b = serde_json::to_vec(&err).unwrap();
                b.push(b'\n');
                self.send_line(&b);
            } else {
                eprintln!("[client] skipped a message: {}", self.line.trim_end());
            }
        }
    }

    fn notify(&mut self, method: &str) {
        let mut b = serde_json::to_vec(&json!({"jsonrpc":"2.0","method":method})).unwrap();
        b.push(b'\n');
        self.send_line(&b);
    }

    fn initialize(&mut self) -> Duration {
        let (d, v) = self.request(
            "initialize",
            json!({
                "protocolVersion": PROTOCOL,
                "capabilities": {},
                "clientInfo": {"name": "trilogy-mcp-bench", "version": "0"}
            }),
        );
        let result = v.get("result").unwrap_or_else(|| panic!("initialize: {v}"));
        let version = result["protocolVersion"].as_str().unwrap_or("?");
        eprintln!(
            "[init] server {} {} speaks protocol {version}",
            result["serverInfo"]["name"], result["serverInfo"]["version"]
        );
        if version != PROTOCOL {
            eprintln!("[init] NOTE: asked for {PROTOCOL}, the server answered {version}");
        }
        self.notify("notifications/initialized");
        d
    }

    /// A tools/call; panics on a JSON-RPC error or `isError: true`.
    fn call(&mut self, name: &str, arguments: Value) -> (Duration, Value) {
        let (d, v) = self.request("tools/call", json!({"name": name, "arguments": arguments}));
        let result = v
            .get("result")
            .unwrap_or_else(|| panic!("{name} {arguments}: JSON-RPC error {v}"));
        if result.get("isError") == Some(&Value::Bool(true)) {
            panic!("{name} {arguments}: tool error {result}");
        }
        (d, result.clone())
    }

    /// Close stdin and wait for the server to exit (killed after 20 s).
    fn close(mut self) -> (Option<ExitStatus>, Duration) {
        drop(self.stdin.take());
        let t = Instant::now();
        loop {
            if let Some(s) = self.child.try_wait().expect("wait") {
                return (Some(s), t.elapsed());
            }
            if t.elapsed() > Duration::from_secs(20) {
                let _ = self.child.kill();
                let _ = self.child.wait();
                return (None, t.elapsed());
            }
            std::thread::sleep(Duration::from_millis(2));
        }
    }
}

fn text_of(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or("")
}

// ---------------------------------------------------------------------------------------------
// floors

/// Write 4 KiB to a temp file in `dir`, fsync it, rename it over `dir/.bench-floor.bin`.
fn fsync_floor_once(dir: &Path, block: &[u8]) -> Duration {
    let target = dir.join(".bench-floor.bin");
    let start = Instant::now();
    let mut tmp = tempfile::Builder::new()
        .prefix(".bench-floor-")
        .tempfile_in(dir)
        .unwrap();
    tmp.write_all(block).unwrap();
    tmp.as_file().sync_all().unwrap();
    tmp.persist(&target).unwrap();
    start.elapsed()
}

// ---------------------------------------------------------------------------------------------
// one scale

struct ScaleReport {
    n: usize,
    all: Vec<Stats>,
    tools_list: Stats,
    read: Stats,
    search: Stats,
    checkpoint: Stats,
    floor: Stats,
    notes: Vec<String>,
}

fn stat_file(p: &Path) -> Option<(u64, SystemTime)> {
    std::fs::metadata(p)
        .ok()
        .map(|m| (m.len(), m.modified().unwrap()))
}

fn run_scale(n: usize, bin: &Path, iters: usize, checkpoints: usize) -> ScaleReport {
    let scale = label(n);
    let dir = r#gen::scratch_dir(&scale);
    let root = dir.path().join("ws");
    let cfg = dir.path().join("xdg");
    std::fs::create_dir_all(&cfg).unwrap();
    let t = Instant::now();
    let ws = r#gen::generate(&root, n);
    let shape = r#gen::Shape::of(n, ws.config.archive_cap());
    drop(ws);
    eprintln!(
        "[{scale}] generated and imported {n} entries in {:.2?} ({} decisions, {} live, {} archived sessions)",
        t.elapsed(),
        shape.decisions,
        shape.live_sessions,
        shape.archived_sessions
    );
    let sessions_path = root.join("memory").join("SESSIONS.md");
    let archive_path = root.join("memory").join("SESSIONS-archive.md");
    let mut notes = Vec::new();

    let t = Instant::now();
    let mut srv = Server::spawn(bin, &root, &cfg, &dir.path().join("server.stderr"));
    let init = srv.initialize();
    eprintln!(
        "[{scale}] spawn + initialize round trip {} (initialize alone {})",
        fmt(t.elapsed()),
        fmt(init)
    );

    // -- round-trip floors
    let mut ping = Stats::new(format!("{scale} ping (diag floor)"));
    let mut list = Stats::new(format!("{scale} tools/list (floor)"));
    let (d, v) = srv.request("tools/list", Value::Null);
    let names: Vec<&str> = v["result"]["tools"]
        .as_array()
        .map(|a| a.iter().filter_map(|t| t["name"].as_str()).collect())
        .unwrap_or_default();
    eprintln!(
        "[{scale}] first tools/list {} ({} bytes): {names:?}",
        fmt(d),
        srv.line.len()
    );
    for i in 0..iters + 20 {
        let (d, v) = srv.request("ping", Value::Null);
        assert!(v.get("result").is_some(), "ping: {v}");
        let (d2, _) = srv.request("tools/list", Value::Null);
        if i >= 20 {
            ping.push(d);
            list.push(d2);
        }
    }

    // -- memory_read
    let section = json!({"section": "现状"});
    let (d, r) = srv.call("memory_read", section.clone());
    assert!(text_of(&r).contains("基准工作区"), "memory_read: {r}");
    eprintln!(
        "[{scale}] first tool call (memory_read, opens the workspace and store) {}",
        fmt(d)
    );
    let mut read = Stats::new(format!("{scale} memory_read section"));
    for i in 0..iters + 20 {
        let (d, _) = srv.call("memory_read", section.clone());
        if i >= 20 {
            read.push(d);
        }
    }

    // -- memory_search
    let (d, r) = srv.call("memory_search", json!({"query": QUERIES[0]}));
    eprintln!(
        "[{scale}] first memory_search (opens or builds the index) {} — {} hits",
        fmt(d),
        r["structuredContent"]["hits"]
            .as_array()
            .map_or(0, |a| a.len())
    );
    let mut per_query: Vec<Stats> = QUERIES
        .iter()
        .map(|q| Stats::new(format!("{scale}   search `{q}`")))
        .collect();
    for q in QUERIES {
        let (d, r) = srv.call("memory_search", json!({"query": q}));
        let hits = r["structuredContent"]["hits"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        // every hit carries its whole entry (cut at 2 KB), in the structured result and the
        // text: what is timed is the answer an agent reads without a call per hit
        let texts: usize = hits
            .iter()
            .map(|h| {
                let t = h["text"].as_str().unwrap_or("");
                assert!(
                    !t.is_empty() && t.len() <= 2048 && text_of(&r).contains(t),
                    "memory_search `{q}`: a hit without its whole entry: {h}"
                );
                t.len()
            })
            .sum();
        eprintln!(
            "[{scale}] warm search `{q}`: {} — {} hits, {texts} bytes of entry text, {} bytes of reply",
            fmt(d),
            hits.len(),
            srv.line.len()
        );
    }
    let mut search = Stats::new(format!("{scale} memory_search (pooled)"));
    for i in 0..iters.max(QUERIES.len()) {
        let q = i % QUERIES.len();
        let (d, _) = srv.call("memory_search", json!({"query": QUERIES[q]}));
        search.push(d);
        per_query[q].push(d);
    }

    // -- memory_checkpoint, each after one floor sample
    let mut checkpoint = Stats::new(format!("{scale} memory_checkpoint"));
    let mut floor = Stats::new(format!("{scale} floor 4KiB write+fsync+rename"));
    let mut search_after = Stats::new(format!("{scale} search after checkpoint (diag)"));
    let block = vec![b'x'; 4096];
    for _ in 0..5 {
        fsync_floor_once(&root, &block);
    }
    let nonce = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap()
        .as_millis();
    let token = |i: usize| format!("mcpbench-{nonce}-{i:05}");
    let mut archive_rewrites = 0usize;
    let mut archived_total = 0u64;
    let mut acked = Vec::new();
    let archive_before = stat_file(&archive_path);
    for i in 0..checkpoints {
        floor.push(fsync_floor_once(&root, &block));
        let before = stat_file(&archive_path);
        let args = json!({"sessions": [{"done": format!("{} recorded by the MCP bench, tested", token(i))}]});
        let (d, r) = srv.call("memory_checkpoint", args);
        let after = stat_file(&archive_path);
        let sc = &r["structuredContent"];
        let ids = sc["ids"].as_array().map_or(0, |a| a.len());
        assert_eq!(ids, 1, "checkpoint {i}: {r}");
        archived_total += sc["archived"].as_u64().unwrap_or(0);
        if before != after {
            archive_rewrites += 1;
        }
        checkpoint.push(d);
        acked.push(i);
        let (d, _) = srv.call(
            "memory_search",
            json!({"query": QUERIES[i % QUERIES.len()]}),
        );
        search_after.push(d);
    }
    let archive_after = stat_file(&archive_path);
    if checkpoints > 0 {
        let size = |s: Option<(u64, SystemTime)>| s.map_or(0, |s| s.0);
        notes.push(format!(
            "{scale}: {checkpoints} checkpoints archived {archived_total} entries; SESSIONS-archive.md rewritten by {archive_rewrites} of them ({} → {} bytes)",
            size(archive_before),
            size(archive_after)
        ));
    }

    // -- memory_status once, for the record
    let (d, r) = srv.call("memory_status", json!({}));
    eprintln!("[{scale}] memory_status {}: {}", fmt(d), text_of(&r));

    let (status, took) = srv.close();
    match status {
        Some(s) if s.success() => eprintln!(
            "[{scale}] server exited 0, {} after stdin closed",
            fmt(took)
        ),
        other => notes.push(format!(
            "{scale}: BUG? server did not exit cleanly after stdin closed: {other:?} after {}; stderr:\n{}",
            fmt(took),
            std::fs::read_to_string(dir.path().join("server.stderr")).unwrap_or_default()
        )),
    }
    let stderr = std::fs::read_to_string(dir.path().join("server.stderr")).unwrap_or_default();
    if !stderr.trim().is_empty() {
        notes.push(format!(
            "{scale}: server stderr ({} lines), first: {}",
            stderr.lines().count(),
            stderr.lines().next().unwrap_or("")
        ));
    }

    // -- every acknowledged checkpoint is in SESSIONS.md or the archive, exactly once
    let live = std::fs::read_to_string(&sessions_path).unwrap();
    let archive = std::fs::read_to_string(&archive_path).unwrap_or_default();
    let prefix = format!("mcpbench-{nonce}-");
    let mut counts = vec![0usize; checkpoints];
    for text in [&live, &archive] {
        for (at, _) in text.match_indices(&prefix) {
            let digits = &text[at + prefix.len()..at + prefix.len() + 5];
            if let Ok(i) = digits.parse::<usize>()
                && i < checkpoints
            {
                counts[i] += 1;
            }
        }
    }
    let once = counts.iter().filter(|&&c| c == 1).count();
    let missing = counts.iter().filter(|&&c| c == 0).count();
    let dup = counts.iter().filter(|&&c| c > 1).count();
    let verdict = format!(
        "{scale}: {} acknowledged checkpoints: {once} found exactly once in SESSIONS.md/archive, {missing} missing, {dup} duplicated",
        acked.len()
    );
    if missing + dup > 0 {
        notes.push(format!("BUG: {verdict}"));
    } else {
        notes.push(verdict);
    }

    if std::env::var_os("BENCH_MCP_KEEP").is_some() {
        notes.push(format!(
            "{scale}: workspace kept at {}",
            dir.keep().join("ws").display()
        ));
    }

    let mut all = vec![ping, list.clone(), read.clone(), search.clone()];
    all.extend(per_query);
    all.extend([checkpoint.clone(), floor.clone(), search_after]);
    ScaleReport {
        n,
        all,
        tools_list: list,
        read,
        search,
        checkpoint,
        floor,
        notes,
    }
}

fn main() {
    // `cargo bench` passes `--bench`; anything else (`cargo test --benches`) gets a smoke run
    let full = std::env::args().any(|a| a == "--bench");
    if !full {
        eprintln!("[smoke] no --bench flag: a quick run (1k, 5 iterations, 3 checkpoints)");
    }
    let pick = |full_value: usize, smoke_value: usize| if full { full_value } else { smoke_value };
    let iters = r#gen::env_usize("BENCH_MCP_ITERS", pick(300, 5)).max(1);
    let both = std::env::var("BENCH_MCP_CHECKPOINTS").ok();
    let cp = |key: &str, default: usize| {
        if both.is_some() {
            r#gen::env_usize("BENCH_MCP_CHECKPOINTS", default)
        } else {
            r#gen::env_usize(key, default)
        }
    };
    let scales: Vec<usize> = std::env::var("BENCH_MCP_SCALES")
        .unwrap_or_else(|_| if full { "1000,100000" } else { "1000" }.into())
        .split(',')
        .map(|s| s.trim().parse().expect("BENCH_MCP_SCALES: numbers"))
        .collect();
    let bin_dir = r#gen::scratch_dir("bin");
    let bin = r#gen::trilogy_bin_copy("BENCH_MCP_BIN", bin_dir.path());

    let mut reports = Vec::new();
    for &n in &scales {
        let checkpoints = if n >= 10_000 {
            cp("BENCH_MCP_CHECKPOINTS_100K", pick(60, 3))
        } else {
            cp("BENCH_MCP_CHECKPOINTS_1K", pick(200, 3))
        };
        eprintln!(
            "\n== {}: {iters} iterations, {checkpoints} checkpoints ==",
            label(n)
        );
        reports.push(run_scale(n, &bin, iters, checkpoints));
    }

    println!("\n== MCP over stdio: client round trips (this run) ==");
    for r in &reports {
        for s in &r.all {
            println!("{}", s.line());
        }
        println!();
    }
    println!("== targets (p50; floors measured in the same run) ==");
    for r in &reports {
        let scale = label(r.n);
        let lf = r.tools_list.p50();
        let judged = r.n >= 100_000;
        let verdict = |ok: bool| match (judged, ok) {
            (true, true) => "MET",
            (true, false) => "NOT MET",
            (false, true) => "(met; target is at 100k)",
            (false, false) => "(not met; target is at 100k)",
        };
        let read = r.read.p50();
        println!(
            "{scale} memory_read   p50 {:>10} (p99 {:>10})  target ≤ 200 µs: {}; {:.2}× tools/list ({}), {} above it",
            fmt(read),
            fmt(r.read.pct(99.0)),
            verdict(read <= Duration::from_micros(200)),
            ratio(read, lf),
            fmt(lf),
            fmt(read.saturating_sub(lf))
        );
        let search = r.search.p50();
        println!(
            "{scale} memory_search p50 {:>10} (p99 {:>10})  target ≤ 2 ms: {}; {:.2}× tools/list, {} above it",
            fmt(search),
            fmt(r.search.pct(99.0)),
            verdict(search <= Duration::from_millis(2)),
            ratio(search, lf),
            fmt(search.saturating_sub(lf))
        );
        if !r.checkpoint.samples.is_empty() {
            let (c, f) = (r.checkpoint.p50(), r.floor.p50());
            let ok = ratio(c, f) <= 3.0;
            println!(
                "{scale} memory_checkpoint p50 {:>10} (p99 {:>10})  target ≤ 3× fsync floor ({} p50, p99 {}): {:.2}× → {}",
                fmt(c),
                fmt(r.checkpoint.pct(99.0)),
                fmt(f),
                fmt(r.floor.pct(99.0)),
                ratio(c, f),
                if ok { "MET" } else { "NOT MET" }
            );
        }
    }
    println!("\n== notes ==");
    for r in &reports {
        for n in &r.notes {
            println!("- {n}");
        }
    }
}
