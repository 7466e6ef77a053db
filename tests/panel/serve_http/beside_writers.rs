//! Panel saves beside CLI writers: nothing acknowledged is lost, a removal of an entry changed
//! since is a conflict, and a deletion of the newest entry holds.

use super::*;

#[test]
fn a_panel_save_while_two_cli_writers_record_loses_nothing() {
    let ws = Ws::init();
    let s = Server::start(&ws);
    const EACH: usize = 8;
    let writers: Vec<_> = (0..2)
        .map(|w| {
            let cmds: Vec<std::process::Command> = (0..EACH)
                .map(|i| {
                    let mut c = ws.std_cmd();
                    c.args([
                        "checkpoint",
                        "--session-done",
                        &format!("writer {w} entry {i}; tested"),
                    ]);
                    c
                })
                .collect();
            std::thread::spawn(move || {
                let mut acknowledged = Vec::new();
                for (i, mut c) in cmds.into_iter().enumerate() {
                    let out = c.output().unwrap();
                    assert!(
                        out.status.success(),
                        "{}",
                        String::from_utf8_lossy(&out.stderr)
                    );
                    acknowledged.push(format!("writer {w} entry {i}; tested"));
                }
                acknowledged
            })
        })
        .collect();
    let mut saved = Vec::new();
    for n in 0..6 {
        let files = s
            .get(&format!("/trilogy/files?root={}", enc(&root(&ws))))
            .json();
        let text = files["files"]["PROJECT.md"]["text"]
            .as_str()
            .unwrap()
            .to_string();
        let line = format!("panel edit {n}");
        let edited = text.replacen("## 现状\n", &format!("## 现状\n\n{line}\n"), 1);
        let r = s.post(
            "/trilogy/save",
            &json!({ "root": root(&ws), "file": "PROJECT.md", "text": edited }),
        );
        assert_eq!(r.status, 200, "{}", r.body);
        saved.push(line);
    }
    let mut acknowledged = Vec::new();
    for w in writers {
        acknowledged.extend(w.join().unwrap());
    }
    ws.ok(&["status"]);
    let log = ws.read("SESSIONS.md");
    for a in &acknowledged {
        assert!(log.contains(a.as_str()), "lost {a}");
    }
    let project = ws.read("PROJECT.md");
    for line in &saved {
        assert!(project.contains(line.as_str()), "lost {line}:\n{project}");
    }
}

#[test]
fn a_panel_save_loop_beside_a_cli_writer_loses_no_acknowledged_entry() {
    let ws = Ws::init();
    let s = Server::start(&ws);
    const EACH: usize = 12;
    let cmds: Vec<std::process::Command> = (0..EACH)
        .map(|i| {
            let mut c = ws.std_cmd();
            c.args([
                "checkpoint",
                "--session-done",
                &format!("cli entry {i}; tested"),
            ]);
            c
        })
        .collect();
    let writer = std::thread::spawn(move || {
        let mut acknowledged = Vec::new();
        for (i, mut c) in cmds.into_iter().enumerate() {
            let out = c.output().unwrap();
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            acknowledged.push(format!("cli entry {i}; tested"));
        }
        acknowledged
    });
    // the panel reads SESSIONS.md, adds an entry on top and saves the whole file back, again
    // and again, while the writer records. A copy of a version that never became the file's (a
    // write trilogy took back when it raced another) is a 409: the panel reads again and redoes
    let mut saved = Vec::new();
    let mut conflicts: Vec<String> = Vec::new();
    for n in 0..10 {
        let line = format!("panel entry {n}, checked by eye");
        for _ in 0..5 {
            let (text, version) = served(&s, &ws, "SESSIONS.md");
            let i = text.find("\n## ").map_or(text.len(), |i| i + 1);
            let edited = format!(
                "{}## 2026-11-29 · panel\n完成：{line}\n\n{}",
                &text[..i],
                &text[i..]
            );
            let r = s.post(
                "/trilogy/save",
                &json!({ "root": root(&ws), "file": "SESSIONS.md", "text": edited, "version": version }),
            );
            match r.status {
                200 => {
                    saved.push(line.clone());
                    break;
                }
                409 => conflicts.push(r.body.clone()),
                other => panic!("{other}: {}", r.body),
            }
        }
    }
    let acknowledged = writer.join().unwrap();
    ws.ok(&["status"]);
    let log = ws.read("SESSIONS.md");
    let missing: Vec<&String> = acknowledged
        .iter()
        .filter(|a| !log.contains(a.as_str()))
        .collect();
    assert!(
        missing.is_empty(),
        "{} of {} lost: {missing:?}",
        missing.len(),
        acknowledged.len()
    );
    for line in &saved {
        assert!(log.contains(line.as_str()), "lost {line}");
    }
    // adding on top never clashes with what others recorded: a conflict is only ever a copy
    // trilogy no longer knows, and reading again resolves it
    assert!(
        conflicts.iter().all(|c| c.contains("no longer known")),
        "{conflicts:?}"
    );
    assert_eq!(saved.len(), 10, "{conflicts:?}");
}

