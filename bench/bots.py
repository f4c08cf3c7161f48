"""Platform time per webhook-bot move, through the path real matches take, on top of the raw
HTTP round trip to the same bot.

    python bench/bots.py [--matches 30] [--rounds 5] [--worker-matches 200] [--game dice_cup]
                         [--players 3] [--bot refserver|starter] [--bot-delay-ms 0]
                         [--db postgres://postgres@127.0.0.1:5432/bluff_bench_bots | --db sqlite]

The bot runs in a process of its own on loopback, checking signatures, as a developer's bot
would: the reference bots of ``manage.py serve_bots`` or ``examples/starter_bot``. With
``--bot-delay-ms`` the reference bots answer each /move that long after it arrives
(``serve_bots --move-delay-ms``), as a bot across the internet would; the targets are for bots
that answer at once. The bench database is dropped and created (PostgreSQL, the default) or a
fresh SQLite file, and migrated.
Then, in ``--rounds`` alternating rounds (so that machine noise falls on every figure alike):

1. **raw**: the HTTP round trip alone: one kept-alive stdlib ``http.client`` connection posting
   already built and signed /move bodies of real matches of the game to the bot, again and
   again: the bot's own time, loopback, and the leanest Python client; and a round of /start
   notices to every seat at once (a connection per seat, every request written before any
   answer is read: what the bot takes to answer several calls at once, its own affair);
2. **task path**: whole matches of ``--players`` webhook seats as real matches are played:
   ``games.services.match_create`` (what ``POST /api/matches/`` calls), then the body of the
   Celery task ``games.advance_automatic_seats`` in this process (match driver, seat sessions,
   bodies, signatures, the pooled SSRF-guarded client, batches stored guarded by the version,
   the match log, the call log, /start and /end claimed once). Timed all-in per match.

Platform time per move = (time of the matches - the raw time of the round trips they needed:
every /move call at the /move figure, one /start and one /end round at the notice figure) / moves, each figure the median of the rounds; the CPU
time of this process per move is printed too (steadier when other work shares the machine). A
least-squares line through (moves, ms) of every match splits it into a cost per match and a
cost per move. Targets: at most 0.25 ms per move all-in (issue 23), under 5 ms per match.
The first line gives the database's round trip (``SELECT 1`` through Django) and the load
average: every statement of a match waits at least that round trip, and on a shared VM it moves
with how busy the machine is (bench/common.py), so read the figures beside it.

3. **worker**: what a user sees: ``--worker-matches`` matches created one after another with
   the task queued on commit (as the API does) and played by one real Celery worker process
   (solo pool) on the configured broker (``CELERY_BROKER_URL``, else an embedded one in a
   temporary folder); matches/s from the first creation to the last /end, next to the
   round-trip-bound ideal (every round trip at the raw figure, nothing else): on the solo
   pool, one match at a time, so the ratio is the platform's own share of a match's time (for
   information: the loopback 0.7x target of issue 23 is retired for issue 49's). A second line,
   for information, gives the same run on the worker as deployed (``PRODUCTION_MATCHES_POOL``:
   32 threads, several matches in flight, so it can pass the sequential ideal;
   ``--deployed-matches 0`` skips it).
4. **in flight** (``--in-flight N``, issue 49): the multiplexed worker (``--pool threads
   --concurrency N``, ``BLUFF_MULTIPLEXED_WORKER=1``: one loop thread plays every match) playing
   ``--in-flight-matches`` matches of ``--game`` (default dice cup, 3 seats; a Great Dalmuti
   hand of 5 is a league night's table) queued all at once against the reference bots
   answering after ``--bot-delay-ms`` (their seats spread over four bots, each a
   reference-bot server process of its own, as real bots are, declaring ``max_concurrency``
   256), the same against four servers answering at once, and the threaded worker as
   deployed against the delayed bots: matches/s of each, matches in flight (sampled from
   their leases, every 0.5 s while some match has not begun: the queue still feeds the
   worker, before the last ones drain), the process's peak resident memory, the CPU time per
   match of the worker and of the bot servers (on one machine they share its cores), and one
   line a script can
   read: ``multiplexed: 500 in flight, 31.2 matches/s; 0.83x the same process against bots
   answering at once; 4.3x the threaded worker``. Targets: 0.8x, 3x, under 1 GiB.

   On one machine the bot servers take CPU the worker would have (docs/performance.md,
   "2026-12-07 (04:00-04:45)"). To measure the worker alone, serve the bots from another
   machine, four ``serve_bots`` processes holding each answer and four answering at once,
   all signing with one secret::

       BOT_SECRET=whsec_... python manage.py serve_bots --host 0.0.0.0 --port 9001 \
           --secret "$BOT_SECRET" --move-delay-ms 50      # 9001-9004; 9011-9014 without delay

   and name them: ``--delayed-bots http://bots:9001 ... --instant-bots http://bots:9011 ...``
   with ``BOT_SECRET`` set here too and ``--bot-delay-ms`` saying the delay they hold. The
   bots' CPU is then theirs, not reported.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import platform
import re
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.common import (
    PRODUCTION_MATCHES_POOL,
    cpu_seconds,
    database_round_trip_ms,
    peak_memory_kib,
    raw_round_ms,
    setup_bench,
    start_worker,
    wait_for_workers,
)

TARGET_PER_MOVE_MS = 0.25
TARGET_PER_MATCH_MS = 5.0
#: One worker process (solo pool) against the round-trip-bound ideal (issue 23's, retired).
TARGET_WORKER_SHARE = 0.7
#: Notify rounds per match: /start and /end.
NOTIFY_ROUNDS = 2
DEFAULT_DB = "postgres://postgres@127.0.0.1:5432/bluff_bench_bots"
#: The worker the target is on: one match at a time.
SOLO_POOL = ("--pool", "solo")


def start_bot(kind: str, secret: str, delay_ms: float = 0.0) -> tuple[subprocess.Popen, str]:
    """(process, base URL) of a signature-checking bot on a free loopback port; the reference
    bots hold each /move answer ``delay_ms``."""
    if kind == "starter":
        if delay_ms:
            raise SystemExit("--bot-delay-ms is for the reference bots (--bot refserver)")
        command = [sys.executable, str(ROOT / "examples/starter_bot/bot.py"), "--port", "0"]
        suffix = ""
    else:
        command = [sys.executable, str(ROOT / "manage.py"), "serve_bots", "--port", "0",
                   "--secret", secret, "--move-delay-ms", str(delay_ms)]
        suffix = "/random"
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, cwd=ROOT,
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
        info = protocol.MatchInfo(id=seed, game=game_id, options=state.options,
                                  seats=[f"p{i}" for i in range(players)], timeout_ms=1000)
        bots = [game.make_bot("random", i, seed) for i in range(players)]
        while not state.is_over:
            for seat in state.to_act():
                if state.is_over or seat not in state.to_act():
                    continue
                bodies.append(protocol.encode(protocol.move_body(info, state, seat,
                                                                 compact=True)))
                state.apply(seat, bots[seat].choose(state.view(seat),
                                                    state.legal_actions(seat)))
    return bodies


def notify_bodies(game_id: str, players: int, options) -> list[bytes]:
    """The /start bodies of a real match, one per seat (a notice round's raw cost)."""
    from bots import protocol
    from games.engine import get_game

    state = get_game(game_id).new_match(players=players, seed=50_000, options=options)
    info = protocol.MatchInfo(id=1, game=game_id, options=state.options,
                              seats=[f"p{i}" for i in range(players)], timeout_ms=1000)
    return [protocol.encode(protocol.start_body(info, state, seat)) for seat in range(players)]


@dataclass
class Raw:
    """The bot's raw round trips: one /move, and one round of notices to every seat."""

    move_ms: float
    notify_ms: float

    def of(self, calls: int) -> float:
        """Raw ms of a match that made ``calls`` /move calls (plus /start and /end rounds)."""
        return self.move_ms * calls + self.notify_ms * NOTIFY_ROUNDS


@dataclass
class Run:
    """Matches played through the task path: per match (moves, /move calls, ms all-in), and
    the CPU time this process spent on them."""

    matches: list[tuple[int, int, float]]
    cpu_ms: float = 0.0

    @property
    def moves(self) -> int:
        return sum(m for m, _, _ in self.matches)

    def per_move(self, raw: Raw) -> float:
        """Platform ms per move on top of the bot round trips, all-in."""
        return sum(ms - raw.of(calls) for _, calls, ms in self.matches) / self.moves

    def fit(self, raw: Raw) -> tuple[float, float]:
        """(ms per match, ms per move) on top of the round trips, from a least-squares line
        through the matches' (moves, platform ms)."""
        platform_ms = [ms - raw.of(calls) for _, calls, ms in self.matches]
        slope, intercept = statistics.linear_regression([m for m, _, _ in self.matches],
                                                        platform_ms)
        return intercept, slope


class Bench:
    """The bench database's owner, bot and seats."""

    def __init__(self, url: str, secret: str, game: str, players: int, options) -> None:
        from django.contrib.auth import get_user_model

        from bots.models import Bot
        from games.engine import game_ids

        self.game, self.options = game, options
        self.owner = get_user_model().objects.create_user("bench", password="x")
        # As a registered reference or starter bot: both say compact_legal_actions: true.
        bot = Bot.objects.create(owner=self.owner, name="bench", url=url, secret=secret,
                                 games=game_ids(), handshake_ok=True, compact_legal_actions=True)
        self.seats = [{"kind": "webhook", "bot": bot.pk}] * players

    def create(self, seed: int):
        from games import services

        return services.match_create(game=self.game, created_by=self.owner, seats=self.seats,
                                     seed=seed, options=self.options)

    def task_path(self, seeds: range) -> Run:
        """Create and play each match through the task's body, timed all-in."""
        from bots.models import BotCall
        from games import tasks
        from lib import queueing

        out = []
        enqueue = queueing.enqueue
        queueing.enqueue = lambda task, *args: None  # the task runs right here instead
        cpu = time.process_time()
        try:
            for seed in seeds:
                started = time.perf_counter()
                match = self.create(seed)
                moves = tasks.advance_automatic_seats(match.pk)
                elapsed = (time.perf_counter() - started) * 1000
                cpu_paused = time.process_time()
                calls = BotCall.objects.filter(match_id=match.pk, path="move").count()
                cpu -= time.process_time() - cpu_paused  # the bench's own query is not counted
                out.append((moves, calls, elapsed))
        finally:
            queueing.enqueue = enqueue
        return Run(out, cpu_ms=(time.process_time() - cpu) * 1000)


def bench_worker(bench: Bench, count: int, raw: Raw, pool: Sequence[str] = SOLO_POOL
                 ) -> tuple[float, float]:
    """(matches/s, round-trip-bound ideal matches/s) of one real worker process (of ``pool``)
    playing ``count`` matches queued as the API queues them."""
    from django.conf import settings

    from bots.models import BotCall, BotSeat
    from config.celery import purge_queues

    purge_queues()
    worker = start_worker(settings.QUEUE_MATCHES, *pool)
    players = len(bench.seats)

    def ended(ids: list[int]) -> int:
        return BotSeat.objects.filter(match_id__in=ids, ended_at__isnull=False).count()

    try:
        warm = [bench.create(900_000).pk]  # the worker is up once it has played this one
        limit = time.monotonic() + 120
        while ended(warm) < players:
            if time.monotonic() > limit or worker.poll() is not None:
                raise SystemExit("the worker did not play the warm-up match")
            time.sleep(0.05)
        started = time.perf_counter()
        ids = [bench.create(seed).pk for seed in range(700_000, 700_000 + count)]
        while ended(ids) < players * count:
            if worker.poll() is not None:
                raise SystemExit("the worker died")
            time.sleep(0.05)
        elapsed = time.perf_counter() - started
    finally:
        worker.terminate()
        worker.wait(timeout=30)
    ideal_ms = (raw.move_ms * BotCall.objects.filter(match_id__in=ids, path="move").count()
                + raw.notify_ms * NOTIFY_ROUNDS * count)
    return count / elapsed, count / (ideal_ms / 1000)


#: Distinct bot URLs the in-flight runs spread their seats over (a bot's calls at once are
#: capped per URL: Bot.max_concurrency), each declaring the most the handshake allows.
#: The bots of an in-flight run, each served by a reference-bot process of its own (as real
#: bots are servers of their own, at their own host and port): one Python server for all of
#: them was itself the bottleneck at 500 calls in flight, holding them in sleeping threads
#: behind one interpreter lock, and curl's connection cache searched 500 connections to one
#: address on every call.
IN_FLIGHT_ROUTES = ("/random", "/heuristic", "/{game}/random", "/{game}/heuristic")
IN_FLIGHT_BOT_LIMIT = 256
#: The multiplexed worker's target (issue 49): against 50 ms bots at least this share of what
#: the same process finishes against bots answering at once, and this many times the threaded
#: worker's rate against the same 50 ms bots.
TARGET_HIDDEN_SHARE = 0.8
#: Matches in flight on average while the queue feeds the worker (``--in-flight`` is the thread
#: count: ``scripts/run.py`` runs 528 for this).
TARGET_IN_FLIGHT = 500
TARGET_OVER_THREADED = 3.0


@dataclass
class InFlight:
    """One worker process playing matches queued all at once: matches/s, matches in flight
    (mean while some match had not begun, and most), and its peak resident memory."""

    rate: float
    mean_in_flight: float
    most_in_flight: int
    peak_mib: float
    #: /move calls that failed as the bot's timeout, and strikes (a fair run has none).
    timeouts: int = 0
    strikes: int = 0
    #: CPU seconds of the run: the worker process's, and the bot servers' together.
    worker_cpu_s: float = 0.0
    bots_cpu_s: float = 0.0
    matches: int = 1

    @property
    def worker_cpu_ms_per_match(self) -> float:
        return 1000 * self.worker_cpu_s / self.matches

    @property
    def bots_cpu_ms_per_match(self) -> float:
        return 1000 * self.bots_cpu_s / self.matches


def in_flight_matches(owner, base_urls: Sequence[str], secret: str, count: int, seed: int, *,
                      game: str = "dice_cup", players: int = 3, options=None) -> list[int]:
    """``count`` matches of ``game`` with ``players`` webhook seats, spread over the bots of
    ``IN_FLIGHT_ROUTES``, each at its own server of ``base_urls``, created with their tasks
    held (not queued)."""
    from bots.models import Bot
    from games import services
    from games.engine import game_ids
    from lib import queueing

    bots = [Bot.objects.create(owner=owner, name=f"flight{seed}{route.format(game=game)}",
                               url=base + route.format(game=game), secret=secret,
                               games=game_ids(), handshake_ok=True, compact_legal_actions=True,
                               max_concurrency=IN_FLIGHT_BOT_LIMIT)
            for base, route in zip(base_urls, IN_FLIGHT_ROUTES, strict=True)]
    enqueue, queueing.enqueue = queueing.enqueue, lambda task, *args: None
    try:
        return [services.match_create(
            game=game, created_by=owner, seed=seed + i, options=options,
            seats=[{"kind": "webhook", "bot": bots[(i + n) % len(bots)].pk}
                   for n in range(players)]
        ).pk for i in range(count)]
    finally:
        queueing.enqueue = enqueue


def bench_in_flight(ids: list[int], pool: Sequence[str], env: dict[str, str],
                    players: int = 3, bot_pids: Sequence[int] = ()) -> InFlight:
    """One worker process (of ``pool``, with ``env``) playing the matches ``ids``, their tasks
    queued all at once as a busy ladder or a night of many tables queues them; the CPU time
    of the worker and of the bot servers (``bot_pids``) is measured over the run."""
    from django.conf import settings

    from bots.models import BotCall, BotSeat
    from config.celery import purge_queues
    from games.models import Match
    from lib import queueing

    purge_queues()
    worker = start_worker(settings.QUEUE_MATCHES, *pool, env=env)
    try:
        wait_for_workers(1)
        bots_cpu = sum(cpu_seconds(pid) for pid in bot_pids)
        worker_cpu = cpu_seconds(worker.pid)
        started = time.perf_counter()
        for match_id in ids:
            queueing.enqueue("games.advance_automatic_seats", match_id)
        samples: list[int] = []
        ended = 0
        while ended < players * len(ids):
            if worker.poll() is not None:
                raise SystemExit("the worker died")
            time.sleep(0.5)
            ended = BotSeat.objects.filter(match_id__in=ids, ended_at__isnull=False).count()
            held = Match.objects.filter(pk__in=ids, lease_until__isnull=False).count()
            begun = BotSeat.objects.filter(match_id__in=ids, started_at__isnull=False).values(
                "match_id").distinct().count()
            if begun < len(ids):  # while the queue still fed the worker: a match not begun
                samples.append(held)
        elapsed = time.perf_counter() - started
        peak = peak_memory_kib(worker.pid) / 1024
        worker_cpu = cpu_seconds(worker.pid) - worker_cpu
        bots_cpu = sum(cpu_seconds(pid) for pid in bot_pids) - bots_cpu
    finally:
        worker.terminate()
        worker.wait(timeout=60)
    moves = BotCall.objects.filter(match_id__in=ids, path="move")
    return InFlight(len(ids) / elapsed, statistics.mean(samples[1:] or samples or [0]),
                    max(samples or [0]), peak, timeouts=moves.filter(reason="timeout").count(),
                    strikes=moves.filter(strike=True).count(), worker_cpu_s=worker_cpu,
                    bots_cpu_s=bots_cpu, matches=len(ids))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="dice_cup")
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--matches", type=int, default=30, help="matches per round")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--worker-matches", type=int, default=200,
                        help="matches the real worker plays (0: skip)")
    parser.add_argument("--deployed-matches", type=int, default=400,
                        help="matches the worker as deployed plays (0: skip)")
    parser.add_argument("--bot", choices=["refserver", "starter"], default="refserver")
    parser.add_argument("--bot-delay-ms", type=float, default=0.0,
                        help="the reference bots answer each /move this late (default 0)")
    parser.add_argument("--db", default=DEFAULT_DB,
                        help="a PostgreSQL URL (dropped and created) or 'sqlite'")
    parser.add_argument("--in-flight", type=int, default=0,
                        help="the multiplexed worker's thread count: matches it keeps in flight "
                             "(0: skip; the issue's figure is 500 with --bot-delay-ms 50)")
    parser.add_argument("--in-flight-matches", type=int, default=0,
                        help="matches each multiplexed run plays (default 3x --in-flight)")
    parser.add_argument("--delayed-bots", nargs="+", default=[], metavar="URL",
                        help=f"with --in-flight: the base URLs of {len(IN_FLIGHT_ROUTES)} "
                             "serve_bots processes elsewhere holding each /move --bot-delay-ms, "
                             "signing with BOT_SECRET (default: started here)")
    parser.add_argument("--instant-bots", nargs="+", default=[], metavar="URL",
                        help=f"with --delayed-bots: {len(IN_FLIGHT_ROUTES)} more answering at once")
    args = parser.parse_args()
    if args.matches < 2:
        parser.error("--matches: at least 2 (a line is fitted through each round's matches)")
    if args.in_flight and args.bot != "refserver":
        raise SystemExit("--in-flight plays the reference bots (--bot refserver)")
    if args.delayed_bots or args.instant_bots:
        wanted = len(IN_FLIGHT_ROUTES)
        if len(args.delayed_bots) != wanted or len(args.instant_bots) != wanted:
            parser.error(f"--delayed-bots and --instant-bots: {wanted} base URLs each")
        if not args.in_flight:
            parser.error("--delayed-bots and --instant-bots are for --in-flight")
        if args.bot_delay_ms <= 0:
            parser.error("--delayed-bots: say with --bot-delay-ms how long they hold a /move")
        if not os.environ.get("BOT_SECRET"):
            parser.error("--delayed-bots: set BOT_SECRET to the secret those bots check")
        args.delayed_bots = [base.rstrip("/") for base in args.delayed_bots]
        args.instant_bots = [base.rstrip("/") for base in args.instant_bots]
    setup_bench(args.db)
    from django.db import connection

    from bots.signing import new_secret
    from config.startup import freeze_startup_objects

    # The task path runs what a web process (creation) and a worker (the task) run: set up as
    # both are once started.
    freeze_startup_objects()

    options = {"great_dalmuti": {"hands": 1}, "dutch": {"rounds": args.players}}.get(args.game)
    secret = new_secret()
    process, url = start_bot(args.bot, secret, args.bot_delay_ms)
    try:
        bench = Bench(url, secret, args.game, args.players, options)
        bodies = sample_bodies(args.game, args.players, options)
        notices = notify_bodies(args.game, args.players, options)
        bench.task_path(range(10_000, 10_003))  # warm up
        raws, runs = [], []
        for r in range(args.rounds):
            raws.append(Raw(raw_round_ms(url, "/move", [[b] for b in bodies], 1000,
                                         secret=secret),
                            raw_round_ms(url, "/start", [notices], 200, secret=secret)))
            runs.append(bench.task_path(range(r * args.matches, (r + 1) * args.matches)))
        database_ms = statistics.median(database_round_trip_ms() for _ in range(3))
        raw = Raw(statistics.median(r.move_ms for r in raws),
                  statistics.median(r.notify_ms for r in raws))
        worker = bench_worker(bench, args.worker_matches, raw) if args.worker_matches else None
        deployed = (bench_worker(bench, args.deployed_matches, raw, PRODUCTION_MATCHES_POOL)
                    if args.deployed_matches else None)
        flights = (run_in_flight(args, bench.owner, url, secret, options) if args.in_flight
                   else None)
    finally:
        process.kill()

    print(f"Python {platform.python_version()} on {platform.machine()}; {connection.vendor}; "
          f"bot: {args.bot} in its own process ({url}); {args.game}, {args.players} webhook "
          f"seats, {args.rounds} rounds of {args.matches} matches"
          + (f"; each /move answered after {args.bot_delay_ms:g} ms" if args.bot_delay_ms
             else ""))
    print(f"database round trip (SELECT 1 through Django, median): {database_ms:.3f} ms; load "
          f"average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"raw HTTP round trip (http.client keep-alive, {len(bodies)} real /move bodies of "
          f"{statistics.mean(map(len, bodies)):.0f} B on average): "
          f"{raw.move_ms:.3f} ms (rounds: {', '.join(f'{x.move_ms:.3f}' for x in raws)}); a "
          f"round of /start notices to {args.players} seats at once: {raw.notify_ms:.3f} ms "
          f"(rounds: {', '.join(f'{x.notify_ms:.3f}' for x in raws)})")
    per_move = [run.per_move(r) for run, r in zip(runs, raws)]
    fits = [run.fit(r) for run, r in zip(runs, raws)]
    moves = statistics.mean(m for run in runs for m, _, _ in run.matches)
    all_in = statistics.median(per_move)
    print(f"task path, platform time per move on top of the round trips, all-in: "
          f"{all_in:.3f} ms (rounds: {', '.join(f'{x:.3f}' for x in per_move)}; "
          f"{moves:.0f} moves per match; target <= {TARGET_PER_MOVE_MS} ms: "
          f"{'OK' if all_in <= TARGET_PER_MOVE_MS else 'OVER TARGET'})")
    per_match = statistics.median(f[0] for f in fits)
    slope = statistics.median(f[1] for f in fits)
    print(f"  as a line through the matches: {per_match:.2f} ms per match + {slope:.3f} ms per "
          f"move (target per match < {TARGET_PER_MATCH_MS} ms: "
          f"{'OK' if per_match < TARGET_PER_MATCH_MS else 'OVER TARGET'})")
    cpu = statistics.median(run.cpu_ms / run.moves for run in runs)
    print(f"  CPU time of the platform process per move, all-in: {cpu:.3f} ms (engine, bodies, "
          f"signatures, client, ORM; the bot and PostgreSQL run in other processes; steadier "
          f"than wall time on a busy machine)")
    if worker is not None:
        rate, ideal = worker
        print(f"one worker process, {args.worker_matches} matches queued as the API queues "
              f"them: {rate:.1f} matches/s (round-trip-bound ideal {ideal:.1f}/s: "
              f"{rate / ideal:.0%}; for information: the {TARGET_WORKER_SHARE:.0%} target "
              f"is retired, issue 49's in-flight figures replace it)")
    if deployed is not None:
        rate, ideal = deployed
        print(f"  for information, the worker as deployed ({' '.join(PRODUCTION_MATCHES_POOL)}), "
              f"{args.deployed_matches} matches: {rate:.1f} matches/s ({rate / ideal:.0%} of "
              f"the sequential ideal {ideal:.1f}/s)")
    if flights is not None:
        delayed, instant, threaded = flights
        print(f"multiplexed worker (--pool threads --concurrency {args.in_flight}, "
              f"BLUFF_MULTIPLEXED_WORKER=1), {args.game}, {args.players} webhook seats over "
              f"{len(IN_FLIGHT_ROUTES)} bots: against bots answering after "
              f"{args.bot_delay_ms:g} ms {delayed.rate:.1f} matches/s, {delayed.mean_in_flight:.0f} "
              f"in flight on average (most {delayed.most_in_flight}), peak resident memory "
              f"{delayed.peak_mib:.0f} MiB (target < 1024); against bots answering at once "
              f"{instant.rate:.1f} matches/s ({instant.mean_in_flight:.0f} in flight); the "
              f"threaded worker ({' '.join(PRODUCTION_MATCHES_POOL)}) against the same "
              f"{args.bot_delay_ms:g} ms bots {threaded.rate:.1f} matches/s; timeouts and "
              f"strikes of each run (bots all in time: none is fair): "
              + ", ".join(f"{run.timeouts} and {run.strikes}"
                          for run in (delayed, instant, threaded)))
        runs = (("delayed", delayed), ("at once", instant), ("threaded", threaded))
        if args.delayed_bots:
            print("  CPU ms per match, the worker's (the bots elsewhere): " + "; ".join(
                f"{name} {run.worker_cpu_ms_per_match:.1f}" for name, run in runs))
        else:
            print("  CPU ms per match, the worker's and the bot servers' (the machine's cores "
                  "serve them, PostgreSQL and the broker): " + "; ".join(
                      f"{name} {run.worker_cpu_ms_per_match:.1f} and "
                      f"{run.bots_cpu_ms_per_match:.1f}" for name, run in runs))
        hidden, over = delayed.rate / instant.rate, delayed.rate / threaded.rate
        met = (hidden >= TARGET_HIDDEN_SHARE and over >= TARGET_OVER_THREADED
               and delayed.mean_in_flight >= TARGET_IN_FLIGHT and delayed.peak_mib < 1024)
        print(f"multiplexed: {delayed.mean_in_flight:.0f} in flight, {delayed.rate:.1f} "
              f"matches/s; {hidden:.2f}x the same process against bots answering at once; "
              f"{over:.1f}x the threaded worker ({'targets met' if met else 'UNDER TARGET'}: "
              f"{TARGET_IN_FLIGHT} in flight, {TARGET_HIDDEN_SHARE}x, {TARGET_OVER_THREADED:g}x, "
              f"< 1 GiB)")
    return 0


def run_in_flight(args: argparse.Namespace, owner, url: str, secret: str, options
                  ) -> tuple[InFlight, InFlight, InFlight]:
    """The three runs of ``--in-flight``, side by side: the multiplexed worker against the
    delayed bots and against bots answering at once (a second set of servers), and the threaded
    worker as deployed against the delayed bots; matches of ``--game`` and ``--players``. The
    bot servers are started here, or are those of ``--delayed-bots`` and ``--instant-bots``
    (elsewhere, signing with ``BOT_SECRET``; their CPU is not counted)."""
    count = args.in_flight_matches or 3 * args.in_flight
    # Each delay's servers: (the process started here, or None for one elsewhere; base URL).
    if args.delayed_bots:
        secret = os.environ["BOT_SECRET"]
        servers = {args.bot_delay_ms: [(None, base) for base in args.delayed_bots],
                   0.0: [(None, base) for base in args.instant_bots]}
    else:
        servers = {delay: [(process, found.removesuffix("/random")) for process, found in
                           (start_bot("refserver", secret, delay) for _ in IN_FLIGHT_ROUTES)]
                   for delay in (args.bot_delay_ms, 0.0)}
    multiplexed = ("--pool", "threads", "--concurrency", str(args.in_flight))
    on, off = {"BLUFF_MULTIPLEXED_WORKER": "1"}, {"BLUFF_MULTIPLEXED_WORKER": "0"}
    game = {"game": args.game, "players": args.players, "options": options}

    def run(delay: float, matches: int, seed: int, pool: Sequence[str], env: dict[str, str]
            ) -> InFlight:
        ids = in_flight_matches(owner, [base for _, base in servers[delay]], secret, matches,
                                seed, **game)
        return bench_in_flight(ids, pool, env, args.players,
                               [process.pid for process, _ in servers[delay]
                                if process is not None])

    try:
        delayed = run(args.bot_delay_ms, count, 1_000_000, multiplexed, on)
        instant = run(0.0, count, 2_000_000, multiplexed, on)
        threaded = run(args.bot_delay_ms, max(64, count // 4), 3_000_000,
                       PRODUCTION_MATCHES_POOL, off)
    finally:
        for process, _ in (pair for pairs in servers.values() for pair in pairs):
            if process is not None:
                process.kill()
    return delayed, instant, threaded


if __name__ == "__main__":
    sys.exit(main())
