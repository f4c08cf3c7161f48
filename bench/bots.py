"""Platform time per webhook-bot move, on top of the raw HTTP round trip to the same bot.

    python bench/bots.py [--matches 30] [--rounds 3] [--game dice_cup] [--players 3]
                         [--bot refserver|starter] [--full]

The bot runs in a process of its own on loopback, checking signatures, as a developer's bot
would: the reference bots of ``manage.py serve_bots`` or ``examples/starter_bot``. Then, in
``--rounds`` alternating rounds (so that machine noise falls on every figure alike):

1. **raw**: the HTTP round trip alone: one kept-alive stdlib ``http.client`` connection posting
   an already built and signed /move body to the bot, again and again: the bot's own time,
   loopback, and the leanest Python client;
2. **protocol**: whole matches between webhook bots through the platform's match runner
   (``bots.match.play_webhook_match``: engine, request bodies, signatures, the SSRF-guarded
   pooled client, answer parsing and engine validation, /start and /end);
3. with ``--full``, the same matches through the Django service path that real matches take
   (``games.services.match_create`` and ``match_advance_automatic_seats`` with ``webhook``
   seats: row lock, batches, the match log, the bots' call log, /start and /end claimed once)
   on a throwaway database: SQLite, or PostgreSQL with ``DATABASE_URL=postgres://...``.

Platform time per move = (time of the matches - raw x the bot round trips they needed) / moves,
counting one round trip per /move call and one per /start or /end round (sent to every seat at
once). Each figure is the median of the rounds. Target: under 0.5 ms per move for (2).

For (3) a least-squares line through (moves, time) of every match also splits the time into a
cost per match (creating it, /start and /end, first and last save) and a cost per move.
"""

from __future__ import annotations

import argparse
import http.client
import os
import pathlib
import platform
import re
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

TARGET_MS = 0.5
#: Notify rounds per match: /start and /end.
NOTIFY_ROUNDS = 2


def start_bot(kind: str, secret: str) -> tuple[subprocess.Popen, str]:
    """(process, base URL) of a signature-checking bot on a free loopback port."""
    if kind == "starter":
        command = [sys.executable, str(ROOT / "examples/starter_bot/bot.py"), "--port", "0"]
        suffix = ""
    else:
        command = [sys.executable, str(ROOT / "manage.py"), "serve_bots", "--port", "0",
                   "--secret", secret]
        suffix = "/random"
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True,
                               env={**os.environ, "BOT_SECRET": secret})
    line = process.stdout.readline()
    found = re.search(r"http://[\d.]+:\d+", line)
    if found is None:
        process.kill()
        raise SystemExit(f"the bot did not start: {line!r}")
    return process, found.group(0) + suffix


def sample_body(game_id: str, players: int, options) -> bytes:
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
        started = time.perf_counter()
        conn.request("POST", parsed.path + "/move", body=body, headers=headers)
        response = conn.getresponse()
        response.read()
        times.append((time.perf_counter() - started) * 1000)
        assert response.status == 200, response.status
    conn.close()
    return statistics.median(times)


@dataclass
class Run:
    """Matches played one way: per match (moves, /move calls, ms)."""

    matches: list[tuple[int, int, float]]

    @property
    def moves(self) -> int:
        return sum(m for m, _, _ in self.matches)

    def per_move(self, raw_ms: float) -> float:
        """Platform ms per move on top of the bot round trips."""
        trips = sum(calls + NOTIFY_ROUNDS for _, calls, _ in self.matches)
        return (sum(ms for _, _, ms in self.matches) - raw_ms * trips) / self.moves

    def fit(self) -> tuple[float, float]:
        """(ms per match, ms per move) of a least-squares line through the matches."""
        slope, intercept = statistics.linear_regression([m for m, _, _ in self.matches],
                                                        [ms for _, _, ms in self.matches])
        return intercept, slope


def bench_protocol(url: str, secret: str, game_id: str, players: int, options,
                   seeds: range) -> Run:
    """Whole matches through ``play_webhook_match``."""
    from bots.match import WebhookSeat, play_webhook_match
    from bots.net import BotClient

    seats = [WebhookSeat(url, secret)] * players
    out = []
    with BotClient(allow_private=True) as client:
        play_webhook_match(game_id, seats, client=client, seed=10_000, options=options)  # warm
        for seed in seeds:
            started = time.perf_counter()
            report = play_webhook_match(game_id, seats, client=client, seed=seed,
                                        options=options)
            elapsed = (time.perf_counter() - started) * 1000
            assert report.aborted is None and not any(s.strikes for s in report.seats)
            calls = sum(s.moves for s in report.seats)
            out.append((len(report.history), calls, elapsed))
    return Run(out)


