#!/usr/bin/env bash
# The host-limit vectors (tests/vectors/host/, issue 22): streams past the
# microcontroller's fixed capacities, folded by the reference client.
#
#   tools/vectors/host.sh regen   rewrite tests/vectors/host/*.jsonl from
#                                 tools/vectors/host_limits.py and the oracle
#   tools/vectors/host.sh check   regenerate into a temporary directory and
#                                 fail unless the result equals the committed
#                                 files byte for byte, and that the 1.0.0
#                                 client's real HttpAgent ends every stream
#                                 with the same messages and state
#                                 (tools/oracle/crosscheck.mjs)
#
# Needs node + npm (the oracle, tools/oracle, installed and bundled as
# tools/vectors/v1.sh does) and python3. Nothing else: the streams are made
# by the generator alone.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
oracle="$root/tools/oracle"
out="$root/tests/vectors/host"
gen="$root/tools/vectors/host_limits.py"
files=(v1.jsonl v1-thread.jsonl v1-finished.jsonl current.jsonl)

need() {
    command -v "$1" >/dev/null 2>&1 || {
        echo "host.sh: '$1' is required but not installed ($2)" >&2
        exit 2
    }
}

setup() {
    need node "install Node.js 18 or newer"
    need npm "install npm"
    need python3 "install Python 3.9 or newer"
    if [ ! -d "$oracle/node_modules" ] || [ "$oracle/package-lock.json" -nt "$oracle/node_modules" ]; then
        (cd "$oracle" && npm ci --no-audit --no-fund >/dev/null)
        touch "$oracle/node_modules"
    fi
    (cd "$oracle" && node build.mjs >/dev/null)
}

# generate <dir>: writes the four files into <dir>. AG-UI 1.0 streams go
# through the 1.0.0 client; current-protocol streams through 1.0.0 (the
# expectation) and 0.0.58 (kept beside it only where it differs).
generate() {
    local dir="$1"
    python3 "$gen" --file v1 | node "$oracle/run.mjs" --protocol 1.0 >"$dir/v1.jsonl"
    python3 "$gen" --file v1-thread | node "$oracle/run.mjs" --protocol 1.0 >"$dir/v1-thread.jsonl"
    python3 "$gen" --file v1-finished | node "$oracle/run.mjs" --protocol 1.0 >"$dir/v1-finished.jsonl"
    python3 "$gen" --file current | node "$oracle/run.mjs" --protocol 1.0 >"$dir/current.1.0.0"
    python3 "$gen" --file current | node "$oracle/run.mjs" --protocol 0.0.58 >"$dir/current.0.0.58"
    python3 "$gen" --merge "$dir/current.1.0.0" "$dir/current.0.0.58" >"$dir/current.jsonl"
    rm "$dir/current.1.0.0" "$dir/current.0.0.58"
}

case "${1:-}" in
regen)
    setup
    mkdir -p "$out"
    generate "$out"
    wc -lc "${files[@]/#/$out/}"
    ;;
check)
    setup
    tmp="$(mktemp -d)"
    trap 'rm -rf "$tmp"' EXIT
    generate "$tmp"
    status=0
    for f in "${files[@]}"; do
        if cmp -s "$tmp/$f" "$out/$f"; then
            echo "tests/vectors/host/$f: reproduced byte for byte ($(wc -l <"$out/$f") vectors)"
        else
            echo "tests/vectors/host/$f: DIFFERS from what the generator and the oracle produce now" >&2
            diff <(cut -c1-200 "$out/$f") <(cut -c1-200 "$tmp/$f") | head -20 >&2 || true
            status=1
        fi
        node "$oracle/crosscheck.mjs" "$out/$f" | tee "$tmp/cross" | head -n 5
        grep -q '^\([0-9]*\)/\1 agree' "$tmp/cross" || status=1
    done
    exit "$status"
    ;;
*)
    echo "usage: tools/vectors/host.sh regen|check" >&2
    exit 2
    ;;
esac
