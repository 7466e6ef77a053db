"""The script the stand-ins follow, shared by all three model APIs: a marker word in the latest
user prompt picks what the model does next.

  WORK        run the shell command `echo hello > note.txt`
  CDSUB       run the shell command `mkdir -p sub && cd sub && pwd`
  SAVE <tag>  call the trilogy memory_checkpoint tool with a session entry naming <tag>
  anything else: answer with plain text

After a tool result the model always answers with plain text, so every turn ends.
"""
import re

SHELL = {
    "WORK": "echo hello > note.txt",
    "CDSUB": "mkdir -p sub && cd sub && pwd",
}


def choose(prompt, host):
    """("shell", command) | ("checkpoint", arguments) | ("text", answer) for a prompt."""
    for marker, command in SHELL.items():
        if marker in prompt:
            return ("shell", command)
    m = re.search(r"SAVE (\S+)", prompt)
    if m:
        tag = m.group(1)
        return ("checkpoint", {"sessions": [{
            "done": f"端到端检查点 {tag}：{host} 调用了 memory_checkpoint，读 SESSIONS.md 验证过",
            "area": "集成",
            "next": "继续端到端测试",
        }]})
    return ("text", "Hello from the stand-in model.")
