//! The section-save race as a property over random interleavings, for PROJECT.md and USER.md (a
//! fixed seed, so every run checks the same cases; `TRILOGY_SECTION_SEED` and
//! `TRILOGY_SECTION_CASES` run others). An editor loads the file; agents add lines to its
//! sections and put new lines in place of old ones; the person edits the loaded copy — adds
//! lines, changes lines, deletes lines, in any sections — and saves it, sometimes twice from
//! the same buffer.
//!
//! Afterwards every line an agent wrote and did not itself replace is in the file and in the
//! store; every line the person added or changed is; a line the person deleted is gone; a line
//! both changed is there both ways, and the clash is shown while both stand. The file never
//! holds a conflict marker.
//!
//! The model runs on real files through the library; `section_race` races real processes.

use crate::common;

use common::{Rng, env_or};

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use trilogy::model::FileKind;
use trilogy::model::user::UserLine;
use trilogy::ops::{self, CheckpointInput, ProjectInput};
use trilogy::workspace::{Clock, Workspace};

fn clock() -> Clock {
    Clock {
        today: chrono::NaiveDate::from_ymd_opt(2026, 11, 29),
        now_ms: None,
    }
}

/// Which file the model saves: PROJECT.md of a workspace, or the user's USER.md.
#[derive(Clone, Copy, Debug)]
enum Scope {
    Project,
    User,
}

impl Scope {
    fn headings(self) -> &'static [&'static str] {
        match self {
            Scope::Project => &["这是什么", "怎么跑和怎么测", "东西都在哪", "现状", "坑"],
            Scope::User => &["偏好", "环境", "约定", "教训"],
        }
    }

    fn open(self, dir: &Path) -> Workspace {
        let config = trilogy::config::Config::default();
        match self {
            Scope::Project => {
                let ws = Workspace::new(dir.to_path_buf(), config, clock());
                ops::init(&ws).unwrap();
                ws
            }
            Scope::User => Workspace::user_at(dir.to_path_buf(), config, clock()),
        }
    }

    /// An agent's line into `section` (in place of `replaces`): acknowledged when this returns.
    fn write(self, ws: &Workspace, section: &str, line: &str, replaces: Option<&str>) {
        match self {
            Scope::Project => {
                let input = CheckpointInput {
                    project: vec![ProjectInput {
                        section: section.to_string(),
                        line: Some(line.to_string()),
                        replaces: replaces.map(str::to_string),
                        ..Default::default()
                    }],
                    ..Default::default()
                };
                ops::checkpoint(ws, "cli", &input).unwrap();
            }
            Scope::User => {
                let l = UserLine {
                    section: section.to_string(),
                    line: line.to_string(),
                    replaces: replaces.map(str::to_string),
                };
                trilogy::ops::user::add(ws, "cli", &l).unwrap();
            }
        }
    }
}

fn file(ws: &Workspace) -> String {
    std::fs::read_to_string(ws.file_path(FileKind::Project)).unwrap()
}

/// Write a save as a person's (dated a few seconds back: the model is about what the save
/// holds, not about waiting for it to go quiet).
fn save_by_hand(ws: &Workspace, text: &str) {
    let path = ws.file_path(FileKind::Project);
    std::fs::write(&path, text).unwrap();
    let f = std::fs::File::options().write(true).open(&path).unwrap();
    f.set_modified(std::time::SystemTime::now() - Duration::from_secs(5))
        .unwrap();
}

/// A file as its preamble and its sections' lines (blank lines and the empty marker left out).
#[derive(Clone, Debug)]
struct Sections {
    head: String,
    lines: BTreeMap<usize, Vec<String>>,
}

fn split(text: &str, headings: &[&str]) -> Sections {
    let first = text.find("\n## ").map_or(text.len(), |i| i + 1);
    let mut lines = BTreeMap::new();
    for (k, h) in headings.iter().enumerate() {
        lines.insert(k, section_lines(text, h));
    }
    Sections {
        head: text[..first].to_string(),
        lines,
    }
}

fn section_lines(text: &str, heading: &str) -> Vec<String> {
    let head = format!("## {heading}\n");
    let Some(at) = text.find(&head) else {
        return Vec::new();
    };
    let rest = &text[at + head.len()..];
    let end = rest.find("\n## ").unwrap_or(rest.len());
    rest[..end]
        .lines()
        .filter(|l| !l.trim().is_empty() && l.trim() != "暂无")
        .map(str::to_string)
        .collect()
}

fn join(s: &Sections, headings: &[&str]) -> String {
    let mut t = s.head.clone();
    for (k, h) in headings.iter().enumerate() {
        let lines = &s.lines[&k];
        let body = if lines.is_empty() {
            "暂无".to_string()
        } else {
            lines.join("\n")
        };
        t.push_str(&format!("## {h}\n\n{body}\n\n"));
    }
    t.truncate(t.trim_end().len());
    t.push('\n');
    t
}

