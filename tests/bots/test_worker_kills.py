"""A webhook match survives its worker being SIGKILLed again and again, for longer in all than
the match's move time limit, with the deadline sweep running meanwhile: it ends exactly as an
undisturbed run of the same seed, and the bots have no strike (nobody pays for the platform's
outage). Real worker processes on the configured broker (Redis, or RabbitMQ in CI's second
pass) and PostgreSQL."""

from __future__ import annotations

import time
from typing import Any

import pytest

from bots.models import BotCall, BotSeat
from games import services
from games.log import entries
from games.models import Match
from tests.conftest import REAL_WORKERS
from tests.helpers.tasks import run_tasks
from tests.helpers.workers import Workers, wait_until

pytestmark = [pytest.mark.postgres, pytest.mark.broker, pytest.mark.django_db(transaction=True),
              REAL_WORKERS]

KILLS = 3
#: The workers' match lease (BLUFF_ADVANCE_LEASE_SECONDS).
LEASE = 4
#: The match's move time limit (the least allowed): every outage below outlasts it.
MOVE_TIME_LIMIT = 1


def create(alice: Any, bot_ids: list[int]) -> Match:
    return services.match_create(
        game="dice_cup", created_by=alice, seed=29, move_time_limit=MOVE_TIME_LIMIT,
        strike_limit=1,  # one strike would forfeit a seat: any charge shows in the result
        seats=[{"kind": "webhook", "bot": bot_ids[0]}, {"kind": "reference", "bot": "heuristic"},
               {"kind": "webhook", "bot": bot_ids[1]}])


def played(match: Match) -> list[tuple[str, int | None, Any]]:
    return [(e.kind, e.seat, e.action) for e in entries(match.pk)]


def test_a_match_whose_worker_is_killed_again_and_again_ends_as_if_nothing_happened(
        alice, bots, tmp_path, monkeypatch, settings) -> None:
    bot_ids = bots(2, delay=0.12)
    # BLUFF_STALLED_SECONDS stays at its default (120 s): the match moves on within the waits
    # below because its lease ran out, which the sweep takes at once (recovery within two
    # leases: games.services.matches_resume_stalled).
    assert settings.BLUFF_STALLED_SECONDS > 60
    workers = Workers(tmp_path, BLUFF_ADVANCE_LEASE_SECONDS=str(LEASE))

    def version() -> int:
        return Match.objects.get(pk=match.pk).version

    def beat() -> None:  # what beat asks the housekeeping worker, here every tick
        services.match_expire_deadlines()
        services.matches_resume_stalled()

    outages: list[float] = []  # from a kill until the match moved again
    try:
        workers.start("matches")
        match = create(alice, bot_ids)
        killed_at = None
        for _ in range(KILLS):
            before = version()
            wait_until(lambda: version() > before, 60, tick=beat,
                       what="the match to go on", workers=workers)
            if killed_at is not None:
                outages.append(time.monotonic() - killed_at)
            time.sleep(0.4)  # within the next batch: its moves are in the worker's memory only
            workers.kill("matches")
            killed_at = time.monotonic()
            assert Match.objects.get(pk=match.pk).status == "running", "killed mid-match"
            before = version()
            while time.monotonic() - killed_at < MOVE_TIME_LIMIT + 0.5:  # past any deadline
                beat()
                time.sleep(0.1)
            assert version() == before, "nobody played while no worker was alive"
            workers.start("matches")
        wait_until(lambda: version() > before, 60, tick=beat, what="the match to go on",
                   workers=workers)
        outages.append(time.monotonic() - killed_at)
        wait_until(lambda: Match.objects.get(pk=match.pk).status == "finished", 120, tick=beat,
                   what="the match to finish", workers=workers)
    finally:
        workers.stop()
    assert len(outages) == KILLS and sum(outages) > KILLS * MOVE_TIME_LIMIT, outages

    disturbed = Match.objects.get(pk=match.pk)
    assert [e.n for e in entries(match.pk)] == list(range(disturbed.version + 1))
    assert not any(kind in ("timeout", "default") for kind, _, _ in played(disturbed))
    assert not disturbed.seats.filter(strikes__gt=0).exists()
    assert not BotSeat.objects.filter(match=disturbed).exclude(strikes={}).exists()
    assert not BotCall.objects.filter(match=disturbed, strike=True).exists()

    run_tasks(monkeypatch, "games.advance_automatic_seats")
    undisturbed = Match.objects.get(pk=create(alice, bot_ids).pk)
    assert undisturbed.status == "finished"
    assert played(disturbed) == played(undisturbed) and disturbed.result == undisturbed.result
    print(f"outages {[round(o, 1) for o in outages]} s (lease {LEASE} s, the worker started "
          f"again {MOVE_TIME_LIMIT + 0.5} s after each kill); /move calls not applied "
          f"{BotCall.objects.filter(match=disturbed, applied=False).count()}")
