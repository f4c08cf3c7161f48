"""A league night played by the processes `make run` starts: real beat (django-celery-beat's
DatabaseScheduler) and real workers on the configured broker and database (Redis and
PostgreSQL in CI). A night scheduled a few seconds ahead starts by itself and finishes, with
a webhook bot at the table (its hands go through the games workers)."""

from __future__ import annotations

import time
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from tests.conftest import REAL_WORKERS
from tests.helpers.tasks import run_tasks
from tests.helpers.workers import Workers, wait_until
from tournaments import runner
from tournaments.leagues import nights
from tournaments.leagues import services as leagues
from tournaments.models import Night

pytestmark = [pytest.mark.postgres, pytest.mark.broker, pytest.mark.django_db(transaction=True),
              REAL_WORKERS]


def test_a_night_scheduled_ahead_starts_by_itself_and_finishes(alice, bots, tmp_path) -> None:
    [bot_id] = bots(1)
    now = timezone.now()
    league = leagues.league_create(
        organiser=alice, name="beat night", game="great_dalmuti", table_size=5,
        hands_per_night=2, season_start=now - timedelta(hours=1),
        season_end=now + timedelta(days=1), seed=21,
        members=[*({"kind": "reference", "bot": b} for b in ("heuristic", "random") * 2),
                 {"kind": "webhook", "bot": bot_id}])
    night = leagues.night_schedule(league_id=league.pk, user=alice,
                                   starts_at=now + timedelta(seconds=4))
    workers = Workers(tmp_path, LEAGUE_START_SWEEP_SECONDS="1")
    workers.start_beat()
    try:
        workers.start("matches")
        workers.start("housekeeping")

        def finished() -> bool:
            night.refresh_from_db()
            return night.status not in ("scheduled", "running")

        wait_until(finished, 90, what="the night to start and finish", workers=workers)
    finally:
        workers.stop()
    assert night.status == "finished", night.reason
    assert night.started_at >= night.starts_at, "not before its time"
    hands = list(night.hands.order_by("number"))
    assert [h.number for h in hands] == [1, 2] and all(h.status == "finished" for h in hands)
    assert hands[1].seats == hands[0].order_after
    league.refresh_from_db()
    assert league.ordered and league.order == hands[1].order_after


def _league(alice: Any, bot_ids: list[int], seed: int) -> Any:
    now = timezone.now()
    return leagues.league_create(
        organiser=alice, name="crash night", game="great_dalmuti", table_size=4,
        hands_per_night=4, season_start=now - timedelta(hours=1),
        season_end=now + timedelta(days=1), seed=seed,
        members=[{"kind": "reference", "bot": "heuristic"},
                 {"kind": "reference", "bot": "random"},
                 *({"kind": "webhook", "bot": bot_id} for bot_id in bot_ids)])


def _totals(league: Any) -> list[tuple]:
    from tournaments import selectors

    return [(row.member, row.points, row.hands) for row in
            selectors.league_table(league_id=league.pk)]


def test_a_worker_killed_mid_night_resumes_from_the_last_finished_hand(
        alice, bots, tmp_path, monkeypatch, settings) -> None:
    """SIGKILL the matches worker in the middle of a night, start a new one: every hand is
    played once (none replayed, none lost), and the totals equal an undisturbed run with
    the same seeds."""

    from games.models import Match
    from games.services import matches_resume_stalled
    from tests.helpers.workers import open_transactions

    settings.BLUFF_STALLED_SECONDS = 1
    settings.TOURNAMENT_LEASE_SECONDS = 1
    bot_ids = bots(2, delay=0.004)
    workers = Workers(tmp_path, TOURNAMENT_LEASE_SECONDS="1")

    def sweep() -> None:  # what beat does, here every tick
        matches_resume_stalled()
        runner.reap()

    league = _league(alice, bot_ids, seed=8)
    try:
        workers.start("housekeeping")
        workers.start("matches")
        night = leagues.night_schedule(league_id=league.pk, user=alice,
                                       starts_at=timezone.now())
        nights.nights_start_due()

        def done() -> int:
            return night.hands.filter(status="finished").count()

        wait_until(lambda: done() >= 1, 120, what="a first hand", workers=workers)
        caught = time.monotonic() + 5  # try to kill it inside a transaction (a batch)
        while open_transactions() == 0 and time.monotonic() < caught:
            pass
        workers.kill("matches")
        assert done() < 4, "killed before the end"
        workers.start("matches")
        wait_until(lambda: Night.objects.get(pk=night.pk).status == "finished", 240,
                   tick=sweep, what="the new worker to finish the night", workers=workers)
    finally:
        workers.stop()
    hands = list(night.hands.order_by("number"))
    assert [h.number for h in hands] == [1, 2, 3, 4], "every hand once"
    assert Match.objects.filter(league_hand__night=night).count() == 4
    assert Match.objects.filter(series="league", seed__in=[h.seed for h in hands]).count() == 4, \
        "no hand played twice (a match of a batch rolled back is not kept)"

    run_tasks(monkeypatch)
    calm = _league(alice, bot_ids, seed=8)
    calm_night = leagues.night_schedule(league_id=calm.pk, user=alice, starts_at=timezone.now())
    nights.nights_start_due()
    calm_night.refresh_from_db()
    assert calm_night.status == "finished"
    assert _totals(league) == _totals(calm), "as if nothing had happened"
