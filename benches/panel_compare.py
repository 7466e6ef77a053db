"""The web panel at 100k entries: first paint and element counts per view, one or more binaries.

Usage: python3 benches/panel_compare.py BINARY [BINARY ...]
(BENCH_SCALES="1k,100k" picks scales by label; BENCH_ROUNDS sets the page loads per binary.)

Builds one workspace per scale as the scale generator lays them out (1k: 50 decisions, 200 live
sessions, 750 archived; 100k: 5,000 decisions, 200 live sessions, 94,800 archived), lets the
binary absorb it (`trilogy status`, outside timing), then starts `trilogy serve --port 0` in it
and drives headless Chromium through chromedriver (plain WebDriver over HTTP, no client
library). For each page load it times, in the page's own clock, how long from navigation start
until the view a workspace opens on is drawn (first paint of the detail), then opens every view
tab and times each from the click until it is drawn, and counts the page's elements there.
Prints medians per view and the largest element count seen; the panel's target is under 5,000
elements on every view.

A view counts as drawn when `#content` says `data-ready="true"` (the panel marks it), or, for a
panel without that mark, when `#content` has children and no "读取中…"/"Loading…" text.
Needs /usr/bin/chromium and /usr/bin/chromedriver (apt-get install chromium chromium-driver).

Measured 2026-12-01 on the shared 2-core machine (release build, 2 loads; the view already
open times 0 ms):

| scale | first paint | agent | attention | project | decisions | sessions | archive |
|---|---|---|---|---|---|---|---|
| 1k   | 237 ms, 1,286 el. | 1,286 el. | 8 ms, 140 el. | 30 ms, 170 el. | 25 ms, 768 el. | 18 ms, 686 el. | 23 ms, 537 el. |
| 100k | 417 ms, 1,286 el. | 1,286 el. | 17 ms, 138 el. | 41 ms, 170 el. | 46 ms, 736 el. | 41 ms, 686 el. | 45 ms, 537 el. |

(A debug build: 406 ms and 792 ms first paint.) The element counts do not grow with the store: cards come 50 at a time and at most 200 are
drawn, the injection table 100 rows at a time and at most 300, the change log and the
restorable entries 50 at a time and at most 400.
"""
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "3"))
SCALES = [(50, 200, 750, "1k"), (5000, 200, 94800, "100k")]
if os.environ.get("BENCH_SCALES"):
    SCALES = [s for s in SCALES if s[3] in os.environ["BENCH_SCALES"].split(",")]


