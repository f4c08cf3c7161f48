"""A bot server in a process of its own whose answers take a set time: its head after ``HEAD``
seconds, its body ``BODY`` seconds later. Its own process, so it answers on time whatever the
test's process is doing (a test holding the interpreter's lock holds no other process)::

    python -m tests.helpers.timed_bot HEAD BODY   # prints its URL, then serves
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


@contextmanager
def timed_bot(head: float, body: float = 0.0) -> Iterator[str]:
    """The URL of a :mod:`tests.helpers.timed_bot` process, stopped on leaving."""
    process = subprocess.Popen([sys.executable, "-m", "tests.helpers.timed_bot", str(head),
                                str(body)], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        yield process.stdout.readline().strip()
    finally:
        process.kill()
        process.wait()


def _serve(head: float, body: float) -> None:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers["content-length"]))
            time.sleep(head)
            self.send_response(200)
            self.send_header("content-length", "2")
            self.end_headers()
            self.wfile.flush()
            time.sleep(body)
            self.wfile.write(b"{}")

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(f"http://127.0.0.1:{server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    _serve(float(sys.argv[1]), float(sys.argv[2]))
