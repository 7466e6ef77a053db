//! Concurrent writers: throughput and latency of `trilogy checkpoint` processes racing for
//! one workspace.
//!
//! For each W in 1, 4, 8, 16 (`BENCH_TORTURE_WRITERS`), a fresh 1k workspace is generated
//! (`benches/gen`: 50 decisions, 200 live sessions, 750 archived) and W writers start together
//! (a barrier); each runs K (`BENCH_TORTURE_K`, default 25) sequential invocations of the
//! release binary, `trilogy --root WS --json checkpoint --session-done "<unique> tested"`,
//! with `TRILOGY_LOCK_TIMEOUT_MS=60000` (and no other `TRILOGY_*` variable). A writer is a
//! thread that spawns and waits for its processes one after another, so W trilogy processes
//! run at once. A sample is one invocation, spawn to exit.
//!
//! Reported per W: acknowledged checkpoints (exit 0 with one id) and failures by exit code,
//! wall time from the barrier to the last exit, checkpoints/s overall, and per-invocation
//! p50/p90/p99/max. Then every acknowledged entry is looked for, by its unique text, in
//! SESSIONS.md and SESSIONS-archive.md (it must appear exactly once), every acknowledged id
//! must be in the store, and the store's counts must be the generated ones plus the
//! acknowledged ones (200 to 500 live: SESSIONS.md moves its oldest into the archive by
//! batches, the rest archived). Floors, in the same run: spawning
//! `/bin/true`, spawning `trilogy --version`, and 4 KiB write + fsync + rename in the
//! workspace directory.
//!
//! Last, the targets as ratios of this run's figures: W=1 p50 ÷ the write+fsync+rename floor,
//! and per W > 1 the aggregate throughput ÷ W=1's and p99 ÷ W=1 p50.
//!
//! A plain program (`harness = false`): `cargo bench --bench torture`. `BENCH_TORTURE_BIN`
//! points at another trilogy binary. Without the `--bench` flag `cargo bench` passes (e.g.
//! under `cargo test --benches`) the defaults shrink to a smoke run: W in 1, 4 and K = 2.

#[path = "gen/mod.rs"]
mod r#gen;

use r#gen::{fmt_duration as fmt, percentile as pct};

use std::collections::{BTreeMap, HashSet};
use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant, SystemTime};

use trilogy::config::Config;
use trilogy::model::FileKind;
use trilogy::workspace::Workspace;

// ---------------------------------------------------------------------------------------------
// statistics

fn summary(name: &str, samples: &[Duration]) -> String {
    let mut s = samples.to_vec();
    s.sort();
    let mean = if s.is_empty() {
        Duration::ZERO
    } else {
        s.iter().sum::<Duration>() / s.len() as u32
    };
    format!(
        "{name:<30} n={:<4} p50 {:>10} p90 {:>10} p99 {:>10} mean {:>10} max {:>10}",
        s.len(),
        fmt(pct(&s, 50.0)),
        fmt(pct(&s, 90.0)),
        fmt(pct(&s, 99.0)),
        fmt(mean),
        fmt(s.last().copied().unwrap_or_default())
    )
}

// ---------------------------------------------------------------------------------------------
// fixture

