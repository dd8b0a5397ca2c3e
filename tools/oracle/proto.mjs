#!/usr/bin/env node
// The protobuf encoding of vector streams, by the reference's own encoder
// and decoder (@ag-ui/proto 1.0.0): each event encoded with `encode`, framed
// with its 4-byte big-endian length (application/vnd.ag-ui.event+proto),
// and decoded back with `decode`, which is what a reference client folds.
//
//   node proto.mjs < streams.jsonl > encoded.jsonl
//
// Output, one line per input vector: {"name", "proto": hex of the whole
// stream, "events": the decoded events}. The proto schema cannot carry
// every stream: an event type it has no arm for (the retired THINKING_*
// events, unknown types) or an event the reference's own encoder or
// decoder refuses ends the stream there ("cut": why); a stream whose first
// event is such is left out ({"name", "skip": why}). The expectation is then
// the oracle (run.mjs) over the decoded events: tools/vectors/proto.sh.

import { createInterface } from "node:readline";
import { encode, decode } from "@ag-ui/proto";

// The encoder warns (and encodes as given) when the schema rejects an
// event; those warnings are expected for the invalid streams.
console.warn = () => {};

const ARMS = new Set([
  "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END", "TEXT_MESSAGE_CHUNK",
  "TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END", "TOOL_CALL_CHUNK", "TOOL_CALL_RESULT",
  "STATE_SNAPSHOT", "STATE_DELTA", "MESSAGES_SNAPSHOT", "ACTIVITY_SNAPSHOT", "ACTIVITY_DELTA",
  "RAW", "CUSTOM", "RUN_STARTED", "RUN_FINISHED", "RUN_ERROR", "STEP_STARTED", "STEP_FINISHED",
  "REASONING_START", "REASONING_MESSAGE_START", "REASONING_MESSAGE_CONTENT",
  "REASONING_MESSAGE_END", "REASONING_MESSAGE_CHUNK", "REASONING_END",
  "REASONING_ENCRYPTED_VALUE", "SUBAGENT_STARTED", "SUBAGENT_FINISHED", "SUBAGENT_ERROR",
]);

function frame(bytes) {
  const out = new Uint8Array(4 + bytes.length);
  new DataView(out.buffer).setUint32(0, bytes.length, false);
  out.set(bytes, 4);
  return out;
}

function convert(vector) {
  const parts = [];
  const decoded = [];
  let cut;
  for (const [i, event] of vector.events.entries()) {
    if (event === null || typeof event !== "object" || !ARMS.has(event.type)) {
      cut = `event ${i}: no proto arm for ${JSON.stringify(event?.type)}`;
      break;
    }
    let bytes;
    try {
      bytes = encode(event);
      decoded.push(decode(bytes));
    } catch (e) {
      cut = `event ${i}: the reference cannot carry it: ${e.message}`;
      break;
    }
    parts.push(frame(bytes));
  }
  if (parts.length === 0) return { name: vector.name, skip: cut };
  const hex = parts.map((p) => Buffer.from(p).toString("hex")).join("");
  return { name: vector.name, ...(cut ? { cut } : {}), proto: hex, events: decoded };
}

const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of rl) {
  if (!line.trim()) continue;
  process.stdout.write(JSON.stringify(convert(JSON.parse(line))) + "\n");
}
