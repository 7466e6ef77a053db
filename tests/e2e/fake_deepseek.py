"""A scripted stand-in for the DeepSeek chat-completions API (OpenAI-style SSE) on 127.0.0.1 for
the real DeepSeek Harness. Usage: PORT LOG (PORT 0 picks a free port and prints it). The script
is in script.py; the prompts the end-to-end driver sends start with `TURN`; every request is
logged."""
import json

from script import choose
from serve import run, send_sse


def text_of(m):
    c = m.get("content")
    if isinstance(c, str):
        return c
    return " ".join(p.get("text", "") for p in c or [] if isinstance(p, dict))


def plan(body):
    tools = [t.get("function", {}).get("name") for t in body.get("tools") or []]
    if not tools:
        return ("text", "A title.")
    msgs = body.get("messages") or []
    last_prompt = max((i for i, m in enumerate(msgs)
                       if m.get("role") == "user" and text_of(m).startswith("TURN")), default=-1)
    if any(m.get("role") == "tool" for m in msgs[last_prompt + 1:]):
        return ("text", "Done.")
    prompt = text_of(msgs[last_prompt]) if last_prompt >= 0 else ""
    kind, what = choose(prompt, "DeepSeek Harness")
    if kind == "shell":
        return ("call", "bash", {"command": what})
    if kind == "checkpoint":
        name = next((x for x in tools if x.endswith("memory_checkpoint")), None)
        if name is None:
            return ("text", f"no memory_checkpoint among {tools}")
        return ("call", name, what)
    return ("text", what)


def handle(h, path, body, n):
    p = plan(body)
    usage = {"prompt_tokens": 100, "completion_tokens": 5, "total_tokens": 105}

    def chunk(delta, finish=None):
        return {"id": f"cmpl-{n}", "object": "chat.completion.chunk", "model": "stand-in",
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    if p[0] == "text":
        events = [chunk({"role": "assistant", "content": p[1]}), {**chunk({}, "stop"), "usage": usage}]
    else:
        call = {"index": 0, "id": f"call_{n}", "type": "function",
                "function": {"name": p[1], "arguments": json.dumps(p[2], ensure_ascii=False)}}
        events = [chunk({"role": "assistant", "tool_calls": [call]}),
                  {**chunk({}, "tool_calls"), "usage": usage}]
    send_sse(h, events, named=False)
    h.wfile.write(b"data: [DONE]\n\n")
    h.wfile.flush()


if __name__ == "__main__":
    run(handle)
