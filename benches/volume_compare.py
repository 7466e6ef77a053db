"""What history costs the hot paths: the same commands at 1k and at 1M entries, per binary.

Usage: python3 benches/volume_compare.py BINARY [MORE_BINARIES]
(BENCH_VOLUME_SCALES="1000,1000000" picks the scales; BENCH_VOLUME_RUNS=30 the runs per figure.)

For each scale and binary it writes a workspace shaped as the scale generator in benches/gen
makes them (5% decisions, 200 live sessions, the rest archived; every tenth decision on a
topic of its own, every hundredth with a review date, half of those due), lets the binary's
first `status` build its store from the Markdown (timed: a fresh clone's first command), then
measures, the binaries alternating run by run:

- `hook claude session-start` (a new session id per call), against `/bin/true` in the same loop;
- `checkpoint --session-done` (CLI), and a checkpoint recording a decision on a new topic;
- `status`; `read --section 现状`; `search`;
- `memory_checkpoint` through one warm `trilogy mcp` server (the mean of a run of calls).

Each command is spawned and reaped with wait4, so its CPU time and peak RSS are its own. Every
figure is printed as a median, and the larger scale as a ratio to the smaller in the same run:
the targets are ratios (checkpoint ≤ 1.5, status ≤ 3, the hook ≤ 5× the spawn floor) and peak
RSS in MiB. No figure is asserted; this reports.
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

AREAS = ["存储", "cli", "同步", "docs"]
RUNS = int(os.environ.get("BENCH_VOLUME_RUNS", "30"))
SCALES = [int(x) for x in os.environ.get("BENCH_VOLUME_SCALES", "1000,1000000").split(",")]
ENV = dict(os.environ, TRILOGY_CONFIG="/nonexistent.toml", TRILOGY_TODAY="2026-01-15")


def day(k, count):
    """Dates newest first from 2025-12-30 back over four years, several a day at large n."""
    span = 1457
    back = k * span // max(count, 1)
    t = time.mktime((2025, 12, 30, 12, 0, 0, 0, 0, -1)) - back * 86400
    return time.strftime("%Y-%m-%d", time.localtime(t))


def workspace(n, prefix="vol", project=False, marks=True):
    """The memory files of `n` entries in a new folder (no store): with `project`, a PROJECT.md
    too; with `marks`, topics and review dates on some decisions. The other benches of this
    folder write their workspaces here."""
    d = tempfile.mkdtemp(prefix=f"{prefix}{n}-")
    os.makedirs(d + "/memory")
    decisions = n // 20
    sessions = n - decisions
    live = min(200, sessions)
    if project:
        with open(d + "/memory/PROJECT.md", "w") as f:
            f.write("# PROJECT\n\n## 现状\nA store and its files, measured at scale.\n")
    with open(d + "/memory/DECISIONS.md", "w") as f:
        f.write("# DECISIONS\n")
        for k in range(decisions):
            extra = ""
            if marks and k % 10 == 0:
                extra += f"主题：topic {k}\n"
            if marks and k % 100 == 0:
                extra += f"复核：{'2025' if (k // 100) % 2 else '2030'}-06-01\n"
            f.write(f"\n## {day(k, decisions)} — choice {k}\n选择：option {k} for the store\n"
                    f"放弃：the other option\n因为：it is measured; decision {k}\n{extra}")
    with open(d + "/memory/SESSIONS.md", "w") as f:
        f.write("# SESSIONS\n")
        for k in range(live):
            f.write(f"\n## {day(k, sessions)} · {AREAS[k % 4]}\n完成：live entry {k} about the sync engine; cargo test passes\n")
    with open(d + "/memory/SESSIONS-archive.md", "w") as f:
        f.write("# SESSIONS ARCHIVE\n")
        for k in range(live, sessions):
            f.write(f"\n## {day(k, sessions)} · {AREAS[k % 4]}\n完成：archived entry {k}，同步 engine 测试; tested\n")
    return d


def run(args, stdin=b"", env=ENV, keep=True, cwd=None):
    """Spawn, feed, reap: (wall s, cpu s, peak RSS MiB, stdout). Output not kept is never read
    into this process (a child's peak RSS counts what its parent held when it forked)."""
    t = time.perf_counter()
    out_to = subprocess.PIPE if keep else subprocess.DEVNULL
    p = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=out_to, stderr=subprocess.PIPE, env=env,
                         cwd=cwd)
    p.stdin.write(stdin)
    p.stdin.close()
    out = p.stdout.read() if keep else b""
    err = p.stderr.read()
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t
    p.returncode = 0
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{args}: exit {status}: {err.decode(errors='replace')[:2000]}")
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024, out


def hook(binary, root, sid):
    payload = json.dumps({"session_id": sid, "hook_event_name": "SessionStart", "source": "startup",
                          "cwd": root, "transcript_path": "/nonexistent"}).encode()
    e = dict(ENV, CLAUDE_PROJECT_DIR=root, XDG_STATE_HOME=root + "/.state")
    r = run([binary, "hook", "claude", "session-start"], payload, e)
    assert b"additionalContext" in r[3], r[3][:200]
    return r


