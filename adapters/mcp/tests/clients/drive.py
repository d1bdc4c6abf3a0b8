"""Drives `askuser mcp` with the official MCP Python SDK, as a person at a client would.

Usage: python drive.py SCENARIO.json

The server is the command of "command" (over stdio), or the URL of "url"
(streamable HTTP).

The scenario: {"command": [...], "mode": "legacy", "elicit": true|false,
"list_tools": bool, "calls": [{"tool": NAME, "arguments": {...},
"responses": [{"action": "accept", "content": {...}} | {"action": "decline"} | ...]}]}.

A call with "cancel_at_round": N is cancelled by the client (the task awaiting
it is cancelled, so the SDK sends `notifications/cancelled`) while round N is
shown; the form is answered "cancel" only after that. A call with
"exit_at_round": N ends the client process while round N is shown (a
disconnect): what was printed so far is {"exited": true, "rounds": [...]}.

A call with "progress": true passes a progress callback (so the request carries
a progress token) and reports the notifications as "progress": [[progress,
message], ...]; "delay": seconds waits that long before answering each form,
and a response's own "delay" before giving that response.

A call with "steps" (protocol 2026-07-28 only) is driven by hand, one `tools/call`
per step: {"state": "latest"|"first"|"forged", "response": {...}} retries with the
latest requestState issued, the first one (a replay) or the latest with one
character changed; each step records the round asked or the final result.

A call with "elsewhere_while_waiting": {"after": SECONDS, "actions": [...]} has
another surface act that long after the call went out, whatever the client shows
(for a call that waits for another window).

A call with "elsewhere": [{"round": N, "actions": [...]}, ...] has another
surface act on the log while round N is shown, before the form is answered:
the command of "elsewhere_command" (`examples/elsewhere.rs`: DB STREAM) runs
with the actions as JSON, as the web inbox or a terminal would; a failure ends
the client with its message.

With "roots": [URI, ...] the client offers roots and lists those.

With "client_info": {"name", "version"} the client introduces itself so (as
Codex does: "codex-mcp-client"); otherwise as the SDK's default.

With "sampling": true the client offers sampling: its callback answers each
`sampling/createMessage` with the next text of the call's "samples" (an error
when none is left) and the call reports each request as "sampled" (the
parameters as JSON).

The elicitation callback answers each form with the next scripted response and
records what it was shown. Prints one JSON document: the server's instructions,
the tools (when asked), and for each call the rounds shown and the result.
"""

import asyncio
import json
import os
import sys

import mcp_types as types
from mcp import Client
from mcp.client.stdio import StdioServerParameters


