"""Entrant kinds are the seat-kind registry's (games.seats), not a fixed three: a kind registered
here, as another app would from its AppConfig.ready(), plays a tournament (its standings, the
game's leaderboard and page), a league night and joins a league, is offered by the organise
form and shown by the admin, with nothing in tournaments/ naming it; any other kind is a 400
naming the kinds there are."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.test import Client
from rest_framework.test import APIClient

from games.seats import (
    SeatAnswer,
    SeatKind,
    SeatSession,
    Table,
    register_seat_kind,
    unregister_seat_kind,
)
from tests.helpers import leagues
from tournaments.leagues import nights
from tournaments.models import Hand, LeaderboardEntry, Member, Participant

from .conftest import REFERENCE

pytestmark = pytest.mark.django_db(transaction=True)  # nights start in on_commit callbacks

HOUSE_BOTS = ("croupier", "dealer")
KNOWN = "(known: player, reference, webhook)"


class HouseSession(SeatSession):
    """The house's bots take the first legal action, in-process."""

    def ask(self, state: Any, seats: Sequence[int], version: int) -> dict[int, SeatAnswer]:
        return {n: SeatAnswer(action=state.legal_actions(n)[0]) for n in seats}


class HouseSeat:
    def session(self, table: Table) -> HouseSession:
        return HouseSession()


def check_house_bot(game: str, bot: str, user: object) -> None:
    if bot not in HOUSE_BOTS:
        raise ValueError(f"no house bot {bot!r}")


@pytest.fixture
def house() -> Iterator[str]:
    """The ``house`` kind, registered as an app would (games.seats), removed afterwards."""
    register_seat_kind(SeatKind(
        name="house", automatic=HouseSeat(), check_bot=check_house_bot, label="house bot",
        bot_choices=lambda game, user: [(bot, f"{bot} (house)") for bot in HOUSE_BOTS]))
    yield "house"
    unregister_seat_kind("house")


def tournament(client: APIClient, participants: list[dict[str, Any]]) -> Any:
    return client.post("/api/tournaments/", {
        "name": "house cup", "game": "dice_cup", "participants": participants,
        "table_size": 2, "meetings": 2, "seed": 5}, format="json")


def test_a_registered_kind_plays_a_tournament_and_is_on_the_leaderboard(
        house, alice_api, anon_api, inline_tasks) -> None:
    answer = tournament(alice_api, [{"kind": "house", "bot": "croupier"}, *REFERENCE])
    assert answer.status_code == 201, answer.json()
    body = answer.json()
    assert body["status"] == "finished" and body["progress"]["finished"] == 6
    assert [(p["kind"], p["bot"], p["label"]) for p in body["participants"]] == [
        ("house", "croupier", "house croupier"), ("reference", "heuristic", "reference heuristic"),
        ("reference", "random", "reference random")]
    standings = anon_api.get(f"/api/tournaments/{body['id']}/standings/").json()
    assert sorted(row["kind"] for row in standings) == ["house", "reference", "reference"]
    assert all(row["matches"] == 4 for row in standings)
    entry = LeaderboardEntry.objects.get(game="dice_cup", kind="house")
    assert entry.ref == "croupier" and entry.matches == 4
    entry.full_clean()
    board = anon_api.get("/api/ratings/dice_cup/").json()
    assert {(row["kind"], row["name"]) for row in board} == {
        ("house", "house croupier"), ("reference", "heuristic (reference bot)"),
        ("reference", "random (reference bot)")}
    assert "house croupier" in Client().get("/games/dice_cup/").content.decode()

    unregister_seat_kind("house")  # its app is gone: what was played still reads
    assert anon_api.get("/api/ratings/dice_cup/").json() == board
    assert anon_api.get(f"/api/tournaments/{body['id']}/").status_code == 200
    with pytest.raises(ValidationError, match=r"unknown entrant kind 'house' \(known: "):
        Participant.objects.get(kind="house").full_clean()


