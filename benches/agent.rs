//! Agent-path benchmarks at 100k entries (200 live sessions, the rest archived): the
//! session-start block and full-text search. Every target is measured next to a floor or a
//! baseline in the same run, and a summary at the end states each median, its ratio to the
//! floor, and whether the target is met.
//!
//! - `inject/100k`:
//!   - `hook_session_start`: `trilogy hook claude session-start` end to end, spawning the
//!     release binary with the host's JSON on stdin (a fresh session id per call, so every call
//!     injects; the call records the session, a store write with its fsync). Checked once to
//!     print the same block as `assemble`. Target ≤ 5 ms. Floor: `floor_bin_true`, spawning
//!     `/bin/true` the same way (piped stdin, stdout, stderr).
//!   - `assemble`: `ops::session_block::assemble` on an open read snapshot, with Claude's budget.
//!     Target ≤ 1 ms. Floor: `floor_file_entries_15`, the 15 newest sessions from the same
//!     snapshot. Diagnostics (not floors): what `assemble` reads, `diag_decisions_all`
//!     (every decision record) and `diag_sessions_all` (the 200 live sessions); and
//!     `diag_assemble_10000_bytes`, the same assembly with a 10 000-byte budget, which yields
//!     a block with decisions and sessions at this scale (Claude's budget does not: see the
//!     `[inject] WARNING` line).
//! - `search/100k`:
//!   - `warm/<query>`: `SearchIndex::search` on an index that is open and caught up, six
//!     queries (Chinese, English, mixed), each hit with its whole entry. Target: p50 ≤ 1 ms. A pooled per-call p50/p90/p99
//!     over all six is measured by hand afterwards and printed as `[search] pooled`.
//!   - `first_query/<query>`: open the index, check it against the store (`sync`, a no-op
//!     here) and query: what a fresh process does. Target ≤ 10 ms. `ops_search/<query>`
//!     (not a target) is the whole `ops::search::search`, opening the store too.
//!   - `baseline_scan/<query>`: the same terms by a linear scan of the store (decisions, live
//!     sessions, archive, sections; `heading.contains || body.contains` for any term).
//!   - `rebuild`: delete `.trilogy/index`, open and sync from the store. Target ≤ 2 s.
//!   - `catch_up_one`: one checkpoint (one new session, outside timing), then what a search
//!     does before answering — `catch_up` (at most `SMALL_TAIL` pending changes are read
//!     from the store and scored beside the index; more are committed) — and the search
//!     for the new entry, timed together. Target ≤ 5 ms. A checkpoint past 200 live
//!     sessions also archives the oldest; the pending changes per catch-up are printed as
//!     `[catch_up] keys per sync` (every `SMALL_TAIL` + 1 checkpoints one catch-up commits).
//!     Floor: `floor_write_fsync_rename` (4 KiB written, fsynced and renamed in the index
//!     directory), what one durable commit costs at least.
//!   - `diag_reader_open` (not a target): opening a tantivy reader, which every
//!     `SearchIndex::search` call does.
//!
//! The workspace is generated once (`benches/gen`) under cargo's `target/tmp`, a real disk.
//! Needs `[[bench]] name = "agent" harness = false` in Cargo.toml; run with
//! `cargo bench --bench agent`. Medians are in `target/criterion/<group>/<bench>/new/`.

#[path = "gen/mod.rs"]
mod r#gen;

use std::cell::Cell;
use std::hint::black_box;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant, SystemTime};

use criterion::{BatchSize, Criterion, SamplingMode};
use tempfile::TempDir;
use trilogy::config::Config;
use trilogy::index::{Pending, SearchIndex, SearchQuery};
use trilogy::model::FileKind;
use trilogy::model::host::CLAUDE_CONTEXT_CHARS;
use trilogy::ops::session_block::{Budget, assemble};
use trilogy::ops::{self, CheckpointInput, SessionInput};
use trilogy::store::{ReadTx, Reader, Store};
use trilogy::workspace::Workspace;