async def main(scenario):
    global scenario_url, scenario_token
    scenario_token = scenario.get("token", "")
    command = scenario.get("command")
    queue = []
    rounds = []
    stop = {}
    samples = []
    sampled = []

    async def sample(context, params):
        asked = params.model_dump(mode="json", by_alias=True, exclude_none=True)
        asked.pop("_meta", None)  # the request's own (a progress token), not askuser's
        sampled.append(asked)
        if not samples:
            return types.ErrorData(code=-32603, message="no reply scripted")
        return types.CreateMessageResult(
            role="assistant", content=types.TextContent(type="text", text=samples.pop(0)),
            model="scripted")

    async def elicit(context, params):
        rounds.append({"message": params.message,
                       "requestedSchema": params.requested_schema})
        for other in stop.get("elsewhere", []):
            if other["round"] == len(rounds):
                await elsewhere(scenario["elsewhere_command"], other["actions"])
        if stop.get("exit_at_round") == len(rounds):
            json.dump({"exited": True, "rounds": rounds}, sys.stdout, ensure_ascii=False)
            sys.stdout.flush()
            os._exit(0)
        if stop.get("delay"):
            await asyncio.sleep(stop["delay"])
        if stop.get("cancel_at_round") == len(rounds):
            stop["shown"].set()
            await stop["cancelled"].wait()
            return types.ElicitResult(action="cancel")
        if not queue:
            return types.ElicitResult(action="cancel")
        response = queue.pop(0)
        if response.get("delay"):
            # This response's own pace: a person reading the form first.
            await asyncio.sleep(response["delay"])
        return types.ElicitResult(action=response["action"], content=response.get("content"))

    if "url" in scenario:
        server = scenario_url = scenario["url"]
        if scenario.get("token"):
            # askuser mcp --http takes only requests that carry its token.
            from mcp.client.streamable_http import streamable_http_client
            from mcp.shared._httpx_utils import create_mcp_http_client
            headers = {"Authorization": "Bearer " + scenario["token"]}
            server = streamable_http_client(
                scenario_url, http_client=create_mcp_http_client(headers=headers))
    else:
        server = StdioServerParameters(command=command[0], args=command[1:],
                                       env=scenario.get("env"))
    options = {"mode": scenario.get("mode", "legacy")}
    if "client_info" in scenario:
        options["client_info"] = types.Implementation(**scenario["client_info"])
    if scenario.get("elicit", True):
        options["elicitation_callback"] = elicit
    if scenario.get("sampling"):
        options["sampling_callback"] = sample
    if "roots" in scenario:
        async def list_roots(context):
            return types.ListRootsResult(
                roots=[types.Root(uri=uri) for uri in scenario["roots"]])
        options["list_roots_callback"] = list_roots
    out = {}
    async with Client(server, **options) as client:
        out["instructions"] = client.instructions
        if scenario.get("list_tools"):
            listed = await client.list_tools()
            out["tools"] = [tool.model_dump(mode="json", by_alias=True, exclude_none=True)
                            for tool in listed.tools]
        out["calls"] = []
        left = []
        for call in scenario.get("calls", []):
            if "steps" in call:
                out["calls"].append(await by_hand(client, call))
                continue
            if "cancel_after" in call or "leave_after" in call:
                # A host's Esc while the call waits: cancelled (the SDK sends
                # notifications/cancelled) or, as Gemini CLI does, left without
                # a word; then another window may answer.
                task = asyncio.create_task(
                    client.call_tool(call["tool"], call["arguments"]))
                await asyncio.sleep(call.get("cancel_after", call.get("leave_after")))
                if "leave_after" in call:
                    left.append(task)
                    out["calls"].append({"left": True})
                    continue
                task.cancel()
                try:
                    await task
                except asyncio.CancelledError:
                    pass
                await asyncio.sleep(0.5)
                if call.get("then_elsewhere"):
                    await elsewhere(scenario["elsewhere_command"], call["then_elsewhere"])
                out["calls"].append({"cancelled": True})
                continue
            stop.clear()
            if "exit_at_round" in call:
                stop["exit_at_round"] = call["exit_at_round"]
            if "cancel_at_round" in call:
                queue[:] = list(call.get("responses", []))
                rounds.clear()
                stop.update(cancel_at_round=call["cancel_at_round"],
                            shown=asyncio.Event(), cancelled=asyncio.Event())
                task = asyncio.create_task(client.call_tool(call["tool"], call["arguments"]))
                await stop["shown"].wait()
                task.cancel()
                try:
                    await task
                except asyncio.CancelledError:
                    pass
                # The server has the notification; let it record the end.
                await asyncio.sleep(0.5)
                stop["cancelled"].set()
                out["calls"].append({"rounds": list(rounds), "cancelled": True})
                continue
            queue[:] = list(call.get("responses", []))
            rounds.clear()
            samples[:] = list(call.get("samples", []))
            sampled.clear()
            if "delay" in call:
                stop["delay"] = call["delay"]
            stop["elsewhere"] = call.get("elsewhere", [])
            told = []

            async def progress(value, total, message):
                told.append([value, message])

            callback = progress if call.get("progress") else None
            waiting = call.get("elsewhere_while_waiting")
            if waiting:
                async def act_later(waiting=waiting):
                    await asyncio.sleep(waiting["after"])
                    await elsewhere(scenario["elsewhere_command"], waiting["actions"])
                later = asyncio.create_task(act_later())
            result = await client.call_tool(call["tool"], call["arguments"],
                                            progress_callback=callback)
            if waiting:
                await later
            done = {
                "rounds": list(rounds),
                "isError": bool(result.is_error),
                "text": [block.text for block in result.content if block.type == "text"],
                "structuredContent": result.structured_content,
            }
            if call.get("progress"):
                done["progress"] = told
            if scenario.get("sampling"):
                done["sampled"] = list(sampled)
            out["calls"].append(done)
        # What each left call got in the end (nobody read it).
        if left:
            out["left"] = []
        for task in left:
            try:
                result = await asyncio.wait_for(task, 10)
                out["left"].append({
                    "isError": bool(result.is_error),
                    "text": [block.text for block in result.content if block.type == "text"]})
            except asyncio.TimeoutError:
                out["left"].append("still waiting")
    json.dump(out, sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")


scenario_url = ""
scenario_token = ""


async def elsewhere(command, actions):
    """Runs another surface's actions on the log; ends the client if they fail.
    Over HTTP, the server's URL is in its environment as MCP_URL, its token
    as MCP_TOKEN."""
    process = await asyncio.create_subprocess_exec(
        *command, json.dumps(actions),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "MCP_URL": scenario_url, "MCP_TOKEN": scenario_token})
    out, err = await process.communicate()
    if process.returncode != 0:
        sys.stderr.write("elsewhere failed: " + err.decode() + out.decode())
        sys.stderr.flush()
        os._exit(3)


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