class Mcp:
    """One `trilogy mcp` server on stdio (newline-delimited JSON-RPC)."""

    def __init__(self, binary, root):
        self.p = subprocess.Popen([binary, "--root", root, "mcp"], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=ENV)
        self.n = 0
        self.call("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                 "clientInfo": {"name": "volume-bench", "version": "1"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, msg):
        self.p.stdin.write((json.dumps(msg) + "\n").encode())
        self.p.stdin.flush()

    def call(self, method, params):
        self.n += 1
        self.send({"jsonrpc": "2.0", "id": self.n, "method": method, "params": params})
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise SystemExit("the mcp server closed its output")
            msg = json.loads(line)
            if msg.get("id") == self.n:
                if "error" in msg or msg.get("result", {}).get("isError"):
                    raise SystemExit(f"{method}: {line[:500]}")
                return msg

    def close(self):
        self.p.stdin.close()
        self.p.wait()


def median(v):
    return statistics.median(v) if v else float("nan")


def measure(binaries, n):
    print(f"\n== {n:,} entries ==", flush=True)
    roots, fig = {}, {b: {} for b in binaries}
    for b in binaries:
        t = time.perf_counter()
        roots[b] = workspace(n)
        gen = time.perf_counter() - t
        w, c, rss, _ = run([b, "--root", roots[b], "status"])
        fig[b]["first status"] = [(w, c, rss)]
        print(f"{os.path.basename(b)}: written in {gen:.1f} s; first status {w:.2f} s, CPU {c:.2f} s, {rss:.0f} MiB", flush=True)
    floor = []
    def each(name, fn):
        for i in range(RUNS):
            for b in binaries:
                fig[b].setdefault(name, []).append(fn(b, roots[b], i)[:3])
            if name == "session-start hook":
                floor.append(run(["/bin/true"])[0])
    each("session-start hook", lambda b, r, i: hook(b, r, f"s{i}"))
    each("checkpoint", lambda b, r, i: run([b, "--root", r, "checkpoint", "--session-done", f"bench step {i}; tested", "--area", "cli"]))
    each("checkpoint, decision on a topic", lambda b, r, i: run([b, "--root", r, "checkpoint", "--decision", f"bench choice {i}", "--topic", f"bench topic {i}"]))
    each("status", lambda b, r, i: run([b, "--root", r, "status"]))
    each("read --section", lambda b, r, i: run([b, "--root", r, "read", "--section", "现状"]))
    each("search", lambda b, r, i: run([b, "--root", r, "search", f"decision {i * 7}"]))
    for b in binaries:
        m = Mcp(b, roots[b])
        m.call("tools/call", {"name": "memory_checkpoint", "arguments": {"sessions": [{"done": "warm-up; tested", "area": "cli"}]}})
        for i in range(RUNS):
            t = time.perf_counter()
            m.call("tools/call", {"name": "memory_checkpoint", "arguments": {"sessions": [{"done": f"mcp step {i}; tested", "area": "cli"}]}})
            fig[b].setdefault("MCP memory_checkpoint (warm)", []).append((time.perf_counter() - t, 0.0, 0.0))
        m.close()
    fl = median(floor) * 1000
    print(f"spawn floor (/bin/true) {fl:.2f} ms")
    for b in binaries:
        print(f"-- {os.path.basename(b)} ({b})")
        for name, v in fig[b].items():
            w = median([x[0] for x in v]) * 1000
            c = median([x[1] for x in v]) * 1000
            rss = max(x[2] for x in v)
            extra = f" = {w / fl:.1f}x floor" if name == "session-start hook" else ""
            print(f"   {name:34} wall {w:9.2f} ms{extra}  CPU {c:8.2f} ms  peak RSS {rss:7.1f} MiB")
    for r in roots.values():
        shutil.rmtree(r)
    return fig, fl


def main():
    binaries = [os.path.abspath(b) for b in sys.argv[1:]]
    if not binaries:
        raise SystemExit(__doc__)
    results = {n: measure(binaries, n) for n in SCALES}
    if len(SCALES) < 2:
        return
    small, big = SCALES[0], SCALES[-1]
    print(f"\n== {big:,} ÷ {small:,} (medians; same run) ==")
    for b in binaries:
        print(f"-- {os.path.basename(b)}")
        for name in results[small][0][b]:
            s = median([x[0] for x in results[small][0][b][name]])
            g = median([x[0] for x in results[big][0][b][name]])
            sc = median([x[1] for x in results[small][0][b][name]])
            gc = median([x[1] for x in results[big][0][b][name]])
            cpu = f"  CPU {gc / sc:6.2f}" if sc > 0 else ""
            print(f"   {name:34} wall {g / s:6.2f}{cpu}")


if __name__ == "__main__":
    main()
