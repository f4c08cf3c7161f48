"""The ladder played live: real webhook bots answering each /move after ``--delay-ms``, one
matches worker as deployed (``PRODUCTION_MATCHES_POOL``) and one housekeeping worker, the
ladder started and kept going as in production (joins, the match-finished receiver, the
reaper's sweep run here every ``--sweep`` seconds as beat runs it). Two figures (issue 47):

    python bench/ladder_live.py settle [--field 15] [--delay-ms 200] [--minutes 60] [--game dtc]
    python bench/ladder_live.py scale [--field 200] [--delay-ms 50] [--minutes 5] [--game dtc]
                                      [--multiplexed]

``--multiplexed``: the matches worker plays every match on its one match loop
(``BLUFF_MULTIPLEXED_WORKER=1``, docs/deploy.md), as deployed otherwise.

**settle**: ``--field`` bots already on the ladder with settled ratings (half the reference
``heuristic`` bot at mu 28, half ``random`` at mu 22, sigma 2, 100 matches each), then a new
bot (``heuristic``) joins. Printed: when its rank settled, the first moment its 95% interval
(mu +- 1.96 sigma) fits between the skills (mu) of its neighbours just above and just below, or
it has 50 rated matches (the issue's words: its place is known, or it has played enough), in
minutes from its join, with its rated matches then. Its neighbours here are equal bots (the
heuristic ones at mu 28), so it is the 50 matches that settle it: the slower case. Target: within 60 minutes with 200 ms bots on one worker.

**scale**: ``--field`` bots join at once; for ``--minutes`` the matches in play are counted
every second. Printed: their mean and minimum over the run (after the first minute) against
the ladder's in-flight target (``LADDER_MAX_IN_FLIGHT``), and the matches finished a minute.
Target: the in-flight target kept with one worker process against 50 ms bots.

The bots: ``manage.py serve_bots --move-delay-ms`` (the reference bots over HTTP, checking
signatures), one process, each bot a path of it (``/heuristic``, ``/random``); every bot has
an owner of its own (owners' bots never meet). The game: DTC by default, two seats, about 40
moves a match whoever plays (dice cup's heuristic bots play each other for 90 to 1,400 moves,
so a dice cup ladder's pace is its pairings' luck). The bench database is dropped and made
again (bench/common.py).
"""

from __future__ import annotations

import argparse
import math
import os
import pathlib
import statistics
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.bots import start_bot
from bench.common import PRODUCTION_MATCHES_POOL, setup_bench, start_worker, wait_for_workers

SECRET = "whsec_" + "B" * 32
#: The issue's settling rule: or this many rated matches.
SETTLED_MATCHES = 50


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("figure", choices=["settle", "scale"])
    parser.add_argument("--field", type=int)
    parser.add_argument("--delay-ms", type=float)
    parser.add_argument("--minutes", type=float)
    parser.add_argument("--sweep", type=float, default=10.0)
    parser.add_argument("--game", default="dtc")
    parser.add_argument("--multiplexed", action="store_true",
                        help="the matches worker plays every match on one loop")
    parser.add_argument("--db", default="postgres://postgres@127.0.0.1:5432/bluff_bench_live")
    args = parser.parse_args()
    settle = args.figure == "settle"
    field = args.field or (15 if settle else 200)
    delay = args.delay_ms if args.delay_ms is not None else (200.0 if settle else 50.0)
    minutes = args.minutes or (60.0 if settle else 5.0)
    setup_bench(args.db)

    from django.conf import settings

    from config.celery import purge_queues

    purge_queues()
    bot_process, url = start_bot("refserver", SECRET, delay)
    base = url.removesuffix("/random")
    mode = {"BLUFF_MULTIPLEXED_WORKER": "1" if args.multiplexed else "0"}
    workers = [start_worker(settings.QUEUE_MATCHES, *PRODUCTION_MATCHES_POOL, env=mode),
               start_worker(settings.QUEUE_HOUSEKEEPING, "--pool", "solo")]
    try:
        wait_for_workers(2)
        print(f"load average {os.getloadavg()[0]:.1f}; {field} bots answering each /move after "
              f"{delay:.0f} ms; one matches worker ({' '.join(PRODUCTION_MATCHES_POOL)}"
              f"{', multiplexed' if args.multiplexed else ''})", flush=True)
        if settle:
            return _settle(args.game, base, field, minutes, args.sweep)
        return _scale(args.game, base, field, minutes, args.sweep)
    finally:
        for process in (*workers, bot_process):
            process.terminate()
        for process in (*workers, bot_process):
            process.wait(timeout=30)


