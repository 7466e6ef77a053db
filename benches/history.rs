//! What history costs: the same command at 100k entries against 1k, through the release
//! binary, every figure next to a floor measured in the same run.
//!
//! Each measured command runs under a small wrapper (this bench re-run as `__measure`) that
//! spawns it, waits, and reads its resources from `getrusage(RUSAGE_CHILDREN)` — with one child
//! those are exactly the command's: CPU (user + system), peak RSS, and bytes written (block
//! output, which Linux counts as the bytes the process dirtied in the page cache: file writes
//! and the store's pages). Wall time is taken around spawn and wait by the wrapper.
//!
//! - `checkpoint`: `trilogy checkpoint --session-done … --area …` on a 1k and a 100k workspace
//!   (`benches/gen`), `BENCH_HISTORY_CYCLES` (2) whole archive cycles each: the workspace starts
//!   at the live cap and a cycle is the `sessions_archive_batch + 1` checkpoints after which one
//!   batch moves to the archive, so the mean is the amortised cost, batch moves included. Reported:
//!   mean, median and worst of wall, CPU, bytes written and peak RSS per scale, the ratios
//!   100k ÷ 1k, and how many checkpoints moved a batch. Floors in the same loop: spawning
//!   `/bin/true`, and writing 4 KiB to a temp file, fsync, rename.
//! - `fresh_clone`: the 100k workspace committed to a git repository and cloned; the clone's
//!   first `trilogy status` (rebuilds the store from the Markdown) and first `trilogy search`
//!   (builds the index). Floor: `cat` of the four memory files.
//! - `merge_driver`: `trilogy merge-driver %O %A %B %P` on three versions of a 100k-entry
//!   `SESSIONS-archive.md` (each side added 500 entries and deleted 100). Floor: `git
//!   merge-file` (git's own line merge) on the same files.
//!
//! Run: `cargo bench --bench history` (builds the release binary). Knobs: `BENCH_HISTORY_N`
//! (100000), `BENCH_HISTORY_CYCLES` (2), `BENCH_HISTORY_PARTS`
//! (`checkpoint,fresh_clone,merge_driver`), `BENCH_HISTORY_KEEP` (a folder that receives a copy
//! of the fresh clone's `memory/`, to profile by hand), `BENCH_HISTORY_BIN` (another trilogy
//! binary). Without `--bench` (as `cargo test --benches`
//! runs it) it is a smoke run at 2k entries and one cycle.

#[allow(dead_code)]
mod r#gen;

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use trilogy::config::Config;
use trilogy::markdown::{self, Doc};
use trilogy::model::FileKind;

/// What one command cost.
#[derive(Debug, Clone, Copy, Default)]
struct Usage {
    wall: Duration,
    cpu: Duration,
    rss_kib: u64,
    written: u64,
    ok: bool,
}

impl Usage {
    #[cfg(unix)]
    fn line(&self) -> String {
        format!(
            "{} {} {} {} {}",
            self.wall.as_nanos(),
            self.cpu.as_nanos(),
            self.rss_kib,
            self.written,
            self.ok as u8
        )
    }

    fn parse(s: &str) -> Option<Usage> {
        let v: Vec<u128> = s
            .split_whitespace()
            .map(|x| x.parse().ok())
            .collect::<Option<_>>()?;
        let [wall, cpu, rss, written, ok] = v[..] else {
            return None;
        };
        Some(Usage {
            wall: Duration::from_nanos(wall as u64),
            cpu: Duration::from_nanos(cpu as u64),
            rss_kib: rss as u64,
            written: written as u64,
            ok: ok == 1,
        })
    }
}

/// The wrapper, where there is no `getrusage` (the bench runs on Unix).
#[cfg(not(unix))]
fn measure_child(_: &str, _: &[String]) -> ! {
    panic!("this bench reads its children's usage through getrusage, which only Unix has")
}

