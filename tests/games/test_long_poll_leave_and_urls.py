"""Long-polling by version (no ETag needed), leaving a match before it starts, JSON 404 bodies for
any /api/ URL nothing answers, and what the stored state holds."""

from __future__ import annotations

import pytest

from games import log, selectors, services
from games.models import Match
from tests.helpers.matches import act, make_alice_move_while_waiting, poll, to_move, url

pytestmark = pytest.mark.django_db


# ---- ?wait=N&after=<version> -----------------------------------------------------------------


def test_wait_after_a_version_returns_as_soon_as_the_match_moves(duel, alice, bob_api,
                                                                 monkeypatch) -> None:
    make_alice_move_while_waiting(monkeypatch, duel.pk, alice)
    response = poll(bob_api, duel, 1, wait=5, after=0)
    assert response.status_code == 200
    assert response.json()["version"] == 1 and response.json()["your_turn"]


def test_wait_after_a_version_is_bounded_and_then_answers_the_current_view(
        duel, bob_api, monkeypatch, settings) -> None:
    settings.BLUFF_POLL_MAX_WAIT = 2
    slept: list[float] = []
    monkeypatch.setattr(selectors, "sleep", slept.append)
    clock = iter(range(1000))
    monkeypatch.setattr(selectors.time, "monotonic", lambda: next(clock) * 0.2)
    response = poll(bob_api, duel, 1, wait=60, after=0)
    assert response.status_code == 200 and response.json()["version"] == 0
    assert slept and sum(slept) <= 2.0, "the wait is capped by BLUFF_POLL_MAX_WAIT"


def test_wait_after_an_older_version_answers_at_once(duel, alice_api, bob_api,
                                                     monkeypatch) -> None:
    version, legal = to_move(alice_api, duel, 0)
    act(alice_api, duel, 0, version, legal[0])
    monkeypatch.setattr(selectors, "sleep", lambda s: pytest.fail("must not wait"))
    assert poll(bob_api, duel, 1, wait=30, after=0).json()["version"] == 1


def test_wait_after_wakes_when_an_open_match_starts(make_match, alice, bob, alice_api,
                                                    monkeypatch) -> None:
    match = make_match("dice_cup", [alice, None])
    monkeypatch.setattr(selectors, "sleep",
                        lambda s: services.match_join(match_id=match.pk, user=bob))
    body = poll(alice_api, match, 0, wait=5, after=0).json()
    assert body["status"] == "running" and body["version"] == 0


@pytest.mark.parametrize("after", ["x", -1])
def test_after_must_be_a_version(duel, alice_api, after) -> None:
    response = poll(alice_api, duel, 0, wait=1, after=after)
    assert response.status_code == 400 and response.json()["code"] == "invalid"


# ---- leave ------------------------------------------------------------------------------------


def test_a_player_may_leave_before_the_start(make_match, alice, bob, alice_api, bob_api,
                                             charlie_api, anon_api) -> None:
    match = make_match("dice_cup", [alice, None, None])
    assert bob_api.post(url(match, "join"), {"seat": 1}, format="json").status_code == 200
    etag = anon_api.get(url(match, "view")).headers["ETag"]
    assert anon_api.post(url(match, "leave")).status_code == 401
    outsider = charlie_api.post(url(match, "leave"))
    assert outsider.status_code == 409 and outsider.json()["code"] == "not_seated"
    left = bob_api.post(url(match, "leave"))
    assert left.status_code == 200, left.json()
    assert left.json()["your_seats"] == [] and left.json()["seats"][1]["open"]
    assert anon_api.get(url(match, "view"), HTTP_IF_NONE_MATCH=etag).status_code == 200
    assert bob_api.post(url(match, "leave")).json()["code"] == "not_seated"
    # The freed seat can be taken again; once the match runs, leaving is resigning.
    assert charlie_api.post(url(match, "join"), {"seat": 1}, format="json").status_code == 200
    assert bob_api.post(url(match, "join"), format="json").json()["status"] == "running"
    late = bob_api.post(url(match, "leave"))
    assert late.status_code == 409 and late.json()["code"] == "match_not_open"
    assert alice_api.post(url(999999, "leave")).json()["code"] == "match_not_found"


# ---- JSON 404 everywhere under /api/ ------------------------------------------------------------


@pytest.mark.parametrize("method, path", [
    ("get", "/api/matches/abc/"),
    ("get", "/api/matches/1/seats/x/"),
    ("post", "/api/matches/abc/seats/0/actions/"),
    ("get", "/api/nothing-here/"),
    ("delete", "/api/matches/1/log/extra"),
    ("get", "/api/"),
])
def test_unknown_api_urls_get_a_json_404(anon_api, alice_api, method, path) -> None:
    for client in (anon_api, alice_api):
        response = getattr(client, method)(path)
        assert response.status_code == 404
        assert response["Content-Type"].startswith("application/json")
        assert response.json()["code"] == "not_found" and path in response.json()["detail"]


def test_a_missing_trailing_slash_gets_a_hint(anon_api, duel) -> None:
    response = anon_api.get(f"/api/matches/{duel.pk}")
    assert response.status_code == 404 and "did you mean" in response.json()["detail"]


# ---- storage -----------------------------------------------------------------------------------


def test_the_stored_state_has_no_event_log_and_events_come_from_the_log(duel, alice_api,
                                                                        bob_api) -> None:
    version, legal = to_move(alice_api, duel, 0)
    act(alice_api, duel, 0, version, legal[0])
    match = Match.objects.get(pk=duel.pk)
    assert match.state["events"] == []
    entries = list(log.entries(match.pk))
    assert match.state["events_offset"] == entries[-1].event_count
    assert entries[-1].event_count == sum(len(e.events) for e in entries)
    # Polled events, with each seat's own private details only, equal the engine's.
    from games.engine import get_game

    state = get_game("dice_cup").new_match(players=2, seed=duel.seed, options=duel.options)
    state.apply(0, legal[0])
    for seat, client in ((0, alice_api), (1, bob_api)):
        for since in (0, 2, state.event_count - 1, state.event_count + 3):
            got = poll(client, duel, seat, events_since=since).json()["events"]
            assert got == state.events_since(since, seat), (seat, since)
    public = bob_api.get(url(duel, "view"), {"events_since": 1}).json()["events"]
    assert public == state.events_since(1)
