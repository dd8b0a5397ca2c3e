// A real AG-UI server on the reference TypeScript encoder, for the tests of
// the protobuf transport: every byte on the wire comes from @ag-ui/encoder
// 1.0.0 (`EventEncoder`), which answers in AG-UI's protobuf encoding
// (`application/vnd.ag-ui.event+proto`) when the request's Accept names it
// and in SSE otherwise, as a TypeScript agent built on it does. Only the
// run is scripted (no network, no LLM); it is the scenario of the Python
// backends (README.md):
//
// 1. the user asks: a reasoning message ("The user wants the LED lit. I
//    will call set_led with <colour>."), then a call of the client's tool
//    `set_led` (id `call_set_led_<n>`, n counting the thread's calls) with
//    its arguments `{"color": ..., "on": true}` streamed in pieces; the run
//    ends waiting for the client's result;
// 2. the next run carries the tool result: the answer quotes it,
//    `The LED is set: the device answered "<result>".`, in pieces.
//
// `/` negotiates; `/proto-only` answers 406 to a request that does not
// accept protobuf, so a test can tell that the client asked for it.
//
// Usage: node proto_server.mjs --port N (0 picks a free one). Prints
// `listening on http://127.0.0.1:N/` once the socket accepts connections.
// Needs `npm ci` in this directory (examples/agents/setup.sh does it).

import http from "node:http";
import { EventEncoder } from "@ag-ui/encoder";
import { EventType } from "@ag-ui/core";

const PROTO = "application/vnd.ag-ui.event+proto";
const COLORS = ["red", "green", "blue", "yellow", "white", "purple", "orange"];

function port() {
  const i = process.argv.indexOf("--port");
  return i > 0 ? Number(process.argv[i + 1]) : 8000;
}

/** The text of a message's content: a string, or its text parts joined. */
function text(content) {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content.map((p) => (p && p.type === "text" ? p.text : "")).join("");
  }
  return "";
}

/** The first known colour the latest user message names (green if none). */
function askedColor(messages) {
  const user = [...messages].reverse().find((m) => m.role === "user");
  const words = user ? text(user.content).toLowerCase() : "";
  return COLORS.find((c) => words.includes(c)) ?? "green";
}

/** `s` in pieces of `n` characters. */
function pieces(s, n) {
  const out = [];
  for (let i = 0; i < s.length; i += n) out.push(s.slice(i, i + n));
  return out;
}

/** The run's events, from its input. */
function script(input) {
  const { threadId, runId } = input;
  const messages = input.messages ?? [];
  const events = [{ type: EventType.RUN_STARTED, threadId, runId }];
  const last = messages[messages.length - 1];
  if (last && last.role === "tool") {
    const messageId = `answer-${runId}`;
    const answer = `The LED is set: the device answered "${text(last.content)}".`;
    events.push({ type: EventType.TEXT_MESSAGE_START, messageId, role: "assistant" });
    for (const delta of pieces(answer, 12)) {
      events.push({ type: EventType.TEXT_MESSAGE_CONTENT, messageId, delta });
    }
    events.push({ type: EventType.TEXT_MESSAGE_END, messageId });
  } else {
    const color = askedColor(messages);
    const reasoningId = `reasoning-${runId}`;
    events.push({ type: EventType.REASONING_START, messageId: reasoningId });
    events.push({ type: EventType.REASONING_MESSAGE_START, messageId: reasoningId, role: "reasoning" });
    for (const delta of ["The user wants the LED lit. ", `I will call set_led with ${color}.`]) {
      events.push({ type: EventType.REASONING_MESSAGE_CONTENT, messageId: reasoningId, delta });
    }
    events.push({ type: EventType.REASONING_MESSAGE_END, messageId: reasoningId });
    events.push({ type: EventType.REASONING_END, messageId: reasoningId });
    const calls = messages
      .filter((m) => m.role === "assistant")
      .reduce((n, m) => n + (m.toolCalls?.length ?? 0), 0);
    const toolCallId = `call_set_led_${calls + 1}`;
    const args = `{"color": "${color}", "on": true}`;
    events.push({
      type: EventType.TOOL_CALL_START,
      toolCallId,
      toolCallName: "set_led",
      parentMessageId: `call-${runId}`,
    });
    for (const delta of [args.slice(0, 10), ...pieces(args.slice(10), 8)]) {
      events.push({ type: EventType.TOOL_CALL_ARGS, toolCallId, delta });
    }
    events.push({ type: EventType.TOOL_CALL_END, toolCallId });
  }
  events.push({ type: EventType.RUN_FINISHED, threadId, runId });
  return events;
}

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", async () => {
    const accept = req.headers.accept ?? "";
    if (req.method !== "POST") {
      res.writeHead(405).end("POST a RunAgentInput\n");
      return;
    }
    if (req.url === "/proto-only" && !accept.includes(PROTO)) {
      res.writeHead(406, { "Content-Type": "text/plain" }).end(`Accept ${PROTO}\n`);
      return;
    }
    let input;
    try {
      input = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    } catch (e) {
      res.writeHead(400, { "Content-Type": "text/plain" }).end(`bad run input: ${e}\n`);
      return;
    }
    const encoder = new EventEncoder({ accept });
    res.writeHead(200, { "Content-Type": encoder.getContentType(), "Cache-Control": "no-cache" });
    for (const event of script(input)) {
      // One write per event, a turn of the event loop apart: the client
      // reads a stream, not one body.
      res.write(encoder.encodeBinary(event));
      await new Promise((resolve) => setImmediate(resolve));
    }
    res.end();
  });
});

server.listen(port(), "127.0.0.1", () => {
  console.log(`listening on http://127.0.0.1:${server.address().port}/`);
});
