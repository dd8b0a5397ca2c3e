#!/usr/bin/env bash
# Shows an AG-UI stream (SSE or NDJSON) on the OLED of the QEMU board and
# saves a screenshot of the display after the stream:
#
#   examples/qemu/kiosk.sh examples/samples/chat.ndjson kiosk.png
#
# The stream goes to UART0 followed by EOT (0x04); the `kiosk` firmware
# draws every frame on the SSD0323 OLED and answers `kiosk: done
# accepted=N` (or `kiosk: error ...` first). Then QEMU's monitor (on a Unix
# socket) takes a `screendump` of the display (512x256: QEMU shows each
# OLED pixel as 4x4), which is written to OUT.png as an 8-bit grey PNG.
#
# UART0's lines go to stdout; the firmware's measurements (semihosting:
# `redraw N: T ticks, ...`, `heap: ...`, `stack: ...`) and QEMU's messages
# go to stderr. QEMU runs with `-icount shift=0`: every instruction takes
# 1 ns of virtual time, so timings are deterministic and one SysTick tick
# of the 12.5 MHz reset clock is 80 instructions. Exit status: 0 when the
# screenshot was saved; 1 if the firmware stopped (heap exhausted, panic)
# or timed out; 2 for bad arguments. Environment:
#   KIOSK_ELF      firmware to run (default: build examples/firmware's `kiosk`)
#   KIOSK_TIMEOUT  seconds to wait for the firmware's `done` (default 60)
set -euo pipefail

if (($# != 2)); then
    echo "usage: $0 STREAM OUT.png" >&2
    exit 2
fi
stream="$1"
out="$2"
[[ -r "$stream" ]] || { echo "kiosk.sh: cannot read $stream" >&2; exit 2; }
command -v qemu-system-arm >/dev/null || {
    echo "kiosk.sh: qemu-system-arm is missing (apt-get install qemu-system-arm)" >&2
    exit 2
}

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
fw="$here/../firmware"
elf="${KIOSK_ELF:-}"
if [[ -z "$elf" ]]; then
    (cd "$fw" && cargo build --release --features kiosk --bin kiosk --quiet) >&2
    target="${CARGO_TARGET_DIR:-target}"
    [[ "$target" = /* ]] || target="$fw/$target"
    elf="$target/thumbv7m-none-eabi/release/kiosk"
fi

tmp="$(mktemp -d)"
qemu_pid=""
cleanup() {
    if [[ -n "$qemu_pid" ]] && kill -0 "$qemu_pid" 2>/dev/null; then
        kill "$qemu_pid" 2>/dev/null || true
        wait "$qemu_pid" 2>/dev/null || true
    fi
    rm -rf "$tmp"
}
trap cleanup EXIT

# UART0 on stdio (a pipe: every byte reaches the UART as sent), the
# monitor on a socket, no window.
{ cat "$stream"; printf '\004'; } | qemu-system-arm -cpu cortex-m3 -machine lm3s6965evb \
    -display none -serial stdio -monitor "unix:$tmp/monitor,server=on,wait=off" \
    -semihosting-config enable=on,target=native -icount shift=0 \
    -kernel "$elf" >"$tmp/uart" 2> >(tee "$tmp/stderr" >&2) &
qemu_pid=$!

deadline=$((SECONDS + ${KIOSK_TIMEOUT:-60}))
until grep -q '^kiosk: done' "$tmp/uart" 2>/dev/null; do
    if ! kill -0 "$qemu_pid" 2>/dev/null; then
        cat "$tmp/uart"
        echo "kiosk.sh: the firmware stopped before the end of the stream" >&2
        exit 1
    fi
    if ((SECONDS >= deadline)); then
        cat "$tmp/uart"
        echo "kiosk.sh: no 'kiosk: done' within ${KIOSK_TIMEOUT:-60} s" >&2
        exit 1
    fi
    sleep 0.1
done
cat "$tmp/uart"

python3 "$here/screendump.py" "$tmp/monitor" "$tmp/screen.ppm" "$out"
wait "$qemu_pid" 2>/dev/null || true
qemu_pid=""
