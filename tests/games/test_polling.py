"""games.apis.polling: the cheap conditional poll (one small query, no state) and the public
view's long poll (``?wait=N``, ``after=``)."""

from __future__ import annotations

from typing import Any

import pytest

from games import selectors, services
from games.models import Match, Seat
from games.states import load_state
from tests.helpers.matches import act, make_alice_move_while_waiting, poll, to_move, url

pytestmark = pytest.mark.django_db


# ---- the 304 path ------------------------------------------------------------------------------


def test_a_304_poll_costs_the_token_and_one_small_query(duel, bob_api,
                                                        django_assert_num_queries) -> None:
    etag = poll(bob_api, duel, 1).headers["ETag"]
    with django_assert_num_queries(2) as captured:  # the token, then the poll key
        response = bob_api.get(url(duel, "seats", 1), HTTP_IF_NONE_MATCH=etag)
    assert response.status_code == 304 and response.headers["ETag"] == etag
    key_sql = captured.captured_queries[-1]["sql"].lower()
    assert "state" not in key_sql and "join" in key_sql, "no stored state, one joined row"


def test_the_raw_poll_row_is_what_the_orm_reads(duel, alice_api) -> None:
    version, legal = to_move(alice_api, duel, 0)
    act(alice_api, duel, 0, version, legal[0])
    for seat in (0, 1):
        raw = selectors.seat_poll_row(match_id=duel.pk, seat_number=seat)
        orm = Seat.objects.select_related("match").get(match=duel, number=seat)
        assert raw.key == selectors.PollKey(orm.user_id, orm.match.version, orm.match.status,
                                            orm.match.updated_at)
        assert (raw.game, raw.deadline, raw.strikes, raw.forfeited) == (
            orm.match.game, orm.match.deadline, orm.strikes, orm.forfeited)
        assert raw.key.updated_at.tzinfo is not None and raw.deadline.tzinfo is not None
    public = selectors.seat_poll_key(match_id=duel.pk, seat_number=None)
    assert public.user_id is None and public.version == Match.objects.get(pk=duel.pk).version


def test_a_200_poll_of_a_cached_state_costs_the_token_and_one_query(
        duel, bob_api, django_assert_num_queries) -> None:
    poll(bob_api, duel, 1)  # loads the state into this process's cache
    with django_assert_num_queries(2) as captured:  # the token, then the seat row
        response = bob_api.get(url(duel, "seats", 1))
    assert response.status_code == 200 and response.json()["seat"] == 1
    assert "state" not in captured.captured_queries[-1]["sql"].lower()


def test_the_conditional_path_still_checks_owner_and_existence(duel, alice_api, bob_api,
                                                               charlie_api) -> None:
    etag = poll(bob_api, duel, 1).headers["ETag"]
    outsider = charlie_api.get(url(duel, "seats", 1), HTTP_IF_NONE_MATCH=etag)
    assert outsider.status_code == 403 and outsider.json()["code"] == "not_your_seat"
    other_seat = alice_api.get(url(duel, "seats", 1), HTTP_IF_NONE_MATCH=etag)
    assert other_seat.status_code == 403
    missing_seat = bob_api.get(url(duel, "seats", 7), HTTP_IF_NONE_MATCH=etag)
    assert missing_seat.status_code == 404 and missing_seat.json()["code"] == "seat_not_found"
    missing = bob_api.get(url(999999, "seats", 1), HTTP_IF_NONE_MATCH=etag)
    assert missing.status_code == 404 and missing.json()["code"] == "match_not_found"
    stale = bob_api.get(url(duel, "seats", 1), HTTP_IF_NONE_MATCH='"0.open.1.1.1.-"')
    assert stale.status_code == 200 and stale.headers["ETag"] == etag


def _fake_clock(monkeypatch: Any) -> list[float]:
    slept: list[float] = []
    monkeypatch.setattr(selectors, "sleep", slept.append)
    clock = iter(range(1000))
    monkeypatch.setattr(selectors.time, "monotonic", lambda: next(clock) * 0.2)
    return slept