use r#gen::median_ms;

const N: usize = 100_000;

/// Search queries: (bench id, text). Ids stay ASCII (they name directories).
const QUERIES: [(&str, &str); 6] = [
    ("zh_archive_pointer", "归档指针"),
    ("zh_three_way_merge", "三方合并"),
    ("zh_session_4242", "第 4242 次会话"),
    ("en_redb_write_lock", "redb write lock"),
    ("en_regression_test", "regression test"),
    ("mixed_secrets_scanner", "secrets scanner 误报"),
];

fn query(text: &str) -> SearchQuery {
    SearchQuery {
        text: text.to_string(),
        limit: 5,
        ..Default::default()
    }
}

// ---------------------------------------------------------------------------------------------
// fixture

/// The generated 100k workspace and a read snapshot held open on a read-only handle.
struct Fixture {
    _dir: TempDir,
    root: PathBuf,
    snapshot: Option<(Store, ReadTx)>,
}

impl Fixture {
    fn new() -> Fixture {
        let dir = r#gen::scratch_dir("100k");
        let root = dir.path().join("ws");
        let t = Instant::now();
        drop(r#gen::generate(&root, N));
        eprintln!(
            "[setup] generated and imported {N} entries in {:.2?}",
            t.elapsed()
        );
        let ws = workspace(&root);
        let store = Store::open_read_only(&ws.store_path()).expect("open read-only");
        let rtx = store.read().expect("read snapshot");
        let live = rtx.file_count(FileKind::Sessions).unwrap();
        let archived = rtx.file_count(FileKind::Archive).unwrap();
        let decisions = rtx.file_count(FileKind::Decisions).unwrap();
        assert_eq!(live, 200, "live sessions");
        assert_eq!(live + archived + decisions, N as u64, "entries");
        Fixture {
            _dir: dir,
            root,
            snapshot: Some((store, rtx)),
        }
    }

    fn reader(&self) -> &ReadTx {
        &self.snapshot.as_ref().expect("snapshot still open").1
    }

    fn ws(&self) -> Workspace {
        workspace(&self.root)
    }
}

fn workspace(root: &Path) -> Workspace {
    Workspace::new(root.to_path_buf(), Config::default(), r#gen::clock())
}

fn claude_budget(config: &Config) -> Budget {
    Budget::effective(config, None, Some(CLAUDE_CONTEXT_CHARS))
}

// ---------------------------------------------------------------------------------------------
// inject

/// Spawn `cmd` with piped stdio, write `stdin`, wait. Write errors are returned, not raised:
/// a program that does not read its stdin may close the pipe first.
fn run_piped(cmd: &mut Command, stdin: &[u8]) -> (std::process::Output, std::io::Result<()>) {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let wrote = child.stdin.take().unwrap().write_all(stdin);
    (child.wait_with_output().expect("wait"), wrote)
}

fn hook_json(session: &str, root: &Path, source: &str) -> Vec<u8> {
    serde_json::json!({
        "session_id": session,
        "cwd": root.display().to_string(),
        "source": source,
        "hook_event_name": "SessionStart",
    })
    .to_string()
    .into_bytes()
}

/// The additionalContext a hook printed (None when it printed nothing).
fn hook_context(stdout: &[u8]) -> Option<String> {
    let text = std::str::from_utf8(stdout)
        .expect("hook stdout is UTF-8")
        .trim();
    if text.is_empty() {
        return None;
    }
    let v: serde_json::Value = serde_json::from_str(text).expect("hook stdout is JSON");
    Some(
        v["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .expect("additionalContext")
            .to_string(),
    )
}

fn inject(c: &mut Criterion, fx: &Fixture, cfg_dir: &Path) {
    let mut g = c.benchmark_group("inject/100k");
    let config = Config::default();
    let budget = claude_budget(&config);
    let today = r#gen::today();

    // in-process assembly on the held snapshot
    g.sample_size(50)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    let r = fx.reader();
    let block = assemble(r, &config, today, budget, &|| None, &[]).expect("assemble");
    let l = &block.ledger;
    eprintln!(
        "[inject] block: {} bytes, {} chars (cap {}); decisions {}/{}, sessions {}/{}, archived {}, project whole: {}",
        l.bytes,
        l.chars,
        CLAUDE_CONTEXT_CHARS,
        l.decisions_shown,
        l.decisions_live,
        l.sessions_shown,
        l.sessions_live,
        l.archived,
        l.project_whole
    );
    assert!(block.text.chars().count() <= CLAUDE_CONTEXT_CHARS);
    if l.sessions_shown == 0 || l.decisions_shown == 0 {
        eprintln!(
            "[inject] WARNING: the block shows {} decisions and {} sessions with {} of {} characters used; footer: {:?}",
            l.decisions_shown, l.sessions_shown, l.chars, CLAUDE_CONTEXT_CHARS, l.omitted
        );
    }
    g.bench_function("assemble", |b| {
        b.iter(|| assemble(r, &config, black_box(today), budget, &|| None, &[]).unwrap())
    });
    g.bench_function("floor_file_entries_15", |b| {
        b.iter(|| {
            r.file_entries(black_box(FileKind::Sessions), 0, 15)
                .unwrap()
        })
    });
    // Not a target: a budget whose byte limit equals the character cap, which gives a block
    // with decisions and sessions at this scale (see the warning above when the target's
    // budget does not)
    let fitting = Budget {
        bytes: CLAUDE_CONTEXT_CHARS,
        chars: Some(CLAUDE_CONTEXT_CHARS),
    };
    let fb = assemble(r, &config, today, fitting, &|| None, &[])
        .unwrap()
        .ledger;
    eprintln!(
        "[inject] diag_assemble_10000_bytes block: {} bytes, {} chars; decisions {}/{}, sessions {}/{}",
        fb.bytes,
        fb.chars,
        fb.decisions_shown,
        fb.decisions_live,
        fb.sessions_shown,
        fb.sessions_live
    );
    g.bench_function("diag_assemble_10000_bytes", |b| {
        b.iter(|| assemble(r, &config, black_box(today), fitting, &|| None, &[]).unwrap())
    });
    g.bench_function("diag_decisions_all", |b| {
        b.iter(|| {
            r.file_entries(black_box(FileKind::Decisions), 0, usize::MAX)
                .unwrap()
        })
    });
    g.bench_function("diag_sessions_all", |b| {
        b.iter(|| {
            r.file_entries(black_box(FileKind::Sessions), 0, usize::MAX)
                .unwrap()
        })
    });

    // the hook, end to end
    g.sample_size(30)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(6));
    let bin = r#gen::trilogy_bin(None);
    let hook = || {
        let mut cmd = Command::new(&bin);
        cmd.args(["hook", "claude", "session-start"])
            .current_dir(&fx.root)
            .env("XDG_CONFIG_HOME", cfg_dir)
            .env_remove("CLAUDE_PROJECT_DIR");
        for (k, _) in std::env::vars() {
            if k.starts_with("TRILOGY_") {
                cmd.env_remove(k);
            }
        }
        // the generator's "today", so the hook assembles the block measured above
        cmd.env("TRILOGY_TODAY", today.to_string());
        cmd
    };

    // checks, once: the hook prints the in-process block; the same session again gets nothing
    let (out, _) = run_piped(&mut hook(), &hook_json("bench-check", &fx.root, "startup"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "hook failed: {stderr}");
    let printed = hook_context(&out.stdout)
        .unwrap_or_else(|| panic!("the hook printed nothing; stderr: {stderr}"));
    assert!(
        printed == block.text,
        "the hook's block differs from assemble's: {} vs {} bytes",
        printed.len(),
        block.text.len()
    );
    let (again, _) = run_piped(&mut hook(), &hook_json("bench-check", &fx.root, "startup"));
    if !again.stdout.is_empty() {
        eprintln!("[inject] WARNING: a second session-start of the same session printed a block");
    }
    let (compact, _) = run_piped(&mut hook(), &hook_json("bench-check", &fx.root, "compact"));
    if hook_context(&compact.stdout).as_deref() != Some(block.text.as_str()) {
        eprintln!("[inject] WARNING: source=compact did not re-inject the same block");
    }
    eprintln!("[inject] verified: hook output == assemble(), dedup and compact behave");

    let n = Cell::new(0usize);
    g.bench_function("hook_session_start", |b| {
        b.iter(|| {
            let i = n.get();
            n.set(i + 1);
            let json = hook_json(&format!("bench-{i}"), &fx.root, "startup");
            let (out, wrote) = run_piped(&mut hook(), &json);
            wrote.unwrap();
            // every call must inject: a fresh session id never gets the dedup shortcut
            assert!(out.status.success() && !out.stdout.is_empty());
            out.stdout.len()
        })
    });
    let json = hook_json("floor", &fx.root, "startup");
    g.bench_function("floor_bin_true", |b| {
        b.iter(|| {
            let (out, _) = run_piped(&mut Command::new("/bin/true"), &json);
            assert!(out.status.success());
            out.stdout.len()
        })
    });
    g.finish();
    let log = fx.root.join(".trilogy").join("hooks.log");
    if let Ok(text) = std::fs::read_to_string(&log) {
        eprintln!("[inject] WARNING: hooks.log was written:\n{text}");
    }
    eprintln!("[inject] {} hook calls timed", n.get());
}

// ---------------------------------------------------------------------------------------------
// search

/// A linear scan of the store for `terms`: matches of any term in heading or body.
fn linear_scan(r: &dyn Reader, terms: &[&str]) -> usize {
    let mut hits = 0usize;
    let matches =
        |h: &str, b: &str| -> bool { terms.iter().any(|t| h.contains(t) || b.contains(t)) };
    for f in [FileKind::Decisions, FileKind::Sessions, FileKind::Archive] {
        r.scan_file(f, 0, &mut |e| {
            if matches(&e.heading, &e.body) {
                hits += 1;
            }
            Ok(true)
        })
        .unwrap();
    }
    for s in r.sections().unwrap() {
        if !s.removed && matches(&s.heading, &s.body) {
            hits += 1;
        }
    }
    hits
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[i]
}

fn search(c: &mut Criterion, fx: &mut Fixture) {
    let ws = fx.ws();
    let dir = ws.index_dir();
    let r = fx.reader();

    // the first index build (not timed by criterion; `rebuild` below is)
    let t = Instant::now();
    let index = SearchIndex::open(&dir).expect("open index");
    let tail = index.sync(r, None).expect("first sync");
    assert!(tail.is_empty(), "another process holds the index writer");
    let docs = index.len().unwrap();
    eprintln!(
        "[search] first build: {docs} documents in {:.2?}",
        t.elapsed()
    );
    assert!(docs >= N as u64, "index holds {docs} documents");

    // checks, once: every query finds something; the precise one finds its session
    for (id, text) in QUERIES {
        let hits = index.search(&query(text), &Pending::default()).unwrap();
        assert!(!hits.is_empty(), "{id}: no hit");
        assert!(
            hits.iter().all(|h| !h.text.is_empty()),
            "{id}: every hit carries its whole entry"
        );
        eprintln!(
            "[search] {id:<22} top: {} · {} ({:.2}), {} hits, {} bytes of entry text",
            hits[0].file,
            hits[0].heading,
            hits[0].score,
            hits.len(),
            hits.iter().map(|h| h.text.len()).sum::<usize>()
        );
    }
    let precise = index
        .search(&query("第 4242 次会话"), &Pending::default())
        .unwrap();
    assert!(
        precise[0].snippet.contains("第 4242 次会话"),
        "the precise query's top hit is {:?}",
        precise[0]
    );

    let mut g = c.benchmark_group("search/100k");
    g.sample_size(20)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    for (id, text) in QUERIES {
        let q = query(text);
        g.bench_function(format!("warm/{id}"), |b| {
            b.iter(|| index.search(black_box(&q), &Pending::default()).unwrap())
        });
    }

    // Not a floor: what `SearchIndex::search` pays on every call before querying (it opens a
    // new tantivy reader each time; `len` is that open and a document count)
    g.bench_function("diag_reader_open", |b| b.iter(|| index.len().unwrap()));

    // per-call latencies, all queries pooled
    let mut all = Vec::new();
    let mut per_query = Vec::new();
    for (id, text) in QUERIES {
        let q = query(text);
        let mut v: Vec<Duration> = (0..200)
            .map(|_| {
                let t = Instant::now();
                black_box(index.search(&q, &Pending::default()).unwrap());
                t.elapsed()
            })
            .collect();
        v.sort();
        per_query.push(format!("{id} {:.3} ms", ms(percentile(&v, 0.5))));
        all.extend(v);
    }
    all.sort();
    eprintln!(
        "[search] pooled warm per call ({} calls): p50 {:.3} ms, p90 {:.3} ms, p99 {:.3} ms; per query p50: {}",
        all.len(),
        ms(percentile(&all, 0.5)),
        ms(percentile(&all, 0.9)),
        ms(percentile(&all, 0.99)),
        per_query.join(", ")
    );
    POOLED_P50.with(|p| p.set(Some(percentile(&all, 0.5))));

    // `ops::search` reads through a read-only handle of its own when one can be opened next to
    // the one this process holds (else it falls back to a read-write handle)
    if let Err(e) = Store::open_read_only(&ws.store_path()) {
        eprintln!("[search] WARNING: a second read-only handle does not open: {e}");
    }
    for (id, text) in [QUERIES[0], QUERIES[3]] {
        let q = query(text);
        g.bench_function(format!("first_query/{id}"), |b| {
            b.iter(|| {
                let idx = SearchIndex::open(&dir).unwrap();
                let tail = idx.sync(r, None).unwrap();
                idx.search(black_box(&q), &tail).unwrap()
            })
        });
        g.bench_function(format!("ops_search/{id}"), |b| {
            b.iter(|| ops::search::search(&ws, black_box(q.clone())).unwrap())
        });
    }

    g.sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_millis(1))
        .measurement_time(Duration::from_secs(5));
    for (id, text) in QUERIES {
        let terms: Vec<&str> = text.split_whitespace().collect();
        let found = linear_scan(r, &terms);
        eprintln!("[search] baseline_scan/{id}: {found} matching entries");
        g.bench_function(format!("baseline_scan/{id}"), |b| {
            b.iter(|| linear_scan(r, black_box(&terms)))
        });
    }

    drop(index);
    g.sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_millis(1))
        .measurement_time(Duration::from_secs(20));
    g.bench_function("rebuild", |b| {
        b.iter_batched(
            || std::fs::remove_dir_all(&dir).unwrap(),
            |()| {
                let idx = SearchIndex::open(&dir).unwrap();
                let tail = idx.sync(r, None).unwrap();
                assert!(tail.is_empty());
                idx // dropped outside the timing
            },
            BatchSize::PerIteration,
        )
    });
    let rebuilt = SearchIndex::open(&dir).unwrap();
    assert_eq!(rebuilt.len().unwrap(), docs, "documents after rebuild");
    drop(rebuilt);

    // catch-up: the read-only snapshot goes; a read-write workspace writes checkpoints
    fx.snapshot = None;
    drop(ws);
    let writer = fx.ws();
    let index = SearchIndex::open(&dir).unwrap();
    let counter = Cell::new(0usize);
    let keys: std::cell::RefCell<Vec<usize>> = Default::default();
    // One iteration per sample: the untimed checkpoint costs far more than the timed sync,
    // and criterion sizes samples by the timed part alone (it warns that 20 ms is short)
    g.sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_millis(1))
        .measurement_time(Duration::from_millis(20));
    g.bench_function("catch_up_one", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let i = counter.get();
                counter.set(i + 1);
                let input = CheckpointInput {
                    sessions: vec![SessionInput {
                        done: format!("catch-up probe {i}：新条目 zebraprobe{i} 写入后立刻可搜"),
                        area: Some(r#gen::AREAS[i % r#gen::AREAS.len()].to_string()),
                        ..Default::default()
                    }],
                    ..Default::default()
                };
                let out = ops::checkpoint(&writer, "bench", &input).unwrap();
                assert_eq!(out.value.ids.len(), 1);
                total += writer
                    .read(|r| {
                        let pending = r.changes_since(index.watermark())?.len();
                        let q = query(&format!("zebraprobe{i}"));
                        let t = Instant::now();
                        let tail = index.catch_up(r)?;
                        let hits = index.search(&q, &tail)?;
                        let took = t.elapsed();
                        assert!(
                            hits.first()
                                .is_some_and(|h| h.snippet.contains(&format!("zebraprobe{i}"))),
                            "the new entry is found at once"
                        );
                        keys.borrow_mut().push(pending);
                        Ok(took)
                    })
                    .unwrap()
                    .value;
            }
            total
        })
    });

    // floor for a catch-up, which must make its commit durable: write 4 KiB to a temp file,
    // fsync, rename, in the index's directory
    g.sample_size(30)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(2));
    g.bench_function("floor_write_fsync_rename", |b| {
        let target = dir.join("bench-floor.bin");
        let block = vec![b'x'; 4096];
        b.iter(|| {
            let mut tmp = tempfile::Builder::new()
                .prefix(".bench-")
                .tempfile_in(&dir)
                .unwrap();
            tmp.write_all(&block).unwrap();
            tmp.as_file().sync_all().unwrap();
            tmp.persist(&target).unwrap();
        });
        std::fs::remove_file(&target).unwrap();
    });
    g.finish();
    let last = counter.get() - 1;
    let hits = writer
        .read(|r| {
            let pending = index.catch_up(r)?;
            index.search(&query(&format!("zebraprobe{last}")), &pending)
        })
        .unwrap()
        .value;
    assert!(
        hits.first()
            .is_some_and(|h| h.snippet.contains(&format!("zebraprobe{last}"))),
        "the last caught-up entry is not found: {hits:?}"
    );
    let keys = keys.borrow();
    let mut distinct = keys.clone();
    distinct.sort();
    distinct.dedup();
    eprintln!(
        "[catch_up] {} checkpoints; pending changes per catch-up: {distinct:?}; the newest entry is found",
        keys.len()
    );
}

