#!/usr/bin/env bash
# Creates <repo>/.venv with the real AG-UI test backends (pydantic-ai's AG-UI
# adapter, uvicorn, LangGraph with ag-ui-langgraph), pinned in
# requirements.txt / constraints.txt, and examples/agents/node_modules with
# the TypeScript one's packages (@ag-ui/encoder), pinned in package-lock.json.
# Idempotent: a second run with the same pins only checks two stamps.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
venv="$repo/.venv"
python="${PYTHON:-python3}"

if ! command -v "$python" >/dev/null 2>&1; then
    echo "setup.sh: $python not found; install Python 3 (Debian: apt-get install -y python3 python3-venv)" >&2
    exit 2
fi
if [ ! -x "$venv/bin/python" ]; then
    echo "setup.sh: creating $venv" >&2
    if ! "$python" -m venv "$venv"; then
        rm -rf "$venv"
        echo "setup.sh: '$python -m venv' failed; install the venv module (Debian: apt-get install -y python3-venv)" >&2
        exit 2
    fi
fi

# The TypeScript backend (proto_server.mjs): @ag-ui/encoder and @ag-ui/core
# exactly as package-lock.json pins them, in examples/agents/node_modules.
# Only the protobuf end-to-end test needs it: without npm the Python
# backends are still installed (README's "Ask a person" needs no more),
# and that test says what is missing (`cargo xtask setup` installs npm).
if ! command -v npm >/dev/null 2>&1; then
    echo "setup.sh: npm not found: the TypeScript backend is not installed (install Node.js 20 or later with npm; Debian: apt-get install -y nodejs npm)" >&2
else
    npm_stamp="$here/node_modules/.agui-lock"
    npm_want="$(cksum < "$here/package-lock.json")"
    if [ ! -f "$npm_stamp" ] || [ "$(cat "$npm_stamp")" != "$npm_want" ]; then
        (cd "$here" && npm ci --no-audit --no-fund)
        echo "$npm_want" > "$npm_stamp"
        echo "setup.sh: TypeScript backend installed in $here/node_modules" >&2
    fi
fi

stamp="$venv/.agui-backends"
want="$(cat "$here/requirements.txt" "$here/constraints.txt" | cksum)"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
    echo "setup.sh: $venv is up to date" >&2
    exit 0
fi
"$venv/bin/python" -m pip install --disable-pip-version-check -r "$here/requirements.txt"
"$venv/bin/python" -c 'import pydantic_ai.ui.ag_ui, uvicorn, ag_ui_langgraph, langgraph'
echo "$want" > "$stamp"
echo "setup.sh: backends installed in $venv" >&2
