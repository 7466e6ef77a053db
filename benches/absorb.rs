//! What the version history costs a save: absorbing a hand-changed DECISIONS.md of 1,000
//! entries (one new decision on top, as a person or a script adds one) and writing it back,
//! with the history of the file's last 64 versions, and without it
//! (`TRILOGY_BENCH_NO_VERSIONS`: no versions recorded or consulted, the fallback rule), in the
//! same process, the two interleaved round by round so the machine's drift falls on both.
//!
//! Reports each one's median and their ratio (target ≤ 1.2). Knobs: `BENCH_ABSORB_ROUNDS`
//! (60), `BENCH_ABSORB_ENTRIES` (1000). Without `--bench` (`cargo test --benches`) it is a
//! smoke run of a few rounds.

use std::path::Path;
use std::time::{Duration, Instant, SystemTime};

use trilogy::config::Config;
use trilogy::model::FileKind;
use trilogy::ops::{self, CheckpointInput, DecisionInput};
use trilogy::workspace::Workspace;

#[path = "gen/mod.rs"]
#[allow(dead_code)]
mod r#gen;

const OFF: &str = "TRILOGY_BENCH_NO_VERSIONS";

fn knob(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn workspace(root: &Path) -> Workspace {
    Workspace::new(root.to_path_buf(), Config::default(), r#gen::clock())
}

fn decision(n: usize) -> String {
    format!(
        "## 2026-{:02}-{:02} — choice {n}\n选择：option {n} for the parser's table handling\n因为：measured {n} ms against the other\n\n",
        1 + n % 11,
        1 + n % 28
    )
}

/// Sets `TRILOGY_BENCH_NO_VERSIONS` for as long as it lives (this bench is single-threaded).
struct Off;

impl Off {
    fn new() -> Off {
        // SAFETY: the bench runs on one thread; nothing reads the environment concurrently
        unsafe { std::env::set_var(OFF, "1") };
        Off
    }
}

impl Drop for Off {
    fn drop(&mut self) {
        // SAFETY: as above
        unsafe { std::env::remove_var(OFF) };
    }
}

/// One person's save, absorbed and written back: the time of the command only.
fn absorb_one(ws: &Workspace, n: usize) -> Duration {
    let path = ws.file_path(FileKind::Decisions);
    let text = std::fs::read_to_string(&path).unwrap();
    let i = text.find("\n## ").map_or(text.len(), |i| i + 1);
    let saved = format!("{}{}{}", &text[..i], decision(100_000 + n), &text[i..]);
    std::fs::write(&path, saved).unwrap();
    // an old save, so no command waits for it to go quiet
    let f = std::fs::File::options().write(true).open(&path).unwrap();
    f.set_modified(SystemTime::now() - Duration::from_secs(5))
        .unwrap();
    drop(f);
    let started = Instant::now();
    ws.write("cli", |_| Ok(())).unwrap();
    started.elapsed()
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let bench = std::env::args().any(|a| a == "--bench");
    let rounds = if bench {
        knob("BENCH_ABSORB_ROUNDS", 60)
    } else {
        3
    };
    let entries = knob("BENCH_ABSORB_ENTRIES", 1000);
    let dir = tempfile::Builder::new()
        .prefix("trilogy-absorb-")
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .unwrap();
    let ws = workspace(dir.path());
    ops::init(&ws).unwrap();
    let path = ws.file_path(FileKind::Decisions);
    let head = std::fs::read_to_string(&path).unwrap();
    let mut text = head.trim_end().to_string();
    text.push_str("\n\n");
    for n in (0..entries).rev() {
        text.push_str(&decision(n));
    }
    std::fs::write(&path, text.trim_end().to_string() + "\n").unwrap();
    ws.write("cli", |_| Ok(())).unwrap();
    // a full history: the file written 70 times since
    for n in 0..70 {
        let input = CheckpointInput {
            decisions: vec![DecisionInput {
                choice: format!("recorded choice {n}"),
                because: Some("a reason".into()),
                ..Default::default()
            }],
            ..Default::default()
        };
        ops::checkpoint(&ws, "cli", &input).unwrap();
    }
    let (mut with, mut without) = (Vec::new(), Vec::new());
    for r in 0..rounds {
        with.push(absorb_one(&ws, 2 * r));
        let off = Off::new();
        without.push(absorb_one(&ws, 2 * r + 1));
        drop(off);
    }
    let (a, b) = (median(with), median(without));
    println!(
        "absorb of a changed {entries}-entry DECISIONS.md, {rounds} rounds: with the version history {:.2} ms, without {:.2} ms: ratio {:.3} (target ≤ 1.2)",
        a.as_secs_f64() * 1e3,
        b.as_secs_f64() * 1e3,
        a.as_secs_f64() / b.as_secs_f64()
    );
}
