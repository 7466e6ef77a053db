#!/usr/bin/env python3
"""The smoke suite of a trilogy binary built for another system, run through a runner (Wine for
a Windows build): every surface a user meets once — demo, init, concurrent checkpoints, read,
search in Chinese and English, inject, a host's session-start hook, an MCP round trip, the
panel's server, doctor, export and import, the merge driver. The same steps run a native binary with an empty runner.

    smoke.py --exe target/x86_64-win7-windows-gnu/debug/trilogy.exe --runner /usr/lib/wine/wine64

Each step prints its wall time; the first failure stops the run with what the binary printed.
Only Python's standard library is used; every folder is a new temporary one (the Wine prefix
too, unless WINEPREFIX is set)."""

import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time

WRITERS = 4
EACH = 3


class Smoke:
    def __init__(self, exe, runner, windows):
        self.exe = os.path.abspath(exe)
        self.runner = shlex.split(runner)
        self.windows = windows
        self.tmp = tempfile.mkdtemp(prefix="trilogy-smoke-")
        self.env = dict(os.environ, NO_COLOR="1", TRILOGY_LOG="warn")
        if not windows:
            self.env["HOME"] = self.path("home")
            os.makedirs(self.env["HOME"])

    def path(self, *parts):
        return os.path.join(self.tmp, *parts)

    def arg(self, path):
        """A path as the binary under test spells it (Wine maps / to drive Z:)."""
        return "Z:" + path.replace("/", "\\") if self.windows else path

    def argv(self, args):
        return self.runner + [self.exe] + list(args)

    def run(self, args, cwd, stdin=None, ok=True):
        p = subprocess.run(self.argv(args), cwd=cwd, input=stdin, capture_output=True,
                           env=self.env, timeout=300)
        if ok and p.returncode != 0:
            fail(f"trilogy {' '.join(args)} exited {p.returncode}", p)
        return p

    def workspace(self, name):
        d = self.path(name)
        os.makedirs(d)
        self.run(["init", "--json"], d)
        return d


def fail(what, p=None):
    print(f"FAIL: {what}", file=sys.stderr)
    if p is not None:
        print("--- stdout\n" + p.stdout.decode("utf-8", "replace")[-4000:], file=sys.stderr)
        print("--- stderr\n" + p.stderr.decode("utf-8", "replace")[-4000:], file=sys.stderr)
    sys.exit(1)


def expect(cond, what, p=None):
    if not cond:
        fail(what, p)


def text(p):
    return p.stdout.decode("utf-8", "replace")


def step_demo(s):
    p = s.run(["demo"], s.tmp)
    expect("PROJECT" in text(p) or "SESSIONS" in text(p), "demo printed no memory", p)


def step_concurrent_checkpoints(s, ws):
    """WRITERS processes at once, EACH checkpoints apiece: every one is in SESSIONS.md."""
    procs = []
    for w in range(WRITERS):
        cmds = [
            s.argv(["checkpoint", "--session-done", f"writer {w} step {i} done", "--area", "smoke"])
            for i in range(EACH)
        ]
        procs.append(subprocess.Popen(
            ["sh", "-c", " && ".join(" ".join(shlex.quote(a) for a in c) for c in cmds)],
            cwd=ws, env=s.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE))
    for p in procs:
        out, err = p.communicate(timeout=600)
        if p.returncode != 0:
            fail(f"a concurrent writer exited {p.returncode}",
                 subprocess.CompletedProcess(p.args, p.returncode, out, err))
    sessions = text(s.run(["read", "SESSIONS.md"], ws))
    lost = [f"writer {w} step {i} done" for w in range(WRITERS) for i in range(EACH)
            if f"writer {w} step {i} done" not in sessions]
    expect(not lost, f"{len(lost)} of {WRITERS * EACH} checkpoints lost: {lost}")


def step_read_and_search(s, ws):
    s.run(["checkpoint", "--decision", "用 redb 存储记忆", "--over", "SQLite 文件",
           "--because", "单个文件, 事务安全", "--topic", "存储"], ws)
    s.run(["checkpoint", "--decision", "Parse memory files with comrak", "--over", "regexes",
           "--because", "CommonMark edge cases", "--topic", "parser"], ws)
    decisions = text(s.run(["read", "DECISIONS.md"], ws))
    expect("用 redb 存储记忆" in decisions, "read DECISIONS.md lacks the Chinese decision")
    zh = text(s.run(["search", "存储", "--json"], ws))
    expect("用 redb 存储记忆" in zh, "a Chinese search found nothing: " + zh[:500])
    en = text(s.run(["search", "comrak", "--json"], ws))
    expect("comrak" in en, "an English search found nothing: " + en[:500])


