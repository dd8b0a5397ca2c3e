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

python3 - "$tmp/monitor" "$tmp/screen.ppm" "$out" <<'PY'
import socket, struct, sys, time, zlib

monitor, ppm, png = sys.argv[1:4]

def command(sock, line):
    sock.sendall(line.encode() + b"\n")

sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
sock.connect(monitor)
sock.settimeout(10)
command(sock, f"screendump {ppm}")
# The monitor answers with a prompt once the dump is written.
data = b""
deadline = time.time() + 10
while data.count(b"(qemu)") < 2 and time.time() < deadline:
    try:
        chunk = sock.recv(4096)
    except socket.timeout:
        break
    if not chunk:
        break
    data += chunk
command(sock, "quit")
# QEMU closes the socket when it quits.
try:
    while sock.recv(4096):
        pass
except socket.timeout:
    pass
sock.close()

raw = open(ppm, "rb").read()
# P6 header: magic, width, height, maxval, each followed by whitespace.
fields, pos = [], 0
while len(fields) < 4:
    while raw[pos:pos + 1].isspace():
        pos += 1
    start = pos
    while not raw[pos:pos + 1].isspace():
        pos += 1
    fields.append(raw[start:pos])
pos += 1
if fields[0] != b"P6" or fields[3] != b"255":
    sys.exit(f"kiosk.sh: unexpected screendump format {fields}")
width, height = int(fields[1]), int(fields[2])
pixels = raw[pos:pos + width * height * 3]
# The OLED is grey: keep one channel.
rows = b"".join(b"\0" + pixels[y * width * 3:(y + 1) * width * 3:3] for y in range(height))

def chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

with open(png, "wb") as f:
    f.write(b"\x89PNG\r\n\x1a\n")
    f.write(chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)))
    f.write(chunk(b"IDAT", zlib.compress(rows, 9)))
    f.write(chunk(b"IEND", b""))
print(f"kiosk.sh: wrote {png} ({width}x{height})", file=sys.stderr)
PY
wait "$qemu_pid" 2>/dev/null || true
qemu_pid=""