def full_path(url: str, secret: str, game_id: str, players: int,
              options) -> Callable[[range], Run]:
    """A function playing matches through the games service on a throwaway test database
    (created here; call ``full_path.teardown()`` when done)."""
    from django.conf import settings
    from django.db import connection
    from django.test.utils import setup_test_environment

    settings.BOTS_ALLOW_PRIVATE_ADDRESSES = True
    setup_test_environment()
    old_name = connection.creation.create_test_db(verbosity=0, autoclobber=True)

    from django.contrib.auth import get_user_model

    from bots.models import BotCall
    from bots.models import Bot
    from games import services
    from games.engine import game_ids

    owner = get_user_model().objects.create_user("bench", password="x")
    bot = Bot.objects.create(owner=owner, name="bench", url=url, secret=secret,
                             games=game_ids(), handshake_ok=True)
    seats = [{"kind": "webhook", "bot": bot.pk}] * players

    def one(seed: int) -> tuple[int, int, float]:
        started = time.perf_counter()
        match = services.match_create(game=game_id, created_by=owner, seats=seats, seed=seed,
                                      options=options)
        moves = services.match_advance_automatic_seats(match_id=match.pk)
        elapsed = (time.perf_counter() - started) * 1000
        calls = BotCall.objects.filter(match_id=match.pk, path="move").count()
        return moves, calls, elapsed

    def play(seeds: range) -> Run:
        return Run([one(seed) for seed in seeds])

    def teardown() -> None:
        connection.creation.destroy_test_db(old_name, verbosity=0)

    one(10_000)  # warm up
    play.teardown = teardown  # type: ignore[attr-defined]
    return play


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="dice_cup")
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--matches", type=int, default=30, help="matches per round and path")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--bot", choices=["refserver", "starter"], default="refserver")
    parser.add_argument("--full", action="store_true",
                        help="also measure the Django service path (database) per move")
    args = parser.parse_args()
    import django

    django.setup()
    from django.db import connection

    from bots.signing import new_secret

    options = {"great_dalmuti": {"hands": 1}, "dutch": {"rounds": 1}}.get(args.game)
    secret = new_secret()
    process, url = start_bot(args.bot, secret)
    try:
        body = sample_body(args.game, args.players, options)
        full = full_path(url, secret, args.game, args.players, options) if args.full else None
        raws, protocols, fulls = [], [], []
        for r in range(args.rounds):
            seeds = range(r * args.matches, (r + 1) * args.matches)
            raw = bench_raw(url, secret, body, 1000)
            protocol = bench_protocol(url, secret, args.game, args.players, options, seeds)
            raws.append(raw)
            protocols.append(protocol.per_move(raw))
            if full is not None:
                fulls.append(full(seeds))
        if full is not None:
            full.teardown()
    finally:
        process.kill()

    raw = statistics.median(raws)
    print(f"Python {platform.python_version()} on {platform.machine()}; bot: {args.bot} in its "
          f"own process ({url}); {args.game}, {args.players} webhook seats, "
          f"{args.rounds} rounds of {args.matches} matches per path")
    print(f"raw HTTP round trip (http.client keep-alive, /move body {len(body)} B): "
          f"{raw:.3f} ms (rounds: {', '.join(f'{x:.3f}' for x in raws)})")
    overhead = statistics.median(protocols)
    verdict = "OK" if overhead < TARGET_MS else "OVER TARGET"
    print(f"protocol path, platform time per move on top of the round trip: {overhead:.3f} ms "
          f"(rounds: {', '.join(f'{x:.3f}' for x in protocols)}; target < {TARGET_MS} ms: "
          f"{verdict})")
    if fulls:
        per_move = [run.per_move(r) for run, r in zip(fulls, raws)]
        fits = [run.fit() for run in fulls]
        print(f"full service path ({connection.vendor}: match log, bot call log), platform time "
              f"per move on top of the round trip: {statistics.median(per_move):.3f} ms "
              f"(rounds: {', '.join(f'{x:.3f}' for x in per_move)}; "
              f"{statistics.mean(m for run in fulls for m, _, _ in run.matches):.0f} moves per "
              f"match)")
        per_match = statistics.median(f[0] for f in fits)
        slope = statistics.median(f[1] for f in fits)
        print(f"  as a line through the matches: {per_match:.1f} ms per match + {slope:.3f} ms "
              f"per move, i.e. {slope - raw:.3f} ms per move on top of the round trip")
    return 0


if __name__ == "__main__":
    sys.exit(main())
