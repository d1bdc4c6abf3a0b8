"""Drives `askuser mcp` with the official MCP Python SDK, as a person at a client would.

Usage: python drive.py SCENARIO.json

The server is the command of "command" (over stdio), or the URL of "url"
(streamable HTTP).

The scenario: {"command": [...], "mode": "legacy", "elicit": true|false,
"list_tools": bool, "calls": [{"tool": NAME, "arguments": {...},
"responses": [{"action": "accept", "content": {...}} | {"action": "decline"} | ...]}]}.

A call with "steps" (protocol 2026-07-28 only) is driven by hand, one `tools/call`
per step: {"state": "latest"|"first"|"forged", "response": {...}} retries with the
latest requestState issued, the first one (a replay) or the latest with one
character changed; each step records the round asked or the final result.

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
    command = scenario.get("command")
    queue = []
    rounds = []

    async def elicit(context, params):
        rounds.append({"message": params.message,
                       "requestedSchema": params.requested_schema})
        if not queue:
            return types.ElicitResult(action="cancel")
        response = queue.pop(0)
        return types.ElicitResult(action=response["action"], content=response.get("content"))

    if "url" in scenario:
        server = scenario["url"]
    else:
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
            if "steps" in call:
                out["calls"].append(await by_hand(client, call))
                continue
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


def outcome(result):
    if isinstance(result, types.InputRequiredResult):
        (key, request), = result.input_requests.items()
        return {"inputRequired": key, "message": request.params.message}
    return {
        "isError": bool(result.is_error),
        "text": [block.text for block in result.content if block.type == "text"],
        "structuredContent": result.structured_content,
    }


async def by_hand(client, call):
    session = client.session
    first = await session.call_tool(call["tool"], call["arguments"], allow_input_required=True)
    states = [first.request_state]
    steps = [outcome(first)]
    for step in call["steps"]:
        state = {"latest": states[-1], "first": states[0]}.get(step["state"])
        if step["state"] == "forged":
            latest = states[-1]
            middle = len(latest) // 2
            state = latest[:middle] + ("A" if latest[middle] != "A" else "B") + latest[middle + 1:]
        response = types.ElicitResult(action=step["response"]["action"],
                                      content=step["response"].get("content"))
        result = await session.call_tool(call["tool"], call["arguments"],
                                         input_responses={"askuser_round": response},
                                         request_state=state, allow_input_required=True)
        if isinstance(result, types.InputRequiredResult):
            states.append(result.request_state)
        steps.append(outcome(result))
    return {"steps": steps}


if __name__ == "__main__":
    with open(sys.argv[1], encoding="utf-8") as f:
        asyncio.run(main(json.load(f)))
