"""Turn deadlines: set from the move time limit, a missed one plays the default action with a
strike, too many forfeit the seat, a simultaneous step keeps its deadline."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.conf import settings
from django.utils import timezone

from games import services
from games.log import entries
from games.models import Match, Seat
from tests.helpers.matches import act, later, poll, replay_log, to_move

pytestmark = pytest.mark.django_db


def test_deadline_is_set_from_the_move_time_limit(make_match, alice, bob) -> None:
    before = timezone.now()
    match = make_match("dice_cup", [alice, bob], move_time_limit=90)
    assert match.move_time_limit == 90
    assert before + timedelta(seconds=89) < match.deadline < timezone.now() + timedelta(seconds=91)
    default = make_match("dot", [alice, bob])
    assert default.move_time_limit == settings.BLUFF_DEFAULT_MOVE_TIME_LIMIT == 24 * 3600


def test_nothing_expires_before_the_deadline(duel) -> None:
    assert services.match_expire_deadlines() == 0
    assert Match.objects.get(pk=duel.pk).version == 0


def test_a_missed_deadline_plays_the_default_action_and_gives_a_strike(duel, alice_api,
                                                                       bob_api) -> None:
    applied = services.match_expire_deadlines(now=later(duel))
    assert applied == 1
    match = Match.objects.get(pk=duel.pk)
    assert match.version == 1 and match.deadline > timezone.now()
    [entry] = [e for e in entries(duel.pk) if e.n == 1]
    assert entry.kind == "timeout" and entry.seat == 0 and entry.action["type"]
    assert Seat.objects.get(match=duel, number=0).strikes == 1
    assert poll(alice_api, duel, 0).json()["strikes"] == 1
    assert poll(bob_api, duel, 1).json()["your_turn"]
    # The same sweep again does nothing: the deadline moved on.
    assert services.match_expire_deadlines(now=later(duel, -5)) == 0


def test_too_many_strikes_forfeit_the_seat(make_match, alice, bob, settings) -> None:
    settings.BLUFF_MAX_STRIKES = 5  # the match's own strike_limit counts, not the setting
    duel = make_match("dice_cup", [alice, bob], strike_limit=2)
    assert duel.strike_limit == 2
    for _ in range(6):
        match = Match.objects.get(pk=duel.pk)
        if match.status != "running" or Seat.objects.get(match=duel, number=0).forfeited:
            break
        services.match_expire_deadlines(now=later(match))
    alice_seat = Seat.objects.get(match=duel, number=0)
    assert alice_seat.strikes == 2 and alice_seat.forfeited
    assert any(e.kind == "resign" and e.seat == 0 for e in entries(duel.pk))
    while (match := Match.objects.get(pk=duel.pk)).status == "running":
        services.match_expire_deadlines(now=later(match))
    from games import selectors

    log = selectors.match_log(match=selectors.match_get(match_id=duel.pk))
    assert replay_log(log).result() == match.result, "timeouts and forfeits replay too"


def test_simultaneous_step_keeps_its_deadline_after_one_answer(make_match, alice, bob,
                                                               alice_api) -> None:
    match = make_match("dot", [alice, bob], move_time_limit=600)
    deadline = match.deadline
    version, legal = to_move(alice_api, match, 0)
    assert act(alice_api, match, 0, version, legal[0]).status_code == 200
    after = Match.objects.get(pk=match.pk)
    assert after.deadline == deadline, "bob's time did not restart because alice answered"
    assert services.match_expire_deadlines(now=deadline + timedelta(seconds=1)) == 1
    assert Seat.objects.get(match=match, number=1).strikes == 1
    assert Seat.objects.get(match=match, number=0).strikes == 0
