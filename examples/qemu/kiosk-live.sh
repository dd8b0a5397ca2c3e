#!/usr/bin/env bash
# Runs the `kiosk` firmware as the device of a live conversation behind
# agui-gateway (docs/SPEC.md, "Device line protocol") and saves a
# screenshot of the OLED after the agent's answer:
#
#   examples/qemu/kiosk-live.sh http://127.0.0.1:8000/ live.png
#
# The firmware is told it is live by its semihosting command line
# (`arg=live`). UART0 is a TCP server on a free port of 127.0.0.1 that the
# gateway connects to; the firmware declares `set_led`, asks its question,
# shows every relayed event on the OLED, answers the tool call, and says
# DONE after the answer; the gateway then exits. QEMU's monitor (a Unix
# socket) takes the `screendump`, written to OUT.png as with kiosk.sh.
# The gateway's output (the device's `#` log lines) goes to stdout; QEMU's
# and the firmware's measurements to stderr. Exit status: the gateway's
# (0 when the last run finished), 2 for bad arguments. Environment:
#   KIOSK_ELF      firmware to run (default: build examples/firmware's `kiosk`)
#   AGUI_GATEWAY   gateway binary (default: build agui-gateway, release)
#   KIOSK_TIMEOUT  seconds before a stuck conversation is given up (default 120)
set -euo pipefail

if (($# != 2)); then
    echo "usage: $0 URL OUT.png" >&2
    exit 2
fi
url="$1"
out="$2"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
fw="$root/examples/firmware"
timeout_s="${KIOSK_TIMEOUT:-120}"
for tool in qemu-system-arm python3; do
    command -v "$tool" >/dev/null || { echo "kiosk-live.sh: $tool not found; install it" >&2; exit 2; }
done

elf="${KIOSK_ELF:-}"
if [[ -z "$elf" ]]; then
    (cd "$fw" && cargo build --release --features kiosk --bin kiosk --quiet) >&2
    target="${CARGO_TARGET_DIR:-target}"
    [[ "$target" = /* ]] || target="$fw/$target"
    elf="$target/thumbv7m-none-eabi/release/kiosk"
fi
gateway="${AGUI_GATEWAY:-}"
if [[ -z "$gateway" ]]; then
    (cd "$root" && cargo build --release -p agui-examples --bin agui-gateway --quiet) >&2
    gateway="${CARGO_TARGET_DIR:-$root/target}/release/agui-gateway"
fi

port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
tmp="$(mktemp -d)"
qemu_pid="" gw_pid=""
cleanup() {
    [[ -n "$gw_pid" ]] && kill "$gw_pid" 2>/dev/null || true
    [[ -n "$qemu_pid" ]] && kill "$qemu_pid" 2>/dev/null || true
    rm -rf "$tmp"
}
trap cleanup EXIT

# wait=on: the guest starts only once the gateway is connected.
qemu-system-arm -cpu cortex-m3 -machine lm3s6965evb \
    -display none -monitor "unix:$tmp/monitor,server=on,wait=off" \
    -serial "tcp:127.0.0.1:$port,server=on,wait=on" \
    -semihosting-config enable=on,target=native,arg=kiosk,arg=live \
    -kernel "$elf" >&2 &
qemu_pid=$!
# QEMU opens the socket before it waits for the connection.
for _ in $(seq 100); do
    [[ -S "$tmp/monitor" ]] && break
    sleep 0.05
done
timeout "$timeout_s" "$gateway" "$url" --tcp "127.0.0.1:$port" &
gw_pid=$!
gw_status=0
wait "$gw_pid" || gw_status=$?
gw_pid=""
if ! kill -0 "$qemu_pid" 2>/dev/null; then
    echo "kiosk-live.sh: the firmware stopped (see above)" >&2
    exit 1
fi
python3 "$here/screendump.py" "$tmp/monitor" "$tmp/screen.ppm" "$out"
wait "$qemu_pid" 2>/dev/null || true
qemu_pid=""
exit "$gw_status"
