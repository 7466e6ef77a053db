//! The editor model, as a property over random interleavings (a fixed seed, so every run checks
//! the same cases; `TRILOGY_MODEL_SEED` and `TRILOGY_MODEL_CASES` run others). A person loads
//! SESSIONS.md; agents (CLI and MCP actors), the panel (which names the version it read) and
//! scripts saving stale copies with entries of their own write meanwhile; then the person saves
//! the loaded copy with additions of their own and deletions of entries it held.
//!
//! Afterwards every entry anyone else recorded is in the file, every addition is, and every
//! deletion is honoured — except a deletion that takes away all the entries recorded after some
//! version, which no one can tell from a copy read before them: trilogy keeps those, says so in
//! a `kept` event naming them, and honours the same deletion when the person makes it again.
//!
//! The in-process model runs on real files through the library; the last test runs a few dozen
//! cases with real processes writing concurrently.

use crate::common;

use common::{Rng, env_or};

use std::collections::HashSet;
use std::path::Path;
use std::time::Duration;

use trilogy::model::FileKind;
use trilogy::ops;
use trilogy::ops::{CheckpointInput, SessionInput};
use trilogy::workspace::{Clock, Workspace};

/// The block of an entry with this text, as a person writes it.
fn block(text: &str) -> String {
    format!("## 2026-11-29\n完成：{text}\n\n")
}

/// The marker every entry's text is found by in a file.
fn line(text: &str) -> String {
    format!("完成：{text}\n")
}

/// A copy of a file split at its entries: the text above them, then each entry's block.
fn blocks(text: &str) -> (String, Vec<String>) {
    let mut starts: Vec<usize> = text.match_indices("\n## ").map(|(i, _)| i + 1).collect();
    if text.starts_with("## ") {
        starts.insert(0, 0);
    }
    let head = text[..starts.first().copied().unwrap_or(text.len())].to_string();
    let mut out = Vec::new();
    for (k, s) in starts.iter().enumerate() {
        let e = starts.get(k + 1).copied().unwrap_or(text.len());
        let mut b = text[*s..e].to_string();
        if !b.ends_with("\n\n") {
            b.push('\n');
        }
        out.push(b);
    }
    (head, out)
}

fn join(head: &str, blocks: &[String]) -> String {
    let mut t = head.to_string();
    for b in blocks {
        t.push_str(b);
    }
    while t.ends_with("\n\n") {
        t.pop();
    }
    t
}

/// The entry text of a block (`完成：<text>` line).
fn text_of(block: &str) -> Option<String> {
    block
        .lines()
        .find_map(|l| l.strip_prefix("完成："))
        .map(str::to_string)
}

fn open(dir: &Path) -> Workspace {
    let clock = Clock {
        today: chrono::NaiveDate::from_ymd_opt(2026, 11, 29),
        now_ms: None,
    };
    Workspace::new(dir.to_path_buf(), trilogy::config::Config::default(), clock)
}

fn workspace(dir: &Path) -> Workspace {
    let ws = open(dir);
    ops::init(&ws).unwrap();
    ws
}

fn record(ws: &Workspace, actor: &str, text: &str) {
    let input = CheckpointInput {
        sessions: vec![SessionInput {
            done: text.to_string(),
            ..Default::default()
        }],
        ..Default::default()
    };
    ops::checkpoint(ws, actor, &input).unwrap();
}

/// Write a save as a person's or a script's (dated a few seconds back: the model is about what
/// the save holds, not about waiting for it to go quiet).
fn save_by_hand(ws: &Workspace, text: &str) {
    let path = ws.file_path(FileKind::Sessions);
    std::fs::write(&path, text).unwrap();
    let f = std::fs::File::options().write(true).open(&path).unwrap();
    f.set_modified(std::time::SystemTime::now() - Duration::from_secs(5))
        .unwrap();
}

fn sessions(ws: &Workspace) -> String {
    std::fs::read_to_string(ws.file_path(FileKind::Sessions)).unwrap()
}

/// Ids the `kept` events name, and the entry text of each stored entry id.
fn kept_texts(ws: &Workspace) -> HashSet<String> {
    ws.read(|r| {
        let mut ids = HashSet::new();
        for e in r.events(10_000)? {
            if e.op == "kept" {
                ids.extend(e.ids);
            }
        }
        let mut out = HashSet::new();
        for id in ids {
            if let Some(rec) = r.entry(&id)? {
                out.extend(text_of(&format!("{}\n{}", rec.heading, rec.body)));
            }
        }
        Ok(out)
    })
    .unwrap()
    .value
}

