"""A league night played by the processes `make run` starts: real beat (django-celery-beat's
DatabaseScheduler) and real workers on the configured broker and database (Redis and
PostgreSQL in CI). A night scheduled a few seconds ahead starts by itself and finishes, with
a webhook bot at the table (its hands go through the games workers)."""

from __future__ import annotations

import subprocess
import time
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from tests.conftest import REAL_WORKERS
from tests.tournaments.test_workers import ROOT, Workers, bots, wait_until  # noqa: F401
from tournaments import leagues
from tournaments.models import Night

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.django_db(transaction=True),
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
    beat_log = open(tmp_path / "worker-beat.log", "w")
    beat = subprocess.Popen(
        workers.run.commands()["beat"] + ["--schedule", str(tmp_path / "beat-schedule")],
        cwd=ROOT, env=workers.env, stdout=beat_log, stderr=subprocess.STDOUT)
    try:
        workers.start("matches")
        workers.start("housekeeping")
        time.sleep(2)
        assert Night.objects.get(pk=night.pk).status == "scheduled", "not before its time"

        def finished() -> bool:
            night.refresh_from_db()
            return night.status not in ("scheduled", "running")

        wait_until(finished, 90, what="the night to start and finish", workers=workers)
    finally:
        beat.terminate()
        beat.wait(timeout=20)
        workers.stop()
    assert night.status == "finished", night.reason
    assert night.started_at >= night.starts_at
    hands = list(night.hands.order_by("number"))
    assert [h.number for h in hands] == [1, 2] and all(h.status == "done" for h in hands)
    assert hands[1].seats == hands[0].order_after
    league.refresh_from_db()
    assert league.ordered and league.order == hands[1].order_after
