"""Tournaments through real Celery workers and PostgreSQL, figures printed side by side.

    python bench/tournament.py [--db postgres://postgres@127.0.0.1:5432/bluff_bench_tournament]
                               [--meetings 100] [--slow-meetings 1] [--in-flight 64]
                               [--slow-workers 2] [--only reference|slow]

Every tournament is created with ``tournaments.services.tournament_create`` (what the API
calls) and played by worker processes started as `make run` starts them, consuming the
``matches`` queue (plus one ``housekeeping`` worker), on a fresh bench database and the
configured broker (``CELERY_BROKER_URL``, else an embedded one in a temporary folder):

1. **reference bots**: dice cup, 16 reference-bot participants at tables of 4, ``--meetings``
   rounds (100: 400 matches, about 3 s through one worker; in a run of 100 matches the
   tournament's fixed cost, its creation and dispatch, weighed a tenth, and its few chunks
   (``TOURNAMENT_CHUNK``) could not split evenly over two workers), one matches worker
   process (solo pool): tournament matches/s from creation to the last recorded result, next
   to the engine alone playing the same matches (same seeds and seats, the same reference bots
   built the same way) in this process, in the same run. Target: >= 0.5x.
2. **two workers**: the same with two matches worker processes. Target: >= 1.7x one.
3. **slow webhook bots**: 16 loopback webhook bots (one asyncio process of their own) that
   each answer /move after 20 ms, a round robin of dice cup at tables of 2, ``--in-flight``
   matches at once: ``--slow-workers`` matches worker processes (default 2, one per core of
   this machine, as one would deploy), each a thread pool of in-flight / workers threads
   (each thread one match in flight). The ideal wall time is that of a platform that costs
   nothing with as many matches in flight: the matches, in schedule order, each started as
   soon as a slot is free, every move at the bots' own answer time (measured in the same run:
   one call at a time on a kept-alive connection; 20 ms plus the loop's timer and loopback).
   The flat figure sum(moves x 20 ms) / in-flight is printed too (it ignores that 120 matches
   of equal length in 64 slots take two rounds). Target: within 1.25x, with >= 64 in flight.
4. **memory**: the matches worker's peak resident memory for a tournament of 64 participants
   against one of 8 (reference bots, the same number of matches). Target: at most 1.2x.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import heapq
import pathlib
import subprocess
import sys
import time

import orjson

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.common import (
    peak_memory_kib,
    play_alone,
    raw_round_ms,
    setup_bench,
    start_worker,
    wait_for_workers,
)

DEFAULT_DB = "postgres://postgres@127.0.0.1:5432/bluff_bench_tournament"
SLOW_MS = 20


# ---- 16 slow bots in a process of their own ----------------------------------------------------
#
# One asyncio event loop serves all 16 with a bare protocol (keep-alive HTTP/1.1, a minimal
# parser, orjson, the 20 ms wait a timer rather than a coroutine): a bot that thinks 20 ms must
# not also cost the machine a thread, a GIL hand-off or much CPU per request, or the bench would
# measure its own bots. (http.server's thread per connection added about 30 ms a move at 1,000
# moves/s; asyncio streams still added about 3 ms at 64 connections, against 0.7 ms for this.)

_HANDSHAKE = orjson.dumps({"apiversion": "1", "name": "slow", "author": "bench",
                           "games": ["dice_cup"]})


def _response(body: bytes) -> bytes:
    return (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n"
            % len(body)) + body


class SlowBot(asyncio.Protocol):
    """One connection to a slow bot: /move answers its first legal action after ``SLOW_MS``.
    Answers go out in the order of the requests (HTTP/1.1), however they were sent."""

    def connection_made(self, transport) -> None:
        self.transport, self.buffer = transport, b""
        self.answers: collections.deque[list[bytes | None]] = collections.deque()

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        while (end := self.buffer.find(b"\r\n\r\n")) >= 0:
            request_line, *headers = self.buffer[:end].decode("latin-1").split("\r\n")
            length = next((int(h.split(":", 1)[1]) for h in headers
                           if h.lower().startswith("content-length:")), 0)
            if len(self.buffer) < end + 4 + length:
                return
            body, self.buffer = (self.buffer[end + 4:end + 4 + length],
                                 self.buffer[end + 4 + length:])
            method, path, _ = request_line.split(" ", 2)
            slot: list[bytes | None] = [None]
            self.answers.append(slot)
            if method == "GET":
                self._answer(slot, _response(_HANDSHAKE))
            elif path.endswith("/move"):
                action = orjson.loads(body)["legal_actions"][0]
                asyncio.get_running_loop().call_later(
                    SLOW_MS / 1000, self._answer, slot,
                    _response(orjson.dumps({"action": action})))
            else:
                self._answer(slot, _response(b"{}"))

    def _answer(self, slot: list[bytes | None], data: bytes) -> None:
        slot[0] = data
        while self.answers and self.answers[0][0] is not None:
            ready = self.answers.popleft()[0]
            if not self.transport.is_closing():
                self.transport.write(ready)


def serve_slow_bots(count: int, host: str = "127.0.0.1") -> None:
    """``--serve-slow-bots N [--bots-host ADDR]``: N bots on free ports of ``host`` (loopback;
    bench/hosts.py: its bots host's address); prints their URLs, one a line."""

    async def serve() -> None:
        loop = asyncio.get_running_loop()
        servers = [await loop.create_server(SlowBot, host, 0) for _ in range(count)]
        for server in servers:
            print(f"http://{host}:{server.sockets[0].getsockname()[1]}", flush=True)
        await asyncio.Event().wait()

    asyncio.run(serve())


def makespan(durations: list[float], slots: int) -> float:
    """Wall time of jobs of these durations started in this order, each as soon as one of
    ``slots`` is free: a platform that cost nothing, with as many matches in flight."""
    free = [0.0] * slots
    for duration in durations:
        heapq.heapreplace(free, free[0] + duration)
    return max(free)


# ---- the runs --------------------------------------------------------------------------------


def play(organiser, *, participants, table_size: int, meetings: int, seed: int,
         timeout: float = 900) -> tuple[float, int]:
    """(seconds from creation to the last recorded result, matches) of one tournament."""
    from tournaments import services
    from tournaments.models import Tournament, TournamentMatch

    started = time.perf_counter()
    tournament = services.tournament_create(
        organiser=organiser, name="bench", game="dice_cup", participants=participants,
        table_size=table_size, meetings=meetings, seed=seed)
    limit = time.monotonic() + timeout
    while Tournament.objects.filter(pk=tournament.pk).values_list("status", flat=True)[0] \
            != Tournament.Status.FINISHED:
        if time.monotonic() > limit:
            raise SystemExit("the tournament did not finish")
        time.sleep(0.02)
    elapsed = time.perf_counter() - started
    return elapsed, TournamentMatch.objects.filter(tournament=tournament).count()


def engine_alone(participants: int, table_size: int, meetings: int, seed: int,
                 names: list[str]) -> float:
    """Seconds for the engine and the same reference bots to play the same matches here."""
    from games.engine import get_game
    from games.engine.rng import secret_from_seed
    from tournaments.scheduling import scheduled_matches, table_schedule

    game = get_game("dice_cup")
    schedule = table_schedule(participants, seats=table_size, rounds=meetings, seed=seed)
    matches = scheduled_matches(schedule, secret=secret_from_seed(seed))
    started = time.perf_counter()
    for match in matches:
        play_alone(game, players=table_size, seed=match.seed, options={},
                   bots=[names[p] for p in match.seats])
    return time.perf_counter() - started


def references(count: int) -> list[dict]:
    return [{"kind": "reference", "bot": ("heuristic", "random")[i % 2]} for i in range(count)]


def with_workers(matches_workers: list[list[str]], run):
    """Run ``run()`` with these matches workers (their options) and one housekeeping worker;
    returns (its result, the matches workers' peak memory in KiB)."""
    from django.conf import settings

    from config.celery import purge_queues

    purge_queues()
    processes = [start_worker(settings.QUEUE_HOUSEKEEPING, "--pool", "solo")]
    matches = [start_worker(settings.QUEUE_MATCHES, *options) for options in matches_workers]
    processes += matches
    try:
        wait_for_workers(len(processes))
        result = run()
        peaks = [peak_memory_kib(p.pid) for p in matches]
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            process.wait(timeout=60)
    return result, peaks


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", default=DEFAULT_DB)
    parser.add_argument("--meetings", type=int, default=100,
                        help="rounds of tables of the reference-bot tournaments")
    parser.add_argument("--slow-meetings", type=int, default=1)
    parser.add_argument("--in-flight", type=int, default=64)
    parser.add_argument("--slow-workers", type=int, default=2,
                        help="matches worker processes sharing the in-flight matches")
    parser.add_argument("--only", choices=["reference", "slow"],
                        help="run only the reference-bot runs (1, 2, 4) or the slow-bot run (3)")
    parser.add_argument("--serve-slow-bots", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--bots-host", default="127.0.0.1", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_slow_bots:
        serve_slow_bots(args.serve_slow_bots, args.bots_host)
        return 0
    # The memory run scales meetings up.
    setup_bench(args.db, TOURNAMENT_MAX_MEETINGS="1000")
    from django.contrib.auth import get_user_model

    organiser = get_user_model().objects.create_user("bench", password="x", is_staff=True)
    print(f"Python {sys.version.split()[0]}; dice cup; broker and database as configured",
          flush=True)
    if args.only in (None, "reference"):
        reference_runs(organiser, args.meetings)
    if args.only in (None, "slow"):
        slow_run(organiser, args.slow_meetings, args.in_flight, args.slow_workers)
    return 0


SOLO = ["--pool", "solo"]


def reference_runs(organiser, meetings: int) -> None:
    """Runs 1, 2 and 4: reference bots through one and two workers, and the memory run."""
    names = [p["bot"] for p in references(16)]

    def reference_run(seed: int, count: int = 16) -> tuple[float, int]:
        return play(organiser, participants=references(count), table_size=4,
                    meetings=meetings, seed=seed)

    (one_s, played), (one_peak,) = with_workers([SOLO], lambda: reference_run(1))
    alone_s = engine_alone(16, 4, meetings, 1, names)
    (two_s, _), _ = with_workers([SOLO, SOLO], lambda: reference_run(1))
    # Memory: 64 participants against 8, the same number of matches (meetings scaled).
    (_, _), (peak_8,) = with_workers([SOLO], lambda: play(
        organiser, participants=references(8), table_size=4, meetings=meetings * 2, seed=2))
    (_, _), (peak_64,) = with_workers([SOLO], lambda: play(
        organiser, participants=references(64), table_size=4,
        meetings=max(1, meetings // 4), seed=2))
    rate, alone_rate = played / one_s, played / alone_s
    print(f"reference bots, 16 participants, tables of 4, {played} matches: one worker "
          f"{rate:.1f} matches/s, the engine alone {alone_rate:.1f} matches/s: "
          f"{rate / alone_rate:.2f}x (target >= 0.5x)")
    print(f"two matches workers: {played / two_s:.1f} matches/s, {one_s / two_s:.2f}x one "
          f"(target >= 1.7x)")
    print(f"matches worker peak memory: {peak_64 / 1024:.1f} MiB for 64 participants, "
          f"{peak_8 / 1024:.1f} MiB for 8: {peak_64 / peak_8:.2f}x (target <= 1.2x); "
          f"the reference run: {one_peak / 1024:.1f} MiB", flush=True)


def slow_run(organiser, meetings: int, in_flight: int, workers: int) -> None:
    """Run 3: slow webhook bots, ``in_flight`` matches at once over ``workers`` processes."""
    bots = subprocess.Popen([sys.executable, __file__, "--serve-slow-bots", "16"],
                            stdout=subprocess.PIPE, text=True)
    try:
        from bots.models import Bot
        from bots.signing import new_secret

        urls = [bots.stdout.readline().strip() for _ in range(16)]
        # The bots' own answer time (20 ms, the event loop's timer, loopback), one at a time.
        answer_ms = raw_round_ms(urls[0], "/move", [[orjson.dumps(
            {"legal_actions": [{"type": "pass"}]})]], 200)
        ids = [Bot.objects.create(owner=organiser, name=f"slow{i}", url=url,
                                  secret=new_secret(), games=["dice_cup"],
                                  handshake_ok=True).pk for i, url in enumerate(urls)]
        threads = ["--pool", "threads", "--concurrency", str(in_flight // workers)]
        (slow_s, slow_matches), _ = with_workers([threads] * workers, lambda: play(
            organiser, participants=[{"kind": "webhook", "bot": i} for i in ids],
            table_size=2, meetings=meetings, seed=3))
        per_match = _bot_moves_per_match()
    finally:
        bots.kill()
    moves = sum(per_match)
    ideal_s = makespan([m * answer_ms / 1000 for m in per_match], in_flight)
    flat_s = moves * SLOW_MS / 1000 / in_flight
    print(f"slow webhook bots (16, {SLOW_MS} ms a move; answering in {answer_ms:.2f} ms one at a "
          f"time), {slow_matches} matches, {moves} bot moves, {in_flight} in flight over "
          f"{workers} worker process(es): {slow_s:.2f} s against an ideal of {ideal_s:.2f} s: "
          f"{slow_s / ideal_s:.2f}x (target <= 1.25x)", flush=True)
    print(f"  (the ideal: these matches, in schedule order, each started as soon as one of the "
          f"{in_flight} slots is free, every move at the bots' own answer time; moves x "
          f"{SLOW_MS} ms / {in_flight}, which ignores that matches do not divide evenly over "
          f"the slots, would be {flat_s:.2f} s: {slow_s / flat_s:.2f}x)", flush=True)


def _bot_moves_per_match() -> list[int]:
    """Moves the slow bots made (their /move calls that were applied) per match, in the
    tournament's schedule order."""
    from django.db.models import Count

    from bots.models import BotCall
    from tournaments.models import TournamentMatch

    moves = dict(BotCall.objects.filter(path="move", applied=True, bot__name__startswith="slow",
                                        reason="")
                 .values_list("match_id").annotate(n=Count("pk")).values_list("match_id", "n"))
    order = TournamentMatch.objects.filter(match_id__in=moves).order_by("number")
    return [moves[match_id] for match_id in order.values_list("match_id", flat=True)]


if __name__ == "__main__":
    sys.exit(main())
