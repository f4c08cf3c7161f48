"""Platform time per webhook-bot move, on top of the raw HTTP round trip to the same bot.

    python bench/bots.py [--matches 30] [--game dice_cup] [--bot refserver|starter] [--full]

Starts a bot on loopback (the reference bots of ``serve_bots``, or the starter bot), both
checking signatures, then in the same run:

1. **raw**: the HTTP round trip alone: one kept-alive ``http.client`` connection posting an
   already built and signed /move body to the bot, again and again (bot time + loopback);
2. **protocol**: whole matches between webhook bots through the platform's match runner
   (``bots.match.play_webhook_match``: engine, request body, signature, the SSRF-guarded
   pooled client, answer parsing and engine validation), per /move call;
3. with ``--full``, the same through the Django service path of real matches
   (``games.services.match_advance_automatic_seats`` with ``webhook`` seats: row lock, state
   load/save once per batch of moves, the match log and the bot's call log, on a throwaway
   database: SQLite, or PostgreSQL with ``DATABASE_URL=postgres://...``).

Platform time per move = (2) or (3) minus (1). Target: under 0.5 ms per move for (2).
"""

from __future__ import annotations

import argparse
import http.client
import os
import pathlib
import platform
import statistics
import sys
import threading
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

TARGET_MS = 0.5


def start_bot(kind: str, secret: str):
    """(server, base URL) of a signature-checking bot on loopback."""
    if kind == "starter":
        import importlib.util

        spec = importlib.util.spec_from_file_location("starter_bot",
                                                      ROOT / "examples/starter_bot/bot.py")
        starter = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(starter)
        server = starter.make_server("127.0.0.1", 0, secret)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        return server, f"http://127.0.0.1:{server.server_address[1]}"
    from bots.refserver import RefBotServer

    server = RefBotServer(("127.0.0.1", 0), secret=secret)
    server.serve_in_thread()
    return server, server.base_url + "/random"


def sample_body(game_id: str, players: int, options):
    """A real /move body of the game, for the raw round trip."""
    from bots import protocol
    from games.engine import get_game

    state = get_game(game_id).new_match(players=players, seed=1, options=options)
    info = protocol.MatchInfo(id="raw", game=game_id, options=state.options,
                              seats=[f"p{i}" for i in range(players)], timeout_ms=1000)
    return protocol.encode(protocol.move_body(info, state, state.to_act()[0]))


def bench_raw(url: str, secret: str, body: bytes, n: int) -> float:
    """Median ms of a keep-alive POST /move round trip (signature made before timing)."""
    from bots.signing import sign_headers

    parsed = http.client.urlsplit(url)
    conn = http.client.HTTPConnection(parsed.hostname, parsed.port)
    headers = {**sign_headers(secret, body), "content-type": "application/json"}
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        conn.request("POST", parsed.path + "/move", body=body, headers=headers)
        response = conn.getresponse()
        response.read()
        times.append((time.perf_counter() - t0) * 1000)
        assert response.status == 200, response.status
    conn.close()
    return statistics.median(times)


def bench_protocol(url: str, secret: str, game_id: str, players: int, options,
                   matches: int) -> tuple[float, float, int]:
    """(ms per /move call of whole matches, median bot latency as seen by the client, calls)."""
    from bots.match import WebhookSeat, play_webhook_match
    from bots.net import BotClient

    with BotClient(allow_private=True) as client:
        play_webhook_match(game_id, [WebhookSeat(url, secret)] * players, client=client,
                           seed=10_000, options=options)  # warm up: connections, imports
        calls = 0
        latencies: list[float] = []
        started = time.perf_counter()
        for m in range(matches):
            report = play_webhook_match(game_id, [WebhookSeat(url, secret)] * players,
                                        client=client, seed=m, options=options)
            assert report.aborted is None and not any(s.strikes for s in report.seats)
            calls += sum(s.moves for s in report.seats)
            for s in report.seats:
                latencies += s.latencies_ms
        elapsed = (time.perf_counter() - started) * 1000
    return elapsed / calls, statistics.median(latencies), calls


def bench_full(url: str, secret: str, game_id: str, players: int, options,
               matches: int) -> tuple[float, int]:
    """ms per webhook move through the games service (DB), on a throwaway test database."""
    import django

    django.setup()
    from django.conf import settings
    from django.db import connection
    from django.test.utils import setup_test_environment

    settings.BOTS_ALLOW_PRIVATE_ADDRESSES = True
    setup_test_environment()
    old_name = connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        from django.contrib.auth import get_user_model

        from bots.models import Bot
        from games import services
        from games.engine import game_ids

        owner = get_user_model().objects.create_user("bench", password="x")
        bot = Bot.objects.create(owner=owner, name="bench", url=url, secret=secret,
                                 games=game_ids(), handshake_ok=True)
        seats = [{"kind": "webhook", "bot": bot.pk}] * players

        def one(seed: int) -> int:
            match = services.match_create(game=game_id, created_by=owner, seats=seats,
                                          seed=seed, options=options)
            moves = services.match_advance_automatic_seats(match_id=match.pk)
            services.match_advance_automatic_seats(match_id=match.pk)  # /end
            return moves

        one(10_000)
        moves = 0
        started = time.perf_counter()
        for m in range(matches):
            moves += one(m)
        elapsed = (time.perf_counter() - started) * 1000
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)
    return elapsed / moves, moves


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="dice_cup")
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--matches", type=int, default=30)
    parser.add_argument("--bot", choices=["refserver", "starter"], default="refserver")
    parser.add_argument("--full", action="store_true",
                        help="also measure the Django service path (DB) per move")
    args = parser.parse_args()
    import django

    django.setup()
    from bots.signing import new_secret

    options = {"great_dalmuti": {"hands": 1}, "dutch": {"rounds": 1}}.get(args.game)
    secret = new_secret()
    server, url = start_bot(args.bot, secret)
    body = sample_body(args.game, args.players, options)
    raw = bench_raw(url, secret, body, 2000)
    per_move, seen, calls = bench_protocol(url, secret, args.game, args.players, options,
                                           args.matches)
    raw_after = bench_raw(url, secret, body, 2000)
    raw = min(raw, raw_after)
    print(f"Python {platform.python_version()} on {platform.machine()}; bot: {args.bot} "
          f"({url}), game {args.game}, {args.players} webhook seats, {args.matches} matches")
    print(f"raw HTTP round trip (keep-alive, same body size {len(body)} B): {raw:.3f} ms")
    print(f"protocol path: {per_move:.3f} ms per move over {calls} /move calls "
          f"(client-side call latency p50 {seen:.3f} ms)")
    overhead = per_move - raw
    verdict = "OK" if overhead < TARGET_MS else "OVER TARGET"
    print(f"platform time per move on top of the round trip: {overhead:.3f} ms "
          f"(target < {TARGET_MS} ms: {verdict})")
    if args.full:
        full, moves = bench_full(url, secret, args.game, args.players, options, args.matches)
        from django.db import connection

        vendor = connection.vendor
        print(f"full service path (Django, {vendor}, match log + bot call log): {full:.3f} ms "
              f"per move over {moves} moves; {full - raw:.3f} ms on top of the round trip")
    server.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
