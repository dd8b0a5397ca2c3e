#!/usr/bin/env python3
"""Instructions per event by pipeline stage, from a callgrind profile.

LTO fuses the pipeline into a few functions, so the split goes by the
source file of each instruction, as `callgrind_annotate --auto=no` lists
them (BENCHMARKS.md, "Cost of a short text delta"):

    python3 examples/bench/stage_split.py cg.client 30584
"""
import re
import subprocess
import sys

# (stage, substrings of a source path), first match wins.
STAGES = [
    ("framing", ["/core/src/frame"]),
    ("tokenizing", ["/core/src/json"]),
    ("decode", ["/core/src/decode", "/core/src/spec", "/core/src/names",
                "str/converts.rs", "str/validations.rs"]),
    ("libc (memcpy, memcmp, malloc)", ["libc", "sysdeps", "./string/", "./malloc/"]),
    ("verify (verify, chunk, pipeline)", ["/core/src/"]),
    ("reduce", ["/alloc-ext/src/reduce", "/alloc-ext/src/index", "/alloc-ext/src/model",
                "/alloc-ext/src/event", "/alloc-ext/src/size"]),
    ("client glue", ["/alloc-ext/src/"]),
    ("output", ["/examples/src/", "serde_json"]),
]
LINE = re.compile(r"\s*([\d,]+)\s+\([^)]*\)\s+(\S+?):")


def stage(path):
    # The standard library's own `library/core/src/` is not the crate `core/`.
    ours = "/rustc/" not in path
    # Paths are absolute or relative to the workspace, as the build had them.
    if ours and not path.startswith(("/", ".")):
        path = "/" + path
    for name, keys in STAGES:
        for key in keys:
            if key in path and (ours or not key.startswith("/core/src/")):
                return name
    return "std / heapless inlined"


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: stage_split.py CALLGRIND_OUT EVENTS")
    out = subprocess.run(["callgrind_annotate", "--auto=no", "--threshold=100", sys.argv[1]],
                         capture_output=True, text=True, check=True).stdout
    events = int(sys.argv[2])
    total = {}
    for line in out.splitlines():
        m = LINE.match(line)
        if m and "PROGRAM TOTALS" not in line:
            name = stage(m.group(2))
            total[name] = total.get(name, 0) + int(m.group(1).replace(",", ""))
    for name, ir in sorted(total.items(), key=lambda kv: -kv[1]):
        print(f"{ir / events:7.0f}  {name}")
    print(f"{sum(total.values()) / events:7.0f}  total")


if __name__ == "__main__":
    main()
