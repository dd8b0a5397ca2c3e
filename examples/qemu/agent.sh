#!/usr/bin/env bash
# Runs the `agent` firmware in QEMU, connected through agui-gateway to the
# AG-UI agent at URL, and exits with the firmware's status:
#
#   examples/qemu/agent.sh http://127.0.0.1:8000/
#   set_led: color=blue on=true
#   assistant: The LED is set: the device answered "LED blue on".
#
# UART0 of the emulated board is a TCP server on a free port of 127.0.0.1;
# the gateway connects to it (--tcp) and knows the firmware's tables
# (--device-capacity agent: a frame they cannot hold ends the run with
# RUN_ERROR gateway_capacity instead of failing the firmware). The device's log lines (`#` lines of
# the line protocol) come out on stdout; QEMU's and the gateway's messages
# on stderr. When the firmware succeeded but the gateway did not, the
# gateway's status is returned. Environment:
#   AGENT_ELF      firmware to run (default: build examples/firmware's `agent`)
#   AGUI_GATEWAY   gateway binary (default: build agui-gateway, release)
#   AGENT_TIMEOUT  seconds before a stuck run is killed (default 120)
#   AGENT_CONSOLE  the person's console, UART1, as a QEMU character device
#                  (default: `stdio` when stdin is a terminal, else `null`):
#                  when the agent asks a person (an interrupt), the firmware
#                  shows the question there and reads y or n
#
#   examples/qemu/agent.sh http://127.0.0.1:8000/approval
#   Approve unlock_door({"door":"front"})? [y/n] y      (the console)
#   question: Approve unlock_door({"door":"front"})?
#   answer: approved
#   assistant: unlock_door says: "the front door is unlocked".
set -euo pipefail

if [[ $# -ne 1 || "$1" == -* ]]; then
    echo "usage: $0 URL   (the AG-UI agent, e.g. http://127.0.0.1:8000/)" >&2
    exit 2
fi
url="$1"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
fw="$root/examples/firmware"
timeout_s="${AGENT_TIMEOUT:-120}"

for tool in qemu-system-arm python3; do
    command -v "$tool" >/dev/null || { echo "agent.sh: $tool not found; install it" >&2; exit 2; }
done

elf="${AGENT_ELF:-}"
if [[ -z "$elf" ]]; then
    (cd "$fw" && cargo build --release --bin agent --quiet) >&2
    target="${CARGO_TARGET_DIR:-target}"
    [[ "$target" = /* ]] || target="$fw/$target"
    elf="$target/thumbv7m-none-eabi/release/agent"
fi
gateway="${AGUI_GATEWAY:-}"
if [[ -z "$gateway" ]]; then
    (cd "$root" && cargo build --release -p agui-examples --bin agui-gateway --quiet) >&2
    gateway="${CARGO_TARGET_DIR:-$root/target}/release/agui-gateway"
fi

# A free port: bound by the kernel, released, then taken by QEMU at once.
port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"

qemu_pid="" gw_pid=""
cleanup() {
    [[ -n "$gw_pid" ]] && kill "$gw_pid" 2>/dev/null || true
    [[ -n "$qemu_pid" ]] && kill "$qemu_pid" 2>/dev/null || true
}
trap cleanup EXIT

console="${AGENT_CONSOLE:-}"
if [[ -z "$console" ]]; then
    if [[ -t 0 ]]; then console=stdio; else console=null; fi
fi
# A console on the terminal: QEMU stays in the terminal's foreground
# process group and keeps this script's stdin (a background job's stdin is
# /dev/null otherwise).
foreground=()
[[ "$console" == stdio ]] && foreground=(--foreground)

# wait=on: the guest starts only once the gateway is connected, so no byte
# of the boot declarations is lost.
timeout "${foreground[@]}" "$timeout_s" qemu-system-arm -cpu cortex-m3 -machine lm3s6965evb \
    -display none -monitor none \
    -serial "tcp:127.0.0.1:$port,server=on,wait=on" \
    -serial "$console" \
    -semihosting-config enable=on,target=native \
    -kernel "$elf" <&0 >&2 &
qemu_pid=$!
timeout "$timeout_s" "$gateway" "$url" --tcp "127.0.0.1:$port" --device-capacity agent &
gw_pid=$!

fw_status=0
wait "$qemu_pid" || fw_status=$?
qemu_pid=""
gw_status=0
wait "$gw_pid" || gw_status=$?
gw_pid=""
if ((fw_status == 124)); then
    echo "agent.sh: the firmware did not finish within ${timeout_s}s" >&2
fi
if ((fw_status == 0 && gw_status != 0)); then
    exit "$gw_status"
fi
exit "$fw_status"
