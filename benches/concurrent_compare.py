"""Concurrent CLI writers, two trilogy binaries side by side, next to floors measured in the same run.

Usage: python3 benches/concurrent_compare.py OLD_BINARY NEW_BINARY [K]

For each binary, on its own fresh 1k workspace (200 live sessions, 800 archived, as
session_start_compare.py builds them): one writer runs K (default 50) `trilogy checkpoint
--session-done "<unique> tested"` one after another (W=1), then 8 writers run K each at once
(W=8, threads that spawn and wait for their processes, started together). Every acknowledged
text must then appear exactly once in SESSIONS.md + SESSIONS-archive.md. Floors, in the same
run: spawning /bin/true, and 4 KiB written to a temp file, fsynced and renamed in the workspace
directory. Prints, per binary: CLI checkpoint at 1k (W=1 p50) ÷ the write+fsync+rename floor
(target ≤ 3), W=8 aggregate throughput ÷ W=1 throughput (target ≥ 2), W=8 p99 ÷ W=1 p50
(target ≤ 10). Then, for each binary, W=1 again with an MCP server of the workspace running
(`trilogy mcp`, past its handshake and one call): a binary that drains the queue from its
server applies the CLI's batches with its open store, so the CLI neither opens nor closes it.
"""
import json, os, shutil, statistics, subprocess, sys, tempfile, threading, time

K = int(sys.argv[3]) if len(sys.argv) > 3 else 50
BIN = {"old": sys.argv[1], "new": sys.argv[2]}
env = dict(os.environ, TRILOGY_CONFIG="/nonexistent.toml", TRILOGY_LOCK_TIMEOUT_MS="60000")


def ws():
    d = tempfile.mkdtemp(prefix="bconc-", dir=os.environ.get("BENCH_DIR"))
    os.makedirs(d + "/memory")
    s = "# SESSIONS\n"
    for i in range(200):
        s += f"\n## 2026-11-{i%28+1:02d} · area{i%3}\n完成：live entry {i} about the sync engine; cargo test passes\n"
    a = "# SESSIONS ARCHIVE\n"
    for i in range(800):
        a += f"\n## 2025-{i%12+1:02d}-{i%28+1:02d}\n完成：archived entry {i}; tested\n"
    open(d + "/memory/SESSIONS.md", "w").write(s)
    open(d + "/memory/SESSIONS-archive.md", "w").write(a)
    return d


def pct(v, p):
    v = sorted(v)
    return v[max(1, min(len(v), -(-len(v) * p // 100))) - 1]


def fsync_floor(d, n=100):
    out = []
    data = os.urandom(4096)
    for i in range(n):
        t = time.perf_counter()
        tmp = os.path.join(d, f".floor-{i}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.write(fd, data)
        os.fsync(fd)
        os.close(fd)
        os.rename(tmp, os.path.join(d, "floor.bin"))
        out.append(time.perf_counter() - t)
    os.unlink(os.path.join(d, "floor.bin"))
    return out


def spawn_floor(n=100):
    out = []
    for _ in range(n):
        t = time.perf_counter()
        subprocess.run(["/bin/true"], capture_output=True)
        out.append(time.perf_counter() - t)
    return out


def writer(binary, root, tag, k, lat, acked, failed):
    for i in range(k):
        text = f"{tag} checkpoint {i} written by a concurrent writer, tested"
        t = time.perf_counter()
        p = subprocess.run([binary, "--root", root, "checkpoint", "--session-done", text], capture_output=True, env=env)
        lat.append(time.perf_counter() - t)
        (acked if p.returncode == 0 else failed).append(text if p.returncode == 0 else p.stderr.decode()[:200])


def run(binary, root, w, k, tag):
    lats, acked, failed = [], [], []
    threads = [threading.Thread(target=writer, args=(binary, root, f"{tag}-w{j}", k, lats, acked, failed)) for j in range(w)]
    t = time.perf_counter()
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    return time.perf_counter() - t, lats, acked, failed


def verify(root, acked):
    text = open(root + "/memory/SESSIONS.md").read()
    if os.path.exists(root + "/memory/SESSIONS-archive.md"):
        text += open(root + "/memory/SESSIONS-archive.md").read()
    bad = [a for a in acked if text.count(a) != 1]
    return f"{len(acked)} acknowledged, {len(bad)} not present exactly once"


def with_server(binary, root, k):
    """W=1 while an MCP server of the workspace runs; the server is stopped after."""
    srv = subprocess.Popen([binary, "--root", root, "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    def send(m):
        srv.stdin.write((json.dumps(m) + "\n").encode())
        srv.stdin.flush()
    send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}})
    srv.stdout.readline()
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "memory_status", "arguments": {}}})
    srv.stdout.readline()
    try:
        return run(binary, root, 1, k, "served")
    finally:
        srv.stdin.close()
        srv.wait()


ms = lambda s: f"{s*1000:.2f} ms"
for name in ["old", "new"]:
    root = ws()
    subprocess.run([BIN[name], "--root", root, "status"], capture_output=True, env=env)
    floor_f = statistics.median(fsync_floor(root))
    floor_s = statistics.median(spawn_floor())
    wall1, lat1, ack1, f1 = run(BIN[name], root, 1, K, "one")
    wall8, lat8, ack8, f8 = run(BIN[name], root, 8, K, "eight")
    p50_1 = statistics.median(lat1)
    rate1, rate8 = len(ack1) / wall1, len(ack8) / wall8
    print(f"[{name}] floors: write+fsync+rename {ms(floor_f)}, spawn /bin/true {ms(floor_s)}")
    print(f"[{name}] W=1: {len(ack1)}/{K} in {wall1:.2f} s = {rate1:.1f}/s; p50 {ms(p50_1)}, p99 {ms(pct(lat1, 99))}")
    print(f"[{name}] W=8: {len(ack8)}/{8*K} in {wall8:.2f} s = {rate8:.1f}/s; p50 {ms(statistics.median(lat8))}, p95 {ms(pct(lat8, 95))}, p99 {ms(pct(lat8, 99))}, max {ms(max(lat8))}; failures {len(f8)} {f8[:1]}")
    print(f"[{name}] verify: {verify(root, ack1 + ack8)}")
    print(f"[{name}] CLI checkpoint at 1k ÷ write+fsync+rename floor: {p50_1/floor_f:.2f} (target ≤ 3)")
    print(f"[{name}] 8 writers: aggregate ÷ one writer's sequential throughput: {rate8/rate1:.2f} (target ≥ 2); p99 ÷ one uncontended checkpoint: {pct(lat8, 99)/p50_1:.2f} (target ≤ 10)")
    walls, lats, acks, fs = with_server(BIN[name], root, K)
    print(f"[{name}] W=1 with an MCP server running: {len(acks)}/{K}; p50 {ms(statistics.median(lats))} = {statistics.median(lats)/floor_f:.2f} × the write+fsync+rename floor; {verify(root, acks)}")
    shutil.rmtree(root)
