"""The official MCP Python SDK as a client of `trilogy mcp`: lists and reads the resources,
subscribes to SESSIONS.md, has another process write (`trilogy checkpoint`), waits for the
server's notification, lists and gets the prompts, and answers the server's review prompt
(elicitation) for a proposal by accepting it. Prints one JSON object of what it saw.

Usage: mcp_client.py TRILOGY_BIN WORKSPACE
"""

import asyncio
import json
import os
import subprocess
import sys

from mcp import ClientSession, types
from mcp.client.stdio import StdioServerParameters, stdio_client


async def main(binary: str, root: str) -> dict:
    updated: asyncio.Queue = asyncio.Queue()

    async def on_message(message) -> None:
        root_msg = getattr(message, "root", message)
        if getattr(root_msg, "method", None) == "notifications/resources/updated":
            await updated.put(str(root_msg.params.uri))

    seen: dict = {"asked": []}

    async def on_elicit(context, params) -> types.ElicitResult:
        # the person, here: sees the prompt and accepts
        seen["asked"].append(params.message)
        return types.ElicitResult(action="accept", content={"decision": "accept"})

    # the person is this script's callback: CI's marker (set where CI runs this) would keep the
    # server from asking anyone
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "CLAUDE_CODE_ENTRYPOINT")}
    params = StdioServerParameters(command=binary, args=["--root", root, "mcp"], env=env)
    async with stdio_client(params) as (read, write):
        async with ClientSession(
            read, write, message_handler=on_message, elicitation_callback=on_elicit
        ) as session:
            init = await session.initialize()
            seen["protocol"] = str(init.protocol_version)
            seen["server"] = init.server_info.name
            listed = await session.list_resources()
            seen["resources"] = [str(r.uri) for r in listed.resources]
            read_back = await session.read_resource("trilogy://memory/SESSIONS.md")
            seen["sessions_text"] = read_back.contents[0].text
            await session.subscribe_resource("trilogy://memory/SESSIONS.md")
            subprocess.run(
                [binary, "--root", root, "checkpoint", "--session-done",
                 "wrote through the CLI while a client watched; checked with the SDK"],
                check=True, capture_output=True,
            )
            # a guard against a hang, not a measure of speed
            seen["updated"] = await asyncio.wait_for(updated.get(), timeout=60)
            prompts = await session.list_prompts()
            seen["prompts"] = [p.name for p in prompts.prompts]
            got = await session.get_prompt("what-do-we-know", {"topic": "SDK"})
            seen["prompt_text"] = got.messages[0].content.text
            # a decision proposed where decisions wait for a person, then put to them
            subprocess.run(
                [binary, "--root", root, "--set", "review_mode.decisions=propose", "checkpoint",
                 "--decision", "answer review prompts in the SDK", "--because", "it can ask"],
                check=True, capture_output=True,
            )
            listed = await session.call_tool("memory_review", {})
            proposal = listed.structured_content["pending"][0]["id"]
            reviewed = await session.call_tool("memory_review", {"id": proposal})
            seen["review"] = reviewed.structured_content
    return seen


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main(sys.argv[1], sys.argv[2])), ensure_ascii=False))
