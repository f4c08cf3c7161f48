"""A match's ``strike_limit``: set at creation, shown, validated, and the strikes (deadlines,
out-of-process seats) that forfeit a seat at it; webhook bots are told it."""

from __future__ import annotations

from typing import Any

import pytest

from games import log, services
from games.models import Match, Seat
from games.seats import SeatAnswer, SeatSession, Table
from tests.helpers.matches import later, out_of_process_kind, url

pytestmark = pytest.mark.django_db


def test_strike_limit_is_set_at_creation_and_shown(alice_api, anon_api, settings) -> None:
    settings.BLUFF_MAX_STRIKES = 4
    default = alice_api.post("/api/matches/", {"game": "dot"}, format="json")
    assert default.status_code == 201 and default.json()["strike_limit"] == 4
    chosen = alice_api.post("/api/matches/", {"game": "dot", "strike_limit": 0}, format="json")
    assert chosen.status_code == 201 and chosen.json()["strike_limit"] == 0
    match_id = chosen.json()["id"]
    assert Match.objects.get(pk=match_id).strike_limit == 0
    assert anon_api.get(url(match_id)).json()["strike_limit"] == 0
    listed = anon_api.get("/api/matches/").json()["results"]
    assert {m["id"]: m["strike_limit"] for m in listed} == {default.json()["id"]: 4, match_id: 0}


@pytest.mark.parametrize("value", [-1, 1001, "x", None, 1.5])
def test_strike_limit_is_validated(alice_api, value) -> None:
    response = alice_api.post("/api/matches/", {"game": "dot", "strike_limit": value},
                              format="json")
    assert response.status_code == 400 and response.json()["code"] == "invalid"
    assert "strike_limit" in response.json()["fields"]
    assert not Match.objects.exists()


def _expire_all(match: Match, seat: int, rounds: int) -> Seat:
    for _ in range(rounds):
        current = Match.objects.get(pk=match.pk)
        if current.status != "running" or Seat.objects.get(match=match, number=seat).forfeited:
            break
        services.match_expire_deadlines(now=later(current))
    return Seat.objects.get(match=match, number=seat)


def test_a_strike_limit_of_one_forfeits_at_the_first_timeout(make_match, alice, bob,
                                                             settings) -> None:
    settings.BLUFF_MAX_STRIKES = 3
    match = make_match("dice_cup", [alice, bob], strike_limit=1)
    seat = _expire_all(match, 0, 1)
    assert seat.strikes == 1 and seat.forfeited
    [resign] = [e for e in log.entries(match.pk) if e.kind == "resign" and e.seat == 0]
    assert resign.action["reason"] == "timeouts"


def test_a_strike_limit_of_zero_never_forfeits(make_match, alice, bob, settings) -> None:
    settings.BLUFF_MAX_STRIKES = 1  # the setting is only the default of new matches
    match = make_match("dice_cup", [alice, bob], strike_limit=0)
    seat = _expire_all(match, 0, 8)
    assert seat.strikes >= 2 and not seat.forfeited
    assert not any(e.kind == "resign" for e in log.entries(match.pk))


class StrikingSeat(SeatSession):
    """An out-of-process seat that never answers in time: every answer is a strike."""

    def __init__(self) -> None:
        self.asked = 0

    def session(self, table: Table) -> StrikingSeat:
        return self

    def ask(self, state: Any, seats: list[int], version: int) -> dict[int, SeatAnswer]:
        self.asked += 1
        return {n: SeatAnswer(strike="timeout", detail="too slow") for n in seats}


@pytest.fixture
def striking_kind() -> Any:
    yield from out_of_process_kind("striking", StrikingSeat())


@pytest.mark.parametrize("limit, forfeited", [(2, True), (0, False)])
def test_out_of_process_strikes_count_against_the_match_strike_limit(
        alice, striking_kind, settings, limit, forfeited) -> None:
    settings.BLUFF_MAX_STRIKES = 1
    match = services.match_create(
        game="dice_cup", created_by=alice, seed=1, strike_limit=limit,
        seats=[{"kind": "striking", "bot": "x"}, {"kind": "reference", "bot": "random"}])
    services.match_advance_automatic_seats(match_id=match.pk)
    match = Match.objects.get(pk=match.pk)
    seat = Seat.objects.get(match=match, number=0)
    assert match.status == "finished"
    assert seat.forfeited is forfeited
    if forfeited:
        assert seat.strikes == limit and striking_kind.asked == limit
        [resign] = [e for e in log.entries(match.pk) if e.kind == "resign"]
        assert resign.action["reason"] == "strikes"
    else:
        assert seat.strikes == striking_kind.asked > limit


def test_webhook_bots_are_told_the_match_strike_limit(make_match, alice) -> None:
    from bots.webhook import match_info
    from games.services.store import table_of

    for limit, told in ((2, 2), (0, None)):
        match = make_match("dice_cup", [alice, "bot:random"], strike_limit=limit)
        match = Match.objects.prefetch_related("seats").get(pk=match.pk)
        assert match_info(table_of(match), {}).strike_limit == told