/// What one case did, for the checks.
#[derive(Default)]
struct Case {
    /// (section, line) an agent wrote that must be in the file.
    agents: Vec<(usize, String)>,
    /// Lines the person's saves added or changed lines into.
    person: Vec<(usize, String)>,
    /// Lines that must be gone: deleted by the person, or replaced by an agent.
    gone: Vec<(usize, String)>,
    /// (section, the person's line, the agent's line): a line both changed.
    clashes: Vec<(usize, String, String)>,
    saves: Vec<String>,
}

/// One case of the in-process model; returns how many lines were changed two ways.
fn run_case(seed: u64, dir: &Path, scope: Scope, reported: &mut Vec<bool>) -> usize {
    let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let hs = scope.headings();
    let ws = scope.open(dir);
    let mut case = Case::default();
    let mut n = 0;
    let mut fresh = |tag: &str| {
        n += 1;
        format!("{tag} {seed}-{n}")
    };
    for _ in 0..1 + rng.below(4) {
        let (k, t) = (rng.below(hs.len()), fresh("before"));
        scope.write(&ws, hs[k], &t, None);
        case.agents.push((k, t));
    }
    let mut buffer = split(&file(&ws), hs);
    for round in 0..1 + usize::from(rng.chance(30)) {
        let loaded = buffer.lines.clone();
        // the person's edits of the loaded copy, in sections chosen at random
        let mut edited: Vec<(usize, String, Option<String>)> = Vec::new();
        for (k, lines) in buffer.lines.iter_mut() {
            if !rng.chance(40) {
                continue;
            }
            match rng.below(3) {
                0 => {
                    let t = fresh("person");
                    lines.insert(rng.below(lines.len() + 1), t.clone());
                    case.person.push((*k, t));
                }
                1 if !lines.is_empty() => {
                    let i = rng.below(lines.len());
                    let t = fresh("changed");
                    let old = std::mem::replace(&mut lines[i], t.clone());
                    edited.push((*k, old, Some(t.clone())));
                    case.person.push((*k, t));
                }
                _ if !lines.is_empty() => {
                    let old = lines.remove(rng.below(lines.len()));
                    edited.push((*k, old, None));
                }
                _ => {}
            }
        }
        // meanwhile agents add lines and put new lines in place of their own
        for _ in 0..rng.below(6) {
            let ours: Vec<(usize, String)> = case.agents.clone();
            if !ours.is_empty() && rng.chance(35) {
                let (k, old) = ours[rng.below(ours.len())].clone();
                let t = fresh("agent-replaced");
                scope.write(&ws, hs[k], &t, Some(&old));
                case.agents.retain(|(j, l)| !(*j == k && *l == old));
                case.clashes.retain(|(j, _, a)| !(*j == k && *a == old));
                case.gone.push((k, old.clone()));
                case.agents.push((k, t.clone()));
                // the person changed the same line: both stay (deleted it: the agent's new
                // line stays)
                if let Some((_, _, Some(p))) = edited.iter().find(|(j, l, _)| *j == k && *l == old)
                {
                    case.clashes.push((k, p.clone(), t));
                }
            } else {
                let (k, t) = (rng.below(hs.len()), fresh("agent"));
                scope.write(&ws, hs[k], &t, None);
                case.agents.push((k, t));
            }
        }
        for (k, old, _) in &edited {
            case.agents.retain(|(j, l)| !(j == k && l == old));
            case.person.retain(|(j, l)| !(j == k && l == old));
            case.clashes.retain(|(j, p, _)| !(j == k && p == old));
            case.gone.push((*k, old.clone()));
        }
        let text = join(&buffer, hs);
        save_by_hand(&ws, &text);
        case.saves.push(text);
        scope.write(&ws, hs[rng.below(hs.len())], &fresh("after"), None);
        let left = check(&ws, seed, round, &case, &loaded, false, reported);
        if !left.is_empty() {
            // what the save lacked that a copy read before it was written lacks too is kept,
            // and said; the person sees it and deletes it again: now honoured
            let mut now = split(&file(&ws), hs);
            for (k, l) in &left {
                now.lines.get_mut(k).unwrap().retain(|x| x != l);
            }
            let text = join(&now, hs);
            save_by_hand(&ws, &text);
            case.saves.push(text);
            scope.write(&ws, hs[rng.below(hs.len())], &fresh("after again"), None);
            check(&ws, seed, round, &case, &loaded, true, &mut Vec::new());
            buffer = now;
        }
    }
    case.clashes.len()
}

