//! Whether reading other tools' memory and sibling work trees stays linear: the CPU time per
//! MiB of source at 1, 4, 16 and 32 MiB, each against the 1 MiB run of the same process (target
//! ≤ 1.3 at every size).
//!
//! - `delta`: a dsh-memory-delta store of entries whose frontmatter runs to many lines (fields
//!   named with a leading dash, a block list of tags), planned and weighed as `import --from
//!   delta --dry-run` does;
//! - `delta-one-file`: one entry whose frontmatter grows from 1/8 to 1 MiB (the most a source
//!   file may be), so a cost that grows within one file shows too;
//! - `basic-memory`: notes of observations of every category (decisions and PROJECT text),
//!   planned and weighed the same way;
//! - `sibling`: linked work trees whose SESSIONS.md and DECISIONS.md hold entries of this week,
//!   merged as a session start does (`ops::sibling::recent`, its cache dropped each round).
//!
//! Knobs: `BENCH_LINEAR_ROUNDS` (5; the median is kept), `BENCH_LINEAR_ONLY` (one series by
//! its name), `BENCH_LINEAR_SIZES` (the sizes in MiB, comma-separated). Without `--bench` (`cargo test
//! --benches`) it is a smoke run of one round at 1 and 4 MiB.

use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use trilogy::config::Config;
use trilogy::model::Lang;
use trilogy::ops::import::{self, Source};
use trilogy::workspace::Workspace;

#[path = "gen/mod.rs"]
#[allow(dead_code)]
mod r#gen;

const MIB: usize = 1 << 20;
/// The most of one source file an import reads.
const FILE_MAX: usize = import::reading::MAX_FILE_BYTES as usize;