/// The wrapper: run `args` (stdout to `out`), print its usage on stdout.
#[cfg(unix)]
fn measure_child(out: &str, args: &[String]) -> ! {
    use nix::sys::resource::{UsageWho, getrusage};
    let stdout = std::fs::File::create(out).expect("create the output file");
    let t = Instant::now();
    let status = Command::new(&args[0])
        .args(&args[1..])
        .stdin(Stdio::null())
        .stdout(stdout)
        .status()
        .expect("spawn the measured command");
    let wall = t.elapsed();
    let ru = getrusage(UsageWho::RUSAGE_CHILDREN).expect("getrusage");
    let tv = |t: nix::sys::time::TimeVal| {
        Duration::from_secs(t.tv_sec() as u64) + Duration::from_micros(t.tv_usec() as u64)
    };
    let usage = Usage {
        wall,
        cpu: tv(ru.user_time()) + tv(ru.system_time()),
        rss_kib: ru.max_rss() as u64,
        written: ru.block_writes() as u64 * 512,
        ok: status.success(),
    };
    println!("{}", usage.line());
    std::process::exit(0);
}

/// Run `cmd` under the wrapper; its stdout goes to `out`.
fn measure(cmd: &[&str], out: &Path) -> Usage {
    let me = std::env::current_exe().expect("current_exe");
    let o = Command::new(me)
        .arg("__measure")
        .arg(out)
        .args(cmd)
        .stderr(Stdio::inherit())
        .output()
        .expect("run the wrapper");
    Usage::parse(String::from_utf8_lossy(&o.stdout).trim()).expect("the wrapper's report")
}

/// Mean, median and max of one figure.
struct Stat {
    mean: f64,
    median: f64,
    max: f64,
}