/// Check the file and the store after a save; returns the lines that should be gone but were
/// kept and said to be (none when `strict`). For each line changed two ways, `reported` notes
/// whether its clash was reported (else the save read as made from an older copy: said as kept).
fn check(
    ws: &Workspace,
    seed: u64,
    round: usize,
    case: &Case,
    loaded: &BTreeMap<usize, Vec<String>>,
    strict: bool,
    reported: &mut Vec<bool>,
) -> Vec<(usize, String)> {
    let headings: Vec<String> = ws
        .read(|r| {
            Ok((r.sections()?.into_iter())
                .filter(|s| !s.removed)
                .map(|s| s.heading)
                .collect())
        })
        .unwrap()
        .value;
    let hs: Vec<&str> = headings.iter().map(String::as_str).collect();
    let text = file(ws);
    let now = split(&text, &hs);
    let why = || {
        format!(
            "seed {seed} round {round}\nloaded: {loaded:?}\nsaves:\n{}\nfile:\n{text}\nlog:\n{}",
            case.saves.join("\n----\n"),
            log_of(ws)
        )
    };
    assert!(
        !text.contains("<<<<<<<") && !text.contains(">>>>>>>"),
        "{}",
        why()
    );
    let has = |k: usize, l: &str| now.lines.get(&k).is_some_and(|v| v.iter().any(|x| x == l));
    for (k, l) in case.agents.iter().chain(&case.person) {
        assert!(has(*k, l), "lost {l}\n{}", why());
    }
    let kept: Vec<String> = (ws.read(|r| r.events(10_000)).unwrap().value.into_iter())
        .filter(|e| e.op == "kept")
        .map(|e| e.detail)
        .collect();
    let mut left = Vec::new();
    for (k, l) in &case.gone {
        if has(*k, l) {
            let said = kept.iter().any(|d| d.contains(l.as_str()));
            assert!(!strict && said, "{l} should be gone\n{}", why());
            left.push((*k, l.clone()));
        }
    }
    // the store's sections are what the file shows
    let stored = ws
        .read(|r| {
            Ok(r.sections()?
                .into_iter()
                .filter(|s| !s.removed)
                .map(|s| section_lines(&format!("## {}\n{}", s.heading, s.body), &s.heading))
                .collect::<Vec<_>>())
        })
        .unwrap()
        .value;
    let shown: Vec<Vec<String>> = now.lines.values().cloned().collect();
    assert_eq!(stored, shown, "{}", why());
    // every line changed two ways is a clash that stands
    let clashes = ws.read(|r| r.section_clashes()).unwrap().value;
    for (k, p, a) in &case.clashes {
        let found = clashes
            .iter()
            .any(|c| c.heading == hs[*k] && c.saved.contains(p) && c.other.contains(a));
        // a save that kept none of the lines telling its copy from older ones reads as made
        // from an older copy: the agent's line is kept as written after it, and said so
        let said = kept.iter().any(|d| d.contains(a.as_str()));
        assert!(
            found || said,
            "no clash for {p} / {a}: {clashes:?}\n{}",
            why()
        );
        reported.push(found);
    }
    left
}

/// The event log, one line per event, for a failure's message.
fn log_of(ws: &Workspace) -> String {
    let events = ws.read(|r| r.events(10_000)).unwrap().value;
    let lines: Vec<String> = (events.iter().rev())
        .map(|e| format!("{} {} {} {:?}", e.actor, e.op, e.detail, e.ids))
        .collect();
    lines.join("\n")
}

fn model(scope: Scope, salt: u64) {
    let seed = env_or("TRILOGY_SECTION_SEED", 41) ^ salt;
    let cases = env_or("TRILOGY_SECTION_CASES", 1000);
    // memory-backed when the machine has it: the model is about interleavings, not syncs
    let shm = Path::new("/dev/shm");
    let scratch = match shm.is_dir() {
        true => tempfile::tempdir_in(shm).unwrap(),
        false => tempfile::tempdir().unwrap(),
    };
    let (mut twice, mut reported) = (0, Vec::new());
    for k in 0..cases {
        let dir = scratch.path().join(k.to_string());
        std::fs::create_dir_all(&dir).unwrap();
        twice += run_case(seed * 1_000_003 + k, &dir, scope, &mut reported);
        std::fs::remove_dir_all(&dir).unwrap();
    }
    // the model does make lines changed two ways (a few per hundred cases), and nearly all of
    // them are reported as clashes
    let shown = reported.iter().filter(|r| **r).count();
    eprintln!(
        "{scope:?}: {cases} cases, {twice} lines changed two ways, {shown} of {} reported as clashes",
        reported.len()
    );
    assert!(
        twice > 0,
        "{scope:?}: no line was changed two ways in {cases} cases"
    );
    assert!(
        shown * 10 >= reported.len() * 8,
        "{shown} of {} clashes reported",
        reported.len()
    );
}

#[test]
fn project_md_saves_of_older_copies_merge_by_section_and_line() {
    model(Scope::Project, 0);
}

#[test]
fn user_md_saves_of_older_copies_merge_by_section_and_line() {
    model(Scope::User, 0x5eed);
}
