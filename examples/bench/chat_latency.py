"""Time from a run's first response byte to the first delta agui-chat prints.

Runs `agui-chat --output live` N times with AGUI_CHAT_TIMING=1 (which
prints, per run, the time from the response's first byte to the first
delta written to stdout, and from the arrival of the bytes that held that
delta to its print) and reports min / median / max in microseconds.

Usage:
  python3 examples/bench/chat_latency.py target/release/agui-chat [URL] [--runs N]

Without URL it starts its own server (stdlib only, on 127.0.0.1, a free
port) that answers every run with RUN_STARTED, one text delta and
RUN_FINISHED in one write: the figure is then the client's own latency.
With the URL of an agent (e.g. examples/agents/pydantic_server.py) it also
includes the agent's pause before its first delta; the second figure does
not.
"""

from __future__ import annotations

import argparse
import os
import re
import socket
import statistics
import subprocess
import threading

BODY = (
    b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n"
    b'data: {"type":"RUN_STARTED","threadId":"t","runId":"r"}\n\n'
    b'data: {"type":"TEXT_MESSAGE_CHUNK","messageId":"m","delta":"Hello"}\n\n'
    b'data: {"type":"RUN_FINISHED","threadId":"t","runId":"r"}\n\n'
)


def serve(sock: socket.socket) -> None:
    while True:
        try:
            conn, _ = sock.accept()
        except OSError:
            return
        with conn:
            data = b""
            while b"\r\n\r\n" not in data:
                data += conn.recv(65536)
            head, _, body = data.partition(b"\r\n\r\n")
            length = int(re.search(rb"(?i)content-length:\s*(\d+)", head).group(1))
            while len(body) < length:
                body += conn.recv(65536)
            conn.sendall(BODY)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("chat", help="path of the agui-chat binary")
    parser.add_argument("url", nargs="?", help="an agent's URL (default: a local server)")
    parser.add_argument("--runs", type=int, default=30, help="agui-chat sessions (default 30)")
    args = parser.parse_args()
    url = args.url
    sock = None
    if url is None:
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        sock.listen(16)
        threading.Thread(target=serve, args=(sock,), daemon=True).start()
        url = f"http://127.0.0.1:{sock.getsockname()[1]}/"
    first, own = [], []
    env = dict(os.environ, AGUI_CHAT_TIMING="1")
    for _ in range(args.runs):
        out = subprocess.run(
            [args.chat, url, "--output", "live", "--tool", "set_led=echo ok"],
            input=b"turn the LED green\n",
            capture_output=True,
            env=env,
            check=True,
        )
        for m in re.finditer(rb"printed: (\d+) us \(from the arrival of that delta's bytes: (\d+) us\)", out.stderr):
            first.append(int(m[1]))
            own.append(int(m[2]))
    if sock is not None:
        sock.close()
    for name, values in (("first byte -> first delta printed", first), ("delta's bytes -> printed", own)):
        values.sort()
        print(f"{name}: {len(values)} runs, min {values[0]} us, median {statistics.median(values):.0f} us, max {values[-1]} us")


if __name__ == "__main__":
    main()
