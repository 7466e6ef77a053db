"""The session-start hook with entries anchored to code, against the same hook without anchors.

Usage: python3 benches/anchors_hook.py BINARY

Builds two git repositories with the same shape: 1,000 source files and 1,000 live decisions,
200 live sessions, the memory committed; then 100 new commits, each rewriting 10 of the files.
In the first every decision cites its file (`src/mod_N.rs`), in the second none cites any (the
same text, the path spelled without a folder). `trilogy status` runs once in each (it works out
what moved and keeps it for the hook; its time is printed), then `trilogy hook claude
session-start` runs 60 times in each, alternating, with `/bin/true` as the floor. Prints the
medians and the ratio anchored ÷ plain (target ≤ 1.1).
"""
import json, os, statistics, subprocess, sys, tempfile, time

BIN = sys.argv[1]
env = dict(os.environ, TRILOGY_CONFIG="/nonexistent.toml", GIT_AUTHOR_NAME="b",
           GIT_AUTHOR_EMAIL="b@example.com", GIT_COMMITTER_NAME="b", GIT_COMMITTER_EMAIL="b@example.com")

def git(root, *args):
    subprocess.run(["git", "-C", root, *args], check=True, capture_output=True, env=env)

def repo(anchored):
    d = tempfile.mkdtemp(prefix="anch-")
    git(d, "init", "-q", "-b", "main")
    os.makedirs(d + "/memory"); os.makedirs(d + "/src")
    for i in range(1000):
        open(f"{d}/src/mod_{i}.rs", "w").write("".join(f"fn f{i}_{k}() {{}}\n" for k in range(40)))
    t = "# DECISIONS\n"
    for i in range(1000):
        cite = f"`src/mod_{i}.rs`" if anchored else f"mod_{i} (src)"
        t += f"\n## 2025-{12 - i % 12:02d}-{28 - i % 28:02d} — choice {i}\n选择：keep {cite} small\n放弃：one big file\n因为：it is measured; decision {i}\n"
    open(d + "/memory/DECISIONS.md", "w").write(t)
    s = "# SESSIONS\n"
    for i in range(200):
        s += f"\n## 2026-11-{i % 28 + 1:02d} · area{i % 3}\n完成：live entry {i} about the sync engine; cargo test passes\n"
    open(d + "/memory/SESSIONS.md", "w").write(s)
    subprocess.run([BIN, "--root", d, "status"], capture_output=True, env=env)
    git(d, "add", "-A"); git(d, "commit", "-q", "-m", "start")
    for c in range(100):
        for j in range(10):
            i = (c * 10 + j) % 1000
            open(f"{d}/src/mod_{i}.rs", "w").write("".join(f"fn g{i}_{k}_{c}() {{}}\n" for k in range(40)))
        git(d, "commit", "-q", "-am", f"rewrite batch {c}")
    return d

def hook(root, sid):
    payload = json.dumps({"session_id": sid, "hook_event_name": "SessionStart", "source": "startup",
                          "cwd": root, "transcript_path": "/nonexistent"})
    e = dict(env, CLAUDE_PROJECT_DIR=root, XDG_STATE_HOME=root + "/.state")
    t = time.perf_counter()
    p = subprocess.run([BIN, "hook", "claude", "session-start"], input=payload.encode(), capture_output=True, env=e)
    dt = time.perf_counter() - t
    assert p.returncode == 0 and b"additionalContext" in p.stdout, p.stderr
    return dt, p.stdout

roots = {"anchored": repo(True), "plain": repo(False)}
for name, root in roots.items():
    t = time.perf_counter()
    out = subprocess.run([BIN, "--root", root, "status", "--json"], capture_output=True, env=env)
    first = time.perf_counter() - t
    due = [d for d in json.loads(out.stdout)["due"] if d.get("moved")]
    t = time.perf_counter()
    subprocess.run([BIN, "--root", root, "status"], capture_output=True, env=env)
    again = time.perf_counter() - t
    print(f"{name}: status after 100 commits {first * 1000:.0f} ms (works out what moved), "
          f"again {again * 1000:.0f} ms; {len(due)} decisions due for moved code")
res = {"anchored": [], "plain": [], "floor": []}
shown = {}
for i in range(60):
    for name, root in roots.items():
        dt, out = hook(root, f"s{i}")
        res[name].append(dt)
        shown[name] = out
    t = time.perf_counter(); subprocess.run(["/bin/true"], capture_output=True); res["floor"].append(time.perf_counter() - t)
med = {k: statistics.median(v) * 1000 for k, v in res.items()}
print(f"hook: anchored {med['anchored']:.2f} ms, plain {med['plain']:.2f} ms, floor {med['floor']:.2f} ms; "
      f"anchored / plain = {med['anchored'] / med['plain']:.3f} (target <= 1.1)")
print("the anchored block names moved code:", "改了" in json.loads(shown["anchored"])["hookSpecificOutput"]["additionalContext"])
