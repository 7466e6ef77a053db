"""Drafting a SESSIONS entry from a long transcript: `trilogy sessions draft` on 10 MB.

Usage: python3 benches/draft_volume.py BINARY
(BENCH_DRAFT_MB=10 picks the size, BENCH_DRAFT_RUNS=15 the runs.)

It writes, per host (Claude Code, Codex, Gemini CLI), a transcript of about BENCH_DRAFT_MB MB in
that host's recorded shapes (tests/fixtures/recall): turns of a request, an answer, a file
edit and a shell command whose output is long (most of a real transcript's bytes), with one
checkpoint call two thirds of the way in, so the draft covers the last third; then the same
size with no checkpoint at all, the whole transcript to draft (the worst case). Each run is
spawned and reaped with wait4; `/bin/true` is the spawn floor and `cat` of the file the read
floor, both in the same run. The target (the records-itself issue): ≤ 50 ms for 10 MB.
Reported against it; nothing is asserted.
"""
import json
import os
import shutil
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import volume_compare  # noqa: E402  (spawn and reap with wait4)

MB = float(os.environ.get("BENCH_DRAFT_MB", "10"))
RUNS = int(os.environ.get("BENCH_DRAFT_RUNS", "15"))
TARGET_MS = 50.0
OUTPUT = "test result line of a long build log, the kind of output a tool call returns. " * 40


def claude(k, root, checkpoint):
    lines = [
        {"type": "user", "message": {"role": "user", "content": f"please fix issue {k} in the parser"}},
        {"type": "assistant", "message": {"content": [
            {"type": "text", "text": f"Looking at issue {k}; next I will run the tests."},
            {"type": "tool_use", "id": f"e{k}", "name": "Edit", "input": {"file_path": f"{root}/src/m{k % 50}.rs"}},
            {"type": "tool_use", "id": f"b{k}", "name": "Bash", "input": {"command": f"cargo test m{k % 50}"}}]}},
        {"type": "user", "message": {"content": [
            {"type": "tool_result", "tool_use_id": f"b{k}", "is_error": k % 7 == 0, "content": OUTPUT}]},
         "toolUseResult": {"stdout": OUTPUT, "stderr": "", "interrupted": False}},
    ]
    if checkpoint:
        lines += [
            {"type": "assistant", "message": {"content": [
                {"type": "tool_use", "id": f"c{k}", "name": "mcp__trilogy__memory_checkpoint", "input": {}}]}},
            {"type": "user", "message": {"content": [
                {"type": "tool_result", "tool_use_id": f"c{k}", "is_error": False, "content": "{\"written\":[]}"}]}},
        ]
    return lines


def codex(k, root, checkpoint):
    turn = {"turn_id": f"t{k}"}
    lines = [
        {"type": "event_msg", "payload": {"type": "item_completed", "item": {
            "type": "UserMessage", "content": [{"type": "text", "text": f"please fix issue {k}"}]}}},
        {"type": "response_item", "payload": {"type": "function_call", "name": "exec_command",
                                              "arguments": json.dumps({"cmd": f"cargo test m{k % 50}"}),
                                              "call_id": f"b{k}", "internal_chat_message_metadata_passthrough": turn}},
        {"type": "response_item", "payload": {"type": "function_call_output", "call_id": f"b{k}",
                                              "output": f"Process exited with code {k % 2}\nOutput:\n{OUTPUT}"}},
        {"type": "event_msg", "payload": {"type": "item_completed", "item": {
            "type": "AgentMessage", "content": [{"type": "Text", "text": f"Issue {k} looked at."}]}}},
    ]
    if checkpoint:
        lines += [
            {"type": "response_item", "payload": {"type": "function_call", "name": "memory_checkpoint",
                                                  "namespace": "mcp__trilogy", "arguments": "{}", "call_id": f"c{k}"}},
            {"type": "response_item", "payload": {"type": "function_call_output", "call_id": f"c{k}",
                                                  "output": "{\"written\":[]}"}},
        ]
    return lines


def gemini(k, root, checkpoint):
    calls = [{"id": f"b{k}", "name": "run_shell_command", "args": {"command": f"cargo test m{k % 50}"},
              "status": "success", "result": [{"functionResponse": {"response": {"output": OUTPUT}}}]}]
    if checkpoint:
        calls.append({"id": f"c{k}", "name": "mcp_trilogy_memory_checkpoint", "args": {}, "status": "success"})
    return [
        {"id": f"u{k}", "type": "user", "content": [{"text": f"please fix issue {k}"}]},
        {"id": f"g{k}", "type": "gemini", "content": f"Issue {k} looked at.", "toolCalls": calls},
    ]


def compact(value):
    """A line as the hosts write it: JSON without spaces (Claude Code's and Gemini CLI's
    JSON.stringify, Codex's serde_json), which the readers' quick looks for a line's kind match."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def transcript(path, shape, root, checkpoint):
    size, k, at = MB * 1e6, 0, None if checkpoint else -1
    with open(path, "w") as f:
        if shape is gemini:
            f.write(compact({"sessionId": "s", "projectHash": "p", "startTime": "t", "kind": "main"}) + "\n")
        while f.tell() < size:
            mark = at is None and f.tell() > size * 2 / 3
            at = k if mark else at
            for line in shape(k, root, mark):
                f.write(compact(line) + "\n")
            k += 1
    return k, at


def median_ms(args):
    """Median wall and CPU time of `args`, in ms (CPU time is what load on a shared machine
    moves least)."""
    runs = [volume_compare.run(args, keep=False)[:2] for _ in range(RUNS)]
    return (statistics.median(r[0] for r in runs) * 1000, statistics.median(r[1] for r in runs) * 1000)


def main():
    binary = os.path.abspath(sys.argv[1])
    root = tempfile.mkdtemp(prefix="draft-bench-")
    true_ms = median_ms(["/bin/true"])[0]
    print(f"{MB:g} MB transcripts, {RUNS} runs, medians; spawn floor /bin/true {true_ms:.1f} ms")
    cases = [(n, s, c) for c in (True, False)
             for n, s in (("claude", claude), ("codex", codex), ("gemini", gemini))]
    for name, shape, checkpoint in cases:
        path = os.path.join(root, f"{name}-{checkpoint}.jsonl")
        turns, at = transcript(path, shape, root, checkpoint)
        out = json.loads(volume_compare.run([binary, "--root", root, "sessions", "draft", path,
                                             "--host", name, "--json"])[3])
        assert out["outcome"] == "drafted", out
        cat_ms = median_ms(["cat", path])[0]
        ms, cpu = median_ms([binary, "--root", root, "sessions", "draft", path, "--host", name])
        met = "met" if ms <= TARGET_MS else "NOT met"
        where = f"checkpoint at turn {at}" if checkpoint else "no checkpoint"
        print(f"  {name:<7} {os.path.getsize(path) / 1e6:5.1f} MB, {turns} turns, {where:<24}: "
              f"draft {ms:6.1f} ms (CPU {cpu:5.1f}) = {ms / true_ms:5.1f}x spawn, cat {cat_ms:5.1f} ms  "
              f"(≤ {TARGET_MS:g} ms: {met}); {len(out['ran'])} commands named")
    shutil.rmtree(root)


if __name__ == "__main__":
    main()
