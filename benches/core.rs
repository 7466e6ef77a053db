//! Core benchmarks: every group measures its target next to a floor, in the same run, so the
//! report can state the target as a multiple of what the machine cannot go below.
//!
//! - `read_in_process/{1k,100k}`: `ops::read_in` of one PROJECT section (`section`) and of the
//!   15 newest sessions (`newest_15`) on an open read snapshot; floors: one raw redb point get
//!   on an open table (`floor_redb_get`) and one `Reader::entry` (open table, get, decode:
//!   `floor_reader_entry`). Diagnostics: `file_entries` of 15 and 64 records, and `ops::read`
//!   (stat the files, open the store read-only, snapshot, read: a one-shot in-process read).
//! - `read_cli/100k`: `trilogy read --section 现状 --root DIR`, spawning the release binary;
//!   floor: spawning `/bin/true` the same way.
//! - `checkpoint/1k`: one checkpoint (one new session, unique text) end to end in-process,
//!   fsyncs included, the store handle kept open; the workspace is regenerated every 100
//!   checkpoints (outside timing) so it stays at 1000–1100 entries; floor: write 4 KiB to a
//!   temp file, fsync, rename, in the same directory. `checkpoint/100k` (not a target, for
//!   scale) runs the same on the 100k workspace the rebuild group leaves behind.
//! - `render/sessions_200`: `render_file` of SESSIONS.md (200 live entries, 100k store);
//!   floors: fetching the 200 records (`file_entries`), copying the rendered bytes.
//! - `rebuild/100k`: delete `.trilogy/` and sync, rebuilding the store from the Markdown
//!   (checked once, outside timing, to leave every file byte-identical); floor: read the files,
//!   split them at `\n## ` and bulk-insert the pieces into a new redb table in one transaction.
//!
//! Workspaces come from `benches/gen` and are built lazily, once, under cargo's `target/tmp`
//! (a real disk, so fsync costs what it costs). Run: `cargo bench --bench core`; medians are
//! in `target/criterion/<group>/<bench>/new/estimates.json`.

mod r#gen;

use std::cell::{Cell, OnceCell, RefCell};
use std::hint::black_box;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::rc::Rc;
use std::time::{Duration, Instant};

use criterion::{BatchSize, Criterion, SamplingMode};
use redb::ReadableDatabase;
use tempfile::TempDir;
use trilogy::config::Config;
use trilogy::model::FileKind;
use trilogy::ops::{
    self, CheckpointInput, EntryFilter, ReadOutput, ReadTarget, SessionInput, read_in,
};
use trilogy::store::{ReadTx, Reader, Store};
use trilogy::workspace::{Workspace, render_file};

/// The `entries` table as the store defines it (id → bincode record).
const ENTRIES: redb::TableDefinition<&str, &[u8]> = redb::TableDefinition::new("entries");

/// A generated workspace: `ws` has no store handle open (like a fresh process).
struct Fixture {
    _dir: TempDir,
    root: PathBuf,
    ws: Workspace,
    snapshot: OnceCell<(Store, ReadTx)>,
}

impl Fixture {
    fn new(n: usize) -> Fixture {
        let dir = r#gen::scratch_dir(&format!("{n}"));
        let root = dir.path().join("ws");
        let t = Instant::now();
        let generated = r#gen::generate(&root, n);
        eprintln!(
            "[setup] generated and imported {n} entries in {:.2?}",
            t.elapsed()
        );
        drop(generated);
        Fixture {
            _dir: dir,
            ws: workspace(&root),
            root,
            snapshot: OnceCell::new(),
        }
    }

    /// An open read snapshot on a read-only store handle (what the CLI read path uses).
    fn reader(&self) -> &ReadTx {
        &self
            .snapshot
            .get_or_init(|| {
                let store = Store::open_read_only(&self.ws.store_path()).expect("open read-only");
                let rtx = store.read().expect("read snapshot");
                (store, rtx)
            })
            .1
    }
}

