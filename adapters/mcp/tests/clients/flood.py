"""Sends COUNT stateless first rounds (protocol 2026-07-28) of one `ask_user`
call to the MCP server at URL with TOKEN, none of them ever retried, each on a
connection of its own; prints how many got each result, as JSON: the form asked
for ("input_required") or the text of the tool result.

Usage: python flood.py URL TOKEN COUNT
"""

import http.client
import json
import sys
import urllib.parse

url, token, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
where = urllib.parse.urlsplit(url)
meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
        "io.modelcontextprotocol/clientInfo": {"name": "flood", "version": "1"}}
call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
    "name": "ask_user", "_meta": meta,
    "arguments": {"questions": [{"id": "ok", "text": "Deploy now?", "answer_type": "boolean"}]}}}
headers = {"Authorization": "Bearer " + token, "Content-Type": "application/json",
           "Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2026-07-28",
           "Mcp-Method": "tools/call", "Mcp-Name": "ask_user"}
body = json.dumps(call)
seen = {}
for _ in range(count):
    connection = http.client.HTTPConnection(where.hostname, where.port, timeout=60)
    connection.request("POST", where.path, body.encode(), headers)
    response = connection.getresponse()
    text = response.read().decode()
    connection.close()
    data = [line[5:].strip() for line in text.splitlines() if line.startswith("data:")]
    message = json.loads(data[-1]) if data else {"status": response.status, "body": text}
    result = message.get("result", message)
    if result.get("resultType") == "input_required":
        key = "input_required"
    else:
        key = " ".join(block.get("text", "") for block in result.get("content", [])) or json.dumps(result)
    seen[key] = seen.get(key, 0) + 1
print(json.dumps(seen))
