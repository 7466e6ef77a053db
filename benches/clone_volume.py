"""A fresh clone at scale: the first commands on memory files with no store beside them.

Usage: python3 benches/clone_volume.py BINARY [MORE_BINARIES]
(BENCH_CLONE_SCALES="100000,1000000" picks the scales; BENCH_CLONE_RUNS=1 the runs per figure.)

For each scale it writes one workspace shaped as the scale generator in benches/gen makes them
(5% decisions, 200 live sessions, the rest archived in memory/SESSIONS-archive.md, about 190 MB
at 1M entries), with no `.trilogy/`: what a `git clone` of a project gives. Then, for each binary
and run (`.trilogy/` deleted before each run, the binaries alternating):

- `status` as the first command: the store is rebuilt from the Markdown;
- `search` next: the search index is built from the store;
- `reindex`: the index built again and put in place;
- `search` as the first command of another fresh clone: the store and the index together.

Each command is spawned and reaped with wait4, so its wall time, CPU time and peak RSS are its
own; `cat` of the four memory files (page cache warm) is the floor. The targets at 1M entries:
first status ≤ 10 s, first search ≤ 20 s, peak RSS ≤ 256 MiB for each of these commands. Every
figure is reported against them; none is asserted.
"""
import os
import shutil
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import volume_compare  # noqa: E402  (the workspace writer the benches share)

RUNS = int(os.environ.get("BENCH_CLONE_RUNS", "1"))
SCALES = [int(x) for x in os.environ.get("BENCH_CLONE_SCALES", "100000,1000000").split(",")]
ENV = dict(os.environ, TRILOGY_CONFIG="/nonexistent.toml", TRILOGY_TODAY="2026-01-15")
TARGETS = {"first status": 10.0, "first search": 20.0}
RSS_TARGET = 256
FILES = ["PROJECT.md", "DECISIONS.md", "SESSIONS.md", "SESSIONS-archive.md"]


def workspace(n):
    """The memory files of `n` entries, as a clone has them: no store, no index."""
    return volume_compare.workspace(n, prefix="clone", project=True)


def timed(args, keep=True):
    """Run `args` as a child reaped by wait4: (wall s, cpu s, peak RSS MiB, stdout if `keep`)."""
    return volume_compare.run(args, b"", ENV, keep)


def fresh(root):
    shutil.rmtree(root + "/.trilogy", ignore_errors=True)


def one_run(b, root):
    """The first commands of a fresh clone, and a reindex: name → (wall, cpu, rss)."""
    fig = {}
    fresh(root)
    fig["first status"] = timed([b, "--root", root, "status"])
    fig["first search"] = timed([b, "--root", root, "search", "choice 7"])
    assert b"choice 7" in fig["first search"][3], fig["first search"][3][:300]
    fig["reindex"] = timed([b, "--root", root, "reindex"])
    fresh(root)
    fig["search as first command"] = timed([b, "--root", root, "search", "archived entry 4242"])
    assert b"4242" in fig["search as first command"][3], fig["search as first command"][3][:300]
    return {k: v[:3] for k, v in fig.items()}


def measure(binaries, n):
    print(f"\n== {n:,} entries ==", flush=True)
    t = time.perf_counter()
    root = workspace(n)
    size = sum(os.path.getsize(f"{root}/memory/{f}") for f in FILES)
    print(f"written in {time.perf_counter() - t:.1f} s: {size / 1e6:.0f} MB of Markdown", flush=True)
    cat = [timed(["cat"] + [f"{root}/memory/{f}" for f in FILES], keep=False)[:3] for _ in range(3)]
    fig = {b: {} for b in binaries}
    for _ in range(RUNS):
        for b in binaries:
            for name, v in one_run(b, root).items():
                fig[b].setdefault(name, []).append(v)
    fresh(root)
    shutil.rmtree(root)
    floor = statistics.median(x[0] for x in cat)
    print(f"floor: cat of the memory files {floor * 1000:.0f} ms, peak RSS {max(x[2] for x in cat):.0f} MiB")
    for b in binaries:
        print(f"-- {os.path.basename(b)} ({b})")
        for name, v in fig[b].items():
            w = statistics.median(x[0] for x in v)
            c = statistics.median(x[1] for x in v)
            rss = max(x[2] for x in v)
            target = TARGETS.get(name)
            verdict = []
            if target is not None:
                verdict.append(f"{'met' if w <= target else 'NOT met'} (≤ {target:.0f} s at 1M)")
            verdict.append(f"RSS {'met' if rss <= RSS_TARGET else 'NOT met'} (≤ {RSS_TARGET} MiB)")
            print(f"   {name:24} wall {w:7.2f} s = {w / floor:6.0f}x cat  CPU {c:7.2f} s  "
                  f"peak RSS {rss:6.0f} MiB  {', '.join(verdict)}", flush=True)


def main():
    binaries = [os.path.abspath(b) for b in sys.argv[1:]]
    if not binaries:
        raise SystemExit(__doc__)
    for n in SCALES:
        measure(binaries, n)


if __name__ == "__main__":
    main()
