"""What absorbing a change to a large memory costs: hand edits and pulled batch moves at 1k and 1M.

Usage: python3 benches/absorb_volume.py BINARY [MORE_BINARIES]
(BENCH_ABSORB_SCALES="1000,1000000" picks the scales; BENCH_ABSORB_RUNS=3 the runs per figure.)

For each scale and binary it writes a workspace shaped as the scale generator in benches/gen
makes them (5% decisions, 200 live sessions, the rest archived in memory/SESSIONS-archive.md),
lets a first `status` build the store, then times, each command spawned and reaped with wait4
(so its CPU time and peak RSS are its own):

- `hand-appended archive entry`: one entry added by hand on top of the archive, then `status`;
- `pulled batch move`: another clone's batch move arriving as git would write it — the oldest
  301 sessions of SESSIONS.md moved to the top of the archive, both files rewritten as that
  clone rendered them (the pointer line recounted) — then `status`;
- `batch move, unedited archive`: `checkpoint --session-done` runs until trilogy moves a batch
  itself (sessions_max_entries = 200, batch 20: one move in 21 checkpoints; the move is timed);
- `batch move after an unusual edit`: the same after one unusual hand edit of the archive
  (three blank lines and trailing spaces around its first entry), absorbed first;
- `decision checkpoint`: `checkpoint --decision` recording one decision.

Every figure is a median, and the larger scale is printed as a ratio to the smaller in the
same run, beside the issue's targets (≤ 1 s for the appended entry, ≤ 2 s for a pulled move,
the edited archive's move ≤ 2× the unedited one's). No figure is asserted; this reports.
"""
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import volume_compare  # noqa: E402  (the workspace writer the benches share)

RUNS = int(os.environ.get("BENCH_ABSORB_RUNS", "3"))
SCALES = [int(x) for x in os.environ.get("BENCH_ABSORB_SCALES", "1000,1000000").split(",")]
ENV = dict(os.environ, TRILOGY_CONFIG="/nonexistent.toml", TRILOGY_TODAY="2026-01-15")
CAP, BATCH = 200, 20
POINTER = re.compile(r"^> 更早的会话条目已归档到 (\d+) ")


def workspace(n):
    d = volume_compare.workspace(n, prefix="absorb", marks=False)
    with open(d + "/trilogy.toml", "w") as f:
        f.write(f"sessions_max_entries = {CAP}\nsessions_archive_batch = {BATCH}\n")
    return d


def reaped(args, env=ENV):
    """Spawn and reap with wait4 (CPU and peak RSS of this command alone)."""
    t = time.perf_counter()
    p = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    err = p.stderr.read()
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - t
    if p.returncode:
        raise SystemExit(f"{args}: exit {p.returncode}: {err.decode(errors='replace')[:2000]}")
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def write(path, text):
    """Write as another program would (a new file renamed over the old one, as git does)."""
    tmp = path + ".bench-tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def blocks(text):
    """(head, [blocks], tail): a file cut at its `## ` headings; the tail is SESSIONS.md's pointer."""
    lines = text.split("\n")
    tail = ""
    for i in range(len(lines) - 1, -1, -1):
        if POINTER.match(lines[i]):
            tail = "\n".join(lines[i:])
            lines = lines[:i]
            break
    body = "\n".join(lines)
    parts = re.split(r"(?m)^(?=## )", body)
    return parts[0], [p.rstrip("\n") for p in parts[1:]], tail


def append_by_hand(root, i):
    """One entry written by hand on top of the archive, dated as its newest entry."""
    path = root + "/memory/SESSIONS-archive.md"
    head, rest = read(path).split("\n## ", 1)
    newest = rest[:10]
    write(path, f"{head}\n## {newest} · docs\n完成：written by hand {i}; tested\n\n## {rest}")


def in_child(edit, root, i):
    """Make a file edit in a child Python: this process never holds the large files, since a
    command's peak RSS counts what its parent held when it was spawned."""
    subprocess.run([sys.executable, os.path.abspath(__file__), "--edit", edit, root, str(i)], check=True)


def pull_batch_move(root, i, moved=301):
    """Another clone recorded `moved` sessions today and moved its oldest `moved` live ones to the top
    of the archive: both files as that clone rendered them, written as git's pull would."""
    live_path, arch_path = root + "/memory/SESSIONS.md", root + "/memory/SESSIONS-archive.md"
    head, live, tail = blocks(read(live_path))
    new = [f"## {ENV['TRILOGY_TODAY']} · {volume_compare.AREAS[k % 4]}\n完成：pulled {i}.{k} from a teammate; tested"
           for k in range(moved)]
    live = new + live
    keep, move = live[: len(live) - moved], live[len(live) - moved:]
    ahead, archived, _ = blocks(read(arch_path))
    count = len(archived) + len(move)
    tail = POINTER.sub(lambda m: m.group(0).replace(m.group(1), str(count)), tail) if tail else ""
    write(live_path, head + "\n\n".join(keep) + ("\n\n" + tail if tail else "\n"))
    write(arch_path, ahead + "\n\n".join(move + archived) + "\n")


