//! The section-save race with real processes, for PROJECT.md and USER.md: agents (`trilogy
//! checkpoint --section … --line …`, `trilogy user add` from two projects) write lines while a
//! person, again and again, reads the file, holds the copy a moment as an editor does and saves
//! it with a line of their own in one section. Every line acknowledged to an agent and every
//! line the person saved is in the file once, and in the store, afterwards; nothing is reported
//! as a clash, as no line was changed two ways. `TRILOGY_SECTION_RACE_LINES` sets how many lines
//! each agent writes.

use crate::common;

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{Rng, Ws, text};

/// Lines the agents' processes had acknowledged, and the person's saved lines.
#[derive(Default)]
struct Raced {
    agents: Vec<String>,
    person: Vec<String>,
}

/// Agents (one thread per command in `writers`, each running it `n` times with its own line)
/// write while a person, again and again, reads `file`, holds it a moment and saves it with a
/// line of their own at the end of section `mine` (an editor's save of one section).
fn race(writers: Vec<std::process::Command>, n: usize, file: PathBuf, mine: &str) -> Raced {
    let raced = Arc::new(Mutex::new(Raced::default()));
    let done = Arc::new(AtomicBool::new(false));
    let mut handles = Vec::new();
    for (w, cmd) in writers.into_iter().enumerate() {
        let raced = raced.clone();
        handles.push(std::thread::spawn(move || {
            // n lines each, and on until the person has saved three times meanwhile (a fast
            // machine's agents are done before a slow editor saves), within 20 n
            let saves = || raced.lock().unwrap().person.len();
            for i in (0..20 * n).take_while(|i| *i < n || saves() < 3) {
                let line = format!("agent {w}-{i}");
                let out = again(&cmd)
                    .arg(&line)
                    .env("TRILOGY_LOCK_TIMEOUT_MS", "60000")
                    .output()
                    .unwrap();
                assert!(out.status.success(), "{line}: {}", text(&out.stderr));
                raced.lock().unwrap().agents.push(line);
            }
        }));
    }
    let person = {
        let (raced, done, mine) = (raced.clone(), done.clone(), mine.to_string());
        std::thread::spawn(move || {
            let mut rng = Rng(0x5ec7_1015);
            let mut k = 0;
            while !done.load(Ordering::SeqCst) {
                let copy = std::fs::read_to_string(&file).unwrap();
                // the editor holds the copy while the agents write
                std::thread::sleep(Duration::from_millis(rng.below(200) as u64));
                let line = format!("person {k}");
                let Some(saved) = with_line(&copy, &mine, &line) else {
                    continue;
                };
                std::fs::write(&file, saved).unwrap();
                raced.lock().unwrap().person.push(line);
                k += 1;
                std::thread::sleep(Duration::from_millis(100 + rng.below(200) as u64));
            }
        })
    };
    for h in handles {
        h.join().unwrap();
    }
    done.store(true, Ordering::SeqCst);
    person.join().unwrap();
    let raced = Arc::try_unwrap(raced).ok().unwrap().into_inner().unwrap();
    eprintln!(
        "{} lines acknowledged to agents, {} saves by the person",
        raced.agents.len(),
        raced.person.len()
    );
    raced
}

/// A new command like `cmd`: its program, arguments and environment.
fn again(cmd: &std::process::Command) -> std::process::Command {
    let mut c = std::process::Command::new(cmd.get_program());
    c.args(cmd.get_args());
    for (k, v) in cmd.get_envs() {
        match v {
            Some(v) => c.env(k, v),
            None => c.env_remove(k),
        };
    }
    c
}

