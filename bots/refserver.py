"""The engine's reference bots as real protocol-v1 HTTP bots (``manage.py serve_bots``).

Routes, for every reference bot name (``random``, ``heuristic``):

* ``/{bot}``: plays any game (the handshake lists all five);
* ``/{game}/{bot}``: plays that game only.

Each route answers ``GET /``, ``POST /start``, ``/move`` and ``/end`` below it, so a newcomer can
register ``http://host:port/heuristic`` as a working bot in the first minute, and the tests and
``check_bot`` have honest opponents that go through the whole HTTP path.

The server is stdlib ``http.server``, made fast enough: HTTP/1.1 keep-alive, ``TCP_NODELAY`` and
a buffered writer so headers and body leave in one segment (an unbuffered handler writes the
status line, each header and the body separately, and Nagle plus the client's delayed ACK then
cost 40 ms per answer).
"""

from __future__ import annotations

import json
import threading
import time
import zlib
from collections import OrderedDict
from collections.abc import Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from games.engine import Bot, game_ids, get_game

from .protocol import API_VERSION, JSON
from .signing import WebhookVerificationError, verify

MAX_REQUEST_BYTES = 4 * 1024 * 1024
KEPT_BOTS = 2000  # live (match, seat) bot instances; the oldest are dropped past this


def legal_from_body(game_id: str, body: JSON) -> Sequence[JSON]:
    """The seat's legal actions from a /move body: the list, or the engine's own lazy sequence
    rebuilt by the game from the compact description (``Game.legal_from_description``), so
    reference bots see what they would see in-process."""
    if body.get("legal_actions") is not None:
        return body["legal_actions"]
    return get_game(game_id).legal_from_description(body["legal_description"])


class RefBotServer(ThreadingHTTPServer):
    """Serves every reference bot; ``secret`` (optional) makes it verify signatures;
    ``move_delay`` (seconds) holds each /move answer that long, as a bot across the internet
    or one that thinks would (``serve_bots --move-delay-ms``: try a match's time limit, or see
    what a match costs against bots that do not answer at once)."""

    daemon_threads = True
    #: Connections waiting to be accepted: a worker with hundreds of matches in flight opens
    #: hundreds at once, and the default 5 dropped most of them for a second's retry.
    request_queue_size = 1024

    def __init__(self, address: tuple[str, int], *, secret: str | None = None,
                 move_delay: float = 0.0) -> None:
        if move_delay < 0:
            raise ValueError("the delay must be 0 or more")
        super().__init__(address, _Handler)
        self.secret = secret
        self.move_delay = move_delay
        self.games = list(game_ids())
        self.bot_names = sorted({name for g in self.games for name in get_game(g).bots})
        self._bots: OrderedDict[tuple[Any, ...], Bot] = OrderedDict()
        self._lock = threading.Lock()

    @property
    def base_url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host}:{port}"

    def bot_for(self, key: tuple[Any, ...], game_id: str, name: str, seat: int) -> Bot:
        """The bot instance of one (match, seat): reference bots may keep memory across moves."""
        with self._lock:
            bot = self._bots.get(key)
            if bot is None:
                seed = zlib.crc32(str(key[0]).encode())  # reproducible per match id
                bot = self._bots[key] = get_game(game_id).make_bot(name, seat, seed)
                while len(self._bots) > KEPT_BOTS:
                    self._bots.popitem(last=False)
            return bot

    def drop(self, key: tuple[Any, ...]) -> None:
        with self._lock:
            self._bots.pop(key, None)

    def serve_in_thread(self) -> threading.Thread:
        """Start serving in a daemon thread (tests, ``check_bot``); stop with ``shutdown()``."""
        thread = threading.Thread(target=self.serve_forever, daemon=True, name="ref-bots")
        thread.start()
        return thread


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    wbufsize = 64 * 1024  # one write per answer; flushed by handle_one_request
    server: RefBotServer

    def log_message(self, format: str, *args: Any) -> None:  # stdlib signature
        pass

    def _route(self) -> tuple[list[str], str, str] | None:
        """``(games, bot, action)`` for a path like ``/dtc/heuristic/move``, None if unknown."""
        parts = [p for p in self.path.split("?", 1)[0].split("/") if p]
        games = self.server.games
        if parts and parts[0] in games:
            games, parts = [parts[0]], parts[1:]
        if not parts or parts[0] not in self.server.bot_names or len(parts) > 2:
            return None
        action = parts[1] if len(parts) == 2 else ""
        return games, parts[0], action

    def _send(self, status: int, payload: JSON) -> None:
        data = json.dumps(payload, separators=(",", ":")).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _read(self) -> bytes | None:
        length = self.headers.get("Content-Length", "0")
        if not length.isdigit() or int(length) > MAX_REQUEST_BYTES:
            self._send(413, {"error": "body too large or no Content-Length"})
            self.close_connection = True
            return None
        raw = self.rfile.read(int(length))
        if self.server.secret is not None:
            try:
                verify(self.server.secret, raw, dict(self.headers.items()))
            except WebhookVerificationError as exc:
                self._send(401, {"error": f"bad signature: {exc}"})
                return None
        return raw

    def do_GET(self) -> None:  # stdlib naming
        route = self._route()
        if route is None or route[2]:
            self._send(404, {"error": "unknown route"})
            return
        if self._read() is None:
            return
        games, name, _ = route
        self._send(200, {"apiversion": API_VERSION, "name": f"reference {name}",
                         "author": "Bluff League", "games": games,
                         "compact_legal_actions": True})

    def do_POST(self) -> None:  # stdlib naming
        route = self._route()
        if route is None or route[2] not in ("start", "move", "end"):
            self._send(404, {"error": "unknown route"})
            return
        raw = self._read()
        if raw is None:
            return
        games, name, action = route
        try:
            body = json.loads(raw)
            game_id, seat = body["match"]["game"], body["seat"]
            if game_id not in games:
                raise ValueError(f"this bot does not play {game_id!r}")
            key = (body["match"]["id"], seat, name)
            if action == "end":
                self.server.drop(key)
                self._send(200, {})
                return
            bot = self.server.bot_for(key, game_id, name, seat)
            if action == "start":
                self._send(200, {})
                return
            choice = bot.choose(body["view"], legal_from_body(game_id, body))
        except (ValueError, KeyError, TypeError) as exc:
            self._send(400, {"error": f"{type(exc).__name__}: {exc}"})
            return
        if self.server.move_delay:
            time.sleep(self.server.move_delay)
        self._send(200, {"action": choice})
