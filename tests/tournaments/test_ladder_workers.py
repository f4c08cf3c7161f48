"""The ladder played by real Celery worker processes (Redis or RabbitMQ and PostgreSQL in CI),
started as `make run` starts them, against loopback webhook bots of four owners: bots that
join start playing at once, each gets a rank with the matches it rests on; a worker
SIGKILLed in the middle (inside an open transaction, if it can be caught in one) is replaced
and the ladder goes on: every ladder match is played once, to the end, and rated once, and no
bot is struck or forfeited for the platform's fault. And a bot that joins a running ladder
plays its burst, gets a rank, and has a version registered, played and promoted on the same
workers."""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any

import pytest

from bots import services as bot_services
from bots.models import Bot, BotSeat, BotVersion
from config import versions
from games.log import entries
from games.models import Match
from games.services import matches_resume_stalled
from tests.conftest import REAL_WORKERS
from tests.helpers.workers import Workers, open_transactions, wait_until
from tournaments import runner
from tournaments.ladders import services as ladders
from tournaments.models import (
    LadderEntry,
    LadderMatch,
    LeaderboardEntry,
    RatingPoint,
    Tournament,
    TournamentMatch,
)

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
        wait_until(lambda: finished() >= killed_at + 8, 180, tick=_sweep,
                   what="the new worker to go on with the ladder", workers=workers)
        standings = client.get("/api/ladders/dice_cup/").json()["standings"]
        _leave_and_drain(Bot.objects.filter(pk__in=ids), workers)
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


def _sweep() -> None:
    """What beat does every minute, here every tick: stalled matches resumed, the reaper."""
    matches_resume_stalled()
    runner.reap()


def _leave_and_drain(bots: Iterable[Bot], workers: Workers) -> None:
    """Every bot leaves the ladder, so nothing new starts; then what is in flight ends (a
    match planned and not started for a bot that left is cancelled, not played)."""
    for bot in bots:
        ladders.ladder_leave(game="dice_cup", user=bot.owner, bot=str(bot.pk))
    wait_until(lambda: not LadderMatch.objects.exclude(
        status__in=["finished", "cancelled"]).exists(), 120, tick=_sweep,
               what="the matches in flight to end", workers=workers)


def _bots(row: LadderMatch) -> list[str]:
    """The bots at a ladder match's seats (its seats are entry ids)."""
    bots = dict(LadderEntry.objects.values_list("pk", "bot"))
    return [bots[entry] for entry in row.seats]


def test_a_new_bot_plays_its_burst_gets_a_rank_and_its_version_is_promoted(
        make_user: Any, client: Any, tmp_path: Any, settings: Any, open_ref_server: Any) -> None:
    """Issue 47's end-to-end test: reference bots over HTTP, each of its own owner, on a
    running ladder; a newcomer joins, plays its burst and gets a rank; a version of it (a new
    URL) plays its provisional run on the same workers, is promoted, and the bot plays the
    ladder at the new URL, its burst given again. Nobody is struck; the run moves no rating."""
    burst = 3
    short = {"LADDER_BURST": str(burst), "BOT_VERSION_MEETINGS": "1",
             "BOT_VERSION_BENCHMARK_TOP": "1", "LADDER_PAIR_CAP_PER_DAY": "100",
             "TOURNAMENT_LEASE_SECONDS": "1"}
    for name, value in short.items():
        setattr(settings, name, int(value))
    base = open_ref_server.base_url

    def register(name: str, route: str) -> Bot:
        made, _ = bot_services.bot_register(owner=make_user(name), name=name, url=base + route)
        return made

    field = [register(f"field{n}", route)
             for n, route in enumerate(["/dice_cup/random", "/dice_cup/heuristic", "/random"])]
    newcomer = register("ada", "/heuristic")
    workers = Workers(tmp_path, **short)

    def entry() -> LadderEntry:
        return LadderEntry.objects.get(kind="webhook", bot=str(newcomer.pk))

    def finished_with_newcomer(since: int = 0) -> int:
        return sum(entry().pk in row.seats for row in
                   LadderMatch.objects.filter(status="finished", pk__gt=since))

    try:
        workers.start("housekeeping")
        workers.start("matches")
        for bot in field:
            ladders.ladder_join(game="dice_cup", user=bot.owner, bot=str(bot.pk))
        wait_until(lambda: LadderMatch.objects.filter(status="finished").count() >= 3, 120,
                   tick=_sweep, what="the field's first ladder matches", workers=workers)
        ladders.ladder_join(game="dice_cup", user=newcomer.owner, bot=str(newcomer.pk))
        wait_until(lambda: entry().burst_left == 0 and finished_with_newcomer() >= burst, 180,
                   tick=_sweep, what="the newcomer's burst", workers=workers)
        ranked = {row["bot"]: row for row in
                  client.get("/api/ladders/dice_cup/").json()["standings"]}
        assert ranked[newcomer.pk]["rank"] and ranked[newcomer.pk]["interval"], (
            "the newcomer is ranked, with how sure its rank is")
        assert ranked[newcomer.pk]["matches"] >= burst

        version = versions.version_register(bot_id=newcomer.pk, user=newcomer.owner,
                                            url=f"{base}/dice_cup/heuristic", game="dice_cup")
        wait_until(lambda: Tournament.objects.get(pk=version.run).status == "finished", 180,
                   tick=_sweep, what="the version's provisional run", workers=workers)
        assert TournamentMatch.objects.filter(tournament_id=version.run,
                                              match__status="finished").exists()
        versions.version_promote(bot_id=newcomer.pk, user=newcomer.owner,
                                 number=version.number)
        newcomer.refresh_from_db()
        assert newcomer.url == f"{base}/dice_cup/heuristic"
        assert BotVersion.objects.get(pk=version.pk).status == "promoted"
        assert entry().burst_left > 0, "a promoted version is a changed bot: its burst again"
        promoted_at = LadderMatch.objects.order_by("-pk").values_list("pk", flat=True).first()
        wait_until(lambda: finished_with_newcomer(since=promoted_at) >= 1, 180, tick=_sweep,
                   what="a ladder match of the promoted version", workers=workers)
        _leave_and_drain([*field, newcomer], workers)
    finally:
        workers.stop()

    ladder_rows = LadderMatch.objects.filter(status="finished")
    assert RatingPoint.objects.count() == 2 * ladder_rows.count(), (
        "every ladder match rated once, the provisional run's none")
    assert not any(row.forfeited for row in ladder_rows)
    assert not BotSeat.objects.exclude(strikes={}).exists(), "nobody struck"
