"""A league night through real Celery workers and PostgreSQL, next to the engine alone.

    python bench/league.py [--db postgres://postgres@127.0.0.1:5432/bluff_bench_league]
                           [--members 64] [--table-size 8] [--hands 20] [--concurrency 1 2]

In each of ``--rounds`` rounds a Dalmuti league of ``--members`` reference bots (heuristic and
random in turn, the same seed) is created with
``tournaments.leagues.services.league_create`` (what the API calls) and one night is scheduled
now; the night is started as beat starts it
(``nights.nights_start_due``) and played by one ``matches`` worker plus one
``housekeeping`` worker; one figure per ``--concurrency``: 1 is a solo pool, as `make run`
starts it, N a prefork pool of N processes, as docker-compose's worker runs on an N-core
machine (the night's groups of ``LEAGUE_TABLES_PER_TASK`` tables then play in parallel); on
a fresh bench database and the configured broker (``CELERY_BROKER_URL``, else an embedded
one). Wall time from the start to the night's end (its ``finished_at``, as the worker
writes it when it finishes the night), next to the engine alone playing
the same hands (same tables, seats, options, seeds and reference bots, each hand's order from
the last, as the league plays them) in this process, right after it. The medians
are compared. Target: at least 0.7x with one process.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import statistics
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.common import play_alone, setup_bench, start_worker, wait_for_workers

DEFAULT_DB = "postgres://postgres@127.0.0.1:5432/bluff_bench_league"
GAME = "great_dalmuti"


def engine_alone(league, night) -> float:
    """Seconds for the engine and the reference bots to play the night's hands here."""
    from games.engine import get_game
    from games.engine.rng import deal_seed
    from tournaments.leagues import rules
    from tournaments.leagues.night_kind import night_secret

    game = get_game(GAME)
    names = {m.index: m.bot for m in league.members.all()}
    started = time.perf_counter()
    for table, seated in enumerate(night.tables):
        order = list(seated)
        for number in range(1, league.hands_per_night + 1):
            plan = rules.hand_plan(GAME, order, hand_number=number,
                                   options=league.options, ordered=number > 1,
                                   first_of_season=number == 1)
            state = play_alone(game, players=len(plan.seats),
                               seed=deal_seed(night_secret(night), table, number),
                               options=plan.options, bots=[names[m] for m in plan.seats])
            order = rules.hand_outcome(GAME, plan, state.result()).order  # GD-2
    return time.perf_counter() - started


def play_night(args, organiser, *, hands: int) -> tuple[float, object, object]:
    """(wall seconds, league, night) of one night of a new league, from the moment beat would
    start it to its end."""
    from django.utils import timezone

    from tournaments.leagues import nights
    from tournaments.leagues import services as leagues
    from tournaments.models import Night

    now = timezone.now()
    league = leagues.league_create(
        organiser=organiser, name="bench", game=GAME, table_size=args.table_size,
        hands_per_night=hands, season_start=now - timezone.timedelta(hours=1),
        season_end=now + timezone.timedelta(days=1), seed=1,
        members=[{"kind": "reference", "bot": ("heuristic", "random")[i % 2]}
                 for i in range(args.members)])
    night = leagues.night_schedule(league_id=league.pk, user=organiser, starts_at=now)
    started = timezone.now()
    nights.nights_start_due()
    while Night.objects.filter(pk=night.pk, status=Night.Status.RUNNING).exists():
        time.sleep(0.02)
    night.refresh_from_db()
    if night.status != Night.Status.FINISHED:
        raise SystemExit(f"the night ended {night.status}: {night.reason}")
    # Its end as the worker wrote it, just before its commit: the 20 ms poll only sees it
    # (timed by the poll, it added 10 ms on average to a night of about a second).
    return (night.finished_at - started).total_seconds(), league, night


def play_nights(args, organiser, concurrency: int) -> tuple[list[float], list[float], object]:
    """(wall times, engine-alone times, last night) of ``args.rounds`` nights played by a
    matches worker of ``concurrency`` processes, once a short night (two hands a table, not
    timed) has shown the workers up: a worker's first task pays for its start (imports, the
    first connection), which a running platform paid long before (it cost the first of three
    nights about 0.9 s on this machine)."""
    from django.conf import settings

    from config.celery import purge_queues

    walls, alones = [], []
    purge_queues()
    pool = (("--pool", "solo") if concurrency == 1
            else ("--pool", "prefork", "--concurrency", str(concurrency)))
    workers = [start_worker(settings.QUEUE_HOUSEKEEPING, "--pool", "solo"),
               start_worker(settings.QUEUE_MATCHES, *pool)]
    try:
        wait_for_workers(len(workers))
        play_night(args, organiser, hands=2)
        for _ in range(args.rounds):
            wall, league, night = play_night(args, organiser, hands=args.hands)
            walls.append(wall)
            alones.append(engine_alone(league, night))
    finally:
        for process in workers:
            process.terminate()
        for process in workers:
            process.wait(timeout=60)
    return walls, alones, night


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", default=DEFAULT_DB)
    parser.add_argument("--members", type=int, default=64)
    parser.add_argument("--table-size", type=int, default=8)
    parser.add_argument("--hands", type=int, default=20)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, os.cpu_count() or 1],
                        help="processes of the matches worker, one figure each (1: solo "
                             "pool); default: 1 and this machine's cores")
    parser.add_argument("--rounds", type=int, default=3,
                        help="nights played (each a new league, the same seeds); medians")
    args = parser.parse_args()
    setup_bench(args.db)
    from django.conf import settings
    from django.contrib.auth import get_user_model

    organiser = get_user_model().objects.create_user("bench", password="x", is_staff=True)
    print(f"Python {sys.version.split()[0]}; {GAME}; broker and database as configured; "
          f"{settings.LEAGUE_TABLES_PER_TASK} tables per task")
    for concurrency in dict.fromkeys(args.concurrency):
        walls, alones, night = play_nights(args, organiser, concurrency)
        wall, alone = statistics.median(walls), statistics.median(alones)
        print(f"league night, {args.members} reference bots, {len(night.tables)} tables of up "
              f"to {args.table_size}, {args.hands} hands ({night.hands.count()} hand matches), "
              f"matches worker of {concurrency} process{'es' if concurrency > 1 else ''}, "
              f"median of {args.rounds} nights: workers {wall:.2f} s, the engine alone "
              f"{alone:.2f} s: {alone / wall:.2f}x (target >= 0.7x with one process); rounds: "
              f"{', '.join(f'{a / w:.2f}x' for a, w in zip(alones, walls))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
