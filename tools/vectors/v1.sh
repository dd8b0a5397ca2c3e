#!/usr/bin/env bash
# The AG-UI 1.0 conformance vectors (tests/vectors/v1/): regenerate or check.
#
#   tools/vectors/v1.sh regen   rewrite tests/vectors/v1/*.jsonl from the
#                               generator, the Python SDK and the 1.0 oracle
#   tools/vectors/v1.sh check   regenerate into a temporary directory and fail
#                               unless the result equals the committed files
#                               byte for byte, and that the client's real
#                               HttpAgent ends every stream with the same
#                               messages and state; then report how the published
#                               0.0.58 / 0.0.59 clients reproduce the 745
#                               current vectors; and tools/vectors/host.sh
#                               check (the host-limit vectors)
#
# Needs node + npm (the oracle, tools/oracle) and python3 with venv (the SDK,
# installed into $AGUI_SDK_VENV, default target/agui-sdk-venv, which git
# ignores). Both installs are idempotent.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
oracle="$root/tools/oracle"
out="$root/tests/vectors/v1"
venv="${AGUI_SDK_VENV:-$root/target/agui-sdk-venv}"
seed=13
count=1050

need() {
    command -v "$1" >/dev/null 2>&1 || {
        echo "v1.sh: '$1' is required but not installed ($2)" >&2
        exit 2
    }
}

setup() {
    need node "install Node.js 18 or newer"
    need npm "install npm"
    need python3 "install Python 3.9 or newer with venv"
    local major
    major="$(node -p 'process.versions.node.split(".")[0]')"
    if [ "$major" -lt 18 ]; then
        echo "v1.sh: Node.js 18 or newer is required, found $(node --version)" >&2
        exit 2
    fi
    if [ ! -d "$oracle/node_modules" ] || [ "$oracle/package-lock.json" -nt "$oracle/node_modules" ]; then
        (cd "$oracle" && npm ci --no-audit --no-fund >/dev/null)
        touch "$oracle/node_modules"
    fi
    (cd "$oracle" && node build.mjs >/dev/null)
    if [ ! -x "$venv/bin/python" ]; then
        python3 -m venv "$venv"
    fi
    if ! "$venv/bin/python" -c 'import importlib.metadata as m; assert m.version("ag-ui-protocol") == "1.0.0"' 2>/dev/null; then
        "$venv/bin/pip" install --quiet ag-ui-protocol==1.0.0
    fi
}

# generate <dir>: writes generated.jsonl, handmade.jsonl and python-sdk.jsonl
# into <dir>.
generate() {
    local dir="$1"
    python3 "$root/tools/vectors/handmade_v1.py" \
        | node "$oracle/run.mjs" --protocol 1.0 >"$dir/handmade.jsonl"
    python3 "$root/tools/vectors/gen_v1.py" --seed "$seed" --count "$count" \
        | node "$oracle/run.mjs" --protocol 1.0 >"$dir/generated.jsonl"
    "$venv/bin/python" "$root/tools/vectors/sdk_streams.py" \
        | node "$oracle/run.mjs" --protocol 1.0 >"$dir/python-sdk.jsonl"
}

case "${1:-}" in
regen)
    setup
    mkdir -p "$out"
    generate "$out"
    wc -l "$out"/*.jsonl
    ;;
check)
    setup
    tmp="$(mktemp -d)"
    trap 'rm -rf "$tmp"' EXIT
    generate "$tmp"
    status=0
    for f in generated.jsonl handmade.jsonl python-sdk.jsonl; do
        if cmp -s "$tmp/$f" "$out/$f"; then
            echo "tests/vectors/v1/$f: reproduced byte for byte ($(wc -l <"$out/$f") vectors)"
        else
            echo "tests/vectors/v1/$f: DIFFERS from what the generator and the 1.0 oracle produce now" >&2
            diff <(cut -c1-200 "$out/$f") <(cut -c1-200 "$tmp/$f") | head -20 >&2 || true
            status=1
        fi
    done
    # The composition in run.mjs against the client's real HttpAgent.
    for f in generated handmade python-sdk; do
        node "$oracle/crosscheck.mjs" "$out/$f.jsonl" | tee "$tmp/cross" | head -n 5
        grep -q '^\([0-9]*\)/\1 agree' "$tmp/cross" || status=1
    done
    # The host-limit vectors (tests/vectors/host/, issue 22), same oracle.
    bash "$root/tools/vectors/host.sh" check || status=1
    # Information, not a gate: the published releases around the August
    # reference the 745 vectors were made with (see the README's numbers).
    for version in 0.0.58 0.0.59; do
        for f in handmade streams; do
            node "$oracle/run.mjs" --protocol "$version" --check "$root/tests/vectors/$f.jsonl" | tail -n 1 || true
        done
    done
    exit "$status"
    ;;
*)
    echo "usage: tools/vectors/v1.sh regen|check" >&2
    exit 2
    ;;
esac
