"""Platform time per webhook-bot move, on top of the raw HTTP round trip to the same bot.

    python bench/bots.py [--matches 30] [--rounds 5] [--game dice_cup] [--players 3]
                         [--bot refserver|starter] [--full]

The bot runs in a process of its own on loopback, checking signatures, as a developer's bot
would: the reference bots of ``manage.py serve_bots`` or ``examples/starter_bot``. Then, in
``--rounds`` alternating rounds (so that machine noise falls on every figure alike):

1. **raw**: the HTTP round trip alone: one kept-alive stdlib ``http.client`` connection posting
   already built and signed /move bodies of real matches of the game to the bot, again and
   again: the bot's own time, loopback, and the leanest Python client;
2. **protocol**: whole matches between webhook bots through the platform's match runner
   (``bots.match.play_webhook_match``: engine, request bodies, signatures, the SSRF-guarded
   pooled client, answer parsing and engine validation, /start and /end);
3. with ``--full``, the same matches through the Django service path that real matches take
   (``games.services.match_create`` and ``match_advance_automatic_seats`` with ``webhook``
   seats: row lock, batches, the match log, the bots' call log, /start and /end claimed once)
   on a throwaway database: SQLite, or PostgreSQL with ``DATABASE_URL=postgres://...``.

Platform time per move = (time of the moves - raw x the /move calls they needed) / moves. For
(2) the moves are timed apart from /start and /end (per match, not per move; their time is
printed too); for (3) whole matches are timed, counting one round trip per /start and /end
round. Each figure is the median of the rounds (each a mean over its calls or moves).
Target: under 0.5 ms per move for (2).

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
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
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


def sample_bodies(game_id: str, players: int, options, matches: int = 5) -> list[bytes]:
    """Real /move bodies of whole matches (the reference random bot choosing), for the raw
    round trip: the bot's own work per call depends on the body it gets."""
    from bots import protocol
    from games.engine import get_game

    game = get_game(game_id)
    bodies = []
    for seed in range(50_000, 50_000 + matches):
        state = game.new_match(players=players, seed=seed, options=options)
        info = protocol.MatchInfo(id=f"raw{seed}", game=game_id, options=state.options,
                                  seats=[f"p{i}" for i in range(players)], timeout_ms=1000)
        bots = [game.make_bot("random", i, seed) for i in range(players)]
        while not state.is_over:
            for seat in state.to_act():
                if state.is_over or seat not in state.to_act():
                    continue
                bodies.append(protocol.encode(protocol.move_body(info, state, seat)))
                state.apply(seat, bots[seat].choose(state.view(seat),
                                                    state.legal_actions(seat)))
    return bodies


def bench_raw(url: str, secret: str, bodies: list[bytes], n: int) -> float:
    """Mean ms of a keep-alive POST /move round trip, cycling through ``bodies`` (signatures
    made before timing)."""
    from bots.signing import sign_headers

    parsed = http.client.urlsplit(url)
    conn = http.client.HTTPConnection(parsed.hostname, parsed.port)
    signed = [(body, {**sign_headers(secret, body), "content-type": "application/json"})
              for body in bodies]
    elapsed = 0.0
    for i in range(n):
        body, headers = signed[i % len(signed)]
        started = time.perf_counter()
        conn.request("POST", parsed.path + "/move", body=body, headers=headers)
        response = conn.getresponse()
        response.read()
        elapsed += time.perf_counter() - started
        assert response.status == 200, response.status
    conn.close()
    return elapsed * 1000 / n


@dataclass
class Run:
    """Matches played one way: per match (moves, /move calls, ms of its moves), and for the
    protocol path the mean ms of a match's /start and /end rounds, timed apart."""

    matches: list[tuple[int, int, float]]
    notify_ms: float | None = None

    @property
    def moves(self) -> int:
        return sum(m for m, _, _ in self.matches)

    def per_move(self, raw_ms: float, notify_rounds: int = 0) -> float:
        """Platform ms per move on top of the bot round trips (``notify_rounds`` per match
        when the times include /start and /end)."""
        trips = sum(calls + notify_rounds for _, calls, _ in self.matches)
        return (sum(ms for _, _, ms in self.matches) - raw_ms * trips) / self.moves

    def fit(self) -> tuple[float, float]:
        """(ms per match, ms per move) of a least-squares line through the matches."""
        slope, intercept = statistics.linear_regression([m for m, _, _ in self.matches],
                                                        [ms for _, _, ms in self.matches])
        return intercept, slope


