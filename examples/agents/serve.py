"""Serving a sample AG-UI app on 127.0.0.1, shared by the sample servers.

`serve(app, description)` parses `--port`, `--certfile` and `--keyfile`,
binds the socket first (so `--port 0` picks a free port and a client may
connect as soon as the `listening on ...` line is printed), then runs the
ASGI app under uvicorn, over https when a certificate is given.
"""

import argparse
import socket

import uvicorn


def serve(app, description: str) -> None:
    """Runs `app` until killed; prints `listening on <url>` when ready."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--port", type=int, default=8000, help="TCP port on 127.0.0.1 (0: a free one)")
    parser.add_argument("--certfile", help="serve https with this PEM certificate (needs --keyfile)")
    parser.add_argument("--keyfile", help="the PEM private key of --certfile")
    args = parser.parse_args()
    if (args.certfile is None) != (args.keyfile is None):
        parser.error("--certfile and --keyfile go together")
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", args.port))
    sock.listen(64)
    config = uvicorn.Config(
        app, log_level="warning", lifespan="off", ssl_certfile=args.certfile, ssl_keyfile=args.keyfile
    )
    config.load()  # reads the certificate now: a bad one fails before the line below
    scheme = "https" if args.certfile else "http"
    # The socket already queues connections, so a client may start now.
    print(f"listening on {scheme}://127.0.0.1:{sock.getsockname()[1]}/", flush=True)
    uvicorn.Server(config).run(sockets=[sock])