fn stat(v: &[f64]) -> Stat {
    let mut s = v.to_vec();
    s.sort_by(|a, b| a.total_cmp(b));
    Stat {
        mean: s.iter().sum::<f64>() / s.len().max(1) as f64,
        median: s.get(s.len() / 2).copied().unwrap_or(0.0),
        max: s.last().copied().unwrap_or(0.0),
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

/// One scale's checkpoint samples.
struct CheckpointRun {
    n: usize,
    samples: Vec<Usage>,
    moved: usize,
    floor_fsync: Vec<Duration>,
    floor_spawn: Vec<Usage>,
    live_after: String,
}

fn checkpoint_run(bin: &Path, n: usize, cycles: usize, scratch: &Path) -> CheckpointRun {
    let root = scratch.join(format!("ckpt-{n}"));
    let t = Instant::now();
    let ws = r#gen::generate(&root, n);
    let cap = ws.config.archive_cap().expect("archiving is on");
    let batch = ws.config.archive_batch();
    drop(ws);
    eprintln!(
        "[setup] {n} entries generated in {:.1?}; cap {cap}, batch {batch}",
        t.elapsed()
    );
    let root_s = root.to_string_lossy().into_owned();
    let bin_s = bin.to_string_lossy().into_owned();
    let out = scratch.join("out.txt");
    // settle the stamps the import left (the first command after an import re-reads files)
    measure(&[&bin_s, "--root", &root_s, "status"], &out);
    let archive = root.join("memory").join(FileKind::Archive.file_name());
    let stamp = |p: &Path| std::fs::metadata(p).ok().and_then(|m| m.modified().ok());
    let floor_dir = scratch.join("floor");
    std::fs::create_dir_all(&floor_dir).expect("floor dir");
    let block = vec![b'x'; 4096];
    let mut run = CheckpointRun {
        n,
        samples: Vec::new(),
        moved: 0,
        floor_fsync: Vec::new(),
        floor_spawn: Vec::new(),
        live_after: String::new(),
    };
    let total = cycles * (batch + 1);
    for i in 0..total {
        let before = stamp(&archive);
        let done = format!("history bench {n}/{i}：一条新会话，verified by the bench itself");
        let area = r#gen::AREAS[i % r#gen::AREAS.len()];
        let u = measure(
            &[
                &bin_s,
                "--root",
                &root_s,
                "checkpoint",
                "--session-done",
                &done,
                "--area",
                area,
            ],
            &out,
        );
        assert!(u.ok, "checkpoint {i} at {n} failed");
        if stamp(&archive) != before {
            run.moved += 1;
        }
        run.samples.push(u);
        // floors, interleaved so they see the same disk
        let t = Instant::now();
        let mut tmp = tempfile::Builder::new()
            .prefix(".floor-")
            .tempfile_in(&floor_dir)
            .expect("temp");
        tmp.write_all(&block).expect("write");
        tmp.as_file().sync_all().expect("fsync");
        tmp.persist(floor_dir.join("floor.bin")).expect("rename");
        run.floor_fsync.push(t.elapsed());
        if i % 4 == 0 {
            run.floor_spawn.push(measure(&["/bin/true"], &out));
        }
    }
    let o = Command::new(bin)
        .args(["--root", &root_s, "--json", "status"])
        .output()
        .expect("status");
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap_or_default();
    run.live_after = format!(
        "{} live, {} archived",
        v["sessions_live"], v["sessions_archived"]
    );
    let _ = std::fs::remove_dir_all(&root);
    run
}

fn report_checkpoints(small: &CheckpointRun, big: &CheckpointRun) {
    println!("\n## checkpoint (CLI), {} vs {} entries\n", small.n, big.n);
    println!(
        "| figure | {0} mean | {0} median | {0} worst | {1} mean | {1} median | {1} worst | ratio of means | ratio of worst |",
        label(small.n),
        label(big.n)
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    type Pick = fn(&Usage) -> f64;
    let rows: [(&str, Pick, &str); 4] = [
        ("wall (ms)", |u| ms(u.wall), "{:.1}"),
        ("CPU (ms)", |u| ms(u.cpu), "{:.1}"),
        ("written (KiB)", |u| u.written as f64 / 1024.0, "{:.0}"),
        ("peak RSS (MiB)", |u| mib(u.rss_kib), "{:.1}"),
    ];
    for (name, pick, _) in rows {
        let a = stat(&small.samples.iter().map(pick).collect::<Vec<_>>());
        let b = stat(&big.samples.iter().map(pick).collect::<Vec<_>>());
        println!(
            "| {name} | {:.1} | {:.1} | {:.1} | {:.1} | {:.1} | {:.1} | **{:.2}** | {:.2} |",
            a.mean,
            a.median,
            a.max,
            b.mean,
            b.median,
            b.max,
            b.mean / a.mean.max(f64::MIN_POSITIVE),
            b.max / a.max.max(f64::MIN_POSITIVE)
        );
    }
    for r in [small, big] {
        let f = stat(&r.floor_fsync.iter().map(|d| ms(*d)).collect::<Vec<_>>());
        let s = stat(&r.floor_spawn.iter().map(|u| ms(u.wall)).collect::<Vec<_>>());
        let w = stat(&r.samples.iter().map(|u| ms(u.wall)).collect::<Vec<_>>());
        println!(
            "\n{}: {} checkpoints, {} moved a batch to the archive; after: {}. Floors in the same loop: 4 KiB write+fsync+rename median {:.2} ms (checkpoint median ÷ floor {:.1}), spawn `/bin/true` median {:.2} ms.",
            label(r.n),
            r.samples.len(),
            r.moved,
            r.live_after,
            f.median,
            w.median / f.median.max(f64::MIN_POSITIVE),
            s.median
        );
    }
}

fn label(n: usize) -> String {
    if n >= 1000 && n.is_multiple_of(1000) {
        format!("{}k", n / 1000)
    } else {
        n.to_string()
    }
}

fn git(dir: &Path, args: &[&str]) {
    let st = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args([
            "-c",
            "user.name=bench",
            "-c",
            "user.email=bench@example.com",
        ])
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("git");
    assert!(st.success(), "git {args:?} failed in {}", dir.display());
}

fn fresh_clone(bin: &Path, n: usize, scratch: &Path) {
    let origin = scratch.join("origin");
    let t = Instant::now();
    drop(r#gen::generate(&origin, n));
    std::fs::remove_dir_all(origin.join(".trilogy")).expect("remove .trilogy");
    git(&origin, &["init", "-q", "-b", "main"]);
    git(&origin, &["add", "-A"]);
    git(&origin, &["commit", "-q", "-m", "memory"]);
    let clone = scratch.join("clone");
    let o = origin.to_string_lossy().into_owned();
    let c = clone.to_string_lossy().into_owned();
    git(scratch, &["clone", "-q", &o, &c]);
    eprintln!(
        "[setup] {n} entries generated, committed and cloned in {:.1?}",
        t.elapsed()
    );
    let bin_s = bin.to_string_lossy().into_owned();
    let out = scratch.join("out.txt");
    let mem = clone.join("memory");
    if let Ok(keep) = std::env::var("BENCH_HISTORY_KEEP") {
        // a copy of the clone's memory folder, to profile the first commands on by hand
        let keep = Path::new(&keep).join("memory");
        std::fs::create_dir_all(&keep).expect("create BENCH_HISTORY_KEEP");
        for e in std::fs::read_dir(&mem).expect("read the clone's memory folder") {
            let e = e.expect("memory folder entry");
            std::fs::copy(e.path(), keep.join(e.file_name())).expect("copy a memory file");
        }
    }
    let files: Vec<String> = FileKind::ALL
        .iter()
        .map(|f| mem.join(f.file_name()).to_string_lossy().into_owned())
        .collect();
    let bytes: u64 = files
        .iter()
        .map(|f| std::fs::metadata(f).map_or(0, |m| m.len()))
        .sum();
    let mut cat = vec!["/bin/cat"];
    cat.extend(files.iter().map(String::as_str));
    let floor = measure(&cat, Path::new("/dev/null"));
    let status = measure(&[&bin_s, "--root", &c, "status"], &out);
    assert!(status.ok, "first status failed");
    let search = measure(
        &[&bin_s, "--root", &c, "search", "redb write lock 超时"],
        &out,
    );
    assert!(search.ok, "first search failed");
    let hits = std::fs::read_to_string(&out).unwrap_or_default();
    assert!(!hits.trim().is_empty(), "the first search found nothing");
    let second = measure(&[&bin_s, "--root", &c, "status"], &out);
    println!(
        "\n## fresh clone, {} entries ({:.1} MB of Markdown)\n",
        label(n),
        bytes as f64 / 1e6
    );
    println!("| command | wall (s) | CPU (s) | peak RSS (MiB) | target |");
    println!("|---|---|---|---|---|");
    let row = |name: &str, u: &Usage, target: &str| {
        println!(
            "| {name} | {:.2} | {:.2} | {:.1} | {target} |",
            u.wall.as_secs_f64(),
            u.cpu.as_secs_f64(),
            mib(u.rss_kib)
        )
    };
    row(
        "first `status` (rebuilds the store)",
        &status,
        "≤ 3 s, ≤ 100 MiB",
    );
    row("first `search` (builds the index)", &search, "≤ 3 s");
    row("second `status`", &second, "");
    row("floor: `cat` the four files", &floor, "");
    let _ = std::fs::remove_dir_all(&origin);
    let _ = std::fs::remove_dir_all(&clone);
}

fn merge_driver(bin: &Path, n: usize, scratch: &Path) {
    const ADDED: usize = 500;
    const DELETED: usize = 100;
    let dir = scratch.join("merge");
    std::fs::create_dir_all(&dir).expect("merge dir");
    let shape = r#gen::Shape {
        decisions: 0,
        live_sessions: 0,
        archived_sessions: n + 2 * ADDED,
    };
    let (_, archive) = r#gen::sessions_md(&shape);
    let doc = markdown::parse(&archive, true).expect("parses").doc;
    drop(archive);
    let (new, old) = doc.blocks.split_at(2 * ADDED);
    let (new_ours, new_theirs) = new.split_at(ADDED);
    let render = |blocks: Vec<markdown::Block>| {
        markdown::render(
            &Doc {
                preamble: doc.preamble.clone(),
                blocks,
            },
            None,
        )
    };
    let without = |offset: usize| -> Vec<markdown::Block> {
        old.iter()
            .enumerate()
            .filter(|(i, _)| i % 100 != offset || *i >= 100 * DELETED)
            .map(|(_, b)| b.clone())
            .collect()
    };
    let side = |new: &[markdown::Block], offset: usize| {
        let mut blocks = new.to_vec();
        blocks.extend(without(offset));
        render(blocks)
    };
    let write = |name: &str, text: String| std::fs::write(dir.join(name), text).expect("write");
    write("base.md", render(old.to_vec()));
    write("ours.orig.md", side(new_ours, 0));
    write("theirs.md", side(new_theirs, 50));
    let expected = old.len() + 2 * ADDED - 2 * DELETED;
    let p = |name: &str| dir.join(name).to_string_lossy().into_owned();
    let (base, ours, theirs) = (p("base.md"), p("ours.md"), p("theirs.md"));
    let bin_s = bin.to_string_lossy().into_owned();
    let out = scratch.join("out.txt");
    let mut driver = Vec::new();
    let mut floor = Vec::new();
    for _ in 0..3 {
        std::fs::copy(dir.join("ours.orig.md"), &ours).expect("restore ours");
        let u = measure(
            &[
                &bin_s,
                "merge-driver",
                &base,
                &ours,
                &theirs,
                "memory/SESSIONS-archive.md",
            ],
            &out,
        );
        assert!(u.ok, "the merge driver failed");
        driver.push(u);
        std::fs::copy(dir.join("ours.orig.md"), &ours).expect("restore ours");
        floor.push(measure(
            &["git", "merge-file", "-p", &ours, &base, &theirs],
            Path::new("/dev/null"),
        ));
    }
    std::fs::copy(dir.join("ours.orig.md"), &ours).expect("restore ours");
    measure(
        &[
            &bin_s,
            "merge-driver",
            &base,
            &ours,
            &theirs,
            "memory/SESSIONS-archive.md",
        ],
        &out,
    );
    let merged = std::fs::read(&ours).expect("read the merge");
    let blocks = markdown::parse_bytes(&merged, true)
        .expect("the merge parses")
        .doc
        .blocks
        .len();
    assert_eq!(blocks, expected, "the merge is the union of both sides");
    let best = |v: &[Usage]| {
        let mut v = v.to_vec();
        v.sort_by_key(|u| u.wall);
        v[v.len() / 2]
    };
    let (d, f) = (best(&driver), best(&floor));
    println!(
        "\n## merge driver, {} archive entries ({:.1} MB per version)\n",
        label(n),
        std::fs::metadata(&base).map_or(0, |m| m.len()) as f64 / 1e6
    );
    println!("| command (median of 3) | wall (s) | CPU (s) | peak RSS (MiB) | target |");
    println!("|---|---|---|---|---|");
    println!(
        "| `trilogy merge-driver` | {:.2} | {:.2} | {:.1} | ≤ 3 s, ≤ 200 MiB |",
        d.wall.as_secs_f64(),
        d.cpu.as_secs_f64(),
        mib(d.rss_kib)
    );
    println!(
        "| floor: `git merge-file` | {:.2} | {:.2} | {:.1} | |",
        f.wall.as_secs_f64(),
        f.cpu.as_secs_f64(),
        mib(f.rss_kib)
    );
    println!("\nresult checked: {expected} entries, the union of both sides");
    let _ = std::fs::remove_dir_all(&dir);
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("__measure") {
        measure_child(&args[2], &args[3..]);
    }
    let full = args.iter().any(|a| a == "--bench");
    let n = r#gen::env_usize("BENCH_HISTORY_N", if full { 100_000 } else { 2_000 });
    let cycles = r#gen::env_usize("BENCH_HISTORY_CYCLES", if full { 2 } else { 1 });
    let parts = std::env::var("BENCH_HISTORY_PARTS")
        .unwrap_or("checkpoint,fresh_clone,merge_driver".into());
    let dir = r#gen::scratch_dir("history");
    let bin: PathBuf = r#gen::trilogy_bin_copy("BENCH_HISTORY_BIN", dir.path());
    let _ = Config::default();
    println!("# history bench: {} entries against 1k", label(n));
    if parts.contains("checkpoint") {
        let small = checkpoint_run(&bin, 1_000, cycles, dir.path());
        let big = checkpoint_run(&bin, n, cycles, dir.path());
        report_checkpoints(&small, &big);
    }
    if parts.contains("fresh_clone") {
        fresh_clone(&bin, n, dir.path());
    }
    if parts.contains("merge_driver") {
        merge_driver(&bin, n, dir.path());
    }
}
