// Drives `askuser mcp` with the official MCP TypeScript SDK, as a person at a
// client would. Usage: node drive.mjs SCENARIO.json
//
// ASKUSER_TEST_TS_SDK is the directory the SDK was installed into (`npm install
// --prefix DIR @modelcontextprotocol/sdk@VERSION`, done by scripts/test-env).
//
// The scenario: {"command": [...] or "url": URL (streamable HTTP), "calls": [{"tool": NAME, "arguments": {...},
// "responses": [{"action": "accept", "content": {...}}, ...], "delay_ms": N,
// "timeout_ms": N, "reset_on_progress": bool, "abort_at_round": N}]}.
// The elicitation handler answers each form with the next scripted response
// after `delay_ms`; `abort_at_round` aborts the call (the SDK sends
// `notifications/cancelled`) while that round is shown. Prints one JSON document:
// for each call the rounds' messages, the progress notifications, and the
// result or the error's message.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const sdk = process.env.ASKUSER_TEST_TS_SDK;
if (!sdk) {
  console.error("ASKUSER_TEST_TS_SDK is not set (see scripts/test-env)");
  process.exit(2);
}
const module = (path) =>
  import(pathToFileURL(join(sdk, "node_modules/@modelcontextprotocol/sdk/dist/esm", path)).href);
const { Client } = await module("client/index.js");
const { StdioClientTransport } = await module("client/stdio.js");
const { StreamableHTTPClientTransport } = await module("client/streamableHttp.js");
const { ElicitRequestSchema, CallToolResultSchema } = await module("types.js");

const scenario = JSON.parse(readFileSync(process.argv[2], "utf8"));
let transport;
if (scenario.url) {
  // askuser mcp --http takes only requests that carry its token.
  const headers = scenario.token ? { Authorization: `Bearer ${scenario.token}` } : {};
  transport = new StreamableHTTPClientTransport(new URL(scenario.url), { requestInit: { headers } });
} else {
  const [command, ...args] = scenario.command;
  transport = new StdioClientTransport({ command, args, stderr: "ignore" });
}
const client = new Client(
  { name: "askuser-ts-test", version: "1.0.0" },
  { capabilities: { elicitation: { form: {} } } },
);

let current = null;
client.setRequestHandler(ElicitRequestSchema, async (request) => {
  const call = current;
  call.rounds.push(request.params.message);
  if (call.abortAt === call.rounds.length) {
    call.abort.abort();
    // Answered late, after the call was cancelled: the server must not use it.
    await new Promise((resolve) => setTimeout(resolve, 300));
    return { action: "cancel" };
  }
  await new Promise((resolve) => setTimeout(resolve, call.delay));
  return call.responses.shift() ?? { action: "cancel" };
});

await client.connect(transport);
const out = { calls: [] };
for (const step of scenario.calls) {
  const call = {
    rounds: [],
    progress: [],
    responses: [...(step.responses ?? [])],
    delay: step.delay_ms ?? 0,
    abortAt: step.abort_at_round ?? null,
    abort: new AbortController(),
  };
  current = call;
  const started = Date.now();
  const done = { rounds: call.rounds, progress: call.progress };
  try {
    const result = await client.callTool(
      { name: step.tool, arguments: step.arguments },
      CallToolResultSchema,
      {
        timeout: step.timeout_ms ?? 60000,
        resetTimeoutOnProgress: step.reset_on_progress ?? false,
        onprogress: (p) => call.progress.push([p.progress, p.message ?? null]),
        signal: call.abort.signal,
      },
    );
    done.isError = Boolean(result.isError);
    done.structuredContent = result.structuredContent ?? null;
  } catch (error) {
    done.error = String(error?.message ?? error);
  }
  done.took_ms = Date.now() - started;
  out.calls.push(done);
  // Let the server record what a cancelled call left.
  await new Promise((resolve) => setTimeout(resolve, 500));
}
await client.close();
process.stdout.write(JSON.stringify(out, null, 2) + "\n");