def step_inject_and_hook(s, ws):
    block = text(s.run(["inject"], ws))
    expect("writer 0 step 0 done" in block or "redb" in block, "inject printed no memory: "
           + block[:500])
    payload = {
        "session_id": "smoke-session-1",
        "transcript_path": s.arg(s.path("transcript.jsonl")),
        "cwd": s.arg(ws),
        "hook_event_name": "SessionStart",
        "source": "startup",
    }
    p = s.run(["hook", "claude", "session-start"], ws, stdin=json.dumps(payload).encode())
    out = json.loads(text(p))
    ctx = out.get("hookSpecificOutput", {}).get("additionalContext", "")
    expect("redb" in ctx, "the session-start hook gave no memory: " + text(p)[:500], p)


def rpc(proc, msg):
    proc.stdin.write((json.dumps(msg) + "\n").encode())
    proc.stdin.flush()
    if "id" not in msg:
        return None
    while True:
        line = proc.stdout.readline()
        if not line:
            fail("the MCP server closed its output; stderr: "
                 + proc.stderr.read().decode("utf-8", "replace")[-2000:])
        got = json.loads(line)
        if got.get("id") == msg["id"]:
            if "error" in got:
                fail(f"MCP {msg['method']} answered an error: {got['error']}")
            return got["result"]


def step_mcp(s, ws):
    proc = subprocess.Popen(s.argv(["mcp"]), cwd=ws, env=s.env, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        init = rpc(proc, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "smoke", "version": "1"}}})
        expect(init.get("serverInfo", {}).get("name"), f"initialize named no server: {init}")
        rpc(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        tools = [t["name"] for t in rpc(proc, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"})["tools"]]
        expect({"memory_checkpoint", "memory_read"} <= set(tools), f"tools/list: {tools}")
        batch = {"sessions": [{"done": "recorded through MCP on this system", "area": "smoke"}]}
        done = rpc(proc, {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
            "name": "memory_checkpoint", "arguments": batch}})
        expect(not done.get("isError"), f"memory_checkpoint failed: {done}")
        read = rpc(proc, {"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {
            "name": "memory_read", "arguments": {"file": "SESSIONS.md"}}})
        expect("recorded through MCP on this system" in json.dumps(read, ensure_ascii=False),
               f"memory_read lacks the entry: {str(read)[:500]}")
        found = rpc(proc, {"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {
            "name": "memory_search", "arguments": {"query": "redb"}}})
        expect("redb" in json.dumps(found, ensure_ascii=False), f"memory_search: {found}"[:500])
        # the server has the index open: a reindex beside it still puts a whole index in place
        s.run(["reindex"], ws)
        after = text(s.run(["search", "存储", "--json"], ws))
        expect("用 redb 存储记忆" in after, "a search after the reindex found nothing: " + after[:500])
    finally:
        proc.stdin.close()
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
    sessions = text(s.run(["read", "SESSIONS.md"], ws))
    expect("recorded through MCP on this system" in sessions, "the CLI does not see the MCP entry")


