#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets from the conformance vectors.

Usage: python3 fuzz/seed.py   (from anywhere; writes fuzz/corpus/<target>/)
Every target's input starts with two seed bytes that choose the split.
"""
import hashlib
import json
import pathlib

here = pathlib.Path(__file__).resolve().parent
vectors = here.parent / "tests" / "vectors"
corpus = here / "corpus"


def write(target, data):
    d = corpus / target
    d.mkdir(parents=True, exist_ok=True)
    (d / hashlib.sha1(data).hexdigest()).write_bytes(data)


def compact(v):
    return json.dumps(v, separators=(",", ":"), ensure_ascii=False)


for path in sorted(vectors.glob("*.jsonl")):
    for n, line in enumerate(path.read_text(encoding="utf-8").split("\n")):
        if not line.strip():
            continue
        vec = json.loads(line)
        events = vec["events"]
        ndjson = "".join(compact(e) + "\n" for e in events).encode()
        sse = "".join("data: " + compact(e) + "\n\n" for e in events).encode()
        split = bytes([n % 256, (n * 7) % 256])
        # Streams for the framer, the pipeline and the reducer.
        if n % 3 == 0 or path.name == "handmade.jsonl":
            write("framer", split + ndjson)
            write("framer", split + sse)
            write("pipeline", split + ndjson)
            write("pipeline", split + sse)
            write("reducer", split + ndjson)
        # Single events for the tokenizer.
        for e in events[:4]:
            write("tokenizer", split + compact(e).encode())
        # JSON Patch: every STATE_DELTA / ACTIVITY_DELTA against the state
        # the vector expects, and against {}.
        for e in events:
            patch = e.get("delta") if e.get("type") == "STATE_DELTA" else e.get("patch")
            if isinstance(patch, list):
                state = vec["expect"].get("state", {})
                write("patch", compact([state, patch]).encode())
                write("patch", compact([{}, patch]).encode())
# The protobuf encodings of the same streams (tests/vectors/proto/, made by
# @ag-ui/proto's encoder) for the protobuf framer and pipeline.
for path in sorted((vectors / "proto").glob("*.jsonl")):
    for n, line in enumerate(path.read_text(encoding="utf-8").split("\n")):
        if not line.strip():
            continue
        data = bytes.fromhex(json.loads(line)["proto"])
        split = bytes([n % 256, (n * 7) % 256])
        if n % 3 == 0 or path.name == "handmade.jsonl":
            write("proto_framer", split + data)
            write("proto_pipeline", split + data)
print("corpora written to", corpus)