/// What one case did, for the checks and the tally.
#[derive(Default)]
struct Case {
    /// Entries recorded by anyone but the person, which must stay.
    others: Vec<String>,
    /// The person's additions.
    added: Vec<String>,
    /// Entries the person deleted.
    deleted: Vec<String>,
    /// The save the person wrote.
    save: String,
}

/// One case of the in-process model: returns whether the person's deletion had to be made twice.
fn run_case(seed: u64, dir: &Path) -> bool {
    let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let ws = workspace(dir);
    let mut case = Case::default();
    let mut n = 0;
    let mut fresh = |tag: &str| {
        n += 1;
        format!("{tag} {seed}-{n}; tested")
    };
    for _ in 0..1 + rng.below(5) {
        let t = fresh("before");
        record(&ws, "cli", &t);
        case.others.push(t);
    }
    // copies read by scripts before the person loads (saved back stale later)
    let mut stale: Vec<String> = vec![sessions(&ws)];
    let loaded = sessions(&ws);
    for _ in 0..rng.below(7) {
        match rng.below(5) {
            0 | 1 => {
                let t = fresh("agent");
                record(&ws, "cli", &t);
                case.others.push(t);
            }
            2 => {
                let t = fresh("mcp");
                record(&ws, "mcp", &t);
                case.others.push(t);
            }
            3 => {
                // the panel: reads with its version, adds on top, saves
                let text = sessions(&ws);
                let sha = trilogy::base::hex::sha1(text.as_bytes());
                let mut shas = vec![None; FileKind::ALL.len()];
                shas[2] = Some(sha);
                let token = ops::save::version_token(&shas);
                let t = fresh("panel");
                let (head, mut bs) = blocks(&text);
                bs.insert(0, block(&t));
                ops::save::save(
                    &ws,
                    "SESSIONS.md",
                    &join(&head, &bs),
                    None,
                    "panel",
                    Some(&token),
                )
                .unwrap();
                case.others.push(t);
            }
            _ => {
                // a script writes back a copy it read earlier, with an entry of its own on top
                let copy = stale[rng.below(stale.len())].clone();
                let t = fresh("script");
                let (head, mut bs) = blocks(&copy);
                bs.insert(0, block(&t));
                save_by_hand(&ws, &join(&head, &bs));
                case.others.push(t);
                record(&ws, "cli", &fresh("absorbing"));
            }
        }
        if rng.chance(30) {
            stale.push(sessions(&ws));
        }
    }
    // the person's save: the loaded copy with deletions and additions
    let (head, bs) = blocks(&loaded);
    let mut kept_blocks = Vec::new();
    for b in bs {
        match text_of(&b) {
            Some(t) if rng.chance(30) => case.deleted.push(t),
            _ => kept_blocks.push(b),
        }
    }
    for _ in 0..rng.below(3) {
        let t = fresh("person");
        let at = rng.below(kept_blocks.len() + 1);
        kept_blocks.insert(at, block(&t));
        case.added.push(t);
    }
    case.others.retain(|t| !case.deleted.contains(t));
    case.save = join(&head, &kept_blocks);
    save_by_hand(&ws, &case.save);
    record(&ws, "cli", &fresh("after"));
    let file = sessions(&ws);
    check_others_and_additions(&ws, seed, &case, &file);
    let left: Vec<&String> = case
        .deleted
        .iter()
        .filter(|t| file.contains(&line(t)))
        .collect();
    if left.is_empty() {
        return false;
    }
    // what a deletion left is what trilogy said it kept
    let said = kept_texts(&ws);
    for t in &left {
        assert!(
            said.contains(*t),
            "seed {seed}: deletion of {t} undone silently:\n{file}"
        );
    }
    // the person sees them back and deletes them again: now honoured
    let (head, bs) = blocks(&file);
    let again: Vec<String> = bs
        .into_iter()
        .filter(|b| text_of(b).is_none_or(|t| !case.deleted.contains(&t)))
        .collect();
    save_by_hand(&ws, &join(&head, &again));
    record(&ws, "cli", &fresh("after again"));
    let file = sessions(&ws);
    check_others_and_additions(&ws, seed, &case, &file);
    for t in &case.deleted {
        assert!(
            !file.contains(&line(t)),
            "seed {seed}: deletion of {t} not honoured twice:\n{file}"
        );
    }
    true
}

/// The event log, one line per event, for a failure's message.
fn log_of(ws: &Workspace) -> String {
    let events = ws.read(|r| r.events(10_000)).unwrap().value;
    let lines: Vec<String> = (events.iter().rev())
        .map(|e| format!("{} {} {} {:?}", e.actor, e.op, e.detail, e.ids))
        .collect();
    lines.join("\n")
}

