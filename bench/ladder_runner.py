"""What one ask of a ladder costs the runner: a ladder of ``--entrants`` webhook bots on
PostgreSQL (or SQLite), read as the runner reads it when a match of it ends (its kind's
``load``: the entries with their ratings, the pairs of the last 24 hours) and asked what to
start (the ladder format's ``next``: ``matchmaking.choose``), nothing stored.

    python bench/ladder_runner.py [--entrants 1000] [--asks 9] [--db postgres://...|sqlite]

The field: bots of ratings spread at random (mu 10 to 40, sigma 1 to 8.3), owners of one to
three bots, a tenth of them with a match in flight, ``--entrants`` matches played in the last
day. Printed: the median and slowest wall time of ``--asks`` asks, split into reading and
choosing. Figures: docs/ladder.md.
"""

from __future__ import annotations

import argparse
import pathlib
import random
import statistics
import sys
import time
from datetime import timedelta

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.common import setup_bench


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--entrants", type=int, default=1000)
    parser.add_argument("--asks", type=int, default=9)
    parser.add_argument("--db", default="postgres://postgres@127.0.0.1:5432/bluff_bench_ladder")
    args = parser.parse_args()
    setup_bench(args.db)

    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from bots.models import Bot
    from bots.signing import new_secret
    from tournaments.formats import SeriesState
    from tournaments.ladders.kind import LadderKind
    from tournaments.ladders.services import ladder_get_or_create
    from tournaments.models import Ladder, LadderEntry, LadderMatch, LeaderboardEntry

    rng, now = random.Random(7), timezone.now()
    user = get_user_model()
    owners = user.objects.bulk_create([user(username=f"owner{i}")
                                       for i in range(args.entrants // 2)])
    bots = Bot.objects.bulk_create([
        Bot(owner=rng.choice(owners), name=f"bot{i}", url="https://bot.example/",
            secret=new_secret(), games=["dice_cup"], handshake_ok=True, public=True)
        for i in range(args.entrants)])
    ladder = ladder_get_or_create(game="dice_cup")
    ratings = LeaderboardEntry.objects.bulk_create([
        LeaderboardEntry(game="dice_cup", kind="webhook", ref=str(bot.pk), mu=mu, sigma=sigma,
                         ordinal=mu - 3 * sigma, matches=rng.randint(0, 200))
        for bot in bots for mu, sigma in [(rng.uniform(10, 40), rng.uniform(1, 25 / 3))]])
    entries = LadderEntry.objects.bulk_create([
        LadderEntry(ladder=ladder, kind="webhook", bot=str(bot.pk), owner_id=bot.owner_id,
                    rating=rating, joined_at=now, burst_left=rng.choice([0] * 30 + [5]),
                    last_match_at=now - timedelta(seconds=rng.uniform(0, 7200)))
        for bot, rating in zip(bots, ratings)])
    ids = [e.pk for e in entries]
    LadderMatch.objects.bulk_create([
        LadderMatch(ladder=ladder, number=n, deal=n, seed=n, seats=rng.sample(ids, 2),
                    status="finished" if n >= args.entrants // 20 else "running")
        for n in range(args.entrants)])
    Ladder.objects.filter(pk=ladder.pk).update(max_in_flight=args.entrants)

    kind, reads, chooses = LadderKind(), [], []
    running = {str(m.number): kind.planned(m) for m in
               LadderMatch.objects.filter(ladder=ladder, status="running")}
    for _ in range(args.asks):
        start = time.perf_counter()
        loaded = kind.load(Ladder.objects.get(pk=ladder.pk))
        read = time.perf_counter()
        plan = loaded.format.next(SeriesState(
            now=timezone.now(), finished=args.entrants - len(running), open=len(running),
            withdrawn=loaded.withdrawn, running=lambda: running))
        done = time.perf_counter()
        reads.append(read - start)
        chooses.append(done - read)
    total = [a + b for a, b in zip(reads, chooses)]
    print(f"{args.entrants} entrants, {len(running)} in flight: one ask "
          f"{statistics.median(total) * 1000:.0f} ms median (read "
          f"{statistics.median(reads) * 1000:.0f} ms, choose "
          f"{statistics.median(chooses) * 1000:.0f} ms), slowest {max(total) * 1000:.0f} ms; "
          f"{len(plan.start)} matches planned")


if __name__ == "__main__":
    main()
