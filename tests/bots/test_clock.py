"""The platform's clock (lib/clock.py): calls to bots are signed with the database server's
time, whatever the worker host's own clock says (issue 45). The real fault, a worker whose
clock runs ten minutes ahead, is tests/bots/test_worker_clock.py."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from django.db import DatabaseError, connection

from bots.net import BotClient, Call, client_from_settings
from bots.signing import TIMESTAMP_HEADER
from lib.clock import PlatformClock, database_time, platform_clock


class Ticking:
    """A host's clocks as the test sets them: ``wall`` (time.time) and ``monotonic``."""

    def __init__(self, wall: float) -> None:
        self.wall_now, self.monotonic_now = wall, 0.0

    def wall(self) -> float:
        return self.wall_now

    def monotonic(self) -> float:
        return self.monotonic_now


def test_the_clock_is_the_reference_whatever_the_hosts_clock_says() -> None:
    host = Ticking(wall=1_000_600.0)  # ten minutes ahead
    clock = PlatformClock(lambda: 1_000_000.0, wall=host.wall, monotonic=host.monotonic)
    assert clock.now() == 1_000_600.0, "no measure yet: the host's own"
    clock.refresh()
    assert clock.now() == 1_000_000.0
    host.wall_now += 5
    assert clock.now() == 1_000_005.0, "the host's clock runs on, corrected"


def test_the_offset_is_measured_again_only_once_a_minute() -> None:
    host, reads = Ticking(wall=100.0), []
    clock = PlatformClock(lambda: reads.append(1) or 40.0, wall=host.wall,
                          monotonic=host.monotonic, every=60)
    clock.refresh()
    host.monotonic_now = 59
    clock.refresh()
    assert len(reads) == 1
    host.monotonic_now = 61
    clock.refresh()
    assert len(reads) == 2


def test_a_reference_that_cannot_be_read_keeps_the_last_offset() -> None:
    host, answers = Ticking(wall=100.0), iter([40.0])

    def reference() -> float:
        try:
            return next(answers)
        except StopIteration:
            raise DatabaseError("the database is restarting") from None

    clock = PlatformClock(reference, wall=host.wall, monotonic=host.monotonic, every=1)
    clock.refresh()
    host.monotonic_now = 5
    clock.refresh()  # fails: no exception, the last offset kept
    assert clock.offset == -60.0


def test_no_reference_means_the_hosts_own_clock() -> None:
    clock = PlatformClock(lambda: None, wall=lambda: 7.0)
    clock.refresh()
    assert clock.now() == 7.0


@pytest.mark.django_db
def test_the_reference_is_the_database_servers_clock() -> None:
    import time

    now = database_time()
    if connection.vendor == "sqlite":
        assert now is None, "SQLite runs in this process: its clock is ours"
    else:
        assert abs(now - time.time()) < 5, "PostgreSQL on this machine: the same clock"


class _Timestamps(BaseHTTPRequestHandler):
    seen: list[int] = []

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["content-length"]))
        self.seen.append(int(self.headers[TIMESTAMP_HEADER.decode()]))
        self.send_response(200)
        self.send_header("content-length", "2")
        self.end_headers()
        self.wfile.write(b"{}")

    def log_message(self, *args: object) -> None:
        pass


def test_calls_are_signed_with_the_clients_wall_clock() -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Timestamps)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        with BotClient(allow_private=True, wall_clock=lambda: 1_234_567_890.9) as client:
            reply = client.call(Call(url=f"http://127.0.0.1:{server.server_port}", path="move",
                                     body=b"{}", secret="whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
                                     timeout=2))
    finally:
        server.shutdown()
        server.server_close()
    assert reply.failure is None
    assert _Timestamps.seen == [1_234_567_890]


def test_the_platforms_client_signs_with_the_platforms_clock() -> None:
    with client_from_settings() as client:
        assert client.wall_clock == platform_clock().now
