"""Eight writers at once on a large memory: throughput and nothing lost, at 1k and at 1M entries.

Usage: python3 benches/writers_volume.py BINARY
(BENCH_WRITERS_SCALES="1000,1000000" picks the scales; BENCH_WRITERS_SECONDS=20 how long the
writers run; BENCH_WRITERS=8 how many.)

For each scale it writes a workspace shaped as the scale generator in benches/gen makes them
(volume_compare.workspace: 5% decisions, 200 live sessions, the rest archived), lets a first
`status` build the store, then starts the writers together: each runs `trilogy checkpoint
--session-done "<unique text>; tested"` one after another until the time is up. A checkpoint
that exits 0 is acknowledged; any other exit (a busy store past `lock_timeout_ms`) is a refusal,
counted. Once all have stopped, every acknowledged text must be in SESSIONS.md or the archive
exactly once (a `status` first, so the files are the store's). Reported per scale: acknowledged
writes per second, refusals, p50/p95 of a write, lost and doubled entries; then the larger
scale's throughput as a share of the smaller's in the same run (target ≥ 0.5, 0 lost). No
figure is asserted; this reports, and exits 1 if an acknowledged entry is missing or doubled.
"""
import collections
import os
import re
import shutil
import statistics
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import volume_compare  # noqa: E402  (the workspace writer the benches share)

SCALES = [int(x) for x in os.environ.get("BENCH_WRITERS_SCALES", "1000,1000000").split(",")]
SECONDS = float(os.environ.get("BENCH_WRITERS_SECONDS", "20"))
WRITERS = int(os.environ.get("BENCH_WRITERS", "8"))
ENV = volume_compare.ENV


def pct(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(len(v) * p / 100))] if v else float("nan")


def writer(binary, root, w, until, out):
    """Checkpoint until `until`; each attempt as (text, acknowledged, seconds)."""
    k = 0
    while time.perf_counter() < until:
        text = f"writer {w} step {k} of the volume bench"
        t = time.perf_counter()
        r = subprocess.run([binary, "--root", root, "checkpoint", "--session-done", f"{text}; tested", "--area", "cli"],
                           env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        out.append((text, r.returncode == 0, time.perf_counter() - t))
        k += 1


def measure(binary, n):
    root = volume_compare.workspace(n, prefix="writers")
    volume_compare.run([binary, "--root", root, "status"], keep=False)
    runs = [[] for _ in range(WRITERS)]
    start = time.perf_counter()
    until = start + SECONDS
    threads = [threading.Thread(target=writer, args=(binary, root, w, until, runs[w])) for w in range(WRITERS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    took = time.perf_counter() - start
    volume_compare.run([binary, "--root", root, "status"], keep=False)
    files = ""
    for name in ["SESSIONS.md", "SESSIONS-archive.md"]:
        with open(f"{root}/memory/{name}", encoding="utf-8") as f:
            files += f.read()
    found = collections.Counter(re.findall(r"^完成：(writer \d+ step \d+ of the volume bench); tested$", files, re.M))
    acked = [(text, s) for r in runs for (text, ok, s) in r if ok]
    refused = sum(1 for r in runs for (_, ok, _) in r if not ok)
    lost = [t for t, _ in acked if found[t] == 0]
    doubled = [t for t, _ in acked if found[t] > 1]
    lat = [s for _, s in acked]
    per_writer = [sum(1 for (_, ok, _) in r if ok) for r in runs]
    fig = {"throughput": len(acked) / took, "acked": len(acked), "refused": refused,
           "p50": pct(lat, 50), "p95": pct(lat, 95), "lost": len(lost), "doubled": len(doubled),
           "fewest per writer": min(per_writer)}
    print(f"{n:>9,} entries: {fig['throughput']:6.1f} writes/s ({fig['acked']} acknowledged, "
          f"{refused} refused, fewest per writer {fig['fewest per writer']}), write p50 {fig['p50'] * 1000:.0f} ms "
          f"p95 {fig['p95'] * 1000:.0f} ms, lost {len(lost)}, doubled {len(doubled)}", flush=True)
    for t in (lost + doubled)[:5]:
        print(f"   missing or doubled: {t}")
    shutil.rmtree(root)
    return fig


def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    binary = os.path.abspath(sys.argv[1])
    figs = {n: measure(binary, n) for n in SCALES}
    small, big = SCALES[0], SCALES[-1]
    share = figs[big]["throughput"] / figs[small]["throughput"]
    bad = sum(f["lost"] + f["doubled"] for f in figs.values())
    print(f"{WRITERS} writers, {big:,} ÷ {small:,} throughput in the same run: {share:.2f} "
          f"(target ≥ 0.5: {'met' if share >= 0.5 else 'NOT met'}); lost or doubled: {bad}")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
