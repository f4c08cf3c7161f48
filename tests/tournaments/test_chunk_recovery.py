"""Recovery within two leases for tournament chunks (issue 45, docs/deploy.md): the rows a play
task is claiming get the short ``TOURNAMENT_CLAIM_LEASE_SECONDS`` in a statement of their own
before its transaction, so a task that dies inside that transaction (its claim rolled back)
leaves them due for the reaper one claim lease later, not after their queued message's long
``TOURNAMENT_LEASE_SECONDS``; rows whose message still waits in the queue are not queued
again."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from tests.helpers.series import TOURNAMENT
from tests.helpers.tasks import hold_tasks
from tournaments import runner
from tournaments.models import TournamentMatch
from tournaments.runner import kinds
from tournaments.services import tournament_create

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_chunk_whose_worker_died_inside_its_transaction_is_queued_again_soon_and_alone(
        alice: Any, monkeypatch: Any, settings: Any) -> None:
    settings.TOURNAMENT_CHUNK = 2
    held = hold_tasks(monkeypatch, "tournaments.")
    tournament = tournament_create(
        organiser=alice, name="t", game="dice_cup", table_size=2, seed=3, participants=[
            {"kind": "reference", "bot": bot} for bot in ("heuristic", "random") * 2])
    assert held == [("tournaments.advance", TOURNAMENT, tournament.pk)]
    assert runner.dispatch(kind=TOURNAMENT, series_id=tournament.pk) == 3, "three chunks queued"
    rows = TournamentMatch.objects.filter(tournament=tournament)
    queued_lease = dict(rows.values_list("pk", "lease_until"))
    held.clear()

    def died(*_: Any, **__: Any) -> None:
        raise RuntimeError("the worker died inside its transaction")

    monkeypatch.setattr(kinds, "matches_play", died)
    started = timezone.now()
    with pytest.raises(RuntimeError):
        runner.play(kind=TOURNAMENT, once=True, series_id=tournament.pk, now=started)
    monkeypatch.undo()
    held = hold_tasks(monkeypatch, "tournaments.")
    assert rows.filter(status="pending").count() == 6, "its claim was rolled back"
    claimed = [pk for pk, lease in rows.values_list("pk", "lease_until")
               if lease < queued_lease[pk]]
    assert len(claimed) == 2, "the two rows it took have the short claim lease"

    soon = started + timedelta(seconds=settings.TOURNAMENT_CLAIM_LEASE_SECONDS + 1)
    assert soon < started + timedelta(seconds=2 * settings.TOURNAMENT_CLAIM_LEASE_SECONDS)
    runner.reap(now=soon)
    assert held == [("tournaments.play", TOURNAMENT, tournament.pk)], "one chunk, queued again"
    for pk, lease in rows.values_list("pk", "lease_until"):
        if pk not in claimed:
            assert lease == queued_lease[pk], "a row whose message waits is left alone"
    runner.play(kind=TOURNAMENT, once=True, series_id=tournament.pk)
    assert rows.filter(status="finished").count() == 2
