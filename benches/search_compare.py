"""memory_search at 100k entries, two trilogy binaries side by side.

Usage: python3 benches/search_compare.py OLD_BINARY NEW_BINARY [ROUNDS]

Builds one workspace per binary with the same 100k entries (5,000 decisions, 200 live
sessions, the rest archived; English and Chinese words drawn from a fixed vocabulary, so
postings are long and scores vary), builds each binary's index with one search (outside
timing), then keeps one `trilogy mcp` server per binary open and times `memory_search`
round trips over stdio: whole questions and keyword forms, English and Chinese, the two
servers alternating query by query, ROUNDS (default 30) passes over the queries. Prints the
p50 and p90 per binary and their ratio, and, as the floor, an MCP `ping` round trip. A long-lived
server is what an agent searches through; the spawn cost of the CLI would hide the search.
"""
import json, os, random, shutil, statistics, subprocess, sys, tempfile, time

EN = ("uploader retry backoff thumbnail worker queue postgres migration schema index cache "
      "token refresh webhook billing invoice dashboard chart export csv timeout deadline lock "
      "mutex shard replica snapshot compaction parser lexer config flag env logging tracing "
      "metrics alert pager deploy rollout canary staging release tag branch rebase merge").split()
ZH = ("库存 订单 同步 重试 间隔 超时 缓存 索引 迁移 表结构 回滚 灰度 发布 告警 日志 监控 "
      "配置 开关 队列 消费 生产 分片 副本 快照 压缩 解析 导出 报表 权限 登录 令牌 刷新").split()
QUERIES = [
    "What did we decide about the retry backoff for the uploader?",
    "uploader retry backoff",
    "Why did we change the postgres migration lock timeout?",
    "postgres migration lock",
    "Where is the thumbnail worker queue configured?",
    "我们为什么把库存同步的重试间隔改了？",
    "库存 同步 重试",
    "灰度发布的回滚是怎么配置的？",
    "compaction snapshot replica",
    "第 4242 次会话",
]


def workspace():
    rnd = random.Random(7)
    d = tempfile.mkdtemp(prefix="search100k-")
    os.makedirs(d + "/memory")

    def words(n):
        return " ".join(rnd.choice(EN) if rnd.random() < 0.6 else rnd.choice(ZH) for _ in range(n))

    t = ["# DECISIONS\n"]
    for i in range(5000):
        t.append(f"\n## 2025-{12 - i % 12:02d}-{28 - i % 28:02d} — choice {i}: {words(5)}\n"
                 f"选择：{words(8)}\n放弃：{words(6)}\n因为：{words(8)}; decision {i}\n")
    open(d + "/memory/DECISIONS.md", "w").write("".join(t))
    s = ["# SESSIONS\n"]
    for i in range(200):
        s.append(f"\n## 2026-11-{i % 28 + 1:02d} · area{i % 3}\n完成：第 {i} 次会话 {words(14)}; cargo test passes\n")
    open(d + "/memory/SESSIONS.md", "w").write("".join(s))
    a = ["# SESSIONS ARCHIVE\n"]
    for i in range(200, 95000):
        a.append(f"\n## 2025-{i % 12 + 1:02d}-{i % 28 + 1:02d} · area{i % 3}\n完成：第 {i} 次会话 {words(14)}; tested\n")
    open(d + "/memory/SESSIONS-archive.md", "w").write("".join(a))
    return d


class Server:
    def __init__(self, binary, root, env):
        self.p = subprocess.Popen([binary, "--root", root, "mcp"], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, env=env)
        self.n = 0
        self.call("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                 "clientInfo": {"name": "search_compare", "version": "1"}})
        self.p.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        self.p.stdin.flush()

    def call(self, method, params=None):
        self.n += 1
        msg = {"jsonrpc": "2.0", "id": self.n, "method": method}
        if params is not None:
            msg["params"] = params
        self.p.stdin.write((json.dumps(msg, ensure_ascii=False) + "\n").encode())
        self.p.stdin.flush()
        while True:
            frame = json.loads(self.p.stdout.readline())
            if frame.get("id") == self.n:
                assert "error" not in frame, frame
                return frame

    def search(self, q):
        t = time.perf_counter()
        frame = self.call("tools/call", {"name": "memory_search", "arguments": {"query": q, "limit": 5}})
        dt = time.perf_counter() - t
        assert not frame["result"].get("isError"), frame
        return dt

    def close(self):
        self.p.stdin.close()
        self.p.wait()


def main():
    old, new = sys.argv[1], sys.argv[2]
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 30
    env = dict(os.environ, TRILOGY_CONFIG="/nonexistent.toml")
    roots, servers = {}, {}
    for name, binary in [("old", old), ("new", new)]:
        roots[name] = workspace()
        e = dict(env, XDG_STATE_HOME=roots[name] + "/.state")
        subprocess.run([binary, "--root", roots[name], "search", "warm up"], capture_output=True, env=e, check=True)
        servers[name] = Server(binary, roots[name], e)
        for q in QUERIES:  # each server's first answers open the index: outside timing
            servers[name].search(q)
    times = {"old": [], "new": [], "ping": []}
    for _ in range(rounds):
        for q in QUERIES:
            for name in ("old", "new"):
                times[name].append(servers[name].search(q))
        t = time.perf_counter()
        servers["new"].call("ping")
        times["ping"].append(time.perf_counter() - t)
    for s in servers.values():
        s.close()
    for r in roots.values():
        shutil.rmtree(r)

    def pct(v, p):
        v = sorted(v)
        return v[min(len(v) - 1, int(p * len(v)))] * 1000

    for name in ("old", "new", "ping"):
        v = times[name]
        print(f"{name:>4}: p50 {statistics.median(v) * 1000:.2f} ms, p90 {pct(v, 0.9):.2f} ms ({len(v)} calls)")
    print(f"new / old p50: {statistics.median(times['new']) / statistics.median(times['old']):.3f} (target ≤ 1.2)")


if __name__ == "__main__":
    main()
