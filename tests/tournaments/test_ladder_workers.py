"""The ladder played by real Celery worker processes (Redis or RabbitMQ and PostgreSQL in CI),
started as `make run` starts them, against loopback webhook bots of four owners: bots that
join start playing at once, each gets a rank with the matches it rests on; a worker
SIGKILLed in the middle (inside an open transaction, if it can be caught in one) is replaced
and the ladder goes on: every ladder match is played once, to the end, and rated once, and no
bot is struck or forfeited for the platform's fault."""

from __future__ import annotations

import time
from typing import Any

import pytest

from bots.models import Bot, BotSeat
from games.log import entries
from games.models import Match
from games.services import matches_resume_stalled
from tests.conftest import REAL_WORKERS
from tests.helpers.workers import Workers, open_transactions, wait_until
from tournaments import runner
from tournaments.ladders import services as ladders
from tournaments.models import LadderEntry, LadderMatch, LeaderboardEntry, RatingPoint

pytestmark = [pytest.mark.postgres, pytest.mark.broker, pytest.mark.django_db(transaction=True),
              REAL_WORKERS]


def test_a_ladder_goes_on_through_a_worker_kill_playing_and_rating_each_match_once(
        bots: Any, make_user: Any, client: Any, tmp_path: Any, settings: Any) -> None:
    settings.BLUFF_STALLED_SECONDS = 1
    settings.TOURNAMENT_LEASE_SECONDS = 1
    ids = bots(4, delay=0.004)
    for number, bot_id in enumerate(ids):  # owners apart: each its own, so any pair may meet
        Bot.objects.filter(pk=bot_id).update(owner=make_user(f"owner{number}"))
    workers = Workers(tmp_path, TOURNAMENT_LEASE_SECONDS="1", LADDER_PAIR_CAP_PER_DAY="100")

    def finished() -> int:
        return LadderMatch.objects.filter(status="finished").count()

    def sweep() -> None:  # what beat does every minute, here every tick
        matches_resume_stalled()
        runner.reap()

    try:
        workers.start("housekeeping")
        workers.start("matches")
        for bot_id in ids:
            owner = Bot.objects.get(pk=bot_id).owner
            ladders.ladder_join(game="dice_cup", user=owner, bot=str(bot_id))
        wait_until(lambda: finished() >= 8, 120, what="the first ladder matches",
                   workers=workers)
        caught = time.monotonic() + 5  # try to kill it inside a transaction
        while open_transactions() == 0 and time.monotonic() < caught:
            pass
        workers.kill("matches")
        killed_at = finished()
        workers.start("matches")
        wait_until(lambda: finished() >= killed_at + 8, 180, tick=sweep,
                   what="the new worker to go on with the ladder", workers=workers)
        standings = client.get("/api/ladders/dice_cup/").json()["standings"]
        for bot_id in ids:  # nothing new starts; what is in flight ends
            owner = Bot.objects.get(pk=bot_id).owner
            ladders.ladder_leave(game="dice_cup", user=owner, bot=str(bot_id))
        wait_until(lambda: not LadderMatch.objects.exclude(
            status__in=["finished", "cancelled"]).exists(), 120, tick=sweep,
                   what="the matches in flight to end", workers=workers)
    finally:
        workers.stop()

    rows = list(LadderMatch.objects.filter(status="finished"))
    assert len(rows) >= killed_at + 8 and all(row.match_id for row in rows)
    assert len({row.match_id for row in rows}) == len(rows)
    matches = Match.objects.filter(ladder_match__in=rows)
    assert matches.count() == len(rows), "one games match a ladder match"
    assert Match.objects.filter(seed__in=[row.seed for row in rows]).count() == len(rows), (
        "no match was created twice")
    for match in matches:
        assert match.status == "finished"
        assert [e.n for e in entries(match.pk)] == list(range(match.version + 1)), "gapless"
    assert not any(row.forfeited for row in rows), "nobody forfeited for the platform's fault"
    assert not BotSeat.objects.exclude(strikes={}).exists(), "nobody struck"
    assert RatingPoint.objects.count() == 2 * len(rows), "every match rated once"
    played = {str(bot_id): sum(str(bot_id) in map(str, _bots(row)) for row in rows)
              for bot_id in ids}
    rated = dict(LeaderboardEntry.objects.filter(game="dice_cup", kind="webhook")
                 .values_list("ref", "matches"))
    assert rated == played and all(played.values()), "each bot rated for what it played"
    assert sorted(row["rank"] for row in standings) == [1, 2, 3, 4], "each bot ranked"
    assert all(row["matches"] > 0 and row["interval"] for row in standings), (
        "each rank with the matches it rests on and how sure it is")


def _bots(row: LadderMatch) -> list[str]:
    """The bots at a ladder match's seats (its seats are entry ids)."""
    bots = dict(LadderEntry.objects.values_list("pk", "bot"))
    return [bots[entry] for entry in row.seats]
