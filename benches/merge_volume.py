"""The merge driver on a large archive that both sides grew on top, per binary.

Usage: python3 benches/merge_volume.py BINARY [MORE_BINARIES]
(BENCH_MERGE_SCALES="1000000" picks the archived entries; BENCH_MERGE_RUNS=3 the runs.)

For each scale it writes an archive shaped as the scale generator makes them (the entries of
benches/volume_compare.py), then three versions of it as two clones leave them when each moved
sessions into it: base is the archive, ours has 300 newer entries on top, theirs 300 others on
top (of the same days, so the merge interleaves them). Each binary's `trilogy merge-driver
%O %A %B %P` is spawned and reaped with wait4 (wall, CPU, peak RSS), the binaries alternating,
`ours` restored before each run; `cat` of the three versions is the floor. Each result is
checked: every entry of both sides once, in date order, the archive below as it was. A binary
that refuses (an archive past what it reads whole) is reported as refusing. Nothing is asserted
about time; this reports.
"""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import volume_compare  # noqa: E402  (the entries the benches share)

RUNS = int(os.environ.get("BENCH_MERGE_RUNS", "3"))
SCALES = [int(x) for x in os.environ.get("BENCH_MERGE_SCALES", "1000000").split(",")]
MOVED = 300


def versions(n):
    """base, ours, theirs of an archive of `n` entries, in a new folder."""
    d = tempfile.mkdtemp(prefix=f"merge{n}-")
    preamble = "# SESSIONS ARCHIVE\n"
    entry = "\n## {} · {}\n完成：{} entry {}，同步 engine 测试; tested\n"
    areas = volume_compare.AREAS
    with open(d + "/base", "w") as f:
        f.write(preamble)
        for k in range(n):
            f.write(entry.format(volume_compare.day(k, n), areas[k % 4], "archived", k))
    for side, tag in (("ours", "ours moved"), ("theirs", "theirs moved")):
        with open(d + f"/{side}.top", "w") as f:
            f.write(preamble)
            for k in range(MOVED):
                f.write(entry.format("2025-12-31", areas[k % 4], tag, k))
        with open(d + f"/{side}.orig", "wb") as out:
            with open(d + f"/{side}.top", "rb") as top:
                out.write(top.read())
            with open(d + "/base", "rb") as base:
                base.read(len(preamble.encode()))
                shutil.copyfileobj(base, out, 1 << 20)
        os.remove(d + f"/{side}.top")
    shutil.copy(d + "/theirs.orig", d + "/theirs")
    return d


def check(d, n):
    """The merged `ours` holds both sides' moves once each, newest first, the base below."""
    with open(d + "/ours", "rb") as f:
        head = f.read(200_000).decode(errors="replace")
    for tag in ("ours moved", "theirs moved"):
        got = sum(head.count(f"{tag} entry {k}，") for k in range(MOVED))
        assert got == MOVED, f"{tag}: {got} of {MOVED} near the top"
    size = os.path.getsize(d + "/ours")
    want = os.path.getsize(d + "/ours.orig") + os.path.getsize(d + "/theirs") - os.path.getsize(d + "/base")
    assert size == want, f"merged size {size}, want {want}"


def spawn(args):
    """Run and reap `args`: (wall s, CPU s, peak RSS MiB, stderr when it failed, else None)."""
    t = time.perf_counter()
    p = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=volume_compare.ENV)
    err = p.stderr.read()
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = 0
    failed = os.waitstatus_to_exitcode(status) != 0
    return (time.perf_counter() - t, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024,
            err.decode(errors="replace").strip() if failed else None)


def main():
    binaries = sys.argv[1:]
    if not binaries:
        raise SystemExit(__doc__)
    for n in SCALES:
        d = versions(n)
        mib = os.path.getsize(d + "/base") / (1 << 20)
        print(f"\n{n} archived entries ({mib:.0f} MiB a version), {MOVED} moved on each side")
        figures = {b: [] for b in binaries}
        floor = []
        for _ in range(RUNS):
            floor.append(volume_compare.run(["cat", d + "/base", d + "/ours.orig", d + "/theirs"], keep=False))
            for b in binaries:
                shutil.copy(d + "/ours.orig", d + "/ours")
                args = [b, "merge-driver", d + "/base", d + "/ours", d + "/theirs", "memory/SESSIONS-archive.md"]
                wall, cpu, rss, err = spawn(args)
                if err is not None:
                    figures[b].append(None)
                    print(f"  {b}: refused: {err[:300]}")
                    continue
                figures[b].append((wall, cpu, rss))
                check(d, n)
        fw = statistics.median(r[0] for r in floor)
        print(f"  floor (cat of the three): {fw:.2f} s")
        for b, runs in figures.items():
            runs = [r for r in runs if r]
            if not runs:
                continue
            w = statistics.median(r[0] for r in runs)
            cpu = statistics.median(r[1] for r in runs)
            rss = max(r[2] for r in runs)
            print(f"  {b}: wall {w:.2f} s ({w / fw:.1f}× floor), CPU {cpu:.2f} s, peak RSS {rss:.0f} MiB")
        shutil.rmtree(d)


if __name__ == "__main__":
    main()
