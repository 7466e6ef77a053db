"""Session-start hook, two trilogy binaries side by side, next to the spawn floor.

Usage: python3 benches/session_start_compare.py OLD_BINARY NEW_BINARY
(BENCH_SCALES="1k,100k" picks scales by label.)

Builds a workspace for each binary: 1k or 100k entries, 5% of them decisions (50 or 5,000, as
the scale generator in benches/gen makes them), 200 live sessions and the rest archived — and a
third with 1,000 live decisions of which 50 carry a review date (half of them due) — then runs `trilogy hook claude session-start` (a new session id per call, so every call
injects and pins its session) 60 times per binary, alternating, and `/bin/true` as the floor in
the same loop. Prints medians and their ratio to the floor. Then, on the same workspaces,
`trilogy read --section 现状` (a one-shot read) the same way, and the `fdatasync`/`fsync` calls
one session-start hook makes (`strace -f -c`, when strace is installed).
"""
import sys
import subprocess, time, json, os, shutil, statistics, tempfile
def ws(n_live, n_arch, n_dec=0, n_review=0):
    d = tempfile.mkdtemp(prefix="b1k-")
    os.makedirs(d + "/memory")
    if n_dec:
        t = "# DECISIONS\n"
        step = n_dec // n_review if n_review else 0
        for i in range(n_dec):
            # every step-th decision carries a review date, half of them due
            review = f"复核：{2025 if (i // step) % 2 else 2030}-06-01\n" if step and i % step == 0 else ""
            t += f"\n## 2025-{12 - i % 12:02d}-{28 - i % 28:02d} — choice {i}\n选择：option {i} for the store\n放弃：the other option\n因为：it is measured; decision {i}\n{review}"
        open(d + "/memory/DECISIONS.md", "w").write(t)
    s = "# SESSIONS\n"
    for i in range(n_live):
        s += f"\n## 2026-11-{i%28+1:02d} · area{i%3}\n完成：live entry {i} about the sync engine; cargo test passes\n"
    a = "# SESSIONS ARCHIVE\n"
    for i in range(n_arch):
        a += f"\n## 2025-{i%12+1:02d}-{i%28+1:02d}\n完成：archived entry {i}; tested\n"
    open(d + "/memory/SESSIONS.md", "w").write(s)
    open(d + "/memory/SESSIONS-archive.md", "w").write(a)
    return d
env = dict(os.environ, TRILOGY_CONFIG="/nonexistent.toml")
BIN = {"old": sys.argv[1], "new": sys.argv[2]}
def run(binary, root, sid):
    payload = json.dumps({"session_id": sid, "hook_event_name": "SessionStart", "source": "startup", "cwd": root, "transcript_path": "/nonexistent"})
    e = dict(env, CLAUDE_PROJECT_DIR=root, XDG_STATE_HOME=root + "/.state")
    t = time.perf_counter()
    p = subprocess.run([binary, "hook", "claude", "session-start"], input=payload.encode(), capture_output=True, env=e)
    dt = time.perf_counter() - t
    assert p.returncode == 0 and b"additionalContext" in p.stdout, p.stderr
    return dt
def floor():
    t = time.perf_counter(); subprocess.run(["/bin/true"], input=b"{}", capture_output=True); return time.perf_counter() - t
SCALES = [(200, 750, 50, 0, "1k"), (200, 94800, 5000, 0, "100k"), (200, 0, 1000, 50, "1000d-50review")]
if os.environ.get("BENCH_SCALES"):
    SCALES = [s for s in SCALES if s[4] in os.environ["BENCH_SCALES"].split(",")]
for n_live, n_arch, n_dec, n_review, label in SCALES:
    res = {"old": [], "new": [], "floor": []}
    roots = {}
    for b in ["old", "new"]:
        roots[b] = ws(n_live, n_arch, n_dec, n_review)
        subprocess.run([BIN[b], "--root", roots[b], "status"], capture_output=True, env=env)
    for i in range(60):
        for b in ["old", "new"]:
            res[b].append(run(BIN[b], roots[b], f"s{i}"))
        res["floor"].append(floor())
    m = {k: statistics.median(v) * 1000 for k, v in res.items()}
    print(f"{label}: session-start hook median old {m['old']:.2f} ms ({m['old']/m['floor']:.1f}x floor), new {m['new']:.2f} ms ({m['new']/m['floor']:.1f}x floor), spawn floor {m['floor']:.2f} ms")
    rd = {"old": [], "new": [], "floor": []}
    for i in range(60):
        for b in ["old", "new"]:
            t = time.perf_counter()
            p = subprocess.run([BIN[b], "--root", roots[b], "read", "--section", "现状"], capture_output=True, env=env)
            rd[b].append(time.perf_counter() - t)
            assert p.returncode == 0, p.stderr
        rd["floor"].append(floor())
    r = {k: statistics.median(v) * 1000 for k, v in rd.items()}
    print(f"{label}: read --section median old {r['old']:.2f} ms ({r['old']/r['floor']:.2f}x floor), new {r['new']:.2f} ms ({r['new']/r['floor']:.2f}x floor), spawn floor {r['floor']:.2f} ms")
    if shutil.which("strace"):
        for b in ["old", "new"]:
            payload = json.dumps({"session_id": "strace", "hook_event_name": "SessionStart", "source": "startup", "cwd": roots[b], "transcript_path": "/nonexistent"})
            e = dict(env, CLAUDE_PROJECT_DIR=roots[b], XDG_STATE_HOME=roots[b] + "/.state")
            p = subprocess.run(["strace", "-f", "-c", "-e", "trace=fsync,fdatasync", BIN[b], "hook", "claude", "session-start"], input=payload.encode(), capture_output=True, env=e)
            calls = sum(int(l.split()[3]) for l in p.stderr.decode().splitlines() if l.strip().endswith(("fsync", "fdatasync")) and len(l.split()) >= 5)
            print(f"{label}: session-start hook, {b}: {calls} fsync/fdatasync calls")
    for r in roots.values(): shutil.rmtree(r)
