#!/usr/bin/env bash
# Verifies an AG-UI stream (SSE or NDJSON) on the Cortex-M3 firmware in QEMU:
# stdin goes to UART0, followed by EOT (0x04); the firmware's one verdict line
# comes back on stdout:
#
#   examples/qemu/serial.sh < stream.ndjson
#   {"ok":true,"accepted":12,"error":null}
#
# QEMU's own messages and the firmware's `stack: used N bytes` report
# (semihosting stderr) go to stderr. Environment:
#   SERIAL_ELF      firmware to run (default: build examples/firmware's `serial`)
#   SERIAL_TIMEOUT  seconds before a stuck run is killed (default 60)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
fw="$here/../firmware"

elf="${SERIAL_ELF:-}"
if [[ -z "$elf" ]]; then
    # cargo only rebuilds when a source changed.
    (cd "$fw" && cargo build --release --bin serial --quiet) >&2
    target="${CARGO_TARGET_DIR:-target}"
    [[ "$target" = /* ]] || target="$fw/$target"
    elf="$target/thumbv7m-none-eabi/release/serial"
fi

# `-display none -monitor none -serial stdio`, not `-nographic`: nothing is
# multiplexed on stdio, so no Ctrl-A escapes and no monitor eat bytes, and
# with stdin a pipe there is no terminal layer: every byte, 0x04 included,
# reaches UART0 as sent. QEMU holds input back while the RX FIFO is full.
{ cat; printf '\004'; } | timeout "${SERIAL_TIMEOUT:-60}" \
    qemu-system-arm -cpu cortex-m3 -machine lm3s6965evb \
    -display none -monitor none -serial stdio \
    -semihosting-config enable=on,target=native \
    -kernel "$elf"
