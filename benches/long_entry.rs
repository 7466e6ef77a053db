//! What the length of one entry costs its absorb: a hand-written SESSIONS.md entry of 80 KB
//! (a long log pasted into a session) against one of 10 KB, each saved by hand and absorbed by
//! the next command, in the same process, interleaved round by round. Linear time gives a ratio
//! of 8; the target is ≤ 10 (a quadratic absorb gave 64 and more).
//!
//! Knobs: `BENCH_LONG_ROUNDS` (30). Without `--bench` (`cargo test --benches`) it is a smoke
//! run of a few rounds.

use std::path::Path;
use std::time::{Duration, Instant, SystemTime};

use trilogy::config::Config;
use trilogy::model::FileKind;
use trilogy::ops;
use trilogy::workspace::Workspace;

#[path = "gen/mod.rs"]
#[allow(dead_code)]
mod r#gen;

fn workspace(root: &Path) -> Workspace {
    Workspace::new(root.to_path_buf(), Config::default(), r#gen::clock())
}

/// A log line of about 80 bytes, different for every `n`.
fn line(round: usize, n: usize) -> String {
    format!(
        "[{round:04}.{n:06}] worker step finished: parsed 17 rows, 3 warnings, cache hit ratio 0.{n}\n"
    )
}

/// Save SESSIONS.md by hand with one entry of about `bytes` on top; the time of the command
/// that absorbs and writes it back.
fn absorb_one(ws: &Workspace, round: usize, bytes: usize) -> Duration {
    let path = ws.file_path(FileKind::Sessions);
    let text = std::fs::read_to_string(&path).unwrap();
    let i = text.find("\n## ").map_or(text.len(), |i| i + 1);
    let mut body = format!("## 2026-11-29\n\n完成：pasted run log {round}, checked by eye\n\n");
    let mut n = 0;
    while body.len() < bytes {
        body.push_str(&line(round, n));
        n += 1;
    }
    body.push('\n');
    std::fs::write(&path, format!("{}{body}{}", &text[..i], &text[i..])).unwrap();
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
    let rounds = match bench {
        true => std::env::var("BENCH_LONG_ROUNDS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(30),
        false => 2,
    };
    let (mut short, mut long) = (Vec::new(), Vec::new());
    for r in 0..rounds {
        // a fresh workspace per size, so both absorb against files of the same shape
        for (bytes, out) in [(10 << 10, &mut short), (80 << 10, &mut long)] {
            let dir = tempfile::Builder::new()
                .prefix("trilogy-long-")
                .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
                .unwrap();
            let ws = workspace(dir.path());
            ops::init(&ws).unwrap();
            ws.write("cli", |_| Ok(())).unwrap();
            out.push(absorb_one(&ws, r, bytes));
        }
    }
    let (a, b) = (median(short), median(long));
    println!(
        "absorb of a hand-written entry, {rounds} rounds: 10 KB {:.2} ms, 80 KB {:.2} ms: ratio {:.2} (target ≤ 10; linear is 8)",
        a.as_secs_f64() * 1e3,
        b.as_secs_f64() * 1e3,
        b.as_secs_f64() / a.as_secs_f64()
    );
}