#[test]
fn a_panel_save_that_removes_an_entry_changed_since_is_a_conflict_and_writes_nothing() {
    let ws = Ws::init();
    ws.ok(&[
        "checkpoint",
        "--decision",
        "use redb",
        "--because",
        "it is transactional",
    ]);
    ws.ok(&[
        "checkpoint",
        "--decision",
        "use bincode",
        "--because",
        "it is compact",
    ]);
    let s = Server::start(&ws);
    let (text, version) = served(&s, &ws, "DECISIONS.md");
    // meanwhile an agent marks the decision superseded
    ws.ok(&[
        "checkpoint",
        "--decision",
        "use postcard",
        "--because",
        "bincode 2 changed its format",
        "--supersedes",
        "use bincode",
    ]);
    let before = ws.snapshot();
    let start = text.find("## 2026-11-29 — use bincode").unwrap();
    let end = text[start..]
        .find("\n## ")
        .map_or(text.len(), |e| start + e + 1);
    let edited = format!("{}{}", &text[..start], &text[end..]);
    let r = s.post(
        "/trilogy/save",
        &json!({ "root": root(&ws), "file": "DECISIONS.md", "text": edited, "version": version }),
    );
    assert_eq!(r.status, 409, "{}", r.body);
    assert!(r.error().contains("use bincode"), "{}", r.body);
    assert!(r.error().contains("read the file again"), "{}", r.body);
    assert_eq!(ws.snapshot(), before);
    // a version no server gave out is refused, naming the field
    let r = s.post(
        "/trilogy/save",
        &json!({ "root": root(&ws), "file": "DECISIONS.md", "text": edited, "version": "v9" }),
    );
    assert_eq!(r.status, 400, "{}", r.body);
    assert!(r.error().contains("`version`"), "{}", r.body);
}

#[test]
fn a_panel_deletion_of_the_newest_entry_is_honoured_at_once() {
    let ws = Ws::init();
    ws.ok(&["checkpoint", "--session-done", "keep me; tested"]);
    ws.ok(&[
        "checkpoint",
        "--session-done",
        "the agent's wrong entry; tested",
    ]);
    let s = Server::start(&ws);
    let (text, version) = served(&s, &ws, "SESSIONS.md");
    let edited = text.replacen(
        "## 2026-11-29\n完成：the agent's wrong entry; tested\n\n",
        "",
        1,
    );
    assert_ne!(edited, text);
    // an agent records meanwhile: the panel's copy never held it, so it stays
    ws.ok(&["checkpoint", "--session-done", "recorded meanwhile; tested"]);
    let r = s.post(
        "/trilogy/save",
        &json!({ "root": root(&ws), "file": "SESSIONS.md", "text": edited, "version": version }),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let file = ws.read("SESSIONS.md");
    assert!(!file.contains("wrong entry"), "{file}");
    assert!(file.contains("keep me"), "{file}");
    assert!(file.contains("recorded meanwhile"), "{file}");
}