def checkpoints_until_move(b, root, i):
    """Checkpoint until trilogy moves a batch; the checkpoint that moved it is timed."""
    arch = root + "/memory/SESSIONS-archive.md"
    for k in range(CAP + BATCH + 2):
        before = os.stat(arch).st_ino
        r = reaped([b, "--root", root, "checkpoint", "--session-done", f"move {i}.{k}; tested", "--area", "cli"])
        if os.stat(arch).st_ino != before:
            return r
    raise SystemExit("no batch move happened")


def unusual_edit(root, _i=0):
    path = root + "/memory/SESSIONS-archive.md"
    text = read(path)
    head, rest = text.split("\n## ", 1)
    first, more = rest.split("\n\n## ", 1)
    write(path, f"{head}\n\n\n## {first}   \n\n\n\n## {more}")



def measure(binaries, n):
    print(f"\n== {n:,} entries ==", flush=True)
    fig = {b: {} for b in binaries}
    for b in binaries:
        root = workspace(n)
        w, c, rss = reaped([b, "--root", root, "status"])
        print(f"{os.path.basename(b)}: first status {w:.2f} s, CPU {c:.2f} s, {rss:.0f} MiB", flush=True)

        def each(name, prepare, timed):
            for i in range(RUNS):
                prepare(i)
                fig[b].setdefault(name, []).append(timed(i))
                v = fig[b][name][-1]
                print(f"   {name:34} run {i}: wall {v[0]:7.3f} s  CPU {v[1]:7.3f} s  {v[2]:7.1f} MiB", flush=True)

        status = lambda i: reaped([b, "--root", root, "status"])
        each("hand-appended archive entry", lambda i: in_child("append_by_hand", root, i), status)
        each("pulled batch move", lambda i: in_child("pull_batch_move", root, i), status)
        each("batch move, unedited archive", lambda i: None, lambda i: checkpoints_until_move(b, root, i))
        in_child("unusual_edit", root, 0)
        reaped([b, "--root", root, "status"])
        each("batch move after an unusual edit", lambda i: None, lambda i: checkpoints_until_move(b, root, 100 + i))
        each("decision checkpoint", lambda i: None,
             lambda i: reaped([b, "--root", root, "checkpoint", "--decision", f"bench choice {i}"]))
        shutil.rmtree(root)
    return fig


def median(v):
    return statistics.median(v) if v else float("nan")


def main():
    if sys.argv[1:2] == ["--edit"]:
        edit, root, i = sys.argv[2:5]
        {"append_by_hand": append_by_hand, "pull_batch_move": pull_batch_move,
         "unusual_edit": unusual_edit}[edit](root, int(i))
        return
    binaries = [os.path.abspath(b) for b in sys.argv[1:]]
    if not binaries:
        raise SystemExit(__doc__)
    results = {n: measure(binaries, n) for n in SCALES}
    small, big = SCALES[0], SCALES[-1]
    print(f"\n== medians; {big:,} ÷ {small:,} in the same run ==")
    for b in binaries:
        print(f"-- {os.path.basename(b)} ({b})")
        r = results[big][b]
        for name in r:
            s = median([x[0] for x in results[small][b][name]])
            g = median([x[0] for x in r[name]])
            rss = max(x[2] for x in r[name])
            print(f"   {name:34} {g:8.3f} s  ×{g / s:8.1f} of {small:,}  peak {rss:7.1f} MiB")
        unedited = median([x[0] for x in r["batch move, unedited archive"]])
        edited = median([x[0] for x in r["batch move after an unusual edit"]])
        appended = median([x[0] for x in r["hand-appended archive entry"]])
        pulled = median([x[0] for x in r["pulled batch move"]])
        print(f"   targets at {big:,}: appended entry ≤ 1 s: {'met' if appended <= 1 else 'NOT met'} ({appended:.2f} s); "
              f"pulled move ≤ 2 s: {'met' if pulled <= 2 else 'NOT met'} ({pulled:.2f} s); "
              f"edited ÷ unedited move ≤ 2: {'met' if edited <= 2 * unedited else 'NOT met'} ({edited / unedited:.2f})")


if __name__ == "__main__":
    main()
