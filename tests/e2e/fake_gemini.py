"""A scripted stand-in for the Gemini API (generateContent / streamGenerateContent) on 127.0.0.1
for the real Gemini CLI. Usage: PORT LOG (PORT 0 picks a free port and prints it). The script is
in script.py; every request is logged."""
import json

from script import choose
from serve import run, send_json, send_sse


def names(body):
    return [d.get("name") for t in body.get("tools", []) or [] for d in t.get("functionDeclarations", []) or []]


def answer(body):
    contents = body.get("contents", [])
    parts = contents[-1].get("parts", []) if contents else []
    if any("functionResponse" in p for p in parts):
        return {"text": "Done."}
    cfg = body.get("generationConfig") or {}
    if cfg.get("responseMimeType") == "application/json":  # the CLI's own side questions
        return {"text": json.dumps({"reasoning": "stand-in", "next_speaker": "user",
                                    "complexity_reasoning": "stand-in", "complexity_score": 1})}
    prompt = " ".join(p.get("text", "") for p in parts if isinstance(p, dict))
    kind, what = choose(prompt, "Gemini CLI")
    if kind == "shell":
        return {"functionCall": {"name": "run_shell_command", "args": {"command": what}}}
    if kind == "checkpoint":
        name = next((x for x in names(body) if x and x.endswith("memory_checkpoint")), None)
        if name is None:
            return {"text": f"no memory_checkpoint among {names(body)}"}
        return {"functionCall": {"name": name, "args": what}}
    return {"text": what}


def handle(h, path, body, n):
    if "countTokens" in path:
        return send_json(h, {"totalTokens": 100})
    resp = {"candidates": [{"content": {"role": "model", "parts": [answer(body)]}, "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
            "modelVersion": "gemini-stand-in"}
    if "stream" in path:
        send_sse(h, [resp], named=False)
    else:
        send_json(h, resp)


run(handle)
