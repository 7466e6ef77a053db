//! Nothing lost: many writer processes, a person editing the files, a reader, and writers
//! killed at random points. Sizes come from the environment so the big runs are on demand:
//! `TRILOGY_TORTURE_WRITERS` (16 by default: concurrent writers are applied in groups by one
//! leader, see `ops::checkpoint::group`), `TRILOGY_TORTURE_CHECKPOINTS`, `TRILOGY_TORTURE_KILLS`.

use crate::common;

use std::collections::HashSet;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{Ws, git_output as git, text};
use trilogy::config::Config;
use trilogy::workspace::{Clock, Workspace};

fn env_num(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

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

/// Every entry body and section text in the store, any state.
fn store_texts(root: &std::path::Path) -> Vec<(String, String)> {
    let ws = Workspace::new(root.to_path_buf(), Config::default(), Clock::default());
    ws.read(|r| {
        let mut v: Vec<(String, String)> = r
            .all_entries()?
            .into_iter()
            .map(|e| (e.state.as_str().to_string(), e.body))
            .collect();
        for s in r.sections()? {
            for rev in r.section_history(&s.key)? {
                v.push(("section".into(), rev.body));
            }
        }
        Ok(v)
    })
    .unwrap()
    .value
}

#[test]
fn writers_a_hand_editor_and_a_reader_lose_nothing() {
    let writers = env_num("TRILOGY_TORTURE_WRITERS", 16);
    let per = env_num("TRILOGY_TORTURE_CHECKPOINTS", 12);
    let ws = Ws::init();
    let root = ws.root().to_path_buf();
    let home = ws.state.path().to_path_buf();
    // a small live cap: sessions keep moving into the archive while everything else goes on
    std::fs::write(
        root.join("trilogy.toml"),
        "sessions_max_entries = 6\nsessions_archive_batch = 2\n",
    )
    .unwrap();
    let bin = assert_cmd::cargo::cargo_bin("trilogy");
    let acked = Arc::new(Mutex::new(Vec::<String>::new()));
    let stop = Arc::new(AtomicBool::new(false));
    let mut handles = Vec::new();
    for w in 0..writers {
        let (root, bin, acked, home) = (root.clone(), bin.clone(), acked.clone(), home.clone());
        handles.push(std::thread::spawn(move || {
            for i in 0..per {
                let tag = format!("w{w}-c{i}");
                let args: Vec<String> = match i % 3 {
                    0 => vec!["--session-done".into(), format!("{tag} session; tested")],
                    1 => vec!["--decision".into(), format!("{tag} decision")],
                    _ => vec![
                        "--section".into(),
                        "东西都在哪".into(),
                        "--line".into(),
                        format!("{tag} line"),
                    ],
                };
                let out = Command::new(&bin)
                    .arg("--root")
                    .arg(&root)
                    .arg("checkpoint")
                    .args(&args)
                    .env("TRILOGY_CONFIG", root.join("none.toml"))
                    .envs(common::private_env(&home))
                    .env("TRILOGY_LOCK_TIMEOUT_MS", "60000")
                    .output()
                    .unwrap();
                if out.status.success() {
                    acked.lock().unwrap().push(tag);
                } else {
                    // a refusal must be a clear, expected one: never a silent loss
                    assert_eq!(
                        out.status.code(),
                        Some(6),
                        "{tag}: only `busy` may refuse: {}",
                        text(&out.stderr)
                    );
                }
            }
        }));
    }
    // a person editing both files by hand, read-modify-write, as an editor saves
    let hand = {
        let (root, stop) = (root.clone(), stop.clone());
        std::thread::spawn(move || {
            let mut edits = Vec::new();
            let mut k = 0;
            while !stop.load(Ordering::Relaxed) && k < 40 {
                let path = root.join("memory/SESSIONS.md");
                if let Ok(s) = std::fs::read_to_string(&path)
                    && let Some(pos) = s.find("\n## ")
                {
                    let entry = format!(
                        "## 2026-11-2{}\n完成：hand edit {k}, checked by eye\n\n",
                        k % 9
                    );
                    let new = format!("{}{}{}", &s[..pos + 1], entry, &s[pos + 1..]);
                    std::fs::write(&path, new).unwrap();
                    edits.push(format!("hand edit {k},"));
                }
                let p = root.join("memory/PROJECT.md");
                if let Ok(s) = std::fs::read_to_string(&p) {
                    std::fs::write(
                        &p,
                        s.replacen("## 坑\n\n", &format!("## 坑\n\nhand trap {k}\n"), 1),
                    )
                    .unwrap();
                    edits.push(format!("hand trap {k}"));
                }
                k += 1;
                std::thread::sleep(Duration::from_millis(15));
            }
            edits
        })
    };
    let reader = {
        let (root, bin, stop, home) = (root.clone(), bin.clone(), stop.clone(), home.clone());
        std::thread::spawn(move || {
            let mut n = 0;
            while !stop.load(Ordering::Relaxed) {
                let out = Command::new(&bin)
                    .arg("--root")
                    .arg(&root)
                    .args(["read", "-n", "5"])
                    .env("TRILOGY_CONFIG", root.join("none.toml"))
                    .envs(common::private_env(&home))
                    .env("TRILOGY_LOCK_TIMEOUT_MS", "60000")
                    .stdout(Stdio::null())
                    .output()
                    .unwrap();
                assert!(
                    out.status.success() || out.status.code() == Some(6),
                    "{}",
                    text(&out.stderr)
                );
                n += 1;
            }
            n
        })
    };
    for h in handles {
        h.join().unwrap();
    }
    stop.store(true, Ordering::Relaxed);
    let hand_edits = hand.join().unwrap();
    let reads = reader.join().unwrap();
    ws.ok(&["status"]);

    let texts = store_texts(&root);
    let all: String = texts
        .iter()
        .map(|(_, t)| t.as_str())
        .collect::<Vec<_>>()
        .join("\n");
    let acked = acked.lock().unwrap().clone();
    assert!(
        acked.len() >= writers * per * 9 / 10,
        "most writes are acknowledged: {}",
        acked.len()
    );
    for tag in &acked {
        assert!(
            all.contains(tag.as_str()),
            "acknowledged {tag} is not in the store"
        );
    }
    for e in &hand_edits {
        if !all.contains(e.as_str()) {
            let keep = ws.dir.path().to_path_buf();
            std::mem::forget(ws);
            panic!(
                "hand edit {e:?} is not in the store; kept {}",
                keep.display()
            );
        }
    }
    // no duplicates among the live entries
    let live: Vec<&String> = texts
        .iter()
        .filter(|(s, _)| s == "live")
        .map(|(_, t)| t)
        .collect();
    let unique: HashSet<&&String> = live.iter().collect();
    assert_eq!(unique.len(), live.len(), "a live entry is duplicated");
    let before = ws.snapshot();
    let doctor = ws.run(&["doctor"]);
    assert!(doctor.status.success(), "{}", text(&doctor.stdout));
    assert_eq!(ws.snapshot(), before, "the files equal the render");
    eprintln!(
        "{} acknowledged, {} hand edits, {reads} reads",
        acked.len(),
        hand_edits.len()
    );
}

#[test]
fn writers_killed_at_random_points_leave_a_healthy_workspace() {
    let kills = env_num("TRILOGY_TORTURE_KILLS", 100);
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

/// Insert a hand-written session entry above the first entry of `s`.
fn with_hand_entry(s: &str, text: &str) -> Option<String> {
    let pos = s.find("\n## ")? + 1;
    Some(format!(
        "{}## 2026-11-29\n\n完成：{text}, checked by eye\n\n{}",
        &s[..pos],
        &s[pos..]
    ))
}

/// Checkpoints from `writers` threads, `per` each; returns the acknowledged tags.
fn spawn_writers(
    root: &std::path::Path,
    home: &std::path::Path,
    writers: usize,
    per: usize,
) -> Vec<std::thread::JoinHandle<Vec<String>>> {
    let bin = assert_cmd::cargo::cargo_bin("trilogy");
    (0..writers)
        .map(|w| {
            let (root, bin, home) = (root.to_path_buf(), bin.clone(), home.to_path_buf());
            std::thread::spawn(move || {
                let mut acked = Vec::new();
                for i in 0..per {
                    let tag = format!("w{w}-c{i}");
                    let out = Command::new(&bin)
                        .arg("--root")
                        .arg(&root)
                        .args([
                            "checkpoint",
                            "--session-done",
                            &format!("{tag} session; tested"),
                        ])
                        .env("TRILOGY_CONFIG", root.join("none.toml"))
                        .envs(common::private_env(&home))
                        .env("TRILOGY_LOCK_TIMEOUT_MS", "60000")
                        .output()
                        .unwrap();
                    if out.status.success() {
                        acked.push(tag);
                    } else {
                        assert_eq!(out.status.code(), Some(6), "{tag}: {}", text(&out.stderr));
                    }
                    std::thread::sleep(Duration::from_millis(20));
                }
                acked
            })
        })
        .collect()
}

/// Every `wanted` text is in a SESSIONS.md entry the store holds — live, or (with `live_only`
/// false) at least restorable; the files equal their rendering and doctor is green.
fn assert_kept_and_healthy(ws: Ws, wanted: &[String], live_only: bool) {
    let v = ws.json(&["read", "SESSIONS.md", "-n", "100000"]);
    let live: String = v["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["state"] == "live")
        .filter_map(|e| e["body"].as_str())
        .collect::<Vec<_>>()
        .join("\n");
    let all: String = if live_only {
        String::new()
    } else {
        store_texts(ws.root())
            .into_iter()
            .map(|(_, t)| t)
            .collect::<Vec<_>>()
            .join("\n")
    };
    for w in wanted {
        if !live.contains(w.as_str()) && (live_only || !all.contains(w.as_str())) {
            let kept = ws.dir.keep();
            panic!("`{w}` is not kept; workspace kept at {}", kept.display());
        }
    }
    let before = ws.snapshot();
    let doctor = ws.run(&["doctor"]);
    assert!(doctor.status.success(), "{}", text(&doctor.stdout));
    assert_eq!(ws.snapshot(), before, "the files equal the render");
}

/// Writers, and one person's tools saving SESSIONS.md: a script that writes it in 4 KiB writes
/// 2 ms apart, and an editor that holds it open across a pause in the middle of its save.
/// Every acknowledged entry and every hand-written one is live at the end. The editor's first
/// half is absorbed as it is (the entries below it look deleted); the rest lands in the
/// version trilogy displaced and brings them back (`tests/files/late_saves.rs` has the two ways that
/// could go wrong, one at a time).
#[test]
fn chunked_and_held_open_saves_racing_writers_lose_nothing() {
    let writers = env_num("TRILOGY_TORTURE_WRITERS", 16);
    let per = env_num("TRILOGY_TORTURE_CHECKPOINTS", 10);
    let ws = Ws::init();
    let root = ws.root().to_path_buf();
    std::fs::write(root.join("trilogy.toml"), "sessions_max_entries = 0\n").unwrap();
    let mut seed = String::new();
    for i in 0..300 {
        seed.push_str(&format!("seed entry {i:03} with some length to it; "));
    }
    ws.ok(&["checkpoint", "--session-done", &format!("{seed}tested")]);
    let handles = spawn_writers(&root, ws.state.path(), writers, per);
    let path = root.join("memory/SESSIONS.md");
    let mut hand = Vec::new();
    for k in 0..16 {
        use std::io::Write;
        let text = format!("hand save {k}");
        let Ok(s) = std::fs::read_to_string(&path) else {
            continue;
        };
        let Some(new) = with_hand_entry(&s, &text) else {
            continue;
        };
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .truncate(true)
            .open(&path)
            .unwrap();
        if k % 2 == 0 {
            for chunk in new.as_bytes().chunks(4096) {
                f.write_all(chunk).unwrap();
                std::thread::sleep(Duration::from_millis(2));
            }
        } else {
            let mid = (new.len() / 2..)
                .find(|i| new.is_char_boundary(*i))
                .unwrap();
            let cut = new[..mid].rfind("\n## ").map_or(0, |p| p + 1);
            f.write_all(&new.as_bytes()[..cut]).unwrap();
            std::thread::sleep(Duration::from_millis(120));
            f.write_all(&new.as_bytes()[cut..]).unwrap();
        }
        drop(f);
        hand.push(format!("{text}, checked by eye"));
        std::thread::sleep(Duration::from_millis(40));
    }
    let mut wanted = hand.clone();
    for h in handles {
        wanted.extend(
            h.join()
                .unwrap()
                .into_iter()
                .map(|t| format!("{t} session")),
        );
    }
    ws.ok(&["status"]);
    eprintln!(
        "{} entries to find, {} of them saved by hand",
        wanted.len(),
        hand.len()
    );
    assert_kept_and_healthy(ws, &wanted, true);
}

/// Writers while `git rebase --autostash` replays commits that change the memory files: git
/// stashes what trilogy wrote, resets the files, replays, and puts the stash back. Every
/// acknowledged entry is kept. Almost always live: only an entry written between git's stash
/// and its reset, when trilogy then reads the reset file before git puts the stash back (a
/// file exactly as git's index has it is taken as the branch's memory), ends up removed —
/// restorable, and named in the log.
#[test]
fn git_rebases_racing_writers_lose_nothing() {
    let writers = env_num("TRILOGY_TORTURE_WRITERS", 16);
    let per = env_num("TRILOGY_TORTURE_CHECKPOINTS", 10);
    let ws = Ws::init();
    let root = ws.root().to_path_buf();
    std::fs::write(root.join("trilogy.toml"), "sessions_max_entries = 0\n").unwrap();
    ws.ok(&["checkpoint", "--session-done", "first; tested"]);
    for args in [
        vec!["init", "-q"],
        vec!["add", "-A"],
        vec!["commit", "-qm", "memory"],
    ] {
        let out = git(&root, &args);
        assert!(out.status.success(), "{}", text(&out.stderr));
    }
    let mut wanted = vec!["first".to_string()];
    for n in 0..2 {
        ws.ok(&[
            "checkpoint",
            "--session-done",
            &format!("committed {n}; tested"),
        ]);
        wanted.push(format!("committed {n}"));
        assert!(
            git(&root, &["commit", "-qam", "more memory"])
                .status
                .success()
        );
    }
    let handles = spawn_writers(&root, ws.state.path(), writers, per);
    let mut rebased = 0;
    let mut stashed = 0;
    for _ in 0..8 {
        let out = git(
            &root,
            &["rebase", "-q", "--autostash", "--force-rebase", "HEAD~2"],
        );
        if out.status.success() {
            rebased += 1;
        } else {
            // git could not re-apply its stash (trilogy wrote the files meanwhile): the stash
            // stays in git's list; the store kept every entry regardless
            let _ = git(&root, &["rebase", "--abort"]);
            stashed += 1;
        }
        std::thread::sleep(Duration::from_millis(60));
    }
    for h in handles {
        wanted.extend(
            h.join()
                .unwrap()
                .into_iter()
                .map(|t| format!("{t} session")),
        );
    }
    ws.ok(&["status"]);
    eprintln!(
        "{} entries to find, {rebased} rebases, {stashed} left a stash",
        wanted.len()
    );
    assert_kept_and_healthy(ws, &wanted, false);
}
