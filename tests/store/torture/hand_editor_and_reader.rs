//! Writers of sessions, decisions and section lines, a person editing both files by hand, and
//! a reader, all at once: every acknowledged write and every hand edit is in the store.

use super::*;

/// A session entry, a decision or a line of a section, in turn.
fn a_session_decision_or_line(tag: &str, i: usize) -> Vec<String> {
    match i % 3 {
        0 => a_session(tag, i),
        1 => vec!["--decision".into(), format!("{tag} decision")],
        _ => vec![
            "--section".into(),
            "东西都在哪".into(),
            "--line".into(),
            format!("{tag} line"),
        ],
    }
}

/// A person editing both files by hand, read-modify-write as an editor saves, until `stop`
/// (40 rounds at most); returns a text of each edit.
fn spawn_hand_editor(
    root: &std::path::Path,
    stop: Arc<AtomicBool>,
) -> std::thread::JoinHandle<Vec<String>> {
    let root = root.to_path_buf();
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
}

/// A reader running `trilogy read` until `stop`, each read answered or refused as `busy`;
/// returns how many it ran.
fn spawn_reader(
    root: &std::path::Path,
    home: &std::path::Path,
    stop: Arc<AtomicBool>,
) -> std::thread::JoinHandle<usize> {
    let (root, home) = (root.to_path_buf(), home.to_path_buf());
    std::thread::spawn(move || {
        let mut n = 0;
        while !stop.load(Ordering::Relaxed) {
            let out = trilogy_in(&root, &home)
                .args(["read", "-n", "5"])
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
}

/// Every acknowledged tag and every hand edit is in the store (a missing hand edit keeps the
/// workspace for a look), no live entry is there twice, and doctor finds the files equal to
/// their rendering.
fn assert_nothing_lost(ws: Ws, acked: &[String], hand_edits: &[String]) {
    let texts = store_texts(ws.root());
    let all: String = texts
        .iter()
        .map(|(_, t)| t.as_str())
        .collect::<Vec<_>>()
        .join("\n");
    for tag in acked {
        assert!(
            all.contains(tag.as_str()),
            "acknowledged {tag} is not in the store"
        );
    }
    for e in hand_edits {
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
}

#[test]
fn writers_a_hand_editor_and_a_reader_lose_nothing() {
    let writers = env_or("TRILOGY_TORTURE_WRITERS", 16) as usize;
    let per = env_or("TRILOGY_TORTURE_CHECKPOINTS", 12) as usize;
    let ws = Ws::init();
    let root = ws.root().to_path_buf();
    let home = ws.state.path().to_path_buf();
    // a small live cap: sessions keep moving into the archive while everything else goes on
    std::fs::write(
        root.join("trilogy.toml"),
        "sessions_max_entries = 6\nsessions_archive_batch = 2\n",
    )
    .unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let handles = spawn_writers(
        &root,
        &home,
        (writers, per),
        a_session_decision_or_line,
        Duration::ZERO,
    );
    let hand = spawn_hand_editor(&root, stop.clone());
    let reader = spawn_reader(&root, &home, stop.clone());
    let mut acked = Vec::new();
    for h in handles {
        acked.extend(h.join().unwrap());
    }
    stop.store(true, Ordering::Relaxed);
    let hand_edits = hand.join().unwrap();
    let reads = reader.join().unwrap();
    ws.ok(&["status"]);
    assert!(
        acked.len() >= writers * per * 9 / 10,
        "most writes are acknowledged: {}",
        acked.len()
    );
    assert_nothing_lost(ws, &acked, &hand_edits);
    eprintln!(
        "{} acknowledged, {} hand edits, {reads} reads",
        acked.len(),
        hand_edits.len()
    );
}
