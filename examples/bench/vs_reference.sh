#!/usr/bin/env bash
# agui-replay against the reference client (@ag-ui/client 0.0.58, run the way
# tools/oracle/run.mjs runs it: schema parse, chunks, verify, apply, with a
# trace of every event) on the same generated chat, in the same run.
#
#   bash examples/bench/vs_reference.sh [deltas] [runs]     (default 20000 5)
#
# Prints the median wall time of each and the factor. Needs node + npm (the
# oracle is installed with `npm ci` in tools/oracle on first use).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
deltas="${1:-20000}"
runs="${2:-5}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
cd "$root"
cargo build --release -q -p agui-examples --bin agui-replay --bin agui-bench-core
oracle="$root/tools/oracle"
if [ ! -d "$oracle/node_modules" ]; then
    (cd "$oracle" && npm ci --no-audit --no-fund >/dev/null)
fi
[ -d "$oracle/dist" ] || (cd "$oracle" && node build.mjs >/dev/null)
target/release/agui-bench-core gen chat "$deltas" ndjson >"$tmp/chat.ndjson"
python3 - "$tmp/chat.ndjson" "$tmp/chat.jsonl" <<'PY'
import json, sys
events = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
with open(sys.argv[2], "w") as out:
    out.write(json.dumps({"name": "chat", "events": events}) + "\n")
PY
python3 - "$runs" "$tmp" "$root" <<'PY'
import statistics, subprocess, sys, time
runs, tmp, root = int(sys.argv[1]), sys.argv[2], sys.argv[3]
def median(cmd):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True, cwd=root)
        times.append(time.perf_counter() - start)
    return statistics.median(times)
ref = median(["node", "tools/oracle/run.mjs", "--protocol", "0.0.58", "--in", f"{tmp}/chat.jsonl"])
print(f"reference (node, with trace): {ref * 1e3:.0f} ms")
for args in (["--json"], ["--json", "--trace"]):
    ours = median(["target/release/agui-replay", *args, f"{tmp}/chat.ndjson"])
    print(f"agui-replay {' '.join(args)}: {ours * 1e3:.1f} ms, {ref / ours:.0f}x")
PY
