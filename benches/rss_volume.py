"""Peak memory of every command and server at a million entries, against its target.

Usage: python3 benches/rss_volume.py BINARY
(BENCH_RSS_ENTRIES=1000000 picks the entries.)

It writes the shared workspace (benches/volume_compare.py: 5% decisions, 200 live sessions,
the rest archived), lets a first `status` build the store and a first `search` the index,
then runs each command once, spawned and reaped with wait4 for its peak RSS (and wall time):
the session-start hook, a checkpoint, a read of one section, a search, `status`, `inject`,
`reindex`, `export` and an `import` of that bundle into a new folder; then the two servers,
each reaped when it stops: `trilogy mcp` after memory_status, memory_read of DECISIONS.md and
the archive (each a page, with its cursor), memory_search and memory_checkpoint; `trilogy
serve` after the panel's files (without the archive's text, as the page asks, and with it)
and status. Targets (the high-volume issue): ≤ 64 MiB for the hooks, checkpoint, read of a
section, search, status and inject; ≤ 256 MiB for the first commands, reindex, export/import
and the servers. Each figure is printed with its target; none is asserted.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import volume_compare  # noqa: E402  (the workspace writer and spawn helpers the benches share)

ENTRIES = int(os.environ.get("BENCH_RSS_ENTRIES", "1000000"))
SMALL, LARGE = 64, 256


def report(label, wall, rss, target):
    met = "met" if rss <= target else "NOT met"
    print(f"  {label:<44} wall {wall:7.2f} s  peak RSS {rss:6.0f} MiB  (≤ {target} MiB: {met})")


def command(binary, root, label, args, target, stdin=b""):
    wall, _, rss, out = volume_compare.run([binary, "--root", root, *args], stdin)
    report(label, wall, rss, target)
    return out


def reap(p, t):
    """Wait for `p` to stop: (wall since `t`, peak RSS MiB)."""
    _, _, ru = os.wait4(p.pid, 0)
    p.returncode = 0
    return time.perf_counter() - t, ru.ru_maxrss / 1024


def mcp(binary, root):
    t = time.perf_counter()
    m = volume_compare.Mcp(binary, root)
    tool = lambda name, args: m.call("tools/call", {"name": name, "arguments": args})  # noqa: E731
    tool("memory_status", {})
    sizes = []
    for f in ("DECISIONS.md", "SESSIONS-archive.md"):
        r = tool("memory_read", {"file": f})
        sizes.append(len(json.dumps(r)))
    tool("memory_search", {"query": "sync engine"})
    tool("memory_checkpoint", {"sessions": [{"done": "rss bench via mcp; tested"}]})
    m.p.stdin.close()
    m.p.stdout.close()
    wall, rss = reap(m.p, t)
    report(f"mcp (replies of memory_read: {max(sizes) // 1024} KiB at most)", wall, rss, LARGE)


def serve(binary, root):
    state = tempfile.mkdtemp(prefix="rss-serve-")
    env = dict(volume_compare.ENV, XDG_STATE_HOME=state, HOME=state)
    t = time.perf_counter()
    p = subprocess.Popen([binary, "serve", "--port", "0", "--json"], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, env=env, cwd=root)
    started = json.loads(p.stdout.readline())
    url, token = started["url"], started["token"]
    base = url.split("/trilogy/")[0]
    got = []
    q = urllib.request.quote(root, safe="")
    for path in (f"/trilogy/files?root={q}&archive=0", f"/trilogy/files?root={q}",
                 f"/trilogy/status?root={q}"):
        req = urllib.request.Request(base + path, headers={"x-trilogy-token": token})
        with urllib.request.urlopen(req, timeout=600) as r:
            got.append(len(r.read()))
    p.terminate()
    p.stdout.close()
    wall, rss = reap(p, t)
    report(f"serve (files: {got[0] // 1024} KiB, with the archive {got[1] >> 20} MiB)", wall, rss, LARGE)
    shutil.rmtree(state, ignore_errors=True)


def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    binary = os.path.abspath(sys.argv[1])
    root = volume_compare.workspace(ENTRIES, prefix="rss", project=True)
    print(f"{ENTRIES} entries")
    command(binary, root, "first status (builds the store)", ["status"], LARGE)
    command(binary, root, "first search (builds the index)", ["search", "sync engine"], LARGE)
    payload = json.dumps({"session_id": "rss-1", "hook_event_name": "SessionStart", "source": "startup",
                          "cwd": root, "transcript_path": "/nonexistent"}).encode()
    env = dict(volume_compare.ENV, CLAUDE_PROJECT_DIR=root, XDG_STATE_HOME=root + "/.state")
    wall, _, rss, _ = volume_compare.run([binary, "hook", "claude", "session-start"], payload, env)
    report("hook claude session-start", wall, rss, SMALL)
    command(binary, root, "checkpoint (a session)", ["checkpoint", "--session-done", "rss bench; tested"], SMALL)
    command(binary, root, "read --section 现状", ["read", "--section", "现状"], SMALL)
    command(binary, root, "search", ["search", "archived entry 4242"], SMALL)
    command(binary, root, "status", ["status"], SMALL)
    command(binary, root, "inject", ["inject"], SMALL)
    command(binary, root, "reindex", ["reindex"], LARGE)
    bundle = os.path.join(tempfile.mkdtemp(prefix="rss-bundle-"), "memory.json")
    command(binary, root, "export", ["export", "--out", bundle], LARGE)
    other = tempfile.mkdtemp(prefix="rss-import-")
    command(binary, other, f"import ({os.path.getsize(bundle) >> 20} MiB bundle, new folder)",
            ["import", bundle], LARGE)
    mcp(binary, root)
    serve(binary, root)
    for d in (root, other, os.path.dirname(bundle)):
        shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    main()