def test_public_view_long_poll_waits_then_answers_304(duel, anon_api, monkeypatch,
                                                      settings) -> None:
    settings.BLUFF_POLL_MAX_WAIT = 2
    slept = _fake_clock(monkeypatch)
    etag = anon_api.get(url(duel, "view")).headers["ETag"]
    response = anon_api.get(url(duel, "view") + "?wait=60", HTTP_IF_NONE_MATCH=etag)
    assert response.status_code == 304 and response.headers["ETag"] == etag
    assert slept and sum(slept) <= 2.0, "the wait is capped by BLUFF_POLL_MAX_WAIT"


def test_public_view_long_poll_returns_as_soon_as_the_match_moves(duel, alice, bob, anon_api,
                                                                  monkeypatch) -> None:
    def someone_moves(seconds: float) -> None:
        match = Match.objects.get(pk=duel.pk)
        state = load_state(match)
        seat = state.to_act()[0]
        services.match_submit_action(match_id=duel.pk, seat_number=seat,
                                     user=(alice, bob)[seat], version=match.version,
                                     action=state.legal_actions(seat)[0])

    monkeypatch.setattr(selectors, "sleep", someone_moves)
    etag = anon_api.get(url(duel, "view")).headers["ETag"]
    by_etag = anon_api.get(url(duel, "view") + "?wait=5", HTTP_IF_NONE_MATCH=etag)
    assert by_etag.status_code == 200 and by_etag.json()["version"] == 1
    assert by_etag.headers["ETag"] != etag
    by_version = anon_api.get(url(duel, "view"), {"wait": 5, "after": 1})
    assert by_version.status_code == 200 and by_version.json()["version"] == 2


def test_public_view_wait_after_is_bounded_and_answers_the_current_view(
        duel, anon_api, monkeypatch, settings) -> None:
    settings.BLUFF_POLL_MAX_WAIT = 1
    slept = _fake_clock(monkeypatch)
    response = anon_api.get(url(duel, "view"), {"wait": 30, "after": 0, "events_since": 0})
    assert response.status_code == 200 and response.json()["version"] == 0
    assert response.json()["events"] and 0 < sum(slept) <= 1.0


def test_public_view_wait_without_etag_or_after_answers_at_once(duel, anon_api,
                                                                monkeypatch) -> None:
    monkeypatch.setattr(selectors, "sleep", lambda s: pytest.fail("must not wait"))
    assert anon_api.get(url(duel, "view"), {"wait": 30}).status_code == 200
    assert anon_api.get(url(duel, "view"), {"wait": 30, "events_since": 0}).status_code == 200


@pytest.mark.parametrize("query", [{"wait": -1}, {"wait": "x"}, {"wait": 1, "after": -1},
                                   {"wait": 4000}])
def test_public_view_refuses_bad_wait(duel, anon_api, query) -> None:
    response = anon_api.get(url(duel, "view"), query)
    assert response.status_code == 400 and response.json()["code"] == "invalid"


def test_public_view_wait_on_a_missing_match_is_404(anon_api, db) -> None:
    response = anon_api.get(url(999999, "view"), {"wait": 5, "after": 0})
    assert response.status_code == 404 and response.json()["code"] == "match_not_found"


def test_schema_documents_the_public_long_poll_and_the_strike_limit(anon_api) -> None:
    schema = anon_api.get("/api/schema/", HTTP_ACCEPT="application/json").json()
    view = schema["paths"]["/api/matches/{match_id}/view/"]["get"]
    names = {p["name"] for p in view["parameters"]}
    assert {"wait", "after", "events_since", "If-None-Match"} <= names
    assert "304" in view["responses"]
    components = schema["components"]["schemas"]
    create = components["MatchListCreateInputRequest"]["properties"]["strike_limit"]
    assert create["minimum"] == 0 and "0 = never" in create["description"]
    assert "strike_limit" in components["MatchOutput"]["required"]


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
