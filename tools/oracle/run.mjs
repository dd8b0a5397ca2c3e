#!/usr/bin/env node
// The oracle: runs event streams through the reference AG-UI client and
// writes the results in the vector format of docs/SPEC.md section 8 (plus the
// 1.0 additions documented in tests/vectors/v1/README.md).
//
//   node run.mjs --protocol 1.0    < streams.jsonl > vectors.jsonl
//   node run.mjs --protocol 0.0.58 < streams.jsonl > vectors.jsonl
//   node run.mjs --protocol 0.0.58 --check tests/vectors/streams.jsonl
//   node run.mjs --protocol 1.0    --check tests/vectors/v1/generated.jsonl
// (0.0.59 is accepted too: the nearest published release to the August
// reference the 745 vectors came from; see tests/vectors/v1/README.md.)
//
// Input: one JSON object per line, {"name", "events": [...]} (any other keys,
// such as an existing "expect", are ignored and dropped). Output: the same
// line with "expect" filled in (and "protocol" for 1.0).
//
// The inbound pipeline is composed from the bundled client's own stages, in
// the order its AbstractAgent.runAgent composes them for an HttpAgent:
//   1.0:    transport frame check -> CompatibilityBoundary -> enforceEvents
//           -> transformChunks -> verifyEvents -> defaultApplyEvents
//   0.0.58: EventSchemas.parse (transform/http.ts) -> transformChunks
//           -> verifyEvents -> defaultApplyEvents
// The stages up to verification run synchronously per frame, so an error is
// attributed to the frame being processed. The verified events are then
// folded by the client's reducer in order; events of the failing frame that
// came before the failing event are folded too (SPEC section 0).
// crosscheck.mjs checks this composition against the client's real HttpAgent.

import path from "node:path";
import { fileURLToPath } from "node:url";
import { createInterface } from "node:readline";

const here = path.dirname(fileURLToPath(import.meta.url));

function parseArgs(argv) {
  const args = { protocol: "1.0", check: null, input: null };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--protocol") args.protocol = argv[++i];
    else if (a === "--check") args.check = argv[++i];
    else if (a === "--in") args.input = argv[++i];
    else throw new Error(`unknown argument '${a}'`);
  }
  if (!["1.0", "0.0.58", "0.0.59"].includes(args.protocol)) {
    throw new Error(`--protocol must be 1.0, 0.0.58 or 0.0.59, not '${args.protocol}'`);
  }
  return args;
}

const args = parseArgs(process.argv.slice(2));
const bundle = path.join(here, "dist", `client-${args.protocol === "1.0" ? "1.0.0" : args.protocol}.mjs`);
const ref = await import(bundle).catch((e) => {
  console.error(`cannot load ${bundle} (run 'npm ci && node build.mjs' in tools/oracle): ${e.message}`);
  process.exit(2);
});
const V1 = args.protocol === "1.0";

// ---------------------------------------------------------------- errors

class StageError extends Error {
  constructor(stage, message) {
    super(message);
    this.stage = stage;
  }
}

/** Text of an error as the vectors carry it: zod issues as "path: message". */
function errorText(err) {
  const issues = err && (err.issues || err.errors);
  if (Array.isArray(issues) && issues.length > 0 && issues[0].message !== undefined) {
    return issues.map((i) => `${(i.path || []).join(".")}: ${i.message}`).join("; ");
  }
  return err instanceof Error ? err.message : String(err);
}

const tagStage = (stage) =>
  ref.catchError((err) => {
    throw err instanceof StageError ? err : new StageError(stage, errorText(err));
  });

// -------------------------------------------------------------- warnings

let currentFrame = 0;
let warnings = [];

/** Structured reading of one console.warn line of the reference. */
function classifyWarning(text) {
  let m;
  if (text.startsWith("[ag-ui][enforce] ")) {
    if ((m = /^\[ag-ui\]\[enforce\] Dropping unrecognised event '(.*)': /s.exec(text))) {
      return { stage: "enforce", code: "unknown_event", type: m[1] };
    }
    if ((m = /^\[ag-ui\]\[enforce\] Removed unrecognised material at '(.*)' on ([A-Z_]+)\./s.exec(text))) {
      return { stage: "enforce", code: "stripped", type: m[2], path: m[1] };
    }
    return { stage: "enforce", code: "other" };
  }
  if (text.startsWith("[ag-ui][compat] ")) {
    if ((m = /^\[ag-ui\]\[compat\] Converting deprecated (.*) to (.*)\. The old shape/s.exec(text))) {
      return { stage: "compat", code: "converted", from: m[1], to: m[2] };
    }
    if (/^\[ag-ui\]\[compat\] Minting a messageId/.test(text)) return { stage: "compat", code: "minted_id" };
    if (/^\[ag-ui\]\[compat\] A binary content part carries only an id/.test(text)) {
      return { stage: "compat", code: "binary_unconvertible" };
    }
    if (/^\[ag-ui\]\[compat\] Dropping THINKING_START\.title/.test(text)) {
      return { stage: "compat", code: "dropped_title" };
    }
    return { stage: "compat", code: "other" };
  }
  if (text.startsWith("[ag-ui][transform] ")) return { stage: "transform", code: "other" };
  if (text.startsWith("[ag-ui] The producer")) {
    return { stage: "agent", code: /cannot interpret/.test(text) ? "protocol_uninterpretable" : "protocol_newer" };
  }
  return { stage: "apply", code: "apply" };
}