def test_a_registered_kind_plays_a_league_night_and_joins_a_league(
        house, alice_api, anon_api, inline_tasks) -> None:
    members = [{"kind": "house", "bot": "croupier", "name": "the house"}, *leagues.refs(4)]
    created = leagues.create(alice_api, members=members)
    assert created.status_code == 201, created.json()
    league = created.json()
    assert (league["members"][0]["kind"], league["members"][0]["bot"],
            league["members"][0]["label"]) == ("house", "croupier", "the house")
    assert leagues.schedule_now(alice_api, league["id"]).status_code == 201
    assert nights.nights_start_due() == 1
    night = anon_api.get(f"{leagues.URL}{league['id']}/nights/").json()["results"][0]
    assert night["status"] == "finished", night["reason"]
    assert night["hands"] == 3 and [sorted(table) for table in night["tables"]] == [
        [0, 1, 2, 3, 4]]
    hands = Hand.objects.filter(night__league_id=league["id"])
    assert hands.count() == 3 and all(0 in hand.seats for hand in hands)
    assert all(hand.match.seats.get(number=hand.seats.index(0)).kind == "house"
               for hand in hands)

    joined = alice_api.post(f"{leagues.URL}{league['id']}/members/",
                            {"kind": "house", "bot": "dealer"}, format="json")
    assert joined.status_code == 201, joined.json()
    assert (joined.json()["kind"], joined.json()["bot"]) == ("house", "dealer")
    Member.objects.get(league_id=league["id"], bot="dealer").full_clean()
    refused = alice_api.post(f"{leagues.URL}{league['id']}/members/",
                             {"kind": "house", "bot": "bouncer"}, format="json")
    assert refused.status_code == 400 and refused.json()["code"] == "bad_league"
    assert "no house bot 'bouncer'" in refused.json()["detail"]


def test_the_organise_form_offers_its_bots_and_the_admin_names_it(house, alice, client,
                                                                  django_user_model,
                                                                  inline_tasks) -> None:
    client.force_login(alice)
    form = client.get("/tournaments/new/?game=dice_cup").content.decode()
    assert 'value="house:croupier"' in form and "croupier (house)" in form
    answer = client.post("/tournaments/new/?game=dice_cup", {
        "name": "Friday cup", "reference_heuristic": "1", "reference_random": "0",
        "bots": ["house:croupier", "house:dealer"], "format": "round_robin", "meetings": "1",
        "table_size": "2"})
    assert answer.status_code == 302, answer.content.decode()
    created = Participant.objects.order_by("index")
    assert [(p.kind, p.bot) for p in created] == [("reference", "heuristic"),
                                                  ("house", "croupier"), ("house", "dealer")]

    client.force_login(django_user_model.objects.create_superuser("root", "r@example.com", "pw"))
    page = client.get(f"/admin/tournaments/tournament/{created[0].tournament_id}/change/")
    assert page.status_code == 200
    html = page.content.decode()
    assert html.count("house bot") == 2 and "reference bot" in html


def unknown(kind: str) -> str:
    return f"unknown entrant kind {kind!r} {KNOWN}"


def test_an_unknown_kind_is_a_400_naming_the_kinds_there_are(alice_api, anon_api) -> None:
    answer = tournament(alice_api, [{"kind": "alien", "bot": "x"}, *REFERENCE])
    assert answer.status_code == 400 and answer.json()["code"] == "invalid"
    assert unknown("alien") in answer.json()["detail"]
    assert answer.json()["fields"] == {"participants": {"0": {"kind": [unknown("alien")]}}}

    house = tournament(alice_api, [{"kind": "house", "bot": "croupier"}, *REFERENCE])
    assert house.status_code == 400 and unknown("house") in house.json()["detail"], \
        "unregistered: refused as any other"

    league = leagues.create(alice_api, members=[{"kind": "alien"}, *leagues.refs(4)])
    assert league.status_code == 400 and league.json()["code"] == "invalid"
    assert unknown("alien") in league.json()["detail"]
    made = leagues.create(alice_api).json()
    joined = alice_api.post(f"{leagues.URL}{made['id']}/members/", {"kind": "alien"},
                            format="json")
    assert joined.status_code == 400 and joined.json() == {
        "code": "invalid", "detail": f"kind: {unknown('alien')}",
        "fields": {"kind": [unknown("alien")]}}

    with pytest.raises(ValidationError, match=r"unknown entrant kind 'alien' \(known: "):
        Participant(kind="alien").clean_fields(exclude=["tournament", "name"])


def test_the_schema_lists_the_registry_s_kinds(anon_api) -> None:
    def kinds() -> dict[str, Any]:
        schema = anon_api.get("/api/schema/", {"format": "json"}).json()
        assert not [name for name in schema["components"]["schemas"]
                    if name.startswith("Kind") and name != "KindEnum"], "one enum of kinds"
        return schema["components"]["schemas"]["KindEnum"]

    assert kinds()["enum"] == ["player", "reference", "webhook"]
    register_seat_kind(SeatKind(name="house", check_bot=check_house_bot, label="house bot"))
    try:  # registered after the schema's serializers were made: they read it anew
        assert kinds()["enum"] == ["player", "reference", "webhook", "house"]
        assert "`house` - house bot" in kinds()["description"]
    finally:
        unregister_seat_kind("house")
