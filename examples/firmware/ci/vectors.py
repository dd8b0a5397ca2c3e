#!/usr/bin/env python3
"""Pipes conformance streams through the serial firmware in QEMU and
compares each verdict line with the reference outcome.

Usage: vectors.py STREAMS.jsonl SERIAL_SH [--stride K] [--stack-out FILE]

Every K-th stream (default 1: all) is encoded in one of four ways, taking
turns (NDJSON, NDJSON with sorted keys / CRLF / blank lines, SSE, SSE over
many `data:` lines with comments and CR / CRLF ends), piped to SERIAL_SH,
and its verdict compared with the stream's `expect`:
  ok        == (expect.error is null)
  accepted  == expect.error.index, or the number of events
  index     == expect.error.index
  stage     == expect.error.kind
  code      == the reference message mapped to our code by its wording
The encodings and the wording table mirror tests/tests/common/mod.rs.
"""

import argparse
import json
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

# The firmware's capacities (agui_core::DefaultPipeline).
ID_CAPACITY = 64

# tests/tests/common/mod.rs `verify_code`: reference wording -> our code.
VERIFY_CODES = [
    ("First event must be", "first_event"),
    ("has already errored", "run_errored"),
    ("has already finished", "run_finished"),
    ("while a run is still active", "run_active"),
    ("A text message with ID", "message_active"),
    ("No active text message", "message_not_active"),
    ("A tool call with ID", "tool_call_active"),
    ("No active tool call", "tool_call_not_active"),
    ("is already active for", "step_active"),
    ("that was not started", "step_not_active"),
    ("while steps are still active", "unclosed_steps"),
    ("while text messages are still active", "unclosed_messages"),
    ("while tool calls are still active", "unclosed_tool_calls"),
    ("A thinking step is already in progress", "thinking_active"),
    ("A thinking step is not in progress", "thinking_not_active"),
    ("No active thinking step", "thinking_not_active"),
    ("A thinking message is already in progress", "thinking_message_active"),
    ("No active thinking message", "thinking_message_not_active"),
]


def expected_code(kind, message):
    """tests/tests/common/mod.rs `expected_code`."""
    if kind == "decode":
        return "decode"
    if kind == "transform":
        return "chunk_missing_name" if "toolCallName" in message else "chunk_missing_id"
    for needle, code in VERIFY_CODES:
        if needle in message:
            return code
    raise SystemExit(f"no code for reference message {message!r}")


def compact(value):
    # serde_json's compact form: no spaces, non-ASCII kept, map keys sorted.
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, sort_keys=True)


def type_first(ev):
    keys = sorted(ev, key=lambda k: (k != "type", k))
    return "{" + ",".join(compact(k) + ":" + compact(ev[k]) for k in keys) + "}"


def ndjson(events):
    return "".join(type_first(ev) + "\n" for ev in events)


def ndjson_sorted_crlf(events):
    return "".join(compact(ev) + "\r\n \t\r\n" for ev in events)


def sse(events):
    return "".join("data: " + type_first(ev) + "\n\n" for ev in events)


def sse_multiline(events):
    out = "\ufeff: a comment\r\n"
    for i, ev in enumerate(events):
        eol = "\r\n" if i % 2 == 0 else "\r"
        out += "event: agui" + eol + f"id: {i}" + eol
        pretty = json.dumps(ev, indent=2, ensure_ascii=False, sort_keys=True)
        for line in pretty.split("\n"):
            out += "data:" + line + eol
        out += eol
    return out


ENCODINGS = [("ndjson", ndjson), ("ndjson-sorted-crlf", ndjson_sorted_crlf),
             ("sse", sse), ("sse-multiline", sse_multiline)]


def over_capacity(events):
    """An id or name longer than the firmware's ID slot (none should be)."""
    return any(
        isinstance(v, str) and (k.endswith("Id") or k.endswith("Name"))
        and len(v.encode()) > ID_CAPACITY
        for ev in events for k, v in ev.items())


def nested_message_error(err):
    # The core checks the top-level schema; nested messages (inside
    # MESSAGES_SNAPSHOT or RUN_STARTED.input) are the alloc layer's.
    return err is not None and err["kind"] == "decode" and (
        err["message"].startswith("messages.") or err["message"].startswith("input."))


def run_one(serial_sh, data):
    """Runs SERIAL_SH on `data` (text, or bytes as the proto build's)."""
    if isinstance(data, str):
        data = data.encode()
    proc = subprocess.run([serial_sh], input=data, capture_output=True, timeout=120)
    stack = [int(m) for m in re.findall(rb"stack: used (\d+) bytes", proc.stderr)]
    return proc.returncode, proc.stdout.decode(errors="replace"), max(stack, default=None)


def check(vector, got):
    """None when `got` (the verdict) matches the vector, else a reason."""
    err = vector["expect"]["error"]
    gerr = got.get("error")
    if nested_message_error(err):
        if gerr is None or gerr["index"] > err["index"]:
            return None
        return f"nested-message rule: got error at {gerr['index']}, reference {err['index']}"
    if err is None:
        want = {"ok": True, "accepted": len(vector["events"]), "error": None}
    else:
        want = {"ok": False, "accepted": err["index"],
                "error": {"index": err["index"], "stage": err["kind"],
                          "code": expected_code(err["kind"], err["message"])}}
    return None if got == want else f"want {compact(want)}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("streams")
    ap.add_argument("serial_sh")
    ap.add_argument("--stride", type=int, default=1)
    ap.add_argument("--stack-out")
    args = ap.parse_args()

    with open(args.streams, encoding="utf-8") as f:
        vectors = [json.loads(line) for line in f if line.strip()]
    picked = vectors[::args.stride]
    jobs, skipped = [], 0
    for n, v in enumerate(picked):
        if over_capacity(v["events"]):
            skipped += 1
            continue
        label, encode = ENCODINGS[n % len(ENCODINGS)]
        jobs.append((v, label, encode(v["events"])))

    # Two QEMUs at a time (the machine has two cores).
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        results = list(pool.map(lambda j: run_one(args.serial_sh, j[2]), jobs))

    matched, mismatched, lenient, peak = 0, 0, 0, 0
    for (v, label, _), (rc, out, stack) in zip(jobs, results):
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
            print(f"MISMATCH {v['name']} [{label}]: got {out.strip()!r}: {reason}", file=sys.stderr)

    print(f"serial streams: {len(jobs)} run, {skipped} skipped over capacity, "
          f"{lenient} by the nested-message rule; peak stack {peak} bytes")
    print(f"serial verdicts: {matched} matched, {mismatched} mismatched")
    if args.stack_out:
        with open(args.stack_out, "w", encoding="utf-8") as f:
            f.write(f"{peak}\n")
    return 1 if mismatched or not jobs else 0


if __name__ == "__main__":
    sys.exit(main())
