//! Scale generator for the benchmarks: a workspace holding `n` entries in total.
//!
//! [`generate`] scaffolds a workspace with [`trilogy::ops::init`], overwrites the three memory
//! files (and writes `SESSIONS-archive.md`) with generated Markdown, then runs one sync
//! (`ws.write("bench", |_| Ok(()))`) so the store imports them. The Markdown is written
//! directly, byte for byte in the shape the store renders (see [`Shape`] for the split), so
//! the import leaves every file as it was: [`generate`] checks that no file was rewritten.
//!
//! What the workspace holds for `n` entries:
//! - DECISIONS.md: `n / 20` decisions (`## YYYY-MM-DD — choice`, then `选择：` / `放弃：` /
//!   `因为：` lines);
//! - SESSIONS.md: the newest sessions, as many as `sessions_max_entries` allows (200 by
//!   default), followed by the archive pointer line;
//! - SESSIONS-archive.md: every older session;
//! - PROJECT.md: the five fixed sections, each with a short body.
//!
//! Sessions use four areas (`存储`, `cli`, `同步`, `docs`) and bodies mixing Chinese and
//! English; every entry's text carries its own number, so every entry (and its id) is unique.
//! Dates run newest first from [`LAST_DAY`] back to [`FIRST_DAY`], several entries per day at
//! large `n`, so the files are in the order the store renders them. New entries (checkpoints
//! in the benchmarks) are dated [`today`], after every generated date.
//!
//! The text is Chinese-labelled, so the workspace uses `lang = zh` (the default). Generating
//! 100 000 entries takes a few seconds, most of it the import.

use std::fmt::Write as _;
use std::path::Path;

use chrono::{Days, NaiveDate};
use trilogy::config::Config;
use trilogy::markdown::pointer_line;
use trilogy::model::{FileKind, Lang};
use trilogy::workspace::{Clock, Workspace, template};

/// The four session areas.
pub const AREAS: [&str; 4] = ["存储", "cli", "同步", "docs"];

/// Oldest generated date.
pub const FIRST_DAY: NaiveDate = NaiveDate::from_ymd_opt(2022, 1, 3).unwrap();
/// Newest generated date.
pub const LAST_DAY: NaiveDate = NaiveDate::from_ymd_opt(2025, 12, 30).unwrap();

/// The pinned "today" of generated workspaces: after every generated date.
pub fn today() -> NaiveDate {
    NaiveDate::from_ymd_opt(2026, 1, 15).unwrap()
}

/// The clock generated workspaces use.
pub fn clock() -> Clock {
    Clock {
        today: Some(today()),
        ..Clock::default()
    }
}

/// How `n` entries are split between the files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    pub decisions: usize,
    pub live_sessions: usize,
    pub archived_sessions: usize,
}

impl Shape {
    /// `n / 20` decisions, the rest sessions; at most `cap` sessions live, the rest archived.
    pub fn of(n: usize, cap: Option<usize>) -> Shape {
        let decisions = n / 20;
        let sessions = n - decisions;
        let live = cap.map_or(sessions, |c| c.min(sessions));
        Shape {
            decisions,
            live_sessions: live,
            archived_sessions: sessions - live,
        }
    }

    pub fn sessions(&self) -> usize {
        self.live_sessions + self.archived_sessions
    }

    pub fn total(&self) -> usize {
        self.decisions + self.sessions()
    }
}

/// Generate a workspace of `n` entries at `root` (created if missing) with the default config,
/// and import it. The returned workspace has its store open for writing.
pub fn generate(root: &Path, n: usize) -> Workspace {
    generate_with(root, n, Config::default())
}

/// [`generate`] with a given config (`lang` must stay `zh`).
pub fn generate_with(root: &Path, n: usize, config: Config) -> Workspace {
    assert_eq!(config.lang, Lang::Zh, "the generator writes Chinese labels");
    std::fs::create_dir_all(root).expect("create the workspace root");
    let ws = Workspace::new(root.to_path_buf(), config, clock());
    trilogy::ops::init(&ws).expect("trilogy init");

    let shape = Shape::of(n, ws.config.archive_cap());
    write_files(&ws, &shape);
    let synced = ws
        .write("bench", |_| Ok(()))
        .expect("import the generated files");
    assert!(
        synced.report.unparseable.is_empty(),
        "generated files do not parse: {:?}",
        synced.report.unparseable
    );
    assert!(
        synced.report.written.is_empty(),
        "the import rewrote {:?}: the generator's Markdown differs from the store's rendering",
        synced.report.written
    );
    ws
}

/// Write the four memory files for `shape` into the workspace's memory folder.
pub fn write_files(ws: &Workspace, shape: &Shape) {
    let write = |f: FileKind, text: String| {
        let path = ws.file_path(f);
        std::fs::write(&path, text).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
    };
    write(FileKind::Project, project_md(shape));
    write(FileKind::Decisions, decisions_md(shape.decisions));
    let (live, archive) = sessions_md(shape);
    write(FileKind::Sessions, live);
    if shape.archived_sessions > 0 {
        write(FileKind::Archive, archive);
    }
}

