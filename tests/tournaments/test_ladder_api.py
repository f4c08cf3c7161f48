"""The ladder's API (docs/ladder.md): every game's ladder, a ladder's standings in cursor
pages, and a bot owner opting a webhook bot in and out (403 for someone else's, 404 for none,
400 for a bot no match may seat, with what to do)."""

from __future__ import annotations

import math
from typing import Any

import pytest
from django.utils import timezone

from bots.models import Bot
from bots.signing import new_secret
from tests.helpers.tasks import hold_tasks
from tournaments.ladders import services
from tournaments.models import Ladder, LadderEntry, LeaderboardEntry

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def held(monkeypatch: Any) -> list[tuple[Any, ...]]:
    """No worker: a join's queued advance is recorded, never run."""
    return hold_tasks(monkeypatch, "tournaments.")


def webhook_bot(owner: Any, name: str = "dice bot", **fields: Any) -> Bot:
    defaults = {"url": "https://bot.example/", "secret": new_secret(), "games": ["dice_cup"],
                "handshake_ok": True, "public": True}
    return Bot.objects.create(owner=owner, name=name, **{**defaults, **fields})


def entries_url(game: str = "dice_cup") -> str:
    return f"/api/ladders/{game}/entries/"


def test_an_owner_opts_a_bot_in_and_out(alice: Any, alice_api: Any, held: Any) -> None:
    bot = webhook_bot(alice)
    response = alice_api.post(entries_url(), {"bot": bot.pk}, format="json")
    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["game"], body["kind"], body["bot"], body["left_at"], body["paused"]) == (
        "dice_cup", "webhook", bot.pk, None, False)
    ladder = Ladder.objects.get(game="dice_cup")
    assert body["burst_left"] == ladder.burst and ladder.seats == 2
    assert ("tournaments.advance", "ladder", ladder.pk) in held
    again = alice_api.post(entries_url(), {"bot": bot.pk}, format="json")
    assert again.status_code == 200 and again.json()["entry"] == body["entry"], "on already"

    left = alice_api.delete(f"{entries_url()}{bot.pk}/")
    assert left.status_code == 200 and left.json()["left_at"] is not None
    assert alice_api.delete(f"{entries_url()}{bot.pk}/").json()["code"] == "not_on_ladder"
    back = alice_api.post(entries_url(), {"bot": bot.pk}, format="json")
    assert back.status_code == 201 and back.json()["left_at"] is None


@pytest.mark.parametrize("case, status, code, words", [
    ("someone else's bot", 403, "not_your_bot", "not yours"),
    ("no such bot", 404, "bot_not_found", "no webhook bot"),
    ("no such game", 404, "game_not_found", "no game 'chess'"),
    ("private bot", 400, "bad_ladder_entry", "private"),
    ("disabled bot", 400, "bad_ladder_entry", "disabled"),
    ("another game's bot", 400, "bad_ladder_entry", "does not play dice_cup"),
    ("no bot given", 400, "invalid", "bot"),
    ("an unknown key", 400, "invalid", "unknown field"),
])
def test_a_join_is_refused_with_a_reason(alice: Any, bob: Any, alice_api: Any, case: str,
                                         status: int, code: str, words: str) -> None:
    game, body = "dice_cup", None
    if case == "someone else's bot":
        body = {"bot": webhook_bot(bob).pk}
    elif case == "no such bot":
        body = {"bot": 999999}
    elif case == "no such game":
        game, body = "chess", {"bot": webhook_bot(alice).pk}
    elif case == "private bot":
        body = {"bot": webhook_bot(alice, public=False).pk}
    elif case == "disabled bot":
        body = {"bot": webhook_bot(alice, enabled=False).pk}
    elif case == "another game's bot":
        body = {"bot": webhook_bot(alice, games=["dtc"]).pk}
    elif case == "no bot given":
        body = {}
    elif case == "an unknown key":
        body = {"bot": webhook_bot(alice).pk, "bott": 1}
    response = alice_api.post(entries_url(game), body, format="json")
    assert response.status_code == status, response.content
    assert response.json()["code"] == code and words in str(response.json()), response.json()
    assert not LadderEntry.objects.exists()


def test_joining_and_leaving_need_a_token_and_your_own_bot(alice: Any, bob: Any,
                                                           anon_api: Any, bob_api: Any,
                                                           alice_api: Any) -> None:
    bot = webhook_bot(alice)
    assert anon_api.post(entries_url(), {"bot": bot.pk}, format="json").status_code == 401
    alice_api.post(entries_url(), {"bot": bot.pk}, format="json")
    assert anon_api.delete(f"{entries_url()}{bot.pk}/").status_code == 401
    response = bob_api.delete(f"{entries_url()}{bot.pk}/")
    assert response.status_code == 403 and response.json()["code"] == "not_your_bot"
    assert LadderEntry.objects.get().left_at is None


def rated(entry: LadderEntry, mu: float, sigma: float, matches: int = 5) -> None:
    LeaderboardEntry.objects.filter(pk=entry.rating_id).update(
        mu=mu, sigma=sigma, ordinal=mu - 3 * sigma, matches=matches,
        last_played_at=timezone.now())