fn workspace(root: &Path) -> Workspace {
    Workspace::new(root.to_path_buf(), Config::default(), r#gen::clock())
}

/// A fixture built on first use, so filtered runs skip what they do not need.
struct Lazy {
    n: usize,
    cell: OnceCell<Fixture>,
}

impl Lazy {
    fn new(n: usize) -> Lazy {
        Lazy {
            n,
            cell: OnceCell::new(),
        }
    }

    fn get(&self) -> &Fixture {
        self.cell.get_or_init(|| Fixture::new(self.n))
    }
}

fn label(n: usize) -> String {
    if n.is_multiple_of(1000) {
        format!("{}k", n / 1000)
    } else {
        n.to_string()
    }
}

fn section_target() -> ReadTarget {
    ReadTarget::Section("现状".into())
}

fn newest_15() -> ReadTarget {
    ReadTarget::Entries(EntryFilter {
        limit: 15,
        ..Default::default()
    })
}

fn read_in_process(c: &mut Criterion, fx: &Lazy) {
    let mut g = c.benchmark_group(format!("read_in_process/{}", label(fx.n)));
    g.sample_size(50)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));

    g.bench_function("section", |b| {
        let fx = fx.get();
        let (r, ws) = (fx.reader(), &fx.ws);
        match read_in(r, ws, &section_target(), ws.lang()).expect("read section") {
            ReadOutput::Section(s) => assert!(s.text.contains("基准工作区"), "{}", s.text),
            other => panic!("unexpected {other:?}"),
        }
        b.iter(|| read_in(r, ws, black_box(&section_target()), ws.lang()).unwrap())
    });

    g.bench_function("newest_15", |b| {
        let fx = fx.get();
        let (r, ws) = (fx.reader(), &fx.ws);
        match read_in(r, ws, &newest_15(), ws.lang()).expect("read entries") {
            ReadOutput::Entries { entries, .. } => assert_eq!(entries.len(), 15),
            other => panic!("unexpected {other:?}"),
        }
        let target = newest_15();
        b.iter(|| read_in(r, ws, black_box(&target), ws.lang()).unwrap())
    });

    g.bench_function("floor_redb_get", |b| {
        let fx = fx.get();
        let id = newest_id(fx.reader());
        let db = redb::Database::builder()
            .set_concurrency_mode(redb::ConcurrencyMode::MultiWriter)
            .open_read_only(fx.ws.store_path())
            .expect("open the store with redb directly");
        let rtx = db.begin_read().expect("begin_read");
        let table = rtx.open_table(ENTRIES).expect("entries table");
        assert!(table.get(id.as_str()).unwrap().is_some());
        b.iter(|| {
            let g = table.get(black_box(id.as_str())).unwrap().unwrap();
            black_box(g.value().len())
        })
    });

    g.bench_function("floor_reader_entry", |b| {
        let fx = fx.get();
        let r = fx.reader();
        let id = newest_id(r);
        b.iter(|| r.entry(black_box(&id)).unwrap().unwrap())
    });

    // Not floors: what `newest_15` fetches (`read_in` pages 64 records at a time).
    for n in [15usize, 64] {
        g.bench_function(format!("diag_file_entries_{n}"), |b| {
            let r = fx.get().reader();
            b.iter(|| r.file_entries(FileKind::Sessions, 0, black_box(n)).unwrap())
        });
    }

    // Not a floor: the whole one-shot in-process read (stat the files, open the store
    // read-only, snapshot, read), i.e. the CLI minus process start and config loading.
    g.bench_function("section_via_ops_read", |b| {
        let fx = fx.get();
        b.iter(|| ops::read(&fx.ws, black_box(&section_target())).unwrap())
    });
    g.finish();
}

fn newest_id(r: &dyn Reader) -> String {
    r.file_entries(FileKind::Sessions, 0, 1).unwrap()[0]
        .id
        .clone()
}

