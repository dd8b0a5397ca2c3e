#!/usr/bin/env node
// Cross-check of run.mjs: replays each 1.0 vector through the bundled
// client's real HttpAgent (a fetch that serves the events as an SSE body,
// one frame per read) and compares the agent's final messages and state, and
// whether the run failed, with the vector's expectations.
//
//   node crosscheck.mjs tests/vectors/v1/generated.jsonl
import path from "node:path";
import { fileURLToPath } from "node:url";
import { readFileSync } from "node:fs";

const here = path.dirname(fileURLToPath(import.meta.url));
const ref = await import(path.join(here, "dist/client-1.0.0.mjs"));
console.warn = () => {};
console.error = () => {};

function sseBody(events) {
  let i = 0;
  return new ReadableStream({
    async pull(controller) {
      // One frame per read, after the previous one has been fully processed.
      await new Promise((r) => setImmediate(r));
      await new Promise((r) => setImmediate(r));
      if (i >= events.length) return controller.close();
      controller.enqueue(new TextEncoder().encode(`data: ${JSON.stringify(events[i++])}\n\n`));
    },
  });
}

function canon(v) {
  return JSON.stringify(v, (k, x) => (x && typeof x === "object" && !Array.isArray(x) ? Object.fromEntries(Object.keys(x).sort().map((key) => [key, x[key]])) : x));
}

let same = 0;
let total = 0;
const diffs = [];
for (const line of readFileSync(process.argv[2], "utf8").split("\n")) {
  if (!line.trim()) continue;
  const v = JSON.parse(line);
  const agent = new ref.HttpAgent({
    url: "http://127.0.0.1:9/agent",
    threadId: "thread",
    agentId: "agent",
    // The counter restarts when the request is made, so ids the compatibility
    // boundary mints count from 1 as in run.mjs.
    fetch: async () => {
      globalThis.__aguiResetMint?.();
      return new Response(sseBody(v.events), { headers: { "content-type": "text/event-stream" } });
    },
  });
  let failed = false;
  try {
    await agent.runAgent({ runId: "run" });
  } catch {
    failed = true;
  }
  total++;
  const ok =
    canon(agent.messages) === canon(v.expect.messages) &&
    canon(agent.state) === canon(v.expect.state) &&
    failed === (v.expect.error !== null);
  if (ok) same++;
  else diffs.push(v.name);
}
console.log(`${same}/${total} agree with the real HttpAgent (messages, state, failed or not)`);
for (const d of diffs.slice(0, 30)) console.log(`  differs: ${d}`);
