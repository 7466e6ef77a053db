//! Recall over transcripts: generated Claude Code sessions in the recorded real shape
//! (prompts, answers, tool calls with their output, attachments; about 2 MB a session) under a
//! throwaway HOME, and every target next to its floor from the same run.
//!
//! - `first_index`: what the first recall does in a process of its own: the index is deleted
//!   (outside timing), then `trilogy recall` reads every transcript and builds it. Floor:
//!   `floor_read`, reading the same files whole in this process (from the page cache).
//!   Target: ≥ 0.25× the floor's speed.
//! - `top_up_one_turn`: one turn appended to a transcript (outside timing), then `trilogy
//!   recall`. Target ≤ 20× `floor_bin_true` (spawning `/bin/true` the same way).
//! - `warm`: `trilogy recall` with nothing new. Target ≤ 10× `floor_bin_true`.
//! - `warm_in_process` (diagnostic): `recall::recall` in this process, the part of a warm
//!   recall that is not starting a process.
//!
//! `TRILOGY_RECALL_BENCH_MB` sets the size (default 200). Run with `cargo bench --bench
//! recall`; the summary at the end gives each median, its ratio and whether the target is met.

#[path = "gen/mod.rs"]
#[allow(dead_code)]
mod r#gen;

use std::io::Write as _;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant, SystemTime};

use criterion::{Criterion, SamplingMode};
use trilogy::recall::{self, RecallQuery};

const WORDS: &[&str] = &[
    "linker",
    "flag",
    "cache",
    "port",
    "race",
    "flaky",
    "test",
    "staging",
    "migration",
    "deploy",
    "retry",
    "backoff",
    "uploader",
    "index",
    "search",
    "parser",
    "token",
    "budget",
    "session",
    "branch",
    "worktree",
    "merge",
    "conflict",
    "schema",
    "store",
    "链接",
    "参数",
    "缓存",
    "端口",
    "测试",
    "部署",
    "重试",
    "迁移",
    "索引",
    "解析",
    "预算",
    "会话",
    "分支",
    "合并",
    "冲突",
];

/// A small deterministic generator (xorshift), so every run writes the same bytes.
struct Rng(u64);

impl Rng {
    fn next(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }

    fn text(&mut self) -> String {
        let n = 8 + self.next(33);
        (0..n)
            .map(|_| WORDS[self.next(WORDS.len())])
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// One transcript line of `kind`, as Claude Code writes it.
fn line(kind: &str, cwd: &str, session: &str, i: usize, rng: &mut Rng) -> String {
    let text = rng.text();
    let stamp = format!("2026-11-{:02}T10:{:02}:00Z", 1 + i % 28, i % 60);
    let v = match kind {
        "user" => serde_json::json!({"type": "user", "cwd": cwd, "sessionId": session,
            "timestamp": stamp, "message": {"role": "user", "content": text}}),
        "assistant" => serde_json::json!({"type": "assistant", "cwd": cwd, "sessionId": session,
            "timestamp": stamp, "message": {"id": format!("m{i}"),
            "content": [{"type": "text", "text": text}]}}),
        "tool" => serde_json::json!({"type": "assistant", "cwd": cwd, "sessionId": session,
            "timestamp": stamp, "message": {"id": format!("m{i}"), "content": [{"type": "tool_use",
            "name": "Bash", "input": {"command": format!("cargo test {text}")}}]}}),
        "result" => serde_json::json!({"type": "user", "cwd": cwd, "sessionId": session,
            "timestamp": stamp, "toolUseResult": {"stdout": text.repeat(3)},
            "message": {"content": [{"type": "tool_result", "content": text.repeat(3)}]}}),
        _ => serde_json::json!({"type": "attachment", "cwd": cwd,
            "attachment": {"content": text.repeat(2)}}),
    };
    format!("{v}\n")
}

struct Fixture {
    _dir: tempfile::TempDir,
    root: PathBuf,
    files: Vec<PathBuf>,
    bytes: u64,
    env: Vec<(&'static str, PathBuf)>,
    bin: PathBuf,
}

impl Fixture {
    fn new(megabytes: usize) -> Fixture {
        let dir = r#gen::scratch_dir("recall");
        let root = dir.path().join("proj");
        std::fs::create_dir_all(root.join(".git")).unwrap();
        let root = root.canonicalize().unwrap();
        let home = dir.path().join("home");
        let env = vec![
            ("HOME", home.clone()),
            ("XDG_CACHE_HOME", dir.path().join("cache")),
            ("XDG_STATE_HOME", dir.path().join("state")),
            ("XDG_DATA_HOME", dir.path().join("data")),
            ("XDG_CONFIG_HOME", dir.path().join("config")),
        ];
        let folder = home
            .join(".claude/projects")
            .join(recall::sources::claude_folder(&root));
        std::fs::create_dir_all(&folder).unwrap();
        let cwd = root.display().to_string();
        let (mut rng, mut files, mut total, mut i) = (Rng(7), Vec::new(), 0u64, 0usize);
        let target = (megabytes as u64) << 20;
        while total < target {
            let session = format!("s{:05}", files.len());
            let path = folder.join(format!("{session}.jsonl"));
            let mut out = String::new();
            while out.len() < 2 << 20 && total + (out.len() as u64) < target {
                for kind in [
                    "user",
                    "attachment",
                    "assistant",
                    "tool",
                    "result",
                    "assistant",
                ] {
                    out.push_str(&line(kind, &cwd, &session, i, &mut rng));
                    i += 1;
                }
            }
            std::fs::write(&path, &out).unwrap();
            total += out.len() as u64;
            files.push(path);
        }
        let bin = r#gen::trilogy_bin(Some("TRILOGY_BENCH_BIN"));
        let fx = Fixture {
            _dir: dir,
            root,
            files,
            bytes: total,
            env,
            bin,
        };
        let out = fx.cmd(&["init"]).output().unwrap();
        assert!(out.status.success(), "init: {out:?}");
        // what was just written goes to disk now, not in the background while timing
        sync_disk();
        eprintln!(
            "[setup] {} MB of transcripts in {} files",
            total >> 20,
            fx.files.len()
        );
        fx
    }

    fn cmd(&self, args: &[&str]) -> Command {
        let mut c = Command::new(&self.bin);
        c.env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .envs(self.env.iter().map(|(k, v)| (*k, v)))
            .arg("--root")
            .arg(&self.root)
            .args(args)
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        c
    }

    fn recall(&self) {
        let st = self.cmd(&["recall", "flaky", "port"]).status().unwrap();
        assert!(st.success());
    }
}

fn bench(c: &mut Criterion, fx: &Fixture) {
    let mut g = c.benchmark_group("recall");
    (g.sample_size(10).sampling_mode(SamplingMode::Flat)).measurement_time(Duration::from_secs(20));
    g.bench_function("floor_read", |b| {
        b.iter(|| {
            (fx.files.iter())
                .map(|f| std::fs::read(f).unwrap().len())
                .sum::<usize>()
        })
    });
    g.bench_function("first_index", |b| {
        b.iter_custom(|n| {
            let mut spent = Duration::ZERO;
            for _ in 0..n {
                assert!(fx.cmd(&["recall", "--forget"]).status().unwrap().success());
                let t = Instant::now();
                fx.recall();
                spent += t.elapsed();
            }
            spent
        })
    });
    drop(g);
    let mut g = c.benchmark_group("recall");
    g.sample_size(60);
    g.bench_function("floor_bin_true", |b| {
        b.iter(|| {
            let st = Command::new("/bin/true")
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .unwrap();
            assert!(st.success());
        })
    });
    fx.recall();
    sync_disk();
    g.bench_function("warm", |b| b.iter(|| fx.recall()));
    let last = fx.files.last().unwrap().clone();
    let cwd = fx.root.display().to_string();
    let mut rng = Rng(11);
    let mut turn = 10_000_000;
    g.bench_function("top_up_one_turn", |b| {
        b.iter_custom(|n| {
            let mut spent = Duration::ZERO;
            for _ in 0..n {
                turn += 1;
                let mut f = std::fs::OpenOptions::new()
                    .append(true)
                    .open(&last)
                    .unwrap();
                f.write_all(line("user", &cwd, "s-last", turn, &mut rng).as_bytes())
                    .unwrap();
                drop(f);
                let t = Instant::now();
                fx.recall();
                spent += t.elapsed();
            }
            spent
        })
    });
    // the library call alone, the workspace opened with the fixture's environment
    let env: Vec<(String, String)> = (fx.env.iter())
        .map(|(k, v)| (k.to_string(), v.display().to_string()))
        .collect();
    let wanted = trilogy::workspace::Wanted {
        explicit: Some(&fx.root),
        host: Vec::new(),
        cwd: None,
        lenient: false,
    };
    let (ws, _, _) = trilogy::workspace::open_located(&wanted, &env, &[]).expect("workspace");
    let q = RecallQuery {
        text: "flaky port".into(),
        ..RecallQuery::default()
    };
    recall::recall(&ws, &q, &mut |_, _| {}).expect("recall");
    g.bench_function("warm_in_process", |b| {
        b.iter(|| recall::recall(&ws, &q, &mut |_, _| {}).unwrap())
    });
    g.finish();
}

fn summary(fx: &Fixture, since: SystemTime) {
    let m = |b| r#gen::median_ms("recall", b, since);
    let mb = fx.bytes as f64 / 1048576.0;
    eprintln!("\n== recall benchmarks: medians (this run), {mb:.0} MB ==");
    if let (Some(read), Some(first)) = (m("floor_read"), m("first_index")) {
        let ratio = read / first;
        eprintln!(
            "  first index        {first:>9.1} ms  {:>6.1} MB/s  {ratio:.3}× the read floor ({read:.1} ms)  target ≥ 0.25× {}",
            mb / (first / 1000.0),
            if ratio >= 0.25 { "MET" } else { "MISSED" }
        );
    }
    let Some(spawn) = m("floor_bin_true") else {
        return;
    };
    for (name, bench, target) in [
        ("top-up, one turn", "top_up_one_turn", 20.0),
        ("warm", "warm", 10.0),
    ] {
        if let Some(v) = m(bench) {
            let r = v / spawn;
            eprintln!(
                "  {name:<18} {v:>9.2} ms  {r:>5.1}× spawn ({spawn:.2} ms)  target ≤ {target}× {}",
                if r <= target { "MET" } else { "MISSED" }
            );
        }
    }
    if let Some(v) = m("warm_in_process") {
        eprintln!("  warm, in process   {v:>9.2} ms  (diagnostic)");
    }
}

fn main() {
    let since = SystemTime::now();
    let mut c = Criterion::default().configure_from_args();
    let fx = Fixture::new(r#gen::env_usize("TRILOGY_RECALL_BENCH_MB", 200));
    bench(&mut c, &fx);
    c.final_summary();
    summary(&fx, since);
}

/// Put what was written on the disk now, so no flush runs in the background of a timing (Unix:
/// the bench runs there).
fn sync_disk() {
    #[cfg(unix)]
    rustix::fs::sync();
}
