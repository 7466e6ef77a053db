//! Writers racing a person's tools that save SESSIONS.md slowly, and racing git rebases that
//! stash and reset the memory files: every acknowledged entry is kept.

use super::*;

/// Insert a hand-written session entry above the first entry of `s`.
fn with_hand_entry(s: &str, text: &str) -> Option<String> {
    let pos = s.find("\n## ")? + 1;
    Some(format!(
        "{}## 2026-11-29\n\n完成：{text}, checked by eye\n\n{}",
        &s[..pos],
        &s[pos..]
    ))
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
    let writers = env_or("TRILOGY_TORTURE_WRITERS", 16) as usize;
    let per = env_or("TRILOGY_TORTURE_CHECKPOINTS", 10) as usize;
    let ws = Ws::init();
    let root = ws.root().to_path_buf();
    std::fs::write(root.join("trilogy.toml"), "sessions_max_entries = 0\n").unwrap();
    let mut seed = String::new();
    for i in 0..300 {
        seed.push_str(&format!("seed entry {i:03} with some length to it; "));
    }
    ws.ok(&["checkpoint", "--session-done", &format!("{seed}tested")]);
    let handles = spawn_writers(
        &root,
        ws.state.path(),
        (writers, per),
        a_session,
        Duration::from_millis(20),
    );
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
    wanted.extend(acked_sessions(handles));
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
    let writers = env_or("TRILOGY_TORTURE_WRITERS", 16) as usize;
    let per = env_or("TRILOGY_TORTURE_CHECKPOINTS", 10) as usize;
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
    let handles = spawn_writers(
        &root,
        ws.state.path(),
        (writers, per),
        a_session,
        Duration::from_millis(20),
    );
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
    wanted.extend(acked_sessions(handles));
    ws.ok(&["status"]);
    eprintln!(
        "{} entries to find, {rebased} rebases, {stashed} left a stash",
        wanted.len()
    );
    assert_kept_and_healthy(ws, &wanted, false);
}

/// The session line of every checkpoint the writers had acknowledged, once they are done.
fn acked_sessions(handles: Vec<std::thread::JoinHandle<Vec<String>>>) -> Vec<String> {
    (handles.into_iter())
        .flat_map(|h| h.join().unwrap())
        .map(|t| format!("{t} session"))
        .collect()
}
