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
    // how long one checkpoint takes here and now: kills are spread over 1.5 times that, so
    // they land anywhere in a command's life and about a third of the commands complete
    let mut runs: Vec<Duration> = (0..3)
        .map(|n| {
            let t = std::time::Instant::now();
            let out = Command::new(&bin)
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
    let mut acked = Vec::new();
    let mut killed = 0;
    let mut i = 0;
    while killed < kills {
        let tag = format!("k{i}");
        i += 1;
        let mut child = Command::new(&bin)
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
        std::thread::sleep(Duration::from_micros(rng.next(window_us)));
        match child.try_wait().unwrap() {
            Some(status) => {
                if status.success() {
                    acked.push(tag);
                }
            }
            None => {
                child.kill().unwrap();
                let status = child.wait().unwrap();
                if status.success() {
                    acked.push(tag);
                } else {
                    killed += 1;
                }
            }
        }
        if i % 25 == 0 || killed == kills {
            // the store opens, doctor is clean after at most one --fix, acknowledged writes are there
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
            for tag in &acked {
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