fn workspace(root: &Path) -> Workspace {
    Workspace::new(root.to_path_buf(), Config::default(), r#gen::clock())
}

/// A command for `bin` with no inherited `TRILOGY_*` variable and an empty user config.
fn base_command(bin: &Path, cfg: &Path) -> Command {
    let mut cmd = Command::new(bin);
    for (k, _) in std::env::vars_os() {
        let k = k.to_string_lossy().into_owned();
        if k.starts_with("TRILOGY_") || k == "CLAUDE_PROJECT_DIR" {
            cmd.env_remove(k);
        }
    }
    cmd.env("XDG_CONFIG_HOME", cfg)
        .env("TRILOGY_LOCK_TIMEOUT_MS", "60000")
        .stdin(Stdio::null());
    cmd
}

// ---------------------------------------------------------------------------------------------
// one run

/// One invocation's outcome.
struct Attempt {
    writer: usize,
    k: usize,
    latency: Duration,
    code: Option<i32>,
    ids: Vec<String>,
    stderr: String,
}

struct RunReport {
    w: usize,
    k: usize,
    wall: Duration,
    latencies: Vec<Duration>,
    acked: usize,
    failures: BTreeMap<String, usize>,
    first_failure: Option<String>,
    verify: String,
    problems: Vec<String>,
}

fn token(nonce: u128, w: usize, writer: usize, k: usize) -> String {
    format!("torture-{nonce}-w{w:02}-p{writer:02}-k{k:03}")
}

fn run(bin: &Path, cfg: &Path, w: usize, k: usize, nonce: u128) -> RunReport {
    let dir = r#gen::scratch_dir(&format!("w{w}"));
    let root = dir.path().join("ws");
    let t = Instant::now();
    let ws = r#gen::generate(&root, 1_000);
    let shape = r#gen::Shape::of(1_000, ws.config.archive_cap());
    drop(ws);
    eprintln!(
        "[W={w}] generated a fresh 1k workspace in {:.2?}",
        t.elapsed()
    );

    let barrier = Arc::new(Barrier::new(w + 1));
    let mut handles = Vec::new();
    for writer in 0..w {
        let (bin, cfg, root, barrier) = (
            bin.to_path_buf(),
            cfg.to_path_buf(),
            root.clone(),
            barrier.clone(),
        );
        handles.push(std::thread::spawn(move || {
            barrier.wait();
            let mut out = Vec::with_capacity(k);
            for i in 0..k {
                let done = format!(
                    "{} written by a concurrent writer, tested",
                    token(nonce, w, writer, i)
                );
                let mut cmd = base_command(&bin, &cfg);
                cmd.arg("--root")
                    .arg(&root)
                    .arg("--json")
                    .arg("checkpoint")
                    .arg("--session-done")
                    .arg(&done);
                let start = Instant::now();
                let o = cmd.output().expect("spawn trilogy checkpoint");
                let latency = start.elapsed();
                let ids = if o.status.success() {
                    serde_json::from_slice::<serde_json::Value>(&o.stdout)
                        .ok()
                        .and_then(|v| {
                            v["ids"].as_array().map(|a| {
                                a.iter()
                                    .filter_map(|x| x.as_str().map(str::to_string))
                                    .collect()
                            })
                        })
                        .unwrap_or_default()
                } else {
                    Vec::new()
                };
                out.push(Attempt {
                    writer,
                    k: i,
                    latency,
                    code: o.status.code(),
                    ids,
                    stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
                });
            }
            out
        }));
    }
    barrier.wait();
    let start = Instant::now();
    let attempts: Vec<Attempt> = handles
        .into_iter()
        .flat_map(|h| h.join().expect("writer thread"))
        .collect();
    let wall = start.elapsed();

    let mut failures: BTreeMap<String, usize> = BTreeMap::new();
    let mut first_failure = None;
    let mut problems = Vec::new();
    let mut acked: Vec<&Attempt> = Vec::new();
    for a in &attempts {
        match (a.code, a.ids.len()) {
            (Some(0), 1) => acked.push(a),
            (code, ids) => {
                let key = format!("exit {code:?}, {ids} ids");
                *failures.entry(key).or_default() += 1;
                if first_failure.is_none() {
                    first_failure = Some(format!(
                        "writer {} #{}: exit {code:?}: {}",
                        a.writer,
                        a.k,
                        a.stderr.trim()
                    ));
                }
            }
        }
        if a.code == Some(0) && !a.stderr.trim().is_empty() {
            problems.push(format!(
                "writer {} #{} succeeded with stderr: {}",
                a.writer,
                a.k,
                a.stderr.trim()
            ));
        }
    }

    // -- every acknowledged entry, exactly once, in SESSIONS.md or the archive
    let ws = workspace(&root);
    let live = std::fs::read_to_string(ws.file_path(FileKind::Sessions)).unwrap();
    let archive = std::fs::read_to_string(ws.file_path(FileKind::Archive)).unwrap_or_default();
    let prefix = format!("torture-{nonce}-w{w:02}-");
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for text in [&live, &archive] {
        for (at, _) in text.match_indices(&prefix) {
            // -pNN-kNNN
            let end = at + prefix.len() + "pNN-kNNN".len();
            *seen.entry(text[at..end].to_string()).or_default() += 1;
        }
    }
    let mut once = 0;
    let mut missing = Vec::new();
    let mut dup = Vec::new();
    for a in &acked {
        match seen
            .get(&token(nonce, w, a.writer, a.k))
            .copied()
            .unwrap_or(0)
        {
            1 => once += 1,
            0 => missing.push(token(nonce, w, a.writer, a.k)),
            c => dup.push(format!("{} ×{c}", token(nonce, w, a.writer, a.k))),
        }
    }
    let acked_tokens: HashSet<String> = acked
        .iter()
        .map(|a| token(nonce, w, a.writer, a.k))
        .collect();
    let unacked_present: Vec<&String> =
        seen.keys().filter(|t| !acked_tokens.contains(*t)).collect();

    // ids in the store, and the counts
    let ids: Vec<String> = acked.iter().map(|a| a.ids[0].clone()).collect();
    let distinct: HashSet<&String> = ids.iter().collect();
    let checked = ws
        .read(|r| {
            let mut absent = 0usize;
            for id in &ids {
                if r.entry(id)?.is_none() {
                    absent += 1;
                }
            }
            Ok((
                absent,
                r.file_count(FileKind::Sessions)?,
                r.file_count(FileKind::Archive)?,
                r.file_count(FileKind::Decisions)?,
            ))
        })
        .expect("read the store")
        .value;
    let (absent, n_live, n_archive, n_dec) = checked;
    let expected_sessions = (shape.sessions() + acked.len()) as u64;
    let verify = format!(
        "{} acknowledged: {once} exactly once in SESSIONS.md/archive, {} missing, {} duplicated, {} unacknowledged present; ids distinct {}/{}, absent from the store {absent}; store: {n_live} live + {n_archive} archived = {} sessions (expected {expected_sessions}), {n_dec} decisions",
        acked.len(),
        missing.len(),
        dup.len(),
        unacked_present.len(),
        distinct.len(),
        ids.len(),
        n_live + n_archive
    );
    if !missing.is_empty() {
        problems.push(format!("BUG: missing acknowledged entries: {missing:?}"));
    }
    if !dup.is_empty() {
        problems.push(format!("BUG: duplicated entries: {dup:?}"));
    }
    if absent > 0 || distinct.len() != ids.len() {
        problems.push(format!(
            "BUG: {absent} acknowledged ids absent from the store; {} distinct of {}",
            distinct.len(),
            ids.len()
        ));
    }
    // SESSIONS.md holds from the cap to the cap plus one archive batch (the write past that
    // moves the oldest into the archive)
    let cap = shape.live_sessions as u64;
    let most = cap + Config::default().archive_batch() as u64;
    if n_live + n_archive != expected_sessions
        || n_live < cap.min(expected_sessions)
        || n_live > most
    {
        problems.push(format!(
            "BUG: store counts {n_live} live + {n_archive} archived, expected {cap} to {most} live and {expected_sessions} in all"
        ));
    }
    drop(ws);

    // doctor, for the record
    let o = base_command(bin, cfg)
        .arg("--root")
        .arg(&root)
        .arg("doctor")
        .output()
        .expect("spawn trilogy doctor");
    if !o.status.success() {
        problems.push(format!(
            "`trilogy doctor` after the run exited {:?}: {}{}",
            o.status.code(),
            String::from_utf8_lossy(&o.stdout).trim(),
            String::from_utf8_lossy(&o.stderr).trim()
        ));
    }

    RunReport {
        w,
        k,
        wall,
        latencies: attempts.iter().map(|a| a.latency).collect(),
        acked: acked.len(),
        failures,
        first_failure,
        verify,
        problems,
    }
}

// ---------------------------------------------------------------------------------------------
// floors

fn spawn_floor(mut make: impl FnMut() -> Command, n: usize) -> Vec<Duration> {
    let mut out = Vec::with_capacity(n);
    for i in 0..n + 5 {
        let mut c = make();
        let start = Instant::now();
        let o = c.output().expect("spawn");
        let d = start.elapsed();
        assert!(o.status.success(), "{c:?} failed: {o:?}");
        if i >= 5 {
            out.push(d);
        }
    }
    out
}

fn fsync_floor(dir: &Path, n: usize) -> Vec<Duration> {
    let target = dir.join(".bench-floor.bin");
    let block = vec![b'x'; 4096];
    let mut out = Vec::with_capacity(n);
    for i in 0..n + 5 {
        let start = Instant::now();
        let mut tmp = tempfile::Builder::new()
            .prefix(".bench-floor-")
            .tempfile_in(dir)
            .unwrap();
        tmp.write_all(&block).unwrap();
        tmp.as_file().sync_all().unwrap();
        tmp.persist(&target).unwrap();
        if i >= 5 {
            out.push(start.elapsed());
        }
    }
    out
}

fn main() {
    // `cargo bench` passes `--bench`; anything else (`cargo test --benches`) gets a smoke run
    let full = std::env::args().any(|a| a == "--bench");
    if !full {
        eprintln!("[smoke] no --bench flag: a quick run (W in 1, 4; K = 2)");
    }
    let floor_n = if full { 100 } else { 5 };
    let k = r#gen::env_usize("BENCH_TORTURE_K", if full { 25 } else { 2 }).max(1);
    let writers: Vec<usize> = std::env::var("BENCH_TORTURE_WRITERS")
        .unwrap_or_else(|_| if full { "1,4,8,16" } else { "1,4" }.into())
        .split(',')
        .map(|s| s.trim().parse().expect("BENCH_TORTURE_WRITERS: numbers"))
        .collect();
    let scratch = r#gen::scratch_dir("main");
    let bin = r#gen::trilogy_bin_copy("BENCH_TORTURE_BIN", scratch.path());
    let cfg = scratch.path().join("xdg");
    std::fs::create_dir_all(&cfg).unwrap();
    let nonce = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap()
        .as_millis();
    eprintln!(
        "[setup] K = {k} invocations per writer, W in {writers:?}; {} CPUs available",
        std::thread::available_parallelism().map_or(0, |n| n.get())
    );

    let floor_true = spawn_floor(
        || {
            let mut c = Command::new("/bin/true");
            c.stdin(Stdio::null());
            c
        },
        floor_n,
    );
    let floor_version = spawn_floor(
        || {
            let mut c = base_command(&bin, &cfg);
            c.arg("--version");
            c
        },
        floor_n,
    );
    let floor_fsync = fsync_floor(scratch.path(), floor_n);

    let mut reports = Vec::new();
    for &w in &writers {
        let r = run(&bin, &cfg, w, k, nonce);
        eprintln!(
            "[W={w}] {} acknowledged in {} — {:.1} checkpoints/s",
            r.acked,
            fmt(r.wall),
            r.acked as f64 / r.wall.as_secs_f64()
        );
        reports.push(r);
    }
    // the floors again, after the load, to see drift
    let floor_fsync_after = fsync_floor(scratch.path(), floor_n);

    println!(
        "\n== concurrent `trilogy checkpoint` writers on one fresh 1k workspace (this run) =="
    );
    println!("{}", summary("floor spawn /bin/true", &floor_true));
    println!(
        "{}",
        summary("floor spawn trilogy --version", &floor_version)
    );
    println!("{}", summary("floor 4KiB write+fsync+rename", &floor_fsync));
    println!(
        "{}",
        summary("  (same floor after the runs)", &floor_fsync_after)
    );
    let mut base_p50 = None;
    for r in &reports {
        let mut s = r.latencies.clone();
        s.sort();
        let p50 = pct(&s, 50.0);
        let base = *base_p50.get_or_insert(p50);
        println!();
        println!(
            "W={:<2} K={:<3} {:>4} invocations, {:>4} acknowledged, wall {:>9}: {:>6.1} checkpoints/s; p50 {:.2}× W=1 p50, {:.2}× spawn `trilogy --version` p50, {:.2}× fsync floor p50",
            r.w,
            r.k,
            r.latencies.len(),
            r.acked,
            fmt(r.wall),
            r.acked as f64 / r.wall.as_secs_f64(),
            p50.as_secs_f64() / base.as_secs_f64(),
            p50.as_secs_f64() / pct(&floor_version, 50.0).as_secs_f64(),
            p50.as_secs_f64() / pct(&floor_fsync, 50.0).as_secs_f64()
        );
        println!(
            "{}",
            summary(&format!("  W={} per invocation", r.w), &r.latencies)
        );
        if !r.failures.is_empty() {
            println!("  failures: {:?}", r.failures);
            if let Some(f) = &r.first_failure {
                println!("  first failure: {f}");
            }
        }
        println!("  verify: {}", r.verify);
        for p in &r.problems {
            println!("  {p}");
        }
    }
    // the targets, as ratios of this run's own figures
    if let Some(one) = reports.iter().find(|r| r.w == 1) {
        let rate = |r: &RunReport| r.acked as f64 / r.wall.as_secs_f64();
        let mut s1 = one.latencies.clone();
        s1.sort();
        let one_p50 = pct(&s1, 50.0).as_secs_f64();
        println!("\n== targets ==");
        println!(
            "CLI checkpoint at 1k (W=1 p50 {}) ÷ 4KiB write+fsync+rename floor ({}): {:.2} (target ≤ 3)",
            fmt(pct(&s1, 50.0)),
            fmt(pct(&floor_fsync, 50.0)),
            one_p50 / pct(&floor_fsync, 50.0).as_secs_f64()
        );
        for r in reports.iter().filter(|r| r.w > 1) {
            let mut s = r.latencies.clone();
            s.sort();
            println!(
                "W={}: aggregate throughput ÷ one writer's sequential throughput: {:.2} (target ≥ 2); p99 {} ÷ one uncontended checkpoint (W=1 p50): {:.2} (target ≤ 10)",
                r.w,
                rate(r) / rate(one),
                fmt(pct(&s, 99.0)),
                pct(&s, 99.0).as_secs_f64() / one_p50
            );
        }
    }
}