function captureWarnings() {
  const original = console.warn;
  console.warn = (...parts) => {
    const text = parts.map((p) => (typeof p === "string" ? p : p instanceof Error ? p.message : JSON.stringify(p))).join(" ");
    const kind = classifyWarning(text);
    // The boilerplate of classified warnings is left out to keep the vectors
    // small; the apply stage's and unclassified texts are kept whole.
    const keep = kind.code === "apply" || kind.code === "other";
    warnings.push({ index: currentFrame, ...kind, ...(keep ? { message: text } : {}) });
  };
  return () => {
    console.warn = original;
  };
}

// ------------------------------------------------------------- pipeline

function decodeStage() {
  if (V1) {
    // transform/http.ts of 1.0: a frame must be a JSON object with a
    // non-empty string type; everything else is left to enforcement.
    return ref.map((json) => {
      if (typeof json !== "object" || json === null || Array.isArray(json)) {
        throw new StageError("decode", "Invalid event: the frame is not a JSON object.");
      }
      if (typeof json.type !== "string" || json.type.length === 0) {
        throw new StageError("decode", "Invalid event: the frame carries no event type.");
      }
      return json;
    });
  }
  return ref.map((json) => ref.EventSchemas.parse(json));
}

function runInput() {
  return { threadId: "thread", runId: "run", messages: [], state: {}, tools: [], context: [], forwardedProps: {} };
}

/** Frames -> verified events (each tagged with its frame), or the error. */
function verifyStream(frames) {
  const verified = [];
  let error = null;
  const source = new ref.Observable((sub) => {
    for (let i = 0; i < frames.length && !sub.closed; i++) {
      currentFrame = i;
      // structuredClone: the stages may mutate what they are given.
      sub.next(structuredClone(frames[i]));
    }
    sub.complete();
  });
  let events$ = source.pipe(decodeStage(), tagStage("decode"));
  if (V1) {
    const boundary = new ref.CompatibilityBoundary();
    const input = runInput();
    events$ = boundary
      .run(input, { run: () => events$, messages: [], state: {} })
      .pipe(tagStage("decode"), ref.enforceEvents(), tagStage("decode"));
  }
  events$ = events$.pipe(ref.transformChunks(), tagStage("transform"), ref.verifyEvents(), tagStage("verify"));
  events$.subscribe({
    next: (event) => verified.push({ frame: currentFrame, event }),
    error: (err) => {
      error = err instanceof StageError ? err : new StageError("verify", errorText(err));
      error.index = currentFrame;
    },
  });
  return { verified, error };
}

/**
 * What the 1.0 AbstractAgent.runAgent adds as its first subscriber: a
 * RUN_STARTED.protocolVersion newer than "1.0", or outside the grammar
 * "<digits>.<digits>", is warned about (not exported by the package, so
 * restated here from its source).
 */
function warnOnProducerDeclaration(event) {
  const declared = event.protocolVersion;
  if (declared === undefined || declared === "1.0") return;
  if (!/^\d+\.\d+$/.test(declared)) {
    console.warn(`[ag-ui] The producer declared protocol version '${declared}', which this client cannot interpret.`);
    return;
  }
  const [major, minor] = declared.split(".").map(Number);
  if (major > 1 || (major === 1 && minor > 0)) {
    console.warn(
      `[ag-ui] The producer speaks protocol ${declared}; this client speaks 1.0. Unrecognised material will be stripped with warnings.`,
    );
  }
}

