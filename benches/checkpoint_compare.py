"""A CLI checkpoint in a git work tree, two trilogy binaries side by side, on CPU time.

Usage: python3 benches/checkpoint_compare.py OLD NEW [ROUNDS]
       python3 benches/checkpoint_compare.py --build REV [ROUNDS]

OLD and NEW are trilogy binaries. With --build, REV (e.g. HEAD~1) is checked out into a
temporary work tree and built with `cargo build --release`, and so is the work tree this
script is in; both binaries are then compared.

Each binary gets its own workspace in its own git repository, the same 200 sessions committed,
no git command running. Checkpoints alternate between the binaries, ROUNDS (default 300) each;
each is timed by the CPU time (user + system) its process used, read from the kernel's
accounting of the finished child, so the machine's other work does not count. Prints the
median and p90 per binary and the ratio of the medians (NEW / OLD).
"""
import os, shutil, statistics, subprocess, sys, tempfile


def build(rev):
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    tmp = tempfile.mkdtemp(prefix="checkpoint-compare-")
    subprocess.run(["git", "-C", here, "worktree", "add", "--detach", tmp + "/old", rev], check=True)
    binaries = []
    for tree in (tmp + "/old", here):
        subprocess.run(["cargo", "build", "--release", "--locked", "--quiet"], cwd=tree, check=True)
        binaries.append(os.path.join(tree, "target/release/trilogy"))
    return binaries


def env_for(d):
    env = dict(os.environ)
    env.update({
        "XDG_STATE_HOME": d + "/state", "XDG_DATA_HOME": d + "/data", "HOME": d + "-home",
        "TRILOGY_CONFIG": d + "/no-config.toml", "TRILOGY_CEILING_DIRECTORIES": os.path.dirname(d),
        "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@b", "GIT_COMMITTER_NAME": "b",
        "GIT_COMMITTER_EMAIL": "b@b",
    })
    return env


def workspace(binary):
    d = tempfile.mkdtemp(prefix="checkpoint-ws-")
    env = env_for(d)
    def run(*a):
        r = subprocess.run(a, cwd=d, env=env, capture_output=True)
        assert r.returncode == 0, f"{a}: {r.stderr.decode()}"
    run("git", "init", "-q")
    run(binary, "init")
    batch = {"sessions": [{"done": f"warm-up session {i}; tested", "area": f"a{i % 7}"}
                          for i in range(200)]}
    subprocess.run([binary, "checkpoint"], cwd=d, env=env, check=True,
                   input=__import__("json").dumps(batch).encode(), stdout=subprocess.DEVNULL)
    run("git", "add", "-A")
    run("git", "commit", "-qm", "memory")
    return d, env


def cpu_of(binary, d, env, n):
    p = subprocess.Popen([binary, "checkpoint", "--session-done", f"round {n}; tested"],
                         cwd=d, env=env, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(p.pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, f"{binary} failed"
    return usage.ru_utime + usage.ru_stime


def main():
    args = sys.argv[1:]
    if args[:1] == ["--build"]:
        old, new = build(args[1])
        rest = args[2:]
    else:
        old, new = args[0], args[1]
        rest = args[2:]
    rounds = int(rest[0]) if rest else 300
    spaces = {b: workspace(b) for b in (old, new)}
    times = {old: [], new: []}
    for n in range(rounds):
        for b in ((old, new) if n % 2 == 0 else (new, old)):
            d, env = spaces[b]
            times[b].append(cpu_of(b, d, env, n))
    for b, name in ((old, "old"), (new, "new")):
        t = sorted(times[b])
        print(f"{name}: median {statistics.median(t) * 1000:.2f} ms CPU, "
              f"p90 {t[int(len(t) * 0.9)] * 1000:.2f} ms ({b})")
    ratio = statistics.median(times[new]) / statistics.median(times[old])
    print(f"new / old (median CPU per checkpoint): {ratio:.3f}")
    for d, _ in spaces.values():
        shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    main()
