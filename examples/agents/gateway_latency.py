"""Measures the latency agui-gateway adds per frame.

A local AG-UI server (127.0.0.1, free port, stdlib only) streams one run of
N frames (RUN_STARTED, N-2 text deltas, RUN_FINISHED), one frame every
PACE ms so that frames are relayed one by one, not in batches. The script
plays the device on a loopback TCP socket: it starts the gateway with
`--tcp` and `--latency`, asks for the run and stamps each line as it
arrives. Each frame carries the server's send time (`metadata.sent_ns`), so

  end to end = device receipt - server send  (HTTP socket, the HTTP
               worker thread, the gateway's framing, verification and
               write, the device socket), per frame;
  direct     = the same frames read straight off the HTTP socket by this
               script (what any client pays without the gateway).

The gateway's own figure (`--latency`: arrival of the frame's last bytes
from the HTTP worker to its write to the device) is printed by it on stderr.

Usage: python3 gateway_latency.py GATEWAY [--frames N] [--pace-ms MS]
"""

from __future__ import annotations

import argparse
import json
import socket
import statistics
import subprocess
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def frames(n: int):
    yield {"type": "RUN_STARTED", "threadId": "t", "runId": "r"}
    yield {"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant"}
    for i in range(n - 4):
        yield {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": f"word {i} "}
    yield {"type": "TEXT_MESSAGE_END", "messageId": "m"}
    yield {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}


def make_handler(n: int, pace: float):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.0"

        def log_message(self, *args):
            pass

        def do_POST(self):
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            self.wfile.flush()
            for event in frames(n):
                time.sleep(pace)
                event["metadata"] = {"sent_ns": time.monotonic_ns()}
                self.wfile.write(f"data: {json.dumps(event)}\n\n".encode())
                self.wfile.flush()

    return Handler


def summary(name: str, micros: list[float]) -> str:
    micros = sorted(micros)
    p99 = micros[int((len(micros) - 1) * 0.99)]
    return (f"{name}: {len(micros)} frames, median {statistics.median(micros):.0f} µs, "
            f"p99 {p99:.0f} µs, max {micros[-1]:.0f} µs")


def direct(url_port: int, n: int) -> list[float]:
    """Reads the run straight off the HTTP socket."""
    sock = socket.create_connection(("127.0.0.1", url_port))
    body = b"{}"
    sock.sendall(b"POST / HTTP/1.0\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n" + body)
    out, buf, head = [], b"", True
    while True:
        chunk = sock.recv(65536)
        now = time.monotonic_ns()
        if not chunk:
            break
        buf += chunk
        if head:
            if b"\r\n\r\n" not in buf:
                continue
            buf, head = buf.split(b"\r\n\r\n", 1)[1], False
        while b"\n\n" in buf:
            frame, buf = buf.split(b"\n\n", 1)
            if frame.startswith(b"data: "):
                sent = json.loads(frame[6:])["metadata"]["sent_ns"]
                out.append((now - sent) / 1000)
    return out


def through_gateway(gateway: str, port: int) -> list[float]:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    device_addr = f"127.0.0.1:{listener.getsockname()[1]}"
    proc = subprocess.Popen([gateway, f"http://127.0.0.1:{port}/", "--tcp", device_addr, "--latency"])
    try:
        conn, _ = listener.accept()
        conn.sendall(b'{"id":"u1","role":"user","content":"go"}\n{"type":"RUN"}\n')
        out, buf, finished = [], b"", False
        while not finished:
            chunk = conn.recv(65536)
            now = time.monotonic_ns()
            if not chunk:
                raise SystemExit("the gateway closed the device connection")
            buf += chunk
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                event = json.loads(line)
                out.append((now - event["metadata"]["sent_ns"]) / 1000)
                finished |= event["type"] == "RUN_FINISHED"
        conn.sendall(b'{"type":"DONE"}\n')
        proc.wait(timeout=30)
        return out
    finally:
        proc.kill()
        proc.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("gateway")
    parser.add_argument("--frames", type=int, default=2000)
    parser.add_argument("--pace-ms", type=float, default=1.0)
    parser.add_argument("--dump", action="store_true", help="list the slowest frames")
    args = parser.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", 0), make_handler(args.frames, args.pace_ms / 1000))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_address[1]
    try:
        base = direct(port, args.frames)
        gw = through_gateway(args.gateway, port)
    finally:
        server.shutdown()
    if args.dump:
        print("slowest through the gateway (frame index, µs):", sorted(enumerate(gw), key=lambda x: -x[1])[:15])
    print(summary("direct (HTTP socket to this script)", base))
    print(summary("through agui-gateway (HTTP to device socket)", gw))
    print(f"added by the gateway: median {statistics.median(gw) - statistics.median(base):.0f} µs per frame")


if __name__ == "__main__":
    main()
