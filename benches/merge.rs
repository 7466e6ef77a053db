//! The git merge driver on a large archive: `ops::gitmerge::merge_driver` merging three
//! versions of a 100k-entry `SESSIONS-archive.md`, next to a floor measured in the same run.
//!
//! The versions: base holds `BENCH_MERGE_N` (default 100 000) generated sessions
//! (`benches/gen`); ours adds 500 newer entries and deletes 100 old ones; theirs adds 500 other
//! newer entries and deletes 100 other old ones. The result (checked once, outside timing) is
//! the union: base + 1000 − 200 entries.
//!
//! - `merge_driver/100k/driver`: the whole driver (read and parse three files, merge, order by
//!   date, render, write `ours` atomically); `ours` is restored before each sample, untimed.
//! - `merge_driver/100k/floor_parse_three`: reading and parsing the three files alone, which
//!   the driver cannot go below.
//!
//! At the end the medians are printed with their ratio (driver / floor): a linear driver stays
//! a small multiple of the floor whatever `BENCH_MERGE_N` is; a scan per entry would not.
//!
//! Run: `cargo bench --bench merge`.

#[allow(dead_code)]
mod r#gen;

use std::cell::RefCell;
use std::hint::black_box;
use std::path::Path;
use std::time::{Duration, Instant};

use criterion::Criterion;
use r#gen::{Shape, fmt_duration, percentile};
use trilogy::markdown::{self, Doc};
use trilogy::ops::gitmerge::merge_driver;

const NAME: &str = "memory/SESSIONS-archive.md";
const ADDED: usize = 500;
const DELETED: usize = 100;

fn render(preamble: &str, blocks: Vec<markdown::Block>) -> String {
    markdown::render(
        &Doc {
            preamble: preamble.to_string(),
            blocks,
        },
        None,
    )
}

/// Write base, ours and theirs (and a pristine copy of ours); returns the expected entry count.
fn write_versions(dir: &Path, n: usize) -> usize {
    let shape = Shape {
        decisions: 0,
        live_sessions: 0,
        archived_sessions: n + 2 * ADDED,
    };
    let (_, archive) = r#gen::sessions_md(&shape);
    let doc = markdown::parse(&archive, true)
        .expect("the generated archive parses")
        .doc;
    let (new, old) = doc.blocks.split_at(2 * ADDED);
    let (new_ours, new_theirs) = new.split_at(ADDED);
    // ours deletes old entries 0, 100, 200, …; theirs 50, 150, 250, … (DELETED each)
    let without = |offset: usize| -> Vec<markdown::Block> {
        old.iter()
            .enumerate()
            .filter(|(i, _)| i % 100 != offset || *i >= 100 * DELETED)
            .map(|(_, b)| b.clone())
            .collect()
    };
    let side = |new: &[markdown::Block], step: usize| {
        let mut blocks = new.to_vec();
        blocks.extend(without(step));
        render(&doc.preamble, blocks)
    };
    let write = |name: &str, text: &str| std::fs::write(dir.join(name), text).expect("write");
    write("base.md", &render(&doc.preamble, old.to_vec()));
    write("ours.orig.md", &side(new_ours, 0));
    write("theirs.md", &side(new_theirs, 50));
    old.len() + 2 * ADDED - 2 * DELETED
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    let n = r#gen::env_usize("BENCH_MERGE_N", 100_000);
    let dir = r#gen::scratch_dir("merge");
    let d = dir.path();
    let t = Instant::now();
    let expected = write_versions(d, n);
    eprintln!(
        "[setup] wrote three versions of {n} entries in {:.2?}",
        t.elapsed()
    );
    let (base, ours, theirs) = (d.join("base.md"), d.join("ours.md"), d.join("theirs.md"));
    let restore = || std::fs::copy(d.join("ours.orig.md"), &ours).expect("restore ours");

    restore();
    let report = merge_driver(&base, &ours, &theirs, NAME).expect("the driver merges");
    assert_eq!(report.conflicts, 0);
    let merged = markdown::parse_bytes(&std::fs::read(&ours).expect("read"), true)
        .expect("the result parses");
    assert_eq!(merged.doc.blocks.len(), expected, "the union of both sides");

    let driver: RefCell<Vec<Duration>> = RefCell::default();
    let floor: RefCell<Vec<Duration>> = RefCell::default();
    let mut g = c.benchmark_group(format!("merge_driver/{}k", n / 1000));
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(100))
        .measurement_time(Duration::from_secs(20));
    g.bench_function("driver", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                restore();
                let t = Instant::now();
                black_box(merge_driver(&base, &ours, &theirs, NAME).expect("merge"));
                let took = t.elapsed();
                driver.borrow_mut().push(took);
                total += took;
            }
            total
        })
    });
    g.bench_function("floor_parse_three", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let t = Instant::now();
                for p in [&base, &ours, &theirs] {
                    let bytes = std::fs::read(p).expect("read");
                    black_box(markdown::parse_bytes(&bytes, true).expect("parse"));
                }
                let took = t.elapsed();
                floor.borrow_mut().push(took);
                total += took;
            }
            total
        })
    });
    g.finish();

    let median = |v: &RefCell<Vec<Duration>>| {
        let mut v = v.borrow().clone();
        v.sort();
        percentile(&v, 50.0)
    };
    let (dm, fm) = (median(&driver), median(&floor));
    eprintln!(
        "merge_driver/{}k: driver {} · floor (parse three) {} · ratio {:.2}",
        n / 1000,
        fmt_duration(dm),
        fmt_duration(fm),
        dm.as_secs_f64() / fm.as_secs_f64().max(f64::MIN_POSITIVE)
    );
    c.final_summary();
}