/// The text above the first `## ` heading of a template (templates have no entries).
fn preamble(f: FileKind) -> String {
    trilogy::markdown::parse(template(f, Lang::Zh), false)
        .expect("template parses")
        .doc
        .preamble
}

/// Date of item `k` (0 = newest) of `count` items spread evenly from LAST_DAY back to FIRST_DAY.
fn date_of(k: usize, count: usize) -> NaiveDate {
    let span = (LAST_DAY - FIRST_DAY).num_days() as u64;
    let back = if count <= 1 {
        0
    } else {
        k as u64 * span / (count as u64 - 1)
    };
    LAST_DAY - Days::new(back)
}

const TOPICS: [&str; 12] = [
    "redb write lock 超时",
    "SESSIONS.md 归档指针",
    "comrak 解析 fenced code",
    "checkpoint batch validation",
    "PROJECT 段落 revision history",
    "CLI --json 输出",
    "boot block in AGENTS.md",
    "三方合并 merge driver",
    "secrets scanner 误报",
    "stat stamp 比较",
    "config layers 与 TRILOGY_* 环境变量",
    "restore of a removed entry",
];

const VERBS: [&str; 6] = [
    "修好了",
    "重写了",
    "补上了",
    "查清了",
    "简化了",
    "加了测试覆盖",
];

const CHECKS: [&str; 5] = [
    "`cargo test` 全部通过",
    "verified with `trilogy status` by hand",
    "proptest 跑了 10k 个 case",
    "手动在 demo 工作区里复现后确认",
    "CI green on linux and macOS",
];

const NEXTS: [&str; 5] = [
    "把 error message 再对一遍 DESIGN.md",
    "benchmark the 100k case again",
    "补一个 regression test",
    "和用户确认默认值",
    "清理 TODO 注释",
];

fn session_body(k: usize, out: &mut String) {
    let topic = TOPICS[k % TOPICS.len()];
    let verb = VERBS[(k / 3) % VERBS.len()];
    let check = CHECKS[(k / 7) % CHECKS.len()];
    let next = NEXTS[(k / 11) % NEXTS.len()];
    let _ = write!(out, "完成：{verb} {topic}（第 {k} 次会话），{check}");
    if k % 4 == 1 {
        let _ = write!(out, "\n未完成：{topic} 的 edge case #{k} 还没处理");
    }
    let _ = write!(out, "\n下一步：{next} (item {k})");
}

const CHOICES: [&str; 8] = [
    "用 redb 做存储",
    "Markdown 是投影而不是真相",
    "ids are content hashes",
    "最多四个命名区域",
    "atomic rename for every file write",
    "不自动注入归档",
    "bincode for store records",
    "one write transaction per command",
];

/// PROJECT.md: the template's preamble and five sections.
pub fn project_md(shape: &Shape) -> String {
    let mut s = preamble(FileKind::Project);
    let sections: [(&str, String); 5] = [
        (
            "这是什么",
            "trilogy：给 AI coding agent 用的项目记忆。Three Markdown files projected from a redb store.".into(),
        ),
        (
            "怎么跑和怎么测",
            "- `cargo test` 跑全部测试\n- `cargo bench --bench core` runs the benchmarks".into(),
        ),
        (
            "东西都在哪",
            "- `src/store/`：redb 存储\n- `src/workspace/`: sync protocol\n- `benches/`：性能基准".into(),
        ),
        (
            "现状",
            format!(
                "基准工作区：{} 条目（{} 条决定，{} 条活跃会话，{} 条归档会话）。\nEverything builds; the 100k case is being measured.",
                shape.total(),
                shape.decisions,
                shape.live_sessions,
                shape.archived_sessions
            ),
        ),
        (
            "坑",
            "- 同一进程里不要对同一个 store 开两个写句柄\n- fsync on tmpfs is free, so measure on a real disk".into(),
        ),
    ];
    for (heading, body) in sections {
        let _ = write!(s, "\n\n## {heading}\n\n{body}");
    }
    s.push('\n');
    s
}

/// DECISIONS.md with `count` decisions, newest first.
pub fn decisions_md(count: usize) -> String {
    let mut s = preamble(FileKind::Decisions);
    s.reserve(count * 260);
    for k in 0..count {
        let choice = CHOICES[k % CHOICES.len()];
        let _ = write!(s, "\n\n## {} — {choice} (#{k})\n", date_of(k, count));
        let _ = write!(
            s,
            "选择：{choice}，编号 {k}\n放弃：SQLite 和纯文件方案 (alternative {k})\n因为：需要多进程安全和可重建的存储，约束 {k}"
        );
    }
    s.push('\n');
    s
}

