"""games.tasks: the deadline sweep and its beat schedule; out-of-process seats act in a task
queued on commit."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.conf import settings
from django.utils import timezone

from games import services, tasks
from games.models import Match
from tests.helpers.matches import EchoSeat, act, out_of_process_kind, poll, to_move

pytestmark = pytest.mark.django_db


def test_expire_deadlines_task_and_beat_schedule(duel) -> None:
    entry = settings.CELERY_BEAT_SCHEDULE["games-expire-deadlines"]
    assert entry["task"] == tasks.expire_deadlines.name == "games.expire_deadlines"
    Match.objects.filter(pk=duel.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    assert tasks.expire_deadlines.apply().get() == 1
    assert tasks.expire_deadlines.apply().get() == 0


@pytest.fixture
def echo_kind() -> Any:
    yield from out_of_process_kind("echo", EchoSeat())


def test_out_of_process_seats_act_in_a_task_queued_on_commit(alice, alice_api, echo_kind,
                                                             django_capture_on_commit_callbacks,
                                                             monkeypatch) -> None:
    queued: list[int] = []
    monkeypatch.setattr(tasks.advance_automatic_seats, "delay", queued.append)
    match = services.match_create(game="dice_cup", created_by=alice, seed=1, join=True,
                                  seats=[{"kind": "player"}, {"kind": "echo", "bot": "x"}])
    version, legal = to_move(alice_api, match, 0)
    with django_capture_on_commit_callbacks(execute=True):
        answer = act(alice_api, match, 0, version, legal[0]).json()
    assert queued == [match.pk] and answer["version"] == version + 1, "not inside the request"
    moved = tasks.advance_automatic_seats.apply(args=[match.pk]).get()
    assert moved >= 1 and echo_kind.asked[0] == version + 1 and len(echo_kind.asked) == moved
    assert tasks.advance_automatic_seats.apply(args=[match.pk]).get() == 0, "idempotent"
    assert poll(alice_api, match, 0).json()["your_turn"]


def test_matches_being_advanced_are_the_running_ones_whose_lease_has_not_run_out(
        make_match, alice, bob) -> None:
    """What ``run_tournament`` waits for next to workers (games.selectors)."""
    from games.selectors import matches_being_advanced

    held, lapsed, free, over = (make_match("dice_cup", [alice, bob]) for _ in range(4))
    now = timezone.now()
    Match.objects.filter(pk__in=[held.pk, over.pk]).update(lease_until=now + timedelta(hours=1))
    Match.objects.filter(pk=lapsed.pk).update(lease_until=now - timedelta(seconds=1))
    Match.objects.filter(pk=over.pk).update(status=Match.Status.FINISHED)
    ids = [held.pk, lapsed.pk, free.pk, over.pk]
    assert matches_being_advanced(match_ids=ids) == [held.pk]
    assert matches_being_advanced(match_ids=[]) == []
