"""Inputs of the wrong type or out of range are 400s as docs/api.md says, never 500s or 422s:
a non-object action, integers beyond what the database holds, unbounded game options."""

from __future__ import annotations

from typing import Any

import pytest

from games.engine import game_ids, get_game
from tests.helpers.matches import act, poll, url

pytestmark = pytest.mark.django_db

HUGE = 10**30


@pytest.mark.parametrize("action", ["commit", ["roll"], 7, None])
def test_an_action_that_is_not_an_object_is_invalid(duel, alice_api, action: Any) -> None:
    version = poll(alice_api, duel, 0).json()["version"]
    response = act(alice_api, duel, 0, version, action)
    assert response.status_code == 400, response.json()
    assert response.json()["code"] == "invalid" and "action" in response.json()["fields"]


def test_a_huge_version_is_invalid(duel, alice_api) -> None:
    response = act(alice_api, duel, 0, HUGE, {"type": "roll"})
    assert response.status_code == 400 and response.json()["code"] == "invalid"
    assert "version" in response.json()["fields"]


@pytest.mark.parametrize("path, params", [
    ("seats/0", {"events_since": HUGE}), ("seats/0", {"wait": 1, "after": HUGE}),
    ("view", {"events_since": HUGE}), ("view", {"wait": 1, "after": HUGE}),
    ("log", {"since": HUGE}),
])
def test_huge_query_integers_are_invalid(duel, alice_api, path: str,
                                         params: dict[str, int]) -> None:
    response = alice_api.get(url(duel, *path.split("/")), params)
    assert response.status_code == 400 and response.json()["code"] == "invalid", response.json()


def test_dice_cup_target_points_is_bounded(alice_api) -> None:
    response = alice_api.post("/api/matches/", {"game": "dice_cup", "players": 2,
                                                "options": {"target_points": HUGE}},
                              format="json")
    assert response.status_code == 400 and response.json()["code"] == "bad_options"


@pytest.mark.parametrize("game_id", game_ids())
def test_every_integer_option_has_bounds(game_id: str) -> None:
    for option in get_game(game_id).describe_options():
        if option["type"] == "integer":
            assert "minimum" in option and "maximum" in option, option


def test_games_list_types_list_options_as_arrays(anon_api) -> None:
    games = {g["id"]: g for g in anon_api.get("/api/games/").json()}
    deck = next(o for o in games["dot"]["options"] if o["name"] == "deck")
    order = next(o for o in games["great_dalmuti"]["options"] if o["name"] == "initial_order")
    assert deck["type"] == order["type"] == "array"


def test_the_schema_bounds_the_integers_clients_send(anon_api) -> None:
    schema = anon_api.get("/api/schema/", {"format": "json"}).json()
    act_input = schema["components"]["schemas"]["SeatActInputRequest"]["properties"]
    assert act_input["version"]["maximum"] == 2**31 - 1