def _bots(game: str, base: str, count: int, *, first: int = 0,
          program: str | None = None) -> list[int]:
    """``count`` webhook bots of owners of their own, alternately heuristic and random (or all
    ``program``)."""
    from django.contrib.auth import get_user_model

    from bots.models import Bot

    users = get_user_model().objects
    return [Bot.objects.create(
        owner=users.create_user(f"owner{k}"), name=f"bot{k}",
        url=f"{base}/{program or ('heuristic' if k % 2 == 0 else 'random')}",
        secret=SECRET, games=[game], handshake_ok=True).pk for k in range(first, first + count)]


def _join(game: str, bot_id: int) -> None:
    from bots.models import Bot
    from tournaments.ladders import services

    services.ladder_join(game=game, user=Bot.objects.get(pk=bot_id).owner, bot=str(bot_id))


def _sweep(every: float, last: list[float]) -> None:
    """What beat runs: the reaper's sweep and the stalled matches' (every ``every`` s)."""
    from games.services import matches_resume_stalled
    from tournaments import runner

    if time.monotonic() - last[0] >= every:
        last[0] = time.monotonic()
        matches_resume_stalled()
        runner.reap()


def _settle(game: str, base: str, field: int, minutes: float, every: float) -> int:
    from bots.models import Bot
    from tournaments.models import LadderEntry, LeaderboardEntry

    for bot_id in _bots(game, base, field):
        _join(game, bot_id)
    heuristic = set(Bot.objects.filter(url__endswith="/heuristic").values_list("pk", flat=True))
    for entry in LadderEntry.objects.all():  # a settled field
        mu = 28.0 if int(entry.bot) in heuristic else 22.0
        LeaderboardEntry.objects.filter(pk=entry.rating_id).update(
            mu=mu, sigma=2.0, ordinal=mu - 6.0, matches=100)
    LadderEntry.objects.update(burst_left=0)
    (new,) = _bots(game, base, 1, first=field, program="heuristic")
    joined = time.monotonic()
    _join(game, new)
    last = [0.0]
    while time.monotonic() - joined < minutes * 60:
        _sweep(every, last)
        entries = list(LadderEntry.objects.select_related("rating").filter(left_at=None))
        mine = next(e for e in entries if e.bot == str(new)).rating
        others = sorted(e.rating.mu for e in entries if e.bot != str(new))
        above = min((mu for mu in others if mu > mine.mu), default=math.inf)
        below = max((mu for mu in others if mu <= mine.mu), default=-math.inf)
        low, high = mine.mu - 1.96 * mine.sigma, mine.mu + 1.96 * mine.sigma
        between = mine.matches > 0 and below < low and high < above
        if between or mine.matches >= SETTLED_MATCHES:
            took = (time.monotonic() - joined) / 60
            why = ("its interval between its neighbours'" if between
                   else f"{SETTLED_MATCHES} rated matches")
            print(f"settled ({why}): {took:.1f} min after joining, {mine.matches} rated "
                  f"matches, mu {mine.mu:.1f} [{low:.1f}, {high:.1f}] between {below:.1f} and "
                  f"{above:.1f}; target within 60 min: {'met' if took <= 60 else 'missed'}",
                  flush=True)
            return 0
        time.sleep(1.0)
    print(f"not settled within {minutes:.0f} min", flush=True)
    return 1


def _scale(game: str, base: str, field: int, minutes: float, every: float) -> int:
    from django.conf import settings

    from tournaments.models import LadderMatch

    for bot_id in _bots(game, base, field):
        _join(game, bot_id)
    target = settings.LADDER_MAX_IN_FLIGHT
    started, last, counts = time.monotonic(), [0.0], []
    finished_before = None
    while time.monotonic() - started < minutes * 60:
        _sweep(every, last)
        running = LadderMatch.objects.filter(status="running").count()
        if time.monotonic() - started >= 60:
            counts.append(running)
            if finished_before is None:
                finished_before = (time.monotonic(),
                                   LadderMatch.objects.filter(status="finished").count())
        time.sleep(1.0)
    if not counts:
        print("run for more than a minute to measure", flush=True)
        return 1
    at, before = finished_before
    rate = (LadderMatch.objects.filter(status="finished").count() - before) / (
        (time.monotonic() - at) / 60)
    mean = statistics.mean(counts)
    print(f"in flight: mean {mean:.1f}, min {min(counts)} of the target {target} "
          f"({len(counts)} samples after the first minute); {rate:.1f} matches finished a "
          f"minute; target kept: {'yes' if mean >= 0.95 * target else 'no'}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