def test_the_standings_page_by_cursor_with_ranks_intervals_and_chances(
        alice: Any, bob: Any, anon_api: Any, alice_api: Any) -> None:
    bots = [webhook_bot(alice if i % 2 else bob, name=f"bot{i}") for i in range(5)]
    entries = [services.ladder_join(game="dice_cup", user=None, bot=str(b.pk))[0]
               for b in bots]
    for i, entry in enumerate(entries):
        rated(entry, mu=20.0 + i, sigma=2.0)  # bot4 best ... bot0 last
    LadderEntry.objects.filter(pk=entries[3].pk).update(paused=True,
                                                        paused_reason="forfeited 3 matches")
    first = anon_api.get("/api/ladders/dice_cup/", {"limit": 2})
    assert first.status_code == 200, first.content
    body = first.json()
    assert (body["game"], body["entrants"], body["seats"]) == ("dice_cup", 5, 2)
    assert [row["name"] for row in body["standings"]] == ["bot4 (bob)", "bot3 (alice)"]
    assert [row["rank"] for row in body["standings"]] == [1, 2]
    top = body["standings"][0]
    assert top["interval"] == pytest.approx([24 - 1.96 * 2, 24 + 1.96 * 2])
    assert 0.5 < top["ahead_of_next"] < 0.7, "one mu apart, sigma 2 each"
    assert body["standings"][1]["paused"] and body["standings"][1]["paused_reason"] is None
    assert body["previous"] is None
    second = anon_api.get(body["next"]).json()
    assert [row["rank"] for row in second["standings"]] == [3, 4]
    last = anon_api.get(second["next"]).json()
    assert [row["rank"] for row in last["standings"]] == [5]
    assert last["standings"][0]["ahead_of_next"] is None and last["next"] is None
    assert second["standings"][1]["ahead_of_next"] == pytest.approx(
        0.5 * (1 + math.erf(1 / 4))), "Phi(1 / sqrt(8)): the next bot, on the next page"
    mine = alice_api.get("/api/ladders/dice_cup/", {"limit": 2}).json()["standings"][1]
    assert mine["paused_reason"] == "forfeited 3 matches", "its owner reads why"


def test_every_game_has_a_ladder_listed(alice: Any, anon_api: Any) -> None:
    services.ladder_join(game="dice_cup", user=None, bot=str(webhook_bot(alice).pk))
    listed = {row["game"]: row for row in anon_api.get("/api/ladders/").json()}
    assert set(listed) == {"dtc", "great_dalmuti", "dutch", "dice_cup", "dot"}
    assert listed["dice_cup"]["entrants"] == 1 and listed["dice_cup"]["started_at"]
    assert listed["great_dalmuti"] == {**listed["great_dalmuti"], "seats": 4, "entrants": 0,
                                       "started_at": None}
    empty = anon_api.get("/api/ladders/dot/").json()
    assert empty["standings"] == [] and empty["entrants"] == 0
    assert anon_api.get("/api/ladders/chess/").json()["code"] == "game_not_found"


def test_the_schema_documents_the_ladder_endpoints(anon_api: Any) -> None:
    schema = anon_api.get("/api/schema/", {"format": "json"}).json()
    detail = schema["paths"]["/api/ladders/{game}/"]["get"]
    assert {p["name"] for p in detail["parameters"]} >= {"game", "cursor", "limit"}
    assert set(schema["paths"]["/api/ladders/{game}/entries/"]["post"]["responses"]) >= {
        "200", "201", "400", "401", "403", "404"}
    assert "delete" in schema["paths"]["/api/ladders/{game}/entries/{bot}/"]
    matches = schema["paths"]["/api/ladders/{game}/matches/"]["get"]
    assert {p["name"] for p in matches["parameters"]} >= {"game", "cursor"}


def test_a_ladders_matches_list_is_empty_before_any_and_404_for_no_game(anon_api: Any) -> None:
    assert anon_api.get("/api/ladders/dot/matches/").json()["results"] == []
    assert anon_api.get("/api/ladders/chess/matches/").json()["code"] == "game_not_found"


def test_a_ladder_of_another_table_size_by_seats(alice: Any, alice_api: Any,
                                                 anon_api: Any) -> None:
    bot = webhook_bot(alice)
    joined = alice_api.post(entries_url(), {"bot": bot.pk, "seats": 4}, format="json")
    assert joined.status_code == 201 and joined.json()["seats"] == 4
    four = anon_api.get("/api/ladders/dice_cup/", {"seats": 4}).json()
    assert (four["seats"], four["entrants"]) == (4, 1) and len(four["standings"]) == 1
    first = anon_api.get("/api/ladders/dice_cup/").json()
    assert (first["seats"], first["entrants"], first["standings"]) == (2, 0, [])
    listed = [(row["game"], row["seats"]) for row in anon_api.get("/api/ladders/").json()]
    assert listed.index(("dice_cup", 4)) == listed.index(("dice_cup", 2)) + 1
    refused = anon_api.get("/api/ladders/dot/", {"seats": 4}).json()
    assert refused["code"] == "bad_ladder" and "2 players" in refused["detail"]
    assert anon_api.get("/api/ladders/dot/", {"seats": 9}).json()["code"] == "invalid"
    assert alice_api.delete(f"{entries_url()}{bot.pk}/").json()["code"] == "not_on_ladder"
    left = alice_api.delete(f"{entries_url()}{bot.pk}/?seats=4")
    assert left.status_code == 200 and left.json()["left_at"]