def step_serve(s, ws):
    """The panel's server on 127.0.0.1: it announces its port and token, and answers the files."""
    import urllib.parse
    import urllib.request
    proc = subprocess.Popen(s.argv(["serve", "--port", "0", "--json"]), cwd=ws, env=s.env,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    try:
        line = proc.stdout.readline()
        if not line:
            fail("serve printed nothing; stderr: "
                 + proc.stderr.read().decode("utf-8", "replace")[-2000:])
        told = json.loads(line)
        url = (f"http://127.0.0.1:{told['port']}/trilogy/files?"
               + urllib.parse.urlencode({"root": s.arg(ws)}))
        req = urllib.request.Request(url, headers={"X-Trilogy-Token": told["token"]})
        with urllib.request.urlopen(req, timeout=60) as r:
            files = json.loads(r.read().decode("utf-8"))
        decisions = files.get("files", {}).get("DECISIONS.md", {}).get("text", "")
        expect("用 redb 存储记忆" in decisions, f"the panel's files lack the decision: {files}"[:800])
    finally:
        proc.kill()
        proc.wait(timeout=60)


def step_doctor(s, ws):
    p = s.run(["doctor", "--json"], ws)
    report = json.loads(text(p))
    bad = [f for f in report.get("findings", []) if f.get("level") != "ok"]
    expect(not bad, f"doctor found something wrong: {bad}", p)


def step_export_import(s, ws):
    bundle = s.path("bundle.json")
    s.run(["export", "--out", s.arg(bundle)], ws)
    other = s.workspace("imported")
    s.run(["import", s.arg(bundle)], other)
    def body(d):
        # `read` heads the file with its path, which differs
        return text(s.run(["read", "DECISIONS.md"], d)).split("\n", 1)[1]
    expect("用 redb 存储记忆" in body(other), "the import lacks the Chinese decision")
    expect(body(ws) == body(other), "the imported DECISIONS.md differs from the exported one")


def step_merge_driver(s, ws):
    with open(os.path.join(ws, "memory", "SESSIONS.md"), encoding="utf-8", newline="") as f:
        base = f.read()
    head = "# SESSIONS\n"
    expect(base.startswith(head), "SESSIONS.md does not start with its title: " + base[:200])
    def entry(day, what):
        return f"\n## 2026-12-0{day} · smoke · {what}\n\n- **done**: {what}\n"
    ours = base.replace(head, head + entry(5, "ours added this"), 1)
    theirs = base.replace(head, head + entry(4, "theirs added that"), 1)
    files = {}
    for name, body in [("O", base), ("A", ours), ("B", theirs)]:
        files[name] = s.path(f"merge-{name}.md")
        with open(files[name], "w", encoding="utf-8", newline="") as f:
            f.write(body)
    s.run(["merge-driver", s.arg(files["O"]), s.arg(files["A"]), s.arg(files["B"]),
           "memory/SESSIONS.md"], ws)
    merged = open(files["A"], encoding="utf-8").read()
    expect("ours added this" in merged and "theirs added that" in merged,
           "the merge driver lost a side:\n" + merged[:1500])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--exe", required=True, help="the trilogy binary to try")
    ap.add_argument("--runner", default="", help="what runs it, e.g. /usr/lib/wine/wine64")
    a = ap.parse_args()
    windows = a.exe.endswith(".exe")
    for prog in shlex.split(a.runner)[:1] + [a.exe]:
        if not (os.path.exists(prog) or shutil_which(prog)):
            fail(f"{prog} is not here: build it (tests/cross/run builds the Windows binary; "
                 "Wine: apt-get install wine64)")
    s = Smoke(a.exe, a.runner, windows)
    if windows and "WINEPREFIX" not in os.environ:
        s.env["WINEPREFIX"] = s.path("wine")
    ws = None
    steps = [
        ("demo", lambda: step_demo(s)),
        ("init", lambda: None),
        (f"checkpoint from {WRITERS} processes at once, {EACH} each", lambda: step_concurrent_checkpoints(s, ws)),
        ("read, search in Chinese and English", lambda: step_read_and_search(s, ws)),
        ("inject, hook claude session-start", lambda: step_inject_and_hook(s, ws)),
        ("MCP: initialize, tools/list, checkpoint, read, search; a reindex beside it", lambda: step_mcp(s, ws)),
        ("serve: the panel on 127.0.0.1 answers the files", lambda: step_serve(s, ws)),
        ("doctor", lambda: step_doctor(s, ws)),
        ("export, import", lambda: step_export_import(s, ws)),
        ("merge-driver with three files", lambda: step_merge_driver(s, ws)),
    ]
    started = time.monotonic()
    for name, run in steps:
        t = time.monotonic()
        if name == "init":
            ws = s.workspace("project")
        else:
            run()
        print(f"ok {time.monotonic() - t:6.1f}s  {name}", flush=True)
    print(f"smoke: all {len(steps)} steps passed in {time.monotonic() - started:.0f}s ({a.exe})")


def shutil_which(prog):
    import shutil
    return shutil.which(prog)


if __name__ == "__main__":
    main()
