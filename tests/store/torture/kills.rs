//! Writers killed at random points of a checkpoint, while sessions move into the archive:
//! the workspace stays healthy and every acknowledged write is there exactly once.

use super::*;

/// A small deterministic generator (the seed is printed so a failure can be replayed).
struct Lcg(u64);
impl Lcg {
    fn next(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % n.max(1)
    }
}

fn seed() -> u64 {
    let s = std::env::var("TRILOGY_TORTURE_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos() as u64
        });
    eprintln!("TRILOGY_TORTURE_SEED={s}");
    s
}

/// How long one checkpoint takes here and now (the middle of three), in µs, times 1.5: kills
/// spread over that land anywhere in a command's life and about a third of the commands
/// complete.
fn kill_window_us(ws: &Ws, bin: &std::path::Path) -> u64 {
    let mut runs: Vec<Duration> = (0..3)
        .map(|n| {
            let t = std::time::Instant::now();
            let out = Command::new(bin)
                .arg("--root")
                .arg(ws.root())
                .args([
                    "checkpoint",
                    "--session-done",
                    &format!("timing {n}; tested"),
                ])
                .env("TRILOGY_CONFIG", ws.root().join("none.toml"))
                .envs(common::private_env(ws.state.path()))
                .output()
                .unwrap();
            assert!(out.status.success(), "{}", text(&out.stderr));
            t.elapsed()
        })
        .collect();
    runs.sort();
    let window_us = (runs[1].as_micros() as u64 * 3 / 2).max(1_000);
    eprintln!(
        "one checkpoint takes {:?}; kills within {window_us} µs",
        runs[1]
    );
    window_us
}

/// How a checkpoint that may be killed ended.
enum Ended {
    /// It finished and said so: its writes are acknowledged.
    Acked,
    /// The kill stopped it.
    Killed,
    /// It finished with a failure before the kill.
    Failed,
}

/// A checkpoint of a session and a decision tagged `tag`, killed after `wait` unless done by
/// then.
fn checkpoint_killed_after(ws: &Ws, bin: &std::path::Path, tag: &str, wait: Duration) -> Ended {
    let mut child = Command::new(bin)
        .arg("--root")
        .arg(ws.root())
        .args([
            "checkpoint",
            "--session-done",
            &format!("{tag} entry; tested"),
            "--decision",
            &format!("{tag} choice"),
        ])
        .env("TRILOGY_CONFIG", ws.root().join("none.toml"))
        .envs(common::private_env(ws.state.path()))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(wait);
    let (status, killed) = match child.try_wait().unwrap() {
        Some(status) => (status, false),
        None => {
            child.kill().unwrap();
            (child.wait().unwrap(), true)
        }
    };
    match (status.success(), killed) {
        (true, _) => Ended::Acked,
        (false, true) => Ended::Killed,
        (false, false) => Ended::Failed,
    }
}

/// The store opens, doctor is clean after at most one `--fix`, and every `acked` tag's session
/// and decision are in the files exactly once.
fn assert_healthy_and_each_once(ws: &Ws, acked: &[String], killed: usize) {
    let d = ws.run(&["doctor"]);
    if !d.status.success() {
        let fixed = ws.run(&["doctor", "--fix"]);
        assert!(
            fixed.status.success(),
            "after {killed} kills: {}",
            text(&fixed.stdout)
        );
    }
    let s = format!(
        "{}{}",
        ws.read("SESSIONS.md"),
        std::fs::read_to_string(ws.path("SESSIONS-archive.md")).unwrap_or_default()
    );
    let d = ws.read("DECISIONS.md");
    for tag in acked {
        assert_eq!(
            s.matches(&format!("{tag} entry; tested")).count(),
            1,
            "{tag} in SESSIONS.md and its archive"
        );
        assert_eq!(
            d.matches(&format!("— {tag} choice\n")).count(),
            1,
            "{tag} in DECISIONS.md"
        );
    }
}

#[test]
fn writers_killed_at_random_points_leave_a_healthy_workspace() {
    let kills = env_or("TRILOGY_TORTURE_KILLS", 100) as usize;
    let mut rng = Lcg(seed());
    let ws = Ws::init();
    // a small live cap, so kills also land while sessions move into the archive
    std::fs::write(
        ws.root().join("trilogy.toml"),
        "sessions_max_entries = 5\nsessions_archive_batch = 2\n",
    )
    .unwrap();
    let bin = assert_cmd::cargo::cargo_bin("trilogy");
    let window_us = kill_window_us(&ws, &bin);
    let mut acked = Vec::new();
    let mut killed = 0;
    let mut i = 0;
    while killed < kills {
        let tag = format!("k{i}");
        i += 1;
        let wait = Duration::from_micros(rng.next(window_us));
        match checkpoint_killed_after(&ws, &bin, &tag, wait) {
            Ended::Acked => acked.push(tag),
            Ended::Killed => killed += 1,
            Ended::Failed => {}
        }
        if i % 25 == 0 || killed == kills {
            assert_healthy_and_each_once(&ws, &acked, killed);
        }
    }
    eprintln!(
        "{killed} kills, {} acknowledged writes survived",
        acked.len()
    );
    assert!(
        !acked.is_empty(),
        "no checkpoint completed between the kills: the check above verified nothing"
    );
}
