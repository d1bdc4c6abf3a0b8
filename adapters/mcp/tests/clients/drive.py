"""Drives `askuser mcp` with the official MCP Python SDK, as a person at a client would.

Usage: python drive.py SCENARIO.json

The scenario: {"command": [...], "mode": "legacy", "elicit": true|false,
"list_tools": bool, "calls": [{"tool": NAME, "arguments": {...},
"responses": [{"action": "accept", "content": {...}} | {"action": "decline"} | ...]}]}.

The elicitation callback answers each form with the next scripted response and
records what it was shown. Prints one JSON document: the server's instructions,
the tools (when asked), and for each call the rounds shown and the result.
"""

import asyncio
import json
import sys

import mcp_types as types
from mcp import Client
from mcp.client.stdio import StdioServerParameters


async def main(scenario):
    command = scenario["command"]
    queue = []
    rounds = []

    async def elicit(context, params):
        rounds.append({"message": params.message,
                       "requestedSchema": params.requested_schema})
        if not queue:
            return types.ElicitResult(action="cancel")
        response = queue.pop(0)
        return types.ElicitResult(action=response["action"], content=response.get("content"))

    server = StdioServerParameters(command=command[0], args=command[1:],
                                   env=scenario.get("env"))
    options = {"mode": scenario.get("mode", "legacy")}
    if scenario.get("elicit", True):
        options["elicitation_callback"] = elicit
    out = {}
    async with Client(server, **options) as client:
        out["instructions"] = client.instructions
        if scenario.get("list_tools"):
            listed = await client.list_tools()
            out["tools"] = [tool.model_dump(mode="json", by_alias=True, exclude_none=True)
                            for tool in listed.tools]
        out["calls"] = []
        for call in scenario.get("calls", []):
            queue[:] = list(call.get("responses", []))
            rounds.clear()
            result = await client.call_tool(call["tool"], call["arguments"])
            out["calls"].append({
                "rounds": list(rounds),
                "isError": bool(result.is_error),
                "text": [block.text for block in result.content if block.type == "text"],
                "structuredContent": result.structured_content,
            })
    json.dump(out, sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    with open(sys.argv[1], encoding="utf-8") as f:
        asyncio.run(main(json.load(f)))
