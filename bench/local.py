"""The embedded default against the production stack: one webhook round robin on each.

    python bench/local.py [--participants 16] [--meetings 2] [--game dice_cup]
                          [--db postgres://postgres@127.0.0.1:5432/bluff_bench_local]
                          [--redis redis://127.0.0.1:6379/0]

The same tournament (``--participants`` webhook bots, the reference bots of ``manage.py
serve_bots`` in a process of their own, a round robin at tables of 2 each pair meeting
``--meetings`` times, the same seed), created with ``tournaments.services.tournament_create``
(what the API calls), is played twice, each time by real worker processes on a fresh database:

1. **embedded default**: what ``make run`` gives a newcomer: a SQLite file and kombu's filesystem
   broker in a temporary ``BLUFF_VAR_DIR``, the Celery workers and beat started with
   ``scripts/run.py``'s own commands and local environment;
2. **PostgreSQL + Redis**: the production settings of ``docker-compose.yml``: the matches worker
   a thread pool of 32 (``--pool threads --concurrency 32``), a housekeeping worker and beat,
   on ``--db`` (dropped and created) and Redis (``--redis``, emptied first).

Each figure is the tournament's matches divided by the seconds from its creation to its
``finished`` status, after a warm-up tournament has shown the workers are up. Target: the
embedded default at least 0.5x the production stack. The last line reads
``embedded default A matches/s, PostgreSQL + Redis B matches/s: R x``.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.common import PRODUCTION_MATCHES_POOL
from scripts import run as run_script

DEFAULT_DB = "postgres://postgres@127.0.0.1:5432/bluff_bench_local"
#: The production run's broker: CELERY_BROKER_URL when it is a Redis URL, else Redis's db 0.
DEFAULT_REDIS = (os.environ["CELERY_BROKER_URL"]
                 if os.environ.get("CELERY_BROKER_URL", "").startswith("redis://")
                 else "redis://127.0.0.1:6379/0")
TARGET_RATIO = 0.5
STACKS = ("embedded", "production")
#: Variables that would point a stack somewhere else than the bench says.
STACK_VARIABLES = ("DATABASE_URL", "CELERY_BROKER_URL", "CELERY_RESULT_BACKEND", "CACHE_URL",
                   "BLUFF_VAR_DIR")


def stack_processes(stack: str) -> dict[str, list[str]]:
    """The worker and beat commands of ``stack`` (``embedded`` or ``production``): for the
    embedded default exactly those of `make run` (its web server aside)."""
    processes = {name: command for name, command in run_script.commands().items()
                 if name != "web"}
    if stack == "production":
        queue = run_script.QUEUES[0]
        processes[f"worker-{queue}"] = run_script.worker_command(queue, *PRODUCTION_MATCHES_POOL)
    return processes


def stack_environment(stack: str, tmp: pathlib.Path, db: str, redis: str) -> dict[str, str]:
    """The environment of one stack's bench process and workers."""
    environ = {k: v for k, v in os.environ.items() if k not in STACK_VARIABLES}
    environ.update({"DEBUG": "0", "SECRET_KEY": "bench-only-secret-key",
                    "ALLOWED_HOSTS": "127.0.0.1", "LOG_LEVEL": "WARNING",
                    "DJANGO_SETTINGS_MODULE": "config.settings", "BLUFF_VAR_DIR": str(tmp)})
    if stack == "embedded":
        return run_script.local_environment(environ)
    base, _, number = redis.rpartition("/")
    results = f"{base}/{int(number or 0) + 1}"  # as docker-compose.yml: results next to it
    return {**environ, "BOTS_ALLOW_PRIVATE_ADDRESSES": "1", "DATABASE_URL": db,
            "CELERY_BROKER_URL": redis, "CELERY_RESULT_BACKEND": results, "CACHE_URL": results}


