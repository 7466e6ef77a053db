"""A scripted stand-in for the Anthropic Messages API on 127.0.0.1, so the real Claude Code runs
whole turns (hooks, tool calls, MCP calls) with no key and no network. Usage: PORT LOG (PORT 0
picks a free port and prints it). The script is in script.py; every request is logged."""
import json

from script import choose
from serve import run, send_json, send_sse


def texts(msg):
    c = msg.get("content")
    if isinstance(c, str):
        return [c]
    return [b.get("text", "") for b in c if isinstance(b, dict) and b.get("type") == "text"]


def has_tool_result(msg):
    c = msg.get("content")
    return isinstance(c, list) and any(isinstance(b, dict) and b.get("type") == "tool_result" for b in c)


def plan(body):
    msgs = body.get("messages", [])
    tools = [t.get("name") for t in body.get("tools", []) or []]
    if "Bash" not in tools:
        return [{"type": "text", "text": "ok"}]  # side requests: titles, summaries
    if msgs and has_tool_result(msgs[-1]):
        return [{"type": "text", "text": "Done."}]
    prompt = next(("\n".join(texts(m)) for m in reversed(msgs)
                   if m.get("role") == "user" and not has_tool_result(m)), "")
    if "Respond with TEXT ONLY" in prompt:  # the summary /compact asks for
        return [{"type": "text", "text": "Summary: the user tried trilogy's hooks."}]
    kind, what = choose(prompt, "Claude Code")
    if kind == "shell":
        return [{"type": "tool_use", "name": "Bash", "input": {"command": what, "description": "run it"}}]
    if kind == "checkpoint":
        return [{"type": "tool_use", "name": "mcp__trilogy__memory_checkpoint", "input": what}]
    return [{"type": "text", "text": what}]


def handle(h, path, body, n):
    if "count_tokens" in path:
        return send_json(h, {"input_tokens": 100})
    content = plan(body)
    for i, c in enumerate(content):
        if c["type"] == "tool_use":
            c["id"] = f"toolu_{n}_{i}"
    stop = "tool_use" if content[0]["type"] == "tool_use" else "end_turn"
    model = body.get("model", "claude-stand-in")
    usage = {"input_tokens": 10, "output_tokens": 5}
    if not body.get("stream"):
        return send_json(h, {"id": f"msg_{n}", "type": "message", "role": "assistant", "model": model,
                             "content": content, "stop_reason": stop, "stop_sequence": None, "usage": usage})
    c = content[0]
    if c["type"] == "text":
        start = {"type": "text", "text": ""}
        delta = {"type": "text_delta", "text": c["text"]}
    else:
        start = {"type": "tool_use", "id": c["id"], "name": c["name"], "input": {}}
        delta = {"type": "input_json_delta", "partial_json": json.dumps(c["input"], ensure_ascii=False)}
    send_sse(h, [
        {"type": "message_start", "message": {"id": f"msg_{n}", "type": "message", "role": "assistant",
                                              "model": model, "content": [], "stop_reason": None,
                                              "stop_sequence": None, "usage": usage}},
        {"type": "content_block_start", "index": 0, "content_block": start},
        {"type": "content_block_delta", "index": 0, "delta": delta},
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
         "usage": {"output_tokens": 5}},
        {"type": "message_stop"},
    ])


run(handle)