/** Folds verified events with the client's reducer; builds the trace. */
async function applyStream(verified) {
  const trace = [];
  const lastGoodArgs = new Map();
  const subscriber = {
    onEvent: ({ event }) => {
      trace.push({ type: event.type, changed: "" });
    },
    onToolCallArgsEvent: ({ event, toolCallBuffer }) => {
      // The reference hands the buffer before the delta; the vectors carry the
      // value after it: the completed text parsed, else the last good value.
      let value = lastGoodArgs.get(event.toolCallId) ?? {};
      try {
        const text = ref.untruncateJson(toolCallBuffer + event.delta);
        value = JSON.parse(typeof text === "string" ? text : JSON.stringify(text));
      } catch {
        // keep the last good value
      }
      lastGoodArgs.set(event.toolCallId, value);
      trace[trace.length - 1].partialArgs = value;
    },
    onToolCallEndEvent: ({ toolCallArgs }) => {
      trace[trace.length - 1].args = toolCallArgs;
    },
  };
  if (V1) {
    subscriber.onRunStartedEvent = ({ event }) => warnOnProducerDeclaration(event);
    subscriber.onRunFinishedEvent = ({ outcome, interrupts, pendingToolCallIds }) => {
      const entry = { type: outcome };
      if (outcome === "interrupt") entry.interrupts = interrupts;
      if (outcome === "success") entry.pendingToolCallIds = pendingToolCallIds;
      trace[trace.length - 1].outcome = structuredClone(entry);
    };
  }
  const agent = { messages: [], state: {}, pendingInterrupts: [] };
  let messages = [];
  let state = {};
  let applyFailure = null;
  const source = new ref.Observable((sub) => {
    (async () => {
      for (const { frame, event } of verified) {
        currentFrame = frame;
        sub.next(event);
        // Let the reducer's async hooks settle before the next event, as a
        // network stream would.
        await new Promise((r) => setImmediate(r));
      }
      sub.complete();
    })();
  });
  await new Promise((resolve) => {
    ref.defaultApplyEvents(runInput(), source, agent, [subscriber]).subscribe({
      next: (mutation) => {
        const last = trace[trace.length - 1];
        let flag = "";
        if (mutation.messages !== undefined) {
          messages = structuredClone(mutation.messages);
          flag += "m";
        }
        if (mutation.state !== undefined) {
          state = structuredClone(mutation.state);
          flag += "s";
        }
        if (last && flag) last.changed = flag;
      },
      error: (err) => {
        applyFailure = errorText(err);
        resolve();
      },
      complete: resolve,
    });
  });
  return { trace, messages, state, applyFailure };
}

export async function runStream(frames) {
  warnings = [];
  globalThis.__aguiResetMint?.();
  const restore = captureWarnings();
  try {
    const { verified, error } = verifyStream(frames);
    const folded = await applyStream(verified);
    const expect = {
      error: error ? { index: error.index, kind: error.stage, message: error.message } : null,
      trace: folded.trace,
      messages: folded.messages,
      state: folded.state === undefined ? null : folded.state,
      applyFailure: folded.applyFailure,
    };
    if (V1) expect.warnings = warnings;
    return expect;
  } finally {
    restore();
  }
}

// ---------------------------------------------------------------- compare

/** JSON equality with key order free (the vectors' comparison rule). */
function jsonEqual(a, b) {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== "object") return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) return a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  const ka = Object.keys(a).filter((k) => a[k] !== undefined);
  const kb = Object.keys(b).filter((k) => b[k] !== undefined);
  return ka.length === kb.length && ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && jsonEqual(a[k], b[k]));
}

function differences(got, want) {
  const diffs = [];
  const keys = ["error", "trace", "messages", "state", "applyFailure", ...(V1 ? ["warnings"] : [])];
  for (const key of keys) {
    if (!jsonEqual(JSON.parse(JSON.stringify(got[key] ?? null)), want[key] ?? null)) diffs.push(key);
  }
  return diffs;
}

// ------------------------------------------------------------------- main

async function* lines(file) {
  const stream = file ? (await import("node:fs")).createReadStream(file) : process.stdin;
  for await (const line of createInterface({ input: stream, crlfDelay: Infinity })) {
    if (line.trim() !== "") yield line;
  }
}

function safeParse(text) {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

async function main() {
  if (args.check) {
    let total = 0;
    let same = 0;
    const byField = {};
    for await (const line of lines(args.check)) {
      const vector = JSON.parse(line);
      const got = await runStream(vector.events);
      const diffs = differences(got, vector.expect);
      total++;
      if (diffs.length === 0) same++;
      else {
        for (const d of diffs) byField[d] = (byField[d] ?? 0) + 1;
        console.log(`DIFF ${vector.name}: ${diffs.join(", ")}`);
        if (process.env.ORACLE_VERBOSE) {
          for (const d of diffs) {
            console.log(`  want ${d}: ${JSON.stringify(vector.expect[d])}`);
            console.log(`  got  ${d}: ${JSON.stringify(got[d])}`);
          }
        }
      }
    }
    console.log(`${same}/${total} vectors reproduced exactly (${args.protocol}); differing fields: ${JSON.stringify(byField)}`);
    process.exitCode = same === total ? 0 : 1;
    return;
  }
  for await (const line of lines(args.input)) {
    const stream = JSON.parse(line);
    const expect = await runStream(stream.events);
    // The events are copied as text when the line ends with them, so numbers
    // JavaScript cannot hold exactly (integers beyond 2^53) stay as written.
    const at = line.indexOf('"events":');
    const rawEvents = at >= 0 && line.trimEnd().endsWith("}") ? line.slice(at + 9, line.trimEnd().length - 1) : null;
    const eventsText = rawEvents !== null && safeParse(rawEvents) ? rawEvents : JSON.stringify(stream.events);
    const head = { name: stream.name, ...(V1 ? { protocol: "1.0" } : {}) };
    const headText = JSON.stringify(head).slice(0, -1);
    process.stdout.write(`${headText},"expect":${JSON.stringify(expect)},"events":${eventsText}}\n`);
  }
}

await main();
