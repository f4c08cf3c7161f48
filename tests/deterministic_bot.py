"""A webhook bot whose answer depends only on what it is shown, for the worker tests: a match
replayed after a crash, a lost host or a restart goes exactly as it would have. Standard library
and the pure engine only, so it also runs as a process of its own (on another "host" of the
network-namespace test)::

    python -m tests.deterministic_bot HOST COUNT DELAY   # prints one URL a line, then serves
"""

from __future__ import annotations

import hashlib
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from games.engine import game_ids


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: DeterministicBot

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _send(self, body: dict) -> None:
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        declared = {"version": self.server.version} if self.server.version else {}
        self._send({"apiversion": "1", "name": "det", "author": "tests",
                    "games": list(game_ids()), **declared})

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
        if not self.path.endswith("/move"):
            started = self.path.endswith("/start") and self.server.version
            self._send({"version": self.server.version} if started else {})
            return
        time.sleep(self.server.delay)
        legal = body["legal_actions"]
        digest = hashlib.sha256(json.dumps(body["view"], sort_keys=True).encode()).digest()
        self._send({"action": legal[int.from_bytes(digest[:4], "big") % len(legal)]})


class DeterministicBot(ThreadingHTTPServer):
    """A webhook bot whose answer depends only on what it is shown (no state, no randomness),
    so a match replayed after a crash goes exactly as it would have. ``version``: what its
    code declares (redeployed at the same URL: set another)."""

    daemon_threads = True

    def __init__(self, delay: float = 0.0, host: str = "127.0.0.1") -> None:
        super().__init__((host, 0), _Handler)
        self.delay = delay
        #: The version its handshake and its /start answers declare ("": none), as code
        #: redeployed at its URL would.
        self.version = ""

    @property
    def url(self) -> str:
        return f"http://{self.server_address[0]}:{self.server_address[1]}"


def main(host: str, count: int, delay: float) -> None:
    servers = [DeterministicBot(delay, host=host) for _ in range(count)]
    for server in servers:
        threading.Thread(target=server.serve_forever, daemon=True).start()
        print(server.url, flush=True)
    threading.Event().wait()


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), float(sys.argv[3]))