thread_local! {
    static POOLED_P50: Cell<Option<Duration>> = const { Cell::new(None) };
}

// ---------------------------------------------------------------------------------------------
// summary

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn summary(since: SystemTime) {
    // `target` None: a diagnostic row, no target
    let row = |what: &str,
               value: Option<f64>,
               target: Option<f64>,
               floor_name: &str,
               floor: Option<f64>| {
        let Some(v) = value else { return };
        let ratio = floor.map_or(String::new(), |f| {
            let r = v / f;
            if r >= 1.0 {
                format!("{r:.1}× the floor")
            } else {
                format!("{r:.4}× ({:.0}× faster)", f / v)
            }
        });
        let floor = floor.map_or("n/a".to_string(), |f| format!("{f:.4} ms"));
        let verdict = match target {
            Some(t) => format!(
                "target ≤ {t:<6} ms {:<6}",
                if v <= t { "MET" } else { "MISSED" }
            ),
            None => format!("{:<26}", "(diagnostic)"),
        };
        eprintln!("  {what:<34} {v:>10.4} ms  {verdict} | {floor_name:<26} {floor:>12}  {ratio}");
    };
    let i = "inject/100k";
    let s = "search/100k";
    eprintln!("\n== agent benchmarks: medians (this run) ==");
    row(
        "hook session-start (spawn)",
        median_ms(i, "hook_session_start", since),
        Some(5.0),
        "floor spawn /bin/true",
        median_ms(i, "floor_bin_true", since),
    );
    row(
        "assemble in-process",
        median_ms(i, "assemble", since),
        Some(1.0),
        "floor file_entries(15)",
        median_ms(i, "floor_file_entries_15", since),
    );
    row(
        "(assemble, 10000-byte budget)",
        median_ms(i, "diag_assemble_10000_bytes", since),
        None,
        "floor file_entries(15)",
        median_ms(i, "floor_file_entries_15", since),
    );
    row(
        "(read every decision record)",
        median_ms(i, "diag_decisions_all", since),
        None,
        "floor file_entries(15)",
        median_ms(i, "floor_file_entries_15", since),
    );
    let warm: Vec<f64> = QUERIES
        .iter()
        .filter_map(|(id, _)| median_ms(s, &format!("warm/{id}"), since))
        .collect();
    let scans: Vec<f64> = QUERIES
        .iter()
        .filter_map(|(id, _)| median_ms(s, &format!("baseline_scan/{id}"), since))
        .collect();
    let mid = |v: &[f64]| -> Option<f64> {
        if v.is_empty() {
            return None;
        }
        let mut v = v.to_vec();
        v.sort_by(f64::total_cmp);
        Some(if v.len() % 2 == 1 {
            v[v.len() / 2]
        } else {
            (v[v.len() / 2 - 1] + v[v.len() / 2]) / 2.0
        })
    };
    for ((id, _), scan) in QUERIES.iter().zip(
        QUERIES
            .iter()
            .map(|(id, _)| median_ms(s, &format!("baseline_scan/{id}"), since)),
    ) {
        row(
            &format!("warm {id}"),
            median_ms(s, &format!("warm/{id}"), since),
            Some(1.0),
            "baseline linear scan",
            scan,
        );
    }
    row(
        "warm query (median of queries)",
        mid(&warm),
        Some(1.0),
        "baseline scan (median)",
        mid(&scans),
    );
    if let Some(p) = POOLED_P50.with(Cell::get) {
        row(
            "warm query pooled per-call p50",
            Some(ms(p)),
            Some(1.0),
            "baseline scan (median)",
            mid(&scans),
        );
    }
    row(
        "(open a reader, per search call)",
        median_ms(s, "diag_reader_open", since),
        None,
        "",
        None,
    );
    for (id, _) in [QUERIES[0], QUERIES[3]] {
        row(
            &format!("first query {id}"),
            median_ms(s, &format!("first_query/{id}"), since),
            Some(10.0),
            "baseline linear scan",
            median_ms(s, &format!("baseline_scan/{id}"), since),
        );
        row(
            &format!("(ops::search {id})"),
            median_ms(s, &format!("ops_search/{id}"), since),
            None,
            "baseline linear scan",
            median_ms(s, &format!("baseline_scan/{id}"), since),
        );
    }
    row(
        "rebuild index from store",
        median_ms(s, "rebuild", since),
        Some(2000.0),
        "baseline scan (median)",
        mid(&scans),
    );
    row(
        "catch-up of one checkpoint",
        median_ms(s, "catch_up_one", since),
        Some(5.0),
        "floor write+fsync+rename",
        median_ms(s, "floor_write_fsync_rename", since),
    );
}

fn main() {
    let since = SystemTime::now();
    let mut c = Criterion::default().configure_from_args();
    let cfg = r#gen::scratch_dir("cfg");
    let mut fx = Fixture::new();
    inject(&mut c, &fx, cfg.path());
    search(&mut c, &mut fx);
    c.final_summary();
    summary(since);
}