fn knob(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Files of at most `per_file` bytes adding up to at most `total`, each made by `file(i, size)`.
fn write_files(
    dir: &Path,
    total: usize,
    per_file: usize,
    file: impl Fn(usize, usize) -> (String, String),
) {
    let (mut left, mut i) = (total, 0);
    while left > 4096 {
        let (name, text) = file(i, left.min(per_file));
        let path = dir.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        left -= text.len();
        std::fs::write(path, text).unwrap();
        i += 1;
    }
}

/// A dsh-memory-delta entry of about `size` bytes, most of it frontmatter lines: fields of
/// their own (named with a leading dash, which once made every one of them scan all those
/// after it), then a block list of tags.
fn delta_entry(i: usize, size: usize) -> (String, String) {
    let mut s = format!(
        "---\nid: f{i}\ntype: fact\nscope: project\nkey: topic-{i}\nstatus: active\ndate: 2025-03-{:02}\n",
        1 + i % 28
    );
    let mut k = 0;
    while s.len() + 80 < size / 2 {
        let _ = writeln!(s, "-x{k}:");
        k += 1;
    }
    s.push_str("tags:\n");
    while s.len() + 80 < size {
        let _ = writeln!(s, "  - tag-{i}-{k}");
        k += 1;
    }
    let _ = write!(
        s,
        "---\n\n## 结论\nentry {i} holds\n\n## 理由\nmeasured {i}\n"
    );
    (format!("facts/f{i:05}.md"), s)
}

/// A basic-memory note of about `size` bytes of observations of every category.
fn basic_note(i: usize, size: usize) -> (String, String) {
    const CATEGORIES: [&str; 6] = ["decision", "issue", "command", "location", "goal", "idea"];
    let mut s = format!(
        "---\ntitle: note {i}\ncreated: 2025-04-{:02}\n---\n\n# Note {i}\n\n",
        1 + i % 28
    );
    let mut k = 0;
    while s.len() + 100 < size {
        let c = CATEGORIES[k % CATEGORIES.len()];
        let _ = writeln!(
            s,
            "- [{c}] observation {k} of note {i} #t{} (seen {k})",
            k % 7
        );
        k += 1;
    }
    (format!("notes/note{i:05}.md"), s)
}

/// Plan and weigh `path` as `source` against an empty memory, as a dry run does; the time.
fn import_once(source: Source, path: &Path) -> Duration {
    let started = cpu();
    let (_, plan) = import::plan(source, path, path).unwrap();
    // a PROJECT section over its limit is refused only once every piece was weighed
    let weighed = import::plan::weigh(None, &plan, Lang::En);
    let took = cpu() - started;
    if let Err(e) = weighed {
        assert!(e.to_string().contains("byte limit"), "{e}");
    }
    took
}

fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("GIT_AUTHOR_NAME", "b")
        .env("GIT_AUTHOR_EMAIL", "b@example.com")
        .env("GIT_COMMITTER_NAME", "b")
        .env("GIT_COMMITTER_EMAIL", "b@example.com")
        .output()
        .expect("git is needed for the sibling bench");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// SESSIONS.md of about `size` bytes of sessions dated this week (the bench's today).
fn sibling_sessions(tree: usize, size: usize) -> String {
    let mut s = "# 会话\n".to_string();
    let mut k = 0;
    while s.len() + 200 < size {
        let day = 15 - (k % 6);
        let _ = write!(
            s,
            "\n## 2026-01-{day:02} · area{}\n完成：tree {tree} session {k}, the parser's tables measured at {k} ms（已验证）\n",
            k % 4
        );
        k += 1;
    }
    s
}

/// A repository whose main work tree is the workspace, with `total` bytes of sessions spread
/// over linked work trees of at most 8 MiB each; the workspace.
fn sibling_repo(dir: &Path, total: usize) -> Workspace {
    let main = dir.join("main");
    std::fs::create_dir_all(&main).unwrap();
    git(&main, &["init", "-q", "-b", "main"]);
    std::fs::write(main.join("README"), "x\n").unwrap();
    git(&main, &["add", "README"]);
    git(&main, &["commit", "-q", "-m", "start"]);
    let (mut left, mut t) = (total, 0);
    while left > 4096 {
        let tree = dir.join(format!("tree{t}"));
        git(
            &main,
            &[
                "worktree",
                "add",
                "-q",
                "-b",
                &format!("b{t}"),
                tree.to_str().unwrap(),
            ],
        );
        let text = sibling_sessions(t, left.min(8 * MIB));
        left -= text.len();
        std::fs::create_dir_all(tree.join("memory")).unwrap();
        std::fs::write(tree.join("memory/SESSIONS.md"), text).unwrap();
        t += 1;
    }
    let ws = Workspace::new(main, Config::default(), r#gen::clock());
    trilogy::ops::init(&ws).unwrap();
    ws
}

fn sibling_once(ws: &Workspace) -> Duration {
    let _ = std::fs::remove_file(ws.state_dir().join("siblings.json"));
    let started = cpu();
    let found = ws
        .read(|r| trilogy::ops::sibling::recent(ws, r))
        .unwrap()
        .value;
    let took = cpu() - started;
    assert!(!found.is_empty());
    took
}

/// The CPU time this process has used (user and system): what the bench compares, so other
/// programs on a shared machine weigh on no figure. Read on Unix only: the bench runs there.
#[cfg(not(unix))]
fn cpu() -> Duration {
    panic!("this bench reads the CPU time through getrusage, which only Unix has")
}

/// The CPU time this process has used (user and system): what the bench compares, so other
/// programs on a shared machine weigh on no figure.
#[cfg(unix)]
fn cpu() -> Duration {
    use nix::sys::resource::{UsageWho, getrusage};
    let u = getrusage(UsageWho::RUSAGE_SELF).expect("getrusage");
    let d = |t: nix::sys::time::TimeVal| {
        Duration::from_secs(t.tv_sec() as u64) + Duration::from_micros(t.tv_usec() as u64)
    };
    d(u.user_time()) + d(u.system_time())
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// Time `once` at each size in MiB (`prepare` builds its source), and print the cost per MiB
/// against the first size's.
fn series(
    name: &str,
    sizes: &[f64],
    rounds: usize,
    prepare: impl Fn(&Path, usize) -> Box<dyn Fn() -> Duration>,
) {
    if std::env::var("BENCH_LINEAR_ONLY").is_ok_and(|only| only != name) {
        return;
    }
    let mut first: Option<f64> = None;
    for &mib in sizes {
        let dir = r#gen::scratch_dir("linear");
        let bytes = (mib * MIB as f64) as usize;
        let once = prepare(dir.path(), bytes);
        once(); // warm the page cache
        let t = median((0..rounds).map(|_| once()).collect());
        let per = t.as_secs_f64() / mib;
        let base = *first.get_or_insert(per);
        println!(
            "{name:>15} {mib:>6.3} MiB: {:>9.1} ms, {:>8.2} ms/MiB, ratio {:.2}",
            t.as_secs_f64() * 1e3,
            per * 1e3,
            per / base
        );
    }
}

fn main() {
    let bench = std::env::args().any(|a| a == "--bench");
    let rounds = if bench {
        knob("BENCH_LINEAR_ROUNDS", 5)
    } else {
        1
    };
    let sizes: Vec<f64> = match std::env::var("BENCH_LINEAR_SIZES") {
        Ok(list) => list
            .split(',')
            .filter_map(|s| s.trim().parse().ok())
            .collect(),
        Err(_) if bench => vec![1.0, 4.0, 16.0, 32.0],
        Err(_) => vec![1.0, 4.0],
    };
    let sizes = &sizes[..];
    series("delta", sizes, rounds, |dir, bytes| {
        write_files(dir, bytes, FILE_MAX, delta_entry);
        let dir = dir.to_path_buf();
        Box::new(move || import_once(Source::Delta, &dir))
    });
    let one: &[f64] = if bench {
        &[0.125, 0.25, 0.5, 0.99]
    } else {
        &[0.125, 0.25]
    };
    series("delta-one-file", one, rounds, |dir, bytes| {
        write_files(dir, bytes, FILE_MAX, delta_entry);
        let dir = dir.to_path_buf();
        Box::new(move || import_once(Source::Delta, &dir))
    });
    series("basic-memory", sizes, rounds, |dir, bytes| {
        write_files(dir, bytes, FILE_MAX, basic_note);
        let dir = dir.to_path_buf();
        Box::new(move || import_once(Source::BasicMemory, &dir))
    });
    series("sibling", sizes, rounds, |dir, bytes| {
        let ws = sibling_repo(dir, bytes);
        Box::new(move || sibling_once(&ws))
    });
}
