// The reference's side of the inbound cross-checks in
// tests/tests/v1_inbound.rs (`dump_events`, `differential`; ignored by
// default). For every stream on stdin ({"name", "events"}, e.g. a vector
// file), runs the 1.0 reference client's frame check, CompatibilityBoundary
// and enforceEvents, frame by frame up to the first error, and prints
//   {"name", "events", "frames": [[event, ...] per frame],
//    "expect": {"error": {"index", "kind": "decode", "message"} | null,
//               "warnings": [{"index", "stage", "code", ...}]}}
// (warnings classified as tools/oracle/run.mjs does). From the repository
// root, after `cd tools/oracle && npm ci && node build.mjs`:
//   node tests/tests/v1_edge/enforced.mjs < tests/vectors/v1/handmade.jsonl
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createInterface } from "node:readline";

const here = path.dirname(fileURLToPath(import.meta.url));
const ref = await import(path.join(here, "../../../tools/oracle/dist/client-1.0.0.mjs"));

let current = 0;
let warnings = [];
console.warn = (...parts) => {
  const text = parts.map((p) => (typeof p === "string" ? p : JSON.stringify(p))).join(" ");
  let m;
  let w = { stage: "other", code: "other", message: text };
  if ((m = /^\[ag-ui\]\[enforce\] Dropping unrecognised event '(.*)': /s.exec(text))) {
    w = { stage: "enforce", code: "unknown_event", type: m[1] };
  } else if ((m = /^\[ag-ui\]\[enforce\] Removed unrecognised material at '(.*)' on ([A-Z_]+)\./s.exec(text))) {
    w = { stage: "enforce", code: "stripped", type: m[2], path: m[1] };
  } else if ((m = /^\[ag-ui\]\[compat\] Converting deprecated (.*) to (.*)\. The old shape/s.exec(text))) {
    w = { stage: "compat", code: "converted", from: m[1], to: m[2] };
  } else if (/^\[ag-ui\]\[compat\] Minting a messageId/.test(text)) {
    w = { stage: "compat", code: "minted_id" };
  } else if (/^\[ag-ui\]\[compat\] A binary content part carries only an id/.test(text)) {
    w = { stage: "compat", code: "binary_unconvertible" };
  } else if (/^\[ag-ui\]\[compat\] Dropping THINKING_START\.title/.test(text)) {
    w = { stage: "compat", code: "dropped_title" };
  }
  warnings.push({ index: current, ...w });
};

function errorText(err) {
  const issues = err && (err.issues || err.errors);
  if (Array.isArray(issues) && issues.length > 0 && issues[0].message !== undefined) {
    return issues.map((i) => `${(i.path || []).join(".")}: ${i.message}`).join("; ");
  }
  return err instanceof Error ? err.message : String(err);
}

function frameCheck(json) {
  if (typeof json !== "object" || json === null || Array.isArray(json)) {
    throw new Error("Invalid event: the frame is not a JSON object.");
  }
  if (typeof json.type !== "string" || json.type.length === 0) {
    throw new Error("Invalid event: the frame carries no event type.");
  }
  return json;
}

for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
  if (line.trim() === "") continue;
  const stream = JSON.parse(line);
  globalThis.__aguiResetMint?.();
  warnings = [];
  const frames = [];
  let error = null;
  const source = new ref.Observable((sub) => {
    for (let i = 0; i < stream.events.length && !sub.closed; i++) {
      current = i;
      frames.push([]);
      sub.next(structuredClone(stream.events[i]));
    }
    sub.complete();
  });
  const boundary = new ref.CompatibilityBoundary();
  const input = { threadId: "t", runId: "r", messages: [], state: {}, tools: [], context: [], forwardedProps: {} };
  boundary
    .run(input, { run: () => source.pipe(ref.map(frameCheck)), messages: [], state: {} })
    .pipe(ref.enforceEvents())
    .subscribe({
      next: (event) => frames[current].push(event),
      error: (err) => {
        error = { index: current, kind: "decode", message: errorText(err) };
        frames.length = current;
      },
    });
  const out = { name: stream.name, expect: { error, warnings }, frames };
  const at = line.indexOf('"events":');
  const raw = at >= 0 && line.trimEnd().endsWith("}") ? line.slice(at + 9, line.trimEnd().length - 1) : null;
  let eventsText = JSON.stringify(stream.events);
  try {
    if (raw !== null) {
      JSON.parse(raw);
      eventsText = raw;
    }
  } catch {}
  process.stdout.write(JSON.stringify(out).slice(0, -1) + `,"events":${eventsText}}\n`);
}
