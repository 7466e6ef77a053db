"""The session-start hook with 8 sibling git work trees of 1k entries each, next to the same
hook with siblings switched off, in the same run.

Usage: python3 benches/sibling_compare.py BINARY [RUNS]

Builds a repository whose main work tree holds a 1k-entry memory (50 decisions, 200 live
sessions, 750 archived), adds 8 linked work trees, each with its own 1k-entry memory (a tenth
of it dated within the last week, so the sibling section has entries to show), then runs
`trilogy hook claude session-start` in the main work tree RUNS times (default 60) with
`TRILOGY_SIBLING_WORKTREES` unset and set to false, alternating, and `/bin/true` as the floor.
Prints the medians and their ratio (target ≤ 1.3).
"""
import json, os, shutil, statistics, subprocess, sys, tempfile, time

BIN = sys.argv[1]
RUNS = int(sys.argv[2]) if len(sys.argv) > 2 else 60
TODAY = "2026-11-29"


def memory(d, tag):
    os.makedirs(d + "/memory", exist_ok=True)
    t = "# DECISIONS\n"
    for i in range(50):
        day = f"2026-11-{28 - i % 5:02d}" if i % 10 == 0 else f"2025-{12 - i % 12:02d}-{28 - i % 28:02d}"
        t += f"\n## {day} — {tag} choice {i}\n选择：{tag} option {i} for the store\n放弃：the other option\n因为：it is measured; decision {i}\n"
    open(d + "/memory/DECISIONS.md", "w").write(t)
    s = "# SESSIONS\n"
    for i in range(200):
        day = f"2026-11-{28 - i % 5:02d}" if i % 10 == 0 else f"2026-10-{i % 28 + 1:02d}"
        s += f"\n## {day} · area{i % 3}\n完成：{tag} live entry {i} about the sync engine; cargo test passes\n"
    open(d + "/memory/SESSIONS.md", "w").write(s)
    a = "# SESSIONS ARCHIVE\n"
    for i in range(750):
        a += f"\n## 2025-{i % 12 + 1:02d}-{i % 28 + 1:02d}\n完成：{tag} archived entry {i}; tested\n"
    open(d + "/memory/SESSIONS-archive.md", "w").write(a)


def git(d, *args):
    subprocess.run(["git", "-C", d, *args], check=True, capture_output=True,
                   env=dict(os.environ, GIT_AUTHOR_NAME="b", GIT_AUTHOR_EMAIL="b@x", GIT_COMMITTER_NAME="b", GIT_COMMITTER_EMAIL="b@x"))


base = tempfile.mkdtemp(prefix="siblings-")
main = base + "/main"
os.makedirs(main)
git(main, "init", "-q", "-b", "main")
memory(main, "main")
git(main, "add", "-A")
git(main, "commit", "-qm", "memory")
for k in range(8):
    wt = f"{base}/wt{k}"
    git(main, "worktree", "add", "-q", wt, "-b", f"feat-{k}")
    memory(wt, f"wt{k}")
env = dict(os.environ, TRILOGY_CONFIG="/nonexistent.toml", TRILOGY_TODAY=TODAY, CLAUDE_PROJECT_DIR=main,
           XDG_STATE_HOME=base + "/.state")
env.pop("TRILOGY_SIBLING_WORKTREES", None)
for d in [main] + [f"{base}/wt{k}" for k in range(8)]:
    subprocess.run([BIN, "--root", d, "status"], capture_output=True, env=env, check=True)


def hook(extra, sid):
    payload = json.dumps({"session_id": sid, "hook_event_name": "SessionStart", "source": "startup",
                          "cwd": main, "transcript_path": "/nonexistent"})
    t = time.perf_counter()
    p = subprocess.run([BIN, "hook", "claude", "session-start"], input=payload.encode(), capture_output=True,
                       env=dict(env, **extra))
    dt = time.perf_counter() - t
    assert p.returncode == 0 and b"additionalContext" in p.stdout, p.stderr
    return dt, p.stdout


_, out = hook({}, "check")
assert "[feat-" in json.loads(out)["hookSpecificOutput"]["additionalContext"], "the sibling section is there"
res = {"with": [], "without": [], "floor": []}
for i in range(RUNS):
    res["with"].append(hook({}, f"w{i}")[0])
    res["without"].append(hook({"TRILOGY_SIBLING_WORKTREES": "false"}, f"n{i}")[0])
    t = time.perf_counter()
    subprocess.run(["/bin/true"], capture_output=True)
    res["floor"].append(time.perf_counter() - t)
m = {k: statistics.median(v) * 1000 for k, v in res.items()}
print(f"session-start hook, 8 siblings of 1k entries: {m['with']:.2f} ms; siblings off: {m['without']:.2f} ms; "
      f"ratio {m['with'] / m['without']:.2f} (target ≤ 1.3); spawn floor {m['floor']:.2f} ms")
shutil.rmtree(base)
