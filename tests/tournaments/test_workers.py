"""Tournaments played by real Celery worker processes on the configured broker and database
(Redis and PostgreSQL in CI), started as `make run` starts them.

A round robin of reference bots and loopback webhook bots ends with the standings and ratings
that an in-process run of the same seeds gives; a worker SIGKILLed in the middle (while it
holds an open transaction, if it can be caught in one) is replaced, and every match is still
played exactly once, with the same standings as the undisturbed run.
"""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from django.utils import timezone

from tests.conftest import REAL_WORKERS
from tests.helpers.workers import (
    Workers,
    in_process,
    open_transactions,
    participants,
    played_once,
    table,
    wait_until,
)
from tournaments import runner, services
from tournaments.models import Tournament, TournamentMatch

pytestmark = [pytest.mark.postgres, pytest.mark.broker, pytest.mark.django_db(transaction=True),
              REAL_WORKERS]


def test_workers_play_a_round_robin_with_the_in_process_standings(alice, bots, tmp_path,
                                                                   monkeypatch) -> None:
    workers = Workers(tmp_path)
    spec = {"name": "cup", "game": "dice_cup", "table_size": 2, "seed": 11,
            "participants": participants(bots(2))}
    try:
        for queue in workers.run.QUEUES:
            workers.start(queue)
        tournament = services.tournament_create(organiser=alice, **spec)
        wait_until(lambda: Tournament.objects.get(pk=tournament.pk).status == "finished", 180,
                   what="the workers to finish the tournament", workers=workers)
    finally:
        workers.stop()
    played_once(tournament)
    reference = in_process(alice, spec, monkeypatch)
    assert Tournament.objects.get(pk=reference.pk).status == "finished"
    assert table(tournament) == table(reference)


@pytest.mark.parametrize("shape", [{"table_size": 2, "meetings": 3},
                                   {"format": "swiss", "rounds": 5},
                                   {"format": "continuous", "in_flight": 3}],
                         ids=["round robin", "swiss", "continuous"])
def test_a_worker_killed_mid_tournament_is_replaced_and_every_match_is_played_once(
        alice, bots, tmp_path, monkeypatch, settings, shape) -> None:
    """A round robin, a Swiss tournament whose next rounds are paired around the kill, and a
    continuous one (matches started as others end until its time: played once each, not
    compared with another run, whose matches would end at other times)."""
    timed = shape.get("format") == "continuous"
    if timed:
        shape = {**shape, "ends_at": timezone.now() + timedelta(seconds=20)}
    settings.BLUFF_STALLED_SECONDS = 1
    settings.TOURNAMENT_LEASE_SECONDS = 1
    workers = Workers(tmp_path, TOURNAMENT_LEASE_SECONDS="1", TOURNAMENT_CHUNK="4")
    entrants = participants(bots(2, delay=0.004))
    if shape.get("format") in ("swiss", "continuous"):
        entrants += [{"kind": "reference", "bot": "heuristic", "name": f"h{i}"} for i in range(4)]
    spec = {"name": "cup", "game": "dice_cup", "seed": 5, **shape, "participants": entrants}
    from games.services import matches_resume_stalled

    def sweep() -> None:  # what beat does every minute, here every tick
        matches_resume_stalled()
        runner.reap()

    def done() -> int:
        return TournamentMatch.objects.filter(tournament=tournament, status="finished").count()

    try:
        workers.start("housekeeping")
        workers.start("matches")
        tournament = services.tournament_create(organiser=alice, **spec)
        total = tournament.match_total  # a Swiss round's rows come when it is paired
        wait_until(lambda: done() >= (6 if timed else total // 4), 120,
                   what="a quarter of the matches", workers=workers)
        caught = time.monotonic() + 5  # try to kill it inside a transaction (a chunk, a batch)
        while open_transactions() == 0 and time.monotonic() < caught:
            pass
        workers.kill("matches")
        killed_at = done()
        assert timed or killed_at < total, "killed before the end"
        workers.start("matches")
        wait_until(lambda: Tournament.objects.get(pk=tournament.pk).status == "finished", 240,
                   tick=sweep, what="the new worker to finish the tournament", workers=workers)
    finally:
        workers.stop()
    played_once(tournament)
    if timed:
        assert done() > killed_at, "it went on after the kill"
        return
    reference = in_process(alice, spec, monkeypatch)
    assert table(tournament) == table(reference), "as if nothing had happened"