/// SESSIONS.md (live sessions and the archive pointer) and SESSIONS-archive.md.
pub fn sessions_md(shape: &Shape) -> (String, String) {
    let total = shape.sessions();
    let entry = |k: usize, s: &mut String| {
        let area = AREAS[(k / 2) % AREAS.len()];
        let _ = write!(s, "\n\n## {} · {area}\n", date_of(k, total));
        session_body(k, s);
    };
    let mut live = preamble(FileKind::Sessions);
    for k in 0..shape.live_sessions {
        entry(k, &mut live);
    }
    if shape.archived_sessions > 0 {
        live.push_str("\n\n");
        live.push_str(&pointer_line(shape.archived_sessions as u64, Lang::Zh));
    }
    live.push('\n');

    let mut archive = preamble(FileKind::Archive);
    archive.reserve(shape.archived_sessions * 200);
    for k in shape.live_sessions..total {
        entry(k, &mut archive);
    }
    archive.push('\n');
    (live, archive)
}

/// Where bench fixtures live: cargo's per-target temp dir (same disk as `target/`, so fsync
/// costs are real).
#[allow(dead_code)]
pub fn scratch_dir(label: &str) -> tempfile::TempDir {
    let base = option_env!("CARGO_TARGET_TMPDIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(std::env::temp_dir);
    std::fs::create_dir_all(&base).expect("create the scratch dir");
    tempfile::Builder::new()
        .prefix(&format!("trilogy-bench-{label}-"))
        .tempdir_in(base)
        .expect("create a temp dir")
}

/// A size from the environment, or `default`.
#[allow(dead_code)]
pub fn env_usize(key: &str, default: usize) -> usize {
    match std::env::var(key) {
        Ok(v) => v
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("{key}=`{v}` is not a number")),
        Err(_) => default,
    }
}

/// The release `trilogy` binary cargo built beside the benches (`override_var` names an
/// environment variable that points elsewhere).
#[allow(dead_code)]
pub fn trilogy_bin(override_var: Option<&str>) -> std::path::PathBuf {
    use std::path::{Path, PathBuf};
    let built = if let Some(p) = override_var.and_then(|v| std::env::var(v).ok()) {
        PathBuf::from(p)
    } else if let Some(p) = option_env!("CARGO_BIN_EXE_trilogy").map(PathBuf::from)
        && p.exists()
    {
        p
    } else {
        // benches run from target/<profile>/deps
        let exe = std::env::current_exe().expect("current_exe");
        exe.parent()
            .and_then(Path::parent)
            .map(|d| d.join("trilogy"))
            .expect("target dir")
    };
    assert!(
        built.exists(),
        "trilogy binary not found at {}; build it with `cargo build --release` (cargo bench builds it too)",
        built.display()
    );
    built
}

/// [`trilogy_bin`] copied into `dir`, so a concurrent `cargo build` cannot swap it out
/// during a long run.
#[allow(dead_code)]
pub fn trilogy_bin_copy(override_var: &str, dir: &Path) -> std::path::PathBuf {
    let built = trilogy_bin(Some(override_var));
    let copy = dir.join("trilogy");
    std::fs::copy(&built, &copy).expect("copy the trilogy binary");
    eprintln!(
        "[setup] trilogy binary {} copied to {}",
        built.display(),
        copy.display()
    );
    copy
}

/// Nearest-rank percentile `p` (0–100) of sorted samples (zero when there are none).
#[allow(dead_code)]
pub fn percentile(sorted: &[std::time::Duration], p: f64) -> std::time::Duration {
    if sorted.is_empty() {
        return std::time::Duration::ZERO;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// A duration with a unit that fits it: `812 ns`, `3.4 µs`, `1.25 ms`, `2.71 s`.
#[allow(dead_code)]
pub fn fmt_duration(d: std::time::Duration) -> String {
    let ns = d.as_nanos() as f64;
    if ns < 1e3 {
        format!("{ns:.0} ns")
    } else if ns < 1e6 {
        format!("{:.1} µs", ns / 1e3)
    } else if ns < 1e9 {
        format!("{:.2} ms", ns / 1e6)
    } else {
        format!("{:.2} s", ns / 1e9)
    }
}

/// Where criterion writes its estimates.
#[allow(dead_code)]
pub fn criterion_dir() -> std::path::PathBuf {
    use std::path::PathBuf;
    if let Some(p) = std::env::var_os("CRITERION_HOME") {
        return PathBuf::from(p);
    }
    if let Some(p) = std::env::var_os("CARGO_TARGET_DIR") {
        return PathBuf::from(p).join("criterion");
    }
    let exe = std::env::current_exe().expect("current_exe");
    exe.ancestors()
        .nth(3)
        .map(|t| t.join("criterion"))
        .unwrap_or_else(|| PathBuf::from("target/criterion"))
}

/// Median (ms) criterion recorded for `group/bench` in this run (None if it did not run).
#[allow(dead_code)]
pub fn median_ms(group: &str, bench: &str, since: std::time::SystemTime) -> Option<f64> {
    let safe = |s: &str| s.replace(['?', '"', '/', '\\', '*', '<', '>', ':', '|', '^'], "_");
    let path = criterion_dir()
        .join(safe(group))
        .join(safe(bench))
        .join("new")
        .join("estimates.json");
    let fresh = std::fs::metadata(&path)
        .and_then(|m| m.modified())
        .is_ok_and(|m| m >= since);
    if !fresh {
        return None;
    }
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()?;
    Some(v["median"]["point_estimate"].as_f64()? / 1e6)
}
