"""Tournaments open for entries, through the API: alice organises, bob enters his bot or
himself, charlie is someone else; the refusals (closed, full, entered twice, the wrong game,
not your bot, started), leaving before the start, and the start that plans the schedule for
those entered (or cancels the tournament with too few)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from bots.models import Bot
from tournaments.models import Participant, Tournament, TournamentMatch
from tournaments.services import tournament_start

from .conftest import REFERENCE

pytestmark = pytest.mark.django_db

URL = "/api/tournaments/"


def later() -> str:
    return (timezone.now() + timedelta(hours=1)).isoformat()


def open_one(client: APIClient, **overrides: Any) -> dict[str, Any]:
    """An open round robin of dice cup starting in an hour, none entered yet."""
    body = {"name": "open cup", "game": "dice_cup", "participants": [], "open_entries": True,
            "starts_at": later(), **overrides}
    response = client.post(URL, body, format="json")
    assert response.status_code == 201, response.json()
    return response.json()


def a_bot(owner: Any, game: str = "dice_cup", *, public: bool = True) -> Bot:
    return Bot.objects.create(owner=owner, name=f"bot{Bot.objects.count()}",
                              url="https://bot.example/", secret="whsec_x", handshake_ok=True,
                              games=[game], public=public)


def enter(client: APIClient, tournament: dict[str, Any], **body: Any) -> Any:
    return client.post(f"{URL}{tournament['id']}/entries/", body, format="json")


def test_an_open_tournament_waits_for_entries_without_a_schedule(alice_api) -> None:
    made = open_one(alice_api)
    assert made["entries_open"] is True and made["entry_cap"] is None
    assert made["status"] == "scheduled" and made["participant_count"] == 0
    assert made["table_size"] == 2, "the game's smallest table: any number fills it"
    assert made["balance"] is None and made["progress"]["total"] == 0
    assert not TournamentMatch.objects.exists()


@pytest.mark.parametrize("overrides, words", [
    ({"starts_at": None}, "starts_at is needed in the future"),
    ({"entry_cap": 1}, "entry_cap"),
    ({"open_entries": False, "entry_cap": 4, "participants": REFERENCE}, "open_entries"),
    ({"entry_cap": 2, "participants": [*REFERENCE, REFERENCE[0]]}, "over the entry_cap of 2"),
])
def test_opening_refuses_what_cannot_work(alice_api, overrides, words) -> None:
    body = {"name": "open cup", "game": "dice_cup", "participants": [], "open_entries": True,
            "starts_at": later(), **overrides}
    body = {key: value for key, value in body.items() if value is not None}
    response = alice_api.post(URL, body, format="json")
    assert response.status_code == 400, response.json()
    assert words in response.json()["detail"]
    assert not Tournament.objects.exists()


def test_a_bot_owner_enters_a_bot_and_a_person_enters_themself(alice_api, bob, bob_api,
                                                               charlie_api) -> None:
    made = open_one(alice_api, participants=[REFERENCE[0]])
    bot = a_bot(bob)
    response = enter(bob_api, made, kind="webhook", bot=bot.pk)
    assert response.status_code == 201, response.json()
    assert response.json()["index"] == 1 and response.json()["bot"] == bot.pk
    assert response.json()["name"] == f"{bot.name} (bob)"
    response = enter(charlie_api, made)  # kind player by default
    assert response.status_code == 201, response.json()
    assert (response.json()["index"], response.json()["user"]) == (2, "charlie")
    detail = alice_api.get(f"{URL}{made['id']}/").json()
    assert [(p["kind"], p["user"]) for p in detail["participants"]] == [
        ("reference", None), ("webhook", None), ("player", "charlie")]


@pytest.mark.parametrize("case, status, code, words", [
    ("someone else's bot", 403, "not_your_bot", "not yours"),
    ("another game", 400, "bad_entry", "does not play dice_cup"),
    ("private bot, another's tournament", 400, "bad_entry", "private"),
    ("twice", 400, "already_entered", "entered already (participant 0); to enter again"),
    ("full", 400, "tournament_full", "full (2 of 2"),
    ("closed", 400, "entries_closed", "not open for entries"),
    ("started", 409, "tournament_started", "entries closed when it started"),
    ("no such tournament", 404, "tournament_not_found", "No such tournament"),
    ("a reference bot", 400, "bad_entry", "only the organiser enters one"),
])
def test_an_entry_is_refused_naming_the_fix(alice, alice_api, bob, bob_api, charlie, case,
                                            status, code, words) -> None:
    made = open_one(alice_api)
    body: dict[str, Any] = {"kind": "webhook", "bot": a_bot(bob).pk}
    if case == "someone else's bot":
        body["bot"] = a_bot(charlie).pk
    elif case == "another game":
        body["bot"] = a_bot(bob, "dtc").pk
    elif case == "private bot, another's tournament":
        body["bot"] = a_bot(bob, public=False).pk
    elif case == "twice":
        assert enter(bob_api, made, **body).status_code == 201
    elif case == "full":
        made = open_one(alice_api, entry_cap=2, participants=REFERENCE)
    elif case == "closed":
        Tournament.objects.filter(pk=made["id"]).update(entries_open=False)
    elif case == "started":
        Tournament.objects.filter(pk=made["id"]).update(status="running")
    elif case == "no such tournament":
        made = {"id": made["id"] + 1000}
    elif case == "a reference bot":
        body = {"kind": "reference", "bot": "random"}
    before = Participant.objects.count()
    response = enter(bob_api, made, **body)
    assert response.status_code == status, response.json()
    assert response.json()["code"] == code and words in response.json()["detail"]
    assert Participant.objects.count() == before


def test_an_organisers_own_private_bot_may_enter_their_tournament(alice, alice_api) -> None:
    made = open_one(alice_api)
    assert enter(alice_api, made, kind="webhook", bot=a_bot(alice, public=False).pk
                 ).status_code == 201


def test_an_open_tournament_needs_no_participants_and_is_listed_as_taking_entries(
        alice_api, anon_api) -> None:
    body = {"name": "empty cup", "game": "dice_cup", "open_entries": True,
            "starts_at": later()}
    made = alice_api.post(URL, body, format="json")
    assert made.status_code == 201, made.json()
    closed = alice_api.post(URL, {"name": "cup", "game": "dice_cup",
                                  "participants": REFERENCE}, format="json")
    assert closed.status_code == 201
    assert [t["id"] for t in anon_api.get(URL + "?taking_entries=true").json()["results"]] == [
        made.json()["id"]]
    assert [t["id"] for t in anon_api.get(URL + "?taking_entries=false").json()["results"]] == [
        closed.json()["id"]]
    assert len(anon_api.get(URL).json()["results"]) == 2, "absent: no filter"


def test_the_organiser_takes_out_a_persons_entry_and_no_one_else_does(
        alice_api, bob_api, charlie_api) -> None:
    made = open_one(alice_api)
    assert enter(bob_api, made).status_code == 201
    refused = charlie_api.delete(f"{URL}{made['id']}/entries/?user=bob")
    assert refused.status_code == 403 and refused.json()["code"] == "not_your_tournament"
    assert Participant.objects.count() == 1
    assert alice_api.delete(f"{URL}{made['id']}/entries/?user=bob").status_code == 204
    assert not Participant.objects.exists()
    gone = alice_api.delete(f"{URL}{made['id']}/entries/?user=bob").json()
    assert gone["code"] == "not_entered" and gone["detail"].startswith("bob is not entered")


def test_entering_needs_a_token(alice_api, anon_api) -> None:
    made = open_one(alice_api)
    assert enter(anon_api, made).status_code == 401


def test_leaving_before_the_start_closes_the_gap(alice_api, bob, bob_api, charlie_api) -> None:
    made = open_one(alice_api, participants=REFERENCE)
    bot = a_bot(bob)
    assert enter(bob_api, made, kind="webhook", bot=bot.pk).status_code == 201
    assert enter(charlie_api, made).status_code == 201
    leave = bob_api.delete(f"{URL}{made['id']}/entries/?kind=webhook&bot={bot.pk}")
    assert leave.status_code == 204
    detail = alice_api.get(f"{URL}{made['id']}/").json()
    assert [(p["index"], p["user"]) for p in detail["participants"]] == [
        (0, None), (1, None), (2, "charlie")]
    assert bob_api.delete(f"{URL}{made['id']}/entries/").json()["code"] == "not_entered"
    assert charlie_api.delete(f"{URL}{made['id']}/entries/").status_code == 204
    assert alice_api.get(f"{URL}{made['id']}/").json()["participant_count"] == 2


def test_no_one_leaves_once_it_has_started(alice_api, charlie_api) -> None:
    made = open_one(alice_api)
    assert enter(charlie_api, made).status_code == 201
    Tournament.objects.filter(pk=made["id"]).update(status="running")
    response = charlie_api.delete(f"{URL}{made['id']}/entries/")
    assert response.status_code == 409 and response.json()["code"] == "tournament_started"
    assert Participant.objects.count() == 1


def test_leaving_with_someone_elses_bot_is_refused(alice_api, bob, bob_api, charlie_api
                                                   ) -> None:
    made = open_one(alice_api)
    bot = a_bot(bob)
    assert enter(bob_api, made, kind="webhook", bot=bot.pk).status_code == 201
    response = charlie_api.delete(f"{URL}{made['id']}/entries/?kind=webhook&bot={bot.pk}")
    assert response.status_code == 403 and response.json()["code"] == "not_your_bot"
    assert alice_api.delete(f"{URL}{made['id']}/entries/?kind=webhook&bot={bot.pk}"
                            ).status_code == 204, "the organiser takes out any entry"


def test_the_start_plans_the_schedule_for_those_entered(alice_api, bob_api,
                                                        charlie_api) -> None:
    made = open_one(alice_api, participants=REFERENCE, meetings=2)
    assert enter(bob_api, made).status_code == 201
    assert enter(charlie_api, made).status_code == 201
    assert tournament_start(tournament_id=made["id"])
    detail = alice_api.get(f"{URL}{made['id']}/").json()
    assert detail["status"] == "running"
    assert detail["progress"]["total"] == 12, "4 entrants, each pair twice"
    assert detail["balance"]["pair_meetings_min"] == 2
    seated = {i for row in TournamentMatch.objects.all() for i in row.seats}
    assert seated == {0, 1, 2, 3}
    assert enter(bob_api, made).json()["code"] == "tournament_started"


def test_a_start_with_too_few_entries_cancels_it_saying_why(alice_api) -> None:
    made = open_one(alice_api, participants=REFERENCE[:1])
    assert not tournament_start(tournament_id=made["id"])
    detail = alice_api.get(f"{URL}{made['id']}/").json()
    assert detail["status"] == "cancelled"
    assert detail["reason"].startswith("1 participant entered by the start")
    assert not TournamentMatch.objects.exists()


def test_the_schema_documents_entries(anon_api) -> None:
    schema = anon_api.get("/api/schema/?format=json").json()
    path = schema["paths"]["/api/tournaments/{tournament_id}/entries/"]
    assert set(path) >= {"post", "delete"}
    assert {"400", "403", "404", "409"} <= set(path["post"]["responses"])
    codes = str(path["post"]["responses"]["400"])
    for code in ("entries_closed", "tournament_full", "already_entered", "bad_entry"):
        assert code in codes
