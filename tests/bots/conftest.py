"""Real HTTP bots on loopback for the webhook tests: the reference server, the starter bot, and a
misbehaving bot whose behaviour each test picks."""

from __future__ import annotations

import importlib.util
import json
import random
import socket
import threading
import time
from collections import Counter
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from bots.net import BotClient
from bots.refserver import RefBotServer
from bots.signing import new_secret, verify
from games.engine import game_ids

ROOT = Path(__file__).resolve().parents[2]

#: Options that keep whole matches over HTTP short (the long games have a length option; Le
#: Dutch's default, one round a player, is its shortest: DU-8).
SHORT_OPTIONS: dict[str, dict[str, Any]] = {"great_dalmuti": {"hands": 1}}


@pytest.fixture(params=game_ids())
def game_id(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture
def secret() -> str:
    return new_secret()


@pytest.fixture
def client() -> Iterator[BotClient]:
    with BotClient(allow_private=True, max_response_bytes=16 * 1024) as bot_client:
        yield bot_client


@pytest.fixture
def ref_server(secret: str) -> Iterator[RefBotServer]:
    server = RefBotServer(("127.0.0.1", 0), secret=secret)
    server.serve_in_thread()
    yield server
    server.shutdown()
    server.server_close()


def load_starter() -> ModuleType:
    """The standalone starter bot, imported from its file as a developer would run it."""
    spec = importlib.util.spec_from_file_location("starter_bot",
                                                  ROOT / "examples" / "starter_bot" / "bot.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


@pytest.fixture(scope="session")
def starter() -> ModuleType:
    return load_starter()


@pytest.fixture
def starter_url(starter: ModuleType, secret: str) -> Iterator[str]:
    server = starter.make_server("127.0.0.1", 0, secret)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


# ---- a misbehaving bot -------------------------------------------------------------------------


class FakeBot(ThreadingHTTPServer):
    """A bot whose /move answer is ``behaviour``: good, slow, gated (good once the test opens
    its gate), error500, invalid_json, illegal, null_action, list_only (an action from
    legal_actions, null without it), huge, huge_stream, redirect, bad_shape. ``compact``: its
    handshake says ``compact_legal_actions: true``; ``start_answer``: what /start gets. Counts
    calls per path; verifies every signature."""

    daemon_threads = True

    def __init__(self, secret: str, behaviour: str, starter: ModuleType) -> None:
        super().__init__(("127.0.0.1", 0), _FakeHandler)
        self.secret = secret
        self.behaviour = behaviour
        self.starter = starter
        self.sleep = 0.5
        self.compact = False
        self.handshake: dict[str, Any] = {}  # keys that replace those of its handshake
        self.start_answer = b"{}"  # what it answers /start with
        self.calls: Counter = Counter()  # by path as requested, query string included
        self.bad_signatures = 0
        self.hosts: list[str] = []
        self.match_ids: set[Any] = set()  # ``match.id`` of every POST body
        self.connections = 0  # TCP connections accepted
        #: (start, end) of each /move this bot handled, by the monotonic clock.
        self.move_windows: list[tuple[float, float]] = []
        #: "gated": each /move sets ``entered``, then waits for ``gate`` before answering.
        self.entered = threading.Event()
        self.gate = threading.Event()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # the client hanging up on a huge body is the point of that test, not an error


class _FakeHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    wbufsize = 64 * 1024
    server: FakeBot

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def setup(self) -> None:
        super().setup()
        self.server.connections += 1

    def _send(self, status: int, data: bytes, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)

    def _read(self) -> bytes:
        raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        try:
            verify(self.server.secret, raw, dict(self.headers.items()))
        except Exception:  # noqa: BLE001
            self.server.bad_signatures += 1
        self.server.calls[self.path] += 1
        self.server.hosts.append(self.headers.get("Host", ""))
        return raw

    def do_GET(self) -> None:
        self._read()
        self._send(200, json.dumps({"apiversion": "1", "name": "fake", "author": "tests",
                                    "games": list(game_ids()),
                                    "compact_legal_actions": self.server.compact,
                                    **self.server.handshake}).encode())

    def do_POST(self) -> None:
        raw = self._read()
        self.server.match_ids.add(json.loads(raw)["match"]["id"])
        behaviour = self.server.behaviour
        if self.path.split("?", 1)[0] != "/move":
            start = self.path.split("?", 1)[0] == "/start"
            self._send(200, self.server.start_answer if start else b"{}")
            return
        started = time.monotonic()
        if behaviour == "slow":
            time.sleep(self.server.sleep)
            self.server.move_windows.append((started, time.monotonic()))
        if behaviour == "gated":
            self.server.entered.set()
            self.server.gate.wait(timeout=30)
        if behaviour == "error500":
            self._send(500, b'{"error": "boom"}')
        elif behaviour == "invalid_json":
            self._send(200, b'{"action": {"type": ')
        elif behaviour == "bad_shape":
            self._send(200, b'["not", "an", "object"]')
        elif behaviour == "illegal":
            self._send(200, b'{"action": {"type": "no such move"}, "log": "I meant to bluff"}')
        elif behaviour == "list_only":  # written from the request table: reads legal_actions
            legal = json.loads(raw).get("legal_actions")
            action = random.choice(legal) if legal else None
            self._send(200, json.dumps({"action": action}).encode())
        elif behaviour == "null_action":
            self._send(200, b'{"action": null, "log": "nothing to choose from"}')
        elif behaviour == "huge":
            self._send(200, b'{"action": {}, "log": "' + b"x" * 200_000 + b'"}')
        elif behaviour == "huge_stream":  # no Content-Length: the cap must stop the read
            self.send_response(200)
            self.send_header("Connection", "close")
            self.end_headers()
            self.close_connection = True
            for _ in range(50):
                self.wfile.write(b"x" * 4096)
        elif behaviour == "redirect":
            self._send(302, b"", {"Location": "http://169.254.169.254/latest/meta-data/"})
        else:  # good (and slow, once it has slept)
            action = self.server.starter.choose(json.loads(raw))
            self._send(200, json.dumps({"action": action, "log": "thinking"}).encode())


@pytest.fixture
def fake_bot(secret: str, starter: ModuleType) -> Iterator[Any]:
    """``fake_bot(behaviour)`` starts a misbehaving bot; all are stopped after the test."""
    servers: list[FakeBot] = []

    def start(behaviour: str) -> FakeBot:
        server = FakeBot(secret, behaviour, starter)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


@pytest.fixture
def refused_url() -> str:
    """A loopback URL where nothing listens (the port was just bound and released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


# ---- registered bots in real matches (users and API clients: tests.helpers.accounts) ----------