def bench_protocol(url: str, secret: str, game_id: str, players: int, options,
                   seeds: range) -> Run:
    """Whole matches through the match runner of ``play_webhook_match``, timing the moves
    (steps) apart from /start and /end, which are per match, not per move."""
    import uuid

    from bots.offline import WebhookMatch, WebhookSeat
    from bots.net import BotClient
    from bots.protocol import MatchInfo
    from games.engine import get_game

    game = get_game(game_id)
    seats = [WebhookSeat(url, secret)] * players
    out = []
    notify_ms = []
    with BotClient(allow_private=True) as client:
        for seed in [10_000, *seeds]:  # the first one warms up
            state = game.new_match(players=players, seed=seed, options=options)
            info = MatchInfo(id=uuid.uuid4().hex, game=game_id, options=state.options,
                             seats=[s.name for s in seats], timeout_ms=1000, strike_limit=5)
            runner = WebhookMatch(state, seats, match=info, client=client, strike_limit=5,
                                  seed=seed)
            started = time.perf_counter()
            runner.start()
            stepping = time.perf_counter()
            while not state.is_over:
                runner.step()
            stepped = time.perf_counter()
            runner.end()
            ended = time.perf_counter()
            assert not any(s.strikes or s.call_errors for s in runner.stats)
            if seed != 10_000:
                calls = sum(s.moves for s in runner.stats)
                out.append((len(runner.report.history), calls, (stepped - stepping) * 1000))
                notify_ms.append((stepping - started + ended - stepped) * 1000)
    return Run(out, notify_ms=statistics.mean(notify_ms))


@contextmanager
def full_path(url: str, secret: str, game_id: str, players: int,
              options) -> Iterator[Callable[[range], Run]]:
    """A function playing matches through the games service, on a throwaway test database
    that lives as long as the ``with`` block."""
    from django.conf import settings
    from django.db import connection
    from django.test.utils import setup_test_environment

    settings.BOTS_ALLOW_PRIVATE_ADDRESSES = True
    setup_test_environment(debug=False)  # as in production: no query log kept
    old_name = connection.creation.create_test_db(verbosity=0, autoclobber=True)

    from django.contrib.auth import get_user_model

    from bots.models import Bot, BotCall
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

    try:
        one(10_000)  # warm up
        yield lambda seeds: Run([one(seed) for seed in seeds])
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="dice_cup")
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--matches", type=int, default=30, help="matches per round and path")
    parser.add_argument("--rounds", type=int, default=5)
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
        bodies = sample_bodies(args.game, args.players, options)
        raws, protocols, notifies, fulls = [], [], [], []
        with (full_path(url, secret, args.game, args.players, options) if args.full
              else nullcontext()) as full:
            for r in range(args.rounds):
                seeds = range(r * args.matches, (r + 1) * args.matches)
                raw = bench_raw(url, secret, bodies, 1000)
                protocol = bench_protocol(url, secret, args.game, args.players, options, seeds)
                raws.append(raw)
                protocols.append(protocol.per_move(raw))
                notifies.append(protocol.notify_ms)
                if full is not None:
                    fulls.append(full(seeds))
    finally:
        process.kill()

    raw = statistics.median(raws)
    print(f"Python {platform.python_version()} on {platform.machine()}; bot: {args.bot} in its "
          f"own process ({url}); {args.game}, {args.players} webhook seats, "
          f"{args.rounds} rounds of {args.matches} matches per path")
    print(f"raw HTTP round trip (http.client keep-alive, {len(bodies)} real /move bodies of "
          f"{statistics.mean(map(len, bodies)):.0f} B on average): "
          f"{raw:.3f} ms (rounds: {', '.join(f'{x:.3f}' for x in raws)})")
    overhead = statistics.median(protocols)
    verdict = "OK" if overhead < TARGET_MS else "OVER TARGET"
    print(f"protocol path, platform time per move on top of the round trip: {overhead:.3f} ms "
          f"(rounds: {', '.join(f'{x:.3f}' for x in protocols)}; target < {TARGET_MS} ms: "
          f"{verdict})")
    print(f"  per match: /start and /end, each sent to every seat at once: "
          f"{statistics.median(notifies):.2f} ms")
    if fulls:
        per_move = [run.per_move(r, NOTIFY_ROUNDS) for run, r in zip(fulls, raws)]
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