fn read_cli(c: &mut Criterion, fx: &Lazy) {
    let mut g = c.benchmark_group(format!("read_cli/{}", label(fx.n)));
    g.sample_size(30)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5));
    let no_config = OnceCell::new();
    let env_dir = || no_config.get_or_init(|| r#gen::scratch_dir("cfg"));

    g.bench_function("section", |b| {
        let fx = fx.get();
        let bin = r#gen::trilogy_bin(None);
        let cfg = env_dir().path().to_path_buf();
        let cmd = || {
            let mut c = Command::new(&bin);
            c.args(["read", "--section", "现状", "--root"])
                .arg(&fx.root)
                .env("XDG_CONFIG_HOME", &cfg)
                .env_remove("TRILOGY_CONFIG")
                .stdin(Stdio::null());
            c
        };
        let out = cmd().output().expect("spawn trilogy");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && stdout.contains("基准工作区"),
            "trilogy read failed: {}\nstdout: {stdout}\nstderr: {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        b.iter(|| {
            let out = cmd().output().unwrap();
            assert!(out.status.success());
            out.stdout.len()
        })
    });

    g.bench_function("floor_bin_true", |b| {
        let out = Command::new("/bin/true").output().expect("spawn /bin/true");
        assert!(out.status.success());
        b.iter(|| {
            let out = Command::new("/bin/true")
                .stdin(Stdio::null())
                .output()
                .unwrap();
            assert!(out.status.success());
            out.stdout.len()
        })
    });
    g.finish();
}

fn render(c: &mut Criterion, fx: &Lazy) {
    let mut g = c.benchmark_group("render/sessions_200");
    g.sample_size(30)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));

    g.bench_function("render_file", |b| {
        let fx = fx.get();
        let r = fx.reader();
        assert_eq!(r.file_count(FileKind::Sessions).unwrap(), 200);
        let text = render_file(r, FileKind::Sessions, fx.ws.lang()).unwrap();
        let on_disk = std::fs::read_to_string(fx.ws.file_path(FileKind::Sessions)).unwrap();
        assert!(text == on_disk, "render differs from SESSIONS.md on disk");
        b.iter(|| render_file(r, black_box(FileKind::Sessions), fx.ws.lang()).unwrap())
    });

    g.bench_function("floor_fetch_200", |b| {
        let r = fx.get().reader();
        b.iter(|| {
            r.file_entries(black_box(FileKind::Sessions), 0, 200)
                .unwrap()
        })
    });

    g.bench_function("floor_copy_bytes", |b| {
        let fx = fx.get();
        let text = render_file(fx.reader(), FileKind::Sessions, fx.ws.lang()).unwrap();
        b.iter(|| black_box(&text).clone())
    });
    g.finish();
}

/// A workspace checkpoints are written to; `ws` keeps its store open across iterations (a
/// long-lived process such as the MCP server).
struct CheckpointFx {
    _dir: Option<TempDir>,
    ws: Workspace,
}

fn fresh_1k() -> CheckpointFx {
    let dir = r#gen::scratch_dir("checkpoint");
    let root = dir.path().join("ws");
    let ws = r#gen::generate(&root, 1_000);
    CheckpointFx {
        _dir: Some(dir),
        ws,
    }
}

