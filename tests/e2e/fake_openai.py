"""A scripted stand-in for the OpenAI Responses API on 127.0.0.1 for the real Codex CLI. Usage:
PORT LOG (PORT 0 picks a free port and prints it). The script is in script.py; every request is
logged."""
import json

from script import choose
from serve import run, send_json, send_sse


def tool_names(body):
    """Function names; tools inside a namespace (Codex's MCP servers) as `namespace::name`."""
    out = []
    for t in body.get("tools", []) or []:
        if t.get("type") == "function":
            out.append(t.get("name"))
        elif t.get("type") == "namespace":
            out += [f"{t.get('name')}::{s.get('name')}" for s in t.get("tools", []) or []]
    return out


def plan(body):
    items = body.get("input", []) or []
    if items and items[-1].get("type") in ("function_call_output", "custom_tool_call_output"):
        return ("text", "Done.")
    prompt = next((" ".join(c.get("text", "") for c in it.get("content", []) if isinstance(c, dict))
                   for it in reversed(items) if it.get("type") == "message" and it.get("role") == "user"), "")
    names = tool_names(body)
    kind, what = choose(prompt, "Codex")
    if kind == "shell":
        if "exec_command" in names:
            return ("call", "exec_command", {"cmd": what})
        if "shell_command" in names:
            return ("call", "shell_command", {"command": what})
        return ("call", "shell", {"command": ["bash", "-lc", what]})
    if kind == "checkpoint":
        name = next((x for x in names if x.endswith("memory_checkpoint")), None)
        if name is None:
            return ("text", f"no memory_checkpoint among {names}")
        return ("call", name, what)
    return ("text", what)


def handle(h, path, body, n):
    p = plan(body)
    if p[0] == "text":
        item = {"type": "message", "role": "assistant", "id": f"msg_{n}",
                "content": [{"type": "output_text", "text": p[1], "annotations": []}]}
    else:
        namespace, _, name = p[1].rpartition("::")
        item = {"type": "function_call", "id": f"fc_{n}", "call_id": f"call_{n}", "name": name,
                "arguments": json.dumps(p[2], ensure_ascii=False)}
        if namespace:
            item["namespace"] = namespace
    rid = f"resp_{n}"
    usage = {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 5,
             "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 15}
    send_sse(h, [
        {"type": "response.created", "response": {"id": rid}},
        {"type": "response.output_item.done", "item": item},
        {"type": "response.completed", "response": {"id": rid, "usage": usage}},
    ])


run(handle, get=lambda h: send_json(h, {"object": "list", "data": []}))
