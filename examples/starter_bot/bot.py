#!/usr/bin/env python3
"""A Bluff League starter bot: protocol v1, every game, Python standard library only.

    python bot.py --port 8001                        # 1. no secret yet: accepts every call
    # 2. register http://127.0.0.1:8001 with the platform: its answer has your secret
    BOT_SECRET=whsec_... python bot.py --port 8001   # 3. restart it with that secret

It checks each call's Standard Webhooks signature, answers the handshake, and plays a legal
random action: from ``legal_actions`` when the platform sends the list, else from the compact
``legal_description`` (DTC offers over 256: its handshake says ``compact_legal_actions: true``,
so the platform may leave those long lists out). Replace :func:`choose` with your strategy.
Each request gets one line on stderr: its path, the match and turn, and the verdict
(``POST /move match 7 turn 3: ok {"type":"call","target":1,"number":3}``, or ``bad signature``).
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import hmac
import json
import os
import random
import string
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import quote, urlsplit

NAME = "starter bot"
AUTHOR = "you"
GAMES = ["dtc", "great_dalmuti", "dutch", "dice_cup", "dot"]
TOLERANCE_S = 300  # refuse signatures more than 5 minutes off: stops replays of old calls
MAX_BODY = 4 * 1024 * 1024

rng = random.Random()


# ---- your strategy ----------------------------------------------------------------------------


def choose(body: dict[str, Any]) -> dict[str, Any]:
    """Pick an action for ``body["seat"]`` from what the platform says it may do.

    ``body["view"]`` holds everything your seat may know (your cards, public counts...).
    """
    legal = body.get("legal_actions")
    if legal:
        return rng.choice(legal)
    description = body["legal_description"]
    if description["type"] == "offer":  # DTC: too many offers to list
        return random_offer(description)
    raise ValueError(f"unknown description {description['type']!r}")


def random_offer(d: dict[str, Any]) -> dict[str, Any]:
    """A legal DTC offer from its description: ``min_count`` cards from the hand, with a value
    of at least ``min_value`` (any count above ``min_count`` could take any value)."""
    pool = [rank for rank, n in d["hand"].items() for _ in range(n)]
    cards: dict[str, int] = {}
    for rank in rng.sample(pool, d["min_count"]):
        cards[rank] = cards.get(rank, 0) + 1
    return {"type": "offer", "cards": cards,
            "value": rng.randint(d["min_value"], d["values"][1])}


# ---- protocol plumbing ------------------------------------------------------------------------


def secret_key(secret: str) -> bytes:
    """The HMAC key of a ``whsec_<base64>`` secret."""
    return base64.b64decode(secret.removeprefix("whsec_"))


def signature_ok(key: bytes, headers: Any, body: bytes) -> bool:
    """Standard Webhooks: ``v1,<base64 HMAC-SHA256 of "id.timestamp.body">``, fresh timestamp."""
    msg_id = headers.get("webhook-id", "")
    timestamp = headers.get("webhook-timestamp", "")
    if not msg_id or not timestamp.isdigit() or abs(time.time() - int(timestamp)) > TOLERANCE_S:
        return False
    digest = hmac.new(key, f"{msg_id}.{timestamp}.".encode() + body, hashlib.sha256).digest()
    expected = base64.b64encode(digest)
    for candidate in headers.get("webhook-signature", "").split():
        version, _, value = candidate.partition(",")
        if version == "v1" and hmac.compare_digest(value.encode(), expected):
            return True
    return False


class Handler(BaseHTTPRequestHandler):
    # Keep-alive, no Nagle, and one buffered write per answer: without these the stdlib server
    # sends headers and body in separate segments and waits ~40 ms for a delayed ACK each time.
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    wbufsize = 64 * 1024
    key: bytes | None = None

    def log_message(self, format: str, *args: Any) -> None:
        pass  # the stdlib's own line per request; _answer logs one of ours instead

    def _answer(self, status: int, payload: dict[str, Any], verdict: str,
                body: Any = None) -> None:
        # The log line first: once the caller has the answer, its line is written.
        print(log_line(self.command, self.path, body, verdict), file=sys.stderr, flush=True)
        data = json.dumps(payload, separators=(",", ":")).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _route(self) -> str:
        """The request path without the query string your URL may carry (``/move?team=blue``)."""
        return urlsplit(self.path).path.rstrip("/")

    def _body(self) -> bytes | None:
        length = self.headers.get("Content-Length", "0")
        if not length.isdigit() or int(length) > MAX_BODY:
            self.close_connection = True
            self._answer(413, {"error": "too large"}, "too large")
            return None
        body = self.rfile.read(int(length))
        if self.key is not None and not signature_ok(self.key, self.headers, body):
            self._answer(401, {"error": "bad signature"}, "bad signature")
            return None
        return body

    def do_GET(self) -> None:
        if self._body() is None:
            return
        if self._route() != "":
            self._answer(404, {"error": "not found"}, "not found")
            return
        # compact_legal_actions: choose() reads legal_description when a long list is left out.
        self._answer(200, {"apiversion": "1", "name": NAME, "author": AUTHOR, "games": GAMES,
                           "compact_legal_actions": True}, "ok")

    def do_POST(self) -> None:
        raw = self._body()
        if raw is None:
            return
        route = self._route()
        if route == "/move":
            body = None
            try:
                body = json.loads(raw)
                action = choose(body)
            except (ValueError, KeyError, TypeError) as exc:
                self._answer(400, {"error": str(exc)}, f"bad request: {exc!r}", body)
                return
            self._answer(200, {"action": action},
                         "ok " + json.dumps(action, separators=(",", ":")), body)
        elif route in ("/start", "/end"):
            self._answer(200, {}, "ok", parsed(raw))  # notices: the body is read for the log
        else:
            self._answer(404, {"error": "not found"}, "not found")


def parsed(raw: bytes) -> Any:
    """``raw`` as JSON, or None if it is not."""
    try:
        return json.loads(raw)
    except ValueError:
        return None


def log_line(method: str, path: str, body: Any, verdict: str) -> str:
    """``POST /move match 7 turn 3: ok {...}``: the request, the match id and turn when its body
    has them (never read from a call whose signature failed: no body is passed then), and what
    the bot answered. The path is %-escaped and the values go through JSON, so a request cannot
    put a line break or a terminal escape in the log."""
    where = ""
    if isinstance(body, dict):
        match = body.get("match")
        if isinstance(match, dict) and "id" in match:
            where += f" match {json.dumps(match['id'])}"
        if "turn" in body:
            where += f" turn {json.dumps(body['turn'])}"
    return f"{method} {quote(path, safe=string.punctuation)}{where}: {verdict}"


def make_server(host: str, port: int, secret: str | None) -> ThreadingHTTPServer:
    """A ready server; ``secret`` None accepts every call, signed or not: how the bot answers
    the registration handshake before you have its secret (then restart it with the secret)."""
    handler = type("BotHandler", (Handler,), {"key": secret_key(secret) if secret else None})
    server = ThreadingHTTPServer((host, port), handler)
    server.daemon_threads = True
    return server


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    # 8001: `make run` serves the platform itself on 8000.
    parser.add_argument("--port", type=int, default=int(os.environ.get("BOT_PORT", "8001")))
    args = parser.parse_args()
    secret = os.environ.get("BOT_SECRET")
    server = make_server(args.host, args.port, secret)
    url = f"http://{args.host}:{server.server_address[1]}"
    print(f"{NAME} on {url} ({'checking signatures' if secret else 'NO SECRET'})", flush=True)
    if not secret:
        print(f"WARNING: BOT_SECRET is not set, so this bot accepts EVERY call, signed or not.\n"
              f"  That is only for registering it: register {url}, then restart it with\n"
              f"  BOT_SECRET=<the whsec_... secret the registration answered> so it refuses\n"
              f"  calls that are not from the platform.", file=sys.stderr, flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