def workspace(n_dec, n_live, n_arch):
    d = tempfile.mkdtemp(prefix="bpanel-")
    os.makedirs(d + "/memory")
    t = "# DECISIONS\n"
    for i in range(n_dec):
        t += f"\n## 2025-{12 - i % 12:02d}-{28 - i % 28:02d} — choice {i}\n选择：option {i} for the store\n放弃：the other option\n因为：it is measured; decision {i}\n"
    s = "# SESSIONS\n"
    for i in range(n_live):
        s += f"\n## 2026-11-{i % 28 + 1:02d} · area{i % 3}\n完成：live entry {i} about the sync engine; cargo test passes\n"
    a = "# SESSIONS ARCHIVE\n"
    for i in range(n_arch):
        a += f"\n## 2025-{i % 12 + 1:02d}-{i % 28 + 1:02d}\n完成：archived entry {i}; tested\n"
    open(d + "/memory/DECISIONS.md", "w").write(t)
    open(d + "/memory/SESSIONS.md", "w").write(s)
    open(d + "/memory/SESSIONS-archive.md", "w").write(a)
    return d


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wd(port, method, path, body=None):
    """One WebDriver command; its `value`."""
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=data, method=method,
                                 headers={"content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=600) as r:
        return json.loads(r.read())["value"]


READY = """
const c = document.getElementById('content');
if (!c) return false;
if (c.dataset.ready !== undefined) return c.dataset.ready === 'true' && c.dataset.view === arguments[0];
return c.children.length > 0 && !/读取中|Loading/.test(c.textContent);
"""

# clicks the tab, then waits (in the page) for it to be drawn; [ms, elements]
OPEN_TAB = """
const done = arguments[arguments.length - 1];
const [tab, ready] = [arguments[0], new Function(arguments[1])];
const t0 = performance.now();
const b = document.querySelector(`#tabs [data-tab="${tab}"]`) || document.querySelector(`#tabs [data-file="${tab}"]`);
if (!b) return done(null);
b.click();
(function wait() {
  if (ready(tab)) return done([performance.now() - t0, document.getElementsByTagName('*').length]);
  requestAnimationFrame(wait);
})();
"""

FIRST = """
const done = arguments[arguments.length - 1];
const ready = new Function(arguments[0]);
(function wait() {
  const view = (document.getElementById('content') || {dataset: {}}).dataset.view;
  if (document.getElementById('detail-root') && ready(view)) return done([performance.now(), document.getElementsByTagName('*').length, view || '']);
  requestAnimationFrame(wait);
})();
"""


def measure(binary, root):
    home = tempfile.mkdtemp(prefix="bpanel-home-")
    env = dict(os.environ, TRILOGY_CONFIG="/nonexistent.toml", TRILOGY_REGISTRY=home + "/registry.json",
               XDG_STATE_HOME=home + "/state", XDG_DATA_HOME=home + "/data", DSH_HOME=home + "/dsh")
    env.pop("TRILOGY_LANG", None)
    t = time.perf_counter()
    subprocess.run([binary, "--root", root, "status"], capture_output=True, env=env, check=True)
    absorbed = time.perf_counter() - t
    serve = subprocess.Popen([binary, "serve", "--port", "0"], cwd=root, env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, text=True)
    url = serve.stdout.readline().strip()
    port = free_port()
    driver = subprocess.Popen([CHROMEDRIVER, f"--port={port}"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    profile = tempfile.mkdtemp(prefix="bpanel-chromium-")
    out = {"absorb_s": absorbed, "first": [], "tabs": {}}
    try:
        for _ in range(100):
            try:
                wd(port, "GET", "/status")
                break
            except OSError:
                time.sleep(0.1)
        caps = {"capabilities": {"alwaysMatch": {"browserName": "chrome", "goog:chromeOptions": {
            "binary": CHROMIUM, "args": ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                                         "--window-size=1400,1100", f"--user-data-dir={profile}"]}}}}
        sid = wd(port, "POST", "/session", caps)["sessionId"]
        wd(port, "POST", f"/session/{sid}/timeouts", {"script": 600000})
        for _ in range(ROUNDS):
            wd(port, "POST", f"/session/{sid}/url", {"url": url})
            ms, elements, view = wd(port, "POST", f"/session/{sid}/execute/async", {"script": FIRST, "args": [READY]})
            out["first"].append((ms, elements, view))
            new = wd(port, "POST", f"/session/{sid}/execute/sync", {"script": "return !!document.querySelector('#tabs [data-tab]')", "args": []})
            tabs = ["agent", "attention", "project", "decisions", "sessions", "archive"] if new else \
                ["PROJECT.md", "DECISIONS.md", "SESSIONS.md", "SESSIONS-archive.md"]
            for tab in tabs:
                got = wd(port, "POST", f"/session/{sid}/execute/async", {"script": OPEN_TAB, "args": [tab, READY]})
                if got is not None:
                    out["tabs"].setdefault(tab, []).append(got)
        wd(port, "DELETE", f"/session/{sid}")
    finally:
        driver.kill()
        serve.kill()
        driver.wait()
        serve.wait()
        shutil.rmtree(profile, ignore_errors=True)
        shutil.rmtree(home, ignore_errors=True)
    return out


def main():
    binaries = sys.argv[1:]
    if not binaries:
        sys.exit(__doc__)
    for n_dec, n_live, n_arch, label in SCALES:
        root = workspace(n_dec, n_live, n_arch)
        try:
            for binary in binaries:
                # each binary absorbs its own copy: the first would leave its store for the next
                copy = tempfile.mkdtemp(prefix="bpanel-ws-")
                shutil.copytree(root + "/memory", copy + "/memory")
                try:
                    r = measure(binary, copy)
                finally:
                    shutil.rmtree(copy, ignore_errors=True)
                first_ms = statistics.median(f[0] for f in r["first"])
                print(f"{label} {binary}: absorbed in {r['absorb_s']:.1f} s; first paint ({r['first'][0][2] or '?'}) "
                      f"{first_ms:.0f} ms, {max(f[1] for f in r['first'])} elements")
                for tab, runs in r["tabs"].items():
                    ms = statistics.median(x[0] for x in runs)
                    most = max(x[1] for x in runs)
                    flag = "" if most < 5000 else "  <-- over 5,000"
                    print(f"  {tab:22} {ms:8.0f} ms  {most:7d} elements{flag}")
        finally:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
