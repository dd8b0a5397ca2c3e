#!/usr/bin/env python3
"""Pipes the protobuf encodings of the conformance streams
(tests/vectors/proto/streams.jsonl, made by @ag-ui/proto's encoder) through
the serial firmware built with the feature `proto`, in QEMU, and compares
each verdict line with the reference outcome, as vectors.py does for the
text encodings.

Usage: proto_vectors.py PROTO_STREAMS.jsonl TEXT_STREAMS.jsonl SERIAL_SH
           [--stride K] [--stack-out FILE]

The proto build reads a 4-byte big-endian stream length first (binary
frames may hold the EOT byte that ends a text stream), so each stream is
sent as its length and its bytes. The text streams (same names) say which
streams carry an id over the firmware's capacity (skipped, as vectors.py
skips them). Vectors marked `oracle-unproven` have no trustworthy
expectation and are skipped, as tests/tests/proto_conformance.rs skips them.
"""

import argparse
import json
import os
import sys
from concurrent.futures import ThreadPoolExecutor

from vectors import check, nested_message_error, over_capacity, run_one


def frame_count(data):
    """Frames in a length-prefixed stream (a cut last frame counts)."""
    n, at = 0, 0
    while at < len(data):
        size = int.from_bytes(data[at:at + 4], "big")
        at += 4 + size
        n += 1
    return n


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("proto_streams")
    ap.add_argument("text_streams")
    ap.add_argument("serial_sh")
    ap.add_argument("--stride", type=int, default=1)
    ap.add_argument("--stack-out")
    args = ap.parse_args()

    with open(args.text_streams, encoding="utf-8") as f:
        text = {v["name"]: v for v in map(json.loads, filter(str.strip, f))}
    with open(args.proto_streams, encoding="utf-8") as f:
        vectors = [json.loads(line) for line in f if line.strip()]
    jobs, skipped, unproven = [], 0, 0
    for v in vectors[::args.stride]:
        if v["from"] == "oracle-unproven":
            unproven += 1
            continue
        if over_capacity(text[v["name"]]["events"]):
            skipped += 1
            continue
        data = bytes.fromhex(v["proto"])
        # check() counts accepted frames of a clean stream from `events`.
        vec = {"name": v["name"], "expect": v["expect"],
               "events": [None] * frame_count(data)}
        jobs.append((vec, len(data).to_bytes(4, "big") + data))

    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        results = list(pool.map(lambda j: run_one(args.serial_sh, j[1]), jobs))

    matched, mismatched, lenient, peak = 0, 0, 0, 0
    for (v, _), (rc, out, stack) in zip(jobs, results):
        lines = out.splitlines()
        reason = None
        if rc != 0:
            reason = f"exit status {rc}"
        elif len(lines) != 1:
            reason = f"expected one line, got {len(lines)}"
        else:
            try:
                reason = check(v, json.loads(lines[0]))
            except json.JSONDecodeError:
                reason = "verdict is not JSON"
        if stack is None:
            reason = reason or "no stack report"
        else:
            peak = max(peak, stack)
        if reason is None:
            matched += 1
            lenient += nested_message_error(v["expect"]["error"])
        else:
            mismatched += 1
            print(f"MISMATCH {v['name']}: got {out.strip()!r}: {reason}", file=sys.stderr)

    print(f"proto serial streams: {len(jobs)} run, {skipped} skipped over capacity, "
          f"{unproven} without a trustworthy expectation, {lenient} by the nested-message "
          f"rule; peak stack {peak} bytes")
    print(f"proto serial verdicts: {matched} matched, {mismatched} mismatched")
    if args.stack_out:
        with open(args.stack_out, "w", encoding="utf-8") as f:
            f.write(f"{peak}\n")
    return 1 if mismatched or not jobs else 0


if __name__ == "__main__":
    sys.exit(main())
