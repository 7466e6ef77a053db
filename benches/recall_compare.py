#!/usr/bin/env python3
"""recall over transcripts at scale, as ratios to floors measured in the same run.

    python3 benches/recall_compare.py BINARY [MEGABYTES] [ROUNDS]

Generates MEGABYTES (default 200) of Claude Code transcripts in the recorded real shape
(tests/fixtures/recall/claude.jsonl: prompts, answers, tool calls and results, attachments),
spread over sessions of about 2 MB, in a throwaway HOME, and times through the real binary:

- the first index (`trilogy recall`, which builds it) against reading the same bytes
  (`cat` of every file to /dev/null): target ≥ 0.25× the read speed;
- a top-up after one appended turn against the spawn floor (`/bin/true`): target ≤ 20×;
- a warm recall (nothing new) against the spawn floor: target ≤ 10×.
"""

import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

WORDS = (
    "linker flag cache port race flaky test staging migration deploy retry backoff uploader "
    "index search parser token budget session branch worktree merge conflict schema store "
    "链接 参数 缓存 端口 测试 部署 重试 迁移 索引 解析 预算 会话 分支 合并 冲突"
).split()


def line(kind, cwd, session, i, rng):
    text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 40)))
    stamp = f"2026-11-{1 + i % 28:02d}T10:{i % 60:02d}:00Z"
    if kind == "user":
        return {"type": "user", "cwd": cwd, "sessionId": session, "timestamp": stamp,
                "message": {"role": "user", "content": text}}
    if kind == "assistant":
        return {"type": "assistant", "cwd": cwd, "sessionId": session, "timestamp": stamp,
                "message": {"id": f"m{i}", "content": [{"type": "text", "text": text}]}}
    if kind == "tool":
        return {"type": "assistant", "cwd": cwd, "sessionId": session, "timestamp": stamp,
                "message": {"id": f"m{i}", "content": [{"type": "tool_use", "name": "Bash",
                                                         "input": {"command": "cargo test " + text}}]}}
    if kind == "result":
        return {"type": "user", "cwd": cwd, "sessionId": session, "timestamp": stamp,
                "toolUseResult": {"stdout": text * 3},
                "message": {"content": [{"type": "tool_result", "content": text * 3}]}}
    return {"type": "attachment", "cwd": cwd, "attachment": {"content": text * 2}}


def generate(home, root, megabytes):
    rng = random.Random(7)
    slug = "".join(c if c.isascii() and c.isalnum() else "-" for c in root)
    folder = os.path.join(home, ".claude", "projects", slug)
    os.makedirs(folder)
    total, n, i = 0, 0, 0
    target = megabytes * 1024 * 1024
    while total < target:
        session = f"s{n:05d}"
        path = os.path.join(folder, session + ".jsonl")
        with open(path, "w") as f:
            size = 0
            while size < 2 * 1024 * 1024 and total + size < target:
                for kind in ("user", "attachment", "assistant", "tool", "result", "assistant"):
                    s = json.dumps(line(kind, root, session, i, rng), ensure_ascii=False) + "\n"
                    f.write(s)
                    size += len(s.encode())
                    i += 1
        total += size
        n += 1
    return folder, total


def timed(cmd, env, **kw):
    t = time.perf_counter()
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, **kw)
    return time.perf_counter() - t


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        sys.exit(2)
    binary = os.path.abspath(sys.argv[1])
    megabytes = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 15
    base = tempfile.mkdtemp(prefix="trilogy-recall-bench-")
    try:
        home = os.path.join(base, "home")
        root = os.path.join(base, "proj")
        os.makedirs(root)
        subprocess.run(["git", "init", "-q", root], check=True)
        env = {"PATH": os.environ["PATH"], "HOME": home, "XDG_CACHE_HOME": os.path.join(base, "cache"),
               "XDG_STATE_HOME": os.path.join(base, "state"), "XDG_DATA_HOME": os.path.join(base, "data"),
               "XDG_CONFIG_HOME": os.path.join(base, "config")}
        subprocess.run([binary, "--root", root, "init"], env=env, check=True, stdout=subprocess.DEVNULL)
        folder, total = generate(home, root, megabytes)
        files = sorted(os.path.join(folder, f) for f in os.listdir(folder))
        # floors: reading the bytes (cold caches are not ours to control: read once first)
        subprocess.run(["cat", *files], stdout=subprocess.DEVNULL, check=True)
        read = statistics.median(timed(["cat", *files], env) for _ in range(3))
        spawn = statistics.median(timed(["/bin/true"], env) for _ in range(rounds))
        first = timed([binary, "--root", root, "recall", "flaky", "port"], env)
        warm = [timed([binary, "--root", root, "recall", "flaky", "port"], env) for _ in range(rounds)]
        topup = []
        last = files[-1]
        for r in range(rounds):
            with open(last, "a") as f:
                f.write(json.dumps(line("user", root, "s-last", 10_000_000 + r, random.Random(r)), ensure_ascii=False) + "\n")
            topup.append(timed([binary, "--root", root, "recall", "flaky", "port"], env))
        w, t = statistics.median(warm), statistics.median(topup)
        mb = total / 1024 / 1024
        print(f"transcripts: {mb:.0f} MB in {len(files)} files")
        print(f"read floor (cat): {read * 1000:.0f} ms ({mb / read:.0f} MB/s); spawn floor: {spawn * 1000:.2f} ms")
        print(f"first index: {first * 1000:.0f} ms ({mb / first:.0f} MB/s) = {read / first:.2f}x the read speed (target >= 0.25)")
        print(f"top-up after one turn: {t * 1000:.1f} ms = {t / spawn:.1f}x spawn (target <= 20)")
        print(f"warm recall: {w * 1000:.1f} ms = {w / spawn:.1f}x spawn (target <= 10)")
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