def fresh_postgres(url: str) -> None:
    from urllib.parse import urlsplit, urlunsplit

    import psycopg

    parts = urlsplit(url)
    with psycopg.connect(urlunsplit(parts._replace(path="/postgres")), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{parts.path.lstrip("/")}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{parts.path.lstrip("/")}"')


def measure(args: argparse.Namespace) -> dict:
    """The child's part (``--stack``): Django on this stack's settings, the workers started,
    a warm-up tournament, then the timed one. Returns the figures."""
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)
    from django.contrib.auth import get_user_model

    from bots.models import Bot
    from bots.signing import new_secret
    from config.celery import purge_queues
    from games.engine import game_ids
    from tournaments import services
    from tournaments.models import Tournament

    purge_queues()
    organiser = get_user_model().objects.create_user("bench", password="x", is_staff=True)
    bots = subprocess.Popen([sys.executable, "manage.py", "serve_bots", "--port", "0"],
                            cwd=ROOT, stdout=subprocess.PIPE, text=True)
    base = re.search(r"http://[\d.]+:\d+", bots.stdout.readline()).group(0)
    names = ("random", "heuristic")
    ids = [Bot.objects.create(owner=organiser, name=f"bot{i}", url=f"{base}/{names[i % 2]}",
                              secret=new_secret(), games=list(game_ids()),
                              handshake_ok=True, compact_legal_actions=True).pk
           for i in range(args.participants)]
    logs = pathlib.Path(os.environ["BLUFF_VAR_DIR"])
    workers = {name: subprocess.Popen(command, cwd=ROOT,
                                 stdout=(logs / f"{name}.log").open("w"),
                                 stderr=subprocess.STDOUT)
               for name, command in stack_processes(args.stack).items()}

    def play(participants: list[int], meetings: int, seed: int) -> tuple[float, int]:
        started = time.perf_counter()
        tournament = services.tournament_create(
            organiser=organiser, name="bench", game=args.game, table_size=2,
            participants=[{"kind": "webhook", "bot": pk} for pk in participants],
            meetings=meetings, seed=seed)
        limit = time.monotonic() + args.timeout
        while Tournament.objects.filter(pk=tournament.pk).values_list(
                "status", flat=True)[0] != Tournament.Status.FINISHED:
            dead = [name for name, p in workers.items() if p.poll() is not None]
            if dead or time.monotonic() > limit:
                tails = "\n".join(f"--- {p.name}\n{p.read_text()[-2000:]}"
                                  for p in logs.glob("*.log"))
                raise SystemExit(f"{args.stack}: the tournament did not finish "
                                 f"({'dead: ' + ', '.join(dead) if dead else 'timed out'})"
                                 f"\n{tails}")
            time.sleep(0.05)
        return time.perf_counter() - started, tournament.matches.count()

    try:
        play(ids[:2], 1, 1)  # warm-up: the workers are up once it is played
        seconds, matches = play(ids, args.meetings, 7)
    finally:
        for process in (*workers.values(), bots):
            process.terminate()
        for process in (*workers.values(), bots):
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
    from django.db import connection

    return {"rate": matches / seconds, "matches": matches, "seconds": seconds,
            "vendor": connection.vendor}


def run_stack(stack: str, args: argparse.Namespace) -> dict:
    """One stack's figures, measured in a child process of its own (settings are read once
    per process)."""
    tmp = pathlib.Path(tempfile.mkdtemp(prefix=f"bluff-local-{stack}-"))
    if stack == "production":
        fresh_postgres(args.db)
    child = subprocess.run(
        [sys.executable, __file__, "--stack", stack, "--participants", str(args.participants),
         "--meetings", str(args.meetings), "--game", args.game, "--timeout", str(args.timeout)],
        env=stack_environment(stack, tmp, args.db, args.redis), cwd=ROOT, check=True,
        stdout=subprocess.PIPE, text=True)
    return json.loads(child.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--participants", type=int, default=16)
    parser.add_argument("--meetings", type=int, default=2)
    parser.add_argument("--game", default="dice_cup")
    parser.add_argument("--db", default=DEFAULT_DB,
                        help="the PostgreSQL database of the production run (dropped, created)")
    parser.add_argument("--redis", default=DEFAULT_REDIS,
                        help="the production run's broker (its queues are purged; results "
                             "and the cache go to the next Redis database)")
    parser.add_argument("--timeout", type=float, default=900)
    parser.add_argument("--only", choices=STACKS, help="measure one stack only")
    parser.add_argument("--stack", choices=STACKS, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.stack:
        print(json.dumps(measure(args)))
        return 0
    if args.only:
        figures = run_stack(args.only, args)
        print(f"{args.only}: {figures['rate']:.1f} matches/s ({figures['matches']} matches in "
              f"{figures['seconds']:.2f} s)")
        return 0
    embedded = run_stack("embedded", args)
    production = run_stack("production", args)
    matches = embedded["matches"]
    print(f"{args.game}, {args.participants} webhook bots (serve_bots), round robin at tables "
          f"of 2, {args.meetings} meeting(s) a pair: {matches} matches")
    print(f"  embedded default ({embedded['vendor']}, filesystem broker, the workers of "
          f"scripts/run.py): {matches} matches in {embedded['seconds']:.2f} s")
    print(f"  PostgreSQL + Redis (matches worker {' '.join(PRODUCTION_MATCHES_POOL)}): "
          f"{production['matches']} matches in {production['seconds']:.2f} s")
    ratio = embedded["rate"] / production["rate"]
    print(f"  target: >= {TARGET_RATIO} x: {'OK' if ratio >= TARGET_RATIO else 'UNDER TARGET'}")
    print(f"embedded default {embedded['rate']:.1f} matches/s, PostgreSQL + Redis "
          f"{production['rate']:.1f} matches/s: {ratio:.2f} x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
