#!/usr/bin/env bash
# The protobuf vectors (tests/vectors/proto/): every public stream encoded
# with @ag-ui/proto 1.0.0's encoder and the reference's fold of what its
# decoder makes of it (the source vector's own expectation where the round
# trip gives back its events exactly, else the oracle's fold of the decoded
# events; 0.0.59 is the release nearest the reference the current-protocol
# vectors came from). `proto.sh` writes them, `proto.sh check` compares.
# Needs `npm ci && node build.mjs` in tools/oracle.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
oracle="$root/tools/oracle"
out="$root/tests/vectors/proto"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out"
gen() { # source protocol name
  node "$oracle/proto.mjs" < "$1" > "$tmp/$3.enc"
  grep -v '"skip"' "$tmp/$3.enc" | node "$oracle/run.mjs" --protocol "$2" > "$tmp/$3.exp"
  node "$oracle/run.mjs" --protocol "$2" < "$1" > "$tmp/$3.src"
  node "$oracle/proto-merge.mjs" "$1" "$tmp/$3.enc" "$tmp/$3.exp" "$tmp/$3.src" > "$tmp/$3.jsonl"
}
gen "$root/tests/vectors/streams.jsonl" 0.0.59 streams
gen "$root/tests/vectors/handmade.jsonl" 0.0.59 handmade
for f in streams handmade; do
  if [ "${1:-}" = check ]; then
    cmp "$tmp/$f.jsonl" "$out/$f.jsonl"
  else
    cp "$tmp/$f.jsonl" "$out/$f.jsonl"
  fi
done
