#!/usr/bin/env node
// Joins proto.mjs's encodings with their expectations, line by line:
// {"name", "cut"?, "proto", "expect", "from"}. The source vector's own
// expectation (from the reference the vectors came from) stands where the
// reference's decoder gives back exactly its events (compared as JSON, key
// order free), or where the oracle folds the decoded events as it folds the
// source events. Otherwise (a cut, proto3 defaults filled in, keys the
// schema has no field for dropped, and the fold changed) it is the oracle's
// fold of the decoded events; "from" says "oracle", or "oracle-unproven"
// when the oracle does not reproduce the source vector itself (a known
// difference between the oracle's release and that reference: the test
// leaves those out and counts them).
//   node proto-merge.mjs source.jsonl encoded.jsonl oracle.jsonl source-oracle.jsonl protocol
import { readFileSync } from "node:fs";
import { isDeepStrictEqual } from "node:util";

const lines = (f) => readFileSync(f, "utf8").split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));
const source = new Map(lines(process.argv[2]).map((v) => [v.name, v]));
const encoded = lines(process.argv[3]).filter((v) => v.proto !== undefined);
const oracle = lines(process.argv[4]);
const sourceOracle = new Map(lines(process.argv[5]).map((v) => [v.name, v]));
if (encoded.length !== oracle.length) throw new Error("line counts differ");
// JSON.parse(JSON.stringify(...)) drops undefined and orders nothing:
// isDeepStrictEqual ignores key order.
const plain = (v) => JSON.parse(JSON.stringify(v));
for (const [i, v] of encoded.entries()) {
  const o = oracle[i];
  if (o.name !== v.name) throw new Error(`line ${i}: ${v.name} vs ${o.name}`);
  const src = source.get(v.name);
  const srcOracle = sourceOracle.get(v.name).expect;
  const same =
    !v.cut &&
    (isDeepStrictEqual(plain(src.events), plain(v.events)) ||
      isDeepStrictEqual(plain(o.expect), plain(srcOracle)));
  const reliable = isDeepStrictEqual(plain(srcOracle), plain(src.expect));
  const out = {
    name: v.name,
    ...(v.cut ? { cut: v.cut } : {}),
    from: same ? "vector" : reliable ? "oracle" : "oracle-unproven",
    proto: v.proto,
    expect: same ? src.expect : o.expect,
  };
  process.stdout.write(JSON.stringify(out) + "\n");
}