/// `checkpoint/<scale>`: one session per checkpoint, unique text. The workspace is replaced
/// by a fresh one (outside timing) every `reset_every` checkpoints, so the store stays near its
/// nominal size: every checkpoint adds an entry and, past 500 live sessions (the cap plus
/// `sessions_archive_batch`), moves a batch to the archive.
fn checkpoint(
    c: &mut Criterion,
    scale: &str,
    make: &dyn Fn() -> CheckpointFx,
    reset_every: usize,
    measurement: Duration,
) {
    let mut g = c.benchmark_group(format!("checkpoint/{scale}"));
    g.sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(measurement);
    let current: RefCell<Option<Rc<CheckpointFx>>> = RefCell::new(None);
    let uses = Cell::new(0usize);
    let fixture = || -> Rc<CheckpointFx> {
        let mut cur = current.borrow_mut();
        if cur.is_none() || uses.get() >= reset_every {
            *cur = None; // drop (and delete) the old one first
            *cur = Some(Rc::new(make()));
            uses.set(0);
        }
        uses.set(uses.get() + 1);
        Rc::clone(cur.as_ref().unwrap())
    };
    let counter = Cell::new(0usize);
    let next_input = || {
        let i = counter.get();
        counter.set(i + 1);
        CheckpointInput {
            sessions: vec![SessionInput {
                done: format!(
                    "bench checkpoint {i}：写入一条新会话，verified by `cargo bench` itself"
                ),
                area: Some(r#gen::AREAS[i % r#gen::AREAS.len()].to_string()),
                next: Some(format!("下一次 checkpoint ({})", i + 1)),
                ..Default::default()
            }],
            ..Default::default()
        }
    };

    g.bench_function("checkpoint", |b| {
        b.iter_batched(
            || (fixture(), next_input()),
            |(fx, input)| {
                let out = ops::checkpoint(&fx.ws, "bench", &input).unwrap();
                assert_eq!(out.value.ids.len(), 1, "{:?}", out.value);
                (fx, out) // dropped outside the timing
            },
            BatchSize::PerIteration,
        )
    });
    if let Some(fx) = current.borrow().as_ref() {
        let counts = fx.ws.read(|r| {
            Ok((
                r.file_count(FileKind::Sessions)?,
                r.file_count(FileKind::Archive)?,
            ))
        });
        if let Ok(w) = counts {
            eprintln!(
                "[checkpoint/{scale}] {} checkpoints; current workspace: {} live, {} archived sessions",
                counter.get(),
                w.value.0,
                w.value.1
            );
        }
    }

    let floor_dir: OnceCell<TempDir> = OnceCell::new();
    g.bench_function("floor_write_fsync_rename", |b| {
        let dir = floor_dir.get_or_init(|| r#gen::scratch_dir("floor")).path();
        let target = dir.join("floor.bin");
        let block = vec![b'x'; 4096];
        b.iter(|| {
            let mut tmp = tempfile::Builder::new()
                .prefix(".bench-")
                .tempfile_in(dir)
                .unwrap();
            tmp.write_all(&block).unwrap();
            tmp.as_file().sync_all().unwrap();
            tmp.persist(&target).unwrap();
        })
    });
    g.finish();
}

/// Bytes of the four memory files.
fn file_bytes(ws: &Workspace) -> Vec<(FileKind, Vec<u8>)> {
    FileKind::ALL
        .iter()
        .map(|f| (*f, std::fs::read(ws.file_path(*f)).unwrap()))
        .collect()
}

/// A copy of the fixture's memory folder, without `.trilogy/`, checked to rebuild to the same
/// bytes.
struct RebuildCase {
    _dir: TempDir,
    root: PathBuf,
}

impl RebuildCase {
    fn new(fx: &Fixture) -> RebuildCase {
        let dir = r#gen::scratch_dir("rebuild");
        let root = dir.path().join("ws");
        let ws = workspace(&root);
        std::fs::create_dir_all(ws.memory_dir()).unwrap();
        for f in FileKind::ALL {
            std::fs::copy(fx.ws.file_path(f), ws.file_path(f)).unwrap();
        }
        let before = file_bytes(&ws);
        let total: usize = before.iter().map(|(_, b)| b.len()).sum();

        // one-shot breakdown, for the report
        for (f, bytes) in &before {
            let t = Instant::now();
            let parsed = trilogy::markdown::parse_bytes(bytes, true).unwrap();
            eprintln!(
                "[rebuild] parse {:<20} {:>9} bytes {:>6} blocks in {:.2?}",
                f.file_name(),
                bytes.len(),
                parsed.doc.blocks.len(),
                t.elapsed()
            );
        }

        let t = Instant::now();
        let synced = ws.write("bench", |_| Ok(())).expect("rebuild");
        eprintln!(
            "[rebuild] verification rebuild of {total} bytes took {:.2?}",
            t.elapsed()
        );
        let after = file_bytes(&ws);
        for ((f, a), (_, b)) in before.iter().zip(&after) {
            assert!(
                a == b,
                "rebuild changed {}: {} bytes before, {} after",
                f.file_name(),
                a.len(),
                b.len()
            );
        }
        assert!(
            synced.report.written.is_empty() && synced.report.unparseable.is_empty(),
            "rebuild rewrote files: {:?}",
            synced.report
        );
        let counts = ws
            .read(|r| {
                FileKind::ALL
                    .iter()
                    .map(|f| r.file_count(*f))
                    .collect::<trilogy::Result<Vec<u64>>>()
            })
            .unwrap()
            .value;
        let original = fx
            .reader()
            .file_count(FileKind::Archive)
            .expect("archive count");
        assert_eq!(counts[3], original, "archive count after rebuild");
        eprintln!(
            "[rebuild] verified: 4 files byte-identical after rebuild; counts (decisions, live, archive) = ({}, {}, {})",
            counts[1], counts[2], counts[3]
        );
        drop(ws);
        RebuildCase { _dir: dir, root }
    }
}

/// Floor for a rebuild: read the files, split at `\n## `, one redb transaction of inserts.
fn bulk_insert_floor(root: &Path, db_path: &Path) -> usize {
    let ws = workspace(root);
    let db = redb::Database::create(db_path).unwrap();
    let txn = db.begin_write().unwrap();
    let mut n = 0usize;
    {
        let mut t = txn.open_table(ENTRIES).unwrap();
        for f in FileKind::ALL {
            let text = std::fs::read_to_string(ws.file_path(f)).unwrap();
            for block in text.split("\n## ") {
                let key = format!("{:012x}", n);
                t.insert(key.as_str(), block.as_bytes()).unwrap();
                n += 1;
            }
        }
    }
    txn.commit().unwrap();
    n
}

fn rebuild(c: &mut Criterion, fx: &Lazy, case: &OnceCell<RebuildCase>) {
    let mut g = c.benchmark_group(format!("rebuild/{}", label(fx.n)));
    g.sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_millis(100))
        .measurement_time(Duration::from_secs(35));
    let get = || case.get_or_init(|| RebuildCase::new(fx.get()));

    g.bench_function("rebuild", |b| {
        let case = get();
        b.iter_batched(
            || {
                let ws = workspace(&case.root);
                std::fs::remove_dir_all(ws.state_dir()).unwrap();
                ws
            },
            |ws| {
                let synced = ws.write("bench", |_| Ok(())).unwrap();
                drop(ws); // closing the store is part of a rebuild
                synced
            },
            BatchSize::PerIteration,
        )
    });

    g.bench_function("floor_split_and_bulk_insert", |b| {
        let case = get();
        let db_path = case.root.join("floor.redb");
        b.iter_batched(
            || {
                let _ = std::fs::remove_file(&db_path);
            },
            |()| bulk_insert_floor(&case.root, &db_path),
            BatchSize::PerIteration,
        )
    });
    g.finish();
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    let small = Lazy::new(1_000);
    let big = Lazy::new(100_000);
    read_in_process(&mut c, &small);
    read_in_process(&mut c, &big);
    read_cli(&mut c, &big);
    render(&mut c, &big);
    checkpoint(&mut c, "1k", &fresh_1k, 100, Duration::from_secs(4));
    let case = OnceCell::new();
    rebuild(&mut c, &big, &case);
    // not asked for: the same checkpoint on the 100k workspace the rebuild left behind
    let on_100k = || CheckpointFx {
        _dir: None,
        ws: workspace(&case.get_or_init(|| RebuildCase::new(big.get())).root),
    };
    checkpoint(
        &mut c,
        "100k",
        &on_100k,
        usize::MAX,
        Duration::from_secs(10),
    );
    c.final_summary();
}