fn check_others_and_additions(ws: &Workspace, seed: u64, case: &Case, file: &str) {
    for t in &case.others {
        assert!(
            file.contains(&line(t)),
            "seed {seed}: lost {t}\nsave:\n{}\nfile:\n{file}\nlog:\n{}",
            case.save,
            log_of(ws)
        );
    }
    for t in &case.added {
        assert!(
            file.contains(&line(t)),
            "seed {seed}: lost the person's {t}:\n{file}"
        );
    }
}

#[test]
fn the_editor_model_holds_over_random_interleavings() {
    let seed = env_or("TRILOGY_MODEL_SEED", 21);
    let cases = env_or("TRILOGY_MODEL_CASES", 2000);
    // memory-backed when the machine has it: the model is about interleavings, not syncs
    let shm = Path::new("/dev/shm");
    let scratch = match shm.is_dir() {
        true => tempfile::tempdir_in(shm).unwrap(),
        false => tempfile::tempdir().unwrap(),
    };
    let mut twice = 0;
    for k in 0..cases {
        let dir = scratch.path().join(k.to_string());
        std::fs::create_dir_all(&dir).unwrap();
        if run_case(seed * 1_000_003 + k, &dir) {
            twice += 1;
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
    // the ambiguous deletions are the exception, and the model does produce them
    assert!(
        twice > 0 && twice < cases / 2,
        "{twice} of {cases} needed a second deletion"
    );
}

/// A real process writing `n` entries, one checkpoint each; returns what it recorded.
fn writer(ws: &Path, state: &Path, tag: &str, n: usize) -> std::thread::JoinHandle<Vec<String>> {
    let (ws, state, tag) = (ws.to_path_buf(), state.to_path_buf(), tag.to_string());
    std::thread::spawn(move || {
        let mut out = Vec::new();
        for i in 0..n {
            let t = format!("{tag} {i}; tested");
            let o = std::process::Command::new(assert_cmd::cargo::cargo_bin("trilogy"))
                .arg("--root")
                .arg(&ws)
                .args(["checkpoint", "--session-done", &t])
                .env("TRILOGY_TODAY", "2026-11-29")
                .env("XDG_STATE_HOME", &state)
                .env("XDG_DATA_HOME", state.join("data"))
                .env("TRILOGY_CONFIG", ws.join("no-user-config.toml"))
                .env_remove("TRILOGY_LANG")
                .output()
                .unwrap();
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
            out.push(t);
        }
        out
    })
}

#[test]
fn the_editor_model_holds_with_real_processes_writing_meanwhile() {
    let cases = env_or("TRILOGY_MODEL_PROCESS_CASES", 24);
    for k in 0..cases {
        let mut rng = Rng(0x5eed_0000 + k);
        let dir = tempfile::tempdir().unwrap();
        let state = tempfile::tempdir().unwrap();
        let ws = workspace(dir.path());
        let mut before = Vec::new();
        for i in 0..2 + rng.below(3) {
            let t = format!("before {k}-{i}; tested");
            record(&ws, "cli", &t);
            before.push(t);
        }
        drop(ws);
        let path = dir.path().join("memory/SESSIONS.md");
        let loaded = std::fs::read_to_string(&path).unwrap();
        // two agents record while the person edits
        let a = writer(
            dir.path(),
            state.path(),
            &format!("agent a{k}"),
            2 + rng.below(3),
        );
        let b = writer(
            dir.path(),
            state.path(),
            &format!("agent b{k}"),
            1 + rng.below(3),
        );
        std::thread::sleep(Duration::from_millis(rng.below(150) as u64));
        let (head, bs) = blocks(&loaded);
        let mut deleted = Vec::new();
        let mut kept_blocks = Vec::new();
        for bl in bs {
            match text_of(&bl) {
                Some(t) if rng.chance(40) => deleted.push(t),
                _ => kept_blocks.push(bl),
            }
        }
        let mine = format!("person {k}; checked by eye");
        kept_blocks.insert(rng.below(kept_blocks.len() + 1), block(&mine));
        std::fs::write(&path, join(&head, &kept_blocks)).unwrap();
        let mut others: Vec<String> = a.join().unwrap();
        others.extend(b.join().unwrap());
        others.extend(before.into_iter().filter(|t| !deleted.contains(t)));
        let ws = open(dir.path());
        record(&ws, "cli", &format!("after {k}; tested"));
        let file = sessions(&ws);
        for t in others.iter().chain([&mine]) {
            assert!(file.contains(&line(t)), "case {k}: lost {t}:\n{file}");
        }
        let said = kept_texts(&ws);
        for t in &deleted {
            assert!(
                !file.contains(&line(t)) || said.contains(t),
                "case {k}: deletion of {t} undone silently:\n{file}"
            );
        }
    }
}
