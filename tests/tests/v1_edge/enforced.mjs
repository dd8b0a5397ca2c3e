// Cross-check helper for tests/tests/v1_inbound.rs (`dump_events`, ignored
// by default): prints, for every stream on stdin (the vector format), the
// events the 1.0 reference client passes on after its frame check,
// CompatibilityBoundary and enforceEvents, per frame, up to the first error:
//   {"name", "frames": [[event, ...], ...], "error": index | null}
// Run from the repository root after `cd tools/oracle && npm ci && node build.mjs`:
//   node tests/tests/v1_edge/enforced.mjs < tests/vectors/v1/handmade.jsonl
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createInterface } from "node:readline";

const here = path.dirname(fileURLToPath(import.meta.url));
const ref = await import(path.join(here, "../../../tools/oracle/dist/client-1.0.0.mjs"));
console.warn = () => {};

function frameCheck(json) {
  if (typeof json !== "object" || json === null || Array.isArray(json)) throw new Error("frame");
  if (typeof json.type !== "string" || json.type.length === 0) throw new Error("type");
  return json;
}

for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
  if (line.trim() === "") continue;
  const stream = JSON.parse(line);
  globalThis.__aguiResetMint?.();
  const frames = [];
  let error = null;
  let current = 0;
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
      error: () => {
        error = current;
        frames.length = current;
      },
    });
  process.stdout.write(JSON.stringify({ name: stream.name, frames, error }) + "\n");
}
