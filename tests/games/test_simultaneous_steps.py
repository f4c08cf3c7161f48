"""Simultaneous steps over HTTP: every seat of a sealed step answers with the version it polled,
whoever answers first (D.O.T commits, Dutch snaps, the Dalmuti revolution step), retries stay
idempotent, and an answer from before the step is stale."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from games import log
from games.engine import get_game
from games.engine.dutch import Phase
from games.models import AppliedAction, Match
from games.selectors import load_state
from tests.helpers.matches import act, poll, url

pytestmark = pytest.mark.django_db



def _dutch_snap(state: Any) -> bool:
    return state.phase == Phase.SNAP and len(state.to_act()) > 1


CASES = [
    # game, players, options, "inside the step we want", the answer every seat gives there
    ("dot", 2, {}, lambda s: len(s.to_act()) > 1, None),
    ("great_dalmuti", 4, {"hands": 1},
     lambda s: s.phase == "revolution" and len(s.to_act()) > 1, {"type": "no"}),
    ("dutch", 3, {"rounds": 3}, _dutch_snap, {"type": "pass"}),
]


def _state(match_id: int) -> Any:
    return load_state(Match.objects.get(pk=match_id))


def _drive_until(match_id: int, clients: list[Any], deciders: list[Any],
                 wanted: Callable[[Any], bool], limit: int = 2000) -> None:
    """Play (every asked seat answers, as the heuristic bot would) until ``wanted(state)``."""
    for _ in range(limit):
        state = _state(match_id)
        assert not state.is_over, "the match ended before the step we wanted"
        if wanted(state):
            return
        for seat in state.to_act():
            body = poll(clients[seat], match_id, seat).json()
            if body["your_turn"]:
                action = deciders[seat].choose(body["view"], body["legal_actions"])
                assert act(clients[seat], match_id, seat, body["version"], action).status_code == 200
    pytest.fail("never reached the step")


@pytest.mark.parametrize("game_id, players, options, wanted, answer", CASES,
                         ids=[case[0] for case in CASES])
def test_every_seat_of_a_simultaneous_step_answers_with_the_version_it_polled(
        game_id, players, options, wanted, answer, make_user, client_for, alice, bob) -> None:
    users = [alice, bob] + [make_user(f"player{i}") for i in range(2, players)]
    clients = [client_for(user) for user in users]
    deciders = [get_game(game_id).make_bot("heuristic", seat, 3) for seat in range(players)]
    created = clients[0].post("/api/matches/", {"game": game_id, "players": players,
                                                "options": options, "seed": 11}, format="json")
    match_id = created.json()["id"]
    for client in clients[1:]:
        assert client.post(url(match_id, "join"), format="json").status_code == 200
    _drive_until(match_id, clients, deciders, wanted)

    step = _state(match_id).to_act()
    polled = {seat: poll(clients[seat], match_id, seat).json() for seat in step}
    versions = {body["version"] for body in polled.values()}
    assert len(versions) == 1 and all(body["your_turn"] for body in polled.values())
    version = versions.pop()
    actions = {seat: answer or body["legal_actions"][0] for seat, body in polled.items()}

    first, *others = step
    answered = act(clients[first], match_id, first, version, actions[first])
    assert answered.status_code == 200, answered.json()
    assert answered.json()["applied_version"] == version
    if others:  # the step goes on: the first seat is no longer asked, the others still are
        after = poll(clients[first], match_id, first).json()
        assert after["version"] > version and not after["your_turn"]
        assert poll(clients[others[0]], match_id, others[0]).json()["your_turn"]
    retry = act(clients[first], match_id, first, version, actions[first])
    assert retry.status_code == 200 and retry.json() == answered.json(), "a retry, same answer"
    for seat in others:
        response = act(clients[seat], match_id, seat, version, actions[seat])
        assert response.status_code == 200, (seat, response.json())
        assert response.json()["applied_version"] == version

    # Each seat applied exactly once for that version; the log has no gaps.
    applied = AppliedAction.objects.filter(match_id=match_id, version=version)
    assert sorted(applied.values_list("seat", flat=True)) == sorted(step)
    match = Match.objects.get(pk=match_id)
    entries = [e.n for e in log.entries(match.pk)]
    assert entries == list(range(match.version + 1))
    # A different answer for a version the seat already answered is stale, not a second move.
    other = next((a for a in polled[first]["legal_actions"] if a != actions[first]), None)
    if other is not None:
        changed = act(clients[first], match_id, first, version, other)
        assert changed.status_code == 409 and changed.json()["code"] == "stale_version"
        assert changed.json()["current_version"] == match.version
    assert AppliedAction.objects.filter(match_id=match_id, version=version).count() == len(step)


def test_an_answer_from_before_the_current_step_is_stale(make_match, alice, bob, alice_api,
                                                         bob_api) -> None:
    match = make_match("dot", [alice, bob], seed=4)
    state = _state(match.pk)
    assert state.to_act() == [0, 1]
    for seat, client in ((0, alice_api), (1, bob_api)):
        assert act(client, match, seat, 0, state.legal_actions(seat)[0]).status_code == 200
    match.refresh_from_db()
    assert match.step_version == match.version == 2, "both answered: a new step began"
    state = _state(match.pk)
    seat = state.to_act()[0]
    client = alice_api if seat == 0 else bob_api
    # Version 1 is inside the previous step (both answered for version 0): stale now.
    assert not AppliedAction.objects.filter(match=match, version=1).exists()
    response = act(client, match, seat, 1, state.legal_actions(seat)[0])
    assert response.status_code == 409
    assert response.json() == {"code": "stale_version", "current_version": 2,
                               "detail": response.json()["detail"]}
    assert act(client, match, seat, 2, state.legal_actions(seat)[0]).status_code == 200