/// `text` with `line` at the end of section `heading` (its empty marker replaced); `None` when
/// the text has no such section (a copy read mid-write by an editor would be retried).
fn with_line(text: &str, heading: &str, line: &str) -> Option<String> {
    let head = format!("## {heading}\n");
    let start = text.find(&head)? + head.len();
    let end = text[start..]
        .find("\n## ")
        .map_or(text.len(), |i| start + i + 1);
    let body = text[start..end].trim_end();
    let body = match body.trim() {
        "暂无" => format!("\n{line}"),
        _ => format!("{body}\n{line}"),
    };
    let tail = if end == text.len() { "" } else { "\n" };
    Some(format!("{}{body}\n{tail}{}", &text[..start], &text[end..]))
}

fn race_size() -> usize {
    std::env::var("TRILOGY_SECTION_RACE_LINES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(30)
}

#[test]
fn agents_writing_state_while_a_person_saves_traps_from_a_copy_lose_nothing() {
    let ws = Ws::init();
    let writers = (0..3)
        .map(|_| {
            let mut c = ws.std_cmd();
            c.args(["checkpoint", "--section", "现状", "--line"]);
            c
        })
        .collect();
    let raced = race(writers, race_size(), ws.path("PROJECT.md"), "坑");
    ws.ok(&["checkpoint", "--session-done", "after the race; tested"]);
    let file = ws.read("PROJECT.md");
    assert!(raced.person.len() >= 3, "{} saves", raced.person.len());
    for l in raced.agents.iter().chain(&raced.person) {
        assert_eq!(file.matches(&format!("{l}\n")).count(), 1, "{l}:\n{file}");
    }
    let read = ws.json(&["read", "PROJECT.md"]).to_string();
    for l in &raced.agents {
        assert!(read.contains(l.as_str()), "{l} not in the store: {read}");
    }
    let st: serde_json::Value = ws.json(&["status"]);
    assert_eq!(st["section_conflicts"], serde_json::json!([]), "{st}");
}

#[test]
fn user_add_from_two_projects_while_a_person_saves_user_md_loses_nothing() {
    let user = tempfile::tempdir().unwrap();
    let (a, b) = (Ws::sharing_user(user.path()), Ws::sharing_user(user.path()));
    a.ok(&["init"]);
    b.ok(&["init"]);
    a.ok(&["user", "add", "--section", "偏好", "--line", "first"]);
    let writers = [&a, &b]
        .into_iter()
        .map(|ws| {
            let mut c = ws.std_cmd();
            c.args(["user", "add", "--section", "偏好", "--line"]);
            c
        })
        .collect();
    let raced = race(writers, race_size(), a.user_md(), "教训");
    b.ok(&[
        "user",
        "add",
        "--section",
        "约定",
        "--line",
        "after the race",
    ]);
    let file = std::fs::read_to_string(a.user_md()).unwrap();
    assert!(raced.person.len() >= 3, "{} saves", raced.person.len());
    for l in raced.agents.iter().chain(&raced.person) {
        assert_eq!(file.matches(&format!("{l}\n")).count(), 1, "{l}:\n{file}");
    }
    let shown = a.json(&["user", "show"]).to_string();
    for l in raced.agents.iter().chain(&raced.person) {
        assert!(
            shown.contains(l.as_str()),
            "{l} not in the user store: {shown}"
        );
    }
}

#[test]
fn agents_and_a_person_adding_to_the_same_section_keep_every_line() {
    let ws = Ws::init();
    let writers = (0..2)
        .map(|_| {
            let mut c = ws.std_cmd();
            c.args(["checkpoint", "--section", "现状", "--line"]);
            c
        })
        .collect();
    let raced = race(writers, race_size(), ws.path("PROJECT.md"), "现状");
    ws.ok(&["checkpoint", "--session-done", "after the race; tested"]);
    let file = ws.read("PROJECT.md");
    assert!(raced.person.len() >= 3, "{} saves", raced.person.len());
    for l in raced.agents.iter().chain(&raced.person) {
        assert_eq!(file.matches(&format!("{l}\n")).count(), 1, "{l}:\n{file}");
    }
    let st: serde_json::Value = ws.json(&["status"]);
    assert_eq!(st["section_conflicts"], serde_json::json!([]), "{st}");
}
